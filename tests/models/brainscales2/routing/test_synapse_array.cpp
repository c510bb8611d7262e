// SynapseArray: random configurations and row events against a brute-force scan; the per-row
// index is invalidated by configuration writes to that row only.
#include <gtest/gtest.h>

#include <random>
#include <tuple>
#include <vector>

#include "models/brainscales2/routing/synapse_array.h"
#include "tests/support/systemc_fixture.h"

namespace {

using nmsim::bss2::SynapseArray;
using nmsim::bss2::SynapseArrayParams;
using nmsim::bss2::SynapticInput;
using Hit = std::tuple<uint32_t, bool, double, uint64_t>;

class SynapseArrayTest : public nmsim::test::SystemCTest {
protected:
    void SetUp() override {
        SystemCTest::SetUp();
        sc_core::sc_set_time_resolution(1, sc_core::SC_PS);
    }
};

TEST_F(SynapseArrayTest, RandomRowEventsMatchABruteForceScan) {
    SynapseArrayParams p;
    p.latency = nmsim::Time::from_ps(250);
    SynapseArray syn("syn", 1, p);
    std::vector<Hit> got;
    syn.bind_synapse([&](const SynapticInput* in, size_t n, bool inh, uint64_t t) {
        for (size_t k = 0; k < n; ++k) got.emplace_back(in[k].column, inh, in[k].amount, t);
    });
    const uint32_t seed = 31337;
    std::mt19937 rng(seed);
    std::vector<uint32_t> w(256 * 256), l(256 * 256);
    for (uint32_t i = 0; i < 256 * 256; ++i) {
        w[i] = rng() % 3 == 0 ? 0 : rng() % 64;
        l[i] = rng() % 8;  // few labels: many matches per event
        std::string err;
        ASSERT_TRUE(syn.write_config(i, w[i] | l[i] << 6, &err)) << err;
    }
    uint64_t matches = 0;
    const int n_events = 5000;
    for (int k = 0; k < n_events; ++k) {
        const uint32_t row = rng() % 256, label = rng() % 10;
        const double eff = (rng() % 1000) / 999.0;
        const bool inh = rng() % 2;
        const uint64_t t = rng();
        got.clear();
        syn.row_event(row, label, eff, inh, t);
        std::vector<Hit> want;
        for (uint32_t col = 0; col < 256; ++col) {
            const uint32_t i = row * 256 + col;
            if (l[i] == label && w[i] != 0) want.emplace_back(col, inh, w[i] * eff, t + 250);
        }
        ASSERT_EQ(got, want) << "seed " << seed << " event " << k;
        matches += want.size();
        if (k % 500 == 0) {  // reconfigure a random row now and then
            const uint32_t r = rng() % 256;
            for (uint32_t col = 0; col < 256; col += 1 + rng() % 8) {
                const uint32_t i = r * 256 + col;
                w[i] = rng() % 64;
                l[i] = rng() % 8;
                std::string err;
                ASSERT_TRUE(syn.write_config(i, w[i] | l[i] << 6, &err)) << err;
            }
        }
    }
    EXPECT_EQ(syn.synaptic_events(), matches);
    EXPECT_EQ(syn.row_events(), static_cast<uint64_t>(n_events));
    EXPECT_GT(matches, 50000u);
    for (uint32_t i = 0; i < 256 * 256; i += 97) {
        EXPECT_EQ(syn.weight(i / 256, i % 256), w[i]);
        EXPECT_EQ(syn.label(i / 256, i % 256), l[i]);
    }
}

TEST_F(SynapseArrayTest, ReconfiguringARowInvalidatesOnlyItsIndex) {
    SynapseArray syn("syn", 0);
    std::vector<uint32_t> cols;
    syn.bind_synapse([&](const SynapticInput* in, size_t n, bool, uint64_t) {
        for (size_t k = 0; k < n; ++k) cols.push_back(in[k].column);
    });
    std::string err;
    ASSERT_TRUE(syn.write_config(10 * 256 + 4, 5 | 9u << 6, &err));
    ASSERT_TRUE(syn.write_config(10 * 256 + 200, 63 | 9u << 6, &err));
    ASSERT_TRUE(syn.write_config(11 * 256 + 4, 1 | 9u << 6, &err));
    syn.row_event(10, 9, 1.0, false, 0);
    syn.row_event(11, 9, 1.0, false, 0);
    EXPECT_EQ(cols, (std::vector<uint32_t>{4, 200, 4}));
    EXPECT_EQ(syn.index_rebuilds(), 2u);
    // Relabel one synapse and zero another of row 10.
    ASSERT_TRUE(syn.write_config(10 * 256 + 4, 5 | 8u << 6, &err));
    ASSERT_TRUE(syn.write_config(10 * 256 + 100, 7 | 9u << 6, &err));
    ASSERT_TRUE(syn.write_config(10 * 256 + 200, 0 | 9u << 6, &err));
    cols.clear();
    syn.row_event(10, 9, 1.0, false, 0);
    syn.row_event(10, 8, 1.0, false, 0);
    syn.row_event(11, 9, 1.0, false, 0);
    EXPECT_EQ(cols, (std::vector<uint32_t>{100, 4, 4}));
    EXPECT_EQ(syn.index_rebuilds(), 3u);  // row 11 kept its index
}

TEST_F(SynapseArrayTest, RejectsInvalidAccesses) {
    SynapseArray syn("syn", 0);
    std::string err;
    EXPECT_FALSE(syn.write_config(3 * 256 + 7, 1u << 12, &err));
    EXPECT_NE(err.find("row 3, col 7"), std::string::npos) << err;
    EXPECT_FALSE(syn.write_config(65536, 0, &err));
    uint32_t v = 0;
    EXPECT_FALSE(syn.read_config(65536, &v, &err));
    ASSERT_TRUE(syn.write_config(65535, 0xFFF, &err));
    ASSERT_TRUE(syn.read_config(65535, &v, &err));
    EXPECT_EQ(v, 0xFFFu);
    syn.row_event(256, 0, 1.0, false, 0);
    syn.row_event(0, 64, 1.0, false, 0);
    EXPECT_EQ(syn.malformed(), 2u);
}

}  // namespace
