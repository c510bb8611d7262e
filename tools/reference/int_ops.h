// Plain integer reference implementations, independent of the SystemC models: the SpiNNaker2 MLA
// (matrix multiply and 2-D convolution with its requantisation), a double-precision softmax and
// the DNN worker's int8 softmax (dnn_image.h).
// Written for obviousness: plain loops, exact sums wrapped to acc_bits (equal to the MLA's wrap
// after every step: two's complement is arithmetic modulo 2^acc_bits) and explicit floor
// division for the rounding. Semantics follow
// firmware/include/nmsim/hw/spinnaker2/mla_regs.h:
//   acc = bias[n] + sum_k a*b, wrapped to acc_bits (two's complement) after every step
//   r   = floor((acc + 2^(shift-1)) / 2^shift)   (round half up; r = acc for shift 0)
//   r   = max(r, 0) if relu;  r += c_old if accumulate;  saturate to signed out precision.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace nmsim::reference {

enum class MlaMode { matmul, conv2d };
// Rounding of the requantisation shift: the MLA rounds half up (floor((acc + 2^(s-1)) / 2^s));
// ONNX QuantizeLinear rounds half to even. The second exists to compare with ONNX semantics.
enum class Rounding { half_up, half_even };
enum class MlaOutPrec { int8, int16, int32 };

// One MLA operation: the register settings in typed form.
struct MlaOp {
    MlaMode mode = MlaMode::matmul;
    bool a_signed = true;
    bool b_signed = true;
    bool in16 = false;  // operands are 16-bit
    MlaOutPrec out = MlaOutPrec::int8;
    unsigned shift = 0;  // 0..31
    bool relu = false;
    bool bias_en = false;
    bool accumulate = false;
    unsigned acc_bits = 29;  // 8..48
    Rounding rounding = Rounding::half_up;
    // matmul: A[m][k], B[k][n], C[m][n]
    uint32_t m = 1, k = 1, n = 1;
    // conv2d: A[ifm_h][ifm_w][ifm_c], B[ker_h][ker_w][ifm_c][ofm_c], C[out_h][out_w][ofm_c]
    uint32_t ifm_h = 1, ifm_w = 1, ifm_c = 1, ker_h = 1, ker_w = 1, stride = 1, pad = 0, ofm_c = 1;

    uint32_t out_h() const;  // (ifm_h + 2*pad - ker_h)/stride + 1
    uint32_t out_w() const;
    std::size_t a_count() const;  // elements of A, B and C for this op
    std::size_t b_count() const;
    std::size_t c_count() const;
};

// Operand values (already interpreted with the op's signedness and width) -> results as values of
// the output precision. `bias` (int32 per output column) is used if op.bias_en, `c_old` (the old
// result values) if op.accumulate; otherwise they may be empty. Throws std::invalid_argument on
// inconsistent sizes, operand values outside their declared type, or an invalid op.
std::vector<int32_t> mla_matmul_ref(const MlaOp& op, const std::vector<int32_t>& a,
                                    const std::vector<int32_t>& b,
                                    const std::vector<int32_t>& bias = {},
                                    const std::vector<int32_t>& c_old = {});
std::vector<int32_t> mla_conv2d_ref(const MlaOp& op, const std::vector<int32_t>& a,
                                    const std::vector<int32_t>& b,
                                    const std::vector<int32_t>& bias = {},
                                    const std::vector<int32_t>& c_old = {});
// Dispatches on op.mode.
std::vector<int32_t> mla_ref(const MlaOp& op, const std::vector<int32_t>& a,
                             const std::vector<int32_t>& b, const std::vector<int32_t>& bias = {},
                             const std::vector<int32_t>& c_old = {});

// A B operand used for many calls (a layer's weights, the same for every input): its values are
// checked against the operand type once, when it is made, instead of at every call.
class CheckedB {
public:
    // Throws std::invalid_argument as mla_ref does for a value outside the type.
    CheckedB(std::vector<int32_t> values, bool is_signed, bool in16);
    const std::vector<int32_t>& values() const { return m_values; }
    bool is_signed() const { return m_signed; }
    bool in16() const { return m_in16; }

private:
    std::vector<int32_t> m_values;
    bool m_signed, m_in16;
};
// As mla_ref; the op's B type must be the one `b` was checked for.
std::vector<int32_t> mla_ref(const MlaOp& op, const std::vector<int32_t>& a, const CheckedB& b,
                             const std::vector<int32_t>& bias = {},
                             const std::vector<int32_t>& c_old = {});

// Memory images (little-endian, as the MLA reads them) -> element values.
std::vector<int32_t> decode_operands(const std::vector<uint8_t>& bytes, bool is_signed, bool in16);
std::vector<int32_t> decode_results(const std::vector<uint8_t>& bytes, MlaOutPrec out);
std::vector<uint8_t> encode_results(const std::vector<int32_t>& values, MlaOutPrec out);

// `value` reduced to `bits` bits in two's complement (bits 1..63).
int64_t wrap_twos_complement(int64_t value, unsigned bits);

// acc / 2^shift rounded as `r` (shift 0: acc).
int64_t round_shift(int64_t acc, unsigned shift, Rounding r);

// Softmax in double precision (max-subtracted); empty in, empty out.
std::vector<double> softmax_ref(const std::vector<double>& x);

// The PE's EXP unit as a function: exp(x) for x in s16.15 with `iterations` table steps, result in
// s16.15 (nmsim::spinnaker2::ExpAccel::compute; passed in so this library needs no models).
using ExpFn = std::function<int32_t(int32_t x_s16_15, unsigned iterations)>;

// Limits of the int8 softmax, as S2_DNN_SOFTMAX_* in firmware/include/nmsim/hw/spinnaker2/
// dnn_image.h (tools/compiler/graph_reference.cpp checks that they agree).
constexpr unsigned kSoftmaxExpIterations = 16;
constexpr int kSoftmaxMaxInExponent = 15;
constexpr int kSoftmaxMaxOutExponent = 16;
constexpr size_t kSoftmaxMaxRow = 65535;

// One row of the DNN worker's int8 softmax (dnn_image.h, "Softmax"): inputs x with exponent kx
// (0..15), outputs with exponent ky (0..16):
//   t_i = (x_i - max x) * 2^(15-kx);  e_i = exp_fn(t_i, 16);  s = sum e_i;
//   y_i = min(127, floor((e_i * 2^ky + floor(s/2)) / s)).
// Throws std::invalid_argument for exponents outside those ranges, a row longer than 65535, a
// missing exp_fn, or an exp_fn result outside 0..2^15 (or not 2^15 at the maximum). Empty in,
// empty out.
std::vector<int8_t> softmax_int8_ref(const std::vector<int8_t>& x, int kx, int ky,
                                     const ExpFn& exp_fn);

// A sparse multilayer perceptron with its weight matrices as COO lists (seed 003: the DEEP R
// network 784-300-100-10; firmware/programs/sparse_mlp). Layer l maps sizes[l] inputs to
// sizes[l+1] outputs; entry c connects input rows[c] to output cols[c] with weight weights[c].
// Entries may come in any order and repeat a (row, col) pair (their weights add up).
struct SparseLayer {
    std::vector<uint32_t> rows, cols;
    std::vector<int32_t> weights;
};
struct SparseMlp {
    std::vector<uint32_t> sizes;      // layers.size() + 1 entries, all > 0
    std::vector<SparseLayer> layers;  // at least one
    std::vector<unsigned> shifts;     // one per hidden layer (layers.size() - 1), 0..31
};

// Integer inference of `count` inputs (inputs first .. first+count-1 of `inputs`, sizes[0] values
// each, every value 0..255), their output-layer values concatenated (count * sizes.back()):
//   acc_j = sum of x_i * w over the entries (i -> j), reduced to int32 (two's complement);
//   hidden layers pass min(255, max(0, floor(acc_j / 2^shift))) on; the last returns acc_j.
// Throws std::invalid_argument for inconsistent sizes, an entry outside its layer, an input value
// outside 0..255 or inputs too short.
std::vector<int32_t> sparse_mlp_ref(const SparseMlp& net, const std::vector<int32_t>& inputs,
                                    size_t first, size_t count);

// Index of the first largest value of each row of `n` values (n > 0, values.size() % n == 0).
std::vector<int32_t> argmax_rows(const std::vector<int32_t>& values, size_t n);

}  // namespace nmsim::reference
