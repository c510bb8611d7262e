/* Debug console: characters written to PUTC form lines ('\n' ends one) that go into the trace
 * (/events/console) and, if enabled, to the simulator's stdout. */
#ifndef NMSIM_HW_S2_CONSOLE_REGS_H
#define NMSIM_HW_S2_CONSOLE_REGS_H
#include "nmsim/hw/regdef.h"

#define S2_CONSOLE_REGS(X) X(PUTC, 0x00u, NM_WO, 0x0u, "append one character to the current line")


/* register offsets: S2_CONSOLE_<REG> */
#define S2_CONSOLE_OFFSET_(name, off, acc, rst, doc) S2_CONSOLE_##name = off,
enum { S2_CONSOLE_REGS(S2_CONSOLE_OFFSET_) };

#endif
