#include "models/brainscales2/routing/l2_link.h"

#include <string>

#include "nmsim/hw/brainscales2/bss2_map.h"

namespace nmsim::bss2 {

L2Link::L2Link(sc_core::sc_module_name name, const L2LinkParams& params)
    : sc_core::sc_module(name), m_params(params) {}

void L2Link::input(uint32_t event16, uint64_t t_ps) {
    if (event16 > 0xFFFFu) {
        ++m_malformed;
        return;
    }
    const uint32_t channel = event16 >> BSS2_L2_CHANNEL_SHIFT;
    ++m_in[channel];
    if (!m_crossbar) {
        ++m_unbound;
        return;
    }
    m_crossbar(BSS2_XIN_L2(channel), event16 & BSS2_LABEL14_MASK,
               t_ps + static_cast<uint64_t>(m_params.latency.ps));
}

void L2Link::crossbar_output(uint32_t channel, uint32_t label14, uint64_t t_ps) {
    if (channel >= BSS2_L2_CHANNELS || label14 > BSS2_LABEL14_MASK) {
        ++m_malformed;
        return;
    }
    ++m_out_count[channel];
    if (!m_out) {
        ++m_unbound;
        return;
    }
    m_out(bss2_l2_event(channel, label14), t_ps + static_cast<uint64_t>(m_params.latency.ps));
}

EventSink L2Link::crossbar_output_sink(uint32_t channel) {
    return
        [this, channel](uint32_t label, uint64_t t_ps) { crossbar_output(channel, label, t_ps); };
}

void L2Link::write_summary(nmsim::trace::Sink& sink, nmsim::trace::ComponentId c) const {
    for (uint32_t ch = 0; ch < BSS2_L2_CHANNELS; ++ch) {
        const std::string n = std::to_string(ch);
        sink.counter(c, "events_in.ch" + n, "1", static_cast<double>(m_in[ch]));
        sink.counter(c, "events_out.ch" + n, "1", static_cast<double>(m_out_count[ch]));
    }
    sink.counter(c, "malformed", "1", static_cast<double>(m_malformed));
    sink.counter(c, "unbound", "1", static_cast<double>(m_unbound));
}

}  // namespace nmsim::bss2
