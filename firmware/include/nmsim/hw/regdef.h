/* Register-table conventions shared by firmware (C, arm-none-eabi-gcc) and models (C++17).
 * Each block header defines an X-macro table: X(NAME, OFFSET, ACCESS, RESET, DOC).
 * Bit fields are <PREFIX>_<REG>_<FIELD>_SHIFT / _WIDTH pairs; never C bitfields. */
#ifndef NMSIM_HW_REGDEF_H
#define NMSIM_HW_REGDEF_H
#include <stdint.h>

#define NM_RW 0u /* read/write */
#define NM_RO 1u /* read-only: writes are bus errors */
#define NM_WO 2u /* write-only: reads are bus errors */

#define NM_FIELD_MASK(width) ((uint32_t)(((width) >= 32) ? 0xFFFFFFFFu : ((1u << (width)) - 1u)))
#define NM_FIELD_GET(val, prefix) (((uint32_t)(val) >> prefix##_SHIFT) & NM_FIELD_MASK(prefix##_WIDTH))
#define NM_FIELD_SET(v, prefix) (((uint32_t)(v) & NM_FIELD_MASK(prefix##_WIDTH)) << prefix##_SHIFT)

#define NM_REG32(addr) (*(volatile uint32_t *)(uintptr_t)(addr))

#endif
