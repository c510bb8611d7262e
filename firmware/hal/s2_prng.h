/* HAL for the PE pseudo-random number generator (register map nmsim/hw/spinnaker2/prng_regs.h).
 * The generator starts from the scenario seed; s2_rand_seed() sets its state explicitly. */
#ifndef S2_PRNG_H
#define S2_PRNG_H
#include <stdint.h>

#include "nmsim/hw/regdef.h"
#include "nmsim/hw/spinnaker2/pe_map.h"
#include "nmsim/hw/spinnaker2/prng_regs.h"

/* Next 32-bit random value. */
static inline uint32_t s2_rand(void) { return NM_REG32(S2_PRNG_BASE + S2_PRNG_OUT); }

/* KISS state: y != 0 (0 is replaced by 1), c < 698769069 and (z, c) != (0, 0). */
static inline void s2_rand_seed(uint32_t x, uint32_t y, uint32_t z, uint32_t c) {
    NM_REG32(S2_PRNG_BASE + S2_PRNG_SEED_X) = x;
    NM_REG32(S2_PRNG_BASE + S2_PRNG_SEED_Y) = y;
    NM_REG32(S2_PRNG_BASE + S2_PRNG_SEED_Z) = z;
    NM_REG32(S2_PRNG_BASE + S2_PRNG_SEED_C) = c;
}

/* Uniform in [0, n) for n > 0, by the multiply-shift method (bias below n / 2^32). */
static inline uint32_t s2_rand_below(uint32_t n) {
    return (uint32_t)(((uint64_t)s2_rand() * n) >> 32);
}

#endif
