/* PE DMA driver: copy LEN bytes from SRC to DST, then wait by polling STATUS or by sleeping in
 * WFI until the DMA interrupt, and acknowledge. Register map: nmsim/hw/spinnaker2/dma_regs.h.
 * Addresses are core addresses: local SRAM (S2_SRAM_BASE...) or the external window
 * (S2_EXT_BASE...0xDFFFFFFF), in any pairing. The simulated engine moves bursts in order and
 * behaves like memmove for overlapping ranges (see models/spinnaker2/dma/dma.h).
 *
 *   s2_dma_start(src, dst, len, 0);      // or irq = 1 to raise S2_IRQ_DMA on completion
 *   uint32_t st = s2_dma_wait_poll();    // or s2_dma_wait_wfi() after starting with irq = 1
 *   if (!s2_dma_ok(st)) ... s2_dma_err_addr() ...
 *
 * Errors (STATUS.ERROR, ERR_ADDR): LEN 0, a range outside both windows, a bus error on the
 * external side, START while BUSY. A rejected descriptor shows ERROR at once, with BUSY clear. */
#ifndef S2_DMA_H
#define S2_DMA_H
#include <stdint.h>

#include "nmsim/hw/regdef.h"
#include "nmsim/hw/spinnaker2/dma_regs.h"
#include "nmsim/hw/spinnaker2/pe_map.h"
#include "s2_hal.h"

#define S2_DMA_REG(off) NM_REG32(S2_DMA_BASE + (uint32_t)(off))

#define S2_DMA_ST_BUSY NM_FIELD_SET(1u, S2_DMA_STATUS_BUSY)
#define S2_DMA_ST_DONE NM_FIELD_SET(1u, S2_DMA_STATUS_DONE)
#define S2_DMA_ST_ERROR NM_FIELD_SET(1u, S2_DMA_STATUS_ERROR)

/* Starts a transfer; `irq` non-zero sets CTRL.IRQ_EN (the line stays high until s2_dma_ack).
 * The barrier makes the CPU's earlier stores to the source visible before the engine reads. */
static inline void s2_dma_start(uint32_t src, uint32_t dst, uint32_t len, int irq) {
    __asm volatile("dmb" ::: "memory");
    S2_DMA_REG(S2_DMA_SRC) = src;
    S2_DMA_REG(S2_DMA_DST) = dst;
    S2_DMA_REG(S2_DMA_LEN) = len;
    S2_DMA_REG(S2_DMA_CTRL) =
        NM_FIELD_SET(1u, S2_DMA_CTRL_START) | NM_FIELD_SET(irq ? 1u : 0u, S2_DMA_CTRL_IRQ_EN);
}

static inline uint32_t s2_dma_status(void) { return S2_DMA_REG(S2_DMA_STATUS); }
static inline int s2_dma_busy(uint32_t status) { return (status & S2_DMA_ST_BUSY) != 0; }
static inline int s2_dma_failed(uint32_t status) { return (status & S2_DMA_ST_ERROR) != 0; }
/* Finished: no longer busy, and DONE or ERROR is set. */
static inline int s2_dma_finished(uint32_t status) {
    return !s2_dma_busy(status) && (status & (S2_DMA_ST_DONE | S2_DMA_ST_ERROR)) != 0;
}
/* Completed without error. */
static inline int s2_dma_ok(uint32_t status) {
    return s2_dma_finished(status) && !s2_dma_failed(status);
}
/* Address of the failing access (valid while ERROR is set, kept until the next error). */
static inline uint32_t s2_dma_err_addr(void) { return S2_DMA_REG(S2_DMA_ERR_ADDR); }
/* Clears DONE, ERROR and the interrupt. */
static inline void s2_dma_ack(void) { S2_DMA_REG(S2_DMA_ACK) = 1u; }

/* Busy-waits until the transfer has finished; acknowledges it and returns the final STATUS.
 * The barrier keeps the compiler from using values of the destination read before the wait. */
static inline uint32_t s2_dma_wait_poll(void) {
    uint32_t st;
    do {
        st = s2_dma_status();
    } while (!s2_dma_finished(st));
    s2_dma_ack();
    __asm volatile("dmb" ::: "memory");
    return st;
}

/* Sleeps in WFI until the transfer has finished, without running a handler (the transfer must
 * have been started with irq = 1); acknowledges it and returns the final STATUS. PRIMASK masks
 * interrupts while waiting: per ARMv7-M a pending interrupt still wakes WFI, and masking closes
 * the race between reading STATUS and executing WFI. Afterwards the NVIC line is disabled, its
 * pending bit cleared and PRIMASK restored. For a handler-driven wait see programs/dma_copy. */
static inline uint32_t s2_dma_wait_wfi(void) {
    uint32_t primask;
    uint32_t st;
    __asm volatile("mrs %0, primask" : "=r"(primask));
    s2_disable_interrupts();
    s2_irq_enable(S2_IRQ_DMA);
    for (;;) {
        st = s2_dma_status();
        if (s2_dma_finished(st)) break;
        s2_wfi();
    }
    s2_dma_ack();
    s2_irq_disable(S2_IRQ_DMA);
    s2_irq_clear_pending(S2_IRQ_DMA);
    if (!(primask & 1u)) s2_enable_interrupts();
    __asm volatile("dmb" ::: "memory");
    return st;
}

#endif
