/* EXP accelerator: fixed-point exp(x) with x and the result in s16.15 (int32, 15 fraction bits).
 * Iterative shift-and-add: ITERATIONS (1..16) trades precision for latency; the latency is
 * pe.exp.latency_base + ITERATIONS cycles (7..22 cycles with the default base of 6).
 * Reading OUT before the result is ready stalls the bus until it is. */
#ifndef NMSIM_HW_S2_EXP_REGS_H
#define NMSIM_HW_S2_EXP_REGS_H
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


/* register offsets: S2_EXP_<REG> */
#define S2_EXP_OFFSET_(name, off, acc, rst, doc) S2_EXP_##name = off,
enum { S2_EXP_REGS(S2_EXP_OFFSET_) };

#endif
