// L2Link: split of 16-bit external events onto the four L2 crossbar inputs and merge of the four
// L2 crossbar outputs (seed 004 section 3.1.2).
#include <gtest/gtest.h>

#include <vector>

#include "models/brainscales2/routing/l2_link.h"
#include "tests/support/systemc_fixture.h"

namespace {

using nmsim::bss2::L2Link;
using nmsim::bss2::L2LinkParams;

struct Hit {
    uint32_t a, b;
    uint64_t t;
};

class L2LinkTest : public nmsim::test::SystemCTest {};

TEST_F(L2LinkTest, SplitsEveryEventOntoTheChannelOfItsTopTwoBits) {
    L2LinkParams p;
    p.latency = nmsim::Time::from_ps(1500);
    L2Link link("l2", p);
    std::vector<Hit> hits;
    link.bind_crossbar([&](uint32_t in, uint32_t label, uint64_t t) {
        hits.push_back({in, label, t});
    });
    for (uint32_t ev = 0; ev < 0x10000u; ++ev) link.input(ev, 100u + ev);
    ASSERT_EQ(hits.size(), 0x10000u);
    for (uint32_t ev = 0; ev < 0x10000u; ++ev) {
        // Reference written from the seed's wording: channel = value / 2^14, label = value mod
        // 2^14.
        EXPECT_EQ(hits[ev].a, 8u + ev / 16384u) << ev;
        EXPECT_EQ(hits[ev].b, ev % 16384u) << ev;
        EXPECT_EQ(hits[ev].t, 100u + ev + 1500u);
    }
    for (uint32_t ch = 0; ch < 4; ++ch) EXPECT_EQ(link.events_in(ch), 16384u);
}

TEST_F(L2LinkTest, MergesCrossbarOutputsWithTheChannelInTheTopBits) {
    L2Link link("l2");
    std::vector<Hit> out;
    link.bind_out([&](uint32_t ev, uint64_t t) { out.push_back({ev, 0, t}); });
    auto sink2 = link.crossbar_output_sink(2);
    sink2(0x1ABC, 77);
    link.crossbar_output(3, 0x3FFF, 78);
    link.crossbar_output(0, 5, 79);
    ASSERT_EQ(out.size(), 3u);
    EXPECT_EQ(out[0].a, 2u * 16384u + 0x1ABCu);
    EXPECT_EQ(out[0].t, 77u);
    EXPECT_EQ(out[1].a, 0xFFFFu);
    EXPECT_EQ(out[2].a, 5u);
    EXPECT_EQ(link.events_out(2), 1u);
    EXPECT_EQ(link.events_out(1), 0u);
}

TEST_F(L2LinkTest, LoopbackThroughTheCrossbarChannelReturnsTheSameEvent) {
    L2Link link("l2");
    std::vector<uint32_t> out;
    link.bind_crossbar([&](uint32_t in, uint32_t label, uint64_t t) {
        link.crossbar_output(in - 8u, label, t);  // L2 in j -> L2 out j, as the loopback node
    });
    link.bind_out([&](uint32_t ev, uint64_t) { out.push_back(ev); });
    for (uint32_t ev = 0; ev < 0x10000u; ev += 7) link.input(ev, 0);
    uint32_t i = 0;
    for (uint32_t ev = 0; ev < 0x10000u; ev += 7) ASSERT_EQ(out[i++], ev);
}

TEST_F(L2LinkTest, OutOfRangeEventsAreCountedAndDropped) {
    L2Link link("l2");
    int calls = 0;
    link.bind_crossbar([&](uint32_t, uint32_t, uint64_t) { ++calls; });
    link.bind_out([&](uint32_t, uint64_t) { ++calls; });
    link.input(0x10000u, 0);
    link.crossbar_output(4, 1, 0);
    link.crossbar_output(0, 0x4000u, 0);
    EXPECT_EQ(calls, 0);
    EXPECT_EQ(link.malformed(), 3u);
}

}  // namespace
