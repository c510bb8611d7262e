// BackgroundGenerator: regular event times, start at the next clock edge, stop, the binned
// Poisson rate and gap law within statistical tolerance, label randomisation within the mask,
// determinism and independence of generators.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <set>
#include <vector>

#include "models/brainscales2/routing/background_generator.h"
#include "nmsim/hw/brainscales2/bss2_map.h"
#include "tests/support/systemc_fixture.h"

namespace {

using nmsim::bss2::BackgroundGenerator;
using nmsim::bss2::BackgroundParams;

struct Ev {
    uint32_t label;
    uint64_t t;
    bool operator==(const Ev& o) const { return label == o.label && t == o.t; }
};

constexpr uint64_t kClk = 8000;  // 125 MHz in ps

class BackgroundTest : public nmsim::test::SystemCTest {
protected:
    void SetUp() override {
        SystemCTest::SetUp();
        sc_core::sc_set_time_resolution(1, sc_core::SC_PS);
    }
    static void write(BackgroundGenerator& g, uint32_t off, uint32_t v) {
        std::string err;
        ASSERT_TRUE(g.write_config(off, v, &err)) << err;
    }
    static void record(BackgroundGenerator& g, std::vector<Ev>& out) {
        g.bind_output([&out](uint32_t label, uint64_t t) {
            // Events are emitted at their own time, never ahead of the simulation.
            EXPECT_EQ(t, sc_core::sc_time_stamp().value());
            out.push_back({label, t});
        });
    }
    static void run_ps(uint64_t ps) {
        sc_core::sc_start(sc_core::sc_time(static_cast<double>(ps), sc_core::SC_PS));
    }
};

TEST_F(BackgroundTest, RegularGeneratorEmitsEveryPeriodFromTheNextClockEdge) {
    BackgroundGenerator g("bg", 2);
    std::vector<Ev> ev;
    record(g, ev);
    write(g, BSS2_BG_PERIOD, 10);
    write(g, BSS2_BG_LABEL, 0x1234);
    run_ps(12345);
    write(g, BSS2_BG_CFG, BSS2_BG_CFG_ENABLE);  // written at 12345 ps: starts at the edge 16000
    run_ps(1000000 - 12345);                    // until 1 us
    write(g, BSS2_BG_CFG, 0);
    run_ps(1000000);
    // Events at 16000 + k * 80000 <= 1 us: k = 1..12.
    ASSERT_EQ(ev.size(), 12u);
    for (size_t k = 0; k < ev.size(); ++k) {
        EXPECT_EQ(ev[k].t, 16000u + (k + 1) * 10u * kClk);
        EXPECT_EQ(ev[k].label, 0x1234u);
    }
    EXPECT_EQ(g.events(), 12u);
    EXPECT_FALSE(g.running());
}

TEST_F(BackgroundTest, EnabledBeforeTheSimulationStartsAtTheFirstEdge) {
    BackgroundParams p;
    p.clock = nmsim::Frequency::from_mhz(250);
    BackgroundGenerator g("bg", 0, p);
    std::vector<Ev> ev;
    record(g, ev);
    write(g, BSS2_BG_PERIOD, 3);
    write(g, BSS2_BG_CFG, BSS2_BG_CFG_ENABLE);
    run_ps(4000 + 5 * 12000 + 1);  // sc_start(T) does not run events at T itself
    ASSERT_EQ(ev.size(), 5u);
    for (size_t k = 0; k < ev.size(); ++k) EXPECT_EQ(ev[k].t, 4000u + (k + 1) * 12000u);
}

TEST_F(BackgroundTest, PoissonRateAndGapLawWithinFiveSigma) {
    BackgroundGenerator g("bg", 5, BackgroundParams{}, 12345);
    std::vector<Ev> ev;
    record(g, ev);
    const uint32_t period = 2, rate = 64;  // p = 1/4 per 16 ns bin
    write(g, BSS2_BG_PERIOD, period);
    write(g, BSS2_BG_RATE, rate);
    write(g, BSS2_BG_CFG, BSS2_BG_CFG_ENABLE | BSS2_BG_CFG_POISSON);
    const uint64_t bins = 400000;
    const uint64_t bin_ps = period * kClk;
    run_ps(kClk + bins * bin_ps + 1);
    const double p = rate / 256.0;
    const double n = static_cast<double>(bins);
    const double sigma = std::sqrt(n * p * (1 - p));
    EXPECT_NEAR(static_cast<double>(ev.size()), n * p, 5 * sigma);
    // Every event sits on a bin end after the start edge; the gaps (in bins) are geometric.
    uint64_t prev = kClk, g1 = 0, g2 = 0;
    for (const Ev& e : ev) {
        ASSERT_EQ((e.t - kClk) % bin_ps, 0u);
        ASSERT_GT(e.t, prev);
        const uint64_t gap = (e.t - prev) / bin_ps;
        g1 += gap == 1;
        g2 += gap == 2;
        prev = e.t;
    }
    const double m = static_cast<double>(ev.size());
    EXPECT_NEAR(g1, m * p, 5 * std::sqrt(m * p * (1 - p)));
    const double p2 = p * (1 - p);
    EXPECT_NEAR(g2, m * p2, 5 * std::sqrt(m * p2 * (1 - p2)));
}

TEST_F(BackgroundTest, RateZeroPoissonIsSilent) {
    BackgroundGenerator g("bg", 1);
    std::vector<Ev> ev;
    record(g, ev);
    write(g, BSS2_BG_PERIOD, 1);
    write(g, BSS2_BG_RATE, 0);
    write(g, BSS2_BG_CFG, BSS2_BG_CFG_ENABLE | BSS2_BG_CFG_POISSON);
    run_ps(10000000);
    EXPECT_TRUE(ev.empty());
}

TEST_F(BackgroundTest, LabelRandomisationStaysInsideTheMaskAndCoversIt) {
    BackgroundGenerator g("bg", 7, BackgroundParams{}, 99);
    std::vector<Ev> ev;
    record(g, ev);
    const uint32_t label = 0x2AB5, mask = 0xA9;  // 4 mask bits: 16 combinations
    write(g, BSS2_BG_PERIOD, 1);
    write(g, BSS2_BG_RATE, mask << 8);
    write(g, BSS2_BG_LABEL, label);
    write(g, BSS2_BG_CFG, BSS2_BG_CFG_ENABLE);
    run_ps(kClk * 2001 + 1);
    ASSERT_EQ(ev.size(), 2000u);
    std::set<uint32_t> seen;
    for (const Ev& e : ev) {
        ASSERT_EQ(e.label & ~mask, label & ~mask);
        seen.insert(e.label & mask);
    }
    EXPECT_EQ(seen.size(), 16u);
}

TEST_F(BackgroundTest, SameSeedSameEventsDifferentGeneratorsIndependent) {
    BackgroundGenerator a("a", 3, BackgroundParams{}, 5);
    BackgroundGenerator b("b", 3, BackgroundParams{}, 5);
    BackgroundGenerator c("c", 4, BackgroundParams{}, 5);
    BackgroundGenerator d("d", 3, BackgroundParams{}, 6);
    std::vector<Ev> ea, eb, ec, ed;
    record(a, ea);
    record(b, eb);
    record(c, ec);
    record(d, ed);
    const uint32_t rate = 128;  // p = 1/2 per cycle
    for (BackgroundGenerator* g : {&a, &b, &c, &d}) {
        write(*g, BSS2_BG_PERIOD, 1);
        write(*g, BSS2_BG_RATE, rate | 0xFFu << 8);
        write(*g, BSS2_BG_CFG, BSS2_BG_CFG_ENABLE | BSS2_BG_CFG_POISSON);
    }
    const uint64_t bins = 100000;
    run_ps(kClk + bins * kClk + 1);
    EXPECT_EQ(ea, eb);
    EXPECT_NE(ea, ec);
    EXPECT_NE(ea, ed);
    // Independence: coincident event times of two generators occur with probability p^2 per bin.
    std::set<uint64_t> ta;
    for (const Ev& e : ea) ta.insert(e.t);
    for (const std::vector<Ev>* other : {&ec, &ed}) {
        uint64_t both = 0;
        for (const Ev& e : *other) both += ta.count(e.t);
        const double q = 0.25, n = static_cast<double>(bins);
        EXPECT_NEAR(static_cast<double>(both), n * q, 5 * std::sqrt(n * q * (1 - q)));
    }
}

TEST_F(BackgroundTest, ConfigurationChecks) {
    BackgroundGenerator g("bg", 6);
    std::string err;
    EXPECT_FALSE(g.write_config(BSS2_BG_CFG, BSS2_BG_CFG_ENABLE, &err));  // PERIOD still 0
    EXPECT_NE(err.find("PERIOD"), std::string::npos) << err;
    EXPECT_FALSE(g.write_config(BSS2_BG_CFG, 4, &err));
    EXPECT_NE(err.find("reserved"), std::string::npos) << err;
    EXPECT_FALSE(g.write_config(BSS2_BG_PERIOD, 0x10000, &err));
    EXPECT_FALSE(g.write_config(BSS2_BG_RATE, 0x10000, &err));
    EXPECT_FALSE(g.write_config(BSS2_BG_LABEL, 0x4000, &err));
    EXPECT_FALSE(g.write_config(4, 0, &err));
    uint32_t v = 0;
    EXPECT_FALSE(g.read_config(4, &v, &err));
    ASSERT_TRUE(g.write_config(BSS2_BG_PERIOD, 9, &err));
    ASSERT_TRUE(g.write_config(BSS2_BG_CFG, 3, &err));
    EXPECT_FALSE(g.write_config(BSS2_BG_PERIOD, 0, &err));  // not while enabled
    ASSERT_TRUE(g.read_config(BSS2_BG_PERIOD, &v, &err));
    EXPECT_EQ(v, 9u);
    ASSERT_TRUE(g.read_config(BSS2_BG_CFG, &v, &err));
    EXPECT_EQ(v, 3u);
}

}  // namespace
