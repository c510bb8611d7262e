// Unit tests of the EXP accelerator: register reset values, accuracy of the datapath against
// double-precision exp for every iteration count, monotonicity, saturation, latency and bus
// stalls, the ITERATIONS bus error and the summary counters.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <functional>
#include <iterator>
#include <memory>

#include "models/spinnaker2/exp/exp_accel.h"
#include "nmsim/hw/spinnaker2/exp_regs.h"
#include "tests/support/bus_master.h"
#include "tests/support/memory_sink.h"
#include "tests/support/systemc_fixture.h"

namespace nmsim::spinnaker2 {
namespace {

using sc_core::SC_PS;
using sc_core::sc_time;

constexpr uint32_t kPs300MHz = 3333;  // Frequency::from_mhz(300).period_ps()

using nmsim::test::BusMaster;

class ExpTest : public nmsim::test::SystemCTest {
protected:
    void build(ExpParams params = ExpParams{}) {
        sc_core::sc_set_time_resolution(1, SC_PS);
        exp = std::make_unique<ExpAccel>("exp", params, Frequency::from_mhz(300), &sink);
        master = std::make_unique<BusMaster>("master");
        master->sock.bind(exp->cfg);
    }
    void run(std::function<void()> body) {
        master->body = std::move(body);
        sc_core::sc_start();
    }
    static uint64_t now_ps() { return sc_core::sc_time_stamp().value(); }

    nmsim::test::MemorySink sink;
    std::unique_ptr<ExpAccel> exp;
    std::unique_ptr<BusMaster> master;
};

// Reference: exp(x) in s16.15 from double precision, saturated like the register (unrounded).
double reference(int32_t x) {
    const double v = std::exp(static_cast<double>(x) / 32768.0) * 32768.0;
    return std::min(v, static_cast<double>(INT32_MAX));
}

constexpr int32_t kSweepLo = -12 * 32768;
constexpr int32_t kSweepHi = 12 * 32768;

TEST_F(ExpTest, ResetValuesEqualHeaderTable) {
    build();
    const RegDesc table[] = {S2_EXP_REGS(NMSIM_REG_DESC)};
    run([&] {
        for (const RegDesc& d : table) {
            EXPECT_EQ(master->dbg_read(d.offset), d.reset) << d.name;
            BusMaster::Result r = master->read(d.offset);
            if (d.access == NM_WO) {
                EXPECT_FALSE(r.ok) << d.name;
                EXPECT_NE(r.why.find(std::string("read of write-only ") + d.name),
                          std::string::npos)
                    << r.why;
            } else {
                EXPECT_TRUE(r.ok) << d.name << ": " << r.why;
                EXPECT_EQ(r.value, d.reset) << d.name;
            }
        }
    });
    // The reset OUT is exp(0) for the reset IN, with the reset iteration count.
    EXPECT_EQ(ExpAccel::compute(0, NM_FIELD_GET(table[0].reset, S2_EXP_CTRL_ITERATIONS)),
              static_cast<int32_t>(table[2].reset));
}

TEST_F(ExpTest, AccuracyImprovesWithIterationsAndMeetsTargetAt16) {
    std::vector<double> ref;
    for (int32_t x = kSweepLo; x <= kSweepHi; ++x) ref.push_back(reference(x));
    double max_err[ExpAccel::kMaxIterations + 1] = {};
    double max_err_neg[ExpAccel::kMaxIterations + 1] = {};  // x <= 0 (softmax inputs)
    for (unsigned n = 1; n <= ExpAccel::kMaxIterations; ++n) {
        double worst = 0, worst_neg = 0;
        int32_t worst_x = 0;
        for (int32_t x = kSweepLo; x <= kSweepHi; ++x) {
            const double r = ref[static_cast<size_t>(x - kSweepLo)];
            const double err = std::fabs(ExpAccel::compute(x, n) - r);
            if (err > worst) {
                worst = err;
                worst_x = x;
            }
            if (x <= 0) worst_neg = std::max(worst_neg, err);
        }
        max_err[n] = worst;
        max_err_neg[n] = worst_neg;
        std::printf("iterations %2u: max error %.4g ulp (at x = %.5f), %.4g ulp for x <= 0\n", n,
                    worst, worst_x / 32768.0, worst_neg);
        RecordProperty("max_ulp_" + std::to_string(n), std::to_string(worst));
    }
    // Chip-paper claim (public-hardware-facts.md A4): 1-2 ulp with full precision.
    EXPECT_LE(max_err[16], 1.0);
    EXPECT_LE(max_err[15], 2.0);
    // Error bound of the design: r < 2^-n after n steps, correction error < r^2/2 relative,
    // at most 2^31 ulp of output, plus half an ulp of rounding and a little table error.
    for (unsigned n = 1; n <= ExpAccel::kMaxIterations; ++n) {
        EXPECT_LE(max_err[n], std::ldexp(1.0, 30 - 2 * static_cast<int>(n)) + 0.75) << n;
        // Outputs <= 1.0 have at most 2^15 ulp: the same relative error is 2^16 times smaller.
        EXPECT_LE(max_err_neg[n], std::ldexp(1.0, 14 - 2 * static_cast<int>(n)) + 0.75) << n;
        if (n > 1) {
            EXPECT_LE(max_err[n], max_err[n - 1]) << n;
        }
    }
    EXPECT_GT(max_err[8], 100 * max_err[16]);
}

TEST_F(ExpTest, MonotonicAt16Iterations) {
    int32_t prev = ExpAccel::compute(kSweepLo - 1, 16);
    for (int32_t x = kSweepLo; x <= kSweepHi; ++x) {
        const int32_t y = ExpAccel::compute(x, 16);
        ASSERT_GE(y, prev) << "x = " << x;
        prev = y;
    }
}

TEST_F(ExpTest, ExactPointsAndSaturation) {
    for (unsigned n = 1; n <= 16; ++n) {
        EXPECT_EQ(ExpAccel::compute(0, n), 32768) << n;  // exp(0) = 1
        EXPECT_EQ(ExpAccel::compute(INT32_MAX, n), INT32_MAX) << n;
        EXPECT_EQ(ExpAccel::compute(INT32_MIN, n), 0) << n;
    }
    // Overflow: the first input whose reference exceeds INT32_MAX saturates, below it does not.
    int32_t first_sat = 0;
    for (int32_t x = 11 * 32768; x < 12 * 32768; ++x) {
        if (reference(x) >= static_cast<double>(INT32_MAX)) {
            first_sat = x;
            break;
        }
    }
    ASSERT_NE(first_sat, 0);
    EXPECT_EQ(ExpAccel::compute(first_sat, 16), INT32_MAX);
    EXPECT_EQ(ExpAccel::compute(first_sat + 1000, 16), INT32_MAX);
    EXPECT_LT(ExpAccel::compute(first_sat - 2, 16), INT32_MAX);
    EXPECT_GT(ExpAccel::compute(first_sat - 2, 16), INT32_MAX - 3 * 65536);
    // Underflow: exp(x) < 2^-16 (half an LSB) rounds to 0.
    const int32_t x_half_lsb = static_cast<int32_t>(std::floor(-16 * std::log(2.0) * 32768));
    EXPECT_EQ(ExpAccel::compute(x_half_lsb - 64, 16), 0);
    EXPECT_EQ(ExpAccel::compute(-20 * 32768, 16), 0);
    EXPECT_EQ(ExpAccel::compute(x_half_lsb + 64, 16), 1);
    EXPECT_EQ(ExpAccel::compute(-10 * 32768, 16), 1);  // exp(-10) * 2^15 = 1.49
}

TEST_F(ExpTest, LatencyAndStallTiming) {
    build();
    run([&] {
        for (unsigned n : {1u, 7u, 16u}) {
            ASSERT_TRUE(master->write(S2_EXP_CTRL, n).ok);
            const uint64_t lat_ps = (6 + n) * kPs300MHz;
            const uint64_t t0 = now_ps();
            BusMaster::Result w = master->write(S2_EXP_IN, static_cast<uint32_t>(-3 * 32768));
            ASSERT_TRUE(w.ok);
            EXPECT_EQ(w.delay.value(), 0u);  // the unit was idle
            EXPECT_EQ(master->read(S2_EXP_STATUS).value, 1u);
            // Read after one PE cycle: stalls for the rest of the latency.
            sc_core::wait(sc_time(static_cast<double>(kPs300MHz), SC_PS));
            BusMaster::Result r = master->read(S2_EXP_OUT);
            ASSERT_TRUE(r.ok);
            EXPECT_EQ(r.delay.value(), lat_ps - kPs300MHz) << n;
            EXPECT_EQ(now_ps(), t0 + lat_ps) << n;
            EXPECT_EQ(static_cast<int32_t>(r.value), ExpAccel::compute(-3 * 32768, n));
            EXPECT_EQ(master->read(S2_EXP_STATUS).value, 0u);
            // Ready result: no stall.
            EXPECT_EQ(master->read(S2_EXP_OUT).delay.value(), 0u);
        }
        // 1..16 iterations give 7..22 cycles with the default base.
        EXPECT_EQ(exp->latency_cycles(1), 7u);
        EXPECT_EQ(exp->latency_cycles(16), 22u);

        // An annotated delay on the incoming access counts towards the latency.
        ASSERT_TRUE(master->write(S2_EXP_CTRL, 16).ok);
        const uint64_t t1 = now_ps();
        ASSERT_TRUE(master->write(S2_EXP_IN, 12345).ok);
        const sc_time ahead(static_cast<double>(5 * kPs300MHz), SC_PS);
        BusMaster::Result r = master->transport(tlm::TLM_READ_COMMAND, S2_EXP_OUT, 0, ahead);
        EXPECT_EQ(r.delay.value(), 22u * kPs300MHz);
        sc_core::wait(r.delay);
        EXPECT_EQ(now_ps(), t1 + 22u * kPs300MHz);

        // Back-to-back operands: the second write waits for the first result.
        const uint64_t t2 = now_ps();
        ASSERT_TRUE(master->write(S2_EXP_IN, 1).ok);
        BusMaster::Result w2 = master->write(S2_EXP_IN, 2);
        EXPECT_EQ(w2.delay.value(), 22u * kPs300MHz);
        BusMaster::Result r2 = master->read(S2_EXP_OUT);
        EXPECT_EQ(r2.delay.value(), 22u * kPs300MHz);
        EXPECT_EQ(now_ps(), t2 + 44u * kPs300MHz);
        EXPECT_EQ(static_cast<int32_t>(r2.value), ExpAccel::compute(2, 16));
    });
    exp->write_summary();
    EXPECT_EQ(sink.counter_value("exp", "ops"), 6.0);
    EXPECT_EQ(sink.counter_value("exp", "busy_ps"), (7 + 13 + 22 + 22 * 3) * double(kPs300MHz));
    EXPECT_EQ(sink.counter_value("exp", "stall_ps"),
              (6 + 12 + 21 + 22 - 5 + 22 + 22) * double(kPs300MHz));
}

TEST_F(ExpTest, LatencyBaseParameter) {
    ExpParams p;
    p.latency_base = 2;
    build(p);
    run([&] {
        ASSERT_TRUE(master->write(S2_EXP_CTRL, 4).ok);
        ASSERT_TRUE(master->write(S2_EXP_IN, 0).ok);
        EXPECT_EQ(master->read(S2_EXP_OUT).delay.value(), 6u * kPs300MHz);
    });
}

TEST_F(ExpTest, BusResultsMatchDatapath) {
    build();
    run([&] {
        uint32_t lcg = 1;
        for (int i = 0; i < 200; ++i) {
            lcg = lcg * 1664525u + 1013904223u;
            const unsigned n = 1 + (lcg >> 28);
            const int32_t x = static_cast<int32_t>(lcg % (24u * 32768u)) - 12 * 32768;
            ASSERT_TRUE(master->write(S2_EXP_CTRL, n).ok);
            ASSERT_TRUE(master->write(S2_EXP_IN, static_cast<uint32_t>(x)).ok);
            BusMaster::Result r = master->read(S2_EXP_OUT);
            ASSERT_TRUE(r.ok);
            EXPECT_EQ(static_cast<int32_t>(r.value), ExpAccel::compute(x, n)) << x << " " << n;
        }
    });
}

TEST_F(ExpTest, InvalidIterationsIsBusError) {
    build();
    run([&] {
        ASSERT_TRUE(master->write(S2_EXP_CTRL, 9).ok);
        for (uint32_t bad : {0u, 17u, 31u}) {
            BusMaster::Result r = master->write(S2_EXP_CTRL, bad);
            EXPECT_FALSE(r.ok) << bad;
            EXPECT_NE(r.why.find("ITERATIONS=" + std::to_string(bad)), std::string::npos) << r.why;
            EXPECT_NE(r.why.find("CTRL"), std::string::npos) << r.why;
            EXPECT_EQ(master->read(S2_EXP_CTRL).value, 9u);  // unchanged
        }
        // Bits above the ITERATIONS field are reserved and read as zero.
        ASSERT_TRUE(master->write(S2_EXP_CTRL, 0xFFFFFF00u | 5u).ok);
        EXPECT_EQ(master->read(S2_EXP_CTRL).value, 5u);
        // Access rights from the table.
        BusMaster::Result w = master->write(S2_EXP_OUT, 1);
        EXPECT_FALSE(w.ok);
        EXPECT_NE(w.why.find("write to read-only OUT"), std::string::npos) << w.why;
        EXPECT_FALSE(master->write(S2_EXP_STATUS, 0).ok);
        BusMaster::Result r = master->read(S2_EXP_IN);
        EXPECT_FALSE(r.ok);
        EXPECT_NE(r.why.find("read of write-only IN"), std::string::npos) << r.why;
    });
}

}  // namespace
}  // namespace nmsim::spinnaker2
