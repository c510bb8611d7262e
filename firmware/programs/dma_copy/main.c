/* DMA copy check: copies arg 2 bytes from arg 0 to arg 1 with the PE DMA engine, optionally
 * copies them on from arg 1 to a third buffer (arg 4, if non-zero), and compares the copies with
 * the source in software. Addresses may be local SRAM or the external window, in any pairing.
 *   arg 0 src, arg 1 dst, arg 2 len (bytes), arg 3 flags, arg 4 copy-back buffer (0: none)
 *   flags bit 0: wait for the DMA interrupt in WFI (handler DMA_IRQHandler) instead of polling
 * Prints one console line; exit status 0 = both copies correct, 1 = the DMA reported an error,
 * 2 = the data differ, 3 = the number of DMA interrupts is not one per transfer. */
#include "s2_dma.h"
#include "s2_hal.h"

static volatile uint32_t g_irq_status; /* STATUS seen by the last DMA interrupt */
static volatile uint32_t g_irq_count;

/* The DMA line is level-sensitive: acknowledge before returning, or the handler runs again. */
void DMA_IRQHandler(void) {
    g_irq_status = s2_dma_status();
    s2_dma_ack();
    g_irq_count = g_irq_count + 1u;
}

/* Waits for the next DMA interrupt (the handler counts it) and returns the STATUS it saw. */
static uint32_t wait_irq(uint32_t count_before) {
    s2_sleep_until(&g_irq_count, count_before + 1u);
    return g_irq_status;
}

static uint32_t copy(uint32_t src, uint32_t dst, uint32_t len, int use_irq) {
    if (!use_irq) {
        s2_dma_start(src, dst, len, 0);
        return s2_dma_wait_poll();
    }
    const uint32_t before = g_irq_count;
    s2_dma_start(src, dst, len, 1);
    return wait_irq(before);
}

static int same(uint32_t a, uint32_t b, uint32_t len) {
    const uint8_t *p = (const uint8_t *)(uintptr_t)a;
    const uint8_t *q = (const uint8_t *)(uintptr_t)b;
    for (uint32_t i = 0; i < len; ++i)
        if (p[i] != q[i]) return 0;
    return 1;
}

int main(void) {
    const uint32_t src = s2_arg(0), dst = s2_arg(1), len = s2_arg(2), flags = s2_arg(3);
    const uint32_t back = s2_arg(4);
    const int use_irq = (flags & 1u) != 0;
    if (use_irq) {
        s2_irq_priority(S2_IRQ_DMA, 1);
        s2_irq_enable(S2_IRQ_DMA);
    }
    s2_cycles_start();

    const uint32_t c0 = s2_cycles();
    uint32_t st = copy(src, dst, len, use_irq);
    const uint32_t c1 = s2_cycles();
    int dma_ok = s2_dma_ok(st);
    int data_ok = dma_ok && same(src, dst, len);
    uint32_t st_back = 0;
    if (back != 0 && dma_ok) {
        st_back = copy(dst, back, len, use_irq);
        dma_ok = s2_dma_ok(st_back);
        data_ok = data_ok && dma_ok && same(src, back, len);
    }
    const uint32_t irqs = g_irq_count;
    const uint32_t transfers = back != 0 ? 2u : 1u;
    const int irqs_ok = irqs == (use_irq ? transfers : 0u);

    s2_printf(
        "dma_copy: %s len=%u src=0x%08x dst=0x%08x back=0x%08x wait=%s irqs=%u cycles=%u "
        "status=0x%x/0x%x err_addr=0x%08x\n",
        !dma_ok    ? "DMA_ERROR"
        : !data_ok ? "MISMATCH"
        : !irqs_ok ? "IRQ_COUNT"
                   : "ok",
        (unsigned)len, (unsigned)src, (unsigned)dst, (unsigned)back, use_irq ? "irq" : "poll",
        (unsigned)irqs, (unsigned)(c1 - c0), (unsigned)st, (unsigned)st_back,
        (unsigned)(dma_ok ? 0u : s2_dma_err_addr()));
    if (!dma_ok) return 1;
    if (!data_ok) return 2;
    return irqs_ok ? 0 : 3;
}
