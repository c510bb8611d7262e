/* PE dual timer driver (SP804-style 32-bit down counters; timer idx at S2_TIMER_BASE +
 * idx * S2_TIMER_STRIDE, interrupts S2_IRQ_TIMER0 + idx). Register map:
 * nmsim/hw/spinnaker2/timer_regs.h.
 *
 * A started timer counts load, load-1, ..., 0, one step per tick (PE clock / prescale divider).
 * Reaching 0 sets the interrupt: the first after `load` ticks; a periodic timer then reloads on
 * the next tick, so later interrupts come every load + 1 ticks. A one-shot timer stays at 0.
 *
 *   s2_timer_start_periodic(0, 9999, S2_TIMER_DIV1, 1); // interrupt every 10000 PE cycles
 *   void TIMER0_IRQHandler(void) { s2_timer_clear(0); ... }
 */
#ifndef S2_TIMER_H
#define S2_TIMER_H
#include <stdint.h>

#include "nmsim/hw/regdef.h"
#include "nmsim/hw/spinnaker2/pe_map.h"
#include "nmsim/hw/spinnaker2/timer_regs.h"

#define S2_TIMER_REG(idx, off) \
    NM_REG32(S2_TIMER_BASE + (uint32_t)(idx)*S2_TIMER_STRIDE + (uint32_t)(off))

/* PRESCALE values: ticks per PE clock cycle 1, 1/16, 1/256 (3 is undefined). */
#define S2_TIMER_DIV1 0u
#define S2_TIMER_DIV16 1u
#define S2_TIMER_DIV256 2u

#define S2_TIMER_EN NM_FIELD_SET(1u, S2_TIMER_CTRL_EN)
#define S2_TIMER_PERIODIC NM_FIELD_SET(1u, S2_TIMER_CTRL_PERIODIC)
#define S2_TIMER_IRQ_EN NM_FIELD_SET(1u, S2_TIMER_CTRL_IRQ_EN)

/* Stops the timer, clears its interrupt, loads `load` and starts counting now. */
static inline void s2_timer_start(unsigned idx, uint32_t load, unsigned prescale, int periodic,
                                  int irq) {
    S2_TIMER_REG(idx, S2_TIMER_CTRL) = 0u;
    S2_TIMER_REG(idx, S2_TIMER_INTCLR) = 1u;
    S2_TIMER_REG(idx, S2_TIMER_LOAD) = load;
    S2_TIMER_REG(idx, S2_TIMER_CTRL) = S2_TIMER_EN | (periodic ? S2_TIMER_PERIODIC : 0u) |
                                       (irq ? S2_TIMER_IRQ_EN : 0u) |
                                       NM_FIELD_SET(prescale, S2_TIMER_CTRL_PRESCALE);
}

/* Interrupt period (load + 1) ticks; the first interrupt after `load` ticks. */
static inline void s2_timer_start_periodic(unsigned idx, uint32_t load, unsigned prescale,
                                           int irq) {
    s2_timer_start(idx, load, prescale, 1, irq);
}

/* One interrupt after `load` ticks; the count then stays at 0. */
static inline void s2_timer_start_oneshot(unsigned idx, uint32_t load, unsigned prescale, int irq) {
    s2_timer_start(idx, load, prescale, 0, irq);
}

/* Freezes the count (the timer keeps its value and settings; set EN again to continue). */
static inline void s2_timer_stop(unsigned idx) {
    S2_TIMER_REG(idx, S2_TIMER_CTRL) = S2_TIMER_REG(idx, S2_TIMER_CTRL) & ~S2_TIMER_EN;
}

/* Clears the interrupt (RIS); call it in the handler before returning. */
static inline void s2_timer_clear(unsigned idx) { S2_TIMER_REG(idx, S2_TIMER_INTCLR) = 1u; }

static inline uint32_t s2_timer_value(unsigned idx) { return S2_TIMER_REG(idx, S2_TIMER_VALUE); }
static inline int s2_timer_pending(unsigned idx) { return S2_TIMER_REG(idx, S2_TIMER_RIS) & 1u; }

/* Sets the reload value used from the next wrap on, without restarting the count. */
static inline void s2_timer_set_bgload(unsigned idx, uint32_t load) {
    S2_TIMER_REG(idx, S2_TIMER_BGLOAD) = load;
}

#endif
