/* EXP accelerator: fixed-point exp(x) with x and the result in s16.15 (int32, 15 fraction bits).
 * Iterative shift-and-add: ITERATIONS (1..16) trades precision for latency; the latency is
 * pe.exp.latency_base + ITERATIONS cycles (7..22 cycles with the default base of 6).
 * Reading OUT before the result is ready stalls the bus until it is. */
#ifndef NMSIM_HW_S2_EXP_REGS_H
#define NMSIM_HW_S2_EXP_REGS_H
#include <stdint.h>

#include "nmsim/hw/regdef.h"

#define S2_EXP_REGS(X)                                                             \
    X(CTRL, 0x00u, NM_RW, 0x10u, "ITERATIONS (1..16): precision/latency trade-off") \
    X(IN, 0x04u, NM_WO, 0x0u, "operand x in s16.15; writing starts the computation") \
    X(OUT, 0x08u, NM_RO, 0x8000u, "exp(x) in s16.15, saturated; stalls until ready") \
    X(STATUS, 0x0Cu, NM_RO, 0x0u, "BUSY flag")

#define S2_EXP_CTRL_ITERATIONS_SHIFT 0
#define S2_EXP_CTRL_ITERATIONS_WIDTH 5
#define S2_EXP_STATUS_BUSY_SHIFT 0
#define S2_EXP_STATUS_BUSY_WIDTH 1
#define S2_EXP_FRAC_BITS 15
#define S2_EXP_MAX_ITERATIONS 16u

/* The datapath, defined once (the model, firmware that computes the same function in software,
 * the references): x in s16.15 is widened to 40 fraction bits, split as x = k ln2 + r with
 * 0 <= r < ln2, then r is reduced by the table steps ln(1 + 2^-i), i = 1..iterations, while y
 * collects the factors (1 + 2^-i); the rest is the linear term y r; the result y 2^k is rounded to
 * 15 fraction bits and saturated. Plain 64-bit arithmetic (y < 2^41, r < 2^40: the product is
 * taken in two 20-bit halves of r, exactly floor(y r / 2^40)). */
#define S2_EXP_Q 40u
#define S2_EXP_LN2_Q40 762123384786LL /* round(ln(2) * 2^40) */
/* round(ln(1 + 2^-i) * 2^40) for i = 1..16 (index 0 unused) */
#define S2_EXP_LN_TABLE_Q40                                                                  \
    {0LL,          445813601022LL, 245348929333LL, 129503817259LL, 66657476617LL,           \
     33833796510LL, 17047033376LL, 8556553905LL,   4286600470LL,   2145389223LL,            \
     1073217877LL,  536739883LL,   268402693LL,    134209537LL,    67106816LL,              \
     33553920LL,    16777088LL}

static inline int32_t s2_exp_datapath(int32_t x_s16_15, unsigned iterations) {
    static const int64_t table[S2_EXP_MAX_ITERATIONS + 1] = S2_EXP_LN_TABLE_Q40;
    const unsigned in_shift = S2_EXP_Q - S2_EXP_FRAC_BITS;
    const int64_t x = (int64_t)x_s16_15 * ((int64_t)1 << in_shift);
    int64_t k = x / S2_EXP_LN2_Q40; /* floor division */
    if (k * S2_EXP_LN2_Q40 > x) --k;
    /* exp(x) >= 2^17 is not representable; for k <= -17 the result rounds to 0 */
    if (k >= 17) return INT32_MAX;
    if (k <= -17) return 0;
    int64_t r = x - k * S2_EXP_LN2_Q40;
    uint64_t y = (uint64_t)1 << S2_EXP_Q;
    for (unsigned i = 1; i <= iterations; ++i) {
        if (r >= table[i]) {
            r -= table[i];
            y += y >> i;
        }
    }
    const uint64_t ur = (uint64_t)r;
    const uint64_t hi = y * (ur >> 20), lo = y * (ur & 0xFFFFFu);
    y += (hi + (lo >> 20)) >> 20;
    const unsigned shift = (unsigned)((int64_t)in_shift - k);
    const uint64_t res = (y + ((uint64_t)1 << (shift - 1))) >> shift;
    return res > (uint64_t)INT32_MAX ? INT32_MAX : (int32_t)res;
}


/* register offsets: S2_EXP_<REG> */
#define S2_EXP_OFFSET_(name, off, acc, rst, doc) S2_EXP_##name = off,
enum { S2_EXP_REGS(S2_EXP_OFFSET_) };

#endif
