// Hagen-mode operators (tools/compiler/bss2/hagen_ops.h): the tiles cover the weight matrix
// exactly once and rotate over the chip halves; the ideal reference equals a direct computation
// of the seed's eq. 1 with the chip's per-tile floor and clamp; the mock follows hxtorch's
// formula; unrolled convolutions equal direct convolutions; bad operands are errors naming the
// operator, the element and the limit.
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <tuple>

#include "tools/compiler/bss2/hagen_ops.h"

namespace {

using namespace nmsim::compiler::bss2::hagen;

IntMatrix random_matrix(uint32_t r, uint32_t c, int32_t lo, int32_t hi, std::mt19937_64& rng) {
    IntMatrix m(r, c);
    for (auto& v : m.v) v = lo + static_cast<int32_t>(rng() % uint64_t(hi - lo + 1));
    return m;
}

TEST(HagenOps, TilesCoverTheMatrixOnceAndRotateOverTheHalves) {
    for (const auto& [in, out, chips] :
         std::vector<std::tuple<uint32_t, uint32_t, uint32_t>>{{1, 1, 1},
                                                               {128, 256, 1},
                                                               {129, 257, 1},
                                                               {300, 600, 2},
                                                               {1000, 70, 3},
                                                               {256, 256, 1}}) {
        const MatmulPlan p = plan_matmul(in, out, chips);
        std::vector<int> hits(size_t{in} * out, 0);
        std::set<std::tuple<uint32_t, uint32_t, uint32_t>> slots;
        for (const Tile& t : p.tiles) {
            EXPECT_LE(t.rows, kTileRows);
            EXPECT_LE(t.cols, kTileCols);
            EXPECT_LT(t.chip, chips);
            EXPECT_LT(t.half, kHalvesPerChip);
            EXPECT_TRUE(slots.insert({t.chip, t.half, t.pass}).second);  // one tile per slot
            for (uint32_t i = t.row0; i < t.row0 + t.rows; ++i)
                for (uint32_t j = t.col0; j < t.col0 + t.cols; ++j) ++hits[size_t{i} * out + j];
        }
        for (int h : hits) ASSERT_EQ(h, 1) << in << "x" << out;
        EXPECT_EQ(p.tiles.size(), size_t{p.row_splits} * p.col_splits);
        EXPECT_EQ(p.passes, (p.tiles.size() + 2 * chips - 1) / (2 * chips));
    }
    // 256 x 256 (seed 002 Fig. 8's chip-sized matrix): two 128-row halves of one chip.
    const MatmulPlan full = plan_matmul(256, 256, 1);
    ASSERT_EQ(full.tiles.size(), 2u);
    EXPECT_EQ(full.passes, 1u);
    EXPECT_EQ(full.tiles[1].half, 1u);
}

TEST(HagenOps, IdealReferenceIsEq1WithThePerTileFloorAndClamp) {
    std::mt19937_64 rng(3);
    const IntMatrix x = random_matrix(5, 300, 0, 31, rng);
    const IntMatrix w = random_matrix(300, 40, -20, 20, rng);
    const MatmulPlan p = plan_matmul(300, 40);
    ASSERT_EQ(p.row_splits, 3u);  // rows 0..127, 128..255, 256..299
    for (uint32_t sends : {1u, 3u}) {
        const IntMatrix y = reference_matmul(x, w, sends, p);
        for (uint32_t b = 0; b < x.rows; ++b)
            for (uint32_t j = 0; j < w.cols; ++j) {
                int64_t sum = 0;
                for (uint32_t r0 : {0u, 128u, 256u}) {
                    int64_t s = 0;
                    for (uint32_t i = r0; i < std::min(300u, r0 + 128); ++i)
                        s += int64_t{x.at(b, i)} * w.at(i, j);
                    s *= sends;
                    const int64_t q = s >= 0 ? s / 512 : -((-s + 511) / 512);
                    sum += std::clamp<int64_t>(q, -128, 127);
                }
                ASSERT_EQ(y.at(b, j), std::clamp<int64_t>(sum, -128, 127)) << b << "," << j;
            }
    }
}

TEST(HagenOps, MockFollowsHxtorchsFormula) {
    std::mt19937_64 rng(4);
    const IntMatrix x = random_matrix(3, 200, 0, 31, rng);
    const IntMatrix w = random_matrix(200, 10, -63, 63, rng);
    const MatmulPlan p = plan_matmul(200, 10);
    // Without noise: floor(sends * gain * s) per chunk, clamped, summed, clamped.
    const IntMatrix y = mock_matmul(x, w, 2, 0.002, 0.0, 1, p);
    for (uint32_t b = 0; b < 3; ++b)
        for (uint32_t j = 0; j < 10; ++j) {
            int64_t total = 0;
            for (uint32_t r0 : {0u, 128u}) {
                int64_t s = 0;
                for (uint32_t i = r0; i < std::min(200u, r0 + 128); ++i)
                    s += int64_t{x.at(b, i)} * w.at(i, j);
                total += std::clamp<int64_t>(
                    static_cast<int64_t>(std::floor(2 * 0.002 * double(s))), -128, 127);
            }
            EXPECT_EQ(y.at(b, j), std::clamp<int64_t>(total, -128, 127));
        }
    // With noise: seeded, and the spread is about the noise (2 LSB per chunk, 2 chunks).
    const IntMatrix n1 = mock_matmul(x, w, 2, 0.002, 2.0, 9, p);
    const IntMatrix n2 = mock_matmul(x, w, 2, 0.002, 2.0, 9, p);
    EXPECT_EQ(n1.v, n2.v);
    double sq = 0;
    int count = 0;
    for (size_t k = 0; k < y.v.size(); ++k)
        if (std::abs(y.v[k]) < 100) {
            sq += double(n1.v[k] - y.v[k]) * (n1.v[k] - y.v[k]);
            ++count;
        }
    ASSERT_GT(count, 10);
    EXPECT_GT(sq / count, 1.0);
    EXPECT_LT(sq / count, 30.0);
    EXPECT_THROW(mock_matmul(x, w, 1, 0.0, 2.0, 1, p), OperatorError);
}

TEST(HagenOps, UnrolledConvolutionsEqualDirectOnes) {
    std::mt19937_64 rng(8);
    // Seed 002's HAR layer: 9 channels x 128 samples, 16 kernels of 32, stride 6.
    Conv1dShape s1{9, 128, 16, 32, 6};
    EXPECT_EQ(s1.out_length(), 17u);  // (128 - 32) / 6 + 1; the seed's table says 16
    const uint32_t batch = 2;
    std::vector<int32_t> x1(size_t{batch} * 9 * 128), k1(16 * 9 * 32);
    for (auto& v : x1) v = static_cast<int32_t>(rng() % 32);
    for (auto& v : k1) v = static_cast<int32_t>(rng() % 127) - 63;
    const IntMatrix prod1 =
        int_matmul(unroll_conv1d_input(x1, batch, s1), unroll_conv1d_weight(k1, s1));
    const std::vector<int32_t> y1 = fold_conv1d_output(prod1, batch, s1);
    for (uint32_t b = 0; b < batch; ++b)
        for (uint32_t o = 0; o < 16; ++o)
            for (uint32_t p = 0; p < 17; ++p) {
                int64_t s = 0;
                for (uint32_t c = 0; c < 9; ++c)
                    for (uint32_t k = 0; k < 32; ++k)
                        s += int64_t{x1[(b * 9 + c) * 128 + p * 6 + k]} * k1[(o * 9 + c) * 32 + k];
                ASSERT_EQ(y1[(b * 16 + o) * 17 + p], s);
            }
    // Conv2d: 3 channels 9x7, 4 kernels 3x2, stride 2.
    Conv2dShape s2{3, 9, 7, 4, 3, 2, 2};
    EXPECT_EQ(s2.out_height(), 4u);
    EXPECT_EQ(s2.out_width(), 3u);
    std::vector<int32_t> x2(size_t{batch} * 3 * 9 * 7), k2(4 * 3 * 3 * 2);
    for (auto& v : x2) v = static_cast<int32_t>(rng() % 32);
    for (auto& v : k2) v = static_cast<int32_t>(rng() % 127) - 63;
    const std::vector<int32_t> y2 = fold_conv2d_output(
        int_matmul(unroll_conv2d_input(x2, batch, s2), unroll_conv2d_weight(k2, s2)), batch, s2);
    for (uint32_t b = 0; b < batch; ++b)
        for (uint32_t o = 0; o < 4; ++o)
            for (uint32_t py = 0; py < 4; ++py)
                for (uint32_t px = 0; px < 3; ++px) {
                    int64_t s = 0;
                    for (uint32_t c = 0; c < 3; ++c)
                        for (uint32_t ky = 0; ky < 3; ++ky)
                            for (uint32_t kx = 0; kx < 2; ++kx)
                                s +=
                                    int64_t{x2[((b * 3 + c) * 9 + py * 2 + ky) * 7 + px * 2 + kx]} *
                                    k2[((o * 3 + c) * 3 + ky) * 2 + kx];
                    ASSERT_EQ(y2[((b * 4 + o) * 4 + py) * 3 + px], s);
                }
}

TEST(HagenOps, BadOperandsNameTheOperatorAndTheLimit) {
    auto message = [](auto&& f) {
        try {
            f();
        } catch (const OperatorError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    IntMatrix x(1, 2), w(2, 1);
    x.at(0, 1) = 32;
    const MatmulPlan p = plan_matmul(2, 1, 1, "linear 'fc1'");
    EXPECT_EQ(message([&] { reference_matmul(x, w, 1, p); }),
              "linear 'fc1': input [0][1] = 32 outside the 5-bit activation range 0..31");
    x.at(0, 1) = 0;
    w.at(1, 0) = -64;
    EXPECT_EQ(message([&] { reference_matmul(x, w, 1, p); }),
              "linear 'fc1': weight [1][0] = -64 outside the 6-bit signed range -63..63");
    EXPECT_EQ(message([&] { plan_matmul(0, 5, 1, "matmul"); }),
              "matmul: an empty weight matrix (0 x 5)");
    EXPECT_EQ(message([&] {
                  check_shape(Conv1dShape{1, 10, 1, 11, 1}, "conv1d 'c'");
              }),
              "conv1d 'c': kernel 11 longer than the input (10)");
    EXPECT_EQ(message([&] {
                  check_shape(Conv2dShape{1, 4, 4, 1, 2, 2, 0}, "conv2d");
              }),
              "conv2d: stride must be >= 1");
    IntMatrix wide(2, 3);
    EXPECT_NE(message([&] { reference_matmul(x, wide, 1, p); }).find("does not match its plan"),
              std::string::npos);
}

}  // namespace
