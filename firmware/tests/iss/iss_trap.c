/* Fault handler and SVC helpers shared by the ISS fault test programs (see iss_trap.h). */
#include "iss_trap.h"

void _exit(int status) __attribute__((noreturn));

volatile Trap g_trap;
volatile uint32_t g_resume, g_fix_r0, g_continue, g_fix_and, g_fix_or;

/* SHCSR active bits: MEMFAULTACT, BUSFAULTACT, USGFAULTACT, SVCALLACT, MONITORACT, PENDSVACT,
 * SYSTICKACT. */
#define SHCSR_ACTIVE 0x00000D8Bu

/* Returns the EXC_RETURN to leave the handler with. */
uint32_t trap_main(uint32_t* frame, uint32_t exc_return) {
    const uint32_t cfsr = CFSR, hfsr = HFSR;
    g_trap.n++;
    g_trap.exc = get_ipsr();
    g_trap.cfsr = cfsr;
    g_trap.hfsr = hfsr;
    g_trap.mmfar = (cfsr & 0x80u) ? MMFAR : 0u;
    g_trap.bfar = (cfsr & 0x8000u) ? BFAR : 0u;
    g_trap.pc = frame[6];
    g_trap.xpsr = frame[7];
    g_trap.excret = exc_return;
    g_trap.shcsr = SHCSR & SHCSR_ACTIVE;
    CFSR = cfsr; /* write one to clear */
    HFSR = hfsr;
    if (g_fix_r0) {
        frame[0] = g_fix_r0;
        g_fix_r0 = 0;
    } else if (g_resume) {
        g_trap.resume = g_resume & ~1u;
        frame[6] = g_resume & ~1u;
        frame[7] = (frame[7] & ~XPSR_IT_MASK) | XPSR_T;
        g_resume = 0;
    } else if (g_continue) {
        g_continue = 0;
    } else {
        line_begin("trap.unexpected");
        kv("exc", g_trap.exc);
        kv("cfsr", cfsr);
        kv("hfsr", hfsr);
        kv("pc", frame[6]);
        kv("xpsr", frame[7]);
        out_nl();
        _exit(0xFA);
    }
    if (g_fix_and) {
        exc_return = (exc_return & g_fix_and) | g_fix_or;
        g_fix_and = g_fix_or = 0;
    }
    return exc_return;
}

__attribute__((naked)) void HardFault_Handler(void) {
    __asm volatile(
        "tst lr, #4\n\t"
        "ite eq\n\t"
        "mrseq r0, msp\n\t"
        "mrsne r0, psp\n\t"
        "mov r1, lr\n\t"
        "push {r1, lr}\n\t"
        "bl trap_main\n\t"
        "pop {r1, r2}\n\t"
        "bx r0\n\t");
}
__attribute__((naked)) void MemManage_Handler(void) { __asm volatile("b HardFault_Handler"); }
__attribute__((naked)) void BusFault_Handler(void) { __asm volatile("b HardFault_Handler"); }
__attribute__((naked)) void UsageFault_Handler(void) { __asm volatile("b HardFault_Handler"); }

void trap_print(const char* name, uint32_t base) {
    line_begin(name);
    kv("n", g_trap.n);
    kv("exc", g_trap.exc);
    kv("cfsr", g_trap.cfsr);
    kv("hfsr", g_trap.hfsr);
    kv("mmfar", g_trap.mmfar);
    kv("bfar", g_trap.bfar);
    kv("pc", g_trap.pc - base);
    kv("xpsr", g_trap.xpsr);
    kv("er", g_trap.excret);
    kv("act", g_trap.shcsr);
    out_nl();
    g_trap.n = 0;
    g_trap.exc = 0;
    g_trap.cfsr = 0;
    g_trap.hfsr = 0;
    g_trap.mmfar = 0;
    g_trap.bfar = 0;
    g_trap.pc = 0;
    g_trap.xpsr = 0;
    g_trap.excret = 0;
    g_trap.shcsr = 0;
    g_trap.resume = 0;
}

__attribute__((weak)) void svc_hook(uint32_t imm, uint32_t* frame, uint32_t exc_return) {
    (void)imm;
    (void)frame;
    (void)exc_return;
}

void svc_main(uint32_t* frame, uint32_t exc_return) {
    const uint32_t imm = *(const volatile uint8_t*)(frame[6] - 2u);
    if (imm == 0xF0u) {
        ((void (*)(uint32_t))frame[0])(frame[1]);
    } else {
        svc_hook(imm, frame, exc_return);
    }
}

void run_in_svc(void (*fn)(uint32_t), uint32_t arg) {
    register uint32_t r0 __asm("r0") = (uint32_t)fn;
    register uint32_t r1 __asm("r1") = arg;
    __asm volatile("svc #0xF0" : "+r"(r0), "+r"(r1) : : "r2", "r3", "r12", "lr", "cc", "memory");
}
