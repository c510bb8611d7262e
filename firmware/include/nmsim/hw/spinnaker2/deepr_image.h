/* DEEP R training on the SpiNNaker2 prototype (seed 003): the configuration block the host writes
 * into each PE's data memory, the per-iteration record the firmware writes to DRAM, the counters
 * the host reads back, and the multicast keys of the four-core version. Shared by the firmware
 * (firmware/programs/deepr), the host (workloads/deepr) and the reference
 * (tools/reference/deepr_ref.h). Plain C, only <stdint.h>; uint32_t fields only, sizes pinned.
 * docs/deepr.md describes the algorithm step by step.
 *
 * SRAM of a PE (128 KiB; the prototype has 64 KiB instruction + 64 KiB data memory, seed 003
 * sec. 2.1, modelled as one SRAM split at S2_DEEPR_DATA_BASE):
 *   [0, S2_DEEPR_DATA_BASE)                 firmware code, constants, data and bss
 *   [S2_DEEPR_DATA_BASE, + sizeof config)   s2_deepr_config_t, then s2_deepr_counters_t
 *   then the arrays at the addresses the config gives (the host's layout, workloads/deepr):
 *     per layer: int16 rows[capacity], int16 cols[capacity], float theta[capacity],
 *                uint32 sign bits[(capacity + 31) / 32]   (the seed's 65 bits per entry)
 *     vectors (float): input, activations, deltas, receive buffers (four cores)
 *     temporary: the rewiring's new entries (max_new of them) before the merge
 *   [S2_DEEPR_STACK_BASE, S2_ARGS_BASE)     stack
 *
 * Rows and columns are local to the PE's block of the weight matrix (row = input neuron, column =
 * output neuron); entries are sorted by (row, column) and distinct. Weight w = sign ? -theta :
 * theta; an entry with theta < 0 has crossed zero: it is dormant from then on (skipped everywhere)
 * and deleted at the next rewiring step. */
#ifndef NMSIM_HW_S2_DEEPR_IMAGE_H
#define NMSIM_HW_S2_DEEPR_IMAGE_H

#include <stdint.h>

#include "nmsim/hw/spinnaker2/pe_map.h"

#define S2_DEEPR_MAGIC 0x52504544u /* "DEPR" in little-endian bytes */
#define S2_DEEPR_VERSION 1u
#define S2_DEEPR_DATA_BASE 0x00010000u  /* the prototype's 64 KiB data memory starts here */
#define S2_DEEPR_STACK_BYTES 0x800u      /* stack at the top of the data memory */
#define S2_DEEPR_STACK_BASE (S2_ARGS_BASE - S2_DEEPR_STACK_BYTES)
#define S2_DEEPR_LAYERS 3u
#define S2_DEEPR_MAX_OUT 16u   /* output neurons (softmax) */
#define S2_DEEPR_MAX_N 1024u   /* neurons per layer (int16 indices would allow more) */
#define S2_DEEPR_RECORD_WORDS 16u

/* flags */
#define S2_DEEPR_FLAG_ACCEL 1u   /* PRNG and EXP accelerators (1PA, 4PA); else software (1P) */
#define S2_DEEPR_FLAG_RECORD 2u  /* write one s2_deepr_record_t per iteration to DRAM */
/* rewiring in linear time: deletion by compaction, merge through the new-entries buffer (tmp);
 * else as seed 003 sec. 2.4 describes it: deleted entries swapped to the end one by one, the new
 * entries quicksorted at the tail and merged in place (each shifts the larger entries) */
#define S2_DEEPR_FLAG_LINEAR_REWIRING 4u

/* console marks (s2_mark) of the PE owning cell 0: the energy phases of the run */
#define S2_DEEPR_MARK_TRAIN 1u /* initial weights drawn, training starts */
#define S2_DEEPR_MARK_TEST 2u  /* training done, the held-out images start */

/* roles: the single core, or the cell (a, b) of seed 003 Fig. 5's checkerboard: the core holds
 * input half a and output half b of every weight matrix; cores 1..4 of the seed are
 * (0,0), (0,1), (1,0), (1,1). */
#define S2_DEEPR_ROLE_SINGLE 0xFFu

/* Message types of the four-core version (key bits [15:12]); layer l = 0..2. */
#define S2_DEEPR_MSG_FWD_PARTIAL(l) (0u + (l))  /* partial sums of output half b -> (b, b) */
#define S2_DEEPR_MSG_FWD_HALF(l) (3u + (l))     /* merged, rectified half a -> (a, 1 - a) */
#define S2_DEEPR_MSG_LOGITS 6u                  /* the other diagonal core's logits */
#define S2_DEEPR_MSG_DELTA_OUT 7u               /* output errors half b -> (1 - b, b) */
#define S2_DEEPR_MSG_BWD_PARTIAL(l) (8u + (l))  /* partial errors of input half a -> (a, a) */
#define S2_DEEPR_MSG_BWD_HALF(l) (11u + (l))    /* merged errors half a -> (1 - a, a) */
#define S2_DEEPR_MSG_TYPES 14u
/* key = S2_DEEPR_KEY_BASE | destination cell << 20 | source cell << 18 | type << 12 | index;
 * cell = 2a + b. The router routes on the destination (mask S2_DEEPR_KEY_DEST_MASK). */
#define S2_DEEPR_KEY_BASE 0xDE000000u
#define S2_DEEPR_KEY_DEST_MASK 0xFFF00000u
static inline uint32_t s2_deepr_key(uint32_t dst, uint32_t src, uint32_t type, uint32_t index) {
    return S2_DEEPR_KEY_BASE | dst << 20 | src << 18 | type << 12 | index;
}

/* One weight matrix (or the PE's quarter of it). Addresses are local SRAM addresses. */
typedef struct {
    uint32_t n_in, n_out;       /* block size: rows x columns */
    uint32_t capacity;          /* active connections this block keeps (K) */
    uint32_t count;             /* entries at start: 0, the firmware draws them */
    uint32_t rows, cols, theta, signs;
    uint32_t init_scale;        /* float bits: initial theta = |N(0,1)| * init_scale */
    uint32_t in_vec, out_vec;   /* input activations (float[n_in]), output (float[n_out]) */
    uint32_t delta_in, delta_out; /* errors of the input side (0: not needed), of the output */
    uint32_t rx_partial;        /* four cores: the other core's partial (forward and backward) */
} s2_deepr_layer_t;

typedef struct {
    uint32_t magic, version, role, flags;
    uint32_t n[S2_DEEPR_LAYERS + 1]; /* the whole network's sizes (784, 300, 100, 10) */
    s2_deepr_layer_t layer[S2_DEEPR_LAYERS];
    /* training */
    uint32_t iterations;        /* training iterations (one image each, batch 1) */
    uint32_t epoch_size;        /* iterations per epoch (the learning rate halves per 2 epochs) */
    uint32_t lr_halving_epochs; /* epochs per halving of the learning rate */
    uint32_t learning_rate;     /* float bits, eta at epoch 0 */
    uint32_t l1;                /* float bits, alpha */
    uint32_t noise;             /* float bits, sigma: noise term eta * sigma * N(0,1) */
    uint32_t rewiring_period;   /* iterations between rewiring steps (1: every iteration) */
    uint32_t max_new;           /* new connections per block and rewiring step, at most */
    uint32_t exp_iterations;    /* EXP table steps (1..16), also the software version's */
    uint32_t seed[4];           /* KISS state x, y, z, c of this PE's random stream */
    /* data in DRAM (global addresses): samples of sample_stride bytes, each the label as a
     * uint32 and then the n[0] pixels (uint8) */
    uint32_t train_data, train_count, train_first;
    uint32_t test_data, test_count, sample_stride, reserved0;
    uint32_t in_first;          /* first pixel this PE imports (four cores: a * n[0] / 2) */
    uint32_t image_buf;         /* SRAM: the imported pixels (uint8), then the label (uint32) */
    uint32_t logits;            /* SRAM: float[n[3]] logits, then probabilities */
    uint32_t records;           /* DRAM: s2_deepr_record_t[iterations] of this PE */
    uint32_t record_buf;        /* SRAM: the record staged for its DMA */
    uint32_t tmp;               /* SRAM: max_new new entries (int16 row, col; float theta; sign) */
    uint32_t rx_vec[S2_DEEPR_MSG_TYPES]; /* SRAM: where each received message type is stored */
    uint32_t peer_pe[4];        /* global PE index of cell 0..3 (four cores) */
} s2_deepr_config_t;

/* Kept by the firmware after the config, read by the host at the end. Times are PE clock cycles
 * (the timer, so waiting for messages counts too). */
typedef struct {
    uint32_t done;              /* 1 after training and testing, before exit */
    uint32_t iterations_done;
    uint32_t cycles_import_lo, cycles_import_hi;
    uint32_t cycles_forward_lo, cycles_forward_hi;
    uint32_t cycles_backward_lo, cycles_backward_hi;
    uint32_t cycles_rewire_lo, cycles_rewire_hi;
    uint32_t cycles_test_lo, cycles_test_hi;
    uint32_t rewiring_steps;
    uint32_t deleted, inserted;  /* connections, all steps and blocks */
    uint32_t correct_train;      /* training images classified right (before the update) */
    uint32_t correct_test;       /* of test_count test images, after training */
    uint32_t messages_sent, messages_received;
    uint32_t prng_draws_lo, prng_draws_hi; /* random numbers drawn (either generator) */
    uint32_t exps;
    uint32_t max_pending;        /* most dormant-not-yet-deleted entries seen at a rewiring step */
    uint32_t reserved[9];
} s2_deepr_counters_t;

/* One training iteration as seen by one PE; probabilities only from the PE that owns the output
 * (the single core, or cell 0). */
typedef struct {
    uint32_t iteration;
    uint32_t label_pred; /* label | prediction << 8 | correct << 16 */
    uint32_t prob[10];   /* float bits of the softmax outputs (first 10; 0 elsewhere) */
    uint32_t changes[3]; /* per block: deleted << 16 | inserted at this iteration's rewiring */
    uint32_t cycles;     /* this iteration's cycles on this PE */
} s2_deepr_record_t;

#ifdef __cplusplus
static_assert(sizeof(s2_deepr_layer_t) == 14 * 4, "s2_deepr_layer_t layout");
static_assert(sizeof(s2_deepr_config_t) == (8 + 3 * 14 + 9 + 4 + 7 + 6 + 14 + 4) * 4,
               "s2_deepr_config_t layout");
static_assert(sizeof(s2_deepr_counters_t) == 32 * 4, "s2_deepr_counters_t layout");
static_assert(sizeof(s2_deepr_record_t) == S2_DEEPR_RECORD_WORDS * 4, "s2_deepr_record_t layout");
#endif

#define S2_DEEPR_COUNTERS_ADDR (S2_DEEPR_DATA_BASE + sizeof(s2_deepr_config_t))

#endif
