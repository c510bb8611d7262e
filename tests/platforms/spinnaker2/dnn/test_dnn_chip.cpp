// The DNN flow end to end on a small SpiNNaker2 chip (2 QPEs): int8 power-of-two QDQ ONNX models
// are generated here with the protobuf API (random weights and inputs from fixed seeds), then
// compiled and run by the dnn workload's host program (generic scheduler and worker firmware),
// which compares every output bit for bit with the integer reference of the quantised graph. On top
// of that the test checks that the reference outputs are not trivial (so bit-exactness means
// something), the tiling the compiler chose (workers, padding, parts), the sanity of the time area,
// the error paths (a layer that cannot fit, a corrupt model) and determinism.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <regex>
#include <set>
#include <sstream>

#include "models/spinnaker2/exp/exp_accel.h"
#include "platforms/common/host_program.h"
#include "tools/compiler/graph_reference.h"
#include "tools/compiler/onnx_frontend.h"
#include "tools/scenario/scenario.h"
#include "workloads/dnn/host.h"

namespace nmsim::workloads::dnn {
namespace {

using run::RunOptions;
using run::RunResult;
using spinnaker2::ChipParams;
using spinnaker2::ExpAccel;

namespace fs = std::filesystem;

// RMS of int8 values uniform in -128..127, and the RMS a layer's output should have.
constexpr double kInt8Rms = 73.9;
constexpr double kTargetRms = 40;

// A dequantised int8 activation of the model being built: tensor name, exponent (scale 2^-k),
// shape, and an estimate of the int8 values' RMS (to pick shifts that keep outputs in range).
struct Act {
    std::string name;
    int k = 0;
    std::vector<int64_t> shape;
    double rms = 0;
};

// Builds an int8 power-of-two QDQ model in the form tools/compiler/onnx_frontend.h accepts:
// QuantizeLinear -> DequantizeLinear around every activation, int8/int32 initializers behind
// DequantizeLinear, Relu right after its Gemm/MatMul/Conv.
class QdqModel {
public:
    explicit QdqModel(uint32_t seed) : m_rng(seed) {
        m_model.set_ir_version(8);
        m_model.add_opset_import()->set_version(13);
        m_g = m_model.mutable_graph();
        m_g->set_name("generated");
    }

    Act input(const std::string& name, std::vector<int64_t> shape, int k) {
        onnx::ValueInfoProto* vi = m_g->add_input();
        vi->set_name(name);
        auto* tt = vi->mutable_type()->mutable_tensor_type();
        tt->set_elem_type(onnx::TensorProto::FLOAT);
        for (int64_t d : shape) tt->mutable_shape()->add_dim()->set_dim_value(d);
        return qdq(name, k, shape, kInt8Rms);
    }

    // Gemm with [out, in] weights (transB=1) and bias, or MatMul with [in, out] weights + Add.
    Act linear(const std::string& name, const Act& x, int64_t out, bool relu, int k_out,
               bool matmul = false) {
        const int64_t in = x.shape.at(1);
        const int shift = pick_shift(in, x.rms);
        const int k_w = shift + k_out - x.k;
        const std::string w = matmul ? const_i8(name + ".weight", {in, out}, k_w)
                                     : const_i8(name + ".weight", {out, in}, k_w);
        const std::string b = const_i32(name + ".bias", out, x.k + k_w, shift);
        if (matmul) {
            add_node("MatMul", name, {x.name, w}, name + "_mm");
            add_node("Add", name + "_bias", {name + "_mm", b}, name + "_out");
        } else {
            set_int(add_node("Gemm", name, {x.name, w, b}, name + "_out"), "transB", 1);
        }
        return finish(name + "_out", relu, k_out, {x.shape[0], out});
    }

    // Square kernel, stride 1, equal pads on every side.
    Act conv(const std::string& name, const Act& x, int64_t out_c, int64_t kernel, int64_t pad,
             bool relu, int k_out) {
        const int64_t in_c = x.shape.at(1);
        const int shift = pick_shift(in_c * kernel * kernel, x.rms);
        const int k_w = shift + k_out - x.k;
        const std::string w = const_i8(name + ".weight", {out_c, in_c, kernel, kernel}, k_w);
        const std::string b = const_i32(name + ".bias", out_c, x.k + k_w, shift);
        onnx::NodeProto* n = add_node("Conv", name, {x.name, w, b}, name + "_out");
        set_ints(n, "kernel_shape", {kernel, kernel});
        set_ints(n, "pads", {pad, pad, pad, pad});
        set_ints(n, "strides", {1, 1});
        return finish(name + "_out", relu, k_out,
                      {x.shape[0], out_c, x.shape[2] + 2 * pad - kernel + 1,
                       x.shape[3] + 2 * pad - kernel + 1});
    }

    Act maxpool(const std::string& name, const Act& x, int64_t kernel, int64_t stride) {
        onnx::NodeProto* n = add_node("MaxPool", name, {x.name}, name + "_out");
        set_ints(n, "kernel_shape", {kernel, kernel});
        set_ints(n, "strides", {stride, stride});
        return qdq(name + "_out", x.k,
                   {x.shape[0], x.shape[1], (x.shape[2] - kernel) / stride + 1,
                    (x.shape[3] - kernel) / stride + 1},
                   x.rms * 1.4);
    }

    Act flatten(const std::string& name, const Act& x) {
        set_int(add_node("Flatten", name, {x.name}, name + "_out"), "axis", 1);
        int64_t n = 1;
        for (size_t i = 1; i < x.shape.size(); ++i) n *= x.shape[i];
        return qdq(name + "_out", x.k, {x.shape[0], n}, x.rms);
    }

    // The sum of two activations of equal exponent, requantised to k_out.
    Act add(const std::string& name, const Act& a, const Act& b, int k_out) {
        add_node("Add", name, {a.name, b.name}, name + "_out");
        return qdq(name + "_out", k_out, a.shape,
                   std::hypot(a.rms, b.rms) * std::ldexp(1.0, k_out - a.k));
    }

    Act softmax(const std::string& name, const Act& x, int k_out) {
        set_int(add_node("Softmax", name, {x.name}, name + "_out"), "axis", -1);
        return qdq(name + "_out", k_out, x.shape, 0);
    }

    void output(const Act& y) { m_g->add_output()->set_name(y.name); }

    void save(const fs::path& path) const {
        std::ofstream f(path, std::ios::binary);
        ASSERT_TRUE(m_model.SerializeToOstream(&f)) << path;
    }

private:
    onnx::ModelProto m_model;
    onnx::GraphProto* m_g = nullptr;
    std::mt19937 m_rng;

    // Shift that brings an accumulator of `fan_in` products of int8 weights and inputs of RMS
    // `x_rms` to about kTargetRms.
    static int pick_shift(int64_t fan_in, double x_rms) {
        const double acc_rms = std::sqrt(static_cast<double>(fan_in)) * kInt8Rms * x_rms;
        return std::max(0, static_cast<int>(std::lround(std::log2(acc_rms / kTargetRms))));
    }

    onnx::NodeProto* add_node(const std::string& op, const std::string& name,
                              const std::vector<std::string>& in, const std::string& out) {
        onnx::NodeProto* n = m_g->add_node();
        n->set_op_type(op);
        n->set_name(name);
        for (const std::string& s : in) n->add_input(s);
        n->add_output(out);
        return n;
    }

    static void set_int(onnx::NodeProto* n, const std::string& name, int64_t v) {
        onnx::AttributeProto* a = n->add_attribute();
        a->set_name(name);
        a->set_type(onnx::AttributeProto::INT);
        a->set_i(v);
    }

    static void set_ints(onnx::NodeProto* n, const std::string& name,
                         const std::vector<int64_t>& v) {
        onnx::AttributeProto* a = n->add_attribute();
        a->set_name(name);
        a->set_type(onnx::AttributeProto::INTS);
        for (int64_t x : v) a->add_ints(x);
    }

    // <name>_scale = 2^-k (float scalar) and <name>_zero_point = 0 of type zp_type.
    void scale_and_zero(const std::string& name, int k, int zp_type) {
        onnx::TensorProto* s = m_g->add_initializer();
        s->set_name(name + "_scale");
        s->set_data_type(onnx::TensorProto::FLOAT);
        s->add_float_data(std::ldexp(1.0f, -k));
        onnx::TensorProto* z = m_g->add_initializer();
        z->set_name(name + "_zero_point");
        z->set_data_type(zp_type);
        z->add_int32_data(0);
    }

    Act qdq(const std::string& x, int k, std::vector<int64_t> shape, double rms) {
        scale_and_zero(x, k, onnx::TensorProto::INT8);
        add_node("QuantizeLinear", x + "_Q", {x, x + "_scale", x + "_zero_point"}, x + "_q");
        add_node("DequantizeLinear", x + "_DQ", {x + "_q", x + "_scale", x + "_zero_point"},
                 x + "_dq");
        return Act{x + "_dq", k, std::move(shape), rms};
    }

    Act finish(std::string y, bool relu, int k_out, std::vector<int64_t> shape) {
        if (relu) {
            add_node("Relu", y + "_relu", {y}, y + "_relu");
            y += "_relu";
        }
        return qdq(y, k_out, std::move(shape), relu ? kTargetRms / std::sqrt(2.0) : kTargetRms);
    }

    // Random int8 weights (raw_data) behind DequantizeLinear; returns the dequantised name.
    std::string const_i8(const std::string& name, const std::vector<int64_t>& dims, int k) {
        onnx::TensorProto* t = m_g->add_initializer();
        t->set_name(name + "_q");
        t->set_data_type(onnx::TensorProto::INT8);
        int64_t n = 1;
        for (int64_t d : dims) {
            t->add_dims(d);
            n *= d;
        }
        std::string raw(static_cast<size_t>(n), '\0');
        std::uniform_int_distribution<int> u(-128, 127);
        for (char& c : raw) c = static_cast<char>(static_cast<int8_t>(u(m_rng)));
        t->set_raw_data(raw);
        scale_and_zero(name, k, onnx::TensorProto::INT8);
        add_node("DequantizeLinear", name + "_DQ",
                 {name + "_q", name + "_scale", name + "_zero_point"}, name + "_dq");
        return name + "_dq";
    }

    // Random int32 biases of up to +-16 output steps (16 << shift accumulator units).
    std::string const_i32(const std::string& name, int64_t n, int k, int shift) {
        onnx::TensorProto* t = m_g->add_initializer();
        t->set_name(name + "_q");
        t->set_data_type(onnx::TensorProto::INT32);
        t->add_dims(n);
        const int32_t bound =
            static_cast<int32_t>(std::min<int64_t>(int64_t{16} << shift, 1 << 30));
        std::uniform_int_distribution<int32_t> u(-bound, bound);
        std::string raw(static_cast<size_t>(n) * 4, '\0');
        for (int64_t i = 0; i < n; ++i) {
            const uint32_t v = static_cast<uint32_t>(u(m_rng));
            for (int j = 0; j < 4; ++j)
                raw[static_cast<size_t>(4 * i + j)] = static_cast<char>(v >> (8 * j));
        }
        t->set_raw_data(raw);
        scale_and_zero(name, k, onnx::TensorProto::INT32);
        add_node("DequantizeLinear", name + "_DQ",
                 {name + "_q", name + "_scale", name + "_zero_point"}, name + "_dq");
        return name + "_dq";
    }
};

struct ChipRun {
    RunResult r;
    DnnRunSummary sum;
    std::string out, err;
};

// One layer's tiling as printed by an elaborate-only run.
struct Tiled {
    unsigned workers = 0, outputs = 0, tile = 0, padding = 0, parts = 0, part_n = 0;
};

class DnnChipTest : public ::testing::Test {
protected:
    void SetUp() override {
        const std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
        m_dir = fs::temp_directory_path() /
                ("nmsim_dnn_chip_" + std::to_string(::getpid()) + "_" + test);
        fs::remove_all(m_dir);
        fs::create_directories(m_dir);
    }
    void TearDown() override {
        std::error_code ec;
        fs::remove_all(m_dir, ec);
    }

    fs::path m_dir;

    // `count` random int8 inputs of `size` bytes each, back to back.
    std::vector<int8_t> write_inputs(const std::string& file, size_t size, size_t count,
                                     uint32_t seed) {
        std::mt19937 rng(seed);
        std::uniform_int_distribution<int> u(-128, 127);
        std::vector<int8_t> v(size * count);
        for (int8_t& x : v) x = static_cast<int8_t>(u(rng));
        std::ofstream f(m_dir / file, std::ios::binary);
        f.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size()));
        return v;
    }

    // A spinnaker2_chip scenario with 2 QPEs (8 PEs), scheduler pe0 and `workers` workers.
    fs::path write_scenario(const std::string& name, const std::string& model,
                            const std::string& inputs, uint64_t count, unsigned workers,
                            const std::string& extra = "") {
        const fs::path p = m_dir / (name + ".yaml");
        std::ofstream f(p);
        f << "name: " << name << "\n"
          << "seed: 1\n"
          << "platform:\n"
          << "  kind: spinnaker2_chip\n"
          << "  params:\n"
          << "    qpe_count: 2\n"
          << "workload:\n"
          << "  dnn:\n"
          << "    model: " << model << "\n"
          << "    inputs: " << inputs << "\n"
          << "    count: " << count << "\n"
          << "    scheduler_pe: 0\n"
          << "    workers: " << workers << "\n"
          << extra << "trace:\n"
          << "  file: " << name << ".h5\n"
          << "  events: false\n";
        return p;
    }

    static scenario::Scenario load(const fs::path& yaml) {
        scenario::LoadOptions lo;
        lo.firmware_dirs = {NMSIM_FIRMWARE_DIR};
        return scenario::load(yaml.string(), lo);
    }

    ChipRun run(const scenario::Scenario& s, bool elaborate_only = false) {
        RunOptions o;
        o.trace_path = (m_dir / (s.name + ".h5")).string();
        o.quiet = !elaborate_only;
        o.elaborate_only = elaborate_only;
        std::ostringstream out, err;
        ChipRun c;
        DnnHost host;
        c.r = run::run_scenario(s, o, out, err, host);
        c.sum = host.summary();
        c.out = out.str();
        c.err = err.str();
        return c;
    }

    // The tiling of `layer`, from the elaborate-only layout (LayerTiling's operator<<).
    Tiled tiling_of(const scenario::Scenario& s, const std::string& layer) {
        const ChipRun c = run(s, true);
        EXPECT_TRUE(c.r.ok) << c.err;
        const std::regex re("\\n  " + layer +
                            ": workers (\\d+), outputs (\\d+), tile (\\d+) \\(padding (\\d+)\\), "
                            "parts (\\d+) x (\\d+),");
        std::smatch m;
        Tiled t;
        if (!std::regex_search(c.out, m, re)) {
            ADD_FAILURE() << "no tiling line for " << layer << " in:\n" << c.out;
            return t;
        }
        t.workers = std::stoul(m[1]);
        t.outputs = std::stoul(m[2]);
        t.tile = std::stoul(m[3]);
        t.padding = std::stoul(m[4]);
        t.parts = std::stoul(m[5]);
        t.part_n = std::stoul(m[6]);
        return t;
    }
};

const ChipParams& chip_defaults() {
    static const ChipParams p;
    return p;
}

// The bit-exact comparison is only worth something if the reference outputs vary: every layer's
// outputs over all inputs take several values and are mostly not saturated, and the model's
// output differs between inputs.
void expect_nontrivial(const fs::path& model, const std::vector<int8_t>& inputs, size_t count) {
    const compiler::Graph g = compiler::load_onnx(model.string());
    compiler::ReferenceOptions ro;
    ro.acc_bits = chip_defaults().pe.mla.acc_bits;
    ro.exp = [](int32_t x, unsigned it) { return ExpAccel::compute(x, it); };
    const size_t in_size = inputs.size() / count;
    std::map<std::string, std::vector<int8_t>> all;
    std::set<std::vector<int8_t>> outputs;
    for (size_t i = 0; i < count; ++i) {
        const std::vector<int8_t> x(
            inputs.begin() + static_cast<std::ptrdiff_t>(i * in_size),
            inputs.begin() + static_cast<std::ptrdiff_t>((i + 1) * in_size));
        for (auto& [name, v] : compiler::run_reference(g, x, ro)) {
            all[name].insert(all[name].end(), v.begin(), v.end());
            if (name == g.layers.back().name) outputs.insert(v);
        }
    }
    EXPECT_EQ(outputs.size(), count) << "the model gives equal outputs for different inputs";
    for (const compiler::Layer& l : g.layers) {
        const std::vector<int8_t>& v = all.at(l.name);
        const std::set<int8_t> distinct(v.begin(), v.end());
        size_t saturated = 0;
        for (int8_t x : v) saturated += x == 127 || x == -128;
        EXPECT_GE(distinct.size(), 3u) << l.name;
        EXPECT_LT(saturated * 4, v.size()) << l.name << ": more than a quarter saturated";
    }
}

// A completed, bit-exact run whose time area is consistent: layers in list order with the
// expected names, every layer and worker interval > 0, DMA-in + compute within the worker's
// interval, the worker's within the scheduler's, and the total at least the sum of the parts.
void expect_good(const ChipRun& c, uint64_t count, const std::vector<std::string>& layers) {
    ASSERT_TRUE(c.r.ok) << c.r.message << "\n" << c.err;
    EXPECT_FALSE(c.r.sim_error);
    EXPECT_FALSE(c.r.checks_failed);
    const DnnRunSummary& s = c.sum;
    EXPECT_EQ(s.inferences, count);
    EXPECT_EQ(s.bit_exact, count);
    ASSERT_EQ(s.mean.size(), layers.size() + 2);
    EXPECT_EQ(s.mean.front().name, "setup");
    EXPECT_EQ(s.mean.back().name, "cleanup");
    double sum = 0;
    for (size_t e = 0; e < s.mean.size(); ++e) {
        const DnnEntryTime& t = s.mean[e];
        sum += t.us;
        EXPECT_GE(t.us, 0) << t.name;
        if (e == 0 || e + 1 == s.mean.size()) continue;
        SCOPED_TRACE(t.name + " " + t.kind);
        EXPECT_EQ(t.name, layers[e - 1]);
        EXPECT_GE(t.workers, 1u);
        EXPECT_GT(t.us, 0);
        EXPECT_GT(t.worker_us, 0);
        EXPECT_GT(t.compute_us, 0);
        EXPECT_GT(t.load_us, 0);
        EXPECT_LE(t.load_us + t.compute_us, t.worker_us * (1 + 1e-12));
        EXPECT_LE(t.worker_us, t.us * (1 + 1e-12));
    }
    EXPECT_GE(s.total_us * (1 + 1e-12), sum);
    EXPECT_GT(s.image_load_us, 0);
    EXPECT_GT(s.host_per_inference_us, 0);
}

// Linear in -> out + bias + ReLU.
void one_layer_model(const fs::path& path, int64_t in, int64_t out) {
    QdqModel m(1001);
    const Act x = m.input("x", {1, in}, 7);
    m.output(m.linear("fc", x, out, true, 5));
    m.save(path);
}

TEST_F(DnnChipTest, OneLinearLayerOnOneAndThreeWorkers) {
    // 64 -> 48 on 1 worker: one tile of 48 columns.
    one_layer_model(m_dir / "fc64.onnx", 64, 48);
    const std::vector<int8_t> in64 = write_inputs("in64.bin", 64, 3, 7);
    expect_nontrivial(m_dir / "fc64.onnx", in64, 3);
    const scenario::Scenario s1 = load(write_scenario("fc64_w1", "fc64.onnx", "in64.bin", 3, 1));
    const Tiled t1 = tiling_of(s1, "fc");
    EXPECT_EQ(t1.workers, 1u);
    EXPECT_EQ(t1.tile, 48u);
    EXPECT_EQ(t1.padding, 0u);
    EXPECT_EQ(t1.parts, 1u);
    const ChipRun c1 = run(s1);
    expect_good(c1, 3, {"fc"});
    EXPECT_EQ(c1.sum.mean[1].workers, 1u);

    // 512 -> 40 on 3 workers (enough MLA work that the cost model uses all three): tiles of 16
    // columns, the last one 8 valid + 8 padding columns.
    one_layer_model(m_dir / "fc512.onnx", 512, 40);
    const std::vector<int8_t> in512 = write_inputs("in512.bin", 512, 3, 8);
    expect_nontrivial(m_dir / "fc512.onnx", in512, 3);
    const scenario::Scenario s3 = load(write_scenario("fc512_w3", "fc512.onnx", "in512.bin", 3, 3));
    const Tiled t3 = tiling_of(s3, "fc");
    EXPECT_EQ(t3.workers, 3u);
    EXPECT_EQ(t3.outputs, 40u);
    EXPECT_EQ(t3.padding, 3 * t3.tile - 40);
    EXPECT_GT(t3.padding, 0u);
    EXPECT_EQ(t3.parts, 1u);
    const ChipRun c3 = run(s3);
    expect_good(c3, 3, {"fc"});
    EXPECT_EQ(c3.sum.mean[1].workers, 3u);
}

TEST_F(DnnChipTest, ThreeLayerMlpWithSoftmaxHead) {
    QdqModel m(2002);
    Act x = m.input("x", {1, 64}, 7);
    x = m.linear("fc1", x, 48, false, 5);
    x = m.linear("fc2", x, 32, true, 5, true);  // MatMul + Add bias
    x = m.linear("fc3", x, 10, false, 4);
    m.output(m.softmax("softmax", x, 7));
    m.save(m_dir / "mlp3.onnx");
    const std::vector<int8_t> in = write_inputs("in.bin", 64, 4, 8);
    expect_nontrivial(m_dir / "mlp3.onnx", in, 4);
    const ChipRun c = run(load(write_scenario("mlp3", "mlp3.onnx", "in.bin", 4, 3)));
    expect_good(c, 4, {"fc1", "fc2", "fc3", "softmax"});
}

TEST_F(DnnChipTest, ConvMaxPoolFlattenLinear) {
    // A one-channel input (the same bytes in NCHW and HWC), then a multi-channel conv on the
    // first conv's HWC output map.
    QdqModel m(3003);
    Act x = m.input("x", {1, 1, 10, 10}, 7);
    x = m.conv("conv1", x, 4, 3, 1, true, 5);  // [1, 4, 10, 10]
    x = m.conv("conv2", x, 6, 3, 0, true, 5);  // [1, 6, 8, 8]
    x = m.maxpool("pool", x, 2, 2);            // [1, 6, 4, 4]
    x = m.flatten("flat", x);                  // [1, 96]
    m.output(m.linear("fc", x, 10, false, 4));
    m.save(m_dir / "cnn.onnx");
    const std::vector<int8_t> in = write_inputs("in.bin", 10 * 10, 3, 9);
    expect_nontrivial(m_dir / "cnn.onnx", in, 3);
    const ChipRun c = run(load(write_scenario("cnn", "cnn.onnx", "in.bin", 3, 3)));
    expect_good(c, 3, {"conv1", "conv2", "pool", "fc"});
}

// docs/compiler.md: feature maps, the model input included, are stored HWC in DRAM and "the host
// writes a multi-channel input in that order"; run_reference takes and returns NCHW. A
// three-channel input and a feature map as the model's output exercise both conversions.
TEST_F(DnnChipTest, MultiChannelInputAndFeatureMapOutput) {
    QdqModel m(3004);
    Act x = m.input("x", {1, 3, 6, 6}, 7);
    x = m.conv("conv", x, 4, 3, 1, true, 5);  // [1, 4, 6, 6]
    x = m.flatten("flat", x);
    m.output(m.linear("fc", x, 10, false, 4));
    m.save(m_dir / "rgb.onnx");
    const std::vector<int8_t> in = write_inputs("in.bin", 3 * 6 * 6, 3, 15);
    expect_nontrivial(m_dir / "rgb.onnx", in, 3);
    expect_good(run(load(write_scenario("rgb", "rgb.onnx", "in.bin", 3, 2))), 3, {"conv", "fc"});

    QdqModel fm(3005);
    Act y = fm.input("x", {1, 1, 6, 6}, 7);
    fm.output(fm.conv("conv", y, 4, 3, 1, true, 5));  // the output is a [1, 4, 6, 6] map
    fm.save(m_dir / "map.onnx");
    const std::vector<int8_t> in1 = write_inputs("in1.bin", 6 * 6, 3, 16);
    expect_nontrivial(m_dir / "map.onnx", in1, 3);
    expect_good(run(load(write_scenario("map", "map.onnx", "in1.bin", 3, 2))), 3, {"conv"});
}

TEST_F(DnnChipTest, ResidualAdd) {
    QdqModel m(4004);
    const Act x = m.input("x", {1, 64}, 7);
    const Act a = m.linear("fc1", x, 32, true, 5);
    const Act b = m.linear("fc2", a, 32, true, 5);
    const Act sum = m.add("res", a, b, 4);  // fc1's output feeds fc2 and the Add
    m.output(m.linear("fc3", sum, 10, false, 4));
    m.save(m_dir / "res.onnx");
    const std::vector<int8_t> in = write_inputs("in.bin", 64, 3, 10);
    expect_nontrivial(m_dir / "res.onnx", in, 3);
    const ChipRun c = run(load(write_scenario("res", "res.onnx", "in.bin", 3, 3)));
    expect_good(c, 3, {"fc1", "fc2", "res", "fc3"});
}

TEST_F(DnnChipTest, LargeLinearTiledIntoSeveralParts) {
    QdqModel m(5005);
    Act x = m.input("x", {1, 1024}, 7);
    x = m.linear("big", x, 512, true, 5);
    m.output(m.linear("head", x, 16, false, 4));
    m.save(m_dir / "big.onnx");
    const std::vector<int8_t> in = write_inputs("in.bin", 1024, 3, 11);
    expect_nontrivial(m_dir / "big.onnx", in, 3);
    const scenario::Scenario s = load(write_scenario("big", "big.onnx", "in.bin", 3, 2));
    // 512 KiB of weights over at most 2 workers cannot fit one PE's SRAM in one part.
    ASSERT_GT(1024u * 512u / 2u, chip_defaults().pe.sram_size.n);
    const Tiled t = tiling_of(s, "big");
    EXPECT_GE(t.workers, 1u);
    EXPECT_LE(t.workers, 2u);
    EXPECT_GT(t.parts, 1u);
    EXPECT_GE(uint64_t{t.parts} * t.part_n, t.tile);
    const ChipRun c = run(s);
    expect_good(c, 3, {"big", "head"});
}

TEST_F(DnnChipTest, LayerThatCannotFitIsNamed) {
    // The input alone (140000 B, resident in every part) exceeds a worker's SRAM.
    QdqModel m(6006);
    const Act x = m.input("x", {1, 140000}, 7);
    m.output(m.linear("huge", x, 1, false, 5));
    m.save(m_dir / "huge.onnx");
    write_inputs("in.bin", 140000, 1, 12);
    const scenario::Scenario s = load(write_scenario("huge", "huge.onnx", "in.bin", 1, 2));
    try {
        run(s);
        FAIL() << "no error";
    } catch (const scenario::ScenarioError& e) {
        ASSERT_EQ(e.errors().size(), 1u) << e.what();
        const scenario::ConfigError& ce = e.errors()[0];
        EXPECT_EQ(ce.key, "workload.dnn.model");
        EXPECT_EQ(ce.origin.line, 9) << ce.str();  // the `model:` line of the scenario
        EXPECT_NE(ce.message.find(s.workload.as<DnnWorkload>().model +
                                  ": layer 'huge' (linear 140000x1)"),
                  std::string::npos)
            << ce.message;
        EXPECT_NE(ce.message.find("input 140000"), std::string::npos) << ce.message;
        EXPECT_NE(ce.message.find("budget"), std::string::npos) << ce.message;
    }
}

TEST_F(DnnChipTest, CorruptModelIsNamed) {
    {
        std::ofstream f(m_dir / "bad.onnx", std::ios::binary);
        f << "\x08\x07\xff\xff\xff truncated protobuf";
    }
    write_inputs("in.bin", 64, 1, 13);
    const scenario::Scenario s = load(write_scenario("bad", "bad.onnx", "in.bin", 1, 2));
    try {
        run(s);
        FAIL() << "no error";
    } catch (const scenario::ScenarioError& e) {
        ASSERT_EQ(e.errors().size(), 1u) << e.what();
        EXPECT_EQ(e.errors()[0].key, "workload.dnn.model");
        EXPECT_EQ(e.errors()[0].message, s.workload.as<DnnWorkload>().model +
                                             ": not a valid ONNX model (protobuf parse failed)");
        EXPECT_EQ(fs::path(s.workload.as<DnnWorkload>().model).filename(), "bad.onnx");
    }
}

TEST_F(DnnChipTest, RunsAreDeterministic) {
    one_layer_model(m_dir / "fc.onnx", 64, 50);
    write_inputs("in.bin", 64, 3, 14);
    const scenario::Scenario s = load(write_scenario("det", "fc.onnx", "in.bin", 3, 3));
    const ChipRun a = run(s);
    const ChipRun b = run(s);
    expect_good(a, 3, {"fc"});
    expect_good(b, 3, {"fc"});
    EXPECT_EQ(a.r.sim_time_us, b.r.sim_time_us);
    EXPECT_EQ(a.sum.total_us, b.sum.total_us);
    EXPECT_EQ(a.sum.image_load_us, b.sum.image_load_us);
    EXPECT_EQ(a.sum.host_per_inference_us, b.sum.host_per_inference_us);
    ASSERT_EQ(a.sum.mean.size(), b.sum.mean.size());
    for (size_t e = 0; e < a.sum.mean.size(); ++e) {
        SCOPED_TRACE(a.sum.mean[e].name);
        EXPECT_EQ(a.sum.mean[e].us, b.sum.mean[e].us);
        EXPECT_EQ(a.sum.mean[e].load_us, b.sum.mean[e].load_us);
        EXPECT_EQ(a.sum.mean[e].compute_us, b.sum.mean[e].compute_us);
        EXPECT_EQ(a.sum.mean[e].worker_us, b.sum.mean[e].worker_us);
    }
}

}  // namespace
}  // namespace nmsim::workloads::dnn
