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

class Bss2HagenChip : public test::SystemCTest {};

TEST_F(Bss2HagenChip, IdealTileOnTheChipEqualsTheIntegerReference) {
    ChipParams p;
    p.neuron.mismatch_tau_rel = 0;
    p.neuron.mismatch_c_rel = 0;
    p.neuron.mismatch_w_rel = 0;
    p.neuron.mismatch_v_mV = 0;
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
              {config_program(hg::tile_config(tile, w)), hg::tile_program(tile, x, timing)});
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
    std::printf("simulated time per vector: %.2f us (%u vectors, %u sends)\n", per_vector_us,
                batch, timing.num_sends);
    EXPECT_GT(per_vector_us, 33.0);
    EXPECT_LT(per_vector_us, 1000.0);
}

}  // namespace
}  // namespace nmsim::bss2
