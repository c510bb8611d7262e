/* chip_multicast: PEs exchange multicast packets through the spike router.
 *   arg 0 participants N (2..S2_NOC_N_PES), arg 1 base key (low 8 bits 0), arg 2 rounds R
 *   (1..255), arg 3 cycles of busy work between two sends (0: back to back)
 * Each participant sends R packets with key base | self: round r carries the payload
 * self << 16 | r when r is even and no payload when r is odd. The host routes key base | p to
 * every participant but p. The RX interrupt pops every pending packet (s2_mc_receive) and checks
 * that each source's rounds arrive in order with the right payload. The PE sleeps until it has
 * received (N - 1) * R packets.
 * Exit status: 0 ok, 1 bad args, 2 a key of no known source, 3 a round out of order or a wrong
 * payload, 4 more packets than expected. */
#include "nmsim/hw/spinnaker2/noc_map.h"
#include "s2_comms.h"
#include "s2_hal.h"

static uint32_t base, self;
static uint8_t next_round[S2_NOC_N_PES];
volatile uint32_t mc_count;
volatile uint32_t mc_error;
volatile uint32_t mc_with_payload;

void COMMS_IRQHandler(void) {
    uint32_t key, payload;
    /* The line stays high while packets wait: pop them all. */
    while (s2_mc_rx_pending()) {
        const int has_payload = s2_mc_receive(&key, &payload);
        const uint32_t src = key & 0xFFu;
        if ((key & ~0xFFu) != base || src >= S2_NOC_N_PES || src == self) {
            mc_error = 2;
            continue;
        }
        const uint32_t r = next_round[src]++;
        if (has_payload != ((r & 1u) == 0u) || (has_payload && payload != (src << 16 | r)))
            mc_error = 3;
        mc_with_payload += has_payload ? 1u : 0u;
        mc_count = mc_count + 1u;
    }
}

static void spin(uint32_t cycles) {
    const uint32_t c0 = s2_cycles();
    while (s2_cycles() - c0 < cycles) {
    }
}

int main(void) {
    const uint32_t n = s2_arg(0), rounds = s2_arg(2), work = s2_arg(3);
    base = s2_arg(1);
    if (n < 2 || n > S2_NOC_N_PES || rounds < 1 || rounds > 255 || (base & 0xFFu)) return 1;
    self = s2_comms_self();
    s2_cycles_start();
    s2_irq_priority(S2_IRQ_COMMS_RX, 1);
    s2_irq_enable(S2_IRQ_COMMS_RX);
    s2_enable_interrupts();

    const uint32_t c0 = s2_cycles();
    for (uint32_t r = 0; r < rounds; ++r) {
        if ((r & 1u) == 0u)
            s2_mc_send_payload(base | self, self << 16 | r);
        else
            s2_mc_send(base | self);
        if (work) spin(work);
    }
    const uint32_t expect = (n - 1u) * rounds;
    s2_sleep_until(&mc_count, expect);
    const uint32_t c1 = s2_cycles();
    if (mc_count != expect && !mc_error) mc_error = 4;
    s2_printf("chip_multicast: %s self=%u sent=%u received=%u payloads=%u cycles=%u\n",
              mc_error ? "FAIL" : "ok", (unsigned)self, (unsigned)s2_mc_sent(),
              (unsigned)s2_mc_received(), (unsigned)mc_with_payload, (unsigned)(c1 - c0));
    return (int)mc_error;
}
