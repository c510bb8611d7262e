// energy::Meter: phases get exactly the counts and state time between their boundaries, recurring
// phases accumulate, energies are count x scale, and the trace rows match.
#include <gtest/gtest.h>

#include <sstream>

#include "models/common/energy.h"
#include "tests/support/memory_sink.h"

namespace nmsim::energy {
namespace {

TEST(EnergyMeter, PhasesSplitCountsAndStateTime) {
    double macs = 0;
    Meter m;
    m.add_events(
        "pe0.mla", "macs", [&] { return macs; }, 2e-12);
    // A state that is on from t = 100 ps.
    m.add_state(
        "pe0.core", "on", [](uint64_t t) { return t > 100 ? (t - 100) * 1e-12 : 0.0; }, 0.5);
    macs = 7;  // before the start: not counted
    m.start("a", 0);
    macs = 17;
    m.mark("b", 1100);
    macs = 47;
    m.mark("a", 3100);  // "a" again: accumulates
    macs = 48;
    m.finish(4100);

    const auto rows = m.rows();
    ASSERT_EQ(rows.size(), 4u);
    // Phase order is first appearance: a, b.
    EXPECT_EQ(rows[0].phase, "a");
    EXPECT_EQ(rows[0].quantity, "macs");
    EXPECT_DOUBLE_EQ(rows[0].count, 10.0 + 1.0);
    EXPECT_DOUBLE_EQ(rows[0].energy_j, 11.0 * 2e-12);
    EXPECT_TRUE(rows[1].is_static);
    EXPECT_NEAR(rows[1].count, (1000.0 + 1000.0) * 1e-12, 1e-24);  // 100..1100 and 3100..4100
    EXPECT_NEAR(rows[1].energy_j, 2000e-12 * 0.5, 1e-24);
    EXPECT_EQ(rows[2].phase, "b");
    EXPECT_DOUBLE_EQ(rows[2].count, 30.0);
    EXPECT_NEAR(rows[3].count, 2000e-12, 1e-24);
    EXPECT_NEAR(m.duration_s(), 4100e-12, 1e-24);
    EXPECT_NEAR(m.total_j(), 41 * 2e-12 + 4000e-12 * 0.5, 1e-22);
}

TEST(EnergyMeter, SamePhaseMarkIsNoBoundaryAndZeroRowsAreOmitted) {
    double n = 0;
    Meter m;
    m.add_events(
        "x", "ops", [&] { return n; }, 1.0);
    m.add_events(
        "y", "idle", [] { return 0.0; }, 1.0);
    m.start("p", 0);
    n = 3;
    m.mark("p", 10);
    n = 5;
    m.finish(20);
    const auto rows = m.rows();
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].component, "x");
    EXPECT_DOUBLE_EQ(rows[0].count, 5.0);
    EXPECT_EQ(m.phases(), std::vector<std::string>{"p"});
}

TEST(EnergyMeter, MisuseThrows) {
    Meter m;
    EXPECT_THROW(m.mark("a", 0), std::logic_error);
    m.start("a", 0);
    EXPECT_THROW(m.start("b", 1), std::logic_error);
    EXPECT_THROW(m.add_events(
                     "x", "y", [] { return 0.0; }, 1.0),
                 std::logic_error);
}

TEST(EnergyMeter, TraceRowsAndReport) {
    test::MemorySink sink;
    double n = 0;
    Meter m;
    m.add_events(
        "chip.pe3.mla", "macs", [&] { return n; }, 1e-12);
    m.add_events(
        "chip.pe12.mla", "macs", [&] { return 2 * n; }, 1e-12);
    m.attach(sink);
    m.start("layer /0/Gemm", 0);
    n = 1e6;
    m.finish(1000000000);  // 1 ms
    m.write();
    const auto rows = sink.rows<EnergyRecord>("energy/breakdown");
    ASSERT_EQ(rows.size(), 2u);
    const EnergyRecord& r = rows[1];
    EXPECT_DOUBLE_EQ(r.count, 2e6);
    EXPECT_DOUBLE_EQ(r.energy_j, 2e-6);
    EXPECT_STREQ(r.kind, "dynamic");
    EXPECT_STREQ(r.phase, "layer /0/Gemm");
    EXPECT_STREQ(r.quantity, "macs");
    EXPECT_EQ(sink.components().at(r.component), "chip.pe12.mla");

    std::ostringstream out;
    print_breakdown(m, out);
    // Both PEs' MLAs fold into one family row: 3 uJ, 100 %.
    EXPECT_NE(out.str().find("chip.pe*.mla"), std::string::npos) << out.str();
    EXPECT_NE(out.str().find("3.000 uJ"), std::string::npos) << out.str();
    EXPECT_NE(out.str().find("average 3.00 mW"), std::string::npos) << out.str();
}

TEST(EnergyMeter, VoltageScaling) {
    EXPECT_DOUBLE_EQ(scale_v2(14.98e-12, 0.8, 0.8), 14.98e-12);
    EXPECT_NEAR(scale_v2(0.21e-9, 1.0, 0.7), 0.4286e-9, 1e-13);  // Partzsch 2017: 0.44 nJ measured
}

}  // namespace
}  // namespace nmsim::energy
