#include "models/brainscales2/routing/padi_bus.h"

#include <algorithm>

#include "nmsim/hw/brainscales2/bss2_map.h"

namespace nmsim::bss2 {

PadiBus::PadiBus(sc_core::sc_module_name name, uint32_t hemi, uint32_t bus,
                 const PadiBusParams& params)
    : sc_core::sc_module(name), m_params(params), m_hemi(hemi), m_bus(bus) {}

bool PadiBus::write_config(uint32_t offset, uint32_t data, std::string* error) {
    const std::string where =
        "PADI bus (hemi " + std::to_string(m_hemi) + ", bus " + std::to_string(m_bus) + ")";
    if (offset != 0) {
        if (error) *error = where + ": offset " + std::to_string(offset) + " does not exist";
        return false;
    }
    if (data & ~1u) {
        if (error) *error = where + " CFG: reserved bits set in " + std::to_string(data);
        return false;
    }
    m_enabled = (data & 1u) != 0;
    return true;
}

bool PadiBus::read_config(uint32_t offset, uint32_t* data, std::string* error) const {
    if (offset != 0) {
        if (error) {
            *error = "PADI bus (hemi " + std::to_string(m_hemi) + ", bus " + std::to_string(m_bus) +
                     "): offset " + std::to_string(offset) + " does not exist";
        }
        return false;
    }
    *data = m_enabled ? 1u : 0u;
    return true;
}

void PadiBus::input(uint32_t label14, uint64_t t_ps) {
    if (label14 > BSS2_LABEL14_MASK) {
        ++m_malformed;
        return;
    }
    if (!m_enabled) {
        ++m_disabled;
        return;
    }
    const uint64_t interval = static_cast<uint64_t>(m_params.min_interval.ps);
    const uint64_t start = std::max(t_ps, m_busy_until);
    const uint64_t wait = start - t_ps;
    if (wait > static_cast<uint64_t>(m_params.fifo_depth) * interval) {
        ++m_drops;
        if (m_trace) {
            PadiDropRecord rec{};
            rec.t_ps = t_ps;
            rec.component = m_component;
            rec.label = static_cast<uint16_t>(label14);
            rec.hemi = static_cast<uint8_t>(m_hemi);
            rec.bus = static_cast<uint8_t>(m_bus);
            m_trace->append(m_drop_table, &rec);
        }
        return;
    }
    m_busy_until = start + interval;
    ++m_events;
    m_sum_delay_ps += wait;
    m_max_delay_ps = std::max(m_max_delay_ps, wait);
    if (m_sink) {
        m_sink(label14 & BSS2_PADI_MASK, start + static_cast<uint64_t>(m_params.latency.ps));
    } else {
        ++m_unbound;
    }
}

void PadiBus::attach_trace(nmsim::trace::Sink* sink) {
    m_trace = sink;
    if (!sink) return;
    m_drop_table = sink->declare_table(PadiDropRecord_schema());
    m_component = sink->component(name());
}

void PadiBus::write_summary(nmsim::trace::Sink& sink, nmsim::trace::ComponentId c) const {
    sink.counter(c, "events", "1", static_cast<double>(m_events));
    sink.counter(c, "drops", "1", static_cast<double>(m_drops));
    sink.counter(c, "disabled", "1", static_cast<double>(m_disabled));
    sink.counter(c, "unbound", "1", static_cast<double>(m_unbound));
    sink.counter(c, "malformed", "1", static_cast<double>(m_malformed));
    sink.counter(c, "max_delay", "ps", static_cast<double>(m_max_delay_ps));
    sink.counter(
        c, "mean_delay", "ps",
        m_events ? static_cast<double>(m_sum_delay_ps) / static_cast<double>(m_events) : 0.0);
}

}  // namespace nmsim::bss2
