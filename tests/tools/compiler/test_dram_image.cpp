// DRAM image: round trips of hand-built linear graphs and the committed MLP (decode through the
// dnn_image.h structs and compare with the graph), alignment and overlap invariants, decoder
// errors, unsupported layers, the committed models run through their worker configurations
// (logits against tools/model_prep, the softmax output against the graph reference), and the
// header compiling with the firmware toolchain.
#include "tools/compiler/dram_image.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include "models/spinnaker2/exp/exp_accel.h"
#include "nmsim/hw/spinnaker2/noc_map.h"
#include "tools/compiler/graph_reference.h"
#include "tools/compiler/onnx_frontend.h"
#include "tools/reference/int_ops.h"

namespace nmsim::compiler {
namespace {

const std::string kModels = std::string(NMSIM_SOURCE_DIR) + "/scenarios/models";

struct Fc {
    int64_t k, n;
    bool relu, bias;
};

// input [m, k0] -> linear layers -> output, random int8 weights and int32 biases (fixed seed).
Graph make_mlp(int64_t m, const std::vector<Fc>& fcs, uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> w8(-128, 127);
    std::uniform_int_distribution<int32_t> b32(-100000, 100000);
    Graph g;
    g.source = "hand.onnx";
    Layer in;
    in.name = "x";
    in.kind = LayerKind::input;
    in.out_shape = {m, fcs.front().k};
    in.out_exponent = 7;
    g.layers.push_back(in);
    std::string prev = "x";
    for (size_t i = 0; i < fcs.size(); ++i) {
        Layer l;
        l.name = "fc" + std::to_string(i);
        l.kind = LayerKind::linear;
        l.inputs = {prev};
        l.in_shapes = {{m, fcs[i].k}};
        l.out_shape = {m, fcs[i].n};
        l.in_exponents = {7};
        l.out_exponent = 6;
        l.relu = fcs[i].relu;
        l.shift = 3 + static_cast<int>(i);
        Tensor w;
        w.shape = {fcs[i].n, fcs[i].k};
        for (int64_t j = 0; j < fcs[i].n * fcs[i].k; ++j)
            w.i8.push_back(static_cast<int8_t>(w8(rng)));
        l.weights = w;
        if (fcs[i].bias) {
            Tensor b;
            b.dtype = DType::i32;
            b.shape = {fcs[i].n};
            for (int64_t j = 0; j < fcs[i].n; ++j) b.i32.push_back(b32(rng));
            l.bias = b;
        }
        g.layers.push_back(l);
        prev = l.name;
    }
    Layer out;
    out.name = "y";
    out.kind = LayerKind::output;
    out.inputs = {prev};
    out.in_shapes = {{m, fcs.back().n}};
    out.out_shape = {m, fcs.back().n};
    g.layers.push_back(out);
    return g;
}

LayerTiling boundary(const std::string& name) {
    LayerTiling t;
    t.layer = name;
    return t;
}

LayerTiling hand_tiling(const std::string& name, uint64_t n, uint32_t workers, uint32_t tile_n,
                        uint32_t parts, uint32_t part_n) {
    LayerTiling t;
    t.layer = name;
    t.outputs = n;
    t.workers = workers;
    t.tile_n = tile_n;
    t.parts = parts;
    t.part_n = part_n;
    t.padded_outputs = uint64_t{workers} * tile_n - n;
    return t;
}

ImageTarget eight_workers() {
    ImageTarget t;
    t.base = s2_dram_global_addr(0, 0);
    t.scheduler_pe = 0;
    for (uint32_t pe = 1; pe <= 8; ++pe) t.worker_pes.push_back(pe);
    return t;
}

// Checks the decoded image against the graph and tiling: list order and types, worker counts,
// next pointers, per-worker configuration, weights (as columns of the transposed weight matrix,
// built here independently) and biases; every column appears exactly once.
void expect_matches(const DramImage& img, const DecodedImage& d, const Graph& g,
                    const std::vector<LayerTiling>& tiling, const ImageTarget& target) {
    EXPECT_EQ(d.global.scheduler_pe, target.scheduler_pe);
    EXPECT_EQ(d.worker_pes, target.worker_pes);
    EXPECT_EQ(d.global.image_size, img.bytes.size());
    const uint64_t lo = img.base, hi = uint64_t{img.base} + img.bytes.size();
    size_t li = 0;
    for (size_t gi = 0; gi < g.layers.size(); ++gi) {
        const Layer& l = g.layers[gi];
        if (l.kind == LayerKind::softmax) {  // a list entry without weights
            ASSERT_LT(li, d.layers.size());
            EXPECT_EQ(d.layers[li].header.type, S2_DNN_LAYER_SOFTMAX);
            EXPECT_EQ(d.layers[li].header.index, li);
            ++li;
            continue;
        }
        if (l.kind != LayerKind::linear) continue;
        SCOPED_TRACE(l.name);
        ASSERT_LT(li, d.layers.size());
        const DecodedLayer& dl = d.layers[li];
        const LayerTiling& t = tiling[gi];
        EXPECT_EQ(dl.header.type, S2_DNN_LAYER_LINEAR);
        EXPECT_EQ(dl.header.index, li);
        EXPECT_EQ(dl.header.num_workers, t.workers);
        const uint32_t next = li + 1 < d.layers.size() ? d.layers[li + 1].addr : d.finish.addr;
        EXPECT_EQ(dl.header.next, next);
        const int64_t n = l.weights->shape[0], k = l.weights->shape[1];
        // Transposed weights B[k][n] of the whole layer, the reference for every worker's slices.
        std::vector<int8_t> bt(static_cast<size_t>(k * n));
        for (int64_t r = 0; r < n; ++r)
            for (int64_t c = 0; c < k; ++c) bt[c * n + r] = l.weights->i8[r * k + c];
        std::vector<int> seen(static_cast<size_t>(n), 0);
        const TensorPlacement& x = img.tensors.at(l.inputs[0]);
        const TensorPlacement& y = img.tensors.at(l.name);
        for (uint32_t w = 0; w < t.workers; ++w) {
            SCOPED_TRACE("worker " + std::to_string(w));
            const DecodedWorker& dw = dl.workers.at(w);
            const s2_dnn_worker_t& c = dw.cfg;
            EXPECT_EQ(c.pe, target.worker_pes[w]);
            EXPECT_EQ(c.k, k);
            EXPECT_EQ(c.m * c.k, shape_elements(l.in_shapes[0]));
            EXPECT_EQ(c.n, t.tile_n);
            EXPECT_EQ(c.parts, t.parts);
            EXPECT_EQ(c.shift, static_cast<uint32_t>(l.shift));
            EXPECT_EQ((c.flags & S2_DNN_FLAG_RELU) != 0, l.relu);
            EXPECT_EQ((c.flags & S2_DNN_FLAG_BIAS) != 0, l.bias.has_value());
            EXPECT_EQ(c.input_addr, x.addr);
            EXPECT_EQ(c.output_addr, y.addr + c.n0);
            EXPECT_EQ(c.output_row_stride, n);
            EXPECT_GE(c.weight_addr, lo);
            EXPECT_LE(c.weight_addr + uint64_t{c.parts} * c.weight_part_stride, hi);
            ASSERT_EQ(dw.weights.size(), t.parts);
            int64_t col = int64_t{w} * t.tile_n;
            for (uint32_t q = 0; q < t.parts; ++q) {
                const size_t pn = dw.weights[q].size() / static_cast<size_t>(k);
                ASSERT_EQ(dw.weights[q].size(), pn * static_cast<size_t>(k));
                for (size_t j = 0; j < pn; ++j, ++col) {
                    for (int64_t kk = 0; kk < k; ++kk) {
                        const int8_t got = dw.weights[q][static_cast<size_t>(kk) * pn + j];
                        const int8_t want = col < n ? bt[kk * n + col] : 0;
                        ASSERT_EQ(got, want) << "part " << q << " column " << col << " row " << kk;
                    }
                    if (l.bias) {
                        ASSERT_EQ(dw.biases.at(q).size(), pn);
                        EXPECT_EQ(dw.biases[q][j], col < n ? l.bias->i32[col] : 0);
                    }
                    if (col < n) ++seen[col];
                }
            }
            EXPECT_EQ(col, int64_t{w + 1} * t.tile_n);  // parts cover the tile exactly
            EXPECT_EQ(c.n_valid,
                      std::max<int64_t>(0, std::min<int64_t>(n, col) - int64_t{w} * t.tile_n));
        }
        for (int64_t c = 0; c < n; ++c) EXPECT_EQ(seen[c], 1) << "column " << c;
        ++li;
    }
    EXPECT_EQ(li, d.layers.size());
    EXPECT_EQ(d.finish.header.type, S2_DNN_LAYER_FINISH);
    EXPECT_EQ(d.finish.header.next, 0u);
    EXPECT_EQ(d.global.input_addr, img.tensors.at(img.input_layer).addr);
    EXPECT_EQ(d.global.output_addr, img.tensors.at(img.output_layer).addr);
    EXPECT_EQ(d.global.output_size, shape_elements(g.layers.back().out_shape));
}

struct Region {
    uint64_t addr, size;
    std::string what;
};

// Every region of the image from the decoded structs: all 16-byte aligned, none overlapping,
// all inside the image.
void expect_regions_ok(const DramImage& img, const DecodedImage& d) {
    std::vector<Region> rs;
    const auto& g = d.global;
    rs.push_back({img.base, sizeof(s2_dnn_global_t), "global"});
    rs.push_back({g.worker_pes, 4ull * g.num_workers, "worker list"});
    rs.push_back({g.time_addr, g.time_size, "time"});
    for (const DecodedLayer* dl : [&] {
             std::vector<const DecodedLayer*> v;
             for (const auto& l : d.layers) v.push_back(&l);
             v.push_back(&d.finish);
             return v;
         }()) {
        rs.push_back({dl->addr, sizeof(s2_dnn_layer_t), "header"});
        if (dl->header.num_workers)
            rs.push_back({dl->header.workers_addr,
                          uint64_t{dl->header.worker_size} * dl->header.num_workers, "workers"});
        for (const DecodedWorker& w : dl->workers) {
            // A row-split conv2d's workers share the one kernel copy: list it once.
            if ((w.cfg.flags & S2_DNN_FLAG_ROWS) && &w != &dl->workers.front()) {
                EXPECT_EQ(w.cfg.weight_addr, dl->workers.front().cfg.weight_addr);
                continue;
            }
            for (uint32_t q = 0; q < w.weights.size(); ++q) {
                rs.push_back({w.cfg.weight_addr + uint64_t{q} * w.cfg.weight_part_stride,
                              w.weights[q].size(), "weights"});
                if (!w.biases.empty())
                    rs.push_back({w.cfg.bias_addr + uint64_t{q} * w.cfg.bias_part_stride,
                                  4 * w.biases[q].size(), "bias"});
            }
        }
    }
    std::vector<uint32_t> tensor_addrs;
    for (const auto& [name, tp] : img.tensors) {
        EXPECT_GE(tp.addr, g.data_addr) << name;
        EXPECT_LE(uint64_t{tp.addr} + tp.size, uint64_t{g.data_addr} + g.data_size) << name;
        if (std::find(tensor_addrs.begin(), tensor_addrs.end(), tp.addr) != tensor_addrs.end())
            continue;
        tensor_addrs.push_back(tp.addr);
        rs.push_back({tp.addr, tp.size, "tensor " + name});
    }
    std::sort(rs.begin(), rs.end(),
              [](const Region& a, const Region& b) { return a.addr < b.addr; });
    for (size_t i = 0; i < rs.size(); ++i) {
        EXPECT_EQ(rs[i].addr % 16, 0u) << rs[i].what;
        EXPECT_GE(rs[i].addr, img.base) << rs[i].what;
        EXPECT_LE(rs[i].addr + rs[i].size, uint64_t{img.base} + img.bytes.size()) << rs[i].what;
        if (i + 1 < rs.size()) {
            EXPECT_LE(rs[i].addr + rs[i].size, rs[i + 1].addr)
                << rs[i].what << " overlaps " << rs[i + 1].what;
        }
    }
    // The time slots tile the time area exactly, without repeats: the scheduler's intervals
    // (8 B each), then the workers' records (s2_dnn_worker_time_t).
    std::vector<std::pair<uint32_t, uint32_t>> slots{
        {d.finish.header.time_slot, sizeof(s2_dnn_interval_t)},
        {s2_dnn_time_setup(g.time_addr), sizeof(s2_dnn_interval_t)}};
    for (const auto& l : d.layers) {
        slots.push_back({l.header.time_slot, sizeof(s2_dnn_interval_t)});
        for (const auto& w : l.workers)
            slots.push_back({w.cfg.time_slot, sizeof(s2_dnn_worker_time_t)});
    }
    for (uint32_t w = 0; w < g.num_workers; ++w)  // slots of workers a layer does not use
        for (uint32_t l = 0; l < g.num_layers; ++l)
            if (w >= d.layers[l].header.num_workers)
                slots.push_back({s2_dnn_time_worker(g.time_addr, g.num_layers, w, l),
                                 sizeof(s2_dnn_worker_time_t)});
    std::sort(slots.begin(), slots.end());
    uint64_t next = g.time_addr;
    for (const auto& [addr, size] : slots) {
        EXPECT_EQ(addr, next);
        next = uint64_t{addr} + size;
    }
    EXPECT_EQ(next, uint64_t{g.time_addr} + g.time_size);
}

TEST(DramImage, OneLayerWithPartsAndPadding) {
    const Graph g = make_mlp(1, {{20, 37, true, true}}, 1);
    // 3 workers x 16 (the last one has 5 real outputs), parts of 6, 6, 4.
    const std::vector<LayerTiling> t = {boundary("x"), hand_tiling("fc0", 37, 3, 16, 3, 6),
                                        boundary("y")};
    const ImageTarget target = eight_workers();
    const DramImage img = build_image(g, t, target);
    const DecodedImage d = decode_image(img.bytes, img.base);
    EXPECT_EQ(d.global.num_layers, 1u);
    EXPECT_EQ(d.global.num_workers, 8u);
    expect_matches(img, d, g, t, target);
    expect_regions_ok(img, d);
    EXPECT_EQ(d.layers[0].workers[2].cfg.n_valid, 5u);
    EXPECT_EQ(d.layers[0].workers[2].weights[2].size(), 20u * 4);
}

TEST(DramImage, ThreeLayersTwoRowsNoBias) {
    const Graph g =
        make_mlp(2, {{24, 40, true, true}, {40, 33, true, true}, {33, 10, false, false}}, 2);
    const std::vector<LayerTiling> t = {boundary("x"), hand_tiling("fc0", 40, 2, 20, 1, 20),
                                        hand_tiling("fc1", 33, 3, 11, 2, 6),
                                        hand_tiling("fc2", 10, 1, 10, 1, 10), boundary("y")};
    ImageTarget target = eight_workers();
    target.base = s2_dram_global_addr(1, 0x1000);
    target.scheduler_pe = 9;
    const DramImage img = build_image(g, t, target);
    const DecodedImage d = decode_image(img.bytes, img.base);
    ASSERT_EQ(d.layers.size(), 3u);
    expect_matches(img, d, g, t, target);
    expect_regions_ok(img, d);
    EXPECT_EQ(d.layers[1].workers[0].cfg.m, 2u);
    EXPECT_EQ(d.global.input_size, 48u);
    EXPECT_EQ(d.global.output_size, 20u);
    EXPECT_EQ(img.list_layers, (std::vector<std::string>{"fc0", "fc1", "fc2"}));
    // The output tensor is the last layer's (the output layer aliases it).
    EXPECT_EQ(img.tensors.at("y").addr, img.tensors.at("fc2").addr);
}

TEST(DramImage, CommittedMlpReassembles) {
    const Graph g = load_onnx(kModels + "/mlp_fmnist_int8.onnx");
    TilingTarget tt;
    tt.max_workers = 8;
    tt.sram_budget_bytes = 96 * 1024;
    const auto t = tile_graph(g, tt);
    const ImageTarget target = eight_workers();
    const DramImage img = build_image(g, t, target);
    const DecodedImage d = decode_image(img.bytes, img.base);
    expect_matches(img, d, g, t, target);
    expect_regions_ok(img, d);
    // Every weight matrix reassembled from the workers' parts equals the graph's [out][in].
    size_t li = 0;
    for (const Layer& l : g.layers) {
        if (l.kind != LayerKind::linear) continue;
        const int64_t n = l.weights->shape[0], k = l.weights->shape[1];
        std::vector<int8_t> w(static_cast<size_t>(n * k), 0);
        std::vector<int32_t> b(static_cast<size_t>(n), 0);
        for (const DecodedWorker& dw : d.layers[li].workers) {
            int64_t col = dw.cfg.n0;
            for (size_t q = 0; q < dw.weights.size(); ++q) {
                const int64_t pn = static_cast<int64_t>(dw.biases[q].size());
                for (int64_t j = 0; j < pn; ++j, ++col) {
                    if (col >= n) continue;
                    b[col] = dw.biases[q][j];
                    for (int64_t kk = 0; kk < k; ++kk) w[col * k + kk] = dw.weights[q][kk * pn + j];
                }
            }
        }
        EXPECT_EQ(w, l.weights->i8) << l.name;
        EXPECT_EQ(b, l.bias->i32) << l.name;
        ++li;
    }
    EXPECT_EQ(li, 3u);
    EXPECT_EQ(d.layers.size(), 4u);  // FC1..FC3, softmax; Flatten-free MLP
    EXPECT_EQ(d.layers.back().header.type, S2_DNN_LAYER_SOFTMAX);
}

TEST(DramImage, DecoderErrors) {
    const Graph g = make_mlp(1, {{16, 16, false, true}}, 3);
    const std::vector<LayerTiling> t = {boundary("x"), hand_tiling("fc0", 16, 1, 16, 1, 16),
                                        boundary("y")};
    const DramImage img = build_image(g, t, eight_workers());
    const auto expect_error = [&](std::vector<uint8_t> bytes, const std::string& what) {
        try {
            decode_image(bytes, img.base);
            ADD_FAILURE() << "no error, expected " << what;
        } catch (const std::runtime_error& e) {
            EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
        }
    };
    const auto patch = [&](size_t off, uint32_t v) {
        std::vector<uint8_t> b = img.bytes;
        std::memcpy(b.data() + off, &v, 4);
        return b;
    };
    expect_error(patch(offsetof(s2_dnn_global_t, magic), 0x12345678u), "bad magic");
    expect_error(patch(offsetof(s2_dnn_global_t, version), 2u), "version 2");
    expect_error(std::vector<uint8_t>(img.bytes.begin(), img.bytes.end() - 1), "truncated");
    expect_error(std::vector<uint8_t>(img.bytes.begin(), img.bytes.begin() + 10), "truncated");
    expect_error(patch(offsetof(s2_dnn_global_t, first_layer),
                       img.base + static_cast<uint32_t>(img.bytes.size())),
                 "outside the image");
    expect_error(patch(offsetof(s2_dnn_global_t, first_layer), img.base - 64), "outside the image");
    expect_error(patch(offsetof(s2_dnn_global_t, first_layer), img.first_layer_addr + 4),
                 "not 16-byte aligned");
    // The first layer's next pointer back to itself: the list never reaches FINISH.
    expect_error(patch(img.first_layer_addr - img.base + offsetof(s2_dnn_layer_t, next),
                       img.first_layer_addr),
                 "index");
    expect_error(patch(offsetof(s2_dnn_global_t, num_layers), 2u), "time area size");
    EXPECT_NO_THROW(decode_image(img.bytes, img.base));
}

TEST(DramImage, BuildErrors) {
    const Graph g = make_mlp(1, {{16, 40, false, true}}, 4);
    ImageTarget two = eight_workers();
    two.worker_pes.resize(2);
    try {
        build_image(g, {boundary("x"), hand_tiling("fc0", 40, 3, 16, 1, 16), boundary("y")}, two);
        ADD_FAILURE() << "no error";
    } catch (const CompileError& e) {
        EXPECT_NE(std::string(e.what()).find("needs 3 workers, target has 2"), std::string::npos)
            << e.what();
    }
    EXPECT_THROW(
        build_image(g, {boundary("x"), hand_tiling("fc0", 40, 2, 16, 1, 16), boundary("y")}, two),
        CompileError);  // 2 x 16 < 40 outputs
    EXPECT_THROW(build_image(g, {boundary("x"), boundary("y")}, two), CompileError);
    ImageTarget far = eight_workers();
    far.base = S2_DRAM_GLOBAL_BASE + S2_DRAM_GLOBAL_SIZE - 16;
    EXPECT_THROW(
        build_image(g, {boundary("x"), hand_tiling("fc0", 40, 1, 48, 1, 48), boundary("y")}, far),
        CompileError);
}

std::vector<int8_t> read_i8(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    return std::vector<int8_t>(std::istreambuf_iterator<char>(f), {});
}

// Runs the decoded layer list on a copy of the image the way the worker firmware would: per
// worker and part, gather the MLA operands through the worker configuration, run the integer
// reference MLA (tools/reference, independent of the compiler), scatter the results. Maxpool is
// done here per channel on the HWC map; softmax per row with tools/reference's softmax_int8_ref
// and the EXP unit's function (the exponents from the worker configuration). Returns the memory
// image after the run.
std::vector<uint8_t> run_image(std::vector<uint8_t> mem, uint32_t base, const DecodedImage& d,
                               const std::vector<int8_t>& input) {
    const s2_dnn_global_t& g = d.global;
    EXPECT_EQ(input.size(), g.input_size);
    std::memcpy(mem.data() + (g.input_addr - base), input.data(), input.size());
    const auto at = [&](uint64_t addr) -> uint8_t& { return mem.at(addr - base); };
    const auto values = [&](uint64_t addr, uint64_t n) {
        std::vector<int32_t> v(n);
        for (uint64_t i = 0; i < n; ++i) v[i] = static_cast<int8_t>(at(addr + i));
        return v;
    };
    for (const DecodedLayer& dl : d.layers) {
        for (const DecodedWorker& dw : dl.workers) {
            const s2_dnn_worker_t& c = dw.cfg;
            if (dl.header.type == S2_DNN_LAYER_MAXPOOL) {
                for (uint32_t oy = 0; oy < c.out_h; ++oy)
                    for (uint32_t ox = 0; ox < c.out_w; ++ox)
                        for (uint32_t j = 0; j < c.n_valid; ++j) {
                            int v = -128;
                            for (uint32_t ky = 0; ky < c.ker_h; ++ky)
                                for (uint32_t kx = 0; kx < c.ker_w; ++kx) {
                                    const int64_t iy = int64_t{oy} * c.stride - c.pad + ky;
                                    const int64_t ix = int64_t{ox} * c.stride - c.pad + kx;
                                    if (iy < 0 || ix < 0 || iy >= c.in_h || ix >= c.in_w) continue;
                                    v = std::max<int>(
                                        v, static_cast<int8_t>(
                                               at(c.input_addr + (iy * c.in_w + ix) * c.in_c + j)));
                                }
                            at(c.output_addr + uint64_t{oy * c.out_w + ox} * c.output_row_stride +
                               j) = static_cast<uint8_t>(v);
                        }
                continue;
            }
            if (dl.header.type == S2_DNN_LAYER_SOFTMAX) {
                for (uint32_t r = 0; r < c.n_valid; ++r) {
                    std::vector<int8_t> x(c.k);
                    for (uint32_t j = 0; j < c.k; ++j)
                        x[j] = static_cast<int8_t>(at(c.input_addr + uint64_t{r} * c.k + j));
                    const std::vector<int8_t> y =
                        reference::softmax_int8_ref(x, static_cast<int32_t>(c.in_exponent),
                                                    static_cast<int32_t>(c.out_exponent),
                                                    &nmsim::spinnaker2::ExpAccel::compute);
                    for (uint32_t j = 0; j < c.k; ++j)
                        at(c.output_addr + uint64_t{r} * c.output_row_stride + j) =
                            static_cast<uint8_t>(y[j]);
                }
                continue;
            }
            const bool conv = dl.header.type == S2_DNN_LAYER_CONV2D;
            if (!conv && dl.header.type != S2_DNN_LAYER_LINEAR) {
                ADD_FAILURE() << "layer type " << dl.header.type << " not run by this test";
                return mem;
            }
            reference::MlaOp op;
            op.mode = conv ? reference::MlaMode::conv2d : reference::MlaMode::matmul;
            if (c.flags & S2_DNN_FLAG_ROWS) {
                // As worker.c's run_conv_rows: per part the input rows it needs, the MLA with the
                // layer's padding on them, the part's rows of the result.
                op.shift = c.shift;
                op.relu = (c.flags & S2_DNN_FLAG_RELU) != 0;
                op.bias_en = (c.flags & S2_DNN_FLAG_BIAS) != 0;
                op.acc_bits = 48;
                op.k = c.k;
                op.n = op.ofm_c = c.n;
                op.ifm_w = c.in_w;
                op.ifm_c = c.in_c;
                op.ker_h = c.ker_h;
                op.ker_w = c.ker_w;
                op.stride = c.stride;
                op.pad = c.pad;
                const uint64_t in_row = uint64_t{c.in_w} * c.in_c,
                               out_row = uint64_t{c.out_w} * c.n;
                const std::vector<int32_t> b(dw.weights.at(0).begin(), dw.weights.at(0).end());
                for (uint32_t y0 = c.row0; y0 < c.row0 + c.rows; y0 += c.part_rows) {
                    const uint32_t y1 = std::min(c.row0 + c.rows, y0 + c.part_rows);
                    uint32_t r0 = 0, h = 0, skip = 0, rows = 0;
                    EXPECT_TRUE(s2_dnn_conv_rows(y0, y1, c.in_h, c.ker_h, c.stride, c.pad, &r0, &h,
                                                 &skip, &rows));
                    EXPECT_LE(h * in_row, c.input_size);
                    EXPECT_LE(rows, c.out_rows_max);
                    op.ifm_h = h;
                    op.m = rows * c.out_w;
                    const std::vector<int32_t> r =
                        reference::mla_ref(op, values(c.input_addr + r0 * in_row, h * in_row), b,
                                           op.bias_en ? dw.biases.at(0) : std::vector<int32_t>{});
                    for (uint64_t i = 0; i < (y1 - y0) * out_row; ++i)
                        at(c.output_addr + y0 * out_row + i) =
                            static_cast<uint8_t>(r.at(skip * out_row + i));
                }
                continue;
            }
            op.shift = c.shift;
            op.relu = (c.flags & S2_DNN_FLAG_RELU) != 0;
            op.bias_en = (c.flags & S2_DNN_FLAG_BIAS) != 0;
            op.acc_bits = 48;  // the model_prep reference accumulates exactly
            op.m = c.m;
            op.k = c.k;
            op.ifm_h = c.in_h;
            op.ifm_w = c.in_w;
            op.ifm_c = c.in_c;
            op.ker_h = c.ker_h;
            op.ker_w = c.ker_w;
            op.stride = c.stride;
            op.pad = c.pad;
            const std::vector<int32_t> a = values(c.input_addr, c.input_size);
            for (uint32_t q = 0; q < c.parts; ++q) {
                const uint32_t pn = static_cast<uint32_t>(dw.weights[q].size() / c.k);
                op.n = op.ofm_c = pn;
                std::vector<int32_t> b(dw.weights[q].begin(), dw.weights[q].end());
                const std::vector<int32_t> r = reference::mla_ref(
                    op, a, b, op.bias_en ? dw.biases[q] : std::vector<int32_t>{});
                for (uint32_t row = 0; row < c.m; ++row)
                    for (uint32_t j = 0; j < pn; ++j)
                        if (q * c.part_n + j < c.n_valid)
                            at(c.output_addr + uint64_t{row} * c.output_row_stride + q * c.part_n +
                               j) = static_cast<uint8_t>(r[uint64_t{row} * pn + j]);
            }
        }
    }
    return mem;
}

std::vector<int8_t> tensor_of(const std::vector<uint8_t>& mem, uint32_t base, uint32_t addr,
                              uint64_t size) {
    std::vector<int8_t> v(size);
    for (uint64_t i = 0; i < size; ++i) v[i] = static_cast<int8_t>(mem.at(addr - base + i));
    return v;
}

// The committed models compiled to images and run through their worker configurations: the
// logits (the softmax's input tensor) equal the committed integer-reference logits
// (tools/model_prep) and the output equals the graph reference (tools/compiler/graph_reference.h,
// independent of tiling and the image), for the first 20 test images.
void expect_reference_logits(const std::string& model, const std::string& logits, uint32_t workers,
                             uint64_t budget) {
    const Graph g = load_onnx(kModels + "/" + model);
    TilingTarget tt;
    tt.max_workers = workers;
    tt.sram_budget_bytes = budget;
    ImageTarget target = eight_workers();
    target.worker_pes.clear();
    for (uint32_t pe = 1; pe <= workers; ++pe) target.worker_pes.push_back(pe);
    const DramImage img = build_image(g, tile_graph(g, tt), target);
    const DecodedImage d = decode_image(img.bytes, img.base);
    expect_regions_ok(img, d);
    const std::vector<int8_t> images = read_i8(kModels + "/fmnist_test_1000.bin");
    const std::vector<int8_t> ref = read_i8(kModels + "/" + logits);
    ASSERT_EQ(images.size(), 1000u * 784);
    ASSERT_EQ(ref.size(), 1000u * 16);
    const Layer* sm = g.find(g.layers.back().inputs.at(0));
    ASSERT_TRUE(sm && sm->kind == LayerKind::softmax);
    const std::string logit_layer = sm->inputs.at(0);
    for (size_t i = 0; i < 20; ++i) {
        const std::vector<int8_t> x(images.begin() + static_cast<std::ptrdiff_t>(i * 784),
                                    images.begin() + static_cast<std::ptrdiff_t>((i + 1) * 784));
        const std::vector<int8_t> want(ref.begin() + static_cast<std::ptrdiff_t>(i * 16),
                                       ref.begin() + static_cast<std::ptrdiff_t>((i + 1) * 16));
        const std::vector<uint8_t> mem = run_image(img.bytes, img.base, d, x);
        const TensorPlacement& lt = img.tensors.at(logit_layer);
        ASSERT_EQ(tensor_of(mem, img.base, lt.addr, lt.size), want) << model << " image " << i;
        ReferenceOptions opt;
        opt.exp = &nmsim::spinnaker2::ExpAccel::compute;
        opt.acc_bits = 48;
        const auto ref_out = run_reference(g, x, opt);
        ASSERT_EQ(tensor_of(mem, img.base, d.global.output_addr, d.global.output_size),
                  ref_out.at(g.layers.back().name))
            << model << " image " << i;
    }
}

TEST(DramImage, MlpImageGivesReferenceLogits) {
    expect_reference_logits("mlp_fmnist_int8.onnx", "mlp_fmnist_int8_ref_logits_1000.bin", 8,
                            96 * 1024);
}

// Also with 3 workers and a 6 KiB budget: a padded linear tile (3 x 6 for 16 outputs) and a
// maxpool in 2 parts.
TEST(DramImage, CnnImageGivesReferenceLogits) {
    expect_reference_logits("cnn_fmnist_int8.onnx", "cnn_fmnist_int8_ref_logits_1000.bin", 8,
                            96 * 1024);
    expect_reference_logits("cnn_fmnist_int8.onnx", "cnn_fmnist_int8_ref_logits_1000.bin", 3,
                            6 * 1024);
}

// The conv kernel and the linear layer after Flatten, checked element by element against the
// graph's NCHW weights.
TEST(DramImage, CnnKernelAndFlattenPermutation) {
    const Graph g = load_onnx(kModels + "/cnn_fmnist_int8.onnx");
    TilingTarget tt;
    tt.max_workers = 8;
    tt.sram_budget_bytes = 96 * 1024;
    const DramImage img = build_image(g, tile_graph(g, tt), eight_workers());
    const DecodedImage d = decode_image(img.bytes, img.base);
    ASSERT_EQ(d.layers.size(), 6u);  // conv, maxpool, conv, maxpool, linear, softmax (flatten is
                                     // a view)
    EXPECT_EQ(img.tensors.at("/6/Flatten").addr, img.tensors.at("/5/MaxPool").addr);
    EXPECT_EQ(img.tensors.at("/6/Flatten").hwc, (std::vector<int64_t>{16, 7, 7}));
    size_t li = 0;
    int checked = 0;
    for (const Layer& l : g.layers) {
        if (l.kind == LayerKind::input || l.kind == LayerKind::output ||
            l.kind == LayerKind::flatten)
            continue;
        const DecodedLayer& dl = d.layers[li++];
        if (!l.weights) continue;
        const Shape& ws = l.weights->shape;
        for (const DecodedWorker& dw : dl.workers) {
            if ((dw.cfg.flags & S2_DNN_FLAG_ROWS) && &dw != &dl.workers.front()) continue;
            int64_t col = dw.cfg.n0;
            for (size_t q = 0; q < dw.weights.size(); ++q) {
                const int64_t pn = static_cast<int64_t>(dw.weights[q].size() / dw.cfg.k);
                for (int64_t j = 0; j < pn; ++j, ++col) {
                    if (col >= ws[0]) continue;
                    if (l.kind == LayerKind::conv2d) {
                        EXPECT_EQ(dl.header.type, S2_DNN_LAYER_CONV2D);
                        const int64_t ic = ws[1], kh = ws[2], kw = ws[3];
                        for (int64_t c = 0; c < ic; ++c)
                            for (int64_t y = 0; y < kh; ++y)
                                for (int64_t x = 0; x < kw; ++x, ++checked)
                                    ASSERT_EQ(dw.weights[q][((y * kw + x) * ic + c) * pn + j],
                                              l.weights->i8[((col * ic + c) * kh + y) * kw + x]);
                    } else {
                        for (int64_t c = 0; c < 16; ++c)
                            for (int64_t h = 0; h < 7; ++h)
                                for (int64_t x = 0; x < 7; ++x, ++checked)
                                    ASSERT_EQ(dw.weights[q][((h * 7 + x) * 16 + c) * pn + j],
                                              l.weights->i8[col * 784 + c * 49 + h * 7 + x]);
                    }
                }
            }
        }
    }
    EXPECT_EQ(checked, 8 * 9 + 16 * 8 * 9 + 16 * 784);
}

TEST(DramImage, FeatureMapErrors) {
    Graph g = load_onnx(kModels + "/cnn_fmnist_int8.onnx");
    TilingTarget tt;
    tt.max_workers = 8;
    tt.sram_budget_bytes = 96 * 1024;
    const auto t = tile_graph(g, tt);
    g.layers[1].window.pad_bottom = 0;  // asymmetric padding: the MLA has one PAD
    try {
        build_image(g, t, eight_workers());
        ADD_FAILURE() << "no error";
    } catch (const CompileError& e) {
        EXPECT_NE(std::string(e.what()).find(
                      "'/0/Conv' (conv2d): the image has one stride and one symmetric padding"),
                  std::string::npos)
            << e.what();
    }
}

TEST(DramImage, TimeHelpers) {
    const uint32_t a = 0x20000100u;
    EXPECT_EQ(s2_dnn_time_size(3, 8), 8u * 5u + 16u * 24u);
    EXPECT_EQ(s2_dnn_time_setup(a), a);
    EXPECT_EQ(s2_dnn_time_layer(a, 0), a + 8);
    EXPECT_EQ(s2_dnn_time_layer(a, 2), a + 24);
    EXPECT_EQ(s2_dnn_time_cleanup(a, 3), a + 32);
    EXPECT_EQ(s2_dnn_time_worker(a, 3, 0, 0), a + 40);
    EXPECT_EQ(s2_dnn_time_worker(a, 3, 0, 1), a + 56);
    EXPECT_EQ(s2_dnn_time_worker(a, 3, 7, 2), a + 40 + 16 * 23);
}

// The header builds with the firmware toolchain as C11 (the test itself builds it as C++17).
TEST(DramImage, HeaderCompilesForFirmware) {
    if (std::system("arm-none-eabi-gcc --version > /dev/null 2>&1") != 0)
        GTEST_SKIP() << "arm-none-eabi-gcc not found";
    const auto dir = std::filesystem::temp_directory_path();
    const std::string src =
        (dir / ("dnn_image_check_" + std::to_string(::getpid()) + ".c")).string();
    {
        std::ofstream f(src);
        f << "#include \"nmsim/hw/spinnaker2/dnn_image.h\"\n"
             "uint32_t f(const s2_dnn_global_t* g) {\n"
             "  return s2_dnn_time_worker(g->time_addr, g->num_layers, 1u, 0u) + "
             "S2_DNN_IMAGE_MAGIC;\n"
             "}\n";
    }
    const std::string cmd =
        "arm-none-eabi-gcc -std=c11 -mcpu=cortex-m4 -mthumb -Wall -Wextra -Werror "
        "-pedantic -fsyntax-only -I" NMSIM_SOURCE_DIR "/firmware/include " +
        src;
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    std::remove(src.c_str());
}

}  // namespace
}  // namespace nmsim::compiler
