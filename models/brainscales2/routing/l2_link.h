// The layer-2 (chip-external) event interface of BrainScaleS-2: the one external input channel
// is split onto the four L2 crossbar inputs and the four L2 crossbar outputs are merged into the
// one external output channel (seed 004 section 3.1.2; docs/hardware_facts.md S-B.4).
//   input:  16-bit event -> crossbar input BSS2_XIN_L2(ev >> 14) with label ev & 0x3fff
//   output: crossbar output BSS2_XOUT_L2(ch) label -> 16-bit event ch << 14 | label
#pragma once

#include <systemc>

#include <array>
#include <cstdint>
#include <functional>

#include "models/brainscales2/routing/event_sink.h"
#include "models/common/param.h"
#include "nmsim/trace/sink.h"

namespace nmsim::bss2 {

struct L2LinkParams {
    NMSIM_PARAMSET(L2LinkParams);
    NMSIM_PARAM(nmsim::Time, latency, nmsim::Time::from_ps(0), "", nmsim::range(0, 1e9),
                "delay of the split (into the crossbar) and of the merge (out of the crossbar)",
                "assumed: 0, the link serialisation delay belongs to the FPGA link model; the "
                "split/merge is a static bit mapping (seed 004 section 3.1.2)");
};

class L2Link : public sc_core::sc_module {
public:
    using CrossbarInput = std::function<void(uint32_t in, uint32_t label14, uint64_t t_ps)>;

    L2Link(sc_core::sc_module_name name, const L2LinkParams& params = L2LinkParams{});

    // An external event from the FPGA. Bits above 15 cannot be sent over the link: such an event
    // is counted as malformed and dropped.
    void input(uint32_t event16, uint64_t t_ps);
    // An event leaving the crossbar on L2 output channel `channel` (0..3, crossbar output 8 + ch).
    void crossbar_output(uint32_t channel, uint32_t label14, uint64_t t_ps);
    // A sink for crossbar output BSS2_XOUT_L2(channel), to bind into the crossbar.
    EventSink crossbar_output_sink(uint32_t channel);

    void bind_crossbar(CrossbarInput fn) { m_crossbar = std::move(fn); }
    void bind_out(EventSink fn) { m_out = std::move(fn); }

    uint64_t events_in(uint32_t channel) const { return m_in[channel & 3u]; }
    uint64_t events_out(uint32_t channel) const { return m_out_count[channel & 3u]; }
    uint64_t malformed() const { return m_malformed; }
    uint64_t unbound() const { return m_unbound; }
    void write_summary(nmsim::trace::Sink& sink, nmsim::trace::ComponentId c) const;

private:
    L2LinkParams m_params;
    CrossbarInput m_crossbar;
    EventSink m_out;
    std::array<uint64_t, 4> m_in{};
    std::array<uint64_t, 4> m_out_count{};
    uint64_t m_malformed = 0;
    uint64_t m_unbound = 0;  // events with no sink bound in their direction
};

}  // namespace nmsim::bss2
