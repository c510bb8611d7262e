// Tiling: hand-worked tile sizes, parts and bytes; the MLA cycle formula; the seed 000 MLP shapes;
// invariants over random shapes; the unmappable-layer error.
#include <gtest/gtest.h>

#include <limits>
#include <random>

#include "tools/compiler/tiling.h"

namespace nmsim::compiler {
namespace {

Layer linear(const std::string& name, int64_t k, int64_t n, int64_t m = 1, bool bias = true) {
    Layer l;
    l.name = name;
    l.kind = LayerKind::linear;
    l.inputs = {"in"};
    l.in_shapes = {{m, k}};
    l.out_shape = {m, n};
    Tensor w;
    w.shape = {n, k};
    w.i8.assign(static_cast<size_t>(n * k), 1);
    l.weights = w;
    if (bias) {
        Tensor b;
        b.shape = {n};
        b.dtype = DType::i32;
        b.i32.assign(static_cast<size_t>(n), 0);
        l.bias = b;
    }
    return l;
}

Layer conv(const std::string& name, int64_t ic, int64_t oc, int64_t kh, int64_t h, bool bias) {
    Layer l;
    l.name = name;
    l.kind = LayerKind::conv2d;
    l.inputs = {"in"};
    l.in_shapes = {{1, ic, h, h}};
    l.out_shape = {1, oc, h - kh + 1, h - kh + 1};
    l.window.kernel_h = l.window.kernel_w = static_cast<int>(kh);
    Tensor w;
    w.shape = {oc, ic, kh, kh};
    w.i8.assign(static_cast<size_t>(oc * ic * kh * kh), 1);
    l.weights = w;
    if (bias) {
        Tensor b;
        b.shape = {oc};
        b.dtype = DType::i32;
        b.i32.assign(static_cast<size_t>(oc), 0);
        l.bias = b;
    }
    return l;
}

TilingTarget target(uint32_t workers, uint64_t budget, uint32_t parts = 64) {
    TilingTarget t;
    t.max_workers = workers;
    t.sram_budget_bytes = budget;
    t.max_parts = parts;
    return t;
}

TEST(Tiling, MlaCyclesHandWorked) {
    TilingTarget t;
    t.mla_fetch_bytes_per_cycle = 16;  // the hand-worked numbers use a 16 B/cycle fetch
    // 4 column tiles of 1x16: k_loop max(784, ceil(784*17/16)=833), bias 4, write-back 1.
    EXPECT_EQ(mla_gemm_cycles(1, 784, 64, t), 16u + 4u * (833u + 4u + 1u));
    // Tiles (4x16) 13+4+4, (4x4) 10+1+1, (2x16) 12+4+2, (2x4) 10+1+1, plus start-up 16.
    EXPECT_EQ(mla_gemm_cycles(6, 10, 20, t), 16u + 21u + 12u + 18u + 12u);
}

TEST(Tiling, SingleWorkerFitsInOnePart) {
    const LayerTiling r = tile_layer(linear("fc", 64, 32), target(1, 1 << 20));
    EXPECT_EQ(r.workers, 1u);
    EXPECT_EQ(r.tile_n, 32u);
    EXPECT_EQ(r.parts, 1u);
    EXPECT_EQ(r.part_n, 32u);
    EXPECT_EQ(r.padded_outputs, 0u);
    // weights 64*32 + bias 4*32 + input 64 + output 32, all multiples of 16.
    EXPECT_EQ(r.bytes_per_worker, 2048u + 128u + 64u + 32u);
}

TEST(Tiling, SplitsTileIntoPartsWhenSramIsShort) {
    // K=100, N=48 on one worker: 48 columns need 5152 B, 32 need 3472 B, 16 need
    // 1600 + 64 + 112 (input 100 -> 112) + 16 = 1792 B <= 2000.
    const LayerTiling r = tile_layer(linear("fc", 100, 48), target(1, 2000));
    EXPECT_EQ(r.workers, 1u);
    EXPECT_EQ(r.tile_n, 48u);
    EXPECT_EQ(r.parts, 3u);
    EXPECT_EQ(r.part_n, 16u);
    EXPECT_EQ(r.bytes_per_worker, 1792u);
    EXPECT_EQ(r.mla_cycles, 3 * mla_gemm_cycles(1, 100, 16, TilingTarget{}));
}

TEST(Tiling, PadsTilesToMlaWidth) {
    // N=40 on 3 workers: ceil(40/3)=14 -> 16 per worker, 8 padding outputs. With one part only
    // 1 and 2 workers (tiles 48 and 32) do not fit 2000 B.
    const LayerTiling r = tile_layer(linear("fc", 100, 40), target(3, 2000, 1));
    EXPECT_EQ(r.workers, 3u);
    EXPECT_EQ(r.tile_n, 16u);
    EXPECT_EQ(r.padded_outputs, 8u);
    EXPECT_EQ(r.bytes_per_worker, 1792u);
    // DRAM: 3 inputs of 100, padded weights 48*100, bias 48*4, outputs 40.
    EXPECT_EQ(r.dram_bytes, 300u + 4800u + 192u + 40u);
}

TEST(Tiling, FallsBackToUnalignedTilesWhenAlignedLeavesAWorkerIdle) {
    // N=30 on 3 workers: 16-wide tiles would leave the third worker 0 outputs, so tiles of 10.
    // Bytes: weights 1000 -> 1008, bias 40 -> 48, input 112, output 10 -> 16 = 1184.
    const LayerTiling r = tile_layer(linear("fc", 100, 30), target(3, 1200, 1));
    EXPECT_EQ(r.workers, 3u);
    EXPECT_EQ(r.tile_n, 10u);
    EXPECT_EQ(r.padded_outputs, 0u);
    EXPECT_EQ(r.bytes_per_worker, 1184u);
}

TEST(Tiling, Conv2dUsesChannelsAsOutputs) {
    // weights 8x3x3x3 (K=27), output 8x8x8 (M=64): one 16-channel tile (8 padding), weights
    // 27*16=432, bias 64, input 300 -> 304, output 64*16 = 1024. Two strides: the MLA cannot
    // run row slices of it, so only the channel split is possible.
    Layer l = conv("c1", 3, 8, 3, 10, true);
    l.window.stride_w = 2;
    const LayerTiling r = tile_layer(l, target(1, 4096));
    EXPECT_FALSE(r.split_rows);
    EXPECT_EQ(r.outputs, 8u);
    EXPECT_EQ(r.tile_n, 16u);
    EXPECT_EQ(r.padded_outputs, 8u);
    EXPECT_EQ(r.bytes_per_worker, 432u + 64u + 304u + 1024u);
    EXPECT_EQ(r.mla_cycles, mla_gemm_cycles(64, 27, 16, TilingTarget{}));
}

TEST(Tiling, Conv2dSplitByOutputRows) {
    // The same conv by rows on one worker: the whole kernel 27*8 = 216 -> 224, bias 32, all 10
    // input rows of 30 B = 300 -> 304, 8 output rows of 8 pixels x 8 channels = 512; no padded
    // channels, so less MLA work than the 16-wide channel tile.
    const Layer l = conv("c1", 3, 8, 3, 10, true);
    LayerTiling r = tile_layer(l, target(1, 4096));
    EXPECT_TRUE(r.split_rows);
    EXPECT_EQ(r.outputs, 8u);  // output rows
    EXPECT_EQ(r.tile_n, 8u);
    EXPECT_EQ(r.parts, 1u);
    EXPECT_EQ(r.bytes_per_worker, 224u + 32u + 304u + 512u);
    EXPECT_EQ(r.mla_cycles, mla_gemm_cycles(64, 27, 8, TilingTarget{}));
    // A 700 B budget: parts of 4 rows need 6 input rows (180 -> 192) and 256 B of output, 704 B;
    // parts of 3 rows (the last one 2) 5 input rows (150 -> 160) and 192 B: 608 B.
    r = tile_layer(l, target(1, 700));
    EXPECT_TRUE(r.split_rows);
    EXPECT_EQ(r.parts, 3u);
    EXPECT_EQ(r.part_n, 3u);
    EXPECT_EQ(r.bytes_per_worker, 224u + 32u + 160u + 192u);
    // 3 workers: 3 + 3 + 2 rows; each reads the whole kernel and its rows' input.
    r = tile_layer_with(l, target(8, 1 << 20), 3);
    EXPECT_EQ(r.workers, 3u);
    EXPECT_EQ(r.tile_n, 3u);
    EXPECT_EQ(r.dram_bytes, 3u * (216u + 32u) + (5u + 5u + 4u) * 30u + 512u);
}

TEST(Tiling, PoolSplitByOutputRows) {
    // maxpool 2x2 / 2 over an 8-channel 28 x 28 map: 14 output rows of 14 pixels x 8 channels.
    Layer l;
    l.name = "p";
    l.kind = LayerKind::maxpool;
    l.inputs = {"in"};
    l.in_shapes = {{1, 8, 28, 28}};
    l.out_shape = {1, 8, 14, 14};
    l.window.kernel_h = l.window.kernel_w = 2;
    l.window.stride_h = l.window.stride_w = 2;
    // 7 workers x 2 rows: each reads its 4 input rows (4 x 224 B) and writes 2 x 112 B.
    const TilingTarget t = target(8, 1 << 20);
    LayerTiling r = tile_layer_with(l, t, 7);
    EXPECT_TRUE(r.split_rows);
    EXPECT_EQ(r.tile_n, 2u);
    EXPECT_EQ(r.parts, 1u);
    EXPECT_EQ(r.bytes_per_worker, 896u + 224u + 16u);
    EXPECT_EQ(r.dram_bytes, 7u * 896u + 14u * 112u);
    // One input and one output DMA, no weights; the core loop over 28 pixels of two words of
    // four channels, four taps each.
    EXPECT_EQ(r.cost.dma_transfers, 2u);
    EXPECT_EQ(r.cost.dma_weights, 0.0);
    EXPECT_EQ(r.cost.word_stores, 0u);
    const auto per_pixel = [&t](double words, double single) {
        return (t.pool_cycles_per_pixel +
                words * (t.pool_cycles_per_word + 4 * t.pool_cycles_per_word_tap) +
                single * (t.pool_cycles_per_channel + 4 * t.pool_cycles_per_tap)) /
               t.clock_hz;
    };
    EXPECT_NEAR(r.cost.compute, 28 * per_pixel(2, 0), 1e-12);
    // A 600 B budget: parts of one row (2 input rows, 448 B, and 112 B of output), plus the
    // 16 B tap-offset table.
    r = tile_layer_with(l, target(8, 600), 7);
    EXPECT_TRUE(r.split_rows);
    EXPECT_EQ(r.parts, 2u);
    EXPECT_EQ(r.bytes_per_worker, 448u + 112u + 16u);
    // avgpool has no word path: eight single channels.
    l.kind = LayerKind::avgpool;
    r = tile_layer_with(l, t, 7);
    EXPECT_NEAR(r.cost.compute, 28 * per_pixel(0, 8), 1e-12);
}

// The write-back as worker.c does it: a channel split writes one short row per output pixel
// (word stores when aligned and <= 16 B, else one DMA each), a row split one DMA per part.
TEST(Tiling, EstimateCountsEveryWriteBack) {
    const Layer l = conv("c", 3, 8, 3, 10, false);  // 8 x 8 pixels, 8 channels, no bias
    TilingTarget t = target(8, 1 << 20);
    LayerTiling x;
    x.workers = 2;
    x.outputs = 8;
    x.tile_n = 4;
    x.parts = 1;
    x.part_n = 4;
    LayerCost c = estimate(l, x, t);
    EXPECT_EQ(c.word_stores, 64u);   // one 4-byte row per pixel
    EXPECT_EQ(c.dma_transfers, 2u);  // input, weights
    EXPECT_NEAR(c.dma_out, 64 * (t.ext_access_s + t.store_word_cycles / t.clock_hz), 1e-12);
    x.workers = 4;  // 2-channel rows are not word-aligned: one DMA per pixel
    x.tile_n = x.part_n = 2;
    c = estimate(l, x, t);
    EXPECT_EQ(c.word_stores, 0u);
    EXPECT_EQ(c.dma_transfers, 2u + 64u);
    EXPECT_GT(c.dma_out, 64 * t.dma_setup_cycles / t.clock_hz);
    LayerTiling r;  // rows: 2 workers x 4 rows in 2 parts of 2
    r.split_rows = true;
    r.workers = 2;
    r.outputs = 8;
    r.tile_n = 4;
    r.parts = 2;
    r.part_n = 2;
    c = estimate(l, r, t);
    EXPECT_EQ(c.word_stores, 0u);
    EXPECT_EQ(c.dma_transfers, 1u + 2u * 2u);  // the kernel; per part input and output
    // Configuration, input and kernel DMAs and the scheduler come on top of MLA and write-back.
    EXPECT_GT(c.total(), c.compute + c.dma_out);
}

TEST(Tiling, WeightlessLayersShareTheirUnitsAndSplitIntoParts) {
    Layer sm;
    sm.name = "softmax";
    sm.kind = LayerKind::softmax;
    sm.in_shapes = {{1, 16}};
    sm.out_shape = {1, 16};
    LayerTiling r = tile_layer(sm, target(8, 1024));
    EXPECT_EQ(r.workers, 1u);  // one row
    EXPECT_EQ(r.parts, 1u);
    EXPECT_EQ(r.bytes_per_worker, 32u);

    // Add of two [1, 4096]: 3 x 4096 B on one worker. Against a 4096 B budget 2 parts need
    // 3 x 2048 B and 3 parts 3 x 1376 (1366 aligned) = 4128 B: 4 parts of 1024.
    Layer add;
    add.name = "sum";
    add.kind = LayerKind::add;
    add.in_shapes = {{1, 4096}, {1, 4096}};
    add.out_shape = {1, 4096};
    r = tile_layer(add, target(1, 4096));
    EXPECT_EQ(r.outputs, 4096u);
    EXPECT_EQ(r.workers, 1u);
    EXPECT_EQ(r.parts, 4u);
    EXPECT_EQ(r.part_n, 1024u);
    EXPECT_EQ(r.bytes_per_worker, 3u * 1024u);
    // With 8 workers the core loop is shared: 512 elements each, one part.
    r = tile_layer(add, target(8, 4096));
    EXPECT_EQ(r.workers, 8u);
    EXPECT_EQ(r.tile_n, 512u);
    EXPECT_EQ(r.parts, 1u);
    ASSERT_EQ(r.candidates.size(), 8u);
    EXPECT_GT(r.candidates[0], r.est_cost);

    Layer in;
    in.name = "x";
    in.kind = LayerKind::input;
    EXPECT_EQ(tile_layer(in, target(8, 16)).workers, 0u);
}

TEST(Tiling, PrefersFewerWorkersWhenCostsAreEqual) {
    TilingTarget t = target(8, 1 << 20);
    t.dram_bytes_per_s = std::numeric_limits<double>::infinity();
    t.clock_hz = std::numeric_limits<double>::infinity();
    t.ext_access_s = t.dma_burst_s = 0;
    t.trigger_cycles = t.layer_cycles = t.worker_cycles = t.part_cycles = 0;
    EXPECT_EQ(tile_layer(linear("fc", 64, 128), t).workers, 1u);
    // Free workers and costly MLA cycles: the most workers win.
    t.clock_hz = 1e6;
    EXPECT_EQ(tile_layer(linear("fc", 64, 128), t).workers, 8u);
}

TEST(Tiling, UnmappableLayerNamesLayerAndResource) {
    Graph g;
    g.source = "net.onnx";
    g.layers = {linear("fc1", 784, 512)};
    // Smallest part: 1 output of a 64-wide tile on 8 workers, 64 parts:
    // weights 784 + bias 4 -> 16 + input 784 + output 1 -> 16 = 1600 B.
    try {
        tile_graph(g, target(8, 1000));
        FAIL() << "expected CompileError";
    } catch (const CompileError& e) {
        EXPECT_STREQ(e.what(),
                     "net.onnx: layer 'fc1' (linear 784x512): a 1-output part needs 1600 B of SRAM "
                     "(weights 784 + bias 16 + input 784 + output 16), budget 1000 B (max 8 "
                     "workers, 64 parts)");
    }
}

// Independent check of one tiling: coverage, equal tiles, bytes recomputed, limits.
void check_valid(const Layer& l, const LayerTiling& r, const TilingTarget& t) {
    ASSERT_GE(r.workers, 1u);
    ASSERT_LE(r.workers, t.max_workers);
    ASSERT_LE(r.parts, t.max_parts);
    EXPECT_LE(r.bytes_per_worker, t.sram_budget_bytes);
    if (r.split_rows) {  // output rows: equal tiles without an idle worker, parts cover a tile
        ASSERT_TRUE(l.kind == LayerKind::conv2d || l.kind == LayerKind::maxpool ||
                    l.kind == LayerKind::avgpool);
        const uint64_t rows = static_cast<uint64_t>(l.out_shape[2]);
        EXPECT_EQ(r.outputs, rows);
        EXPECT_GE(uint64_t{r.workers} * r.tile_n, rows);
        EXPECT_LT(uint64_t{r.workers - 1} * r.tile_n, rows);
        EXPECT_GE(uint64_t{r.parts} * r.part_n, r.tile_n);
        EXPECT_LT(uint64_t{r.parts - 1} * r.part_n, r.tile_n);
        return;
    }
    const Shape& ws = l.weights->shape;
    const uint64_t n = static_cast<uint64_t>(ws[0]);
    const uint64_t k = static_cast<uint64_t>(shape_elements(ws)) / n;
    const uint64_t m = static_cast<uint64_t>(shape_elements(l.out_shape)) / n;
    const uint64_t in = static_cast<uint64_t>(shape_elements(l.in_shapes[0]));
    ASSERT_GE(r.workers, 1u);
    ASSERT_LE(r.workers, t.max_workers);
    ASSERT_LE(r.parts, t.max_parts);
    std::vector<int> owner(n, 0);
    for (uint64_t w = 0; w < r.workers; ++w) {
        uint64_t real = 0;
        for (uint64_t j = w * r.tile_n; j < (w + 1) * r.tile_n; ++j)
            if (j < n) {
                ++owner[j];
                ++real;
            }
        EXPECT_GT(real, 0u) << "worker " << w << " has only padding";
    }
    for (uint64_t j = 0; j < n; ++j) ASSERT_EQ(owner[j], 1) << "output " << j;
    EXPECT_EQ(r.padded_outputs, uint64_t{r.workers} * r.tile_n - n);
    // Parts cover the tile.
    EXPECT_GE(uint64_t{r.parts} * r.part_n, r.tile_n);
    EXPECT_LT(uint64_t{r.parts - 1} * r.part_n, r.tile_n);
    auto al = [&](uint64_t b) { return (b + t.align - 1) / t.align * t.align; };
    const uint64_t bytes =
        al(k * r.part_n) + (l.bias ? al(4 * r.part_n) : 0) + al(in) + al(m * r.part_n);
    EXPECT_EQ(r.bytes_per_worker, bytes);
    EXPECT_LE(r.bytes_per_worker, t.sram_budget_bytes);
}

TEST(Tiling, SeedMlpShapesFitTheBudget) {
    for (uint32_t workers : {8u, 16u, 152u}) {
        const TilingTarget t = target(workers, 96 * 1024);
        for (const Layer& l :
             {linear("fc1", 784, 512), linear("fc2", 512, 256), linear("fc3", 256, 16)}) {
            SCOPED_TRACE(l.name + " max_workers " + std::to_string(workers));
            const LayerTiling r = tile_layer(l, t);
            check_valid(l, r, t);
        }
    }
    // fc1's 401 KB of weights cannot sit on fewer than 5 workers in one part.
    const LayerTiling r = tile_layer(linear("fc1", 784, 512), target(8, 96 * 1024, 1));
    EXPECT_GE(r.workers, 5u);
}

TEST(Tiling, RandomShapesKeepInvariants) {
    std::mt19937 rng(1234);
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    int mapped = 0, unmappable = 0;
    for (int i = 0; i < 300; ++i) {
        const Layer l =
            pick(0, 1) ? linear("l", pick(1, 1500), pick(1, 700), pick(1, 3), pick(0, 1))
                       : conv("c", pick(1, 8), pick(1, 70), pick(1, 3), pick(3, 20), pick(0, 1));
        const TilingTarget t =
            target(static_cast<uint32_t>(pick(1, 40)), static_cast<uint64_t>(pick(64, 200000)),
                   static_cast<uint32_t>(pick(1, 16)));
        SCOPED_TRACE("case " + std::to_string(i));
        try {
            check_valid(l, tile_layer(l, t), t);
            ++mapped;
        } catch (const CompileError& e) {
            EXPECT_NE(std::string(e.what()).find("budget"), std::string::npos);
            // Lower bound: every tile has at least ceil(N / workers) outputs and every part at
            // least ceil(tile / max_parts); if even that part fits, the layer was mappable.
            const Shape& ws = l.weights->shape;
            const uint64_t n = static_cast<uint64_t>(ws[0]);
            const uint64_t k = static_cast<uint64_t>(shape_elements(ws)) / n;
            const uint64_t m = static_cast<uint64_t>(shape_elements(l.out_shape)) / n;
            const uint64_t in = static_cast<uint64_t>(shape_elements(l.in_shapes[0]));
            const uint64_t w = std::min<uint64_t>(t.max_workers, n);
            const uint64_t tile = (n + w - 1) / w;
            const uint64_t part = (tile + t.max_parts - 1) / t.max_parts;
            auto al = [](uint64_t b) { return (b + 15) / 16 * 16; };
            EXPECT_GT(al(k * part) + (l.bias ? al(4 * part) : 0) + al(in) + al(m * part),
                      t.sram_budget_bytes);
            ++unmappable;
        }
    }
    EXPECT_GT(mapped, 100);
    EXPECT_GT(unmappable, 5);
}

}  // namespace
}  // namespace nmsim::compiler
