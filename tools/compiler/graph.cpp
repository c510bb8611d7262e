#include "tools/compiler/graph.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

namespace nmsim::compiler {

int64_t shape_elements(const Shape& shape) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
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
