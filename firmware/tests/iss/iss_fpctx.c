/* ISS differential test: FP context on exception entry and return (ARMv7-M B1.5.7, lazy context
 * save; B3.2.20-B3.2.22 FPCCR, FPCAR). With an FP context live (CONTROL.FPCA) exception entry
 * reserves the extended frame. With FPCCR.LSPEN set (the reset value) it only records FPCAR (the
 * frame's FP area) and sets FPCCR.LSPACT and the ready bits; the handler's first FP instruction
 * writes S0-S15 and FPSCR there; a handler that never uses the FPU leaves the area untouched and
 * the return does not reload it. With LSPEN clear the registers are written at entry. Each case
 * prints what the SVC handler saw before and after its first FP instruction: FPCCR, FPCAR
 * relative to the frame, the frame's S0 and FPSCR slots, CONTROL and EXC_RETURN, and the
 * thread's FP registers after the return. */
#include "iss_trap.h"

ISS_SVC_HANDLER

#define SENTINEL 0x5EAF00D5u

typedef struct {
    uint32_t fpccr0, fpcar_off, s0_slot0, fpscr_slot0, control0; /* before the FP instruction */
    uint32_t fpccr1, s0_slot1, fpscr_slot1, control1, excret;    /* after it */
} Seen;
static volatile Seen g_seen;
static volatile uint32_t g_pendsv_fp;

/* No FP instruction may run before the first reads: the reads are plain loads. */
void svc_hook(uint32_t imm, uint32_t* frame, uint32_t exc_return) {
    g_seen.fpccr0 = FPCCR;
    g_seen.fpcar_off = FPCAR - (uint32_t)frame;
    g_seen.s0_slot0 = frame[8];
    g_seen.fpscr_slot0 = frame[24];
    g_seen.control0 = get_control();
    g_seen.excret = exc_return;
    if (imm == 0x42) { /* a higher-priority PendSV that uses the FPU preempts first */
        g_pendsv_fp = 1;
        SHPR_PENDSV = 0x20u;
        ICSR = ICSR_PENDSVSET;
        barrier();
        SHPR_PENDSV = 0xC0u;
    }
    if (imm == 0x40 || imm == 0x42) { /* the handler's first FP instruction */
        __asm volatile("vmov.f32 s15, #2.0\n\tvmrs r0, fpscr" ::: "r0", "s15", "memory");
    }
    g_seen.fpccr1 = FPCCR;
    g_seen.s0_slot1 = frame[8];
    g_seen.fpscr_slot1 = frame[24];
    g_seen.control1 = get_control();
}

void PendSV_Handler(void) {
    if (g_pendsv_fp) {
        g_pendsv_fp = 0;
        __asm volatile(
            "vmov.f32 s0, #-1.0\n\tvmov.f32 s1, #-1.0\n\tvmsr fpscr, %0" ::"r"(0x03C00000u)
            : "s0", "s1", "memory");
    }
}

/* Thread code: a live FP context (S0 = 1.5, S1 = 2.5, FPSCR with flags), a sentinel in the
 * stack area the frame will occupy, the SVC, and the FP registers afterwards. */
static void run_case(const char* name, uint32_t imm_sel) {
    uint32_t s0, s1, fpscr;
    for (uint32_t i = 0; i < sizeof(Seen) / 4; ++i) ((volatile uint32_t*)&g_seen)[i] = 0;
    __asm volatile(
        "mov r0, sp\n\t"
        "sub r1, r0, #160\n\t"
        "ldr r2, =0x5EAF00D5\n\t"
        "2: str r2, [r1], #4\n\t"
        "cmp r1, r0\n\t"
        "bne 2b\n\t"
        "vmov.f32 s0, #1.5\n\t"
        "vmov.f32 s1, #2.5\n\t"
        "ldr r2, =0xA0000010\n\t"
        "vmsr fpscr, r2\n\t"
        "cmp %[sel], #0\n\t"
        "beq 3f\n\t"
        "cmp %[sel], #1\n\t"
        "beq 4f\n\t"
        "svc #0x42\n\t"
        "b 5f\n\t"
        "3: svc #0x40\n\t"
        "b 5f\n\t"
        "4: svc #0x41\n\t"
        "5: vmov %[s0], s0\n\t"
        "vmov %[s1], s1\n\t"
        "vmrs %[f], fpscr\n\t"
        : [s0] "=&r"(s0), [s1] "=&r"(s1), [f] "=&r"(fpscr)
        : [sel] "r"(imm_sel)
        : "r0", "r1", "r2", "r3", "r12", "lr", "s0", "s1", "s15", "cc", "memory");
    line_begin("fpctx.");
    out_str(name);
    kv("fpccr0", g_seen.fpccr0);
    kv("fpcar", g_seen.fpcar_off);
    kv("s0slot0", g_seen.s0_slot0);
    kv("fpscrslot0", g_seen.fpscr_slot0);
    kv("ctrl0", g_seen.control0);
    kv("er", g_seen.excret);
    out_nl();
    line_begin("fpctx.");
    out_str(name);
    out_str(".after");
    kv("fpccr1", g_seen.fpccr1);
    kv("s0slot1", g_seen.s0_slot1);
    kv("fpscrslot1", g_seen.fpscr_slot1);
    kv("ctrl1", g_seen.control1);
    kv("s0", s0);
    kv("s1", s1);
    kv("fpscr", fpscr);
    kv("fpccr", FPCCR);
    kv("ctrl", get_control());
    out_nl();
}

int main(void) {
    out_str("iss_fpctx start\n");
    line_begin("fpctx.reset");
    kv("fpccr", FPCCR);
    kv("fpcar", FPCAR);
    out_nl();
    SHPR_SVC = 0x80u;
    /* lazy (LSPEN set): the handler uses the FPU, does not use it, a preempting handler does */
    run_case("lazy", 0);
    run_case("lazy_nofp", 1);
    run_case("lazy_nested", 2);
    /* the ready bits follow the fault enables and priorities of the interrupted context */
    SHCSR = SHCSR_ENABLES;
    SHPR_MEM = 0x40u;
    SHPR_BUS = 0xC0u;
    run_case("lazy_ready", 0);
    SHCSR = 0;
    SHPR_MEM = SHPR_BUS = 0;
    /* eager (LSPEN clear): written at entry; FPCAR stays where the last lazy entry put it */
    FPCCR = 1u << 31;
    barrier();
    run_case("eager", 0);
    run_case("eager_nofp", 1);
    FPCCR = 3u << 30;
    barrier();
    out_str("iss_fpctx end\n");
    return 0;
}
