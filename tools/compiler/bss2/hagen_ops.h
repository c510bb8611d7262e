// BrainScaleS-2 as an analog matrix multiplier (hagen mode; seeds 002 and 004): the operators
// mapped onto synapse-array tiles. Plain C++: no SystemC, no models.
//
//  - plan_matmul: an x (batch x in) times W (in x out) product split into tiles of at most 128
//    signed inputs (row pairs) x 256 outputs, one per chip half, placed round-robin over the
//    halves of the chips (seed 002 sec. 3.3, eq. 1, Fig. 6); row splits are summed digitally on
//    the host, column splits concatenated;
//  - the ideal chip's integer reference and hxtorch's mock formula on the same tiles;
//  - Conv1d and Conv2d unrolled into matrix products (seed 002 Fig. 3, seed 004 sec. 4.2).
// Values are range-checked, not clamped (seed 004 sec. 4.2.2): inputs 0..31, weights -63..63;
// errors name the operator, the element and the limit. docs/bss2_hagen.md.
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace nmsim::compiler::bss2::hagen {

constexpr uint32_t kTileRows = 128;  // signed inputs per half (256 rows as exc/inh pairs)
constexpr uint32_t kTileCols = 256;  // outputs (neuron columns) per half
constexpr uint32_t kHalvesPerChip = 2;
constexpr int32_t kMaxInput = 31, kMaxWeight = 63;
constexpr int32_t kOutMin = -128, kOutMax = 127;
constexpr int64_t kIdealDivisor = 512;  // ideal gain 1/512 LSB per unit (docs/bss2_hagen.md)

// An operator that cannot be mapped: the message names the operator and what is out of range.
class OperatorError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// A dense integer matrix, row-major.
struct IntMatrix {
    uint32_t rows = 0, cols = 0;
    std::vector<int32_t> v;
    IntMatrix() = default;
    IntMatrix(uint32_t r, uint32_t c) : rows(r), cols(c), v(size_t{r} * c, 0) {}
    int32_t& at(uint32_t r, uint32_t c) { return v[size_t{r} * cols + c]; }
    int32_t at(uint32_t r, uint32_t c) const { return v[size_t{r} * cols + c]; }
    // Rows [first, first + n) as a matrix of their own.
    IntMatrix slice_rows(uint32_t first, uint32_t n) const {
        IntMatrix m(n, cols);
        std::copy(v.begin() + size_t{first} * cols, v.begin() + size_t{first + n} * cols,
                  m.v.begin());
        return m;
    }
    // Overwrites rows [first, first + m.rows) with m (same column count).
    void set_rows(uint32_t first, const IntMatrix& m) {
        std::copy(m.v.begin(), m.v.end(), v.begin() + size_t{first} * cols);
    }
};

// One tile: weights W[row0 .. row0 + rows) x [col0 .. col0 + cols) on half `half` of chip
// `chip`, in its `pass`-th configuration of that half (temporal reuse when the operator has more
// tiles than the chips have halves).
struct Tile {
    uint32_t chip = 0, half = 0, pass = 0;
    uint32_t row0 = 0, rows = 0, col0 = 0, cols = 0;
};

struct MatmulPlan {
    std::string op;  // operator name for messages
    uint32_t in_features = 0, out_features = 0;
    uint32_t row_splits = 0, col_splits = 0;  // tiles = row_splits x col_splits
    uint32_t chips = 0;                       // chips available
    uint32_t passes = 0;                      // the most configurations any half gets
    std::vector<Tile> tiles;                  // row split outermost, then column split
};

// Splits an in x out weight matrix over `chips` chips. Throws OperatorError for a zero size and
// std::invalid_argument for chips == 0.
MatmulPlan plan_matmul(uint32_t in_features, uint32_t out_features, uint32_t chips = 1,
                       const std::string& op = "matmul");

// Range checks with the operator's name in the message (the first offending element).
void check_inputs(const IntMatrix& x, const std::string& op);   // 0..31
void check_weights(const IntMatrix& w, const std::string& op);  // -63..63

// Exact integer product x (batch x in) times w (in x out), no gain and no clamping.
IntMatrix int_matmul(const IntMatrix& x, const IntMatrix& w);

// The ideal chip (docs/bss2_hagen.md): per tile y_t = clamp(floor(sends * x_t . w_t / 512)),
// then per output the sum over the row splits, clamped to [-128, 127] (grenade's digital
// addition). Checks the ranges and the shapes against the plan.
IntMatrix reference_matmul(const IntMatrix& x, const IntMatrix& w, uint32_t num_sends,
                           const MatmulPlan& plan);

// hxtorch's mock (its mac_mock_forward): per 128-row chunk
// r = clamp(floor(sends * gain * x . w + N(0, noise_lsb))), then clamp(sum of r). Seeded.
IntMatrix mock_matmul(const IntMatrix& x, const IntMatrix& w, uint32_t num_sends, double gain,
                      double noise_lsb, uint64_t seed, const MatmulPlan& plan);

// Convolutions as matrix products (stride only, no padding, no dilation, no groups).
struct Conv1dShape {
    uint32_t in_channels = 0, length = 0, out_channels = 0, kernel = 0, stride = 1;
    uint32_t out_length() const;  // (length - kernel) / stride + 1
};
struct Conv2dShape {
    uint32_t in_channels = 0, height = 0, width = 0, out_channels = 0;
    uint32_t kernel_h = 0, kernel_w = 0, stride = 1;
    uint32_t out_height() const;
    uint32_t out_width() const;
};
// Throws OperatorError naming `op` for an empty shape, a kernel larger than the input or
// stride 0.
void check_shape(const Conv1dShape& s, const std::string& op);
void check_shape(const Conv2dShape& s, const std::string& op);

// Input x[batch][in_channels][length] (flat) -> rows (batch, output position), columns
// (in_channel, kernel tap): every output position is one input vector of the product.
IntMatrix unroll_conv1d_input(const std::vector<int32_t>& x, uint32_t batch, const Conv1dShape& s);
// Kernel w[out_channels][in_channels][kernel] -> rows (in_channel, tap), columns out_channels.
IntMatrix unroll_conv1d_weight(const std::vector<int32_t>& w, const Conv1dShape& s);
// Product rows (batch, position) x out_channels -> y[batch][out_channels][out_length] (flat).
std::vector<int32_t> fold_conv1d_output(const IntMatrix& y, uint32_t batch, const Conv1dShape& s);

IntMatrix unroll_conv2d_input(const std::vector<int32_t>& x, uint32_t batch, const Conv2dShape& s);
IntMatrix unroll_conv2d_weight(const std::vector<int32_t>& w, const Conv2dShape& s);
std::vector<int32_t> fold_conv2d_output(const IntMatrix& y, uint32_t batch, const Conv2dShape& s);

}  // namespace nmsim::compiler::bss2::hagen
