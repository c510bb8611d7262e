// ONNX front end: the tiny fixtures of make_fixtures.py (structure, exponents, shifts, weights
// recomputed from the script's pattern), every error message, the committed Fashion-MNIST models
// (cross-checked against tools/model_prep's summary JSON), and randomised MLPs built here with
// the protobuf API (accepted if and only if every shift is in 0..31).
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <yaml-cpp/yaml.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>

#include "tools/compiler/onnx_frontend.h"

namespace nmsim::compiler {
namespace {

const std::string kData = NMSIM_COMPILER_TEST_DATA;
const std::string kModels = std::string(NMSIM_SOURCE_DIR) + "/scenarios/models";

std::string fixture(const std::string& name) { return kData + "/" + name; }

// make_fixtures.py's pattern(): flat index i -> (i * 5) % mod - offset.
int pattern(int64_t i, int mod = 7, int offset = 3) {
    return static_cast<int>((i * 5) % mod) - offset;
}

std::vector<LayerKind> kinds(const Graph& g) {
    std::vector<LayerKind> k;
    for (const Layer& l : g.layers) k.push_back(l.kind);
    return k;
}

std::string error_of(const std::string& path) {
    try {
        load_onnx(path);
    } catch (const CompileError& e) {
        return e.what();
    }
    return "(no error)";
}

TEST(OnnxFrontend, LinearReluFusesReluAndQdq) {
    const Graph g = load_onnx(fixture("linear_relu.onnx"));
    ASSERT_EQ(kinds(g),
              (std::vector<LayerKind>{LayerKind::input, LayerKind::linear, LayerKind::output}));
    EXPECT_EQ(g.layers[0].name, "input");
    EXPECT_EQ(g.layers[0].out_shape, (Shape{1, 4}));
    EXPECT_EQ(g.layers[0].out_exponent, 7);
    const Layer& fc = g.layers[1];
    EXPECT_EQ(fc.name, "fc");
    EXPECT_TRUE(fc.relu);
    EXPECT_EQ(fc.inputs, (std::vector<std::string>{"input"}));
    EXPECT_EQ(fc.in_shapes, (std::vector<Shape>{{1, 4}}));
    EXPECT_EQ(fc.out_shape, (Shape{1, 3}));
    EXPECT_EQ(fc.in_exponents, (std::vector<int>{7}));
    EXPECT_EQ(fc.out_exponent, 4);
    ASSERT_TRUE(fc.weights && fc.bias);
    EXPECT_EQ(fc.weights->exponent, 6);
    EXPECT_EQ(fc.weights->shape, (Shape{3, 4}));
    ASSERT_EQ(fc.weights->i8.size(), 12u);
    for (int64_t i = 0; i < 12; ++i) EXPECT_EQ(fc.weights->i8[i], pattern(i)) << i;
    EXPECT_EQ(fc.bias->exponent, 13);
    EXPECT_EQ(fc.bias->i32, (std::vector<int32_t>{100, -200, 300}));
    EXPECT_EQ(fc.shift, 7 + 6 - 4);
    EXPECT_NE(std::find(fc.fused_nodes.begin(), fc.fused_nodes.end(), "relu"),
              fc.fused_nodes.end());
    EXPECT_EQ(g.layers[2].name, "y");
    EXPECT_EQ(g.layers[2].inputs, (std::vector<std::string>{"fc"}));
    EXPECT_EQ(g.layers[2].in_exponents, (std::vector<int>{4}));
}

TEST(OnnxFrontend, Mlp3GemmBothLayoutsAndMatMulAdd) {
    const Graph g = load_onnx(fixture("mlp3.onnx"));
    ASSERT_EQ(kinds(g),
              (std::vector<LayerKind>{LayerKind::input, LayerKind::linear, LayerKind::linear,
                                      LayerKind::linear, LayerKind::output}));
    const Layer& l1 = g.layers[1];
    const Layer& l2 = g.layers[2];
    const Layer& l3 = g.layers[3];
    EXPECT_EQ(l1.name, "l1");
    EXPECT_EQ(l2.name, "l2");
    EXPECT_EQ(l3.name, "l3");
    EXPECT_EQ(l2.inputs, (std::vector<std::string>{"l1"}));
    EXPECT_EQ(l3.inputs, (std::vector<std::string>{"l2"}));
    EXPECT_TRUE(l1.relu);
    EXPECT_TRUE(l2.relu);  // the Relu node is unnamed
    EXPECT_FALSE(l3.relu);
    EXPECT_EQ(l1.out_shape, (Shape{1, 6}));
    EXPECT_EQ(l2.out_shape, (Shape{1, 5}));
    EXPECT_EQ(l3.out_shape, (Shape{1, 4}));
    EXPECT_EQ(l1.shift, 7 + 5 - 3);
    EXPECT_EQ(l2.shift, 3 + 6 - 4);
    EXPECT_EQ(l3.shift, 4 + 7 - 5);
    // Gemm transB=0 and MatMul store [in, out]; the IR keeps [out, in].
    ASSERT_EQ(l2.weights->shape, (Shape{5, 6}));
    for (int o = 0; o < 5; ++o)
        for (int i = 0; i < 6; ++i)
            EXPECT_EQ(l2.weights->i8[o * 6 + i], pattern(i * 5 + o, 9, 4)) << o << "," << i;
    ASSERT_EQ(l3.weights->shape, (Shape{4, 5}));
    for (int o = 0; o < 4; ++o)
        for (int i = 0; i < 5; ++i)
            EXPECT_EQ(l3.weights->i8[o * 5 + i], pattern(i * 4 + o, 11, 5)) << o << "," << i;
    ASSERT_TRUE(l3.bias);  // from the Add after MatMul
    EXPECT_EQ(l3.bias->i32, (std::vector<int32_t>{1, -2, 3, -4}));
    EXPECT_EQ(l3.bias->exponent, 11);
    EXPECT_EQ(l1.bias->i32[5], 5 * 10 - 25);
    EXPECT_EQ(g.layers[4].name, "logits");
    EXPECT_EQ(g.layers[4].out_exponent, 5);
}

TEST(OnnxFrontend, NodeOrderInFileDoesNotMatter) {
    std::ostringstream a, b;
    const Graph sorted = load_onnx(fixture("mlp3.onnx"));
    const Graph shuffled = load_onnx(fixture("mlp3_shuffled.onnx"));
    ASSERT_EQ(sorted.layers.size(), shuffled.layers.size());
    for (size_t i = 0; i < sorted.layers.size(); ++i) {
        a << sorted.layers[i] << '\n';
        b << shuffled.layers[i] << '\n';
        EXPECT_EQ(sorted.layers[i].weights.has_value(), shuffled.layers[i].weights.has_value());
        if (sorted.layers[i].weights) {
            EXPECT_EQ(sorted.layers[i].weights->i8, shuffled.layers[i].weights->i8);
        }
    }
    EXPECT_EQ(a.str(), b.str());
}

TEST(OnnxFrontend, ConvPoolAddReshapeSoftmax) {
    const Graph g = load_onnx(fixture("conv_tiny.onnx"));
    ASSERT_EQ(kinds(g),
              (std::vector<LayerKind>{LayerKind::input, LayerKind::conv2d, LayerKind::maxpool,
                                      LayerKind::add, LayerKind::avgpool, LayerKind::flatten,
                                      LayerKind::linear, LayerKind::softmax, LayerKind::output}));
    const Layer& conv = g.layers[1];
    EXPECT_TRUE(conv.relu);
    EXPECT_EQ(conv.out_shape, (Shape{1, 2, 6, 6}));
    EXPECT_EQ(conv.weights->shape, (Shape{2, 1, 3, 3}));
    for (int64_t i = 0; i < 18; ++i) EXPECT_EQ(conv.weights->i8[i], pattern(i));
    EXPECT_EQ(conv.window.kernel_h, 3);
    EXPECT_EQ(conv.window.pad_top, 1);
    EXPECT_EQ(conv.window.pad_right, 1);
    EXPECT_EQ(conv.window.stride_w, 1);
    EXPECT_EQ(conv.shift, 7 + 6 - 5);
    const Layer& pool = g.layers[2];
    EXPECT_EQ(pool.out_shape, (Shape{1, 2, 3, 3}));
    EXPECT_EQ(pool.window.stride_h, 2);
    EXPECT_EQ(pool.out_exponent, 5);
    EXPECT_EQ(pool.shift, 0);
    const Layer& add = g.layers[3];
    EXPECT_EQ(add.inputs, (std::vector<std::string>{"pool", "pool"}));
    EXPECT_EQ(add.out_exponent, 4);
    EXPECT_EQ(add.shift, 1);
    const Layer& avg = g.layers[4];
    EXPECT_EQ(avg.out_shape, (Shape{1, 2, 2, 2}));
    EXPECT_EQ(avg.shift, 4 + 2 - 4);  // divide by the 2x2 window = 2 more bits
    EXPECT_EQ(g.layers[5].out_shape, (Shape{1, 8}));
    EXPECT_EQ(g.layers[6].shift, 4 + 6 - 3);
    EXPECT_FALSE(g.layers[6].relu);
    const Layer& sm = g.layers[7];
    EXPECT_EQ(sm.in_exponents, (std::vector<int>{3}));
    EXPECT_EQ(sm.out_exponent, 7);
    EXPECT_EQ(sm.out_shape, (Shape{1, 4}));
    std::ostringstream os;
    os << g;
    EXPECT_NE(os.str().find("conv: conv2d+relu in(input [1, 1, 6, 6] k=7) out [1, 2, 6, 6] k=5"),
              std::string::npos)
        << os.str();
}

TEST(OnnxFrontend, ErrorsNameFileNodeAndReason) {
    const std::string f = fixture("bad_scale.onnx");
    EXPECT_EQ(error_of(f), f + ": node 'fc.weight_DQ' (DequantizeLinear): scale 0.300000012 "
                               "('fc.weight_scale') is not a power of two");
    const std::string u = fixture("unsupported_op.onnx");
    EXPECT_EQ(error_of(u), u + ": node 'act' (Sigmoid): not supported (supported: Gemm, MatMul, "
                               "Add, Conv, Relu, MaxPool, AveragePool, Flatten, Reshape, Softmax, "
                               "QuantizeLinear, DequantizeLinear)");
    const std::string c = fixture("cycle.onnx");
    EXPECT_EQ(error_of(c), c + ": cycle in the ONNX graph through nodes 'loop_a', 'loop_b'");
    const std::string z = fixture("nonzero_zero_point.onnx");
    EXPECT_EQ(error_of(z), z + ": node 'input_Q' (QuantizeLinear): zero point 3 "
                               "('input_zero_point') is not 0 (only symmetric quantisation is "
                               "supported)");
    const std::string m = fixture("missing_initializer.onnx");
    EXPECT_EQ(error_of(m), m + ": node 'fc.weight_DQ' (DequantizeLinear): input "
                               "'fc.weight_scale' is not produced by any node, initializer or "
                               "graph input");
    const std::string s = fixture("bad_shift.onnx");
    EXPECT_EQ(error_of(s), s + ": layer 'fc' (linear): requantisation shift -7 out of range 0..31 "
                               "(k_in 7 + k_w 6 - k_out 20)");
}

// linear_relu.onnx, changed in one place with the protobuf API; the error names the node.
std::string mutated_error(const std::function<void(onnx::GraphProto&)>& change) {
    std::ifstream in(fixture("linear_relu.onnx"), std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    onnx::ModelProto model;
    EXPECT_TRUE(model.ParseFromString(bytes.str()));
    change(*model.mutable_graph());
    try {
        parse_onnx(model.SerializeAsString(), "m.onnx");
    } catch (const CompileError& e) {
        return e.what();
    }
    return "(no error)";
}

onnx::NodeProto& node_named(onnx::GraphProto& g, const std::string& name) {
    for (onnx::NodeProto& n : *g.mutable_node())
        if (n.name() == name) return n;
    throw std::runtime_error("fixture has no node " + name);
}

onnx::TensorProto& init_named(onnx::GraphProto& g, const std::string& name) {
    for (onnx::TensorProto& t : *g.mutable_initializer())
        if (t.name() == name) return t;
    throw std::runtime_error("fixture has no initializer " + name);
}

void set_float_scale(onnx::TensorProto& t, std::vector<float> values) {
    t.clear_raw_data();
    t.clear_float_data();
    t.clear_dims();
    for (float v : values) t.add_float_data(v);
    if (values.size() != 1) t.add_dims(static_cast<int64_t>(values.size()));
}

TEST(OnnxFrontend, MutatedModelsReportNodeAndReason) {
    EXPECT_EQ(mutated_error([](onnx::GraphProto&) {}), "(no error)");
    EXPECT_EQ(mutated_error([](onnx::GraphProto& g) {
                  node_named(g, "input_Q").mutable_input()->RemoveLast();
              }),
              "m.onnx: node 'input_Q' (QuantizeLinear): zero point missing (the output would be "
              "uint8; int8 with zero point 0 is required)");
    EXPECT_EQ(mutated_error([](onnx::GraphProto& g) {
                  set_float_scale(init_named(g, "fc.bias_scale"), {1.0f / 4096});
              }),
              "m.onnx: node 'fc' (Gemm): bias 'fc.bias_q' has exponent 12, expected k_in + k_w "
              "= 13");
    EXPECT_EQ(mutated_error([](onnx::GraphProto& g) {
                  set_float_scale(init_named(g, "fc.weight_scale"), {0.5f, 0.5f, 0.5f});
              }),
              "m.onnx: node 'fc.weight_DQ' (DequantizeLinear): scale 'fc.weight_scale' has 3 "
              "elements: only per-tensor (scalar) scales are supported");
    EXPECT_EQ(mutated_error([](onnx::GraphProto& g) {
                  onnx::AttributeProto* a = node_named(g, "fc").add_attribute();
                  a->set_name("transA");
                  a->set_type(onnx::AttributeProto::INT);
                  a->set_i(1);
              }),
              "m.onnx: node 'fc' (Gemm): transA=1 not supported");
    EXPECT_EQ(mutated_error([](onnx::GraphProto& g) {
                  onnx::TensorProto* t = g.add_initializer();
                  t->set_name("other_scale");
                  t->set_data_type(onnx::TensorProto::FLOAT);
                  t->add_float_data(1.0f / 32);
                  node_named(g, "relu_out_DQ").set_input(1, "other_scale");
              }),
              "m.onnx: node 'relu_out_DQ' (DequantizeLinear): exponent 5 differs from the "
              "exponent 4 of its QuantizeLinear");
    EXPECT_EQ(mutated_error([](onnx::GraphProto& g) { node_named(g, "fc").set_input(0, "input"); }),
              "m.onnx: node 'fc' (Gemm): input 'input' is not an int8 activation (expected "
              "QuantizeLinear -> DequantizeLinear before this node)");
    EXPECT_EQ(mutated_error([](onnx::GraphProto& g) {
                  // A second Relu on the Relu output: nothing left to fuse into.
                  node_named(g, "relu_out_Q").set_input(0, "relu2_out");
                  onnx::NodeProto* n = g.add_node();
                  n->set_op_type("Relu");
                  n->set_name("relu2");
                  n->add_input("relu_out");
                  n->add_output("relu2_out");
              }),
              "m.onnx: node 'relu2' (Relu): Relu must directly follow Gemm/MatMul/Conv, as their "
              "only consumer (it is fused into that layer)");
    EXPECT_EQ(mutated_error([](onnx::GraphProto& g) {
                  init_named(g, "fc.weight_q").set_data_type(onnx::TensorProto::UINT8);
              }),
              "m.onnx: node 'fc.weight_DQ' (DequantizeLinear): initializer 'fc.weight_q' must "
              "be int8 (weights) or int32 (bias)");
    EXPECT_EQ(mutated_error([](onnx::GraphProto& g) {
                  init_named(g, "fc.bias_q").mutable_raw_data()->resize(8);
              }),
              "m.onnx: tensor 'fc.bias_q': holds 2 elements, its shape [3] needs 3");
}

TEST(OnnxFrontend, FileErrorsNameTheFile) {
    const std::string missing = kData + "/no_such_model.onnx";
    EXPECT_EQ(error_of(missing), missing + ": cannot open file");
    const std::string junk = (std::filesystem::temp_directory_path() /
                              ("nmsim_compiler_junk_" + std::to_string(::getpid()) + ".onnx"))
                                 .string();
    {
        std::ofstream out(junk, std::ios::binary);
        out << "\xff\xff\xff this is not a protobuf";
    }
    EXPECT_EQ(error_of(junk), junk + ": not a valid ONNX model (protobuf parse failed)");
    std::filesystem::remove(junk);
}

// The committed Fashion-MNIST models against tools/model_prep's summary (read as YAML: JSON is
// YAML), an independent record of names, shapes, exponents and shifts.
TEST(OnnxFrontend, FmnistModelsMatchSummary) {
    const std::string summary = kModels + "/fmnist_models.json";
    if (!std::filesystem::exists(summary) ||
        !std::filesystem::exists(kModels + "/mlp_fmnist_int8.onnx"))
        GTEST_SKIP() << "scenarios/models not present";
    const YAML::Node models = YAML::LoadFile(summary)["models"];
    for (const char* which : {"mlp", "cnn"}) {
        SCOPED_TRACE(which);
        const YAML::Node m = models[which];
        const Graph g = load_onnx(kModels + "/" + m["onnx"].as<std::string>());
        ASSERT_GE(g.layers.size(), 2u);
        EXPECT_EQ(g.layers.front().kind, LayerKind::input);
        EXPECT_EQ(g.layers.front().out_shape, m["input_shape"].as<Shape>());
        EXPECT_EQ(g.layers.front().out_exponent, m["tensor_exponents"]["input"].as<int>());
        EXPECT_EQ(g.layers.back().kind, LayerKind::output);
        EXPECT_EQ(g.layers.back().out_shape, m["output_shape"].as<Shape>());
        EXPECT_EQ(g.layers.back().out_exponent, m["output_exponent"].as<int>());
        EXPECT_EQ(g.layers.back().name, m["output"].as<std::string>());
        // The softmax head: its input is the logits tensor's layer, its Q/DQ pair folded in.
        const Layer* sm = g.find(g.layers.back().inputs.at(0));
        ASSERT_NE(sm, nullptr);
        EXPECT_EQ(sm->kind, LayerKind::softmax);
        EXPECT_EQ(sm->name, m["softmax_head"]["node"].as<std::string>());
        EXPECT_EQ(sm->in_exponents, (std::vector<int>{m["logits_exponent"].as<int>()}));
        EXPECT_EQ(sm->in_exponents.at(0),
                  m["tensor_exponents"][m["logits_tensor"].as<std::string>()].as<int>());
        EXPECT_EQ(sm->out_exponent, 7);
        size_t matched = 0;
        for (const YAML::Node& ref : m["layers"]) {
            const Layer* l = g.find(ref["name"].as<std::string>());
            ASSERT_NE(l, nullptr) << ref["name"].as<std::string>();
            const std::string op = ref["op"].as<std::string>();
            EXPECT_EQ(l->in_exponents.at(0), ref["k_x"].as<int>());
            EXPECT_EQ(l->out_exponent, ref["k_y"].as<int>());
            if (op == "MaxPool" || op == "Flatten" || op == "Softmax") {
                EXPECT_EQ(l->kind, op == "MaxPool"   ? LayerKind::maxpool
                                   : op == "Flatten" ? LayerKind::flatten
                                                     : LayerKind::softmax);
                ++matched;
                continue;
            }
            EXPECT_EQ(l->kind, op == "Conv" ? LayerKind::conv2d : LayerKind::linear) << op;
            EXPECT_EQ(l->relu, ref["relu"].as<bool>());
            EXPECT_EQ(l->weights->shape, ref["weight_shape"].as<Shape>());
            EXPECT_EQ(l->weights->exponent, ref["k_w"].as<int>());
            EXPECT_EQ(l->bias->exponent, ref["k_b"].as<int>());
            EXPECT_EQ(l->shift, ref["shift"].as<int>());
            ++matched;
        }
        EXPECT_EQ(matched, g.layers.size() - 2);  // every layer but input/output
    }
    // Structure as described in tools/model_prep/README.md.
    const Graph mlp = load_onnx(kModels + "/mlp_fmnist_int8.onnx");
    std::vector<int64_t> widths;
    for (const Layer& l : mlp.layers)
        if (l.kind == LayerKind::linear) widths.push_back(l.out_shape[1]);
    EXPECT_EQ(kinds(mlp),
              (std::vector<LayerKind>{LayerKind::input, LayerKind::linear, LayerKind::linear,
                                      LayerKind::linear, LayerKind::softmax, LayerKind::output}));
    EXPECT_EQ(mlp.layers[1].in_shapes[0], (Shape{1, 784}));
    EXPECT_EQ(widths, (std::vector<int64_t>{512, 256, 16}));
    const Graph cnn = load_onnx(kModels + "/cnn_fmnist_int8.onnx");
    EXPECT_EQ(kinds(cnn),
              (std::vector<LayerKind>{LayerKind::input, LayerKind::conv2d, LayerKind::maxpool,
                                      LayerKind::conv2d, LayerKind::maxpool, LayerKind::flatten,
                                      LayerKind::linear, LayerKind::softmax, LayerKind::output}));
    EXPECT_EQ(cnn.layers[1].out_shape, (Shape{1, 8, 28, 28}));
    EXPECT_EQ(cnn.layers[2].out_shape, (Shape{1, 8, 14, 14}));
    EXPECT_EQ(cnn.layers[3].out_shape, (Shape{1, 16, 14, 14}));
    EXPECT_EQ(cnn.layers[4].out_shape, (Shape{1, 16, 7, 7}));
    EXPECT_EQ(cnn.layers[5].out_shape, (Shape{1, 784}));
    EXPECT_EQ(cnn.layers[6].out_shape, (Shape{1, 16}));
    EXPECT_EQ(cnn.layers[7].out_shape, (Shape{1, 16}));
    EXPECT_EQ(mlp.layers[4].name, "/5/Softmax");
    EXPECT_EQ(cnn.layers[7].name, "/8/Softmax");
    EXPECT_EQ(cnn.layers.back().name, "probabilities");
}

// conv_tiny.onnx with the softmax's exponents moved outside the integer softmax's ranges
// (dnn_image.h: input 0..15, output 0..16).
std::string softmax_error(int k_in, int k_out) {
    std::ifstream in(fixture("conv_tiny.onnx"), std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    onnx::ModelProto model;
    EXPECT_TRUE(model.ParseFromString(bytes.str()));
    onnx::GraphProto& g = *model.mutable_graph();
    for (onnx::TensorProto& t : *g.mutable_initializer()) {
        if (t.name() != "fc_out_scale" && t.name() != "prob_scale") continue;
        const int k = t.name() == "fc_out_scale" ? k_in : k_out;
        t.clear_raw_data();
        t.clear_float_data();
        t.add_float_data(std::ldexp(1.0f, -k));
    }
    try {
        parse_onnx(model.SerializeAsString(), "s.onnx");
    } catch (const CompileError& e) {
        return e.what();
    }
    return "(no error)";
}

TEST(OnnxFrontend, SoftmaxExponentRanges) {
    EXPECT_EQ(softmax_error(3, 7), "(no error)");
    EXPECT_EQ(softmax_error(0, 0), "(no error)");
    EXPECT_EQ(softmax_error(10, 16), "(no error)");  // k_in above 10: the Gemm's shift < 0
    EXPECT_EQ(softmax_error(16, 7),
              "s.onnx: node 'softmax' (Softmax): input exponent 16 outside 0..15 (the integer "
              "softmax needs x * 2^(15 - k_in))");
    EXPECT_EQ(softmax_error(-1, 7),
              "s.onnx: node 'softmax' (Softmax): input exponent -1 outside 0..15 (the integer "
              "softmax needs x * 2^(15 - k_in))");
    EXPECT_EQ(softmax_error(3, 17),
              "s.onnx: layer 'softmax' (softmax): output exponent 17 outside 0..16 (the integer "
              "softmax's range)");
    EXPECT_EQ(softmax_error(3, -2),
              "s.onnx: layer 'softmax' (softmax): output exponent -2 outside 0..16 (the integer "
              "softmax's range)");
}

// ---- randomised MLPs built with the protobuf API ----

void add_scalar(onnx::GraphProto& g, const std::string& name, float scale, int zp_type) {
    onnx::TensorProto* s = g.add_initializer();
    s->set_name(name + "_scale");
    s->set_data_type(onnx::TensorProto::FLOAT);
    s->add_float_data(scale);
    onnx::TensorProto* z = g.add_initializer();
    z->set_name(name + "_zero_point");
    z->set_data_type(zp_type);
    z->add_int32_data(0);
}

onnx::NodeProto* add_node(onnx::GraphProto& g, const std::string& op, const std::string& name,
                          std::vector<std::string> in, const std::string& out) {
    onnx::NodeProto* n = g.add_node();
    n->set_op_type(op);
    n->set_name(name);
    for (const std::string& s : in) n->add_input(s);
    n->add_output(out);
    return n;
}

std::string qdq(onnx::GraphProto& g, const std::string& x, int k) {
    add_scalar(g, x, std::ldexp(1.0f, -k), onnx::TensorProto::INT8);
    add_node(g, "QuantizeLinear", x + "_Q", {x, x + "_scale", x + "_zero_point"}, x + "_q");
    add_node(g, "DequantizeLinear", x + "_DQ", {x + "_q", x + "_scale", x + "_zero_point"},
             x + "_dq");
    return x + "_dq";
}

struct RandomLayer {
    int in = 0, out = 0, k_w = 0, k_out = 0;
    bool trans_b = false, relu = false;
    std::vector<int> w;  // as stored in the file
    std::vector<int> b;
};

TEST(OnnxFrontend, RandomMlpsAcceptedIffShiftsInRange) {
    const unsigned seed = 20261121;
    std::mt19937 rng(seed);
    auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    int accepted = 0, rejected = 0;
    for (int trial = 0; trial < 200; ++trial) {
        SCOPED_TRACE("seed " + std::to_string(seed) + " trial " + std::to_string(trial));
        onnx::ModelProto model;
        model.set_ir_version(8);
        model.add_opset_import()->set_version(13);
        onnx::GraphProto& g = *model.mutable_graph();
        const int k_in0 = uni(0, 8);
        int width = uni(1, 12);
        onnx::ValueInfoProto* vi = g.add_input();
        vi->set_name("x");
        vi->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
        vi->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(1);
        vi->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(width);
        std::string cur = qdq(g, "x", k_in0);
        std::vector<RandomLayer> layers(uni(1, 4));
        int k_in = k_in0;
        bool legal = true;
        for (size_t li = 0; li < layers.size(); ++li) {
            RandomLayer& L = layers[li];
            const std::string name = "fc" + std::to_string(li);
            L.in = width;
            L.out = width = uni(1, 12);
            L.k_w = uni(-2, 10);
            L.k_out = uni(-4, 12);
            L.trans_b = uni(0, 1);
            L.relu = uni(0, 1);
            const int shift = k_in + L.k_w - L.k_out;
            legal = legal && shift >= 0 && shift <= 31;
            onnx::TensorProto* w = g.add_initializer();
            w->set_name(name + ".weight_q");
            w->set_data_type(onnx::TensorProto::INT8);
            w->add_dims(L.trans_b ? L.out : L.in);
            w->add_dims(L.trans_b ? L.in : L.out);
            for (int i = 0; i < L.in * L.out; ++i) {
                L.w.push_back(uni(-128, 127));
                w->add_int32_data(L.w.back());
            }
            add_scalar(g, name + ".weight", std::ldexp(1.0f, -L.k_w), onnx::TensorProto::INT8);
            onnx::TensorProto* b = g.add_initializer();
            b->set_name(name + ".bias_q");
            b->set_data_type(onnx::TensorProto::INT32);
            b->add_dims(L.out);
            for (int i = 0; i < L.out; ++i) {
                L.b.push_back(uni(-100000, 100000));
                b->add_int32_data(L.b.back());
            }
            add_scalar(g, name + ".bias", std::ldexp(1.0f, -(k_in + L.k_w)),
                       onnx::TensorProto::INT32);
            for (const char* t : {".weight", ".bias"})
                add_node(g, "DequantizeLinear", name + t + "_DQ",
                         {name + t + "_q", name + t + "_scale", name + t + "_zero_point"},
                         name + t + "_dq");
            onnx::NodeProto* gemm = add_node(
                g, "Gemm", name, {cur, name + ".weight_dq", name + ".bias_dq"}, name + "_out");
            onnx::AttributeProto* a = gemm->add_attribute();
            a->set_name("transB");
            a->set_type(onnx::AttributeProto::INT);
            a->set_i(L.trans_b);
            std::string y = name + "_out";
            if (L.relu) {
                add_node(g, "Relu", name + "_relu", {y}, name + "_relu_out");
                y = name + "_relu_out";
            }
            cur = qdq(g, y, L.k_out);
            k_in = L.k_out;
        }
        g.add_output()->set_name(cur);
        Graph parsed;
        try {
            parsed = parse_onnx(model.SerializeAsString(), "random.onnx");
        } catch (const CompileError& e) {
            EXPECT_FALSE(legal) << e.what();
            EXPECT_NE(std::string(e.what()).find("out of range 0..31"), std::string::npos)
                << e.what();
            ++rejected;
            continue;
        }
        ASSERT_TRUE(legal) << "accepted a graph with a shift outside 0..31";
        ++accepted;
        ASSERT_EQ(parsed.layers.size(), layers.size() + 2);
        int k = k_in0;
        for (size_t li = 0; li < layers.size(); ++li) {
            const RandomLayer& L = layers[li];
            const Layer& l = parsed.layers[li + 1];
            EXPECT_EQ(l.kind, LayerKind::linear);
            EXPECT_EQ(l.relu, L.relu);
            EXPECT_EQ(l.out_shape, (Shape{1, L.out}));
            EXPECT_EQ(l.shift, k + L.k_w - L.k_out);
            ASSERT_EQ(l.weights->shape, (Shape{L.out, L.in}));
            for (int o = 0; o < L.out; ++o)
                for (int i = 0; i < L.in; ++i)
                    ASSERT_EQ(l.weights->i8[o * L.in + i],
                              L.trans_b ? L.w[o * L.in + i] : L.w[i * L.out + o]);
            EXPECT_EQ(l.bias->i32, std::vector<int32_t>(L.b.begin(), L.b.end()));
            k = L.k_out;
        }
    }
    EXPECT_GT(accepted, 20);
    EXPECT_GT(rejected, 20);
}

}  // namespace
}  // namespace nmsim::compiler
