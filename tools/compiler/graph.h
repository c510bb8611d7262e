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

// ---- Limits of the application graph (docs/compiler.md, "Limits") ----
// Every tensor of a Graph (activations, weights, biases) has rank 1..kMaxRank, dimensions >= 1
// and at most kMaxTensorBytes bytes: the DRAM image (dnn_image.h) places every tensor in the
// 2 GiB DRAM window (S2_DRAM_GLOBAL_SIZE) with 32-bit addresses. So every dimension, element
// count and element index fits int32 and uint32 (the worker configuration's fields), and the
// product of two of them fits int64.
constexpr size_t kMaxRank = 8;                         // supported layers use at most 4 (NCHW)
constexpr int64_t kMaxTensorBytes = int64_t{1} << 31;  // the DRAM window
// Kernel sizes and strides (1..kMaxWindow) and pads (0..kMaxWindow) of conv2d, maxpool and
// avgpool: 16 bits, so the firmware's window arithmetic in 32 bits (worker.c run_pool: oy *
// stride + ky - pad) and the MLA's conv registers (KER_H/W, STRIDE, PAD) never overflow.
constexpr int64_t kMaxWindow = 65535;
// avgpool window area: the firmware sums up to kh * kw int8 values in an int32 (128 * 2^24 =
// 2^31).
constexpr int64_t kMaxPoolArea = int64_t{1} << 24;
// softmax row length (the last axis): the firmware (worker.c run_softmax) and the reference sum up
// to k exponentials of at most 2^15 in 32 bits.
constexpr int64_t kMaxSoftmaxRow = 65535;

// a * b and a + b, or false on int64 overflow (nothing written then).
bool checked_mul(int64_t a, int64_t b, int64_t* out);
bool checked_add(int64_t a, int64_t b, int64_t* out);

// Product of the dimensions. Throws CompileError for a negative dimension or an int64 overflow
// (a Graph's shapes never have either: see shape_problem).
int64_t shape_elements(const Shape& shape);
std::string shape_str(const Shape& shape);  // "[1, 8, 28, 28]"
// Why a tensor of `shape` with elements of `elem_bytes` breaks the limits above (rank, a
// dimension < 1, more than kMaxTensorBytes bytes), or "" if it does not.
std::string shape_problem(const Shape& shape, int64_t elem_bytes);

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

// Why `layer` breaks the graph's invariants and limits, or "" if it does not: its shapes (input,
// output, weights, bias) as shape_problem, weight and bias data matching their shapes (int8
// weights [out, in] or [out_c, in_c, kh, kw], int32 bias [out]), window attributes within
// kMaxWindow, the avgpool area and softmax row limits, and the shift in 0..31. tile_layer,
// build_image and run_reference check every layer with it, so graphs built in code get the same
// guarantees as imported ones.
std::string layer_problem(const Layer& layer);

std::ostream& operator<<(std::ostream& os, const Layer& layer);
std::ostream& operator<<(std::ostream& os, const Graph& graph);

}  // namespace nmsim::compiler
