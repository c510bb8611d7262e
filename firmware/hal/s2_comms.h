/* Multicast communication controller driver. Register map and semantics:
 * nmsim/hw/spinnaker2/comms_regs.h; the router: docs/router.md.
 *
 *   s2_mc_send(key);                      // stalls while the TX FIFO is full
 *   s2_mc_send_payload(key, payload);
 *   void COMMS_IRQHandler(void) {         // S2_IRQ_COMMS_RX, level: high while packets wait
 *       uint32_t key, payload;
 *       while (s2_mc_rx_pending()) { int has = s2_mc_receive(&key, &payload); ... }
 *   }
 *
 * On a platform without a spike router (the single-PE platform) a send is a bus error. */
#ifndef S2_COMMS_H
#define S2_COMMS_H
#include <stdint.h>

#include "nmsim/hw/regdef.h"
#include "nmsim/hw/spinnaker2/comms_regs.h"
#include "nmsim/hw/spinnaker2/pe_map.h"

#define S2_COMMS_REG(off) NM_REG32(S2_COMMS_BASE + (uint32_t)(off))

/* Sends a multicast packet with `key` and no payload. */
static inline void s2_mc_send(uint32_t key) { S2_COMMS_REG(S2_COMMS_TX_KEY) = key; }

/* Sends a multicast packet with `key` and a 32-bit payload. Not interrupt safe against another
 * sender on the same PE: the payload is latched until the key is written. */
static inline void s2_mc_send_payload(uint32_t key, uint32_t payload) {
    S2_COMMS_REG(S2_COMMS_TX_PAYLOAD) = payload;
    S2_COMMS_REG(S2_COMMS_TX_KEY) = key;
}

static inline uint32_t s2_mc_tx_status(void) { return S2_COMMS_REG(S2_COMMS_TX_STATUS); }
static inline uint32_t s2_mc_rx_status(void) { return S2_COMMS_REG(S2_COMMS_RX_STATUS); }

/* Non-zero while a received packet waits in the RX FIFO. */
static inline int s2_mc_rx_pending(void) {
    return NM_FIELD_GET(s2_mc_rx_status(), S2_COMMS_RX_STATUS_PENDING) != 0;
}

/* Pops the oldest received packet into *key and *payload (0 without payload) and returns 1 if it
 * carried a payload. Call only while s2_mc_rx_pending(): with an empty FIFO it returns 0 and
 * *key = 0. */
static inline int s2_mc_receive(uint32_t *key, uint32_t *payload) {
    const int has_payload = NM_FIELD_GET(s2_mc_rx_status(), S2_COMMS_RX_STATUS_HAS_PAYLOAD) != 0;
    *payload = has_payload ? S2_COMMS_REG(S2_COMMS_RX_PAYLOAD) : 0u;
    *key = S2_COMMS_REG(S2_COMMS_RX_KEY); /* the read pops */
    return has_payload;
}

/* This PE's global index (4 * qpe_index + pe). */
static inline uint32_t s2_comms_self(void) { return S2_COMMS_REG(S2_COMMS_SELF); }
/* Packets this PE has sent into the network and received (both wrap at 2^32). */
static inline uint32_t s2_mc_sent(void) { return S2_COMMS_REG(S2_COMMS_SENT); }
static inline uint32_t s2_mc_received(void) { return S2_COMMS_REG(S2_COMMS_RECEIVED); }

#endif
