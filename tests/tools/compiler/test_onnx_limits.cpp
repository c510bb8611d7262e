// The ONNX front end's arithmetic (issue 12 item 4): every attribute and dimension of a valid
// model (make_fixtures.py's fixtures, the committed CNN) mutated to huge, zero, negative, 2^31,
// 2^32+1 and int64-overflowing values gives the exact error naming the node (name and op type)
// and the attribute or tensor; nothing is truncated (a stride of 2^32+1 used to become 1); and a
// seeded random mutation loop only ever loads a graph within graph.h's limits (which tiling, the
// DRAM image and the reference then handle) or fails with a located CompileError. The test runs
// under ASan/UBSan in the sanitizer build.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <random>
#include <sstream>
#include <stdexcept>

#include "tools/compiler/dram_image.h"
#include "tools/compiler/graph_reference.h"
#include "tools/compiler/onnx_frontend.h"
#include "tools/compiler/tiling.h"

namespace nmsim::compiler {
namespace {

const std::string kData = NMSIM_COMPILER_TEST_DATA;
const std::string kModels = std::string(NMSIM_SOURCE_DIR) + "/scenarios/models";

constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kI64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t k2p31 = int64_t{1} << 31;
constexpr int64_t k2p32p1 = (int64_t{1} << 32) + 1;

onnx::ModelProto load_model(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    onnx::ModelProto m;
    EXPECT_TRUE(m.ParseFromString(bytes.str())) << path;
    return m;
}

onnx::ModelProto fixture(const std::string& name) { return load_model(kData + "/" + name); }

std::string error_of(const onnx::ModelProto& m, const std::string& source = "m.onnx") {
    try {
        parse_onnx(m.SerializeAsString(), source);
    } catch (const CompileError& e) {
        return e.what();
    }
    return "(no error)";
}

std::string mutated(const std::string& name, const std::function<void(onnx::GraphProto&)>& f) {
    onnx::ModelProto m = fixture(name);
    f(*m.mutable_graph());
    return error_of(m);
}

onnx::NodeProto& node(onnx::GraphProto& g, const std::string& name) {
    for (onnx::NodeProto& n : *g.mutable_node())
        if (n.name() == name) return n;
    throw std::runtime_error("no node " + name);
}

onnx::TensorProto& init(onnx::GraphProto& g, const std::string& name) {
    for (onnx::TensorProto& t : *g.mutable_initializer())
        if (t.name() == name) return t;
    throw std::runtime_error("no initializer " + name);
}

// Sets (adds) attribute `name` of n to the INTS `v`.
void set_ints(onnx::NodeProto& n, const std::string& name, const std::vector<int64_t>& v) {
    onnx::AttributeProto* a = nullptr;
    for (onnx::AttributeProto& x : *n.mutable_attribute())
        if (x.name() == name) a = &x;
    if (!a) {
        a = n.add_attribute();
        a->set_name(name);
    }
    a->set_type(onnx::AttributeProto::INTS);
    a->clear_ints();
    for (int64_t x : v) a->add_ints(x);
}

void set_dims(onnx::TensorProto& t, const std::vector<int64_t>& dims) {
    t.clear_dims();
    for (int64_t d : dims) t.add_dims(d);
}

void set_input_dims(onnx::GraphProto& g, const std::vector<int64_t>& dims) {
    auto* shape = g.mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape();
    shape->clear_dim();
    for (int64_t d : dims) shape->add_dim()->set_dim_value(d);
}

std::string str(const std::vector<int64_t>& v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
    return s + "]";
}

const char* kWindow = "the DRAM window (2 GiB, 32-bit addresses) a tensor must fit";

// The value classes of the brief: huge, zero, negative, 2^31, 2^32+1, int64's extremes.
const int64_t kBadValues[] = {int64_t{1} << 40, 0, -1, k2p31, k2p32p1, kI64Max, kI64Min, 65536};

// Every window attribute of every Conv/MaxPool/AveragePool of conv_tiny, each position, each
// class: "attribute strides[0] = 4294967297 outside 1..65535" (pads: 0..65535, so 0 is fine).
TEST(OnnxLimits, EveryWindowAttributeOutsideItsRangeNamesNodeAndAttribute) {
    struct Attr {
        const char* node;
        const char* op;
        const char* name;
        std::vector<int64_t> valid;
    };
    const Attr attrs[] = {
        {"conv", "Conv", "kernel_shape", {3, 3}},       {"conv", "Conv", "strides", {1, 1}},
        {"conv", "Conv", "pads", {1, 1, 1, 1}},         {"pool", "MaxPool", "kernel_shape", {2, 2}},
        {"pool", "MaxPool", "strides", {2, 2}},         {"pool", "MaxPool", "pads", {0, 0, 0, 0}},
        {"avg", "AveragePool", "kernel_shape", {2, 2}}, {"avg", "AveragePool", "strides", {1, 1}},
    };
    int cases = 0;
    for (const Attr& a : attrs)
        for (size_t i = 0; i < a.valid.size(); ++i)
            for (int64_t bad : kBadValues) {
                const int64_t lo = std::string(a.name) == "pads" ? 0 : 1;
                if (bad >= lo && bad <= 65535) continue;
                std::vector<int64_t> v = a.valid;
                v[i] = bad;
                SCOPED_TRACE(std::string(a.node) + " " + a.name + " " + str(v));
                EXPECT_EQ(
                    mutated("conv_tiny.onnx",
                            [&](onnx::GraphProto& g) { set_ints(node(g, a.node), a.name, v); }),
                    std::string("m.onnx: node '") + a.node + "' (" + a.op + "): attribute " +
                        a.name + "[" + std::to_string(i) + "] = " + std::to_string(bad) +
                        " outside " + std::to_string(lo) + "..65535");
                ++cases;
            }
    EXPECT_EQ(cases, 12 * 8 + 8 * 7);  // kernel/stride positions x 8 values, pads x 7 (0 is valid)
}

// Other attribute errors: types, counts, and int64 values compared without truncation.
TEST(OnnxLimits, AttributeTypesCountsAndInt64Values) {
    const std::string conv = "m.onnx: node 'conv' (Conv): ";
    EXPECT_EQ(mutated("conv_tiny.onnx",
                      [](onnx::GraphProto& g) {
                          for (onnx::AttributeProto& a : *node(g, "conv").mutable_attribute())
                              if (a.name() == "pads") {
                                  a.set_type(onnx::AttributeProto::INT);
                                  a.set_i(1);
                              }
                      }),
              conv + "attribute pads has type INT, expected INTS");
    EXPECT_EQ(mutated("conv_tiny.onnx",
                      [](onnx::GraphProto& g) {
                          set_ints(node(g, "conv"), "strides", {1, 1, 1});
                      }),
              conv + "only 2-D kernels are supported");
    EXPECT_EQ(mutated("conv_tiny.onnx",
                      [](onnx::GraphProto& g) { set_ints(node(g, "conv"), "dilations", {1}); }),
              conv + "only 2-D kernels are supported");
    EXPECT_EQ(mutated("conv_tiny.onnx",
                      [](onnx::GraphProto& g) {
                          set_ints(node(g, "conv"), "dilations", {k2p32p1, 1});
                      }),
              conv + "dilations other than 1 not supported");
    // The padded map as the MLA's conv mode sees it must be a tensor within the limits.
    EXPECT_EQ(mutated("conv_tiny.onnx",
                      [](onnx::GraphProto& g) {
                          set_ints(node(g, "conv"), "pads", {65535, 65535, 65535, 65535});
                      }),
              conv + "padded input shape [1, 1, 131076, 131076] needs more than 2147483648 B, " +
                  kWindow);
    EXPECT_EQ(mutated("conv_tiny.onnx",
                      [](onnx::GraphProto& g) {
                          set_ints(node(g, "conv"), "kernel_shape", {9, 3});
                      }),
              conv + "kernel larger than the padded input [1, 1, 6, 6]");
    EXPECT_EQ(mutated("conv_tiny.onnx",
                      [](onnx::GraphProto& g) {
                          set_ints(node(g, "conv"), "kernel_shape", {5, 3});
                      }),
              conv + "kernel_shape differs from the weight shape [2, 1, 3, 3]");
    // int64 INT attributes: 2^32 + 1 is not 1.
    auto set_int = [](onnx::NodeProto& n, const char* name, int64_t v) {
        onnx::AttributeProto* a = n.add_attribute();
        a->set_name(name);
        a->set_type(onnx::AttributeProto::INT);
        a->set_i(v);
    };
    EXPECT_EQ(mutated("conv_tiny.onnx",
                      [&](onnx::GraphProto& g) { set_int(node(g, "conv"), "group", k2p32p1); }),
              conv + "group other than 1 not supported");
    EXPECT_EQ(
        mutated("conv_tiny.onnx",
                [&](onnx::GraphProto& g) { set_int(node(g, "pool"), "ceil_mode", k2p31 * 2); }),
        "m.onnx: node 'pool' (MaxPool): ceil_mode=1 not supported");
    EXPECT_EQ(mutated("conv_tiny.onnx",
                      [&](onnx::GraphProto& g) {
                          for (onnx::AttributeProto& a : *node(g, "softmax").mutable_attribute())
                              a.set_i(kI64Min);
                      }),
              "m.onnx: node 'softmax' (Softmax): only softmax over the last axis is supported");
    EXPECT_EQ(mutated("linear_relu.onnx",
                      [](onnx::GraphProto& g) {
                          for (onnx::AttributeProto& a : *node(g, "fc").mutable_attribute()) {
                              a.set_type(onnx::AttributeProto::FLOAT);
                              a.set_f(1.0f);
                          }
                      }),
              "m.onnx: node 'fc' (Gemm): attribute transB has type FLOAT, expected INT");
    EXPECT_EQ(mutated("linear_relu.onnx",
                      [](onnx::GraphProto& g) {
                          onnx::NodeProto* c = g.add_node();
                          c->set_name("c");
                          c->set_op_type("Constant");
                      }),
              "m.onnx: node 'c' (Constant): expected exactly one output, got 0");
}

// Every dimension of every initializer (int8 weights, int32 biases, the int64 Reshape shape) set
// to each value class: a dimension < 1, a tensor above the DRAM window (2^31 B; products that
// overflow int64 included) or, at 2^31 one-byte elements, data that does not match.
TEST(OnnxLimits, EveryInitializerDimensionOutsideTheLimitsNamesNodeAndTensor) {
    struct Init {
        const char* fixture;
        const char* tensor;
        const char* node;  // the node that reads it
        const char* op;
        std::vector<int64_t> dims;
        int64_t elem_bytes;
    };
    const Init inits[] = {
        {"conv_tiny.onnx", "conv.weight_q", "conv.weight_DQ", "DequantizeLinear", {2, 1, 3, 3}, 1},
        {"conv_tiny.onnx", "conv.bias_q", "conv.bias_DQ", "DequantizeLinear", {2}, 4},
        {"conv_tiny.onnx", "flat_shape", "flat", "Reshape", {2}, 8},
        {"linear_relu.onnx", "fc.weight_q", "fc.weight_DQ", "DequantizeLinear", {3, 4}, 1},
        {"linear_relu.onnx", "fc.bias_q", "fc.bias_DQ", "DequantizeLinear", {3}, 4},
    };
    int cases = 0;
    for (const Init& in : inits)
        for (size_t i = 0; i < in.dims.size(); ++i)
            for (int64_t bad : kBadValues) {
                std::vector<int64_t> dims = in.dims;
                dims[i] = bad;
                SCOPED_TRACE(std::string(in.tensor) + " " + str(dims));
                const std::string got = mutated(
                    in.fixture, [&](onnx::GraphProto& g) { set_dims(init(g, in.tensor), dims); });
                const std::string prefix = std::string("m.onnx: node '") + in.node + "' (" + in.op +
                                           "): tensor '" + in.tensor + "': shape " + str(dims);
                // Expected independently: 128-bit product of the dimensions and element size.
                unsigned __int128 bytes = static_cast<unsigned __int128>(in.elem_bytes);
                bool small = true;
                for (int64_t d : dims) {
                    if (d < 1) break;
                    bytes *= static_cast<unsigned __int128>(d);
                    if (bytes > (static_cast<unsigned __int128>(1) << 31)) small = false;
                    if (!small) break;
                }
                std::string want;
                if (bad < 1)
                    want = prefix + ": dimension " + std::to_string(i) + " is " +
                           std::to_string(bad) + ", not a positive size";
                else if (!small)
                    want = prefix + " needs more than 2147483648 B, " + kWindow;
                else  // fits the limits: the data no longer matches the shape
                    want = "m.onnx: tensor '" + std::string(in.tensor) + "': holds ";
                EXPECT_EQ(got.substr(0, want.size()), want) << got;
                ++cases;
            }
    EXPECT_EQ(cases, 9 * 8);
    // Rank above 8.
    EXPECT_EQ(mutated("linear_relu.onnx",
                      [](onnx::GraphProto& g) {
                          set_dims(init(g, "fc.weight_q"), {3, 4, 1, 1, 1, 1, 1, 1, 1});
                      }),
              "m.onnx: node 'fc.weight_DQ' (DequantizeLinear): tensor 'fc.weight_q': shape [3, 4, "
              "1, 1, 1, 1, 1, 1, 1] has rank 9, outside 1..8");
    // 2^32 x 2^32 x 2^32 wraps to 0 in 64 bits: no longer mistaken for an empty tensor.
    EXPECT_EQ(mutated("linear_relu.onnx",
                      [](onnx::GraphProto& g) {
                          onnx::TensorProto& t = init(g, "fc.weight_q");
                          set_dims(t, {int64_t{1} << 32, int64_t{1} << 32, int64_t{1} << 32});
                          t.clear_raw_data();
                          t.clear_int32_data();
                      }),
              "m.onnx: node 'fc.weight_DQ' (DequantizeLinear): tensor 'fc.weight_q': shape "
              "[4294967296, 4294967296, 4294967296] needs more than 2147483648 B, " +
                  std::string(kWindow));
    // int8 values stored as int32_data are checked, not truncated (300 used to become 44).
    EXPECT_EQ(mutated("linear_relu.onnx",
                      [](onnx::GraphProto& g) {
                          onnx::TensorProto& t = init(g, "fc.weight_q");
                          t.clear_raw_data();
                          for (int i = 0; i < 12; ++i) t.add_int32_data(i == 7 ? 300 : 1);
                      }),
              "m.onnx: node 'fc.weight_DQ' (DequantizeLinear): tensor 'fc.weight_q': int8 value "
              "300 outside -128..127");
}

// The graph input, Reshape targets, layer outputs, the softmax row and the avgpool area.
TEST(OnnxLimits, ShapesOfInputsOutputsAndLayers) {
    for (const std::vector<int64_t>& dims :
         std::vector<std::vector<int64_t>>{{1, k2p31 + 1}, {65536, 65536}, {k2p32p1, 4}}) {
        EXPECT_EQ(
            mutated("linear_relu.onnx", [&](onnx::GraphProto& g) { set_input_dims(g, dims); }),
            "m.onnx: tensor 'input': graph input shape " + str(dims) +
                " needs more than 2147483648 B, " + kWindow);
    }
    for (int64_t bad : {int64_t{0}, int64_t{-4}, kI64Min})
        EXPECT_EQ(mutated("linear_relu.onnx",
                          [&](onnx::GraphProto& g) {
                              set_input_dims(g, {1, bad});
                          }),
                  "m.onnx: tensor 'input': graph input dimension 1 is not a fixed positive size");
    EXPECT_EQ(mutated("linear_relu.onnx",
                      [](onnx::GraphProto& g) {
                          set_input_dims(g, {1, 4, 1, 1, 1, 1, 1, 1, 1});
                      }),
              "m.onnx: tensor 'input': graph input shape [1, 4, 1, 1, 1, 1, 1, 1, 1] has rank 9, "
              "outside 1..8");

    // Reshape targets: products that overflow int64, negative and too many dimensions.
    auto reshape_to = [](const std::vector<int64_t>& shape) {
        return mutated("conv_tiny.onnx", [&](onnx::GraphProto& g) {
            onnx::TensorProto& t = init(g, "flat_shape");
            set_dims(t, {static_cast<int64_t>(shape.size())});
            t.clear_raw_data();
            t.clear_int64_data();
            for (int64_t d : shape) t.add_int64_data(d);
        });
    };
    const std::string flat = "m.onnx: node 'flat' (Reshape): ";
    EXPECT_EQ(reshape_to({int64_t{1} << 32, int64_t{1} << 32, -1}),
              flat + "cannot reshape [1, 2, 2, 2] to [4294967296, 4294967296, -1]");
    EXPECT_EQ(reshape_to({kI64Max, -1}),
              flat + "cannot reshape [1, 2, 2, 2] to [" + std::to_string(kI64Max) + ", -1]");
    EXPECT_EQ(reshape_to({k2p32p1, 8}), flat + "cannot reshape [1, 2, 2, 2] to [4294967297, 8]");
    EXPECT_EQ(reshape_to({-5, 8}), flat + "invalid target dimension -5");
    EXPECT_EQ(reshape_to({1, 1, 1, 1, 1, 1, 1, 1, 8}),
              flat + "shape 'flat_shape' has 9 dimensions, outside 1..8");
    EXPECT_EQ(reshape_to({1, 8}), "(no error)");

    // A Gemm whose output exceeds the DRAM window: [2^20, 4] x [4, 4096] (16 KiB of weights).
    EXPECT_EQ(mutated("linear_relu.onnx",
                      [](onnx::GraphProto& g) {
                          set_input_dims(g, {int64_t{1} << 20, 4});
                          onnx::TensorProto& w = init(g, "fc.weight_q");
                          set_dims(w, {4096, 4});
                          w.set_raw_data(std::string(4096 * 4, '\1'));
                          onnx::TensorProto& b = init(g, "fc.bias_q");
                          set_dims(b, {4096});
                          b.set_raw_data(std::string(4096 * 4, '\0'));
                      }),
              "m.onnx: node 'fc' (Gemm): output shape [1048576, 4096] needs more than 2147483648 "
              "B, " +
                  std::string(kWindow));

    // Conv weights with a kernel side above 16 bits.
    EXPECT_EQ(mutated("conv_tiny.onnx",
                      [](onnx::GraphProto& g) {
                          onnx::TensorProto& w = init(g, "conv.weight_q");
                          set_dims(w, {2, 1, 70000, 1});
                          w.set_raw_data(std::string(140000, '\1'));
                          set_ints(node(g, "conv"), "kernel_shape", {70000, 1});
                      }),
              "m.onnx: node 'conv' (Conv): weight 'conv.weight_q' [2, 1, 70000, 1]: kernel size "
              "70000 outside 1..65535");

    // A softmax over rows longer than the integer softmax sums in 32 bits.
    EXPECT_EQ(mutated("conv_tiny.onnx",
                      [](onnx::GraphProto& g) {
                          onnx::TensorProto& w = init(g, "fc.weight_q");
                          set_dims(w, {70000, 8});
                          w.set_raw_data(std::string(70000 * 8, '\1'));
                          onnx::TensorProto& b = init(g, "fc.bias_q");
                          set_dims(b, {70000});
                          b.set_raw_data(std::string(70000 * 4, '\0'));
                      }),
              "m.onnx: node 'softmax' (Softmax): rows of 70000 elements, above 65535 (the integer "
              "softmax sums up to 2^15 per element in 32 bits)");

    // An average window above 2^24 elements (the firmware's int32 window sum); the map itself
    // is only a shape, no data.
    EXPECT_EQ(mutated("conv_tiny.onnx",
                      [](onnx::GraphProto& g) {
                          set_input_dims(g, {1, 1, 8194, 8194});
                          set_ints(node(g, "avg"), "kernel_shape", {4097, 4097});
                      }),
              "m.onnx: node 'avg' (AveragePool): window area 16785409 above 16777216 (the "
              "firmware sums the window of int8 values in 32 bits)");
}

// The committed CNN with its first MaxPool's stride at 2^32 + 2: it used to become 2 (the
// model loaded and the run said PASS); now it is an error naming the node and the attribute.
TEST(OnnxLimits, CommittedCnnWithATruncatingStrideIsRefused) {
    const std::string path = kModels + "/cnn_fmnist_int8.onnx";
    if (!std::filesystem::exists(path)) GTEST_SKIP() << "scenarios/models not present";
    onnx::ModelProto m = load_model(path);
    EXPECT_EQ(error_of(m, "cnn.onnx"), "(no error)");
    set_ints(node(*m.mutable_graph(), "/2/MaxPool"), "strides", {(int64_t{1} << 32) + 2, 2});
    EXPECT_EQ(error_of(m, "cnn.onnx"),
              "cnn.onnx: node '/2/MaxPool' (MaxPool): attribute strides[0] = 4294967298 outside "
              "1..65535");
}

// ---- randomised mutations (fixed seed) ----

// One random change to a model: an attribute's value or type, an initializer's dimension, data
// or type, the graph input's shape, a node's input or op type, a removed node.
void mutate(onnx::ModelProto& m, std::mt19937_64& rng) {
    auto pick = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
    const int64_t nasty[] = {0,
                             1,
                             2,
                             3,
                             -1,
                             -2,
                             7,
                             65535,
                             65536,
                             k2p31 - 1,
                             k2p31,
                             k2p32p1,
                             kI64Max,
                             kI64Min,
                             int64_t{1} << 62,
                             (int64_t{1} << 32) + 3};
    auto value = [&]() -> int64_t {
        return pick(4) == 0 ? static_cast<int64_t>(pick(20)) : nasty[pick(std::size(nasty))];
    };
    onnx::GraphProto& g = *m.mutable_graph();
    switch (pick(8)) {
        case 0:
        case 1: {                   // an attribute
            std::vector<int> with;  // nodes with attributes, mostly those
            for (int i = 0; i < g.node_size(); ++i)
                if (g.node(i).attribute_size() > 0) with.push_back(i);
            onnx::NodeProto& n =
                *g.mutable_node(with.empty() || pick(5) == 0 ? static_cast<int>(pick(g.node_size()))
                                                             : with[pick(with.size())]);
            if (n.attribute_size() == 0) {
                set_ints(n, pick(2) ? "strides" : "pads", {value(), value()});
                break;
            }
            onnx::AttributeProto& a =
                *n.mutable_attribute(static_cast<int>(pick(n.attribute_size())));
            if (pick(8) == 0) {
                a.set_type(static_cast<onnx::AttributeProto::AttributeType>(pick(10)));
            } else if (a.ints_size() > 0) {
                a.set_ints(static_cast<int>(pick(a.ints_size())), value());
                if (pick(6) == 0) a.add_ints(value());
            } else {
                a.set_i(value());
            }
            break;
        }
        case 2:
        case 3: {  // an initializer's dimension
            onnx::TensorProto& t =
                *g.mutable_initializer(static_cast<int>(pick(g.initializer_size())));
            if (t.dims_size() == 0 || pick(5) == 0)
                t.add_dims(value());
            else
                t.set_dims(static_cast<int>(pick(t.dims_size())), value());
            break;
        }
        case 4: {  // an initializer's data or type
            onnx::TensorProto& t =
                *g.mutable_initializer(static_cast<int>(pick(g.initializer_size())));
            switch (pick(4)) {
                case 0:
                    t.mutable_raw_data()->resize(pick(64));
                    break;
                case 1:
                    t.clear_raw_data();
                    for (int i = 0; i < static_cast<int>(pick(16)); ++i)
                        t.add_int32_data(static_cast<int32_t>(value()));
                    break;
                case 2:
                    t.set_data_type(static_cast<int32_t>(pick(17)));
                    break;
                default:
                    if (!t.raw_data().empty())
                        (*t.mutable_raw_data())[pick(t.raw_data().size())] =
                            static_cast<char>(pick(256));
            }
            break;
        }
        case 5: {  // the graph input's shape
            auto* shape =
                g.mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape();
            if (shape->dim_size() == 0 || pick(5) == 0)
                shape->add_dim()->set_dim_value(value());
            else
                shape->mutable_dim(static_cast<int>(pick(shape->dim_size())))
                    ->set_dim_value(value());
            break;
        }
        case 6: {  // a node's input or op type
            onnx::NodeProto& n = *g.mutable_node(static_cast<int>(pick(g.node_size())));
            const onnx::NodeProto& other = g.node(static_cast<int>(pick(g.node_size())));
            if (pick(3) == 0) {
                const char* ops[] = {
                    "Gemm",           "MatMul",           "Add",     "Conv",    "Relu",
                    "MaxPool",        "AveragePool",      "Flatten", "Reshape", "Softmax",
                    "QuantizeLinear", "DequantizeLinear", "Constant"};
                n.set_op_type(ops[pick(std::size(ops))]);
            } else if (n.input_size() > 0 && other.output_size() > 0) {
                n.set_input(static_cast<int>(pick(n.input_size())), other.output(0));
            }
            break;
        }
        default:  // a removed node
            if (g.node_size() > 1) {
                g.mutable_node()->SwapElements(static_cast<int>(pick(g.node_size())),
                                               g.node_size() - 1);
                g.mutable_node()->RemoveLast();
            }
    }
}

// Every mutant either loads, as a graph within the limits that tiling, the DRAM image and the
// reference handle without a crash, or fails with a CompileError that names the file and the
// node, tensor or layer. (Under ASan/UBSan: no out-of-bounds access, no signed overflow.)
TEST(OnnxLimits, RandomMutationsLoadOrFailWithALocatedError) {
    std::vector<onnx::ModelProto> models = {fixture("linear_relu.onnx"), fixture("mlp3.onnx"),
                                            fixture("conv_tiny.onnx")};
    if (std::filesystem::exists(kModels + "/cnn_fmnist_int8.onnx"))
        models.push_back(load_model(kModels + "/cnn_fmnist_int8.onnx"));
    const uint64_t seed = 20260412;
    std::mt19937_64 rng(seed);
    int loaded = 0, failed = 0, compiled = 0;
    const int iterations = 3000;
    for (int it = 0; it < iterations; ++it) {
        SCOPED_TRACE("seed " + std::to_string(seed) + " iteration " + std::to_string(it));
        onnx::ModelProto m = models[static_cast<size_t>(it) % models.size()];
        const int changes = 1 + static_cast<int>(rng() % 3);
        for (int c = 0; c < changes; ++c) mutate(m, rng);
        Graph g;
        try {
            g = parse_onnx(m.SerializeAsString(), "m.onnx");
        } catch (const CompileError& e) {
            const std::string what = e.what();
            EXPECT_EQ(what.rfind("m.onnx: ", 0), 0u) << what;
            EXPECT_TRUE(what.find("node '") != std::string::npos ||
                        what.find("tensor '") != std::string::npos ||
                        what.find("layer '") != std::string::npos ||
                        what.find("cycle in the ONNX graph") != std::string::npos)
                << what;
            if (std::getenv("NMSIM_PRINT_MUTANTS")) std::printf("%s\n", what.c_str());
            ++failed;
            continue;
        }
        ++loaded;
        int64_t elements = 0;
        for (const Layer& l : g.layers) {
            EXPECT_EQ(layer_problem(l), "") << l.name;
            elements += shape_elements(l.out_shape);
        }
        if (elements > 4'000'000) continue;  // keep the stages after the front end quick
        try {
            TilingTarget t;
            t.max_workers = 4;
            t.sram_budget_bytes = 96 * 1024;
            const std::vector<LayerTiling> tiling = tile_graph(g, t);
            ImageTarget target;
            for (uint32_t pe = 1; pe <= 4; ++pe) target.worker_pes.push_back(pe);
            const DramImage img = build_image(g, tiling, target);
            decode_image(img.bytes, img.base);
            ++compiled;
        } catch (const CompileError&) {
        }
        const Layer* in = nullptr;
        for (const Layer& l : g.layers)
            if (l.kind == LayerKind::input) in = &l;
        if (!in) continue;
        try {
            run_reference(
                g, std::vector<int8_t>(static_cast<size_t>(shape_elements(in->out_shape)), 3),
                ReferenceOptions::onnx());
        } catch (const std::invalid_argument&) {
        }
    }
    std::printf("[stats] %d mutants: %d loaded (%d compiled to a DRAM image), %d refused\n",
                iterations, loaded, compiled, failed);
    EXPECT_GT(loaded, 100);
    EXPECT_GT(failed, 1000);
}

// ---- the stages after the front end, on graphs built in code ----

TEST(GraphLimits, CheckedArithmeticAndShapes) {
    int64_t r = 0;
    EXPECT_FALSE(checked_mul(kI64Max, 2, &r));
    EXPECT_FALSE(checked_mul(kI64Min, -1, &r));
    EXPECT_TRUE(checked_mul(k2p31, k2p31, &r));
    EXPECT_EQ(r, int64_t{1} << 62);
    EXPECT_FALSE(checked_add(kI64Max, 1, &r));
    EXPECT_EQ(shape_elements({}), 1);
    EXPECT_EQ(shape_elements({2, 3, 4}), 24);
    auto error = [](const Shape& s) {
        try {
            shape_elements(s);
        } catch (const CompileError& e) {
            return std::string(e.what());
        }
        return std::string("(no error)");
    };
    EXPECT_EQ(error({-1, 4}), "shape [-1, 4]: negative dimension");
    EXPECT_EQ(error({int64_t{1} << 32, int64_t{1} << 32}),
              "shape [4294967296, 4294967296]: element count overflows int64");
    EXPECT_EQ(shape_problem({1, k2p31}, 1), "");  // exactly the DRAM window
    EXPECT_EQ(shape_problem({1, k2p31}, 2),
              std::string("shape [1, 2147483648] needs more than 2147483648 B, ") + kWindow);
    EXPECT_EQ(shape_problem({3, 0}, 1), "shape [3, 0]: dimension 1 is 0, not a positive size");
    EXPECT_EQ(shape_problem({}, 1), "shape [] has rank 0, outside 1..8");
}

// input [1, 4] -> fc (linear 4 -> 3, bias) -> output.
Graph small_graph() {
    Graph g;
    g.source = "hand.onnx";
    Layer in;
    in.name = "x";
    in.kind = LayerKind::input;
    in.out_shape = {1, 4};
    Layer fc;
    fc.name = "fc";
    fc.kind = LayerKind::linear;
    fc.inputs = {"x"};
    fc.in_shapes = {{1, 4}};
    fc.in_exponents = {7};
    fc.out_shape = {1, 3};
    fc.shift = 3;
    Tensor w;
    w.shape = {3, 4};
    w.i8.assign(12, 1);
    fc.weights = w;
    Tensor b;
    b.dtype = DType::i32;
    b.shape = {3};
    b.i32.assign(3, 0);
    fc.bias = b;
    Layer out;
    out.name = "y";
    out.kind = LayerKind::output;
    out.inputs = {"fc"};
    out.in_shapes = {{1, 3}};
    out.out_shape = {1, 3};
    g.layers = {in, fc, out};
    return g;
}

LayerTiling tiling_of(const std::string& name, uint64_t n, uint32_t workers, uint32_t tile_n,
                      uint32_t parts, uint32_t part_n) {
    LayerTiling t;
    t.layer = name;
    t.outputs = n;
    t.workers = workers;
    t.tile_n = tile_n;
    t.parts = parts;
    t.part_n = part_n;
    return t;
}

ImageTarget workers(uint32_t n) {
    ImageTarget t;
    for (uint32_t pe = 1; pe <= n; ++pe) t.worker_pes.push_back(pe);
    return t;
}

std::vector<LayerTiling> fc_tiling(uint32_t w, uint32_t tile, uint32_t parts, uint32_t part_n,
                                   uint64_t n = 3) {
    LayerTiling x, y;
    x.layer = "x";
    y.layer = "y";
    return {x, tiling_of("fc", n, w, tile, parts, part_n), y};
}

template <typename E, typename F>
std::string error_as(F&& f) {
    try {
        f();
    } catch (const E& e) {
        return e.what();
    }
    return "(no error)";
}

// A layer that breaks the graph's invariants (as a front end other than load_onnx might build
// it) is refused by tiling, the DRAM image and the reference with the same reason, instead of
// an out-of-bounds read (weights shorter than their shape) or a wrapped size.
TEST(GraphLimits, EveryStageRefusesALayerOutsideTheLimits) {
    const Graph good = small_graph();
    for (const Layer& l : good.layers) EXPECT_EQ(layer_problem(l), "");
    TilingTarget tt;
    tt.max_workers = 2;
    tt.sram_budget_bytes = 4096;
    EXPECT_NO_THROW(build_image(good, tile_graph(good, tt), workers(2)));
    struct Case {
        std::function<void(Layer&)> change;
        std::string why;
    };
    const Case cases[] = {
        {[](Layer& l) { l.weights->i8.resize(5); },
         "weights hold 5 values, their shape [3, 4] needs 12"},
        {[](Layer& l) {
             l.weights->shape = {-3, -4};
         },
         "weights shape [-3, -4]: dimension 0 is -3, not a positive size"},
        {[](Layer& l) {
             l.out_shape = {1, 0};
         },
         "output shape [1, 0]: dimension 1 is 0, not a positive size"},
        {[](Layer& l) {
             l.in_shapes = {{int64_t{1} << 32, int64_t{1} << 32}};
         },
         "input 0 shape [4294967296, 4294967296] needs more than 2147483648 B, " +
             std::string(kWindow)},
        {[](Layer& l) { l.bias->i32.resize(2); }, "bias holds 2 values for 3 outputs"},
        {[](Layer& l) { l.weights.reset(); }, "no weights"},
        {[](Layer& l) { l.shift = 40; }, "shift 40 outside 0..31"},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.why);
        Graph g = small_graph();
        c.change(g.layers[1]);
        EXPECT_EQ(layer_problem(g.layers[1]), c.why);
        EXPECT_EQ(error_as<CompileError>([&] { tile_layer(g.layers[1], tt); }),
                  "layer 'fc' (linear): " + c.why);
        EXPECT_EQ(
            error_as<CompileError>([&] { build_image(g, fc_tiling(1, 3, 1, 3), workers(1)); }),
            "hand.onnx: layer 'fc' (linear): " + c.why);
        EXPECT_EQ(error_as<std::invalid_argument>(
                      [&] { run_reference(g, std::vector<int8_t>(4, 1), ReferenceOptions{}); }),
                  "graph reference: layer 'fc' (linear): " + c.why);
    }
    // Window attributes of a conv2d / pool built in code.
    Layer conv;
    conv.name = "c";
    conv.kind = LayerKind::conv2d;
    conv.in_shapes = {{1, 1, 1, 1}};
    conv.out_shape = {1, 1, 1, 1};
    Tensor w;
    w.shape = {1, 1, 1, 1};
    w.i8 = {1};
    conv.weights = w;
    EXPECT_EQ(layer_problem(conv), "");
    conv.window.stride_h = 0;
    EXPECT_EQ(layer_problem(conv), "stride_h 0 outside 1..65535");
    conv.window.stride_h = 1;
    conv.window.pad_right = 70000;
    EXPECT_EQ(layer_problem(conv), "pad_right 70000 outside 0..65535");
    conv.window.pad_right = 0;
    conv.window.kernel_w = -3;
    EXPECT_EQ(layer_problem(conv), "kernel_w -3 outside 1..65535");
    Layer avg = conv;
    avg.kind = LayerKind::avgpool;
    avg.weights.reset();
    avg.window = Window{};
    avg.window.kernel_h = avg.window.kernel_w = 8192;
    EXPECT_EQ(layer_problem(avg),
              "window area 67108864 above 16777216 (the firmware sums the window in 32 bits)");
    Layer sm;
    sm.name = "s";
    sm.kind = LayerKind::softmax;
    sm.in_shapes = {{1, 70000}};
    sm.out_shape = {1, 70000};
    EXPECT_EQ(layer_problem(sm), "softmax row of 70000 elements, above 65535");
}

// The reference materialises a conv's zero-padded input: pads that make it larger than a
// tensor may be are refused before the allocation.
TEST(GraphLimits, ReferenceRefusesAPaddedMapAboveTheLimit) {
    Graph g = small_graph();
    Layer& c = g.layers[1];
    c.kind = LayerKind::conv2d;
    c.in_shapes = {{1, 1, 1, 1}};
    c.out_shape = {1, 1, 1, 1};  // a 1x1 kernel at stride 65535 over the padded map
    c.weights->shape = {1, 1, 1, 1};
    c.weights->i8.assign(1, 1);
    c.bias.reset();
    c.window.stride_h = c.window.stride_w = 65535;
    c.window.pad_top = c.window.pad_left = c.window.pad_bottom = c.window.pad_right = 32767;
    g.layers[0].out_shape = {1, 1, 1, 1};
    g.layers[2].in_shapes = {c.out_shape};
    g.layers[2].out_shape = c.out_shape;
    EXPECT_EQ(layer_problem(c), "");
    EXPECT_EQ(error_as<std::invalid_argument>(
                  [&] { run_reference(g, std::vector<int8_t>(1, 1), ReferenceOptions{}); }),
              "graph reference: layer 'fc' (conv2d): padded input shape [1, 1, 65535, 65535] "
              "needs more than 2147483648 B, " +
                  std::string(kWindow));
}

// The MLA cycle estimate in closed form equals the tile-by-tile sum it replaces, and stays
// quick (and saturates instead of wrapping) for the largest shapes.
TEST(GraphLimits, MlaCyclesClosedFormEqualsTheTileLoop) {
    auto loop = [](uint64_t m, uint64_t k, uint64_t n, const TilingTarget& t) {
        const uint64_t r = t.mla_rows, c = t.mla_cols, f = t.mla_fetch_bytes_per_cycle,
                       wb = t.mla_writeback_bytes_per_cycle;
        auto cdiv = [](uint64_t a, uint64_t b) { return (a + b - 1) / b; };
        uint64_t cycles = t.mla_startup_cycles;
        for (uint64_t row = 0; row < m; row += r) {
            const uint64_t ru = std::min(r, m - row);
            for (uint64_t col = 0; col < n; col += c) {
                const uint64_t cu = std::min(c, n - col);
                cycles += std::max(k, cdiv(k * (ru + cu), f)) + cdiv(cu * 4, f) + cdiv(ru * cu, wb);
            }
        }
        return cycles;
    };
    std::mt19937_64 rng(7);
    auto uni = [&](uint64_t lo, uint64_t hi) {
        return std::uniform_int_distribution<uint64_t>(lo, hi)(rng);
    };
    for (int i = 0; i < 2000; ++i) {
        TilingTarget t;
        t.mla_rows = static_cast<uint32_t>(uni(1, 8));
        t.mla_cols = static_cast<uint32_t>(uni(1, 32));
        t.mla_fetch_bytes_per_cycle = static_cast<uint32_t>(uni(1, 16));
        t.mla_writeback_bytes_per_cycle = static_cast<uint32_t>(uni(1, 32));
        t.mla_startup_cycles = static_cast<uint32_t>(uni(0, 40));
        const uint64_t m = uni(0, 70), k = uni(1, 3000), n = uni(0, 90);
        ASSERT_EQ(mla_gemm_cycles(m, k, n, t), loop(m, k, n, t))
            << m << "x" << k << "x" << n << " tile " << t.mla_rows << "x" << t.mla_cols;
    }
    TilingTarget one;
    one.mla_rows = one.mla_cols = 1;
    EXPECT_GT(mla_gemm_cycles(k2p31, k2p31, k2p31, one), uint64_t{1} << 62);  // 2^62 tiles
    EXPECT_EQ(mla_gemm_cycles(uint64_t{1} << 62, uint64_t{1} << 62, uint64_t{1} << 62, one),
              UINT64_MAX);
    one.mla_fetch_bytes_per_cycle = 0;
    EXPECT_THROW(mla_gemm_cycles(1, 1, 1, one), std::invalid_argument);
}

// Hand-made tilings: parts and tiles must cover the outputs without empty parts or workers with
// padding only, and a tiling asking for more than the DRAM window is an error before anything
// is allocated (offsets saturate instead of wrapping).
TEST(GraphLimits, DramImageRefusesInconsistentAndHugeTilings) {
    const Graph g = small_graph();
    const std::string bad = "hand.onnx: layer 'fc' (linear): inconsistent tiling";
    EXPECT_EQ(error_as<CompileError>([&] { build_image(g, fc_tiling(1, 3, 1, 4), workers(1)); }),
              bad);  // part_n > tile_n
    EXPECT_EQ(error_as<CompileError>([&] { build_image(g, fc_tiling(1, 16, 3, 8), workers(1)); }),
              bad);  // an empty third part
    EXPECT_EQ(error_as<CompileError>([&] { build_image(g, fc_tiling(2, 16, 1, 16), workers(2)); }),
              bad);  // the second worker has padding only
    EXPECT_NO_THROW(build_image(g, fc_tiling(1, 16, 2, 8), workers(1)));
    const std::string far = error_as<CompileError>(
        [&] { build_image(g, fc_tiling(1, UINT32_MAX, 1, UINT32_MAX), workers(1)); });
    EXPECT_NE(far.find("does not fit the DRAM window"), std::string::npos) << far;
}

// A corrupt worker configuration cannot make the decoder loop over 2^32 parts, copy more than
// the image or wrap an address check.
TEST(GraphLimits, DecoderRefusesCorruptWorkerConfigurations) {
    const Graph g = small_graph();
    const DramImage img = build_image(g, fc_tiling(1, 3, 1, 3), workers(1));
    const DecodedImage d = decode_image(img.bytes, img.base);
    const uint64_t cfg = d.layers.at(0).header.workers_addr - img.base;
    auto patched = [&](size_t field, uint32_t v) {
        std::vector<uint8_t> b = img.bytes;
        std::memcpy(b.data() + cfg + field, &v, 4);
        return error_as<std::runtime_error>([&] { decode_image(b, img.base); });
    };
    const std::string parts = "DRAM image: worker parts do not cover its tile (or one is empty)";
    EXPECT_EQ(patched(offsetof(s2_dnn_worker_t, parts), UINT32_MAX), parts);
    EXPECT_EQ(patched(offsetof(s2_dnn_worker_t, k), 0), parts);
    EXPECT_EQ(patched(offsetof(s2_dnn_worker_t, n), UINT32_MAX), parts);
    const std::string outside = patched(offsetof(s2_dnn_worker_t, weight_addr), UINT32_MAX - 15);
    EXPECT_NE(outside.find("outside the image"), std::string::npos) << outside;
    const std::string bias = patched(offsetof(s2_dnn_worker_t, bias_addr), 0xFFFFFFF0u);
    EXPECT_NE(bias.find("outside the image"), std::string::npos) << bias;
}

}  // namespace
}  // namespace nmsim::compiler
