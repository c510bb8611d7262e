/* PRNG: KISS-type generator (Marsaglia's KISS as in JKISS32: LCG + xorshift + multiply-with-carry),
 * one 32-bit value per read of OUT. The reset state is derived from the scenario seed. */
#ifndef NMSIM_HW_S2_PRNG_REGS_H
#define NMSIM_HW_S2_PRNG_REGS_H
#include "nmsim/hw/regdef.h"

#define S2_PRNG_REGS(X)                                                   \
    X(SEED_X, 0x00u, NM_WO, 0x0u, "LCG state x")                          \
    X(SEED_Y, 0x04u, NM_WO, 0x0u, "xorshift state y (0 is replaced by 1)") \
    X(SEED_Z, 0x08u, NM_WO, 0x0u, "multiply-with-carry state z")          \
    X(SEED_C, 0x0Cu, NM_WO, 0x0u, "multiply-with-carry carry c")          \
    X(OUT, 0x10u, NM_RO, 0x0u, "next 32-bit random value")


/* register offsets: S2_PRNG_<REG> */
#define S2_PRNG_OFFSET_(name, off, acc, rst, doc) S2_PRNG_##name = off,
enum { S2_PRNG_REGS(S2_PRNG_OFFSET_) };

#endif
