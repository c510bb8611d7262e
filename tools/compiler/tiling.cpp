#include "tools/compiler/tiling.h"

#include <algorithm>
#include <limits>
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
    uint64_t total() const { return weights + bias + input + output; }
};

PartBytes part_bytes(const Work& w, uint64_t n, const Layer& l, uint32_t align) {
    PartBytes b;
    if (w.weighted) {
        b.weights = round_up(w.k * n, align);
        if (l.bias) b.bias = round_up(4 * n, align);
        b.input = round_up(w.in_bytes, align);
    } else {
        for (uint64_t e : w.in_elems) b.input += round_up(ceil_div(e * n, w.units), align);
    }
    b.output = round_up(w.out_per_unit * n, align);
    return b;
}

}  // namespace

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

LayerTiling tile_layer(const Layer& layer, const TilingTarget& t) {
    LayerTiling best;
    best.layer = layer.name;
    if (layer.kind == LayerKind::input || layer.kind == LayerKind::output) {
        best.why = "graph boundary: no computation";
        return best;
    }
    if (t.max_workers == 0 || t.max_parts == 0 || t.mla_cols == 0 || t.mla_rows == 0 ||
        t.align == 0 || t.mla_fetch_bytes_per_cycle == 0 || t.mla_writeback_bytes_per_cycle == 0)
        throw CompileError("layer '" + layer.name +
                           "': tiling target needs max_workers, max_parts, MLA shape and rates "
                           "and align > 0");
    if (const std::string why = layer_problem(layer); !why.empty())
        throw CompileError("layer '" + layer.name + "' (" + to_string(layer.kind) + "): " + why);
    const Work w = describe(layer);
    const uint64_t n = w.units;

    bool found = false;
    uint64_t min_bytes = std::numeric_limits<uint64_t>::max();
    uint64_t min_part_n = 0;
    PartBytes min_pb;
    const uint32_t max_w = static_cast<uint32_t>(std::min<uint64_t>(t.max_workers, n));
    for (uint32_t workers = 1; workers <= max_w; ++workers) {
        // Equal tiles; MLA-width multiples for weighted layers unless that leaves a worker idle.
        uint64_t tile = ceil_div(n, workers);
        if (w.weighted && (workers - 1) * round_up(tile, t.mla_cols) < n)
            tile = round_up(tile, t.mla_cols);
        if ((workers - 1) * tile >= n) continue;  // some worker would get padding only
        // Fewest parts whose largest part fits.
        uint64_t part_n = 0, parts = 0;
        PartBytes pb;
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
                part_n = pn;
                parts = ceil_div(tile, pn);
                pb = b;
                break;
            }
        }
        if (parts == 0) continue;

        uint64_t cycles = 0, dram = 0;
        if (w.weighted) {
            for (uint64_t done = 0; done < tile; done += part_n)
                cycles =
                    sat_add(cycles, mla_gemm_cycles(w.m, w.k, std::min(part_n, tile - done), t));
            const uint64_t padded = workers * tile;
            dram = sat_add(sat_add(sat_mul(workers, w.in_bytes), sat_mul(padded, w.k)),
                           sat_add(layer.bias ? 4 * padded : 0, w.m * n));
        } else {
            for (uint64_t e : w.in_elems) dram += e;
            dram += w.out_per_unit * n;
        }
        const double cost = static_cast<double>(dram) / t.dram_bytes_per_s +
                            static_cast<double>(cycles) / t.clock_hz +
                            workers * t.worker_overhead_s +
                            static_cast<double>(parts) * t.part_overhead_s;
        const bool take = !found || cost < best.est_cost;
        if (take) {
            found = true;
            best.workers = workers;
            best.outputs = n;
            best.tile_n = static_cast<uint32_t>(tile);
            best.parts = static_cast<uint32_t>(parts);
            best.part_n = static_cast<uint32_t>(part_n);
            best.padded_outputs = workers * tile - n;
            best.bytes_per_worker = pb.total();
            best.mla_cycles = cycles;
            best.dram_bytes = dram;
            best.est_cost = cost;
        }
        // Weightless layers stay on one worker when that fits (no MLA work to share).
        if (!w.weighted && workers == 1) break;
    }
    if (!found) {
        std::ostringstream m;
        m << "layer '" << layer.name << "' (" << w.desc << "): a " << min_part_n
          << "-output part needs " << min_bytes << " B of SRAM (weights " << min_pb.weights
          << " + bias " << min_pb.bias << " + input " << min_pb.input << " + output "
          << min_pb.output << "), budget " << t.sram_budget_bytes << " B (max " << t.max_workers
          << " workers, " << t.max_parts << " parts)";
        throw CompileError(m.str());
    }
    std::ostringstream why;
    if (!w.weighted && best.workers == 1 && best.parts == 1)
        why << "weightless layer: 1 worker, fits in one part";
    else
        why << "lowest estimated cost of " << (w.weighted ? "weighted" : "weightless")
            << " candidates (1.." << max_w << " workers, fewest fitting parts each)";
    best.why = why.str();
    return best;
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
    return out;
}

std::ostream& operator<<(std::ostream& os, const LayerTiling& t) {
    os << t.layer << ": workers " << t.workers << ", outputs " << t.outputs << ", tile " << t.tile_n
       << " (padding " << t.padded_outputs << "), parts " << t.parts << " x " << t.part_n << ", "
       << t.bytes_per_worker << " B/worker, " << t.mla_cycles << " MLA cycles, " << t.dram_bytes
       << " DRAM B, est " << t.est_cost * 1e6 << " us (" << t.why << ")";
    return os;
}

}  // namespace nmsim::compiler
