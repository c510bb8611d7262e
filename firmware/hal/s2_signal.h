/* PE-to-PE signal driver. Register map and semantics: nmsim/hw/spinnaker2/signal_regs.h.
 *
 *   s2_signal_send(pe, word);            // a bad target is a bus error (the core faults)
 *   void SIGNAL_IRQHandler(void) { w = s2_signal_word(); src = s2_signal_source(); s2_signal_pop(); }
 *
 * The line S2_IRQ_SIGNAL is level-sensitive and stays high while words are queued: pop every word
 * in the handler (or loop while s2_signal_pending()). */
#ifndef S2_SIGNAL_H
#define S2_SIGNAL_H
#include <stdint.h>

#include "nmsim/hw/regdef.h"
#include "nmsim/hw/spinnaker2/pe_map.h"
#include "nmsim/hw/spinnaker2/signal_regs.h"

#define S2_SIGNAL_REG(off) NM_REG32(S2_SIGNAL_BASE + (uint32_t)(off))

/* Sends `word` to the PE with global index `pe` (4 * qpe_index + pe in QPE). The barrier makes
 * earlier stores (e.g. a buffer the receiver will read) precede the signal. */
static inline void s2_signal_send(uint32_t pe, uint32_t word) {
    __asm volatile("dmb" ::: "memory");
    S2_SIGNAL_REG(S2_SIGNAL_TARGET) = pe;
    S2_SIGNAL_REG(S2_SIGNAL_SEND) = word;
}

static inline uint32_t s2_signal_status(void) { return S2_SIGNAL_REG(S2_SIGNAL_STATUS); }
static inline int s2_signal_pending(void) {
    return NM_FIELD_GET(s2_signal_status(), S2_SIGNAL_STATUS_PENDING) != 0;
}
static inline int s2_signal_overflowed(void) {
    return NM_FIELD_GET(s2_signal_status(), S2_SIGNAL_STATUS_OVERFLOW) != 0;
}
/* The oldest queued word and its sender's global index. */
static inline uint32_t s2_signal_word(void) { return S2_SIGNAL_REG(S2_SIGNAL_RX_WORD); }
static inline uint32_t s2_signal_source(void) { return S2_SIGNAL_REG(S2_SIGNAL_RX_SOURCE); }
/* Drops the oldest word (the interrupt falls when the queue is empty). */
static inline void s2_signal_pop(void) {
    S2_SIGNAL_REG(S2_SIGNAL_ACK) = NM_FIELD_SET(1u, S2_SIGNAL_ACK_POP);
}
static inline void s2_signal_clear_overflow(void) {
    S2_SIGNAL_REG(S2_SIGNAL_ACK) = NM_FIELD_SET(1u, S2_SIGNAL_ACK_CLEAR_OVERFLOW);
}
/* This PE's global index. */
static inline uint32_t s2_signal_self(void) { return S2_SIGNAL_REG(S2_SIGNAL_SELF); }

#endif
