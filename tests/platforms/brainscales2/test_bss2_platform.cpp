// The BrainScaleS-2 platform end to end: the host compiler's configuration on the chip models
// (every source event reaches exactly the synapses its connections ask for), the two scenarios
// (feed-forward rates rise with the input rate; the winner-take-all ring lets the strongly driven
// segment win), determinism, the chip link's cap on the input rate, and bad input.
#define SC_INCLUDE_DYNAMIC_PROCESSES  // sc_spawn in the configuration test
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include "models/brainscales2/neuron/adex_array.h"
#include "models/common/sim_error.h"
#include "models/common/sim_kernel.h"
#include "platforms/brainscales2/chip.h"
#include "platforms/common/host_program.h"
#include "tests/support/systemc_fixture.h"
#include "tools/compiler/bss2/graph.h"
#include "tools/compiler/bss2/lowering.h"
#include "tools/compiler/bss2/network.h"
#include "tools/compiler/bss2/placement.h"
#include "workloads/bss2/host.h"

namespace nmsim::bss2 {
namespace {

namespace cb = nmsim::compiler::bss2;
namespace fs = std::filesystem;
using workloads::bss2::Bss2RunSummary;
using workloads::bss2::Bss2Workload;
using workloads::bss2::PopulationStats;

// The scenario's bss2 section, to edit.
Bss2Workload& bss2_of(scenario::Scenario& s) { return s.workload.as<Bss2Workload>(); }

// --- the compiler's configuration on the models ---

cb::Network random_network(uint64_t seed) {
    std::mt19937_64 rng(seed);
    auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    cb::Network net;
    const int n_ext = uni(1, 3), n_int = uni(1, 3);
    for (int i = 0; i < n_ext; ++i) {
        cb::Population p;
        p.name = "ext" + std::to_string(i);
        p.kind = cb::PopulationKind::external;
        p.size = static_cast<size_t>(uni(1, 40));
        net.add(p);
    }
    for (int i = 0; i < n_int; ++i) {
        cb::Population p;
        p.name = "int" + std::to_string(i);
        p.kind = cb::PopulationKind::internal;
        p.size = static_cast<size_t>(uni(1, 40));
        p.neurons.assign(p.size, cb::NeuronProperties{});
        net.add(p);
    }
    const int n_proj = uni(1, 5);
    for (int k = 0; k < n_proj; ++k) {
        cb::Projection pr;
        pr.name = "proj" + std::to_string(k);
        pr.source = static_cast<size_t>(uni(0, n_ext + n_int - 1));
        pr.target = static_cast<size_t>(n_ext + uni(0, n_int - 1));
        pr.receptor = uni(0, 1) ? cb::Receptor::excitatory : cb::Receptor::inhibitory;
        std::map<std::pair<uint32_t, uint32_t>, bool> seen;
        const double p = std::uniform_real_distribution<double>(0.05, 0.5)(rng);
        for (uint32_t s = 0; s < net.populations[pr.source].size; ++s)
            for (uint32_t t = 0; t < net.populations[pr.target].size; ++t)
                if (std::bernoulli_distribution(p)(rng))
                    pr.connections.push_back({s, t, static_cast<uint32_t>(uni(1, 20))});
        net.add(pr);
    }
    return net;
}

// Expected per source event: (neuron global index, inhibitory) -> summed weight.
using Delivery = std::map<std::pair<uint32_t, bool>, double>;

class Bss2ModelRouting : public test::SystemCTest {};

// For random networks that route: configure a real chip with the lowered words, send every
// source's event once (external: through the L2 input; on-chip neuron: its back end fires), and
// compare what the synapse arrays deliver with the network's connections.
TEST_F(Bss2ModelRouting, EverySourceReachesExactlyItsSynapses) {
    int routed = 0;
    for (uint64_t seed = 1; seed <= 40 && routed < 12; ++seed) {
        const cb::Network net = random_network(seed);
        cb::Placement pl;
        try {
            pl = cb::map_and_route(net);
        } catch (const cb::NetworkError&) {
            continue;
        }
        ++routed;
        fresh_sim_kernel();
        cb::GraphMapping gm;
        const cb::Graph g = cb::build_graph(net, pl, {}, &gm);
        const auto words = cb::configuration(g, {});

        // Expected deliveries per source key ("e<pop>:<i>" or "n<pop>:<i>").
        std::map<std::string, Delivery> expected;
        for (const auto& pr : net.projections) {
            const bool inh = pr.receptor == cb::Receptor::inhibitory;
            const std::string tag =
                (net.populations[pr.source].kind == cb::PopulationKind::external ? "e" : "n") +
                std::to_string(pr.source) + ":";
            for (const auto& c : pr.connections) {
                const auto& slot = pl.populations[pr.target].neurons[c.target];
                expected[tag + std::to_string(c.source)][{slot.hemi * 256 + slot.col, inh}] +=
                    c.weight;
            }
        }

        ChipParams p;
        Chip chip("chip", p, 1);
        std::map<std::string, Delivery> got;
        std::string current;
        chip.set_synapse_tap([&](uint32_t n, bool inh, double amount, uint64_t) {
            got[current][{n, inh}] += amount;
        });
        std::string error;
        sc_core::sc_spawn([&] {
            for (const auto& [a, d] : words)
                if (!chip.config_write(a, d, &error)) return;
            sc_core::wait(1, sc_core::SC_US);
            for (size_t pi = 0; pi < net.populations.size(); ++pi) {
                const auto& pop = net.populations[pi];
                for (size_t i = 0; i < pop.size; ++i) {
                    if (pop.kind == cb::PopulationKind::external) {
                        current = "e" + std::to_string(pi) + ":" + std::to_string(i);
                        if (gm.input_events.count(pi)) chip.inject(gm.input_events.at(pi).at(i));
                    } else {
                        current = "n" + std::to_string(pi) + ":" + std::to_string(i);
                        const auto& slot = pl.populations[pi].neurons[i];
                        chip.fire(slot.hemi * 256 + slot.col);
                    }
                    sc_core::wait(1, sc_core::SC_US);  // all deliveries of one event within 1 us
                }
            }
            sc_core::sc_stop();
        });
        sc_core::sc_start(sc_core::sc_time(1, sc_core::SC_SEC));
        ASSERT_EQ(error, "") << "seed " << seed;
        ASSERT_FALSE(sim_error().set) << sim_error().formatted();
        for (auto& [k, d] :
             got)  // zero-weight cells of shared rows may match: no current, no connection
            for (auto it = d.begin(); it != d.end();)
                it = it->second == 0 ? d.erase(it) : std::next(it);
        for (auto it = got.begin(); it != got.end();)
            it = it->second.empty() ? got.erase(it) : std::next(it);
        EXPECT_EQ(got, expected) << "seed " << seed;
    }
    EXPECT_GE(routed, 8);
}

class Bss2ChipConfig : public test::SystemCTest {};

// The Omnibus decoder: every block reads back what was written at its address, and unmapped,
// reserved, read-only and write-only words are refused with a message naming them.
TEST_F(Bss2ChipConfig, AddressesReachTheirBlocksAndBadOnesAreNamed) {
    Chip chip("chip", ChipParams{}, 1);
    std::string e;
    const uint32_t words[][2] = {
        {BSS2_SYNAPSE(1, 200, 17), 5u | 33u << 6},
        {BSS2_XBAR_NODE(8, 3) + BSS2_XBAR_TARGET, 0x123},
        {BSS2_SYNDRV(1, 127) + BSS2_SYNDRV_STP_TAU_REC, 4000},
        {BSS2_BG(7) + BSS2_BG_LABEL, 0x2ab},
        {BSS2_PADI(1, 3), 1},
        {BSS2_MADC_NEURON, 300},
        {BSS2_NEURON(1, 255) + BSS2_NRN_ADDR_OUT, 0x7f},
    };
    for (const auto& w : words) {
        ASSERT_TRUE(chip.config_write(w[0], w[1], &e)) << std::hex << w[0] << ": " << e;
        uint32_t d = 0;
        ASSERT_TRUE(chip.config_read(w[0], &d, &e)) << std::hex << w[0] << ": " << e;
        EXPECT_EQ(d, w[1]) << std::hex << w[0];
    }
    uint32_t d = 0;
    EXPECT_FALSE(chip.config_write(0x000100, 1, &e));
    EXPECT_EQ(e, "address 0x000100 is not mapped");
    EXPECT_FALSE(chip.config_read(BSS2_NEURON(0, 3) + 20, &d, &e));
    EXPECT_EQ(e, "neuron word 20 is reserved");
    EXPECT_FALSE(chip.config_write(BSS2_NEURON(0, 3) + BSS2_NRN_V_MEM, 1, &e));
    EXPECT_EQ(e, "neuron word V_MEM is read-only");
    EXPECT_FALSE(chip.config_read(BSS2_NEURON(0, 3) + BSS2_NRN_RESET, &d, &e));
    EXPECT_EQ(e, "neuron word RESET is write-only");
    EXPECT_TRUE(chip.config_write(BSS2_NEURON(0, 3) + BSS2_NRN_RESET, 1, &e));
    EXPECT_TRUE(chip.config_read(BSS2_NEURON(0, 3) + BSS2_NRN_V_MEM, &d, &e));
}

// The network files' neuron ranges (cb::neuron_parameters, docs/bss2_compiler.md) against the
// lowering and the neuron model: every value inside lowers to configuration words without
// overflow, decodes to a configuration the chip accepts (NeuronConfig::valid, as Chip checks each
// neuron) within one word LSB, and integrates to a finite membrane inside the supply rails, with
// the exponential term and adaptation on: each parameter at both bounds, all at their lower and
// all at their upper bounds, and random in-range combinations (seeded).
TEST(Bss2NeuronRanges, EveryValueInRangeLowersToANeuronTheChipRuns) {
    const auto& params = cb::neuron_parameters();
    std::vector<cb::NeuronProperties> cases;
    cb::NeuronProperties lo, hi;
    for (const auto& np : params) {
        lo.*np.field = np.range.lo;
        hi.*np.field = np.range.hi;
        for (double v : {np.range.lo, np.range.hi}) {
            cb::NeuronProperties p;
            p.*np.field = v;
            cases.push_back(p);
        }
    }
    cases.push_back(lo);
    cases.push_back(hi);
    std::mt19937_64 rng(20260412);
    for (int i = 0; i < 100; ++i) {
        cb::NeuronProperties p;
        for (const auto& np : params)
            p.*np.field = std::uniform_real_distribution<double>(np.range.lo, np.range.hi)(rng);
        cases.push_back(p);
    }
    const uint32_t flags =
        BSS2_NRN_CFG_ENABLE | BSS2_NRN_CFG_FIRE | BSS2_NRN_CFG_EXP | BSS2_NRN_CFG_ADAPT;
    for (size_t c = 0; c < cases.size(); ++c) {
        SCOPED_TRACE("case " + std::to_string(c));
        cb::NeuronProperties p = cases[c];
        p.exponential = p.adaptation = true;
        std::array<uint32_t, cb::kNeuronWords> words{};
        ASSERT_NO_THROW(words = cb::neuron_words(p, 0, flags, "neuron"));
        const NeuronConfig cfg = NeuronConfig::from_words(words.data());
        std::string why;
        ASSERT_TRUE(cfg.valid(&why)) << why;
        EXPECT_NEAR(cfg.tau_mem, p.tau_mem, 1e-6);
        EXPECT_NEAR(cfg.v_threshold, p.v_threshold, 1e-3);
        EXPECT_NEAR(cfg.c_mem, p.c_mem, 1e-3);
        EXPECT_NEAR(cfg.delta_t, p.delta_t, 1e-3);
        AdexArray a(1, AdexParams{}, 1);
        a.configure(0, cfg);
        a.add_input(0, false, 63, 1'000'000);
        a.add_input(0, true, 63, 5'000'000);
        a.advance_to(20'000'000, [](uint32_t, uint64_t) {});
        EXPECT_TRUE(std::isfinite(a.v(0)) && a.v(0) >= 0 && a.v(0) <= 1200) << a.v(0);
        EXPECT_TRUE(std::isfinite(a.w(0))) << a.w(0);
    }
}

// --- scenarios ---

scenario::Scenario load(const std::string& name, const std::vector<std::string>& sets = {}) {
    scenario::LoadOptions lo;
    lo.sets = sets;
    return scenario::load(std::string(NMSIM_SOURCE_DIR) + "/scenarios/" + name, lo);
}

std::string tmp(const std::string& name) {
    return (fs::path(NMSIM_BINARY_DIR) / ("bss2_test_" + name)).string();
}

Bss2RunSummary run(const scenario::Scenario& s, const std::string& trace, bool* ok = nullptr) {
    run::RunOptions o;
    o.quiet = true;
    o.trace_path = trace;
    std::ostringstream out, err;
    workloads::bss2::Bss2Host host;
    const auto r = run::run_scenario(s, o, out, err, host);
    const Bss2RunSummary sum = host.summary();
    if (ok)
        *ok = r.ok;
    else
        EXPECT_TRUE(r.ok) << err.str();
    return sum;
}

TEST(Bss2Scenario, FeedforwardOutputRateRisesWithInputRate) {
    auto s = load("bss2_feedforward.yaml", {"workload.bss2.runtime_us=300"});
    bss2_of(s).madc.reset();
    bss2_of(s).dot.clear();
    const auto sum = run(s, tmp("ff.h5"));
    const PopulationStats* exc = nullptr;
    const PopulationStats* in = nullptr;
    for (const auto& p : sum.populations) {
        if (p.name == "exc") exc = &p;
        if (p.name == "inputs") in = &p;
    }
    ASSERT_TRUE(exc && in);
    ASSERT_EQ(sum.runs, 8u);
    const double requested[] = {5e3, 10e3, 20e3, 30e3, 40e3, 60e3, 80e3, 100e3};
    for (size_t r = 0; r < sum.runs; ++r) {
        EXPECT_NEAR(in->rate_hz[r], requested[r], 0.15 * requested[r])
            << "run " << r;  // Poisson, 64 x 300 us
        if (r > 0) {
            EXPECT_GE(exc->rate_hz[r] + 2e3, exc->rate_hz[r - 1]) << "run " << r;
        }
    }
    EXPECT_EQ(exc->rate_hz[0], 0.0);  // 5 kHz is far below the firing onset
    EXPECT_GT(exc->rate_hz[7], 50e3);
    EXPECT_EQ(sum.padi_drops, 0u);
    EXPECT_EQ(sum.fpga_drops, 0u);
    EXPECT_NEAR(sum.realtime_us, 8 * 300.0, 1.0);
    EXPECT_GT(sum.host_to_fpga_us, 0);
    EXPECT_GT(sum.readback_us, 0);
    // Every injected spike reaches the 32 neurons through one synapse each.
    EXPECT_EQ(sum.synaptic_events, 32 * sum.input_spikes);
}

TEST(Bss2Scenario, WinnerTakeAllSegmentWithStrongInputWins) {
    auto s = load("bss2_recurrent_wta.yaml", {"workload.bss2.runtime_us=500"});
    bss2_of(s).dot.clear();
    const auto sum = run(s, tmp("wta.h5"));
    const PopulationStats& ring = sum.populations.at(0);
    const PopulationStats& pool = sum.populations.at(1);
    ASSERT_EQ(ring.name, "ring");
    ASSERT_EQ(sum.runs, 3u);
    EXPECT_GT(ring.rate_hz[1], 0.0);
    EXPECT_GT(pool.rate_hz[1], 0.0);
    EXPECT_GT(sum.madc_samples, 3 * 500 * 29u);  // 29.4 MSa/s over three 500 us runs
}

TEST(Bss2Scenario, SameSeedSameResultOtherSeedOther) {
    auto s = load("bss2_recurrent_wta.yaml", {"workload.bss2.runtime_us=200"});
    bss2_of(s).dot.clear();
    const auto a = run(s, tmp("det_a.h5"));
    const auto b = run(s, tmp("det_b.h5"));
    EXPECT_EQ(a.output_hash, b.output_hash);
    EXPECT_EQ(a.chip_spikes, b.chip_spikes);
    EXPECT_EQ(a.synaptic_events, b.synaptic_events);
    s.seed = 2;
    const auto c = run(s, tmp("det_c.h5"));
    EXPECT_NE(a.output_hash, c.output_hash);
}

// 64 inputs at 10 MHz ask for 640 M events/s; the chip link carries 8 Gbit/s in 8-byte messages of
// at most 2 events (250 M events/s). The run stretches: the injected rate stays below the cap, and
// reaches a good part of it (Poisson spikes at distinct 8 ns cycles cannot all share messages, and
// the FPGA issues one instruction per cycle: the exact cap of back-to-back packs is tested in
// tests/models/brainscales2/fpga). A faster link shortens the run.
TEST(Bss2Scenario, InputRateIsCappedByTheChipLink) {
    auto s = load("bss2_feedforward.yaml", {"workload.bss2.runtime_us=100"});
    bss2_of(s).runs.resize(1);
    bss2_of(s).runs[0].inputs[0].rate_hz = 10e6;
    bss2_of(s).madc.reset();
    bss2_of(s).dot.clear();
    const auto sum = run(s, tmp("cap.h5"));
    const double cap = 1e9 / 8 * 2;  // events per second
    const double rate = static_cast<double>(sum.input_spikes) / (sum.realtime_us * 1e-6);
    EXPECT_GT(sum.input_spikes, 60000u);
    EXPECT_GT(sum.realtime_us, 250.0);
    EXPECT_LE(rate, cap);
    EXPECT_GE(rate, 0.6 * cap);
    EXPECT_GT(sum.late_waits, 0u);
    auto s2 = s;
    s2.params.push_back({"fpga.chip_link_bandwidth", "2GB/s", {"--set", 0, 0}});
    const auto fast = run(s2, tmp("cap2.h5"));
    EXPECT_EQ(fast.input_spikes, sum.input_spikes);
    EXPECT_LT(fast.realtime_us, 0.9 * sum.realtime_us);
    EXPECT_LE(static_cast<double>(fast.input_spikes) / (fast.realtime_us * 1e-6), 2 * cap);
    // A link that is fast enough does not stretch the run.
    auto s3 = s;
    bss2_of(s3).runs[0].inputs[0].rate_hz = 100e3;
    const auto slow = run(s3, tmp("cap3.h5"));
    EXPECT_NEAR(slow.realtime_us, 100.0, 0.1);
}

TEST(Bss2Scenario, UnroutableNetworkNamesThePopulation) {
    const fs::path net = tmp("too_big.yaml");
    // Each population fits the chip (a single one of 600 is refused at load, naming its size key:
    // tests/tools/compiler/bss2_net), together they do not.
    std::ofstream(net) << "populations:\n  - {name: big, kind: internal, size: 300}\n"
                          "  - {name: huge, kind: internal, size: 300}\n";
    auto s = load("bss2_feedforward.yaml");
    bss2_of(s).network = net.string();
    bss2_of(s).runs = {workloads::bss2::Run{}};
    bss2_of(s).madc.reset();
    bss2_of(s).dot.clear();
    run::RunOptions o;
    o.quiet = true;
    std::ostringstream out, err;
    try {
        run::run_scenario(s, o, out, err);
        FAIL() << "expected an error";
    } catch (const std::exception& e) {
        EXPECT_NE(std::string(e.what()).find("huge"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("512"), std::string::npos) << e.what();
    }
}

// The host generates input spikes before the run: their number is bounded up front, with the key.
TEST(Bss2Scenario, InputSpikeTrainsAreBounded) {
    auto s = load("bss2_feedforward.yaml");
    bss2_of(s).runs.resize(1);
    bss2_of(s).runs[0].inputs[0].rate_hz = 1e9;  // 64 neurons x 1 GHz x 1 ms
    bss2_of(s).dot.clear();
    run::RunOptions o;
    o.quiet = true;
    std::ostringstream out, err;
    try {
        run::run_scenario(s, o, out, err);
        FAIL() << "expected an error";
    } catch (const scenario::ScenarioError& e) {
        ASSERT_EQ(e.errors().size(), 1u);
        EXPECT_EQ(e.errors()[0].key, "workload.bss2.runs.0.inputs.0.rate_hz");
        EXPECT_NE(e.errors()[0].message.find("64000000 spikes"), std::string::npos)
            << e.errors()[0].message;
    }
}

TEST(Bss2Scenario, InputForAnOnChipPopulationIsAnError) {
    auto s = load("bss2_feedforward.yaml");
    bss2_of(s).runs[0].inputs[0].population = "exc";
    bss2_of(s).dot.clear();
    run::RunOptions o;
    o.quiet = true;
    std::ostringstream out, err;
    try {
        run::run_scenario(s, o, out, err);
        FAIL() << "expected an error";
    } catch (const scenario::ScenarioError& e) {
        ASSERT_EQ(e.errors().size(), 1u);
        EXPECT_EQ(e.errors()[0].key, "workload.bss2.runs.0.inputs.0.population");
        EXPECT_NE(e.errors()[0].message.find("internal"), std::string::npos)
            << e.errors()[0].message;
    }
}

}  // namespace
}  // namespace nmsim::bss2
