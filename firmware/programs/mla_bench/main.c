/* mla_bench: runs the same int8 matrix multiply on the MLA `repeat` times (a benchmark of
 * simulated MACs per wall-clock second of the simulator).
 *
 * Arguments: 0 address of A (int8[M][K]), 1 address of B (int8[K][N]), 2 address of C
 * (int32[M][N]), 3 M, 4 K, 5 N, 6 repeat count, 7 flags (bit 1: sleep in WFI until the completion
 * interrupt instead of polling STATUS; the core then costs nothing while the MLA works). All addresses are PE SRAM addresses, 4-byte
 * aligned. C = A.B with signed operands and int32 results (shift 0, no saturation in practice).
 * Prints one console line with the totals. Exit status 0 on success, 0x10 + the MLA error code
 * if the MLA rejects the operation. */
#include "s2_hal.h"
#include "s2_mla.h"

int main(void) {
    s2_mla_matmul_t mm;
    mm.a = s2_arg(0);
    mm.b = s2_arg(1);
    mm.c = s2_arg(2);
    mm.bias = 0;
    mm.m = s2_arg(3);
    mm.k = s2_arg(4);
    mm.n = s2_arg(5);
    mm.shift = 0;
    const uint32_t repeat = s2_arg(6);
    const int use_wfi = (s2_arg(7) & 2u) != 0;

    s2_mla_matmul(&mm);
    uint64_t cycles = 0;
    for (uint32_t r = 0; r < repeat; ++r) {
        s2_mla_start(S2_MLA_INT8_SIGNED | S2_MLA_OUT32 | (use_wfi ? S2_MLA_IRQ_EN : 0u));
        const uint32_t st = use_wfi ? s2_mla_wait_wfi() : s2_mla_wait_poll();
        if (s2_mla_failed(st)) {
            s2_printf("mla_bench: run %u error %u\n", (unsigned)r, (unsigned)s2_mla_errcode(st));
            return 0x10 + (int)s2_mla_errcode(st);
        }
        cycles += s2_mla_cycles();
    }
    const uint32_t macs_per_op = mm.m * mm.k * mm.n; /* < 2^32: operands fit the SRAM */
    if (cycles >> 32)
        s2_printf("mla_bench: M=%u K=%u N=%u repeat=%u macs_per_op=%u kcycles=%u\n", (unsigned)mm.m,
                  (unsigned)mm.k, (unsigned)mm.n, (unsigned)repeat, (unsigned)macs_per_op,
                  (unsigned)(cycles / 1000u));
    else
        s2_printf("mla_bench: M=%u K=%u N=%u repeat=%u macs_per_op=%u cycles=%u\n", (unsigned)mm.m,
                  (unsigned)mm.k, (unsigned)mm.n, (unsigned)repeat, (unsigned)macs_per_op,
                  (unsigned)cycles);
    return 0;
}
