/* Shared by the DNN scheduler and worker (docs/dnn_flow.md): signal reception into a queue,
 * blocking DMA with error checks, global addresses of other PEs' SRAM, the free SRAM. */
#ifndef DNN_FW_H
#define DNN_FW_H
#include <stdint.h>

#include "nmsim/hw/spinnaker2/dnn_image.h"

/* Signal words arrive in SIGNAL_IRQHandler and wait here until dnn_next_signal() takes them. */
void dnn_signals_init(void);
/* Sleeps until a word is queued and returns it (and its sender in *source if not NULL). */
uint32_t dnn_next_signal(uint32_t *source);
/* Words received so far (a counter the scheduler sleeps on with s2_sleep_until). */
extern volatile uint32_t dnn_signal_count;
/* The sticky overflow of the queue (words lost because the firmware fell behind). */
int dnn_signal_overflowed(void);

/* Copies len bytes by DMA and sleeps until done; returns the PE cycles spent waiting, or
 * 0xFFFFFFFF when the transfer failed (the failing address is in *err_addr). */
uint32_t dnn_dma(uint32_t src, uint32_t dst, uint32_t len, uint32_t *err_addr);

/* Copies `words` 32-bit words from a global address with core loads (uncached, each one access
 * through the NoC), the way the seed's firmware reads its configuration structs; see
 * docs/dnn_flow.md "Configuration reads". */
void dnn_load_words(uint32_t src, void *dst, uint32_t words);
/* Stores words to a global address with core stores. */
void dnn_store_words(const void *src, uint32_t dst, uint32_t words);

/* Global addresses (DRAM, other PEs' SRAM, the host buffer) are core addresses too: the PE's
 * external window maps them one to one (noc_map.h). */
/* Global address of `offset` in the SRAM of the PE with global index `pe`. */
uint32_t dnn_pe_addr(uint32_t pe, uint32_t offset);

/* The SRAM between the image's end and the stack (16-byte aligned). */
uint32_t dnn_heap_base(void);
uint32_t dnn_heap_size(void);
#endif
