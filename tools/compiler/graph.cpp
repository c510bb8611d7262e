#include "tools/compiler/graph.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

namespace nmsim::compiler {

bool checked_mul(int64_t a, int64_t b, int64_t* out) {
    int64_t r = 0;
    if (__builtin_mul_overflow(a, b, &r)) return false;
    *out = r;
    return true;
}

bool checked_add(int64_t a, int64_t b, int64_t* out) {
    int64_t r = 0;
    if (__builtin_add_overflow(a, b, &r)) return false;
    *out = r;
    return true;
}

int64_t shape_elements(const Shape& shape) {
    int64_t n = 1;
    for (int64_t d : shape) {
        if (d < 0) throw CompileError("shape " + shape_str(shape) + ": negative dimension");
        if (!checked_mul(n, d, &n))
            throw CompileError("shape " + shape_str(shape) + ": element count overflows int64");
    }
    return n;
}

std::string shape_problem(const Shape& shape, int64_t elem_bytes) {
    if (shape.empty() || shape.size() > kMaxRank)
        return "shape " + shape_str(shape) + " has rank " + std::to_string(shape.size()) +
               ", outside 1.." + std::to_string(kMaxRank);
    int64_t bytes = elem_bytes;
    for (size_t i = 0; i < shape.size(); ++i) {
        if (shape[i] < 1)
            return "shape " + shape_str(shape) + ": dimension " + std::to_string(i) + " is " +
                   std::to_string(shape[i]) + ", not a positive size";
        if (!checked_mul(bytes, shape[i], &bytes) || bytes > kMaxTensorBytes)
            return "shape " + shape_str(shape) + " needs more than " +
                   std::to_string(kMaxTensorBytes) +
                   " B, the DRAM window (2 GiB, 32-bit addresses) a tensor must fit";
    }
    return "";
}

std::string shape_str(const Shape& shape) {
    std::ostringstream os;
    os << '[';
    for (size_t i = 0; i < shape.size(); ++i) os << (i ? ", " : "") << shape[i];
    os << ']';
    return os.str();
}

const char* to_string(LayerKind kind) {
    switch (kind) {
        case LayerKind::input:
            return "input";
        case LayerKind::output:
            return "output";
        case LayerKind::linear:
            return "linear";
        case LayerKind::conv2d:
            return "conv2d";
        case LayerKind::add:
            return "add";
        case LayerKind::maxpool:
            return "maxpool";
        case LayerKind::avgpool:
            return "avgpool";
        case LayerKind::flatten:
            return "flatten";
        case LayerKind::softmax:
            return "softmax";
    }
    return "?";
}

const Layer* Graph::find(const std::string& name) const {
    for (const Layer& l : layers)
        if (l.name == name) return &l;
    return nullptr;
}

void Graph::sort_topologically() {
    std::map<std::string, size_t> index;
    for (size_t i = 0; i < layers.size(); ++i) {
        if (!index.emplace(layers[i].name, i).second)
            throw CompileError(source + ": layer '" + layers[i].name + "': duplicate layer name");
    }
    std::vector<size_t> indegree(layers.size(), 0);
    std::vector<std::vector<size_t>> consumers(layers.size());
    for (size_t i = 0; i < layers.size(); ++i) {
        for (const std::string& in : layers[i].inputs) {
            auto it = index.find(in);
            if (it == index.end())
                throw CompileError(source + ": layer '" + layers[i].name + "': input '" + in +
                                   "' is not a layer");
            consumers[it->second].push_back(i);
            ++indegree[i];
        }
    }
    // Ready set ordered by original position, so an already sorted graph is unchanged.
    std::set<size_t> ready;
    for (size_t i = 0; i < layers.size(); ++i)
        if (indegree[i] == 0) ready.insert(i);
    std::vector<size_t> order;
    while (!ready.empty()) {
        size_t i = *ready.begin();
        ready.erase(ready.begin());
        order.push_back(i);
        for (size_t c : consumers[i])
            if (--indegree[c] == 0) ready.insert(c);
    }
    if (order.size() != layers.size()) {
        std::string names;
        for (size_t i = 0; i < layers.size(); ++i)
            if (indegree[i] > 0) names += (names.empty() ? "'" : ", '") + layers[i].name + "'";
        throw CompileError(source + ": cycle in the layer graph through layers " + names);
    }
    std::vector<Layer> sorted;
    sorted.reserve(layers.size());
    for (size_t i : order) sorted.push_back(std::move(layers[i]));
    layers = std::move(sorted);
}

void Graph::check_shifts() const {
    std::string errors;
    for (const Layer& l : layers) {
        if (l.shift >= 0 && l.shift <= 31) continue;
        std::ostringstream os;
        os << source << ": layer '" << l.name << "' (" << to_string(l.kind)
           << "): requantisation shift " << l.shift << " out of range 0..31 (k_in "
           << (l.in_exponents.empty() ? 0 : l.in_exponents[0]);
        if (l.weights) os << " + k_w " << l.weights->exponent;
        os << " - k_out " << l.out_exponent << ")";
        errors += (errors.empty() ? "" : "\n") + os.str();
    }
    if (!errors.empty()) throw CompileError(errors);
}

std::string layer_problem(const Layer& l) {
    for (size_t i = 0; i < l.in_shapes.size(); ++i) {
        const std::string p = shape_problem(l.in_shapes[i], 1);
        if (!p.empty()) return "input " + std::to_string(i) + " " + p;
    }
    if (const std::string p = shape_problem(l.out_shape, 1); !p.empty()) return "output " + p;
    const bool weighted = l.kind == LayerKind::linear || l.kind == LayerKind::conv2d;
    if (l.weights) {
        const Tensor& w = *l.weights;
        if (const std::string p = shape_problem(w.shape, 1); !p.empty()) return "weights " + p;
        if (w.dtype != DType::i8) return "weights are not int8";
        if (weighted && w.shape.size() != (l.kind == LayerKind::linear ? 2u : 4u))
            return "weights " + shape_str(w.shape) + " are not " +
                   (l.kind == LayerKind::linear ? "[out, in]" : "[out_c, in_c, kh, kw]");
        if (static_cast<int64_t>(w.i8.size()) != shape_elements(w.shape))
            return "weights hold " + std::to_string(w.i8.size()) + " values, their shape " +
                   shape_str(w.shape) + " needs " + std::to_string(shape_elements(w.shape));
    } else if (weighted) {
        return "no weights";
    }
    if (l.bias) {
        const Tensor& b = *l.bias;
        if (const std::string p = shape_problem(b.shape, 4); !p.empty()) return "bias " + p;
        if (b.dtype != DType::i32) return "bias is not int32";
        const int64_t out = l.weights ? l.weights->shape[0] : 0;
        if (static_cast<int64_t>(b.i32.size()) != out)
            return "bias holds " + std::to_string(b.i32.size()) + " values for " +
                   std::to_string(out) + " outputs";
    }
    if (l.kind == LayerKind::conv2d || l.kind == LayerKind::maxpool ||
        l.kind == LayerKind::avgpool) {
        const Window& w = l.window;
        const std::pair<const char*, int> sizes[] = {{"kernel_h", w.kernel_h},
                                                     {"kernel_w", w.kernel_w},
                                                     {"stride_h", w.stride_h},
                                                     {"stride_w", w.stride_w}};
        for (const auto& [name, v] : sizes)
            if (v < 1 || v > kMaxWindow)
                return std::string(name) + " " + std::to_string(v) + " outside 1.." +
                       std::to_string(kMaxWindow);
        const std::pair<const char*, int> pads[] = {{"pad_top", w.pad_top},
                                                    {"pad_left", w.pad_left},
                                                    {"pad_bottom", w.pad_bottom},
                                                    {"pad_right", w.pad_right}};
        for (const auto& [name, v] : pads)
            if (v < 0 || v > kMaxWindow)
                return std::string(name) + " " + std::to_string(v) + " outside 0.." +
                       std::to_string(kMaxWindow);
        if (l.kind == LayerKind::avgpool && int64_t{w.kernel_h} * w.kernel_w > kMaxPoolArea)
            return "window area " + std::to_string(int64_t{w.kernel_h} * w.kernel_w) + " above " +
                   std::to_string(kMaxPoolArea) + " (the firmware sums the window in 32 bits)";
    }
    if (l.kind == LayerKind::softmax && l.out_shape.back() > kMaxSoftmaxRow)
        return "softmax row of " + std::to_string(l.out_shape.back()) + " elements, above " +
               std::to_string(kMaxSoftmaxRow);
    if (l.shift < 0 || l.shift > 31) return "shift " + std::to_string(l.shift) + " outside 0..31";
    return "";
}

std::ostream& operator<<(std::ostream& os, const Layer& l) {
    os << l.name << ": " << to_string(l.kind) << (l.relu ? "+relu" : "") << " in(";
    for (size_t i = 0; i < l.inputs.size(); ++i) {
        os << (i ? ", " : "") << l.inputs[i];
        if (i < l.in_shapes.size()) os << ' ' << shape_str(l.in_shapes[i]);
        if (i < l.in_exponents.size()) os << " k=" << l.in_exponents[i];
    }
    os << ") out " << shape_str(l.out_shape) << " k=" << l.out_exponent;
    if (l.weights) os << " w " << shape_str(l.weights->shape) << " k=" << l.weights->exponent;
    if (l.bias) os << " b " << shape_str(l.bias->shape) << " k=" << l.bias->exponent;
    if (l.kind == LayerKind::conv2d || l.kind == LayerKind::maxpool ||
        l.kind == LayerKind::avgpool) {
        const Window& w = l.window;
        os << " kernel " << w.kernel_h << 'x' << w.kernel_w << " stride " << w.stride_h << 'x'
           << w.stride_w << " pad " << w.pad_top << ',' << w.pad_left << ',' << w.pad_bottom << ','
           << w.pad_right;
    }
    os << " shift " << l.shift;
    return os;
}

std::ostream& operator<<(std::ostream& os, const Graph& g) {
    os << "graph " << g.source << " (" << g.layers.size() << " layers)\n";
    for (const Layer& l : g.layers) os << "  " << l << '\n';
    return os;
}

}  // namespace nmsim::compiler
