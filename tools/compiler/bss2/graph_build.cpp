// build_graph: the canonical signal-flow graph of a placed and routed network (graph.h).
#include <algorithm>
#include <set>
#include <string>

#include "tools/compiler/bss2/graph.h"

namespace nmsim::compiler::bss2 {

namespace {

std::string node_str(const XbarNodeCfg& n) {
    return "crossbar node (in " + std::to_string(n.in) + ", out " + std::to_string(n.out) + ")";
}

void link(std::map<size_t, std::vector<VertexDescriptor>>& fwd,
          std::map<VertexDescriptor, std::vector<size_t>>& inv, size_t element,
          VertexDescriptor v) {
    auto& f = fwd[element];
    if (std::find(f.begin(), f.end(), v) == f.end()) f.push_back(v);
    auto& i = inv[v];
    if (std::find(i.begin(), i.end(), element) == i.end()) i.push_back(element);
}

}  // namespace

Graph build_graph(const Network& net, const Placement& pl, ExecutionInstance inst,
                  GraphMapping* mapping) {
    if (pl.populations.size() != net.populations.size() ||
        pl.projections.size() != net.projections.size())
        throw GraphError("build_graph: placement does not match the network (" +
                         std::to_string(pl.populations.size()) + " populations, " +
                         std::to_string(pl.projections.size()) + " projections placed for " +
                         std::to_string(net.populations.size()) + " and " +
                         std::to_string(net.projections.size()) + ")");
    GraphMapping m;
    m.output_events = pl.output_events;
    Graph g;

    // External input chain (one for all external populations).
    bool any_external = false;
    for (const auto& p : net.populations) any_external |= p.kind == PopulationKind::external;
    for (const auto& n : pl.nodes) any_external |= n.in >= BSS2_XIN_L2(0) && n.in < BSS2_XIN_BG(0);
    std::optional<VertexDescriptor> l2in;
    if (any_external) {
        m.external_input = g.add(ExternalInput{}, inst, {});
        m.data_input = g.add(DataInput{}, inst, {*m.external_input});
        l2in = g.add(CrossbarL2Input{}, inst, {*m.data_input});
    }

    // External populations and background generators.
    std::map<uint32_t, VertexDescriptor> background;  // generator index -> vertex
    for (size_t p = 0; p < net.populations.size(); ++p) {
        const auto& pop = net.populations[p];
        if (pop.kind == PopulationKind::external) {
            m.input_events[p] = pl.populations[p].l2_events;
            link(m.populations, m.vertex_populations, p, *m.external_input);
        } else if (pop.kind == PopulationKind::background) {
            const BackgroundCfg& cfg = pl.populations[p].background;
            if (background.count(cfg.index))
                throw GraphError("build_graph: population '" + pop.name +
                                 "' shares background generator " + std::to_string(cfg.index));
            background[cfg.index] = g.add(BackgroundSpikeSource{cfg}, inst, {});
            link(m.populations, m.vertex_populations, p, background[cfg.index]);
        }
    }

    // Crossbar nodes fed from outside the neuron array (L2 inputs, background generators).
    std::vector<std::pair<XbarNodeCfg, VertexDescriptor>> outer_nodes;
    for (const auto& n : pl.nodes) {
        if (n.in < BSS2_XIN_L2(0)) continue;
        const CrossbarNode v{n.in, n.out, n.mask, n.target};
        if (n.in < BSS2_XIN_BG(0)) {
            const size_t ch = n.in - BSS2_XIN_L2(0);
            outer_nodes.push_back({n, g.add(v, inst, {Input(*l2in, PortRestriction{ch, ch})})});
        } else {
            auto it = background.find(n.in - BSS2_XIN_BG(0));
            if (it == background.end())
                throw GraphError("build_graph: " + node_str(n) +
                                 " reads a background generator no population uses");
            outer_nodes.push_back({n, g.add(v, inst, {it->second})});
        }
    }

    // Neurons per hemisphere.
    struct HemiNeurons {
        std::map<uint32_t, NeuronView::Neuron> by_column;
        std::vector<size_t> populations;
    };
    std::map<uint32_t, HemiNeurons> hemis;
    for (size_t p = 0; p < net.populations.size(); ++p) {
        const auto& pop = net.populations[p];
        if (pop.kind != PopulationKind::internal) continue;
        const auto& slots = pl.populations[p].neurons;
        for (size_t i = 0; i < slots.size(); ++i) {
            const NeuronSlot& s = slots[i];
            NeuronView::Neuron nrn;
            if (i < pop.neurons.size()) nrn.properties = pop.neurons[i];
            nrn.addr = s.addr;
            if (!hemis[s.hemi].by_column.emplace(s.col, nrn).second)
                throw GraphError("build_graph: population '" + pop.name + "' neuron " +
                                 std::to_string(i) + " placed on occupied column " +
                                 std::to_string(s.col) + " of hemisphere " +
                                 std::to_string(s.hemi));
            auto& hp = hemis[s.hemi].populations;
            if (std::find(hp.begin(), hp.end(), p) == hp.end()) hp.push_back(p);
        }
    }

    // PADI buses: first assignment with the outer nodes only.
    std::map<uint32_t, VertexDescriptor> bus_vertex;  // hemi * 4 + bus -> latest vertex
    std::map<uint32_t, std::vector<VertexDescriptor>> bus_inputs;
    const std::set<uint32_t> enabled(pl.padi_buses.begin(), pl.padi_buses.end());
    auto check_bus = [&](uint32_t out, const std::string& who) {
        if (out < BSS2_XOUT_L2(0) && !enabled.count(out))
            throw GraphError("build_graph: " + who + " routes to disabled PADI bus " +
                             std::to_string(out));
    };
    for (const auto& [n, v] : outer_nodes) {
        check_bus(n.out, node_str(n));
        if (n.out < BSS2_XOUT_L2(0)) bus_inputs[n.out].push_back(v);
    }
    for (uint32_t b : enabled) {
        std::vector<Input> in(bus_inputs[b].begin(), bus_inputs[b].end());
        bus_vertex[b] = g.add(PADIBus{b / BSS2_PADI_PER_HEMI, b % BSS2_PADI_PER_HEMI}, inst, in);
    }

    // Synapse drivers.
    std::map<std::pair<uint32_t, uint32_t>, VertexDescriptor> driver_vertex;  // (hemi, d)
    for (const DriverCfg& d : pl.drivers) {
        const uint32_t b = BSS2_XOUT_PADI(d.hemi, bss2_driver_bus(d.driver));
        check_bus(b, "synapse driver " + std::to_string(d.driver) + " of hemisphere " +
                         std::to_string(d.hemi));
        driver_vertex[{d.hemi, d.driver}] = g.add(SynapseDriver{d}, inst, {bus_vertex.at(b)});
    }

    // Synapse array views per hemisphere: one over the neuron columns (feeding the neuron view)
    // and, if the placement writes synapses in columns without neurons (e.g. weight-0 cells that
    // keep stray labels from matching), one more over those columns, whose output stays unused.
    std::map<uint32_t, std::vector<uint32_t>> hemi_columns;
    for (auto& [h, hn] : hemis)
        for (const auto& [c, nrn] : hn.by_column) hemi_columns[h].push_back(c);
    std::map<uint32_t, SynapseArrayView> arrays, spare_arrays;
    std::vector<std::pair<bool, uint32_t>> synapse_view(pl.synapses.size());  // (spare, hemi)
    for (size_t si = 0; si < pl.synapses.size(); ++si) {
        const SynapseCfg& s = pl.synapses[si];
        const bool spare = !hemis.count(s.hemi) || !hemis[s.hemi].by_column.count(s.col);
        auto& a = (spare ? spare_arrays : arrays)[s.hemi];
        a.hemi = s.hemi;
        a.synapses.push_back({s.row, s.col, s.weight, s.label});
        synapse_view[si] = {spare, s.hemi};
    }
    std::map<uint32_t, VertexDescriptor> array_vertex, spare_vertex, neuron_vertex;
    auto array_inputs = [&](const SynapseArrayView& a) {
        std::vector<Input> in;
        for (uint32_t d : a.drivers()) {
            auto it = driver_vertex.find({a.hemi, d});
            if (it == driver_vertex.end())
                throw GraphError("build_graph: synapse rows " + std::to_string(2 * d) + "/" +
                                 std::to_string(2 * d + 1) + " of hemisphere " +
                                 std::to_string(a.hemi) + " in use, but driver " +
                                 std::to_string(d) + " is not enabled");
            in.push_back(it->second);
        }
        return in;
    };
    for (auto* group : {&arrays, &spare_arrays})
        for (auto& [h, a] : *group) {
            std::set<uint32_t> rows, cols;
            for (const auto& s : a.synapses) {
                rows.insert(s.row);
                cols.insert(s.col);
            }
            a.rows.assign(rows.begin(), rows.end());
            if (group == &arrays) {
                a.columns = hemi_columns[h];
                array_vertex[h] = g.add(a, inst, array_inputs(a));
            } else {
                a.columns.assign(cols.begin(), cols.end());
                spare_vertex[h] = g.add(a, inst, array_inputs(a));
            }
        }
    for (size_t j = 0; j < pl.projections.size(); ++j) {
        m.projections[j];  // every projection has an entry (empty: only weight-0 connections)
        for (size_t si : pl.projections[j].synapses) {
            // A weight-0 connection has no synapse cell (docs/bss2_compiler.md, "Step 2").
            if (si == SIZE_MAX) continue;
            if (si >= pl.synapses.size())
                throw GraphError("build_graph: projection '" + net.projections[j].name +
                                 "' refers to synapse " + std::to_string(si) + " (of " +
                                 std::to_string(pl.synapses.size()) + ")");
            const auto [spare, h] = synapse_view[si];
            link(m.projections, m.vertex_projections, j,
                 spare ? spare_vertex.at(h) : array_vertex.at(h));
        }
    }
    std::map<uint32_t, NeuronView> views;
    auto add_neuron_view = [&](uint32_t h) {
        std::vector<Input> in;
        if (array_vertex.count(h)) in.push_back(array_vertex[h]);
        const auto v = g.add(neuron_vertex.at(h), inst, in);  // by reference
        neuron_vertex[h] = v;
        for (size_t p : hemis[h].populations) link(m.populations, m.vertex_populations, p, v);
    };
    for (auto& [h, hn] : hemis) {
        NeuronView nv;
        nv.hemi = h;
        nv.columns = hemi_columns[h];
        for (const auto& [c, nrn] : hn.by_column) nv.neurons.push_back(nrn);
        views.emplace(h, nv);
    }

    // Neuron event outputs feed crossbar nodes only if some node reads a neuron channel.
    bool neuron_routes = false;
    for (const auto& n : pl.nodes) neuron_routes |= n.in < BSS2_XIN_L2(0);
    std::optional<VertexDescriptor> event_out;
    NeuronEventOutputView eov;
    for (const auto& [h, nv] : views) eov.sources.push_back({h, nv.columns});
    const auto channels = eov.channels();
    auto add_event_output = [&]() {
        std::vector<Input> in;
        for (const auto& [h, nv] : views) in.push_back(neuron_vertex.at(h));
        event_out = event_out ? g.add(*event_out, inst, in) : g.add(eov, inst, in);
    };
    auto neuron_node_input = [&](const XbarNodeCfg& n) {
        auto it = std::find(channels.begin(), channels.end(), n.in);
        if (it == channels.end() || !event_out)
            throw GraphError("build_graph: " + node_str(n) +
                             " reads a neuron output channel without neurons");
        const size_t k = static_cast<size_t>(it - channels.begin());
        return Input(*event_out, PortRestriction{k, k});
    };

    // First assignment of the neuron views (driven by the outer nodes only).
    for (const auto& [h, nv] : views) {
        std::vector<Input> in;
        if (array_vertex.count(h)) in.push_back(array_vertex[h]);
        neuron_vertex[h] = g.add(nv, inst, in);
        for (size_t p : hemis[h].populations)
            link(m.populations, m.vertex_populations, p, neuron_vertex[h]);
    }
    if (neuron_routes && !views.empty()) add_event_output();

    // Recurrent routes: neuron channel -> PADI bus nodes, then the driven entities again by
    // reference (seed 004 Fig. 4.6).
    std::set<uint32_t> recurrent_buses;
    for (const auto& n : pl.nodes) {
        if (n.in >= BSS2_XIN_L2(0) || n.out >= BSS2_XOUT_L2(0)) continue;
        check_bus(n.out, node_str(n));
        const auto v =
            g.add(CrossbarNode{n.in, n.out, n.mask, n.target}, inst, {neuron_node_input(n)});
        bus_inputs[n.out].push_back(v);
        recurrent_buses.insert(n.out);
    }
    if (!recurrent_buses.empty()) {
        for (uint32_t b : recurrent_buses) {
            std::vector<Input> in(bus_inputs[b].begin(), bus_inputs[b].end());
            bus_vertex[b] = g.add(bus_vertex[b], inst, in);
        }
        std::set<uint32_t> touched_hemis;
        for (const DriverCfg& d : pl.drivers) {
            const uint32_t b = BSS2_XOUT_PADI(d.hemi, bss2_driver_bus(d.driver));
            if (!recurrent_buses.count(b)) continue;
            auto& dv = driver_vertex[{d.hemi, d.driver}];
            dv = g.add(dv, inst, {bus_vertex.at(b)});
            touched_hemis.insert(d.hemi);
        }
        for (uint32_t h : touched_hemis) {
            if (!array_vertex.count(h)) continue;
            array_vertex[h] = g.add(array_vertex[h], inst, array_inputs(arrays.at(h)));
            add_neuron_view(h);
        }
        add_event_output();
    }

    // Routes to the FPGA.
    std::vector<Input> l2_out_inputs;
    for (const auto& [n, v] : outer_nodes)
        if (n.out >= BSS2_XOUT_L2(0)) l2_out_inputs.push_back(v);
    for (const auto& n : pl.nodes) {
        if (n.in >= BSS2_XIN_L2(0) || n.out < BSS2_XOUT_L2(0)) continue;
        l2_out_inputs.push_back(
            g.add(CrossbarNode{n.in, n.out, n.mask, n.target}, inst, {neuron_node_input(n)}));
    }
    if (!l2_out_inputs.empty()) {
        const auto l2out = g.add(CrossbarL2Output{}, inst, l2_out_inputs);
        m.data_output = g.add(DataOutput{}, inst, {l2out});
    }
    if (mapping) *mapping = std::move(m);
    return g;
}

}  // namespace nmsim::compiler::bss2
