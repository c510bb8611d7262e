/* Host mailbox and doorbells. The core leaves words in TO_HOST0..3 and rings DOORBELL (the value
 * written is the message code; the PE platform's host treats it as the program's exit status).
 * The host writes FROM_HOST0..3 and raises S2_IRQ_MAILBOX; the core clears it with ACK. */
#ifndef NMSIM_HW_S2_MAILBOX_REGS_H
#define NMSIM_HW_S2_MAILBOX_REGS_H
#include "nmsim/hw/regdef.h"

#define S2_MAILBOX_REGS(X)                                                   \
    X(TO_HOST0, 0x00u, NM_RW, 0x0u, "word 0 for the host")                   \
    X(TO_HOST1, 0x04u, NM_RW, 0x0u, "word 1 for the host")                   \
    X(TO_HOST2, 0x08u, NM_RW, 0x0u, "word 2 for the host")                   \
    X(TO_HOST3, 0x0Cu, NM_RW, 0x0u, "word 3 for the host")                   \
    X(DOORBELL, 0x10u, NM_WO, 0x0u, "ring the host with a message code")     \
    X(FROM_HOST0, 0x20u, NM_RO, 0x0u, "word 0 from the host")                \
    X(FROM_HOST1, 0x24u, NM_RO, 0x0u, "word 1 from the host")                \
    X(FROM_HOST2, 0x28u, NM_RO, 0x0u, "word 2 from the host")                \
    X(FROM_HOST3, 0x2Cu, NM_RO, 0x0u, "word 3 from the host")                \
    X(STATUS, 0x30u, NM_RO, 0x0u, "PENDING: a host message waits")          \
    X(ACK, 0x34u, NM_WO, 0x0u, "write 1 to clear PENDING and the interrupt")

#define S2_MAILBOX_STATUS_PENDING_SHIFT 0
#define S2_MAILBOX_STATUS_PENDING_WIDTH 1


/* register offsets: S2_MAILBOX_<REG> */
#define S2_MAILBOX_OFFSET_(name, off, acc, rst, doc) S2_MAILBOX_##name = off,
enum { S2_MAILBOX_REGS(S2_MAILBOX_OFFSET_) };

#endif
