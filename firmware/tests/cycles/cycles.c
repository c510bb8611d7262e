/* Cycle microbenchmarks for the Cortex-M4F timing model (checked by
 * tests/models/arm/cycles/test_cycles.cpp, documented in docs/cycle_model.md).
 *
 * Each kernel is an unrolled sequence of one instruction class between two reads of the DWT
 * cycle counter. Both reads end their basic block with a branch to the next instruction, so the
 * counter difference covers exactly the code from the first branch target to the end of the
 * second read's block, whatever the block structure in between; the empty kernel ("baseline")
 * gives the cost of the measurement itself (NOP + LDR + B), which the test subtracts.
 * Each kernel starts on a 1 KiB boundary: the ISS ends a translated block at a 1 KiB page
 * boundary, and a split would reset the model's load-pipelining state (+1 cycle).
 *
 * Output: one line per kernel, "cyc <name> unit=<u> ops=<n> cycles=<raw> net=<raw-baseline>
 * cpo=<net/n>", where unit is insn (ops counts executed instructions), exc (ops counts
 * exception round trips) or raw (no baseline applies: see dwt_same_block). NOHAL: crt0 only.
 * Real hardware also needs DEMCR.TRCENA (0xE000EDFC bit 24) before the DWT counts; nmsim does
 * not model DEMCR (an access is a bus fault), so this program does not write it. */
#include <stdint.h>

void s2_semihost_write0(const char* s);

#define DWT_CTRL 0xE0001000u
#define DWT_CYCCNT 0xE0001004u

/* Measurement frame around `body`; `setup` runs before the first read. The kernels may use
 * r4-r11, lr, s0-s2 and the flags; p (in r7 after `mov r7, %[p]`) points to 16 scratch words,
 * the first of which holds its own address. */
#define KERNEL(fn, setup, body)                                                                    \
    static uint32_t fn(uint32_t* p) {                                                              \
        uint32_t t0, t1;                                                                           \
        __asm volatile(setup                                                                       \
                       "\n\tb 3f\n\t.balign 1024\n3:\n\t"                                          \
                       "ldr %[t0], [%[cnt]]\n\tb 90f\n90:\n\t" body                                \
                       "\n\tnop\n\tldr %[t1], [%[cnt]]\n\tb 91f\n91:\n"                            \
                       : [t0] "=&r"(t0), [t1] "=&r"(t1)                                            \
                       : [cnt] "r"(DWT_CYCCNT), [p] "r"(p)                                         \
                       : "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "lr", "s0", "s1", "s2", \
                         "cc", "memory");                                                          \
        return t1 - t0;                                                                            \
    }

#define REPT(n, insns) ".rept " #n "\n\t" insns "\n\t.endr"

/* A leaf function for the call kernel and the SVC handler for the exception kernels. */
__asm__(
    "\t.section .text.cyc_leaf,\"ax\",%progbits\n"
    "\t.balign 4\n"
    "\t.global cyc_leaf\n"
    "\t.type cyc_leaf, %function\n"
    "\t.thumb_func\n"
    "cyc_leaf:\n"
    "\tbx lr\n"
    "\t.section .text.SVC_Handler,\"ax\",%progbits\n"
    "\t.balign 4\n"
    "\t.global SVC_Handler\n"
    "\t.type SVC_Handler, %function\n"
    "\t.thumb_func\n"
    "SVC_Handler:\n"
    "\tbx lr\n");

#define SET_PTR "mov r7, %[p]\n\t"
#define SET_FP "vmov.f32 s1, #1.0\n\tvmov.f32 s2, #3.0\n\t"
#define SET_DIV "movw r5, #16960\n\tmovt r5, #15\n\tmov r6, #7\n\t" /* 1000000 / 7 */

KERNEL(k_baseline, "", "")
KERNEL(k_add, "mov r5, #3", REPT(100, "add r4, r4, r5"))
KERNEL(k_mul, "mov r4, #3\n\tmov r5, #5", REPT(100, "mul r4, r4, r5"))
KERNEL(k_mla, "mov r4, #3\n\tmov r5, #5\n\tmov r6, #7", REPT(100, "mla r4, r5, r6, r4"))
KERNEL(k_sdiv, SET_DIV, REPT(100, "sdiv r4, r5, r6"))
KERNEL(k_ldr, SET_PTR, REPT(100, "ldr r4, [r7]"))
KERNEL(k_ldr_dep, SET_PTR, REPT(100, "ldr r7, [r7]")) /* *p == p: each address is the last load */
KERNEL(k_str, SET_PTR, REPT(100, "str r4, [r7, #4]"))
KERNEL(k_str_reg, SET_PTR "mov r8, #4", REPT(100, "str r4, [r7, r8]"))
KERNEL(k_ldr_str, SET_PTR, REPT(50, "ldr r4, [r7]\n\tstr r4, [r7, #4]"))
KERNEL(k_push_pop, "", REPT(10, "push {r4-r11}\n\tpop {r4-r11}"))
KERNEL(k_ldrd_strd, SET_PTR, REPT(50, "ldrd r4, r5, [r7, #16]\n\tstrd r4, r5, [r7, #24]"))
KERNEL(k_ldm_stm, SET_PTR "add r8, r7, #32", REPT(50, "ldm r8, {r4-r6}\n\tstm r8, {r4-r6}"))
KERNEL(k_vadd, SET_FP, REPT(100, "vadd.f32 s0, s1, s2"))
KERNEL(k_vmul, SET_FP, REPT(100, "vmul.f32 s0, s1, s2"))
KERNEL(k_vmla, SET_FP, REPT(100, "vmla.f32 s0, s1, s2"))
KERNEL(k_vdiv, SET_FP, REPT(100, "vdiv.f32 s0, s1, s2"))
KERNEL(k_vsqrt, SET_FP, REPT(100, "vsqrt.f32 s0, s2"))
KERNEL(k_vldr_vstr, SET_PTR, REPT(50, "vldr s0, [r7]\n\tvstr s0, [r7, #4]"))
/* transfers between core and FP registers: one register, and two (as D or as S pair) */
KERNEL(k_vmov_rs, "", REPT(50, "vmov s0, r4\n\tvmov r5, s1"))
KERNEL(k_vmov_d, "", REPT(50, "vmov d0, r4, r5\n\tvmov r4, r5, d0"))
KERNEL(k_vmov_ss, "", REPT(50, "vmov s0, s1, r4, r5\n\tvmov r4, r5, s0, s1"))
/* taken branches: to the next instruction, and over one never-executed instruction */
KERNEL(k_b_next, "", REPT(100, "b 1f\n1:"))
KERNEL(k_b_skip, "", REPT(100, "b 1f\n\tnop\n1:"))
/* conditional branches whose condition fails (Z set by the setup) */
KERNEL(k_bcc_not_taken, "cmp r4, r4", REPT(100, "bne 95f") "\n95:")
/* counted loop: 100 iterations of SUBS + BNE, 99 of them taken */
KERNEL(k_loop, "mov r4, #100", "1:\n\tsubs r4, r4, #1\n\tbne 1b")
/* 100 calls: BL to a leaf that returns with BX LR */
KERNEL(k_call, "", REPT(100, "bl cyc_leaf"))
/* TBB with index 0 and a one-entry table: each branches over its table to the next TBB */
KERNEL(k_tbb, "mov r5, #0", REPT(100, "tbb [pc, r5]\n\t.byte 1, 0"))
/* IT blocks whose instruction fails its condition (Z set) */
KERNEL(k_it_add, "cmp r4, r4", REPT(50, "it ne\n\taddne r4, r4, r5"))
KERNEL(k_it_sdiv, "cmp r4, r4\n\t" SET_DIV, REPT(50, "it ne\n\tsdivne r4, r5, r6"))
/* SVC round trips to a handler that only returns; without and with an active FP context
 * (CONTROL.FPCA), which selects the basic or the extended exception frame. FPCA is cleared
 * first; in svc_fp an FP instruction then sets it, as in any code that uses the FPU. With lazy
 * stacking (FPCCR.LSPEN, the reset value) the handler, which does not use the FPU, never
 * stacks the FP registers; svc_fp_eager clears LSPEN so that every entry stacks them. */
#define CLEAR_FPCA "mrs r4, control\n\tbic r4, r4, #4\n\tmsr control, r4\n\tisb"
KERNEL(k_svc, CLEAR_FPCA, REPT(10, "svc 0"))
KERNEL(k_svc_fp, CLEAR_FPCA "\n\tvmov.f32 s0, #1.0", REPT(10, "svc 0"))
KERNEL(k_svc_fp_eager_body, CLEAR_FPCA "\n\tvmov.f32 s0, #1.0", REPT(10, "svc 0"))
static uint32_t k_svc_fp_eager(uint32_t* p) {
    volatile uint32_t* fpccr = (volatile uint32_t*)0xE000EF34u;
    const uint32_t saved = *fpccr;
    *fpccr = saved & ~(1u << 30); /* LSPEN = 0 */
    __asm volatile("dsb\n\tisb" ::: "memory");
    const uint32_t c = k_svc_fp_eager_body(p);
    *fpccr = saved;
    return c;
}

/* Both counter reads inside one basic block (no branch between them), 50 ADDs apart. */
static uint32_t k_dwt_same_block(uint32_t* p) {
    uint32_t t0, t1;
    (void)p;
    __asm volatile("b 3f\n\t.balign 1024\n3:\n\tldr %[t0], [%[cnt]]\n\t" REPT(
                       50, "add r4, r4, r5") "\n\tldr %[t1], [%[cnt]]\n\tb 91f\n91:\n"
                   : [t0] "=&r"(t0), [t1] "=&r"(t1)
                   : [cnt] "r"(DWT_CYCCNT)
                   : "r4", "r5", "cc", "memory");
    return t1 - t0;
}

typedef struct {
    const char* name;
    const char* unit;
    uint32_t ops;
    uint32_t (*fn)(uint32_t*);
} Kernel;

static const Kernel kKernels[] = {
    {"add", "insn", 100, k_add},
    {"mul", "insn", 100, k_mul},
    {"mla", "insn", 100, k_mla},
    {"sdiv", "insn", 100, k_sdiv},
    {"ldr", "insn", 100, k_ldr},
    {"ldr_dep", "insn", 100, k_ldr_dep},
    {"str", "insn", 100, k_str},
    {"str_reg", "insn", 100, k_str_reg},
    {"ldr_str", "insn", 100, k_ldr_str},
    {"push_pop", "insn", 20, k_push_pop},
    {"ldrd_strd", "insn", 100, k_ldrd_strd},
    {"ldm_stm", "insn", 100, k_ldm_stm},
    {"vadd", "insn", 100, k_vadd},
    {"vmul", "insn", 100, k_vmul},
    {"vmla", "insn", 100, k_vmla},
    {"vdiv", "insn", 100, k_vdiv},
    {"vsqrt", "insn", 100, k_vsqrt},
    {"vldr_vstr", "insn", 100, k_vldr_vstr},
    {"vmov_rs", "insn", 100, k_vmov_rs},
    {"vmov_d", "insn", 100, k_vmov_d},
    {"vmov_ss", "insn", 100, k_vmov_ss},
    {"b_next", "insn", 100, k_b_next},
    {"b_skip", "insn", 100, k_b_skip},
    {"bcc_not_taken", "insn", 100, k_bcc_not_taken},
    {"loop", "insn", 200, k_loop},
    {"call", "insn", 200, k_call},
    {"tbb", "insn", 100, k_tbb},
    {"it_add", "insn", 100, k_it_add},
    {"it_sdiv", "insn", 100, k_it_sdiv},
    {"svc", "exc", 10, k_svc},
    {"svc_fp", "exc", 10, k_svc_fp},
    {"svc_fp_eager", "exc", 10, k_svc_fp_eager},
    {"dwt_same_block", "raw", 50, k_dwt_same_block},
};

static uint32_t g_cell[16];

/* Line output: text accumulates here and goes out through semihosting at the end of a line. */
static char g_line[128];
static uint32_t g_len;

static void put_str(const char* s) {
    while (*s && g_len + 1 < sizeof g_line) g_line[g_len++] = *s++;
}

static void put_dec(int32_t v) {
    char b[12];
    int n = 0;
    uint32_t u = v < 0 ? 0u - (uint32_t)v : (uint32_t)v;
    do {
        b[n++] = (char)('0' + u % 10u);
        u /= 10u;
    } while (u);
    if (v < 0) put_str("-");
    while (n) {
        const char c[2] = {b[--n], 0};
        put_str(c);
    }
}

static void end_line(void) {
    g_line[g_len++] = '\n';
    g_line[g_len] = 0;
    s2_semihost_write0(g_line);
    g_len = 0;
}

/* "cyc <name> unit=<u> ops=<n> cycles=<raw> net=<raw-base> cpo=<net/n, two decimals>" */
static void report(const char* name, const char* unit, uint32_t ops, uint32_t raw, uint32_t base) {
    const int32_t net = (int32_t)(raw - base);
    put_str("cyc ");
    put_str(name);
    put_str(" unit=");
    put_str(unit);
    put_str(" ops=");
    put_dec((int32_t)ops);
    put_str(" cycles=");
    put_dec((int32_t)raw);
    put_str(" net=");
    put_dec(net);
    if (ops) {
        const int32_t hundredths = net * 100 / (int32_t)ops;
        put_str(" cpo=");
        if (hundredths < 0) put_str("-");
        const int32_t a = hundredths < 0 ? -hundredths : hundredths;
        put_dec(a / 100);
        put_str(a % 100 < 10 ? ".0" : ".");
        put_dec(a % 100);
    }
    end_line();
}

int main(void) {
    g_cell[0] = (uint32_t)(uintptr_t)&g_cell[0];
    *(volatile uint32_t*)DWT_CYCCNT = 0;
    *(volatile uint32_t*)DWT_CTRL = 1u; /* CYCCNTENA */
    const uint32_t base = k_baseline(g_cell);
    report("baseline", "raw", 0, base, base);
    if (base == 0) {
        put_str("cyc error: DWT cycle counter does not count");
        end_line();
        return 1;
    }
    for (uint32_t i = 0; i < sizeof kKernels / sizeof kKernels[0]; ++i) {
        const Kernel* k = &kKernels[i];
        const uint32_t raw = k->fn(g_cell);
        const int raw_unit = k->unit[0] == 'r';
        report(k->name, k->unit, k->ops, raw, raw_unit ? 0u : base);
    }
    if (g_cell[0] != (uint32_t)(uintptr_t)&g_cell[0]) return 2; /* the dependent chain's cell */
    return 0;
}
