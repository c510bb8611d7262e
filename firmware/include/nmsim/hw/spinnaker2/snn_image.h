/* Per-PE data of a spiking network on SpiNNaker2, serial paradigm (seed 001 sec. III-A, Table I;
 * the sPyNNaker way): written by the host compiler (tools/compiler/snn/image.h) into the local
 * SRAM of every PE the network uses, read by the SNN firmware. Plain C, only <stdint.h>; structs
 * of uint32_t fields only (no bitfields), sizes pinned below. docs/snn_compiler.md explains the
 * layout, the fixed-point formats and the per-tick order.
 *
 * SRAM of a PE (128 KiB, pe_map.h):
 *   [0, S2_SNN_IMAGE_BASE)                   firmware code, data and bss (32 KiB)
 *   [S2_SNN_IMAGE_BASE, + image_size)        this image ("DTCM" of seed 001: 96 KiB with the
 *                                            stack); the firmware must end below the base
 *   [S2_SNN_IMAGE_LIMIT, S2_ARGS_BASE)       stack (grows down from S2_ARGS_BASE)
 *   [S2_ARGS_BASE, S2_SRAM_SIZE)             host argument block
 *
 * Image of a neuron PE, from S2_SNN_IMAGE_BASE, every region on a S2_SNN_ALIGN boundary (the
 * header gives each address; firmware uses the addresses, never recomputes the layout):
 *   s2_snn_image_t                          header (160 B)
 *   s2_snn_counters_t                       counters the firmware keeps, the host reads back
 *   s2_snn_lif_params_t                     LIF parameters (one population per PE)
 *   s2_snn_neuron_state_t[n_neurons]        membrane and refractory state (initial values)
 *   uint32_t record_v_index[n_record_v]     neurons whose membrane is recorded
 *   uint32_t record_stage[record_words]     one tick's record, staged before it goes to DRAM
 *   uint32_t spike_buffer[spike_buffer_entries]  input spike buffer (received keys, a ring)
 *   s2_snn_mpt_entry_t[mpt_count]           master population table, sorted by key
 *   uint32_t addr_list[addr_list_count]     address list (S2_SNN_ADDR_* words)
 *   int16_t input[n_delay_slots][2][input_stride]  synaptic input buffers (zero at start)
 *   uint32_t syn_matrix[syn_matrix_words]   synaptic rows (S2_SNN_ROW_*, S2_SNN_SYN_*)
 *
 * Image of a spike-source PE: header, counters, then the spike list (s2_snn_image_t.spike_*):
 *   uint32_t spike_tick_index[n_ticks + 1]  spikes of tick t are entries [index[t], index[t+1])
 *   uint32_t spike_keys[n_spikes]           the multicast key of each spike, tick by tick
 * in SRAM right after the counters if it fits below S2_SNN_IMAGE_LIMIT, else both arrays in DRAM
 * at the global addresses the header gives (S2_SNN_FLAG_SPIKES_IN_DRAM; DMA them in).
 *
 * Keys (32-bit multicast keys): key = machine vertex id << S2_SNN_KEY_VERTEX_SHIFT | neuron index
 * within the vertex (0 .. n_neurons - 1). A vertex sends with key_base | index.
 *
 * Per-tick order (the integer reference, tools/reference/snn_ref.h, follows it spike for spike):
 * at the timer event of tick t = 0 .. n_ticks - 1
 *   0. keys still in the spike buffer were received during tick t - 1: process them first, as
 *      tick t - 1's (step 2)
 *   1. neuron PE: update every neuron with slot t % n_delay_slots (s2_snn_lif_params_t), send its
 *      spikes, stage and store tick t's record; source PE: send the keys of tick t
 *   2. neuron PE: every key received from the start of step 1 until the timer event of tick t + 1
 *      is processed as tick t's: master population table -> address list -> row -> each synapse
 *      adds its weight to slot (t + delay) % n_delay_slots (synaptic input buffers below)
 * Keys received during step 1 wait in the spike buffer until step 1 ends. A spike sent at tick t
 * therefore enters the update of tick t + delay, provided it reaches its PEs before their timer
 * event of tick t + 1; the packet-received interrupt only stores the key in the spike buffer.
 * After tick n_ticks - 1 the firmware sets counters.done. */
#ifndef NMSIM_HW_S2_SNN_IMAGE_H
#define NMSIM_HW_S2_SNN_IMAGE_H

#include <stdint.h>

#include "nmsim/hw/spinnaker2/pe_map.h"

#define S2_SNN_IMAGE_MAGIC 0x4E4E5332u /* "2SNN" in little-endian bytes */
#define S2_SNN_IMAGE_VERSION 1u
#define S2_SNN_ALIGN 16u /* every region starts on this boundary (DMA alignment) */

/* SRAM placement (local addresses). The image and the stack share the seed's 96 KiB DTCM. */
#define S2_SNN_IMAGE_BASE 0x00008000u  /* 32 KiB below for the firmware's code, data, bss */
#define S2_SNN_IMAGE_LIMIT 0x0001E800u /* first byte past the largest image (90 KiB) */
#define S2_SNN_STACK_BYTES 0x00001700u /* [LIMIT, S2_ARGS_BASE): 5888 B of stack */
#define S2_SNN_DTCM_BYTES (S2_SRAM_SIZE - S2_SNN_IMAGE_BASE) /* 96 KiB: image, stack, args */
#define S2_SNN_MAX_IMAGE_BYTES (S2_SNN_IMAGE_LIMIT - S2_SNN_IMAGE_BASE)

/* Keys. */
#define S2_SNN_KEY_VERTEX_SHIFT 8u
#define S2_SNN_KEY_INDEX_MASK 0x000000FFu
#define S2_SNN_KEY_VERTEX_MASK 0xFFFFFF00u /* the mask of one vertex's keys */
#define S2_SNN_MAX_NEURONS_PER_PE 256u     /* the 8-bit index (sPyNNaker and seed 001 use 255) */
/* Start of the run: the host multicasts this key to every PE of the network at once (the router
 * entry for it routes to all of them); each PE starts its tick timer when it receives it, so all
 * ticks begin within the spread of the router's delivery times. Vertex 0xFFFFFF is never
 * assigned. */
#define S2_SNN_START_KEY 0xFFFFFFFFu

/* s2_snn_image_t.kind */
#define S2_SNN_KIND_NEURON 1u /* LIF neurons: synaptic processing + neuron update */
#define S2_SNN_KIND_SOURCE 2u /* spike source: sends the precomputed spikes of each tick */

/* s2_snn_image_t.flags */
#define S2_SNN_FLAG_RECORD_SPIKES 0x1u  /* the per-tick record holds the spike bitfield */
#define S2_SNN_FLAG_SPIKES_IN_DRAM 0x2u /* source: the spike list is in DRAM (global addresses) */
/* neuron PE: no PE holds a target of this vertex, so its spikes are recorded but not sent (as
 * sPyNNaker gives vertices without outgoing edges no key) */
#define S2_SNN_FLAG_NO_TARGETS 0x4u

typedef struct {
    uint32_t magic;       /* S2_SNN_IMAGE_MAGIC */
    uint32_t version;     /* S2_SNN_IMAGE_VERSION */
    uint32_t kind;        /* S2_SNN_KIND_* */
    uint32_t flags;       /* S2_SNN_FLAG_* */
    uint32_t image_size;  /* bytes from S2_SNN_IMAGE_BASE to the end of the last region */
    uint32_t pe;          /* global PE index (4 * QPE index + PE, noc_map.h) */
    uint32_t vertex;      /* machine vertex id */
    uint32_t key_base;    /* vertex << S2_SNN_KEY_VERTEX_SHIFT: this PE sends key_base | index */
    uint32_t n_neurons;   /* neurons (or sources) of this PE, 1 .. S2_SNN_MAX_NEURONS_PER_PE */
    uint32_t n_ticks;     /* ticks to run */
    uint32_t tick_cycles; /* tick period in PE clock cycles (timer reload) */
    uint32_t timestep_ns; /* the same period in ns (information) */
    uint32_t counters;    /* SRAM address of s2_snn_counters_t */
    /* neuron PE: synaptic processing */
    uint32_t mpt; /* SRAM address of s2_snn_mpt_entry_t[mpt_count] */
    uint32_t mpt_count;
    uint32_t addr_list; /* SRAM address of uint32_t[addr_list_count] */
    uint32_t addr_list_count;
    uint32_t syn_matrix; /* SRAM address of the synaptic rows (word offsets refer here) */
    uint32_t syn_matrix_words;
    uint32_t input;                /* SRAM address of int16_t[n_delay_slots][2][input_stride] */
    uint32_t n_delay_slots;        /* power of two >= the largest delay of a synapse here */
    uint32_t input_stride;         /* int16 per (slot, type) row: n_neurons rounded up to even */
    uint32_t spike_buffer;         /* SRAM address of the input spike buffer (uint32 keys) */
    uint32_t spike_buffer_entries; /* power of two */
    /* neuron PE: model */
    uint32_t params; /* SRAM address of s2_snn_lif_params_t */
    uint32_t state;  /* SRAM address of s2_snn_neuron_state_t[n_neurons] */
    /* neuron PE: recording; one record of record_words words per tick:
     *   [0] tick, [1] busy cycles of tick t - 1 (its neuron update, recording and synaptic
     *   processing; 0 at t = 0), [2] synapse words processed as tick t - 1's
     *   (S2_SNN_RECORD_HEADER_WORDS), then if S2_SNN_FLAG_RECORD_SPIKES ceil(n_neurons / 32) words of spike bits
     *   (neuron i: word S2_SNN_RECORD_HEADER_WORDS + i / 32, bit i % 32), then n_record_v membrane values (int32 Q16.16,
     *   the state v at the end of the tick, neurons record_v_index[k] in order).
     * Tick t's record goes to record_dram + t * record_words * 4 (a global DRAM address). */
    uint32_t record_words; /* 0: nothing recorded */
    uint32_t record_stage; /* SRAM address of uint32_t[record_words] */
    uint32_t record_dram;  /* global DRAM address of n_ticks records (0 if record_words 0) */
    uint32_t n_record_v;
    uint32_t record_v_index; /* SRAM address of uint32_t[n_record_v] */
    /* source PE: the spike list (SRAM addresses, or global DRAM addresses with
     * S2_SNN_FLAG_SPIKES_IN_DRAM) */
    uint32_t spike_tick_index; /* uint32_t[n_ticks + 1] */
    uint32_t spike_keys;       /* uint32_t[n_spikes] */
    uint32_t n_spikes;
    uint32_t reserved[6];
} s2_snn_image_t;

#define S2_SNN_RECORD_HEADER_WORDS 3u /* tick, busy cycles and synapse words of the tick before */

/* Counters, zero in the image; the firmware updates them, the host reads them back. */
typedef struct {
    uint32_t ticks;            /* ticks completed */
    uint32_t overruns;         /* ticks whose timer event came before the previous tick's work
                                * (neuron update and the synaptic processing of its spikes) ended */
    uint32_t packets;          /* multicast packets received */
    uint32_t mpt_misses;       /* received keys that match no master population table entry */
    uint32_t rows;             /* synaptic rows processed (one per address-list entry hit) */
    uint32_t synaptic_events;  /* synapse words processed */
    uint32_t saturations;      /* input buffer additions that saturated at S2_SNN_INPUT_MAX */
    uint32_t buffer_overflows; /* received keys dropped because the spike buffer was full */
    uint32_t spikes_sent;      /* multicast packets sent (neuron spikes or source spikes) */
    uint32_t send_failures;    /* spikes the router did not accept */
    uint32_t status;           /* 0 running or done; S2_SNN_ERR_* */
    uint32_t done;             /* 1 when the run ended (after the last tick) */
    uint32_t max_tick_cycles;  /* the longest tick's work in cycles (load) */
    uint32_t reserved[3];
} s2_snn_counters_t;

#define S2_SNN_ERR_IMAGE 1u /* bad magic, version or kind */
#define S2_SNN_ERR_DMA 2u   /* a DMA transfer failed */

/* Master population table entry: a received key k belongs to the entry with
 * (k & mask) == key; the neuron index is k & ~mask. The table is sorted by key (binary search).
 * target: address-list entries [start, start + count). */
typedef struct {
    uint32_t key;
    uint32_t mask;
    uint32_t target; /* S2_SNN_MPT_START | S2_SNN_MPT_COUNT */
} s2_snn_mpt_entry_t;

#define S2_SNN_MPT_START_SHIFT 0u
#define S2_SNN_MPT_START_WIDTH 16u
#define S2_SNN_MPT_COUNT_SHIFT 16u
#define S2_SNN_MPT_COUNT_WIDTH 16u

static inline uint32_t s2_snn_mpt_target(uint32_t start, uint32_t count) {
    return (start << S2_SNN_MPT_START_SHIFT) | (count << S2_SNN_MPT_COUNT_SHIFT);
}
static inline uint32_t s2_snn_mpt_start(uint32_t target) {
    return (target >> S2_SNN_MPT_START_SHIFT) & ((1u << S2_SNN_MPT_START_WIDTH) - 1u);
}
static inline uint32_t s2_snn_mpt_count(uint32_t target) {
    return (target >> S2_SNN_MPT_COUNT_SHIFT) & ((1u << S2_SNN_MPT_COUNT_WIDTH) - 1u);
}

/* Address-list word: one block of the synaptic matrix (one source vertex, one projection).
 * The row of source neuron i starts at byte syn_matrix + 4 * (offset + i * stride). The blocks
 * follow each other in address-list order without gaps, and the address-list ranges of the
 * master population table entries follow each other too; a block's row count (one row per
 * neuron of its source vertex) is the distance to the next block's offset (or to
 * syn_matrix_words) divided by its stride. The firmware needs no row count: a vertex sends keys
 * of its own neurons only. */
#define S2_SNN_ADDR_OFFSET_SHIFT 0u /* block start in words from syn_matrix */
#define S2_SNN_ADDR_OFFSET_WIDTH 18u
#define S2_SNN_ADDR_STRIDE_SHIFT 18u /* words per row, count word included (>= 1) */
#define S2_SNN_ADDR_STRIDE_WIDTH 14u

static inline uint32_t s2_snn_addr_word(uint32_t offset_words, uint32_t stride_words) {
    return (offset_words << S2_SNN_ADDR_OFFSET_SHIFT) | (stride_words << S2_SNN_ADDR_STRIDE_SHIFT);
}
static inline uint32_t s2_snn_addr_offset(uint32_t word) {
    return (word >> S2_SNN_ADDR_OFFSET_SHIFT) & ((1u << S2_SNN_ADDR_OFFSET_WIDTH) - 1u);
}
static inline uint32_t s2_snn_addr_stride(uint32_t word) {
    return (word >> S2_SNN_ADDR_STRIDE_SHIFT) & ((1u << S2_SNN_ADDR_STRIDE_WIDTH) - 1u);
}

/* Synaptic row: word 0 holds the number n of synapse words that follow (n < stride), then n
 * synapse words. Synapse word (sPyNNaker's fixed synapse word):
 *   [31:16] weight magnitude in weight LSB (the compiler writes 0 .. S2_SNN_WEIGHT_MAX: the 7-bit
 *           magnitude of seed 001's 8-bit signed-magnitude weight; the sign is the type)
 *   [15:13] 0
 *   [12:9]  delay - 1 (delay 1 .. 16 ticks)
 *   [8]     type: 0 excitatory, 1 inhibitory
 *   [7:0]   target neuron index on this PE */
#define S2_SNN_SYN_INDEX_SHIFT 0u
#define S2_SNN_SYN_INDEX_WIDTH 8u
#define S2_SNN_SYN_TYPE_SHIFT 8u
#define S2_SNN_SYN_TYPE_WIDTH 1u
#define S2_SNN_SYN_DELAY_SHIFT 9u
#define S2_SNN_SYN_DELAY_WIDTH 4u
#define S2_SNN_SYN_WEIGHT_SHIFT 16u
#define S2_SNN_SYN_WEIGHT_WIDTH 16u
#define S2_SNN_TYPE_EXC 0u
#define S2_SNN_TYPE_INH 1u
#define S2_SNN_WEIGHT_MAX 127u
#define S2_SNN_MAX_DELAY 16u

static inline uint32_t s2_snn_syn_word(uint32_t weight, uint32_t delay, uint32_t type,
                                       uint32_t index) {
    return (weight << S2_SNN_SYN_WEIGHT_SHIFT) | ((delay - 1u) << S2_SNN_SYN_DELAY_SHIFT) |
           (type << S2_SNN_SYN_TYPE_SHIFT) | (index << S2_SNN_SYN_INDEX_SHIFT);
}
static inline uint32_t s2_snn_syn_index(uint32_t w) {
    return (w >> S2_SNN_SYN_INDEX_SHIFT) & ((1u << S2_SNN_SYN_INDEX_WIDTH) - 1u);
}
static inline uint32_t s2_snn_syn_type(uint32_t w) {
    return (w >> S2_SNN_SYN_TYPE_SHIFT) & ((1u << S2_SNN_SYN_TYPE_WIDTH) - 1u);
}
static inline uint32_t s2_snn_syn_delay(uint32_t w) { /* 1 .. 16 */
    return ((w >> S2_SNN_SYN_DELAY_SHIFT) & ((1u << S2_SNN_SYN_DELAY_WIDTH) - 1u)) + 1u;
}
static inline uint32_t s2_snn_syn_weight(uint32_t w) {
    return (w >> S2_SNN_SYN_WEIGHT_SHIFT) & ((1u << S2_SNN_SYN_WEIGHT_WIDTH) - 1u);
}

/* Synaptic input buffers: int16 input[slot][type][input_stride], slot = tick % n_delay_slots.
 * A synapse of delay d processed during tick t adds its weight to input[(t + d) % slots][type]
 * [index], saturating at S2_SNN_INPUT_MAX (all values stay in 0 .. S2_SNN_INPUT_MAX). */
#define S2_SNN_INPUT_MAX 32767
static inline uint32_t s2_snn_input_offset(uint32_t slot, uint32_t type, uint32_t index,
                                           uint32_t stride) {
    return (slot * 2u + type) * stride + index; /* in int16 elements from s2_snn_image_t.input */
}

/* LIF parameters (seed 001 eq. 1) of the PE's neurons, fixed point (docs/snn_compiler.md):
 *   Q16.16: a two's-complement int32 (stored as uint32) in units of one weight LSB, 2^16 = 1 LSB.
 *   alpha:  Q0.16 unsigned, 0 .. 65536 (65536 = 1.0: no leak).
 * Update of neuron j at tick t (before the synaptic processing of tick t's packets):
 *   I  = input[t % slots][EXC][j] - input[t % slots][INH][j]; both slots cleared
 *   R  = v_th if S2_SNN_STATE_PENDING (spiked at tick t-1) and reset_mode SUBTRACT, else 0
 *   if refractory ticks r > 0: r -= 1; v = sat32(v - R); no spike (I is discarded)
 *   else: v = sat32(((alpha * v + 2^15) >> 16) + I * 2^16 + i_offset - R)  (64-bit, >> floors)
 *         spike if v >= v_th: send key_base | j; r = t_ref; TO_V_RESET: v = v_reset
 *   PENDING = spiked at this tick (set or cleared by every update, refractory ones included)
 *   sat32 clamps to [INT32_MIN, INT32_MAX]; I is at most 32767 in magnitude. */
#define S2_SNN_RESET_SUBTRACT 0u /* eq. 1: V(t+1) = ... - z(t) V_th */
#define S2_SNN_RESET_TO_V_RESET 1u

typedef struct {
    uint32_t alpha;      /* Q0.16, 0 .. 65536 */
    uint32_t v_th;       /* Q16.16, > 0 */
    uint32_t v_reset;    /* Q16.16 (TO_V_RESET) */
    uint32_t i_offset;   /* Q16.16 added every non-refractory tick */
    uint32_t t_ref;      /* refractory ticks after a spike, 0 .. 65535 */
    uint32_t reset_mode; /* S2_SNN_RESET_* */
    uint32_t reserved[2];
} s2_snn_lif_params_t;

typedef struct {
    uint32_t v;     /* Q16.16 membrane */
    uint32_t flags; /* S2_SNN_STATE_REFRACTORY (ticks left) | S2_SNN_STATE_PENDING */
} s2_snn_neuron_state_t;

#define S2_SNN_STATE_REFRACTORY_SHIFT 0u
#define S2_SNN_STATE_REFRACTORY_WIDTH 16u
#define S2_SNN_STATE_PENDING 0x00010000u /* spiked at the previous tick, reset term still due */

#ifdef __cplusplus
static_assert(sizeof(s2_snn_image_t) == 160, "header is 160 B");
static_assert(sizeof(s2_snn_counters_t) == 64, "counters are 64 B");
static_assert(sizeof(s2_snn_mpt_entry_t) == 12, "master population table entry is 12 B");
static_assert(sizeof(s2_snn_lif_params_t) == 32, "LIF parameters are 32 B");
static_assert(sizeof(s2_snn_neuron_state_t) == 8, "neuron state is 8 B");
static_assert(S2_SNN_IMAGE_LIMIT + S2_SNN_STACK_BYTES == S2_ARGS_BASE, "stack below the args");
#else
_Static_assert(sizeof(s2_snn_image_t) == 160, "header is 160 B");
_Static_assert(sizeof(s2_snn_counters_t) == 64, "counters are 64 B");
_Static_assert(sizeof(s2_snn_mpt_entry_t) == 12, "master population table entry is 12 B");
_Static_assert(sizeof(s2_snn_lif_params_t) == 32, "LIF parameters are 32 B");
_Static_assert(sizeof(s2_snn_neuron_state_t) == 8, "neuron state is 8 B");
_Static_assert(S2_SNN_IMAGE_LIMIT + S2_SNN_STACK_BYTES == S2_ARGS_BASE, "stack below the args");
#endif

#endif /* NMSIM_HW_S2_SNN_IMAGE_H */
