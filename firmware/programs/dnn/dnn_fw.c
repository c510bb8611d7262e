#include "dnn_fw.h"

#include "nmsim/hw/spinnaker2/noc_map.h"
#include "s2_dma.h"
#include "s2_hal.h"
#include "s2_signal.h"

#define QUEUE 16u /* a power of two; more than the signal unit's FIFO */

volatile uint32_t dnn_signal_count;
static volatile uint32_t q_word[QUEUE], q_source[QUEUE];
static uint32_t q_taken;
static volatile int q_overflow;

/* The line stays high while words are queued: drain the unit's FIFO before returning. */
void SIGNAL_IRQHandler(void) {
    while (s2_signal_pending()) {
        const uint32_t n = dnn_signal_count;
        if (n - q_taken < QUEUE) {
            q_word[n % QUEUE] = s2_signal_word();
            q_source[n % QUEUE] = s2_signal_source();
            dnn_signal_count = n + 1u;
        } else {
            q_overflow = 1;
        }
        s2_signal_pop();
    }
}

void dnn_signals_init(void) {
    s2_irq_priority(S2_IRQ_SIGNAL, 1);
    s2_irq_enable(S2_IRQ_SIGNAL);
}

uint32_t dnn_next_signal(uint32_t *source) {
    s2_sleep_until(&dnn_signal_count, q_taken + 1u);
    const uint32_t i = q_taken % QUEUE;
    const uint32_t w = q_word[i];
    if (source) *source = q_source[i];
    ++q_taken;
    return w;
}

int dnn_signal_overflowed(void) { return q_overflow || s2_signal_overflowed(); }

uint32_t dnn_dma(uint32_t src, uint32_t dst, uint32_t len, uint32_t *err_addr) {
    const uint32_t t0 = s2_cycles();
    s2_dma_start(src, dst, len, 1);
    const uint32_t st = s2_dma_wait_wfi();
    if (!s2_dma_ok(st)) {
        if (err_addr) *err_addr = s2_dma_err_addr();
        return 0xFFFFFFFFu;
    }
    return s2_cycles() - t0;
}

void dnn_load_words(uint32_t src, void *dst, uint32_t words) {
    const volatile uint32_t *s = (const volatile uint32_t *)(uintptr_t)src;
    uint32_t *d = (uint32_t *)dst;
    for (uint32_t i = 0; i < words; ++i) d[i] = s[i];
}

void dnn_store_words(const void *src, uint32_t dst, uint32_t words) {
    const uint32_t *s = (const uint32_t *)src;
    volatile uint32_t *d = (volatile uint32_t *)(uintptr_t)dst;
    for (uint32_t i = 0; i < words; ++i) d[i] = s[i];
}

uint32_t dnn_pe_addr(uint32_t pe, uint32_t offset) {
    uint32_t qx = 0, qy = 0;
    s2_qpe_coord(pe / S2_NOC_PES_PER_QPE, &qx, &qy);
    return s2_pe_global_addr(qx, qy, pe % S2_NOC_PES_PER_QPE, offset);
}

extern uint8_t _end[];
extern uint8_t _stack_top[];
extern uint8_t _min_stack[];

uint32_t dnn_heap_base(void) { return ((uint32_t)(uintptr_t)_end + 15u) & ~15u; }
uint32_t dnn_heap_size(void) {
    const uint32_t top = (uint32_t)(uintptr_t)_stack_top - (uint32_t)(uintptr_t)_min_stack;
    return top > dnn_heap_base() ? (top - dnn_heap_base()) & ~15u : 0u;
}
