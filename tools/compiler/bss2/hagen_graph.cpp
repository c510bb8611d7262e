// A hagen-mode product as a signal-flow graph (hagen_graph.h).
#include "tools/compiler/bss2/hagen_graph.h"

#include <string>

#include "nmsim/hw/brainscales2/bss2_map.h"

namespace nmsim::compiler::bss2::hagen {

namespace {

// L2 input channel 0 carries every event; the crossbar node to PADI bus b of half h passes the
// labels with h and b in their route bits (hagen_program.h).
constexpr uint32_t kRouteMask = (1u << kLabelHemiBit) | (3u << kLabelBusShift);

// The hardware chain of one tile in `inst`, fed by the instance's CrossbarL2Input; returns the
// CADC read-out vertex.
VertexDescriptor add_tile(Graph& g, ExecutionInstance inst, VertexDescriptor l2, const Tile& t,
                          const IntMatrix& w) {
    const uint32_t h = t.half;
    VertexDescriptor buses[BSS2_PADI_PER_HEMI];
    for (uint32_t b = 0; b < BSS2_PADI_PER_HEMI; ++b) {
        CrossbarNode node;
        node.in = BSS2_XIN_L2(0);
        node.out = BSS2_XOUT_PADI(h, b);
        node.mask = kRouteMask;
        node.target = h << kLabelHemiBit | b << kLabelBusShift;
        const VertexDescriptor n = g.add(node, inst, {Input(l2, PortRestriction{0, 0})});
        buses[b] = g.add(PADIBus{h, b}, inst, {n});
    }
    // Driver i takes input i in hagen mode and drives rows {2i inhibitory, 2i + 1 excitatory}.
    std::vector<Input> drivers;
    for (uint32_t i = 0; i < t.rows; ++i) {
        SynapseDriver d;
        d.cfg.hemi = h;
        d.cfg.driver = i;
        d.cfg.row_mask = 0x1F;
        d.cfg.lower5 = false;
        d.cfg.mode[0] = BSS2_ROW_INHIBITORY;
        d.cfg.mode[1] = BSS2_ROW_EXCITATORY;
        d.cfg.hagen = true;
        drivers.push_back(g.add(d, inst, {buses[bss2_driver_bus(i)]}));
    }
    // Every cell of the tile is written, zeros too: a half keeps the weights of earlier passes.
    SynapseArrayView syn;
    syn.hemi = h;
    for (uint32_t r = 0; r < 2 * t.rows; ++r) syn.rows.push_back(r);
    for (uint32_t c = 0; c < t.cols; ++c) syn.columns.push_back(c);
    for (uint32_t i = 0; i < t.rows; ++i)
        for (uint32_t c = 0; c < t.cols; ++c) {
            const int32_t v = w.at(t.row0 + i, t.col0 + c);
            syn.synapses.push_back({2 * i, c, static_cast<uint32_t>(v < 0 ? -v : 0), 0});
            syn.synapses.push_back({2 * i + 1, c, static_cast<uint32_t>(v > 0 ? v : 0), 0});
        }
    const VertexDescriptor s = g.add(std::move(syn), inst, drivers);
    NeuronView nv;
    nv.hemi = h;
    nv.columns = std::get<SynapseArrayView>(g.vertex(s)).columns;
    nv.neurons.assign(t.cols, NeuronView::Neuron{integrator_neuron(), 0});
    const VertexDescriptor n = g.add(std::move(nv), inst, {s});
    CADCMembraneReadoutView cadc;
    cadc.hemi = h;
    cadc.columns = std::get<NeuronView>(g.vertex(n)).columns;
    return g.add(std::move(cadc), inst, {n});
}

}  // namespace

NeuronProperties integrator_neuron() {
    NeuronProperties p;
    p.integrator = true;
    p.v_leak = p.v_reset = 600.0;  // mV: CADC code 128 with the CADC's 0..1200 mV range
    p.v_threshold = p.v_exp = 1200.0;
    p.delta_t = 1.0;
    p.c_mem = 2.2;         // pF
    p.tau_mem = 10.0;      // us (unused: no leak)
    p.tau_syn_exc = 0.32;  // us: calix's hagen target
    p.tau_syn_inh = 0.32;
    p.tau_w = 100.0;
    p.t_ref = 0.0;
    p.w_exc = p.w_inh = 1.0;  // nA per weight LSB (the gain is neuron.hagen_mV_per_unit)
    return p;
}

MacGraph build_mac_graph(const MatmulPlan& plan, const IntMatrix& w, const VectorTiming& timing) {
    check_weights(w, plan.op);
    MacGraph m;
    Graph& g = m.graph;
    m.results.assign(plan.tiles.size(), 0);
    bool have_input = false;
    for (uint32_t pass = 0; pass < plan.passes; ++pass)
        for (uint32_t chip = 0; chip < plan.chips; ++chip) {
            MacGraph::Group grp{ExecutionInstance{PhysicalChip(chip), TemporalIndex(pass)}, {}};
            for (size_t k = 0; k < plan.tiles.size(); ++k)
                if (plan.tiles[k].chip == chip && plan.tiles[k].pass == pass)
                    grp.tiles.push_back(k);
            if (grp.tiles.empty()) continue;
            if (!have_input) {
                m.input = g.add(VectorInput{plan.in_features}, grp.instance, {});
                have_input = true;
            }
            MACSpikeTrainGenerator gen;
            gen.size = plan.in_features;
            gen.num_sends = timing.num_sends;
            gen.wait = timing.wait_between_events;
            for (size_t k : grp.tiles) {
                const Tile& t = plan.tiles[k];
                gen.parts.push_back({t.half, t.row0, t.rows});
            }
            const VertexDescriptor gv = g.add(std::move(gen), grp.instance, {m.input});
            const VertexDescriptor di = g.add(DataInput{}, grp.instance, {gv});
            const VertexDescriptor l2 = g.add(CrossbarL2Input{}, grp.instance, {di});
            for (size_t k : grp.tiles) {
                const Tile& t = plan.tiles[k];
                const VertexDescriptor cadc = add_tile(g, grp.instance, l2, t, w);
                m.results[k] = g.add(MACResult{t.cols, timing.baseline}, grp.instance, {cadc});
            }
            m.groups.push_back(std::move(grp));
        }
    // The host's share in an instance of its own after the last pass: per column split the sum
    // of its row splits, then the column splits side by side.
    const ExecutionInstance host{PhysicalChip(0), TemporalIndex(plan.passes)};
    std::vector<VertexDescriptor> columns;
    std::vector<size_t> sizes;
    for (uint32_t cs = 0; cs < plan.col_splits; ++cs) {
        std::vector<Input> parts;
        size_t cols = 0;
        for (size_t k = 0; k < plan.tiles.size(); ++k)
            if (plan.tiles[k].col0 == plan.tiles[cs].col0) {
                parts.push_back(m.results[k]);
                cols = plan.tiles[k].cols;
            }
        columns.push_back(parts.size() == 1 ? parts[0].descriptor
                                            : g.add(Addition{cols}, host, parts));
        sizes.push_back(cols);
    }
    if (columns.size() == 1) {
        m.output = columns[0];
    } else {
        std::vector<Input> in(columns.begin(), columns.end());
        m.output = g.add(Concatenation{sizes}, host, in);
    }
    return m;
}

}  // namespace nmsim::compiler::bss2::hagen
