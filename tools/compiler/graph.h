// The compiler's application graph: layers with integer parameters and power-of-two exponents,
// in topological order. Produced by a front end (onnx_frontend.h), consumed by tiling and the
// DRAM-image writer. Plain C++: no SystemC, no models (docs/architecture.md, principle 6). See
// docs/compiler.md.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace nmsim::compiler {

// A compile error; the message names the network file, the element (node/layer) and the reason.
class CompileError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

using Shape = std::vector<int64_t>;
int64_t shape_elements(const Shape& shape);
std::string shape_str(const Shape& shape);  // "[1, 8, 28, 28]"

enum class DType { i8, i32 };

// An integer constant with scale 2^-exponent (the real value of element i is data[i] * 2^-k).
struct Tensor {
    std::string name;
    Shape shape;
    DType dtype = DType::i8;
    std::vector<int8_t> i8;    // used if dtype == i8
    std::vector<int32_t> i32;  // used if dtype == i32
    int exponent = 0;          // k: scale = 2^-k

    size_t size() const { return dtype == DType::i8 ? i8.size() : i32.size(); }
    int32_t at(size_t i) const { return dtype == DType::i8 ? i8.at(i) : i32.at(i); }
};

enum class LayerKind { input, output, linear, conv2d, add, maxpool, avgpool, flatten, softmax };
const char* to_string(LayerKind kind);

// Kernel window of conv2d / maxpool / avgpool (NCHW, no dilation, no groups).
struct Window {
    int kernel_h = 1, kernel_w = 1;
    int stride_h = 1, stride_w = 1;
    int pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
};

struct Layer {
    std::string name;  // ONNX node name of the main op (graph input/output name)
    LayerKind kind = LayerKind::input;
    std::vector<std::string> inputs;  // names of the producing layers (edges), in operand order
    std::vector<Shape> in_shapes;     // one per input
    Shape out_shape;
    std::vector<int> in_exponents;  // activation exponent of each input
    int out_exponent = 0;           // activation exponent of the (int8) output
    bool relu = false;              // a following Relu fused into linear/conv2d
    std::optional<Tensor> weights;  // linear: [out, in]; conv2d: [out_c, in_c, kh, kw]
    std::optional<Tensor> bias;     // int32 [out], exponent = k_in + k_w
    Window window;                  // conv2d, maxpool, avgpool
    // Integer requantisation: y = (acc + 2^(shift-1)) >> shift (shift 0: y = acc), then ReLU and
    // int8 saturation. linear/conv2d: k_in + k_w - k_out; avgpool: k_in + log2(kh*kw) - k_out;
    // add: k_in - k_out; others 0.
    int shift = 0;
    std::vector<std::string> fused_nodes;  // ONNX nodes folded into this layer (for messages)
};

// Layers with edges by layer name. After sort_topologically() every layer comes after all of
// its inputs.
class Graph {
public:
    std::string source;  // the network file, for messages
    std::vector<Layer> layers;

    const Layer* find(const std::string& name) const;
    // Kahn's algorithm, stable (keeps the given order where the edges allow it). Throws
    // CompileError naming the layers on a cycle, an unknown input or a duplicate name.
    void sort_topologically();
    // Checks the integer requantisation of every layer (shift in 0..31); collects all failures
    // and throws one CompileError naming each layer.
    void check_shifts() const;
};

std::ostream& operator<<(std::ostream& os, const Layer& layer);
std::ostream& operator<<(std::ostream& os, const Graph& graph);

}  // namespace nmsim::compiler
