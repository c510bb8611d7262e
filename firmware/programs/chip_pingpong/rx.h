/* Signal reception shared by chip_ping and chip_pong: SIGNAL_IRQHandler drains the signal FIFO
 * into rx_word/rx_source; rx_wait(n) sleeps in WFI until n words have arrived in total. */
#ifndef CHIP_PINGPONG_RX_H
#define CHIP_PINGPONG_RX_H
#include <stdint.h>

#define RX_MAX 8u

extern volatile uint32_t rx_count;          /* words received so far (may exceed RX_MAX) */
extern volatile uint32_t rx_word[RX_MAX];   /* the first RX_MAX words */
extern volatile uint32_t rx_source[RX_MAX]; /* their senders' global indices */

void rx_init(void);           /* enables S2_IRQ_SIGNAL */
void rx_wait(uint32_t count); /* until rx_count >= count */
#endif
