// The routing models chained as on the chip: L2Link -> Crossbar -> PadiBus -> SynapseDrivers ->
// SynapseArray, configured through the block-relative offsets of bss2_map.h. An external event
// must reach exactly the synapse columns the hand-written configuration selects.
#include <gtest/gtest.h>

#include <memory>
#include <tuple>
#include <vector>

#include "models/brainscales2/routing/background_generator.h"
#include "models/brainscales2/routing/crossbar.h"
#include "models/brainscales2/routing/l2_link.h"
#include "models/brainscales2/routing/padi_bus.h"
#include "models/brainscales2/routing/synapse_array.h"
#include "models/brainscales2/routing/synapse_drivers.h"
#include "nmsim/hw/brainscales2/bss2_map.h"
#include "tests/support/memory_sink.h"
#include "tests/support/systemc_fixture.h"

namespace {

using namespace nmsim::bss2;
using Hit = std::tuple<uint32_t, uint32_t, bool, double, uint64_t>;  // hemi, col, inh, amount, t

class RoutingChainTest : public nmsim::test::SystemCTest {
protected:
    void SetUp() override {
        SystemCTest::SetUp();
        sc_core::sc_set_time_resolution(1, sc_core::SC_PS);
        l2 = std::make_unique<L2Link>("l2");
        xbar = std::make_unique<Crossbar>("xbar");
        for (uint32_t h = 0; h < 2; ++h) {
            const std::string hs = std::to_string(h);
            for (uint32_t b = 0; b < 4; ++b) {
                padi[h][b] =
                    std::make_unique<PadiBus>(("padi" + hs + std::to_string(b)).c_str(), h, b);
            }
            drv[h] = std::make_unique<SynapseDrivers>(("drv" + hs).c_str(), h);
            syn[h] = std::make_unique<SynapseArray>(("syn" + hs).c_str(), h);
        }
        l2->bind_crossbar(
            [this](uint32_t in, uint32_t label, uint64_t t) { xbar->input(in, label, t); });
        for (uint32_t h = 0; h < 2; ++h) {
            for (uint32_t b = 0; b < 4; ++b) {
                xbar->bind_output(BSS2_XOUT_PADI(h, b), padi[h][b]->input_sink());
                padi[h][b]->bind_output(drv[h]->bus_sink(b));
            }
            SynapseArray* s = syn[h].get();
            drv[h]->bind_rows([s](uint32_t row, uint32_t label, double eff, bool inh, uint64_t t) {
                s->row_event(row, label, eff, inh, t);
            });
            s->bind_synapse([this, h](const SynapticInput* in, size_t n, bool inh, uint64_t t) {
                for (size_t k = 0; k < n; ++k)
                    hits.emplace_back(h, in[k].column, inh, in[k].amount, t);
            });
        }
    }
    // Decodes a word address as the chip assembly would and writes the owning block.
    void write(uint32_t addr, uint32_t data) {
        std::string err;
        bool ok = false;
        if (addr >= BSS2_SYNAPSE_BASE) {
            const uint32_t off = addr - BSS2_SYNAPSE_BASE;
            ok = syn[off / (BSS2_ROWS * BSS2_COLUMNS)]->write_config(
                off % (BSS2_ROWS * BSS2_COLUMNS), data, &err);
        } else if (addr >= BSS2_PADI_BASE) {
            const uint32_t i = addr - BSS2_PADI_BASE;
            ok = padi[i / 4][i % 4]->write_config(0, data, &err);
        } else if (addr >= BSS2_SYNDRV_BASE) {
            const uint32_t off = addr - BSS2_SYNDRV_BASE;
            ok = drv[off / (BSS2_DRIVERS * 4)]->write_config(off % (BSS2_DRIVERS * 4), data, &err);
        } else {
            ok = xbar->write_config(addr - BSS2_XBAR_BASE, data, &err);
        }
        ASSERT_TRUE(ok) << std::hex << addr << ": " << err;
    }

    std::unique_ptr<L2Link> l2;
    std::unique_ptr<Crossbar> xbar;
    std::unique_ptr<PadiBus> padi[2][4];
    std::unique_ptr<SynapseDrivers> drv[2];
    std::unique_ptr<SynapseArray> syn[2];
    std::vector<Hit> hits;
};

TEST_F(RoutingChainTest, ExternalEventReachesExactlyTheConfiguredSynapses) {
    // L2 channel 2 -> top PADI bus 1, only labels whose top three bits are 0b101.
    write(BSS2_XBAR_NODE(BSS2_XIN_L2(2), BSS2_XOUT_PADI(0, 1)) + BSS2_XBAR_MASK,
          0x3800u | 1u << 16);
    write(BSS2_XBAR_NODE(BSS2_XIN_L2(2), BSS2_XOUT_PADI(0, 1)) + BSS2_XBAR_TARGET, 0x2800u);
    // The same channel also reaches bottom bus 1, but that bus stays disabled.
    write(BSS2_XBAR_NODE(BSS2_XIN_L2(2), BSS2_XOUT_PADI(1, 1)) + BSS2_XBAR_MASK, 1u << 16);
    write(BSS2_PADI(0, 1), 1);
    // Driver 21 = bus 1, static index 5: rows 42 (excitatory) and 43 (inhibitory), full mask.
    const uint32_t cfg21 =
        0x1Fu | 1u << 8 | BSS2_ROW_EXCITATORY << 12 | BSS2_ROW_INHIBITORY << 14 | 1u << 17;
    write(BSS2_SYNDRV(0, 21) + BSS2_SYNDRV_CFG, cfg21);
    // Driver 25 = bus 1, index 6: must reject row-select 5. Driver 22 = bus 2, index 5: other bus.
    write(BSS2_SYNDRV(0, 25) + BSS2_SYNDRV_CFG, cfg21);
    write(BSS2_SYNDRV(0, 22) + BSS2_SYNDRV_CFG, cfg21);
    // Bottom hemisphere driver 21 configured alike: its bus is disabled.
    write(BSS2_SYNDRV(1, 21) + BSS2_SYNDRV_CFG, cfg21);
    const uint32_t lab = 0x13;
    write(BSS2_SYNAPSE(0, 42, 3), 10 | lab << 6);
    write(BSS2_SYNAPSE(0, 42, 100), 63 | lab << 6);
    write(BSS2_SYNAPSE(0, 42, 7), 5 | (lab - 1) << 6);  // other label
    write(BSS2_SYNAPSE(0, 42, 8), 0 | lab << 6);        // weight 0
    write(BSS2_SYNAPSE(0, 43, 200), 1 | lab << 6);
    write(BSS2_SYNAPSE(0, 50, 3), 9 | lab << 6);  // row of driver 25
    write(BSS2_SYNAPSE(0, 44, 3), 9 | lab << 6);  // row of driver 22
    write(BSS2_SYNAPSE(1, 42, 3), 9 | lab << 6);  // bottom hemisphere

    // label14 = 0b101 (crossbar filter) | row-select 5 | synapse label 0x13
    const uint32_t label14 = 0x5u << 11 | 5u << 6 | lab;
    const uint64_t t0 = 1000000;
    l2->input(bss2_l2_event(2, label14), t0);
    const uint64_t t = t0 + 4000 * 3;  // crossbar, PADI and driver latency (defaults)
    EXPECT_EQ(hits, (std::vector<Hit>{
                        {0, 3, false, 10.0, t}, {0, 100, false, 63.0, t}, {0, 200, true, 1.0, t}}));
    // Wrong top bits: the crossbar node filters the event out.
    hits.clear();
    l2->input(bss2_l2_event(2, 0x4u << 11 | 5u << 6 | lab), t0 + 100000);
    // Other L2 channel: no node enabled.
    l2->input(bss2_l2_event(1, label14), t0 + 200000);
    EXPECT_TRUE(hits.empty());
    EXPECT_EQ(padi[1][1]->disabled_events(), 2u);
    EXPECT_EQ(padi[0][1]->events(), 1u);
    EXPECT_EQ(syn[0]->synaptic_events(), 3u);
    EXPECT_EQ(xbar->unrouted(BSS2_XIN_L2(1)), 1u);

    // The summary counters carry the same numbers.
    nmsim::test::MemorySink sink;
    padi[0][1]->write_summary(sink, sink.component("padi01"));
    syn[0]->write_summary(sink, sink.component("syn0"));
    xbar->write_summary(sink, sink.component("xbar"));
    EXPECT_EQ(sink.counter_value("padi01", "events"), 1.0);
    EXPECT_EQ(sink.counter_value("syn0", "synaptic_events"), 3.0);
    EXPECT_EQ(sink.counter_value("xbar", "in10.events"), 2.0);
    EXPECT_EQ(sink.counter_value("xbar", "out1.events"), 1.0);
}

TEST(Bss2RoutingParams, EveryParameterSetIsSelfDocumented) {
    for (const auto* reg :
         {&nmsim::registry_of<L2LinkParams>(), &nmsim::registry_of<CrossbarParams>(),
          &nmsim::registry_of<PadiBusParams>(), &nmsim::registry_of<SynapseDriverParams>(),
          &nmsim::registry_of<SynapseArrayParams>(), &nmsim::registry_of<BackgroundParams>()}) {
        const auto problems = nmsim::check_registry(*reg);
        EXPECT_TRUE(problems.empty()) << problems.front();
    }
}

}  // namespace
