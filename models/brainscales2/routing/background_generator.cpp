#include "models/brainscales2/routing/background_generator.h"

#include <cmath>

#include "models/common/seeding.h"
#include "nmsim/hw/brainscales2/bss2_map.h"

namespace nmsim::bss2 {
namespace {

using nmsim::splitmix64;

constexpr uint32_t kCfgAllowed = BSS2_BG_CFG_ENABLE | BSS2_BG_CFG_POISSON;

}  // namespace

BackgroundGenerator::BackgroundGenerator(sc_core::sc_module_name name, uint32_t index,
                                         const BackgroundParams& params, uint64_t seed)
    : sc_core::sc_module(name),
      m_params(params),
      m_index(index),
      m_clock_ps(static_cast<uint64_t>(params.clock.period_ps())),
      m_rng(splitmix64(splitmix64(seed) ^ (0x243F6A8885A308D3ull * (index + 1u)))) {
    SC_THREAD(run);
}

bool BackgroundGenerator::write_config(uint32_t offset, uint32_t data, std::string* error) {
    const std::string where = "background generator " + std::to_string(m_index);
    auto fail = [&](const std::string& msg) {
        if (error) *error = where + " " + msg;
        return false;
    };
    switch (offset) {
        case BSS2_BG_CFG:
            if (data & ~kCfgAllowed)
                return fail("CFG: reserved bits set in " + std::to_string(data));
            if ((data & BSS2_BG_CFG_ENABLE) && m_period == 0) {
                return fail("CFG: enabled with PERIOD 0 (the period must be >= 1 cycle)");
            }
            m_cfg = data;
            break;
        case BSS2_BG_PERIOD:
            if (data > 0xFFFFu)
                return fail("PERIOD: value " + std::to_string(data) + " exceeds 16 bits");
            if (data == 0 && (m_cfg & BSS2_BG_CFG_ENABLE)) {
                return fail("PERIOD: 0 while enabled (the period must be >= 1 cycle)");
            }
            m_period = data;
            break;
        case BSS2_BG_RATE:
            if (data > 0xFFFFu) {
                return fail("RATE: value " + std::to_string(data) +
                            " exceeds bits 15:0 (rate 7:0, mask 15:8)");
            }
            m_rate = data;
            break;
        case BSS2_BG_LABEL:
            if (data > BSS2_LABEL14_MASK)
                return fail("LABEL: value " + std::to_string(data) + " exceeds 14 bits");
            m_label = data;
            break;
        default:
            return fail("offset " + std::to_string(offset) + " does not exist");
    }
    restart();
    return true;
}

bool BackgroundGenerator::read_config(uint32_t offset, uint32_t* data, std::string* error) const {
    switch (offset) {
        case BSS2_BG_CFG:
            *data = m_cfg;
            return true;
        case BSS2_BG_PERIOD:
            *data = m_period;
            return true;
        case BSS2_BG_RATE:
            *data = m_rate;
            return true;
        case BSS2_BG_LABEL:
            *data = m_label;
            return true;
        default:
            if (error) {
                *error = "background generator " + std::to_string(m_index) + ": offset " +
                         std::to_string(offset) + " does not exist";
            }
            return false;
    }
}

void BackgroundGenerator::restart() {
    ++m_generation;
    m_running = (m_cfg & BSS2_BG_CFG_ENABLE) != 0;
    if (m_running) {
        const uint64_t now = sc_core::sc_time_stamp().value();
        m_start_ps = (now / m_clock_ps + 1u) * m_clock_ps;
        m_next_bin = draw_gap();
    }
    m_wake.notify(sc_core::SC_ZERO_TIME);
}

uint64_t BackgroundGenerator::draw_gap() {
    if (!(m_cfg & BSS2_BG_CFG_POISSON)) return 1;
    const uint32_t rate = m_rate & 0xFFu;
    if (rate == 0) return 0;
    // Bins until the first success of a Bernoulli(p) sequence: 1 + floor(ln u / ln(1 - p)),
    // u uniform in (0, 1].
    const double p = static_cast<double>(rate) / 256.0;
    const double u = (static_cast<double>(m_rng() >> 11) + 1.0) * 0x1.0p-53;
    return 1u + static_cast<uint64_t>(std::floor(std::log(u) / std::log1p(-p)));
}

void BackgroundGenerator::run() {
    for (;;) {
        if (!m_running || m_next_bin == 0) {
            sc_core::wait(m_wake);
            continue;
        }
        const uint64_t gen = m_generation;
        const uint64_t bin_ps = static_cast<uint64_t>(m_period) * m_clock_ps;
        const uint64_t t_ev = m_start_ps + m_next_bin * bin_ps;
        const uint64_t now = sc_core::sc_time_stamp().value();
        if (t_ev > now) {
            sc_core::wait(sc_core::sc_time::from_value(t_ev - now), m_wake);
            if (gen != m_generation) continue;                      // reconfigured meanwhile
            if (sc_core::sc_time_stamp().value() < t_ev) continue;  // spurious wake-up
        }
        const uint32_t mask = (m_rate >> 8) & 0xFFu;
        const uint32_t random8 = static_cast<uint32_t>(m_rng() >> 56);
        const uint32_t label = (m_label & ~mask) | (random8 & mask);
        ++m_events;
        if (m_sink) {
            m_sink(label, t_ev);
        } else {
            ++m_unbound;
        }
        const uint64_t gap = draw_gap();
        m_next_bin = gap ? m_next_bin + gap : 0;
    }
}

void BackgroundGenerator::write_summary(nmsim::trace::Sink& sink,
                                        nmsim::trace::ComponentId c) const {
    sink.counter(c, "events", "1", static_cast<double>(m_events));
    sink.counter(c, "unbound", "1", static_cast<double>(m_unbound));
}

}  // namespace nmsim::bss2
