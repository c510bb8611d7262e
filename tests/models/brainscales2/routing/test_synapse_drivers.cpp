// SynapseDrivers: the row-select mask filter against brute force over every PADI value, lower5,
// row modes, configuration checks and the short-term plasticity efficacy against the closed-form
// Tsodyks-Markram sequence.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <tuple>
#include <vector>

#include "models/brainscales2/routing/synapse_drivers.h"
#include "tests/support/systemc_fixture.h"

namespace {

using nmsim::bss2::SynapseDriverParams;
using nmsim::bss2::SynapseDrivers;

struct RowHit {
    uint32_t row, label;
    double eff;
    bool inh;
    uint64_t t;
};

uint32_t cfg_word(uint32_t mask, bool lower5, uint32_t mode0, uint32_t mode1, bool stp, bool en) {
    return mask | (lower5 ? 1u << 8 : 0u) | mode0 << 12 | mode1 << 14 | (stp ? 1u << 16 : 0u) |
           (en ? 1u << 17 : 0u);
}

class SynapseDriversTest : public nmsim::test::SystemCTest {
protected:
    void SetUp() override {
        SystemCTest::SetUp();
        sc_core::sc_set_time_resolution(1, sc_core::SC_PS);
    }
    static void write(SynapseDrivers& d, uint32_t off, uint32_t v) {
        std::string err;
        ASSERT_TRUE(d.write_config(off, v, &err)) << err;
    }
};

TEST_F(SynapseDriversTest, MaskFilterMatchesBruteForceOverAllPadiValues) {
    SynapseDriverParams p;
    p.latency = nmsim::Time::from_ps(700);
    SynapseDrivers drv("drv", 0, p);
    std::vector<std::tuple<uint32_t, uint32_t, bool, uint64_t>> got;
    drv.bind_rows([&](uint32_t row, uint32_t label, double eff, bool inh, uint64_t t) {
        EXPECT_EQ(eff, 1.0);
        got.emplace_back(row, label, inh, t);
    });
    const uint32_t seed = 4242;
    std::mt19937 rng(seed);
    for (int round = 0; round < 4; ++round) {
        uint32_t mask[128], mode[128][2];
        bool en[128], lower5[128];
        for (uint32_t d = 0; d < 128; ++d) {
            en[d] = rng() % 4 != 0;
            mask[d] = rng() % 32;
            lower5[d] = rng() % 2;
            mode[d][0] = rng() % 3;
            mode[d][1] = rng() % 3;
            write(drv, d * 4, cfg_word(mask[d], lower5[d], mode[d][0], mode[d][1], false, en[d]));
        }
        for (uint32_t bus = 0; bus < 4; ++bus) {
            for (uint32_t padi = 0; padi < 2048; ++padi) {
                got.clear();
                drv.input(bus, padi, 1000);
                std::vector<std::tuple<uint32_t, uint32_t, bool, uint64_t>> want;
                const uint32_t high = padi >> 6;
                for (uint32_t d = 0; d < 128; ++d) {
                    if (!en[d] || d % 4 != bus) continue;
                    if ((high & mask[d]) != ((d / 4) & mask[d])) continue;
                    const uint32_t label = lower5[d] ? padi % 64 : (padi % 64 >= 32 ? 32 : 0);
                    for (uint32_t k = 0; k < 2; ++k) {
                        if (mode[d][k] != 0)
                            want.emplace_back(2 * d + k, label, mode[d][k] == 2, 1700);
                    }
                }
                std::sort(got.begin(), got.end());
                std::sort(want.begin(), want.end());
                ASSERT_EQ(got, want)
                    << "seed " << seed << " round " << round << " bus " << bus << " padi " << padi;
            }
        }
    }
}

TEST_F(SynapseDriversTest, OnlyTheOwnBusReachesADriverAndCountersAddUp) {
    SynapseDrivers drv("drv", 1);
    int hits = 0;
    drv.bind_rows([&](uint32_t row, uint32_t, double, bool inh, uint64_t) {
        EXPECT_EQ(row / 2, 13u);  // driver 13: bus 1, index 3
        EXPECT_EQ(inh, row == 27);
        ++hits;
    });
    write(drv, 13 * 4, cfg_word(0x1F, true, 1, 2, false, true));
    for (uint32_t bus = 0; bus < 4; ++bus) drv.input(bus, 3u << 6 | 5u, 0);
    EXPECT_EQ(hits, 2);
    drv.input(1, 4u << 6 | 5u, 0);  // other static index
    EXPECT_EQ(hits, 2);
    EXPECT_EQ(drv.unmatched(), 4u);
    EXPECT_EQ(drv.driver_events(), 1u);
    EXPECT_EQ(drv.row_events(), 2u);
    // Disabling the driver removes it from the bus.
    write(drv, 13 * 4, cfg_word(0x1F, true, 1, 2, false, false));
    drv.input(1, 3u << 6 | 5u, 0);
    EXPECT_EQ(hits, 2);
    drv.input(4, 0, 0);
    drv.input(0, 2048, 0);
    EXPECT_EQ(drv.malformed(), 2u);
}

TEST_F(SynapseDriversTest, ConfigurationChecksAndReadBack) {
    SynapseDrivers drv("drv", 0);
    std::string err;
    EXPECT_FALSE(drv.write_config(5 * 4, cfg_word(0, false, 3, 0, false, true), &err));
    EXPECT_NE(err.find("driver 5"), std::string::npos) << err;
    EXPECT_NE(err.find("mode"), std::string::npos) << err;
    EXPECT_FALSE(drv.write_config(5 * 4, 1u << 20, &err));
    EXPECT_NE(err.find("reserved"), std::string::npos) << err;
    EXPECT_FALSE(drv.write_config(5 * 4 + 1, 256, &err));
    EXPECT_NE(err.find("STP_U"), std::string::npos) << err;
    EXPECT_FALSE(drv.write_config(512, 0, &err));
    uint32_t v = 0;
    EXPECT_FALSE(drv.read_config(512, &v, &err));
    const uint32_t words[4] = {cfg_word(0x15, true, 2, 1, true, true), 200, 123456, 789};
    for (uint32_t k = 0; k < 4; ++k) write(drv, 127 * 4 + k, words[k]);
    for (uint32_t k = 0; k < 4; ++k) {
        ASSERT_TRUE(drv.read_config(127 * 4 + k, &v, &err));
        EXPECT_EQ(v, words[k]);
    }
    EXPECT_EQ(drv.pulse_ns(127), 789u);
}

TEST_F(SynapseDriversTest, StpEfficacyFollowsTheClosedFormTsodyksMarkramSequence) {
    SynapseDrivers drv("drv", 0);
    std::vector<RowHit> hits;
    drv.bind_rows([&](uint32_t row, uint32_t label, double eff, bool inh, uint64_t t) {
        hits.push_back({row, label, eff, inh, t});
    });
    const uint32_t u_lsb = 77;         // U = 77 / 256
    const uint32_t tau_ns = 2000;      // tau_rec
    const uint64_t interval = 700000;  // 700 ns regular train
    const int n = 40;
    // Driver 6 (bus 2, index 1), only row 12 enabled so each event gives one hit; driver 10
    // (bus 2, index 2) without STP on the same bus.
    write(drv, 6 * 4 + 1, u_lsb);
    write(drv, 6 * 4 + 2, tau_ns);
    write(drv, 6 * 4, cfg_word(0, true, 1, 0, true, true));
    write(drv, 10 * 4, cfg_word(0, true, 0, 1, false, true));
    const uint64_t t0 = 5000000;
    for (int k = 0; k < n; ++k) drv.input(2, 0x11, t0 + k * interval);
    ASSERT_EQ(hits.size(), 2u * n);
    const double U = u_lsb / 256.0;
    const double e = std::exp(-static_cast<double>(interval) * 1e-3 / tau_ns);
    // Steady state of R_{k+1} = 1 - (1 - (1 - U) R_k) e and the geometric approach to it.
    const double r_inf = (1.0 - e) / (1.0 - (1.0 - U) * e);
    double last = 0;
    int k6 = 0;
    for (const RowHit& h : hits) {
        if (h.row == 21) {  // driver 10, row 2*10+1
            EXPECT_EQ(h.eff, 1.0);
            continue;
        }
        ASSERT_EQ(h.row, 12u);
        const double want = r_inf + (1.0 - r_inf) * std::pow((1.0 - U) * e, k6);
        EXPECT_NEAR(h.eff, want, 1e-12) << "event " << k6;
        last = h.eff;
        ++k6;
    }
    EXPECT_EQ(k6, n);
    EXPECT_NEAR(last, r_inf, 1e-6);  // the train reached the steady state
    // Recovery over a long pause: R = 1 - (1 - (1 - U) R_last) exp(-gap / tau).
    const uint64_t gap = 3100000;
    hits.clear();
    drv.input(2, 0x11, t0 + (n - 1) * interval + gap);
    ASSERT_EQ(hits.size(), 2u);
    const double rec =
        1.0 - (1.0 - (1.0 - U) * last) * std::exp(-static_cast<double>(gap) * 1e-3 / tau_ns);
    EXPECT_NEAR(hits[0].row == 12 ? hits[0].eff : hits[1].eff, rec, 1e-12);
    // Re-enabling STP resets the resource: the next event has full efficacy.
    write(drv, 6 * 4, cfg_word(0, true, 1, 0, false, true));
    write(drv, 6 * 4, cfg_word(0, true, 1, 0, true, true));
    hits.clear();
    drv.input(2, 0x11, t0 + n * interval + gap);
    EXPECT_EQ(hits[0].row == 12 ? hits[0].eff : hits[1].eff, 1.0);
}

TEST_F(SynapseDriversTest, Lower5OffSendsOnlyTheHighestLabelBit) {
    SynapseDrivers drv("drv", 0);
    std::vector<uint32_t> labels;
    drv.bind_rows(
        [&](uint32_t, uint32_t label, double, bool, uint64_t) { labels.push_back(label); });
    write(drv, 0, cfg_word(0, false, 1, 0, false, true));
    drv.input(0, 0x3F, 0);
    drv.input(0, 0x1F, 0);
    drv.input(0, 0x7E0 | 0x25, 0);
    EXPECT_EQ(labels, (std::vector<uint32_t>{0x20, 0x00, 0x20}));
}

}  // namespace
