/* Debug console: characters written to PUTC form lines ('\n' ends one) that go into the trace
 * (/events/console) and, if enabled, to the simulator's stdout. MARK is a simulator annotation
 * like gem5's m5 work markers: the host program learns that the firmware entered phase `value`
 * (the DNN scheduler marks setup, each layer and cleanup) and splits the energy accounting there.
 * Not a hardware register: a store costs what any PE-local peripheral store costs. */
#ifndef NMSIM_HW_S2_CONSOLE_REGS_H
#define NMSIM_HW_S2_CONSOLE_REGS_H
#include "nmsim/hw/regdef.h"

#define S2_CONSOLE_REGS(X)                                                  \
    X(PUTC, 0x00u, NM_WO, 0x0u, "append one character to the current line") \
    X(MARK, 0x04u, NM_WO, 0x0u, "simulator phase marker: enter phase `value`")

/* MARK value that ends every phase (the firmware went idle). */
#define S2_CONSOLE_MARK_IDLE 0xFFFFFFFFu

/* register offsets: S2_CONSOLE_<REG> */
#define S2_CONSOLE_OFFSET_(name, off, acc, rst, doc) S2_CONSOLE_##name = off,
enum { S2_CONSOLE_REGS(S2_CONSOLE_OFFSET_) };

#endif
