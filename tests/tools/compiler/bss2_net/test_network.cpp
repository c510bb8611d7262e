// Network description validation and YAML network files (errors name file:line:col and key).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>

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
    EXPECT_EQ(error_of([&] { net.add(badn); }),
              "population 'bn': neuron 0: tau_mem -1 outside 0.5..60 us (calix's calibratable "
              "range, hardware_facts.md B1)");
    badn.neurons[0] = NeuronProperties{};
    badn.neurons[0].v_threshold = 1e300;
    EXPECT_EQ(error_of([&] { net.add(badn); }),
              "population 'bn': neuron 0: v_threshold 1e+300 outside 234.375..1031.25 mV (calix's "
              "threshold range 50..220 CADC LSB of 4.6875 mV)");

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
         ":4:11: populations[0].size: 6 is not a power of two in 1..256 (the generator "
         "randomises the low log2(size) label bits"},
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

// Every numeric neuron parameter: the range (pinned here independently of network.cpp's table),
// the exact message with file:line:col and key for values just outside, huge, tiny and
// non-finite, and both ends accepted.
struct NeuronRangeCase {
    const char* key;
    const char* inside_lo;  // smallest accepted value as written (the bound, or just above it)
    const char* inside_hi;
    const char* below;  // rejected
    const char* above;  // rejected
    const char* range;  // "lo..hi unit (reason)" as in the message
};

const NeuronRangeCase kNeuronRanges[] = {
    {"v_leak", "234.375", "750", "234.3", "750.01",
     "234.375..750 mV (calix's leak range 50..160 CADC LSB of 4.6875 mV)"},
    {"v_reset", "234.375", "750", "0", "1200",
     "234.375..750 mV (calix's reset range 50..160 CADC LSB of 4.6875 mV)"},
    {"v_threshold", "234.375", "1031.25", "-586", "1e300",
     "234.375..1031.25 mV (calix's threshold range 50..220 CADC LSB of 4.6875 mV)"},
    {"c_mem", "0.0349207", "2.2", "0.0349", "2.2000001",
     "0.03492063492..2.2 pF (the membrane capacitor's 1..63 LSB, 63 LSB = 2.2 pF)"},
    {"tau_mem", "0.5", "60", "1e-30", "60.5",
     "0.5..60 us (calix's calibratable range, hardware_facts.md B1)"},
    {"tau_syn_exc", "0.3", "30", "0.29", "1e9",
     "0.3..30 us (calix's calibratable range, hardware_facts.md B1)"},
    {"tau_syn_inh", "0.3", "30", "-5", "31",
     "0.3..30 us (calix's calibratable range, hardware_facts.md B1)"},
    {"t_ref", "0.04", "32", "0", "1e12",
     "0.04..32 us (calix's calibratable range, hardware_facts.md B1)"},
    {"i_offset", "-2147.483648", "2147.483647", "-2147.5", "4294967296",
     "-2147.483648..2147.483647 nA (its configuration word, int32 fA; no calibration range)"},
    {"w_exc", "0", "4294.967295", "-0.3", "4294.968",
     "0..4294.967295 nA (its configuration word, uint32 fA; no calibration range in nA)"},
    {"w_inh", "0", "4294.967295", "-1e-9", "1e6",
     "0..4294.967295 nA (its configuration word, uint32 fA; no calibration range in nA)"},
    {"v_exp", "0", "1200", "-1", "1e9", "0..1200 mV (the membrane's 0..1.2 V range)"},
    {"delta_t", "0.001", "1200", "1e-20", "1200.5",
     "0.001..1200 mV (one LSB of its uV word (> 0) up to the membrane's 1.2 V range)"},
    {"tau_w", "1e-6", "4294.967295", "0", "4295",
     "1e-06..4294.967295 us (one LSB of its uint32 ps word (> 0) up to the word's limit)"},
    {"a", "-2147.483648", "2147.483647", "-1e20", "1e20",
     "-2147.483648..2147.483647 uS (its configuration word, int32 pS)"},
    {"b", "-2147.483648", "2147.483647", "-2148", "2147.5",
     "-2147.483648..2147.483647 nA (its configuration word, int32 fA)"},
};

std::string neuron_file(const std::string& name, const std::string& key, const std::string& value) {
    return write_file(name,
                      "populations:\n  - name: in\n    kind: external\n    size: 4\n"
                      "  - name: exc\n    kind: internal\n    size: 8\n    neuron:\n"
                      "      exponential: true\n      adaptation: true\n      " +
                          key + ": " + value + "\n");
}

TEST(Bss2NetworkYaml, EveryNeuronParameterHasItsHardwareRange) {
    ASSERT_EQ(neuron_parameters().size(), std::size(kNeuronRanges));
    int i = 0;
    for (const NeuronRangeCase& c : kNeuronRanges) {
        SCOPED_TRACE(c.key);
        // The table's order and bounds (network.h) agree with the pinned ones.
        const NeuronParameter& np = neuron_parameters()[static_cast<size_t>(i)];
        EXPECT_STREQ(np.key, c.key);
        const std::string range = format_number(np.range.lo) + ".." + format_number(np.range.hi) +
                                  " " + np.range.unit + " (" + np.range.why + ")";
        EXPECT_EQ(range, c.range);
        // The default lies inside.
        EXPECT_TRUE(np.range.contains(NeuronProperties{}.*np.field));
        const std::string col = std::to_string(7 + std::strlen(c.key) + 2);
        for (const char* ok : {c.inside_lo, c.inside_hi}) {
            const std::string path = neuron_file("nr_ok" + std::to_string(i) + ".yaml", c.key, ok);
            const Network net = load_network(path);
            EXPECT_EQ(net.populations[1].neurons[7].*np.field, std::stod(ok)) << ok;
        }
        for (const char* bad : {c.below, c.above}) {
            const std::string path =
                neuron_file("nr_bad" + std::to_string(i) + ".yaml", c.key, bad);
            EXPECT_EQ(error_of([&] { load_network(path); }),
                      path + ":11:" + col + ": populations[1].neuron." + c.key + ": " + bad +
                          " outside " + c.range);
        }
        for (const char* nonfinite : {".nan", ".inf", "-.inf"}) {
            const std::string path =
                neuron_file("nr_nf" + std::to_string(i) + ".yaml", c.key, nonfinite);
            EXPECT_EQ(
                error_of([&] { load_network(path); }),
                path + ":11:" + col + ": populations[1].neuron." + c.key + ": must be finite");
        }
        ++i;
    }
}

TEST(Bss2NetworkYaml, OtherNumericKeysHaveHardwareRanges) {
    const std::string in = "populations:\n  - name: in\n    kind: external\n    size: 4\n";
    const std::string stp_head = in +
                                 "  - name: exc\n    kind: internal\n    size: 8\n"
                                 "projections:\n  - name: p\n    source: in\n    target: exc\n"
                                 "    connector: all_to_all\n    weight: 1\n";
    const std::pair<std::string, std::string> cases[] = {
        {"populations:\n  - name: a\n    kind: external\n    size: 16385\n",
         ":4:11: populations[0].size: 16385 outside 1..16384 (the sources the chip can tell apart: "
         "2 hemispheres x 4 PADI buses x 2048 events)"},
        {"populations:\n  - name: a\n    kind: internal\n    size: 513\n",
         ":4:11: populations[0].size: 513 outside 1..512 (the chip's 512 neuron circuits)"},
        {"populations:\n  - name: a\n    kind: background\n    size: 512\n    rate: 10\n",
         ":4:11: populations[0].size: 512 is not a power of two in 1..256 (the generator "
         "randomises the low log2(size) label bits, hardware_facts.md B4)"},
        {"populations:\n  - name: a\n    kind: internal\n    size: 10\n    first_column: 250\n",
         ":5:19: populations[0].first_column: 250 + size 10 exceeds the 256 columns of a "
         "hemisphere"},
        {"populations:\n  - name: a\n    kind: internal\n    size: 300\n    hemisphere: 1\n",
         ":5:17: populations[0].hemisphere: a population of 300 neurons does not fit the 256 "
         "columns of one hemisphere"},
        {"populations:\n  - name: a\n    kind: background\n    size: 16\n    rate: 1\n"
         "    poisson: false\n",
         ":5:11: populations[0].rate: regular rate 1 Hz per neuron (16 Hz total) is outside the "
         "generator range (125 MHz / 1..65535)"},
        {"populations:\n  - name: a\n    kind: background\n    size: 16\n    rate: 1e9\n",
         ":5:11: populations[0].rate: Poisson rate 1000000000 Hz per neuron (1.6e+10 Hz total) is "
         "not reachable within 1% (125 MHz clock, period 1..65535, p = 1..255 / 256)"},
        {"populations:\n  - name: a\n    kind: background\n    size: 16\n    rate: 0\n",
         ":5:11: populations[0].rate: background rate 0 Hz must be > 0"},
        {"populations:\n  - name: a\n    kind: background\n    size: 16\n    rate: -.inf\n",
         ":5:11: populations[0].rate: must be finite"},
        {stp_head + "    stp: {u: 0.001, tau_rec: 50}\n",
         ":14:14: projections[0].stp.u: 0.001 outside 0.00390625..1 (the driver's 8-bit U word in "
         "1/256 (1 saturates at 255/256))"},
        {stp_head + "    stp: {u: 1.5}\n",
         ":14:14: projections[0].stp.u: 1.5 outside 0.00390625..1"},
        {stp_head + "    stp: {u: 0.2, tau_rec: 0}\n",
         ":14:28: projections[0].stp.tau_rec: 0 outside 0.001..4294967.295 us (one LSB of the "
         "driver's uint32 ns word (> 0) up to its limit)"},
        {stp_head + "    stp: {tau_rec: 1e7}\n",
         ":14:20: projections[0].stp.tau_rec: 1e7 outside 0.001..4294967.295 us"},
    };
    int i = 0;
    for (const auto& [text, expect] : cases) {
        const std::string path = write_file("range" + std::to_string(i++) + ".yaml", text);
        const std::string e = error_of([&] { load_network(path); });
        EXPECT_EQ(e.rfind(path + expect, 0), 0u) << "expected '" << expect << "' in: " << e;
    }
    // The bounds themselves load: 16384 external sources, 512 neurons, 256 background sources
    // at the generator's slowest regular rate, the STP limits.
    const std::string path = write_file(
        "range_ok.yaml",
        "populations:\n  - {name: in, kind: external, size: 16384}\n"
        "  - {name: exc, kind: internal, size: 256, hemisphere: 1}\n"
        "  - {name: more, kind: internal, size: 256, first_column: 0}\n"
        "  - {name: bg, kind: background, size: 256, rate: 7.46, poisson: false}\n"
        "projections:\n  - {name: p, source: in, target: exc, connector: list, connections: "
        "[[16383, 0, 1]], stp: {u: 0.00390625, tau_rec: 0.001}}\n"
        "  - {name: q, source: bg, target: more, connector: one_to_one, weight: 0, stp: {u: 1, "
        "tau_rec: 4294967.295}}\n");
    const Network net = load_network(path);
    EXPECT_EQ(net.populations[0].size, 16384u);
    EXPECT_EQ(net.projections[1].stp->tau_rec, 4294967.295);
}

// parse_network (the fuzz harness's entry point) reads text as load_network reads the file.
TEST(Bss2NetworkYaml, ParseNetworkEqualsLoadingTheFile) {
    const std::string text =
        "populations:\n  - {name: in, kind: external, size: 4}\n"
        "  - {name: exc, kind: internal, size: 3}\n"
        "projections:\n  - {name: p, source: in, target: exc, connector: all_to_all, weight: 2}\n";
    const Network a = load_network(write_file("parse.yaml", text));
    const Network b = parse_network(text, "mem.yaml");
    EXPECT_EQ(b.file, "mem.yaml");
    ASSERT_EQ(b.projections.size(), 1u);
    EXPECT_EQ(b.projections[0].connections.size(), a.projections[0].connections.size());
    EXPECT_EQ(b.projections[0].where.str(), "mem.yaml:5:5");
    EXPECT_EQ(error_of([] {
                  parse_network("populations: [\n", "mem.yaml");
              }).rfind("mem.yaml:2:1: YAML syntax error", 0),
              0u);
}

// A line of a network file can stand for millions of connections; past the network's limits the
// file is refused before they are generated (fuzz finding: 8 lines took 9 s and 2.5 GB).
TEST(Bss2NetworkYaml, SizeLimitsOfConnectors) {
    const std::string pops =
        "populations:\n  - {name: in, kind: external, size: 16384}\n"
        "  - {name: exc, kind: internal, size: 512}\nprojections:\n";
    EXPECT_EQ(error_of([&] {
                  parse_network(pops +
                                    "  - {name: p, source: in, target: exc, connector: "
                                    "all_to_all, weight: 0}\n",
                                "n.yaml");
              }),
              "n.yaml:5:51: projections[0].connector: the projection adds 8388608 connections, "
              "bringing the network's total to 8388608, above the limit of 2097152 (16 x the "
              "chip's 131072 synapse cells; a connection of weight > 0 takes a cell unless it "
              "merges with one of the same source, target and receptor)");
    std::string three = pops;
    for (int i = 0; i < 3; ++i)
        three += "  - {name: p" + std::to_string(i) +
                 ", source: in, target: exc, connector: fixed_probability, probability: 0, "
                 "weight: 1}\n";
    EXPECT_EQ(error_of([&] { parse_network(three, "n.yaml"); }),
              "n.yaml:7:52: projections[2].connector: fixed_probability visits 8388608 (source, "
              "target) pairs, bringing the network's total to 25165824, above the limit of "
              "16777216 (2 x 16384 sources x 512 neurons)");
    // A fixed_probability that draws many stops at the limit, before its connections are kept.
    const std::string dense_prob =
        pops +
        "  - {name: p, source: in, target: exc, connector: fixed_probability, "
        "probability: 0.5, weight: 1}\n";
    const std::string e = error_of([&] { parse_network(dense_prob, "n.yaml"); });
    EXPECT_NE(e.find("projections[0].connector: the projection adds at least "), std::string::npos)
        << e;
    EXPECT_NE(e.find("above the limit of 2097152"), std::string::npos) << e;
    // Within the limits: two of the largest all_to_all projections' pairs, few connections.
    const Network ok = parse_network(
        "populations:\n  - {name: in, kind: external, size: 4096}\n"
        "  - {name: exc, kind: internal, size: 512}\nprojections:\n"
        "  - {name: p, source: in, target: exc, connector: all_to_all, weight: 1}\n",
        "n.yaml");
    EXPECT_EQ(ok.projections[0].connections.size(), 4096u * 512u);
}

}  // namespace
}  // namespace nmsim::compiler::bss2
