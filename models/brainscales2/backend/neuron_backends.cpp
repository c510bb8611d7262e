#include "models/brainscales2/backend/neuron_backends.h"

#include <string>

namespace nmsim::bss2 {

NeuronBackends::NeuronBackends(sc_core::sc_module_name name, const NeuronBackendParams& p)
    : sc_core::sc_module(name),
      m_latency_ps(static_cast<uint64_t>(p.latency.ps)),
      m_addr(BSS2_NEURONS, 0),
      m_fire(BSS2_NEURONS, false) {}

void NeuronBackends::configure(uint32_t neuron, uint32_t addr8, bool fire) {
    m_addr.at(neuron) = addr8 & 0xFFu;
    m_fire.at(neuron) = fire;
}

void NeuronBackends::spike(uint32_t neuron, uint64_t t_ps) {
    if (!m_fire.at(neuron)) {
        ++m_silent;
        return;
    }
    const uint32_t col = neuron % BSS2_COLUMNS;
    const uint32_t ch = bss2_neuron_channel(col);
    ++m_events[ch];
    if (m_out) m_out(ch, bss2_neuron_event(col, m_addr[neuron]), t_ps + m_latency_ps);
}

void NeuronBackends::write_summary(trace::Sink& sink, trace::ComponentId c) const {
    for (uint32_t ch = 0; ch < BSS2_NEURON_CHANNELS; ++ch)
        sink.counter(c, "events_channel_" + std::to_string(ch), "1",
                     static_cast<double>(m_events[ch]));
    sink.counter(c, "silent_spikes", "1", static_cast<double>(m_silent));
}

}  // namespace nmsim::bss2
