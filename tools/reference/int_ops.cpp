#include "tools/reference/int_ops.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace nmsim::reference {

namespace {

struct Bounds {
    int64_t lo, hi;
};

Bounds operand_bounds(bool is_signed, bool in16) {
    if (in16) return is_signed ? Bounds{-32768, 32767} : Bounds{0, 65535};
    return is_signed ? Bounds{-128, 127} : Bounds{0, 255};
}

Bounds result_bounds(MlaOutPrec out) {
    switch (out) {
        case MlaOutPrec::int8:
            return {-128, 127};
        case MlaOutPrec::int16:
            return {-32768, 32767};
        case MlaOutPrec::int32:
            return {-2147483648LL, 2147483647LL};
    }
    throw std::invalid_argument("unknown output precision");
}

void require(bool ok, const std::string& what) {
    if (!ok) throw std::invalid_argument("mla reference: " + what);
}

// The range first (a loop the compiler vectorises), the offending element only on failure.
void check_values(const std::vector<int32_t>& v, Bounds b, const char* name) {
    int32_t lo = INT32_MAX, hi = INT32_MIN;
    for (const int32_t x : v) {
        lo = std::min(lo, x);
        hi = std::max(hi, x);
    }
    if (v.empty() || (lo >= b.lo && hi <= b.hi)) return;
    for (size_t i = 0; i < v.size(); ++i)
        if (v[i] < b.lo || v[i] > b.hi)
            require(false, std::string(name) + "[" + std::to_string(i) +
                               "] = " + std::to_string(v[i]) + " outside its type");
}

int64_t magnitude(Bounds b) { return std::max(-b.lo, b.hi); }

// Whether every partial sum of `terms` products plus a bias fits in int32, so that the sums can
// be formed in int32 (what the compiler vectorises best) and give the exact int64 values.
bool sums_fit_int32(const MlaOp& op, uint64_t terms, const std::vector<int32_t>& bias) {
    int64_t bias_max = 0;
    if (op.bias_en)
        for (const int32_t x : bias) bias_max = std::max(bias_max, std::abs(int64_t{x}));
    const int64_t product = magnitude(operand_bounds(op.a_signed, op.in16)) *
                            magnitude(operand_bounds(op.b_signed, op.in16));
    return static_cast<double>(product) * static_cast<double>(terms) +
               static_cast<double>(bias_max) <
           2147483647.0;
}

void check_common(const MlaOp& op, const std::vector<int32_t>& a, const std::vector<int32_t>& b,
                  const std::vector<int32_t>& bias, const std::vector<int32_t>& c_old,
                  size_t n_cols, bool b_checked) {
    require(op.shift <= 31, "shift above 31");
    require(op.acc_bits >= 8 && op.acc_bits <= 48, "acc_bits outside 8..48");
    require(a.size() == op.a_count(), "size of A");
    require(b.size() == op.b_count(), "size of B");
    require(!op.bias_en || bias.size() == n_cols, "size of bias");
    require(!op.accumulate || c_old.size() == op.c_count(), "size of c_old");
    check_values(a, operand_bounds(op.a_signed, op.in16), "a");
    if (!b_checked) check_values(b, operand_bounds(op.b_signed, op.in16), "b");
    if (op.accumulate) check_values(c_old, result_bounds(op.out), "c_old");
}

// floor(x / 2^s) without relying on the behaviour of >> for negative numbers (C++17 leaves it to
// the implementation) and without a division: for x < 0, ~x = -x - 1 >= 0 and
// floor(x / 2^s) = ~(~x >> s).
int64_t floor_div_pow2(int64_t x, unsigned s) { return x >= 0 ? x >> s : ~(~x >> s); }

// Requantisation of one accumulator value: round (half up on the MLA), ReLU, accumulate,
// saturate.
int32_t finish(const MlaOp& op, int64_t acc, size_t out_index, const std::vector<int32_t>& c_old) {
    int64_t r = round_shift(acc, op.shift, op.rounding);
    if (op.relu && r < 0) r = 0;
    if (op.accumulate) r = r + c_old[out_index];
    const Bounds b = result_bounds(op.out);
    if (r < b.lo) r = b.lo;
    if (r > b.hi) r = b.hi;
    return static_cast<int32_t>(r);
}

}  // namespace

int64_t round_shift(int64_t acc, unsigned shift, Rounding r) {
    if (shift == 0) return acc;
    if (r == Rounding::half_up) return floor_div_pow2(acc + (int64_t{1} << (shift - 1)), shift);
    const int64_t q = floor_div_pow2(acc, shift);
    const int64_t rem = acc - q * (int64_t{1} << shift);  // 0 <= rem < 2^shift
    const int64_t half = int64_t{1} << (shift - 1);
    if (rem > half || (rem == half && (q & 1) != 0)) return q + 1;
    return q;
}

uint32_t MlaOp::out_h() const {
    require(stride > 0 && uint64_t{ifm_h} + 2ull * pad >= ker_h, "conv height");
    return static_cast<uint32_t>((uint64_t{ifm_h} + 2ull * pad - ker_h) / stride + 1);
}

uint32_t MlaOp::out_w() const {
    require(stride > 0 && uint64_t{ifm_w} + 2ull * pad >= ker_w, "conv width");
    return static_cast<uint32_t>((uint64_t{ifm_w} + 2ull * pad - ker_w) / stride + 1);
}

size_t MlaOp::a_count() const {
    if (mode == MlaMode::matmul) return size_t{m} * k;
    return size_t{ifm_h} * ifm_w * ifm_c;
}

size_t MlaOp::b_count() const {
    if (mode == MlaMode::matmul) return size_t{k} * n;
    return size_t{ker_h} * ker_w * ifm_c * ofm_c;
}

size_t MlaOp::c_count() const {
    if (mode == MlaMode::matmul) return size_t{m} * n;
    return size_t{out_h()} * out_w() * ofm_c;
}

int64_t wrap_twos_complement(int64_t value, unsigned bits) {
    if (bits < 1 || bits > 63) require(false, "wrap width");  // no string per call
    // The low `bits` bits (unsigned arithmetic is modulo 2^64), then sign-extended.
    const uint64_t modulus = uint64_t{1} << bits;
    const uint64_t r = static_cast<uint64_t>(value) & (modulus - 1);
    return r >= modulus / 2 ? static_cast<int64_t>(r) - static_cast<int64_t>(modulus)
                            : static_cast<int64_t>(r);
}

// Two's-complement wrap-around is arithmetic modulo 2^acc_bits, so wrapping after every
// accumulation step (what the MLA does) gives the same value as summing exactly and wrapping once
// at the end; the sums below cannot overflow int64 (|product| <= 2^30, at most 2^32 terms). The
// loops run over output rows so that B is read row by row.
namespace {

// C = A x B (+ bias), then requantised, with the exact sums held in Acc (int64_t always exact;
// int32_t when sums_fit_int32).
template <typename Acc>
void matmul_rows(const MlaOp& op, const std::vector<int32_t>& a, const std::vector<int32_t>& b,
                 const std::vector<int32_t>& bias, const std::vector<int32_t>& c_old,
                 std::vector<int32_t>& c) {
    std::vector<Acc> acc(op.n);
    for (size_t i = 0; i < op.m; ++i) {
        for (size_t j = 0; j < op.n; ++j) acc[j] = op.bias_en ? Acc{bias[j]} : Acc{0};
        for (size_t p = 0; p < op.k; ++p) {
            const Acc x = a[i * op.k + p];
            if (x == 0) continue;  // ReLU outputs: many zero operands
            const int32_t* row = b.data() + p * op.n;
            for (size_t j = 0; j < op.n; ++j) acc[j] += x * Acc{row[j]};
        }
        for (size_t j = 0; j < op.n; ++j)
            c[i * op.n + j] =
                finish(op, wrap_twos_complement(int64_t{acc[j]}, op.acc_bits), i * op.n + j, c_old);
    }
}

std::vector<int32_t> matmul(const MlaOp& op, const std::vector<int32_t>& a,
                            const std::vector<int32_t>& b, const std::vector<int32_t>& bias,
                            const std::vector<int32_t>& c_old, bool b_checked) {
    require(op.mode == MlaMode::matmul, "matmul reference called with a conv op");
    require(op.m > 0 && op.k > 0 && op.n > 0, "zero dimension");
    check_common(op, a, b, bias, c_old, op.n, b_checked);
    std::vector<int32_t> c(op.c_count());
    if (sums_fit_int32(op, op.k, bias)) {
        matmul_rows<int32_t>(op, a, b, bias, c_old, c);
    } else {
        matmul_rows<int64_t>(op, a, b, bias, c_old, c);
    }
    return c;
}

// The convolution with the exact sums held in Acc (as matmul_rows).
template <typename Acc>
void conv_pixels(const MlaOp& op, const std::vector<int32_t>& a, const std::vector<int32_t>& b,
                 const std::vector<int32_t>& bias, const std::vector<int32_t>& c_old,
                 std::vector<int32_t>& c) {
    const int64_t oh = op.out_h(), ow = op.out_w();
    const size_t oc_n = op.ofm_c;
    std::vector<Acc> acc(oc_n);
    for (int64_t oy = 0; oy < oh; ++oy) {
        for (int64_t ox = 0; ox < ow; ++ox) {
            for (size_t oc = 0; oc < oc_n; ++oc) acc[oc] = op.bias_en ? Acc{bias[oc]} : Acc{0};
            for (int64_t ky = 0; ky < op.ker_h; ++ky) {
                for (int64_t kx = 0; kx < op.ker_w; ++kx) {
                    const int64_t iy = oy * op.stride + ky - op.pad;
                    const int64_t ix = ox * op.stride + kx - op.pad;
                    if (iy < 0 || iy >= op.ifm_h || ix < 0 || ix >= op.ifm_w) continue;
                    for (int64_t ic = 0; ic < op.ifm_c; ++ic) {
                        const Acc x = a[static_cast<size_t>((iy * op.ifm_w + ix) * op.ifm_c + ic)];
                        if (x == 0) continue;
                        const int32_t* w =
                            b.data() + ((ky * op.ker_w + kx) * op.ifm_c + ic) * op.ofm_c;
                        for (size_t oc = 0; oc < oc_n; ++oc) acc[oc] += x * Acc{w[oc]};
                    }
                }
            }
            for (size_t oc = 0; oc < oc_n; ++oc) {
                const size_t idx = static_cast<size_t>((oy * ow + ox) * op.ofm_c) + oc;
                c[idx] =
                    finish(op, wrap_twos_complement(int64_t{acc[oc]}, op.acc_bits), idx, c_old);
            }
        }
    }
}

std::vector<int32_t> conv2d(const MlaOp& op, const std::vector<int32_t>& a,
                            const std::vector<int32_t>& b, const std::vector<int32_t>& bias,
                            const std::vector<int32_t>& c_old, bool b_checked) {
    require(op.mode == MlaMode::conv2d, "conv reference called with a matmul op");
    require(op.ifm_h > 0 && op.ifm_w > 0 && op.ifm_c > 0 && op.ker_h > 0 && op.ker_w > 0 &&
                op.stride > 0 && op.ofm_c > 0,
            "zero dimension");
    check_common(op, a, b, bias, c_old, op.ofm_c, b_checked);
    std::vector<int32_t> c(op.c_count());
    const uint64_t terms = uint64_t{op.ker_h} * op.ker_w * op.ifm_c;
    if (sums_fit_int32(op, terms, bias)) {
        conv_pixels<int32_t>(op, a, b, bias, c_old, c);
    } else {
        conv_pixels<int64_t>(op, a, b, bias, c_old, c);
    }
    return c;
}

}  // namespace

std::vector<int32_t> mla_matmul_ref(const MlaOp& op, const std::vector<int32_t>& a,
                                    const std::vector<int32_t>& b, const std::vector<int32_t>& bias,
                                    const std::vector<int32_t>& c_old) {
    return matmul(op, a, b, bias, c_old, false);
}

std::vector<int32_t> mla_conv2d_ref(const MlaOp& op, const std::vector<int32_t>& a,
                                    const std::vector<int32_t>& b, const std::vector<int32_t>& bias,
                                    const std::vector<int32_t>& c_old) {
    return conv2d(op, a, b, bias, c_old, false);
}

std::vector<int32_t> mla_ref(const MlaOp& op, const std::vector<int32_t>& a,
                             const std::vector<int32_t>& b, const std::vector<int32_t>& bias,
                             const std::vector<int32_t>& c_old) {
    return op.mode == MlaMode::matmul ? matmul(op, a, b, bias, c_old, false)
                                      : conv2d(op, a, b, bias, c_old, false);
}

CheckedB::CheckedB(std::vector<int32_t> values, bool is_signed, bool in16)
    : m_values(std::move(values)), m_signed(is_signed), m_in16(in16) {
    check_values(m_values, operand_bounds(is_signed, in16), "b");
}

std::vector<int32_t> mla_ref(const MlaOp& op, const std::vector<int32_t>& a, const CheckedB& b,
                             const std::vector<int32_t>& bias, const std::vector<int32_t>& c_old) {
    require(op.b_signed == b.is_signed() && op.in16 == b.in16(),
            "B operand checked for another operand type");
    return op.mode == MlaMode::matmul ? matmul(op, a, b.values(), bias, c_old, true)
                                      : conv2d(op, a, b.values(), bias, c_old, true);
}

std::vector<int32_t> decode_operands(const std::vector<uint8_t>& bytes, bool is_signed, bool in16) {
    std::vector<int32_t> out;
    if (!in16) {
        for (uint8_t u : bytes) out.push_back(is_signed && u >= 128 ? int32_t{u} - 256 : u);
        return out;
    }
    require(bytes.size() % 2 == 0, "odd byte count for 16-bit operands");
    for (size_t i = 0; i < bytes.size(); i += 2) {
        const int32_t u = bytes[i] + 256 * bytes[i + 1];
        out.push_back(is_signed && u >= 32768 ? u - 65536 : u);
    }
    return out;
}

std::vector<int32_t> decode_results(const std::vector<uint8_t>& bytes, MlaOutPrec out) {
    const size_t width = out == MlaOutPrec::int8 ? 1 : out == MlaOutPrec::int16 ? 2 : 4;
    require(bytes.size() % width == 0, "result byte count");
    std::vector<int32_t> v;
    for (size_t i = 0; i < bytes.size(); i += width) {
        int64_t u = 0;
        for (size_t j = 0; j < width; ++j) u += int64_t{bytes[i + j]} << (8 * j);
        const int64_t span = int64_t{1} << (8 * width);
        if (u >= span / 2) u -= span;
        v.push_back(static_cast<int32_t>(u));
    }
    return v;
}

std::vector<uint8_t> encode_results(const std::vector<int32_t>& values, MlaOutPrec out) {
    const size_t width = out == MlaOutPrec::int8 ? 1 : out == MlaOutPrec::int16 ? 2 : 4;
    const Bounds b = result_bounds(out);
    std::vector<uint8_t> bytes;
    for (int32_t v : values) {
        require(v >= b.lo && v <= b.hi, "result value outside its type");
        int64_t u = v < 0 ? v + (int64_t{1} << (8 * width)) : v;
        for (size_t j = 0; j < width; ++j) {
            bytes.push_back(static_cast<uint8_t>(u % 256));
            u /= 256;
        }
    }
    return bytes;
}

std::vector<double> softmax_ref(const std::vector<double>& x) {
    if (x.empty()) return {};
    double mx = x[0];
    for (double v : x) mx = std::max(mx, v);
    std::vector<double> e(x.size());
    double sum = 0.0;
    for (size_t i = 0; i < x.size(); ++i) {
        e[i] = std::exp(x[i] - mx);
        sum += e[i];
    }
    for (double& v : e) v /= sum;
    return e;
}

std::vector<int8_t> softmax_int8_ref(const std::vector<int8_t>& x, int kx, int ky,
                                     const ExpFn& exp_fn) {
    const auto fail = [](const std::string& why) {
        throw std::invalid_argument("softmax reference: " + why);
    };
    if (kx < 0 || kx > kSoftmaxMaxInExponent)
        fail("input exponent " + std::to_string(kx) + " outside 0.." +
             std::to_string(kSoftmaxMaxInExponent));
    if (ky < 0 || ky > kSoftmaxMaxOutExponent)
        fail("output exponent " + std::to_string(ky) + " outside 0.." +
             std::to_string(kSoftmaxMaxOutExponent));
    if (x.size() > kSoftmaxMaxRow)
        fail("row of " + std::to_string(x.size()) + " elements (at most " +
             std::to_string(kSoftmaxMaxRow) + ")");
    if (!exp_fn) fail("no EXP function given");
    if (x.empty()) return {};
    int mx = x[0];
    for (int8_t v : x) mx = std::max<int>(mx, v);
    // The firmware sums in uint32 and divides in uint32; uint64 gives the same values here
    // because e_i <= 2^15, the row has at most 65535 elements and e_i * 2^ky <= 2^31.
    std::vector<uint64_t> e(x.size());
    uint64_t s = 0;
    for (size_t i = 0; i < x.size(); ++i) {
        const int32_t t = (static_cast<int32_t>(x[i]) - mx) * (int32_t{1} << (15 - kx));
        const int32_t r = exp_fn(t, kSoftmaxExpIterations);
        if (r < 0 || r > (1 << 15) || (t == 0 && r != (1 << 15)))
            fail("EXP(" + std::to_string(t) + ") = " + std::to_string(r) +
                 " outside the s16.15 range of exp(x <= 0) (exp(0) must be 32768)");
        e[i] = static_cast<uint64_t>(r);
        s += e[i];
    }
    std::vector<int8_t> y(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
        const uint64_t q = ((e[i] << ky) + s / 2) / s;
        y[i] = static_cast<int8_t>(std::min<uint64_t>(q, 127));
    }
    return y;
}

std::vector<int32_t> sparse_mlp_ref(const SparseMlp& net, const std::vector<int32_t>& inputs,
                                    size_t first, size_t count) {
    const auto fail = [](const std::string& why) {
        throw std::invalid_argument("sparse_mlp reference: " + why);
    };
    const size_t n_layers = net.layers.size();
    if (n_layers == 0 || net.sizes.size() != n_layers + 1 || net.shifts.size() != n_layers - 1)
        fail("need sizes for every layer boundary and one shift per hidden layer");
    for (uint32_t s : net.sizes)
        if (s == 0) fail("zero layer size");
    for (unsigned s : net.shifts)
        if (s > 31) fail("shift above 31");
    // Each COO list as a dense matrix W[i][j] (int64: repeated entries add up).
    std::vector<std::vector<int64_t>> dense(n_layers);
    for (size_t l = 0; l < n_layers; ++l) {
        const SparseLayer& L = net.layers[l];
        const size_t n_from = net.sizes[l], n_to = net.sizes[l + 1];
        if (L.rows.size() != L.weights.size() || L.cols.size() != L.weights.size())
            fail("layer " + std::to_string(l + 1) + ": rows, cols and weights differ in length");
        dense[l].assign(n_from * n_to, 0);
        for (size_t c = 0; c < L.weights.size(); ++c) {
            if (L.rows[c] >= n_from || L.cols[c] >= n_to)
                fail("layer " + std::to_string(l + 1) + " entry " + std::to_string(c) + " (" +
                     std::to_string(L.rows[c]) + ", " + std::to_string(L.cols[c]) + ") outside " +
                     std::to_string(n_from) + " x " + std::to_string(n_to));
            dense[l][L.rows[c] * n_to + L.cols[c]] += L.weights[c];
        }
    }
    const size_t n_in = net.sizes.front(), n_out = net.sizes.back();
    if (inputs.size() / n_in < first + count) fail("fewer inputs than first + count");
    std::vector<int32_t> out;
    out.reserve(count * n_out);
    for (size_t k = first; k < first + count; ++k) {
        std::vector<int64_t> x(inputs.begin() + static_cast<std::ptrdiff_t>(k * n_in),
                               inputs.begin() + static_cast<std::ptrdiff_t>((k + 1) * n_in));
        for (int64_t v : x)
            if (v < 0 || v > 255)
                fail("input " + std::to_string(k) + " has a value outside 0..255");
        for (size_t l = 0; l < n_layers; ++l) {
            const size_t n_to = net.sizes[l + 1];
            std::vector<int64_t> y(n_to, 0);
            for (size_t j = 0; j < n_to; ++j) {
                int64_t acc = 0;
                for (size_t i = 0; i < x.size(); ++i) acc += x[i] * dense[l][i * n_to + j];
                acc = wrap_twos_complement(acc, 32);
                if (l + 1 < n_layers)
                    acc = std::clamp<int64_t>(floor_div_pow2(acc, net.shifts[l]), 0, 255);
                y[j] = acc;
            }
            x = std::move(y);
        }
        for (int64_t v : x) out.push_back(static_cast<int32_t>(v));
    }
    return out;
}

std::vector<int32_t> argmax_rows(const std::vector<int32_t>& values, size_t n) {
    if (n == 0 || values.size() % n != 0)
        throw std::invalid_argument("argmax_rows: " + std::to_string(values.size()) +
                                    " values do not split into rows of " + std::to_string(n));
    std::vector<int32_t> idx;
    for (size_t r = 0; r < values.size(); r += n) {
        const auto begin = values.begin() + static_cast<std::ptrdiff_t>(r);
        idx.push_back(static_cast<int32_t>(
            std::max_element(begin, begin + static_cast<std::ptrdiff_t>(n)) - begin));
    }
    return idx;
}

}  // namespace nmsim::reference
