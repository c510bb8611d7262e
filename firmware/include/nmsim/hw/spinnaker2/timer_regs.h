/* Dual timer (two instances, SP804-style down counters clocked by the PE clock / prescale).
 * Timer i is at S2_TIMER_BASE + i * S2_TIMER_STRIDE. */
#ifndef NMSIM_HW_S2_TIMER_REGS_H
#define NMSIM_HW_S2_TIMER_REGS_H
#include "nmsim/hw/regdef.h"

#define S2_TIMER_REGS(X)                                                                   \
    X(LOAD, 0x00u, NM_RW, 0x0u, "reload value; writing it also restarts the count")         \
    X(VALUE, 0x04u, NM_RO, 0xFFFFFFFFu, "current count")                                    \
    X(CTRL, 0x08u, NM_RW, 0x0u, "EN, PERIODIC, IRQ_EN, PRESCALE")                          \
    X(INTCLR, 0x0Cu, NM_WO, 0x0u, "any write clears the interrupt")                         \
    X(RIS, 0x10u, NM_RO, 0x0u, "raw interrupt status")                                      \
    X(MIS, 0x14u, NM_RO, 0x0u, "masked interrupt status")                                   \
    X(BGLOAD, 0x18u, NM_RW, 0x0u, "reload value used at the next wrap, count not restarted")

#define S2_TIMER_CTRL_EN_SHIFT 7
#define S2_TIMER_CTRL_EN_WIDTH 1
#define S2_TIMER_CTRL_PERIODIC_SHIFT 6 /* 1: reload from LOAD at zero; 0: one-shot, stops at zero */
#define S2_TIMER_CTRL_PERIODIC_WIDTH 1
#define S2_TIMER_CTRL_IRQ_EN_SHIFT 5
#define S2_TIMER_CTRL_IRQ_EN_WIDTH 1
#define S2_TIMER_CTRL_PRESCALE_SHIFT 2 /* 0: /1, 1: /16, 2: /256 */
#define S2_TIMER_CTRL_PRESCALE_WIDTH 2


/* register offsets: S2_TIMER_<REG> */
#define S2_TIMER_OFFSET_(name, off, acc, rst, doc) S2_TIMER_##name = off,
enum { S2_TIMER_REGS(S2_TIMER_OFFSET_) };

#endif
