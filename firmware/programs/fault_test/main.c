/* Deliberate faults, selected by argument 0, to check that the simulator reports them with the
 * program counter, the address and the cause:
 *   0 read from an unmapped address      1 write to an unmapped address
 *   2 write to a read-only register      3 undefined instruction
 *   4 branch to an address with the Thumb bit clear (invalid state)
 *   5 reaches HardFault_Handler (run with pe.core.fault_policy=vector), which exits with 0x4F */
#include "s2_hal.h"
#include "nmsim/hw/spinnaker2/mla_regs.h"

void HardFault_Handler(void) {
    s2_printf("hardfault: CFSR=%08x HFSR=%08x BFAR=%08x\n", (unsigned)NM_REG32(0xE000ED28u),
              (unsigned)NM_REG32(0xE000ED2Cu), (unsigned)NM_REG32(0xE000ED38u));
    s2_exit(0x4F);
}

int main(void) {
    const uint32_t kind = s2_arg(0);
    s2_printf("fault_test: kind %u\n", (unsigned)kind);
    switch (kind) {
        case 0:
        case 5:
            return (int)NM_REG32(0x50000000u);
        case 1:
            NM_REG32(0x50000010u) = 1;
            break;
        case 2:
            NM_REG32(S2_MLA_BASE + S2_MLA_STATUS) = 1;
            break;
        case 3:
            __asm volatile("udf #7");
            break;
        case 4: {
            void (*f)(void) = (void (*)(void))(uintptr_t)0x100u; /* Thumb bit clear */
            f();
            break;
        }
        default:
            break;
    }
    return 1; /* a fault must have stopped the program before this */
}
