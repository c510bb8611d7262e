// Tests of the plain integer reference (tools/reference/int_ops.h) against values worked out by
// hand: two's complement wrap, round-half-up requantisation on negative values, ReLU before
// accumulate, saturation, signedness, conv indexing with stride and padding, and softmax.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

#include "tools/reference/int_ops.h"


namespace nmsim::reference {
namespace {

// A 1x1x1 matmul with a=0 whose accumulator is exactly `bias`: isolates the requantisation.
int32_t requant(int32_t bias, unsigned shift, MlaOutPrec out = MlaOutPrec::int32, bool relu = false,
                unsigned acc_bits = 48) {
    MlaOp op;
    op.bias_en = true;
    op.shift = shift;
    op.out = out;
    op.relu = relu;
    op.acc_bits = acc_bits;
    return mla_matmul_ref(op, {0}, {0}, {bias})[0];
}

TEST(IntOpsRef, WrapTwosComplement) {
    EXPECT_EQ(wrap_twos_complement(5, 29), 5);
    EXPECT_EQ(wrap_twos_complement(268435455, 29), 268435455);   // 2^28 - 1
    EXPECT_EQ(wrap_twos_complement(268435456, 29), -268435456);  // 2^28 -> -2^28
    EXPECT_EQ(wrap_twos_complement(-268435457, 29), 268435455);  // -2^28 - 1
    EXPECT_EQ(wrap_twos_complement(536870912, 29), 0);           // 2^29
    EXPECT_EQ(wrap_twos_complement(-1, 8), -1);
    EXPECT_EQ(wrap_twos_complement(200, 8), -56);
}

// The shift-based wrap and rounding against their definitions (remainder and division), on
// random values of every magnitude, both signs, and the edges of each width.
TEST(IntOpsRef, WrapAndRoundingMatchTheirDefinitions) {
    const auto wrap_def = [](int64_t v, unsigned bits) {
        const int64_t m = int64_t{1} << bits;
        int64_t r = v % m;
        if (r < 0) r += m;
        return r >= m / 2 ? r - m : r;
    };
    const auto floor_def = [](int64_t v, unsigned s) {
        const int64_t d = int64_t{1} << s;
        return v / d - (v % d != 0 && v < 0 ? 1 : 0);
    };
    std::mt19937_64 rng(9);
    for (int i = 0; i < 200000; ++i) {
        const unsigned mag = static_cast<unsigned>(rng() % 62);
        int64_t v = static_cast<int64_t>(rng() >> (64 - mag - 1));
        if (rng() & 1) v = -v;
        const unsigned bits = 8 + static_cast<unsigned>(rng() % 41), shift = rng() % 32;
        ASSERT_EQ(wrap_twos_complement(v, bits), wrap_def(v, bits)) << v << " " << bits;
        const int64_t q = floor_def(v, shift), rem = v - q * (int64_t{1} << shift);
        const int64_t half = shift ? int64_t{1} << (shift - 1) : 1;
        const int64_t up = shift == 0 ? v : q + (rem >= half ? 1 : 0);
        const int64_t even =
            shift == 0 ? v : q + (rem > half || (rem == half && (q & 1) != 0) ? 1 : 0);
        ASSERT_EQ(round_shift(v, shift, Rounding::half_up), up) << v << " " << shift;
        ASSERT_EQ(round_shift(v, shift, Rounding::half_even), even) << v << " " << shift;
    }
    for (unsigned bits = 8; bits <= 48; ++bits) {
        const int64_t m = int64_t{1} << bits;
        for (const int64_t v : {m / 2 - 1, m / 2, -m / 2, -m / 2 - 1, m, -m, m - 1, -m + 1})
            EXPECT_EQ(wrap_twos_complement(v, bits), wrap_def(v, bits)) << v << " " << bits;
    }
}

TEST(IntOpsRef, RoundHalfUp) {
    EXPECT_EQ(requant(11, 1), 6);  // 5.5 -> 6
    EXPECT_EQ(requant(10, 1), 5);
    EXPECT_EQ(requant(-3, 1), -1);  // -1.5 -> -1
    EXPECT_EQ(requant(-5, 1), -2);  // -2.5 -> -2
    EXPECT_EQ(requant(-6, 2), -1);  // -1.5 -> -1
    EXPECT_EQ(requant(-7, 2), -2);  // -1.75 -> -2
    EXPECT_EQ(requant(-5, 2), -1);  // -1.25 -> -1
    EXPECT_EQ(requant(7, 0), 7);
    EXPECT_EQ(requant(-2147483647 - 1, 31), -1);  // -1 exactly
    EXPECT_EQ(requant(1073741824, 31), 1);        // 0.5 -> 1
    EXPECT_EQ(requant(1073741823, 31), 0);
}

TEST(IntOpsRef, SaturationReluAndAccBits) {
    EXPECT_EQ(requant(1000, 0, MlaOutPrec::int8), 127);
    EXPECT_EQ(requant(-1000, 0, MlaOutPrec::int8), -128);
    EXPECT_EQ(requant(40000, 0, MlaOutPrec::int16), 32767);
    EXPECT_EQ(requant(-40000, 0, MlaOutPrec::int16), -32768);
    EXPECT_EQ(requant(-40000, 0, MlaOutPrec::int16, true), 0);
    // 2^28 wraps to -2^28 in a 29-bit accumulator; >> 20 gives -256.
    EXPECT_EQ(requant(268435456, 20, MlaOutPrec::int16, false, 29), -256);
    EXPECT_EQ(requant(268435456, 20, MlaOutPrec::int8, false, 29), -128);
    EXPECT_EQ(requant(268435456, 20, MlaOutPrec::int16, false, 30), 256);
}

TEST(IntOpsRef, ReluBeforeAccumulate) {
    MlaOp op;
    op.bias_en = true;
    op.relu = true;
    op.accumulate = true;
    op.out = MlaOutPrec::int8;
    // acc = -50 -> ReLU 0 -> + old -20 = -20 (ReLU does not apply to the sum)
    EXPECT_EQ(mla_matmul_ref(op, {0}, {0}, {-50}, {-20})[0], -20);
    op.relu = false;
    EXPECT_EQ(mla_matmul_ref(op, {0}, {0}, {-50}, {-20})[0], -70);
    // 100 + 100 saturates after the accumulation
    EXPECT_EQ(mla_matmul_ref(op, {0}, {0}, {100}, {100})[0], 127);
}

TEST(IntOpsRef, MatmulLayoutAndSignedness) {
    MlaOp op;
    op.m = 2;
    op.k = 3;
    op.n = 2;
    op.out = MlaOutPrec::int32;
    // A = [[1,2,3],[-4,5,-6]], B = [[1,-1],[2,0],[3,10]]
    const std::vector<int32_t> a = {1, 2, 3, -4, 5, -6}, b = {1, -1, 2, 0, 3, 10};
    EXPECT_EQ(mla_matmul_ref(op, a, b), (std::vector<int32_t>{14, 29, -12, -56}));
    op.bias_en = true;
    EXPECT_EQ(mla_matmul_ref(op, a, b, {100, -100}), (std::vector<int32_t>{114, -71, 88, -156}));
    // Unsigned operands: 255 * 255
    MlaOp u;
    u.a_signed = false;
    u.b_signed = false;
    u.out = MlaOutPrec::int32;
    EXPECT_EQ(mla_matmul_ref(u, {255}, {255})[0], 65025);
    MlaOp u16 = u;
    u16.in16 = true;
    u16.shift = 16;
    u16.acc_bits = 48;
    EXPECT_EQ(mla_matmul_ref(u16, {65535}, {65535})[0],
              65534);  // (2^32 - 2^17 + 1) / 2^16, rounded
    // Values outside the declared operand type are rejected.
    EXPECT_THROW(mla_matmul_ref(op, {1, 2, 200, -4, 5, -6}, b, {0, 0}), std::invalid_argument);
    EXPECT_THROW(mla_matmul_ref(u, {-1}, {1}), std::invalid_argument);
    EXPECT_THROW(mla_matmul_ref(op, a, {1, 2, 3}, {0, 0}), std::invalid_argument);
}

TEST(IntOpsRef, Conv2dStrideAndPadding) {
    MlaOp op;
    op.mode = MlaMode::conv2d;
    op.ifm_h = op.ifm_w = 3;
    op.ifm_c = 1;
    op.ker_h = op.ker_w = 2;
    op.ofm_c = 1;
    op.out = MlaOutPrec::int32;
    const std::vector<int32_t> x = {1, 2, 3, 4, 5, 6, 7, 8, 9}, ones = {1, 1, 1, 1};
    EXPECT_EQ(mla_conv2d_ref(op, x, ones), (std::vector<int32_t>{12, 16, 24, 28}));
    op.pad = 1;
    op.stride = 2;  // out (3 + 2 - 2)/2 + 1 = 2
    EXPECT_EQ(op.out_h(), 2u);
    EXPECT_EQ(mla_conv2d_ref(op, x, ones), (std::vector<int32_t>{1, 5, 11, 28}));
    // Channel order: B[ky][kx][ic][oc]; a 1x1 input with channels (1, 10).
    MlaOp ch;
    ch.mode = MlaMode::conv2d;
    ch.ifm_c = 2;
    ch.ofm_c = 2;
    ch.out = MlaOutPrec::int32;
    EXPECT_EQ(mla_conv2d_ref(ch, {1, 10}, {1, 2, 3, 4}), (std::vector<int32_t>{31, 42}));
}

// The sums are formed in int32 when no partial sum can leave int32 (8-bit operands) and in int64
// otherwise (16-bit operands). The same int8-range values declared as 16-bit take the int64 path:
// both must give the same results, with and without wrap-around at acc_bits, for matmul and conv.
TEST(IntOpsRef, Int32AndInt64SumsAgree) {
    uint32_t seed = 12345u;
    auto next = [&seed] {
        seed = seed * 1664525u + 1013904223u;
        return static_cast<int32_t>((seed >> 16) % 256u) - 128;
    };
    for (unsigned acc_bits : {16u, 29u, 48u}) {
        MlaOp op;
        op.m = 3;
        op.k = 300;
        op.n = 17;
        op.shift = 7;
        op.relu = acc_bits == 29;
        op.bias_en = true;
        op.acc_bits = acc_bits;
        std::vector<int32_t> a(op.a_count()), b(op.b_count()), bias(op.n);
        for (auto& x : a) x = next() % 3 == 0 ? 0 : next();  // zeros as ReLU outputs give them
        for (auto& x : b) x = next();
        for (auto& x : bias) x = next() * 1000;
        MlaOp wide = op;
        wide.in16 = true;
        EXPECT_EQ(mla_matmul_ref(op, a, b, bias), mla_matmul_ref(wide, a, b, bias)) << acc_bits;
        const CheckedB checked(b, op.b_signed, op.in16);
        EXPECT_EQ(mla_ref(op, a, checked, bias), mla_matmul_ref(op, a, b, bias)) << acc_bits;

        MlaOp conv;
        conv.mode = MlaMode::conv2d;
        conv.ifm_h = conv.ifm_w = 6;
        conv.ifm_c = 5;
        conv.ker_h = conv.ker_w = 3;
        conv.ofm_c = 4;
        conv.pad = 1;
        conv.shift = 5;
        conv.acc_bits = acc_bits;
        std::vector<int32_t> x(conv.a_count()), w(conv.b_count());
        for (auto& v : x) v = next();
        for (auto& v : w) v = next();
        MlaOp conv16 = conv;
        conv16.in16 = true;
        EXPECT_EQ(mla_conv2d_ref(conv, x, w), mla_conv2d_ref(conv16, x, w)) << acc_bits;
    }
    // A checked operand is checked once, when made, and only for the type it was checked for.
    EXPECT_THROW(CheckedB({1, 200}, true, false), std::invalid_argument);
    MlaOp op;
    op.k = 2;
    const CheckedB unsigned_b({1, 200}, false, false);
    EXPECT_THROW(mla_ref(op, {1, 1}, unsigned_b), std::invalid_argument);
    op.b_signed = false;
    EXPECT_EQ(mla_ref(op, {1, 1}, unsigned_b)[0], 127);  // 201 saturated to int8
}

TEST(IntOpsRef, Codecs) {
    EXPECT_EQ(decode_operands({0xFF, 0x7F}, true, true), (std::vector<int32_t>{32767}));
    EXPECT_EQ(decode_operands({0x00, 0x80}, true, true), (std::vector<int32_t>{-32768}));
    EXPECT_EQ(decode_operands({0x00, 0x80}, false, true), (std::vector<int32_t>{32768}));
    EXPECT_EQ(decode_operands({0xFF, 0x7F}, true, false), (std::vector<int32_t>{-1, 127}));
    EXPECT_EQ(decode_operands({0xFF, 0x7F}, false, false), (std::vector<int32_t>{255, 127}));
    const std::vector<int32_t> v = {-2147483647 - 1, -1, 0, 2147483647};
    EXPECT_EQ(decode_results(encode_results(v, MlaOutPrec::int32), MlaOutPrec::int32), v);
    EXPECT_EQ(encode_results({-2}, MlaOutPrec::int16), (std::vector<uint8_t>{0xFE, 0xFF}));
}

TEST(IntOpsRef, Softmax) {
    const auto p = softmax_ref({0.0, std::log(3.0)});
    ASSERT_EQ(p.size(), 2u);
    EXPECT_NEAR(p[0], 0.25, 1e-15);
    EXPECT_NEAR(p[1], 0.75, 1e-15);
    const auto big = softmax_ref({1000.0, 1000.0, -1000.0});
    EXPECT_NEAR(big[0], 0.5, 1e-15);
    EXPECT_NEAR(big[1], 0.5, 1e-15);
    EXPECT_EQ(big[2], 0.0);
    EXPECT_TRUE(softmax_ref({}).empty());
}

// sparse_mlp_ref on a 3-2-2 network worked out by hand. Layer 1: (0->0, 2), (1->0, -1),
// (2->1, 3), (2->1, 1) (a repeated pair: the weights add up to 4), (1->1, -5); shift 1.
// Layer 2: (0->0, 100), (1->0, -7), (1->1, -300).
SparseMlp tiny_sparse_mlp() {
    SparseMlp net;
    net.sizes = {3, 2, 2};
    net.layers = {{{0, 1, 2, 2, 1}, {0, 0, 1, 1, 1}, {2, -1, 3, 1, -5}},
                  {{0, 1, 1}, {0, 0, 1}, {100, -7, -300}}};
    net.shifts = {1};
    return net;
}

TEST(IntOpsRef, SparseMlpByHand) {
    const std::vector<int32_t> inputs = {
        10,  3,   7,    // h = (17 >> 1, 13 >> 1) = (8, 6): floor of 8.5 and 6.5
        0,   200, 1,    // h accumulators -200 and -996: ReLU gives (0, 0)
        255, 0,   0,    // h0 = 510 >> 1 = 255 (largest value that passes unclamped)
        255, 0,   255,  // h1 = 1020 >> 1 = 510 saturates to 255
    };
    // Row by row: (758, -1800), (0, 0), (25500, 0), (23715, -76500).
    const std::vector<int32_t> want = {8 * 100 + 6 * -7,     6 * -300,  0, 0, 255 * 100, 0,
                                       255 * 100 + 255 * -7, 255 * -300};
    EXPECT_EQ(sparse_mlp_ref(tiny_sparse_mlp(), inputs, 0, 4), want);
    // first/count select inputs 1 and 2.
    EXPECT_EQ(sparse_mlp_ref(tiny_sparse_mlp(), inputs, 1, 2),
              std::vector<int32_t>(want.begin() + 2, want.begin() + 6));
    EXPECT_EQ(argmax_rows(want, 2), (std::vector<int32_t>{0, 0, 0, 0}));  // ties: the first
}

TEST(IntOpsRef, SparseMlpOutputWrapsToInt32) {
    // One layer, 300 copies of the entry (0 -> 0, 32767): 255 * 32767 * 300 = 2506675500 wraps to
    // 2506675500 - 2^32 = -1788291796.
    SparseMlp net;
    net.sizes = {1, 1};
    net.layers = {{std::vector<uint32_t>(300, 0), std::vector<uint32_t>(300, 0),
                   std::vector<int32_t>(300, 32767)}};
    EXPECT_EQ(sparse_mlp_ref(net, {255}, 0, 1), std::vector<int32_t>{-1788291796});
}

TEST(IntOpsRef, SparseMlpRejectsBadNetworksAndInputs) {
    const std::vector<int32_t> x = {1, 2, 3};
    SparseMlp net = tiny_sparse_mlp();
    EXPECT_NO_THROW(sparse_mlp_ref(net, x, 0, 1));
    EXPECT_THROW(sparse_mlp_ref(net, x, 0, 2), std::invalid_argument);            // one input only
    EXPECT_THROW(sparse_mlp_ref(net, {1, 256, 3}, 0, 1), std::invalid_argument);  // not uint8
    net.layers[1].cols[2] = 2;  // output 2 of a 2-wide layer
    EXPECT_THROW(sparse_mlp_ref(net, x, 0, 1), std::invalid_argument);
    net = tiny_sparse_mlp();
    net.layers[0].rows[0] = 3;  // input 3 of 3
    EXPECT_THROW(sparse_mlp_ref(net, x, 0, 1), std::invalid_argument);
    net = tiny_sparse_mlp();
    net.shifts.clear();
    EXPECT_THROW(sparse_mlp_ref(net, x, 0, 1), std::invalid_argument);
    net = tiny_sparse_mlp();
    net.layers[0].weights.pop_back();
    EXPECT_THROW(sparse_mlp_ref(net, x, 0, 1), std::invalid_argument);
    EXPECT_THROW(argmax_rows({1, 2, 3}, 2), std::invalid_argument);
    EXPECT_EQ(argmax_rows({1, 5, 5, 0, -3, -2}, 3), (std::vector<int32_t>{1, 0}));
}

}  // namespace
}  // namespace nmsim::reference
