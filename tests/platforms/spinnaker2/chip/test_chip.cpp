// The SpiNNaker2 chip platform: TLM wiring of a small chip (PE bus -> NoC -> remote SRAM, DRAM
// interfaces, host, address errors, signal flight times), the chip_ping/chip_pong firmware pair
// on the full 38-QPE chip (DMA through DRAM, signals, DMA into another PE's SRAM, ISS only for
// the two started cores), and the resident-memory cost of building the full chip.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "models/arm/elf_image.h"
#include "nmsim/hw/spinnaker2/noc_map.h"
#include "nmsim/hw/spinnaker2/pe_map.h"
#include "nmsim/hw/spinnaker2/signal_regs.h"
#include "nmsim/hw/spinnaker2/comms_regs.h"
#include "nmsim/hw/spinnaker2/router_regs.h"
#include "models/common/energy.h"
#include "models/common/sim_kernel.h"
#include "models/spinnaker2/router/router_table.h"
#include "platforms/spinnaker2/chip.h"
#include "platforms/spinnaker2/energy.h"
#include "tests/support/bus_master.h"
#include "tests/support/systemc_fixture.h"

namespace nmsim::spinnaker2 {
namespace {

using nmsim::test::BusMaster;
using sc_core::SC_NS;
using sc_core::SC_PS;
using sc_core::sc_time;

const std::string kFw = NMSIM_FIRMWARE_DIR;

uint64_t rss_bytes() {
    std::ifstream f("/proc/self/statm");
    uint64_t size = 0, resident = 0;
    f >> size >> resident;
    return resident * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

// Global address of byte `offset` of the PE with global index i.
uint32_t pe_addr(uint32_t i, uint32_t offset) {
    uint32_t qx = 0, qy = 0;
    EXPECT_TRUE(s2_qpe_coord(i / 4, &qx, &qy));
    return s2_pe_global_addr(qx, qy, i % 4, offset);
}

// Uncontended NoC time of an n-flit write from endpoint a to b (docs/noc.md, "Timing").
uint64_t noc_write_ps(Chip& chip, uint32_t a, uint32_t b, uint64_t flits) {
    const NocParams& n = chip.params().noc;
    const uint64_t h = chip.noc().hops(EndpointOnNoc{a}, EndpointOnNoc{b});
    return (n.inject_cycles + h * n.hop_cycles + flits * n.flit_cycles) * n.clock.period_ps();
}

uint8_t pattern(uint32_t i) { return static_cast<uint8_t>(i * 7u + 3u); }

class ChipTest : public nmsim::test::SystemCTest {
protected:
    void SetUp() override {
        SystemCTest::SetUp();
        sc_core::sc_set_time_resolution(1, SC_PS);
    }
    static uint64_t now_ps() { return sc_core::sc_time_stamp().value(); }
};

TEST_F(ChipTest, PeBusReachesRemoteSramDramAndHostThroughTheNoc) {
    ChipParams p;
    p.qpe_count = 2;                    // PEs 0..7
    p.core_ext_latency = nmsim::Time{};  // the exact NoC/DRAM sums below; see CoreExtLatencyAdds
    Chip chip("chip", p, 1, nullptr, false);
    ASSERT_EQ(chip.pe_count(), 8u);
    BusMaster m("m");
    m.sock.bind(chip.pe(0).bus.in);  // stands in for PE 0's core
    BusMaster::Result remote, dram0, dram1, host, dram_rd, gap, absent;
    uint32_t dram_rd_value = 0;
    m.body = [&] {
        remote = m.transport(tlm::TLM_WRITE_COMMAND, pe_addr(5, 0x100), 0x11223344u);
        dram0 = m.transport(tlm::TLM_WRITE_COMMAND, s2_dram_global_addr(0, 0x40), 0xA0A0A0A0u);
        dram1 = m.transport(tlm::TLM_WRITE_COMMAND, s2_dram_global_addr(1, 0x80), 0xB1B1B1B1u);
        host = m.transport(tlm::TLM_WRITE_COMMAND, S2_HOST_GLOBAL_BASE + 0x10, 0x5A5A5A5Au);
        sc_core::wait(sc_time(10, sc_core::SC_US));
        dram_rd = m.read(s2_dram_global_addr(1, 0x80));
        dram_rd_value = dram_rd.value;
        gap = m.write(pe_addr(5, 0x40000), 1);  // between SRAM and the signal window
        absent = m.write(pe_addr(8, 0), 1);     // QPE 2 is not built
    };
    sc_core::sc_start();

    ASSERT_TRUE(remote.ok) << remote.why;
    uint32_t v = 0;
    std::memcpy(&v, chip.pe(5).sram.data() + 0x100, 4);
    EXPECT_EQ(v, 0x11223344u);
    EXPECT_EQ(remote.delay.value(), noc_write_ps(chip, 0, 5, 1));  // SRAM adds no latency
    ASSERT_TRUE(dram0.ok) << dram0.why;
    ASSERT_TRUE(dram1.ok) << dram1.why;
    chip.dram(0).store().read(0x40, reinterpret_cast<uint8_t*>(&v), 4);
    EXPECT_EQ(v, 0xA0A0A0A0u);
    chip.dram(1).store().read(0x80, reinterpret_cast<uint8_t*>(&v), 4);  // offset in interface 1
    EXPECT_EQ(v, 0xB1B1B1B1u);
    EXPECT_EQ(chip.dram(0).requests(), 1u);
    EXPECT_EQ(chip.dram(1).requests(), 2u);
    // A DRAM write costs at least the NoC flight plus controller and write latency.
    const DramParams& d = p.dram;
    EXPECT_GE(dram1.delay.value(), noc_write_ps(chip, 0, chip.noc().dram_endpoint(1).value, 1) +
                                       d.t_ctrl.ps + d.t_wl.ps);
    ASSERT_TRUE(host.ok) << host.why;
    std::memcpy(&v, chip.host().buffer() + 0x10, 4);
    EXPECT_EQ(v, 0x5A5A5A5Au);
    EXPECT_GE(host.delay.value(), p.host.latency.ps);
    ASSERT_TRUE(dram_rd.ok) << dram_rd.why;
    EXPECT_EQ(dram_rd_value, 0xB1B1B1B1u);
    EXPECT_FALSE(gap.ok);
    EXPECT_FALSE(gap.why.empty());
    EXPECT_FALSE(absent.ok);
    EXPECT_FALSE(absent.why.empty());
    EXPECT_EQ(chip.iss_count(), 0u);
}

TEST_F(ChipTest, SignalArrivesAfterTheNocFlightAndBadTargetsFail) {
    ChipParams p;
    p.qpe_count = 2;
    Chip chip("chip", p, 1, nullptr, false);
    BusMaster m("m");
    m.sock.bind(chip.pe(1).bus.in);
    const uint64_t flight = noc_write_ps(chip, 1, 6, 1);
    uint64_t t_send = 0;
    size_t before = 99, at = 99;
    BusMaster::Result absent, too_big;
    m.body = [&] {
        m.wr(S2_SIGNAL_BASE + S2_SIGNAL_TARGET, 6);
        t_send = now_ps();
        m.wr(S2_SIGNAL_BASE + S2_SIGNAL_SEND, 0xABCDu);
        m.at(t_send + flight - 1);
        before = chip.pe(6).signal.queued();
        m.at(t_send + flight);
        sc_core::wait(sc_core::SC_ZERO_TIME);  // the arrival's delta cycle
        at = chip.pe(6).signal.queued();
        m.wr(S2_SIGNAL_BASE + S2_SIGNAL_TARGET, 8);
        absent = m.write(S2_SIGNAL_BASE + S2_SIGNAL_SEND, 1);
        m.wr(S2_SIGNAL_BASE + S2_SIGNAL_TARGET, 152);
        too_big = m.write(S2_SIGNAL_BASE + S2_SIGNAL_SEND, 1);
    };
    sc_core::sc_start();
    EXPECT_GT(flight, 0u);
    EXPECT_EQ(before, 0u);
    EXPECT_EQ(at, 1u);
    Signal& rx = chip.pe(6).signal;
    EXPECT_EQ(rx.regs().value(S2_SIGNAL_RX_WORD), 0xABCDu);
    EXPECT_EQ(rx.regs().value(S2_SIGNAL_RX_SOURCE), 1u);
    EXPECT_EQ(rx.regs().value(S2_SIGNAL_SELF), 6u);
    EXPECT_TRUE(rx.irq.level());
    EXPECT_FALSE(absent.ok);
    EXPECT_NE(absent.why.find("NoC write to PE 8 failed"), std::string::npos) << absent.why;
    EXPECT_FALSE(too_big.ok);
    EXPECT_NE(too_big.why.find("not a PE index"), std::string::npos) << too_big.why;
}

TEST_F(ChipTest, SignalOnThePePlatformIsABusError) {
    PePlatformParams p;
    PePlatform plat("plat", p, 1, nullptr, false);
    BusMaster m("m");
    m.sock.bind(plat.pe(0).bus.in);
    BusMaster::Result r;
    m.body = [&] {
        m.wr(S2_SIGNAL_BASE + S2_SIGNAL_TARGET, 0);
        r = m.write(S2_SIGNAL_BASE + S2_SIGNAL_SEND, 1);
    };
    sc_core::sc_start();
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.why.find("no NoC"), std::string::npos) << r.why;
}

TEST_F(ChipTest, PingPongThroughDramAndSignalsOnTheFullChip) {
    ChipParams p;  // 38 QPEs, 152 PEs
    Chip chip("chip", p, 1, nullptr, false);
    ASSERT_EQ(chip.pe_count(), 152u);
    const arm::ElfImage ping = arm::ElfImage::load(kFw + "/chip_ping.elf");
    const arm::ElfImage pong = arm::ElfImage::load(kFw + "/chip_pong.elf");
    const uint32_t len = 256, dram_off = 0x1000;
    const uint32_t dram = s2_dram_global_addr(1, dram_off);
    chip.pe(0).load(ping);
    chip.pe(0).set_args({5, dram, len});
    chip.pe(5).load(pong);
    chip.pe(5).set_args({len});
    chip.start({0, 5});
    sc_core::sc_start(sc_time(1, sc_core::SC_MS));

    Pe& a = chip.pe(0);
    Pe& b = chip.pe(5);
    ASSERT_TRUE(a.exited);
    ASSERT_TRUE(b.exited);
    EXPECT_EQ(a.exit_code, 0);
    EXPECT_EQ(b.exit_code, 0);

    // Data: the pattern in DRAM interface 1, pattern + 1 in PE 5's buffer and PE 0's result.
    std::vector<uint8_t> in_dram(len);
    chip.dram(1).store().read(dram_off, in_dram.data(), len);
    uint32_t result = 0, buf = 0;
    ASSERT_TRUE(ping.find_symbol("ping_result", result));
    ASSERT_TRUE(pong.find_symbol("pong_buf", buf));
    for (uint32_t i = 0; i < len; ++i) {
        ASSERT_EQ(in_dram[i], pattern(i)) << i;
        ASSERT_EQ(b.sram.data()[buf + i], static_cast<uint8_t>(pattern(i) + 1)) << i;
        ASSERT_EQ(a.sram.data()[result + i], static_cast<uint8_t>(pattern(i) + 1)) << i;
    }
    EXPECT_EQ(chip.dram(1).channel_stats(0).bytes_written, len);
    // PE 5's DMA read plus ping's byte loads at every 61st byte (the core's own path to DRAM).
    EXPECT_EQ(chip.dram(1).channel_stats(0).bytes_read, len + (len + 60) / 61);
    EXPECT_EQ(chip.dram(0).requests(), 0u);
    EXPECT_EQ(a.signal.sent(), 2u);
    EXPECT_EQ(b.signal.received(), 2u);
    EXPECT_EQ(b.signal.sent(), 1u);
    EXPECT_EQ(a.signal.received(), 1u);
    EXPECT_EQ(chip.noc().errors(), 0u);

    // Only the two started cores created an ISS.
    EXPECT_EQ(chip.iss_count(), 2u);
    EXPECT_TRUE(a.core.iss_created());
    EXPECT_TRUE(b.core.iss_created());
    EXPECT_FALSE(chip.pe(1).core.iss_created());

    // Time: PE 0's exit follows a chain that holds at least two signal flights, one DRAM write
    // and one DRAM read; and a few thousand instructions at 300 MHz stay far below 100 us.
    const DramParams& d = p.dram;
    const uint64_t sig = noc_write_ps(chip, 0, 5, 1);
    const uint64_t lower = 2 * sig + 2 * d.t_ctrl.ps + d.t_wl.ps + d.t_rl.ps;
    const uint64_t t_end = a.exit_time.value();
    EXPECT_GE(t_end, lower);
    EXPECT_LT(t_end, 100'000'000u);
    EXPECT_GT(chip.noc().hops(EndpointOnNoc{0}, EndpointOnNoc{5}), 0u);
    RecordProperty("ping_exit_ps", std::to_string(t_end));
    std::printf("ping exit %.3f us, pong exit %.3f us, lower bound %.3f us\n", t_end / 1e6,
                b.exit_time.value() / 1e6, lower / 1e6);
}

TEST_F(ChipTest, MulticastOnThePePlatformIsABusError) {
    PePlatformParams p;
    PePlatform plat("plat", p, 1, nullptr, false);
    BusMaster m("m");
    m.sock.bind(plat.pe(0).bus.in);
    BusMaster::Result r;
    uint32_t self = 99;
    m.body = [&] {
        self = m.rd(S2_COMMS_BASE + S2_COMMS_SELF);
        r = m.write(S2_COMMS_BASE + S2_COMMS_TX_KEY, 1);
    };
    sc_core::sc_start();
    EXPECT_EQ(self, 0u);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.why.find("no spike router"), std::string::npos) << r.why;
}

// Firmware: PEs spread over the full chip exchange multicast packets through the spike router
// with the HAL (s2_mc_send, s2_mc_send_payload) and the RX interrupt (s2_mc_receive). The table
// routes each PE's key to all other participants; it is loaded with load_table() or, as a host
// program would, through the router's register window over the host link before the cores
// start. Checked end to end: every core exits 0 (each source's rounds arrived in order with the
// right payloads), the router and comms counters, no drops, and the router's energy accounts.
class ChipMulticast : public ChipTest, public ::testing::WithParamInterface<bool> {};

TEST_P(ChipMulticast, PesExchangePacketsThroughTheRouterWithTheHalAndTheRxInterrupt) {
    const bool via_host = GetParam();
    ChipParams p;
    Chip chip("chip", p, 1, nullptr, false);
    const std::vector<size_t> pes = {0, 13, 27, 50, 51, 77, 101, 130, 151};
    const uint32_t n = static_cast<uint32_t>(pes.size()), base = 0x4A000000u, rounds = 12;
    std::vector<RouterEntry> table;
    for (size_t src : pes) {
        RouterEntry e;
        e.key = base | static_cast<uint32_t>(src);
        e.mask = ~0u;
        for (size_t dst : pes)
            if (dst != src) e.pes.set(static_cast<uint32_t>(dst));
        table.push_back(e);
    }
    const arm::ElfImage fw = arm::ElfImage::load(kFw + "/chip_multicast.elf");
    for (size_t i = 0; i < pes.size(); ++i) {
        chip.pe(pes[i]).load(fw);
        chip.pe(pes[i]).set_args({n, base, rounds, i % 3 == 0 ? 0u : 40u * static_cast<uint32_t>(i)});
    }
    uint64_t t_started = 0;
    BusMaster host_program("host_program");
    host_program.sock.bind(chip.pe(0).bus.in);  // unused: the host program talks over the host link
    if (via_host) {
        host_program.body = [&] {
            const std::vector<uint32_t> words = encode_table(table);
            chip.host().write(s2_router_entry_addr(0), words.data(), words.size() * 4);
            t_started = now_ps();
            chip.start(pes);
        };
    } else {
        chip.router().load_table(table);
        chip.start(pes);
    }
    energy::Meter meter;
    add_chip_energy(meter, chip);
    meter.start("run", 0);
    sc_core::sc_start(sc_time(5, sc_core::SC_MS));
    meter.finish(now_ps());

    for (size_t pe : pes) {
        ASSERT_TRUE(chip.pe(pe).exited) << pe;
        EXPECT_EQ(chip.pe(pe).exit_code, 0) << pe;
        EXPECT_EQ(chip.pe(pe).comms.sent(), rounds) << pe;
        EXPECT_EQ(chip.pe(pe).comms.received(), (n - 1) * rounds) << pe;
        EXPECT_EQ(chip.pe(pe).comms.rx_overflows(), 0u) << pe;
    }
    const auto& c = chip.router().counters();
    EXPECT_EQ(c.received, n * rounds);
    EXPECT_EQ(c.routed, n * rounds);
    EXPECT_EQ(c.delivered, n * (n - 1) * rounds);
    EXPECT_EQ(c.dropped_no_route + c.dropped_copies + c.dropped_input, 0u);
    EXPECT_EQ(chip.noc().errors(), 0u);
    if (via_host) {
        EXPECT_GT(t_started, static_cast<uint64_t>(p.host.latency.ps));
        EXPECT_EQ(chip.router().valid_entries(), n);
        for (uint32_t i = 0; i < n; ++i) EXPECT_EQ(chip.router().entry(i), table[i]);
    }
    double packets = -1, deliveries = -1;
    for (const energy::Row& r : meter.rows()) {
        if (r.component != "chip.router") continue;
        if (r.quantity == "packets") packets = r.count;
        if (r.quantity == "deliveries") deliveries = r.count;
    }
    EXPECT_EQ(packets, n * rounds);
    EXPECT_EQ(deliveries, n * (n - 1) * rounds);
}

INSTANTIATE_TEST_SUITE_P(Table, ChipMulticast, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& i) {
                             return i.param ? std::string("ViaHostLink") : std::string("LoadTable");
                         });

// Building the full chip must stay light: idle cores create no ISS, DRAM is sparse, SRAM is
// calloc'ed (zero pages cost nothing until touched). Measured (Release): about +32 MiB to
// construct, mostly ~100 KiB per core for its cycle model's Capstone handle (created in the
// core's constructor), and +2 MiB to elaborate. The bound, 64 MiB, leaves room for allocator and
// sanitizer noise; one ISS per PE (~3 MB resident each, iss-notes.md) would exceed it alone.
TEST_F(ChipTest, FullChipConstructionStaysSmallInResidentMemory) {
    const uint64_t before = rss_bytes();
    ChipParams p;
    auto chip = std::make_unique<Chip>("chip", p, 1, nullptr, false);
    const uint64_t built = rss_bytes();
    sc_core::sc_start(sc_time(1, SC_NS));  // elaboration and the first run of every process
    const uint64_t after = rss_bytes();
    const uint64_t growth = after - before;
    std::printf("full chip: RSS %.1f MiB, +%.1f MiB constructed, +%.1f MiB elaborated\n",
                before / 1048576.0, (built - before) / 1048576.0, (after - built) / 1048576.0);
    EXPECT_EQ(chip->pe_count(), 152u);
    EXPECT_EQ(chip->iss_count(), 0u);
    EXPECT_LT(growth, uint64_t{64} << 20);
}

// One DRAM interface (the prototype's): interface 0 serves all of dram.size, interface 1's window
// is an address error.
TEST_F(ChipTest, OneDramInterface) {
    ChipParams p;
    p.qpe_count = 1;
    p.dram.channels = 3;
    EXPECT_THROW({ Chip bad("bad", p, 1, nullptr, false); }, std::invalid_argument);
    p.dram.channels = 1;
    p.dram.size = Bytes{128u << 20};
    Chip chip("chip", p, 1, nullptr, false);
    ASSERT_EQ(chip.dram_count(), 1u);
    EXPECT_EQ(chip.dram(0).store().size(), 128u << 20);
    EXPECT_EQ(dram_if_size(p), 128u << 20);
    BusMaster m("m");
    m.sock.bind(chip.pe(0).bus.in);
    BusMaster::Result last, if1;
    m.body = [&] {
        last = m.write(s2_dram_global_addr(0, (128u << 20) - 4), 0x12345678u);
        if1 = m.write(s2_dram_global_addr(1, 0), 1);
    };
    sc_core::sc_start();
    ASSERT_TRUE(last.ok) << last.why;
    EXPECT_FALSE(if1.ok);
    uint32_t v = 0;
    chip.dram(0).store().read((128u << 20) - 4, reinterpret_cast<uint8_t*>(&v), 4);
    EXPECT_EQ(v, 0x12345678u);
}

// energy.dram_close_when_idle: an import (four reads, one after the other) and then 10 us of
// compute. Closed when idle, the interface is charged from each read's arrival at the
// controller to its completion; open, from the first read to the end of the run.
TEST_F(ChipTest, DramCloseWhenIdleChargesOnlyTheAccesses) {
    for (const bool close : {true, false}) {
        fresh_sim_kernel();
        ChipParams p;
        p.qpe_count = 1;
        p.dram.channels = 1;
        p.dram.size = Bytes{128u << 20};
        p.energy.dram_close_when_idle = close;
        Chip chip("chip", p, 1, nullptr, false);
        energy::Meter meter;
        add_chip_energy(meter, chip);
        meter.start("run", 0);
        BusMaster m("m");
        m.sock.bind(chip.pe(0).bus.in);
        m.body = [&] {
            for (uint32_t i = 0; i < 4; ++i) m.read(s2_dram_global_addr(0, 0x100 + 4 * i));
            sc_core::wait(sc_time(10, sc_core::SC_US));
        };
        sc_core::sc_start();
        meter.finish(now_ps());

        const DramParams& d = p.dram;
        // The first read opens the row, the others hit it; each moves one 32-byte burst.
        const uint64_t burst_ps =
            static_cast<uint64_t>(std::llround(d.burst_bytes * 1e12 / d.bandwidth.bytes_per_s));
        const uint64_t in_flight = 4 * (d.t_ctrl.ps + d.t_rl.ps + burst_ps) + d.t_rcd.ps;
        EXPECT_EQ(chip.dram(0).in_flight_ps(), in_flight);
        double open_s = -1, open_j = -1;
        for (const energy::Row& r : meter.rows())
            if (r.component == "chip.dram0" && r.is_static) {
                open_s = r.count;
                open_j = r.energy_j;
            }
        const double expect_s =
            close ? in_flight * 1e-12 : (now_ps() - chip.dram(0).first_access_ps()) * 1e-12;
        EXPECT_NEAR(open_s, expect_s, 1e-15) << "close " << close;
        EXPECT_NEAR(open_j, expect_s * p.energy.dram_open_power.w, 1e-18) << "close " << close;
        if (!close) {
            EXPECT_GT(open_s, 10e-6);
        }
    }
}

}  // namespace
}  // namespace nmsim::spinnaker2

namespace nmsim::spinnaker2 {
namespace {

// Per-PE performance levels: the default everywhere, then the overrides in order.
TEST(ChipPerfLevels, OverridesApplyPerPeAndBadEntriesAreNamed) {
    EXPECT_EQ(parse_perf_levels("", 4, 1), (std::vector<uint32_t>{1, 1, 1, 1}));
    EXPECT_EQ(parse_perf_levels("0:0,2-3:0,3:1", 4, 1), (std::vector<uint32_t>{0, 1, 0, 1}));
    auto message = [](const std::string& spec) {
        try {
            parse_perf_levels(spec, 8, 1);
        } catch (const std::invalid_argument& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_EQ(message("8:0"), "perf_levels: entry \"8:0\": PE range outside 0..7 of this chip");
    EXPECT_EQ(message("1:2"), "perf_levels: entry \"1:2\": level 2 does not exist (0: pl0_freq, 1: pl1_freq)");
    EXPECT_EQ(message("3-1:0"), "perf_levels: entry \"3-1:0\": PE range outside 0..7 of this chip");
    EXPECT_EQ(message("x"), "perf_levels: entry \"x\": expected PE:level or FIRST-LAST:level");
    EXPECT_EQ(message("1"), "perf_levels: entry \"1\": expected ':' and a level");
}

TEST_F(ChipTest, PerfLevelsSetEachPesClock) {
    ChipParams p;
    p.qpe_count = 2;
    p.perf_levels = "1:0,4-5:0";
    Chip chip("chip", p, 1, nullptr, false);
    for (size_t i = 0; i < chip.pe_count(); ++i) {
        const bool slow = i == 1 || i == 4 || i == 5;
        EXPECT_EQ(chip.pe(i).core.clock().hz, slow ? p.pe.pl0_freq.hz : p.pe.pl1_freq.hz) << "pe" << i;
    }
}


// The core's path into the NoC adds core_ext_latency to every access; the DMA's path does not.
TEST_F(ChipTest, CoreExtLatencyAdds) {
    uint64_t delay[2] = {0, 0};
    for (int i = 0; i < 2; ++i) {
        fresh_sim_kernel();
        ChipParams p;
        p.qpe_count = 2;
        p.core_ext_latency = nmsim::Time::from_ns(i == 0 ? 0 : 400);
        Chip chip("chip", p, 1, nullptr, false);
        BusMaster m("m");
        m.sock.bind(chip.pe(0).bus.in);
        BusMaster::Result res;
        m.body = [&] { res = m.transport(tlm::TLM_WRITE_COMMAND, s2_dram_global_addr(0, 0x100), 7u); };
        sc_core::sc_start();
        delay[i] = res.delay.value();
    }
    EXPECT_EQ(delay[1] - delay[0], 400000u);
}

}  // namespace
}  // namespace nmsim::spinnaker2
