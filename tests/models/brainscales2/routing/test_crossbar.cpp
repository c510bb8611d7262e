// Crossbar: node table (seed 004 Fig. 3.2), configuration checks, the forwarding rule
// (label & mask) == target against a plain re-implementation, fan-out and latency.
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "models/brainscales2/routing/crossbar.h"
#include "tests/support/systemc_fixture.h"

namespace {

using nmsim::bss2::Crossbar;
using nmsim::bss2::CrossbarParams;

// reference/hardware.md B.4 "Fig. 3.2 reconstructed", one string per input (X = node).
const char* const kFig32[20] = {
    "X...X...X...", ".X...X...X..", "..X...X...X.", "...X...X...X",  // neuron left 0..3
    "X...X...X...", ".X...X...X..", "..X...X...X.", "...X...X...X",  // neuron right 0..3
    "XXXXXXXXX...", "XXXXXXXX.X..", "XXXXXXXX..X.", "XXXXXXXX...X",  // L2 0..3
    "X.......X...", ".X.......X..", "..X.......X.", "...X.......X",  // background 0..3
    "....X...X...", ".....X...X..", "......X...X.", ".......X...X",  // background 4..7
};

uint32_t mask_off(uint32_t in, uint32_t out) { return (in * 12u + out) * 2u + BSS2_XBAR_MASK; }
uint32_t target_off(uint32_t in, uint32_t out) { return (in * 12u + out) * 2u + BSS2_XBAR_TARGET; }
constexpr uint32_t kEnable = 1u << 16;

class CrossbarTest : public nmsim::test::SystemCTest {
protected:
    void SetUp() override {
        SystemCTest::SetUp();
        sc_core::sc_set_time_resolution(1, sc_core::SC_PS);
    }
};

TEST_F(CrossbarTest, ExactlyTheNodesOfFigure32Exist) {
    Crossbar xb("xb");
    int existing = 0;
    for (uint32_t in = 0; in < 20; ++in) {
        for (uint32_t out = 0; out < 12; ++out) {
            const bool expected = kFig32[in][out] == 'X';
            std::string err;
            const bool ok = xb.write_config(mask_off(in, out), kEnable, &err);
            EXPECT_EQ(ok, expected) << in << "," << out;
            EXPECT_EQ(xb.write_config(target_off(in, out), 1u, &err), expected);
            if (!ok) {
                EXPECT_NE(err.find("in " + std::to_string(in) + ", out " + std::to_string(out)),
                          std::string::npos)
                    << err;
                // Zero may always be written (a blanket reset of the table).
                EXPECT_TRUE(xb.write_config(mask_off(in, out), 0, &err)) << err;
                EXPECT_TRUE(xb.write_config(target_off(in, out), 0, &err)) << err;
            }
            existing += ok;
        }
    }
    EXPECT_EQ(existing, 76);
}

TEST_F(CrossbarTest, RejectsReservedBitsAndOffsetsAndReadsBack) {
    Crossbar xb("xb");
    std::string err;
    EXPECT_FALSE(xb.write_config(mask_off(8, 0), 1u << 14, &err));
    EXPECT_NE(err.find("MASK"), std::string::npos) << err;
    EXPECT_FALSE(xb.write_config(target_off(8, 0), 0x4000u, &err));
    EXPECT_NE(err.find("TARGET"), std::string::npos) << err;
    EXPECT_FALSE(xb.write_config(Crossbar::kWords, 0, &err));
    uint32_t v = 0;
    EXPECT_FALSE(xb.read_config(Crossbar::kWords, &v, &err));
    ASSERT_TRUE(xb.write_config(mask_off(8, 3), kEnable | 0x3ABCu, &err)) << err;
    ASSERT_TRUE(xb.write_config(target_off(8, 3), 0x0123u, &err)) << err;
    ASSERT_TRUE(xb.read_config(mask_off(8, 3), &v, &err));
    EXPECT_EQ(v, kEnable | 0x3ABCu);
    ASSERT_TRUE(xb.read_config(target_off(8, 3), &v, &err));
    EXPECT_EQ(v, 0x0123u);
}

TEST_F(CrossbarTest, RandomMasksAndTargetsMatchAPlainReimplementation) {
    const uint32_t seed = 20261121;
    std::mt19937 rng(seed);
    CrossbarParams p;
    p.latency = nmsim::Time::from_ps(2345);
    Crossbar xb("xb", p);
    std::vector<std::tuple<uint32_t, uint32_t, uint64_t>> got;  // out, label, t
    for (uint32_t o = 0; o < 12; ++o) {
        xb.bind_output(o, [&got, o](uint32_t label, uint64_t t) { got.emplace_back(o, label, t); });
    }
    // The test's own copy of the configuration.
    bool en[20][12] = {};
    uint32_t mask[20][12] = {}, target[20][12] = {};
    for (uint32_t in = 0; in < 20; ++in) {
        for (uint32_t out = 0; out < 12; ++out) {
            if (kFig32[in][out] != 'X') continue;
            en[in][out] = rng() % 3 != 0;
            // Few mask bits so that a useful share of labels matches; target sometimes has bits
            // outside the mask (then the node never forwards).
            mask[in][out] = rng() & rng() & rng() & 0x3FFFu;
            target[in][out] = rng() % 8 == 0 ? (rng() & 0x3FFFu) : (rng() & mask[in][out]);
            std::string err;
            ASSERT_TRUE(xb.write_config(mask_off(in, out),
                                        mask[in][out] | (en[in][out] ? kEnable : 0u), &err));
            ASSERT_TRUE(xb.write_config(target_off(in, out), target[in][out], &err));
        }
    }
    uint64_t forwarded = 0;
    for (int k = 0; k < 20000; ++k) {
        const uint32_t in = rng() % 20, label = rng() & 0x3FFFu;
        const uint64_t t = rng() % 1000000;
        got.clear();
        xb.input(in, label, t);
        std::vector<std::tuple<uint32_t, uint32_t, uint64_t>> want;
        for (uint32_t out = 0; out < 12; ++out) {
            // Bit-wise formulation: no bit inside the mask differs from the target, and no
            // target bit lies outside the mask.
            const bool match = ((label ^ target[in][out]) & mask[in][out]) == 0 &&
                               (target[in][out] & ~mask[in][out]) == 0;
            if (en[in][out] && match) want.emplace_back(out, label, t + 2345u);
        }
        ASSERT_EQ(got, want) << "seed " << seed << " event " << k;
        forwarded += want.size();
    }
    uint64_t out_sum = 0;
    for (uint32_t o = 0; o < 12; ++o) out_sum += xb.events_out(o);
    EXPECT_EQ(out_sum, forwarded);
    EXPECT_GT(forwarded, 1000u);  // the random setup exercised the forwarding path
}

TEST_F(CrossbarTest, FansOutToEveryMatchingOutputAndCountsUnrouted) {
    Crossbar xb("xb");
    std::multiset<uint32_t> outs;
    for (uint32_t o = 0; o < 12; ++o)
        xb.bind_output(o, [&outs, o](uint32_t, uint64_t) { outs.insert(o); });
    std::string err;
    for (uint32_t o = 0; o < 9; ++o)
        ASSERT_TRUE(xb.write_config(mask_off(9, o == 8 ? 9 : o), kEnable, &err)) << err;
    // Top bus 2 of L2 channel 1 only takes labels with bit 13 set.
    ASSERT_TRUE(xb.write_config(mask_off(9, 2), kEnable | 0x2000u, &err));
    ASSERT_TRUE(xb.write_config(target_off(9, 2), 0x2000u, &err));
    xb.input(9, 0x2001, 0);
    EXPECT_EQ(outs, (std::multiset<uint32_t>{0, 1, 2, 3, 4, 5, 6, 7, 9}));
    outs.clear();
    xb.input(9, 0x0001, 0);
    EXPECT_EQ(outs, (std::multiset<uint32_t>{0, 1, 3, 4, 5, 6, 7, 9}));
    outs.clear();
    xb.input(8, 0x0001, 0);  // nothing enabled on input 8
    EXPECT_TRUE(outs.empty());
    EXPECT_EQ(xb.unrouted(8), 1u);
    EXPECT_EQ(xb.events_in(9), 2u);
    EXPECT_EQ(xb.unrouted(9), 0u);
    xb.input(20, 0, 0);
    xb.input(0, 0x4000, 0);
    EXPECT_EQ(xb.malformed(), 2u);
}

}  // namespace
