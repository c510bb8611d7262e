/* chip_pong: the second half of the chip ping-pong test (partner: chip_ping).
 *   arg 0 length in bytes (1..BUF_MAX)
 * Sleeps until two signal words from one sender: a DRAM address and a global destination
 * address. DMAs the buffer from DRAM into SRAM, adds 1 to each byte, DMAs it to the destination
 * (another PE's SRAM through the NoC) and signals the sender the length.
 * Exit status: 0 ok, 1 DMA error, 3 the two words came from different senders, 4 bad args,
 * 5 signal FIFO overflow. */
#include "rx.h"
#include "s2_dma.h"
#include "s2_hal.h"
#include "s2_signal.h"

#define BUF_MAX 1024u

uint8_t pong_buf[BUF_MAX] __attribute__((aligned(16)));

int main(void) {
    const uint32_t len = s2_arg(0);
    if (len == 0 || len > BUF_MAX) return 4;
    rx_init();
    rx_wait(2);
    if (rx_source[0] != rx_source[1]) return 3;
    const uint32_t sender = rx_source[0], dram = rx_word[0], dst = rx_word[1];

    s2_dma_start(dram, (uint32_t)(uintptr_t)pong_buf, len, 0);
    if (!s2_dma_ok(s2_dma_wait_poll())) return 1;
    for (uint32_t i = 0; i < len; ++i) pong_buf[i] = (uint8_t)(pong_buf[i] + 1u);
    s2_dma_start((uint32_t)(uintptr_t)pong_buf, dst, len, 0);
    if (!s2_dma_ok(s2_dma_wait_poll())) return 1;
    s2_signal_send(sender, len);
    s2_printf("chip_pong: ok sender=%u dram=0x%08x dst=0x%08x len=%u\n", (unsigned)sender,
              (unsigned)dram, (unsigned)dst, (unsigned)len);
    return s2_signal_overflowed() ? 5 : 0;
}
