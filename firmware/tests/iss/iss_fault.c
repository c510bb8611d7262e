/* ISS differential test: which handler a fault reaches and what it records (ARMv7-M B1.5.5,
 * B3.2.15-B3.2.18). MemManage, BusFault and UsageFault are taken when SHCSR enables them and
 * their priority can preempt; otherwise they escalate to HardFault with HFSR.FORCED (disabled,
 * PRIMASK, BASEPRI, a handler of higher priority). The causes: UDF (UNDEFINSTR), a coprocessor
 * other than the FPU and an FPU that CPACR denies (NOCP, also privileged-only access from
 * unprivileged code), data access to an unmapped address (PRECISERR with BFAR), instruction fetch
 * from an unmapped address (IBUSERR, no BFAR) and from an execute-never region (IACCVIOL), BX to
 * an even address, an exception return to a frame with T clear and a vector with bit 0 clear
 * (INVSTATE, stacked T = 0), invalid EXC_RETURN values and a return to thread mode with another
 * exception active (INVPC, taken on the existing frame), an SVC that cannot be taken (HardFault,
 * return address after the SVC, so it does not run twice), and FAULTMASK cleared by exception
 * return. Each case prints the trap record (iss_trap.h). */
#include "iss_trap.h"

/* Runs `body` with g_resume set to label 1 (after the body); the fault handler resumes there. */
#define RESUME_AFTER(body, ...)                                               \
    __asm volatile("adr r12, 1f+1\n\tstr r12, [%[res]]\n\t" body "\n\t1:\n\t" \
                   :                                                          \
                   : [res] "r"(&g_resume), ##__VA_ARGS__                      \
                   : "r0", "r1", "r2", "r3", "r12", "lr", "cc", "memory")

static inline void set_primask(uint32_t v) {
    __asm volatile("msr primask, %0\n\tisb" ::"r"(v) : "memory");
}
static inline void set_basepri(uint32_t v) {
    __asm volatile("msr basepri, %0\n\tisb" ::"r"(v) : "memory");
}

/* ---- SVC and PendSV handlers: optionally return with EXC_RETURN = (LR & and) | or ---- */
static volatile uint32_t g_svc_runs, g_after_svc;
volatile uint32_t g_svc_ret[2], g_pendsv_ret[2]; /* {and, or} */

void svc_hook(uint32_t imm, uint32_t* frame, uint32_t exc_return) {
    (void)exc_return;
    g_svc_runs++;
    switch (imm) {
        case 0x32: /* return to a frame whose T bit is clear */
            frame[7] &= ~XPSR_T;
            break;
        case 0x33: /* back to privileged thread mode */
            __asm volatile("mrs r0, control\n\tbic r0, r0, #1\n\tmsr control, r0\n\tisb" ::
                               : "r0", "memory");
            break;
        case 0x34: /* FAULTMASK set in the handler: the return clears it */
            __asm volatile("cpsid f" ::: "memory");
            break;
        case 0x37: /* change every APSR flag (NZCV, Q, GE): the return restores the thread's */
            __asm volatile(
                "movs r0, #0\n\tmvn r1, #0\n\tuadd8 r0, r1, r1\n\tmov r0, #0xF8000000\n\t"
                "msr APSR_nzcvq, r0" ::
                    : "r0", "r1", "cc");
            break;
        case 0x35: /* pend a higher-priority PendSV that returns to thread mode (invalid) */
            SHPR_PENDSV = 0x20u;
            g_pendsv_ret[0] = 0xFFFFFFFFu;
            g_pendsv_ret[1] = 0x8u; /* return to thread mode */
            ICSR = ICSR_PENDSVSET;
            barrier();
            SHPR_PENDSV = 0xC0u;
            break;
        default:
            break;
    }
}

__attribute__((naked)) void SVC_Handler(void) {
    __asm volatile(
        "tst lr, #4\n\t"
        "ite eq\n\t"
        "mrseq r0, msp\n\t"
        "mrsne r0, psp\n\t"
        "mov r1, lr\n\t"
        "push {r1, lr}\n\t"
        "bl svc_main\n\t"
        "pop {r1, lr}\n\t"
        "ldr r1, =g_svc_ret\n\t"
        "ldr r2, [r1]\n\t"
        "cbz r2, 1f\n\t"
        "ldr r3, [r1, #4]\n\t"
        "and r2, r2, lr\n\t"
        "orr r2, r2, r3\n\t"
        "movs r3, #0\n\t"
        "str r3, [r1]\n\t"
        "str r3, [r1, #4]\n\t"
        "bx r2\n\t"
        "1: bx lr\n\t");
}

/* ---- PendSV: optionally executes an SVC, optionally returns with g_pendsv_excret ---- */
static volatile uint32_t g_pendsv_svc, g_pendsv_runs, g_pendsv_after;

void pendsv_main(void) {
    g_pendsv_runs++;
    if (g_pendsv_svc) {
        g_pendsv_svc = 0;
        __asm volatile("svc #0x36" ::: "r0", "r1", "r2", "r3", "r12", "lr", "memory");
        g_pendsv_after++;
    }
}

__attribute__((naked)) void PendSV_Handler(void) {
    __asm volatile(
        "push {r4, lr}\n\t"
        "bl pendsv_main\n\t"
        "pop {r4, lr}\n\t"
        "ldr r1, =g_pendsv_ret\n\t"
        "ldr r2, [r1]\n\t"
        "cbz r2, 1f\n\t"
        "ldr r3, [r1, #4]\n\t"
        "and r2, r2, lr\n\t"
        "orr r2, r2, r3\n\t"
        "movs r3, #0\n\t"
        "str r3, [r1]\n\t"
        "str r3, [r1, #4]\n\t"
        "bx r2\n\t"
        "1: bx lr\n\t");
}

static void test_usage(void) {
    SHCSR = 0;
    RESUME_AFTER("udf #1");
    trap_print("fault.udf.disabled", 0);
    SHCSR = SHCSR_ENABLES;
    RESUME_AFTER("udf #2");
    trap_print("fault.udf.enabled", 0);
    RESUME_AFTER("mrc p15, 0, r0, c1, c0, 0");
    trap_print("fault.nocp.cp15", 0);
    RESUME_AFTER("mcr p7, 0, r0, c1, c0, 0");
    trap_print("fault.nocp.cp7", 0);

    /* CPACR: no access, then privileged only (from privileged and unprivileged thread mode) */
    CPACR = 0;
    barrier();
    RESUME_AFTER("vmov s0, r1");
    trap_print("fault.nocp.cpacr_off", 0);
    RESUME_AFTER("vadd.f32 s0, s1, s2");
    trap_print("fault.nocp.cpacr_off.vadd", 0);
    CPACR = 0x5u << 20;
    barrier();
    RESUME_AFTER("vmov s0, r1");
    trap_print("fault.nocp.priv_only.priv", 0);
    __asm volatile("mrs r0, control\n\torr r0, r0, #1\n\tmsr control, r0\n\tisb" ::
                       : "r0", "memory");
    RESUME_AFTER("vmov s0, r1");
    __asm volatile("svc #0x33" ::: "r0", "r1", "r2", "r3", "r12", "lr", "memory");
    trap_print("fault.nocp.priv_only.unpriv", 0);
    CPACR = 0xFu << 20;
    barrier();
}

static void test_bus_and_memmanage(void) {
    SHCSR = 0;
    RESUME_AFTER("ldr r0, [%[bad]]", [bad] "r"(UNMAPPED + 0x40u));
    trap_print("fault.read.disabled", 0);
    SHCSR = SHCSR_ENABLES;
    RESUME_AFTER("ldr r0, [%[bad], #4]", [bad] "r"(UNMAPPED + 0x40u));
    trap_print("fault.read.enabled", 0);
    RESUME_AFTER("movs r0, #1\n\tstrh r0, [%[bad]]", [bad] "r"(0x60000010u));
    trap_print("fault.write.enabled", 0);
    RESUME_AFTER("ldrb r0, [%[bad]]", [bad] "r"(0xF0000008u));
    trap_print("fault.read.f0", 0);

    /* instruction fetch: unmapped (IBUSERR, stacked PC = the target) and execute-never */
    RESUME_AFTER("blx %[t]", [t] "r"(UNMAPPED + 0x101u));
    trap_print("fault.fetch.unmapped", 0);
    RESUME_AFTER("blx %[t]", [t] "r"(0xE0000001u));
    trap_print("fault.fetch.xn_e", 0);
    RESUME_AFTER("blx %[t]", [t] "r"(0x40000201u));
    trap_print("fault.fetch.xn_4", 0);
    SHCSR = 0;
    RESUME_AFTER("blx %[t]", [t] "r"(0xA0000001u));
    trap_print("fault.fetch.xn_a.disabled", 0);
    RESUME_AFTER("blx %[t]", [t] "r"(UNMAPPED + 1u));
    trap_print("fault.fetch.unmapped.disabled", 0);
    SHCSR = SHCSR_ENABLES;
}

static uint32_t g_vectors[64] __attribute__((aligned(256)));

static void test_invstate(void) {
    SHCSR = SHCSR_ENABLES;
    /* BX to an even address: the fault is taken at the target, stacked T = 0; the target
     * word-aligned, then halfword-aligned only */
    uint32_t target;
    __asm volatile("adr %0, 3f\n\tb 4f\n\t.balign 4\n\t3: nop\n\tnop\n\t4:" : "=r"(target));
    RESUME_AFTER("blx %[t]", [t] "r"(target));
    trap_print("fault.invstate.bx", target);
    RESUME_AFTER("blx %[t]", [t] "r"(target + 2u));
    trap_print("fault.invstate.bx_half", target);
    /* exception return to a frame whose stacked xPSR has T clear; the return address
     * word-aligned, then halfword-aligned only */
    RESUME_AFTER(".balign 4\n\tnop\n\tsvc #0x32\n\t2:");
    trap_print("fault.invstate.return", 0);
    RESUME_AFTER(".balign 4\n\tsvc #0x32\n\t2:");
    trap_print("fault.invstate.return_half", 0);
    /* a vector with bit 0 clear: INVSTATE at the handler's first instruction, in handler mode */
    const uint32_t* vt = (const uint32_t*)VTOR;
    for (uint32_t i = 0; i < 64; ++i) g_vectors[i] = vt[i];
    g_vectors[14] = (uint32_t)&PendSV_Handler & ~1u;
    VTOR = (uint32_t)g_vectors;
    barrier();
    SHPR_PENDSV = 0xC0u;
    g_resume = (uint32_t)&PendSV_Handler; /* the UsageFault handler continues the real handler */
    ICSR = ICSR_PENDSVSET;
    barrier();
    VTOR = (uint32_t)vt;
    barrier();
    trap_print("fault.invstate.vector", (uint32_t)&PendSV_Handler & ~1u);
    line_begin("fault.invstate.vector.pendsv");
    kv("runs", g_pendsv_runs);
    out_nl();
    g_pendsv_runs = 0;
}

static void test_invpc(void) {
    SHCSR = SHCSR_ENABLES;
    SHPR_SVC = 0x80u;
    /* an EXC_RETURN with invalid low bits (1011): INVPC on the SVC's own frame, LR = the bad
     * value; the UsageFault handler returns with the valid one */
    g_svc_ret[0] = 0xFFFFFFFFu;
    g_svc_ret[1] = 0x2u;
    g_fix_and = ~0x2u;
    g_continue = 1;
    __asm volatile("svc #0x31\n\tmov %0, #1"
                   : "=r"(g_after_svc)::"r0", "r1", "r2", "r3", "r12", "lr", "memory");
    trap_print("fault.invpc.bad_value", 0);
    line_begin("fault.invpc.bad_value.after");
    kv("after", g_after_svc);
    out_nl();
    g_after_svc = 0;

    /* low bits 0000 (and bit 0 clear) */
    g_svc_ret[0] = ~0xFu;
    g_fix_and = 0xFFFFFFFFu;
    g_fix_or = 0x9u;
    g_continue = 1;
    __asm volatile("svc #0x31" ::: "r0", "r1", "r2", "r3", "r12", "lr", "memory");
    trap_print("fault.invpc.value_f0", 0);

    /* a return to thread mode while SVCall is still active (CCR.NONBASETHRDENA = 0): INVPC on
     * PendSV's frame; the handler returns to the SVC handler instead */
    g_fix_and = ~0x8u;
    g_continue = 1;
    __asm volatile("svc #0x35" ::: "r0", "r1", "r2", "r3", "r12", "lr", "memory");
    trap_print("fault.invpc.nonbase", 0);
    line_begin("fault.invpc.nonbase.runs");
    kv("svc", g_svc_runs);
    kv("pendsv", g_pendsv_runs);
    kv("ccr", CCR);
    out_nl();
    g_svc_runs = g_pendsv_runs = 0;
}

static void test_escalation(void) {
    SHCSR = SHCSR_ENABLES;
    /* PRIMASK: a configurable fault cannot preempt priority 0 */
    set_primask(1);
    RESUME_AFTER("udf #3");
    set_primask(0);
    trap_print("fault.esc.primask", 0);
    /* BASEPRI at or above the fault's priority */
    SHPR_USAGE = 0x80u;
    set_basepri(0x80u);
    RESUME_AFTER("udf #4");
    trap_print("fault.esc.basepri", 0);
    SHPR_USAGE = 0x20u;
    RESUME_AFTER("udf #5");
    trap_print("fault.esc.basepri_below", 0);
    set_basepri(0);
    SHPR_USAGE = 0;
}

/* Faults raised in handler mode (run_in_svc: SVCall at priority 0x80). */
static void udf_in_handler(uint32_t arg) {
    (void)arg;
    RESUME_AFTER("udf #6");
}
static void read_in_handler(uint32_t addr) { RESUME_AFTER("ldr r0, [%[a]]", [a] "r"(addr)); }

static void test_handler_priority(void) {
    SHCSR = SHCSR_ENABLES;
    SHPR_SVC = 0x80u;
    SHPR_USAGE = 0xC0u; /* lower than SVCall: escalates */
    run_in_svc(udf_in_handler, 0);
    trap_print("fault.handler.uf_low", 0);
    SHPR_USAGE = 0x40u; /* higher: nested UsageFault */
    run_in_svc(udf_in_handler, 0);
    trap_print("fault.handler.uf_high", 0);
    SHPR_BUS = 0x20u;
    run_in_svc(read_in_handler, UNMAPPED + 0x80u);
    trap_print("fault.handler.bf_high", 0);
    SHPR_BUS = 0x80u; /* equal group priority: cannot preempt */
    run_in_svc(read_in_handler, UNMAPPED + 0x84u);
    trap_print("fault.handler.bf_equal", 0);
    SHPR_USAGE = 0;
    SHPR_BUS = 0;
}

static void test_svc(void) {
    SHCSR = SHCSR_ENABLES;
    SHPR_SVC = 0x80u;
    /* SVC with PRIMASK set: HardFault, the return address after the SVC */
    uint32_t after = 0;
    g_continue = 1;
    set_primask(1);
    __asm volatile("svc #0x30\n\tadd %0, %0, #1"
                   : "+r"(after)::"r0", "r1", "r2", "r3", "r12", "lr", "memory");
    set_primask(0);
    trap_print("fault.svc.primask", 0);
    line_begin("fault.svc.primask.runs");
    kv("svc", g_svc_runs);
    kv("after", after);
    out_nl();
    g_svc_runs = 0;

    /* SVC in a handler whose priority SVCall cannot preempt (PendSV at 0x40 < 0x80) */
    SHPR_PENDSV = 0x40u;
    g_pendsv_svc = 1;
    g_continue = 1;
    ICSR = ICSR_PENDSVSET;
    barrier();
    trap_print("fault.svc.in_pendsv", 0);
    line_begin("fault.svc.in_pendsv.runs");
    kv("svc", g_svc_runs);
    kv("pendsv", g_pendsv_runs);
    kv("after", g_pendsv_after);
    out_nl();
    g_svc_runs = g_pendsv_runs = g_pendsv_after = 0;
    SHPR_PENDSV = 0xC0u;

    /* the thread's flags, Q and GE come back from the stacked xPSR */
    uint32_t apsr;
    __asm volatile("msr APSR_nzcvqg, %1\n\tsvc #0x37\n\tmrs %0, APSR"
                   : "=r"(apsr)
                   : "r"(0x50000000u | (0x5u << 16))
                   : "r0", "r1", "r2", "r3", "r12", "lr", "cc", "memory");
    line_begin("fault.apsr_restored");
    kv("apsr", apsr);
    out_nl();

    /* FAULTMASK set in a handler is cleared by its exception return */
    uint32_t fm;
    __asm volatile("svc #0x34\n\tmrs %0, faultmask"
                   : "=r"(fm)::"r0", "r1", "r2", "r3", "r12", "lr", "memory");
    line_begin("fault.faultmask_cleared");
    kv("faultmask", fm);
    out_nl();
    g_svc_runs = 0;
}

int main(void) {
    out_str("iss_fault start\n");
    line_begin("fault.reset");
    kv("shcsr", SHCSR);
    kv("cfsr", CFSR);
    kv("hfsr", HFSR);
    kv("ccr", CCR);
    out_nl();
    test_usage();
    test_bus_and_memmanage();
    test_invstate();
    test_invpc();
    test_escalation();
    test_handler_priority();
    test_svc();
    SHCSR = 0;
    out_str("iss_fault end\n");
    return 0;
}
