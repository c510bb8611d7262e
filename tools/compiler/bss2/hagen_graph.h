// A hagen-mode product as a signal-flow graph of the graph compiler (graph.h), the way grenade
// builds its MAC graphs: one execution instance per (chip, configuration pass), holding the
// hardware vertices of that pass's tiles (one per chip half); host digital operations turn the
// input vectors into events, the CADC samples into int8 results, sum the row splits and join
// the column splits. The static configuration of every instance is the graph's lowering
// (lowering.h), so the graph checks (ports, shapes, placement compatibility) apply to every
// product. docs/bss2_hagen.md, "The product as a signal-flow graph".
#pragma once

#include <vector>

#include "tools/compiler/bss2/graph.h"
#include "tools/compiler/bss2/hagen_ops.h"
#include "tools/compiler/bss2/hagen_program.h"
#include "tools/compiler/bss2/lowering.h"

namespace nmsim::compiler::bss2::hagen {

struct MacGraph {
    Graph graph;
    VertexDescriptor input = 0;   // VectorInput: the product's input vectors (data key)
    VertexDescriptor output = 0;  // the int8 result of the whole product
    // Per (chip, pass) with tiles, in pass order then chip order: its execution instance and
    // the indices of its tiles in the plan (one or two, on different halves).
    struct Group {
        ExecutionInstance instance;
        std::vector<size_t> tiles;
    };
    std::vector<Group> groups;
    std::vector<VertexDescriptor> results;  // per plan tile: its MACResult vertex
};

// The graph of `plan` for weights w (in x out, range-checked) and the vectors' timing. Throws
// OperatorError for bad weights, GraphError if the graph compiler rejects it.
MacGraph build_mac_graph(const MatmulPlan& plan, const IntMatrix& w, const VectorTiming& timing);

// The neuron properties of an integrating hagen neuron: reset potential 600 mV (CADC code 128),
// no leak; the time constants only have to be valid.
NeuronProperties integrator_neuron();

}  // namespace nmsim::compiler::bss2::hagen
