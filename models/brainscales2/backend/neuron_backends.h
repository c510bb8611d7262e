// The 512 neuron back ends of BrainScaleS-2 (seed 004 section 3.1.2, Fig. 3.4, Table 3.2 "neuron
// back end: spike detector"): when a neuron's membrane crosses threshold, its back end emits a
// 14-bit crossbar event on the neuron's output channel (column / 32, both hemispheres share the
// channels), channel << 8 | the neuron's configurable 8-bit address, after `latency`. A neuron
// whose fire flag is off spikes (resets) but emits nothing. Configuration: the address and fire
// flag come from the neuron's configuration words (BSS2_NRN_ADDR_OUT, BSS2_NRN_CFG_FIRE), which
// the chip assembly forwards with configure().
#pragma once

#include <systemc>

#include <array>
#include <cstdint>
#include <functional>
#include <vector>

#include "models/common/param.h"
#include "nmsim/hw/brainscales2/bss2_map.h"
#include "nmsim/trace/sink.h"

namespace nmsim::bss2 {

struct NeuronBackendParams {
    NMSIM_PARAMSET(NeuronBackendParams);
    NMSIM_PARAM(
        Time, latency, Time::from_ns(4), "", range(0, 1e9),
        "from the membrane's threshold crossing to the event entering the crossbar",
        "assumed: one cycle of the 250 MHz reference clock (hardware_facts.md B1); no public "
        "source gives event latencies (hardware_facts.md S-U)");
};

class NeuronBackends : public sc_core::sc_module {
public:
    // Crossbar input (= output channel 0..7), 14-bit event, time.
    using Output = std::function<void(uint32_t channel, uint32_t label14, uint64_t t_ps)>;

    NeuronBackends(sc_core::sc_module_name name, const NeuronBackendParams& p);

    void configure(uint32_t neuron, uint32_t addr8, bool fire);
    void bind_output(Output out) { m_out = std::move(out); }
    // Neuron `neuron` (hemi * 256 + column) crossed threshold at t_ps.
    void spike(uint32_t neuron, uint64_t t_ps);

    uint64_t events(uint32_t channel) const { return m_events[channel % BSS2_NEURON_CHANNELS]; }
    uint64_t silent() const { return m_silent; }  // spikes of neurons without the fire flag
    void write_summary(trace::Sink& sink, trace::ComponentId c) const;

private:
    uint64_t m_latency_ps;
    std::vector<uint32_t> m_addr;
    std::vector<bool> m_fire;
    Output m_out;
    std::array<uint64_t, BSS2_NEURON_CHANNELS> m_events{};
    uint64_t m_silent = 0;
};

}  // namespace nmsim::bss2
