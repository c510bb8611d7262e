/* Small C HAL for the SpiNNaker2 PE as simulated by nmsim. Core helpers (NVIC, WFI, console,
 * exit, argument block) live here; each peripheral has its own s2_<block>.h (programs include
 * the ones they use; the multicast comms driver s2_comms.h comes with this header). */
#ifndef S2_HAL_H
#define S2_HAL_H
#include <stdint.h>

#include "nmsim/hw/regdef.h"
#include "nmsim/hw/spinnaker2/pe_map.h"
#include "nmsim/hw/spinnaker2/console_regs.h"
#include "nmsim/hw/spinnaker2/mailbox_regs.h"
#include "s2_comms.h"

/* --- core ------------------------------------------------------------------------------- */
#define S2_NVIC_ISER(n) NM_REG32(0xE000E100u + 4u * (n))
#define S2_NVIC_ICER(n) NM_REG32(0xE000E180u + 4u * (n))
#define S2_NVIC_ISPR(n) NM_REG32(0xE000E200u + 4u * (n))
#define S2_NVIC_ICPR(n) NM_REG32(0xE000E280u + 4u * (n))
#define S2_NVIC_IPR_BYTE(irq) (*(volatile uint8_t *)(uintptr_t)(0xE000E400u + (irq)))
#define S2_SYST_CSR NM_REG32(0xE000E010u)
#define S2_SYST_RVR NM_REG32(0xE000E014u)
#define S2_SYST_CVR NM_REG32(0xE000E018u)
#define S2_DWT_CTRL NM_REG32(0xE0001000u)
#define S2_DWT_CYCCNT NM_REG32(0xE0001004u)
#define S2_SCB_SHPR3 NM_REG32(0xE000ED20u)

static inline void s2_irq_enable(unsigned irq) { S2_NVIC_ISER(irq >> 5) = 1u << (irq & 31u); }
static inline void s2_irq_disable(unsigned irq) { S2_NVIC_ICER(irq >> 5) = 1u << (irq & 31u); }
static inline void s2_irq_set_pending(unsigned irq) { S2_NVIC_ISPR(irq >> 5) = 1u << (irq & 31u); }
static inline void s2_irq_clear_pending(unsigned irq) { S2_NVIC_ICPR(irq >> 5) = 1u << (irq & 31u); }
/* priority 0 (highest) .. 7; the NVIC implements 3 priority bits (the top bits of the byte) */
static inline void s2_irq_priority(unsigned irq, unsigned prio) { S2_NVIC_IPR_BYTE(irq) = (uint8_t)(prio << 5); }
static inline void s2_wfi(void) { __asm volatile("wfi" ::: "memory"); }
static inline void s2_enable_interrupts(void) { __asm volatile("cpsie i" ::: "memory"); }
static inline void s2_disable_interrupts(void) { __asm volatile("cpsid i" ::: "memory"); }
/* Sleeps in WFI until an interrupt handler has advanced *counter to at least `target` (compared
 * modulo 2^32, so counters may wrap) and returns the number of wake-ups. PRIMASK is set around
 * each check and WFI so that an interrupt between them still ends the sleep (ARMv7-M: WFI wakes
 * on a pending interrupt even while PRIMASK masks it); handlers run when interrupts are enabled
 * again after each wake-up. Returns with interrupts enabled. */
static inline uint32_t s2_sleep_until(const volatile uint32_t *counter, uint32_t target) {
    uint32_t wakeups = 0;
    s2_disable_interrupts();
    while ((int32_t)(*counter - target) < 0) {
        s2_wfi();
        ++wakeups;
        s2_enable_interrupts();
        __asm volatile("isb" ::: "memory");
        s2_disable_interrupts();
    }
    s2_enable_interrupts();
    __asm volatile("dmb" ::: "memory");
    return wakeups;
}

/* Cycle counter (DWT CYCCNT): enabled by s2_cycles_start(). */
static inline void s2_cycles_start(void) { S2_DWT_CYCCNT = 0; S2_DWT_CTRL |= 1u; }
static inline uint32_t s2_cycles(void) { return S2_DWT_CYCCNT; }

/* Host argument block (scenario `args`, in order). */
static inline uint32_t s2_arg(unsigned i) { return ((volatile uint32_t *)(uintptr_t)S2_ARGS_BASE)[i]; }
static inline void *s2_arg_ptr(unsigned i) { return (void *)(uintptr_t)s2_arg(i); }

/* --- console and host ---------------------------------------------------------------------- */
void s2_putc(char c);
void s2_puts(const char *s); /* no newline added */
/* printf subset: %d %i %u %x %X %08x-style width/zero padding, %s %c %% and %f (3 decimals) */
void s2_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Simulator phase marker (console MARK): the energy accounting starts phase `phase` here. */
static inline void s2_mark(uint32_t phase) { NM_REG32(S2_CONSOLE_BASE + S2_CONSOLE_MARK) = phase; }
/* Ring the host doorbell with `status` (0 = success) and sleep for good. */
void _exit(int status) __attribute__((noreturn));
#define s2_exit _exit

#endif
