// The SNN reference on hand-computed cases (snn_ref.h): threshold crossing at a known tick, the
// delay shift, inhibition, refractoriness, both reset modes, the leak's rounding, i_offset and
// input saturation; the float version on the same cases.
#include <gtest/gtest.h>

#include "tools/reference/snn_ref.h"

namespace nmsim::reference {
namespace {

constexpr int32_t Q = 65536;  // 1 weight LSB in Q16.16

// One LIF neuron without leak (alpha 1.0), threshold 35, driven by a source spiking at every
// tick 0..n-1 through one synapse of `weight` and `delay`.
SnnRefNetwork driven(uint32_t n_ticks, uint32_t weight, uint32_t delay) {
    SnnRefNetwork net;
    net.n_ticks = n_ticks;
    SnnRefPopulation p;
    p.name = "a";
    p.size = 1;
    p.lif.alpha = 65536;
    p.lif.v_th = 35 * Q;
    p.lif_float.alpha = 1.0;
    p.lif_float.v_th = 35;
    p.record_v = {0};
    net.populations.push_back(p);
    std::vector<uint32_t> every;
    for (uint32_t t = 0; t < n_ticks; ++t) every.push_back(t);
    net.sources.push_back({every});
    net.synapses.push_back({true, 0, 0, 0, 0, weight, delay, false});
    return net;
}

std::vector<uint32_t> ticks(const std::vector<SnnSpike>& s) {
    std::vector<uint32_t> t;
    for (const SnnSpike& x : s) t.push_back(x.tick);
    return t;
}

TEST(SnnRef, ThresholdAtAKnownTickAndSubtractReset) {
    // Spikes of tick t arrive at t + 1: V = 0, 10, 20, 30, 40 -> spike at tick 4; subtract
    // (eq. 1, applied at the next update): 40 + 10 - 35 = 15, 25, 35 -> spike at 7, then 10, ...
    const auto r = snn_reference(driven(12, 10, 1));
    EXPECT_EQ(ticks(r.spikes), (std::vector<uint32_t>{4, 7, 11}));
    const std::vector<int32_t> v = {0, 10, 20, 30, 40, 15, 25, 35, 10, 20, 30, 40};
    ASSERT_EQ(r.voltages.size(), 1u);
    for (size_t t = 0; t < v.size(); ++t) EXPECT_EQ(r.voltages[0].v[t], v[t] * Q) << t;
    const auto f = snn_reference_float(driven(12, 10, 1));
    EXPECT_EQ(f.spikes, r.spikes);
    for (size_t t = 0; t < v.size(); ++t) EXPECT_DOUBLE_EQ(f.voltages[0].v[t], v[t]) << t;
}

TEST(SnnRef, DelayShiftsTheOutput) {
    for (uint32_t d = 1; d <= 16; ++d) {
        const auto r = snn_reference(driven(40, 10, d));
        ASSERT_FALSE(r.spikes.empty());
        EXPECT_EQ(r.spikes[0].tick, 3 + d) << "delay " << d;
    }
}

TEST(SnnRef, InhibitionSubtracts) {
    SnnRefNetwork net = driven(12, 10, 1);
    net.synapses.push_back({true, 0, 0, 0, 0, 5, 1, true});  // net input 5 per tick
    EXPECT_EQ(ticks(snn_reference(net).spikes), (std::vector<uint32_t>{7}));
    EXPECT_EQ(ticks(snn_reference_float(net).spikes), (std::vector<uint32_t>{7}));
}

TEST(SnnRef, RefractoryAndResetModes) {
    // to_v_reset 0 with 2 refractory ticks: spike at 4, ticks 5, 6 discard their input, then
    // 10, 20, 30, 40 -> spike at 10.
    SnnRefNetwork net = driven(12, 10, 1);
    net.populations[0].lif.subtract = false;
    net.populations[0].lif.t_ref = 2;
    net.populations[0].lif_float.subtract = false;
    net.populations[0].lif_float.t_ref = 2;
    auto r = snn_reference(net);
    EXPECT_EQ(ticks(r.spikes), (std::vector<uint32_t>{4, 10}));
    EXPECT_EQ(r.voltages[0].v[4], 0);  // reset at once
    EXPECT_EQ(r.voltages[0].v[6], 0);
    EXPECT_EQ(r.voltages[0].v[7], 10 * Q);
    EXPECT_EQ(snn_reference_float(net).spikes, r.spikes);
    // subtract with 2 refractory ticks: spike at 4 (V 40), tick 5 applies the reset term
    // (40 - 35 = 5) and holds, tick 6 holds, then 15, 25, 35 -> spike at 9.
    net.populations[0].lif.subtract = true;
    net.populations[0].lif_float.subtract = true;
    r = snn_reference(net);
    EXPECT_EQ(ticks(r.spikes), (std::vector<uint32_t>{4, 9}));
    EXPECT_EQ(r.voltages[0].v[5], 5 * Q);
    EXPECT_EQ(r.voltages[0].v[6], 5 * Q);
    EXPECT_EQ(snn_reference_float(net).spikes, r.spikes);
    // v_reset other than 0.
    net.populations[0].lif.subtract = false;
    net.populations[0].lif.t_ref = 0;
    net.populations[0].lif.v_reset = -7 * Q;
    r = snn_reference(net);
    EXPECT_EQ(r.voltages[0].v[4], -7 * Q);
    EXPECT_EQ(r.voltages[0].v[5], 3 * Q);
}

TEST(SnnRef, LeakRoundsHalfUp) {
    SnnRefNetwork net;
    net.n_ticks = 6;
    SnnRefPopulation p;
    p.size = 2;
    p.lif.alpha = 32768;  // 0.5
    p.lif.v_th = 1000 * Q;
    p.lif.v_init = 1;  // neuron 0 (and 1): one Q16 LSB
    p.record_v = {0, 1};
    net.populations.push_back(p);
    net.sources.push_back({{0}});
    net.synapses.push_back({true, 0, 0, 0, 1, 16, 1, false});
    net.synapses.push_back({true, 0, 0, 0, 0, 3, 2, true});
    const auto r = snn_reference(net);
    // Neuron 1: 0.5 LSB rounds up to 1, then the input of 16 at tick 1, halved each tick.
    EXPECT_EQ(r.voltages[1].v,
              (std::vector<int32_t>{1, 16 * Q + 1, 8 * Q + 1, 4 * Q + 1, 2 * Q + 1, Q + 1}));
    // Neuron 0: 1 -> 1 (half up), -3 at tick 2: (1 * 0.5 rounded = 1) - 3 LSB, then halves of
    // a negative value round towards +inf at .5: -196607 * 0.5 = -98303.5 -> -98303.
    EXPECT_EQ(r.voltages[0].v[1], 1);
    EXPECT_EQ(r.voltages[0].v[2], 1 - 3 * Q);
    EXPECT_EQ(r.voltages[0].v[3], -98303);
}

TEST(SnnRef, OffsetCurrentDrivesRegularSpikes) {
    SnnRefNetwork net;
    net.n_ticks = 10;
    SnnRefPopulation p;
    p.size = 1;
    p.lif.alpha = 65536;
    p.lif.v_th = 3 * Q;
    p.lif.i_offset = Q;
    p.lif_float = {1.0, 3.0, 0.0, 1.0, 0.0, 0, true};
    net.populations.push_back(p);
    EXPECT_EQ(ticks(snn_reference(net).spikes), (std::vector<uint32_t>{2, 5, 8}));
    EXPECT_EQ(ticks(snn_reference_float(net).spikes), (std::vector<uint32_t>{2, 5, 8}));
}

TEST(SnnRef, InputSaturatesAt32767) {
    // 300 sources x weight 127 = 38100 > 32767 arriving at once.
    SnnRefNetwork net;
    net.n_ticks = 3;
    SnnRefPopulation p;
    p.size = 1;
    p.lif.alpha = 65536;
    p.lif.v_th = 32767 * Q;
    p.record_v = {0};
    net.populations.push_back(p);
    net.sources.push_back(std::vector<std::vector<uint32_t>>(300, {0}));
    for (uint32_t i = 0; i < 300; ++i) net.synapses.push_back({true, 0, i, 0, 0, 127, 1, false});
    const auto r = snn_reference(net);
    EXPECT_EQ(r.voltages[0].v[1], 32767 * Q);
    EXPECT_EQ(r.saturations, 300u - 258u);  // 258 x 127 = 32766 fits, the 259th saturates
    ASSERT_EQ(r.spikes.size(), 1u);
    EXPECT_EQ(r.spikes[0].tick, 1u);
}

TEST(SnnRef, MembraneSaturatesAtInt32) {
    SnnRefNetwork net;
    net.n_ticks = 3;
    SnnRefPopulation p;
    p.size = 1;
    p.lif.alpha = 65536;
    p.lif.v_th = 32767 * Q;
    p.lif.v_init = INT32_MIN + 5;
    p.lif.i_offset = -32768 * Q;
    p.record_v = {0};
    net.populations.push_back(p);
    EXPECT_EQ(snn_reference(net).voltages[0].v[0], INT32_MIN);
}

TEST(SnnRef, RejectsMalformedNetworks) {
    SnnRefNetwork net = driven(3, 1, 1);
    net.synapses[0].delay = 0;
    EXPECT_THROW(snn_reference(net), std::invalid_argument);
    net = driven(3, 1, 1);
    net.synapses[0].post = 1;
    EXPECT_THROW(snn_reference(net), std::invalid_argument);
}

TEST(SnnRef, ToQ16RoundsAndSaturates) {
    EXPECT_EQ(to_q16(1.0), 65536);
    EXPECT_EQ(to_q16(-0.5 / 65536), -1);  // half away from zero
    EXPECT_EQ(to_q16(1e9), INT32_MAX);
    EXPECT_EQ(to_q16(-1e9), INT32_MIN);
}

}  // namespace
}  // namespace nmsim::reference
