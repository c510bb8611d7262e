/* Fault and exception helpers shared by the ISS differential test programs that take faults
 * (iss_it, iss_excl, iss_fault, iss_ccr, iss_fpctx): register names, one handler for HardFault,
 * MemManage, BusFault and UsageFault that records what the fault left (exception number, fault
 * status, stacked PC and xPSR) and then resumes where the test asked, and SVC-based helpers to
 * run a function in handler mode. The programs run unchanged on QEMU (mps2-an386) and nmsim
 * (pe.core.fault_policy=vector). */
#ifndef ISS_TRAP_H
#define ISS_TRAP_H
#include <stdint.h>

#include "iss_common.h"

#define REG32(a) (*(volatile uint32_t*)(a))
#define REG8(a) (*(volatile uint8_t*)(a))
#define ICSR REG32(0xE000ED04u)
#define VTOR REG32(0xE000ED08u)
#define AIRCR REG32(0xE000ED0Cu)
#define CCR REG32(0xE000ED14u)
#define SHPR_MEM REG8(0xE000ED18u)
#define SHPR_BUS REG8(0xE000ED19u)
#define SHPR_USAGE REG8(0xE000ED1Au)
#define SHPR_SVC REG8(0xE000ED1Fu)
#define SHPR_PENDSV REG8(0xE000ED22u)
#define SHPR_SYSTICK REG8(0xE000ED23u)
#define SHCSR REG32(0xE000ED24u)
#define CFSR REG32(0xE000ED28u)
#define HFSR REG32(0xE000ED2Cu)
#define MMFAR REG32(0xE000ED34u)
#define BFAR REG32(0xE000ED38u)
#define CPACR REG32(0xE000ED88u)
#define FPCCR REG32(0xE000EF34u)
#define FPCAR REG32(0xE000EF38u)
#define NVIC_ISER0 REG32(0xE000E100u)
#define NVIC_ICER0 REG32(0xE000E180u)
#define NVIC_ISPR0 REG32(0xE000E200u)
#define NVIC_ICPR0 REG32(0xE000E280u)
#define NVIC_IPR(n) REG8(0xE000E400u + (n))
#define SYST_CSR REG32(0xE000E010u)
#define SYST_RVR REG32(0xE000E014u)
#define SYST_CVR REG32(0xE000E018u)

#define ICSR_PENDSVSET (1u << 28)
#define SHCSR_ENABLES (7u << 16) /* MEMFAULTENA, BUSFAULTENA, USGFAULTENA */
#define CCR_UNALIGN_TRP (1u << 3)
#define CCR_DIV_0_TRP (1u << 4)
#define CCR_STKALIGN (1u << 9)
#define XPSR_IT_MASK 0x0600FC00u
#define XPSR_T (1u << 24)

/* An address that is unmapped on both QEMU's mps2-an386 and nmsim's PE (in the SRAM region of
 * the default memory map, so it may hold code). */
#define UNMAPPED 0x30000000u

static inline void barrier(void) { __asm volatile("dsb\n\tisb" ::: "memory"); }
static inline uint32_t get_ipsr(void) {
    uint32_t v;
    __asm volatile("mrs %0, ipsr" : "=r"(v));
    return v;
}
static inline uint32_t get_control(void) {
    uint32_t v;
    __asm volatile("mrs %0, control" : "=r"(v));
    return v;
}

/* What the last fault left, recorded by the fault handler. */
typedef struct {
    uint32_t n;    /* faults taken since trap_print() */
    uint32_t exc;  /* IPSR in the handler */
    uint32_t cfsr; /* CFSR and HFSR as the handler found them (then cleared) */
    uint32_t hfsr;
    uint32_t mmfar; /* MMFAR/BFAR when MMARVALID/BFARVALID is set, else 0 */
    uint32_t bfar;
    uint32_t pc; /* stacked return address and xPSR */
    uint32_t xpsr;
    uint32_t excret; /* EXC_RETURN (LR) the handler was entered with */
    uint32_t shcsr;  /* SHCSR active bits in the handler */
    uint32_t resume; /* g_resume when the fault took it (a label after the faulting instruction) */
} Trap;
extern volatile Trap g_trap;

/* How the fault handler resumes (each is consumed by one fault):
 *   g_fix_r0       nonzero: stacked r0 := g_fix_r0 (the faulting instruction runs again with it);
 *   g_resume       nonzero: stacked PC := g_resume, stacked IT bits cleared, T set;
 *   g_continue     nonzero: return to the stacked PC as it is;
 *   g_fix_and/or   g_fix_and nonzero: return with EXC_RETURN = (LR & g_fix_and) | g_fix_or
 *                  (after an invalid exception return, whose value the handler gets in LR).
 * With none of the first three, the handler reports the fault and ends the program (0xFA). */
extern volatile uint32_t g_resume, g_fix_r0, g_continue, g_fix_and, g_fix_or;

/* The standard SVC handler: "svc #0xF0" runs run_in_svc's function, other numbers call
 * svc_hook. A program that wants it writes ISS_SVC_HANDLER at file scope. */
#define ISS_SVC_HANDLER                             \
    __attribute__((naked)) void SVC_Handler(void) { \
        __asm volatile(                             \
            "tst lr, #4\n\t"                        \
            "ite eq\n\t"                            \
            "mrseq r0, msp\n\t"                     \
            "mrsne r0, psp\n\t"                     \
            "mov r1, lr\n\t"                        \
            "b svc_main\n\t");                      \
    }
void svc_main(uint32_t* frame, uint32_t exc_return);

/* "<name> n= exc= cfsr= hfsr= mmfar= bfar= pc= xpsr= er= act=" (PC relative to `base`, 0 for
 * absolute; xPSR as stacked; EXC_RETURN; SHCSR active bits), then clears g_trap. */
void trap_print(const char* name, uint32_t base);

/* Runs fn(arg) in handler mode: SVC #0xF0 calls it from the SVC handler (priority SHPR_SVC). */
void run_in_svc(void (*fn)(uint32_t), uint32_t arg);

/* "svc #imm" with the test's own numbers: the SVC handler calls this hook (weak, default does
 * nothing) with the stacked frame. */
void svc_hook(uint32_t imm, uint32_t* frame, uint32_t exc_return);

/* Label address for g_resume: "adr %0, 1f+1" in the same asm statement is the usual form. */
#endif
