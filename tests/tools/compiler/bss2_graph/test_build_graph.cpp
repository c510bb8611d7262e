// build_graph on a hand-made placement (checked by the router's own verifier) and on
// map_and_route output: graph structure, back-annotation, and the lowered configuration decoded
// back equals the placement.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <set>

#include "tools/compiler/bss2/graph.h"
#include "tools/compiler/bss2/lowering.h"

namespace nmsim::compiler::bss2 {
namespace {

// ext (2) -> int (2) [exc], int -> int recurrent [exc], bg (1) -> int [inh]; int recorded.
struct Fixture {
    Network net;
    Placement pl;
};

Fixture hand_made() {
    Fixture f;
    Population ext;
    ext.name = "ext";
    ext.kind = PopulationKind::external;
    ext.size = 2;
    Population in;
    in.name = "in";
    in.kind = PopulationKind::internal;
    in.size = 2;
    in.neurons.assign(2, NeuronProperties{});
    in.neurons[1].tau_mem = 20.0;
    in.neurons[1].exponential = true;
    Population bg;
    bg.name = "bg";
    bg.kind = PopulationKind::background;
    bg.size = 1;
    bg.rate_hz = 1e4;
    f.net.populations = {ext, in, bg};
    Projection p0;
    p0.name = "ext_in";
    p0.source = 0;
    p0.target = 1;
    p0.connections = {{0, 0, 10}, {1, 1, 20}};
    Projection p1;
    p1.name = "rec";
    p1.source = 1;
    p1.target = 1;
    p1.connections = {{0, 1, 5}};
    Projection p2;
    p2.name = "bg_in";
    p2.source = 2;
    p2.target = 1;
    p2.receptor = Receptor::inhibitory;
    p2.connections = {{0, 0, 30}};
    p2.stp = Stp{0.25, 120.0};
    f.net.projections = {p0, p1, p2};

    Placement& pl = f.pl;
    pl.populations.resize(3);
    pl.populations[0].kind = PopulationKind::external;
    // L2 channel 0, row select 0 (driver index 0), synapse labels 0 and 1.
    pl.populations[0].l2_events = {bss2_l2_event(0, 0), bss2_l2_event(0, 1)};
    pl.populations[1].kind = PopulationKind::internal;
    // Columns 0/1 -> channel 0; addresses 16/17 -> row select 0, synapse labels 16/17.
    pl.populations[1].neurons = {{0, 0, 16}, {0, 1, 17}};
    pl.populations[2].kind = PopulationKind::background;
    // Generator 0: label row select 1 (driver index 1 = driver 4), synapse label 2.
    // 125 MHz / 6250 * 128 / 256 = 10 kHz.
    pl.populations[2].background = BackgroundCfg{0, true, 6250, 128, 0, 1u << 6 | 2u};
    pl.populations[2].labels = {1u << 6 | 2u};
    pl.nodes = {{8, 0, 0, 0}, {12, 0, 0, 0}, {0, 0, 0, 0}, {0, 8, 0, 0}};
    DriverCfg d0;
    d0.hemi = 0;
    d0.driver = 0;
    d0.mode[0] = d0.mode[1] = BSS2_ROW_EXCITATORY;
    DriverCfg d4;
    d4.hemi = 0;
    d4.driver = 4;
    d4.mode[0] = BSS2_ROW_INHIBITORY;
    d4.mode[1] = BSS2_ROW_DISABLED;
    d4.stp = true;
    d4.stp_u = 0.25;
    d4.stp_tau_rec = 120.0;
    pl.drivers = {d0, d4};
    pl.synapses = {{0, 0, 0, 10, 0}, {0, 0, 1, 20, 1}, {0, 1, 1, 5, 16}, {0, 8, 0, 30, 2}};
    pl.projections.resize(3);
    pl.projections[0].synapses = {0, 1};
    pl.projections[1].synapses = {2};
    pl.projections[2].synapses = {3};
    pl.padi_buses = {0};
    pl.output_events = {{bss2_l2_event(0, 16), {1, 0}}, {bss2_l2_event(0, 17), {1, 1}}};
    return f;
}

// Every configured entity of the placement appears exactly once in the decoded configuration.
void expect_config_matches(const Network& net, const Placement& pl, const ChipConfig& c) {
    std::set<std::pair<uint32_t, uint32_t>> buses;
    for (uint32_t b : pl.padi_buses) buses.insert({b / 4, b % 4});
    EXPECT_EQ(c.padi_buses, buses);
    ASSERT_EQ(c.nodes.size(), pl.nodes.size());
    EXPECT_EQ(c.enabled_nodes.size(), pl.nodes.size());
    for (const auto& n : pl.nodes) {
        auto it = c.nodes.find({n.in, n.out});
        ASSERT_NE(it, c.nodes.end()) << n.in << "," << n.out;
        EXPECT_EQ(it->second, std::make_pair(n.mask, n.target));
    }
    ASSERT_EQ(c.drivers.size(), pl.drivers.size());
    for (const auto& d : pl.drivers) {
        const auto& x = c.drivers.at({d.hemi, d.driver});
        EXPECT_TRUE(x.enable);
        EXPECT_EQ(x.row_mask, d.row_mask);
        EXPECT_EQ(x.lower5, d.lower5);
        EXPECT_EQ(x.mode[0], d.mode[0]);
        EXPECT_EQ(x.mode[1], d.mode[1]);
        EXPECT_EQ(x.stp, d.stp);
        if (d.stp) {
            ASSERT_TRUE(x.stp_u && x.stp_tau_rec);
            EXPECT_EQ(*x.stp_u, std::min<uint32_t>(255u, uint32_t(d.stp_u * 256.0 + 0.5)));
            EXPECT_EQ(*x.stp_tau_rec, uint32_t(d.stp_tau_rec * 1000.0 + 0.5));
        }
    }
    ASSERT_EQ(c.synapses.size(), pl.synapses.size());
    for (const auto& s : pl.synapses)
        EXPECT_EQ(c.synapses.at({s.hemi, s.row, s.col}), std::make_pair(s.weight, s.label));
    size_t n_neurons = 0;
    for (size_t p = 0; p < net.populations.size(); ++p) {
        const auto& pop = net.populations[p];
        if (pop.kind == PopulationKind::internal) {
            for (size_t i = 0; i < pop.size; ++i) {
                const NeuronSlot& s = pl.populations[p].neurons[i];
                const auto& d = c.neurons.at({s.hemi, s.col});
                ++n_neurons;
                EXPECT_EQ(d.addr, s.addr);
                EXPECT_NEAR(d.properties.tau_mem, pop.neurons[i].tau_mem, 1e-6);
                EXPECT_NEAR(d.properties.v_threshold, pop.neurons[i].v_threshold, 1e-3);
                EXPECT_EQ(d.properties.exponential, pop.neurons[i].exponential);
                EXPECT_TRUE(d.flags & BSS2_NRN_CFG_ENABLE);
                // Recorded neurons must fire.
                if (pop.record_spikes) {
                    EXPECT_TRUE(d.flags & BSS2_NRN_CFG_FIRE);
                }
            }
        } else if (pop.kind == PopulationKind::background) {
            const BackgroundCfg& b = pl.populations[p].background;
            const BackgroundCfg& x = c.background.at(b.index);
            EXPECT_TRUE(c.background_enabled.count(b.index));
            EXPECT_EQ(x.poisson, b.poisson);
            EXPECT_EQ(x.period, b.period);
            EXPECT_EQ(x.rate, b.rate);
            EXPECT_EQ(x.mask, b.mask);
            EXPECT_EQ(x.label, b.label);
        }
    }
    EXPECT_EQ(c.neurons.size(), n_neurons);
}

TEST(Bss2BuildGraph, HandMadePlacementIsVerifiedByTheRouterChecker) {
    const Fixture f = hand_made();
    const auto problems = verify_routing(f.net, f.pl);
    for (const auto& p : problems) ADD_FAILURE() << p;
}

TEST(Bss2BuildGraph, StructureAndRecurrenceByReference) {
    const Fixture f = hand_made();
    GraphMapping m;
    const Graph g = build_graph(f.net, f.pl, ExecutionInstance{}, &m);
    std::map<std::string, size_t> roots, refs;
    for (VertexDescriptor v = 0; v < g.size(); ++v)
        (g.is_reference(v) ? refs : roots)[vertex_name(g.vertex(v))]++;
    EXPECT_EQ(roots["ExternalInput"], 1u);
    EXPECT_EQ(roots["DataInput"], 1u);
    EXPECT_EQ(roots["CrossbarL2Input"], 1u);
    EXPECT_EQ(roots["CrossbarNode"], 4u);
    EXPECT_EQ(roots["BackgroundSpikeSource"], 1u);
    EXPECT_EQ(roots["PADIBus"], 1u);
    EXPECT_EQ(roots["SynapseDriver"], 2u);
    EXPECT_EQ(roots["SynapseArrayView"], 1u);
    EXPECT_EQ(roots["NeuronView"], 1u);
    EXPECT_EQ(roots["NeuronEventOutputView"], 1u);
    EXPECT_EQ(roots["CrossbarL2Output"], 1u);
    EXPECT_EQ(roots["DataOutput"], 1u);
    // The recurrent route (neuron channel 0 -> PADI bus 0) re-enters the array by reference.
    EXPECT_EQ(refs["PADIBus"], 1u);
    EXPECT_EQ(refs["SynapseDriver"], 2u);
    EXPECT_EQ(refs["SynapseArrayView"], 1u);
    EXPECT_EQ(refs["NeuronView"], 1u);
    EXPECT_EQ(refs["NeuronEventOutputView"], 1u);
    EXPECT_EQ(refs.size(), 5u);
    // The PADI bus reference has all three nodes as inputs: L2, background, recurrent.
    for (VertexDescriptor v = 0; v < g.size(); ++v)
        if (g.is_reference(v) && std::holds_alternative<PADIBus>(g.vertex(v))) {
            std::set<uint32_t> ins;
            for (const Edge& e : g.in_edges(v))
                ins.insert(std::get<CrossbarNode>(g.vertex(e.source)).in);
            EXPECT_EQ(ins, (std::set<uint32_t>{0, 8, 12}));
        }
    // Back-annotation.
    ASSERT_TRUE(m.external_input && m.data_output && m.data_input);
    EXPECT_TRUE(std::holds_alternative<ExternalInput>(g.vertex(*m.external_input)));
    EXPECT_TRUE(std::holds_alternative<DataOutput>(g.vertex(*m.data_output)));
    ASSERT_EQ(m.populations.at(1).size(), 2u);  // the neuron view and its reference
    for (VertexDescriptor v : m.populations.at(1)) {
        EXPECT_TRUE(std::holds_alternative<NeuronView>(g.vertex(v)));
        EXPECT_EQ(m.vertex_populations.at(v), std::vector<size_t>{1});
    }
    EXPECT_TRUE(std::holds_alternative<BackgroundSpikeSource>(g.vertex(m.populations.at(2)[0])));
    for (size_t j = 0; j < 3; ++j) {
        ASSERT_EQ(m.projections.at(j).size(), 1u);
        EXPECT_TRUE(std::holds_alternative<SynapseArrayView>(g.vertex(m.projections.at(j)[0])));
    }
    EXPECT_EQ(m.input_events.at(0), f.pl.populations[0].l2_events);
    EXPECT_EQ(m.output_events, f.pl.output_events);
}

TEST(Bss2BuildGraph, LoweredConfigurationEqualsPlacement) {
    const Fixture f = hand_made();
    const Graph g = build_graph(f.net, f.pl);
    const auto words = configuration(g, ExecutionInstance{});
    expect_config_matches(f.net, f.pl, decode_configuration(words));
    // Deterministic: a second build lowers to the same words.
    EXPECT_EQ(configuration(build_graph(f.net, f.pl), ExecutionInstance{}), words);
}

TEST(Bss2BuildGraph, SynapsesOutsideNeuronColumnsGetTheirOwnView) {
    Fixture f = hand_made();
    f.pl.synapses.push_back({0, 1, 7, 0, 63});  // column 7 has no neuron (a blocking cell)
    const Graph g = build_graph(f.net, f.pl);
    size_t views = 0;
    for (VertexDescriptor v = 0; v < g.size(); ++v)
        if (!g.is_reference(v) && std::holds_alternative<SynapseArrayView>(g.vertex(v))) {
            ++views;
            if (std::get<SynapseArrayView>(g.vertex(v)).columns == std::vector<uint32_t>{7}) {
                EXPECT_TRUE(g.out_edges(v).empty());
            }
        }
    EXPECT_EQ(views, 2u);
    expect_config_matches(f.net, f.pl, decode_configuration(configuration(g, ExecutionInstance{})));
}

TEST(Bss2BuildGraph, InconsistentPlacementsAreRejected) {
    {
        Fixture f = hand_made();
        f.pl.drivers.pop_back();  // driver 4 still has a synapse on row 8
        EXPECT_THROW(build_graph(f.net, f.pl), GraphError);
    }
    {
        Fixture f = hand_made();
        f.pl.padi_buses.clear();
        try {
            build_graph(f.net, f.pl);
            ADD_FAILURE() << "no error";
        } catch (const GraphError& e) {
            EXPECT_NE(std::string(e.what()).find("disabled PADI bus 0"), std::string::npos)
                << e.what();
        }
    }
    {
        Fixture f = hand_made();
        f.pl.populations.pop_back();
        EXPECT_THROW(build_graph(f.net, f.pl), GraphError);
    }
}

Network router_network() {
    Network net;
    Population ext;
    ext.name = "stim";
    ext.kind = PopulationKind::external;
    ext.size = 8;
    net.add(ext);
    Population a;
    a.name = "a";
    a.size = 16;
    a.neurons.assign(16, NeuronProperties{});
    net.add(a);
    Population b;
    b.name = "b";
    b.size = 8;
    b.neurons.assign(8, NeuronProperties{});
    b.record_spikes = false;
    net.add(b);
    Population bg;
    bg.name = "noise";
    bg.kind = PopulationKind::background;
    bg.size = 4;
    bg.rate_hz = 2e4;
    net.add(bg);
    Projection p;
    p.name = "stim_a";
    p.source = 0;
    p.target = 1;
    for (uint32_t i = 0; i < 8; ++i) p.connections.push_back({i, 2 * i, 10 + i});
    net.add(p);
    Projection q;
    q.name = "a_b";
    q.source = 1;
    q.target = 2;
    for (uint32_t i = 0; i < 16; ++i) q.connections.push_back({i, i / 2, 5});
    net.add(q);
    Projection r;
    r.name = "b_a";
    r.source = 2;
    r.target = 1;
    r.receptor = Receptor::inhibitory;
    for (uint32_t i = 0; i < 8; ++i) r.connections.push_back({i, 2 * i + 1, 40});
    net.add(r);
    Projection s;
    s.name = "noise_b";
    s.source = 3;
    s.target = 2;
    for (uint32_t i = 0; i < 4; ++i) s.connections.push_back({i, i, 3});
    net.add(s);
    return net;
}

TEST(Bss2BuildGraph, MapAndRouteOutput) {
    const Network net = router_network();
    const Placement pl = map_and_route(net);
    ASSERT_TRUE(verify_routing(net, pl).empty());
    GraphMapping m;
    const Graph g = build_graph(net, pl, ExecutionInstance{}, &m);
    EXPECT_TRUE(m.external_input.has_value());
    EXPECT_TRUE(m.data_output.has_value());
    expect_config_matches(net, pl, decode_configuration(configuration(g, ExecutionInstance{})));
    // Population b is not recorded but projects to a: its neurons must fire as well.
    const auto fires = instance_neurons(g, ExecutionInstance{});
    for (const NeuronSlot& s : pl.populations[2].neurons) EXPECT_TRUE(fires.at({s.hemi, s.col}));
}

// Weight-0 connections exist in the network but take no synapse cell and deliver nothing
// (docs/bss2_compiler.md, "Step 2"): projections with only weight-0 connections (from a source
// with no other connection, a background population with STP, a recurrent inhibitory one) and
// weight-0 list entries next to weighted ones map, verify, build and lower to exactly the
// configuration of the same network without them.
TEST(Bss2BuildGraph, WeightZeroConnectionsTakeNoSynapse) {
    auto make = [](bool with_zero) {
        Network net;
        auto pop = [&](const char* name, PopulationKind k, size_t size) {
            Population p;
            p.name = name;
            p.kind = k;
            p.size = size;
            if (k == PopulationKind::background) p.rate_hz = 2e4;
            return net.add(p);
        };
        const size_t in = pop("in", PopulationKind::external, 8);
        const size_t silent = pop("silent", PopulationKind::external, 4);
        const size_t exc = pop("exc", PopulationKind::internal, 4);
        const size_t noise = pop("noise", PopulationKind::background, 4);
        auto proj = [&](const char* name, size_t s, size_t t, std::vector<Connection> c,
                        Receptor r = Receptor::excitatory, std::optional<Stp> stp = {}) {
            Projection p;
            p.name = name;
            p.source = s;
            p.target = t;
            p.receptor = r;
            p.stp = stp;
            for (const Connection& x : c)
                if (with_zero || x.weight != 0) p.connections.push_back(x);
            return net.add(p);
        };
        std::vector<Connection> a2a, zeros, ones, rec;
        for (uint32_t i = 0; i < 8; ++i)
            for (uint32_t j = 0; j < 4; ++j) a2a.push_back({i, j, 16});
        for (uint32_t i = 0; i < 4; ++i)
            for (uint32_t j = 0; j < 4; ++j) {
                zeros.push_back({i, j, 0});
                if (i != j) rec.push_back({i, j, 0});
            }
        for (uint32_t i = 0; i < 4; ++i) ones.push_back({i, i, 0});
        proj("in_exc", in, exc, a2a);
        proj("list", in, exc, {{0, 1, 0}, {1, 2, 5}, {1, 2, 0}, {7, 3, 0}});
        proj("zero_ext", silent, exc, zeros);
        proj("zero_bg", noise, exc, ones, Receptor::excitatory, Stp{0.3, 50});
        proj("zero_rec", exc, exc, rec, Receptor::inhibitory);
        return net;
    };
    const Network net = make(true), plain = make(false);
    const Placement pl = map_and_route(net), pl_plain = map_and_route(plain);
    EXPECT_TRUE(verify_routing(net, pl).empty());
    for (size_t j = 0; j < net.projections.size(); ++j)
        for (size_t ci = 0; ci < net.projections[j].connections.size(); ++ci)
            EXPECT_EQ(pl.projections[j].synapses[ci] == SIZE_MAX,
                      net.projections[j].connections[ci].weight == 0)
                << net.projections[j].name << " " << ci;
    EXPECT_EQ(pl.synapses.size(), pl_plain.synapses.size());
    GraphMapping m;
    const Graph g = build_graph(net, pl, ExecutionInstance{}, &m);
    ASSERT_EQ(m.projections.size(), net.projections.size());
    EXPECT_EQ(m.projections.at(0).size(), 1u);
    EXPECT_EQ(m.projections.at(1).size(), 1u);  // its weight-5 connection
    for (size_t j : {2u, 3u, 4u}) EXPECT_TRUE(m.projections.at(j).empty()) << j;
    const Graph g_plain = build_graph(plain, pl_plain, ExecutionInstance{});
    const auto words = configuration(g, ExecutionInstance{});
    const auto words_plain = configuration(g_plain, ExecutionInstance{});
    ASSERT_EQ(words.size(), words_plain.size());
    for (size_t i = 0; i < words.size(); ++i) {
        EXPECT_EQ(words[i].first, words_plain[i].first) << i;
        EXPECT_EQ(words[i].second, words_plain[i].second) << i;
    }
    expect_config_matches(net, pl, decode_configuration(words));
}

}  // namespace
}  // namespace nmsim::compiler::bss2
