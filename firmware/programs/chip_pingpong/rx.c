#include "rx.h"

#include "s2_hal.h"
#include "s2_signal.h"

volatile uint32_t rx_count;
volatile uint32_t rx_word[RX_MAX];
volatile uint32_t rx_source[RX_MAX];

/* The line stays high while words are queued: pop them all before returning. */
void SIGNAL_IRQHandler(void) {
    while (s2_signal_pending()) {
        const uint32_t n = rx_count;
        if (n < RX_MAX) {
            rx_word[n] = s2_signal_word();
            rx_source[n] = s2_signal_source();
        }
        s2_signal_pop();
        rx_count = n + 1u;
    }
}

void rx_init(void) {
    s2_irq_priority(S2_IRQ_SIGNAL, 1);
    s2_irq_enable(S2_IRQ_SIGNAL);
}

void rx_wait(uint32_t count) { s2_sleep_until(&rx_count, count); }
