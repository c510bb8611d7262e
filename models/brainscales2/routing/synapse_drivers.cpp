#include "models/brainscales2/routing/synapse_drivers.h"

#include <cmath>

namespace nmsim::bss2 {
namespace {

constexpr uint32_t field(uint32_t v, uint32_t shift, uint32_t width) {
    return (v >> shift) & ((1u << width) - 1u);
}
constexpr uint32_t field_mask(uint32_t shift, uint32_t width) {
    return ((1u << width) - 1u) << shift;
}
constexpr uint32_t kCfgAllowed =
    field_mask(BSS2_SYNDRV_CFG_ROWMASK_SHIFT, BSS2_SYNDRV_CFG_ROWMASK_WIDTH) |
    field_mask(BSS2_SYNDRV_CFG_LOWER5_SHIFT, BSS2_SYNDRV_CFG_LOWER5_WIDTH) |
    field_mask(BSS2_SYNDRV_CFG_MODE0_SHIFT, BSS2_SYNDRV_CFG_MODE0_WIDTH) |
    field_mask(BSS2_SYNDRV_CFG_MODE1_SHIFT, BSS2_SYNDRV_CFG_MODE1_WIDTH) |
    field_mask(BSS2_SYNDRV_CFG_STP_SHIFT, BSS2_SYNDRV_CFG_STP_WIDTH) |
    field_mask(BSS2_SYNDRV_CFG_ENABLE_SHIFT, BSS2_SYNDRV_CFG_ENABLE_WIDTH) |
    field_mask(BSS2_SYNDRV_CFG_HAGEN_SHIFT, BSS2_SYNDRV_CFG_HAGEN_WIDTH);
constexpr uint32_t kWordsPerDriver = 4u;

bool enabled(uint32_t cfg) {
    return field(cfg, BSS2_SYNDRV_CFG_ENABLE_SHIFT, BSS2_SYNDRV_CFG_ENABLE_WIDTH) != 0;
}
bool stp_on(uint32_t cfg) {
    return field(cfg, BSS2_SYNDRV_CFG_STP_SHIFT, BSS2_SYNDRV_CFG_STP_WIDTH) != 0;
}

}  // namespace

SynapseDrivers::SynapseDrivers(sc_core::sc_module_name name, uint32_t hemi,
                               const SynapseDriverParams& params)
    : sc_core::sc_module(name), m_params(params), m_hemi(hemi) {
    m_dirty.fill(true);
}

std::string SynapseDrivers::where(uint32_t driver, const char* reg) const {
    return "synapse driver (hemi " + std::to_string(m_hemi) + ", driver " + std::to_string(driver) +
           ") " + reg;
}

bool SynapseDrivers::write_config(uint32_t offset, uint32_t data, std::string* error) {
    if (offset >= BSS2_DRIVERS * kWordsPerDriver) {
        if (error) {
            *error = "synapse drivers (hemi " + std::to_string(m_hemi) + "): offset " +
                     std::to_string(offset) + " beyond the 128 drivers";
        }
        return false;
    }
    const uint32_t di = offset / kWordsPerDriver;
    Driver& d = m_drivers[di];
    switch (offset % kWordsPerDriver) {
        case BSS2_SYNDRV_CFG: {
            if (data & ~kCfgAllowed) {
                if (error)
                    *error = where(di, "CFG") + ": reserved bits set in " + std::to_string(data);
                return false;
            }
            const uint32_t m0 =
                field(data, BSS2_SYNDRV_CFG_MODE0_SHIFT, BSS2_SYNDRV_CFG_MODE0_WIDTH);
            const uint32_t m1 =
                field(data, BSS2_SYNDRV_CFG_MODE1_SHIFT, BSS2_SYNDRV_CFG_MODE1_WIDTH);
            if (m0 > BSS2_ROW_INHIBITORY || m1 > BSS2_ROW_INHIBITORY) {
                if (error) {
                    *error = where(di, "CFG") + ": row mode " + std::to_string(m0 > 2 ? m0 : m1) +
                             " invalid (0 disabled, 1 excitatory, 2 inhibitory)";
                }
                return false;
            }
            if (stp_on(data) && !stp_on(d.cfg)) {
                d.r = 1.0;
                d.has_last = false;
            }
            d.cfg = data;
            m_dirty[bss2_driver_bus(di)] = true;
            return true;
        }
        case BSS2_SYNDRV_STP_U:
            if (data > 0xFFu) {
                if (error)
                    *error =
                        where(di, "STP_U") + ": value " + std::to_string(data) + " exceeds 8 bits";
                return false;
            }
            d.stp_u = data;
            return true;
        case BSS2_SYNDRV_STP_TAU_REC:
            d.tau_rec_ns = data;
            return true;
        default:
            d.pulse_ns = data;
            return true;
    }
}

bool SynapseDrivers::read_config(uint32_t offset, uint32_t* data, std::string* error) const {
    if (offset >= BSS2_DRIVERS * kWordsPerDriver) {
        if (error) {
            *error = "synapse drivers (hemi " + std::to_string(m_hemi) + "): offset " +
                     std::to_string(offset) + " beyond the 128 drivers";
        }
        return false;
    }
    const Driver& d = m_drivers[offset / kWordsPerDriver];
    switch (offset % kWordsPerDriver) {
        case BSS2_SYNDRV_CFG:
            *data = d.cfg;
            break;
        case BSS2_SYNDRV_STP_U:
            *data = d.stp_u;
            break;
        case BSS2_SYNDRV_STP_TAU_REC:
            *data = d.tau_rec_ns;
            break;
        default:
            *data = d.pulse_ns;
            break;
    }
    return true;
}

void SynapseDrivers::rebuild_bus(uint32_t bus) {
    for (uint32_t rowsel = 0; rowsel < 32; ++rowsel) {
        std::vector<uint8_t>& list = m_accept[bus][rowsel];
        list.clear();
        for (uint32_t di = bus; di < BSS2_DRIVERS; di += BSS2_PADI_PER_HEMI) {
            const uint32_t cfg = m_drivers[di].cfg;
            if (!enabled(cfg)) continue;
            const uint32_t mask =
                field(cfg, BSS2_SYNDRV_CFG_ROWMASK_SHIFT, BSS2_SYNDRV_CFG_ROWMASK_WIDTH);
            if (bss2_driver_accepts(bss2_driver_index(di), mask, rowsel)) {
                list.push_back(static_cast<uint8_t>(di));
            }
        }
    }
    m_dirty[bus] = false;
}

double SynapseDrivers::efficacy(Driver& d, uint64_t t_ps) {
    if (!stp_on(d.cfg)) return 1.0;
    if (d.has_last) {
        // Events slightly out of order (a neuron spike found inside an integration step) see no
        // recovery rather than a negative interval.
        const double dt_ns =
            t_ps > d.t_last_ps ? static_cast<double>(t_ps - d.t_last_ps) * 1e-3 : 0.0;
        if (d.tau_rec_ns == 0) {
            d.r = 1.0;
        } else {
            d.r = 1.0 - (1.0 - d.r) * std::exp(-dt_ns / static_cast<double>(d.tau_rec_ns));
        }
    }
    const double eff = d.r;
    d.r -= static_cast<double>(d.stp_u) / 256.0 * d.r;
    if (!d.has_last || t_ps > d.t_last_ps) d.t_last_ps = t_ps;
    d.has_last = true;
    return eff;
}

void SynapseDrivers::input(uint32_t bus, uint32_t padi11, uint64_t t_ps) {
    if (bus >= BSS2_PADI_PER_HEMI || padi11 > BSS2_PADI_MASK) {
        ++m_malformed;
        return;
    }
    ++m_events_in[bus];
    if (m_dirty[bus]) rebuild_bus(bus);
    const std::vector<uint8_t>& list = m_accept[bus][bss2_padi_rowsel(padi11)];
    if (list.empty()) {
        ++m_unmatched;
        return;
    }
    const uint64_t t_out = t_ps + static_cast<uint64_t>(m_params.latency.ps);
    const uint32_t label = bss2_padi_synlabel(padi11);
    for (const uint8_t di : list) {
        Driver& d = m_drivers[di];
        ++m_driver_events;
        const bool hagen =
            field(d.cfg, BSS2_SYNDRV_CFG_HAGEN_SHIFT, BSS2_SYNDRV_CFG_HAGEN_WIDTH) != 0;
        const bool lower5 =
            !hagen && field(d.cfg, BSS2_SYNDRV_CFG_LOWER5_SHIFT, BSS2_SYNDRV_CFG_LOWER5_WIDTH) != 0;
        const uint32_t label6 = lower5 ? label : (label & 0x20u);
        double eff = 0;
        if (hagen) {
            // The activation sets the pulse length in whole steps (grenade's label 32 - x).
            const uint32_t x = (32u - (label & 0x1Fu)) & 0x1Fu;
            if (x == 0) {
                ++m_hagen_zero;
                continue;
            }
            eff = static_cast<double>(x);
            ++m_hagen_pulses;
        } else {
            eff = efficacy(d, t_ps);
        }
        const uint32_t modes[2] = {
            field(d.cfg, BSS2_SYNDRV_CFG_MODE0_SHIFT, BSS2_SYNDRV_CFG_MODE0_WIDTH),
            field(d.cfg, BSS2_SYNDRV_CFG_MODE1_SHIFT, BSS2_SYNDRV_CFG_MODE1_WIDTH)};
        for (uint32_t k = 0; k < 2; ++k) {
            if (modes[k] == BSS2_ROW_DISABLED) continue;
            ++m_row_events;
            if (!m_rows) {
                ++m_unbound;
                continue;
            }
            m_rows(2u * di + k, label6, eff, modes[k] == BSS2_ROW_INHIBITORY, t_out);
        }
    }
}

EventSink SynapseDrivers::bus_sink(uint32_t bus) {
    return [this, bus](uint32_t padi, uint64_t t_ps) { input(bus, padi, t_ps); };
}

void SynapseDrivers::write_summary(nmsim::trace::Sink& sink, nmsim::trace::ComponentId c) const {
    for (uint32_t b = 0; b < BSS2_PADI_PER_HEMI; ++b) {
        sink.counter(c, "bus" + std::to_string(b) + ".events", "1",
                     static_cast<double>(m_events_in[b]));
    }
    sink.counter(c, "unmatched", "1", static_cast<double>(m_unmatched));
    sink.counter(c, "driver_events", "1", static_cast<double>(m_driver_events));
    sink.counter(c, "row_events", "1", static_cast<double>(m_row_events));
    sink.counter(c, "malformed", "1", static_cast<double>(m_malformed));
    sink.counter(c, "unbound", "1", static_cast<double>(m_unbound));
    sink.counter(c, "hagen_pulses", "1", static_cast<double>(m_hagen_pulses));
    sink.counter(c, "hagen_zero", "1", static_cast<double>(m_hagen_zero));
}

}  // namespace nmsim::bss2
