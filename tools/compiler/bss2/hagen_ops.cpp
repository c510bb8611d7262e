// Hagen-mode operators: tiling, the ideal chip's reference, hxtorch's mock, convolution
// unrolling (hagen_ops.h; docs/bss2_hagen.md).
#include "tools/compiler/bss2/hagen_ops.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace nmsim::compiler::bss2::hagen {

namespace {

uint32_t ceil_div(uint32_t a, uint32_t b) { return (a + b - 1) / b; }

int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

int32_t clamp_out(int64_t v) {
    return static_cast<int32_t>(std::clamp<int64_t>(v, kOutMin, kOutMax));
}

void check_product(const IntMatrix& x, const IntMatrix& w, const MatmulPlan& plan) {
    if (x.cols != w.rows)
        throw OperatorError(plan.op + ": input has " + std::to_string(x.cols) +
                            " features, the weight matrix " + std::to_string(w.rows) + " rows");
    if (w.rows != plan.in_features || w.cols != plan.out_features)
        throw OperatorError(plan.op + ": weight matrix " + std::to_string(w.rows) + " x " +
                            std::to_string(w.cols) + " does not match its plan (" +
                            std::to_string(plan.in_features) + " x " +
                            std::to_string(plan.out_features) + ")");
    check_inputs(x, plan.op);
    check_weights(w, plan.op);
}

}  // namespace

MatmulPlan plan_matmul(uint32_t in_features, uint32_t out_features, uint32_t chips,
                       const std::string& op) {
    if (chips == 0) throw std::invalid_argument("plan_matmul: chips must be >= 1");
    if (in_features == 0 || out_features == 0)
        throw OperatorError(op + ": an empty weight matrix (" + std::to_string(in_features) +
                            " x " + std::to_string(out_features) + ")");
    MatmulPlan p;
    p.op = op;
    p.in_features = in_features;
    p.out_features = out_features;
    p.chips = chips;
    p.row_splits = ceil_div(in_features, kTileRows);
    p.col_splits = ceil_div(out_features, kTileCols);
    const uint32_t halves = chips * kHalvesPerChip;
    // Round-robin over the halves of all chips: half 0 and 1 of chip 0, then chip 1, ...
    uint32_t k = 0;
    for (uint32_t r = 0; r < p.row_splits; ++r)
        for (uint32_t c = 0; c < p.col_splits; ++c, ++k) {
            Tile t;
            t.chip = (k % halves) / kHalvesPerChip;
            t.half = k % kHalvesPerChip;
            t.pass = k / halves;
            t.row0 = r * kTileRows;
            t.rows = std::min(kTileRows, in_features - t.row0);
            t.col0 = c * kTileCols;
            t.cols = std::min(kTileCols, out_features - t.col0);
            p.tiles.push_back(t);
        }
    p.passes = ceil_div(static_cast<uint32_t>(p.tiles.size()), halves);
    return p;
}

void check_inputs(const IntMatrix& x, const std::string& op) {
    for (uint32_t r = 0; r < x.rows; ++r)
        for (uint32_t c = 0; c < x.cols; ++c) {
            const int32_t v = x.at(r, c);
            if (v < 0 || v > kMaxInput)
                throw OperatorError(op + ": input [" + std::to_string(r) + "][" +
                                    std::to_string(c) + "] = " + std::to_string(v) +
                                    " outside the 5-bit activation range 0..31");
        }
}

void check_weights(const IntMatrix& w, const std::string& op) {
    for (uint32_t r = 0; r < w.rows; ++r)
        for (uint32_t c = 0; c < w.cols; ++c) {
            const int32_t v = w.at(r, c);
            if (v < -kMaxWeight || v > kMaxWeight)
                throw OperatorError(op + ": weight [" + std::to_string(r) + "][" +
                                    std::to_string(c) + "] = " + std::to_string(v) +
                                    " outside the 6-bit signed range -63..63");
        }
}

IntMatrix int_matmul(const IntMatrix& x, const IntMatrix& w) {
    if (x.cols != w.rows) throw std::invalid_argument("int_matmul: shapes do not match");
    IntMatrix y(x.rows, w.cols);
    for (uint32_t b = 0; b < x.rows; ++b)
        for (uint32_t i = 0; i < x.cols; ++i) {
            const int32_t xi = x.at(b, i);
            if (xi == 0) continue;
            for (uint32_t j = 0; j < w.cols; ++j) y.at(b, j) += xi * w.at(i, j);
        }
    return y;
}

IntMatrix reference_matmul(const IntMatrix& x, const IntMatrix& w, uint32_t num_sends,
                           const MatmulPlan& plan) {
    check_product(x, w, plan);
    // Per tile the chip's floor and clamp; sums of row splits in int64, clamped at the end.
    std::vector<int64_t> acc(size_t{x.rows} * w.cols, 0);
    for (const Tile& t : plan.tiles)
        for (uint32_t b = 0; b < x.rows; ++b)
            for (uint32_t j = t.col0; j < t.col0 + t.cols; ++j) {
                int64_t s = 0;
                for (uint32_t i = t.row0; i < t.row0 + t.rows; ++i)
                    s += int64_t{x.at(b, i)} * w.at(i, j);
                acc[size_t{b} * w.cols + j] += clamp_out(floor_div(s * num_sends, kIdealDivisor));
            }
    IntMatrix y(x.rows, w.cols);
    for (size_t k = 0; k < acc.size(); ++k) y.v[k] = clamp_out(acc[k]);
    return y;
}

IntMatrix mock_matmul(const IntMatrix& x, const IntMatrix& w, uint32_t num_sends, double gain,
                      double noise_lsb, uint64_t seed, const MatmulPlan& plan) {
    check_product(x, w, plan);
    if (!(gain > 0 && gain <= 1))
        throw OperatorError(plan.op + ": mock gain " + std::to_string(gain) +
                            " outside (0, 1] (hxtorch's limit)");
    if (!(noise_lsb >= 0)) throw OperatorError(plan.op + ": mock noise must be >= 0 LSB");
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> noise(0.0, 1.0);
    std::vector<int64_t> acc(size_t{x.rows} * w.cols, 0);
    for (const Tile& t : plan.tiles)
        for (uint32_t b = 0; b < x.rows; ++b)
            for (uint32_t j = t.col0; j < t.col0 + t.cols; ++j) {
                int64_t s = 0;
                for (uint32_t i = t.row0; i < t.row0 + t.rows; ++i)
                    s += int64_t{x.at(b, i)} * w.at(i, j);
                const double r = std::floor(double(num_sends) * gain * double(s) +
                                            (noise_lsb > 0 ? noise_lsb * noise(rng) : 0.0));
                acc[size_t{b} * w.cols + j] +=
                    clamp_out(static_cast<int64_t>(std::clamp(r, -1e9, 1e9)));
            }
    IntMatrix y(x.rows, w.cols);
    for (size_t k = 0; k < acc.size(); ++k) y.v[k] = clamp_out(acc[k]);
    return y;
}

// ---- convolutions ------------------------------------------------------------------------

uint32_t Conv1dShape::out_length() const { return (length - kernel) / stride + 1; }
uint32_t Conv2dShape::out_height() const { return (height - kernel_h) / stride + 1; }
uint32_t Conv2dShape::out_width() const { return (width - kernel_w) / stride + 1; }

void check_shape(const Conv1dShape& s, const std::string& op) {
    if (s.in_channels == 0 || s.length == 0 || s.out_channels == 0 || s.kernel == 0)
        throw OperatorError(op + ": empty shape (channels, length and kernel must be >= 1)");
    if (s.stride == 0) throw OperatorError(op + ": stride must be >= 1");
    if (s.kernel > s.length)
        throw OperatorError(op + ": kernel " + std::to_string(s.kernel) +
                            " longer than the input (" + std::to_string(s.length) + ")");
}

void check_shape(const Conv2dShape& s, const std::string& op) {
    if (s.in_channels == 0 || s.height == 0 || s.width == 0 || s.out_channels == 0 ||
        s.kernel_h == 0 || s.kernel_w == 0)
        throw OperatorError(op + ": empty shape (channels, sizes and kernel must be >= 1)");
    if (s.stride == 0) throw OperatorError(op + ": stride must be >= 1");
    if (s.kernel_h > s.height || s.kernel_w > s.width)
        throw OperatorError(op + ": kernel " + std::to_string(s.kernel_h) + "x" +
                            std::to_string(s.kernel_w) + " larger than the input " +
                            std::to_string(s.height) + "x" + std::to_string(s.width));
}

IntMatrix unroll_conv1d_input(const std::vector<int32_t>& x, uint32_t batch, const Conv1dShape& s) {
    check_shape(s, "conv1d");
    if (x.size() != size_t{batch} * s.in_channels * s.length)
        throw OperatorError("conv1d: input has " + std::to_string(x.size()) +
                            " values, the shape " + std::to_string(batch) + " x " +
                            std::to_string(s.in_channels) + " x " + std::to_string(s.length) +
                            " needs " + std::to_string(size_t{batch} * s.in_channels * s.length));
    const uint32_t n = s.out_length();
    IntMatrix m(batch * n, s.in_channels * s.kernel);
    for (uint32_t b = 0; b < batch; ++b)
        for (uint32_t p = 0; p < n; ++p)
            for (uint32_t c = 0; c < s.in_channels; ++c)
                for (uint32_t k = 0; k < s.kernel; ++k)
                    m.at(b * n + p, c * s.kernel + k) =
                        x[(size_t{b} * s.in_channels + c) * s.length + p * s.stride + k];
    return m;
}

IntMatrix unroll_conv1d_weight(const std::vector<int32_t>& w, const Conv1dShape& s) {
    check_shape(s, "conv1d");
    if (w.size() != size_t{s.out_channels} * s.in_channels * s.kernel)
        throw OperatorError("conv1d: kernel has " + std::to_string(w.size()) +
                            " values, the shape needs " +
                            std::to_string(size_t{s.out_channels} * s.in_channels * s.kernel));
    IntMatrix m(s.in_channels * s.kernel, s.out_channels);
    for (uint32_t o = 0; o < s.out_channels; ++o)
        for (uint32_t c = 0; c < s.in_channels; ++c)
            for (uint32_t k = 0; k < s.kernel; ++k)
                m.at(c * s.kernel + k, o) = w[(size_t{o} * s.in_channels + c) * s.kernel + k];
    return m;
}

std::vector<int32_t> fold_conv1d_output(const IntMatrix& y, uint32_t batch, const Conv1dShape& s) {
    const uint32_t n = s.out_length();
    if (y.rows != batch * n || y.cols != s.out_channels)
        throw OperatorError("conv1d: product shape does not match the convolution");
    std::vector<int32_t> out(size_t{batch} * s.out_channels * n);
    for (uint32_t b = 0; b < batch; ++b)
        for (uint32_t o = 0; o < s.out_channels; ++o)
            for (uint32_t p = 0; p < n; ++p)
                out[(size_t{b} * s.out_channels + o) * n + p] = y.at(b * n + p, o);
    return out;
}

IntMatrix unroll_conv2d_input(const std::vector<int32_t>& x, uint32_t batch, const Conv2dShape& s) {
    check_shape(s, "conv2d");
    if (x.size() != size_t{batch} * s.in_channels * s.height * s.width)
        throw OperatorError("conv2d: input has " + std::to_string(x.size()) +
                            " values, the shape needs " +
                            std::to_string(size_t{batch} * s.in_channels * s.height * s.width));
    const uint32_t oh = s.out_height(), ow = s.out_width();
    const uint32_t taps = s.kernel_h * s.kernel_w;
    IntMatrix m(batch * oh * ow, s.in_channels * taps);
    for (uint32_t b = 0; b < batch; ++b)
        for (uint32_t py = 0; py < oh; ++py)
            for (uint32_t px = 0; px < ow; ++px) {
                const uint32_t row = (b * oh + py) * ow + px;
                for (uint32_t c = 0; c < s.in_channels; ++c)
                    for (uint32_t ky = 0; ky < s.kernel_h; ++ky)
                        for (uint32_t kx = 0; kx < s.kernel_w; ++kx)
                            m.at(row, c * taps + ky * s.kernel_w + kx) =
                                x[((size_t{b} * s.in_channels + c) * s.height + py * s.stride +
                                   ky) *
                                      s.width +
                                  px * s.stride + kx];
            }
    return m;
}

IntMatrix unroll_conv2d_weight(const std::vector<int32_t>& w, const Conv2dShape& s) {
    check_shape(s, "conv2d");
    const uint32_t taps = s.kernel_h * s.kernel_w;
    if (w.size() != size_t{s.out_channels} * s.in_channels * taps)
        throw OperatorError("conv2d: kernel has " + std::to_string(w.size()) +
                            " values, the shape needs " +
                            std::to_string(size_t{s.out_channels} * s.in_channels * taps));
    IntMatrix m(s.in_channels * taps, s.out_channels);
    for (uint32_t o = 0; o < s.out_channels; ++o)
        for (uint32_t c = 0; c < s.in_channels; ++c)
            for (uint32_t t = 0; t < taps; ++t)
                m.at(c * taps + t, o) = w[(size_t{o} * s.in_channels + c) * taps + t];
    return m;
}

std::vector<int32_t> fold_conv2d_output(const IntMatrix& y, uint32_t batch, const Conv2dShape& s) {
    const uint32_t oh = s.out_height(), ow = s.out_width(), n = oh * ow;
    if (y.rows != batch * n || y.cols != s.out_channels)
        throw OperatorError("conv2d: product shape does not match the convolution");
    std::vector<int32_t> out(size_t{batch} * s.out_channels * n);
    for (uint32_t b = 0; b < batch; ++b)
        for (uint32_t o = 0; o < s.out_channels; ++o)
            for (uint32_t p = 0; p < n; ++p)
                out[(size_t{b} * s.out_channels + o) * n + p] = y.at(b * n + p, o);
    return out;
}

}  // namespace nmsim::compiler::bss2::hagen
