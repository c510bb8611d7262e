/* DNN worker (seed 000 sec. III-C): sleeps in WFI until the scheduler signals, then runs its share
 * of one layer from the worker configuration the signal points at: DMA the input, per part DMA
 * the weights and biases, compute (MLA for linear and conv2d, the core for pools and add, the
 * core with the EXP unit for softmax), DMA the outputs to DRAM (a conv2d or pool split by output
 * rows: per part its input rows in and its output rows, one block, out), and report through the
 * scheduler's completion array. Keeps one time record per layer and stores them in DRAM when the
 * scheduler sends FINISH. Protocol and layouts: nmsim/hw/spinnaker2/dnn_image.h.
 * Argument 0: the image base (the global configuration's address). */
#include <arm_acle.h>
#include <stddef.h>

#include "dnn_fw.h"
#include "s2_exp.h"
#include "s2_hal.h"
#include "s2_mla.h"
#include "s2_signal.h"

#define MAX_LAYERS 64u

static s2_dnn_global_t g;
static s2_dnn_worker_t cfg;
static s2_dnn_worker_time_t times[MAX_LAYERS];
static uint32_t self, my_index, done_addr; /* done_addr: my completion word (global) */
static uint32_t heap, heap_end, fail_addr;

/* Reports to the scheduler: the word into done[my_index], then a wake-up signal. */
static void answer(uint32_t word) {
    *(volatile uint32_t *)(uintptr_t)done_addr = word;
    s2_signal_send(g.scheduler_pe, S2_DNN_SIG_WAKE);
}

static void fail(uint32_t code, const char *what) {
    s2_printf("dnn_worker pe%u: layer %u: %s (addr 0x%08x)\n", (unsigned)self, (unsigned)cfg.layer,
              what, (unsigned)fail_addr);
    if (done_addr) answer(S2_DNN_SIG_ERROR_BASE + code);
    s2_exit((int)code);
}

/* 16-byte aligned SRAM regions, allocated per layer from the heap. */
static uint32_t alloc(uint32_t bytes) {
    const uint32_t a = heap;
    heap += (bytes + 15u) & ~15u;
    if (heap > heap_end || heap < a) {
        fail_addr = bytes;
        fail(S2_DNN_ERR_SRAM, "regions do not fit the free SRAM");
    }
    return a;
}

static uint32_t dma(uint32_t src, uint32_t dst, uint32_t len) {
    if (len == 0) return 0;
    const uint32_t c = dnn_dma(src, dst, len, &fail_addr);
    if (c == 0xFFFFFFFFu) fail(S2_DNN_ERR_DMA, "DMA failed");
    return c;
}

/* Writes `rows` rows of `len` bytes from SRAM (row stride src_stride) to DRAM (dst_stride). */
static uint32_t store_rows(uint32_t src, uint32_t src_stride, uint32_t dst, uint32_t dst_stride,
                           uint32_t rows, uint32_t len) {
    if (len == 0 || rows == 0) return 0;
    if (len == src_stride && len == dst_stride) return dma(src, dst, rows * len);
    /* Short strided rows (a conv tile's channels of each pixel): a DMA per row would pay the
     * transfer set-up each time; word stores through the NoC are cheaper. */
    if (len <= 16u && ((len | src | dst | src_stride | dst_stride) & 3u) == 0) {
        for (uint32_t r = 0; r < rows; ++r)
            dnn_store_words((const void *)(uintptr_t)(src + r * src_stride), dst + r * dst_stride,
                            len / 4u);
        return 0;
    }
    uint32_t c = 0;
    for (uint32_t r = 0; r < rows; ++r) c += dma(src + r * src_stride, dst + r * dst_stride, len);
    return c;
}

static uint32_t mla_wait(void) {
    const uint32_t t0 = s2_cycles();
    const uint32_t st = s2_mla_wait_wfi();
    if (s2_mla_failed(st)) {
        fail_addr = s2_mla_errcode(st);
        fail(S2_DNN_ERR_MLA, "MLA rejected the operation (addr = error code)");
    }
    return s2_cycles() - t0;
}

static int8_t sat8(int32_t v) { return (int8_t)(v > 127 ? 127 : v < -128 ? -128 : v); }
static int32_t requant(int32_t acc, uint32_t shift) {
    return shift ? (int32_t)(((int64_t)acc + (1 << (shift - 1))) >> shift) : acc;
}

/* linear and conv2d: per part, weights (and biases) by DMA, then one MLA operation. */
static void run_mla(s2_dnn_worker_time_t *t) {
    const int conv = cfg.type == S2_DNN_LAYER_CONV2D;
    const uint32_t rows = cfg.m; /* linear: rows of A; conv2d: output pixels */
    const uint32_t a = alloc(cfg.input_size);
    const uint32_t b = alloc(cfg.k * cfg.part_n);
    const uint32_t bias = (cfg.flags & S2_DNN_FLAG_BIAS) ? alloc(4u * cfg.part_n) : 0u;
    const uint32_t c = alloc(rows * cfg.part_n);
    dma(cfg.input_addr, a, cfg.input_size); /* not `load`: that is the constants' stream */
    uint32_t ctrl = S2_MLA_INT8_SIGNED | S2_MLA_OUT8 | S2_MLA_IRQ_EN;
    if (cfg.flags & S2_DNN_FLAG_RELU) ctrl |= S2_MLA_RELU;
    if (bias) ctrl |= S2_MLA_BIAS;
    if (conv) ctrl |= S2_MLA_CONV;
    for (uint32_t q = 0; q < cfg.parts; ++q) {
        const uint32_t c0 = q * cfg.part_n;
        const uint32_t pn = cfg.n - c0 < cfg.part_n ? cfg.n - c0 : cfg.part_n;
        t->load += dma(cfg.weight_addr + q * cfg.weight_part_stride, b, cfg.k * pn);
        if (bias) t->load += dma(cfg.bias_addr + q * cfg.bias_part_stride, bias, 4u * pn);
        if (conv) {
            const s2_mla_conv_t op = {a,         b,         c,         bias,      cfg.in_h,
                                      cfg.in_w,  cfg.in_c,  cfg.ker_h, cfg.ker_w, pn,
                                      cfg.stride, cfg.pad,  cfg.shift};
            s2_mla_conv(&op);
        } else {
            const s2_mla_matmul_t op = {a, b, c, bias, rows, cfg.k, pn, cfg.shift};
            s2_mla_matmul(&op);
        }
        s2_mla_start(ctrl);
        t->compute += mla_wait();
        const uint32_t valid = c0 >= cfg.n_valid ? 0u
                               : cfg.n_valid - c0 < pn ? cfg.n_valid - c0
                                                       : pn;
        store_rows(c, pn, cfg.output_addr + c0, cfg.output_row_stride, rows, valid);
    }
}

/* A row split's parts step by part_rows: 0 (a corrupt image; the compiler never writes it) would
 * never end. */
static void check_part_rows(void) {
    if (cfg.part_rows == 0) {
        fail_addr = cfg.row0;
        fail(S2_DNN_ERR_LAYER, "row split with 0 rows per part (addr = first row)");
    }
}

/* conv2d split by output rows (S2_DNN_FLAG_ROWS): the whole kernel once, then per part the input
 * rows it needs, one MLA operation, and its output rows (contiguous in the HWC map) in one DMA. */
static void run_conv_rows(s2_dnn_worker_time_t *t) {
    check_part_rows();
    const uint32_t n = cfg.n, in_row = cfg.in_w * cfg.in_c, out_row = cfg.out_w * n;
    const uint32_t a = alloc(cfg.input_size);
    const uint32_t b = alloc(cfg.k * n);
    const uint32_t bias = (cfg.flags & S2_DNN_FLAG_BIAS) ? alloc(4u * n) : 0u;
    const uint32_t c = alloc(cfg.out_rows_max * out_row);
    t->load += dma(cfg.weight_addr, b, cfg.k * n);
    if (bias) t->load += dma(cfg.bias_addr, bias, 4u * n);
    uint32_t ctrl = S2_MLA_INT8_SIGNED | S2_MLA_OUT8 | S2_MLA_IRQ_EN | S2_MLA_CONV;
    if (cfg.flags & S2_DNN_FLAG_RELU) ctrl |= S2_MLA_RELU;
    if (bias) ctrl |= S2_MLA_BIAS;
    const uint32_t end = cfg.row0 + cfg.rows;
    for (uint32_t y0 = cfg.row0; y0 < end; y0 += cfg.part_rows) {
        const uint32_t y1 = end - y0 < cfg.part_rows ? end : y0 + cfg.part_rows;
        uint32_t r0 = 0, h = 0, skip = 0, out_rows = 0;
        if (!s2_dnn_conv_rows(y0, y1, cfg.in_h, cfg.ker_h, cfg.stride, cfg.pad, &r0, &h, &skip,
                              &out_rows) ||
            h * in_row > cfg.input_size || out_rows > cfg.out_rows_max ||
            skip + (y1 - y0) > out_rows) {
            fail_addr = y0;
            fail(S2_DNN_ERR_LAYER, "row part does not fit its regions (addr = first row)");
        }
        dma(cfg.input_addr + r0 * in_row, a, h * in_row);
        const s2_mla_conv_t op = {a,         b,         c, bias,       h,       cfg.in_w, cfg.in_c,
                                  cfg.ker_h, cfg.ker_w, n, cfg.stride, cfg.pad, cfg.shift};
        s2_mla_conv(&op);
        s2_mla_start(ctrl);
        t->compute += mla_wait();
        dma(c + skip * out_row, cfg.output_addr + y0 * out_row, (y1 - y0) * out_row);
    }
}

/* The window loop of maxpool/avgpool: output rows [y0, y1) of nc channels into y (pixel stride nc),
 * from input rows [r0, r0 + h) at x (pixel stride px, this worker's first channel first). Each
 * window is clamped to the rows present and the map's columns (padding taps are skipped: the
 * maximum starts at -128, the sum at 0); its taps are a list of offsets from the window's first
 * element, rebuilt only when the clamped shape changes (at the map's borders). maxpool takes four
 * channels per word: SSUB8 sets the GE flag of each byte lane where the new value is >= the
 * maximum, SEL takes those lanes from it. avgpool sums the window and requantises it by the
 * layer's shift. `off` has room for ker_h * ker_w offsets. */
static void pool_window(const int8_t *x, uint32_t r0, uint32_t h, uint32_t px, int8_t *y,
                        uint32_t y0, uint32_t y1, uint32_t nc, int avg, uint32_t *off) {
    const int32_t in_w = (int32_t)cfg.in_w, kh = (int32_t)cfg.ker_h, kw = (int32_t)cfg.ker_w;
    const int32_t stride = (int32_t)cfg.stride, pad = (int32_t)cfg.pad;
    const int32_t top = (int32_t)r0, bottom = (int32_t)(r0 + h);
    const uint32_t out_w = cfg.out_w, shift = cfg.shift, row = cfg.in_w * px;
    const uint32_t word_end = avg ? 0u : nc & ~3u;
    uint32_t shape = 0xFFFFFFFFu, taps = 0;
    for (uint32_t oy = y0; oy < y1; ++oy) {
        const int32_t iy = (int32_t)oy * stride - pad;
        const int32_t ylo = iy > top ? iy : top, yhi = iy + kh < bottom ? iy + kh : bottom;
        const uint32_t ny = yhi > ylo ? (uint32_t)(yhi - ylo) : 0u;
        int8_t *out = y + (oy - y0) * out_w * nc;
        for (uint32_t ox = 0; ox < out_w; ++ox, out += nc) {
            const int32_t ix = (int32_t)ox * stride - pad;
            const int32_t xlo = ix > 0 ? ix : 0, xhi = ix + kw < in_w ? ix + kw : in_w;
            const uint32_t nx = ny && xhi > xlo ? (uint32_t)(xhi - xlo) : 0u;
            if ((ny << 16 | nx) != shape) {
                shape = ny << 16 | nx;
                taps = 0;
                for (uint32_t a = 0; a < ny; ++a)
                    for (uint32_t b = 0; b < nx; ++b) off[taps++] = a * row + b * px;
            }
            const int8_t *win = x + (uint32_t)(ylo - top) * row + (uint32_t)xlo * px;
            uint32_t j = 0;
            for (; j < word_end; j += 4u) {
                uint32_t m = 0x80808080u;
                const int8_t *p = win + j;
#pragma GCC unroll 4
                for (uint32_t t = 0; t < taps; ++t) {
                    uint32_t v;
                    __builtin_memcpy(&v, p + off[t], 4u);
                    (void)__ssub8((int8x4_t)v, (int8x4_t)m);
                    m = (uint32_t)__sel((uint8x4_t)v, (uint8x4_t)m);
                }
                __builtin_memcpy(out + j, &m, 4u);
            }
            for (; j < nc; ++j) {
                const int8_t *p = win + j;
                int32_t acc = 0;
                if (avg) {
                    for (uint32_t t = 0; t < taps; ++t) acc += p[off[t]];
                    out[j] = sat8(requant(acc, shift));
                } else {
                    acc = -128;
                    for (uint32_t t = 0; t < taps; ++t)
                        if (p[off[t]] > acc) acc = p[off[t]];
                    out[j] = (int8_t)acc;
                }
            }
        }
    }
}

/* maxpool/avgpool over channels n0.. of an HWC map: the strided input region in one DMA, the
 * window loop, pixel rows out. */
static void run_pool(s2_dnn_worker_time_t *t) {
    const uint32_t nc = cfg.n_valid;
    if (nc == 0) return;
    const uint32_t in = alloc(cfg.input_size);
    const uint32_t pixels = cfg.out_h * cfg.out_w;
    const uint32_t out = alloc(pixels * nc);
    uint32_t *off = (uint32_t *)(uintptr_t)alloc(s2_dnn_pool_table_bytes(cfg.ker_h, cfg.ker_w));
    t->load += dma(cfg.input_addr, in, cfg.input_size);
    const uint32_t t0 = s2_cycles();
    pool_window((const int8_t *)(uintptr_t)in, 0u, cfg.in_h, cfg.in_c, (int8_t *)(uintptr_t)out, 0u,
                cfg.out_h, nc, cfg.type == S2_DNN_LAYER_AVGPOOL, off);
    t->compute += s2_cycles() - t0;
    store_rows(out, nc, cfg.output_addr, cfg.output_row_stride, pixels, nc);
}

/* maxpool/avgpool split by output rows (S2_DNN_FLAG_ROWS): per part the input rows its windows
 * read (all channels, s2_dnn_pool_rows) in one DMA, the window loop, and its output rows,
 * contiguous in the HWC map, in one DMA. */
static void run_pool_rows(s2_dnn_worker_time_t *t) {
    check_part_rows();
    const uint32_t c = cfg.in_c, in_row = cfg.in_w * c, out_row = cfg.out_w * c;
    const uint32_t a = alloc(cfg.input_size), o = alloc(cfg.part_rows * out_row);
    uint32_t *off = (uint32_t *)(uintptr_t)alloc(s2_dnn_pool_table_bytes(cfg.ker_h, cfg.ker_w));
    const int avg = cfg.type == S2_DNN_LAYER_AVGPOOL;
    const uint32_t end = cfg.row0 + cfg.rows;
    for (uint32_t y0 = cfg.row0; y0 < end; y0 += cfg.part_rows) {
        const uint32_t y1 = end - y0 < cfg.part_rows ? end : y0 + cfg.part_rows;
        uint32_t r0 = 0, h = 0;
        if (!s2_dnn_pool_rows(y0, y1, cfg.in_h, cfg.ker_h, cfg.stride, cfg.pad, &r0, &h) ||
            h * in_row > cfg.input_size) {
            fail_addr = y0;
            fail(S2_DNN_ERR_LAYER, "row part does not fit its regions (addr = first row)");
        }
        t->load += dma(cfg.input_addr + r0 * in_row, a, h * in_row);
        const uint32_t t0 = s2_cycles();
        pool_window((const int8_t *)(uintptr_t)a, r0, h, c, (int8_t *)(uintptr_t)o, y0, y1, c, avg,
                    off);
        t->compute += s2_cycles() - t0;
        dma(o, cfg.output_addr + y0 * out_row, (y1 - y0) * out_row);
    }
}

/* add: elements n0..n0+n_valid of two tensors with the same exponent. */
static void run_add(s2_dnn_worker_time_t *t) {
    const uint32_t n = cfg.n_valid;
    if (n == 0) return;
    const uint32_t a = alloc(n), b = alloc(n), out = alloc(n);
    t->load += dma(cfg.input_addr, a, n);
    t->load += dma(cfg.input2_addr, b, n);
    const uint32_t t0 = s2_cycles();
    const int8_t *x = (const int8_t *)(uintptr_t)a, *z = (const int8_t *)(uintptr_t)b;
    int8_t *y = (int8_t *)(uintptr_t)out;
    for (uint32_t i = 0; i < n; ++i) y[i] = sat8(requant((int32_t)x[i] + z[i], cfg.shift));
    t->compute += s2_cycles() - t0;
    dma(out, cfg.output_addr, n);
}

/* softmax over n_valid rows of k elements (semantics in dnn_image.h), exponentials on the EXP
 * unit overlapped with the bookkeeping of the previous element. */
static void run_softmax(s2_dnn_worker_time_t *t) {
    const uint32_t rows = cfg.n_valid, k = cfg.k;
    const int32_t kx = (int32_t)cfg.in_exponent, ky = (int32_t)cfg.out_exponent;
    if (rows == 0) return;
    if (k == 0 || k > 65535u || kx < 0 || kx > S2_DNN_SOFTMAX_MAX_IN_EXPONENT || ky < 0 ||
        ky > S2_DNN_SOFTMAX_MAX_OUT_EXPONENT) {
        fail_addr = (uint32_t)kx;
        fail(S2_DNN_ERR_LAYER, "softmax parameters out of range");
    }
    const uint32_t in = alloc(rows * k), out = alloc(rows * k), e = alloc(4u * k);
    t->load += dma(cfg.input_addr, in, rows * k);
    const uint32_t t0 = s2_cycles();
    s2_exp_set_iterations(S2_DNN_SOFTMAX_EXP_ITERATIONS);
    uint32_t *ev = (uint32_t *)(uintptr_t)e;
    for (uint32_t r = 0; r < rows; ++r) {
        const int8_t *x = (const int8_t *)(uintptr_t)(in + r * k);
        int8_t *y = (int8_t *)(uintptr_t)(out + r * k);
        int32_t mx = x[0];
        for (uint32_t i = 1; i < k; ++i)
            if (x[i] > mx) mx = x[i];
        const uint32_t up = 15u - (uint32_t)kx;
        uint32_t sum = 0;
        s2_exp_start((int32_t)((uint32_t)(x[0] - mx) << up));
        for (uint32_t i = 0; i < k; ++i) {
            const uint32_t v = (uint32_t)s2_exp_result();
            if (i + 1 < k) s2_exp_start((int32_t)((uint32_t)(x[i + 1] - mx) << up));
            ev[i] = v;
            sum += v;
        }
        for (uint32_t i = 0; i < k; ++i) {
            const uint32_t q = ((ev[i] << ky) + sum / 2u) / sum;
            y[i] = (int8_t)(q > 127u ? 127u : q);
        }
    }
    t->compute += s2_cycles() - t0;
    dma(out, cfg.output_addr, rows * k);
}

static void run_layer(uint32_t cfg_addr) {
    const uint32_t start = s2_cycles();
    /* The fields up to `layer`, the row-split fields only when the layer uses them (every word is
     * a core load through the NoC); the reserved tail is not read. */
    dnn_load_words(cfg_addr, &cfg, (uint32_t)(offsetof(s2_dnn_worker_t, row0) / 4u));
    if (cfg.flags & S2_DNN_FLAG_ROWS)
        dnn_load_words(
            cfg_addr + (uint32_t)offsetof(s2_dnn_worker_t, row0), &cfg.row0,
            (uint32_t)((offsetof(s2_dnn_worker_t, reserved) - offsetof(s2_dnn_worker_t, row0)) /
                       4u));
    if (cfg.layer >= MAX_LAYERS || cfg.layer >= g.num_layers || cfg.pe != self) {
        fail_addr = cfg_addr;
        fail(S2_DNN_ERR_IMAGE, "worker configuration does not belong to this PE");
    }
    s2_dnn_worker_time_t *t = &times[cfg.layer];
    t->load = t->compute = 0;
    heap = dnn_heap_base();
    switch (cfg.type) {
        case S2_DNN_LAYER_LINEAR:
        case S2_DNN_LAYER_CONV2D:
            if (cfg.flags & S2_DNN_FLAG_ROWS)
                run_conv_rows(t);
            else
                run_mla(t);
            break;
        case S2_DNN_LAYER_MAXPOOL:
        case S2_DNN_LAYER_AVGPOOL:
            if (cfg.flags & S2_DNN_FLAG_ROWS)
                run_pool_rows(t);
            else
                run_pool(t);
            break;
        case S2_DNN_LAYER_ADD:
            run_add(t);
            break;
        case S2_DNN_LAYER_SOFTMAX:
            run_softmax(t);
            break;
        default:
            fail_addr = cfg.type;
            fail(S2_DNN_ERR_LAYER, "unknown layer type (addr = type)");
    }
    t->start = start;
    t->end = s2_cycles();
    answer(S2_DNN_SIG_DONE_BASE + cfg.layer);
}

/* SETUP: the global configuration and this PE's place in the worker list. */
static void setup(uint32_t done_offset) {
    const uint32_t base = s2_arg(0);
    dnn_load_words(base, &g, sizeof g / 4u);
    if (g.magic != S2_DNN_IMAGE_MAGIC || g.version != S2_DNN_IMAGE_VERSION ||
        g.num_layers > MAX_LAYERS) {
        fail_addr = base;
        fail(S2_DNN_ERR_IMAGE, "bad image header or too many layers");
    }
    heap = dnn_heap_base();
    const uint32_t list = alloc(4u * g.num_workers);
    dma(g.worker_pes, list, 4u * g.num_workers);
    const uint32_t *pes = (const uint32_t *)(uintptr_t)list;
    my_index = g.num_workers;
    for (uint32_t i = 0; i < g.num_workers; ++i)
        if (pes[i] == self) my_index = i;
    if (my_index == g.num_workers) {
        fail_addr = self;
        fail(S2_DNN_ERR_IMAGE, "this PE is not in the worker list");
    }
    done_addr = dnn_pe_addr(g.scheduler_pe, done_offset + 4u * my_index);
    for (uint32_t l = 0; l < g.num_layers; ++l)
        times[l].start = times[l].end = times[l].load = times[l].compute = 0;
}

int main(void) {
    s2_cycles_start();
    self = s2_signal_self();
    heap_end = dnn_heap_base() + dnn_heap_size();
    dnn_signals_init();
    for (;;) {
        const uint32_t w = dnn_next_signal(0);
        if (w >= S2_DNN_SIG_ADDR_MIN) {
            if (!done_addr) {
                fail_addr = w;
                fail(S2_DNN_ERR_PROTOCOL, "layer before SETUP");
            }
            run_layer(w);
        } else if ((w & 0xFFF00000u) == S2_DNN_SIG_SETUP_BASE) {
            setup(w & 0x000FFFFFu);
        } else if (w == S2_DNN_SIG_FINISH) {
            dnn_store_words(times, s2_dnn_time_worker(g.time_addr, g.num_layers, my_index, 0),
                            (uint32_t)sizeof(s2_dnn_worker_time_t) / 4u * g.num_layers);
            answer(S2_DNN_SIG_FINISHED);
        } else if (w == S2_DNN_SIG_EXIT) {
            return 0;
        } else {
            fail_addr = w;
            fail(S2_DNN_ERR_PROTOCOL, "unexpected signal word (addr = word)");
        }
    }
}
