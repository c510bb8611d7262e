/* HAL for the PE exponential accelerator (register map nmsim/hw/spinnaker2/exp_regs.h).
 * Values are s16.15 fixed point: int32 with 15 fraction bits (1.0 = 32768). */
#ifndef S2_EXP_H
#define S2_EXP_H
#include <stdint.h>

#include "nmsim/hw/regdef.h"
#include "nmsim/hw/spinnaker2/exp_regs.h"
#include "nmsim/hw/spinnaker2/pe_map.h"

#define S2_EXP_ONE (1 << S2_EXP_FRAC_BITS)

/* Table steps per exp, 1..16 (more = more precise and slower); other values are bus errors. */
static inline void s2_exp_set_iterations(unsigned n) {
    NM_REG32(S2_EXP_BASE + S2_EXP_CTRL) = NM_FIELD_SET(n, S2_EXP_CTRL_ITERATIONS);
}
static inline unsigned s2_exp_iterations(void) {
    return NM_FIELD_GET(NM_REG32(S2_EXP_BASE + S2_EXP_CTRL), S2_EXP_CTRL_ITERATIONS);
}

/* Split use: start one exp, do other work, then collect it (the read waits if not ready). */
static inline void s2_exp_start(int32_t x_s16_15) {
    NM_REG32(S2_EXP_BASE + S2_EXP_IN) = (uint32_t)x_s16_15;
}
static inline int32_t s2_exp_result(void) { return (int32_t)NM_REG32(S2_EXP_BASE + S2_EXP_OUT); }
static inline int s2_exp_busy(void) {
    return (int)NM_FIELD_GET(NM_REG32(S2_EXP_BASE + S2_EXP_STATUS), S2_EXP_STATUS_BUSY);
}

/* exp(x) in s16.15; saturates to INT32_MAX above ~11.09, 0 below ~-11.09. */
static inline int32_t s2_exp(int32_t x_s16_15) {
    s2_exp_start(x_s16_15);
    return s2_exp_result();
}

#endif
