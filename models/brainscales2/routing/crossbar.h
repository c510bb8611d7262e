// The BrainScaleS-2 routing crossbar ("layer 1"): 20 inputs x 12 outputs of 14-bit events
// (seed 004 section 3.1.2, Fig. 3.2; docs/hardware_facts.md S-B.4). A node (in, out) exists only
// where bss2_xbar_node_exists says so (76 nodes); an enabled node forwards an event of its input
// to its output iff (label & mask) == target. Labels are never altered. An event may leave on
// several outputs (fan-out). Congestion inside the crossbar is not modelled (the seed disregards
// it; the PADI buses model the contention that matters): every forwarded event leaves after a
// fixed latency.
//
// Configuration (offsets relative to BSS2_XBAR_BASE): node (in, out) at (in * 12 + out) * 2,
//   +0 (BSS2_XBAR_MASK): bits 13:0 mask, bit 16 enable; +1 (BSS2_XBAR_TARGET): bits 13:0 target.
#pragma once

#include <systemc>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "models/brainscales2/routing/event_sink.h"
#include "models/common/param.h"
#include "nmsim/hw/brainscales2/bss2_map.h"
#include "nmsim/trace/sink.h"

namespace nmsim::bss2 {

struct CrossbarParams {
    NMSIM_PARAMSET(CrossbarParams);
    NMSIM_PARAM(nmsim::Time, latency, nmsim::Time::from_ns(4), "", nmsim::range(0, 1e9),
                "delay from a crossbar input to its outputs",
                "assumed: a registered digital stage of one or two clock cycles; the public "
                "sources give no crossbar latency (hardware_facts.md E)");
};

class Crossbar : public sc_core::sc_module {
public:
    static constexpr uint32_t kWords = BSS2_XBAR_INPUTS * BSS2_XBAR_OUTPUTS * 2u;

    Crossbar(sc_core::sc_module_name name, const CrossbarParams& params = CrossbarParams{});

    bool write_config(uint32_t offset, uint32_t data, std::string* error);
    bool read_config(uint32_t offset, uint32_t* data, std::string* error) const;

    void bind_output(uint32_t out, EventSink sink);
    // An event with a 14-bit label entering input `in` at t_ps.
    void input(uint32_t in, uint32_t label14, uint64_t t_ps);
    // A sink that feeds input `in` (for the background generators and neuron channels).
    EventSink input_sink(uint32_t in);

    uint64_t events_in(uint32_t in) const { return m_in_events[in]; }
    uint64_t unrouted(uint32_t in) const { return m_unrouted[in]; }  // matched no node
    uint64_t events_out(uint32_t out) const { return m_out_events[out]; }
    uint64_t malformed() const { return m_malformed; }
    uint64_t unbound() const { return m_unbound; }
    void write_summary(nmsim::trace::Sink& sink, nmsim::trace::ComponentId c) const;

private:
    struct Node {
        uint32_t mask_word = 0;  // as written: mask | enable << 16
        uint32_t target = 0;
    };
    struct Route {
        uint32_t out, mask, target;
    };
    void rebuild_input(uint32_t in);

    CrossbarParams m_params;
    std::array<Node, BSS2_XBAR_INPUTS * BSS2_XBAR_OUTPUTS> m_nodes{};
    std::array<std::vector<Route>, BSS2_XBAR_INPUTS> m_routes;  // enabled nodes per input
    std::array<EventSink, BSS2_XBAR_OUTPUTS> m_sinks;
    std::array<uint64_t, BSS2_XBAR_INPUTS> m_in_events{};
    std::array<uint64_t, BSS2_XBAR_INPUTS> m_unrouted{};
    std::array<uint64_t, BSS2_XBAR_OUTPUTS> m_out_events{};
    uint64_t m_malformed = 0;  // input index or label out of range
    uint64_t m_unbound = 0;    // forwarded to an output with no sink
};

}  // namespace nmsim::bss2
