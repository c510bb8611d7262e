/* DRAM image of a DNN inference run (seed 000 Fig. 2), written by the host compiler
 * (tools/compiler/dram_image.h) and read by the scheduler and worker firmware. Plain C, only
 * <stdint.h>; structs of uint32_t fields only (no bitfields), sizes pinned below. All addresses
 * are global (the DRAM window of noc_map.h). Layout, from the image base (docs/compiler.md,
 * "DRAM image"):
 *
 *   s2_dnn_global_t                      global configuration (64 B) at the base
 *   uint32_t worker_pes[num_workers]     global PE indices of the workers (16-byte aligned end)
 *   time area                            intervals and worker records, s2_dnn_time_* below
 *   layer configurations                 linked list; per layer: s2_dnn_layer_t, then
 *                                        num_workers s2_dnn_worker_t, then the constants
 *                                        (weights, biases); the last entry has type FINISH
 *   data memory                          every activation tensor, int8, 16-byte aligned
 *
 * Every region the DMA reads or writes (worker configurations, each part's weights and biases,
 * each tensor, the time area) starts on a S2_DNN_ALIGN boundary.
 *
 * Weights of worker w, part p (linear): int8 B[k][pn] row-major (the MLA's matrix-mode B) at
 * weight_addr + p * weight_part_stride, pn = min(part_n, n - p * part_n); padding columns (past
 * the layer's outputs) are zero. Biases: int32[pn] at bias_addr + p * bias_part_stride.
 * conv2d: the same per part with B = the kernel slice [ker_h][ker_w][in_c][pn] (row index
 * (y * ker_w + x) * in_c + c). Activations are int8; a feature map [1][C][H][W] is stored HWC
 * ([H][W][C]), everything else row-major in the graph's element order. A flatten of an HWC map
 * keeps the HWC bytes; the following linear layer's B rows are permuted to match. */
#ifndef NMSIM_HW_S2_DNN_IMAGE_H
#define NMSIM_HW_S2_DNN_IMAGE_H

#include <stdint.h>

#define S2_DNN_IMAGE_MAGIC 0x4E4E4432u /* "2DNN" in little-endian bytes */
#define S2_DNN_IMAGE_VERSION 1u
#define S2_DNN_ALIGN 16u /* DMA alignment of every region */

/* Layer types (s2_dnn_layer_t.type). */
#define S2_DNN_LAYER_FINISH 0u  /* end of the list: the scheduler sends "finish" to all workers */
#define S2_DNN_LAYER_LINEAR 1u  /* C[m][n] = A[m][k] * B[k][n] + bias, requantised */
#define S2_DNN_LAYER_CONV2D 2u  /* MLA conv mode: HWC input, kernel [kh][kw][in_c][n] */
#define S2_DNN_LAYER_ADD 3u     /* elementwise int8 a + b, requantised */
#define S2_DNN_LAYER_MAXPOOL 4u /* per channel, HWC (core) */
#define S2_DNN_LAYER_AVGPOOL 5u /* per channel window sum, requantised (core) */
#define S2_DNN_LAYER_SOFTMAX 6u /* per row of k elements (core + EXP unit) */

/* Worker flags (s2_dnn_worker_t.flags). */
#define S2_DNN_FLAG_RELU 0x1u /* ReLU after requantisation */
#define S2_DNN_FLAG_BIAS 0x2u /* bias_addr holds int32 biases */
#define S2_DNN_FLAG_ROWS 0x4u /* conv2d or pool split by output rows (all channels), below */

typedef struct {
    uint32_t magic;        /* S2_DNN_IMAGE_MAGIC */
    uint32_t version;      /* S2_DNN_IMAGE_VERSION */
    uint32_t image_size;   /* bytes from the base to the end of the data memory */
    uint32_t scheduler_pe; /* global PE index of the scheduler */
    uint32_t num_workers;  /* entries of the worker PE list */
    uint32_t worker_pes;   /* address of uint32_t worker_pes[num_workers] */
    uint32_t num_layers;   /* layers in the list, FINISH excluded */
    uint32_t first_layer;  /* address of the first s2_dnn_layer_t */
    uint32_t time_addr;    /* time area (s2_dnn_time_size(num_layers, num_workers) bytes) */
    uint32_t time_size;    /* bytes */
    uint32_t data_addr;    /* data memory */
    uint32_t data_size;    /* bytes */
    uint32_t input_addr;   /* the model input (int8) inside the data memory */
    uint32_t input_size;   /* bytes */
    uint32_t output_addr;  /* the model output (int8) inside the data memory */
    uint32_t output_size;  /* bytes */
} s2_dnn_global_t;

/* One time measurement in cycles of the recording PE (DWT CYCCNT). */
typedef struct {
    uint32_t start;
    uint32_t end;
} s2_dnn_interval_t;

typedef struct {
    uint32_t type;         /* S2_DNN_LAYER_* */
    uint32_t num_workers;  /* worker configurations following this header */
    uint32_t next;         /* address of the next layer's header (0 for FINISH) */
    uint32_t index;        /* position in the list (FINISH: num_layers) */
    uint32_t workers_addr; /* address of s2_dnn_worker_t[num_workers] */
    uint32_t worker_size;  /* sizeof(s2_dnn_worker_t) */
    uint32_t time_slot;    /* scheduler's s2_dnn_interval_t for this layer (FINISH: cleanup) */
    uint32_t reserved;
} s2_dnn_layer_t;

/* One worker's share of a layer: outputs [n0, n0 + n_valid) of the layer's n outputs.
 * linear: GEMM view m x k x n of the tile (n = tile width incl. padding); the worker reads the
 *   whole input A[m][k] at input_addr and writes rows of n_valid bytes to output_addr + r *
 *   output_row_stride (r < m).
 * softmax: rows n0.. of k elements (m = 1); input_addr/output_addr point at row n0.
 * add: elements n0.. (m = k = 1); input_addr, input2_addr, output_addr point at element n0.
 * conv2d: output channels n0.. of the HWC map: m = out_h*out_w, k = ker_h*ker_w*in_c; the whole
 *   HWC input at input_addr; pixel r's channels at output_addr + r * output_row_stride (= out_c).
 * conv2d with S2_DNN_FLAG_ROWS: output rows [row0, row0 + rows) with all n = out_c channels, in
 *   parts of part_rows rows; the HWC input and output maps start at input_addr and output_addr,
 *   the whole kernel [k][n] (and biases) at weight_addr (bias_addr), shared by the workers.
 *   Per part the worker DMAs the input rows the part needs (s2_dnn_conv_rows below; at most
 *   input_size bytes), runs the MLA on them with the layer's padding (at most out_rows_max
 *   output rows, the first rows_skip of them discarded) and writes the part's output rows,
 *   contiguous in the HWC map, back in one DMA.
 * maxpool/avgpool: channels n0..: input_addr/output_addr point at channel n0 of pixel 0 of the
 *   HWC maps (pixel strides in_c and out_c); m = out_h*out_w, k = ker_h*ker_w.
 * maxpool/avgpool with S2_DNN_FLAG_ROWS: output rows [row0, row0 + rows) with all channels, in
 *   parts of part_rows rows; input_addr and output_addr are the HWC maps. Per part the worker
 *   DMAs the input rows its windows read (s2_dnn_pool_rows below; at most input_size bytes),
 *   computes the windows and writes the part's output rows back in one DMA. */
typedef struct {
    uint32_t pe;                 /* global PE index */
    uint32_t worker;             /* index in the global worker list (time area) */
    uint32_t m, k, n;            /* GEMM view of the tile; n = outputs per worker (tile_n) */
    uint32_t n0;                 /* first output of this worker */
    uint32_t n_valid;            /* outputs written (the last tiles may be padding only) */
    uint32_t parts;              /* sequential parts */
    uint32_t part_n;             /* outputs per part (the last part may be smaller) */
    uint32_t input_addr;         /* see above */
    uint32_t input_size;         /* bytes the worker reads at input_addr */
    uint32_t input2_addr;        /* add: second operand; 0 otherwise */
    uint32_t weight_addr;        /* part 0's weights (0 if none) */
    uint32_t weight_part_stride; /* bytes between parts' weights, multiple of S2_DNN_ALIGN */
    uint32_t bias_addr;          /* part 0's biases (0 if none) */
    uint32_t bias_part_stride;   /* bytes between parts' biases, multiple of S2_DNN_ALIGN */
    uint32_t output_addr;        /* see above */
    uint32_t output_row_stride;  /* bytes between output rows (the layer's n) */
    uint32_t shift;              /* requantisation shift */
    uint32_t flags;              /* S2_DNN_FLAG_* */
    uint32_t time_slot;          /* this worker's s2_dnn_worker_time_t for this layer */
    uint32_t in_exponent;        /* int32 stored as uint32: input scale 2^-k (softmax needs it) */
    uint32_t out_exponent;       /* int32 stored as uint32: output scale 2^-k */
    /* conv2d, maxpool, avgpool: HWC input map, window; the MLA takes one stride and one
     * symmetric padding for both axes. */
    uint32_t in_h, in_w, in_c;
    uint32_t out_h, out_w, out_c;
    uint32_t ker_h, ker_w;
    uint32_t stride;
    uint32_t pad;
    uint32_t type;  /* the layer's S2_DNN_LAYER_* (a worker needs only its configuration) */
    uint32_t layer; /* the layer's index in the list */
    /* S2_DNN_FLAG_ROWS only. */
    uint32_t row0, rows, part_rows; /* output rows of this worker, rows per part */
    uint32_t out_rows_max;          /* MLA output rows of the largest part */
    uint32_t reserved[9];
} s2_dnn_worker_t;

#ifdef __cplusplus
static_assert(sizeof(s2_dnn_global_t) == 64, "global configuration is 64 B");
static_assert(sizeof(s2_dnn_interval_t) == 8, "interval is 8 B");
static_assert(sizeof(s2_dnn_layer_t) == 32, "layer header is 32 B");
static_assert(sizeof(s2_dnn_worker_t) == 192, "worker configuration is 192 B");
#else
_Static_assert(sizeof(s2_dnn_global_t) == 64, "global configuration is 64 B");
_Static_assert(sizeof(s2_dnn_interval_t) == 8, "interval is 8 B");
_Static_assert(sizeof(s2_dnn_layer_t) == 32, "layer header is 32 B");
_Static_assert(sizeof(s2_dnn_worker_t) == 192, "worker configuration is 192 B");
#endif

/* The input rows of one part [y0, y1) of a row-split conv2d (S2_DNN_FLAG_ROWS): rows [*r0, *r0 +
 * *h) of the input map; the MLA, run on them with the layer's padding, gives *out_rows rows of
 * which rows [*skip, *skip + y1 - y0) are the part's. *r0 is the multiple of the stride at or
 * below the first input row the part reads, so the MLA's own top padding (which the real rows
 * above *r0 replace) only reaches the discarded rows; rows past *r0 + *h are never read by the
 * kept rows unless they are the map's real padding. Returns 0 if the part has no input row. */
static inline int s2_dnn_conv_rows(uint32_t y0, uint32_t y1, uint32_t in_h, uint32_t ker_h,
                                   uint32_t stride, uint32_t pad, uint32_t *r0, uint32_t *h,
                                   uint32_t *skip, uint32_t *out_rows) {
    const int32_t lo = (int32_t)(y0 * stride) - (int32_t)pad;
    const int32_t hi = (int32_t)((y1 - 1u) * stride + ker_h) - (int32_t)pad;
    const uint32_t first = lo <= 0 ? 0u : (uint32_t)lo / stride * stride;
    const uint32_t end = hi <= 0 ? 0u : (uint32_t)hi > in_h ? in_h : (uint32_t)hi;
    if (end <= first || end - first + 2u * pad < ker_h) return 0;
    *r0 = first;
    *h = end - first;
    *skip = y0 - first / stride;
    *out_rows = (*h + 2u * pad - ker_h) / stride + 1u;
    return 1;
}
/* SRAM bytes of a pool worker's tap-offset table (one word per window element, 16-byte aligned);
 * 0xFFFFFFF0 for a window too large for any SRAM (the compiler then finds no part that fits). */
static inline uint32_t s2_dnn_pool_table_bytes(uint32_t ker_h, uint32_t ker_w) {
    const uint64_t taps = (uint64_t)ker_h * ker_w;
    return taps > 0x10000000u ? 0xFFFFFFF0u : (uint32_t)(4u * taps + 15u) & ~15u;
}
/* The input rows [*r0, *r0 + *h) that the windows of output rows [y0, y1) of a row-split pool read
 * (S2_DNN_FLAG_ROWS): the map's rows that the windows overlap, padding rows left out. Returns 0 if
 * the windows read no row of the map. */
static inline int s2_dnn_pool_rows(uint32_t y0, uint32_t y1, uint32_t in_h, uint32_t ker_h,
                                   uint32_t stride, uint32_t pad, uint32_t *r0, uint32_t *h) {
    const int32_t lo = (int32_t)(y0 * stride) - (int32_t)pad;
    const int32_t hi = (int32_t)((y1 - 1u) * stride + ker_h) - (int32_t)pad;
    const uint32_t first = lo <= 0 ? 0u : (uint32_t)lo;
    const uint32_t end = hi <= 0 ? 0u : (uint32_t)hi > in_h ? in_h : (uint32_t)hi;
    if (y1 <= y0 || end <= first) return 0;
    *r0 = first;
    *h = end - first;
    return 1;
}
/* A worker's record of one layer, in its own PE's cycles: the interval and where it went
 * (cycles waiting for DMA transfers of the layer's constants into SRAM, and for the MLA or the
 * core's compute loop; the rest is inputs, outputs and firmware). */
typedef struct {
    uint32_t start;
    uint32_t end;
    uint32_t load;    /* cycles waiting for DMA of the constants (weights, biases) from DRAM;
                       * layers without constants: of their inputs */
    uint32_t compute; /* cycles of the MLA operations or the core's softmax/pool loops */
} s2_dnn_worker_time_t;

#ifdef __cplusplus
static_assert(sizeof(s2_dnn_worker_time_t) == 16, "worker time record is 16 B");
#else
_Static_assert(sizeof(s2_dnn_worker_time_t) == 16, "worker time record is 16 B");
#endif

/* Time area: scheduler intervals [setup, layer 0 .. layer L-1, cleanup] (s2_dnn_interval_t),
 * then for each worker w of the global list one s2_dnn_worker_time_t per layer.
 * L = num_layers (FINISH excluded), W = num_workers. */
static inline uint32_t s2_dnn_time_size(uint32_t num_layers, uint32_t num_workers) {
    return (uint32_t)sizeof(s2_dnn_interval_t) * (num_layers + 2u) +
           (uint32_t)sizeof(s2_dnn_worker_time_t) * num_workers * num_layers;
}
static inline uint32_t s2_dnn_time_setup(uint32_t time_addr) { return time_addr; }
static inline uint32_t s2_dnn_time_layer(uint32_t time_addr, uint32_t layer) {
    return time_addr + (uint32_t)sizeof(s2_dnn_interval_t) * (1u + layer);
}
static inline uint32_t s2_dnn_time_cleanup(uint32_t time_addr, uint32_t num_layers) {
    return time_addr + (uint32_t)sizeof(s2_dnn_interval_t) * (1u + num_layers);
}
static inline uint32_t s2_dnn_time_worker(uint32_t time_addr, uint32_t num_layers, uint32_t worker,
                                          uint32_t layer) {
    return time_addr + (uint32_t)sizeof(s2_dnn_interval_t) * (num_layers + 2u) +
           (uint32_t)sizeof(s2_dnn_worker_time_t) * (worker * num_layers + layer);
}

/* Softmax (S2_DNN_LAYER_SOFTMAX), integer semantics shared by the worker firmware and the host's
 * reference (tools/compiler/graph_reference.h). Per row of k int8 inputs x with exponent kx
 * (value x * 2^-kx, 0 <= kx <= 15) to k int8 outputs y with exponent ky (0 <= ky <= 16), the
 * Quantize/Dequantize pair around the ONNX Softmax folded in:
 *   mx  = max_i x_i
 *   t_i = (x_i - mx) * 2^(15 - kx)                    s16.15, <= 0
 *   e_i = EXP(t_i) with S2_DNN_SOFTMAX_EXP_ITERATIONS  the PE's EXP unit (exp_regs.h), s16.15
 *   s   = sum_i e_i                                   uint32 (e_i <= 2^15, k <= 65535)
 *   y_i = min(127, (e_i * 2^ky + s / 2) / s)          unsigned, division rounds down
 * mx's e is exactly 1.0 (2^15), so s >= 2^15 and e_i * 2^ky <= 2^31. */
#define S2_DNN_SOFTMAX_EXP_ITERATIONS 16u
#define S2_DNN_SOFTMAX_MAX_IN_EXPONENT 15
#define S2_DNN_SOFTMAX_MAX_OUT_EXPONENT 16

/* Run protocol (docs/dnn_flow.md). Both firmware programs take the image base (the global
 * configuration's address) as argument 0. Signal words (signal_regs.h):
 *  host -> scheduler   RUN: one inference on the input now in DRAM; EXIT: stop every core.
 *  scheduler -> worker SETUP_BASE + the SRAM offset of the scheduler's completion array (read the
 *                      global configuration, clear the time records), the address of the
 *                      worker's s2_dnn_worker_t in a layer (>= S2_DNN_SIG_ADDR_MIN: run its part
 *                      of that layer), FINISH (store the time records in DRAM), EXIT.
 * Workers answer through the completion array, uint32_t done[num_workers] in the scheduler's
 * SRAM: worker w writes DONE_BASE + layer index (its part of the layer is in DRAM), FINISHED, or
 * ERROR_BASE + code (it then exits with that code) to done[w] with a remote SRAM write, then
 * sends the scheduler any signal word as a wake-up. The array, not the signal FIFO (depth 4,
 * drops on overflow), carries the answers: a dropped wake-up is harmless because a full FIFO
 * already wakes the scheduler.
 * After the cleanup the scheduler writes s2_dnn_host_status_t to the host buffer at
 * S2_HOST_GLOBAL_BASE + S2_DNN_HOST_STATUS_OFFSET (noc_map.h); the host waits for that write.
 * The host's signals carry S2_DNN_HOST_SOURCE as their sender index. */
#define S2_DNN_SIG_RUN 1u
#define S2_DNN_SIG_EXIT 2u
#define S2_DNN_SIG_FINISH 4u
#define S2_DNN_SIG_FINISHED 5u
#define S2_DNN_SIG_WAKE 6u
#define S2_DNN_SIG_DONE_BASE 0x00010000u
#define S2_DNN_SIG_ERROR_BASE 0x00020000u
#define S2_DNN_SIG_SETUP_BASE 0x00100000u /* + SRAM offset (< 1 MiB) of the completion array */
#define S2_DNN_SIG_ADDR_MIN 0x20000000u   /* the DRAM window: worker configuration addresses */
#define S2_DNN_HOST_SOURCE 0xFFFFu
#define S2_DNN_HOST_STATUS_OFFSET 0u

typedef struct {
    uint32_t runs;   /* inferences completed since the cores started */
    uint32_t status; /* 0 = ok; else S2_DNN_SIG_ERROR_BASE + code from a worker or the scheduler */
    uint32_t layer;  /* the failing layer's index (status != 0) */
    uint32_t pe;     /* the failing PE's global index (status != 0) */
} s2_dnn_host_status_t;

/* Error codes (ERROR_BASE + code, and the firmware's exit status). */
#define S2_DNN_ERR_IMAGE 1u    /* bad magic/version or an inconsistent configuration */
#define S2_DNN_ERR_DMA 2u      /* a DMA transfer failed */
#define S2_DNN_ERR_MLA 3u      /* the MLA rejected an operation */
#define S2_DNN_ERR_SRAM 4u     /* a layer's regions do not fit this PE's free SRAM */
#define S2_DNN_ERR_LAYER 5u    /* unknown layer type or bad parameters */
#define S2_DNN_ERR_PROTOCOL 6u /* an unexpected signal word */

#endif /* NMSIM_HW_S2_DNN_IMAGE_H */
