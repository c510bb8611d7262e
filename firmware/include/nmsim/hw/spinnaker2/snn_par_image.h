/* Per-PE data of one spiking-network layer in the parallel (MLA) paradigm on SpiNNaker2 (seed 001
 * sec. III-B, Table I): written by the host compiler (tools/compiler/snn/parallel.h), read by the
 * parallel-paradigm firmware. Plain C, only <stdint.h>; structs of uint32_t fields only (no
 * bitfields), sizes pinned below. docs/snn_parallel.md explains the layout, the optimisations of
 * the weight-delay map, the split and why the spikes equal the serial paradigm's.
 *
 * A layer is one target population (n_targets LIF neurons) with every projection onto it; its
 * n_sources source neurons are the pre neurons of those projections, concatenated in the order of
 * the source table. It runs on one DOMINANT PE and n_subordinates SUBORDINATE PEs:
 *   dominant     receives the source spikes (multicast keys), keeps the spike history of the last
 *                ticks, builds the stacked input vector X of the tick, collects the subordinates'
 *                partial inputs and updates the neurons (the serial paradigm's LIF, snn_image.h)
 *   subordinate  holds one block of the optimised weight-delay map (a target range x a delay
 *                range) as the MLA's B operand; each tick it fetches its slice of X, multiplies
 *                on the MLA and returns the input of its targets
 *
 * SRAM placement as in snn_image.h: the image from S2_SNN_IMAGE_BASE below S2_SNN_IMAGE_LIMIT,
 * the stack and the host argument block above (the seed's 96 KiB DTCM). Every region starts on a
 * S2_SNN_ALIGN boundary; the headers give each address, firmware never recomputes the layout.
 *
 * Image of the dominant PE:
 *   s2_snnp_dominant_t                      header (192 B)
 *   s2_snn_counters_t                       counters (snn_image.h)
 *   s2_snn_lif_params_t                     LIF parameters of the target population
 *   s2_snn_neuron_state_t[n_targets]        membrane and refractory state
 *   uint32_t keys[n_targets]                the key each neuron sends (the population's
 *                                           machine vertices: vertex << 8 | index in it)
 *   uint32_t record_v_index[n_record_v]
 *   uint32_t record_stage[record_words]     one tick's record (format of snn_image.h)
 *   uint32_t spike_buffer[spike_buffer_entries]  received keys, a ring ("input spike buffer")
 *   s2_snnp_src_entry_t[src_count]          source table: key -> source index, sorted by key
 *   uint32_t fanout[n_sources]              synapses of each source in the layer (counts the
 *                                           synaptic events as the serial paradigm does)
 *   uint32_t delays[n_delays]               the delays (ticks) some synapse uses, ascending
 *   uint32_t hist[hist_slots][hist_words]   spike history: bit i of slot s = source i spiked at a
 *                                           tick t with t % hist_slots == s
 *   uint16_t row_of[n_delays][row_of_stride]  "reversed order" table: the row of the optimised
 *                                           map that (delays[k], source i) feeds, or
 *                                           S2_SNNP_NO_ROW (no synapse: the row was removed);
 *                                           merged inputs share a row
 *   uint8_t  stacked[stacked_bytes]         stacked input vector X (n_rows used): X[r] = number
 *                                           of (delay, source) pairs of row r whose source
 *                                           spiked `delay` ticks ago, 0 .. S2_SNNP_MAX_MULT
 *   s2_snnp_sub_entry_t[n_subordinates]     the subordinates
 *   int16_t  partial[..]                    per subordinate: int16 [2][even(target_count)],
 *                                           written by its DMA (exc inputs, then inh inputs of
 *                                           its targets, each at most S2_SNN_INPUT_MAX), then
 *                                           the stamp word t + 1 of the tick it belongs to
 *
 * Image of a subordinate PE:
 *   s2_snnp_subordinate_t                   header (192 B)
 *   s2_snn_counters_t                       counters
 *   uint8_t  raw[row_count]                 DMA copy of the dominant's X[row_lo .. row_lo + count)
 *   uint16_t gather_start[k_rows + 1]       local row k sums raw[gather[j]] for j in
 *   uint16_t gather[n_gather]               [gather_start[k], gather_start[k + 1])
 *   uint8_t  x[k_rows]                      MLA operand A (1 x k_rows, unsigned 8-bit)
 *   int8_t   map[k_rows][n_cols]            MLA operand B: the optimised weight-delay map block,
 *                                           row-major, weights 0 .. 127 (signed int8 operand)
 *   int16_t  c[n_cols]                      MLA result C (1 x n_cols, OUT16, SHIFT 0: the exact
 *                                           sum saturated at 32767)
 *   uint16_t col_of[2][col_of_stride]       column of map feeding (type, target_lo + j), or
 *                                           S2_SNNP_NO_COL (no synapse: input 0); merged
 *                                           columns feed several targets
 *   int16_t  out[2][col_of_stride]          the inputs of its targets, DMA'd to the dominant,
 *   uint32_t stamp                          followed by t + 1 (one DMA: the stamp lands last)
 *
 * Per-tick semantics (t = 0 .. n_ticks - 1; equal to the serial paradigm's, snn_image.h, and the
 * integer reference tools/reference/snn_ref.h, spike for spike):
 *   dominant, at the timer event of tick t:
 *     0. keys still in the spike buffer were received during tick t - 1: set their bits in
 *        hist[(t - 1) % hist_slots] (source table lookup as the serial master population table)
 *     1. clear hist[t % hist_slots] (last used at tick t - hist_slots <= t - max_delay - 1); build
 *        X: zero stacked[0 .. n_rows); for every k < n_delays and every bit i set in
 *        hist[(t - delays[k]) % hist_slots] (ticks before 0 have no bits): r = row_of[k][i]; if
 *        r != S2_SNNP_NO_ROW: stacked[r] += 1
 *     2. signal every subordinate S2_SNNP_SIGNAL_GO | t (signal unit, signal_regs.h)
 *   subordinate s, on GO for tick t:
 *     3. DMA stacked[row_lo .. row_lo + row_count) of the dominant (stacked_src, a global
 *        address) into raw; x[k] = sum of raw[gather[j]] over k's gather range (<= 255 by
 *        construction); MLA matmul M = 1, K = k_rows, N = n_cols, A = x (unsigned), B = map
 *        (signed), C = c, OUT16, SHIFT 0, no bias, no ReLU, no accumulate (mla_ctrl);
 *        k_rows or n_cols 0: no MLA operation, c stays 0
 *     4. out[type][j] = col_of[type][j] == NO_COL ? 0 : c[col_of[type][j]], stamp = t + 1; DMA
 *        out and stamp to the dominant's partial area (partial_dst, global); signal
 *        S2_SNNP_SIGNAL_DONE | s (a wake-up: the signal FIFO holds 4 words, so the dominant
 *        relies on the stamps, which the in-order DMA writes after the data, not on the words)
 *   dominant, when every subordinate's stamp reads t + 1:
 *     5. E[j] = sum over subordinates s with target_lo <= j < target_lo + target_count of
 *        partial_s[0][j - target_lo] (int32 sum), H[j] likewise from partial_s[1]; the input is
 *        I = min(E, S2_SNN_INPUT_MAX) - min(H, S2_SNN_INPUT_MAX); update every neuron as
 *        snn_image.h (s2_snn_lif_params_t) with this I, send spikes, stage and store the record
 *     6. keys received from step 1 until the timer event of tick t + 1 are tick t's (hist bits
 *        of slot t % hist_slots; keys arriving during step 1 wait in the spike buffer)
 * Why identical: the serial input buffer sums non-negative weights per type with saturation at
 * S2_SNN_INPUT_MAX, which equals min(exact sum, S2_SNN_INPUT_MAX) in any order; here every term
 * of the exact sum is computed on the MLA exactly, as long as no accumulator wraps, and
 * min(sum of min(p_s, 32767), 32767) = min(sum of p_s, 32767) for p_s >= 0 makes the int16
 * saturation of the partial sums (OUT16) harmless. The compiler
 * guarantees it: for every column, sum over rows of (largest x) * weight < 2^(acc_bits - 1)
 * (acc_bits 24, the smaller of the two published widths), and every x <= S2_SNNP_MAX_MULT.
 * The spikes of tick t must reach the dominant before its timer event of tick t + 1 (as in the
 * serial paradigm); the subordinates' round trip must end within the tick (counted as overruns).
 * Saturations are not counted per addition (the firmware may count saturated sums instead). */
#ifndef NMSIM_HW_S2_SNN_PAR_IMAGE_H
#define NMSIM_HW_S2_SNN_PAR_IMAGE_H

#include <stdint.h>

#include "nmsim/hw/spinnaker2/mla_regs.h"
#include "nmsim/hw/spinnaker2/snn_image.h"

#define S2_SNNP_IMAGE_MAGIC 0x504E5332u /* "2SNP" in little-endian bytes */
#define S2_SNNP_IMAGE_VERSION 1u

/* header kind (after magic and version, as s2_snn_image_t.kind; distinct from S2_SNN_KIND_*) */
#define S2_SNNP_KIND_DOMINANT 3u
#define S2_SNNP_KIND_SUBORDINATE 4u

#define S2_SNNP_NO_ROW 0xFFFFu   /* row_of: (delay, source) feeds no row */
#define S2_SNNP_NO_COL 0xFFFFu   /* col_of: no synapse onto (type, target) in this block */
#define S2_SNNP_MAX_ROWS 0xFFFFu /* rows of the optimised map: indices 0 .. 0xFFFE */
#define S2_SNNP_MAX_MULT 255u    /* largest x (unsigned 8-bit operand) */
#define S2_SNNP_MAX_SUBORDINATES 151u
#define S2_SNNP_MAX_TARGETS 4096u /* neurons of one dominant PE */
#define S2_SNNP_ERR_MLA 3u        /* counters.status: an MLA operation failed (1, 2: snn_image.h) */
#define S2_SNNP_ACC_BITS 24u      /* accumulator width the compiler assumes (no wrap below it) */

/* Signal-unit words (signal_regs.h): bits 31..28 the kind, 27..0 the tick or subordinate. */
#define S2_SNNP_SIGNAL_KIND_SHIFT 28u
#define S2_SNNP_SIGNAL_KIND_WIDTH 4u
#define S2_SNNP_SIGNAL_ARG_MASK 0x0FFFFFFFu
#define S2_SNNP_SIGNAL_GO 0x10000000u   /* dominant -> subordinate: X of tick (arg) is ready */
#define S2_SNNP_SIGNAL_DONE 0x20000000u /* subordinate (arg) -> dominant: its out is written */

/* The MLA setup of a subordinate (mla_regs.h CTRL bits, START excluded): matrix mode, A unsigned
 * 8-bit, B signed 8-bit, int16 results (saturating), no ReLU, no accumulate, no bias. */
#define S2_SNNP_MLA_CTRL \
    (NM_FIELD_SET(1u, S2_MLA_CTRL_B_SIGNED) | NM_FIELD_SET(S2_MLA_OUT_INT16, S2_MLA_CTRL_OUT_PREC))

/* Source table entry of the dominant: a received key k belongs to the entry with
 * (k & mask) == key; its source index is first + (k & ~mask). Sorted by key. */
typedef struct {
    uint32_t key;
    uint32_t mask;
    uint32_t first;
} s2_snnp_src_entry_t;

/* The dominant's view of subordinate s. */
typedef struct {
    uint32_t pe;     /* global PE index */
    uint32_t row_lo; /* its slice of X: stacked[row_lo .. row_lo + row_count) */
    uint32_t row_count;
    uint32_t target_lo; /* its targets: target_lo .. target_lo + target_count - 1 */
    uint32_t target_count;
    uint32_t partial; /* SRAM address of int16_t[2][even(target_count)] (its DMA writes) */
    uint32_t reserved[2];
} s2_snnp_sub_entry_t;

typedef struct {
    uint32_t magic;      /* S2_SNNP_IMAGE_MAGIC */
    uint32_t version;    /* S2_SNNP_IMAGE_VERSION */
    uint32_t kind;       /* S2_SNNP_KIND_DOMINANT */
    uint32_t flags;      /* S2_SNN_FLAG_RECORD_SPIKES, S2_SNN_FLAG_NO_TARGETS */
    uint32_t image_size; /* bytes from S2_SNN_IMAGE_BASE to the end of the last region */
    uint32_t pe;         /* global PE index */
    uint32_t vertex;     /* machine vertex id of the target population's neurons */
    uint32_t key_base;   /* key of neuron 0 (the keys table has every neuron's) */
    uint32_t n_targets;  /* neurons, 1 .. S2_SNNP_MAX_TARGETS */
    uint32_t n_sources;  /* source neurons of the layer */
    uint32_t n_ticks;
    uint32_t tick_cycles;
    uint32_t timestep_ns;
    uint32_t counters;  /* SRAM address of s2_snn_counters_t */
    uint32_t src_table; /* SRAM address of s2_snnp_src_entry_t[src_count] */
    uint32_t src_count;
    uint32_t spike_buffer;         /* SRAM address of uint32_t[spike_buffer_entries] */
    uint32_t spike_buffer_entries; /* power of two */
    uint32_t delays;               /* SRAM address of uint32_t[n_delays] */
    uint32_t n_delays;             /* delays with at least one synapse, 1 .. 16 */
    uint32_t max_delay;            /* the largest of them */
    uint32_t hist;                 /* SRAM address of uint32_t[hist_slots][hist_words] */
    uint32_t hist_slots;           /* power of two > max_delay */
    uint32_t hist_words;           /* ceil(n_sources / 32) */
    uint32_t row_of;               /* SRAM address of uint16_t[n_delays][row_of_stride] */
    uint32_t row_of_stride;        /* n_sources rounded up to even */
    uint32_t stacked;              /* SRAM address of uint8_t[stacked_bytes] */
    uint32_t n_rows;               /* rows of the optimised map (X entries used) */
    uint32_t stacked_bytes;        /* n_rows rounded up to 4 */
    uint32_t n_subordinates;
    uint32_t subs;          /* SRAM address of s2_snnp_sub_entry_t[n_subordinates] */
    uint32_t partial;       /* SRAM address of the partial-input area (all subordinates) */
    uint32_t partial_words; /* 32-bit words of the partial area */
    uint32_t params;        /* SRAM address of s2_snn_lif_params_t */
    uint32_t state;         /* SRAM address of s2_snn_neuron_state_t[n_targets] */
    uint32_t record_words;  /* per tick, format of snn_image.h; 0: nothing recorded */
    uint32_t record_stage;
    uint32_t record_dram; /* global DRAM address of n_ticks records (0: not allocated yet) */
    uint32_t n_record_v;
    uint32_t record_v_index;
    uint32_t keys;   /* SRAM address of uint32_t[n_targets]: the key neuron j sends */
    uint32_t fanout; /* SRAM address of uint32_t[n_sources]: synapses of source i in the layer */
    uint32_t reserved[6];
} s2_snnp_dominant_t;

typedef struct {
    uint32_t magic; /* S2_SNNP_IMAGE_MAGIC */
    uint32_t version;
    uint32_t kind;  /* S2_SNNP_KIND_SUBORDINATE */
    uint32_t flags; /* 0 */
    uint32_t image_size;
    uint32_t pe;          /* global PE index */
    uint32_t dominant_pe; /* global PE index of its dominant (signals go there) */
    uint32_t index;       /* s: its entry in the dominant's subordinate table */
    uint32_t n_ticks;
    uint32_t tick_cycles;
    uint32_t timestep_ns;
    uint32_t counters;    /* SRAM address of s2_snn_counters_t */
    uint32_t stacked_src; /* global address of the dominant's stacked[row_lo] */
    uint32_t row_lo;
    uint32_t row_count;    /* bytes fetched (DMA length rounded up to 4 by the firmware) */
    uint32_t raw;          /* SRAM address of uint8_t[row_count rounded up to 4] */
    uint32_t gather_start; /* SRAM address of uint16_t[k_rows + 1] */
    uint32_t gather;       /* SRAM address of uint16_t[n_gather], indices into raw */
    uint32_t n_gather;
    uint32_t x;        /* SRAM address of uint8_t[k_rows] (MLA A) */
    uint32_t k_rows;   /* K */
    uint32_t n_cols;   /* N */
    uint32_t map;      /* SRAM address of int8_t[k_rows][n_cols] (MLA B) */
    uint32_t c;        /* SRAM address of int16_t[n_cols] (MLA C) */
    uint32_t mla_ctrl; /* S2_SNNP_MLA_CTRL */
    uint32_t target_lo;
    uint32_t target_count;
    uint32_t col_of;        /* SRAM address of uint16_t[2][col_of_stride] */
    uint32_t col_of_stride; /* target_count rounded up to even */
    uint32_t out;           /* SRAM address of int16_t[2][col_of_stride] */
    uint32_t partial_dst;   /* global address of its partial area in the dominant */
    uint32_t delay_lo;      /* information: the delays of its rows, delay_lo .. delay_hi */
    uint32_t delay_hi;
    uint32_t reserved[15];
} s2_snnp_subordinate_t;

#ifdef __cplusplus
static_assert(sizeof(s2_snnp_dominant_t) == 192, "dominant header is 192 B");
static_assert(sizeof(s2_snnp_subordinate_t) == 192, "subordinate header is 192 B");
static_assert(sizeof(s2_snnp_src_entry_t) == 12, "source table entry is 12 B");
static_assert(sizeof(s2_snnp_sub_entry_t) == 32, "subordinate entry is 32 B");
#else
_Static_assert(sizeof(s2_snnp_dominant_t) == 192, "dominant header is 192 B");
_Static_assert(sizeof(s2_snnp_subordinate_t) == 192, "subordinate header is 192 B");
_Static_assert(sizeof(s2_snnp_src_entry_t) == 12, "source table entry is 12 B");
_Static_assert(sizeof(s2_snnp_sub_entry_t) == 32, "subordinate entry is 32 B");
#endif

#endif /* NMSIM_HW_S2_SNN_PAR_IMAGE_H */
