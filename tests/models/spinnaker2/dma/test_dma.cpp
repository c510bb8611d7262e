// Unit tests of the PE DMA engine: reset values, SRAM<->SRAM, SRAM<->ext and ext<->ext copies with
// random sizes and alignments (checked against std::memmove on a copy of both memories), the
// timing formula (checked against a reference that counts touched SRAM words byte by byte),
// error cases, IRQ and ACK, trace rows and summary counters.
#include <gtest/gtest.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "models/common/memory.h"
#include "models/common/sim_error.h"
#include "models/common/trace_records.h"
#include "models/spinnaker2/dma/dma.h"
#include "nmsim/hw/spinnaker2/dma_regs.h"
#include "nmsim/hw/spinnaker2/pe_map.h"
#include "tests/support/bus_master.h"
#include "tests/support/memory_sink.h"
#include "tests/support/systemc_fixture.h"

namespace nmsim::spinnaker2 {
namespace {

using sc_core::sc_time;

constexpr uint64_t kClkPs = 4000;  // 250 MHz
const nmsim::Frequency kClock = nmsim::Frequency::from_mhz(250);
constexpr uint32_t kSramSize = S2_SRAM_SIZE;
constexpr uint32_t kExtSize = 256 * 1024;

constexpr uint32_t kStart = 1u << S2_DMA_CTRL_START_SHIFT;
constexpr uint32_t kIrqEn = 1u << S2_DMA_CTRL_IRQ_EN_SHIFT;
constexpr uint32_t kBusy = 1u << S2_DMA_STATUS_BUSY_SHIFT;
constexpr uint32_t kDone = 1u << S2_DMA_STATUS_DONE_SHIFT;
constexpr uint32_t kError = 1u << S2_DMA_STATUS_ERROR_SHIFT;

uint64_t now_ps() { return sc_core::sc_time_stamp().value(); }

struct IrqRecorder : nmsim::IrqSink {
    std::vector<std::pair<uint64_t, bool>> edges;
    sc_core::sc_event rose;
    void irq_level(unsigned, bool level) override {
        edges.emplace_back(now_ps(), level);
        if (level) rose.notify();
    }
};

// The core's side: register accesses on `sock` (the DMA's cfg port) plus DMA driver helpers.
struct Bus : nmsim::test::BusMaster {
    tlm_utils::simple_initiator_socket<Bus> mem{"mem"};  // the core's SRAM port (unused here)
    IrqRecorder* rec = nullptr;
    nmsim::IrqLine* irq = nullptr;

    using BusMaster::BusMaster;
    void start(uint32_t src, uint32_t dst, uint32_t len, uint32_t ctrl = kStart | kIrqEn) {
        wr(S2_DMA_SRC, src);
        wr(S2_DMA_DST, dst);
        wr(S2_DMA_LEN, len);
        wr(S2_DMA_CTRL, ctrl);
    }
    // Waits for the interrupt (IRQ_EN set), returns STATUS and acknowledges.
    uint32_t wait_irq() {
        if (!irq->level()) wait(rec->rose);
        const uint32_t st = rd(S2_DMA_STATUS);
        wr(S2_DMA_ACK, 1);
        return st;
    }
    uint32_t poll(uint64_t period_ps = 1000) {
        uint32_t st;
        while ((st = rd(S2_DMA_STATUS)) & kBusy) wait(sc_time::from_value(period_ps));
        return st;
    }
};

// The hand-computed timings use a 16-cycle set-up (the calibrated default is much larger).
DmaParams formula_params() {
    DmaParams p;
    p.setup_cycles = 16;
    return p;
}

struct Bench {
    nmsim::test::MemorySink sink;
    nmsim::Memory sram{"sram", kSramSize, sc_core::SC_ZERO_TIME};
    nmsim::Memory ext;
    DmaParams params = formula_params();
    Dma dma;
    Bus bus{"bus"};
    IrqRecorder rec;
    std::vector<uint8_t> want_sram, want_ext;  // expected images

    explicit Bench(const DmaParams& p = formula_params(), uint64_t ext_latency_ps = 30000,
                   uint32_t ext_size = kExtSize)
        : ext("dram", ext_size, sc_time::from_value(ext_latency_ps)),
          params(p),
          dma("dma", p, kClock, sram, &sink) {
        bus.sock.bind(dma.cfg);
        bus.mem.bind(sram.tgt);
        dma.ext.bind(ext.tgt);
        dma.irq.bind(rec, S2_IRQ_DMA);
        bus.rec = &rec;
        bus.irq = &dma.irq;
        std::mt19937 rng(99);
        for (uint64_t i = 0; i < sram.size(); ++i) sram.data()[i] = static_cast<uint8_t>(rng());
        for (uint64_t i = 0; i < ext.size(); ++i) ext.data()[i] = static_cast<uint8_t>(rng());
        want_sram.assign(sram.data(), sram.data() + sram.size());
        want_ext.assign(ext.data(), ext.data() + ext.size());
    }
    void run(std::function<void(Bus&)> body) {
        bus.body = [this, fn = std::move(body)] { fn(bus); };
        sc_core::sc_start();
    }
    // The byte image an address refers to, in the expected memories.
    uint8_t* want(uint32_t addr) {
        return addr >= S2_EXT_BASE ? &want_ext[addr - S2_EXT_BASE]
                                   : &want_sram[addr - S2_SRAM_BASE];
    }
    void expect_memmove(uint32_t src, uint32_t dst, uint32_t len) {
        std::vector<uint8_t> tmp(want(src), want(src) + len);  // memmove across two images
        std::memcpy(want(dst), tmp.data(), len);
    }
    bool memories_match() const {
        return std::equal(want_sram.begin(), want_sram.end(), sram.data()) &&
               std::equal(want_ext.begin(), want_ext.end(), ext.data());
    }
};

// Reference duration in ps: setup, then for each burst the larger of the SRAM time (distinct
// sram_bytes_per_cycle words touched, found byte by byte, on each SRAM side) and the sum of
// the ext latencies of the burst's ext accesses.
uint64_t ref_duration_ps(const DmaParams& p, uint32_t src, uint32_t dst, uint32_t len,
                         uint64_t ext_latency_ps) {
    const bool src_sram = src < S2_EXT_BASE, dst_sram = dst < S2_EXT_BASE;
    uint64_t t = uint64_t{p.setup_cycles} * kClkPs;
    for (uint32_t off = 0; off < len; off += p.burst_bytes) {
        const uint32_t n = std::min(p.burst_bytes, len - off);
        std::set<uint64_t> ws, wd;
        for (uint32_t b = 0; b < n; ++b) {
            if (src_sram) ws.insert((src + off + b) / p.sram_bytes_per_cycle);
            if (dst_sram) wd.insert((dst + off + b) / p.sram_bytes_per_cycle);
        }
        const uint64_t local = (ws.size() + wd.size()) * kClkPs;
        const uint64_t ext = ext_latency_ps * ((src_sram ? 0 : 1) + (dst_sram ? 0 : 1));
        t += std::max(local, ext);
    }
    return t;
}

class DmaTest : public nmsim::test::SystemCTest {
protected:
    void SetUp() override {
        SystemCTest::SetUp();
        sc_core::sc_set_time_resolution(1, sc_core::SC_PS);
        sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
        nmsim::sim_error() = nmsim::SimErrorInfo{};
    }
};

struct HeaderReg {
    const char* name;
    uint32_t off, acc, rst;
};
#define HEADER_REG(name, off, acc, rst, doc) HeaderReg{#name, off, acc, rst},
const HeaderReg kHeaderRegs[] = {S2_DMA_REGS(HEADER_REG)};
#undef HEADER_REG

TEST_F(DmaTest, ResetValuesEqualHeaderTable) {
    Bench b;
    b.run([](Bus& bus) {
        for (const HeaderReg& r : kHeaderRegs) {
            const Bus::Result got = bus.read(r.off);
            if (r.acc == NM_WO) {
                EXPECT_EQ(got.status, tlm::TLM_COMMAND_ERROR_RESPONSE) << r.name;
            } else {
                EXPECT_EQ(got.status, tlm::TLM_OK_RESPONSE) << r.name;
                EXPECT_EQ(got.value, r.rst) << r.name;
            }
            if (r.acc == NM_RO) {
                EXPECT_EQ(bus.write(r.off, 0).status, tlm::TLM_COMMAND_ERROR_RESPONSE) << r.name;
            }
        }
    });
    EXPECT_TRUE(b.memories_match());
    EXPECT_TRUE(b.rec.edges.empty());
}

// Random non-overlapping range of len bytes inside [lo, hi) that avoids [avoid, avoid + len).
uint32_t pick(std::mt19937_64& rng, uint32_t lo, uint32_t hi, uint32_t len, int64_t avoid = -1) {
    for (;;) {
        const uint32_t a = lo + static_cast<uint32_t>(rng() % (hi - lo - len + 1));
        if (avoid < 0) return a;
        const uint64_t x = static_cast<uint64_t>(avoid);
        if (a + len <= x || x + len <= a) return a;
    }
}

void random_copies(uint32_t src_base, uint32_t src_size, uint32_t dst_base, uint32_t dst_size,
                   uint64_t ext_latency_ps, uint64_t seed, const DmaParams& params = formula_params()) {
    nmsim::test::fresh_systemc();
    sc_core::sc_set_time_resolution(1, sc_core::SC_PS);
    Bench b(params, ext_latency_ps);
    std::mt19937_64 rng(seed);
    uint64_t total_bytes = 0, total_ps = 0;
    int n_transfers = 0;
    b.run([&](Bus& bus) {
        for (int i = 0; i < 30; ++i) {
            const uint32_t len = 1 + static_cast<uint32_t>(rng() % (i < 5 ? 16 : 3000));
            // SRAM ranges stay clear of the first 4 KiB only to look like a real image
            const uint32_t slo = src_base == S2_SRAM_BASE ? 0x1000 : 0;
            const uint32_t dlo = dst_base == S2_SRAM_BASE ? 0x1000 : 0;
            const uint32_t src = src_base + pick(rng, slo, src_size, len);
            const int64_t avoid = src_base == dst_base ? static_cast<int64_t>(src - src_base) : -1;
            const uint32_t dst = dst_base + pick(rng, dlo, dst_size, len, avoid);
            const uint64_t t0 = now_ps();
            bus.start(src, dst, len);
            EXPECT_EQ(bus.rd(S2_DMA_STATUS), kBusy);
            const uint32_t st = bus.wait_irq();
            EXPECT_EQ(st, kDone) << "src " << src << " dst " << dst << " len " << len;
            const uint64_t want_ps = ref_duration_ps(params, src, dst, len, ext_latency_ps);
            EXPECT_EQ(now_ps() - t0, want_ps) << "src " << src << " dst " << dst << " len " << len;
            b.expect_memmove(src, dst, len);
            ASSERT_TRUE(b.memories_match()) << "src " << src << " dst " << dst << " len " << len;
            EXPECT_EQ(bus.rd(S2_DMA_STATUS), 0u);  // ACKed
            total_bytes += len;
            total_ps += want_ps;
            ++n_transfers;
            bus.at(now_ps() + rng() % 100000);
        }
    });
    const auto rows = b.sink.rows<DmaRecord>("events/dma");
    ASSERT_EQ(rows.size(), 30u);
    for (const DmaRecord& r : rows) EXPECT_EQ(r.status, 0);
    EXPECT_EQ(b.dma.transfers(), 30u);
    EXPECT_EQ(b.dma.bytes_moved(), total_bytes);
    EXPECT_EQ(b.dma.busy_ps(), total_ps);
    EXPECT_EQ(b.dma.errors(), 0u);
}

TEST_F(DmaTest, SramToSramRandomSizesAndAlignments) {
    random_copies(S2_SRAM_BASE, kSramSize, S2_SRAM_BASE, kSramSize, 30000, 1);
}

TEST_F(DmaTest, SramToExtRandom) {
    random_copies(S2_SRAM_BASE, kSramSize, S2_EXT_BASE, kExtSize, 30000, 2);
    random_copies(S2_SRAM_BASE, kSramSize, S2_EXT_BASE, kExtSize, 1000, 3);  // SRAM-bound
}

TEST_F(DmaTest, ExtToSramRandom) {
    random_copies(S2_EXT_BASE, kExtSize, S2_SRAM_BASE, kSramSize, 30000, 4);
    random_copies(S2_EXT_BASE, kExtSize, S2_SRAM_BASE, kSramSize, 7000, 5);  // mixed
}

TEST_F(DmaTest, ExtToExtRandom) {
    random_copies(S2_EXT_BASE, kExtSize, S2_EXT_BASE, kExtSize, 12000, 6);
}

TEST_F(DmaTest, OtherParametersFollowTheFormula) {
    DmaParams p = formula_params();
    p.setup_cycles = 3;
    p.sram_bytes_per_cycle = 4;
    p.burst_bytes = 48;  // not a power of two
    random_copies(S2_SRAM_BASE, kSramSize, S2_SRAM_BASE, kSramSize, 0, 7, p);
    random_copies(S2_SRAM_BASE, kSramSize, S2_EXT_BASE, kExtSize, 50000, 8, p);
}

TEST_F(DmaTest, HandComputedTiming) {
    // 100 bytes SRAM 0x1008 -> ext, defaults (16 cycles setup, 16 B/cycle, 64 B bursts), 250 MHz,
    // ext latency 10 ns: burst 0 = 0x1008..0x1047 touches 5 words (20 ns) vs 10 ns -> 20 ns;
    // burst 1 = 0x1048..0x106B touches 3 words (12 ns) vs 10 ns -> 12 ns. Total 64+20+12 ns.
    Bench b(formula_params(), 10000);
    b.run([&](Bus& bus) {
        bus.start(0x1008, S2_EXT_BASE + 0x40, 100);
        bus.wait_irq();
        EXPECT_EQ(now_ps(), 96000u);
    });
}

TEST_F(DmaTest, OverlappingRangesBehaveLikeMemmove) {
    Bench b;
    b.run([&](Bus& bus) {
        const struct {
            uint32_t src, dst, len;
        } cases[] = {
            {0x2000, 0x2010, 500},   // dst above src, overlap within a burst
            {0x3000, 0x3100, 1000},  // dst above src, several bursts apart
            {0x4010, 0x4000, 500},   // dst below src
            {0x5100, 0x5000, 1000},
            {S2_EXT_BASE + 0x100, S2_EXT_BASE + 0x105, 777},
            {S2_EXT_BASE + 0x905, S2_EXT_BASE + 0x900, 777},
            {0x6000, 0x6000, 300},  // same range
        };
        for (const auto& c : cases) {
            bus.start(c.src, c.dst, c.len);
            EXPECT_EQ(bus.wait_irq(), kDone);
            b.expect_memmove(c.src, c.dst, c.len);
            EXPECT_TRUE(b.memories_match()) << c.src << " -> " << c.dst;
        }
    });
}

TEST_F(DmaTest, SramBytesLandAtTheEndOfEachBurst) {
    Bench b;
    const uint32_t src = 0x2000, dst = 0x8000, len = 256;
    b.run([&](Bus& bus) {
        const uint64_t t0 = now_ps();
        bus.start(src, dst, len);
        // 64-byte aligned bursts touch 4 words each for read and write: 8 cycles per burst
        for (uint32_t k = 0; k < 4; ++k) {
            const uint64_t end = t0 + (16 + 8 * (k + 1)) * kClkPs;
            bus.at(end - 1);
            EXPECT_NE(0,
                      std::memcmp(b.sram.data() + dst + 64 * k, b.sram.data() + src + 64 * k, 64))
                << k;
            EXPECT_EQ(0, std::memcmp(b.sram.data() + dst, b.sram.data() + src, 64 * k)) << k;
            EXPECT_EQ(bus.rd(S2_DMA_STATUS), kBusy);
            bus.at(end + 1);
            EXPECT_EQ(0,
                      std::memcmp(b.sram.data() + dst + 64 * k, b.sram.data() + src + 64 * k, 64))
                << k;
        }
        EXPECT_EQ(bus.rd(S2_DMA_STATUS), kDone);
    });
}

TEST_F(DmaTest, PollingWithoutIrq) {
    Bench b;
    b.run([&](Bus& bus) {
        bus.start(0x1000, S2_EXT_BASE, 1024, kStart);  // IRQ_EN = 0
        EXPECT_EQ(bus.rd(S2_DMA_CTRL), 0u);            // START self-clears
        EXPECT_EQ(bus.poll(), kDone);
        EXPECT_FALSE(b.dma.irq.level());
        bus.wr(S2_DMA_CTRL, kIrqEn);  // enabling the IRQ with DONE pending raises the line
        EXPECT_TRUE(b.dma.irq.level());
        EXPECT_EQ(bus.rd(S2_DMA_CTRL), kIrqEn);
        bus.wr(S2_DMA_ACK, 0);  // bit 0 clear: no effect
        EXPECT_TRUE(b.dma.irq.level());
        EXPECT_EQ(bus.rd(S2_DMA_STATUS), kDone);
        bus.wr(S2_DMA_ACK, 1);
        EXPECT_FALSE(b.dma.irq.level());
        EXPECT_EQ(bus.rd(S2_DMA_STATUS), 0u);
        // a new START clears DONE without ACK
        bus.start(0x1000, S2_EXT_BASE, 16, kStart);
        EXPECT_EQ(bus.poll(), kDone);
        bus.start(0x1000, S2_EXT_BASE + 16, 16, kStart);
        EXPECT_EQ(bus.rd(S2_DMA_STATUS), kBusy);
        EXPECT_EQ(bus.poll(), kDone);
    });
    b.expect_memmove(0x1000, S2_EXT_BASE, 1024);
    b.expect_memmove(0x1000, S2_EXT_BASE + 16, 16);
    EXPECT_TRUE(b.memories_match());
    ASSERT_EQ(b.rec.edges.size(), 2u);
    EXPECT_EQ(b.dma.transfers(), 3u);
}

struct BadCase {
    uint32_t src, dst, len, err_addr;
};

TEST_F(DmaTest, RejectedDescriptorsSetErrorAndMoveNothing) {
    const BadCase cases[] = {
        {0x1000, 0x2000, 0, 0x1000},                       // LEN 0: ERR_ADDR = SRC
        {0x10000000u, 0x2000, 16, 0x10000000u},            // between the windows
        {0x1000, 0xE0000000u, 16, 0xE0000000u},            // peripheral space
        {S2_QPE_SRAM_BASE, 0x2000, 16, S2_QPE_SRAM_BASE},  // QPE SRAM: not modelled
        {kSramSize - 16, 0x2000, 32, kSramSize},           // crosses the SRAM end
        {0x1000, kSramSize - 8, 9, kSramSize},             // dst crosses the SRAM end
        {0xDFFFFFF0u, 0x2000, 0x20, 0xE0000000u},          // crosses the ext end
        {0x1000, S2_EXT_BASE - 4, 16, S2_EXT_BASE - 4},    // just below ext
        {0xFFFFFFF0u, 0x2000, 0x20, 0xFFFFFFF0u},          // wraps the address space
        {S2_EXT_BASE, 0x1000, 0x1F800, kSramSize},         // src fits, dst does not
        {S2_EXT_BASE, 0x1000, 0xFFFFFFFFu, 0xE0000000u},   // huge
    };
    Bench b;
    b.run([&](Bus& bus) {
        uint64_t t = 0;
        for (const BadCase& c : cases) {
            t += 1000000;
            bus.at(t);
            bus.start(c.src, c.dst, c.len);
            // detected at START: no BUSY phase
            EXPECT_EQ(bus.rd(S2_DMA_STATUS), kError) << c.src;
            EXPECT_EQ(bus.rd(S2_DMA_ERR_ADDR), c.err_addr) << c.src << " -> " << c.dst;
            EXPECT_TRUE(b.dma.irq.level());
            bus.wr(S2_DMA_ACK, 1);
            EXPECT_FALSE(b.dma.irq.level());
            EXPECT_EQ(bus.rd(S2_DMA_STATUS), 0u);
            EXPECT_EQ(bus.rd(S2_DMA_ERR_ADDR), c.err_addr);  // kept until the next error
        }
    });
    EXPECT_TRUE(b.memories_match());
    const auto rows = b.sink.rows<DmaRecord>("events/dma");
    ASSERT_EQ(rows.size(), std::size(cases));
    for (size_t i = 0; i < rows.size(); ++i) {
        EXPECT_EQ(rows[i].status, 1);
        EXPECT_EQ(rows[i].bytes, 0u);
        EXPECT_EQ(rows[i].t_start_ps, (i + 1) * 1000000u);
        EXPECT_EQ(rows[i].t_end_ps, rows[i].t_start_ps);
        EXPECT_EQ(rows[i].src, cases[i].src);
        EXPECT_EQ(rows[i].dst, cases[i].dst);
    }
    EXPECT_EQ(b.dma.errors(), std::size(cases));
    EXPECT_EQ(b.dma.transfers(), 0u);
    EXPECT_EQ(b.dma.busy_ps(), 0u);
}

TEST_F(DmaTest, ExtWriteErrorStopsAtTheFailingBurst) {
    // ext memory of 64 KiB: the window is larger, so the target answers with an address error
    const uint32_t ext_size = 64 * 1024;
    Bench b(formula_params(), 10000, ext_size);
    const uint32_t src = 0x1000, dst = S2_EXT_BASE + ext_size - 100, len = 300;
    b.run([&](Bus& bus) {
        const uint64_t t0 = now_ps();
        bus.start(src, dst, len);
        EXPECT_EQ(bus.wait_irq(), kError);
        // burst 0 [size-100, size-36) lands; burst 1 [size-36, size+28) fails
        EXPECT_EQ(bus.rd(S2_DMA_ERR_ADDR), dst + 64);
        // setup 64 ns; burst 0: max(4 words, 10 ns) = 16 ns; burst 1: the SRAM read (4 words)
        EXPECT_EQ(now_ps() - t0, 64000u + 16000u + 16000u);
    });
    b.expect_memmove(src, dst, 64);
    EXPECT_TRUE(b.memories_match());
    const auto rows = b.sink.rows<DmaRecord>("events/dma");
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].status, 1);
    EXPECT_EQ(rows[0].bytes, 64u);
    EXPECT_EQ(rows[0].t_end_ps - rows[0].t_start_ps, 96000u);
    EXPECT_EQ(b.dma.bytes_moved(), 64u);
    EXPECT_EQ(b.dma.errors(), 1u);
    EXPECT_EQ(b.dma.transfers(), 0u);
}

TEST_F(DmaTest, ExtReadErrorLeavesTheDestinationBurstUnwritten) {
    const uint32_t ext_size = 64 * 1024;
    Bench b(formula_params(), 10000, ext_size);
    const uint32_t src = S2_EXT_BASE + ext_size - 200, dst = 0x3000, len = 1000;
    b.run([&](Bus& bus) {
        bus.start(src, dst, len);
        EXPECT_EQ(bus.wait_irq(), kError);
        EXPECT_EQ(bus.rd(S2_DMA_ERR_ADDR), src + 192);  // bursts 0..2 fit, burst 3 straddles
    });
    b.expect_memmove(src, dst, 192);
    EXPECT_TRUE(b.memories_match());
    EXPECT_EQ(b.sink.rows<DmaRecord>("events/dma").at(0).bytes, 192u);
}

TEST_F(DmaTest, StartWhileBusyIsAnErrorAndTheRunningTransferCompletes) {
    Bench b;
    b.run([&](Bus& bus) {
        const uint64_t t0 = now_ps();
        bus.start(0x1000, 0x9000, 4096);
        bus.at(t0 + 200000);
        bus.wr(S2_DMA_SRC, 0x1234);
        bus.wr(S2_DMA_LEN, 8);
        bus.wr(S2_DMA_CTRL, kStart | kIrqEn);
        EXPECT_EQ(bus.rd(S2_DMA_STATUS), kBusy | kError);
        EXPECT_EQ(bus.rd(S2_DMA_ERR_ADDR), 0x1234u);
        EXPECT_TRUE(b.dma.irq.level());
        bus.wr(S2_DMA_ACK, 1);  // the handler acknowledges the error
        EXPECT_EQ(bus.rd(S2_DMA_STATUS), kBusy);
        EXPECT_EQ(bus.wait_irq(), kDone);
        EXPECT_EQ(now_ps() - t0, ref_duration_ps(formula_params(), 0x1000, 0x9000, 4096, 0));
    });
    b.expect_memmove(0x1000, 0x9000, 4096);
    EXPECT_TRUE(b.memories_match());
    EXPECT_EQ(b.dma.errors(), 1u);
    EXPECT_EQ(b.dma.transfers(), 1u);
    const auto rows = b.sink.rows<DmaRecord>("events/dma");
    ASSERT_EQ(rows.size(), 1u);  // the rejected START has no row
    EXPECT_EQ(rows[0].status, 0);
    EXPECT_EQ(rows[0].src, 0x1000u);
    EXPECT_EQ(rows[0].bytes, 4096u);
}

TEST_F(DmaTest, TraceRowsAndSummaryCounters) {
    Bench b(formula_params(), 20000);
    std::vector<uint64_t> starts, ends;
    b.run([&](Bus& bus) {
        const struct {
            uint32_t src, dst, len;
        } xs[] = {
            {0x1000, S2_EXT_BASE + 0x100, 200}, {0x1000, 0x1000, 0}, {S2_EXT_BASE, 0x4000, 77}};
        for (const auto& x : xs) {
            bus.at(now_ps() + 5000);
            starts.push_back(now_ps());
            bus.start(x.src, x.dst, x.len);
            bus.wait_irq();
            ends.push_back(now_ps());
        }
    });
    const auto rows = b.sink.rows<DmaRecord>("events/dma");
    ASSERT_EQ(rows.size(), 3u);
    const uint16_t comp = static_cast<uint16_t>(b.sink.component("dma"));
    for (size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(rows[i].component, comp);
        EXPECT_EQ(rows[i].t_start_ps, starts[i]);
        EXPECT_EQ(rows[i].t_end_ps, ends[i]);
    }
    EXPECT_EQ(rows[0].status, 0);
    EXPECT_EQ(rows[0].bytes, 200u);
    EXPECT_EQ(rows[0].dst, S2_EXT_BASE + 0x100);
    EXPECT_EQ(rows[1].status, 1);
    EXPECT_EQ(rows[2].status, 0);
    EXPECT_EQ(rows[2].bytes, 77u);
    EXPECT_EQ(rows[2].src, S2_EXT_BASE);
    EXPECT_EQ(rows[2].t_end_ps - rows[2].t_start_ps,
              ref_duration_ps(formula_params(), S2_EXT_BASE, 0x4000, 77, 20000));

    b.dma.write_summary();
    EXPECT_EQ(b.sink.counter_value("dma", "transfers"), 2.0);
    EXPECT_EQ(b.sink.counter_value("dma", "bytes"), 277.0);
    EXPECT_EQ(b.sink.counter_value("dma", "errors"), 1.0);
    EXPECT_EQ(b.sink.counter_value("dma", "busy_ps"),
              static_cast<double>(ends[0] - starts[0] + ends[2] - starts[2]));
}

}  // namespace
}  // namespace nmsim::spinnaker2
