// A hagen-mode tile on the whole simulated chip (issue 15): the host's configuration and
// playback program (tools/compiler/bss2/hagen_program.h) run through the FPGA, the chip link,
// the L2 input, the crossbar, the PADI buses, the hagen synapse drivers, the synapse array, the
// integrator neurons and the CADC, and the decoded int8 results equal the ideal chip's integer
// reference bit for bit when the fixed-pattern residuals are off. The simulated time of a vector
// follows from the program (resets, settle waits, events, conversions, reads over the link).
#include <gtest/gtest.h>

#include <cstdio>
#include <random>

#include "nmsim/hw/brainscales2/playback.h"
#include "platforms/brainscales2/chip.h"
#include "platforms/brainscales2/hagen_executor.h"
#include "platforms/brainscales2/hagen_host.h"
#include "tests/support/systemc_fixture.h"
#include "tools/compiler/bss2/hagen_ops.h"
#include "tools/compiler/bss2/hagen_program.h"

namespace nmsim::bss2 {
namespace {

namespace hg = nmsim::compiler::bss2::hagen;

struct Host : sc_core::sc_module {
    SC_HAS_PROCESS(Host);
    Host(sc_core::sc_module_name n, Fpga& f, std::vector<std::vector<uint64_t>> progs)
        : sc_module(n), fpga(f), programs(std::move(progs)) {
        SC_THREAD(run);
    }
    void run() {
        for (const auto& p : programs) {
            const uint64_t t0 = sc_core::sc_time_stamp().value();
            responses.push_back(fpga.execute(p));
            durations_ps.push_back(sc_core::sc_time_stamp().value() - t0);
        }
        sc_core::sc_stop();
    }
    Fpga& fpga;
    std::vector<std::vector<uint64_t>> programs, responses;
    std::vector<uint64_t> durations_ps;
};

std::vector<uint64_t> config_program(const std::vector<hg::ConfigWord>& words) {
    std::vector<uint64_t> p;
    for (const auto& [a, d] : words) p.push_back(bss2_pb_write(a, d));
    p.push_back(bss2_pb_make(BSS2_PB_HALT, 0));
    return p;
}

// The ideal setting: no fixed-pattern residuals (the noise is off by default).
ChipParams ideal_params() {
    ChipParams p;
    p.neuron.mismatch_tau_rel = 0;
    p.neuron.mismatch_c_rel = 0;
    p.neuron.mismatch_w_rel = 0;
    p.neuron.mismatch_v_mV = 0;
    return p;
}

class Bss2HagenChip : public test::SystemCTest {};

TEST_F(Bss2HagenChip, IdealTileOnTheChipEqualsTheIntegerReference) {
    const ChipParams p = ideal_params();
    Chip chip("chip", p, 5);

    std::mt19937_64 rng(21);
    const uint32_t in = 100, out = 70, batch = 4;
    hg::IntMatrix x(batch, in), w(in, out);
    for (auto& v : w.v) v = static_cast<int32_t>(rng() % 81) - 40;
    for (auto& v : x.v) v = static_cast<int32_t>(rng() % 32);
    for (uint32_t i = 0; i < in; i += 3) x.at(1, i) = 0;  // zero inputs send no event
    const hg::MatmulPlan plan = hg::plan_matmul(in, out, 1, "matmul");
    ASSERT_EQ(plan.tiles.size(), 1u);
    hg::Tile tile = plan.tiles[0];
    tile.half = 1;  // the lower half: routing through its PADI buses
    hg::VectorTiming timing;
    timing.num_sends = 2;
    Host host("host", chip.fpga(),
              {config_program(hg::tile_config(tile, w)), hg::tile_program(tile, x, w, timing)});
    sc_core::sc_start(sc_core::sc_time(1, sc_core::SC_SEC));
    ASSERT_EQ(host.responses.size(), 2u);
    EXPECT_EQ(chip.invalid_neurons(), "");
    const hg::IntMatrix y = hg::tile_results(tile, batch, host.responses[1], timing);
    const hg::IntMatrix want = hg::reference_matmul(x, w, timing.num_sends, plan);
    for (uint32_t b = 0; b < batch; ++b)
        for (uint32_t j = 0; j < out; ++j) ASSERT_EQ(y.at(b, j), want.at(b, j)) << b << "," << j;
    // Some outputs must be non-trivial for the comparison to mean anything.
    int nonzero = 0;
    for (int32_t v : want.v) nonzero += v != 0;
    EXPECT_GT(nonzero, int(want.v.size() / 2));
    // Time per vector: at least the program's waits (30 us + 1 us + events + 2 us), far below
    // a millisecond.
    const double per_vector_us = double(host.durations_ps[1]) / batch / 1e6;
    std::printf("simulated time per vector: %.2f us (%u vectors, %u sends)\n", per_vector_us, batch,
                timing.num_sends);
    EXPECT_GT(per_vector_us, 33.0);
    EXPECT_LT(per_vector_us, 1000.0);
}

// Several tiles on two chips: a 300 x 600 product is 3 row splits x 3 column splits = 9 tiles over
// 4 halves (3 passes); the executor configures, runs and sums them, bit-exact when ideal.
struct ProductHost : sc_core::sc_module {
    SC_HAS_PROCESS(ProductHost);
    ProductHost(sc_core::sc_module_name n, std::vector<Chip*> chips, hg::IntMatrix x_,
                hg::IntMatrix w_, hg::MatmulPlan plan_, hg::VectorTiming t_)
        : sc_module(n),
          exec(std::move(chips)),
          x(std::move(x_)),
          w(std::move(w_)),
          plan(std::move(plan_)),
          timing(t_) {
        SC_THREAD(run);
    }
    void run() {
        y = exec.matmul(x, w, plan, timing, &times);
        sc_core::sc_stop();
    }
    HagenExecutor exec;
    hg::IntMatrix x, w, y;
    hg::MatmulPlan plan;
    hg::VectorTiming timing;
    HagenTimes times;
};

TEST_F(Bss2HagenChip, ExecutorSumsRowSplitsOverTilesAndChips) {
    const ChipParams p = ideal_params();
    Chip a("a", p, 5), b("b", p, 6);
    std::mt19937_64 rng(22);
    const uint32_t in = 300, out = 600, batch = 2;
    hg::IntMatrix x(batch, in), w(in, out);
    for (auto& v : w.v) v = static_cast<int32_t>(rng() % 31) - 15;
    for (auto& v : x.v) v = static_cast<int32_t>(rng() % 32);
    const hg::MatmulPlan plan = hg::plan_matmul(in, out, 2, "matmul 300x600");
    ASSERT_EQ(plan.tiles.size(), 9u);
    ASSERT_EQ(plan.passes, 3u);
    hg::VectorTiming timing;
    timing.baseline = false;  // the resting level is code 128: exact in the ideal setting
    ProductHost host("host", {&a, &b}, x, w, plan, timing);
    sc_core::sc_start(sc_core::sc_time(10, sc_core::SC_SEC));
    const hg::IntMatrix want = hg::reference_matmul(x, w, 1, plan);
    ASSERT_EQ(host.y.v.size(), want.v.size());
    for (size_t k = 0; k < want.v.size(); ++k) ASSERT_EQ(host.y.v[k], want.v[k]) << k;
    const HagenTimes& t = host.times;
    EXPECT_EQ(t.vectors, 9u * batch);
    EXPECT_EQ(t.macs, uint64_t{batch} * in * out);
    // Per (pass, chip) in use: a configuration and one program for both halves' tiles.
    EXPECT_EQ(t.executions, 5u + 5u);
    EXPECT_EQ(t.total_ps, t.transfer_ps + t.config_ps + t.realtime_ps + t.other_ps);
    EXPECT_GT(t.realtime_ps, 0u);
    // The host's stages take time: encoding every instruction and decoding every response.
    EXPECT_GT(t.host_encode_ps, 0u);
    EXPECT_GT(t.host_decode_ps, 0u);
    EXPECT_GT(t.host_preprocess_ps, 0u);
    EXPECT_GT(t.host_graph_ps, 0u);
    EXPECT_GT(t.host_postprocess_ps, 0u);
    // The two chips overlap: their part of the product (after the graph and the conversions,
    // before the post-processing) takes less simulated time than their executions and host
    // stages in sequence, and at least the longest chip's share (about half of them).
    const double alone = double(t.host_graph_ps + t.host_preprocess_ps + t.host_postprocess_ps);
    const double chips = double(t.wall_ps) - alone;
    const double serial = double(t.total_ps + t.host_encode_ps + t.host_decode_ps);
    EXPECT_LT(chips, serial * 0.75);
    EXPECT_GT(chips, serial * 0.4);
    std::printf(
        "300x600 on 2 chips, batch 2: graph %.1f us, transfer %.1f us, configuration %.1f us, "
        "realtime %.1f us, other %.1f us; host encode %.1f us, decode %.1f us; the chips' share "
        "%.1f us in sequence, %.1f us overlapping; product %.1f us\n",
        t.host_graph_ps / 1e6, t.transfer_ps / 1e6, t.config_ps / 1e6, t.realtime_ps / 1e6,
        t.other_ps / 1e6, t.host_encode_ps / 1e6, t.host_decode_ps / 1e6, serial / 1e6, chips / 1e6,
        t.wall_ps / 1e6);
}

// The batch split over several programs (a small program memory) and the v1 workaround (the
// synapses rewritten before every vector) give the same values; the rewrite multiplies the data
// sent per vector.
TEST_F(Bss2HagenChip, ChunkedBatchesAndSynapseRewriteGiveTheSameValues) {
    const ChipParams p = ideal_params();
    std::mt19937_64 rng(23);
    const uint32_t in = 200, out = 40, batch = 5;
    hg::IntMatrix x(batch, in), w(in, out);
    for (auto& v : w.v) v = static_cast<int32_t>(rng() % 127) - 63;
    for (auto& v : x.v) v = static_cast<int32_t>(rng() % 32);
    const hg::MatmulPlan plan = hg::plan_matmul(in, out, 1, "matmul");
    ASSERT_EQ(plan.tiles.size(), 2u);  // both halves of the chip, one program
    hg::VectorTiming timing;
    timing.baseline = false;
    const hg::IntMatrix want = hg::reference_matmul(x, w, 1, plan);
    // Each product on a fresh chip in a fresh kernel; its values must equal the reference.
    auto product = [&](const char* name, const hg::VectorTiming& t, uint64_t max_words) {
        test::fresh_systemc();
        Chip c(name, p, 5);
        ProductHost host("host", {&c}, x, w, plan, t);
        if (max_words) host.exec.set_max_program_words(max_words);
        sc_core::sc_start(sc_core::sc_time(10, sc_core::SC_SEC));
        EXPECT_EQ(host.y.v, want.v) << name;
        return host.times;
    };
    const HagenTimes plain = product("plain", timing, 0);
    const HagenTimes chunked = product("chunked", timing, 600);  // about two vectors per program
    hg::VectorTiming tr = timing;
    tr.rewrite_synapses = true;
    const HagenTimes rewrite = product("rewrite", tr, 0);
    EXPECT_EQ(plain.executions, 2u);
    EXPECT_GE(chunked.executions, 4u);
    EXPECT_EQ(chunked.vectors, plain.vectors);
    // Each vector carries the 2 x 200 x 40 synapse words again: far more transfer.
    EXPECT_GT(rewrite.transfer_ps, plain.transfer_ps * 3);
}

// The quad registers the hagen programs use: one CADC read returns four columns' codes, one reset
// write resets the neurons of its mask's bits.
TEST_F(Bss2HagenChip, CadcQuadReadsAndResetQuadsAddressFourColumns) {
    ChipParams p;
    Chip chip("chip", p, 5);
    std::string e;
    uint32_t d = 0;
    EXPECT_TRUE(chip.config_write(BSS2_NRN_RESET_QUAD(1, 3), 0xF, &e)) << e;
    EXPECT_FALSE(chip.config_read(BSS2_NRN_RESET_QUAD(1, 3), &d, &e));
    EXPECT_NE(e.find("write-only"), std::string::npos) << e;
    EXPECT_FALSE(chip.config_write(BSS2_CADC_QUAD(0, 2), 1, &e));
    EXPECT_NE(e.find("read-only"), std::string::npos) << e;
    EXPECT_TRUE(chip.config_write(BSS2_CADC_TRIGGER, 1, &e)) << e;
    sc_core::sc_start(sc_core::sc_time(1, sc_core::SC_US));
    for (uint32_t h = 0; h < 2; ++h)
        for (uint32_t q : {0u, 17u, 63u}) {
            uint32_t quad = 0;
            ASSERT_TRUE(chip.config_read(BSS2_CADC_QUAD(h, q), &quad, &e)) << e;
            for (uint32_t k = 0; k < 4; ++k) {
                uint32_t one = 0;
                ASSERT_TRUE(chip.config_read(BSS2_CADC_RESULT(h, 4 * q + k), &one, &e)) << e;
                EXPECT_EQ((quad >> (8 * k)) & 0xFFu, one) << h << " " << q << " " << k;
            }
        }
    EXPECT_FALSE(chip.config_read(BSS2_CADC_QUAD(2, 0), &d, &e));
}

// The host model: every parameter documented with its source; a program's instructions and
// responses counted by kind; each stage's time is its count over its rate.
TEST(Bss2HagenHost, StagesAreCountsOverRates) {
    for (const auto& problem : nmsim::check_registry(nmsim::registry_of<HagenHostParams>()))
        ADD_FAILURE() << problem;
    const std::vector<uint64_t> program = {bss2_pb_write(BSS2_CADC_TRIGGER, 1),
                                           bss2_pb_read(BSS2_CADC_RESULT(0, 0)),
                                           bss2_pb_read(BSS2_CADC_RESULT(0, 1)),
                                           bss2_pb_spikes(1, 5, 0, 0),
                                           bss2_pb_wait_until(10),
                                           bss2_pb_make(BSS2_PB_HALT, 0)};
    HagenHostWork w;
    count_program(program, w);
    EXPECT_EQ(w.writes, 1u);
    EXPECT_EQ(w.reads, 2u);
    EXPECT_EQ(w.spikes, 1u);
    count_responses({1, 2, 3}, w);
    EXPECT_EQ(w.responses, 3u);
    w.inputs = 1000;
    w.weights = 65536;
    w.outputs = 256;
    w.vertices = 285;
    HagenHostParams p;
    const HagenHostTime t = host_time(w, p);
    EXPECT_DOUBLE_EQ(t.encode_s, 2 / 38.1e6 + 2 / 19.8e6);
    EXPECT_DOUBLE_EQ(t.decode_s, 3 / 20.9e6);
    EXPECT_DOUBLE_EQ(t.preprocess_s, 1000 / 162e6 + 65536 / 155e6);
    EXPECT_DOUBLE_EQ(t.postprocess_s, 256 / 276e6);
    EXPECT_DOUBLE_EQ(t.graph_s, 285 * 41e-6);
    EXPECT_DOUBLE_EQ(t.total(),
                     t.graph_s + t.encode_s + t.decode_s + t.preprocess_s + t.postprocess_s);
}

}  // namespace
}  // namespace nmsim::bss2
