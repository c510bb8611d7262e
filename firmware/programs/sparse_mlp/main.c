/* sparse_mlp: integer inference of a sparse 3-layer MLP (seed 003: DEEP R network 784-300-100-10,
 * weight matrices stored as COO lists), one image after the other, on one PE. Several PEs split
 * the images by giving each its own first image and a common stride.
 *
 * Per image: the DMA imports the image's n_in uint8 pixels from external memory into SRAM (the
 * seed imports every image from DRAM), then for each layer l with COO lists rows_l, cols_l, w_l:
 *   acc_j = sum over connections c with cols_l[c] = j of x[rows_l[c]] * w_l[c]   (int32, wrapping)
 *   hidden layers: x'_j = min(255, max(0, acc_j >> shift_l))   (arithmetic shift = floor)
 *   output layer:  the n_out int32 logits as they are.
 * Then softmax over the logits, read as fixed point with logit_frac_bits fraction bits:
 *   t_j = (l_j - max l) * 2^(15 - logit_frac_bits) in s16.15 (exact; below INT32_MIN: INT32_MIN),
 *   e_j = exp(t_j) on the EXP accelerator (exp_accel 1) or in software (exp_accel 0, sw_exp),
 *   p_j = round(32768 * e_j / sum e) in s16.15. The prediction is the first index of max l.
 *
 * Arguments (s2_arg index: meaning):
 *   0 images: address of the image set, uint8 [N][n_in] (external memory or SRAM)
 *   1 image_first  2 image_count  3 image_stride: this PE runs images first + k * stride, k < count
 *   4 out_first_row: output row of the first image; the row advances by image_stride too
 *   5 n_in  6 n_h1  7 n_h2  8 n_out: layer sizes (n_in <= 1024, n_h1, n_h2 <= 512, n_out <= 16)
 *   9..12 rows1, cols1, w1, nnz1   13..16 the same for layer 2   17..20 for layer 3:
 *        COO lists (rows, cols uint16, weights int16, nnz entries each); any order
 *   21 shift1  22 shift2: requantisation shifts of the hidden layers (0..31)
 *   23 logit_frac_bits (0..15)  24 exp_accel (1 accelerator, 0 software)
 *   25 exp_iterations (1..16, accelerator only)
 *   26 logits: int32 [rows][n_out]  27 pred: uint8 [rows]  28 probs: int32 s16.15 [rows][n_out]
 *   29 labels: uint8 [N] or 0; the program counts correct predictions
 *   30 stage: 0 uses the COO lists in place; else an SRAM address where the DMA first copies them
 *      (lists kept in external memory, one copy per PE)  31 stage_bytes: its size
 *   32 verbose: 1 adds activation statistics to the summary line (costs a few cycles)
 * Exit status: 0 success, 1 bad sizes, 2 bad shifts or softmax settings, 3 COO index out of range,
 * 4 staging area too small, 5 DMA error. */
#include "s2_dma.h"
#include "s2_exp.h"
#include "s2_hal.h"

#define MAX_IN 1024u
#define MAX_HIDDEN 512u
#define MAX_OUT 16u

typedef struct {
    const uint16_t *rows;
    const uint16_t *cols;
    const int16_t *w;
    uint32_t nnz;
    uint32_t n_from, n_to;
} Coo;

static uint8_t g_image[MAX_IN] __attribute__((aligned(16)));
static uint8_t g_act1[MAX_HIDDEN];
static uint8_t g_act2[MAX_HIDDEN];
static uint32_t g_acc[MAX_HIDDEN];
static int32_t g_e[MAX_OUT];

typedef struct {
    uint32_t zeros, saturated, total;
} ActStats;

static int dma_copy(uint32_t src, uint32_t dst, uint32_t len) {
    s2_dma_start(src, dst, len, 1);
    const uint32_t st = s2_dma_wait_wfi();
    if (!s2_dma_ok(st)) {
        s2_printf("sparse_mlp: DMA %08x -> %08x (%u B) failed at %08x\n", (unsigned)src,
                  (unsigned)dst, (unsigned)len, (unsigned)s2_dma_err_addr());
        return 0;
    }
    return 1;
}

/* acc[j] = sum of x[rows[c]] * w[c] over the connections into j. |x * w| < 2^23 fits int32;
 * the sum wraps modulo 2^32 (unsigned arithmetic, no undefined overflow). */
static void sparse_layer(const uint8_t *restrict x, const Coo *l, uint32_t *restrict acc) {
    /* locals, so that the stores to acc do not make the compiler reload *l every iteration */
    const uint16_t *restrict rows = l->rows;
    const uint16_t *restrict cols = l->cols;
    const int16_t *restrict w = l->w;
    const uint32_t nnz = l->nnz, n_to = l->n_to;
    for (uint32_t j = 0; j < n_to; ++j) acc[j] = 0;
    for (uint32_t c = 0; c < nnz; ++c) acc[cols[c]] += (uint32_t)((int32_t)x[rows[c]] * w[c]);
}

/* ReLU and requantisation to uint8: min(255, max(0, acc >> shift)). */
static void requantise(const uint32_t *acc, uint32_t n, uint32_t shift, uint8_t *out,
                       ActStats *st) {
    for (uint32_t j = 0; j < n; ++j) {
        int32_t q = (int32_t)acc[j] >> shift;
        if (q < 0) q = 0;
        if (q > 255) q = 255;
        out[j] = (uint8_t)q;
    }
    if (st) {
        for (uint32_t j = 0; j < n; ++j) {
            st->zeros += out[j] == 0;
            st->saturated += out[j] == 255;
        }
        st->total += n;
    }
}

/* exp(x) for x <= 0 in s16.15, in software: x = k ln2 + r (k <= 0), exp(r) by a degree-8 Taylor
 * polynomial in Q30 (Horner, r in Q31), then 2^k with round to nearest. The remainder term
 * r^9/9! < 1.1e-7 and the Horner truncations (< 2^-27) stay far below the final rounding, so the
 * result is within ~0.51 LSB of 32768 exp(x). exp(0) = 32768 exactly. */
#define LN2_Q15 22713        /* round(ln2 * 2^15) */
#define LN2_Q31 1488522236LL /* round(ln2 * 2^31) */
static const int32_t kTaylorQ30[9] = {
    1073741824, 1073741824, 536870912, 178956971, 44739243, 8947849, 1491308, 213044, 26631,
}; /* round(2^30 / n!) for n = 0..8 */

static int32_t sw_exp(int32_t x) {
    if (x < -12 * 32768) return 0; /* 32768 exp(-12) < 0.5 */
    int32_t k = -((-x) / LN2_Q15);
    if (k * LN2_Q15 > x) k -= 1;
    /* r = x - k ln2 in Q31; about [0, ln2), slightly outside only by the Q15 rounding of k's ln2 */
    const int64_t r = (int64_t)x * 65536 - (int64_t)k * LN2_Q31;
    int64_t p = kTaylorQ30[8];
    for (int n = 7; n >= 0; --n) p = ((p * r) >> 31) + kTaylorQ30[n];
    const int s = 15 - k; /* Q30 * 2^k -> Q15 */
    return (int32_t)((p + ((int64_t)1 << (s - 1))) >> s);
}

/* s16.15 argument of exp for logit difference d <= 0 with frac_bits fraction bits. */
static int32_t exp_arg(int32_t l, int32_t max, uint32_t frac_bits) {
    const int64_t t = ((int64_t)l - (int64_t)max) * ((int64_t)1 << (15u - frac_bits));
    return t < INT32_MIN ? INT32_MIN : (int32_t)t;
}

static int check_coo(const Coo *l, unsigned layer) {
    for (uint32_t c = 0; c < l->nnz; ++c) {
        if (l->rows[c] >= l->n_from || l->cols[c] >= l->n_to) {
            s2_printf("sparse_mlp: layer %u entry %u: (%u, %u) outside %u x %u\n", layer,
                      (unsigned)c, (unsigned)l->rows[c], (unsigned)l->cols[c], (unsigned)l->n_from,
                      (unsigned)l->n_to);
            return 0;
        }
    }
    return 1;
}

/* Copies one array of `bytes` to *at (4-byte aligned) and advances it; 0 on a DMA error. */
static const void *stage_array(const void *src, uint32_t bytes, uint32_t *at) {
    const uint32_t dst = *at;
    if (bytes && !dma_copy((uint32_t)(uintptr_t)src, dst, bytes)) return 0;
    *at = (dst + bytes + 3u) & ~3u;
    return (const void *)(uintptr_t)dst;
}

int main(void) {
    s2_cycles_start();
    const uint8_t *images = (const uint8_t *)s2_arg_ptr(0);
    const uint32_t first = s2_arg(1), count = s2_arg(2), stride = s2_arg(3), row0 = s2_arg(4);
    const uint32_t n_in = s2_arg(5), n_h1 = s2_arg(6), n_h2 = s2_arg(7), n_out = s2_arg(8);
    Coo layer[3];
    const uint32_t sizes[4] = {n_in, n_h1, n_h2, n_out};
    for (unsigned l = 0; l < 3; ++l) {
        layer[l].rows = (const uint16_t *)s2_arg_ptr(9 + 4 * l);
        layer[l].cols = (const uint16_t *)s2_arg_ptr(10 + 4 * l);
        layer[l].w = (const int16_t *)s2_arg_ptr(11 + 4 * l);
        layer[l].nnz = s2_arg(12 + 4 * l);
        layer[l].n_from = sizes[l];
        layer[l].n_to = sizes[l + 1];
    }
    const uint32_t shift1 = s2_arg(21), shift2 = s2_arg(22), frac_bits = s2_arg(23);
    const uint32_t exp_accel = s2_arg(24), iterations = s2_arg(25);
    int32_t *logits = (int32_t *)s2_arg_ptr(26);
    uint8_t *pred = (uint8_t *)s2_arg_ptr(27);
    int32_t *probs = (int32_t *)s2_arg_ptr(28);
    const uint8_t *labels = (const uint8_t *)s2_arg_ptr(29);
    const uint32_t stage = s2_arg(30), stage_bytes = s2_arg(31), verbose = s2_arg(32);

    if (n_in == 0 || n_in > MAX_IN || n_h1 == 0 || n_h1 > MAX_HIDDEN || n_h2 == 0 ||
        n_h2 > MAX_HIDDEN || n_out == 0 || n_out > MAX_OUT || stride == 0) {
        s2_printf("sparse_mlp: bad sizes %u-%u-%u-%u stride %u (max %u-%u-%u-%u, stride >= 1)\n",
                  (unsigned)n_in, (unsigned)n_h1, (unsigned)n_h2, (unsigned)n_out, (unsigned)stride,
                  MAX_IN, MAX_HIDDEN, MAX_HIDDEN, MAX_OUT);
        return 1;
    }
    if (shift1 > 31 || shift2 > 31 || frac_bits > 15 || exp_accel > 1 ||
        (exp_accel && (iterations < 1 || iterations > 16))) {
        s2_printf(
            "sparse_mlp: bad shift1=%u shift2=%u logit_frac_bits=%u exp_accel=%u "
            "iterations=%u\n",
            (unsigned)shift1, (unsigned)shift2, (unsigned)frac_bits, (unsigned)exp_accel,
            (unsigned)iterations);
        return 2;
    }
    if (stage) {
        uint32_t need = 0;
        for (unsigned l = 0; l < 3; ++l) need += 3u * ((2u * layer[l].nnz + 3u) & ~3u);
        if (need > stage_bytes) {
            s2_printf("sparse_mlp: staging needs %u B, stage_bytes=%u\n", (unsigned)need,
                      (unsigned)stage_bytes);
            return 4;
        }
        uint32_t at = stage;
        for (unsigned l = 0; l < 3; ++l) {
            const uint32_t bytes = 2u * layer[l].nnz;
            layer[l].rows = stage_array(layer[l].rows, bytes, &at);
            layer[l].cols = stage_array(layer[l].cols, bytes, &at);
            layer[l].w = stage_array(layer[l].w, bytes, &at);
            if ((bytes && !layer[l].rows) || (bytes && !layer[l].cols) || (bytes && !layer[l].w))
                return 5;
        }
    }
    for (unsigned l = 0; l < 3; ++l)
        if (!check_coo(&layer[l], l + 1)) return 3;
    if (exp_accel) s2_exp_set_iterations(iterations);

    ActStats st1 = {0, 0, 0}, st2 = {0, 0, 0};
    int32_t lmin = INT32_MAX, lmax = INT32_MIN;
    uint32_t correct = 0;
    const uint32_t c0 = s2_cycles();
    for (uint32_t k = 0; k < count; ++k) {
        const uint32_t img = first + k * stride, row = row0 + k * stride;
        if (!dma_copy((uint32_t)(uintptr_t)(images + img * n_in), (uint32_t)(uintptr_t)g_image,
                      n_in))
            return 5;
        sparse_layer(g_image, &layer[0], g_acc);
        requantise(g_acc, n_h1, shift1, g_act1, verbose ? &st1 : 0);
        sparse_layer(g_act1, &layer[1], g_acc);
        requantise(g_acc, n_h2, shift2, g_act2, verbose ? &st2 : 0);
        sparse_layer(g_act2, &layer[2], g_acc);

        const int32_t *l = (const int32_t *)g_acc;
        int32_t max = l[0];
        uint32_t argmax = 0;
        for (uint32_t j = 1; j < n_out; ++j) {
            if (l[j] > max) {
                max = l[j];
                argmax = j;
            }
        }
        uint32_t sum = 0;
        if (exp_accel) {
            /* overlap each exponential with the bookkeeping of the previous one */
            s2_exp_start(exp_arg(l[0], max, frac_bits));
            for (uint32_t j = 0; j < n_out; ++j) {
                const int32_t e = s2_exp_result();
                if (j + 1 < n_out) s2_exp_start(exp_arg(l[j + 1], max, frac_bits));
                g_e[j] = e;
                sum += (uint32_t)e;
            }
        } else {
            for (uint32_t j = 0; j < n_out; ++j) {
                g_e[j] = sw_exp(exp_arg(l[j], max, frac_bits));
                sum += (uint32_t)g_e[j];
            }
        }
        /* e_j <= 2^15 and the largest is 2^15, so 2^15 <= sum <= 16 * 2^15 */
        int32_t *lo = logits + row * n_out;
        int32_t *po = probs + row * n_out;
        for (uint32_t j = 0; j < n_out; ++j) {
            lo[j] = l[j];
            po[j] = (int32_t)((((uint32_t)g_e[j] << 15) + sum / 2u) / sum);
        }
        pred[row] = (uint8_t)argmax;
        if (labels) correct += labels[img] == argmax;
        if (verbose) {
            for (uint32_t j = 0; j < n_out; ++j) {
                if (l[j] < lmin) lmin = l[j];
                if (l[j] > lmax) lmax = l[j];
            }
        }
    }
    const uint32_t cycles = s2_cycles() - c0;

    s2_printf(
        "sparse_mlp: images=%u first=%u stride=%u nnz=%u/%u/%u exp_accel=%u correct=%u "
        "cycles=%u cycles/image=%u\n",
        (unsigned)count, (unsigned)first, (unsigned)stride, (unsigned)layer[0].nnz,
        (unsigned)layer[1].nnz, (unsigned)layer[2].nnz, (unsigned)exp_accel, (unsigned)correct,
        (unsigned)cycles, (unsigned)(count ? cycles / count : 0));
    if (verbose)
        s2_printf("sparse_mlp: h1 zero %u sat %u of %u; h2 zero %u sat %u of %u; logits [%d, %d]\n",
                  (unsigned)st1.zeros, (unsigned)st1.saturated, (unsigned)st1.total,
                  (unsigned)st2.zeros, (unsigned)st2.saturated, (unsigned)st2.total, (int)lmin,
                  (int)lmax);
    return 0;
}
