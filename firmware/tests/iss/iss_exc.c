/* ISS differential test, exceptions (ARMv7-M): SVC with the immediate read from the stacked PC,
 * stacked xPSR (flags, GE, stack-alignment bit) and EXC_RETURN values, PendSV pended through
 * ICSR and taken right after the barrier, PRIMASK / FAULTMASK / BASEPRI / BASEPRI_MAX masking,
 * priorities through SHPR and NVIC_IPR (byte writes, as CMSIS does), preemption, tail-chaining,
 * PRIGROUP sub-priorities, process stack, unprivileged thread mode, FP registers and FPSCR kept
 * across handlers that use the FPU (extended frames, nested), and SysTick (COUNTFLAG, reload
 * mask, interrupts while busy-looping and during WFI, masking). Only timing-independent facts
 * are printed: orders of events, register values, and "at least one tick" for SysTick. */
#include "iss_common.h"

#define REG32(a) (*(volatile uint32_t*)(a))
#define REG8(a) (*(volatile uint8_t*)(a))
#define ICSR REG32(0xE000ED04u)
#define AIRCR REG32(0xE000ED0Cu)
#define SHCSR REG32(0xE000ED24u)
#define SHPR_SVC REG8(0xE000ED1Fu)
#define SHPR_PENDSV REG8(0xE000ED22u)
#define SHPR_SYSTICK REG8(0xE000ED23u)
#define NVIC_ISER0 REG32(0xE000E100u)
#define NVIC_ICER0 REG32(0xE000E180u)
#define NVIC_ISPR0 REG32(0xE000E200u)
#define NVIC_ICPR0 REG32(0xE000E280u)
#define NVIC_IABR0 REG32(0xE000E300u)
#define NVIC_IPR(n) REG8(0xE000E400u + (n))
#define SYST_CSR REG32(0xE000E010u)
#define SYST_RVR REG32(0xE000E014u)
#define SYST_CVR REG32(0xE000E018u)

#define ICSR_PENDSVSET (1u << 28)
#define ICSR_PENDSTSET (1u << 26)
#define ICSR_PENDSTCLR (1u << 25)
#define ICSR_MASK_VISIBLE 0x1C1FF8FFu /* PENDSV/PENDST set, VECTPENDING, RETTOBASE, VECTACTIVE */
#define ICSR_MASK_THREAD 0x1C1FF0FFu  /* RETTOBASE is UNKNOWN in thread mode */

static inline void barrier(void) { __asm volatile("dsb\n\tisb" ::: "memory"); }
static inline uint32_t get_control(void) {
    uint32_t v;
    __asm volatile("mrs %0, control" : "=r"(v));
    return v;
}
static inline uint32_t get_ipsr(void) {
    uint32_t v;
    __asm volatile("mrs %0, ipsr" : "=r"(v));
    return v;
}
static inline uint32_t get_basepri(void) {
    uint32_t v;
    __asm volatile("mrs %0, basepri" : "=r"(v));
    return v;
}
static inline void set_basepri(uint32_t v) {
    __asm volatile("msr basepri, %0\n\tisb" ::"r"(v) : "memory");
}
static inline void pend_pendsv(void) { ICSR = ICSR_PENDSVSET; }

/* ---- event log, written by handlers and thread code, printed by thread code ---- */
static volatile uint32_t g_log[48];
static volatile uint32_t g_nlog;
static void log_ev(uint32_t v) {
    if (g_nlog < sizeof g_log / sizeof g_log[0]) g_log[g_nlog++] = v;
}
static void print_log(const char* name) {
    line_begin("exc.");
    out_str(name);
    for (uint32_t i = 0; i < g_nlog; ++i) {
        out_char(' ');
        out_hex(g_log[i]);
    }
    out_nl();
    g_nlog = 0;
}
/* event tags (top byte) */
#define EV_THREAD 0x10000000u
#define EV_SVC 0x5C000000u
#define EV_PENDSV 0x50000000u
#define EV_IRQ0 0x10000000u
#define EV_IRQ1 0x11000000u
#define EV_EXC_RETURN 0xE0000000u /* low 24 bits of EXC_RETURN */

static volatile uint32_t g_seq;

/* ---- SVC ---- */
typedef struct {
    uint32_t imm, exc_return, xpsr, frame, ipsr, control, shcsr, icsr;
    uint32_t stacked_s0, stacked_fpscr, fp_after, pendsv_er;
} SvcInfo;
static volatile SvcInfo g_svc;

static void fp_clobber(void) {
    /* overwrite every caller-saved FP register and FPSCR */
    __asm volatile(
        "vmov.f32 s0, #-2.0\n\tvmov.f32 s1, s0\n\tvmov.f32 s2, s0\n\tvmov.f32 s3, s0\n\t"
        "vmov.f32 s4, s0\n\tvmov.f32 s5, s0\n\tvmov.f32 s6, s0\n\tvmov.f32 s7, s0\n\t"
        "vmov.f32 s8, s0\n\tvmov.f32 s9, s0\n\tvmov.f32 s10, s0\n\tvmov.f32 s11, s0\n\t"
        "vmov.f32 s12, s0\n\tvmov.f32 s13, s0\n\tvmov.f32 s14, s0\n\tvmov.f32 s15, s0\n\t"
        "vdiv.f32 s15, s14, s13\n\t"
        "mov r0, #0x00C00000\n\tvmsr fpscr, r0"
        :
        :
        : "r0", "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "s12",
          "s13", "s14", "s15", "memory");
}

static volatile uint32_t g_pendsv_clobber_fp;

void svc_main(uint32_t* frame, uint32_t exc_return) {
    uint32_t imm = *(const volatile uint8_t*)(frame[6] - 2u);
    g_svc.imm = imm;
    g_svc.exc_return = exc_return;
    g_svc.xpsr = frame[7];
    g_svc.frame = (uint32_t)frame;
    g_svc.ipsr = get_ipsr();
    g_svc.control = get_control();
    g_svc.shcsr = SHCSR & 0x00000D8Fu; /* active bits of system handlers */
    g_svc.icsr = ICSR & ICSR_MASK_VISIBLE;
    switch (imm) {
        case 1: /* add the two arguments */
            frame[0] = frame[0] + frame[1];
            break;
        case 4: /* pend a lower-priority PendSV: it runs after this handler returns */
        case 5: /* pend a higher-priority PendSV: it preempts this handler at once */
            log_ev(EV_SVC | 1u);
            pend_pendsv();
            barrier();
            log_ev(EV_SVC | 2u);
            break;
        case 6: /* back to privileged thread mode */
            __asm volatile("mrs r0, control\n\tbic r0, r0, #1\n\tmsr control, r0\n\tisb" ::
                               : "r0", "memory");
            break;
        case 7: { /* FP value live in this handler while a higher-priority PendSV uses FP */
            uint32_t v;
            g_pendsv_clobber_fp = 1;
            __asm volatile(
                "vmov.f32 s0, #0.75\n\t"
                "vmov.f32 s15, #-3.5\n\t"
                "str %[set], [%[icsr]]\n\t"
                "dsb\n\tisb\n\t"
                "vadd.f32 s0, s0, s15\n\t"
                "vmov %[v], s0\n\t"
                : [v] "=r"(v)
                : [set] "r"(ICSR_PENDSVSET), [icsr] "r"(&ICSR)
                : "s0", "s15", "memory");
            g_pendsv_clobber_fp = 0;
            g_svc.fp_after = v;
            break;
        }
        case 8: /* thread FP context: clobber, then look at the extended frame */
            fp_clobber();
            g_svc.stacked_s0 = frame[8];
            g_svc.stacked_fpscr = frame[24];
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
        "b svc_main\n\t");
}

/* ---- PendSV ---- */
void pendsv_main(uint32_t exc_return) {
    log_ev(EV_PENDSV | (g_seq & 0xFFFFu));
    log_ev(EV_EXC_RETURN | (exc_return & 0xFFFFFFu));
    log_ev(0x0C000000u | (ICSR & 0x8FFu) | (get_ipsr() << 12));
    g_svc.pendsv_er = exc_return;
    if (g_pendsv_clobber_fp) fp_clobber();
}

__attribute__((naked)) void PendSV_Handler(void) {
    __asm volatile(
        "mov r0, lr\n\t"
        "b pendsv_main\n\t");
}

/* ---- external interrupts 0 and 1, pended by software ---- */
static volatile uint32_t g_irq0_pends; /* bit 0: pend IRQ1, bit 1: pend PendSV */

void irq_main(uint32_t n, uint32_t exc_return) {
    uint32_t tag = n ? EV_IRQ1 : EV_IRQ0;
    log_ev(tag | 0xA00000u | (exc_return & 0xFFu) | (ICSR & 0x800u) | (NVIC_IABR0 & 3u) << 16);
    if (n == 0 && (g_irq0_pends & 1u)) {
        NVIC_ISPR0 = 2u;
        barrier();
    }
    if (n == 0 && (g_irq0_pends & 2u)) {
        pend_pendsv();
        barrier();
    }
    log_ev(tag | 0xB00000u);
}

__attribute__((naked)) void TIMER0_IRQHandler(void) {
    __asm volatile(
        "mov r0, #0\n\t"
        "mov r1, lr\n\t"
        "b irq_main\n\t");
}

__attribute__((naked)) void TIMER1_IRQHandler(void) {
    __asm volatile(
        "mov r0, #1\n\t"
        "mov r1, lr\n\t"
        "b irq_main\n\t");
}

/* ---- SysTick ---- */
static volatile uint32_t g_ticks;
void SysTick_Handler(void) { g_ticks++; }

/* ================= tests ================= */

/* Marks the start of a group, so that a hang shows where it happened. */
static void begin(const char* group) {
    out_str("exc.begin ");
    out_str(group);
    out_nl();
}

static void print_svc(const char* name) {
    line_begin("exc.");
    out_str(name);
    kv("imm", g_svc.imm);
    kv("er", g_svc.exc_return);
    kv("xpsr", g_svc.xpsr);
    kv("ipsr", g_svc.ipsr);
    kv("ctrl", g_svc.control);
    kv("shcsr", g_svc.shcsr);
    kv("icsr", g_svc.icsr);
    out_nl();
}

static void test_svc(void) {
    begin("svc");
    register uint32_t r0 __asm("r0") = 0x1234u;
    register uint32_t r1 __asm("r1") = 0x10001u;
    __asm volatile("svc #1" : "+r"(r0) : "r"(r1) : "memory");
    uint32_t ret = r0; /* r0 itself does not survive the calls below */
    print_svc("svc1");
    line_begin("exc.svc1");
    kv("ret", ret);
    out_nl();

    /* flags (NZCV, Q, GE) are stacked in xPSR and restored on return */
    uint32_t after;
    __asm volatile(
        "msr APSR_nzcvqg, %[f]\n\t"
        "svc #0x42\n\t"
        "mrs %[a], APSR"
        : [a] "=r"(after)
        : [f] "r"(0xA80A0000u)
        : "cc", "memory");
    print_svc("svc42");
    line_begin("exc.svc42");
    kv("apsr", after);
    out_nl();

    /* SVC with SP = 4 mod 8: the frame is aligned down and xPSR bit 9 records it */
    uint32_t sp_before, sp_after;
    __asm volatile(
        "mov r2, sp\n\t"
        "bic r3, r2, #7\n\t"
        "sub r3, r3, #4\n\t" /* an SP that is 4 mod 8 */
        "mov sp, r3\n\t"
        "mov %[b], sp\n\t"
        "svc #0xFF\n\t"
        "mov %[a], sp\n\t"
        "mov sp, r2\n\t"
        : [b] "=&r"(sp_before), [a] "=&r"(sp_after)
        :
        : "r0", "r1", "r2", "r3", "r12", "lr", "cc", "memory");
    print_svc("svcff");
    line_begin("exc.svcff");
    kv("sp_same", sp_before == sp_after);
    kv("frame_off", sp_before - g_svc.frame);
    out_nl();
    __asm volatile(
        "mov r2, sp\n\t"
        "bic r3, r2, #7\n\t"
        "mov sp, r3\n\t"
        "mov %[b], sp\n\t"
        "svc #0x80\n\t"
        "mov %[a], sp\n\t"
        "mov sp, r2\n\t"
        : [b] "=&r"(sp_before), [a] "=&r"(sp_after)
        :
        : "r0", "r1", "r2", "r3", "r12", "lr", "cc", "memory");
    print_svc("svc80");
    line_begin("exc.svc80");
    kv("sp_same", sp_before == sp_after);
    kv("frame_off", sp_before - g_svc.frame);
    out_nl();
}

static void test_pendsv(void) {
    begin("pendsv");
    SHPR_PENDSV = 0xE0u;
    SHPR_SVC = 0x80u;
    /* taken right after the barrier that follows the ICSR write */
    g_seq = 1;
    pend_pendsv();
    barrier();
    g_seq = 2;
    log_ev(EV_THREAD | g_seq);
    print_log("pendsv.now");

    begin("pendsv.primask");
    /* PRIMASK holds it off until cleared */
    __asm volatile("cpsid i" ::: "memory");
    g_seq = 3;
    pend_pendsv();
    barrier();
    log_ev(EV_THREAD | (ICSR & ICSR_MASK_THREAD) >> 12);
    g_seq = 4;
    __asm volatile("cpsie i\n\tisb" ::: "memory");
    g_seq = 5;
    log_ev(EV_THREAD | g_seq);
    print_log("pendsv.primask");

    begin("pendsv.faultmask");
    /* FAULTMASK too */
    __asm volatile("cpsid f" ::: "memory");
    g_seq = 6;
    pend_pendsv();
    barrier();
    log_ev(EV_THREAD | g_seq);
    g_seq = 7;
    __asm volatile("cpsie f\n\tisb" ::: "memory");
    g_seq = 8;
    log_ev(EV_THREAD | g_seq);
    print_log("pendsv.faultmask");

    begin("pendsv.basepri");
    /* BASEPRI masks priorities >= its value; BASEPRI_MAX only raises the masking */
    SHPR_PENDSV = 0xC0u;
    set_basepri(0x80u);
    g_seq = 9;
    pend_pendsv();
    barrier();
    log_ev(EV_THREAD | g_seq);
    g_seq = 10;
    set_basepri(0xE0u); /* 0xC0 < 0xE0: now unmasked */
    g_seq = 11;
    log_ev(EV_THREAD | g_seq);
    set_basepri(0x80u);
    SHPR_PENDSV = 0x40u; /* above the BASEPRI level: taken at once */
    g_seq = 12;
    pend_pendsv();
    barrier();
    g_seq = 13;
    log_ev(EV_THREAD | g_seq);
    print_log("pendsv.basepri");
    line_begin("exc.basepri");
    kv("rd", get_basepri());
    __asm volatile("msr basepri_max, %0\n\tisb" ::"r"(0xA0u) : "memory");
    kv("max_a0", get_basepri());
    __asm volatile("msr basepri_max, %0\n\tisb" ::"r"(0x40u) : "memory");
    kv("max_40", get_basepri());
    __asm volatile("msr basepri_max, %0\n\tisb" ::"r"(0x00u) : "memory");
    kv("max_00", get_basepri());
    set_basepri(0u);
    kv("zero", get_basepri());
    out_nl();

    begin("pendsv.svc");
    /* pended from SVC: lower priority runs after SVC (tail-chain), higher preempts it */
    SHPR_PENDSV = 0xE0u;
    g_seq = 14;
    __asm volatile("svc #4" ::: "r0", "r1", "r2", "r3", "r12", "lr", "cc", "memory");
    log_ev(EV_THREAD | 15u);
    print_log("pendsv.svc_low");
    SHPR_PENDSV = 0x20u;
    g_seq = 16;
    __asm volatile("svc #5" ::: "r0", "r1", "r2", "r3", "r12", "lr", "cc", "memory");
    log_ev(EV_THREAD | 17u);
    print_log("pendsv.svc_high");
    SHPR_PENDSV = 0xE0u;
}

static void test_irq_priorities(void) {
    begin("irq");
    NVIC_ICPR0 = 3u;
    NVIC_ISER0 = 3u;
    /* three pending at once, released together: strict priority order */
    NVIC_IPR(0) = 0x80u;
    NVIC_IPR(1) = 0x40u;
    SHPR_PENDSV = 0xC0u;
    g_seq = 20;
    __asm volatile("cpsid i" ::: "memory");
    NVIC_ISPR0 = 3u;
    pend_pendsv();
    barrier();
    line_begin("exc.irq.pending");
    kv("ispr", NVIC_ISPR0 & 3u);
    kv("icsr", ICSR & ICSR_MASK_THREAD);
    out_nl();
    __asm volatile("cpsie i\n\tisb" ::: "memory");
    log_ev(EV_THREAD | 21u);
    print_log("irq.order");

    /* equal priority: the lower exception number goes first */
    NVIC_IPR(1) = 0x80u;
    __asm volatile("cpsid i" ::: "memory");
    NVIC_ISPR0 = 3u;
    barrier();
    __asm volatile("cpsie i\n\tisb" ::: "memory");
    print_log("irq.equal");

    /* preemption inside a handler; PendSV pended there tail-chains after it */
    NVIC_IPR(0) = 0x80u;
    NVIC_IPR(1) = 0x40u;
    g_irq0_pends = 3u;
    NVIC_ISPR0 = 1u;
    barrier();
    g_irq0_pends = 0;
    print_log("irq.nested");

    /* PRIGROUP 5: priorities 0x80 and 0xA0 share group priority 2, so no preemption */
    AIRCR = 0x05FA0000u | (5u << 8);
    NVIC_IPR(0) = 0xA0u;
    NVIC_IPR(1) = 0x80u;
    g_irq0_pends = 1u;
    NVIC_ISPR0 = 1u;
    barrier();
    g_irq0_pends = 0;
    print_log("irq.prigroup");
    line_begin("exc.aircr");
    kv("prigroup", (AIRCR >> 8) & 7u);
    AIRCR = 0x05FA0000u;
    kv("restored", (AIRCR >> 8) & 7u);
    out_nl();
    NVIC_ICER0 = 3u;
}

static uint64_t g_psp_stack[64];

static void test_psp_unpriv(void) {
    begin("psp");
    /* thread mode on the process stack */
    uint32_t psp_top = (uint32_t)&g_psp_stack[64];
    uint32_t psp_after, ctrl_in;
    __asm volatile(
        "msr psp, %[top]\n\t"
        "mrs r2, control\n\t"
        "orr r2, r2, #2\n\t"
        "msr control, r2\n\t"
        "isb\n\t"
        "mrs %[c], control\n\t"
        "svc #9\n\t"
        "mrs r2, control\n\t"
        "bic r2, r2, #2\n\t"
        "msr control, r2\n\t"
        "isb\n\t"
        "mrs %[pa], psp\n\t"
        : [pa] "=&r"(psp_after), [c] "=&r"(ctrl_in)
        : [top] "r"(psp_top)
        : "r0", "r1", "r2", "r3", "r12", "lr", "cc", "memory");
    print_svc("psp");
    line_begin("exc.psp");
    kv("ctrl", ctrl_in);
    kv("frame_off", psp_top - g_svc.frame);
    kv("psp_back", psp_after == psp_top);
    kv("ctrl_now", get_control());
    out_nl();

    begin("unpriv");
    /* unprivileged thread mode: PRIMASK and BASEPRI writes are ignored; SVC gets back */
    uint32_t primask, basepri, ctrl_unpriv;
    __asm volatile(
        "mrs r2, control\n\t"
        "orr r2, r2, #1\n\t"
        "msr control, r2\n\t"
        "isb\n\t"
        "mrs %[cu], control\n\t"
        "cpsid i\n\t"
        "mov r2, #0x60\n\t"
        "msr basepri, r2\n\t"
        "mrs %[pm], primask\n\t"
        "mrs %[bp], basepri\n\t"
        "svc #6\n\t"
        : [pm] "=&r"(primask), [bp] "=&r"(basepri), [cu] "=&r"(ctrl_unpriv)
        :
        : "r0", "r1", "r2", "r3", "r12", "lr", "cc", "memory");
    line_begin("exc.unpriv");
    kv("ctrl", ctrl_unpriv);
    kv("primask", primask);
    kv("basepri", basepri);
    kv("ctrl_now", get_control());
    out_nl();
}

static void test_fp_context(void) {
    begin("fp");
    static uint32_t in[16], out[16];
    for (uint32_t i = 0; i < 16; ++i) in[i] = 0x3F800000u + (i << 20) + i;
    uint32_t fpscr_in = 0xA200001Bu, fpscr_out, ctrl_before;
    /* s0-s15 and FPSCR live across an SVC whose handler overwrites them */
    __asm volatile(
        "vldmia %[in], {s0-s15}\n\t"
        "vmsr fpscr, %[fi]\n\t"
        "mrs %[cb], control\n\t"
        "svc #8\n\t"
        "vmrs %[fo], fpscr\n\t"
        "vstmia %[out], {s0-s15}\n\t"
        : [fo] "=&r"(fpscr_out), [cb] "=&r"(ctrl_before)
        : [in] "r"(in), [out] "r"(out), [fi] "r"(fpscr_in)
        : "r0", "r1", "r2", "r3", "r12", "lr", "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8",
          "s9", "s10", "s11", "s12", "s13", "s14", "s15", "cc", "memory");
    print_svc("fp");
    uint32_t same = 0;
    for (uint32_t i = 0; i < 16; ++i) same |= (uint32_t)(in[i] == out[i]) << i;
    line_begin("exc.fp");
    kv("ctrl", ctrl_before);
    kv("same", same);
    kv("fpscr", fpscr_out);
    kv("s0", out[0]);
    kv("s15", out[15]);
    kv("stk_s0", g_svc.stacked_s0);
    kv("stk_fpscr", g_svc.stacked_fpscr);
    out_nl();

    /* the same with the handler entered from PendSV (asynchronous), misaligned SP */
    uint32_t v;
    g_pendsv_clobber_fp = 1;
    SHPR_PENDSV = 0xE0u;
    __asm volatile(
        "mov r2, sp\n\t"
        "bic r3, r2, #7\n\t"
        "sub r3, r3, #4\n\t"
        "mov sp, r3\n\t"
        "vmov.f32 s7, #12.5\n\t"
        "str %[set], [%[icsr]]\n\t"
        "dsb\n\tisb\n\t"
        "vmov %[v], s7\n\t"
        "mov sp, r2\n\t"
        : [v] "=&r"(v)
        : [set] "r"(ICSR_PENDSVSET), [icsr] "r"(&ICSR)
        : "r0", "r1", "r2", "r3", "r12", "lr", "s7", "cc", "memory");
    g_pendsv_clobber_fp = 0;
    line_begin("exc.fp.pendsv");
    kv("s7", v);
    kv("er", g_svc.pendsv_er);
    out_nl();
    g_nlog = 0;

    /* nested: SVC handler holds FP values while a higher-priority PendSV clobbers FP */
    SHPR_PENDSV = 0x20u;
    __asm volatile("svc #7" ::: "r0", "r1", "r2", "r3", "r12", "lr", "cc", "memory");
    SHPR_PENDSV = 0xE0u;
    line_begin("exc.fp.nested");
    kv("fp_after", g_svc.fp_after);
    kv("pendsv_er", g_svc.pendsv_er);
    kv("svc_er", g_svc.exc_return);
    out_nl();
    g_nlog = 0;
}

static void systick_off(void) {
    SYST_CSR = 0;
    ICSR = ICSR_PENDSTCLR;
    barrier();
}

static void test_systick(void) {
    begin("systick");
    SHPR_SYSTICK = 0x20u;
    systick_off();
    line_begin("exc.systick.regs");
    SYST_RVR = 0xFFFFFFFFu;
    kv("rvr_mask", SYST_RVR);
    SYST_CVR = 0x1234u;
    kv("cvr_cleared", SYST_CVR);
    /* polled: COUNTFLAG sets on wrap and clears when read (the counter is stopped before the
     * second read so that no further wrap can set it again) */
    SYST_RVR = 99999u;
    SYST_CVR = 0;
    SYST_CSR = 5u; /* enable, processor clock, no interrupt */
    uint32_t csr = 0, polls = 0;
    while (!((csr = SYST_CSR) & 0x10000u) && polls < 100000000u) ++polls;
    SYST_CSR = 4u;
    kv("csr", csr);
    kv("csr_again", SYST_CSR);
    kv("below_reload", SYST_CVR <= 99999u);
    systick_off();
    out_nl();

    begin("systick.busy");
    /* interrupts while busy-looping */
    g_ticks = 0;
    SYST_RVR = 1999u;
    SYST_CVR = 0;
    SYST_CSR = 7u;
    uint32_t loops = 0;
    while (g_ticks < 5u && loops < 50000000u) ++loops;
    systick_off();
    line_begin("exc.systick.busy");
    kv("reached", g_ticks >= 5u);
    kv("looped", loops > 0u);
    out_nl();

    begin("systick.wfi");
    /* WFI sleeps until the next tick */
    g_ticks = 0;
    SYST_RVR = 4999u;
    SYST_CVR = 0;
    SYST_CSR = 7u;
    __asm volatile("dsb\n\twfi\n\tisb" ::: "memory");
    uint32_t after_wfi = g_ticks;
    systick_off();
    line_begin("exc.systick.wfi");
    kv("woke_by_tick", after_wfi >= 1u);
    out_nl();

    begin("systick.masked");
    /* masked by PRIMASK: pends, taken exactly once when unmasked */
    g_ticks = 0;
    __asm volatile("cpsid i" ::: "memory");
    SYST_RVR = 499u;
    SYST_CVR = 0;
    SYST_CSR = 7u;
    polls = 0;
    while (!(SYST_CSR & 0x10000u) && polls < 10000000u) ++polls;
    SYST_CSR = 0;
    barrier();
    uint32_t pend = (ICSR >> 26) & 1u;
    uint32_t before = g_ticks;
    __asm volatile("cpsie i\n\tisb" ::: "memory");
    line_begin("exc.systick.masked");
    kv("pendst", pend);
    kv("before", before);
    kv("after", g_ticks);
    out_nl();
    systick_off();

    begin("systick.wfi_masked");
    /* WFI with PRIMASK set wakes on the pending tick without taking it */
    g_ticks = 0;
    __asm volatile("cpsid i" ::: "memory");
    SYST_RVR = 4999u;
    SYST_CVR = 0;
    SYST_CSR = 7u;
    __asm volatile("dsb\n\twfi\n\tisb" ::: "memory");
    SYST_CSR = 0;
    barrier();
    pend = (ICSR >> 26) & 1u;
    before = g_ticks;
    __asm volatile("cpsie i\n\tisb" ::: "memory");
    line_begin("exc.systick.wfi_masked");
    kv("pendst", pend);
    kv("before", before);
    kv("after", g_ticks);
    out_nl();
    systick_off();
}

int main(void) {
    out_str("iss_exc start\n");
    line_begin("exc.thread");
    kv("ipsr", get_ipsr());
    kv("ctrl", get_control());
    kv("icsr", ICSR & ICSR_MASK_THREAD);
    out_nl();
    test_svc();
    test_pendsv();
    test_irq_priorities();
    test_psp_unpriv();
    test_fp_context();
    test_systick();
    out_str("iss_exc end\n");
    return 0;
}
