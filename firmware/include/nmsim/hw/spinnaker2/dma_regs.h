/* DMA engine: one channel; copies LEN bytes from SRC to DST. Either address may be local SRAM or
 * the external window (S2_EXT_BASE...), reached through the PE's TLM initiator port. */
#ifndef NMSIM_HW_S2_DMA_REGS_H
#define NMSIM_HW_S2_DMA_REGS_H
#include "nmsim/hw/regdef.h"

#define S2_DMA_REGS(X)                                                                 \
    X(SRC, 0x00u, NM_RW, 0x0u, "source address")                                       \
    X(DST, 0x04u, NM_RW, 0x0u, "destination address")                                  \
    X(LEN, 0x08u, NM_RW, 0x0u, "transfer length in bytes")                             \
    X(CTRL, 0x0Cu, NM_RW, 0x0u, "START (self-clearing) and IRQ_EN")                   \
    X(STATUS, 0x10u, NM_RO, 0x0u, "BUSY, DONE, ERROR flags")                           \
    X(ACK, 0x14u, NM_WO, 0x0u, "write 1 to clear DONE/ERROR and the interrupt")        \
    X(ERR_ADDR, 0x18u, NM_RO, 0x0u, "address of the failing access when ERROR is set")

#define S2_DMA_CTRL_START_SHIFT 0
#define S2_DMA_CTRL_START_WIDTH 1
#define S2_DMA_CTRL_IRQ_EN_SHIFT 1
#define S2_DMA_CTRL_IRQ_EN_WIDTH 1
#define S2_DMA_STATUS_BUSY_SHIFT 0
#define S2_DMA_STATUS_BUSY_WIDTH 1
#define S2_DMA_STATUS_DONE_SHIFT 1
#define S2_DMA_STATUS_DONE_WIDTH 1
#define S2_DMA_STATUS_ERROR_SHIFT 2
#define S2_DMA_STATUS_ERROR_WIDTH 1


/* register offsets: S2_DMA_<REG> */
#define S2_DMA_OFFSET_(name, off, acc, rst, doc) S2_DMA_##name = off,
enum { S2_DMA_REGS(S2_DMA_OFFSET_) };

#endif
