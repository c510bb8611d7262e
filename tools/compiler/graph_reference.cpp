#include "tools/compiler/graph_reference.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>

#include "nmsim/hw/spinnaker2/dnn_image.h"
#include "tools/reference/int_ops.h"

namespace nmsim::compiler {
namespace {

using BCache = GraphReference::Operands;

static_assert(reference::kSoftmaxExpIterations == S2_DNN_SOFTMAX_EXP_ITERATIONS &&
                  reference::kSoftmaxMaxInExponent == S2_DNN_SOFTMAX_MAX_IN_EXPONENT &&
                  reference::kSoftmaxMaxOutExponent == S2_DNN_SOFTMAX_MAX_OUT_EXPONENT,
              "the softmax reference and dnn_image.h disagree");

using Values = std::vector<int8_t>;

[[noreturn]] void fail(const Layer& l, const std::string& why) {
    throw std::invalid_argument("graph reference: layer '" + l.name + "' (" + to_string(l.kind) +
                                "): " + why);
}

size_t elements(const Layer& l, const Shape& s) {
    const int64_t n = shape_elements(s);
    if (n < 0) fail(l, "negative shape " + shape_str(s));
    return static_cast<size_t>(n);
}

// Requantisation of add/avgpool (as the MLA's, tools/reference): rounding (half up on the chip),
// ReLU, saturation.
int8_t requantise(const Layer& l, int64_t acc, reference::Rounding rounding) {
    if (l.shift < 0 || l.shift > 31) fail(l, "shift " + std::to_string(l.shift) + " outside 0..31");
    int64_t r = reference::round_shift(acc, static_cast<unsigned>(l.shift), rounding);
    if (l.relu) r = std::max<int64_t>(r, 0);
    return static_cast<int8_t>(std::clamp<int64_t>(r, -128, 127));
}

Values from_values(const std::vector<int32_t>& v) {
    Values out(v.size());
    for (size_t i = 0; i < v.size(); ++i) out[i] = static_cast<int8_t>(v[i]);
    return out;
}

reference::MlaOp mla_op(const Layer& l, const ReferenceOptions& opt) {
    if (l.shift < 0 || l.shift > 31) fail(l, "shift " + std::to_string(l.shift) + " outside 0..31");
    if (!l.weights || l.weights->dtype != DType::i8) fail(l, "int8 weights missing");
    if (l.bias && l.bias->dtype != DType::i32) fail(l, "bias is not int32");
    reference::MlaOp op;
    op.shift = static_cast<unsigned>(l.shift);
    op.relu = l.relu;
    op.bias_en = l.bias.has_value();
    op.acc_bits = opt.acc_bits;
    op.rounding = opt.rounding;
    return op;
}

// The B operand of a linear or conv2d layer in the MLA reference's layout: from the cache, or
// built by `make` (and kept when there is a cache: the weights do not change between inputs).
template <class Make>
const reference::CheckedB& b_operand(const Layer& l, const reference::MlaOp& op, BCache* cache,
                                     std::optional<reference::CheckedB>& local, Make make) {
    if (!cache) return local.emplace(make(), op.b_signed, op.in16);
    auto it = cache->find(&l);
    if (it == cache->end())
        it = cache->emplace(&l, reference::CheckedB(make(), op.b_signed, op.in16)).first;
    return it->second;
}

Values run_linear(const Layer& l, const Values& x, const ReferenceOptions& opt, BCache* cache) {
    const Shape& in = l.in_shapes.at(0);
    const Shape& ws = l.weights ? l.weights->shape : Shape{};
    if (in.size() != 2 || ws.size() != 2 || ws[1] != in[1])
        fail(l, "input " + shape_str(in) + " and weights " + shape_str(ws) + " do not match");
    reference::MlaOp op = mla_op(l, opt);
    op.mode = reference::MlaMode::matmul;
    op.m = static_cast<uint32_t>(in[0]);
    op.k = static_cast<uint32_t>(in[1]);
    op.n = static_cast<uint32_t>(ws[0]);
    std::optional<reference::CheckedB> local;
    const reference::CheckedB& b = b_operand(l, op, cache, local, [&] {
        std::vector<int32_t> t(size_t{op.k} * op.n);  // B[k][n] = W[n][k]
        for (size_t j = 0; j < op.n; ++j)
            for (size_t p = 0; p < op.k; ++p) t[p * op.n + j] = l.weights->i8.at(j * op.k + p);
        return t;
    });
    const std::vector<int32_t> a(x.begin(), x.end());
    return from_values(reference::mla_ref(op, a, b, l.bias ? l.bias->i32 : std::vector<int32_t>{}));
}

// NCHW per image -> explicitly padded HWC (the MLA reference takes one symmetric pad and one
// stride; asymmetric pads are applied here, unequal strides by running stride 1 and subsampling).
Values run_conv(const Layer& l, const Values& x, const ReferenceOptions& opt, BCache* cache) {
    const Shape& in = l.in_shapes.at(0);
    const Shape& ws = l.weights ? l.weights->shape : Shape{};
    const Shape& os = l.out_shape;
    if (in.size() != 4 || ws.size() != 4 || os.size() != 4 || ws[1] != in[1] || os[1] != ws[0] ||
        os[0] != in[0] || ws[2] != l.window.kernel_h || ws[3] != l.window.kernel_w)
        fail(l, "input " + shape_str(in) + ", weights " + shape_str(ws) + " and output " +
                    shape_str(os) + " do not match");
    const Window& w = l.window;
    const int64_t n = in[0], c = in[1], h = in[2], wd = in[3];
    const int64_t oc = ws[0], kh = ws[2], kw = ws[3], oh = os[2], ow = os[3];
    const int64_t hp = h + w.pad_top + w.pad_bottom, wp = wd + w.pad_left + w.pad_right;
    // The padded map is materialised: it must be a tensor within the limits (as the front end
    // checks for imported models).
    if (const std::string why = shape_problem({n, c, hp, wp}, 1); !why.empty())
        fail(l, "padded input " + why);
    const bool same_stride = w.stride_h == w.stride_w;
    reference::MlaOp op = mla_op(l, opt);
    op.mode = reference::MlaMode::conv2d;
    op.ifm_h = static_cast<uint32_t>(hp);
    op.ifm_w = static_cast<uint32_t>(wp);
    op.ifm_c = static_cast<uint32_t>(c);
    op.ker_h = static_cast<uint32_t>(kh);
    op.ker_w = static_cast<uint32_t>(kw);
    op.stride = same_stride ? static_cast<uint32_t>(w.stride_h) : 1u;
    op.pad = 0;
    op.ofm_c = static_cast<uint32_t>(oc);
    const int64_t sh = same_stride ? 1 : w.stride_h, sw = same_stride ? 1 : w.stride_w;
    if ((static_cast<int64_t>(op.out_h()) - 1) / sh + 1 != oh ||
        (static_cast<int64_t>(op.out_w()) - 1) / sw + 1 != ow)
        fail(l, "output " + shape_str(os) + " does not match the window");
    std::optional<reference::CheckedB> local;
    const reference::CheckedB& b = b_operand(l, op, cache, local, [&] {
        std::vector<int32_t> t(static_cast<size_t>(kh * kw * c * oc));  // B[ky][kx][ic][oc]
        for (int64_t o = 0; o < oc; ++o)
            for (int64_t i = 0; i < c; ++i)
                for (int64_t y = 0; y < kh; ++y)
                    for (int64_t z = 0; z < kw; ++z)
                        t[((y * kw + z) * c + i) * oc + o] =
                            l.weights->i8.at(static_cast<size_t>(((o * c + i) * kh + y) * kw + z));
        return t;
    });
    Values out(static_cast<size_t>(n * oc * oh * ow));
    for (int64_t img = 0; img < n; ++img) {
        std::vector<int32_t> a(static_cast<size_t>(hp * wp * c), 0);
        for (int64_t i = 0; i < c; ++i)
            for (int64_t y = 0; y < h; ++y)
                for (int64_t z = 0; z < wd; ++z)
                    a[static_cast<size_t>(((y + w.pad_top) * wp + z + w.pad_left) * c + i)] =
                        x[static_cast<size_t>(((img * c + i) * h + y) * wd + z)];
        const std::vector<int32_t> r =
            reference::mla_ref(op, a, b, l.bias ? l.bias->i32 : std::vector<int32_t>{});
        const int64_t rw = op.out_w();
        for (int64_t o = 0; o < oc; ++o)
            for (int64_t y = 0; y < oh; ++y)
                for (int64_t z = 0; z < ow; ++z)
                    out[static_cast<size_t>(((img * oc + o) * oh + y) * ow + z)] =
                        static_cast<int8_t>(
                            r[static_cast<size_t>(((y * sh) * rw + z * sw) * oc + o)]);
    }
    return out;
}

Values run_pool(const Layer& l, const Values& x, const ReferenceOptions& opt) {
    const Shape& in = l.in_shapes.at(0);
    const Shape& os = l.out_shape;
    if (in.size() != 4 || os.size() != 4 || os[0] != in[0] || os[1] != in[1])
        fail(l, "input " + shape_str(in) + " and output " + shape_str(os) + " do not match");
    const Window& w = l.window;
    const bool max = l.kind == LayerKind::maxpool;
    if (!max && (w.pad_top || w.pad_left || w.pad_bottom || w.pad_right))
        fail(l, "padded average pooling is not supported");
    const int64_t h = in[2], wd = in[3], oh = os[2], ow = os[3];
    Values out(static_cast<size_t>(os[0] * os[1] * oh * ow));
    for (int64_t plane = 0; plane < in[0] * in[1]; ++plane)
        for (int64_t oy = 0; oy < oh; ++oy)
            for (int64_t ox = 0; ox < ow; ++ox) {
                int64_t acc = max ? -128 : 0;
                for (int ky = 0; ky < w.kernel_h; ++ky)
                    for (int kx = 0; kx < w.kernel_w; ++kx) {
                        const int64_t iy = oy * w.stride_h - w.pad_top + ky;
                        const int64_t ix = ox * w.stride_w - w.pad_left + kx;
                        if (iy < 0 || iy >= h || ix < 0 || ix >= wd) {
                            if (!max) fail(l, "window outside the input map");
                            continue;
                        }
                        const int64_t v = x[static_cast<size_t>((plane * h + iy) * wd + ix)];
                        acc = max ? std::max(acc, v) : acc + v;
                    }
                out[static_cast<size_t>((plane * oh + oy) * ow + ox)] =
                    max ? static_cast<int8_t>(acc) : requantise(l, acc, opt.rounding);
            }
    return out;
}

Values run_softmax(const Layer& l, const Values& x, const ReferenceOptions& opt) {
    const Shape& in = l.in_shapes.at(0);
    if (in.empty() || in.back() <= 0) fail(l, "input shape " + shape_str(in) + " has no rows");
    const size_t row = static_cast<size_t>(in.back());
    if (x.size() % row != 0) fail(l, "input size is not a multiple of the row length");
    Values out;
    out.reserve(x.size());
    for (size_t r = 0; r < x.size(); r += row) {
        if (opt.float_softmax) {
            // ONNX: DequantizeLinear, Softmax, QuantizeLinear (round half to even, saturate).
            std::vector<double> v;
            for (size_t i = r; i < r + row; ++i)
                v.push_back(std::ldexp(static_cast<double>(x[i]), -l.in_exponents.at(0)));
            for (double p : reference::softmax_ref(v))
                out.push_back(static_cast<int8_t>(
                    std::clamp(std::nearbyint(std::ldexp(p, l.out_exponent)), -128.0, 127.0)));
            continue;
        }
        const Values y =
            reference::softmax_int8_ref(Values(x.begin() + static_cast<std::ptrdiff_t>(r),
                                               x.begin() + static_cast<std::ptrdiff_t>(r + row)),
                                        l.in_exponents.at(0), l.out_exponent, opt.exp);
        out.insert(out.end(), y.begin(), y.end());
    }
    return out;
}

Values run_layer(const Layer& l, const std::vector<const Values*>& xs, const Values& input,
                 const ReferenceOptions& opt, BCache* cache) {
    Values y;
    switch (l.kind) {
        case LayerKind::input:
            if (input.size() != elements(l, l.out_shape))
                fail(l, "input has " + std::to_string(input.size()) + " elements, " +
                            shape_str(l.out_shape) + " needs " +
                            std::to_string(elements(l, l.out_shape)));
            y = input;
            break;
        case LayerKind::output:
        case LayerKind::flatten:
            y = *xs[0];
            break;
        case LayerKind::linear:
            y = run_linear(l, *xs[0], opt, cache);
            break;
        case LayerKind::conv2d:
            y = run_conv(l, *xs[0], opt, cache);
            break;
        case LayerKind::add:
            y.resize(xs[0]->size());
            if (xs[1]->size() != y.size()) fail(l, "operands differ in size");
            for (size_t i = 0; i < y.size(); ++i)
                y[i] = requantise(l, int64_t{(*xs[0])[i]} + int64_t{(*xs[1])[i]}, opt.rounding);
            break;
        case LayerKind::maxpool:
        case LayerKind::avgpool:
            y = run_pool(l, *xs[0], opt);
            break;
        case LayerKind::softmax:
            y = run_softmax(l, *xs[0], opt);
            break;
    }
    return y;
}

std::map<std::string, std::vector<int8_t>> run_graph(const Graph& graph,
                                                     const std::vector<int8_t>& input,
                                                     const ReferenceOptions& opt, BCache* cache) {
    size_t inputs = 0;
    for (const Layer& l : graph.layers) {
        inputs += l.kind == LayerKind::input;
        if (l.kind == LayerKind::softmax && !opt.exp && !opt.float_softmax)
            fail(l, "the graph has a softmax: ReferenceOptions::exp is required");
    }
    if (inputs != 1)
        throw std::invalid_argument("graph reference: " + graph.source + " has " +
                                    std::to_string(inputs) + " input layers, expected 1");
    std::map<std::string, Values> out;
    for (const Layer& l : graph.layers) {
        // Shapes and data sizes within graph.h's limits: the sizes below fit size_t and uint32.
        if (const std::string why = layer_problem(l); !why.empty()) fail(l, why);
        std::vector<const Values*> xs;
        for (size_t i = 0; i < l.inputs.size(); ++i) {
            auto it = out.find(l.inputs[i]);
            if (it == out.end()) fail(l, "input '" + l.inputs[i] + "' not computed before it");
            if (i >= l.in_shapes.size() || it->second.size() != elements(l, l.in_shapes[i]))
                fail(l, "input '" + l.inputs[i] + "' does not have the size of its in_shape");
            xs.push_back(&it->second);
        }
        const size_t want_inputs = l.kind == LayerKind::input ? 0
                                   : l.kind == LayerKind::add ? 2
                                                              : 1;
        if (xs.size() != want_inputs)
            fail(l, std::to_string(xs.size()) + " inputs, expected " + std::to_string(want_inputs));
        Values y;
        try {
            y = run_layer(l, xs, input, opt, cache);
        } catch (const std::invalid_argument& e) {
            const std::string what = e.what();
            if (what.rfind("graph reference:", 0) == 0) throw;
            fail(l, what);  // from tools/reference: name the layer
        }
        if (y.size() != elements(l, l.out_shape))
            fail(l, "output has " + std::to_string(y.size()) + " elements, " +
                        shape_str(l.out_shape) + " needs " +
                        std::to_string(elements(l, l.out_shape)));
        out[l.name] = std::move(y);
    }
    return out;
}

}  // namespace

std::map<std::string, std::vector<int8_t>> run_reference(const Graph& graph,
                                                         const std::vector<int8_t>& input,
                                                         const ReferenceOptions& opt) {
    return run_graph(graph, input, opt, nullptr);
}

std::map<std::string, std::vector<int8_t>> GraphReference::run(const std::vector<int8_t>& input,
                                                               const ReferenceOptions& opt) {
    return run_graph(m_graph, input, opt, &m_b);
}

}  // namespace nmsim::compiler
