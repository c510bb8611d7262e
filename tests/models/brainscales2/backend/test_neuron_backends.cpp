// Neuron back ends: the event of every neuron against seed 004 section 3.1.2 (channel = column /
// 32 for both hemispheres, event = channel << 8 | address), the latency, silent neurons.
#include <gtest/gtest.h>

#include <vector>

#include "models/brainscales2/backend/neuron_backends.h"
#include "tests/support/memory_sink.h"
#include "tests/support/systemc_fixture.h"

namespace nmsim::bss2 {
namespace {

class NeuronBackendsTest : public test::SystemCTest {};

struct Out {
    uint32_t ch, label;
    uint64_t t;
};

TEST_F(NeuronBackendsTest, EveryNeuronEmitsOnItsChannelWithItsAddress) {
    NeuronBackendParams p;
    p.latency = Time::from_ns(3);
    NeuronBackends b("b", p);
    std::vector<Out> got;
    b.bind_output([&](uint32_t ch, uint32_t label, uint64_t t) { got.push_back({ch, label, t}); });
    for (uint32_t n = 0; n < BSS2_NEURONS; ++n) b.configure(n, (n * 37u + 5u) & 0xFFu, true);
    for (uint32_t n = 0; n < BSS2_NEURONS; ++n) b.spike(n, 1000u * n);
    ASSERT_EQ(got.size(), BSS2_NEURONS);
    for (uint32_t n = 0; n < BSS2_NEURONS; ++n) {
        const uint32_t col = n % 256u;  // hemisphere 1 shares the channels of hemisphere 0
        const uint32_t ch = col / 32u;
        EXPECT_EQ(got[n].ch, ch) << n;
        EXPECT_EQ(got[n].label, (ch << 8) | ((n * 37u + 5u) & 0xFFu)) << n;
        EXPECT_EQ(got[n].t, 1000u * n + 3000u) << n;
    }
    for (uint32_t ch = 0; ch < 8; ++ch) EXPECT_EQ(b.events(ch), 64u);
}

TEST_F(NeuronBackendsTest, NeuronWithoutFireFlagIsSilent) {
    NeuronBackends b("b", NeuronBackendParams{});
    int n_out = 0;
    b.bind_output([&](uint32_t, uint32_t, uint64_t) { ++n_out; });
    b.configure(7, 1, false);
    b.configure(8, 2, true);
    b.spike(7, 0);
    b.spike(8, 0);
    EXPECT_EQ(n_out, 1);
    EXPECT_EQ(b.silent(), 1u);
    test::MemorySink sink;
    b.write_summary(sink, sink.component("b"));
    EXPECT_EQ(sink.counter_value("b", "silent_spikes"), 1.0);
    EXPECT_EQ(sink.counter_value("b", "events_channel_0"), 1.0);
}

}  // namespace
}  // namespace nmsim::bss2
