// Network description validation and YAML network files (errors name file:line:col and key).
#include <gtest/gtest.h>

#include <fstream>

#include "tools/compiler/bss2/network.h"

namespace nmsim::compiler::bss2 {
namespace {

std::string write_file(const std::string& name, const std::string& text) {
    const std::string path = ::testing::TempDir() + "/" + name;
    std::ofstream(path) << text;
    return path;
}

// Returns the NetworkError message of `f` (fails the test if none is thrown).
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

Population pop(const std::string& name, PopulationKind k, size_t size) {
    Population p;
    p.name = name;
    p.kind = k;
    p.size = size;
    if (k == PopulationKind::background) p.rate_hz = 1000;
    return p;
}

TEST(Bss2Network, SourceRefFormats) {
    EXPECT_EQ(SourceRef{}.str(), "");
    EXPECT_EQ((SourceRef{"a.yaml", 3, 7}).str(), "a.yaml:3:7");
    EXPECT_EQ((SourceRef{"", 3, 7}).str(), "<network>:3:7");
    EXPECT_STREQ(to_string(PopulationKind::background), "background");
    EXPECT_STREQ(to_string(Receptor::inhibitory), "inhibitory");
}

TEST(Bss2Network, AddValidates) {
    Network net;
    EXPECT_EQ(net.add(pop("in", PopulationKind::external, 4)), 0u);
    EXPECT_EQ(net.add(pop("exc", PopulationKind::internal, 8)), 1u);
    EXPECT_EQ(net.populations[1].neurons.size(), 8u);  // default properties filled in
    EXPECT_NE(
        error_of([&] { net.add(pop("in", PopulationKind::internal, 1)); }).find("already used"),
        std::string::npos);
    EXPECT_NE(
        error_of([&] { net.add(pop("z", PopulationKind::internal, 0)); }).find("size must be > 0"),
        std::string::npos);
    EXPECT_NE(
        error_of([&] { net.add(pop("bg", PopulationKind::background, 12)); }).find("power of two"),
        std::string::npos);
    Population hinted = pop("h", PopulationKind::internal, 10);
    hinted.first_column = 250;
    hinted.where = {"n.yaml", 4, 3};
    const std::string e = error_of([&] { net.add(hinted); });
    EXPECT_EQ(e.rfind("n.yaml:4:3: population 'h'", 0), 0u) << e;
    Population ext_hint = pop("x", PopulationKind::external, 2);
    ext_hint.hemisphere = 1;
    EXPECT_NE(error_of([&] { net.add(ext_hint); }).find("internal populations only"),
              std::string::npos);
    Population badn = pop("bn", PopulationKind::internal, 1);
    badn.neurons.resize(1);
    badn.neurons[0].tau_mem = -1;
    EXPECT_NE(error_of([&] { net.add(badn); }).find("tau_mem"), std::string::npos);

    Projection pr;
    pr.name = "p";
    pr.source = 0;
    pr.target = 0;
    EXPECT_NE(error_of([&] { net.add(pr); }).find("only on-chip (internal) neurons can receive"),
              std::string::npos);
    pr.target = 1;
    pr.connections = {{0, 0, 64}};
    EXPECT_NE(error_of([&] { net.add(pr); }).find("weight 64 > 63"), std::string::npos);
    pr.connections = {{4, 0, 1}};
    EXPECT_NE(error_of([&] { net.add(pr); }).find("source index out of range"), std::string::npos);
    pr.connections = {{3, 8, 1}};
    EXPECT_NE(error_of([&] { net.add(pr); }).find("target index out of range"), std::string::npos);
    pr.connections = {{3, 7, 63}};
    EXPECT_EQ(net.add(pr), 0u);
    EXPECT_NE(error_of([&] { net.add(pr); }).find("projection 'p': name already used"),
              std::string::npos);
    EXPECT_EQ(net.find("exc"), &net.populations[1]);
    EXPECT_EQ(net.find("nope"), nullptr);
}

TEST(Bss2NetworkYaml, LoadsAllConnectors) {
    const std::string path = write_file("all.yaml", R"(populations:
  - name: in
    kind: external
    size: 4
  - name: exc
    kind: internal
    size: 6
    hemisphere: 1
    first_column: 10
    record: false
    neuron: {tau_mem: 20, v_threshold: 600, exponential: true, adaptation: true, b: 0.1}
  - name: noise
    kind: background
    size: 16
    rate: 20000
    poisson: false
projections:
  - name: a2a
    source: in
    target: exc
    connector: all_to_all
    weight: 5
  - name: o2o
    source: exc
    target: exc
    receptor: inhibitory
    connector: one_to_one
    weight: 7
    stp: {u: 0.3, tau_rec: 50}
  - name: prob
    source: noise
    target: exc
    connector: fixed_probability
    probability: 0.5
    seed: 3
    weight: 2
  - name: lst
    source: in
    target: exc
    connector: list
    connections: [[0, 1, 20], [3, 5, 63]]
  - name: dns
    source: in
    target: exc
    connector: dense
    offset: {source: 1, target: 2}
    matrix: [[1, 0, 3], [0, 4, 0]]
  - name: rec
    source: exc
    target: exc
    connector: all_to_all
    allow_self: false
    weight: 1
)");
    const Network net = load_network(path);
    ASSERT_EQ(net.populations.size(), 3u);
    ASSERT_EQ(net.projections.size(), 6u);
    const Population& exc = net.populations[1];
    EXPECT_EQ(exc.hemisphere.value(), 1u);
    EXPECT_EQ(exc.first_column.value(), 10u);
    EXPECT_FALSE(exc.record_spikes);
    EXPECT_EQ(exc.neurons.size(), 6u);
    EXPECT_EQ(exc.neurons[5].tau_mem, 20.0);
    EXPECT_EQ(exc.neurons[5].v_threshold, 600.0);
    EXPECT_TRUE(exc.neurons[0].exponential);
    EXPECT_EQ(exc.neurons[0].b, 0.1);
    EXPECT_EQ(exc.neurons[0].v_leak, NeuronProperties{}.v_leak);
    EXPECT_EQ(net.populations[2].rate_hz, 20000.0);
    EXPECT_FALSE(net.populations[2].poisson);
    EXPECT_EQ(net.projections[0].connections.size(), 24u);
    EXPECT_EQ(net.projections[1].connections.size(), 6u);
    EXPECT_EQ(net.projections[1].receptor, Receptor::inhibitory);
    ASSERT_TRUE(net.projections[1].stp.has_value());
    EXPECT_EQ(net.projections[1].stp->u, 0.3);
    EXPECT_EQ(net.projections[1].stp->tau_rec, 50.0);
    const size_t nprob = net.projections[2].connections.size();
    EXPECT_GT(nprob, 20u);  // 96 pairs with p = 0.5
    EXPECT_LT(nprob, 76u);
    EXPECT_EQ(load_network(path).projections[2].connections.size(), nprob);  // seeded
    const auto& l = net.projections[3].connections;
    ASSERT_EQ(l.size(), 2u);
    EXPECT_EQ(l[1].source, 3u);
    EXPECT_EQ(l[1].target, 5u);
    EXPECT_EQ(l[1].weight, 63u);
    const auto& d = net.projections[4].connections;
    ASSERT_EQ(d.size(), 3u);  // zeros are no connection
    EXPECT_EQ(d[0].source, 1u);
    EXPECT_EQ(d[0].target, 2u);
    EXPECT_EQ(d[1].source, 1u);
    EXPECT_EQ(d[1].target, 4u);
    EXPECT_EQ(d[1].weight, 3u);
    EXPECT_EQ(d[2].source, 2u);
    EXPECT_EQ(d[2].target, 3u);
    EXPECT_EQ(net.projections[5].connections.size(), 30u);  // 6 * 6 - 6 self connections
    for (const Connection& c : net.projections[5].connections) EXPECT_NE(c.source, c.target);
    EXPECT_EQ(net.projections[3].where.line, 37);
    EXPECT_EQ(net.projections[3].where.file, path);
}

struct YamlCase {
    const char* text;
    const char* expect;  // substring of the message, after "file:"
};

TEST(Bss2NetworkYaml, ErrorsNameLineAndKey) {
    const std::string head =
        "populations:\n  - name: in\n    kind: external\n    size: 4\n"
        "  - name: exc\n    kind: internal\n    size: 8\n";
    const YamlCase cases[] = {
        {"populations: []\nextra: 1\n", ":2:1: extra: unknown key"},
        {"populations:\n  - name: a\n    kind: internal\n    size: 2\n    colour: red\n",
         ":5:5: populations[0].colour: unknown key"},
        {"populations:\n  - name: a\n    kind: internal\n    size: 2\n    neuron: {tau_mem: 3, "
         "tau_foo: 1}\n",
         ":5:26: populations[0].neuron.tau_foo: unknown neuron parameter"},
        {"populations:\n  - name: a\n    kind: neural\n    size: 2\n",
         ":3:11: populations[0].kind: 'neural'"},
        {"populations:\n  - name: a\n    kind: internal\n    size: -2\n",
         ":4:11: populations[0].size: expected an integer"},
        {"populations:\n  - name: a\n    kind: external\n    size: 2\n    record: true\n",
         ":5:13: populations[0].record: only allowed for internal"},
        {"populations:\n  - name: a\n    kind: internal\n",
         ":2:5: populations[0]: missing required key 'size'"},
        {"populations:\n  - name: a\n    kind: background\n    size: 6\n    rate: 10\n",
         ":2:5: population 'a': background size 6 must be a power of two"},
        {"populations:\n  - name: a\n    kind: internal\n    size: [2\n", "YAML syntax error"},
        {"populations:\n  - name: a\n    kind: internal\n    size: 2\n    ? [x]\n    : 1\n",
         ":5:7: populations[0]: map keys must be plain names"},
        {"populations:\n  - {name: a, kind: internal, size: 2, hemisphere: 2}\n",
         ":2:52: populations[0].hemisphere: expected an integer 0..1"},
    };
    int i = 0;
    for (const YamlCase& c : cases) {
        const std::string path = write_file("err" + std::to_string(i++) + ".yaml", c.text);
        const std::string e = error_of([&] { load_network(path); });
        EXPECT_EQ(e.rfind(path, 0), 0u) << e;
        EXPECT_NE(e.find(c.expect), std::string::npos) << "expected '" << c.expect << "' in: " << e;
    }
    const YamlCase pcases[] = {
        {"projections:\n  - name: p\n    source: in\n    target: exc\n    connector: all_to_all\n  "
         "  weight: 1\n"
         "    delay: 3\n",
         ":14:5: projections[0].delay: unknown key"},
        {"projections:\n  - name: p\n    source: in\n    target: nobody\n    connector: "
         "all_to_all\n    weight: 1\n",
         ":11:13: projections[0].target: no population named 'nobody'"},
        {"projections:\n  - name: p\n    source: in\n    target: exc\n    connector: list\n"
         "    connections: [[0, 1, 2], [4, 1, 2]]\n",
         ":13:31: projections[0].connections[1][0]: expected an integer 0..3"},
        {"projections:\n  - name: p\n    source: in\n    target: exc\n    connector: list\n"
         "    connections: [[0, 1, 64]]\n",
         ":13:26: projections[0].connections[0][2]: expected an integer 0..63"},
        {"projections:\n  - name: p\n    source: in\n    target: exc\n    connector: dense\n"
         "    matrix: [[1, 2], [3], [4], [5], [6]]\n",
         ":13:13: projections[0].matrix: 5 rows from offset 0 exceed source size 4"},
        {"projections:\n  - name: p\n    source: in\n    target: exc\n    connector: all_to_all\n",
         ":9:5: projections[0]: missing required key 'weight'"},
        {"projections:\n  - name: p\n    source: in\n    target: exc\n    connector: random\n    "
         "weight: 1\n",
         ":12:16: projections[0].connector: 'random' is not one of"},
        {"projections:\n  - name: p\n    source: in\n    target: exc\n    connector: all_to_all\n  "
         "  weight: 1\n"
         "    probability: 0.5\n",
         ":14:18: projections[0].probability: not used by connector 'all_to_all'"},
        {"projections:\n  - name: p\n    source: in\n    target: in\n    connector: all_to_all\n   "
         " weight: 1\n",
         ":9:5: projection 'p': target population 'in' is external"},
        {"projections:\n  - name: p\n    source: in\n    target: exc\n    connector: one_to_one\n  "
         "  weight: 1\n",
         ":12:16: projections[0].connector: one_to_one needs equal sizes"},
        {"projections:\n  - name: p\n    source: in\n    target: exc\n    connector: all_to_all\n  "
         "  weight: 1\n"
         "    stp: {u: 0.2, tau: 4}\n",
         ":14:19: projections[0].stp.tau: unknown key"},
    };
    for (const YamlCase& c : pcases) {
        const std::string path = write_file("perr" + std::to_string(i++) + ".yaml", head + c.text);
        const std::string e = error_of([&] { load_network(path); });
        EXPECT_EQ(e.rfind(path, 0), 0u) << e;
        EXPECT_NE(e.find(c.expect), std::string::npos) << "expected '" << c.expect << "' in: " << e;
    }
    const std::string e = error_of([] { load_network("/nonexistent/net.yaml"); });
    EXPECT_NE(e.find("cannot open"), std::string::npos);
}

}  // namespace
}  // namespace nmsim::compiler::bss2
