/* MLA (machine-learning accelerator): 4x16 output-stationary MAC array.
 * Matrix mode: C[M][N] = A[M][K] * B[K][N] (row-major, dense). Conv mode: A is an HWC input
 * feature map [IFM_H][IFM_W][IFM_C], B the kernel [KER_H][KER_W][IFM_C][OFM_C], C the HWC output
 * [OH][OW][OFM_C] with OH = (IFM_H + 2*PAD - KER_H)/STRIDE + 1 (zero padding).
 * Result: acc = sum(a*b) (+ bias[n]) wrapped to pe.mla.acc_bits; r = round_half_up(acc >> SHIFT),
 * i.e. (acc + 2^(SHIFT-1)) >> SHIFT with an arithmetic shift; ReLU; (accumulate: r += C_old, the
 * old result read as a signed value of the output precision); saturate to the signed output
 * precision. */
#ifndef NMSIM_HW_S2_MLA_REGS_H
#define NMSIM_HW_S2_MLA_REGS_H
#include "nmsim/hw/regdef.h"

#define S2_MLA_REGS(X)                                                                       \
    X(CTRL, 0x000u, NM_RW, 0x0u, "operation setup; writing START begins the operation")      \
    X(STATUS, 0x004u, NM_RO, 0x0u, "BUSY, DONE and ERROR flags and error code")               \
    X(ACK, 0x008u, NM_WO, 0x0u, "write 1 to clear DONE/ERROR and the interrupt")              \
    X(A_ADDR, 0x010u, NM_RW, 0x0u, "operand A / input feature map base address (SRAM)")       \
    X(B_ADDR, 0x014u, NM_RW, 0x0u, "operand B / kernel base address (SRAM)")                  \
    X(C_ADDR, 0x018u, NM_RW, 0x0u, "result base address (SRAM)")                              \
    X(BIAS_ADDR, 0x01Cu, NM_RW, 0x0u, "int32 bias per output column (SRAM), if BIAS_EN")     \
    X(M, 0x020u, NM_RW, 0x1u, "matrix mode: rows of A and C")                                 \
    X(K, 0x024u, NM_RW, 0x1u, "matrix mode: columns of A, rows of B")                         \
    X(N, 0x028u, NM_RW, 0x1u, "matrix mode: columns of B and C")                              \
    X(SHIFT, 0x02Cu, NM_RW, 0x0u, "requantisation right shift (0..31), rounding half up")    \
    X(IFM_H, 0x030u, NM_RW, 0x1u, "conv mode: input height")                                  \
    X(IFM_W, 0x034u, NM_RW, 0x1u, "conv mode: input width")                                   \
    X(IFM_C, 0x038u, NM_RW, 0x1u, "conv mode: input channels")                                \
    X(KER_H, 0x03Cu, NM_RW, 0x1u, "conv mode: kernel height")                                 \
    X(KER_W, 0x040u, NM_RW, 0x1u, "conv mode: kernel width")                                  \
    X(STRIDE, 0x044u, NM_RW, 0x1u, "conv mode: stride (both axes)")                           \
    X(PAD, 0x048u, NM_RW, 0x0u, "conv mode: zero padding (both axes)")                        \
    X(OFM_C, 0x04Cu, NM_RW, 0x1u, "conv mode: output channels")                               \
    X(CYCLES, 0x050u, NM_RO, 0x0u, "MLA clock cycles of the last operation")

#define S2_MLA_CTRL_START_SHIFT 0
#define S2_MLA_CTRL_START_WIDTH 1
#define S2_MLA_CTRL_IRQ_EN_SHIFT 1
#define S2_MLA_CTRL_IRQ_EN_WIDTH 1
#define S2_MLA_CTRL_MODE_SHIFT 2 /* 0 matrix, 1 conv2d */
#define S2_MLA_CTRL_MODE_WIDTH 2
#define S2_MLA_CTRL_A_SIGNED_SHIFT 4
#define S2_MLA_CTRL_A_SIGNED_WIDTH 1
#define S2_MLA_CTRL_B_SIGNED_SHIFT 5
#define S2_MLA_CTRL_B_SIGNED_WIDTH 1
#define S2_MLA_CTRL_IN16_SHIFT 6 /* operands are 16-bit (four cells fuse: 16 MAC/cycle) */
#define S2_MLA_CTRL_IN16_WIDTH 1
#define S2_MLA_CTRL_OUT_PREC_SHIFT 8 /* 0 int8, 1 int16, 2 int32 */
#define S2_MLA_CTRL_OUT_PREC_WIDTH 2
#define S2_MLA_CTRL_RELU_SHIFT 10
#define S2_MLA_CTRL_RELU_WIDTH 1
#define S2_MLA_CTRL_ACCUMULATE_SHIFT 11
#define S2_MLA_CTRL_ACCUMULATE_WIDTH 1
#define S2_MLA_CTRL_BIAS_EN_SHIFT 12
#define S2_MLA_CTRL_BIAS_EN_WIDTH 1

#define S2_MLA_MODE_MATMUL 0u
#define S2_MLA_MODE_CONV2D 1u
#define S2_MLA_OUT_INT8 0u
#define S2_MLA_OUT_INT16 1u
#define S2_MLA_OUT_INT32 2u

#define S2_MLA_STATUS_BUSY_SHIFT 0
#define S2_MLA_STATUS_BUSY_WIDTH 1
#define S2_MLA_STATUS_DONE_SHIFT 1
#define S2_MLA_STATUS_DONE_WIDTH 1
#define S2_MLA_STATUS_ERROR_SHIFT 2
#define S2_MLA_STATUS_ERROR_WIDTH 1
#define S2_MLA_STATUS_ERRCODE_SHIFT 8
#define S2_MLA_STATUS_ERRCODE_WIDTH 8

/* error codes in STATUS.ERRCODE */
#define S2_MLA_ERR_NONE 0u
#define S2_MLA_ERR_BUSY 1u      /* START while busy */
#define S2_MLA_ERR_ALIGN 2u     /* operand address not 4-byte aligned */
#define S2_MLA_ERR_RANGE 3u     /* operand outside SRAM */
#define S2_MLA_ERR_SHAPE 4u     /* zero or inconsistent dimension */
#define S2_MLA_ERR_MODE 5u      /* reserved mode or output precision, or SHIFT > 31 */


/* register offsets: S2_MLA_<REG> */
#define S2_MLA_OFFSET_(name, off, acc, rst, doc) S2_MLA_##name = off,
enum { S2_MLA_REGS(S2_MLA_OFFSET_) };

#endif
