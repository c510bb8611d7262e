/* BrainScaleS-2 FPGA playback programs and their responses: the 8-byte instruction and response
 * words the host compiler emits, the host link carries and the FPGA model executes.
 *
 * The FPGA executes a "linear sequence of commands in a state-machine" (seed 004 section 3.1.3) on
 * its 125 MHz timer (seed 004 section 5.2.4); every universal-translator (UT) message is 8 B
 * (seed 004 section 5.2.1). Instruction kinds follow the public hxcomm instruction set
 * (docs/hardware_facts.md B4: timer reset, wait-until, Omnibus write/read, spike packs of up to
 * 3 labels); the bit layout is nmsim's own.
 *
 * Instruction word (64 bit): bits 63:56 opcode, the rest as listed per opcode.
 * Response word (64 bit): bits 63:56 response type.
 * Timestamps are FPGA timer counts (125 MHz cycles) since the last TIMER_RESET.
 */
#ifndef NMSIM_HW_BSS2_PLAYBACK_H
#define NMSIM_HW_BSS2_PLAYBACK_H
#include <stdint.h>

#define BSS2_PB_WORD_BYTES 8u
#define BSS2_PB_OPCODE_SHIFT 56u

/* Instructions. */
#define BSS2_PB_TIMER_RESET 0x01u /* timer := 0 */
#define BSS2_PB_WAIT_UNTIL 0x02u  /* bits 31:0: stall until timer >= value */
#define BSS2_PB_WRITE 0x03u       /* bits 55:32 address (24 bit), 31:0 data: Omnibus write to the chip */
#define BSS2_PB_READ 0x04u        /* bits 55:32 address: Omnibus read; answers BSS2_PB_RSP_READ */
#define BSS2_PB_SPIKES 0x05u      /* bits 49:48 count 1..3, labels (16-bit L2 events) at 47:32, 31:16, 15:0 */
#define BSS2_PB_RUN_BEGIN 0x06u   /* bits 31:0 run index: start recording events for this run */
#define BSS2_PB_RUN_END 0x07u     /* stop recording events */
#define BSS2_PB_HALT 0x0Fu        /* end of program */

/* Responses (FPGA -> host). */
#define BSS2_PB_RSP_READ 0x81u  /* bits 55:32 address, 31:0 data */
#define BSS2_PB_RSP_SPIKE 0x82u /* bits 55:40 L2 event (16 bit), 31:0 timestamp */
#define BSS2_PB_RSP_MADC 0x83u  /* bits 55:42 sample (14-bit field, 10 significant bits), 31:0 timestamp */
#define BSS2_PB_RSP_RUN 0x84u   /* bits 31:0 run index: the events that follow belong to this run */
#define BSS2_PB_RSP_HALT 0x8Fu  /* bits 31:0 events the FPGA dropped (full buffers) */

static inline uint32_t bss2_pb_opcode(uint64_t w) { return (uint32_t)(w >> BSS2_PB_OPCODE_SHIFT); }
static inline uint64_t bss2_pb_make(uint32_t op, uint64_t payload) {
    return (uint64_t)op << BSS2_PB_OPCODE_SHIFT | (payload & 0x00FFFFFFFFFFFFFFull);
}
static inline uint64_t bss2_pb_write(uint32_t addr, uint32_t data) {
    return bss2_pb_make(BSS2_PB_WRITE, (uint64_t)(addr & 0xFFFFFFu) << 32 | data);
}
static inline uint64_t bss2_pb_read(uint32_t addr) {
    return bss2_pb_make(BSS2_PB_READ, (uint64_t)(addr & 0xFFFFFFu) << 32);
}
static inline uint64_t bss2_pb_wait_until(uint32_t t) { return bss2_pb_make(BSS2_PB_WAIT_UNTIL, t); }
static inline uint64_t bss2_pb_spikes(uint32_t n, uint32_t l0, uint32_t l1, uint32_t l2) {
    return bss2_pb_make(BSS2_PB_SPIKES, (uint64_t)(n & 3u) << 48 | (uint64_t)(l0 & 0xFFFFu) << 32 |
                                            (uint64_t)(l1 & 0xFFFFu) << 16 | (uint64_t)(l2 & 0xFFFFu));
}
static inline uint32_t bss2_pb_addr(uint64_t w) { return (uint32_t)(w >> 32) & 0xFFFFFFu; }
static inline uint32_t bss2_pb_data(uint64_t w) { return (uint32_t)w; }
static inline uint32_t bss2_pb_spike_count(uint64_t w) { return (uint32_t)(w >> 48) & 3u; }
static inline uint32_t bss2_pb_spike_label(uint64_t w, uint32_t i) { /* i = 0..2 */
    return (uint32_t)(w >> (32u - 16u * i)) & 0xFFFFu;
}
static inline uint64_t bss2_pb_rsp_spike(uint32_t l2_event, uint32_t t) {
    return bss2_pb_make(BSS2_PB_RSP_SPIKE, (uint64_t)(l2_event & 0xFFFFu) << 40 | t);
}
static inline uint64_t bss2_pb_rsp_madc(uint32_t sample, uint32_t t) {
    return bss2_pb_make(BSS2_PB_RSP_MADC, (uint64_t)(sample & 0x3FFFu) << 42 | t);
}
static inline uint32_t bss2_pb_rsp_label(uint64_t w) { return (uint32_t)(w >> 40) & 0xFFFFu; }
static inline uint32_t bss2_pb_rsp_sample(uint64_t w) { return (uint32_t)(w >> 42) & 0x3FFFu; }
static inline uint32_t bss2_pb_rsp_time(uint64_t w) { return (uint32_t)w; }

#endif
