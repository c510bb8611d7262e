// Signal-flow graph: insertion checks (each with a failing example), references, the execution-
// instance graph and the dot export (seed 004 Fig. 4.6).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <string>

#include "tools/compiler/bss2/graph.h"

namespace nmsim::compiler::bss2 {
namespace {

const ExecutionInstance kI0{PhysicalChip(0), TemporalIndex(0)};
const ExecutionInstance kI1{PhysicalChip(0), TemporalIndex(1)};

NeuronView neuron_view(uint32_t hemi, std::vector<uint32_t> cols) {
    NeuronView v;
    v.hemi = hemi;
    v.columns = cols;
    for (uint32_t c : cols) v.neurons.push_back({NeuronProperties{}, c});
    return v;
}

SynapseArrayView array_view(uint32_t hemi, std::vector<uint32_t> rows, std::vector<uint32_t> cols) {
    SynapseArrayView a;
    a.hemi = hemi;
    a.rows = rows;
    a.columns = cols;
    a.synapses.push_back({rows[0], cols[0], 10, 0});
    return a;
}

SynapseDriver driver(uint32_t hemi, uint32_t d) {
    SynapseDriver v;
    v.cfg.hemi = hemi;
    v.cfg.driver = d;
    v.cfg.mode[0] = v.cfg.mode[1] = BSS2_ROW_EXCITATORY;
    return v;
}

// Expects `f` to throw GraphError whose message contains every fragment.
template <class F>
void expect_graph_error(F f, std::vector<std::string> fragments) {
    try {
        f();
        ADD_FAILURE() << "no GraphError";
    } catch (const GraphError& e) {
        for (const auto& s : fragments)
            EXPECT_NE(std::string(e.what()).find(s), std::string::npos)
                << "'" << e.what() << "' lacks '" << s << "'";
    }
}

// The recurrent network of seed 004 Fig. 4.6, built by reference.
Graph fig46() {
    Graph g;
    const auto ext = g.add(ExternalInput{}, kI0, {});
    const auto din = g.add(DataInput{}, kI0, {ext});
    const auto l2 = g.add(CrossbarL2Input{}, kI0, {din});
    const auto n3 = g.add(CrossbarNode{8, 0, 0, 0}, kI0, {Input(l2, PortRestriction{0, 0})});
    const auto bus = g.add(PADIBus{0, 0}, kI0, {n3});
    const auto drv = g.add(driver(0, 0), kI0, {bus});
    const auto syn = g.add(array_view(0, {0, 1}, {0, 1}), kI0, {drv});
    const auto nrn = g.add(neuron_view(0, {0, 1}), kI0, {syn});
    NeuronEventOutputView eo;
    eo.sources.push_back({0, {0, 1}});
    const auto out = g.add(eo, kI0, {nrn});
    const auto n9 = g.add(CrossbarNode{0, 0, 0, 0}, kI0, {Input(out, PortRestriction{0, 0})});
    const auto bus2 = g.add(bus, kI0, {n3, n9});
    const auto drv2 = g.add(drv, kI0, {bus2});
    const auto syn2 = g.add(syn, kI0, {drv2});
    const auto nrn2 = g.add(nrn, kI0, {syn2});
    const auto out2 = g.add(out, kI0, {nrn2});
    const auto n15 = g.add(CrossbarNode{0, 8, 0, 0}, kI0, {Input(out2, PortRestriction{0, 0})});
    const auto l2o = g.add(CrossbarL2Output{}, kI0, {n15});
    g.add(DataOutput{}, kI0, {l2o});
    return g;
}

const char* kFig46 = R"DOT(digraph G {
0[label="ExternalInput(0)"];
1[label="DataInput(1)"];
2[label="CrossbarL2Input(2)"];
3[label="CrossbarNode(3)"];
4[label="PADIBus(4)"];
5[label="SynapseDriver(5)"];
6[label="SynapseArrayView(6)"];
7[label="NeuronView(7)"];
8[label="NeuronEventOutputView(8)"];
9[label="CrossbarNode(9)"];
10[label="PADIBus(4)"];
11[label="SynapseDriver(5)"];
12[label="SynapseArrayView(6)"];
13[label="NeuronView(7)"];
14[label="NeuronEventOutputView(8)"];
15[label="CrossbarNode(15)"];
16[label="CrossbarL2Output(16)"];
17[label="DataOutput(17)"];
0->1;
1->2;
2->3;
3->4;
4->5;
5->6;
6->7;
7->8;
8->9;
3->10;
9->10;
10->11;
11->12;
12->13;
13->14;
14->15;
15->16;
16->17;
}
)DOT";

TEST(Bss2Graph, Fig46RecurrenceByReferenceMatchesSeedDot) {
    const Graph g = fig46();
    ASSERT_EQ(g.size(), 18u);
    // Edge restrictions are extra edge labels in our export; the seed's figure shows none.
    const std::string dot =
        std::regex_replace(g.to_dot(), std::regex(R"(\[label="\[\d+,\d+\]"\])"), "");
    EXPECT_EQ(dot, kFig46);
    EXPECT_NE(g.to_dot().find("2->3[label=\"[0,0]\"];"), std::string::npos);
    EXPECT_EQ(g.root(10), 4u);
    EXPECT_TRUE(g.is_reference(14));
    EXPECT_FALSE(g.is_reference(15));
    // References share the configuration object.
    EXPECT_EQ(&g.vertex(10), &g.vertex(4));
    ASSERT_EQ(g.in_edges(10).size(), 2u);
    EXPECT_EQ(g.in_edges(10)[1].source, 9u);
    EXPECT_EQ(g.out_edges(3).size(), 2u);
    EXPECT_EQ(g.instances().size(), 1u);
    EXPECT_EQ(g.vertices(kI0).size(), 18u);
}

TEST(Bss2Graph, DotRendersWithGraphviz) {
    const Graph g = fig46();
    if (std::system("command -v dot > /dev/null 2>&1") != 0) {
        GTEST_SKIP() << "graphviz 'dot' not installed: rendering not checked";
    }
    const std::string base = ::testing::TempDir() + "bss2_fig46";
    {
        std::ofstream f(base + ".dot");
        f << g.to_dot();
    }
    const std::string cmd = "dot -Tsvg " + base + ".dot -o " + base + ".svg";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    std::ifstream svg(base + ".svg");
    const std::string text((std::istreambuf_iterator<char>(svg)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find("<svg"), std::string::npos);
    EXPECT_NE(text.find("NeuronEventOutputView(8)"), std::string::npos);
    std::remove((base + ".dot").c_str());
    std::remove((base + ".svg").c_str());
}

TEST(Bss2Graph, UnknownInputDescriptor) {
    Graph g;
    g.add(ExternalInput{}, kI0, {});
    expect_graph_error([&] { g.add(DataInput{}, kI0, {Input(5)}); },
                       {"DataInput(1)", "unknown vertex descriptor 5"});
    EXPECT_EQ(g.size(), 1u);
}

TEST(Bss2Graph, UnconnectedInput) {
    Graph g;
    expect_graph_error([&] { g.add(driver(0, 0), kI0, {}); },
                       {"SynapseDriver(0)", "expects 1 input(s), got 0", "unconnected"});
    EXPECT_EQ(g.size(), 0u);
}

TEST(Bss2Graph, WrongInputType) {
    Graph g;
    const auto ext = g.add(ExternalInput{}, kI0, {});
    const auto din = g.add(DataInput{}, kI0, {ext});
    const auto l2 = g.add(CrossbarL2Input{}, kI0, {din});
    const auto node = g.add(CrossbarNode{8, 0, 0, 0}, kI0, {Input(l2, PortRestriction{0, 0})});
    // A driver needs the PADI bus, not the crossbar node.
    expect_graph_error([&] { g.add(driver(0, 0), kI0, {node}); },
                       {"SynapseDriver(4)", "CrossbarNode(3)", "delivers CrossbarOutputLabel",
                        "expects PADILabel"});
}

TEST(Bss2Graph, ShapeMismatchAndRestrictions) {
    Graph g;
    const auto ext = g.add(ExternalInput{}, kI0, {});
    const auto din = g.add(DataInput{}, kI0, {ext});
    const auto l2 = g.add(CrossbarL2Input{}, kI0, {din});
    expect_graph_error(
        [&] {
            g.add(CrossbarNode{8, 0, 0, 0}, kI0, {l2});
        },
        {"CrossbarNode(3)", "shape mismatch", "delivers 4", "expects 1"});
    expect_graph_error(
        [&] {
            g.add(CrossbarNode{8, 0, 0, 0}, kI0, {Input(l2, PortRestriction{4, 4})});
        },
        {"restriction [4, 4] outside", "shape 4"});
    expect_graph_error(
        [&] {
            g.add(CrossbarNode{8, 0, 0, 0}, kI0, {Input(l2, PortRestriction{2, 1})});
        },
        {"restriction [2, 1]"});
    expect_graph_error(
        [&] {
            g.add(CrossbarNode{8, 0, 0, 0}, kI0, {Input(l2, PortRestriction{0, 1})});
        },
        {"shape mismatch", "delivers 2"});
    // The restriction selects L2 channel 1, but the node reads crossbar input 8 (channel 0).
    expect_graph_error(
        [&] {
            g.add(CrossbarNode{8, 0, 0, 0}, kI0, {Input(l2, PortRestriction{1, 1})});
        },
        {"does not support input from CrossbarL2Input(2)"});
    EXPECT_NO_THROW(g.add(CrossbarNode{9, 0, 0, 0}, kI0, {Input(l2, PortRestriction{1, 1})}));
    EXPECT_EQ(g.size(), 4u);
}

TEST(Bss2Graph, VariadicPortsAndDuplicates) {
    Graph g;
    const auto ext = g.add(ExternalInput{}, kI0, {});
    const auto din = g.add(DataInput{}, kI0, {ext});
    const auto l2 = g.add(CrossbarL2Input{}, kI0, {din});
    const auto a = g.add(CrossbarNode{8, 0, 0, 0}, kI0, {Input(l2, PortRestriction{0, 0})});
    const auto b = g.add(CrossbarNode{9, 0, 0, 0}, kI0, {Input(l2, PortRestriction{1, 1})});
    EXPECT_NO_THROW(g.add(PADIBus{0, 0}, kI0, {}));  // (C)^0
    EXPECT_NO_THROW(g.add(PADIBus{0, 0}, kI0, {a, b}));
    expect_graph_error([&] { g.add(PADIBus{0, 0}, kI0, {a, a}); }, {"duplicate input"});
    expect_graph_error([&] { g.add(DataInput{}, kI0, {ext, ext}); }, {"expects 1 input(s), got 2"});
}

TEST(Bss2Graph, PlacementChecks) {
    Graph g;
    const auto ext = g.add(ExternalInput{}, kI0, {});
    const auto din = g.add(DataInput{}, kI0, {ext});
    const auto l2 = g.add(CrossbarL2Input{}, kI0, {din});
    const auto n = g.add(CrossbarNode{8, 1, 0, 0}, kI0, {Input(l2, PortRestriction{0, 0})});
    expect_graph_error(
        [&] {
            g.add(PADIBus{0, 0}, kI0, {n});
        },
        {"PADIBus(4)", "does not support input from CrossbarNode(3)"});
    const auto bus = g.add(PADIBus{0, 1}, kI0, {n});
    expect_graph_error([&] { g.add(driver(1, 1), kI0, {bus}); }, {"does not support"});
    expect_graph_error([&] { g.add(driver(0, 2), kI0, {bus}); }, {"does not support"});
    const auto d = g.add(driver(0, 5), kI0, {bus});  // 5 % 4 == 1
    // The view's rows 10/11 belong to driver 5; rows 0/1 to driver 0.
    expect_graph_error([&] { g.add(array_view(0, {0}, {3}), kI0, {d}); }, {"does not support"});
    const auto syn = g.add(array_view(0, {10, 11}, {3, 4}), kI0, {d});
    expect_graph_error([&] { g.add(neuron_view(0, {3}), kI0, {syn}); }, {"shape mismatch"});
    expect_graph_error([&] { g.add(neuron_view(0, {3, 5}), kI0, {syn}); }, {"does not support"});
    expect_graph_error([&] { g.add(neuron_view(1, {3, 4}), kI0, {syn}); }, {"does not support"});
    const auto nrn = g.add(neuron_view(0, {3, 4}), kI0, {syn});
    expect_graph_error(
        [&] {
            g.add(MADCReadoutView{0, 3}, kI0, {Input(nrn, PortRestriction{1, 1})});
        },
        {"does not support"});
    EXPECT_NO_THROW(g.add(MADCReadoutView{0, 4}, kI0, {Input(nrn, PortRestriction{1, 1})}));
    EXPECT_NO_THROW(g.add(CADCMembraneReadoutView{0, {3, 4}}, kI0, {nrn}));
    expect_graph_error(
        [&] {
            g.add(CADCMembraneReadoutView{0, {4}}, kI0, {Input(nrn, PortRestriction{0, 0})});
        },
        {"does not support"});
    // Invalid configurations.
    expect_graph_error(
        [&] {
            g.add(CrossbarNode{12, 5, 0, 0}, kI0, {});
        },
        {"no crossbar node at (in 12, out 5)"});
    expect_graph_error([&] { g.add(driver(0, 128), kI0, {bus}); }, {"driver 128 out of range"});
    SynapseArrayView bad = array_view(0, {10, 11}, {3, 4});
    bad.synapses[0].weight = 64;
    expect_graph_error([&] { g.add(bad, kI0, {d}); }, {"weight 64 > 63"});
}

TEST(Bss2Graph, CrossInstanceEdges) {
    Graph g;
    const auto ext = g.add(ExternalInput{}, kI0, {});
    const auto din = g.add(DataInput{}, kI0, {ext});
    const auto l2 = g.add(CrossbarL2Input{}, kI0, {din});
    // Hardware signals cannot leave a realtime execution.
    expect_graph_error(
        [&] {
            g.add(CrossbarNode{8, 8, 0, 0}, kI1, {Input(l2, PortRestriction{0, 0})});
        },
        {"crosses execution instances", "chip 0, index 0", "chip 0, index 1"});
    const auto node = g.add(CrossbarNode{8, 8, 0, 0}, kI0, {Input(l2, PortRestriction{0, 0})});
    const auto l2o = g.add(CrossbarL2Output{}, kI0, {node});
    expect_graph_error([&] { g.add(DataOutput{}, kI1, {l2o}); }, {"crosses execution instances"});
    const auto out0 = g.add(DataOutput{}, kI0, {l2o});
    // Host data may: DataOutput (instance 0) -> SpikeLabelMap (instance 1) -> DataInput.
    const auto map = g.add(SpikeLabelMap{{{5, 7}}}, kI1, {out0});
    const auto din1 = g.add(DataInput{}, kI1, {map});
    EXPECT_EQ(g.instances().size(), 2u);
    ASSERT_EQ(g.instance_predecessors(kI1).size(), 1u);
    EXPECT_EQ(g.instance_predecessors(kI1)[0], kI0);
    EXPECT_TRUE(g.instance_predecessors(kI0).empty());
    // Instance 1 -> instance 0 would close a cycle in the execution-instance graph.
    const auto l2b = g.add(CrossbarL2Input{}, kI1, {din1});
    const auto nodeb = g.add(CrossbarNode{8, 8, 0, 0}, kI1, {Input(l2b, PortRestriction{0, 0})});
    const auto l2ob = g.add(CrossbarL2Output{}, kI1, {nodeb});
    const auto out1 = g.add(DataOutput{}, kI1, {l2ob});
    const size_t before = g.size();
    expect_graph_error(
        [&] { g.add(SpikeLabelMap{}, kI0, {out1}); },
        {"SpikeLabelMap(" + std::to_string(before) + ")", "execution-instance graph cyclic"});
    EXPECT_EQ(g.size(), before);
    // A third instance consuming both is fine; order is topological.
    const ExecutionInstance i2{PhysicalChip(1), TemporalIndex(0)};
    g.add(SpikeLabelMap{}, i2, {out1});
    const auto order = g.instance_order();
    ASSERT_EQ(order.size(), 3u);
    EXPECT_EQ(order[0], kI0);
    EXPECT_EQ(order[1], kI1);
    EXPECT_EQ(order[2], i2);
}

TEST(Bss2Graph, InstanceOrderIsTopologicalNotInsertionOrder) {
    Graph g;
    // Instance 1 appears first but depends on instance 0.
    g.add(ExternalInput{}, kI1, {});
    const auto ext = g.add(ExternalInput{}, kI0, {});
    const auto din = g.add(DataInput{}, kI0, {ext});
    const auto l2 = g.add(CrossbarL2Input{}, kI0, {din});
    const auto node = g.add(CrossbarNode{8, 8, 0, 0}, kI0, {Input(l2, PortRestriction{0, 0})});
    const auto l2o = g.add(CrossbarL2Output{}, kI0, {node});
    const auto out0 = g.add(DataOutput{}, kI0, {l2o});
    g.add(SpikeLabelMap{}, kI1, {out0});
    EXPECT_EQ(g.instances()[0], kI1);
    const auto order = g.instance_order();
    EXPECT_EQ(order[0], kI0);
    EXPECT_EQ(order[1], kI1);
    // Clusters per instance in the dot export.
    EXPECT_NE(g.to_dot().find("subgraph cluster_1 {\nlabel=\"chip 0, index 0\";"),
              std::string::npos);
}

TEST(Bss2Graph, DigitalOperationsOnlyInAcyclicSubgraphs) {
    Graph g;
    const auto ext = g.add(ExternalInput{}, kI0, {});
    const auto din = g.add(DataInput{}, kI0, {ext});
    const auto l2 = g.add(CrossbarL2Input{}, kI0, {din});
    const auto node = g.add(CrossbarNode{8, 8, 0, 0}, kI0, {Input(l2, PortRestriction{0, 0})});
    const auto l2o = g.add(CrossbarL2Output{}, kI0, {node});
    const auto out = g.add(DataOutput{}, kI0, {l2o});
    const auto map = g.add(SpikeLabelMap{}, kI0, {out});
    // DataInput by reference fed by the map: DataInput -> ... -> SpikeLabelMap -> DataInput.
    expect_graph_error(
        [&] { g.add(din, kI0, {map}); },
        {"DataInput(1)", "closes a cycle through digital operation SpikeLabelMap(6)"});
    // (The same recurrence through hardware vertices only is legal: Fig. 4.6 test.)
    // References must stay in their instance; unknown references are rejected.
    expect_graph_error([&] { g.add(din, kI1, {ext}); }, {"must stay", "execution instance"});
    expect_graph_error([&] { g.add(VertexDescriptor(99), kI0, {}); }, {"unknown vertex 99"});
}

}  // namespace
}  // namespace nmsim::compiler::bss2
