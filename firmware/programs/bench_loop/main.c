/* Compute loop for `nmsim bench`: integer work with table loads and one store per iteration
 * (~20 instructions), repeated arg 0 times; prints a checksum so the work cannot be elided.
 * arg 1 = 1 selects a register-only loop (no memory traffic) instead. */
#include "s2_hal.h"

static uint32_t table[256];

int main(void) {
    const uint32_t n = s2_arg(0);
    uint32_t x = 2463534242u, acc = 0;
    if (s2_arg(1) == 1) {
        for (uint32_t i = 0; i < n; ++i) {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            acc = acc * 33u + (x >> 3);
            acc ^= acc >> 11;
        }
    } else {
        for (uint32_t i = 0; i < 256; ++i) table[i] = i * 2654435761u;
        for (uint32_t i = 0; i < n; ++i) {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            const uint32_t j = x & 255u;
            acc += table[j] ^ (acc >> 7);
            acc = acc * 33u + table[(j + 1) & 255u];
            if ((i & 15u) == 0) table[j] = acc;
        }
    }
    s2_printf("bench_loop: %u iterations, checksum %08x\n", (unsigned)n, (unsigned)acc);
    return 0;
}
