/* PRNG: KISS-type generator (Marsaglia's KISS: LCG x = 69069x + 12345, xorshift y (13, 17, 5),
 * multiply-with-carry t = 698769069 z + c), one 32-bit value x + y + z per read of OUT. The chip's
 * generator is reported as a 64-bit KISS variant [2nd]; this 32-bit KISS is the documented model.
 * The reset state is derived from the scenario seed; SEED_C must stay below 698769069 and z, c
 * must not both be 0. */
#ifndef NMSIM_HW_S2_PRNG_REGS_H
#define NMSIM_HW_S2_PRNG_REGS_H
#include <stdint.h>

#include "nmsim/hw/regdef.h"

#define S2_PRNG_REGS(X)                                                   \
    X(SEED_X, 0x00u, NM_WO, 0x0u, "LCG state x")                          \
    X(SEED_Y, 0x04u, NM_WO, 0x0u, "xorshift state y (0 is replaced by 1)") \
    X(SEED_Z, 0x08u, NM_WO, 0x0u, "multiply-with-carry state z")          \
    X(SEED_C, 0x0Cu, NM_WO, 0x0u, "multiply-with-carry carry c")          \
    X(OUT, 0x10u, NM_RO, 0x0u, "next 32-bit random value")

#define S2_PRNG_MWC_MULTIPLIER 698769069u

/* The generator's state and step, defined once: the model (models/spinnaker2/prng), firmware that
 * runs the same stream in software (seed 003's 1P setup) and the references use it. */
typedef struct {
    uint32_t x, y, z, c;
} s2_kiss_state_t;

static inline uint32_t s2_kiss_step(s2_kiss_state_t *s) {
    s->x = 69069u * s->x + 12345u;
    s->y ^= s->y << 13;
    s->y ^= s->y >> 17;
    s->y ^= s->y << 5;
    const uint64_t t = (uint64_t)S2_PRNG_MWC_MULTIPLIER * s->z + s->c;
    s->c = (uint32_t)(t >> 32);
    s->z = (uint32_t)t;
    return s->x + s->y + s->z;
}

/* register offsets: S2_PRNG_<REG> */
#define S2_PRNG_OFFSET_(name, off, acc, rst, doc) S2_PRNG_##name = off,
enum { S2_PRNG_REGS(S2_PRNG_OFFSET_) };

#endif
