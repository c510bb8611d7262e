// Integer graph reference (tools/compiler/graph_reference.h) and the int8 softmax reference
// (tools/reference/int_ops.h): the committed models' logits against tools/model_prep's committed
// integer-reference logits, their softmax against double precision, conv_tiny.onnx and
// hand-built graphs against a double-precision evaluation written here, the softmax formula on
// a hand-computed row and random rows, and the error cases.
#include "tools/compiler/graph_reference.h"

#include <gtest/gtest.h>
#include <cmath>
#include <fstream>
#include <functional>
#include <iterator>
#include <random>

#include "models/spinnaker2/exp/exp_accel.h"
#include "nmsim/hw/spinnaker2/dnn_image.h"
#include "tools/compiler/onnx_frontend.h"
#include "tools/reference/int_ops.h"

namespace nmsim::compiler {
namespace {

const std::string kModels = std::string(NMSIM_SOURCE_DIR) + "/scenarios/models";
const std::string kData = NMSIM_COMPILER_TEST_DATA;

ReferenceOptions with_exp() {
    ReferenceOptions o;
    o.exp = &nmsim::spinnaker2::ExpAccel::compute;
    return o;
}

std::vector<int8_t> read_i8(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    return std::vector<int8_t>(std::istreambuf_iterator<char>(f), {});
}

// round(2^ky * softmax(x * 2^-kx)) in double precision, clipped to 127.
std::vector<double> double_softmax_q(const std::vector<int8_t>& x, int kx, int ky) {
    std::vector<double> xf;
    for (int8_t v : x) xf.push_back(std::ldexp(v, -kx));
    std::vector<double> p = reference::softmax_ref(xf);
    for (double& v : p) v = std::min(127.0, std::ldexp(v, ky));
    return p;
}

std::string error_of(const std::function<void()>& fn) {
    try {
        fn();
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "(no error)";
}

// ---- softmax_int8_ref ----

TEST(SoftmaxInt8Ref, HandComputedRow) {
    // A stand-in EXP with exact powers of two: e(t) = 2^15 * 2^(t / 2^15) for whole t / 2^15.
    std::vector<unsigned> iterations;
    const reference::ExpFn pow2 = [&](int32_t t, unsigned it) {
        iterations.push_back(it);
        return int32_t{32768} >> (-t / 32768);
    };
    // kx 0: t = {0, -2, -1} * 2^15 -> e = {32768, 8192, 16384}, s = 57344;
    // y = floor((e * 128 + 28672) / 57344) = {73, 18, 37}.
    EXPECT_EQ(reference::softmax_int8_ref({2, 0, 1}, 0, 7, pow2),
              (std::vector<int8_t>{73, 18, 37}));
    EXPECT_EQ(iterations, (std::vector<unsigned>{16, 16, 16}));
    // kx 1: x - max = -2 is t = -1.0; ky 0: y = floor((e + s/2) / s) = {1, 0}.
    EXPECT_EQ(reference::softmax_int8_ref({5, 3}, 1, 0, pow2), (std::vector<int8_t>{1, 0}));
    // Two equal inputs at ky 7: 64.5 rounds down (the division truncates after adding s/2 only
    // once): (32768 * 128 + 32768) / 65536 = 64.
    EXPECT_EQ(reference::softmax_int8_ref({-7, -7}, 3, 7, pow2), (std::vector<int8_t>{64, 64}));
    // A single element is 1.0: 2^ky saturated to 127.
    EXPECT_EQ(reference::softmax_int8_ref({-128}, 4, 16, pow2), (std::vector<int8_t>{127}));
    EXPECT_EQ(reference::softmax_int8_ref({9}, 4, 6, pow2), (std::vector<int8_t>{64}));
    EXPECT_TRUE(reference::softmax_int8_ref({}, 4, 6, pow2).empty());
}

// Random rows with the EXP unit against double precision: within 1 LSB of round(2^ky * p) for
// the output exponents a model uses (up to 8; at 16 the EXP's half-ulp error is scaled by up to
// 2^16 / s and the bound is 2 LSB), sums close to 2^ky, monotonic in the input.
TEST(SoftmaxInt8Ref, RandomRowsMatchDoublePrecision) {
    std::mt19937 rng(7);
    std::uniform_int_distribution<int> v8(-128, 127), len(1, 40), kxs(0, 15);
    const int kys[] = {0, 3, 5, 6, 7, 8, 12, 16};
    double worst[17] = {};
    for (int trial = 0; trial < 3000; ++trial) {
        const int kx = kxs(rng), ky = kys[trial % 8];
        std::vector<int8_t> x(static_cast<size_t>(len(rng)));
        const int spread = 1 << (trial % 8);  // narrow and wide rows
        const int base = v8(rng);
        for (int8_t& v : x) v = static_cast<int8_t>(std::clamp(base + v8(rng) % spread, -128, 127));
        const std::vector<int8_t> y =
            reference::softmax_int8_ref(x, kx, ky, &nmsim::spinnaker2::ExpAccel::compute);
        const std::vector<double> want = double_softmax_q(x, kx, ky);
        ASSERT_EQ(y.size(), x.size());
        int sum = 0;
        bool clipped = false;
        for (size_t i = 0; i < x.size(); ++i) {
            ASSERT_GE(y[i], 0);
            worst[ky] = std::max(worst[ky], std::abs(y[i] - want[i]));
            ASSERT_LE(std::abs(y[i] - want[i]), ky <= 8 ? 1.0 : 2.0)
                << "kx " << kx << " ky " << ky << " element " << i << " of " << x.size();
            sum += y[i];
            clipped |= want[i] >= 126.5;
            for (size_t j = 0; j < x.size(); ++j) {
                if (x[i] > x[j]) {
                    ASSERT_GE(y[i], y[j]) << "not monotonic";
                } else if (x[i] == x[j]) {
                    ASSERT_EQ(y[i], y[j]);
                }
            }
        }
        // Every element within 1 LSB of values summing to 2^ky (unless saturated at 127).
        if (!clipped && ky <= 8) {
            EXPECT_LE(std::abs(sum - (1 << ky)), static_cast<int>(x.size())) << "ky " << ky;
        }
        if (!clipped && ky <= 8 && x.size() == 1) {
            EXPECT_EQ(sum, 1 << ky);
        }
    }
    for (int ky : kys)
        RecordProperty("worst_lsb_ky" + std::to_string(ky), std::to_string(worst[ky]));
    EXPECT_GT(worst[7], 0.0);  // the comparison saw rounding differences at all
}

TEST(SoftmaxInt8Ref, Errors) {
    const reference::ExpFn exp = &nmsim::spinnaker2::ExpAccel::compute;
    const std::vector<int8_t> x{1, 2, 3};
    EXPECT_EQ(error_of([&] { reference::softmax_int8_ref(x, -1, 7, exp); }),
              "softmax reference: input exponent -1 outside 0..15");
    EXPECT_EQ(error_of([&] { reference::softmax_int8_ref(x, 16, 7, exp); }),
              "softmax reference: input exponent 16 outside 0..15");
    EXPECT_EQ(error_of([&] { reference::softmax_int8_ref(x, 3, -1, exp); }),
              "softmax reference: output exponent -1 outside 0..16");
    EXPECT_EQ(error_of([&] { reference::softmax_int8_ref(x, 3, 17, exp); }),
              "softmax reference: output exponent 17 outside 0..16");
    EXPECT_EQ(error_of([&] { reference::softmax_int8_ref(x, 3, 7, {}); }),
              "softmax reference: no EXP function given");
    EXPECT_EQ(error_of([&] { reference::softmax_int8_ref(std::vector<int8_t>(65536), 3, 7, exp); }),
              "softmax reference: row of 65536 elements (at most 65535)");
    EXPECT_NO_THROW(reference::softmax_int8_ref(std::vector<int8_t>(65535), 3, 7, exp));
    const auto bad = [](int32_t t, unsigned) { return t == 0 ? 32768 : 40000; };
    EXPECT_NE(
        error_of([&] { reference::softmax_int8_ref(x, 3, 7, bad); }).find("EXP(-8192) = 40000"),
        std::string::npos);
    const auto not_one = [](int32_t, unsigned) { return 32767; };
    EXPECT_NE(error_of([&] {
                  reference::softmax_int8_ref(x, 3, 7, not_one);
              }).find("exp(0) must be 32768"),
              std::string::npos);
    // The limits are the ones the firmware header documents.
    EXPECT_EQ(reference::kSoftmaxExpIterations, S2_DNN_SOFTMAX_EXP_ITERATIONS);
    EXPECT_EQ(reference::kSoftmaxMaxInExponent, S2_DNN_SOFTMAX_MAX_IN_EXPONENT);
    EXPECT_EQ(reference::kSoftmaxMaxOutExponent, S2_DNN_SOFTMAX_MAX_OUT_EXPONENT);
}

// ---- the committed models ----

// The layer feeding the softmax (the logits) equals tools/model_prep's committed integer
// reference for the first 200 test images; the softmax output is within 1 LSB of double
// precision and puts its maximum on a maximal logit; the output layer repeats the softmax.
void expect_committed_logits(const std::string& model, const std::string& logits,
                             const Shape& input_shape) {
    const Graph g = load_onnx(kModels + "/" + model);
    const Layer& out = g.layers.back();
    ASSERT_EQ(out.kind, LayerKind::output);
    const Layer* sm = g.find(out.inputs.at(0));
    ASSERT_NE(sm, nullptr);
    ASSERT_EQ(sm->kind, LayerKind::softmax);
    EXPECT_EQ(sm->out_exponent, 7);
    EXPECT_EQ(g.layers.front().out_shape, input_shape);
    const std::string logit_layer = sm->inputs.at(0);
    const std::vector<int8_t> images = read_i8(kModels + "/fmnist_test_1000.bin");
    const std::vector<int8_t> ref = read_i8(kModels + "/" + logits);
    ASSERT_EQ(images.size(), 1000u * 784);
    ASSERT_EQ(ref.size(), 1000u * 16);
    for (size_t i = 0; i < 200; ++i) {
        const auto at = [](const std::vector<int8_t>& v, size_t off, size_t n) {
            return std::vector<int8_t>(v.begin() + static_cast<std::ptrdiff_t>(off),
                                       v.begin() + static_cast<std::ptrdiff_t>(off + n));
        };
        const auto r = run_reference(g, at(images, i * 784, 784), with_exp());
        const std::vector<int8_t>& l = r.at(logit_layer);
        ASSERT_EQ(l, at(ref, i * 16, 16)) << model << " image " << i;
        const std::vector<int8_t>& p = r.at(sm->name);
        EXPECT_EQ(r.at(out.name), p);
        const std::vector<double> want = double_softmax_q(l, sm->in_exponents[0], 7);
        for (size_t j = 0; j < 16; ++j)
            ASSERT_LE(std::abs(p[j] - want[j]), 1.0) << model << " image " << i << " class " << j;
        const size_t pmax = static_cast<size_t>(std::max_element(p.begin(), p.end()) - p.begin());
        EXPECT_EQ(l[pmax], *std::max_element(l.begin(), l.end())) << model << " image " << i;
    }
}

TEST(GraphReference, MlpLogitsMatchCommittedReference) {
    expect_committed_logits("mlp_fmnist_int8.onnx", "mlp_fmnist_int8_ref_logits_1000.bin",
                            {1, 784});
}

TEST(GraphReference, CnnLogitsMatchCommittedReference) {
    expect_committed_logits("cnn_fmnist_int8.onnx", "cnn_fmnist_int8_ref_logits_1000.bin",
                            {1, 1, 28, 28});
}

// ---- an independent double-precision evaluation of a graph ----

// Real values x * 2^-k of every layer, requantised as round-half-up of the real value at the
// output scale (exact for power-of-two scales: floor(v * 2^k_out + 0.5)), computed on NCHW maps
// directly with the ONNX window definitions. Softmax: round(2^ky * p) in double (not bit-exact).
std::map<std::string, std::vector<double>> double_eval(const Graph& g,
                                                       const std::vector<int8_t>& input) {
    std::map<std::string, std::vector<double>> q;  // integer values as doubles
    const auto requant = [](double real, int k, bool relu) {
        double v = std::floor(std::ldexp(real, k) + 0.5);
        if (relu) v = std::max(v, 0.0);
        return std::clamp(v, -128.0, 127.0);
    };
    for (const Layer& l : g.layers) {
        std::vector<double> y;
        const std::vector<double>* x = l.inputs.empty() ? nullptr : &q.at(l.inputs[0]);
        const int kin = l.in_exponents.empty() ? 0 : l.in_exponents[0];
        const Shape& is = l.in_shapes.empty() ? l.out_shape : l.in_shapes[0];
        const Shape& os = l.out_shape;
        const Window& w = l.window;
        switch (l.kind) {
            case LayerKind::input:
                y.assign(input.begin(), input.end());
                break;
            case LayerKind::output:
            case LayerKind::flatten:
                y = *x;
                break;
            case LayerKind::linear:
                for (int64_t b = 0; b < os[0]; ++b)
                    for (int64_t o = 0; o < os[1]; ++o) {
                        double s = l.bias ? std::ldexp(l.bias->i32[o], -l.bias->exponent) : 0.0;
                        for (int64_t i = 0; i < is[1]; ++i)
                            s += std::ldexp((*x)[b * is[1] + i], -kin) *
                                 std::ldexp(l.weights->i8[o * is[1] + i], -l.weights->exponent);
                        y.push_back(requant(s, l.out_exponent, l.relu));
                    }
                break;
            case LayerKind::conv2d:
            case LayerKind::maxpool:
            case LayerKind::avgpool:
                for (int64_t b = 0; b < os[0]; ++b)
                    for (int64_t o = 0; o < os[1]; ++o)
                        for (int64_t oy = 0; oy < os[2]; ++oy)
                            for (int64_t ox = 0; ox < os[3]; ++ox) {
                                double s = l.kind == LayerKind::conv2d && l.bias
                                               ? std::ldexp(l.bias->i32[o], -l.bias->exponent)
                                               : 0.0;
                                double m = -1e300;
                                const int64_t chans = l.kind == LayerKind::conv2d ? is[1] : 1;
                                for (int64_t c = 0; c < chans; ++c)
                                    for (int ky = 0; ky < w.kernel_h; ++ky)
                                        for (int kx = 0; kx < w.kernel_w; ++kx) {
                                            const int64_t iy = oy * w.stride_h + ky - w.pad_top;
                                            const int64_t ix = ox * w.stride_w + kx - w.pad_left;
                                            if (iy < 0 || ix < 0 || iy >= is[2] || ix >= is[3])
                                                continue;
                                            const int64_t ic = l.kind == LayerKind::conv2d ? c : o;
                                            const double v = std::ldexp(
                                                (*x)[((b * is[1] + ic) * is[2] + iy) * is[3] + ix],
                                                -kin);
                                            if (l.kind == LayerKind::conv2d)
                                                s += v * std::ldexp(l.weights->i8[((o * is[1] + c) *
                                                                                       w.kernel_h +
                                                                                   ky) *
                                                                                      w.kernel_w +
                                                                                  kx],
                                                                    -l.weights->exponent);
                                            s += l.kind == LayerKind::avgpool ? v : 0.0;
                                            m = std::max(m, v);
                                        }
                                if (l.kind == LayerKind::maxpool)
                                    y.push_back(std::ldexp(m, kin));
                                else if (l.kind == LayerKind::avgpool)
                                    y.push_back(requant(s / (w.kernel_h * w.kernel_w),
                                                        l.out_exponent, false));
                                else
                                    y.push_back(requant(s, l.out_exponent, l.relu));
                            }
                break;
            case LayerKind::add: {
                const std::vector<double>& x2 = q.at(l.inputs[1]);
                for (size_t i = 0; i < x->size(); ++i)
                    y.push_back(requant(std::ldexp((*x)[i] + x2[i], -kin), l.out_exponent, false));
                break;
            }
            case LayerKind::softmax: {
                const size_t row = static_cast<size_t>(is.back());
                for (size_t r = 0; r < x->size(); r += row) {
                    std::vector<int8_t> xr;
                    for (size_t i = 0; i < row; ++i) xr.push_back(static_cast<int8_t>((*x)[r + i]));
                    for (double v : double_softmax_q(xr, kin, l.out_exponent))
                        y.push_back(std::round(v));
                }
                break;
            }
        }
        q[l.name] = y;
    }
    return q;
}

void expect_matches_double(const Graph& g, const std::vector<int8_t>& input,
                           const ReferenceOptions& opt) {
    const auto got = run_reference(g, input, opt);
    const auto want = double_eval(g, input);
    ASSERT_EQ(got.size(), g.layers.size());
    for (const Layer& l : g.layers) {
        SCOPED_TRACE(l.name);
        const std::vector<int8_t>& a = got.at(l.name);
        const std::vector<double>& b = want.at(l.name);
        ASSERT_EQ(a.size(), b.size());
        const bool soft =
            l.kind == LayerKind::softmax ||
            (l.kind == LayerKind::output && g.find(l.inputs[0])->kind == LayerKind::softmax);
        for (size_t i = 0; i < a.size(); ++i)
            ASSERT_LE(std::abs(a[i] - b[i]), soft ? 1.0 : 0.0) << "element " << i;
    }
}

// conv_tiny.onnx: conv (pad 1) + ReLU, maxpool, add, avgpool, reshape, Gemm, softmax.
TEST(GraphReference, ConvTinyMatchesDoublePrecision) {
    const Graph g = load_onnx(kData + "/conv_tiny.onnx");
    std::mt19937 rng(3);
    std::uniform_int_distribution<int> v8(-128, 127);
    for (int trial = 0; trial < 50; ++trial) {
        std::vector<int8_t> x(36);
        for (int8_t& v : x) v = static_cast<int8_t>(v8(rng));
        expect_matches_double(g, x, with_exp());
    }
}

Tensor i8_tensor(Shape shape, int exponent, std::mt19937& rng) {
    Tensor t;
    t.shape = std::move(shape);
    t.exponent = exponent;
    std::uniform_int_distribution<int> v8(-128, 127);
    for (int64_t i = 0; i < shape_elements(t.shape); ++i)
        t.i8.push_back(static_cast<int8_t>(v8(rng)));
    return t;
}

// input [2, 3, 9, 8] -> conv 3->4, kernel 3x2, strides 2x3, pads 1,0,2,1 (asymmetric, unequal
// strides: the MLA reference needs explicit padding and subsampling) -> maxpool 2x2 stride 1 with
// padding -> avgpool 2x2 -> flatten -> linear -> output; batch 2 everywhere.
Graph odd_graph(std::mt19937& rng) {
    Graph g;
    g.source = "odd";
    Layer in;
    in.name = "x";
    in.out_shape = {2, 3, 9, 8};
    in.out_exponent = 6;
    g.layers.push_back(in);
    Layer c;
    c.name = "conv";
    c.kind = LayerKind::conv2d;
    c.inputs = {"x"};
    c.in_shapes = {in.out_shape};
    c.in_exponents = {6};
    c.window = {3, 2, 2, 3, 1, 0, 2, 1};
    c.out_shape = {2, 4, (9 + 3 - 3) / 2 + 1, (8 + 1 - 2) / 3 + 1};  // [2, 4, 5, 3]
    c.weights = i8_tensor({4, 3, 3, 2}, 7, rng);
    Tensor b;
    b.dtype = DType::i32;
    b.shape = {4};
    b.exponent = 13;
    b.i32 = {3000, -2500, 0, 70000};
    c.bias = b;
    c.relu = true;
    c.out_exponent = 4;
    c.shift = 6 + 7 - 4;
    g.layers.push_back(c);
    Layer mp;
    mp.name = "maxpool";
    mp.kind = LayerKind::maxpool;
    mp.inputs = {"conv"};
    mp.in_shapes = {c.out_shape};
    mp.in_exponents = {4};
    mp.out_exponent = 4;
    mp.window = {2, 2, 1, 1, 1, 1, 0, 0};
    mp.out_shape = {2, 4, 5, 3};
    g.layers.push_back(mp);
    Layer ap;
    ap.name = "avgpool";
    ap.kind = LayerKind::avgpool;
    ap.inputs = {"maxpool"};
    ap.in_shapes = {mp.out_shape};
    ap.in_exponents = {4};
    ap.out_exponent = 5;
    ap.window = {2, 2, 1, 1, 0, 0, 0, 0};
    ap.out_shape = {2, 4, 4, 2};
    ap.shift = 4 + 2 - 5;
    g.layers.push_back(ap);
    Layer f;
    f.name = "flatten";
    f.kind = LayerKind::flatten;
    f.inputs = {"avgpool"};
    f.in_shapes = {ap.out_shape};
    f.in_exponents = {5};
    f.out_exponent = 5;
    f.out_shape = {2, 32};
    g.layers.push_back(f);
    Layer fc;
    fc.name = "fc";
    fc.kind = LayerKind::linear;
    fc.inputs = {"flatten"};
    fc.in_shapes = {f.out_shape};
    fc.in_exponents = {5};
    fc.weights = i8_tensor({6, 32}, 8, rng);
    fc.out_exponent = 2;
    fc.shift = 5 + 8 - 2;
    fc.out_shape = {2, 6};
    g.layers.push_back(fc);
    Layer out;
    out.name = "y";
    out.kind = LayerKind::output;
    out.inputs = {"fc"};
    out.in_shapes = {fc.out_shape};
    out.in_exponents = {2};
    out.out_exponent = 2;
    out.out_shape = fc.out_shape;
    g.layers.push_back(out);
    return g;
}

TEST(GraphReference, OddWindowsAndBatchMatchDoublePrecision) {
    std::mt19937 rng(11);
    const Graph g = odd_graph(rng);
    std::uniform_int_distribution<int> v8(-128, 127);
    for (int trial = 0; trial < 20; ++trial) {
        std::vector<int8_t> x(2 * 3 * 9 * 8);
        for (int8_t& v : x) v = static_cast<int8_t>(v8(rng));
        expect_matches_double(g, x, ReferenceOptions{});
    }
}

// A narrow accumulator wraps (the MLA reference's two's complement), a wide one does not.
TEST(GraphReference, AccumulatorWidthIsPassedToTheMla) {
    std::mt19937 rng(5);
    Graph g = odd_graph(rng);
    std::vector<int8_t> x(2 * 3 * 9 * 8, 127);
    ReferenceOptions narrow;
    narrow.acc_bits = 12;
    const auto a = run_reference(g, x, ReferenceOptions{});
    const auto b = run_reference(g, x, narrow);
    EXPECT_NE(a.at("conv"), b.at("conv"));
    ReferenceOptions wide;
    wide.acc_bits = 48;
    EXPECT_EQ(run_reference(g, x, wide).at("y"), a.at("y"));
}

// The prepared reference (weights laid out once, reused for every input and both semantics) gives
// what run_reference gives for each input alone.
TEST(GraphReference, PreparedOperandsGiveTheSameResults) {
    std::mt19937 rng(9);
    Graph g = odd_graph(rng);
    GraphReference prepared(g);
    ReferenceOptions narrow;
    narrow.acc_bits = 12;
    std::uniform_int_distribution<int> v8(-128, 127);
    for (int k = 0; k < 4; ++k) {
        std::vector<int8_t> x(2 * 3 * 9 * 8);
        for (int8_t& v : x) v = static_cast<int8_t>(v8(rng));
        for (const ReferenceOptions& o : {ReferenceOptions{}, narrow, ReferenceOptions::onnx()})
            EXPECT_EQ(prepared.run(x, o), run_reference(g, x, o)) << "input " << k;
        // the narrow accumulator wraps: the options reach the prepared run too
        EXPECT_NE(prepared.run(x, narrow).at("conv"), prepared.run(x, {}).at("conv"));
    }
}

TEST(GraphReference, Errors) {
    const Graph tiny = load_onnx(kData + "/conv_tiny.onnx");
    const std::vector<int8_t> x(36, 1);
    EXPECT_EQ(error_of([&] { run_reference(tiny, x, ReferenceOptions{}); }),
              "graph reference: layer 'softmax' (softmax): the graph has a softmax: "
              "ReferenceOptions::exp is required");
    EXPECT_EQ(error_of([&] { run_reference(tiny, std::vector<int8_t>(35), with_exp()); }),
              "graph reference: layer 'input' (input): input has 35 elements, [1, 1, 6, 6] "
              "needs 36");
    Graph bad = tiny;
    for (Layer& l : bad.layers)
        if (l.kind == LayerKind::softmax) l.out_exponent = 17;
    EXPECT_EQ(error_of([&] { run_reference(bad, x, with_exp()); }),
              "graph reference: layer 'softmax' (softmax): softmax reference: output exponent 17 "
              "outside 0..16");
    bad = tiny;
    for (Layer& l : bad.layers)
        if (l.kind == LayerKind::avgpool) l.window.pad_top = 1;
    EXPECT_EQ(error_of([&] { run_reference(bad, x, with_exp()); }),
              "graph reference: layer 'avg' (avgpool): padded average pooling is not supported");
    bad = tiny;
    bad.layers[1].shift = 32;
    EXPECT_EQ(error_of([&] { run_reference(bad, x, with_exp()); }),
              "graph reference: layer 'conv' (conv2d): shift 32 outside 0..31");
    ReferenceOptions acc = with_exp();
    acc.acc_bits = 60;
    EXPECT_EQ(error_of([&] { run_reference(tiny, x, acc); }),
              "graph reference: layer 'conv' (conv2d): mla reference: acc_bits outside 8..48");
    bad = tiny;
    bad.layers.push_back(bad.layers.front());
    bad.layers.back().name = "input2";
    EXPECT_EQ(error_of([&] { run_reference(bad, x, with_exp()); }),
              "graph reference: " + tiny.source + " has 2 input layers, expected 1");
    bad = tiny;
    std::swap(bad.layers[1], bad.layers[2]);  // not topologically sorted
    EXPECT_EQ(error_of([&] { run_reference(bad, x, with_exp()); }),
              "graph reference: layer 'pool' (maxpool): input 'conv' not computed before it");
}

}  // namespace
}  // namespace nmsim::compiler
