// A hagen-mode product as a signal-flow graph (tools/compiler/bss2/hagen_graph.h): one execution
// instance per (chip, pass) with the hardware chain of its tiles, host operations that sum the
// row splits and join the column splits, and a lowering that configures exactly the tiles'
// drivers, synapses, neurons and routes. The graph compiler's own checks reject bad vertices.
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>

#include "tools/compiler/bss2/hagen_graph.h"

namespace nmsim::compiler::bss2::hagen {
namespace {

IntMatrix random_weights(uint32_t in, uint32_t out, uint64_t seed) {
    std::mt19937_64 rng(seed);
    IntMatrix w(in, out);
    for (auto& v : w.v) v = static_cast<int32_t>(rng() % 127) - 63;
    return w;
}

template <class T>
size_t count(const Graph& g) {
    size_t n = 0;
    for (VertexDescriptor v = 0; v < g.size(); ++v) n += std::holds_alternative<T>(g.vertex(v));
    return n;
}

TEST(HagenGraph, InstancesPerChipAndPassHostOpsJoinTheSplits) {
    const MatmulPlan plan = plan_matmul(300, 600, 2, "matmul");
    const IntMatrix w = random_weights(300, 600, 1);
    VectorTiming timing;
    timing.num_sends = 3;
    const MacGraph m = build_mac_graph(plan, w, timing);
    const Graph& g = m.graph;
    // 9 tiles over 2 chips x 2 halves: passes 0 and 1 use both chips, pass 2 one chip.
    ASSERT_EQ(m.groups.size(), 5u);
    std::set<std::pair<size_t, size_t>> seen;
    size_t tiles = 0;
    for (const auto& grp : m.groups) {
        EXPECT_TRUE(seen.insert({grp.instance.chip.value, grp.instance.index.value}).second);
        tiles += grp.tiles.size();
        for (size_t k : grp.tiles) {
            EXPECT_EQ(plan.tiles[k].chip, grp.instance.chip.value);
            EXPECT_EQ(plan.tiles[k].pass, grp.instance.index.value);
        }
    }
    EXPECT_EQ(tiles, 9u);
    EXPECT_EQ(count<MACSpikeTrainGenerator>(g), 5u);
    EXPECT_EQ(count<MACResult>(g), 9u);
    EXPECT_EQ(count<NeuronView>(g), 9u);
    EXPECT_EQ(count<SynapseDriver>(g), 128u * 6 + 44u * 3);
    // Three column splits of three row splits: three additions, one concatenation of 600 values.
    EXPECT_EQ(count<Addition>(g), 3u);
    const auto* cat = std::get_if<Concatenation>(&g.vertex(m.output));
    ASSERT_NE(cat, nullptr);
    EXPECT_EQ(cat->sizes, (std::vector<size_t>{256, 256, 88}));
    EXPECT_EQ(g.in_edges(m.output).size(), 3u);
    for (const Edge& e : g.in_edges(m.output)) {
        ASSERT_TRUE(std::holds_alternative<Addition>(g.vertex(e.source)));
        EXPECT_EQ(g.in_edges(e.source).size(), 3u);  // the three row splits
    }
    const auto* gen =
        std::get_if<MACSpikeTrainGenerator>(&g.vertex(g.out_edges(m.input)[0].target));
    ASSERT_NE(gen, nullptr);
    EXPECT_EQ(gen->num_sends, 3u);
    EXPECT_EQ(gen->size, 300u);
    const std::string dot = g.to_dot();
    for (const char* name : {"VectorInput", "MACSpikeTrainGenerator", "MACResult", "Addition",
                             "Concatenation", "SynapseArrayView"})
        EXPECT_NE(dot.find(name), std::string::npos) << name;
}

// The lowering of an instance configures the tiles' routes, hagen drivers, signed weights on row
// pairs (zeros included: a half keeps earlier passes' weights) and integrator neurons.
TEST(HagenGraph, LoweringConfiguresExactlyTheTiles) {
    const MatmulPlan plan = plan_matmul(200, 40, 1, "matmul");  // both halves, one pass
    const IntMatrix w = random_weights(200, 40, 2);
    const MacGraph m = build_mac_graph(plan, w, VectorTiming{});
    ASSERT_EQ(m.groups.size(), 1u);
    const ChipConfig c = decode_configuration(configuration(m.graph, m.groups[0].instance));
    EXPECT_EQ(c.padi_buses.size(), 8u);
    EXPECT_EQ(c.enabled_nodes.size(), 8u);
    for (const auto& [io, mt] : c.nodes) {
        const uint32_t half = io.second >= BSS2_XOUT_PADI(1, 0);
        EXPECT_EQ(io.first, BSS2_XIN_L2(0));
        EXPECT_EQ(mt.second >> kLabelHemiBit & 1u, half);
    }
    ASSERT_EQ(c.drivers.size(), 128u + 72u);
    for (const auto& [hd, d] : c.drivers) {
        EXPECT_TRUE(d.hagen && d.enable);
        EXPECT_EQ(d.mode[0], BSS2_ROW_INHIBITORY);
        EXPECT_EQ(d.mode[1], BSS2_ROW_EXCITATORY);
    }
    ASSERT_EQ(c.synapses.size(), 2u * 200 * 40);
    for (const Tile& t : plan.tiles)
        for (uint32_t i = 0; i < t.rows; ++i)
            for (uint32_t col = 0; col < t.cols; ++col) {
                const int32_t v = w.at(t.row0 + i, t.col0 + col);
                EXPECT_EQ(c.synapses.at({t.half, 2 * i, col}).first,
                          static_cast<uint32_t>(v < 0 ? -v : 0));
                EXPECT_EQ(c.synapses.at({t.half, 2 * i + 1, col}).first,
                          static_cast<uint32_t>(v > 0 ? v : 0));
            }
    ASSERT_EQ(c.neurons.size(), 80u);
    for (const auto& [hc, n] : c.neurons) {
        EXPECT_TRUE(n.properties.integrator);
        EXPECT_EQ(n.flags & BSS2_NRN_CFG_FIRE, 0u);
        EXPECT_DOUBLE_EQ(n.properties.v_reset, 600.0);
    }
}

TEST(HagenGraph, TheGraphChecksRejectBadVertices) {
    Graph g;
    const ExecutionInstance inst;
    const VertexDescriptor in = g.add(VectorInput{200}, inst, {});
    MACSpikeTrainGenerator gen;
    gen.size = 200;
    gen.parts = {{0, 0, 128}, {0, 128, 72}};  // both parts on hemisphere 0
    EXPECT_THROW(g.add(gen, inst, {in}), GraphError);
    gen.parts = {{0, 0, 128}, {1, 128, 100}};  // beyond the vector
    try {
        g.add(gen, inst, {in});
        FAIL() << "accepted inputs beyond the vector";
    } catch (const GraphError& e) {
        EXPECT_NE(std::string(e.what()).find("outside the vector of 200"), std::string::npos)
            << e.what();
    }
    EXPECT_THROW(g.add(VectorInput{0}, inst, {}), GraphError);
    // A tile's result cannot take spike data.
    EXPECT_THROW(g.add(MACResult{4, true}, inst, {in}), GraphError);
    IntMatrix w = random_weights(10, 10, 3);
    w.at(2, 3) = 64;
    EXPECT_THROW(build_mac_graph(plan_matmul(10, 10, 1, "fc"), w, VectorTiming{}), OperatorError);
}

}  // namespace
}  // namespace nmsim::compiler::bss2::hagen
