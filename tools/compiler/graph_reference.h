// Integer reference of an application graph: runs every layer on the host with the integer
// semantics the chip computes (linear/conv2d through tools/reference's MLA reference, pools, add,
// softmax as in firmware/include/nmsim/hw/spinnaker2/dnn_image.h). Independent of tiling and the
// DRAM image, so it checks both. Plain C++: no SystemC, no models (the EXP unit is passed in).
// See docs/compiler.md, "Integer reference".
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "tools/compiler/graph.h"
#include "tools/reference/int_ops.h"

namespace nmsim::compiler {

// exp(x) for x in s16.15 with `iterations` table steps, result in s16.15: the PE's EXP unit
// (nmsim::spinnaker2::ExpAccel::compute).
using ExpFn = std::function<int32_t(int32_t x_s16_15, unsigned iterations)>;

// The default is the chip's arithmetic (what the run is checked against bit for bit). onnx()
// gives ONNX semantics instead, for comparison with ONNX Runtime: QuantizeLinear rounds half to
// even, integer MatMul/Conv accumulate in int32, Softmax is computed in floating point and
// quantised (half to even, saturated).
struct ReferenceOptions {
    unsigned acc_bits = 29;  // MLA accumulator width (pe.mla.acc_bits), 8..48
    ExpFn exp;               // required for a softmax layer (unless float_softmax)
    reference::Rounding rounding = reference::Rounding::half_up;
    bool float_softmax = false;  // double-precision softmax instead of the firmware's EXP one

    static ReferenceOptions onnx() {
        ReferenceOptions o;
        o.acc_bits = 32;
        o.rounding = reference::Rounding::half_even;
        o.float_softmax = true;
        return o;
    }
};

// Runs `graph` on one input (int8, the input layer's element order: row-major / NCHW) and returns
// every layer's output by layer name (input and output layers included), in the graph's element
// order (row-major; NCHW for feature maps).
//   linear, conv2d: acc = bias + sum x*w wrapped to acc_bits after every step,
//                   y = (acc + 2^(shift-1)) >> shift (opt.rounding), ReLU if fused, saturate
//   add:            acc = a + b, then the same requantisation
//   avgpool:        acc = window sum (no padding), the same requantisation
//   maxpool:        max over the window's elements inside the map (padding never wins)
//   flatten, output: copies;  softmax: rows of the last axis, tools/reference softmax_int8_ref.
// Throws std::invalid_argument for a graph without exactly one input layer, an input of the
// wrong size, a softmax without opt.exp (and not float_softmax), a padded avgpool, or parameters
// the references reject.
std::map<std::string, std::vector<int8_t>> run_reference(const Graph& graph,
                                                         const std::vector<int8_t>& input,
                                                         const ReferenceOptions& opt);

// run_reference for many inputs of one graph: the weights of every linear and conv2d layer are
// laid out for the MLA reference once (at the first input) and reused. The graph must outlive
// this object and not change.
class GraphReference {
public:
    using Operands = std::map<const Layer*, reference::CheckedB>;
    explicit GraphReference(const Graph& graph) : m_graph(graph) {}
    std::map<std::string, std::vector<int8_t>> run(const std::vector<int8_t>& input,
                                                   const ReferenceOptions& opt);

private:
    const Graph& m_graph;
    Operands m_b;
};

}  // namespace nmsim::compiler
