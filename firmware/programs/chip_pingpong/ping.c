/* chip_ping: the first half of the chip ping-pong test (partner: chip_pong on another PE).
 *   arg 0 partner's global PE index, arg 1 DRAM address (global, 16-byte aligned),
 *   arg 2 length in bytes (1..BUF_MAX)
 * Fills a buffer with a pattern, DMAs it to DRAM, signals the partner the DRAM address and then
 * the global address of its own result buffer (two words), sleeps until the partner's reply
 * word (the length), and checks that the result buffer holds the pattern plus one per byte.
 * Exit status: 0 ok, 1 DMA error, 2 data differ, 3 wrong reply (word or sender), 4 bad args,
 * 5 signal FIFO overflow, 6 the core's own loads from DRAM differ. */
#include "nmsim/hw/spinnaker2/noc_map.h"
#include "rx.h"
#include "s2_dma.h"
#include "s2_hal.h"
#include "s2_signal.h"

#define BUF_MAX 1024u

uint8_t ping_src[BUF_MAX] __attribute__((aligned(16)));
volatile uint8_t ping_result[BUF_MAX] __attribute__((aligned(16)));

static uint8_t pattern(uint32_t i) { return (uint8_t)(i * 7u + 3u); }

int main(void) {
    const uint32_t partner = s2_arg(0), dram = s2_arg(1), len = s2_arg(2);
    if (len == 0 || len > BUF_MAX) return 4;
    for (uint32_t i = 0; i < len; ++i) {
        ping_src[i] = pattern(i);
        ping_result[i] = 0;
    }
    rx_init();
    s2_cycles_start();

    s2_dma_start((uint32_t)(uintptr_t)ping_src, dram, len, 0);
    if (!s2_dma_ok(s2_dma_wait_poll())) return 1;
    /* The core's own loads reach DRAM through the NoC too. */
    const volatile uint8_t *in_dram = (const volatile uint8_t *)(uintptr_t)dram;
    for (uint32_t i = 0; i < len; i += 61u)
        if (in_dram[i] != pattern(i)) return 6;
    const uint32_t c0 = s2_cycles();

    const uint32_t self = s2_signal_self();
    uint32_t qx = 0, qy = 0;
    s2_qpe_coord(self / S2_NOC_PES_PER_QPE, &qx, &qy);
    const uint32_t result_global =
        s2_pe_global_addr(qx, qy, self % S2_NOC_PES_PER_QPE, (uint32_t)(uintptr_t)ping_result);
    s2_signal_send(partner, dram);
    s2_signal_send(partner, result_global);
    rx_wait(1);
    const uint32_t c1 = s2_cycles();

    int ok = 1;
    for (uint32_t i = 0; i < len; ++i)
        if (ping_result[i] != (uint8_t)(pattern(i) + 1u)) ok = 0;
    const int reply_ok = rx_word[0] == len && rx_source[0] == partner && rx_count == 1u;
    s2_printf("chip_ping: %s self=%u partner=%u dram=0x%08x result=0x%08x len=%u cycles=%u\n",
              !ok ? "MISMATCH" : !reply_ok ? "BAD_REPLY" : "ok", (unsigned)self,
              (unsigned)partner, (unsigned)dram, (unsigned)result_global, (unsigned)len,
              (unsigned)(c1 - c0));
    if (s2_signal_overflowed()) return 5;
    if (!reply_ok) return 3;
    return ok ? 0 : 2;
}
