#include "tools/compiler/dram_image.h"

#include <algorithm>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include "nmsim/hw/spinnaker2/noc_map.h"

namespace nmsim::compiler {
namespace {

constexpr uint64_t kAlign = S2_DNN_ALIGN;

// Offsets while laying the image out saturate at UINT64_MAX (then fail the DRAM window check)
// instead of wrapping: a tiling built by hand may ask for any size.
uint64_t sat_add(uint64_t a, uint64_t b) {
    uint64_t r = 0;
    return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}
uint64_t sat_mul(uint64_t a, uint64_t b) {
    uint64_t r = 0;
    return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}
uint64_t align_up(uint64_t v) {
    return v > UINT64_MAX - kAlign ? UINT64_MAX : (v + kAlign - 1) / kAlign * kAlign;
}

[[noreturn]] void fail(const Graph& g, const std::string& msg) {
    throw CompileError(g.source + ": " + msg);
}

// The list entry type of a layer (in_list(kind) must hold).
uint32_t layer_type(LayerKind kind) {
    switch (kind) {
        case LayerKind::linear:
            return S2_DNN_LAYER_LINEAR;
        case LayerKind::conv2d:
            return S2_DNN_LAYER_CONV2D;
        case LayerKind::add:
            return S2_DNN_LAYER_ADD;
        case LayerKind::maxpool:
            return S2_DNN_LAYER_MAXPOOL;
        case LayerKind::avgpool:
            return S2_DNN_LAYER_AVGPOOL;
        case LayerKind::softmax:
            return S2_DNN_LAYER_SOFTMAX;
        case LayerKind::input:
        case LayerKind::output:
        case LayerKind::flatten:
            break;
    }
    throw std::logic_error(std::string("DRAM image: no list entry for a ") + to_string(kind) +
                           " layer");
}

// Layers that get an entry in the layer list (the others are graph boundaries or pure views).
bool in_list(LayerKind kind) {
    return kind != LayerKind::input && kind != LayerKind::output && kind != LayerKind::flatten;
}

// Per-worker constant block of a list layer: parts * (weight stride + bias stride).
struct LayerPlan {
    size_t graph_index = 0;
    uint64_t header = 0;  // offsets from the base
    uint64_t consts = 0;  // first worker's constants
    uint64_t weight_stride = 0, bias_stride = 0;
    uint64_t end = 0;
    uint32_t m = 1, k = 1;
    // conv2d, pools: [1, C, H, W] input and output maps
    uint32_t in_c = 0, in_h = 0, in_w = 0, out_c = 0, out_h = 0, out_w = 0;
};

bool is_window(LayerKind kind) {
    return kind == LayerKind::conv2d || kind == LayerKind::maxpool || kind == LayerKind::avgpool;
}

template <typename T>
void put(std::vector<uint8_t>& bytes, uint64_t off, const T& v) {
    std::memcpy(bytes.data() + off, &v, sizeof v);
}

}  // namespace

DramImage build_image(const Graph& graph, const std::vector<LayerTiling>& tiling,
                      const ImageTarget& target) {
    if (tiling.size() != graph.layers.size())
        fail(graph, "tiling has " + std::to_string(tiling.size()) + " layers, graph " +
                        std::to_string(graph.layers.size()));
    if (target.base % kAlign != 0 || target.base < S2_DRAM_GLOBAL_BASE)
        fail(graph, "image base is not a 16-byte aligned DRAM global address");
    const auto num_workers = static_cast<uint32_t>(target.worker_pes.size());

    std::vector<LayerPlan> plans;
    int inputs = 0, outputs = 0;
    for (size_t i = 0; i < graph.layers.size(); ++i) {
        const Layer& l = graph.layers[i];
        const LayerTiling& t = tiling[i];
        const std::string what = "layer '" + l.name + "' (" + to_string(l.kind) + ")";
        if (t.layer != l.name) fail(graph, what + ": tiling is for layer '" + t.layer + "'");
        // Shapes, data sizes and window attributes within graph.h's limits: every size below
        // fits uint32 and every product of two fits uint64.
        if (const std::string why = layer_problem(l); !why.empty()) fail(graph, what + ": " + why);
        inputs += l.kind == LayerKind::input;
        outputs += l.kind == LayerKind::output;
        if (!in_list(l.kind)) continue;
        if (t.workers == 0 || t.workers > num_workers)
            fail(graph, what + ": needs " + std::to_string(t.workers) + " workers, target has " +
                            std::to_string(num_workers));
        // Parts cover the tile without an empty one; tiles cover the outputs without a worker
        // that has padding only.
        if (t.part_n == 0 || t.parts == 0 || t.tile_n == 0 || t.part_n > t.tile_n ||
            uint64_t{t.parts} * t.part_n < t.tile_n ||
            uint64_t{t.parts - 1} * t.part_n >= t.tile_n ||
            uint64_t{t.workers} * t.tile_n < t.outputs ||
            uint64_t{t.workers - 1} * t.tile_n >= t.outputs)
            fail(graph, what + ": inconsistent tiling");
        LayerPlan p;
        p.graph_index = i;
        if (l.kind == LayerKind::linear) {
            if (!l.weights || l.weights->shape.size() != 2)
                fail(graph, what + ": needs [out, in] weights");
            const auto n = static_cast<uint64_t>(l.weights->shape[0]);
            p.k = static_cast<uint32_t>(l.weights->shape[1]);
            if (n != t.outputs || shape_elements(l.out_shape) % static_cast<int64_t>(n) != 0)
                fail(graph, what + ": tiling outputs do not match the weights");
            p.m = static_cast<uint32_t>(shape_elements(l.out_shape) / static_cast<int64_t>(n));
            if (shape_elements(l.in_shapes.at(0)) != int64_t{p.m} * p.k)
                fail(graph,
                     what + ": input is not " + std::to_string(p.m) + "x" + std::to_string(p.k));
            p.weight_stride = align_up(uint64_t{p.k} * t.part_n);
            if (l.bias) p.bias_stride = align_up(4ull * t.part_n);
        } else if (is_window(l.kind)) {
            const Shape& is = l.in_shapes.at(0);
            const Window& win = l.window;
            if (is.size() != 4 || l.out_shape.size() != 4 || is[0] != 1)
                fail(graph, what + ": needs [1, C, H, W] maps");
            if (win.stride_h != win.stride_w || win.pad_top != win.pad_left ||
                win.pad_top != win.pad_bottom || win.pad_top != win.pad_right)
                fail(graph, what +
                                ": the image has one stride and one symmetric padding for both "
                                "axes (the MLA's STRIDE and PAD)");
            p.in_c = static_cast<uint32_t>(is[1]);
            p.in_h = static_cast<uint32_t>(is[2]);
            p.in_w = static_cast<uint32_t>(is[3]);
            p.out_c = static_cast<uint32_t>(l.out_shape[1]);
            p.out_h = static_cast<uint32_t>(l.out_shape[2]);
            p.out_w = static_cast<uint32_t>(l.out_shape[3]);
            p.m = p.out_h * p.out_w;  // <= the output's elements (graph.h limits)
            p.k = static_cast<uint32_t>(int64_t{win.kernel_h} * win.kernel_w);  // < 2^32
            if (t.split_rows && t.outputs != p.out_h)
                fail(graph, what + ": a row split needs the output rows as outputs");
            if (!t.split_rows && t.outputs != p.out_c)
                fail(graph, what + ": tiling outputs are not the channels");
            if (l.kind == LayerKind::conv2d) {
                if (!l.weights || l.weights->shape.size() != 4 || l.weights->shape[0] != p.out_c ||
                    l.weights->shape[1] != p.in_c || l.weights->shape[2] != win.kernel_h ||
                    l.weights->shape[3] != win.kernel_w)
                    fail(graph, what + ": needs [out_c, in_c, kh, kw] weights");
                p.k *= p.in_c;
                // A row split keeps one copy of the whole kernel for all workers.
                const uint64_t cols = t.split_rows ? p.out_c : t.part_n;
                p.weight_stride = align_up(uint64_t{p.k} * cols);
                if (l.bias) p.bias_stride = align_up(4ull * cols);
            } else if (p.in_c != p.out_c) {
                fail(graph, what + ": pooling changes the channel count");
            }
        } else if (t.split_rows) {
            fail(graph, what + ": only conv2d and pool layers can be split by output rows");
        } else if (l.kind == LayerKind::softmax) {
            p.k = static_cast<uint32_t>(l.out_shape.back());
            if (uint64_t{p.k} * t.outputs != static_cast<uint64_t>(shape_elements(l.out_shape)))
                fail(graph, what + ": tiling outputs are not the rows");
        } else if (static_cast<int64_t>(t.outputs) != shape_elements(l.out_shape) ||
                   l.inputs.size() != 2) {
            fail(graph, what + ": tiling outputs are not the elements");
        }
        plans.push_back(p);
    }
    if (inputs != 1 || outputs != 1)
        fail(graph, "the image needs exactly one input and one output");
    const auto num_layers = static_cast<uint32_t>(plans.size());

    // Pass 1: offsets of the configuration regions.
    DramImage img;
    img.base = target.base;
    uint64_t off = sizeof(s2_dnn_global_t);
    const uint64_t worker_pes_off = off;
    off = align_up(off + 4ull * num_workers);
    const uint64_t time_off = off;
    const uint64_t time_size =
        sat_add(sizeof(s2_dnn_interval_t) * (num_layers + 2ull),
                sat_mul(sizeof(s2_dnn_worker_time_t) * uint64_t{num_workers}, num_layers));
    off = align_up(sat_add(off, time_size));
    for (LayerPlan& p : plans) {
        const LayerTiling& t = tiling[p.graph_index];
        p.header = off;
        p.consts = align_up(
            sat_add(off, sizeof(s2_dnn_layer_t) + uint64_t{sizeof(s2_dnn_worker_t)} * t.workers));
        const uint64_t copies = t.split_rows ? 1 : uint64_t{t.workers} * t.parts;
        p.end = sat_add(p.consts, sat_mul(copies, sat_add(p.weight_stride, p.bias_stride)));
        off = align_up(p.end);
    }
    const uint64_t finish_off = off;
    off = align_up(sat_add(off, sizeof(s2_dnn_layer_t)));

    // Pass 2: data memory, graph order; flatten and output share their input's placement.
    const uint64_t data_off = off;
    for (const Layer& l : graph.layers) {
        if (l.kind == LayerKind::flatten || l.kind == LayerKind::output) {
            const auto it = img.tensors.find(l.inputs.at(0));
            if (it == img.tensors.end()) fail(graph, "layer '" + l.name + "': unknown input");
            if (shape_elements(l.out_shape) != it->second.size)
                fail(graph, "layer '" + l.name + "': size differs from its input");
            TensorPlacement tp = it->second;
            tp.shape = l.out_shape;
            img.tensors[l.name] = tp;
        } else {
            TensorPlacement tp;
            tp.addr = static_cast<uint32_t>(target.base + off);  // range checked below
            tp.size = static_cast<uint32_t>(shape_elements(l.out_shape));
            tp.shape = l.out_shape;
            if (l.out_shape.size() == 4) {
                if (l.out_shape[0] != 1)
                    fail(graph, "layer '" + l.name + "': feature maps need batch 1 (HWC layout)");
                tp.hwc = {l.out_shape[1], l.out_shape[2], l.out_shape[3]};
            }
            img.tensors[l.name] = tp;
            off = align_up(sat_add(off, static_cast<uint64_t>(shape_elements(l.out_shape))));
        }
        if (l.kind == LayerKind::input) img.input_layer = l.name;
        if (l.kind == LayerKind::output) img.output_layer = l.name;
    }
    const uint64_t total = off;
    if (total > uint64_t{S2_DRAM_GLOBAL_BASE} + S2_DRAM_GLOBAL_SIZE - target.base)
        fail(graph, "image of " + std::to_string(total) + " B does not fit the DRAM window");
    const auto addr = [&](uint64_t o) { return static_cast<uint32_t>(target.base + o); };

    img.bytes.assign(total, 0);
    img.global_addr = target.base;
    img.worker_pes_addr = addr(worker_pes_off);
    img.time_addr = addr(time_off);
    img.time_size = static_cast<uint32_t>(time_size);
    img.first_layer_addr = addr(plans.empty() ? finish_off : plans.front().header);
    img.finish_addr = addr(finish_off);
    img.data_addr = addr(data_off);
    img.data_size = static_cast<uint32_t>(total - data_off);

    // Pass 3: contents.
    s2_dnn_global_t gc{};
    gc.magic = S2_DNN_IMAGE_MAGIC;
    gc.version = S2_DNN_IMAGE_VERSION;
    gc.image_size = static_cast<uint32_t>(total);
    gc.scheduler_pe = target.scheduler_pe;
    gc.num_workers = num_workers;
    gc.worker_pes = img.worker_pes_addr;
    gc.num_layers = num_layers;
    gc.first_layer = img.first_layer_addr;
    gc.time_addr = img.time_addr;
    gc.time_size = img.time_size;
    gc.data_addr = img.data_addr;
    gc.data_size = img.data_size;
    const TensorPlacement& in = img.tensors.at(img.input_layer);
    const TensorPlacement& out = img.tensors.at(img.output_layer);
    gc.input_addr = in.addr;
    gc.input_size = in.size;
    gc.output_addr = out.addr;
    gc.output_size = out.size;
    put(img.bytes, 0, gc);
    for (uint32_t w = 0; w < num_workers; ++w)
        put(img.bytes, worker_pes_off + 4ull * w, target.worker_pes[w]);

    for (uint32_t li = 0; li < num_layers; ++li) {
        const LayerPlan& p = plans[li];
        const Layer& l = graph.layers[p.graph_index];
        const LayerTiling& t = tiling[p.graph_index];
        img.list_layers.push_back(l.name);
        s2_dnn_layer_t h{};
        h.type = layer_type(l.kind);
        h.num_workers = t.workers;
        h.next = addr(li + 1 < num_layers ? plans[li + 1].header : finish_off);
        h.index = li;
        h.workers_addr = addr(p.header + sizeof(s2_dnn_layer_t));
        h.worker_size = sizeof(s2_dnn_worker_t);
        h.time_slot = s2_dnn_time_layer(img.time_addr, li);
        put(img.bytes, p.header, h);

        const TensorPlacement& a = img.tensors.at(l.inputs.at(0));
        const TensorPlacement& y = img.tensors.at(l.name);
        const std::string what = "layer '" + l.name + "' (" + to_string(l.kind) + ")";
        const uint64_t n_total = t.outputs;
        const uint64_t per_worker = uint64_t{t.parts} * (p.weight_stride + p.bias_stride);
        // wrow[s]: the element of a weight row [out][...] that becomes row s of B.
        std::vector<uint64_t> wrow(l.weights ? p.k : 0);
        if (l.kind == LayerKind::linear && !a.hwc.empty()) {
            // Input bytes are an HWC map flattened: storage (h*W + w)*C + c holds graph element
            // c*H*W + h*W + w, so B's rows follow the storage order.
            const uint64_t C = a.hwc[0], H = a.hwc[1], W = a.hwc[2];
            if (p.m != 1 || C * H * W != p.k)
                fail(graph, what + ": input is a flattened feature map of " +
                                std::to_string(C * H * W) + " elements, not 1x" +
                                std::to_string(p.k));
            for (uint64_t c = 0; c < C; ++c)
                for (uint64_t h = 0; h < H; ++h)
                    for (uint64_t x = 0; x < W; ++x)
                        wrow[(h * W + x) * C + c] = c * H * W + h * W + x;
        } else if (l.kind == LayerKind::conv2d) {
            // Kernel [kh][kw][in_c] rows from the [out_c][in_c][kh][kw] weights.
            const uint64_t kh = l.window.kernel_h, kw = l.window.kernel_w, ic = p.in_c;
            for (uint64_t yy = 0; yy < kh; ++yy)
                for (uint64_t xx = 0; xx < kw; ++xx)
                    for (uint64_t c = 0; c < ic; ++c)
                        wrow[(yy * kw + xx) * ic + c] = (c * kh + yy) * kw + xx;
        } else {
            for (uint64_t s = 0; s < wrow.size(); ++s) wrow[s] = s;
        }
        if (l.kind == LayerKind::softmax && !a.hwc.empty())
            fail(graph, what + ": softmax over a feature map (stored HWC) is not supported");
        if (l.kind == LayerKind::add && img.tensors.at(l.inputs.at(1)).hwc != a.hwc)
            fail(graph, what + ": operands have different layouts");
        if (is_window(l.kind) && a.hwc.empty()) fail(graph, what + ": input is not a feature map");
        for (uint32_t w = 0; w < t.workers; ++w) {
            s2_dnn_worker_t c{};
            const uint64_t n0 = uint64_t{w} * t.tile_n;
            c.pe = target.worker_pes[w];
            c.worker = w;
            c.m = p.m;
            c.k = p.k;
            c.n = t.tile_n;
            c.n0 = static_cast<uint32_t>(n0);
            c.n_valid = static_cast<uint32_t>(
                n0 < n_total ? std::min<uint64_t>(t.tile_n, n_total - n0) : 0);
            c.parts = t.parts;
            c.part_n = t.part_n;
            c.shift = static_cast<uint32_t>(l.shift);
            c.flags = (l.relu ? S2_DNN_FLAG_RELU : 0u) | (l.bias ? S2_DNN_FLAG_BIAS : 0u);
            c.time_slot = s2_dnn_time_worker(img.time_addr, num_layers, w, li);
            c.type = layer_type(l.kind);
            c.layer = li;
            c.in_exponent = static_cast<uint32_t>(l.in_exponents.empty() ? 0 : l.in_exponents[0]);
            c.out_exponent = static_cast<uint32_t>(l.out_exponent);
            if (is_window(l.kind)) {
                c.in_h = p.in_h;
                c.in_w = p.in_w;
                c.in_c = p.in_c;
                c.out_h = p.out_h;
                c.out_w = p.out_w;
                c.out_c = p.out_c;
                c.ker_h = static_cast<uint32_t>(l.window.kernel_h);
                c.ker_w = static_cast<uint32_t>(l.window.kernel_w);
                c.stride = static_cast<uint32_t>(l.window.stride_h);
                c.pad = static_cast<uint32_t>(l.window.pad_top);
            }
            if (t.split_rows) {
                // Output rows [row0, row0 + rows), all channels (conv2d: one kernel copy).
                const uint64_t in_row = uint64_t{p.in_w} * p.in_c;
                const uint64_t row0 = uint64_t{w} * t.tile_n;
                const uint64_t end = std::min<uint64_t>(p.out_h, row0 + t.tile_n);
                uint64_t in_max = 0, out_max = 0;
                const bool conv = l.kind == LayerKind::conv2d;
                for (uint64_t y0 = row0; y0 < end; y0 += t.part_n) {
                    const uint64_t y1 = std::min<uint64_t>(end, y0 + t.part_n);
                    const RowPart rp = row_part(l, y0, y1);
                    if (!rp.ok)
                        fail(graph, what + ": output rows " + std::to_string(y0) + ".." +
                                        std::to_string(y1 - 1) + " read no input row");
                    in_max = std::max<uint64_t>(in_max, rp.h * in_row);
                    out_max = std::max<uint64_t>(out_max, rp.out_rows);
                }
                c.n = p.out_c;
                c.n0 = 0;
                c.n_valid = p.out_c;
                c.parts = 1;  // one kernel block (the row parts are part_rows)
                c.part_n = p.out_c;
                c.flags |= S2_DNN_FLAG_ROWS;
                c.row0 = static_cast<uint32_t>(row0);
                c.rows = static_cast<uint32_t>(end - row0);
                c.part_rows = t.part_n;
                c.out_rows_max = static_cast<uint32_t>(out_max);
                c.input_addr = a.addr;
                c.input_size = static_cast<uint32_t>(in_max);
                c.output_addr = y.addr;
                c.output_row_stride = p.out_c;
                if (conv) {  // the one kernel copy (and biases), written with worker 0
                    c.weight_addr = addr(p.consts);
                    c.weight_part_stride = static_cast<uint32_t>(p.weight_stride);
                    if (l.bias) {
                        c.bias_addr = addr(p.consts + p.weight_stride);
                        c.bias_part_stride = static_cast<uint32_t>(p.bias_stride);
                    }
                    if (w == 0)
                        for (uint64_t col = 0; col < p.out_c; ++col) {
                            for (uint64_t kk = 0; kk < p.k; ++kk)
                                img.bytes[p.consts + kk * p.out_c + col] =
                                    static_cast<uint8_t>(l.weights->i8[col * p.k + wrow[kk]]);
                            if (l.bias)
                                put(img.bytes, p.consts + p.weight_stride + 4 * col,
                                    l.bias->i32.at(col));
                        }
                }
            } else if (l.kind == LayerKind::linear || l.kind == LayerKind::conv2d) {
                c.input_addr = a.addr;
                c.input_size = a.size;
                c.output_addr = static_cast<uint32_t>(y.addr + n0);
                c.output_row_stride = static_cast<uint32_t>(n_total);
                const uint64_t wbase = p.consts + w * per_worker;
                const uint64_t bbase = wbase + uint64_t{t.parts} * p.weight_stride;
                c.weight_addr = addr(wbase);
                c.weight_part_stride = static_cast<uint32_t>(p.weight_stride);
                if (l.bias) {
                    c.bias_addr = addr(bbase);
                    c.bias_part_stride = static_cast<uint32_t>(p.bias_stride);
                }
                // Part q: B[s][j] = weights[col][wrow[s]], col = n0 + q*part_n + j.
                for (uint32_t q = 0; q < t.parts; ++q) {
                    const uint64_t c0 = uint64_t{q} * t.part_n;
                    const uint64_t pn = std::min<uint64_t>(t.part_n, t.tile_n - c0);
                    for (uint64_t j = 0; j < pn; ++j) {
                        const uint64_t col = n0 + c0 + j;
                        if (col >= n_total) continue;  // padding stays zero
                        for (uint64_t kk = 0; kk < p.k; ++kk)
                            img.bytes[wbase + q * p.weight_stride + kk * pn + j] =
                                static_cast<uint8_t>(l.weights->i8[col * p.k + wrow[kk]]);
                        if (l.bias)
                            put(img.bytes, bbase + q * p.bias_stride + 4 * j, l.bias->i32.at(col));
                    }
                }
            } else if (l.kind == LayerKind::softmax) {
                c.input_addr = static_cast<uint32_t>(a.addr + n0 * p.k);
                c.input_size = c.n_valid * p.k;
                c.output_addr = static_cast<uint32_t>(y.addr + n0 * p.k);
                c.output_row_stride = p.k;
            } else if (is_window(l.kind)) {  // pools: channel n0 of pixel 0
                c.input_addr = static_cast<uint32_t>(a.addr + n0);
                c.input_size = static_cast<uint32_t>(pool_region_bytes(l, c.n_valid));
                c.output_addr = static_cast<uint32_t>(y.addr + n0);
                c.output_row_stride = p.out_c;
            } else {  // add
                c.input_addr = static_cast<uint32_t>(a.addr + n0);
                c.input2_addr = static_cast<uint32_t>(img.tensors.at(l.inputs.at(1)).addr + n0);
                c.input_size = c.n_valid;
                c.output_addr = static_cast<uint32_t>(y.addr + n0);
                c.output_row_stride = static_cast<uint32_t>(n_total);
            }
            put(img.bytes,
                p.header + sizeof(s2_dnn_layer_t) + uint64_t{sizeof(s2_dnn_worker_t)} * w, c);
        }
    }
    s2_dnn_layer_t fin{};
    fin.type = S2_DNN_LAYER_FINISH;
    fin.index = num_layers;
    fin.workers_addr = 0;
    fin.worker_size = sizeof(s2_dnn_worker_t);
    fin.time_slot = s2_dnn_time_cleanup(img.time_addr, num_layers);
    put(img.bytes, finish_off, fin);
    return img;
}

namespace {

// Reads structs out of an image through its global addresses, checking every range.
class Reader {
public:
    Reader(const std::vector<uint8_t>& bytes, uint32_t base, uint64_t size)
        : m_bytes(bytes), m_base(base), m_size(size) {}

    void check(uint64_t addr, uint64_t len, const char* what, bool aligned = true) const {
        std::ostringstream os;
        if (addr < m_base || addr - m_base > m_size || len > m_size - (addr - m_base)) {
            os << "DRAM image: " << what << " [0x" << std::hex << addr << ", +0x" << len
               << ") outside the image [0x" << m_base << ", +0x" << m_size << ")";
            throw std::runtime_error(os.str());
        }
        if (aligned && addr % S2_DNN_ALIGN != 0) {
            os << "DRAM image: " << what << " at 0x" << std::hex << addr << " not 16-byte aligned";
            throw std::runtime_error(os.str());
        }
    }
    template <typename T>
    T read(uint64_t addr, const char* what) const {
        check(addr, sizeof(T), what, false);
        T v;
        std::memcpy(&v, m_bytes.data() + (addr - m_base), sizeof v);
        return v;
    }

private:
    const std::vector<uint8_t>& m_bytes;
    uint64_t m_base, m_size;
};

}  // namespace

DecodedImage decode_image(const std::vector<uint8_t>& bytes, uint32_t base) {
    DecodedImage d;
    if (bytes.size() < sizeof(s2_dnn_global_t))
        throw std::runtime_error("DRAM image: truncated (" + std::to_string(bytes.size()) +
                                 " B, the global configuration alone is 64 B)");
    std::memcpy(&d.global, bytes.data(), sizeof d.global);
    const s2_dnn_global_t& g = d.global;
    if (g.magic != S2_DNN_IMAGE_MAGIC) throw std::runtime_error("DRAM image: bad magic");
    if (g.version != S2_DNN_IMAGE_VERSION)
        throw std::runtime_error("DRAM image: version " + std::to_string(g.version) +
                                 ", expected " + std::to_string(S2_DNN_IMAGE_VERSION));
    if (g.image_size > bytes.size())
        throw std::runtime_error("DRAM image: truncated (" + std::to_string(bytes.size()) +
                                 " B of " + std::to_string(g.image_size) + ")");
    const Reader r(bytes, base, g.image_size);
    r.check(g.worker_pes, 4ull * g.num_workers, "worker PE list");
    for (uint32_t w = 0; w < g.num_workers; ++w)
        d.worker_pes.push_back(r.read<uint32_t>(uint64_t{g.worker_pes} + 4ull * w, "worker PE"));
    if (g.time_size != s2_dnn_time_size(g.num_layers, g.num_workers))
        throw std::runtime_error("DRAM image: time area size does not match layers and workers");
    r.check(g.time_addr, g.time_size, "time area");
    r.check(g.data_addr, g.data_size, "data memory");
    r.check(g.input_addr, g.input_size, "input");
    r.check(g.output_addr, g.output_size, "output");

    uint64_t at = g.first_layer;
    for (uint32_t i = 0;; ++i) {
        r.check(at, sizeof(s2_dnn_layer_t), "layer header");
        DecodedLayer dl;
        dl.addr = static_cast<uint32_t>(at);
        dl.header = r.read<s2_dnn_layer_t>(at, "layer header");
        const s2_dnn_layer_t& h = dl.header;
        if (h.index != i)
            throw std::runtime_error("DRAM image: layer " + std::to_string(i) + " has index " +
                                     std::to_string(h.index));
        if (h.type == S2_DNN_LAYER_FINISH) {
            if (i != g.num_layers)
                throw std::runtime_error("DRAM image: FINISH after " + std::to_string(i) +
                                         " layers, global configuration says " +
                                         std::to_string(g.num_layers));
            d.finish = dl;
            break;
        }
        if (i >= g.num_layers)
            throw std::runtime_error("DRAM image: layer list does not end in FINISH");
        if (h.worker_size != sizeof(s2_dnn_worker_t) || h.num_workers > g.num_workers)
            throw std::runtime_error("DRAM image: layer " + std::to_string(i) +
                                     ": bad worker configuration size or count");
        r.check(h.workers_addr, uint64_t{h.worker_size} * h.num_workers, "worker configurations");
        for (uint32_t w = 0; w < h.num_workers; ++w) {
            DecodedWorker dw;
            dw.cfg = r.read<s2_dnn_worker_t>(uint64_t{h.workers_addr} + uint64_t{h.worker_size} * w,
                                             "worker");
            const s2_dnn_worker_t& c = dw.cfg;
            if (c.weight_addr != 0) {
                // Every part non-empty and all of them inside the image (so a corrupt
                // configuration cannot make the decoder copy more than the image holds).
                if (c.part_n == 0 || c.k == 0 || uint64_t{c.k} * c.n > g.image_size ||
                    uint64_t{c.parts} * c.part_n < c.n ||
                    (c.parts > 0 && uint64_t{c.parts - 1} * c.part_n >= c.n))
                    throw std::runtime_error(
                        "DRAM image: worker parts do not cover its tile (or one is empty)");
                for (uint32_t q = 0; q < c.parts; ++q) {
                    const uint64_t c0 = uint64_t{q} * c.part_n;
                    const uint64_t pn = c0 < c.n ? std::min<uint64_t>(c.part_n, c.n - c0) : 0;
                    const uint64_t wa = c.weight_addr + uint64_t{q} * c.weight_part_stride;
                    r.check(wa, uint64_t{c.k} * pn, "weights");
                    dw.weights.emplace_back(bytes.begin() + static_cast<std::ptrdiff_t>(wa - base),
                                            bytes.begin() + static_cast<std::ptrdiff_t>(
                                                                wa - base + uint64_t{c.k} * pn));
                    if (c.flags & S2_DNN_FLAG_BIAS) {
                        const uint64_t ba = c.bias_addr + uint64_t{q} * c.bias_part_stride;
                        r.check(ba, 4 * pn, "biases");
                        std::vector<int32_t> b(pn);
                        for (uint64_t j = 0; j < pn; ++j)
                            b[j] = r.read<int32_t>(ba + 4 * j, "bias");
                        dw.biases.push_back(std::move(b));
                    }
                }
            }
            r.check(c.time_slot, sizeof(s2_dnn_worker_time_t), "worker time slot", false);
            dl.workers.push_back(std::move(dw));
        }
        d.layers.push_back(std::move(dl));
        at = h.next;
    }
    return d;
}

}  // namespace nmsim::compiler
