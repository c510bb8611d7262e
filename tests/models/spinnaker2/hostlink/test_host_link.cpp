// The host link on a small chip: host writes and reads through the NoC into DRAM and PE SRAM,
// link timing (latency + n / bandwidth, serialised per direction, full duplex), signal words to a
// PE's signal unit, chip writes into the host buffer and their buffer_written notifications,
// and the named errors of bad host accesses.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "models/common/sim_error.h"
#include "models/spinnaker2/hostlink/host_link.h"
#include "nmsim/hw/spinnaker2/noc_map.h"
#include "nmsim/hw/spinnaker2/signal_regs.h"
#include "platforms/spinnaker2/chip.h"
#include "tests/support/bus_master.h"
#include "tests/support/systemc_fixture.h"

namespace nmsim::spinnaker2 {
namespace {

using nmsim::test::BusMaster;
using sc_core::SC_PS;
using sc_core::sc_time;

// The host program: a thread running `body` once.
class HostThread : public sc_core::sc_module {
public:
    std::function<void()> body;
    HostThread(sc_core::sc_module_name name, std::function<void()> b)
        : sc_module(name), body(std::move(b)) {
        SC_HAS_PROCESS(HostThread);
        SC_THREAD(run);
    }

private:
    void run() { body(); }
};

uint64_t now_ps() { return sc_core::sc_time_stamp().value(); }

uint32_t pe_addr(uint32_t i, uint32_t offset) {
    uint32_t qx = 0, qy = 0;
    EXPECT_TRUE(s2_qpe_coord(i / 4, &qx, &qy));
    return s2_pe_global_addr(qx, qy, i % 4, offset);
}

uint8_t pattern(size_t i) { return static_cast<uint8_t>(i * 13u + 5u); }

std::vector<uint8_t> pattern_block(size_t n) {
    std::vector<uint8_t> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = pattern(i);
    return v;
}

// Link serialisation of n bytes in ps, from the parameters.
double ser_ps(const HostLinkParams& h, double n) { return n / h.bandwidth.bytes_per_s * 1e12; }

// Upper bounds from the parameters: one packet through the NoC (at most 14 mesh hops on the 8 x 8
// mesh) and through a DRAM controller (worst row state).
uint64_t noc_bound_ps(const ChipParams& p, uint64_t bytes, bool read) {
    const NocParams& n = p.noc;
    const uint64_t flits = (bytes + n.flit_bytes - 1) / n.flit_bytes;
    const uint64_t head = n.inject_cycles + 14 * n.hop_cycles;
    const uint64_t cycles =
        read ? 2 * head + (1 + flits) * n.flit_cycles : head + flits * n.flit_cycles;
    return cycles * n.clock.period_ps();
}
uint64_t dram_bound_ps(const ChipParams& p, uint64_t bytes, bool read) {
    const DramParams& d = p.dram;
    const uint64_t bursts = (bytes + d.burst_bytes - 1) / d.burst_bytes + 1;
    const double xfer = bursts * d.burst_bytes / (d.bandwidth.bytes_per_s * d.efficiency) * 1e12;
    return d.t_ctrl.ps + d.t_rp.ps + d.t_rcd.ps + (read ? d.t_rl.ps : d.t_wl.ps) +
           static_cast<uint64_t>(std::ceil(xfer));
}

// Uncontended NoC time of an n-flit write from endpoint a to b (docs/noc.md, "Timing").
uint64_t noc_write_ps(Chip& chip, uint32_t a, uint32_t b, uint64_t flits) {
    const NocParams& n = chip.params().noc;
    const uint64_t h = chip.noc().hops(EndpointOnNoc{a}, EndpointOnNoc{b});
    return (n.inject_cycles + h * n.hop_cycles + flits * n.flit_cycles) * n.clock.period_ps();
}

ChipParams small_chip() {
    ChipParams p;
    p.qpe_count = 1;                     // PEs 0..3
    p.core_ext_latency = nmsim::Time{};  // bus-master timings below are NoC + link only
    return p;
}

class HostLinkTest : public nmsim::test::SystemCTest {
protected:
    void SetUp() override {
        SystemCTest::SetUp();
        sc_core::sc_set_time_resolution(1, SC_PS);
        nmsim::sim_error() = nmsim::SimErrorInfo{};
    }
    void TearDown() override { nmsim::sim_error() = nmsim::SimErrorInfo{}; }
};

TEST_F(HostLinkTest, WriteThenReadBackDramAndPeSram) {
    const ChipParams p = small_chip();
    Chip chip("chip", p, 1, nullptr, false);
    HostLink& host = chip.host();
    const size_t n = 5000;  // 5 packets, the last one short
    const uint32_t dram = s2_dram_global_addr(1, 0x3000);
    const uint32_t sram = pe_addr(3, 0x800);
    const std::vector<uint8_t> in = pattern_block(n);
    std::vector<uint8_t> back_dram(n, 0xEE), back_sram(100, 0xEE);
    HostThread t("host_prog", [&] {
        host.write(dram, in.data(), n);
        host.write(sram, in.data(), 100);
        host.read(dram, back_dram.data(), n);
        host.read(sram, back_sram.data(), 100);
    });
    sc_core::sc_start();
    ASSERT_FALSE(nmsim::sim_error().set) << nmsim::sim_error().formatted();
    EXPECT_EQ(back_dram, in);
    EXPECT_EQ(back_sram, std::vector<uint8_t>(in.begin(), in.begin() + 100));
    // The data is really in the chip's memories, not only echoed by the link.
    std::vector<uint8_t> stored(n);
    chip.dram(1).store().read(0x3000, stored.data(), n);
    EXPECT_EQ(stored, in);
    EXPECT_EQ(std::memcmp(chip.pe(3).sram.data() + 0x800, in.data(), 100), 0);
    // Packets: 5 + 1 each way; every packet one NoC transaction.
    EXPECT_EQ(host.packets_to_chip(), 6u);
    EXPECT_EQ(host.packets_from_chip(), 6u);
    EXPECT_EQ(host.bytes_to_chip(), n + 100);
    EXPECT_EQ(host.bytes_from_chip(), n + 100);
    EXPECT_EQ(chip.noc().transactions(), 12u);
    EXPECT_EQ(chip.dram(1).requests(), 10u);
}

// A large write takes latency + n / bandwidth plus at most one packet's NoC + DRAM time (the
// chip side is much faster than the link, so earlier packets never queue); doubling the
// bandwidth halves the link part. Two chips in one simulation, identical but for the bandwidth.
TEST_F(HostLinkTest, LargeWriteTakesLatencyPlusSizeOverBandwidth) {
    ChipParams pa = small_chip();
    ChipParams pb = small_chip();
    pb.host.bandwidth = Bandwidth{2 * pa.host.bandwidth.bytes_per_s};
    Chip a("a", pa, 1, nullptr, false);
    Chip b("b", pb, 1, nullptr, false);
    const size_t n = 64 * 1024;
    const std::vector<uint8_t> in = pattern_block(n);
    uint64_t ta = 0, tb = 0;
    HostThread ha("ha", [&] {
        a.host().write(S2_DRAM_GLOBAL_BASE, in.data(), n);
        ta = now_ps();
    });
    HostThread hb("hb", [&] {
        b.host().write(S2_DRAM_GLOBAL_BASE, in.data(), n);
        tb = now_ps();
    });
    sc_core::sc_start();
    ASSERT_FALSE(nmsim::sim_error().set) << nmsim::sim_error().formatted();
    const uint64_t pkt = pa.host.packet_bytes;
    const uint64_t slack = noc_bound_ps(pa, pkt, false) + dram_bound_ps(pa, pkt, false);
    for (auto [t, h] : {std::pair<uint64_t, const HostLinkParams*>{ta, &pa.host}, {tb, &pb.host}}) {
        const double ideal = static_cast<double>(h->latency.ps) + ser_ps(*h, n);
        EXPECT_GE(static_cast<double>(t), ideal - 1.0);
        EXPECT_LE(static_cast<double>(t), ideal + slack + 1.0);
    }
    // The slack is small against the transfer: the time is dominated by the link.
    EXPECT_LT(static_cast<double>(slack), 0.01 * ser_ps(pa.host, n));
    const double link_a = static_cast<double>(ta - pa.host.latency.ps);
    const double link_b = static_cast<double>(tb - pb.host.latency.ps);
    EXPECT_NEAR(link_b / link_a, 0.5, 0.01);
    EXPECT_EQ(a.host().packets_to_chip(), n / pkt);
    EXPECT_EQ(a.host().busy_ps_to_chip(), static_cast<uint64_t>(std::llround(ser_ps(pa.host, n))));
    std::printf("64 KiB host write: %.3f us at %.0f MB/s, %.3f us at %.0f MB/s\n", ta / 1e6,
                pa.host.bandwidth.bytes_per_s / 1e6, tb / 1e6, pb.host.bandwidth.bytes_per_s / 1e6);
}

// Two host threads writing at the same time share the down direction: the second block queues
// behind the first. A read at the same time is not delayed by them (full duplex; its request is
// header-only) and costs two latencies plus its own transfer.
TEST_F(HostLinkTest, ConcurrentWritesQueueAndReadsUseTheOtherDirection) {
    const ChipParams p = small_chip();
    Chip chip("chip", p, 1, nullptr, false);
    const size_t n = 8 * 1024;
    const std::vector<uint8_t> in = pattern_block(n);
    std::vector<uint8_t> out(n);
    uint64_t t1 = 0, t2 = 0, tr = 0;
    HostThread w1("w1", [&] {
        chip.host().write(s2_dram_global_addr(0, 0), in.data(), n);
        t1 = now_ps();
    });
    HostThread w2("w2", [&] {
        chip.host().write(s2_dram_global_addr(1, 0), in.data(), n);
        t2 = now_ps();
    });
    HostThread r("r", [&] {
        sc_core::wait(sc_time(1, SC_PS));  // after both writes have reserved the link
        chip.host().read(pe_addr(0, 0), out.data(), n);
        tr = now_ps();
    });
    sc_core::sc_start();
    ASSERT_FALSE(nmsim::sim_error().set) << nmsim::sim_error().formatted();
    const HostLinkParams& h = p.host;
    const uint64_t pkt = h.packet_bytes;
    const double wslack =
        static_cast<double>(noc_bound_ps(p, pkt, false) + dram_bound_ps(p, pkt, false));
    const double first = static_cast<double>(h.latency.ps) + ser_ps(h, n);
    const double second = static_cast<double>(h.latency.ps) + ser_ps(h, 2 * n);
    EXPECT_GE(static_cast<double>(t1), first - 1);
    EXPECT_LE(static_cast<double>(t1), first + wslack + 1);
    EXPECT_GE(static_cast<double>(t2), second - 1);
    EXPECT_LE(static_cast<double>(t2), second + wslack + 1);
    // The read's request waits for the down direction: it leaves after both writes.
    const double rd = ser_ps(h, 2 * n) + 2.0 * h.latency.ps + ser_ps(h, n);
    // Slack: the first packet's NoC read, which may queue behind the last write packet on the
    // host's injection link (both reach the bridge at the same instant), plus rounding.
    const double rslack =
        static_cast<double>(noc_bound_ps(p, pkt, true) + noc_bound_ps(p, pkt, false)) +
        static_cast<double>(n / pkt);
    EXPECT_GE(static_cast<double>(tr), rd - n / pkt);
    EXPECT_LE(static_cast<double>(tr), rd + rslack);
    EXPECT_EQ(out, std::vector<uint8_t>(n, 0));  // PE 0's SRAM is untouched
}

TEST_F(HostLinkTest, SignalReachesThePesSignalUnit) {
    const ChipParams p = small_chip();
    Chip chip("chip", p, 1, nullptr, false);
    const uint32_t target = 2;
    uint64_t t_ret = 0;
    size_t queued_at_return = 99, queued_before = 99;
    HostThread t("host_prog", [&] {
        chip.host().signal(target, 0xCAFE0001u, 0x12345678u);
        t_ret = now_ps();
        sc_core::wait(sc_core::SC_ZERO_TIME);  // the arrival's delta cycle
        queued_at_return = chip.pe(target).signal.queued();
    });
    const uint32_t host_ep = chip.noc().host_endpoint().value;
    const uint64_t expect =
        p.host.latency.ps +
        static_cast<uint64_t>(std::llround(ser_ps(p.host, S2_SIGNAL_RX_BYTES))) +
        noc_write_ps(chip, host_ep, target, 1);
    HostThread probe("probe", [&] {
        sc_core::wait(sc_time::from_value(expect - 1));
        queued_before = chip.pe(target).signal.queued();
    });
    sc_core::sc_start();
    ASSERT_FALSE(nmsim::sim_error().set) << nmsim::sim_error().formatted();
    EXPECT_EQ(t_ret, expect);
    EXPECT_EQ(queued_before, 0u);
    EXPECT_EQ(queued_at_return, 1u);
    Signal& rx = chip.pe(target).signal;
    EXPECT_EQ(rx.regs().value(S2_SIGNAL_RX_WORD), 0xCAFE0001u);
    EXPECT_EQ(rx.regs().value(S2_SIGNAL_RX_SOURCE), 0x12345678u);
    EXPECT_TRUE(rx.irq.level());
    EXPECT_EQ(chip.pe(1).signal.received(), 0u);
}

// A PE's bus (a BusMaster standing in for its core) writes twice into the host buffer at the same
// instant: the writes serialise on the up direction, each completes latency after its transfer,
// and buffer_written fires at both completion times.
TEST_F(HostLinkTest, ChipWritesIntoTheHostBufferNotifyAtTheirArrival) {
    const ChipParams p = small_chip();
    Chip chip("chip", p, 1, nullptr, false);
    BusMaster m("m");
    m.sock.bind(chip.pe(0).bus.in);
    const uint32_t host_ep = chip.noc().host_endpoint().value;
    const uint64_t ser4 = static_cast<uint64_t>(std::llround(ser_ps(p.host, 4)));
    const uint64_t fly1 = noc_write_ps(chip, 0, host_ep, 1);
    const uint64_t arrive1 = fly1 + ser4 + p.host.latency.ps;
    BusMaster::Result w1, w2, bad, r_now, r_later;
    m.body = [&] {
        w1 = m.transport(tlm::TLM_WRITE_COMMAND, S2_HOST_GLOBAL_BASE + 0x20, 0x01020304u);
        w2 = m.transport(tlm::TLM_WRITE_COMMAND, S2_HOST_GLOBAL_BASE + 0x24, 0x05060708u);
        bad = m.transport(tlm::TLM_WRITE_COMMAND, S2_HOST_GLOBAL_BASE + chip.host().buffer_size(),
                          1u);
        // Reads (LT, issued now): one at once misses the staged write, one whose access time is
        // past write 1's completion sees it.
        r_now = m.transport(tlm::TLM_READ_COMMAND, S2_HOST_GLOBAL_BASE + 0x20, 0);
        r_later = m.transport(tlm::TLM_READ_COMMAND, S2_HOST_GLOBAL_BASE + 0x20, 0,
                              sc_time::from_value(arrive1));
    };
    auto word_at = [&](uint32_t off) {
        uint32_t v = 0;
        std::memcpy(&v, chip.host().buffer() + off, 4);
        return v;
    };
    // What the host sees: nothing before the first arrival, then each word as it lands.
    std::vector<uint64_t> fired;
    std::vector<uint32_t> seen;
    uint32_t early = 99;
    HostThread h("host_prog", [&] {
        for (int i = 0; i < 2; ++i) {
            sc_core::wait(chip.host().buffer_written());
            fired.push_back(now_ps());
            seen.push_back(word_at(0x20));
            seen.push_back(word_at(0x24));
        }
    });
    HostThread probe("probe", [&] {
        sc_core::wait(sc_time::from_value(arrive1 - 1));
        early = word_at(0x20);
    });
    sc_core::sc_start();
    ASSERT_TRUE(w1.ok) << w1.why;
    ASSERT_TRUE(w2.ok) << w2.why;
    EXPECT_EQ(word_at(0x20), 0x01020304u);
    EXPECT_EQ(word_at(0x24), 0x05060708u);
    EXPECT_EQ(early, 0u);
    ASSERT_TRUE(r_now.ok) << r_now.why;
    ASSERT_TRUE(r_later.ok) << r_later.why;
    EXPECT_EQ(r_now.value, 0u);
    EXPECT_EQ(r_later.value, 0x01020304u);
    EXPECT_EQ(seen, (std::vector<uint32_t>{0x01020304u, 0, 0x01020304u, 0x05060708u}));
    // Write 1: NoC flight, then 4 bytes on the link, then the latency.
    EXPECT_EQ(w1.delay.value(), arrive1);
    // Write 2 reaches the bridge one flit cycle later but waits for the link: it ends ser4 later.
    EXPECT_EQ(w2.delay.value(), w1.delay.value() + ser4);
    ASSERT_EQ(fired.size(), 2u);
    EXPECT_EQ(fired[0], w1.delay.value());  // issued at t = 0
    EXPECT_EQ(fired[1], w2.delay.value());
    EXPECT_EQ(chip.host().buffer_writes(), 2u);
    EXPECT_FALSE(bad.ok);
    EXPECT_NE(bad.why.find("outside the 65536-byte buffer"), std::string::npos) << bad.why;
    EXPECT_EQ(bad.status, tlm::TLM_ADDRESS_ERROR_RESPONSE);
}

TEST_F(HostLinkTest, WriteToAnUnmappedAddressRaisesANamedError) {
    const ChipParams p = small_chip();
    Chip chip("chip", p, 1, nullptr, false);
    bool went_on = false;
    const uint8_t data[16] = {};
    HostThread t("host_prog", [&] {
        chip.host().write(0x10000000u, data, sizeof data);  // below the DRAM window
        went_on = true;
    });
    sc_core::sc_start();
    const nmsim::SimErrorInfo& e = nmsim::sim_error();
    ASSERT_TRUE(e.set);
    EXPECT_EQ(e.component, "chip.host");
    EXPECT_NE(e.message.find("host write of 16 bytes at 0x10000000"), std::string::npos)
        << e.message;
    EXPECT_NE(e.message.find("no NoC endpoint"), std::string::npos) << e.message;
    EXPECT_FALSE(went_on);
    // The error is raised when the packet reaches the bridge.
    EXPECT_EQ(static_cast<uint64_t>(std::llround(e.t_us * 1e6)),
              p.host.latency.ps + static_cast<uint64_t>(std::llround(ser_ps(p.host, 16))));
}

TEST_F(HostLinkTest, ReadFromAnAbsentPeRaisesANamedError) {
    const ChipParams p = small_chip();
    Chip chip("chip", p, 1, nullptr, false);
    uint8_t buf[4];
    HostThread t("host_prog", [&] { chip.host().read(pe_addr(4, 0), buf, 4); });  // QPE 1 absent
    sc_core::sc_start();
    const nmsim::SimErrorInfo& e = nmsim::sim_error();
    ASSERT_TRUE(e.set);
    EXPECT_EQ(e.component, "chip.host");
    char addr[16];
    std::snprintf(addr, sizeof addr, "0x%08x", pe_addr(4, 0));
    EXPECT_NE(e.message.find(std::string("host read of 4 bytes at ") + addr), std::string::npos)
        << e.message;
    EXPECT_NE(e.message.find("no QPE"), std::string::npos) << e.message;
}

TEST_F(HostLinkTest, SignalToABadIndexRaisesANamedError) {
    const ChipParams p = small_chip();
    Chip chip("chip", p, 1, nullptr, false);
    HostThread t("host_prog", [&] { chip.host().signal(152, 1, 0); });
    sc_core::sc_start();
    const nmsim::SimErrorInfo& e = nmsim::sim_error();
    ASSERT_TRUE(e.set);
    EXPECT_EQ(e.component, "chip.host");
    EXPECT_NE(e.message.find("host signal to PE 152: not a PE index"), std::string::npos)
        << e.message;
    EXPECT_EQ(chip.noc().transactions(), 0u);
}

TEST(HostLinkParamsTest, DocumentedAndReachableFromTheChip) {
    EXPECT_TRUE(check_registry(registry_of<HostLinkParams>()).empty());
    ChipParams p;
    bool found = false;
    for (const auto& f : flatten(p))
        if (f.path == "host.packet_bytes") {
            found = true;
            EXPECT_EQ(f.get(), "1024");
            std::string err;
            EXPECT_FALSE(f.set("4", err));  // below one signal message
        }
    EXPECT_TRUE(found);
}

}  // namespace
}  // namespace nmsim::spinnaker2
