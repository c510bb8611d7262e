/* Multicast communication controller ("comms"), one per PE at S2_COMMS_BASE: sends and receives
 * the multicast packets the spike router (router_regs.h) routes. nmsim's model; the real register
 * layout is not public. Behaviour and timing: docs/router.md.
 *
 * Send: write the payload to TX_PAYLOAD (optional), then the key to TX_KEY. TX_KEY queues a
 * packet {key, payload if one was latched} in the TX FIFO (depth: parameter pe.comms.tx_fifo_depth)
 * and clears the latch. The FIFO drains over the data NoC to the router (one flit per packet,
 * mc_packet.h) as fast as the router's input queue takes packets. When the FIFO is full, the
 * TX_KEY write stalls the core: the bus access completes only when a slot is free, so the
 * router's back-pressure reaches the core. TX_KEY is a bus error when the platform has no
 * router (the single-PE platform).
 * Receive: copies the router delivers queue in the RX FIFO (depth: pe.comms.rx_fifo_depth). The
 * router sends a copy only when the FIFO has room for it (docs/router.md, "Flow control"), so the
 * FIFO never overflows: a full FIFO back-pressures the router. S2_IRQ_COMMS_RX is a level
 * interrupt, high while the FIFO holds a packet. Read RX_STATUS, then RX_PAYLOAD if HAS_PAYLOAD,
 * then RX_KEY: reading RX_KEY pops the packet. */
#ifndef NMSIM_HW_S2_COMMS_REGS_H
#define NMSIM_HW_S2_COMMS_REGS_H
#include "nmsim/hw/regdef.h"

#define S2_COMMS_REGS(X)                                                                       \
    X(TX_PAYLOAD, 0x00u, NM_WO, 0x0u,                                                          \
      "payload of the next packet: the next TX_KEY write sends a packet with this payload")    \
    X(TX_KEY, 0x04u, NM_WO, 0x0u,                                                              \
      "send a multicast packet with this key (and the latched payload, then cleared); stalls " \
      "while the TX FIFO is full")                                                             \
    X(TX_STATUS, 0x08u, NM_RO, 0x0u, "FULL, COUNT (packets in the TX FIFO)")                   \
    X(RX_KEY, 0x10u, NM_RO, 0x0u,                                                              \
      "key of the oldest received packet; reading it pops the packet (0 if none)")             \
    X(RX_PAYLOAD, 0x14u, NM_RO, 0x0u,                                                          \
      "payload of the oldest received packet (0 if none or without payload); no side effect")  \
    X(RX_STATUS, 0x18u, NM_RO, 0x0u, "PENDING, HAS_PAYLOAD (of the oldest packet), COUNT")     \
    X(SELF, 0x1Cu, NM_RO, 0x0u, "global index of this PE (4 * qpe_index + pe)")                \
    X(SENT, 0x20u, NM_RO, 0x0u, "packets sent into the NoC toward the router (wraps at 2^32)") \
    X(RECEIVED, 0x24u, NM_RO, 0x0u, "packets received into the RX FIFO (wraps at 2^32)")

#define S2_COMMS_TX_STATUS_FULL_SHIFT 0 /* the TX FIFO is full: a TX_KEY write would stall */
#define S2_COMMS_TX_STATUS_FULL_WIDTH 1
#define S2_COMMS_TX_STATUS_COUNT_SHIFT 8 /* packets in the TX FIFO */
#define S2_COMMS_TX_STATUS_COUNT_WIDTH 8
#define S2_COMMS_RX_STATUS_PENDING_SHIFT 0 /* the RX FIFO holds a packet; S2_IRQ_COMMS_RX is high \
                                            */
#define S2_COMMS_RX_STATUS_PENDING_WIDTH 1
#define S2_COMMS_RX_STATUS_HAS_PAYLOAD_SHIFT 1 /* the oldest packet carries a payload */
#define S2_COMMS_RX_STATUS_HAS_PAYLOAD_WIDTH 1
#define S2_COMMS_RX_STATUS_COUNT_SHIFT 8 /* packets in the RX FIFO */
#define S2_COMMS_RX_STATUS_COUNT_WIDTH 8

#define S2_COMMS_FIFO_MAX 255u /* largest FIFO depth the COUNT fields can show */

/* Where a comms unit receives: an offset inside its PE's 512 KiB global window (noc_map.h), below
 * the signal window (signal_regs.h) and above any PE SRAM size the chip accepts. The router
 * writes one packet (mc_packet.h, S2_MC_PKT_BYTES) at offset 0 of the window. */
#define S2_COMMS_RX_OFFSET 0x0007FE00u
#define S2_COMMS_RX_WINDOW 0x100u

/* register offsets: S2_COMMS_<REG> */
#define S2_COMMS_OFFSET_(name, off, acc, rst, doc) S2_COMMS_##name = off,
enum { S2_COMMS_REGS(S2_COMMS_OFFSET_) };

#endif
