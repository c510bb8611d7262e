// Map and route plus the independent routing verifier: placement and labels on small networks,
// resource errors, a randomised property test (every routed network verifies), the benchmark,
// recurrent and WTA networks, the example network files, and corrupted placements.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <random>
#include <set>

#include "nmsim/hw/brainscales2/bss2_map.h"
#include "tools/compiler/bss2/placement.h"

namespace nmsim::compiler::bss2 {
namespace {

size_t add_pop(Network& net, const std::string& name, PopulationKind k, size_t size) {
    Population p;
    p.name = name;
    p.kind = k;
    p.size = size;
    if (k == PopulationKind::background) p.rate_hz = 10000;
    return net.add(std::move(p));
}

size_t all_to_all(Network& net, const std::string& name, size_t s, size_t t, uint32_t w,
                  Receptor r = Receptor::excitatory) {
    Projection p;
    p.name = name;
    p.source = s;
    p.target = t;
    p.receptor = r;
    for (uint32_t i = 0; i < net.populations[s].size; ++i)
        for (uint32_t j = 0; j < net.populations[t].size; ++j) p.connections.push_back({i, j, w});
    return net.add(std::move(p));
}

template <typename F>
std::string error_of(F&& f) {
    try {
        f();
    } catch (const NetworkError& e) {
        return e.what();
    }
    ADD_FAILURE() << "no NetworkError";
    return "";
}

std::string join(const std::vector<std::string>& v) {
    std::string s;
    for (size_t i = 0; i < v.size() && i < 10; ++i) s += v[i] + "\n";
    return s;
}

struct Stats {
    size_t drivers = 0, rows = 0, blocks = 0, nodes = 0, buses = 0, used_cells = 0;
};
Stats stats(const Placement& pl) {
    Stats s;
    std::set<std::tuple<uint32_t, uint32_t, uint32_t>> blocks;
    for (const DriverCfg& d : pl.drivers) {
        ++s.drivers;
        s.rows += (d.mode[0] != BSS2_ROW_DISABLED) + (d.mode[1] != BSS2_ROW_DISABLED);
        blocks.insert({d.hemi, d.driver % 4, (d.driver / 4) & d.row_mask});
    }
    s.blocks = blocks.size();
    s.nodes = pl.nodes.size();
    s.buses = pl.padi_buses.size();
    for (const SynapseCfg& c : pl.synapses) s.used_cells += c.weight > 0;
    return s;
}
void print(const char* what, const Placement& pl) {
    const Stats s = stats(pl);
    std::printf(
        "[stats] %s: %zu blocks, %zu drivers, %zu rows, %zu nodes, %zu buses, %zu weighted "
        "synapses\n",
        what, s.blocks, s.drivers, s.rows, s.nodes, s.buses, s.used_cells);
}

TEST(Bss2Route, SmallFeedForwardPlacementAndLabels) {
    Network net;
    const size_t in = add_pop(net, "in", PopulationKind::external, 4);
    const size_t exc = add_pop(net, "exc", PopulationKind::internal, 8);
    all_to_all(net, "in_exc", in, exc, 10);
    const Placement pl = map_and_route(net);
    EXPECT_TRUE(verify_routing(net, pl).empty()) << join(verify_routing(net, pl));
    // Linear fill from hemisphere 0 column 0; addr = hemi << 5 | col % 32.
    for (uint32_t i = 0; i < 8; ++i) {
        EXPECT_EQ(pl.populations[exc].neurons[i].hemi, 0u);
        EXPECT_EQ(pl.populations[exc].neurons[i].col, i);
        EXPECT_EQ(pl.populations[exc].neurons[i].addr, i);
        const uint32_t key = 0u << 14 | bss2_neuron_event(i, i);
        ASSERT_EQ(pl.output_events.count(key), 1u);
        EXPECT_EQ(pl.output_events.at(key), std::make_pair(exc, size_t{i}));
    }
    // Externals: one chunk, labels 0..3, bit 13 (to hemisphere 0) set, bit 12 clear.
    const auto& ev = pl.populations[in].l2_events;
    ASSERT_EQ(ev.size(), 4u);
    std::set<uint32_t> labels;
    for (uint32_t e : ev) {
        EXPECT_TRUE(e & (1u << 13));
        EXPECT_FALSE(e & (1u << 12));
        EXPECT_FALSE(e & (1u << 11));
        labels.insert(bss2_padi_synlabel(e));
        EXPECT_EQ(e >> 14, ev[0] >> 14);
    }
    EXPECT_EQ(labels, (std::set<uint32_t>{0, 1, 2, 3}));
    // 4 sources per column -> 4 excitatory rows -> 2 drivers with a 4-bit row mask.
    ASSERT_EQ(pl.drivers.size(), 2u);
    for (const DriverCfg& d : pl.drivers) {
        EXPECT_EQ(d.row_mask, 0x1Eu);
        EXPECT_EQ(d.mode[0], BSS2_ROW_EXCITATORY);
        EXPECT_EQ(d.mode[1], BSS2_ROW_EXCITATORY);
        EXPECT_EQ(d.driver % 4, ev[0] >> 14);
    }
    // Nodes: L2 in -> bus (mask bit 13), channel 0 -> L2 out 0 (recording).
    bool l2 = false, rec = false;
    for (const XbarNodeCfg& n : pl.nodes) {
        l2 = l2 || (n.in == BSS2_XIN_L2(ev[0] >> 14) && n.mask == 1u << 13 && n.target == 1u << 13);
        rec = rec || (n.in == 0 && n.out == BSS2_XOUT_L2(0) && n.mask == 0);
    }
    EXPECT_TRUE(l2);
    EXPECT_TRUE(rec);
    // 4 rows x 256 cells: 32 carry weight 10, the rest weight 0 with an unused label.
    size_t weighted = 0;
    for (const SynapseCfg& s : pl.synapses) {
        if (s.weight) {
            ++weighted;
            EXPECT_EQ(s.weight, 10u);
        } else {
            EXPECT_GE(s.label, 4u);
        }
    }
    EXPECT_EQ(weighted, 32u);
    EXPECT_EQ(pl.synapses.size(), 4u * 256u);
}

TEST(Bss2Route, HintsMergingAndSkippedConnections) {
    Network net;
    const size_t in = add_pop(net, "in", PopulationKind::external, 2);
    Population a;
    a.name = "a";
    a.size = 3;
    a.hemisphere = 1;
    a.first_column = 40;
    const size_t pa = net.add(a);
    const size_t pb = add_pop(net, "b", PopulationKind::internal, 2);
    Projection p1;
    p1.name = "p1";
    p1.source = in;
    p1.target = pa;
    p1.connections = {{0, 0, 20}, {0, 0, 30}, {1, 2, 0}};  // merged 50, and a skipped one
    net.add(p1);
    Projection p2 = p1;
    p2.name = "p2";
    p2.connections = {{0, 0, 13}};  // merges across projections: 63
    net.add(p2);
    all_to_all(net, "b_a", pb, pa, 5, Receptor::inhibitory);
    const Placement pl = map_and_route(net);
    EXPECT_TRUE(verify_routing(net, pl).empty()) << join(verify_routing(net, pl));
    EXPECT_EQ(pl.populations[pa].neurons[0].hemi, 1u);
    EXPECT_EQ(pl.populations[pa].neurons[0].col, 40u);
    EXPECT_EQ(pl.populations[pa].neurons[0].addr, (1u << 5) | 8u);
    EXPECT_EQ(pl.populations[pb].neurons[0].hemi, 0u);
    EXPECT_EQ(pl.populations[pb].neurons[0].col, 0u);
    const auto& s1 = pl.projections[0].synapses;
    ASSERT_EQ(s1.size(), 3u);
    EXPECT_EQ(s1[0], s1[1]);
    EXPECT_EQ(s1[2], SIZE_MAX);
    EXPECT_EQ(pl.projections[1].synapses[0], s1[0]);
    EXPECT_EQ(pl.synapses[s1[0]].weight, 63u);
    // Source 0 targets hemisphere 1 only: bit 12.
    EXPECT_EQ(pl.populations[in].l2_events[0] & (3u << 12), 1u << 12);
}

TEST(Bss2Route, SourcesIntoBothHemispheres) {
    Network net;
    const size_t in = add_pop(net, "in", PopulationKind::external, 20);
    const size_t big =
        add_pop(net, "big", PopulationKind::internal, 300);  // spills into hemisphere 1
    Population q;
    q.name = "q";
    q.size = 8;
    q.hemisphere = 1;
    q.first_column = 100;
    const size_t pq = net.add(q);
    all_to_all(net, "in_big", in, big, 2);  // 20 rows in hemisphere 0, 20 in hemisphere 1
    Projection sparse;
    sparse.name = "in_q";
    sparse.source = in;
    sparse.target = pq;
    sparse.receptor = Receptor::inhibitory;
    for (uint32_t i = 0; i < 20; ++i) sparse.connections.push_back({i, i % 8, 9});
    net.add(sparse);
    Projection back;  // channel 0 of both hemispheres (big[0..31] top, big[256..287] bottom)
    back.name = "big_q";
    back.source = big;
    back.target = pq;
    for (uint32_t i = 0; i < 32; ++i) {
        back.connections.push_back({i, i % 8, 1});
        back.connections.push_back({256 + i, i % 8, 2});
    }
    net.add(back);
    const Placement pl = map_and_route(net);
    EXPECT_TRUE(verify_routing(net, pl).empty()) << join(verify_routing(net, pl));
    EXPECT_EQ(pl.populations[big].neurons[255].hemi, 0u);
    EXPECT_EQ(pl.populations[big].neurons[256].hemi, 1u);
    EXPECT_EQ(pl.populations[big].neurons[256].col, 0u);
    EXPECT_EQ(pl.populations[big].neurons[256].addr, 32u);
    for (uint32_t e : pl.populations[in].l2_events) EXPECT_EQ(e & (3u << 12), 3u << 12);
}

TEST(Bss2Route, BenchmarkAllToAll256x256) {
    Network net;
    const size_t in = add_pop(net, "in", PopulationKind::external, 256);
    Population p;
    p.name = "n";
    p.size = 256;
    p.hemisphere = 0;
    const size_t n = net.add(p);
    all_to_all(net, "in_n", in, n, 1);
    const Placement pl = map_and_route(net);
    EXPECT_TRUE(verify_routing(net, pl).empty()) << join(verify_routing(net, pl));
    const Stats s = stats(pl);
    EXPECT_EQ(s.rows, 256u);  // every row of hemisphere 0
    EXPECT_EQ(s.used_cells, 65536u);
    print("benchmark 256x256", pl);
}

TEST(Bss2Route, RecurrentAllToAll32) {
    Network net;
    const size_t n = add_pop(net, "n", PopulationKind::internal, 32);
    all_to_all(net, "rec", n, n, 3);
    const Placement pl = map_and_route(net);
    EXPECT_TRUE(verify_routing(net, pl).empty()) << join(verify_routing(net, pl));
    EXPECT_EQ(stats(pl).rows, 32u);
    EXPECT_EQ(stats(pl).drivers, 16u);
    // Both hemispheres' halves of channel 0 fire on bus 0 with label = addr.
    for (const DriverCfg& d : pl.drivers) EXPECT_EQ(d.driver % 4, 0u);
}

TEST(Bss2Route, BackgroundPopulation) {
    Network net;
    Population bg;
    bg.name = "noise";
    bg.kind = PopulationKind::background;
    bg.size = 16;
    bg.rate_hz = 20000;
    const size_t b = net.add(bg);
    bg.name = "big";
    bg.size = 128;
    bg.poisson = false;
    bg.rate_hz = 1000;
    const size_t big = net.add(bg);
    const size_t n = add_pop(net, "n", PopulationKind::internal, 8);
    all_to_all(net, "bg_n", b, n, 4);
    Projection p;
    p.name = "big_n";
    p.source = big;
    p.target = n;
    // Each 64-neuron part of a 128-neuron generator gets one driver (2 rows): one source per
    // column.
    for (uint32_t i = 0; i < 8; ++i) {
        p.connections.push_back({i, i, 2});
        p.connections.push_back({64 + i, i, 3});
    }
    net.add(p);
    const Placement pl = map_and_route(net);
    EXPECT_TRUE(verify_routing(net, pl).empty()) << join(verify_routing(net, pl));
    const BackgroundCfg& g = pl.populations[b].background;
    EXPECT_LT(g.index, 4u);  // hemisphere 0 side
    EXPECT_EQ(g.mask, 15u);
    // 16 * 20 kHz = 320 kHz total: p = rate/256 per period of the 125 MHz clock.
    EXPECT_NEAR(125e6 * g.rate / 256.0 / g.period, 320e3, 320.0);
    const BackgroundCfg& gb = pl.populations[big].background;
    EXPECT_FALSE(gb.poisson);
    EXPECT_EQ(gb.period, 977u);  // round(125e6 / 128e3)
    EXPECT_NE(gb.index, g.index);
    EXPECT_EQ(gb.mask, 127u);
    for (uint32_t i = 0; i < 128; ++i) EXPECT_EQ(pl.populations[big].labels[i], gb.label | i);
}

TEST(Bss2Route, StpProjectionsGetOwnClass) {
    Network net;
    const size_t in = add_pop(net, "in", PopulationKind::external, 3);
    const size_t n = add_pop(net, "n", PopulationKind::internal, 4);
    Projection p;
    p.name = "stp";
    p.source = in;
    p.target = n;
    p.stp = Stp{0.3, 80};
    p.connections = {{0, 0, 10}, {1, 1, 10}, {0, 2, 5}};
    net.add(p);
    Projection q;
    q.name = "plain";
    q.source = in;
    q.target = n;
    q.connections = {{2, 3, 7}};
    net.add(q);
    const Placement pl = map_and_route(net);
    EXPECT_TRUE(verify_routing(net, pl).empty()) << join(verify_routing(net, pl));
    size_t stp_drivers = 0;
    for (const DriverCfg& d : pl.drivers)
        stp_drivers += d.stp && d.stp_u == 0.3 && d.stp_tau_rec == 80;
    EXPECT_EQ(stp_drivers, 2u);  // one class per STP source
    // Mixing STP and plain connections of one source into one hemisphere is an error.
    Projection r;
    r.name = "mix";
    r.source = in;
    r.target = n;
    r.connections = {{0, 3, 1}};
    net.add(r);
    const std::string e = error_of([&] { map_and_route(net); });
    EXPECT_NE(e.find("short-term plasticity"), std::string::npos) << e;
}

TEST(Bss2Route, ResourceErrors) {
    {
        Network net;
        add_pop(net, "small", PopulationKind::internal, 100);
        add_pop(net, "big", PopulationKind::internal, 600);
        const std::string e = error_of([&] { map_and_route(net); });
        EXPECT_NE(e.find("population 'big': 600 neurons"), std::string::npos) << e;
        EXPECT_NE(e.find("the chip has 512"), std::string::npos) << e;
    }
    {  // hint collision
        Network net;
        Population a;
        a.name = "a";
        a.size = 10;
        a.hemisphere = 0;
        a.first_column = 5;
        net.add(a);
        a.name = "b";
        a.first_column = 10;
        net.add(a);
        const std::string e = error_of([&] { map_and_route(net); });
        EXPECT_NE(e.find("population 'b': no 10 consecutive free neuron columns in hemisphere 0 "
                         "from column 10"),
                  std::string::npos)
            << e;
    }
    {  // fan-in from 64 neurons of one channel, both receptors: 128 rows on one bus
        Network net;
        Population a;
        a.name = "h0";
        a.size = 32;
        a.hemisphere = 0;
        a.first_column = 0;
        const size_t h0 = net.add(a);
        a.name = "h1";
        a.hemisphere = 1;
        const size_t h1 = net.add(a);
        a.name = "t";
        a.size = 1;
        a.hemisphere = 0;
        a.first_column = 100;
        const size_t t = net.add(a);
        all_to_all(net, "e0", h0, t, 1);
        all_to_all(net, "e1", h1, t, 1);
        all_to_all(net, "i0", h0, t, 1, Receptor::inhibitory);
        all_to_all(net, "i1", h1, t, 1, Receptor::inhibitory);
        const std::string e = error_of([&] { map_and_route(net); });
        EXPECT_NE(e.find("hemisphere 0 PADI bus 0: neurons of output channel 0 need 64 excitatory "
                         "+ 64 inhibitory"),
                  std::string::npos)
            << e;
        EXPECT_NE(e.find("a block has at most 64"), std::string::npos) << e;
    }
    {  // fan-in of 300 external sources onto one neuron: 300 rows > 256 per hemisphere, found
       // when the connections are merged (before anything is built per synapse)
        Network net;
        const size_t in = add_pop(net, "in", PopulationKind::external, 300);
        const size_t n = add_pop(net, "n", PopulationKind::internal, 1);
        all_to_all(net, "in_n", in, n, 1);
        const std::string e = error_of([&] { map_and_route(net); });
        EXPECT_EQ(e,
                  "projection 'in_n': neuron 'n'[0] (hemisphere 0, column 0) receives from more "
                  "than 256 sources (counting each receptor); its column has 256 synapse rows, "
                  "one synapse per source and receptor");
    }
    {  // labels: a 256-neuron background repeats every 6-bit label 4 times
        Network net;
        Population bg;
        bg.name = "noise";
        bg.kind = PopulationKind::background;
        bg.size = 256;
        bg.rate_hz = 100;
        const size_t b = net.add(bg);
        const size_t n = add_pop(net, "n", PopulationKind::internal, 4);
        all_to_all(net, "bg_n", b, n, 1);
        const std::string e = error_of([&] { map_and_route(net); });
        EXPECT_NE(e.find("projection 'bg_n'"), std::string::npos) << e;
        EXPECT_NE(
            e.find("repeat the 6-bit labels, so each part gets one driver) need 64 excitatory"),
            std::string::npos)
            << e;
    }
    {  // background into both hemispheres
        Network net;
        const size_t b = add_pop(net, "noise", PopulationKind::background, 4);
        Population a;
        a.name = "top";
        a.size = 2;
        a.hemisphere = 0;
        const size_t top = net.add(a);
        a.name = "bottom";
        a.hemisphere = 1;
        const size_t bottom = net.add(a);
        all_to_all(net, "b_top", b, top, 1);
        all_to_all(net, "b_bottom", b, bottom, 1);
        const std::string e = error_of([&] { map_and_route(net); });
        EXPECT_NE(e.find("population 'noise': background population targets both hemispheres"),
                  std::string::npos)
            << e;
    }
    {  // more than 4 background populations on one hemisphere
        Network net;
        const size_t n = add_pop(net, "n", PopulationKind::internal, 1);
        for (int i = 0; i < 5; ++i)
            all_to_all(net, "p" + std::to_string(i),
                       add_pop(net, "bg" + std::to_string(i), PopulationKind::background, 1), n, 1);
        const std::string e = error_of([&] { map_and_route(net); });
        EXPECT_NE(e.find("population 'bg4': no background generator of hemisphere 0"),
                  std::string::npos)
            << e;
    }
    {  // weight > 63 after merging
        Network net;
        const size_t in = add_pop(net, "in", PopulationKind::external, 1);
        const size_t n = add_pop(net, "n", PopulationKind::internal, 1);
        all_to_all(net, "w40", in, n, 40);
        all_to_all(net, "w30", in, n, 30);
        const std::string e = error_of([&] { map_and_route(net); });
        EXPECT_NE(e.find("projection 'w30'"), std::string::npos) << e;
        EXPECT_NE(e.find("sum to weight 70 > 63"), std::string::npos) << e;
    }
    {  // unreachable background rate
        Network net;
        Population bg;
        bg.name = "fast";
        bg.kind = PopulationKind::background;
        bg.size = 64;
        bg.rate_hz = 5e6;
        net.add(bg);
        const std::string e = error_of([&] { map_and_route(net); });
        EXPECT_NE(e.find("population 'fast': Poisson rate"), std::string::npos) << e;
    }
}

// Random networks, seeded: every network that routes must verify with zero problems.
Network random_network(std::mt19937_64& rng) {
    auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    Network net;
    std::vector<size_t> sources, internals;
    const int n_ext = uni(0, 3), n_int = uni(1, 4), n_bg = uni(0, 2);
    for (int i = 0; i < n_ext; ++i)
        sources.push_back(
            add_pop(net, "ext" + std::to_string(i), PopulationKind::external, uni(1, 80)));
    for (int i = 0; i < n_int; ++i) {
        Population p;
        p.name = "int" + std::to_string(i);
        p.size = static_cast<size_t>(uni(1, 70));
        p.record_spikes = uni(0, 3) != 0;
        if (uni(0, 4) == 0) p.hemisphere = static_cast<uint32_t>(uni(0, 1));
        if (p.hemisphere && uni(0, 1) == 0)
            p.first_column = static_cast<uint32_t>(uni(0, 255 - int(p.size)));
        const size_t id = net.add(std::move(p));
        sources.push_back(id);
        internals.push_back(id);
    }
    for (int i = 0; i < n_bg; ++i) {
        Population p;
        p.name = "bg" + std::to_string(i);
        p.kind = PopulationKind::background;
        p.size = size_t{1} << uni(0, 7);
        p.rate_hz = 1000.0 * uni(1, 50);
        p.poisson = uni(0, 1) == 1;
        sources.push_back(net.add(std::move(p)));
    }
    const int n_proj = uni(1, 6);
    for (int j = 0; j < n_proj; ++j) {
        Projection p;
        p.name = "proj" + std::to_string(j);
        p.source = sources[uni(0, int(sources.size()) - 1)];
        p.target = internals[uni(0, int(internals.size()) - 1)];
        p.receptor = uni(0, 1) ? Receptor::inhibitory : Receptor::excitatory;
        const bool bg = net.populations[p.source].kind == PopulationKind::background;
        const double density = bg ? 0.02 : std::vector<double>{0.02, 0.1, 0.3, 1.0}[uni(0, 3)];
        std::bernoulli_distribution take(density);
        for (uint32_t s = 0; s < net.populations[p.source].size; ++s)
            for (uint32_t t = 0; t < net.populations[p.target].size; ++t)
                if (take(rng)) p.connections.push_back({s, t, static_cast<uint32_t>(uni(0, 31))});
        if (net.populations[p.source].kind == PopulationKind::external && uni(0, 5) == 0)
            p.stp = Stp{0.25, 60};
        net.add(std::move(p));
    }
    return net;
}

TEST(Bss2Route, PropertyRandomNetworksVerify) {
    std::mt19937_64 rng(20261121);
    int routed = 0, failed = 0;
    std::map<std::string, int> reasons;
    for (int k = 0; k < 300; ++k) {
        const Network net = random_network(rng);
        Placement pl;
        try {
            pl = map_and_route(net);
        } catch (const NetworkError& e) {
            ++failed;
            std::string w = e.what();
            const size_t c = w.find(": ", w.find("'") == std::string::npos ? 0 : w.find("':") + 1);
            ++reasons[w.substr(c == std::string::npos ? 0 : c, 60)];
            continue;
        }
        ++routed;
        const auto problems = verify_routing(net, pl);
        ASSERT_TRUE(problems.empty()) << "network " << k << ":\n" << join(problems);
        if (k % 10 == 0) {  // routing is deterministic
            const Placement again = map_and_route(net);
            ASSERT_EQ(again.synapses.size(), pl.synapses.size());
            for (size_t i = 0; i < pl.synapses.size(); ++i) {
                ASSERT_EQ(again.synapses[i].row, pl.synapses[i].row);
                ASSERT_EQ(again.synapses[i].label, pl.synapses[i].label);
            }
        }
    }
    std::printf("[stats] property test: %d of %d random networks routed\n", routed,
                routed + failed);
    for (const auto& [r, n] : reasons) std::printf("  %3d x %s\n", n, r.c_str());
    EXPECT_GE(routed, 200);
}

Network wta_in_code() {
    Network net;
    const size_t ring = add_pop(net, "ring", PopulationKind::internal, 50);
    const size_t pool = add_pop(net, "pool", PopulationKind::internal, 10);
    Projection lat;
    lat.name = "lateral";
    lat.source = lat.target = ring;
    const uint32_t w[] = {0, 30, 20, 10};
    for (uint32_t i = 0; i < 50; ++i)
        for (uint32_t d = 1; d <= 3; ++d) {
            lat.connections.push_back({i, (i + d) % 50, w[d]});
            lat.connections.push_back({i, (i + 50 - d) % 50, w[d]});
        }
    net.add(lat);
    all_to_all(net, "ring_pool", ring, pool, 50);
    all_to_all(net, "pool_ring", pool, ring, 30, Receptor::inhibitory);
    for (uint32_t s = 0; s < 5; ++s) {
        const size_t st = add_pop(net, "stim" + std::to_string(s), PopulationKind::external, 10);
        Projection p;
        p.name = "stim" + std::to_string(s) + "_ring";
        p.source = st;
        p.target = ring;
        for (uint32_t i = 0; i < 10; ++i)
            for (uint32_t j = 0; j < 10; ++j) p.connections.push_back({i, 10 * s + j, 40});
        net.add(p);
    }
    return net;
}

TEST(Bss2Route, WinnerTakeAll) {
    const Network net = wta_in_code();
    const Placement pl = map_and_route(net);
    EXPECT_TRUE(verify_routing(net, pl).empty()) << join(verify_routing(net, pl));
    print("wta (built in code)", pl);
}

TEST(Bss2Route, ExampleNetworkFilesRoute) {
    for (const char* f : {"feedforward", "wta"}) {
        const Network net =
            load_network(std::string(NMSIM_SOURCE_DIR) + "/scenarios/bss2/" + f + ".yaml");
        const Placement pl = map_and_route(net);
        EXPECT_TRUE(verify_routing(net, pl).empty()) << f << ":\n" << join(verify_routing(net, pl));
        print(f, pl);
    }
    // The WTA file describes the same network as wta_in_code().
    const Network a = load_network(std::string(NMSIM_SOURCE_DIR) + "/scenarios/bss2/wta.yaml");
    const Network b = wta_in_code();
    ASSERT_EQ(a.projections.size(), b.projections.size());
    for (size_t j = 0; j < a.projections.size(); ++j) {
        auto key = [](const Projection& p) {
            std::multiset<std::tuple<uint32_t, uint32_t, uint32_t>> s;
            for (const Connection& c : p.connections) s.insert({c.source, c.target, c.weight});
            return s;
        };
        EXPECT_EQ(key(a.projections[j]), key(b.projections[j])) << a.projections[j].name;
        EXPECT_EQ(a.projections[j].receptor, b.projections[j].receptor);
    }
}

TEST(Bss2Route, VerifierCatchesCorruption) {
    Network net = wta_in_code();
    const size_t bg = add_pop(net, "noise", PopulationKind::background, 8);
    Projection p;
    p.name = "noise_pool";
    p.source = bg;
    p.target = 1;
    for (uint32_t i = 0; i < 8; ++i) p.connections.push_back({i, i, 9});
    net.add(p);
    // Neurons on channel 4 share PADI bus 0 with the ring neurons of channel 0.
    Population far;
    far.name = "far";
    far.size = 4;
    far.hemisphere = 0;
    far.first_column = 128;
    const size_t pfar = net.add(far);
    all_to_all(net, "far_pool", pfar, 1, 7);
    const Placement good = map_and_route(net);
    ASSERT_TRUE(verify_routing(net, good).empty()) << join(verify_routing(net, good));
    size_t weighted = 0;
    while (good.synapses[weighted].weight == 0) ++weighted;
    auto expect_caught = [&](const char* what, const std::function<void(Placement&)>& corrupt) {
        Placement pl = good;
        corrupt(pl);
        EXPECT_FALSE(verify_routing(net, pl).empty()) << what << " not detected";
    };
    // The first driver of the channel-0 block on bus 0 of hemisphere 0 (row select prefix bit 4 =
    // 0) whose static index has bits outside its mask (its rows carry low labels, which the
    // channel-4 neurons also use).
    size_t wide = SIZE_MAX;
    for (size_t k = 0; k < good.drivers.size() && wide == SIZE_MAX; ++k) {
        const DriverCfg& d = good.drivers[k];
        if (d.hemi == 0 && d.driver % 4 == 0 && (d.driver / 4 & 0x10) == 0 &&
            ((d.driver / 4) & ~d.row_mask) != 0)
            wide = k;
    }
    ASSERT_NE(wide, SIZE_MAX);
    expect_caught("label flip", [&](Placement& pl) { pl.synapses[weighted].label ^= 1; });
    expect_caught("weight change", [&](Placement& pl) { pl.synapses[weighted].weight ^= 4; });
    expect_caught("unused cell given a source's label and a weight", [&](Placement& pl) {
        const SynapseCfg w = pl.synapses[weighted];
        for (SynapseCfg& s : pl.synapses)
            if (s.weight == 0 && s.hemi == w.hemi && s.row == w.row) {
                s.weight = 1;
                s.label = w.label;
                break;
            }
    });
    expect_caught("driver mask tightened",
                  [&](Placement& pl) { pl.drivers[wide].row_mask = 0x1F; });
    expect_caught("driver mask relaxed", [&](Placement& pl) { pl.drivers[wide].row_mask = 0; });
    expect_caught("row mode", [&](Placement& pl) { pl.drivers[0].mode[0] ^= 3; });
    expect_caught("lower5 off", [&](Placement& pl) { pl.drivers[0].lower5 = false; });
    expect_caught("node mask", [&](Placement& pl) {
        for (XbarNodeCfg& n : pl.nodes)
            if (n.in >= 8 && n.in < 12) {
                n.mask = n.target = 1u << 12;
                break;
            }
    });
    expect_caught("node removed", [&](Placement& pl) { pl.nodes.erase(pl.nodes.begin()); });
    expect_caught("bus disabled", [&](Placement& pl) { pl.padi_buses.pop_back(); });
    expect_caught("nonexistent node", [&](Placement& pl) { pl.nodes.push_back({0, 1, 0, 0}); });
    expect_caught("cell twice",
                  [&](Placement& pl) { pl.synapses.push_back(pl.synapses[weighted]); });
    expect_caught("neuron address", [&](Placement& pl) { pl.populations[0].neurons[3].addr ^= 1; });
    expect_caught("neuron moved", [&](Placement& pl) { pl.populations[1].neurons[0].col = 200; });
    expect_caught("external event",
                  [&](Placement& pl) { pl.populations[2].l2_events[0] ^= 1u << 13; });
    expect_caught("background label",
                  [&](Placement& pl) { pl.populations[bg].background.label ^= 1u << 6; });
    expect_caught("background rate",
                  [&](Placement& pl) { pl.populations[bg].background.period *= 2; });
    expect_caught("stp added", [&](Placement& pl) {
        pl.drivers[0].stp = true;
        pl.drivers[0].stp_u = 0.5;
        pl.drivers[0].stp_tau_rec = 10;
    });
    expect_caught("output event", [&](Placement& pl) {
        auto node = pl.output_events.extract(pl.output_events.begin());
        node.key() ^= 1;
        pl.output_events.insert(std::move(node));
    });
    expect_caught("synapse index", [&](Placement& pl) {
        std::swap(pl.projections[0].synapses[0], pl.projections[0].synapses[5]);
    });
}

}  // namespace
}  // namespace nmsim::compiler::bss2
