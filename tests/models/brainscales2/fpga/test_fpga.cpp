// The BrainScaleS-2 FPGA: host link transfer, playback execution timing, chip link injection
// and its rate cap, reads, recording windows and timestamps, up-link drops, errors, timing split.
// The expected times are recomputed here from the parameters (docs/bss2_fpga.md formulas).
#include <gtest/gtest.h>
#include <systemc>

#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "models/brainscales2/fpga/fpga.h"
#include "models/common/sim_error.h"
#include "nmsim/hw/brainscales2/playback.h"
#include "tests/support/memory_sink.h"
#include "tests/support/systemc_fixture.h"

namespace {

using nmsim::bss2::ExecutionTiming;
using nmsim::bss2::Fpga;
using nmsim::bss2::FpgaParams;

uint64_t now_ps() { return sc_core::sc_time_stamp().value(); }

// The test's stand-in for the chip: a register file, a log of what arrived when, optional
// loopback of injected spikes to the FPGA and a burst trigger address.
struct TestChip : nmsim::bss2::ChipInterface {
    struct Rec {
        uint64_t t;
        char kind;  // 'w' write, 'r' read, 'i' inject
        uint32_t addr, data;
    };
    std::vector<Rec> log;
    std::map<uint32_t, uint32_t> regs;
    std::set<uint32_t> refuse;
    Fpga* loopback = nullptr;
    uint32_t burst_addr = 0xFFFFFFu;  // a write here emits `data` events at once
    Fpga* burst_to = nullptr;
    uint32_t madc_addr = 0xFFFFFEu;  // a write here emits `data` MADC samples at once

    bool config_write(uint32_t addr, uint32_t data, std::string* error) override {
        log.push_back({now_ps(), 'w', addr, data});
        if (refuse.count(addr)) {
            *error = "refused by test chip";
            return false;
        }
        if (addr == madc_addr && burst_to) {
            for (uint32_t k = 0; k < data; ++k) burst_to->chip_madc_sample(100 + k);
            return true;
        }
        if (addr == burst_addr && burst_to) {
            for (uint32_t k = 0; k < data; ++k) burst_to->chip_event(0x8000u | k);
            return true;
        }
        regs[addr] = data;
        return true;
    }
    bool config_read(uint32_t addr, uint32_t* data, std::string* error) override {
        log.push_back({now_ps(), 'r', addr, 0});
        if (refuse.count(addr)) {
            *error = "refused by test chip";
            return false;
        }
        *data = regs[addr];
        return true;
    }
    void inject(uint32_t event16) override {
        log.push_back({now_ps(), 'i', 0, event16});
        if (loopback) loopback->chip_event(event16);
    }
    std::vector<Rec> of(char kind) const {
        std::vector<Rec> out;
        for (const Rec& r : log)
            if (r.kind == kind) out.push_back(r);
        return out;
    }
};

// The host program: executes `program` at time 0 (or after `start_ps`).
struct Host : sc_core::sc_module {
    SC_HAS_PROCESS(Host);
    Host(sc_core::sc_module_name n, Fpga& f, std::vector<uint64_t> prog)
        : sc_module(n), fpga(f), program(std::move(prog)) {
        SC_THREAD(run);
    }
    void run() {
        rsp = fpga.execute(program, &timing);
        done = true;
        t_done = now_ps();
    }
    Fpga& fpga;
    std::vector<uint64_t> program, rsp;
    ExecutionTiming timing;
    bool done = false;
    uint64_t t_done = 0;
};

class FpgaTest : public nmsim::test::SystemCTest {
protected:
    void SetUp() override {
        SystemCTest::SetUp();
        sc_core::sc_set_time_resolution(1, sc_core::SC_PS);
        nmsim::sim_error() = nmsim::SimErrorInfo{};
    }
    void TearDown() override {
        host.reset();
        fpga.reset();
        nmsim::sim_error() = nmsim::SimErrorInfo{};
    }

    // Runs `program` on a fresh FPGA + test chip; returns the host.
    Host& run(const FpgaParams& p, const std::vector<uint64_t>& program, bool loopback = false) {
        fpga = std::make_unique<Fpga>("fpga", p);
        fpga->bind_chip(&chip);
        if (loopback) chip.loopback = fpga.get();
        chip.burst_to = fpga.get();
        host = std::make_unique<Host>("host", *fpga, program);
        sc_core::sc_start();
        return *host;
    }
    // Independent recomputation of the host link transfer (docs/bss2_fpga.md).
    static uint64_t host_ps(const FpgaParams& p, uint64_t words) {
        const uint64_t frames = (words + p.host_frame_words - 1) / p.host_frame_words;
        const double wire = 8.0 * words + frames * (p.host_frame_bytes - 8.0 * p.host_frame_words);
        return static_cast<uint64_t>(std::llround(wire / p.host_bandwidth.bytes_per_s * 1e12)) +
               static_cast<uint64_t>(p.host_latency.ps);
    }
    static uint64_t period(const FpgaParams& p) {
        return static_cast<uint64_t>(std::llround(1e12 / p.clock.hz));
    }
    static uint64_t msg(const FpgaParams& p) {
        return static_cast<uint64_t>(
            std::llround(p.chip_message_bytes / p.chip_link_bandwidth.bytes_per_s * 1e12));
    }
    static uint64_t first_edge(const FpgaParams& p, uint64_t t) {
        const uint64_t P = period(p);
        return (t + P - 1) / P * P;
    }

    TestChip chip;
    std::unique_ptr<Fpga> fpga;
    std::unique_ptr<Host> host;
};

// n - 1 WAIT_UNTIL(0) and a HALT: transfer time, one instruction per clock, readback of one word.
class FpgaTransferTest : public FpgaTest {
protected:
    void check(uint64_t n) {
        FpgaParams p;
        std::vector<uint64_t> prog(n - 1, bss2_pb_wait_until(0));
        prog.push_back(bss2_pb_make(BSS2_PB_HALT, 0));
        Host& h = run(p, prog);
        ASSERT_FALSE(nmsim::sim_error().set) << nmsim::sim_error().formatted();
        ASSERT_TRUE(h.done);
        EXPECT_EQ(h.timing.host_to_fpga_ps, host_ps(p, n));
        // n instructions, one per clock from the first edge after arrival.
        const uint64_t arrive = h.timing.host_to_fpga_ps;
        EXPECT_EQ(h.timing.config_ps, first_edge(p, arrive) + n * period(p) - arrive);
        EXPECT_EQ(h.rsp, std::vector<uint64_t>{bss2_pb_make(BSS2_PB_RSP_HALT, 0)});
        EXPECT_EQ(h.timing.readback_ps, host_ps(p, 1));
        const double mbps =
            8.0 * n / ((h.timing.host_to_fpga_ps - p.host_latency.ps) * 1e-12) / 1e6;
        std::printf("program of %llu words: transfer %.3f us, payload rate %.2f MB/s\n",
                    static_cast<unsigned long long>(n), h.timing.host_to_fpga_ps * 1e-6, mbps);
        if (n % 180 == 0) {
            EXPECT_NEAR(mbps, 117.0, 0.1);  // seed 004 section 5.2.3: 117 MB/s
        }
    }
};

// 180 * 200 words: a whole number of frames gives the asymptotic rate.
TEST_F(FpgaTransferTest, WholeFramesReachTheSeedRate) { check(180 * 200); }
// A last, partial frame pays the full per-frame overhead.
TEST_F(FpgaTransferTest, PartialFramePaysTheFrameOverhead) { check(1001); }

class FpgaWriteTest : public FpgaTest {
protected:
    void check(double bw) {
        FpgaParams p;
        p.chip_link_bandwidth = nmsim::Bandwidth{bw};
        std::vector<uint64_t> prog;
        for (uint32_t k = 0; k < 100; ++k) prog.push_back(bss2_pb_write(0x1000 + k, 7 * k + 1));
        prog.push_back(bss2_pb_make(BSS2_PB_HALT, 0));
        Host& h = run(p, prog);
        ASSERT_FALSE(nmsim::sim_error().set) << nmsim::sim_error().formatted();
        const auto w = chip.of('w');
        ASSERT_EQ(w.size(), 100u);
        const uint64_t e0 = first_edge(p, h.timing.host_to_fpga_ps);
        for (uint32_t k = 0; k < 100; ++k) {
            EXPECT_EQ(w[k].addr, 0x1000 + k);
            EXPECT_EQ(w[k].data, 7 * k + 1);
            EXPECT_EQ(w[k].t, e0 + (k + 1) * msg(p) + p.chip_link_latency.ps) << "write " << k;
            EXPECT_EQ(chip.regs[0x1000 + k], 7 * k + 1);
        }
        EXPECT_EQ(fpga->counters().writes, 100u);
        EXPECT_EQ(fpga->counters().messages_down, 100u);
    }
};

// 8 Gbit/s: one message per FPGA cycle.
TEST_F(FpgaWriteTest, ConfigWritesArriveOneMessageTimeApartInOrder) { check(1e9); }
// A link slower than the clock: the executor stalls on the one-message transmit buffer.
TEST_F(FpgaWriteTest, ConfigWritesOnASlowLinkArriveAtTheLinkRate) { check(0.25e9); }

TEST_F(FpgaTest, WaitUntilHoldsTimerValuesAndCountsLateWaits) {
    FpgaParams p;
    const std::vector<uint64_t> prog = {bss2_pb_make(BSS2_PB_TIMER_RESET, 0),
                                        bss2_pb_wait_until(100),
                                        bss2_pb_write(0x10, 1),
                                        bss2_pb_wait_until(250),
                                        bss2_pb_write(0x11, 2),
                                        bss2_pb_wait_until(5),
                                        bss2_pb_write(0x12, 3),
                                        bss2_pb_make(BSS2_PB_HALT, 0)};
    Host& h = run(p, prog);
    ASSERT_FALSE(nmsim::sim_error().set) << nmsim::sim_error().formatted();
    const uint64_t P = period(p), reset = first_edge(p, h.timing.host_to_fpga_ps);
    const uint64_t fly = msg(p) + p.chip_link_latency.ps;
    const auto w = chip.of('w');
    ASSERT_EQ(w.size(), 3u);
    EXPECT_EQ(w[0].t, reset + 100 * P + fly);
    EXPECT_EQ(w[1].t, reset + 250 * P + fly);
    EXPECT_EQ(w[2].t, reset + 252 * P + fly);  // WAIT_UNTIL(5) already passed: no stall
    EXPECT_EQ(h.timing.late_waits, 1u);
    EXPECT_EQ(fpga->counters().late_waits, 1u);
}

TEST_F(FpgaTest, SpikePacksSplitIntoMessagesAndBackToBackReachTheLinkCap) {
    FpgaParams p;
    std::vector<uint64_t> prog = {bss2_pb_spikes(3, 0x11, 0x22, 0x33)};
    const uint32_t n_packs = 2000;
    for (uint32_t k = 0; k < n_packs; ++k) prog.push_back(bss2_pb_spikes(2, 2 * k, 2 * k + 1, 0));
    prog.push_back(bss2_pb_make(BSS2_PB_HALT, 0));
    Host& h = run(p, prog);
    ASSERT_FALSE(nmsim::sim_error().set) << nmsim::sim_error().formatted();
    const auto inj = chip.of('i');
    ASSERT_EQ(inj.size(), 3u + 2 * n_packs);
    const uint64_t e0 = first_edge(p, h.timing.host_to_fpga_ps), m = msg(p);
    const uint64_t fly = m + p.chip_link_latency.ps;
    // A pack of 3 with 2 per message: labels 0 and 1 in the first message, label 2 in the second.
    EXPECT_EQ(inj[0].data, 0x11u);
    EXPECT_EQ(inj[0].t, e0 + fly);
    EXPECT_EQ(inj[1].t, e0 + fly);
    EXPECT_EQ(inj[2].data, 0x33u);
    EXPECT_EQ(inj[2].t, e0 + m + fly);
    for (uint32_t k = 0; k < 2 * n_packs; ++k) {
        ASSERT_EQ(inj[3 + k].data, k);
        ASSERT_EQ(inj[3 + k].t, e0 + (2 + k / 2) * m + fly) << "spike " << k;
    }
    const double rate = (2.0 * n_packs - 2) / ((inj.back().t - inj[3].t) * 1e-12);
    const double cap =
        p.spikes_per_message * p.chip_link_bandwidth.bytes_per_s / p.chip_message_bytes;
    std::printf("max injected spike rate %.1f Mspikes/s (cap %.1f)\n", rate / 1e6, cap / 1e6);
    EXPECT_NEAR(rate, cap, cap * 1e-3);
    EXPECT_EQ(fpga->counters().spikes_injected, 3u + 2 * n_packs);
    EXPECT_EQ(fpga->counters().messages_down, 2u + n_packs);
}

TEST_F(FpgaTest, RequestedSpikeRateTenTimesTheLinkIsCappedAndWaitsRunLate) {
    FpgaParams p;
    p.chip_link_bandwidth =
        nmsim::Bandwidth{0.05e9};  // 160 ns per message: 12.5 spikes/us with 2 per message
    std::vector<uint64_t> prog = {bss2_pb_make(BSS2_PB_TIMER_RESET, 0)};
    const uint32_t n_packs = 300;
    for (uint32_t k = 0; k < n_packs; ++k) {  // 2 spikes every 2 cycles: 125 spikes/us requested
        prog.push_back(bss2_pb_wait_until(10 + 2 * k));
        prog.push_back(bss2_pb_spikes(2, 2 * k, 2 * k + 1, 0));
    }
    prog.push_back(bss2_pb_make(BSS2_PB_HALT, 0));
    Host& h = run(p, prog);
    ASSERT_FALSE(nmsim::sim_error().set) << nmsim::sim_error().formatted();
    const auto inj = chip.of('i');
    ASSERT_EQ(inj.size(), 2u * n_packs);
    for (uint32_t k = 0; k < inj.size(); ++k) ASSERT_EQ(inj[k].data, k);
    const double requested = 2.0 / (2 * period(p) * 1e-12);
    const double rate = (2.0 * n_packs - 2) / ((inj.back().t - inj.front().t) * 1e-12);
    const double cap =
        p.spikes_per_message * p.chip_link_bandwidth.bytes_per_s / p.chip_message_bytes;
    EXPECT_NEAR(requested / cap, 10.0, 1e-9);
    EXPECT_NEAR(rate, cap, cap * 1e-3);
    EXPECT_GT(h.timing.late_waits, n_packs - 3);  // all but the first few
}

TEST_F(FpgaTest, ReadsReturnDataInProgramOrderAfterTheRoundTrip) {
    FpgaParams p;
    std::vector<uint64_t> prog;
    for (uint32_t k = 0; k < 20; ++k)
        prog.push_back(bss2_pb_write(0x2000 + k, 0xA0000000u + k * k));
    for (uint32_t k = 20; k-- > 0;) prog.push_back(bss2_pb_read(0x2000 + k));
    prog.push_back(bss2_pb_read(0x3000));  // never written: 0
    prog.push_back(bss2_pb_make(BSS2_PB_HALT, 0));
    Host& h = run(p, prog);
    ASSERT_FALSE(nmsim::sim_error().set) << nmsim::sim_error().formatted();
    ASSERT_EQ(h.rsp.size(), 22u);
    for (uint32_t i = 0; i < 20; ++i) {
        const uint32_t k = 19 - i;
        EXPECT_EQ(bss2_pb_opcode(h.rsp[i]), BSS2_PB_RSP_READ);
        EXPECT_EQ(bss2_pb_addr(h.rsp[i]), 0x2000 + k);
        EXPECT_EQ(bss2_pb_data(h.rsp[i]), 0xA0000000u + k * k);
    }
    EXPECT_EQ(h.rsp[20], bss2_pb_make(BSS2_PB_RSP_READ, uint64_t{0x3000} << 32));
    EXPECT_EQ(h.rsp[21], bss2_pb_make(BSS2_PB_RSP_HALT, 0));
    // The last read: issued at edge 40, reaches the chip, Omnibus, back up; execution ends then.
    const uint64_t e0 = first_edge(p, h.timing.host_to_fpga_ps);
    const uint64_t fly = msg(p) + p.chip_link_latency.ps;
    const uint64_t last_at_chip = e0 + 40 * period(p) + fly;
    EXPECT_EQ(chip.of('r').back().t, last_at_chip);
    EXPECT_EQ(h.timing.host_to_fpga_ps + h.timing.config_ps,
              last_at_chip + p.t_omnibus_read.ps + fly);
}

TEST_F(FpgaTest, RecordsOnlyInsideRunsWithTimerRelativeStamps) {
    FpgaParams p;
    const std::vector<uint64_t> prog = {
        bss2_pb_make(BSS2_PB_TIMER_RESET, 0),
        bss2_pb_spikes(1, 0x0001, 0, 0),  // before the run: looped back, not recorded
        bss2_pb_wait_until(100),
        bss2_pb_make(BSS2_PB_RUN_BEGIN, 7),
        bss2_pb_make(BSS2_PB_TIMER_RESET, 0),  // run-relative time
        bss2_pb_wait_until(10),
        bss2_pb_spikes(1, 0x4002, 0, 0),
        bss2_pb_wait_until(20),
        bss2_pb_spikes(2, 0x4003, 0x4004, 0),
        bss2_pb_wait_until(200),
        bss2_pb_make(BSS2_PB_RUN_END, 0),
        bss2_pb_spikes(1, 0x0005, 0, 0),  // after the run
        bss2_pb_wait_until(400),
        bss2_pb_make(BSS2_PB_HALT, 0)};
    nmsim::test::MemorySink sink;
    Host& h = [&]() -> Host& {
        fpga = std::make_unique<Fpga>("fpga", p);
        fpga->bind_chip(&chip);
        fpga->attach_trace(&sink);
        chip.loopback = fpga.get();
        host = std::make_unique<Host>("host", *fpga, prog);
        sc_core::sc_start();
        return *host;
    }();
    ASSERT_FALSE(nmsim::sim_error().set) << nmsim::sim_error().formatted();
    const uint64_t P = period(p);
    // Injection (down) and recording (up) each take one message time plus the link latency.
    const uint32_t round = static_cast<uint32_t>(2 * (msg(p) + p.chip_link_latency.ps) / P);
    const std::vector<uint64_t> want = {
        bss2_pb_make(BSS2_PB_RSP_RUN, 7), bss2_pb_rsp_spike(0x4002, 10 + round),
        bss2_pb_rsp_spike(0x4003, 20 + round),  // both labels of one message pack going up too
        bss2_pb_rsp_spike(0x4004, 20 + round), bss2_pb_make(BSS2_PB_RSP_HALT, 0)};
    EXPECT_EQ(h.rsp, want);
    EXPECT_EQ(fpga->counters().events_recorded, 3u);
    EXPECT_EQ(fpga->counters().unrecorded, 2u);
    EXPECT_EQ(h.timing.runs, 1u);
    EXPECT_EQ(h.timing.realtime_ps, (1 + 200) * P);  // RUN_BEGIN edge to RUN_END edge
    fpga->write_summary(sink, sink.component("fpga"));
    EXPECT_EQ(sink.counter_value("fpga", "events_recorded"), 3.0);
    EXPECT_EQ(sink.counter_value("fpga", "spikes_injected"), 5.0);
    const auto rows = sink.rows<nmsim::bss2::FpgaExecRecord>("events/bss2_fpga_exec");
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].runs, 1u);
    EXPECT_EQ(rows[0].responses, want.size());
    EXPECT_EQ(rows[0].t_host_ps, h.t_done);
}

TEST_F(FpgaTest, UpLinkFifoOverflowDropsAreCountedInHalt) {
    FpgaParams p;
    p.up_fifo_depth = 4;
    chip.burst_addr = 0xABC;
    const std::vector<uint64_t> prog = {
        bss2_pb_make(BSS2_PB_TIMER_RESET, 0),
        bss2_pb_make(BSS2_PB_RUN_BEGIN, 0),
        bss2_pb_write(0xABC, 100),  // 100 events at one instant: 4 queue, 96 drop
        bss2_pb_wait_until(100),
        bss2_pb_write(0xABC, 3),  // room again: all 3 recorded
        bss2_pb_wait_until(200),
        bss2_pb_make(BSS2_PB_RUN_END, 0),
        bss2_pb_make(BSS2_PB_HALT, 0)};
    Host& h = run(p, prog);
    ASSERT_FALSE(nmsim::sim_error().set) << nmsim::sim_error().formatted();
    ASSERT_EQ(h.rsp.size(), 1u + 4 + 3 + 1);
    EXPECT_EQ(h.rsp.back(), bss2_pb_make(BSS2_PB_RSP_HALT, 96));
    for (uint32_t k = 0; k < 4; ++k) EXPECT_EQ(bss2_pb_rsp_label(h.rsp[1 + k]), 0x8000u | k);
    for (uint32_t k = 0; k < 3; ++k) EXPECT_EQ(bss2_pb_rsp_label(h.rsp[5 + k]), 0x8000u | k);
    // 2 per message: the 4 queued events leave in 2 messages, one message time apart.
    EXPECT_EQ(bss2_pb_rsp_time(h.rsp[3]) * period(p) - bss2_pb_rsp_time(h.rsp[1]) * period(p),
              msg(p));
    EXPECT_EQ(fpga->counters().dropped_fifo, 96u);
    EXPECT_EQ(fpga->counters().events_recorded, 7u);
}

TEST_F(FpgaTest, MadcSamplesAreRecordedAndPackedOnTheUpLink) {
    FpgaParams p;
    p.madc_samples_per_message = 3;
    chip.madc_addr = 0xABD;
    const std::vector<uint64_t> prog = {
        bss2_pb_make(BSS2_PB_TIMER_RESET, 0),
        bss2_pb_make(BSS2_PB_RUN_BEGIN, 2),
        bss2_pb_write(0xABD, 5),  // 5 samples at one instant: messages of 3 and 2
        bss2_pb_wait_until(100),
        bss2_pb_make(BSS2_PB_RUN_END, 0),
        bss2_pb_make(BSS2_PB_HALT, 0)};
    Host& h = run(p, prog);
    ASSERT_FALSE(nmsim::sim_error().set) << nmsim::sim_error().formatted();
    ASSERT_EQ(h.rsp.size(), 7u);
    const uint64_t P = period(p), fly = msg(p) + p.chip_link_latency.ps;
    // The write leaves at edge 2 and its samples come back one flight later.
    const uint32_t t0 = static_cast<uint32_t>((2 * P + 2 * fly) / P);
    for (uint32_t k = 0; k < 5; ++k) {
        EXPECT_EQ(bss2_pb_opcode(h.rsp[1 + k]), BSS2_PB_RSP_MADC);
        EXPECT_EQ(bss2_pb_rsp_sample(h.rsp[1 + k]), 100 + k);
        EXPECT_EQ(bss2_pb_rsp_time(h.rsp[1 + k]), t0 + (k < 3 ? 0 : msg(p) / P));
    }
    EXPECT_EQ(fpga->counters().madc_recorded, 5u);
    EXPECT_EQ(fpga->messages_up(), 2u);
}

TEST_F(FpgaTest, ResponseMemoryCapacityDropsRecordedEvents) {
    FpgaParams p;
    p.response_capacity = 3;
    chip.burst_addr = 0xABC;
    const std::vector<uint64_t> prog = {bss2_pb_make(BSS2_PB_RUN_BEGIN, 1), bss2_pb_write(0xABC, 4),
                                        bss2_pb_wait_until(100), bss2_pb_make(BSS2_PB_RUN_END, 0),
                                        bss2_pb_make(BSS2_PB_HALT, 0)};
    Host& h = run(p, prog);
    ASSERT_FALSE(nmsim::sim_error().set) << nmsim::sim_error().formatted();
    ASSERT_EQ(h.rsp.size(), 4u);  // RUN, 2 events, HALT
    EXPECT_EQ(h.rsp.back(), bss2_pb_make(BSS2_PB_RSP_HALT, 2));
    EXPECT_EQ(fpga->counters().dropped_memory, 2u);
}

struct ErrorCase {
    std::string name;
    std::vector<uint64_t> prog;
    std::string index, what;
};

std::vector<ErrorCase> error_cases() {
    const uint64_t bad = bss2_pb_make(0x09, 0x123456);
    return {
        {"BadOpcode",
         {bss2_pb_write(0x10, 1), bss2_pb_write(0x11, 2), bad, bss2_pb_make(BSS2_PB_HALT, 0)},
         "#2",
         "unknown opcode 0x09"},
        {"RefusedWrite",
         {bss2_pb_write(0x10, 1), bss2_pb_write(0x666, 5), bss2_pb_make(BSS2_PB_HALT, 0)},
         "#1",
         "refused by test chip"},
        {"RefusedRead", {bss2_pb_read(0x666), bss2_pb_make(BSS2_PB_HALT, 0)}, "#0", "refused read"},
        {"MissingHalt", {bss2_pb_write(0x10, 1), bss2_pb_wait_until(3)}, "#1", "without HALT"},
        {"TimerOverflow",
         {bss2_pb_wait_until(0xFFFFFFFFu), bss2_pb_wait_until(1), bss2_pb_wait_until(2),
          bss2_pb_make(BSS2_PB_HALT, 0)},
         "#2",
         "overflowed"},
        {"RunEndWithoutRun",
         {bss2_pb_make(BSS2_PB_RUN_END, 0), bss2_pb_make(BSS2_PB_HALT, 0)},
         "#0",
         "without an open run"},
        {"NestedRunBegin",
         {bss2_pb_make(BSS2_PB_RUN_BEGIN, 0), bss2_pb_make(BSS2_PB_RUN_BEGIN, 1),
          bss2_pb_make(BSS2_PB_HALT, 0)},
         "#1",
         "run is open"},
        {"SpikesCountZero",
         {bss2_pb_spikes(0, 1, 2, 3), bss2_pb_make(BSS2_PB_HALT, 0)},
         "#0",
         "count 0"},
    };
}

class FpgaErrorTest : public FpgaTest, public ::testing::WithParamInterface<ErrorCase> {};

TEST_P(FpgaErrorTest, NamesInstructionIndexAndWord) {
    const ErrorCase& c = GetParam();
    chip.refuse.insert(0x666);
    Host& h = run(FpgaParams{}, c.prog);
    const nmsim::SimErrorInfo& e = nmsim::sim_error();
    ASSERT_TRUE(e.set) << c.what;
    EXPECT_FALSE(h.done) << c.what;
    EXPECT_EQ(e.component, "fpga");
    EXPECT_NE(e.message.find(c.index), std::string::npos) << e.message;
    EXPECT_NE(e.message.find(c.what), std::string::npos) << e.message;
    char word[24];
    const size_t idx = std::stoul(c.index.substr(1));
    std::snprintf(word, sizeof word, "0x%016llx", static_cast<unsigned long long>(c.prog[idx]));
    EXPECT_NE(e.message.find(word), std::string::npos) << e.message;
}

INSTANTIATE_TEST_SUITE_P(Cases, FpgaErrorTest, ::testing::ValuesIn(error_cases()),
                         [](const ::testing::TestParamInfo<ErrorCase>& i) { return i.param.name; });

TEST(ChipUpLinkTest, PacksSameKindItemsAndKeepsFifoOrder) {
    using nmsim::bss2::ChipUpLink;
    using K = ChipUpLink::Kind;
    ChipUpLink up(8000, 40000, 2, 3, 16);  // m = 8 ns, latency 40 ns
    up.push(0, K::spike, 1);
    up.push(0, K::spike, 2);
    up.push(0, K::spike, 3);
    up.push(0, K::read, 0xAA);
    up.push(0, K::madc, 4);
    up.push(0, K::madc, 5);
    up.push(100000, K::spike, 6);  // link idle again: travels alone, at once
    up.push(50000, K::spike, 7);   // emitted "earlier": clamped behind 6
    EXPECT_EQ(up.next_arrival(), 48000u);
    up.advance(200000);
    std::vector<std::pair<uint64_t, uint64_t>> got;
    for (const auto& it : up.in_flight()) got.push_back({it.t_ps, it.payload});
    const std::vector<std::pair<uint64_t, uint64_t>> want = {{48000, 1},    {48000, 2}, {56000, 3},
                                                             {64000, 0xAA}, {72000, 4}, {72000, 5},
                                                             {148000, 6},   {148000, 7}};
    EXPECT_EQ(got, want);
    EXPECT_EQ(up.messages(), 5u);
    EXPECT_EQ(up.dropped(), 0u);
}

TEST(FpgaParamsTest, EveryParameterHasDocSourceUnitAndAValidDefault) {
    const auto problems = nmsim::check_registry(nmsim::registry_of<FpgaParams>());
    for (const std::string& s : problems) ADD_FAILURE() << s;
}

TEST_F(FpgaTest, TimingSplitSumsToTotal) {
    FpgaParams p;
    std::vector<uint64_t> prog;
    for (uint32_t k = 0; k < 50; ++k) prog.push_back(bss2_pb_write(0x100 + k, k));
    for (uint32_t run = 0; run < 2; ++run) {
        prog.push_back(bss2_pb_make(BSS2_PB_RUN_BEGIN, run));
        prog.push_back(bss2_pb_make(BSS2_PB_TIMER_RESET, 0));
        prog.push_back(bss2_pb_spikes(2, 1, 2, 0));
        prog.push_back(bss2_pb_wait_until(500));
        prog.push_back(bss2_pb_make(BSS2_PB_RUN_END, 0));
        prog.push_back(bss2_pb_read(0x100 + run));
    }
    prog.push_back(bss2_pb_make(BSS2_PB_HALT, 0));
    Host& h = run(p, prog);
    ASSERT_FALSE(nmsim::sim_error().set) << nmsim::sim_error().formatted();
    const ExecutionTiming& t = h.timing;
    EXPECT_EQ(t.host_to_fpga_ps + t.config_ps + t.realtime_ps + t.between_ps + t.readback_ps,
              t.total_ps);
    EXPECT_EQ(t.total_ps, h.t_done);
    EXPECT_EQ(t.runs, 2u);
    EXPECT_EQ(t.realtime_ps,
              2 * 501 * period(p));  // RUN_BEGIN, TIMER_RESET, WAIT_UNTIL(500) -> +501
    EXPECT_EQ(t.host_to_fpga_ps, host_ps(p, prog.size()));
    EXPECT_EQ(t.readback_ps, host_ps(p, h.rsp.size()));
    // Config: 50 writes at one per cycle from the first edge.
    EXPECT_EQ(t.config_ps, first_edge(p, t.host_to_fpga_ps) + 50 * period(p) - t.host_to_fpga_ps);
    EXPECT_GT(t.between_ps, 0u);
    EXPECT_EQ(h.rsp.size(), 2u + 2 + 1);  // 2 RUN words, 2 read responses, HALT (no loopback)
}

}  // namespace
