// Unit tests of the MLA (MAC array): register reset values, randomised operations bit-exact
// against the plain reference (tools/reference/int_ops.h), the timing formula and its trace
// records, error codes, the completion interrupt and the bus errors of the register bank.
// Seeds are fixed and printed on failure; NMSIM_MLA_SEED=<n> replays the random tests with seed n.
#include <gtest/gtest.h>
#include <tlm_utils/simple_initiator_socket.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iterator>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "models/spinnaker2/mla/mla.h"
#include "nmsim/hw/spinnaker2/mla_regs.h"
#include "nmsim/hw/spinnaker2/pe_map.h"
#include "tests/support/bus_master.h"
#include "tests/support/memory_sink.h"
#include "tests/support/systemc_fixture.h"
#include "tools/reference/int_ops.h"

namespace nmsim::spinnaker2 {
namespace {

namespace ref = nmsim::reference;
using sc_core::SC_NS;
using sc_core::SC_PS;
using sc_core::sc_time;

constexpr uint64_t kPs300MHz = 3333;  // Frequency::from_mhz(300).period_ps()
constexpr uint32_t kBusy = 1u << S2_MLA_STATUS_BUSY_SHIFT;
constexpr uint32_t kDone = 1u << S2_MLA_STATUS_DONE_SHIFT;
constexpr uint32_t kError = 1u << S2_MLA_STATUS_ERROR_SHIFT;

uint32_t errcode(uint32_t status) { return NM_FIELD_GET(status, S2_MLA_STATUS_ERRCODE); }

// A bus master standing in for the core: register accesses on `sock` (the MLA's cfg port).
struct Master : test::BusMaster {
    tlm_utils::simple_initiator_socket<Master> mem{"mem"};  // binds the SRAM's target (unused)

    using BusMaster::BusMaster;
    // Polls STATUS until BUSY clears; returns the final STATUS.
    uint32_t wait_idle(sc_time poll = sc_time(100, SC_NS)) {
        uint32_t s = rd(S2_MLA_STATUS);
        while (s & kBusy) {
            sc_core::wait(poll);
            s = rd(S2_MLA_STATUS);
        }
        return s;
    }
};

// Records level changes of the interrupt line with their times.
struct IrqProbe : nmsim::IrqSink {
    std::vector<std::pair<uint64_t, bool>> edges;
    void irq_level(unsigned, bool level) override {
        edges.emplace_back(sc_core::sc_time_stamp().value(), level);
    }
};

// The hand-worked timings below use a 16 B/cycle operand fetch (the calibrated default differs).
MlaParams formula_params() {
    MlaParams p;
    p.fetch_bytes_per_cycle = 16;
    return p;
}

class MlaTest : public nmsim::test::SystemCTest {
protected:
    void build(MlaParams p = formula_params(), uint64_t sram_bytes = 128 * 1024) {
        sc_core::sc_set_time_resolution(1, SC_PS);
        params = p;
        sram = std::make_unique<Memory>("sram", sram_bytes, sc_core::SC_ZERO_TIME);
        mla = std::make_unique<Mla>("mla", p, Frequency::from_mhz(300), *sram, &sink);
        master = std::make_unique<Master>("master");
        master->sock.bind(mla->cfg);
        master->mem.bind(sram->tgt);
        mla->irq.bind(probe, S2_IRQ_MLA);
    }
    void run(std::function<void()> body) {
        master->body = std::move(body);
        sc_core::sc_start();
    }

    MlaParams params;
    test::MemorySink sink;
    IrqProbe probe;
    std::unique_ptr<Memory> sram;
    std::unique_ptr<Mla> mla;
    std::unique_ptr<Master> master;
};

uint32_t ctrl_of(const ref::MlaOp& op, bool irq_en = false) {
    uint32_t c = 0;
    c |= NM_FIELD_SET(op.mode == ref::MlaMode::conv2d ? S2_MLA_MODE_CONV2D : S2_MLA_MODE_MATMUL,
                      S2_MLA_CTRL_MODE);
    c |= NM_FIELD_SET(op.a_signed, S2_MLA_CTRL_A_SIGNED);
    c |= NM_FIELD_SET(op.b_signed, S2_MLA_CTRL_B_SIGNED);
    c |= NM_FIELD_SET(op.in16, S2_MLA_CTRL_IN16);
    c |= NM_FIELD_SET(static_cast<uint32_t>(op.out), S2_MLA_CTRL_OUT_PREC);
    c |= NM_FIELD_SET(op.relu, S2_MLA_CTRL_RELU);
    c |= NM_FIELD_SET(op.accumulate, S2_MLA_CTRL_ACCUMULATE);
    c |= NM_FIELD_SET(op.bias_en, S2_MLA_CTRL_BIAS_EN);
    c |= NM_FIELD_SET(irq_en, S2_MLA_CTRL_IRQ_EN);
    return c;
}

size_t out_width(ref::MlaOutPrec p) { return size_t{1} << static_cast<unsigned>(p); }

// One randomised operation: the op, its memory images and where they go in SRAM.
struct Case {
    ref::MlaOp op;
    std::vector<uint8_t> a, b, c_old;
    std::vector<int32_t> bias;
    uint32_t a_addr = 0, b_addr = 0, bias_addr = 0, c_addr = 0;

    std::string describe() const {
        std::ostringstream s;
        s << (op.mode == ref::MlaMode::matmul ? "matmul" : "conv2d");
        if (op.mode == ref::MlaMode::matmul)
            s << " m=" << op.m << " k=" << op.k << " n=" << op.n;
        else
            s << " ifm=" << op.ifm_h << "x" << op.ifm_w << "x" << op.ifm_c << " ker=" << op.ker_h
              << "x" << op.ker_w << " stride=" << op.stride << " pad=" << op.pad
              << " ofm_c=" << op.ofm_c;
        s << " a_signed=" << op.a_signed << " b_signed=" << op.b_signed << " in16=" << op.in16
          << " out=" << static_cast<int>(op.out) << " shift=" << op.shift << " relu=" << op.relu
          << " bias=" << op.bias_en << " acc=" << op.accumulate << " acc_bits=" << op.acc_bits;
        return s.str();
    }
};

uint32_t align4(uint64_t v) { return static_cast<uint32_t>((v + 3) & ~uint64_t{3}); }

// Places A, B, bias and C one after another from 0x40 with 4-byte alignment and an 8-byte gap
// (canary) after C. Returns false if the case does not fit.
bool place(Case& c, uint64_t sram_bytes) {
    uint64_t at = 0x40;
    c.a_addr = align4(at);
    at = c.a_addr + c.a.size();
    c.b_addr = align4(at);
    at = c.b_addr + c.b.size();
    c.bias_addr = align4(at);
    at = c.bias_addr + 4 * c.bias.size();
    c.c_addr = align4(at);
    at = c.c_addr + c.c_old.size() + 8;
    return at <= sram_bytes;
}

std::vector<uint8_t> random_bytes(std::mt19937& rng, size_t n) {
    std::vector<uint8_t> v(n);
    for (auto& x : v) x = static_cast<uint8_t>(rng() & 0xFF);
    return v;
}

Case random_case(std::mt19937& rng, unsigned acc_bits) {
    auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    Case c;
    ref::MlaOp& op = c.op;
    op.mode = uni(0, 9) < 7 ? ref::MlaMode::matmul : ref::MlaMode::conv2d;
    op.a_signed = uni(0, 1);
    op.b_signed = uni(0, 1);
    op.in16 = uni(0, 3) == 0;
    op.out = static_cast<ref::MlaOutPrec>(uni(0, 2));
    op.relu = uni(0, 1);
    op.bias_en = uni(0, 1);
    op.accumulate = uni(0, 2) == 0;
    op.acc_bits = acc_bits;
    if (op.mode == ref::MlaMode::matmul) {
        op.m = static_cast<uint32_t>(uni(1, 13));
        op.k = static_cast<uint32_t>(uni(1, 70));
        op.n = static_cast<uint32_t>(uni(1, 40));
    } else {
        do {
            op.ifm_h = static_cast<uint32_t>(uni(1, 8));
            op.ifm_w = static_cast<uint32_t>(uni(1, 8));
            op.ker_h = static_cast<uint32_t>(uni(1, 4));
            op.ker_w = static_cast<uint32_t>(uni(1, 4));
            op.pad = static_cast<uint32_t>(uni(0, 2));
        } while (op.ifm_h + 2 * op.pad < op.ker_h || op.ifm_w + 2 * op.pad < op.ker_w);
        op.ifm_c = static_cast<uint32_t>(uni(1, 6));
        op.stride = static_cast<uint32_t>(uni(1, 3));
        op.ofm_c = static_cast<uint32_t>(uni(1, 20));
    }
    // Half the shifts uniform over 0..31 (many saturate or vanish), half near the useful range.
    op.shift = static_cast<unsigned>(uni(0, 1) ? uni(0, 31) : uni(0, op.in16 ? 24 : 12));
    const size_t elem = op.in16 ? 2 : 1;
    c.a = random_bytes(rng, op.a_count() * elem);
    c.b = random_bytes(rng, op.b_count() * elem);
    const size_t n_cols = op.mode == ref::MlaMode::matmul ? op.n : op.ofm_c;
    if (op.bias_en) {
        const bool big = uni(0, 1);
        for (size_t j = 0; j < n_cols; ++j)
            c.bias.push_back(big ? static_cast<int32_t>(rng()) : uni(-100000, 100000));
    }
    c.c_old = random_bytes(rng, op.c_count() * out_width(op.out));
    return c;
}

// Writes the case to SRAM and the registers, starts it, waits, and checks the result against
// the reference and the canary after C.
void run_case(Master& m, Memory& sram, const Case& c) {
    uint8_t* mem = sram.data();
    std::copy(c.a.begin(), c.a.end(), mem + c.a_addr);
    std::copy(c.b.begin(), c.b.end(), mem + c.b_addr);
    for (size_t j = 0; j < c.bias.size(); ++j) {
        const auto u = static_cast<uint32_t>(c.bias[j]);
        for (int i = 0; i < 4; ++i)
            mem[c.bias_addr + 4 * j + i] = static_cast<uint8_t>(u >> (8 * i));
    }
    std::copy(c.c_old.begin(), c.c_old.end(), mem + c.c_addr);
    const size_t c_end = c.c_addr + c.c_old.size();
    for (size_t i = 0; i < 8; ++i) mem[c_end + i] = static_cast<uint8_t>(0xA5 ^ i);

    const ref::MlaOp& op = c.op;
    m.wr(S2_MLA_A_ADDR, c.a_addr);
    m.wr(S2_MLA_B_ADDR, c.b_addr);
    m.wr(S2_MLA_C_ADDR, c.c_addr);
    m.wr(S2_MLA_BIAS_ADDR, c.bias_addr);
    m.wr(S2_MLA_SHIFT, op.shift);
    if (op.mode == ref::MlaMode::matmul) {
        m.wr(S2_MLA_M, op.m);
        m.wr(S2_MLA_K, op.k);
        m.wr(S2_MLA_N, op.n);
    } else {
        m.wr(S2_MLA_IFM_H, op.ifm_h);
        m.wr(S2_MLA_IFM_W, op.ifm_w);
        m.wr(S2_MLA_IFM_C, op.ifm_c);
        m.wr(S2_MLA_KER_H, op.ker_h);
        m.wr(S2_MLA_KER_W, op.ker_w);
        m.wr(S2_MLA_STRIDE, op.stride);
        m.wr(S2_MLA_PAD, op.pad);
        m.wr(S2_MLA_OFM_C, op.ofm_c);
    }
    m.wr(S2_MLA_CTRL, ctrl_of(op) | (1u << S2_MLA_CTRL_START_SHIFT));
    const uint32_t status = m.wait_idle();
    ASSERT_EQ(status, kDone) << "status 0x" << std::hex << status;
    m.wr(S2_MLA_ACK, 1);

    const auto a = ref::decode_operands(c.a, op.a_signed, op.in16);
    const auto b = ref::decode_operands(c.b, op.b_signed, op.in16);
    const auto c_old = ref::decode_results(c.c_old, op.out);
    const auto expect = ref::mla_ref(op, a, b, c.bias, c_old);
    const std::vector<uint8_t> got_bytes(mem + c.c_addr, mem + c_end);
    const auto got = ref::decode_results(got_bytes, op.out);
    ASSERT_EQ(got.size(), expect.size());
    for (size_t i = 0; i < got.size(); ++i)
        ASSERT_EQ(got[i], expect[i]) << "first mismatch at output element " << i;
    for (size_t i = 0; i < 8; ++i)
        ASSERT_EQ(mem[c_end + i], static_cast<uint8_t>(0xA5 ^ i)) << "write beyond C";
}

uint32_t seed_or_env(uint32_t fixed) {
    if (const char* s = std::getenv("NMSIM_MLA_SEED"))
        return static_cast<uint32_t>(std::strtoul(s, nullptr, 0));
    return fixed;
}

void random_ops(Master& m, Memory& sram, unsigned acc_bits, uint32_t seed, int count) {
    std::mt19937 rng(seed);
    for (int i = 0; i < count; ++i) {
        Case c = random_case(rng, acc_bits);
        if (!place(c, sram.size())) continue;
        SCOPED_TRACE("seed=" + std::to_string(seed) + " case=" + std::to_string(i) + ": " +
                     c.describe());
        run_case(m, sram, c);
        if (::testing::Test::HasFatalFailure()) return;
    }
}

// --- reset values ---------------------------------------------------------------------------

TEST_F(MlaTest, ResetValuesEqualHeaderTable) {
    build();
    struct Row {
        const char* name;
        uint32_t off, acc, rst;
    };
#define MLA_ROW(name, off, acc, rst, doc) Row{#name, off, acc, rst},
    const Row rows[] = {S2_MLA_REGS(MLA_ROW)};
#undef MLA_ROW
    run([&] {
        for (const Row& r : rows) {
            const Master::Result got = master->read(r.off);
            if (r.acc == NM_WO) {
                EXPECT_EQ(got.status, tlm::TLM_COMMAND_ERROR_RESPONSE) << r.name;
            } else {
                EXPECT_EQ(got.status, tlm::TLM_OK_RESPONSE) << r.name;
                EXPECT_EQ(got.value, r.rst) << r.name;
            }
        }
    });
    EXPECT_FALSE(mla->irq.level());
}

TEST(MlaParamsTest, EveryParameterDocumentedWithSource) {
    const auto problems = nmsim::check_registry(nmsim::registry_of<MlaParams>());
    for (const auto& p : problems) ADD_FAILURE() << p;
    EXPECT_EQ(nmsim::registry_of<MlaParams>().entries.size(), 6u);
}

// --- bit-exact randomised operations --------------------------------------------------------

class MlaRandomTest : public MlaTest, public ::testing::WithParamInterface<unsigned> {};

TEST_P(MlaRandomTest, MatchesReference) {
    const unsigned acc_bits = GetParam();
    MlaParams p = formula_params();
    p.acc_bits = acc_bits;
    build(p);
    const uint32_t seed = seed_or_env(0x5EED0000u + acc_bits);
    run([&] { random_ops(*master, *sram, acc_bits, seed, 400); });
    EXPECT_EQ(mla->total_ops(), 400u) << "every random case should fit the SRAM";
}

INSTANTIATE_TEST_SUITE_P(AccBits, MlaRandomTest, ::testing::Values(29u, 24u, 16u, 48u));

// Large K: the 29-bit accumulator wraps (checked against the unwrapped result), and with 48 bits
// the sum of K > 2^15 int8 products stays exact beyond 32 bits.
TEST_F(MlaTest, LargeKWrapsAtAccBits) {
    MlaParams p = formula_params();
    p.acc_bits = 29;
    build(p, 512 * 1024);
    run([&] {
        for (uint32_t seed : {11u, 12u, 13u}) {
            std::mt19937 rng(seed_or_env(seed));
            Case c;
            c.op.m = 2;
            c.op.k = 9000;
            c.op.n = 5;
            c.op.a_signed = false;
            c.op.b_signed = false;
            c.op.out = ref::MlaOutPrec::int32;
            c.op.acc_bits = 29;
            c.op.bias_en = true;
            c.bias = {1000, -1000, 0x7FFFFFFF, -0x7FFFFFFF, 12345};
            c.a.resize(c.op.m * c.op.k);
            c.b.resize(c.op.k * c.op.n);
            for (auto& x : c.a) x = static_cast<uint8_t>(200 + rng() % 56);
            for (auto& x : c.b) x = static_cast<uint8_t>(200 + rng() % 56);
            c.c_old.assign(c.op.m * c.op.n * 4, 0);
            ASSERT_TRUE(place(c, sram->size()));
            // The case is only meaningful if the wrap changes the result.
            ref::MlaOp wide = c.op;
            wide.acc_bits = 48;
            const auto a = ref::decode_operands(c.a, false, false);
            const auto b = ref::decode_operands(c.b, false, false);
            ASSERT_NE(ref::mla_ref(c.op, a, b, c.bias), ref::mla_ref(wide, a, b, c.bias));
            SCOPED_TRACE("seed=" + std::to_string(seed) + ": " + c.describe());
            run_case(*master, *sram, c);
        }
    });
}

TEST_F(MlaTest, LargeKExactWith48BitAccumulator) {
    MlaParams p = formula_params();
    p.acc_bits = 48;
    build(p, 512 * 1024);
    run([&] {
        std::mt19937 rng(seed_or_env(21));
        for (bool in16 : {false, true}) {
            Case c;
            c.op.in16 = in16;
            c.op.m = 1;
            c.op.k = in16 ? 20000 : 40000;  // beyond 2^15 int8 products per int32 partial sum
            c.op.n = 3;
            c.op.a_signed = false;
            c.op.b_signed = false;
            c.op.out = ref::MlaOutPrec::int32;
            c.op.shift = 16;
            c.op.acc_bits = 48;
            c.a.resize(c.op.k * (in16 ? 2 : 1));
            c.b.resize(c.op.k * c.op.n * (in16 ? 2 : 1));
            for (auto& x : c.a) x = static_cast<uint8_t>(250 + rng() % 6);
            for (auto& x : c.b) x = static_cast<uint8_t>(250 + rng() % 6);
            c.c_old.assign(c.op.m * c.op.n * 4, 0);
            ASSERT_TRUE(place(c, sram->size()));
            SCOPED_TRACE(c.describe());
            run_case(*master, *sram, c);
        }
    });
}

// A result written over its own input A still sees the original operands.
TEST_F(MlaTest, ResultOverlappingInputReadsOriginalOperands) {
    build();
    run([&] {
        std::mt19937 rng(seed_or_env(31));
        Case c;
        c.op.m = 6;
        c.op.k = 20;
        c.op.n = 20;  // C row i (6x20 int8) lands on A row i+1: written before it is used
        c.op.shift = 6;
        c.a = random_bytes(rng, 120);
        c.b = random_bytes(rng, 400);
        c.a_addr = 0x100;
        c.b_addr = 0x400;
        c.c_addr = 0x114;
        uint8_t* mem = sram->data();
        std::copy(c.a.begin(), c.a.end(), mem + c.a_addr);
        std::copy(c.b.begin(), c.b.end(), mem + c.b_addr);
        master->wr(S2_MLA_A_ADDR, c.a_addr);
        master->wr(S2_MLA_B_ADDR, c.b_addr);
        master->wr(S2_MLA_C_ADDR, c.c_addr);
        master->wr(S2_MLA_M, 6);
        master->wr(S2_MLA_K, 20);
        master->wr(S2_MLA_N, 20);
        master->wr(S2_MLA_SHIFT, 6);
        master->wr(S2_MLA_CTRL, ctrl_of(c.op) | 1u);
        ASSERT_EQ(master->wait_idle(), kDone);
        const auto expect = ref::mla_ref(c.op, ref::decode_operands(c.a, true, false),
                                         ref::decode_operands(c.b, true, false));
        const auto got = ref::decode_results(std::vector<uint8_t>(mem + 0x114, mem + 0x114 + 120),
                                             ref::MlaOutPrec::int8);
        EXPECT_EQ(got, expect);
    });
}

// --- timing -----------------------------------------------------------------------------------

// Starts a matmul with int8 operands at the current time; the operands are whatever SRAM holds.
void start_matmul(Master& m, uint32_t mm, uint32_t k, uint32_t n, uint32_t extra_ctrl = 0) {
    m.wr(S2_MLA_A_ADDR, 0x0);
    m.wr(S2_MLA_B_ADDR, 0x4000);
    m.wr(S2_MLA_C_ADDR, 0x8000);
    m.wr(S2_MLA_BIAS_ADDR, 0xC000);
    m.wr(S2_MLA_M, mm);
    m.wr(S2_MLA_K, k);
    m.wr(S2_MLA_N, n);
    m.wr(S2_MLA_CTRL, extra_ctrl | 1u);
}

uint64_t run_for_cycles(Master& m, uint32_t mm, uint32_t k, uint32_t n, uint32_t extra_ctrl = 0) {
    start_matmul(m, mm, k, n, extra_ctrl);
    EXPECT_EQ(m.wait_idle(sc_time(1, SC_NS)), kDone);
    m.wr(S2_MLA_ACK, 1);
    return m.rd(S2_MLA_CYCLES);
}

// Expected values below are derived by hand from the formula documented in mla.h with the
// default parameters (4x16 tiles, 16 B/cycle fetch and write-back, 16 start-up cycles).
TEST_F(MlaTest, DurationOfKnownShapeAndTraceRecord) {
    build();
    // M=8 K=32 N=32 int8 -> int8: 2x2 full tiles; step 4+16 = 20 B -> ceil(32*20/16) = 40 cycles
    // (>= K); write-back 64 B / 16 = 4; per tile 44; 4 tiles = 176; + 16 start-up = 192.
    constexpr uint64_t kCycles = 192;
    uint64_t t0 = 0;
    run([&] {
        sc_core::wait(sc_time(1000, SC_PS));
        t0 = sc_core::sc_time_stamp().value();
        start_matmul(*master, 8, 32, 32);
        sc_core::wait(sc_time(static_cast<double>(kCycles * kPs300MHz - 1), SC_PS));
        EXPECT_EQ(master->rd(S2_MLA_STATUS), kBusy) << "busy until the last picosecond";
        sc_core::wait(sc_time(2, SC_PS));
        EXPECT_EQ(master->rd(S2_MLA_STATUS), kDone);
        EXPECT_EQ(master->rd(S2_MLA_CYCLES), kCycles);
    });
    const auto rows = sink.rows<MlaOpRecord>("events/mla_ops");
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].t_start_ps, t0);
    EXPECT_EQ(rows[0].t_end_ps, t0 + kCycles * kPs300MHz);
    EXPECT_EQ(rows[0].cycles, kCycles);
    EXPECT_EQ(rows[0].macs, 8u * 32u * 32u);
    EXPECT_EQ(rows[0].m, 8u);
    EXPECT_EQ(rows[0].k, 32u);
    EXPECT_EQ(rows[0].n, 32u);
    EXPECT_EQ(rows[0].mode, 0u);
    EXPECT_EQ(rows[0].component, mla->component_id());
    EXPECT_EQ(mla->busy_cycles(), kCycles);
    EXPECT_EQ(mla->busy_time(), sc_time(static_cast<double>(kCycles * kPs300MHz), SC_PS));
    EXPECT_EQ(mla->total_macs(), 8u * 32u * 32u);
}

TEST_F(MlaTest, PartialTileCostsAFullKPass) {
    build();
    run([&] {
        // N=16: one full tile, step 20 B -> ceil(64*20/16) = 80; write-back 4; 84 + 16 = 100.
        EXPECT_EQ(run_for_cycles(*master, 4, 64, 16), 100u);
        // N=17 adds a 4x1 tile: step 5 B -> max(K=64, 20) = 64; write-back ceil(4/16) = 1.
        EXPECT_EQ(run_for_cycles(*master, 4, 64, 17), 165u);
        // N=10: one partial tile, step 14 B -> max(64, 56) = 64; write-back ceil(40/16) = 3.
        EXPECT_EQ(run_for_cycles(*master, 4, 64, 10), 83u);
        // M=5: a 1x16 row tile still costs max(K, ceil(64*17/16) = 68) = 68 + 1 write-back.
        EXPECT_EQ(run_for_cycles(*master, 5, 64, 16), 100u + 69u);
    });
}

TEST_F(MlaTest, Int16IsSlowerThanInt8) {
    build();
    run([&] {
        const uint32_t in16 = 1u << S2_MLA_CTRL_IN16_SHIFT;
        const uint64_t c8 = run_for_cycles(*master, 8, 32, 32);
        // int16: 4x4 tiles of 16-bit MACs, 2x8 = 16 tiles; step 4*2+4*2 = 16 B -> 32 cycles;
        // write-back 16 B -> 1; 16*33 + 16 = 544.
        const uint64_t c16 = run_for_cycles(*master, 8, 32, 32, in16);
        EXPECT_EQ(c8, 192u);
        EXPECT_EQ(c16, 544u);
        EXPECT_GT(c16, c8);
    });
}

TEST_F(MlaTest, BiasAccumulateAndConvTiming) {
    build();
    run([&] {
        // M=4 K=16 N=16 int32 out, bias and accumulate: k-loop ceil(16*20/16) = 20; bias 64 B
        // -> 4; old C 256 B -> 16; write-back 256 B -> 16; 56 + 16 = 72.
        const uint32_t flags = (1u << S2_MLA_CTRL_BIAS_EN_SHIFT) |
                               (1u << S2_MLA_CTRL_ACCUMULATE_SHIFT) |
                               (S2_MLA_OUT_INT32 << S2_MLA_CTRL_OUT_PREC_SHIFT);
        EXPECT_EQ(run_for_cycles(*master, 4, 16, 16, flags), 72u);
        // conv 5x5x3, 3x3 kernel, stride 1, pad 1, 8 channels: M=25 K=27 N=8. Six 4x8 tiles:
        // step 12 B -> max(27, ceil(27*12/16) = 21) = 27, write-back 2 -> 29 each = 174; one 1x8
        // tile: max(27, 16) + 1 = 28; + 16 start-up = 218.
        master->wr(S2_MLA_IFM_H, 5);
        master->wr(S2_MLA_IFM_W, 5);
        master->wr(S2_MLA_IFM_C, 3);
        master->wr(S2_MLA_KER_H, 3);
        master->wr(S2_MLA_KER_W, 3);
        master->wr(S2_MLA_STRIDE, 1);
        master->wr(S2_MLA_PAD, 1);
        master->wr(S2_MLA_OFM_C, 8);
        master->wr(S2_MLA_CTRL, (S2_MLA_MODE_CONV2D << S2_MLA_CTRL_MODE_SHIFT) | 1u);
        EXPECT_EQ(master->wait_idle(sc_time(1, SC_NS)), kDone);
        EXPECT_EQ(master->rd(S2_MLA_CYCLES), 218u);
    });
    const auto rows = sink.rows<MlaOpRecord>("events/mla_ops");
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[1].mode, 1u);
    EXPECT_EQ(rows[1].m, 25u);
    EXPECT_EQ(rows[1].k, 27u);
    EXPECT_EQ(rows[1].n, 8u);
    EXPECT_EQ(rows[1].macs, 25u * 27u * 8u);
    EXPECT_EQ(rows[0].flags,
              static_cast<uint16_t>(((1u << S2_MLA_CTRL_BIAS_EN_SHIFT) |
                                     (1u << S2_MLA_CTRL_ACCUMULATE_SHIFT) |
                                     (S2_MLA_OUT_INT32 << S2_MLA_CTRL_OUT_PREC_SHIFT)) >>
                                    4));
}

TEST_F(MlaTest, FetchWidthAndStartupParameters) {
    MlaParams p = formula_params();
    p.fetch_bytes_per_cycle = 4;
    p.startup_cycles = 100;
    p.n_rows = 2;
    p.n_cols = 8;
    build(p);
    run([&] {
        // 2x8 tiles: M=4 K=8 N=16 -> 2x2 tiles; step 2+8 = 10 B -> ceil(80/4) = 20; write-back
        // 16 B at 16 B/cycle -> 1; 4*21 + 100 = 184.
        EXPECT_EQ(run_for_cycles(*master, 4, 8, 16), 184u);
    });
}

TEST_F(MlaTest, SummaryCounters) {
    build();
    run([&] {
        run_for_cycles(*master, 8, 32, 32);  // 192 cycles
        run_for_cycles(*master, 4, 64, 17);  // 165 cycles
        master->wr(S2_MLA_M, 0);
        master->wr(S2_MLA_CTRL, 1u);  // an error, not an op
    });
    mla->write_summary();
    const std::string c = mla->name();
    const double macs = 8.0 * 32 * 32 + 4.0 * 64 * 17;
    EXPECT_EQ(sink.counter_value(c, "ops"), 2.0);
    EXPECT_EQ(sink.counter_value(c, "macs"), macs);
    EXPECT_EQ(sink.counter_value(c, "cycles"), 357.0);
    EXPECT_EQ(sink.counter_value(c, "busy_ps"), 357.0 * kPs300MHz);
    EXPECT_DOUBLE_EQ(sink.counter_value(c, "utilisation"), macs / (357.0 * 64));
    EXPECT_EQ(sink.counter_value(c, "errors"), 1.0);
}

// --- errors -------------------------------------------------------------------------------------

// Writes CTRL with START and returns STATUS right after (errors are reported at once).
uint32_t try_start(Master& m, uint32_t ctrl) {
    m.wr(S2_MLA_CTRL, ctrl | 1u);
    const uint32_t s = m.rd(S2_MLA_STATUS);
    if (!(s & kBusy)) m.wr(S2_MLA_ACK, 1);
    return s;
}

TEST_F(MlaTest, ErrorCodesWithoutCrash) {
    build();
    run([&] {
        auto expect_err = [&](uint32_t ctrl, uint32_t code, const char* what) {
            const uint32_t s = try_start(*master, ctrl);
            EXPECT_EQ(s & (kBusy | kDone | kError), kError) << what;
            EXPECT_EQ(errcode(s), code) << what;
        };
        auto valid = [&] {
            master->wr(S2_MLA_A_ADDR, 0x100);
            master->wr(S2_MLA_B_ADDR, 0x200);
            master->wr(S2_MLA_C_ADDR, 0x300);
            master->wr(S2_MLA_BIAS_ADDR, 0x400);
            master->wr(S2_MLA_M, 4);
            master->wr(S2_MLA_K, 8);
            master->wr(S2_MLA_N, 16);
            master->wr(S2_MLA_SHIFT, 0);
        };
        valid();
        expect_err(2u << S2_MLA_CTRL_MODE_SHIFT, S2_MLA_ERR_MODE, "reserved mode 2");
        expect_err(3u << S2_MLA_CTRL_MODE_SHIFT, S2_MLA_ERR_MODE, "reserved mode 3");
        expect_err(3u << S2_MLA_CTRL_OUT_PREC_SHIFT, S2_MLA_ERR_MODE, "reserved output precision");
        master->wr(S2_MLA_SHIFT, 32);
        expect_err(0, S2_MLA_ERR_MODE, "shift 32");
        valid();
        for (uint32_t reg : {S2_MLA_M, S2_MLA_K, S2_MLA_N}) {
            master->wr(reg, 0);
            expect_err(0, S2_MLA_ERR_SHAPE, "zero matmul dimension");
            valid();
        }
        master->wr(S2_MLA_A_ADDR, 0x102);
        expect_err(0, S2_MLA_ERR_ALIGN, "misaligned A");
        valid();
        master->wr(S2_MLA_B_ADDR, 0x201);
        expect_err(0, S2_MLA_ERR_ALIGN, "misaligned B");
        valid();
        master->wr(S2_MLA_C_ADDR, 0x303);
        expect_err(0, S2_MLA_ERR_ALIGN, "misaligned C");
        valid();
        master->wr(S2_MLA_BIAS_ADDR, 0x402);
        expect_err(1u << S2_MLA_CTRL_BIAS_EN_SHIFT, S2_MLA_ERR_ALIGN, "misaligned bias");
        // A misaligned bias address is ignored without BIAS_EN.
        EXPECT_EQ(try_start(*master, 0) & (kBusy | kError), kBusy);
        EXPECT_EQ(master->wait_idle(), kDone);
        master->wr(S2_MLA_ACK, 1);
        valid();
        const uint32_t size = static_cast<uint32_t>(sram->size());
        master->wr(S2_MLA_C_ADDR, size - 60);  // 64 results do not fit in 60 bytes
        expect_err(0, S2_MLA_ERR_RANGE, "C beyond SRAM end");
        master->wr(S2_MLA_C_ADDR, size - 64);  // exactly fits
        EXPECT_EQ(try_start(*master, 0) & (kBusy | kError), kBusy);
        EXPECT_EQ(master->wait_idle(), kDone);
        master->wr(S2_MLA_ACK, 1);
        EXPECT_EQ(try_start(*master, S2_MLA_OUT_INT16 << S2_MLA_CTRL_OUT_PREC_SHIFT) & kError,
                  kError);  // int16 results at the same place no longer fit
        valid();
        master->wr(S2_MLA_A_ADDR, 0x30000000u);
        expect_err(0, S2_MLA_ERR_RANGE, "A outside SRAM");
        valid();
        master->wr(S2_MLA_BIAS_ADDR, size - 32);
        expect_err(1u << S2_MLA_CTRL_BIAS_EN_SHIFT, S2_MLA_ERR_RANGE, "bias beyond SRAM end");
        valid();
        master->wr(S2_MLA_M, 0xFFFFFFFFu);
        master->wr(S2_MLA_K, 0xFFFFFFFFu);
        master->wr(S2_MLA_N, 0xFFFFFFFFu);
        expect_err(1u << S2_MLA_CTRL_IN16_SHIFT, S2_MLA_ERR_RANGE, "absurd dimensions");

        // conv mode
        valid();
        const uint32_t conv = S2_MLA_MODE_CONV2D << S2_MLA_CTRL_MODE_SHIFT;
        auto conv_regs = [&] {
            master->wr(S2_MLA_IFM_H, 4);
            master->wr(S2_MLA_IFM_W, 4);
            master->wr(S2_MLA_IFM_C, 2);
            master->wr(S2_MLA_KER_H, 3);
            master->wr(S2_MLA_KER_W, 3);
            master->wr(S2_MLA_STRIDE, 1);
            master->wr(S2_MLA_PAD, 0);
            master->wr(S2_MLA_OFM_C, 4);
        };
        conv_regs();
        master->wr(S2_MLA_STRIDE, 0);
        expect_err(conv, S2_MLA_ERR_SHAPE, "stride 0");
        conv_regs();
        master->wr(S2_MLA_KER_W, 5);
        expect_err(conv, S2_MLA_ERR_SHAPE, "kernel wider than the input");
        master->wr(S2_MLA_PAD, 1);  // 4 + 2 >= 5: now legal
        EXPECT_EQ(try_start(*master, conv) & (kBusy | kError), kBusy);
        EXPECT_EQ(master->wait_idle(), kDone);
        master->wr(S2_MLA_ACK, 1);
        conv_regs();
        master->wr(S2_MLA_OFM_C, 0);
        expect_err(conv, S2_MLA_ERR_SHAPE, "zero output channels");
        conv_regs();
        master->wr(S2_MLA_PAD, 0x40000000u);
        expect_err(conv, S2_MLA_ERR_RANGE, "huge padding");
        conv_regs();
        master->wr(S2_MLA_IFM_C, 0x10000);
        expect_err(conv, S2_MLA_ERR_RANGE, "input feature map beyond SRAM");
    });
    EXPECT_EQ(mla->total_ops(), 3u);
    EXPECT_EQ(sink.rows<MlaOpRecord>("events/mla_ops").size(), 3u);
}

TEST_F(MlaTest, StartWhileBusyKeepsTheRunningOperation) {
    build();
    run([&] {
        std::mt19937 rng(seed_or_env(41));
        Case c;
        c.op.m = 8;
        c.op.k = 32;
        c.op.n = 32;
        c.op.shift = 7;
        c.a = random_bytes(rng, 256);
        c.b = random_bytes(rng, 1024);
        c.c_old.assign(256, 0);
        ASSERT_TRUE(place(c, sram->size()));
        std::copy(c.a.begin(), c.a.end(), sram->data() + c.a_addr);
        std::copy(c.b.begin(), c.b.end(), sram->data() + c.b_addr);
        master->wr(S2_MLA_A_ADDR, c.a_addr);
        master->wr(S2_MLA_B_ADDR, c.b_addr);
        master->wr(S2_MLA_C_ADDR, c.c_addr);
        master->wr(S2_MLA_M, 8);
        master->wr(S2_MLA_K, 32);
        master->wr(S2_MLA_N, 32);
        master->wr(S2_MLA_SHIFT, 7);
        master->wr(S2_MLA_CTRL, ctrl_of(c.op) | 1u);
        // Change registers and start again while busy: rejected, the running op is unaffected.
        master->wr(S2_MLA_M, 1);
        master->wr(S2_MLA_SHIFT, 0);
        master->wr(S2_MLA_CTRL,
                   ctrl_of(c.op) | (S2_MLA_OUT_INT32 << S2_MLA_CTRL_OUT_PREC_SHIFT) | 1u);
        const uint32_t s = master->rd(S2_MLA_STATUS);
        EXPECT_EQ(s & (kBusy | kError), kBusy | kError);
        EXPECT_EQ(errcode(s), S2_MLA_ERR_BUSY);
        EXPECT_EQ(master->rd(S2_MLA_CTRL), ctrl_of(c.op)) << "CTRL unchanged by the rejected START";
        const uint32_t end = master->wait_idle();
        EXPECT_EQ(end & (kBusy | kDone | kError), kDone | kError);
        EXPECT_EQ(errcode(end), S2_MLA_ERR_BUSY);
        EXPECT_EQ(master->rd(S2_MLA_CYCLES), 192u);
        const auto expect = ref::mla_ref(c.op, ref::decode_operands(c.a, true, false),
                                         ref::decode_operands(c.b, true, false));
        const auto got = ref::decode_results(
            std::vector<uint8_t>(sram->data() + c.c_addr, sram->data() + c.c_addr + 256),
            ref::MlaOutPrec::int8);
        EXPECT_EQ(got, expect);
        master->wr(S2_MLA_ACK, 1);
        EXPECT_EQ(master->rd(S2_MLA_STATUS), 0u);
    });
    EXPECT_EQ(mla->total_ops(), 1u);
}

TEST_F(MlaTest, ReadOnlyAndWriteOnlyRegistersAreBusErrors) {
    build();
    run([&] {
        const Master::Result w = master->write(S2_MLA_STATUS, 0x7);
        EXPECT_EQ(w.status, tlm::TLM_COMMAND_ERROR_RESPONSE);
        EXPECT_NE(w.why.find("STATUS"), std::string::npos) << w.why;
        EXPECT_EQ(master->write(S2_MLA_CYCLES, 5).status, tlm::TLM_COMMAND_ERROR_RESPONSE);
        EXPECT_EQ(master->read(S2_MLA_ACK).status, tlm::TLM_COMMAND_ERROR_RESPONSE);
        EXPECT_EQ(master->read(0x0FCu).status, tlm::TLM_COMMAND_ERROR_RESPONSE);
        EXPECT_EQ(master->rd(S2_MLA_STATUS), 0u) << "the rejected write changed nothing";
    });
}

// --- interrupt ----------------------------------------------------------------------------------

TEST_F(MlaTest, IrqRaisedOnCompletionAndClearedByAck) {
    build();
    const uint32_t irq_en = 1u << S2_MLA_CTRL_IRQ_EN_SHIFT;
    uint64_t t_start = 0, t_ack = 0, t_en = 0, t_err = 0, t_ack2 = 0;
    run([&] {
        t_start = sc_core::sc_time_stamp().value();
        start_matmul(*master, 8, 32, 32, irq_en);
        EXPECT_FALSE(mla->irq.level());
        sc_core::wait(sc_time(static_cast<double>(192 * kPs300MHz + 1), SC_PS));
        EXPECT_TRUE(mla->irq.level());
        sc_core::wait(sc_time(50, SC_NS));
        EXPECT_TRUE(mla->irq.level()) << "level-sensitive: stays high until ACK";
        master->wr(S2_MLA_ACK, 0);  // bit 0 clear: no effect
        EXPECT_TRUE(mla->irq.level());
        t_ack = sc_core::sc_time_stamp().value();
        master->wr(S2_MLA_ACK, 1);
        EXPECT_FALSE(mla->irq.level());
        EXPECT_EQ(master->rd(S2_MLA_STATUS), 0u);

        // Without IRQ_EN no interrupt; enabling it while DONE raises the line.
        start_matmul(*master, 4, 16, 16);
        master->wait_idle();
        EXPECT_FALSE(mla->irq.level());
        t_en = sc_core::sc_time_stamp().value();
        master->wr(S2_MLA_CTRL, irq_en);
        EXPECT_TRUE(mla->irq.level());
        master->wr(S2_MLA_CTRL, 0);
        EXPECT_FALSE(mla->irq.level());
        master->wr(S2_MLA_ACK, 1);

        // An error with IRQ_EN interrupts too.
        master->wr(S2_MLA_M, 0);
        t_err = sc_core::sc_time_stamp().value();
        master->wr(S2_MLA_CTRL, irq_en | 1u);
        EXPECT_TRUE(mla->irq.level());
        t_ack2 = sc_core::sc_time_stamp().value();
        master->wr(S2_MLA_ACK, 1);
        EXPECT_FALSE(mla->irq.level());
    });
    const std::vector<std::pair<uint64_t, bool>> expect = {{t_start + 192 * kPs300MHz, true},
                                                           {t_ack, false},
                                                           {t_en, true},
                                                           {t_en, false},
                                                           {t_err, true},
                                                           {t_ack2, false}};
    EXPECT_EQ(probe.edges, expect);
}

TEST_F(MlaTest, StartClearsPreviousDoneAndError) {
    build();
    run([&] {
        start_matmul(*master, 4, 16, 16);
        EXPECT_EQ(master->wait_idle(), kDone);
        start_matmul(*master, 4, 16, 16);  // no ACK in between
        EXPECT_EQ(master->rd(S2_MLA_STATUS), kBusy);
        EXPECT_EQ(master->wait_idle(), kDone);
        master->wr(S2_MLA_M, 0);
        master->wr(S2_MLA_CTRL, 1u);
        const uint32_t s = master->rd(S2_MLA_STATUS);
        EXPECT_EQ(s & (kBusy | kDone | kError), kError);
        EXPECT_EQ(errcode(s), S2_MLA_ERR_SHAPE);
        start_matmul(*master, 4, 16, 16);
        EXPECT_EQ(master->rd(S2_MLA_STATUS), kBusy);
        EXPECT_EQ(master->wait_idle(), kDone);
    });
    EXPECT_EQ(mla->total_ops(), 3u);
}

}  // namespace
}  // namespace nmsim::spinnaker2
