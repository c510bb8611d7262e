// SNN network files: every key class's errors with file:line:col, connectors, seeded random
// connectors and Poisson sources (docs/snn_compiler.md, "Network files").
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include <unistd.h>

#include "tools/compiler/snn/network.h"

namespace nmsim::compiler::snn {
namespace {

// A directory of this process: ctest runs the tests of this file as parallel processes.
const std::string& test_dir() {
    static const std::string dir = [] {
        const std::string d = ::testing::TempDir() + "/snn_network_" + std::to_string(getpid());
        std::filesystem::create_directories(d);
        return d;
    }();
    return dir;
}

std::string write_file(const std::string& text, const std::string& name = "net.yaml") {
    const std::string path = test_dir() + "/" + name;
    std::ofstream(path) << text;
    return path;
}

std::string error_of(const std::string& text) {
    const std::string path = write_file(text);
    try {
        load_network(path);
    } catch (const NetworkError& e) {
        return e.what();
    }
    ADD_FAILURE() << "no NetworkError for:\n" << text;
    return "";
}

// "line:col" of the first occurrence of `needle` in `text` (1-based).
std::string where(const std::string& text, const std::string& needle) {
    const size_t at = text.find(needle);
    EXPECT_NE(at, std::string::npos) << needle;
    const size_t line_start = text.rfind('\n', at);
    const size_t line = static_cast<size_t>(std::count(text.begin(), text.begin() + at, '\n')) + 1;
    const size_t col = at - (line_start == std::string::npos ? 0 : line_start + 1) + 1;
    return std::to_string(line) + ":" + std::to_string(col);
}

// The loader's message for `text` must be "<file>:<line:col of needle>: <expect>..."
void expect_error(const std::string& text, const std::string& needle, const std::string& expect) {
    const std::string msg = error_of(text);
    const std::string head = test_dir() + "/net.yaml:" + where(text, needle) + ": ";
    EXPECT_EQ(msg.substr(0, head.size() + expect.size()), head + expect) << msg;
}

const char* kPops = "populations:\n  - {name: a, size: 4}\n";

TEST(SnnNetwork, LoadsDefaultsAndUnits) {
    const Network net = load_network(write_file(R"(
timestep: 0.5
seed: 9
sources:
  - {name: in, size: 3, spike_times: [[0, 4], [], [7]]}
  - {name: noise, size: 2, rate: 50}
populations:
  - {name: a, size: 4}
  - name: b
    size: 2
    alpha: 0.5
    v_th: 10.5
    reset: to_v_reset
    v_reset: -1
    i_offset: 0.25
    refractory: 3
    v_init: 2
    record_spikes: false
    record_v: [1, 0]
projections:
  - {name: p1, pre: in, post: a, connector: all_to_all, weight: 3}
)"));
    EXPECT_DOUBLE_EQ(net.timestep_ms, 0.5);
    EXPECT_EQ(net.seed, 9u);
    const LifParams& a = net.populations[0].lif;
    EXPECT_FALSE(a.alpha);
    EXPECT_DOUBLE_EQ(decay_per_tick(a, 0.5), std::exp(-0.5 / 20.0));  // tau_m 20 ms default
    EXPECT_DOUBLE_EQ(a.v_th, 64.0);
    EXPECT_EQ(a.reset, ResetMode::subtract);
    EXPECT_TRUE(net.populations[0].record_spikes);
    const LifParams& b = net.populations[1].lif;
    EXPECT_DOUBLE_EQ(decay_per_tick(b, 0.5), 0.5);
    EXPECT_EQ(b.reset, ResetMode::to_v_reset);
    EXPECT_DOUBLE_EQ(b.v_reset, -1);
    EXPECT_DOUBLE_EQ(b.i_offset, 0.25);
    EXPECT_EQ(b.t_ref, 3u);
    EXPECT_DOUBLE_EQ(b.v_init, 2);
    EXPECT_FALSE(net.populations[1].record_spikes);
    EXPECT_EQ(net.populations[1].record_v, (std::vector<uint32_t>{1, 0}));
    EXPECT_EQ(net.sources[0].spike_times[0], (std::vector<uint32_t>{0, 4}));
    EXPECT_EQ(net.sources[1].seed, element_seed(9, "noise"));  // derived from the network seed
    ASSERT_EQ(net.projections[0].synapses.size(), 12u);
    EXPECT_EQ(net.projections[0].synapses[0].delay, 1u);  // default delay
    EXPECT_EQ(net.projections[0].pre, (PreRef{true, 0}));
    EXPECT_EQ(net.populations[0].where.line, 8);
}

TEST(SnnNetwork, FileAndSyntaxErrors) {
    EXPECT_NE(error_of("populations: [").find("YAML syntax error"), std::string::npos);
    std::string t = "bogus: 1\n" + std::string(kPops);
    expect_error(t, "bogus", "bogus: unknown key (allowed: timestep, seed, populations");
    expect_error("populations: []\n", "[]", "populations: a non-empty list");
    expect_error("timestep: 0\npopulations: [{name: a, size: 1}]\n", "0",
                 "timestep: 0 outside 0.001..1000 ms");
    expect_error("seed: -1\npopulations: [{name: a, size: 1}]\n", "-1",
                 "seed: expected an integer 0..9007199254740991");
    expect_error("sources: {a: 1}\npopulations: [{name: a, size: 1}]\n", "{a",
                 "sources: must be a list");
}

TEST(SnnNetwork, PopulationKeyErrors) {
    const std::string pre = "populations:\n  - ";
    expect_error(pre + "{size: 3}\n", "{size", "populations[0]: missing required key 'name'");
    expect_error(pre + "{name: a, size: 0}\n", "0}", "populations[0].size: 0 outside 1..38912");
    expect_error(pre + "{name: a, size: 40000}\n", "40000",
                 "populations[0].size: expected an integer 0..38912");
    expect_error(pre + "{name: a, size: 2, colour: red}\n", "colour",
                 "populations[0].colour: unknown key");
    expect_error(pre + "{name: a, size: 2, tau_m: 0}\n", "0}",
                 "populations[0].tau_m: 0 outside 0.001..1000000000 ms");
    expect_error(pre + "{name: a, size: 2, tau_m: 5, alpha: 0.5}\n", "0.5",
                 "populations[0].alpha: give either tau_m or alpha");
    expect_error(pre + "{name: a, size: 2, alpha: 1.5}\n", "1.5",
                 "populations[0].alpha: 1.5 outside 0..1");
    expect_error(pre + "{name: a, size: 2, v_th: 0}\n", "0}",
                 "populations[0].v_th: 0 outside 1.525878906e-05..32767 weight LSB");
    expect_error(pre + "{name: a, size: 2, v_th: .nan}\n", ".nan",
                 "populations[0].v_th: must be finite");
    expect_error(pre + "{name: a, size: 2, reset: zero}\n", "zero",
                 "populations[0].reset: 'zero' is not one of subtract, to_v_reset");
    expect_error(pre + "{name: a, size: 2, v_reset: 1}\n", "1}",
                 "populations[0].v_reset: used only with reset: to_v_reset");
    expect_error(pre + "{name: a, size: 2, reset: to_v_reset, v_reset: 40000}\n", "40000",
                 "populations[0].v_reset: 40000 outside -32768..32767 weight LSB");
    expect_error(pre + "{name: a, size: 2, i_offset: x}\n", "x}",
                 "populations[0].i_offset: expected a number, got 'x'");
    expect_error(pre + "{name: a, size: 2, refractory: 1.5}\n", "1.5",
                 "populations[0].refractory: expected an integer 0..65535");
    expect_error(pre + "{name: a, size: 2, record_spikes: maybe}\n", "maybe",
                 "populations[0].record_spikes: expected true or false");
    expect_error(pre + "{name: a, size: 2, record_v: [2]}\n", "2]",
                 "populations[0].record_v[0]: expected an integer 0..1");
    expect_error(pre + "{name: a, size: 2, record_v: [1, 1]}\n", "1]",
                 "populations[0].record_v[1]: neuron 1 twice");
    expect_error(pre + "{name: a, size: 2}\n  - {name: a, size: 1}\n", "a, size: 1",
                 "populations[1].name: 'a' already names a population or source");
}

TEST(SnnNetwork, SourceKeyErrors) {
    const std::string post = kPops;
    expect_error("sources:\n  - {name: s, size: 2}\n" + post, "{name: s",
                 "sources[0]: give either 'rate' or 'spike_times'");
    expect_error("sources:\n  - {name: s, size: 2, rate: -1}\n" + post, "-1",
                 "sources[0].rate: -1 outside 0..1000000 Hz");
    expect_error("sources:\n  - {name: s, size: 2, spike_times: [[1]]}\n" + post, "[[1]]",
                 "sources[0].spike_times: expected a list of 2 lists of ticks");
    expect_error("sources:\n  - {name: s, size: 1, spike_times: [[3, 3]]}\n" + post, "3]]",
                 "sources[0].spike_times[0][1]: tick 3 after 3: ticks must increase");
    expect_error("sources:\n  - {name: s, size: 1, spike_times: [[-2]]}\n" + post, "-2",
                 "sources[0].spike_times[0][0]: expected an integer 0..2147483647");
    expect_error("sources:\n  - {name: s, size: 1, spike_times: [[1]], seed: 3}\n" + post, "3}",
                 "sources[0].seed: used only with 'rate'");
    expect_error("sources:\n  - {name: a, size: 1, rate: 1}\n" + post, "a, size: 4",
                 "populations[0].name: 'a' already names a population or source");
}

TEST(SnnNetwork, ProjectionKeyErrors) {
    const std::string head =
        std::string(kPops) + "sources: [{name: s, size: 3, rate: 1}]\nprojections:\n  - ";
    auto e = [&](const std::string& proj, const std::string& needle, const std::string& msg) {
        expect_error(head + proj + "\n", needle, msg);
    };
    e("{name: p, pre: x, post: a, connector: all_to_all, weight: 1}", "x,",
      "projections[0].pre: no population or source named 'x'");
    e("{name: p, pre: a, post: s, connector: all_to_all, weight: 1}", "s, c",
      "projections[0].post: 's' is a source: projections end at populations");
    e("{name: p, pre: s, post: a, connector: dense, weight: 1}", "dense",
      "projections[0].connector: 'dense' is not one of all_to_all, one_to_one, "
      "fixed_probability, list");
    e("{name: p, pre: s, post: a, connector: all_to_all}", "{name: p",
      "projections[0]: missing required key 'weight'");
    e("{name: p, pre: s, post: a, connector: all_to_all, weight: 128}", "128",
      "projections[0].weight: expected an integer -127..127, got '128'");
    e("{name: p, pre: s, post: a, connector: all_to_all, weight: -3, type: inhibitory}", "-3",
      "projections[0].weight: negative weight with type inhibitory");
    e("{name: p, pre: s, post: a, connector: all_to_all, weight: 3, type: shunting}", "shunting",
      "projections[0].type: 'shunting' is not one of excitatory, inhibitory");
    e("{name: p, pre: s, post: a, connector: all_to_all, weight: 3, delay: 17}", "17",
      "projections[0].delay: expected an integer 1..16, got '17'");
    e("{name: p, pre: s, post: a, connector: all_to_all, weight: 3, delay: 0}", "0}",
      "projections[0].delay: expected an integer 1..16, got '0'");
    e("{name: p, pre: s, post: a, connector: all_to_all, weight: 3, p: 0.5}", "0.5",
      "projections[0].p: not used by this connector");
    e("{name: p, pre: s, post: a, connector: one_to_one, weight: 3}", "one_to_one",
      "projections[0].connector: one_to_one needs equal sizes (3 vs 4)");
    e("{name: p, pre: s, post: a, connector: one_to_one, weight: 3, allow_self: false}", "false",
      "projections[0].allow_self: not used by this connector");
    e("{name: p, pre: s, post: a, connector: fixed_probability, weight: 3, p: 1.5}", "1.5",
      "projections[0].p: 1.5 outside 0..1");
    e("{name: p, pre: s, post: a, connector: fixed_probability, weight: 3}", "{name: p",
      "projections[0]: missing required key 'p'");
    e("{name: p, pre: s, post: a, connector: list, connections: [[0, 4, 1]]}", "4, 1",
      "projections[0].connections[0][1]: expected an integer 0..3, got '4'");
    e("{name: p, pre: s, post: a, connector: list, connections: [[0, 1]]}", "[0, 1]]",
      "projections[0].connections[0]: expected [i, j, weight] or [i, j, weight, delay]");
    e("{name: p, pre: s, post: a, connector: list, weight: 2, connections: [[0, 1, 2]]}",
      "[0, 1, 2]]", "projections[0].connections[0]: expected [i, j] (the projection has");
    e("{name: p, pre: s, post: a, connector: list, delay: 2, connections: [[0, 1, 2, 3]]}",
      "[0, 1, 2, 3]]", "projections[0].connections[0]: expected [i, j, weight] (the projection");
    e("{name: p, pre: s, post: a, connector: list, connections: [[0, 1, 2, 20]]}", "20",
      "projections[0].connections[0][3]: expected an integer 1..16");
    e("{name: p, pre: s, post: a, connector: all_to_all, weight: 1, connections: []}", "[]",
      "projections[0].connections: not used by this connector");
    const std::string dup = head +
                            "{name: p, pre: s, post: a, connector: all_to_all, weight: 1}\n  - "
                            "{name: p, pre: a, post: a, connector: all_to_all, weight: 1}\n";
    EXPECT_NE(error_of(dup).find("projections[1].name: 'p' already names a projection"),
              std::string::npos);
}

TEST(SnnNetwork, BoundsOfGeneratedConnectors) {
    const std::string big =
        "populations:\n  - {name: a, size: 38912}\n  - {name: b, size: 38912}\n"
        "projections:\n  - {name: p, pre: a, post: b, connector: all_to_all, weight: 1}\n";
    expect_error(big, "all_to_all", "projections[0].connector: 38912 x 38912 candidate pairs");
}

TEST(SnnNetwork, ConnectorsExpand) {
    const Network net = load_network(write_file(R"(
seed: 3
populations:
  - {name: a, size: 5}
  - {name: b, size: 5}
projections:
  - {name: all, pre: a, post: b, connector: all_to_all, weight: -4, delay: 3}
  - {name: rec, pre: a, post: a, connector: all_to_all, weight: 2, allow_self: false}
  - {name: one, pre: a, post: b, connector: one_to_one, weight: 7, type: inhibitory}
  - {name: lst, pre: b, post: a, connector: list, connections: [[0, 1, 5, 2], [4, 0, -6]]}
  - {name: lsw, pre: b, post: a, connector: list, weight: 1, delay: 9, connections: [[2, 2]]}
)"));
    const auto& all = net.projections[0].synapses;
    ASSERT_EQ(all.size(), 25u);
    EXPECT_EQ(all[7], (Synapse{1, 2, 4, 3, SynapseType::inhibitory}));  // negative -> inhibitory
    EXPECT_EQ(net.projections[1].synapses.size(), 20u);                 // no self connections
    for (const Synapse& s : net.projections[1].synapses) EXPECT_NE(s.pre, s.post);
    const auto& one = net.projections[2].synapses;
    ASSERT_EQ(one.size(), 5u);
    for (uint32_t i = 0; i < 5; ++i)
        EXPECT_EQ(one[i], (Synapse{i, i, 7, 1, SynapseType::inhibitory}));
    EXPECT_EQ(net.projections[3].synapses,
              (std::vector<Synapse>{{0, 1, 5, 2, SynapseType::excitatory},
                                    {4, 0, 6, 1, SynapseType::inhibitory}}));
    EXPECT_EQ(net.projections[4].synapses,
              (std::vector<Synapse>{{2, 2, 1, 9, SynapseType::excitatory}}));
    EXPECT_EQ(net.synapse_count(), 25u + 20u + 5u + 2u + 1u);
}

TEST(SnnNetwork, FixedProbabilityStatisticsAndDeterminism) {
    const uint32_t n = 400;
    const double p = 0.1;
    const auto pairs = fixed_probability_pairs(n, n, p, 42, true);
    const double mean = p * n * n, sd = std::sqrt(n * n * p * (1 - p));
    EXPECT_LT(std::abs(static_cast<double>(pairs.size()) - mean), 4 * sd) << pairs.size();
    // Each row its own stream: row i is the same whatever the number of rows (slicing, order).
    const auto fewer = fixed_probability_pairs(10, n, p, 42, true);
    const std::vector<std::pair<uint32_t, uint32_t>> head(
        pairs.begin(),
        std::find_if(pairs.begin(), pairs.end(), [](const auto& q) { return q.first >= 10; }));
    EXPECT_EQ(fewer, head);
    EXPECT_EQ(fixed_probability_pairs(n, n, p, 42, true), pairs);
    EXPECT_NE(fixed_probability_pairs(n, n, p, 43, true), pairs);
    // allow_self: false drops the diagonal only, keeping the streams.
    auto no_self = fixed_probability_pairs(n, n, p, 42, false);
    std::vector<std::pair<uint32_t, uint32_t>> filtered;
    for (const auto& q : pairs)
        if (q.first != q.second) filtered.push_back(q);
    EXPECT_EQ(no_self, filtered);
    // Row counts are binomial(n, p): the fraction of rows within 4 sd of n p.
    std::vector<uint32_t> rows(n, 0);
    for (const auto& q : pairs) ++rows[q.first];
    for (uint32_t r : rows) EXPECT_LT(std::abs(r - p * n), 4 * std::sqrt(n * p * (1 - p)) + 1);
    EXPECT_TRUE(fixed_probability_pairs(5, 5, 0.0, 1, true).empty());
    EXPECT_EQ(fixed_probability_pairs(5, 5, 1.0, 1, true).size(), 25u);
}

TEST(SnnNetwork, RandomStreamsAreDocumentedFunctions) {
    // splitmix64 reference values (Vigna's generator seeded with 0: the first output).
    EXPECT_EQ(splitmix64(0), 0xE220A8397B1DCDAFull);
    EXPECT_EQ(derive_seed(1, 2), splitmix64(1 ^ splitmix64(2)));
    EXPECT_EQ(name_hash(""), 0xCBF29CE484222325ull);  // FNV-1a 64 offset basis
    EXPECT_EQ(name_hash("a"), 0xAF63DC4C8601EC8Cull);
    EXPECT_EQ(unit_double(0), 0.0);
    EXPECT_EQ(unit_double(~0ull), 1.0 - 0x1.0p-53);
}

TEST(SnnNetwork, PoissonTrainsHaveTheirRateAndExtend) {
    Network net;
    net.populations.push_back({"a", 1, {}, true, {}, {}, {}});
    Source s;
    s.name = "s";
    s.size = 100;
    s.rate_hz = 50;
    s.seed = 5;
    net.sources.push_back(s);
    const uint32_t ticks = 2000;
    const SpikeTrains tr = spike_trains(net, ticks);
    uint64_t n = 0;
    for (const auto& train : tr[0]) {
        n += train.size();
        for (size_t k = 1; k < train.size(); ++k) EXPECT_LT(train[k - 1], train[k]);
    }
    const double p = -std::expm1(-50 * 1e-3), mean = p * ticks * 100;
    EXPECT_LT(std::abs(static_cast<double>(n) - mean), 4 * std::sqrt(mean * (1 - p)));
    // A shorter run is a prefix of a longer one; another seed gives other trains.
    const SpikeTrains shorter = spike_trains(net, 500);
    for (uint32_t i = 0; i < 100; ++i) {
        std::vector<uint32_t> prefix;
        for (uint32_t t : tr[0][i])
            if (t < 500) prefix.push_back(t);
        EXPECT_EQ(shorter[0][i], prefix);
    }
    net.sources[0].seed = 6;
    EXPECT_NE(spike_trains(net, ticks)[0], tr[0]);
    // Given spike times are cut at the run's end.
    Source g;
    g.name = "g";
    g.size = 1;
    g.spike_times = {{1, 5, 9}};
    net.sources.push_back(g);
    EXPECT_EQ(spike_trains(net, 6)[1][0], (std::vector<uint32_t>{1, 5}));
}

TEST(SnnNetwork, ValidateCatchesNetworksBuiltInCode) {
    Network net;
    net.populations.push_back({"a", 2, {}, true, {}, {}, {}});
    EXPECT_NO_THROW(validate(net));
    Network bad = net;
    bad.populations[0].lif.v_th = 0;
    EXPECT_THROW(validate(bad), NetworkError);
    bad = net;
    bad.populations.push_back({"a", 1, {}, true, {}, {}, {}});
    EXPECT_THROW(validate(bad), NetworkError);
    bad = net;
    Projection p;
    p.name = "p";
    p.synapses.push_back({0, 5, 1, 1, SynapseType::excitatory});
    bad.projections.push_back(p);
    EXPECT_THROW(validate(bad), NetworkError);
    bad.projections[0].synapses[0] = {0, 1, 1, 17, SynapseType::excitatory};
    EXPECT_THROW(validate(bad), NetworkError);
    bad.projections[0].synapses[0] = {0, 1, 128, 1, SynapseType::excitatory};
    EXPECT_THROW(validate(bad), NetworkError);
}

}  // namespace
}  // namespace nmsim::compiler::snn
