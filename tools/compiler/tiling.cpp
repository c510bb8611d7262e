#include "tools/compiler/tiling.h"

#include "nmsim/hw/spinnaker2/dnn_image.h"

#include <algorithm>
#include <iomanip>
#include <limits>
#include <optional>
#include <ostream>
#include <sstream>
#include <stdexcept>

namespace nmsim::compiler {
namespace {

// Sizes reaching these are bounded by the graph's limits (graph.h: dimensions and element counts
// below 2^31) and the target's 32-bit fields, so sums and products of two stay far below 2^64;
// the MLA cycle count, a product of three, saturates.
uint64_t ceil_div(uint64_t a, uint64_t b) { return a / b + (a % b != 0); }
uint64_t round_up(uint64_t a, uint64_t b) { return ceil_div(a, b) * b; }
uint64_t sat_mul(uint64_t a, uint64_t b) {
    uint64_t r = 0;
    return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}
uint64_t sat_add(uint64_t a, uint64_t b) {
    uint64_t r = 0;
    return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}

// The work of one layer as "units" split over workers: for linear/conv2d the units are output
// columns/channels and each carries K weights, a bias and M outputs; for weightless layers each
// unit carries a share of the inputs and outputs.
struct Work {
    bool weighted = false;
    uint64_t units = 0;              // N
    uint64_t m = 1, k = 0;           // GEMM view (weighted)
    uint64_t in_bytes = 0;           // weighted: whole input, resident in every part
    std::vector<uint64_t> in_elems;  // weightless: per input, split with the units
    uint64_t out_per_unit = 0;       // int8 outputs per unit
    std::string desc;                // "linear 784x512"
};

Work describe(const Layer& l) {
    Work w;
    const uint64_t out = static_cast<uint64_t>(shape_elements(l.out_shape));
    std::ostringstream d;
    d << to_string(l.kind);
    if (l.kind == LayerKind::linear || l.kind == LayerKind::conv2d) {
        if (!l.weights)
            throw CompileError("layer '" + l.name + "' (" + to_string(l.kind) + "): no weights");
        const Shape& ws = l.weights->shape;
        w.weighted = true;
        w.units = static_cast<uint64_t>(ws.at(0));
        w.k = static_cast<uint64_t>(shape_elements(ws)) / w.units;
        w.m = out / w.units;
        w.out_per_unit = w.m;
        for (const Shape& s : l.in_shapes) w.in_bytes += static_cast<uint64_t>(shape_elements(s));
        if (l.kind == LayerKind::linear)
            d << " " << w.k << "x" << w.units;
        else
            d << " " << ws.at(0) << "x" << ws.at(1) << "x" << ws.at(2) << "x" << ws.at(3) << " -> "
              << shape_str(l.out_shape);
    } else {
        // Split so that each unit's inputs are independent: softmax rows, pool channels,
        // elements otherwise.
        if (l.kind == LayerKind::softmax && !l.out_shape.empty())
            w.units = out / static_cast<uint64_t>(l.out_shape.back());
        else if ((l.kind == LayerKind::maxpool || l.kind == LayerKind::avgpool) &&
                 l.out_shape.size() == 4)
            w.units = static_cast<uint64_t>(l.out_shape[0] * l.out_shape[1]);
        else
            w.units = out;
        w.units = std::max<uint64_t>(w.units, 1);
        w.out_per_unit = ceil_div(out, w.units);
        for (const Shape& s : l.in_shapes)
            w.in_elems.push_back(static_cast<uint64_t>(shape_elements(s)));
        d << " " << shape_str(l.out_shape);
    }
    w.desc = d.str();
    return w;
}

struct PartBytes {
    uint64_t weights = 0, bias = 0, input = 0, output = 0;
    uint64_t table = 0;  // pools: the tap offsets of worker.c's pool_window
    uint64_t total() const { return weights + bias + input + output + table; }
};

bool is_pool(const Layer& l) {
    return l.kind == LayerKind::maxpool || l.kind == LayerKind::avgpool;
}

uint64_t pool_table_bytes(const Layer& l) {
    if (!is_pool(l)) return 0;
    return s2_dnn_pool_table_bytes(static_cast<uint32_t>(l.window.kernel_h),
                                   static_cast<uint32_t>(l.window.kernel_w));
}

PartBytes part_bytes(const Work& w, uint64_t n, const Layer& l, uint32_t align) {
    PartBytes b;
    if (w.weighted) {
        b.weights = round_up(w.k * n, align);
        if (l.bias) b.bias = round_up(4 * n, align);
        b.input = round_up(w.in_bytes, align);
    } else if (is_pool(l) && l.in_shapes.at(0).size() == 4) {
        b.input = round_up(pool_region_bytes(l, n), align);
        b.table = pool_table_bytes(l);
    } else {
        for (uint64_t e : w.in_elems) b.input += round_up(ceil_div(e * n, w.units), align);
    }
    b.output = round_up(w.out_per_unit * n, align);
    return b;
}

// A conv2d or pool split by output rows (dnn_image.h, S2_DNN_FLAG_ROWS): the map and window
// sizes.
struct MapRows {
    bool ok = false;  // conv2d or pool with one stride and one symmetric padding (the image's)
    bool pool = false;
    uint64_t in_h = 0, in_row = 0, out_h = 0, out_row = 0, out_w = 0, n = 0, k = 0;
    uint32_t ker_h = 0, stride = 0, pad = 0;
};

MapRows map_rows(const Layer& l) {
    MapRows c;
    const Window& win = l.window;
    const bool pool = is_pool(l);
    if ((l.kind != LayerKind::conv2d || !l.weights) && !pool) return c;
    if (l.in_shapes.size() != 1 || l.in_shapes[0].size() != 4 || l.out_shape.size() != 4 ||
        win.stride_h != win.stride_w || win.pad_top != win.pad_left ||
        win.pad_top != win.pad_bottom || win.pad_top != win.pad_right || win.stride_h <= 0 ||
        win.pad_top < 0 || (pool && l.in_shapes[0][1] != l.out_shape[1]))
        return c;
    const Shape& is = l.in_shapes[0];
    c.ok = true;
    c.pool = pool;
    c.in_h = static_cast<uint64_t>(is[2]);
    c.in_row = static_cast<uint64_t>(is[3] * is[1]);
    c.n = static_cast<uint64_t>(l.out_shape[1]);
    c.out_h = static_cast<uint64_t>(l.out_shape[2]);
    c.out_w = static_cast<uint64_t>(l.out_shape[3]);
    c.out_row = c.out_w * c.n;
    c.k = pool ? 0 : static_cast<uint64_t>(shape_elements(l.weights->shape)) / c.n;
    c.ker_h = static_cast<uint32_t>(win.kernel_h);
    c.stride = static_cast<uint32_t>(win.stride_h);
    c.pad = static_cast<uint32_t>(win.pad_top);
    return c;
}

RowPart row_part(const MapRows& c, uint64_t y0, uint64_t y1) {
    RowPart p;
    const auto u0 = static_cast<uint32_t>(y0), u1 = static_cast<uint32_t>(y1);
    const auto in_h = static_cast<uint32_t>(c.in_h);
    if (c.pool) {
        p.ok = s2_dnn_pool_rows(u0, u1, in_h, c.ker_h, c.stride, c.pad, &p.r0, &p.h) != 0;
        p.out_rows = u1 - u0;
        return p;
    }
    p.ok = s2_dnn_conv_rows(u0, u1, in_h, c.ker_h, c.stride, c.pad, &p.r0, &p.h, &p.skip,
                            &p.out_rows) != 0 &&
           p.skip + (y1 - y0) <= p.out_rows;
    return p;
}

// The core cycles of worker.c's pool_window for `rows` output rows of out_w pixels and nc
// channels: maxpool takes four channels per word, the rest (avgpool: all) one by one.
double pool_cycles(const TilingTarget& x, const Layer& l, uint64_t rows, uint64_t out_w,
                   uint64_t nc) {
    const auto taps = static_cast<double>(int64_t{l.window.kernel_h} * l.window.kernel_w);
    const uint64_t words = l.kind == LayerKind::maxpool ? nc / 4 : 0;
    const double single = static_cast<double>(nc - 4 * words);
    const double pixel =
        x.pool_cycles_per_pixel +
        static_cast<double>(words) * (x.pool_cycles_per_word + taps * x.pool_cycles_per_word_tap) +
        single * (x.pool_cycles_per_channel + taps * x.pool_cycles_per_tap);
    return static_cast<double>(rows) * static_cast<double>(out_w) * pixel;
}

}  // namespace

RowPart row_part(const Layer& l, uint64_t y0, uint64_t y1) {
    const MapRows c = map_rows(l);
    return c.ok ? row_part(c, y0, y1) : RowPart{};
}

uint64_t pool_region_bytes(const Layer& l, uint64_t channels) {
    if (channels == 0) return 0;
    const Shape& is = l.in_shapes.at(0);
    const auto pixels = static_cast<uint64_t>(is.at(2) * is.at(3));
    return (pixels - 1) * static_cast<uint64_t>(is.at(1)) + channels;
}

uint64_t mla_gemm_cycles(uint64_t m, uint64_t k, uint64_t n, const TilingTarget& t) {
    const uint64_t r = t.mla_rows, c = t.mla_cols, f = t.mla_fetch_bytes_per_cycle,
                   wb = t.mla_writeback_bytes_per_cycle;
    if (r == 0 || c == 0 || f == 0 || wb == 0)
        throw std::invalid_argument("mla_gemm_cycles: MLA shape and rates must be > 0");
    // One ru x cu output tile: int8 A and B per K step, the bias, the int8 write-back.
    const auto tile = [&](uint64_t ru, uint64_t cu) {
        return sat_add(sat_add(std::max(k, ceil_div(sat_mul(k, ru + cu), f)), ceil_div(cu * 4, f)),
                       ceil_div(ru * cu, wb));
    };
    // The tiles in closed form: full r x c tiles, a partial row of tiles, a partial column, the
    // corner (the same sum as iterating over every tile, without the iterations).
    const uint64_t fr = m / r, rr = m % r, fc = n / c, rc = n % c;
    uint64_t cycles = t.mla_startup_cycles;
    cycles = sat_add(cycles, sat_mul(sat_mul(fr, fc), tile(r, c)));
    if (rr) cycles = sat_add(cycles, sat_mul(fc, tile(rr, c)));
    if (rc) cycles = sat_add(cycles, sat_mul(fr, tile(r, rc)));
    if (rr && rc) cycles = sat_add(cycles, tile(rr, rc));
    return cycles;
}

namespace {

// One candidate: equal tiles over `workers`, the fewest parts whose largest part fits. parts == 0
// when no part fits or a worker would hold padding only.
struct Candidate {
    uint64_t tile = 0, part_n = 0, parts = 0;
    PartBytes bytes;
};

Candidate shape_for(const Work& w, const Layer& layer, const TilingTarget& t, uint32_t workers,
                    uint64_t& min_bytes, uint64_t& min_part_n, PartBytes& min_pb) {
    Candidate c;
    const uint64_t n = w.units;
    // Equal tiles; MLA-width multiples for weighted layers unless that leaves a worker idle.
    uint64_t tile = ceil_div(n, workers);
    if (w.weighted && (workers - 1) * round_up(tile, t.mla_cols) < n)
        tile = round_up(tile, t.mla_cols);
    if ((workers - 1) * tile >= n) return c;  // some worker would get padding only
    c.tile = tile;
    for (uint64_t p = 1; p <= t.max_parts && p <= tile; ++p) {
        uint64_t pn = ceil_div(tile, p);
        if (w.weighted && pn > t.mla_cols) pn = std::min(tile, round_up(pn, t.mla_cols));
        const PartBytes b = part_bytes(w, pn, layer, t.align);
        if (b.total() < min_bytes) {
            min_bytes = b.total();
            min_part_n = pn;
            min_pb = b;
        }
        if (b.total() <= t.sram_budget_bytes) {
            c.part_n = pn;
            c.parts = ceil_div(tile, pn);
            c.bytes = b;
            break;
        }
    }
    return c;
}

void check_target(const Layer& layer, const TilingTarget& t) {
    if (t.max_workers == 0 || t.max_parts == 0 || t.mla_cols == 0 || t.mla_rows == 0 ||
        t.align == 0 || t.mla_fetch_bytes_per_cycle == 0 || t.mla_writeback_bytes_per_cycle == 0 ||
        t.dma_burst_bytes == 0 || !(t.clock_hz > 0) || !(t.dram_bytes_per_s > 0))
        throw CompileError("layer '" + layer.name +
                           "': tiling target needs max_workers, max_parts, MLA shape and rates, "
                           "align, DMA burst, clock and DRAM rate > 0");
    if (const std::string why = layer_problem(layer); !why.empty())
        throw CompileError("layer '" + layer.name + "' (" + to_string(layer.kind) + "): " + why);
}

LayerTiling make_tiling(const Layer& layer, const Work& w, const TilingTarget& t, uint32_t workers,
                        const Candidate& c) {
    LayerTiling r;
    r.layer = layer.name;
    r.workers = workers;
    r.outputs = w.units;
    r.tile_n = static_cast<uint32_t>(c.tile);
    r.parts = static_cast<uint32_t>(c.parts);
    r.part_n = static_cast<uint32_t>(c.part_n);
    r.padded_outputs = workers * c.tile - w.units;
    r.bytes_per_worker = c.bytes.total();
    if (w.weighted) {
        for (uint64_t done = 0; done < c.tile; done += c.part_n)
            r.mla_cycles = sat_add(r.mla_cycles,
                                   mla_gemm_cycles(w.m, w.k, std::min(c.part_n, c.tile - done), t));
        const uint64_t padded = workers * c.tile;
        r.dram_bytes = sat_add(sat_add(sat_mul(workers, w.in_bytes), sat_mul(padded, w.k)),
                               sat_add(layer.bias ? 4 * padded : 0, w.m * w.units));
    } else {
        for (uint64_t e : w.in_elems) r.dram_bytes += e;
        r.dram_bytes += w.out_per_unit * w.units;
    }
    r.cost = estimate(layer, r, t);
    r.est_cost = r.cost.total();
    return r;
}

// Split by output rows: equal row tiles, the fewest parts whose largest part fits (the SRAM of
// the largest input slice and MLA output over every worker's parts). parts == 0 if none fits.
struct RowCandidate {
    uint64_t tile = 0, part = 0, parts = 0, in_max = 0, out_rows_max = 0;
    PartBytes bytes;
};

RowCandidate rows_for(const MapRows& c, const Layer& l, const TilingTarget& t, uint32_t workers) {
    RowCandidate rc;
    const uint64_t tile = ceil_div(c.out_h, workers);
    if ((workers - 1) * tile >= c.out_h) return rc;
    for (uint64_t p = 1; p <= t.max_parts && p <= tile; ++p) {
        const uint64_t part = ceil_div(tile, p);
        uint64_t in_max = 0, out_max = 0;
        bool ok = true;
        for (uint64_t i = 0; i < workers && ok; ++i) {
            const uint64_t end = std::min(c.out_h, (i + 1) * tile);
            for (uint64_t y0 = i * tile; y0 < end && ok; y0 += part) {
                const RowPart rp = row_part(c, y0, std::min(end, y0 + part));
                ok = rp.ok;
                in_max = std::max<uint64_t>(in_max, rp.h * c.in_row);
                out_max = std::max<uint64_t>(out_max, rp.out_rows);
            }
        }
        if (!ok) continue;
        PartBytes b;
        b.weights = round_up(c.k * c.n, t.align);
        if (l.bias) b.bias = round_up(4 * c.n, t.align);
        b.input = round_up(in_max, t.align);
        b.output = round_up(out_max * c.out_row, t.align);
        b.table = pool_table_bytes(l);
        if (b.total() <= t.sram_budget_bytes) {
            rc.tile = tile;
            rc.part = part;
            rc.parts = ceil_div(tile, part);
            rc.in_max = in_max;
            rc.out_rows_max = out_max;
            rc.bytes = b;
            break;
        }
    }
    return rc;
}

LayerTiling make_row_tiling(const Layer& layer, const MapRows& c, const TilingTarget& t,
                            uint32_t workers, const RowCandidate& rc) {
    LayerTiling r;
    r.layer = layer.name;
    r.split_rows = true;
    r.workers = workers;
    r.outputs = c.out_h;
    r.tile_n = static_cast<uint32_t>(rc.tile);
    r.parts = static_cast<uint32_t>(rc.parts);
    r.part_n = static_cast<uint32_t>(rc.part);
    r.bytes_per_worker = rc.bytes.total();
    r.dram_bytes = workers * (c.k * c.n + (layer.bias ? 4 * c.n : 0)) + c.out_h * c.out_row;
    for (uint64_t i = 0; i < workers; ++i) {
        const uint64_t end = std::min(c.out_h, (i + 1) * rc.tile);
        for (uint64_t y0 = i * rc.tile; y0 < end; y0 += rc.part) {
            const RowPart rp = row_part(c, y0, std::min(end, y0 + rc.part));
            r.dram_bytes += rp.h * c.in_row;
            if (i == 0 && !c.pool)
                r.mla_cycles =
                    sat_add(r.mla_cycles, mla_gemm_cycles(rp.out_rows * c.out_w, c.k, c.n, t));
        }
    }
    r.cost = estimate(layer, r, t);
    r.est_cost = r.cost.total();
    return r;
}

[[noreturn]] void unmappable(const Layer& layer, const Work& w, const TilingTarget& t,
                             uint64_t min_bytes, uint64_t min_part_n, const PartBytes& min_pb) {
    std::ostringstream m;
    m << "layer '" << layer.name << "' (" << w.desc << "): a " << min_part_n
      << "-output part needs " << min_bytes << " B of SRAM (weights " << min_pb.weights
      << " + bias " << min_pb.bias << " + input " << min_pb.input << " + output " << min_pb.output
      << (min_pb.table ? " + tap offsets " + std::to_string(min_pb.table) : "") << "), budget "
      << t.sram_budget_bytes << " B (max " << t.max_workers << " workers, " << t.max_parts
      << " parts)";
    throw CompileError(m.str());
}

// The cheaper of the two splits of a conv2d or pool (output channels, output rows) for
// `workers`, or the channel split of any other layer; nothing if no split can use that many
// workers.
std::optional<LayerTiling> best_of_modes(const Layer& layer, const Work& w, const MapRows& cr,
                                         const TilingTarget& t, uint32_t workers,
                                         uint64_t& min_bytes, uint64_t& min_part_n,
                                         PartBytes& min_pb) {
    std::optional<LayerTiling> best;
    if (workers <= w.units) {
        const Candidate c = shape_for(w, layer, t, workers, min_bytes, min_part_n, min_pb);
        if (c.parts != 0) best = make_tiling(layer, w, t, workers, c);
    }
    if (cr.ok && workers <= cr.out_h) {
        const RowCandidate rc = rows_for(cr, layer, t, workers);
        if (rc.parts != 0) {
            LayerTiling r = make_row_tiling(layer, cr, t, workers, rc);
            if (!best || r.est_cost < best->est_cost) best = std::move(r);
        }
    }
    return best;
}

}  // namespace

LayerCost estimate(const Layer& l, const LayerTiling& t, const TilingTarget& x) {
    LayerCost cost;
    if (t.workers == 0 || l.kind == LayerKind::flatten) return cost;  // no list entry
    const Work w = describe(l);
    const double cyc = 1.0 / x.clock_hz;
    const uint64_t workers = t.workers, n = w.units;
    // One DMA transfer of b bytes while all the layer's workers stream from the one DRAM: the
    // set-up, then the bursts at the lone-transfer rate or the worker's share of the DRAM.
    const auto dma = [&](uint64_t b) {
        if (b == 0) return 0.0;
        const double burst = x.dma_burst_s + (workers > 1 ? x.dram_conflict_s : 0.0);
        const double alone = static_cast<double>(ceil_div(b, x.dma_burst_bytes)) * burst;
        const double shared = static_cast<double>(b) * workers / x.dram_bytes_per_s;
        return x.dma_setup_cycles * cyc + std::max(alone, shared);
    };
    // store_rows() of worker.c: one transfer when the rows are contiguous on both sides, word
    // stores for short aligned rows, else one transfer per row.
    struct Phase {
        double s = 0;
        uint64_t transfers = 0, words = 0;
    };
    const auto store_rows = [&](uint64_t src_stride, uint64_t dst, uint64_t dst_stride,
                                uint64_t rows, uint64_t len) {
        Phase p;
        if (len == 0 || rows == 0) return p;
        if (len == src_stride && len == dst_stride) {
            p.s = dma(rows * len);
            p.transfers = 1;
        } else if (len <= 16 && ((len | dst | src_stride | dst_stride) & 3) == 0) {
            p.words = rows * (len / 4);
            p.s = static_cast<double>(p.words) * (x.ext_access_s + x.store_word_cycles * cyc);
        } else {
            p.s = static_cast<double>(rows) * dma(len);
            p.transfers = rows;
        }
        return p;
    };
    const uint64_t pixels =
        l.out_shape.size() == 4 ? static_cast<uint64_t>(l.out_shape[2] * l.out_shape[3]) : 1;
    // The scheduler triggers the workers one by one; worker i starts after i + 1 triggers. The
    // layer ends when the last answer is in.
    double end = 0;
    LayerCost slowest;
    for (uint64_t i = 0; i < workers; ++i) {
        const uint64_t n0 = i * t.tile_n;
        const uint64_t valid = n0 < n ? std::min<uint64_t>(t.tile_n, n - n0) : 0;
        LayerCost c;
        c.config = x.worker_config_words * x.ext_access_s + x.worker_cycles * cyc;
        Phase out;
        const auto add_out = [&](const Phase& p) {
            out.s += p.s;
            out.transfers += p.transfers;
            out.words += p.words;
        };
        if (t.split_rows) {
            const MapRows cr = map_rows(l);
            c.config += x.row_config_words * x.ext_access_s;
            const uint64_t end = std::min<uint64_t>(cr.out_h, (i + 1) * t.tile_n);
            if (!cr.pool) {
                c.dma_weights = dma(cr.k * cr.n) + (l.bias ? dma(4 * cr.n) : 0.0);
                c.dma_transfers = l.bias ? 2 : 1;
            }
            for (uint64_t y0 = i * t.tile_n; y0 < end; y0 += t.part_n) {
                const uint64_t y1 = std::min<uint64_t>(end, y0 + t.part_n);
                const RowPart rp = row_part(cr, y0, y1);
                c.dma_in += dma(rp.h * cr.in_row);
                if (cr.pool) {
                    c.compute += pool_cycles(x, l, y1 - y0, cr.out_w, cr.n) * cyc;
                } else {
                    c.compute += static_cast<double>(
                                     mla_gemm_cycles(rp.out_rows * cr.out_w, cr.k, cr.n, x)) *
                                 cyc;
                    c.parts += x.part_cycles * cyc;
                }
                out.s += dma((y1 - y0) * cr.out_row);
                out.transfers += 1;
                c.dma_transfers += 1;
            }
        } else if (w.weighted) {
            c.dma_in = dma(w.in_bytes);
            c.dma_transfers = 1;
            for (uint64_t c0 = 0; c0 < t.tile_n; c0 += t.part_n) {
                const uint64_t pn = std::min<uint64_t>(t.part_n, t.tile_n - c0);
                c.dma_weights += dma(w.k * pn) + (l.bias ? dma(4 * pn) : 0.0);
                c.dma_transfers += l.bias ? 2 : 1;
                c.compute += static_cast<double>(mla_gemm_cycles(w.m, w.k, pn, x)) * cyc;
                c.parts += x.part_cycles * cyc;
                const uint64_t v = c0 >= valid ? 0 : std::min(valid - c0, pn);
                add_out(store_rows(pn, n0 + c0, n, w.m, v));
            }
        } else if (valid > 0) {
            switch (l.kind) {
                case LayerKind::softmax: {
                    const uint64_t k = w.out_per_unit;
                    c.dma_in = dma(valid * k);
                    c.compute = static_cast<double>(valid * k) * x.softmax_cycles_per_element * cyc;
                    add_out(store_rows(valid * k, 0, valid * k, 1, valid * k));
                    c.dma_transfers = 1;
                    break;
                }
                case LayerKind::maxpool:
                case LayerKind::avgpool: {
                    c.dma_in = dma(pool_region_bytes(l, valid));
                    c.dma_transfers = 1;
                    c.compute = pool_cycles(x, l, 1, pixels, valid) * cyc;
                    add_out(store_rows(valid, n0, n, pixels, valid));
                    break;
                }
                default:  // add
                    c.dma_in = 2 * dma(valid);
                    c.dma_transfers = 2;
                    c.compute = static_cast<double>(valid) * x.add_cycles_per_element * cyc;
                    add_out(store_rows(valid, 0, valid, 1, valid));
                    break;
            }
        }
        c.dma_out = out.s;
        c.dma_transfers += out.transfers;
        c.word_stores = out.words;
        const double start = static_cast<double>(i + 1) * x.trigger_cycles * cyc;
        if (start + c.total() >= end) {
            end = start + c.total();
            slowest = c;
        }
    }
    cost = slowest;
    // The header loads and the two-word time record store.
    cost.scheduler =
        (x.layer_header_words + 2) * x.ext_access_s + x.layer_cycles * cyc + end - slowest.total();
    return cost;
}

LayerTiling tile_layer(const Layer& layer, const TilingTarget& t) {
    LayerTiling best;
    best.layer = layer.name;
    if (layer.kind == LayerKind::input || layer.kind == LayerKind::output) {
        best.why = "graph boundary: no computation";
        return best;
    }
    check_target(layer, t);
    const Work w = describe(layer);
    uint64_t min_bytes = std::numeric_limits<uint64_t>::max(), min_part_n = 0;
    PartBytes min_pb;
    const MapRows cr = map_rows(layer);
    const uint32_t max_w = static_cast<uint32_t>(
        std::min<uint64_t>(t.max_workers, std::max(w.units, cr.ok ? cr.out_h : 0)));
    std::vector<double> costs(max_w, 0.0);
    bool found = false;
    for (uint32_t workers = 1; workers <= max_w; ++workers) {
        std::optional<LayerTiling> r =
            best_of_modes(layer, w, cr, t, workers, min_bytes, min_part_n, min_pb);
        if (!r) continue;
        costs[workers - 1] = r->est_cost;
        // Only a strictly lower cost replaces the best: on equal cost the fewer workers.
        if (!found || r->est_cost < best.est_cost) {
            best = std::move(*r);
            found = true;
        }
    }
    if (!found) unmappable(layer, w, t, min_bytes, min_part_n, min_pb);
    best.candidates = std::move(costs);
    std::ostringstream why;
    why << "lowest estimate of " << max_w << " worker count" << (max_w == 1 ? "" : "s");
    if (cr.ok) why << (best.split_rows ? ", split by output rows" : ", split by output channels");
    const double next = [&] {
        double r = 0;
        for (uint32_t i = 0; i < max_w; ++i)
            if (i + 1 != best.workers && best.candidates[i] > 0 &&
                (r == 0 || best.candidates[i] < r))
                r = best.candidates[i];
        return r;
    }();
    if (next > 0) {
        uint32_t nw = 0;
        for (uint32_t i = 0; i < max_w; ++i)
            if (best.candidates[i] == next && i + 1 != best.workers) nw = i + 1;
        why << "; next best " << nw << " worker" << (nw == 1 ? "" : "s") << " at +" << std::fixed
            << std::setprecision(1) << (next / best.est_cost - 1) * 100 << " %";
    }
    best.why = why.str();
    return best;
}

LayerTiling tile_layer_with(const Layer& layer, const TilingTarget& t, uint32_t workers) {
    if (layer.kind == LayerKind::input || layer.kind == LayerKind::output)
        return tile_layer(layer, t);
    check_target(layer, t);
    const Work w = describe(layer);
    uint64_t min_bytes = std::numeric_limits<uint64_t>::max(), min_part_n = 0;
    PartBytes min_pb;
    const MapRows cr = map_rows(layer);
    if (workers == 0 || workers > std::max(w.units, cr.ok ? cr.out_h : 0))
        throw CompileError("layer '" + layer.name + "' (" + w.desc +
                           "): " + std::to_string(workers) + " workers asked, it has " +
                           std::to_string(w.units) + (w.units == 1 ? " output" : " outputs") +
                           " to share");
    std::optional<LayerTiling> r =
        best_of_modes(layer, w, cr, t, workers, min_bytes, min_part_n, min_pb);
    if (!r) {
        if (ceil_div(w.units, workers) * (workers - 1) >= w.units && !cr.ok)
            throw CompileError("layer '" + layer.name + "' (" + w.desc + "): with " +
                               std::to_string(workers) + " workers one would hold padding only");
        unmappable(layer, w, t, min_bytes, min_part_n, min_pb);
    }
    r->why = "worker count pinned";
    if (cr.ok) r->why += r->split_rows ? ", split by output rows" : ", split by output channels";
    return *r;
}

std::vector<LayerTiling> tile_graph(const Graph& graph, const TilingTarget& target) {
    std::vector<LayerTiling> out;
    out.reserve(graph.layers.size());
    for (const Layer& l : graph.layers) {
        try {
            out.push_back(tile_layer(l, target));
        } catch (const CompileError& e) {
            throw CompileError(graph.source + ": " + e.what());
        }
    }
    add_worker_setup(graph, out, target);
    return out;
}

void add_worker_setup(const Graph& graph, std::vector<LayerTiling>& tiling, const TilingTarget& t) {
    for (size_t i = 0; i < tiling.size() && i < graph.layers.size(); ++i) {
        if (tiling[i].workers == 0 || graph.layers[i].kind == LayerKind::flatten) continue;
        LayerTiling& f = tiling[i];
        const uint64_t list_bytes = 4 * uint64_t{t.max_workers};
        const double before = f.cost.setup;  // idempotent: compile.cpp calls it again
        f.cost.setup = t.global_config_words * t.ext_access_s + t.dma_setup_cycles / t.clock_hz +
                       static_cast<double>(ceil_div(list_bytes, t.dma_burst_bytes)) * t.dma_burst_s;
        f.est_cost = f.cost.total();
        for (double& c : f.candidates)
            if (c > 0) c += f.cost.setup - before;
        return;
    }
}

std::ostream& operator<<(std::ostream& os, const LayerTiling& t) {
    os << t.layer << ": workers " << t.workers << ", outputs " << t.outputs
       << (t.split_rows ? " rows" : "") << ", tile " << t.tile_n << " (padding " << t.padded_outputs
       << "), parts " << t.parts << " x " << t.part_n << ", " << t.bytes_per_worker << " B/worker, "
       << t.mla_cycles << " MLA cycles, " << t.dram_bytes << " DRAM B, est " << t.est_cost * 1e6
       << " us (" << t.why << ")";
    return os;
}

}  // namespace nmsim::compiler
