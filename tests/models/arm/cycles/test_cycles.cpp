// Checks the Cortex-M4F cycle model (models/arm/cycle_model.h, cortex_m4f.h) against the
// Cortex-M4 TRM (ARM 100166_0001) with the microbenchmarks of firmware/tests/cycles/cycles.c,
// which measure each instruction class with the DWT cycle counter on the simulated core.
//
// Two independent statements per kernel (docs/cycle_model.md has the table):
//  1. nmsim's cycles equal the documented model exactly: a formula written here from the cost
//     table and the core parameters (refill P, divide cycles, exception entry/return).
//  2. nmsim's cycles per operation lie within the TRM's value or range, widened only by the
//     documented approximations of the model (each named in `why`).
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "platforms/spinnaker2/run_elf.h"

namespace {

const std::string kElf = std::string(NMSIM_FIRMWARE_DIR) + "/cyc_cycles.elf";

struct Kernel {
    std::string unit;  // insn, exc or raw
    int64_t ops = 0;
    int64_t raw = 0;  // counter difference, including the measurement itself
};

struct KernelRun {
    nmsim::spinnaker2::ElfRunResult result;
    std::map<std::string, Kernel> kernels;
    int64_t baseline = -1;

    // Cycles of the kernel alone: the measurement's own cost (baseline) removed, except for the
    // "raw" kernels whose reads share one block.
    int64_t net(const std::string& name) const {
        const Kernel& k = kernels.at(name);
        return k.unit == "raw" ? k.raw : k.raw - baseline;
    }
    double per_op(const std::string& name) const {
        return static_cast<double>(net(name)) / static_cast<double>(kernels.at(name).ops);
    }
};

// Lines "cyc <name> unit=<u> ops=<n> cycles=<raw> ..." from the console.
KernelRun run_kernels(const std::vector<std::string>& sets = {}) {
    KernelRun r;
    r.result = nmsim::spinnaker2::run_elf(kElf, sets);
    std::istringstream lines(r.result.console);
    std::string line;
    while (std::getline(lines, line)) {
        std::istringstream f(line);
        std::string tag, name, field;
        if (!(f >> tag >> name) || tag != "cyc") continue;
        Kernel k;
        while (f >> field) {
            const auto eq = field.find('=');
            if (eq == std::string::npos) continue;
            const std::string key = field.substr(0, eq), val = field.substr(eq + 1);
            if (key == "unit") k.unit = val;
            if (key == "ops") k.ops = std::stoll(val);
            if (key == "cycles") k.raw = std::stoll(val);
        }
        if (name == "baseline") r.baseline = k.raw;
        r.kernels[name] = k;
    }
    return r;
}

// Core parameters the model's costs depend on (CoreParams in models/arm/cortex_m4f.h).
struct CoreCosts {
    int64_t refill = 2;     // branch_refill_cycles (P)
    int64_t div = 7;        // div_cycles
    int64_t entry = 12;     // exception_entry_cycles
    int64_t fp_extra = 17;  // fp_frame_extra_cycles
    int64_t ret = 10;       // exception_return_cycles
};

// Net cycles of each kernel as the documented model predicts them (cycle_model.h table).
std::map<std::string, int64_t> model_cycles(const CoreCosts& c) {
    const int64_t P = c.refill, D = c.div;
    return {
        {"baseline", 1 + 2 + 1 + P},  // NOP + LDR (after a non-load) + B to the next insn (1+P)
        {"add", 100},
        {"mul", 100},
        {"mla", 100},
        {"sdiv", 100 * D},
        {"ldr", 2 + 99 * 1},      // the first load 2, each following (pipelined) load 1
        {"ldr_dep", 2 + 99 * 1},  // address dependency not modelled: same as independent
        {"str", 100},
        {"str_reg", 100},
        {"ldr_str", 50 * (2 + 1)},  // nothing pipelines after a store: LDR 2, STR 1
        {"push_pop", 20 * (1 + 8)},
        {"ldrd_strd", 100 * 3},
        {"ldm_stm", 100 * (1 + 3)},
        {"vadd", 100},
        {"vmul", 100},
        {"vmla", 100 * 3},
        {"vdiv", 100 * 14},
        {"vsqrt", 100 * 14},
        {"vldr_vstr", 100 * 2},
        {"vmov_rs", 100 * 1},
        {"vmov_d", 100 * 2},
        {"vmov_ss", 100 * 2},
        {"b_next", 100 * (1 + P)},  // an unconditional branch refills even to the next insn
        {"b_skip", 100 * (1 + P)},
        {"bcc_not_taken", 100 * 1},
        {"loop", 100 * 2 + 99 * P},  // the last BNE falls through
        {"call", 100 * ((1 + P) + (1 + P))},
        {"tbb", 100 * (2 + P)},
        {"it_add", 50 * (1 + 1)},
        {"it_sdiv", 50 * (1 + D)},  // condition-failed instructions costed as executed
        {"svc", 10 * (1 + c.entry + 1 + c.ret)},     // SVC, entry, BX LR, return
        {"svc_fp", 10 * (1 + c.entry + 1 + c.ret)},  // lazy: the handler does not use the FPU
        {"svc_fp_eager", 10 * (1 + c.entry + c.fp_extra + 1 + c.ret)},
        {"dwt_same_block", 0},  // the whole block is charged before either read
    };
}

// TRM cycles per operation [lo, hi] (zero wait states; P = 1..3), and the documented model
// approximation that may take nmsim outside it: accepted = [lo + below, hi + above].
struct TrmBound {
    const char* name;
    double lo, hi;
    double below, above;
    const char* why;
};

const TrmBound kTrm[] = {
    {"add", 1, 1, 0, 0, "TRM Table 3-1 ADD 1"},
    {"mul", 1, 1, 0, 0, "TRM Table 3-1 MUL 1"},
    {"mla", 1, 1, 0, 0, "TRM Table 3-1 MLA 1"},
    {"sdiv", 2, 12, 0, 0, "TRM Table 3-1 SDIV 2..12 (early termination); model: div_cycles"},
    {"ldr", 1.01, 1.01, 0, 0, "TRM 3.3.2: first LDR 2, following independent LDRs pipeline (1)"},
    {"ldr_dep", 2, 2, -0.99, 0,
     "TRM 3.3.2: no pipelining when the address uses the previous load's result; model: "
     "address dependencies not modelled (documented approximation)"},
    {"str", 1, 2, 0, 0, "TRM 3.3.2: STR Rx,[Ry,#imm] one cycle; Table 3-1: 2 unpipelined"},
    {"str_reg", 1, 2, 0, 0,
     "TRM 3.3.2: nothing pipelines after STR with register offset (2 if the next instruction "
     "would overlap; 1 with the write buffer); model: 1"},
    {"ldr_str", 1.5, 1.5, 0, 0, "TRM 3.3.2: LDR; STR normally three cycles"},
    {"push_pop", 9, 9, 0, 0, "TRM Table 3-1 PUSH/POP 1+N, N = 8"},
    {"ldrd_strd", 3, 3, 0, 0, "TRM Table 3-1 LDRD/STRD 1+N, N = 2; 3.3.2: not pipelined"},
    {"ldm_stm", 4, 4, 0, 0, "TRM Table 3-1 LDM/STM 1+N, N = 3"},
    {"vadd", 1, 1, 0, 0, "TRM FPU table VADD.F32 1"},
    {"vmul", 1, 1, 0, 0, "TRM FPU table VMUL.F32 1"},
    {"vmla", 3, 3, 0, 0, "TRM FPU table VMLA.F32 3"},
    {"vdiv", 14, 14, 0, 0, "TRM FPU table VDIV.F32 14"},
    {"vsqrt", 14, 14, 0, 0, "TRM FPU table VSQRT.F32 14"},
    {"vldr_vstr", 2, 2, 0, 0, "TRM FPU table VLDR.32/VSTR.32 2"},
    {"vmov_rs", 1, 1, 0, 0, "TRM FPU table VMOV Sn, Rt / Rt, Sn 1"},
    {"vmov_d", 2, 2, 0, 0, "TRM FPU table VMOV Dm, Rt, Rt2 / Rt, Rt2, Dm 2"},
    {"vmov_ss", 2, 2, 0, 0, "TRM FPU table VMOV Sm, Sm1, Rt, Rt2 / Rt, Rt2, Sm, Sm1 2"},
    {"b_next", 2, 4, 0, 0, "TRM Table 3-1 B 1+P, also when the target is the next instruction"},
    {"b_skip", 2, 4, 0, 0, "TRM Table 3-1 B 1+P, P = 1..3"},
    {"bcc_not_taken", 1, 1, 0, 0, "TRM Table 3-1 B<cc> not taken 1"},
    {"loop", (100 * 2 + 99 * 1) / 200.0, (100 * 2 + 99 * 3) / 200.0, 0, 0,
     "SUBS 1 + BNE 1+P (taken 99x, 1 not taken)"},
    {"call", 2, 4, 0, 0, "TRM Table 3-1 BL 1+P and BX 1+P"},
    {"tbb", 3, 5, 0, 0, "TRM Table 3-1 TBB 2+P"},
    {"it_add", 0.5, 1, 0, 0, "IT 1 (Table 3-1; 0 if folded), condition-failed ADD 1"},
    {"it_sdiv", 0.5, 1, 0, 4.0,
     "condition-failed SDIV takes 1 cycle in the TRM; the model costs it as executed "
     "(documented approximation, +(div_cycles-1)/2 per instruction here)"},
    {"svc", 24, 24, 0, 0,
     "SVC 1 + entry 12 (12-cycle interrupt latency) + BX LR 1 + return 10 (CoreParams: "
     "assumed)"},
    {"svc_fp", 24, 24, 0, 0,
     "as svc; extended frame with lazy stacking (FPCCR.LSPEN, reset default): +0 when the "
     "handler does not use the FPU"},
    {"svc_fp_eager", 41, 41, 0, 0,
     "as svc; extended frame without lazy stacking: +17 (assumed: one cycle per extra stacked "
     "word, S0-S15 and FPSCR)"},
    {"dwt_same_block", 1.0, 1.04, -1.04, 0,
     "50 ADD + LDR between the reads; model: a block's cycles are charged before it runs, so "
     "MMIO in a block sees the block's end time (documented: error <= one block)"},
};

class CycleModel : public ::testing::Test {
protected:
    static void SetUpTestSuite() { s_default = new KernelRun(run_kernels()); }
    static void TearDownTestSuite() {
        delete s_default;
        s_default = nullptr;
    }
    static KernelRun* s_default;
};
KernelRun* CycleModel::s_default = nullptr;

void expect_ran(const KernelRun& r) {
    ASSERT_FALSE(r.result.error) << r.result.message << "\n" << r.result.console;
    ASSERT_TRUE(r.result.exited) << r.result.console;
    ASSERT_EQ(r.result.exit_code, 0) << r.result.console;
    ASSERT_GT(r.baseline, 0) << r.result.console;
}

void expect_model(const KernelRun& r, const CoreCosts& c) {
    const auto want = model_cycles(c);
    for (const auto& [name, cycles] : want) {
        ASSERT_EQ(r.kernels.count(name), 1u) << "kernel " << name << " missing:\n"
                                             << r.result.console;
        const int64_t got = name == "baseline" ? r.baseline : r.net(name);
        EXPECT_EQ(got, cycles) << "kernel " << name;
    }
    EXPECT_EQ(r.kernels.size(), want.size()) << "kernels without an expectation:\n"
                                             << r.result.console;
}

TEST_F(CycleModel, ProgramRuns) { expect_ran(*s_default); }

TEST_F(CycleModel, EveryKernelMatchesTheDocumentedModel) {
    expect_ran(*s_default);
    expect_model(*s_default, CoreCosts{});
}

TEST_F(CycleModel, EveryKernelIsWithinTheTrmBounds) {
    expect_ran(*s_default);
    size_t checked = 0;
    for (const TrmBound& b : kTrm) {
        ASSERT_EQ(s_default->kernels.count(b.name), 1u) << b.name;
        const double got = s_default->per_op(b.name);
        const double lo = b.lo + b.below - 1e-9, hi = b.hi + b.above + 1e-9;
        EXPECT_GE(got, lo) << b.name << ": " << b.why;
        EXPECT_LE(got, hi) << b.name << ": " << b.why;
        ++checked;
    }
    // every measured kernel has a TRM bound (the baseline is the measurement itself)
    EXPECT_EQ(checked + 1, s_default->kernels.size());
}

// The approximations are where the documented table says they are: exact classes have no
// tolerance, and the deviating classes deviate (otherwise the documentation is stale).
TEST_F(CycleModel, DocumentedDeviationsAreReal) {
    expect_ran(*s_default);
    for (const TrmBound& b : kTrm) {
        const double got = s_default->per_op(b.name);
        if (b.below == 0 && b.above == 0) continue;
        EXPECT_TRUE(got < b.lo - 1e-9 || got > b.hi + 1e-9)
            << b.name << " is now within the TRM bounds: update kTrm and docs/cycle_model.md";
    }
}

// The costs that come from core parameters follow them (refill P, divide, exception costs).
TEST_F(CycleModel, ParametersChangeTheCostsAsDocumented) {
    CoreCosts c;
    c.refill = 3;
    c.div = 12;
    c.entry = 20;
    c.fp_extra = 0;
    c.ret = 5;
    const KernelRun r = run_kernels({"pe.core.branch_refill_cycles=" + std::to_string(c.refill),
                                     "pe.core.div_cycles=" + std::to_string(c.div),
                                     "pe.core.exception_entry_cycles=" + std::to_string(c.entry),
                                     "pe.core.fp_frame_extra_cycles=" + std::to_string(c.fp_extra),
                                     "pe.core.exception_return_cycles=" + std::to_string(c.ret)});
    expect_ran(r);
    expect_model(r, c);
}

}  // namespace
