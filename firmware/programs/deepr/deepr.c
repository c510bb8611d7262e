/* DEEP R training of a sparse 3-layer perceptron on one PE or on four PEs in seed 003's
 * checkerboard (Liu et al. 2018, sec. 2.3-2.5), in float32 on the FPU. The host writes an
 * s2_deepr_config_t at S2_DEEPR_DATA_BASE (nmsim/hw/spinnaker2/deepr_image.h) with the layout of
 * every array; docs/deepr.md gives the algorithm, tools/reference/deepr_ref.h the same steps on
 * the host (bit-exact: this file is built with -ffp-contract=off).
 *
 * Per iteration k (one training image, batch 1):
 *   import    DMA the image (the PE's input half) and its label from DRAM into SRAM; the
 *             previous iteration's record goes out to DRAM in the same phase
 *   forward   sparse products over the active entries, ReLU, softmax (EXP accelerator or the same
 *             datapath in software), errors p - onehot
 *   backward  errors of the hidden layers with the weights before the update, then per block
 *             theta <- theta - eta dE/dtheta - eta alpha + eta sigma nu (nu ~ N(0,1) from 12
 *             uniforms); an amplitude below 0 makes its connection dormant
 *   rewire    every rewiring_period iterations: delete the dormant entries (stable compaction),
 *             draw as many new distinct coordinates (at most max_new), sort them (quicksort) and
 *             merge them into the sorted arrays
 * Four cores: cell (a, b) holds input half a and output half b of every matrix; partial sums go
 * to the diagonal cell of their half, which merges, rectifies and passes the half on (forward:
 * to (a, 1 - a); backward: to (1 - a, a)); the diagonal cells exchange their logits so both
 * compute the softmax. Messages are multicast packets with one float each (key: deepr_image.h).
 *
 * Exit status: 0 success, 1 bad configuration, 2 DMA error, 3 bad message. */
#include <stdint.h>

#include "nmsim/hw/spinnaker2/deepr_image.h"
#include "nmsim/hw/spinnaker2/exp_regs.h"
#include "nmsim/hw/spinnaker2/prng_regs.h"
#include "s2_dma.h"
#include "s2_exp.h"
#include "s2_hal.h"
#include "s2_prng.h"
#include "s2_timer.h"

#define CLOCK_TIMER 1u

typedef struct {
    int16_t *rows, *cols;
    float *theta;
    uint32_t *signs;
    uint32_t n_in, n_out, capacity, count;
    float init_scale;
} Block;

static s2_deepr_config_t *const cfg = (s2_deepr_config_t *)S2_DEEPR_DATA_BASE;
static volatile s2_deepr_counters_t *const ctr =
    (volatile s2_deepr_counters_t *)S2_DEEPR_COUNTERS_ADDR;

static Block g_block[S2_DEEPR_LAYERS];
static int g_accel, g_four, g_diag;
static uint32_t g_cell, g_a, g_b;
static s2_kiss_state_t g_kiss;
static uint64_t g_draws;
static float g_eta, g_eta_l1, g_eta_noise;
static uint32_t g_epoch = 0xFFFFFFFFu;
static uint32_t g_parity;
static uint64_t g_phase_cycles[5];
static uint32_t g_sent;

/* received messages: where each type goes, the offset of its second buffer (words), counts */
static uint32_t *g_rx[S2_DEEPR_MSG_TYPES];
static uint32_t g_rx_alt[S2_DEEPR_MSG_TYPES];
static volatile uint32_t g_rx_count[S2_DEEPR_MSG_TYPES];
static uint32_t g_rx_target[S2_DEEPR_MSG_TYPES];
static volatile uint32_t g_rx_bad;

static inline float f_of(uint32_t u) {
    union { uint32_t u; float f; } x = {.u = u};
    return x.f;
}
static inline uint32_t u_of(float f) {
    union { float f; uint32_t u; } x = {.f = f};
    return x.u;
}
static inline float *fptr(uint32_t addr) { return (float *)(uintptr_t)addr; }

/* --- time ------------------------------------------------------------------------------------ */

/* PE clock cycles since start (a free-running down counter: waiting counts too) */
static inline uint32_t now(void) { return 0xFFFFFFFFu - s2_timer_value(CLOCK_TIMER); }
enum { PH_IMPORT, PH_FORWARD, PH_BACKWARD, PH_REWIRE, PH_TEST };
static uint32_t g_mark;
static inline void phase_end(unsigned ph) {
    const uint32_t t = now();
    g_phase_cycles[ph] += t - g_mark;
    g_mark = t;
}

/* --- random numbers -------------------------------------------------------------------------- */

static inline uint32_t rnd(void) {
    ++g_draws;
    return g_accel ? s2_rand() : s2_kiss_step(&g_kiss);
}
static inline uint32_t rnd_below(uint32_t n) { return (uint32_t)(((uint64_t)rnd() * n) >> 32); }
/* N(0, 1) as the sum of 12 uniforms on 24 bits minus 6 (exact integer sum, one rounding) */
static inline float gauss(void) {
    uint32_t s = 0;
    for (int i = 0; i < 12; ++i) s += rnd() >> 8;
    return (float)((int32_t)s - 6 * (1 << 24)) * (1.0f / 16777216.0f);
}

/* --- blocks ---------------------------------------------------------------------------------- */

static inline uint32_t sign_of(const Block *b, uint32_t k) { return (b->signs[k >> 5] >> (k & 31u)) & 1u; }
static inline void set_sign(Block *b, uint32_t k, uint32_t s) {
    const uint32_t m = 1u << (k & 31u);
    b->signs[k >> 5] = s ? (b->signs[k >> 5] | m) : (b->signs[k >> 5] & ~m);
}
static inline uint32_t key_at(const Block *b, uint32_t k) {
    return (uint32_t)(uint16_t)b->rows[k] << 16 | (uint16_t)b->cols[k];
}

/* out = W^T in over the active entries; rows with a zero input are skipped whole (sorted by row) */
static void forward_block(const Block *b, const float *in, float *out) {
    for (uint32_t j = 0; j < b->n_out; ++j) out[j] = 0.0f;
    const int16_t *rows = b->rows, *cols = b->cols;
    const float *theta = b->theta;
    uint32_t k = 0;
    while (k < b->count) {
        const int16_t r = rows[k];
        const float x = in[r];
        if (x == 0.0f) {
            while (k < b->count && rows[k] == r) ++k;
            continue;
        }
        for (; k < b->count && rows[k] == r; ++k) {
            const float th = theta[k];
            if (th < 0.0f) continue;
            const float w = sign_of(b, k) ? -th : th;
            out[cols[k]] = out[cols[k]] + x * w;
        }
    }
}

/* out = W d over the active entries */
static void backward_block(const Block *b, const float *d, float *out) {
    for (uint32_t i = 0; i < b->n_in; ++i) out[i] = 0.0f;
    for (uint32_t k = 0; k < b->count; ++k) {
        const float th = b->theta[k];
        if (th < 0.0f) continue;
        const float w = sign_of(b, k) ? -th : th;
        out[b->rows[k]] = out[b->rows[k]] + w * d[b->cols[k]];
    }
}

static void update_block(Block *b, const float *in, const float *d) {
    const float eta = g_eta, eta_l1 = g_eta_l1, eta_noise = g_eta_noise;
    for (uint32_t k = 0; k < b->count; ++k) {
        float th = b->theta[k];
        if (th < 0.0f) continue;
        const float step = eta * (in[b->rows[k]] * d[b->cols[k]]);
        th = sign_of(b, k) ? th + step : th - step;
        th = th - eta_l1;
        th = th + eta_noise * gauss();
        b->theta[k] = th;
    }
}

/* the new entries of a rewiring step before the merge (cfg->tmp) */
typedef struct {
    uint32_t key, sign;
} NewEntry;

static void quicksort(NewEntry *e, int lo, int hi) {
    while (lo < hi) {
        const int mid = lo + (hi - lo) / 2;
        NewEntry t = e[mid];
        e[mid] = e[hi];
        e[hi] = t;
        const uint32_t pivot = e[hi].key;
        int i = lo;
        for (int j = lo; j < hi; ++j) {
            if (e[j].key < pivot) {
                t = e[i];
                e[i] = e[j];
                e[j] = t;
                ++i;
            }
        }
        t = e[i];
        e[i] = e[hi];
        e[hi] = t;
        /* recurse into the smaller side, loop on the larger: stack depth O(log n) */
        if (i - lo < hi - i) {
            quicksort(e, lo, i - 1);
            lo = i + 1;
        } else {
            quicksort(e, i + 1, hi);
            hi = i - 1;
        }
    }
}

static int present(const Block *b, uint32_t kept, const NewEntry *e, uint32_t n, uint32_t key) {
    uint32_t lo = 0, hi = kept;
    while (lo < hi) {
        const uint32_t mid = (lo + hi) / 2;
        if (key_at(b, mid) < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < kept && key_at(b, lo) == key) return 1;
    for (uint32_t i = 0; i < n; ++i)
        if (e[i].key == key) return 1;
    return 0;
}

/* n_new distinct coordinates not in the block, amplitude 0, random sign, merged in order */
static void insert_new(Block *b, uint32_t n_new) {
    NewEntry *e = (NewEntry *)(uintptr_t)cfg->tmp;
    const uint32_t kept = b->count;
    for (uint32_t i = 0; i < n_new; ++i) {
        uint32_t key;
        do {
            const uint32_t r = rnd_below(b->n_in);
            const uint32_t c = rnd_below(b->n_out);
            key = r << 16 | c;
        } while (present(b, kept, e, i, key));
        e[i].key = key;
        e[i].sign = rnd() >> 31;
    }
    if (n_new > 1) quicksort(e, 0, (int)n_new - 1);
    /* merge from the back: every slot written is free or already moved */
    int i = (int)kept - 1, j = (int)n_new - 1, d = (int)(kept + n_new) - 1;
    while (j >= 0) {
        if (i >= 0 && key_at(b, (uint32_t)i) > e[j].key) {
            b->rows[d] = b->rows[i];
            b->cols[d] = b->cols[i];
            b->theta[d] = b->theta[i];
            set_sign(b, (uint32_t)d, sign_of(b, (uint32_t)i));
            --i;
        } else {
            b->rows[d] = (int16_t)(e[j].key >> 16);
            b->cols[d] = (int16_t)(e[j].key & 0xFFFFu);
            b->theta[d] = 0.0f;
            set_sign(b, (uint32_t)d, e[j].sign);
            --j;
        }
        --d;
    }
    b->count = kept + n_new;
}

static void swap_entries(Block *b, uint32_t i, uint32_t j) {
    const int16_t r = b->rows[i], c = b->cols[i];
    const float t = b->theta[i];
    const uint32_t s = sign_of(b, i);
    b->rows[i] = b->rows[j];
    b->cols[i] = b->cols[j];
    b->theta[i] = b->theta[j];
    set_sign(b, i, sign_of(b, j));
    b->rows[j] = r;
    b->cols[j] = c;
    b->theta[j] = t;
    set_sign(b, j, s);
}

/* quicksort of entries [lo, hi] of the block by (row, column) */
static void quicksort_entries(Block *b, int lo, int hi) {
    while (lo < hi) {
        swap_entries(b, (uint32_t)(lo + (hi - lo) / 2), (uint32_t)hi);
        const uint32_t pivot = key_at(b, (uint32_t)hi);
        int i = lo;
        for (int j = lo; j < hi; ++j)
            if (key_at(b, (uint32_t)j) < pivot) swap_entries(b, (uint32_t)i++, (uint32_t)j);
        swap_entries(b, (uint32_t)i, (uint32_t)hi);
        if (i - lo < hi - i) {
            quicksort_entries(b, lo, i - 1);
            lo = i + 1;
        } else {
            quicksort_entries(b, i + 1, hi);
            hi = i - 1;
        }
    }
}

/* Seed 003 sec. 2.4: each dormant entry is swapped towards the end until it leaves the live
 * entries; the new entries are drawn into the tail, quicksorted there and merged in place, each
 * shifting the larger preserved entries up by one (no buffer: O(entries x changes)). */
static uint32_t rewire_block_in_place(Block *b) {
    uint32_t n = b->count;
    for (uint32_t k = n; k-- > 0;) {
        if (!(b->theta[k] < 0.0f)) continue;
        for (uint32_t j = k; j + 1 < n; ++j) swap_entries(b, j, j + 1);
        --n;
    }
    const uint32_t deleted = b->count - n, kept = n;
    uint32_t n_new = b->capacity - kept;
    if (n_new > cfg->max_new) n_new = cfg->max_new;
    for (uint32_t i = 0; i < n_new; ++i) {
        uint32_t key;
        int dup;
        do {
            const uint32_t r = rnd_below(b->n_in);
            const uint32_t c = rnd_below(b->n_out);
            key = r << 16 | c;
            dup = present(b, kept, 0, 0, key);
            for (uint32_t t = kept; t < kept + i && !dup; ++t) dup = key_at(b, t) == key;
        } while (dup);
        b->rows[kept + i] = (int16_t)(key >> 16);
        b->cols[kept + i] = (int16_t)(key & 0xFFFFu);
        b->theta[kept + i] = 0.0f;
        set_sign(b, kept + i, rnd() >> 31);
    }
    if (n_new > 1) quicksort_entries(b, (int)kept, (int)(kept + n_new) - 1);
    for (uint32_t t = kept; t < kept + n_new; ++t)
        for (uint32_t j = t; j > 0 && key_at(b, j - 1) > key_at(b, j); --j) swap_entries(b, j - 1, j);
    b->count = kept + n_new;
    return deleted << 16 | n_new;
}

/* deletes the dormant entries, inserts as many new ones (at most max_new); returns
 * deleted << 16 | inserted */
static uint32_t rewire_block(Block *b) {
    if (!(cfg->flags & S2_DEEPR_FLAG_LINEAR_REWIRING)) return rewire_block_in_place(b);
    uint32_t kept = 0;
    for (uint32_t k = 0; k < b->count; ++k) {
        if (b->theta[k] < 0.0f) continue;
        if (kept != k) {
            b->rows[kept] = b->rows[k];
            b->cols[kept] = b->cols[k];
            b->theta[kept] = b->theta[k];
            set_sign(b, kept, sign_of(b, k));
        }
        ++kept;
    }
    const uint32_t deleted = b->count - kept;
    b->count = kept;
    uint32_t n_new = b->capacity - kept;
    if (n_new > cfg->max_new) n_new = cfg->max_new;
    insert_new(b, n_new);
    return deleted << 16 | n_new;
}

/* capacity entries, drawn max_new at a time like rewiring steps, then |N(0,1)| * scale */
static void init_block(Block *b) {
    b->count = 0;
    while (b->count < b->capacity) {
        uint32_t n_new = b->capacity - b->count;
        if (n_new > cfg->max_new) n_new = cfg->max_new;
        insert_new(b, n_new);
    }
    for (uint32_t k = 0; k < b->count; ++k) {
        const float g = gauss();
        b->theta[k] = (g < 0.0f ? -g : g) * b->init_scale;
    }
}

/* --- messages (four cores) ------------------------------------------------------------------ */

void COMMS_IRQHandler(void) {
    uint32_t key, payload;
    while (s2_mc_rx_pending()) {
        s2_mc_receive(&key, &payload);
        const uint32_t type = (key >> 12) & 0xFu, index = key & 0x7FFu, par = (key >> 11) & 1u;
        if ((key & 0xFF000000u) != S2_DEEPR_KEY_BASE || type >= S2_DEEPR_MSG_TYPES ||
            !g_rx[type]) {
            ++g_rx_bad;
            continue;
        }
        g_rx[type][index + (par ? g_rx_alt[type] : 0u)] = payload;
        ++g_rx_count[type];
    }
}

static void send(uint32_t dst_cell, uint32_t type, const float *v, uint32_t n) {
    const uint32_t base = s2_deepr_key(dst_cell, g_cell, type, 0) | g_parity << 11;
    for (uint32_t i = 0; i < n; ++i) s2_mc_send_payload(base | i, u_of(v[i]));
    g_sent += n;
}

static void wait_for(uint32_t type, uint32_t n) {
    g_rx_target[type] += n;
    s2_sleep_until(&g_rx_count[type], g_rx_target[type]);
    if (g_rx_bad) {
        s2_printf("deepr: cell %u received %u packets with a bad key\n", (unsigned)g_cell,
                  (unsigned)g_rx_bad);
        s2_exit(3);
    }
}

/* --- one pass --------------------------------------------------------------------------------- */

static float *in_vec(unsigned l) {
    float *v = fptr(cfg->layer[l].in_vec);
    return (g_four && l > 0 && g_parity) ? v + g_block[l].n_in : v;
}

static void set_rates(uint32_t k) {
    const uint32_t epoch = k / cfg->epoch_size;
    if (epoch == g_epoch) return;
    g_epoch = epoch;
    float eta = f_of(cfg->learning_rate);
    for (uint32_t h = 0; h < epoch / cfg->lr_halving_epochs; ++h) eta = eta * 0.5f;
    g_eta = eta;
    g_eta_l1 = eta * f_of(cfg->l1);
    g_eta_noise = eta * f_of(cfg->noise);
}

static void dma(uint32_t src, uint32_t dst, uint32_t len) {
    s2_dma_start(src, dst, len, 0);
    const uint32_t st = s2_dma_wait_poll();
    if (!s2_dma_ok(st)) {
        s2_printf("deepr: DMA %08x -> %08x (%u B) failed at %08x\n", (unsigned)src, (unsigned)dst,
                  (unsigned)len, (unsigned)s2_dma_err_addr());
        s2_exit(2);
    }
}

/* the PE's input half of sample `index` of a set as floats x = pixel / 256; returns the label */
static uint32_t import(uint32_t set, uint32_t index) {
    const uint32_t n = g_block[0].n_in;
    const uint32_t sample = set + index * cfg->sample_stride;
    uint8_t *px = (uint8_t *)(uintptr_t)cfg->image_buf;
    uint32_t *label = (uint32_t *)(uintptr_t)(cfg->image_buf + ((n + 3u) & ~3u));
    dma(sample + 4u + cfg->in_first, cfg->image_buf, n);
    dma(sample, (uint32_t)(uintptr_t)label, 4u);
    float *x = in_vec(0);
    for (uint32_t i = 0; i < n; ++i) x[i] = (float)px[i] * (1.0f / 256.0f);
    return *label;
}

/* forward pass; the diagonal (or single) PE ends with the logits of all outputs in cfg->logits */
static void forward(void) {
    for (unsigned l = 0; l < S2_DEEPR_LAYERS; ++l) {
        const Block *b = &g_block[l];
        const uint32_t bo = b->n_out;
        float *out = l < 2 ? in_vec(l + 1) : fptr(cfg->logits);
        if (!g_four) {
            forward_block(b, in_vec(l), out);
        } else if (g_diag) {
            float *own = fptr(cfg->layer[l].out_vec);
            const float *rx = fptr(cfg->layer[l].rx_partial);
            forward_block(b, in_vec(l), own);
            wait_for(S2_DEEPR_MSG_FWD_PARTIAL(l), bo);
            if (l == 2) out += g_b * bo;
            for (uint32_t j = 0; j < bo; ++j) out[j] = own[j] + rx[j];
        } else {
            float *own = fptr(cfg->layer[l].out_vec);
            forward_block(b, in_vec(l), own);
            send(3u * g_b, S2_DEEPR_MSG_FWD_PARTIAL(l), own, bo);
            if (l < 2) wait_for(S2_DEEPR_MSG_FWD_HALF(l), g_block[l + 1].n_in);
            continue;
        }
        if (l < 2) {
            for (uint32_t j = 0; j < bo; ++j) out[j] = out[j] > 0.0f ? out[j] : 0.0f;
            if (g_four) send(2u * g_a + 1u - g_a, S2_DEEPR_MSG_FWD_HALF(l), out, bo);
        }
    }
    if (g_four && g_diag) {
        const uint32_t half = g_block[2].n_out;
        send(3u * (1u - g_a), S2_DEEPR_MSG_LOGITS, fptr(cfg->logits) + g_b * half, half);
        wait_for(S2_DEEPR_MSG_LOGITS, half);
    }
}

static uint32_t argmax_logits(void) {
    const float *z = fptr(cfg->logits);
    uint32_t best = 0;
    for (uint32_t j = 1; j < cfg->n[3]; ++j)
        if (z[j] > z[best]) best = j;
    return best;
}

/* probabilities into cfg->logits, errors of the PE's output half into layer 2's delta_out */
static void softmax_and_delta(uint32_t label, uint32_t best) {
    float *z = fptr(cfg->logits);
    const uint32_t n = cfg->n[3];
    int32_t e[S2_DEEPR_MAX_OUT];
    int32_t sum = 0;
    const float zmax = z[best];
    for (uint32_t j = 0; j < n; ++j) {
        const float t = z[j] - zmax;
        const int32_t x = t > -64.0f ? (int32_t)(t * 32768.0f) : -64 * 32768;
        e[j] = g_accel ? s2_exp(x) : s2_exp_datapath(x, cfg->exp_iterations);
        sum += e[j];
    }
    ctr->exps += n;
    for (uint32_t j = 0; j < n; ++j) z[j] = (float)e[j] / (float)sum;
    float *d = fptr(cfg->layer[2].delta_out);
    const uint32_t half = g_block[2].n_out, first = g_four ? g_b * half : 0u;
    for (uint32_t j = 0; j < half; ++j) {
        const uint32_t o = first + j;
        d[j] = o == label ? z[o] - 1.0f : z[o];
    }
}

/* errors of layer l's input half (with the weights before the update), then layer l's update */
static void backward_layer(unsigned l) {
    Block *b = &g_block[l];
    float *d_out = fptr(cfg->layer[l].delta_out);
    if (l > 0) {
        float *d_in = fptr(cfg->layer[l - 1].delta_out);
        const float *act = in_vec(l);
        if (!g_four) {
            backward_block(b, d_out, d_in);
        } else if (g_diag) {
            const float *rx = fptr(cfg->layer[l].rx_partial);
            backward_block(b, d_out, d_in);
            wait_for(S2_DEEPR_MSG_BWD_PARTIAL(l), b->n_in);
            for (uint32_t i = 0; i < b->n_in; ++i) d_in[i] = d_in[i] + rx[i];
        } else {
            float *part = fptr(cfg->layer[l].out_vec);
            backward_block(b, d_out, part);
            send(3u * g_a, S2_DEEPR_MSG_BWD_PARTIAL(l), part, b->n_in);
        }
        if (!g_four || g_diag) {
            /* ReLU': unconditional stores (a conditional one makes the ISS step its block) */
            for (uint32_t i = 0; i < b->n_in; ++i) d_in[i] = act[i] > 0.0f ? d_in[i] : 0.0f;
            if (g_four) send(2u * (1u - g_a) + g_a, S2_DEEPR_MSG_BWD_HALF(l), d_in, b->n_in);
        }
    }
    update_block(b, in_vec(l), d_out);
    if (l > 0 && g_four && !g_diag) wait_for(S2_DEEPR_MSG_BWD_HALF(l), b->n_in);
}

static void write_record(uint32_t k, uint32_t label, uint32_t pred, const uint32_t *changes,
                         uint32_t cycles) {
    s2_deepr_record_t *r = (s2_deepr_record_t *)(uintptr_t)cfg->record_buf;
    r->iteration = k;
    r->label_pred = label | pred << 8 | (uint32_t)(label == pred) << 16;
    const float *p = fptr(cfg->logits);
    const int owner = g_cell == 0 || !g_four;
    for (uint32_t j = 0; j < 10; ++j) r->prob[j] = owner && j < cfg->n[3] ? u_of(p[j]) : 0u;
    for (unsigned l = 0; l < 3; ++l) r->changes[l] = changes[l];
    r->cycles = cycles;
}

static void flush_record(uint32_t k) {
    dma(cfg->record_buf, cfg->records + k * sizeof(s2_deepr_record_t), sizeof(s2_deepr_record_t));
}

static void store64(volatile uint32_t *lo, uint64_t v) {
    lo[0] = (uint32_t)v;
    lo[1] = (uint32_t)(v >> 32);
}

static void publish_counters(void) {
    store64(&ctr->cycles_import_lo, g_phase_cycles[PH_IMPORT]);
    store64(&ctr->cycles_forward_lo, g_phase_cycles[PH_FORWARD]);
    store64(&ctr->cycles_backward_lo, g_phase_cycles[PH_BACKWARD]);
    store64(&ctr->cycles_rewire_lo, g_phase_cycles[PH_REWIRE]);
    store64(&ctr->cycles_test_lo, g_phase_cycles[PH_TEST]);
    store64(&ctr->prng_draws_lo, g_draws);
    ctr->messages_sent = g_sent;
    uint32_t rx = 0;
    for (unsigned t = 0; t < S2_DEEPR_MSG_TYPES; ++t) rx += g_rx_count[t];
    ctr->messages_received = rx;
}

/* --- start-up -------------------------------------------------------------------------------- */

static int configure(void) {
    if (cfg->magic != S2_DEEPR_MAGIC || cfg->version != S2_DEEPR_VERSION) {
        s2_printf("deepr: no configuration at %08x (magic %08x)\n", S2_DEEPR_DATA_BASE,
                  (unsigned)cfg->magic);
        return 0;
    }
    g_accel = (cfg->flags & S2_DEEPR_FLAG_ACCEL) != 0;
    g_four = cfg->role != S2_DEEPR_ROLE_SINGLE;
    g_cell = g_four ? cfg->role : 0u;
    g_a = g_cell / 2u;
    g_b = g_cell % 2u;
    g_diag = !g_four || g_a == g_b;
    if ((g_four && cfg->role > 3u) || cfg->n[3] > S2_DEEPR_MAX_OUT || cfg->epoch_size == 0 ||
        cfg->lr_halving_epochs == 0 || cfg->rewiring_period == 0 || cfg->max_new == 0 ||
        cfg->exp_iterations < 1 || cfg->exp_iterations > S2_EXP_MAX_ITERATIONS) {
        s2_printf("deepr: bad configuration (role %u, outputs %u, epoch %u, period %u)\n",
                  (unsigned)cfg->role, (unsigned)cfg->n[3], (unsigned)cfg->epoch_size,
                  (unsigned)cfg->rewiring_period);
        return 0;
    }
    for (unsigned l = 0; l < S2_DEEPR_LAYERS; ++l) {
        const s2_deepr_layer_t *c = &cfg->layer[l];
        Block *b = &g_block[l];
        b->rows = (int16_t *)(uintptr_t)c->rows;
        b->cols = (int16_t *)(uintptr_t)c->cols;
        b->theta = fptr(c->theta);
        b->signs = (uint32_t *)(uintptr_t)c->signs;
        b->n_in = c->n_in;
        b->n_out = c->n_out;
        b->capacity = c->capacity;
        b->count = 0;
        b->init_scale = f_of(c->init_scale);
        if ((uint64_t)b->capacity * 2u > (uint64_t)b->n_in * b->n_out) {
            s2_printf("deepr: block %u: %u connections in %u x %u\n", l, (unsigned)b->capacity,
                      (unsigned)b->n_in, (unsigned)b->n_out);
            return 0;
        }
    }
    if (g_accel) {
        s2_rand_seed(cfg->seed[0], cfg->seed[1], cfg->seed[2], cfg->seed[3]);
        s2_exp_set_iterations(cfg->exp_iterations);
    } else {
        g_kiss.x = cfg->seed[0];
        g_kiss.y = cfg->seed[1];
        g_kiss.z = cfg->seed[2];
        g_kiss.c = cfg->seed[3];
    }
    if (g_four) {
        for (unsigned t = 0; t < S2_DEEPR_MSG_TYPES; ++t)
            g_rx[t] = (uint32_t *)(uintptr_t)cfg->rx_vec[t];
        g_rx_alt[S2_DEEPR_MSG_FWD_HALF(0)] = g_block[1].n_in;
        g_rx_alt[S2_DEEPR_MSG_FWD_HALF(1)] = g_block[2].n_in;
        s2_irq_enable(S2_IRQ_COMMS_RX);
        s2_enable_interrupts();
    }
    return 1;
}

int main(void) {
    s2_timer_start(CLOCK_TIMER, 0xFFFFFFFFu, S2_TIMER_DIV1, 1, 0);
    if (!configure()) return 1;
    for (unsigned l = 0; l < S2_DEEPR_LAYERS; ++l) init_block(&g_block[l]);
    const int record = (cfg->flags & S2_DEEPR_FLAG_RECORD) != 0;
    uint32_t correct = 0, max_pending = 0;
    if (g_cell == 0) s2_mark(S2_DEEPR_MARK_TRAIN);
    g_mark = now();
    for (uint32_t k = 0; k < cfg->iterations; ++k) {
        const uint32_t t0 = g_mark;
        if (record && k > 0) flush_record(k - 1);
        set_rates(k);
        const uint32_t label = import(cfg->train_data, (cfg->train_first + k) % cfg->train_count);
        phase_end(PH_IMPORT);
        forward();
        uint32_t pred = 0;
        if (g_diag) {
            pred = argmax_logits();
            softmax_and_delta(label, pred);
            if (g_cell == 0) correct += pred == label;
            if (g_four) send(2u * (1u - g_b) + g_b, S2_DEEPR_MSG_DELTA_OUT,
                             fptr(cfg->layer[2].delta_out), g_block[2].n_out);
        } else {
            wait_for(S2_DEEPR_MSG_DELTA_OUT, g_block[2].n_out);
        }
        phase_end(PH_FORWARD);
        for (int l = S2_DEEPR_LAYERS - 1; l >= 0; --l) backward_layer((unsigned)l);
#ifdef DEEPR_PERTURB_ITERATION /* test build (firmware/tests): the check must notice this */
        if (k == DEEPR_PERTURB_ITERATION) g_block[2].theta[0] += 1e-4f;
#endif
        phase_end(PH_BACKWARD);
        uint32_t changes[S2_DEEPR_LAYERS] = {0, 0, 0};
        if ((k + 1u) % cfg->rewiring_period == 0u) {
            for (unsigned l = 0; l < S2_DEEPR_LAYERS; ++l) {
                changes[l] = rewire_block(&g_block[l]);
                ctr->deleted += changes[l] >> 16;
                ctr->inserted += changes[l] & 0xFFFFu;
                if ((changes[l] >> 16) > max_pending) max_pending = changes[l] >> 16;
            }
            ++ctr->rewiring_steps;
            phase_end(PH_REWIRE);
        }
        g_parity ^= 1u;
        ctr->correct_train = correct;
        ctr->max_pending = max_pending;
        publish_counters(); /* every iteration: an interrupted run still reports its phases */
        ctr->iterations_done = k + 1u;
        if (record) write_record(k, label, pred, changes, g_mark - t0);
    }
    if (record && cfg->iterations) {
        flush_record(cfg->iterations - 1u);
        phase_end(PH_IMPORT);
    }
    ctr->correct_train = correct;
    ctr->max_pending = max_pending;
    uint32_t correct_test = 0;
    if (g_cell == 0) s2_mark(S2_DEEPR_MARK_TEST);
    for (uint32_t k = 0; k < cfg->test_count; ++k) {
        const uint32_t label = import(cfg->test_data, k);
        forward();
        if (g_cell == 0 && argmax_logits() == label) ++correct_test;
        g_parity ^= 1u;
    }
    phase_end(PH_TEST);
    ctr->correct_test = correct_test;
    for (unsigned l = 0; l < S2_DEEPR_LAYERS; ++l) cfg->layer[l].count = g_block[l].count;
    publish_counters();
    ctr->done = 1;
    s2_printf("deepr: cell %u: %u iterations, %u rewiring steps, %u deleted, train correct %u, "
              "test %u/%u\n",
              (unsigned)g_cell, (unsigned)cfg->iterations, (unsigned)ctr->rewiring_steps,
              (unsigned)ctr->deleted, (unsigned)correct, (unsigned)correct_test,
              (unsigned)cfg->test_count);
    return 0;
}
