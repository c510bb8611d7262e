// PadiBus: narrowing to 11 bits, rate limit, FIFO overflow drops, disabled bus, and a random
// arrival stream against an explicit queue simulation.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "models/brainscales2/routing/padi_bus.h"
#include "tests/support/memory_sink.h"
#include "tests/support/systemc_fixture.h"

namespace {

using nmsim::bss2::PadiBus;
using nmsim::bss2::PadiBusParams;
using nmsim::bss2::PadiDropRecord;

struct Out {
    uint32_t padi;
    uint64_t t;
    bool operator==(const Out& o) const { return padi == o.padi && t == o.t; }
};

class PadiBusTest : public nmsim::test::SystemCTest {
protected:
    void SetUp() override {
        SystemCTest::SetUp();
        sc_core::sc_set_time_resolution(1, sc_core::SC_PS);
    }
    static void enable(PadiBus& b) {
        std::string err;
        ASSERT_TRUE(b.write_config(0, 1, &err)) << err;
    }
};

TEST_F(PadiBusTest, NarrowsTo11BitsAndAddsLatency) {
    PadiBusParams p;
    p.latency = nmsim::Time::from_ps(3000);
    PadiBus bus("padi", 0, 2, p);
    enable(bus);
    std::vector<Out> out;
    bus.bind_output([&](uint32_t v, uint64_t t) { out.push_back({v, t}); });
    std::mt19937 rng(7);
    uint64_t t = 0;
    std::vector<Out> want;
    for (int i = 0; i < 1000; ++i) {
        t += 8000 + rng() % 5000;  // never faster than the bus: no queueing
        const uint32_t label = rng() & 0x3FFFu;
        bus.input(label, t);
        want.push_back({label % 2048u, t + 3000});  // "discarding the highest three bits"
    }
    EXPECT_EQ(out, want);
    EXPECT_EQ(bus.events(), 1000u);
    EXPECT_EQ(bus.max_delay_ps(), 0u);
    EXPECT_EQ(bus.drops(), 0u);
}

TEST_F(PadiBusTest, BurstLeavesAtTheMinimumInterval) {
    PadiBusParams p;
    p.latency = nmsim::Time::from_ps(0);
    p.fifo_depth = 16;
    PadiBus bus("padi", 1, 0, p);
    enable(bus);
    std::vector<Out> out;
    bus.bind_output([&](uint32_t v, uint64_t t) { out.push_back({v, t}); });
    for (uint32_t k = 0; k < 10; ++k) bus.input(k, 5000);
    ASSERT_EQ(out.size(), 10u);
    for (uint32_t k = 0; k < 10; ++k) EXPECT_EQ(out[k].t, 5000u + 8000u * k);
    EXPECT_EQ(bus.max_delay_ps(), 9u * 8000u);
    EXPECT_EQ(bus.sum_delay_ps(), 8000u * 45u);
    EXPECT_EQ(bus.busy_until_ps(), 5000u + 80000u);
}

TEST_F(PadiBusTest, FullFifoDropsExactlyTheExcessAndTracesThem) {
    PadiBusParams p;
    p.fifo_depth = 4;
    PadiBus bus("padi", 0, 3, p);
    nmsim::test::MemorySink sink;
    bus.attach_trace(&sink);
    enable(bus);
    int delivered = 0;
    bus.bind_output([&](uint32_t, uint64_t) { ++delivered; });
    for (uint32_t k = 0; k < 20; ++k) bus.input(100 + k, 1000);
    // One on the bus plus four waiting.
    EXPECT_EQ(delivered, 5);
    EXPECT_EQ(bus.drops(), 15u);
    const auto rows = sink.rows<PadiDropRecord>("events/bss2_padi_drops");
    ASSERT_EQ(rows.size(), 15u);
    EXPECT_EQ(rows[0].label, 105u);
    EXPECT_EQ(rows[14].label, 119u);
    EXPECT_EQ(rows[0].t_ps, 1000u);
    EXPECT_EQ(rows[0].hemi, 0u);
    EXPECT_EQ(rows[0].bus, 3u);
    // Once the queue has drained the bus accepts events again without delay.
    bus.input(1, 1000 + 5 * 8000);
    EXPECT_EQ(delivered, 6);
}

TEST_F(PadiBusTest, RandomArrivalsMatchAnExplicitQueue) {
    PadiBusParams p;
    p.fifo_depth = 3;
    p.min_interval = nmsim::Time::from_ps(8000);
    p.latency = nmsim::Time::from_ps(1000);
    PadiBus bus("padi", 0, 0, p);
    enable(bus);
    std::vector<Out> out;
    bus.bind_output([&](uint32_t v, uint64_t t) { out.push_back({v, t}); });
    std::mt19937 rng(99);
    // Reference: the start times of accepted events; an arrival is accepted iff fewer than
    // fifo_depth accepted events have not started yet; it starts when the previous one ended.
    std::vector<uint64_t> starts;
    std::vector<Out> want;
    uint64_t drops = 0, t = 0;
    for (int i = 0; i < 20000; ++i) {
        t += rng() % 3 == 0 ? 0 : rng() % 12000;  // bursts and gaps, on average above the rate
        const uint32_t label = rng() & 0x3FFFu;
        bus.input(label, t);
        size_t waiting = 0;
        for (size_t j = starts.size(); j-- > 0 && starts[j] > t;) ++waiting;
        if (waiting >= p.fifo_depth) {
            ++drops;
            continue;
        }
        const uint64_t s = starts.empty() ? t : std::max(t, starts.back() + 8000);
        starts.push_back(s);
        want.push_back({label & 0x7FFu, s + 1000});
    }
    EXPECT_EQ(out, want);
    EXPECT_EQ(bus.drops(), drops);
    EXPECT_GT(drops, 100u);
    EXPECT_EQ(bus.events() + bus.drops(), 20000u);
}

TEST_F(PadiBusTest, DisabledBusForwardsNothing) {
    PadiBus bus("padi", 1, 1);
    int delivered = 0;
    bus.bind_output([&](uint32_t, uint64_t) { ++delivered; });
    for (int k = 0; k < 50; ++k) bus.input(k, 0);
    EXPECT_EQ(delivered, 0);
    EXPECT_EQ(bus.disabled_events(), 50u);
    EXPECT_EQ(bus.drops(), 0u);
    EXPECT_EQ(bus.busy_until_ps(), 0u);
    std::string err;
    uint32_t v = 7;
    ASSERT_TRUE(bus.read_config(0, &v, &err));
    EXPECT_EQ(v, 0u);
    EXPECT_FALSE(bus.write_config(0, 2, &err));
    EXPECT_NE(err.find("reserved"), std::string::npos);
    EXPECT_FALSE(bus.write_config(1, 0, &err));
    EXPECT_FALSE(bus.read_config(1, &v, &err));
    enable(bus);
    bus.input(3, 0);
    EXPECT_EQ(delivered, 1);
    ASSERT_TRUE(bus.write_config(0, 0, &err));
    bus.input(3, 100000);
    EXPECT_EQ(delivered, 1);
    EXPECT_EQ(bus.disabled_events(), 51u);
}

}  // namespace
