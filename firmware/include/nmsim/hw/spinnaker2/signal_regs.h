/* PE-to-PE signal unit (nmsim's model of the "PE-to-PE interrupts/signal words"; the real
 * register layout is not public). One unit per PE at S2_SIGNAL_BASE.
 *
 * Send: write the global index (4 * qpe_index + pe, 0..151) of the receiving PE to TARGET, then
 * the 32-bit word to SEND. The unit writes {word, own index} (8 B, one NoC flit) through the data
 * NoC to the receiver's signal window, at S2_SIGNAL_RX_OFFSET inside the receiver's global PE
 * window (s2_pe_global_addr(qx, qy, pe, S2_SIGNAL_RX_OFFSET)). The write is posted: the sender
 * does not wait for the flight. SEND fails with a bus error when TARGET is not a PE of the chip
 * (>= 152, or a QPE the platform does not build) or when the PE has no NoC (the single-PE
 * platform).
 * Receive: arriving words queue in a FIFO of S2_SIGNAL_FIFO_DEPTH entries. RX_WORD/RX_SOURCE
 * show the oldest entry; STATUS.PENDING is set and S2_IRQ_SIGNAL is high while the FIFO holds
 * one; ACK.POP drops the oldest. A word that arrives at a full FIFO is dropped and sets the
 * sticky STATUS.OVERFLOW (cleared by ACK.CLEAR_OVERFLOW). */
#ifndef NMSIM_HW_S2_SIGNAL_REGS_H
#define NMSIM_HW_S2_SIGNAL_REGS_H
#include "nmsim/hw/regdef.h"

#define S2_SIGNAL_REGS(X)                                                                  \
    X(TARGET, 0x00u, NM_RW, 0x0u, "global index of the PE that SEND signals (0..151)")     \
    X(SEND, 0x04u, NM_WO, 0x0u, "send the written word to TARGET over the NoC")          \
    X(RX_WORD, 0x08u, NM_RO, 0x0u, "oldest received word (0 if none)")                    \
    X(RX_SOURCE, 0x0Cu, NM_RO, 0x0u, "global index of the oldest word's sender")         \
    X(STATUS, 0x10u, NM_RO, 0x0u, "PENDING, OVERFLOW, COUNT")                             \
    X(ACK, 0x14u, NM_WO, 0x0u, "POP drops the oldest word; CLEAR_OVERFLOW clears OVERFLOW") \
    X(SELF, 0x18u, NM_RO, 0x0u, "global index of this PE")

#define S2_SIGNAL_STATUS_PENDING_SHIFT 0 /* the FIFO holds a word; S2_IRQ_SIGNAL is high */
#define S2_SIGNAL_STATUS_PENDING_WIDTH 1
#define S2_SIGNAL_STATUS_OVERFLOW_SHIFT 1 /* sticky: a word arrived at a full FIFO and was lost */
#define S2_SIGNAL_STATUS_OVERFLOW_WIDTH 1
#define S2_SIGNAL_STATUS_COUNT_SHIFT 4 /* words in the FIFO */
#define S2_SIGNAL_STATUS_COUNT_WIDTH 3
#define S2_SIGNAL_ACK_POP_SHIFT 0
#define S2_SIGNAL_ACK_POP_WIDTH 1
#define S2_SIGNAL_ACK_CLEAR_OVERFLOW_SHIFT 1
#define S2_SIGNAL_ACK_CLEAR_OVERFLOW_WIDTH 1

#define S2_SIGNAL_FIFO_DEPTH 4u /* assumed: a small receive queue */

/* Where a unit receives: offset inside its PE's 512 KiB global window (noc_map.h), the top
 * 256 B, above any PE SRAM size the platforms accept. The receiver sees an 8-byte write:
 * word, then the sender's global index (little endian). */
#define S2_SIGNAL_RX_OFFSET 0x0007FF00u
#define S2_SIGNAL_RX_WINDOW 0x100u
#define S2_SIGNAL_RX_BYTES 8u

/* register offsets: S2_SIGNAL_<REG> */
#define S2_SIGNAL_OFFSET_(name, off, acc, rst, doc) S2_SIGNAL_##name = off,
enum { S2_SIGNAL_REGS(S2_SIGNAL_OFFSET_) };

#endif
