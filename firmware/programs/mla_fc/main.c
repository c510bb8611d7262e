/* mla_fc: an int8 fully-connected layer on the PE's MLA, y = sat8(relu((x.W + b) >> shift)).
 *
 * Arguments: 0 address of x (int8[M][K]), 1 address of W (int8[K][N]), 2 address of the bias
 * (int32[N]; 0 = no bias), 3 address of y (int8[M][N]), 4 M, 5 K, 6 N, 7 shift (0..31),
 * 8 flags: bit 0 ReLU, bit 1 wait for the completion interrupt in WFI instead of polling.
 * All addresses are PE SRAM addresses, 4-byte aligned. Rounding is half up (see mla_regs.h).
 * Prints one console line with the dimensions and the MLA cycle count. Exit status 0 on
 * success, 0x10 + the MLA error code if the MLA rejects the operation. */
#include "s2_hal.h"
#include "s2_mla.h"

int main(void) {
    s2_mla_matmul_t mm;
    mm.a = s2_arg(0);
    mm.b = s2_arg(1);
    mm.bias = s2_arg(2);
    mm.c = s2_arg(3);
    mm.m = s2_arg(4);
    mm.k = s2_arg(5);
    mm.n = s2_arg(6);
    mm.shift = s2_arg(7);
    const uint32_t flags = s2_arg(8);
    const int use_wfi = (flags & 2u) != 0;

    uint32_t ctrl = S2_MLA_INT8_SIGNED | S2_MLA_OUT8;
    if (flags & 1u) ctrl |= S2_MLA_RELU;
    if (mm.bias) ctrl |= S2_MLA_BIAS;
    if (use_wfi) ctrl |= S2_MLA_IRQ_EN;

    s2_mla_matmul(&mm);
    s2_mla_start(ctrl);
    const uint32_t st = use_wfi ? s2_mla_wait_wfi() : s2_mla_wait_poll();
    if (s2_mla_failed(st)) {
        s2_printf("mla_fc: M=%u K=%u N=%u error %u\n", (unsigned)mm.m, (unsigned)mm.k,
                  (unsigned)mm.n, (unsigned)s2_mla_errcode(st));
        return 0x10 + (int)s2_mla_errcode(st);
    }
    s2_printf("mla_fc: M=%u K=%u N=%u relu=%u wfi=%u cycles=%u\n", (unsigned)mm.m, (unsigned)mm.k,
              (unsigned)mm.n, (unsigned)(flags & 1u), (unsigned)use_wfi, (unsigned)s2_mla_cycles());
    return 0;
}
