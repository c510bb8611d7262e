/* MLA (MAC array) driver: configure and start a matrix multiply or 2-D convolution, then wait by
 * polling STATUS or by sleeping in WFI until the MLA interrupt, and acknowledge.
 * Register map and arithmetic: nmsim/hw/spinnaker2/mla_regs.h. All addresses are PE SRAM core
 * addresses, 4-byte aligned.
 *
 *   s2_mla_matmul(&mm);                                   // A, B, C, bias, M, K, N, shift
 *   s2_mla_start(S2_MLA_INT8_SIGNED | S2_MLA_RELU | ...); // CTRL flags without START
 *   uint32_t st = s2_mla_wait_poll();                     // or s2_mla_wait_wfi()
 *   if (s2_mla_failed(st)) ... s2_mla_errcode(st) ...
 *   uint32_t cycles = s2_mla_cycles();
 */
#ifndef S2_MLA_H
#define S2_MLA_H
#include <stdint.h>

#include "nmsim/hw/regdef.h"
#include "nmsim/hw/spinnaker2/mla_regs.h"
#include "nmsim/hw/spinnaker2/pe_map.h"
#include "s2_hal.h"

#define S2_MLA_REG(off) NM_REG32(S2_MLA_BASE + (uint32_t)(off))

/* CTRL flag helpers (combine with |; START is added by s2_mla_start). */
#define S2_MLA_IRQ_EN NM_FIELD_SET(1u, S2_MLA_CTRL_IRQ_EN)
#define S2_MLA_CONV NM_FIELD_SET(S2_MLA_MODE_CONV2D, S2_MLA_CTRL_MODE)
#define S2_MLA_A_SIGNED NM_FIELD_SET(1u, S2_MLA_CTRL_A_SIGNED)
#define S2_MLA_B_SIGNED NM_FIELD_SET(1u, S2_MLA_CTRL_B_SIGNED)
#define S2_MLA_INT8_SIGNED (S2_MLA_A_SIGNED | S2_MLA_B_SIGNED)
#define S2_MLA_IN16 NM_FIELD_SET(1u, S2_MLA_CTRL_IN16)
#define S2_MLA_OUT8 NM_FIELD_SET(S2_MLA_OUT_INT8, S2_MLA_CTRL_OUT_PREC)
#define S2_MLA_OUT16 NM_FIELD_SET(S2_MLA_OUT_INT16, S2_MLA_CTRL_OUT_PREC)
#define S2_MLA_OUT32 NM_FIELD_SET(S2_MLA_OUT_INT32, S2_MLA_CTRL_OUT_PREC)
#define S2_MLA_RELU NM_FIELD_SET(1u, S2_MLA_CTRL_RELU)
#define S2_MLA_ACCUMULATE NM_FIELD_SET(1u, S2_MLA_CTRL_ACCUMULATE)
#define S2_MLA_BIAS NM_FIELD_SET(1u, S2_MLA_CTRL_BIAS_EN)

#define S2_MLA_ST_BUSY NM_FIELD_SET(1u, S2_MLA_STATUS_BUSY)
#define S2_MLA_ST_DONE NM_FIELD_SET(1u, S2_MLA_STATUS_DONE)
#define S2_MLA_ST_ERROR NM_FIELD_SET(1u, S2_MLA_STATUS_ERROR)

typedef struct {
    uint32_t a, b, c, bias; /* SRAM addresses (bias used only with S2_MLA_BIAS) */
    uint32_t m, k, n;       /* C[m][n] = A[m][k] * B[k][n] */
    uint32_t shift;         /* requantisation right shift 0..31 */
} s2_mla_matmul_t;

typedef struct {
    uint32_t ifm, kernel, ofm, bias; /* SRAM addresses: HWC input, [kh][kw][c][oc], HWC output */
    uint32_t ifm_h, ifm_w, ifm_c;
    uint32_t ker_h, ker_w, ofm_c;
    uint32_t stride, pad;
    uint32_t shift;
} s2_mla_conv_t;

/* Writes the operand registers of a matrix multiply (does not start it). */
static inline void s2_mla_matmul(const s2_mla_matmul_t *p) {
    S2_MLA_REG(S2_MLA_A_ADDR) = p->a;
    S2_MLA_REG(S2_MLA_B_ADDR) = p->b;
    S2_MLA_REG(S2_MLA_C_ADDR) = p->c;
    S2_MLA_REG(S2_MLA_BIAS_ADDR) = p->bias;
    S2_MLA_REG(S2_MLA_M) = p->m;
    S2_MLA_REG(S2_MLA_K) = p->k;
    S2_MLA_REG(S2_MLA_N) = p->n;
    S2_MLA_REG(S2_MLA_SHIFT) = p->shift;
}

/* Writes the operand registers of a 2-D convolution (does not start it; add S2_MLA_CONV). */
static inline void s2_mla_conv(const s2_mla_conv_t *p) {
    S2_MLA_REG(S2_MLA_A_ADDR) = p->ifm;
    S2_MLA_REG(S2_MLA_B_ADDR) = p->kernel;
    S2_MLA_REG(S2_MLA_C_ADDR) = p->ofm;
    S2_MLA_REG(S2_MLA_BIAS_ADDR) = p->bias;
    S2_MLA_REG(S2_MLA_IFM_H) = p->ifm_h;
    S2_MLA_REG(S2_MLA_IFM_W) = p->ifm_w;
    S2_MLA_REG(S2_MLA_IFM_C) = p->ifm_c;
    S2_MLA_REG(S2_MLA_KER_H) = p->ker_h;
    S2_MLA_REG(S2_MLA_KER_W) = p->ker_w;
    S2_MLA_REG(S2_MLA_OFM_C) = p->ofm_c;
    S2_MLA_REG(S2_MLA_STRIDE) = p->stride;
    S2_MLA_REG(S2_MLA_PAD) = p->pad;
    S2_MLA_REG(S2_MLA_SHIFT) = p->shift;
}

/* Starts the operation set up in the registers with CTRL flags `ctrl` (S2_MLA_* above). Errors
 * in the setup show at once in STATUS (ERROR set, BUSY clear). */
static inline void s2_mla_start(uint32_t ctrl) {
    S2_MLA_REG(S2_MLA_CTRL) = ctrl | NM_FIELD_SET(1u, S2_MLA_CTRL_START);
}

static inline uint32_t s2_mla_status(void) { return S2_MLA_REG(S2_MLA_STATUS); }
static inline int s2_mla_failed(uint32_t status) { return (status & S2_MLA_ST_ERROR) != 0; }
static inline uint32_t s2_mla_errcode(uint32_t status) {
    return NM_FIELD_GET(status, S2_MLA_STATUS_ERRCODE);
}
/* MLA clock cycles of the last completed operation. */
static inline uint32_t s2_mla_cycles(void) { return S2_MLA_REG(S2_MLA_CYCLES); }
/* Clears DONE, ERROR and the interrupt. */
static inline void s2_mla_ack(void) { S2_MLA_REG(S2_MLA_ACK) = 1u; }

static inline int s2_mla_finished(uint32_t status) {
    return !(status & S2_MLA_ST_BUSY) && (status & (S2_MLA_ST_DONE | S2_MLA_ST_ERROR));
}

/* Busy-waits until the operation has finished; acknowledges it and returns the final STATUS. */
static inline uint32_t s2_mla_wait_poll(void) {
    uint32_t st;
    do {
        st = s2_mla_status();
    } while (!s2_mla_finished(st));
    s2_mla_ack();
    return st;
}

/* Sleeps in WFI until the operation has finished; acknowledges it and returns the final STATUS.
 * The operation must have been started with S2_MLA_IRQ_EN. Interrupts are masked (PRIMASK) while
 * waiting, so no handler runs: per ARMv7-M a pending interrupt still wakes WFI when PRIMASK is
 * set, and masking closes the race between reading STATUS and executing WFI. Afterwards the NVIC
 * line is disabled again, its pending bit cleared and PRIMASK restored. */
static inline uint32_t s2_mla_wait_wfi(void) {
    uint32_t primask;
    uint32_t st;
    __asm volatile("mrs %0, primask" : "=r"(primask));
    s2_disable_interrupts();
    s2_irq_enable(S2_IRQ_MLA);
    for (;;) {
        st = s2_mla_status();
        if (s2_mla_finished(st)) break;
        s2_wfi();
    }
    s2_mla_ack();
    s2_irq_disable(S2_IRQ_MLA);
    s2_irq_clear_pending(S2_IRQ_MLA);
    if (!(primask & 1u)) s2_enable_interrupts();
    return st;
}

#endif
