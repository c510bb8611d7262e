// The result of mapping and routing a Network onto one BrainScaleS-2 chip (seed 004 Listing 21):
// where every population sits and the exact configuration of every routing entity used. The
// signal-flow graph (signal_graph.h) is built canonically from it, and the chip configuration
// writes are lowered from that graph. Geometry and formats: firmware/include/nmsim/hw/
// brainscales2/bss2_map.h. Plain C++: no SystemC, no models.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "tools/compiler/bss2/network.h"

namespace nmsim::compiler::bss2 {

struct XbarNodeCfg {  // crossbar node (in, out) enabled with its filter
    uint32_t in = 0, out = 0;
    uint32_t mask = 0, target = 0;  // 14 bit each
};

struct DriverCfg {  // synapse driver `driver` (0..127) of hemisphere `hemi`, enabled
    uint32_t hemi = 0, driver = 0;
    uint32_t row_mask = 0x1F;  // 5-bit row-select compare mask
    bool lower5 = true;        // forward the low 5 label bits
    uint32_t mode[2] = {0, 0}; // rows 2d, 2d+1: BSS2_ROW_DISABLED / _EXCITATORY / _INHIBITORY
    bool stp = false;
    double stp_u = 1.0;        // utilisation (stp only)
    double stp_tau_rec = 0.0;  // us (stp only)
    bool hagen = false;        // hagen mode: the label's low 5 bits set the pulse length
};

struct SynapseCfg {  // one synapse cell in use
    uint32_t hemi = 0, row = 0, col = 0;
    uint32_t weight = 0;  // 0..63
    uint32_t label = 0;   // 6 bit
};

struct NeuronSlot {  // an on-chip neuron
    uint32_t hemi = 0, col = 0;
    uint32_t addr = 0;  // 8-bit event address (neuron event = channel << 8 | addr)
};

struct BackgroundCfg {  // background generator `index` (0..7) driving one background population
    uint32_t index = 0;
    bool poisson = true;
    uint32_t period = 1;  // generator clock cycles
    uint32_t rate = 0;    // 8 bit (Poisson: p = rate / 256 per period)
    uint32_t mask = 0;    // 8 bit: randomised low label bits
    uint32_t label = 0;   // 14-bit base label
};

struct PopulationPlacement {
    PopulationKind kind = PopulationKind::internal;
    std::vector<NeuronSlot> neurons;  // internal: one per neuron
    // external: the 16-bit L2 event the FPGA injects for each neuron of the population.
    std::vector<uint32_t> l2_events;
    // background: the generator, and the 14-bit crossbar label of each neuron (label | i).
    BackgroundCfg background;
    std::vector<uint32_t> labels;
};

struct ProjectionPlacement {
    // One entry per Projection::connections[i]: index into Placement::synapses.
    std::vector<size_t> synapses;
};

struct Placement {
    std::vector<PopulationPlacement> populations;  // indexed like Network::populations
    std::vector<ProjectionPlacement> projections;  // indexed like Network::projections
    std::vector<XbarNodeCfg> nodes;
    std::vector<DriverCfg> drivers;
    std::vector<SynapseCfg> synapses;
    std::vector<uint32_t> padi_buses;  // enabled buses: hemi * 4 + bus
    // Recorded spikes as they reach the FPGA (16-bit L2 output event) -> (population, neuron).
    std::map<uint32_t, std::pair<size_t, size_t>> output_events;
};

struct RouteOptions {
    uint64_t seed = 1;  // tie-breaking only; routing is deterministic for a given seed
};

// Places and routes `net` (throws NetworkError naming the projection or population and the
// exhausted resource: neurons, synapse rows of a PADI bus, synapse labels, crossbar channels,
// background generators, ...).
Placement map_and_route(const Network& net, const RouteOptions& opt = {});

// Checks `pl` against the hardware forwarding rules of bss2_map.h, independently of how it was
// made: for every source (external neuron, on-chip neuron, background label) the set of synapses
// its event reaches through the enabled crossbar nodes, PADI buses, driver filters and synapse
// labels must be exactly the synapses of its connections, with their weights and receptor (row
// mode), and every synapse's column must be its target neuron's column. Returns the problems
// found (empty = correct).
std::vector<std::string> verify_routing(const Network& net, const Placement& pl);

}  // namespace nmsim::compiler::bss2
