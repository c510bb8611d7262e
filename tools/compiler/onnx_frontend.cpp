#include "tools/compiler/onnx_frontend.h"

#include <onnx/onnx_pb.h>  // with ONNX_ML=1 (set by the onnx target): onnx-ml.pb.h

#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "nmsim/hw/spinnaker2/dnn_image.h"

namespace nmsim::compiler {
namespace {

constexpr const char* kSupported =
    "Gemm, MatMul, Add, Conv, Relu, MaxPool, AveragePool, Flatten, Reshape, Softmax, "
    "QuantizeLinear, DequantizeLinear";

// What a tensor name in the ONNX graph stands for while walking the nodes.
struct Value {
    enum class Kind {
        initializer,  // a constant (initializer or Constant node output)
        constant,     // DequantizeLinear of an int initializer: weights or bias
        act_float,    // float output of a layer, not yet quantised
        act_q,        // int8 output of QuantizeLinear
        act_dq,       // DequantizeLinear of act_q: the layer's int8 output seen as float
    };
    Kind kind = Kind::initializer;
    const onnx::TensorProto* init = nullptr;  // initializer
    Tensor tensor;                            // constant
    size_t layer = 0;                         // act_*
    int exponent = 0;                         // act_q, act_dq
};

Shape dims_of(const onnx::TensorProto& t) { return Shape(t.dims().begin(), t.dims().end()); }

// Bytes per element of the tensor types the front end reads (1 for the others: their size is
// checked as if they were int8, and they are refused when read).
int64_t element_bytes(int32_t data_type) {
    switch (data_type) {
        case onnx::TensorProto::INT8:
        case onnx::TensorProto::UINT8:
            return 1;
        case onnx::TensorProto::INT32:
        case onnx::TensorProto::FLOAT:
            return 4;
        case onnx::TensorProto::INT64:
            return 8;
        default:
            return 1;
    }
}

class Importer {
public:
    Importer(const onnx::ModelProto& model, std::string source)
        : m_g(model.graph()), m_src(std::move(source)) {
        m_graph.source = m_src;
    }

    Graph run() {
        for (const onnx::TensorProto& t : m_g.initializer()) m_values[t.name()] = init_value(&t);
        for (const onnx::ValueInfoProto& in : m_g.input())
            if (!m_values.count(in.name())) add_input(in);
        for (size_t i : node_order()) import_node(m_g.node(static_cast<int>(i)), i);
        for (const onnx::ValueInfoProto& out : m_g.output()) add_output(out);
        finish();
        m_graph.sort_topologically();
        m_graph.check_shifts();
        return std::move(m_graph);
    }

private:
    const onnx::GraphProto& m_g;
    std::string m_src;
    Graph m_graph;
    std::map<std::string, Value> m_values;
    std::vector<bool> m_out_set;             // per layer: output exponent known
    std::map<std::string, int> m_consumers;  // tensor name -> number of node inputs using it
    std::map<size_t, std::string> m_labels;  // node index -> label for messages

    static Value init_value(const onnx::TensorProto* t) {
        Value v;
        v.kind = Value::Kind::initializer;
        v.init = t;
        return v;
    }

    std::string label(const onnx::NodeProto& n, size_t index) const {
        return n.name().empty() ? "#" + std::to_string(index) : n.name();
    }

    [[noreturn]] void fail(const onnx::NodeProto& n, size_t index, const std::string& why) const {
        throw CompileError(m_src + ": node '" + label(n, index) + "' (" + n.op_type() +
                           "): " + why);
    }

    [[noreturn]] void fail_tensor(const std::string& name, const std::string& why) const {
        throw CompileError(m_src + ": tensor '" + name + "': " + why);
    }

    // Kahn's algorithm over the ONNX nodes: the file should already be sorted, but need not be.
    std::vector<size_t> node_order() {
        const int n = m_g.node_size();
        std::map<std::string, size_t> producer;
        for (int i = 0; i < n; ++i)
            for (const std::string& o : m_g.node(i).output())
                if (!o.empty()) producer[o] = static_cast<size_t>(i);
        std::vector<std::vector<size_t>> users(n);
        std::vector<size_t> indegree(n, 0);
        for (int i = 0; i < n; ++i) {
            const onnx::NodeProto& node = m_g.node(i);
            for (const std::string& in : node.input()) {
                if (in.empty()) continue;
                ++m_consumers[in];
                auto p = producer.find(in);
                if (p != producer.end()) {
                    users[p->second].push_back(static_cast<size_t>(i));
                    ++indegree[i];
                } else if (!m_values.count(in)) {
                    fail(node, i,
                         "input '" + in +
                             "' is not produced by any node, initializer or graph input");
                }
            }
        }
        std::set<size_t> ready;
        for (int i = 0; i < n; ++i)
            if (indegree[i] == 0) ready.insert(static_cast<size_t>(i));
        std::vector<size_t> order;
        while (!ready.empty()) {
            size_t i = *ready.begin();
            ready.erase(ready.begin());
            order.push_back(i);
            for (size_t u : users[i])
                if (--indegree[u] == 0) ready.insert(u);
        }
        if (order.size() != static_cast<size_t>(n)) {
            std::string names;
            for (int i = 0; i < n; ++i)
                if (indegree[i] > 0)
                    names += (names.empty() ? "'" : ", '") + label(m_g.node(i), i) + "'";
            throw CompileError(m_src + ": cycle in the ONNX graph through nodes " + names);
        }
        return order;
    }

    // ---- tensor data ----

    template <typename T>
    std::vector<T> raw_as(const onnx::TensorProto& t) const {
        const std::string& raw = t.raw_data();
        if (raw.size() % sizeof(T) != 0)
            fail_tensor(t.name(), "raw_data size " + std::to_string(raw.size()) +
                                      " is not a multiple of the element size");
        std::vector<T> out(raw.size() / sizeof(T));
        if (!out.empty()) std::memcpy(out.data(), raw.data(), raw.size());
        return out;
    }

    // The dims of initializer `t` read by node n: rank 0 (a scalar) or 1..kMaxRank, every
    // dimension >= 1, at most kMaxTensorBytes bytes (graph.h, "Limits").
    Shape tensor_dims(const onnx::NodeProto& n, size_t idx, const onnx::TensorProto& t) const {
        const Shape d = dims_of(t);
        if (d.empty()) return d;
        const std::string why = shape_problem(d, element_bytes(t.data_type()));
        if (!why.empty()) fail(n, idx, "tensor '" + t.name() + "': " + why);
        return d;
    }

    // Integer elements of an INT8/INT32/INT64 tensor read by node n, checked against its dims
    // (tensor_dims) and, for int8 values stored as int32_data, against -128..127.
    std::vector<int64_t> int_data(const onnx::NodeProto& n, size_t idx,
                                  const onnx::TensorProto& t) const {
        const int64_t elements = shape_elements(tensor_dims(n, idx, t));
        std::vector<int64_t> out;
        const bool raw = t.has_raw_data();
        switch (t.data_type()) {
            case onnx::TensorProto::INT8:
                if (raw) {
                    for (int8_t v : raw_as<int8_t>(t)) out.push_back(v);
                } else {
                    out.assign(t.int32_data().begin(), t.int32_data().end());
                    for (int64_t v : out)
                        if (v < -128 || v > 127)
                            fail(n, idx,
                                 "tensor '" + t.name() + "': int8 value " + std::to_string(v) +
                                     " outside -128..127");
                }
                break;
            case onnx::TensorProto::INT32:
                if (raw)
                    for (int32_t v : raw_as<int32_t>(t)) out.push_back(v);
                else
                    out.assign(t.int32_data().begin(), t.int32_data().end());
                break;
            case onnx::TensorProto::INT64:
                if (raw)
                    out = raw_as<int64_t>(t);
                else
                    out.assign(t.int64_data().begin(), t.int64_data().end());
                break;
            default:
                fail_tensor(t.name(),
                            "expected an int8, int32 or int64 tensor, got " +
                                onnx::TensorProto::DataType_Name(
                                    static_cast<onnx::TensorProto::DataType>(t.data_type())));
        }
        if (static_cast<int64_t>(out.size()) != elements)
            fail_tensor(t.name(), "holds " + std::to_string(out.size()) + " elements, its shape " +
                                      shape_str(dims_of(t)) + " needs " + std::to_string(elements));
        return out;
    }

    const onnx::TensorProto& constant_input(const onnx::NodeProto& n, size_t idx, int operand,
                                            const char* what) const {
        const std::string& name = n.input(operand);
        auto it = m_values.find(name);
        if (it == m_values.end() || it->second.kind != Value::Kind::initializer)
            fail(n, idx, std::string(what) + " '" + name + "' must be an initializer");
        return *it->second.init;
    }

    // Exponent k of a per-tensor power-of-two scale 2^-k.
    int scale_exponent(const onnx::NodeProto& n, size_t idx) const {
        if (n.input_size() < 2) fail(n, idx, "scale input missing");
        const onnx::TensorProto& t = constant_input(n, idx, 1, "scale");
        if (t.data_type() != onnx::TensorProto::FLOAT)
            fail(n, idx, "scale '" + t.name() + "' must be float32");
        std::vector<float> v =
            t.has_raw_data() ? raw_as<float>(t)
                             : std::vector<float>(t.float_data().begin(), t.float_data().end());
        if (v.size() != 1 || shape_elements(tensor_dims(n, idx, t)) != 1)
            fail(n, idx,
                 "scale '" + t.name() + "' has " + std::to_string(v.size()) +
                     " elements: only per-tensor (scalar) scales are supported");
        int e = 0;
        const double m = std::frexp(static_cast<double>(v[0]), &e);
        if (!(v[0] > 0) || !std::isfinite(v[0]) || m != 0.5) {
            std::ostringstream os;
            os.precision(9);
            os << "scale " << v[0] << " ('" << t.name() << "') is not a power of two";
            fail(n, idx, os.str());
        }
        return 1 - e;  // v = 0.5 * 2^e = 2^-(1-e)
    }

    // Zero point must be 0; `required` for QuantizeLinear (its type sets the output type).
    void check_zero_point(const onnx::NodeProto& n, size_t idx, int expected_type,
                          bool required) const {
        const char* tname = expected_type == onnx::TensorProto::INT8 ? "int8" : "int32";
        if (n.input_size() < 3 || n.input(2).empty()) {
            if (required)
                fail(n, idx,
                     "zero point missing (the output would be uint8; int8 with zero "
                     "point 0 is required)");
            return;
        }
        const onnx::TensorProto& t = constant_input(n, idx, 2, "zero point");
        if (t.data_type() != expected_type)
            fail(n, idx, "zero point '" + t.name() + "' must be " + tname);
        for (int64_t z : int_data(n, idx, t))
            if (z != 0)
                fail(n, idx,
                     "zero point " + std::to_string(z) + " ('" + t.name() +
                         "') is not 0 (only symmetric quantisation is supported)");
    }

    // ---- value access ----

    const Value& value(const onnx::NodeProto& n, size_t idx, int operand) const {
        if (operand >= n.input_size() || n.input(operand).empty())
            fail(n, idx, "input " + std::to_string(operand) + " missing");
        return m_values.at(n.input(operand));
    }

    // An activation input: must be a dequantised int8 activation.
    const Value& activation(const onnx::NodeProto& n, size_t idx, int operand) const {
        const Value& v = value(n, idx, operand);
        if (v.kind != Value::Kind::act_dq)
            fail(n, idx,
                 "input '" + n.input(operand) +
                     "' is not an int8 activation (expected QuantizeLinear -> "
                     "DequantizeLinear before this node)");
        return v;
    }

    const Tensor& constant(const onnx::NodeProto& n, size_t idx, int operand, DType dtype,
                           const char* what) const {
        const Value& v = value(n, idx, operand);
        if (v.kind != Value::Kind::constant || v.tensor.dtype != dtype)
            fail(n, idx,
                 std::string(what) + " '" + n.input(operand) + "' must be " +
                     (dtype == DType::i8 ? "an int8" : "an int32") +
                     " initializer behind DequantizeLinear");
        return v.tensor;
    }

    // The attribute `name` of n, checked to have type `type`; nullptr if absent.
    const onnx::AttributeProto* attr(const onnx::NodeProto& n, size_t idx, const char* name,
                                     onnx::AttributeProto::AttributeType type) const {
        for (const onnx::AttributeProto& a : n.attribute()) {
            if (a.name() != name) continue;
            if (a.type() != type)
                fail(n, idx,
                     std::string("attribute ") + name + " has type " +
                         onnx::AttributeProto::AttributeType_Name(a.type()) + ", expected " +
                         onnx::AttributeProto::AttributeType_Name(type));
            return &a;
        }
        return nullptr;
    }
    int64_t attr_int(const onnx::NodeProto& n, size_t idx, const char* name, int64_t dflt) const {
        const onnx::AttributeProto* a = attr(n, idx, name, onnx::AttributeProto::INT);
        return a ? a->i() : dflt;
    }
    float attr_float(const onnx::NodeProto& n, size_t idx, const char* name, float dflt) const {
        const onnx::AttributeProto* a = attr(n, idx, name, onnx::AttributeProto::FLOAT);
        return a ? a->f() : dflt;
    }
    std::vector<int64_t> attr_ints(const onnx::NodeProto& n, size_t idx, const char* name,
                                   std::vector<int64_t> dflt) const {
        const onnx::AttributeProto* a = attr(n, idx, name, onnx::AttributeProto::INTS);
        return a ? std::vector<int64_t>(a->ints().begin(), a->ints().end()) : dflt;
    }
    void check_auto_pad(const onnx::NodeProto& n, size_t idx) const {
        const onnx::AttributeProto* a = attr(n, idx, "auto_pad", onnx::AttributeProto::STRING);
        if (a && a->s() != "NOTSET")
            fail(n, idx, "auto_pad '" + a->s() + "' not supported (use explicit pads)");
    }
    // attribute name[i] = v inside lo..hi (graph.h, "Limits"), as an int.
    int window_attr(const onnx::NodeProto& n, size_t idx, const char* name, size_t i, int64_t v,
                    int64_t lo) const {
        if (v < lo || v > kMaxWindow)
            fail(n, idx,
                 std::string("attribute ") + name + "[" + std::to_string(i) +
                     "] = " + std::to_string(v) + " outside " + std::to_string(lo) + ".." +
                     std::to_string(kMaxWindow));
        return static_cast<int>(v);
    }
    // The output shape of a layer made by node n: within the limits (graph.h).
    void check_output(const onnx::NodeProto& n, size_t idx, const Shape& shape) const {
        const std::string why = shape_problem(shape, 1);
        if (!why.empty()) fail(n, idx, "output " + why);
    }

    size_t new_layer(Layer layer) {
        m_graph.layers.push_back(std::move(layer));
        m_out_set.push_back(false);
        return m_graph.layers.size() - 1;
    }

    void set_output(const onnx::NodeProto& n, size_t layer) {
        Value v;
        v.kind = Value::Kind::act_float;
        v.layer = layer;
        m_values[n.output(0)] = v;
    }

    Layer layer_from(const onnx::NodeProto& n, size_t idx, LayerKind kind,
                     std::initializer_list<const Value*> inputs) {
        Layer l;
        l.name = label(n, idx);
        l.kind = kind;
        for (const Value* v : inputs) {
            const Layer& src = m_graph.layers[v->layer];
            l.inputs.push_back(src.name);
            l.in_shapes.push_back(src.out_shape);
            l.in_exponents.push_back(v->exponent);
        }
        l.fused_nodes.push_back(l.name);
        return l;
    }

    // ---- graph input / output ----

    void add_input(const onnx::ValueInfoProto& in) {
        const onnx::TypeProto& type = in.type();
        if (!type.has_tensor_type() || type.tensor_type().elem_type() != onnx::TensorProto::FLOAT)
            fail_tensor(in.name(),
                        "graph input must be a float tensor (quantised by "
                        "QuantizeLinear)");
        Layer l;
        l.name = in.name();
        l.kind = LayerKind::input;
        for (const onnx::TensorShapeProto::Dimension& d : type.tensor_type().shape().dim()) {
            if (!d.has_dim_value() || d.dim_value() <= 0)
                fail_tensor(in.name(), "graph input dimension " +
                                           std::to_string(l.out_shape.size()) +
                                           " is not a fixed positive size");
            l.out_shape.push_back(d.dim_value());
        }
        const std::string why = shape_problem(l.out_shape, 1);
        if (!why.empty()) fail_tensor(in.name(), "graph input " + why);
        Value v;
        v.kind = Value::Kind::act_float;
        v.layer = new_layer(std::move(l));
        m_values[in.name()] = v;
    }

    void add_output(const onnx::ValueInfoProto& out) {
        auto it = m_values.find(out.name());
        if (it == m_values.end()) fail_tensor(out.name(), "graph output is not produced");
        const Value& v = it->second;
        if (v.kind != Value::Kind::act_dq && v.kind != Value::Kind::act_q)
            fail_tensor(out.name(),
                        "graph output is not an int8 activation (expected "
                        "QuantizeLinear [-> DequantizeLinear] before it)");
        const Layer& src = m_graph.layers[v.layer];
        Layer l;
        l.name = out.name();
        l.kind = LayerKind::output;
        l.inputs = {src.name};
        l.in_shapes = {src.out_shape};
        l.in_exponents = {v.exponent};
        l.out_shape = src.out_shape;
        l.out_exponent = v.exponent;
        new_layer(std::move(l));
        m_out_set.back() = true;
    }

    // ---- nodes ----

    void import_node(const onnx::NodeProto& n, size_t idx) {
        const std::string& op = n.op_type();
        if (!n.domain().empty() && n.domain() != "ai.onnx")
            fail(n, idx,
                 "domain '" + n.domain() + "' not supported (supported: " + kSupported +
                     " from the default domain)");
        if (op == "Constant") return import_constant(n, idx);
        if (n.output_size() != 1)
            fail(n, idx, "expected exactly one output, got " + std::to_string(n.output_size()));
        if (op == "QuantizeLinear") return import_quantize(n, idx);
        if (op == "DequantizeLinear") return import_dequantize(n, idx);
        if (op == "Gemm") return import_gemm(n, idx);
        if (op == "MatMul") return import_matmul(n, idx);
        if (op == "Add") return import_add(n, idx);
        if (op == "Conv") return import_conv(n, idx);
        if (op == "Relu") return import_relu(n, idx);
        if (op == "MaxPool" || op == "AveragePool") return import_pool(n, idx);
        if (op == "Flatten" || op == "Reshape") return import_flatten(n, idx);
        if (op == "Softmax") return import_softmax(n, idx);
        fail(n, idx, std::string("not supported (supported: ") + kSupported + ")");
    }

    void import_constant(const onnx::NodeProto& n, size_t idx) {
        if (n.output_size() != 1)
            fail(n, idx, "expected exactly one output, got " + std::to_string(n.output_size()));
        for (const onnx::AttributeProto& a : n.attribute())
            if (a.name() == "value" && a.has_t()) {
                m_values[n.output(0)] = init_value(&a.t());
                return;
            }
        fail(n, idx, "only Constant with a 'value' tensor is supported");
    }

    void import_quantize(const onnx::NodeProto& n, size_t idx) {
        const Value& x = value(n, idx, 0);
        if (x.kind != Value::Kind::act_float)
            fail(n, idx,
                 "input '" + n.input(0) + "' is not the float output of a layer or graph input");
        const int k = scale_exponent(n, idx);
        check_zero_point(n, idx, onnx::TensorProto::INT8, true);
        Layer& l = m_graph.layers[x.layer];
        if (m_out_set[x.layer] && l.out_exponent != k)
            fail(n, idx,
                 "quantises '" + n.input(0) + "' with exponent " + std::to_string(k) +
                     ", another QuantizeLinear used " + std::to_string(l.out_exponent));
        l.out_exponent = k;
        m_out_set[x.layer] = true;
        l.fused_nodes.push_back(label(n, idx));
        Value q;
        q.kind = Value::Kind::act_q;
        q.layer = x.layer;
        q.exponent = k;
        m_values[n.output(0)] = q;
    }

    void import_dequantize(const onnx::NodeProto& n, size_t idx) {
        const Value& x = value(n, idx, 0);
        const int k = scale_exponent(n, idx);
        if (x.kind == Value::Kind::act_q) {
            check_zero_point(n, idx, onnx::TensorProto::INT8, false);
            if (k != x.exponent)
                fail(n, idx,
                     "exponent " + std::to_string(k) + " differs from the exponent " +
                         std::to_string(x.exponent) + " of its QuantizeLinear");
            Value v = x;
            v.kind = Value::Kind::act_dq;
            m_values[n.output(0)] = v;
            return;
        }
        if (x.kind != Value::Kind::initializer)
            fail(
                n, idx,
                "input '" + n.input(0) + "' is neither an initializer nor a QuantizeLinear output");
        const onnx::TensorProto& t = *x.init;
        if (t.data_type() != onnx::TensorProto::INT8 && t.data_type() != onnx::TensorProto::INT32)
            fail(n, idx, "initializer '" + t.name() + "' must be int8 (weights) or int32 (bias)");
        Value v;
        v.kind = Value::Kind::constant;
        v.tensor.name = t.name();
        v.tensor.shape = tensor_dims(n, idx, t);
        v.tensor.exponent = k;
        std::vector<int64_t> data = int_data(n, idx, t);
        if (t.data_type() == onnx::TensorProto::INT8) {
            check_zero_point(n, idx, onnx::TensorProto::INT8, false);
            v.tensor.dtype = DType::i8;
            v.tensor.i8.assign(data.begin(), data.end());
        } else {
            check_zero_point(n, idx, onnx::TensorProto::INT32, false);
            v.tensor.dtype = DType::i32;
            v.tensor.i32.assign(data.begin(), data.end());
        }
        m_values[n.output(0)] = std::move(v);
    }

    void set_bias(const onnx::NodeProto& n, size_t idx, Layer& l, const Tensor& b) {
        const int64_t out = l.weights->shape[0];
        const Shape& s = b.shape;
        if (!((s.size() == 1 && s[0] == out) || (s.size() == 2 && s[0] == 1 && s[1] == out)))
            fail(n, idx,
                 "bias '" + b.name + "' has shape " + shape_str(s) + ", expected [" +
                     std::to_string(out) + "]");
        const int k_acc = l.in_exponents[0] + l.weights->exponent;
        if (b.exponent != k_acc)
            fail(n, idx,
                 "bias '" + b.name + "' has exponent " + std::to_string(b.exponent) +
                     ", expected k_in + k_w = " + std::to_string(k_acc));
        l.bias = b;
        l.bias->shape = {out};
    }

    // Weights arrive as [in, out] (MatMul, Gemm transB=0) or [out, in]; stored as [out, in].
    void import_linear(const onnx::NodeProto& n, size_t idx, bool trans_b, const Tensor* bias) {
        const Value& a = activation(n, idx, 0);
        const Tensor& w = constant(n, idx, 1, DType::i8, "weight");
        Layer l = layer_from(n, idx, LayerKind::linear, {&a});
        const Shape& x = l.in_shapes[0];
        if (x.size() != 2)
            fail(n, idx,
                 "input '" + n.input(0) + "' has shape " + shape_str(x) +
                     ", expected [batch, features] (insert Flatten)");
        if (w.shape.size() != 2) fail(n, idx, "weight '" + w.name + "' must be 2-D");
        const int64_t in = trans_b ? w.shape[1] : w.shape[0];
        const int64_t out = trans_b ? w.shape[0] : w.shape[1];
        if (in != x[1])
            fail(n, idx,
                 "weight '" + w.name + "' " + shape_str(w.shape) + " does not match input " +
                     shape_str(x) + (trans_b ? " (transB=1)" : ""));
        Tensor wt = w;
        wt.shape = {out, in};
        if (!trans_b)
            for (int64_t o = 0; o < out; ++o)
                for (int64_t i = 0; i < in; ++i) wt.i8[o * in + i] = w.i8[i * out + o];
        l.weights = std::move(wt);
        l.out_shape = {x[0], out};
        check_output(n, idx, l.out_shape);
        if (bias) set_bias(n, idx, l, *bias);
        set_output(n, new_layer(std::move(l)));
    }

    void import_gemm(const onnx::NodeProto& n, size_t idx) {
        if (attr_int(n, idx, "transA", 0) != 0) fail(n, idx, "transA=1 not supported");
        if (attr_float(n, idx, "alpha", 1.0f) != 1.0f || attr_float(n, idx, "beta", 1.0f) != 1.0f)
            fail(n, idx, "alpha and beta must be 1");
        const Tensor* bias = nullptr;
        if (n.input_size() > 2 && !n.input(2).empty())
            bias = &constant(n, idx, 2, DType::i32, "bias");
        import_linear(n, idx, attr_int(n, idx, "transB", 0) != 0, bias);
    }

    void import_matmul(const onnx::NodeProto& n, size_t idx) {
        if (n.input_size() != 2) fail(n, idx, "expected 2 inputs");
        import_linear(n, idx, false, nullptr);
    }

    // Add: a bias after MatMul (folded) or the sum of two activations.
    void import_add(const onnx::NodeProto& n, size_t idx) {
        if (n.input_size() != 2) fail(n, idx, "expected 2 inputs");
        for (int op = 0; op < 2; ++op) {
            const Value& x = value(n, idx, op);
            const Value& c = value(n, idx, 1 - op);
            if (x.kind != Value::Kind::act_float || c.kind != Value::Kind::constant) continue;
            Layer& l = m_graph.layers[x.layer];
            if (l.kind != LayerKind::linear || l.bias || l.relu || m_consumers[n.input(op)] != 1)
                fail(n, idx, "a constant can only be added as the bias of a MatMul");
            set_bias(n, idx, l, constant(n, idx, 1 - op, DType::i32, "bias"));
            l.fused_nodes.push_back(label(n, idx));
            set_output(n, x.layer);
            return;
        }
        const Value& a = activation(n, idx, 0);
        const Value& b = activation(n, idx, 1);
        Layer l = layer_from(n, idx, LayerKind::add, {&a, &b});
        if (l.in_shapes[0] != l.in_shapes[1])
            fail(n, idx,
                 "input shapes " + shape_str(l.in_shapes[0]) + " and " + shape_str(l.in_shapes[1]) +
                     " differ (no broadcasting)");
        if (a.exponent != b.exponent)
            fail(n, idx,
                 "input exponents " + std::to_string(a.exponent) + " and " +
                     std::to_string(b.exponent) + " differ");
        l.out_shape = l.in_shapes[0];
        set_output(n, new_layer(std::move(l)));
    }

    // kernel/stride/pad attributes of Conv and pools; out = (in + pads - kernel) / stride + 1.
    // Every attribute is checked against graph.h's kMaxWindow before it becomes an int.
    Shape window_output(const onnx::NodeProto& n, size_t idx, const Shape& x, Window& w) const {
        check_auto_pad(n, idx);
        const std::vector<int64_t> dil = attr_ints(n, idx, "dilations", {1, 1});
        if (dil.size() != 2) fail(n, idx, "only 2-D kernels are supported");
        for (int64_t d : dil)
            if (d != 1) fail(n, idx, "dilations other than 1 not supported");
        const std::vector<int64_t> k = attr_ints(n, idx, "kernel_shape", {w.kernel_h, w.kernel_w});
        const std::vector<int64_t> s = attr_ints(n, idx, "strides", {1, 1});
        const std::vector<int64_t> p = attr_ints(n, idx, "pads", {0, 0, 0, 0});
        if (k.size() != 2 || s.size() != 2 || p.size() != 4)
            fail(n, idx, "only 2-D kernels are supported");
        w.kernel_h = window_attr(n, idx, "kernel_shape", 0, k[0], 1);
        w.kernel_w = window_attr(n, idx, "kernel_shape", 1, k[1], 1);
        w.stride_h = window_attr(n, idx, "strides", 0, s[0], 1);
        w.stride_w = window_attr(n, idx, "strides", 1, s[1], 1);
        w.pad_top = window_attr(n, idx, "pads", 0, p[0], 0);
        w.pad_left = window_attr(n, idx, "pads", 1, p[1], 0);
        w.pad_bottom = window_attr(n, idx, "pads", 2, p[2], 0);
        w.pad_right = window_attr(n, idx, "pads", 3, p[3], 0);
        // x's dimensions are at most kMaxTensorBytes and the attributes 16 bits: no overflow.
        const int64_t hp = x[2] + w.pad_top + w.pad_bottom, wp = x[3] + w.pad_left + w.pad_right;
        const int64_t h = hp - w.kernel_h, wd = wp - w.kernel_w;
        if (h < 0 || wd < 0) fail(n, idx, "kernel larger than the padded input " + shape_str(x));
        // The zero-padded map as the MLA's conv mode and the graph reference see it.
        const std::string why = shape_problem({x[0], x[1], hp, wp}, 1);
        if (!why.empty()) fail(n, idx, "padded input " + why);
        const Shape out = {x[0], x[1], h / w.stride_h + 1, wd / w.stride_w + 1};
        check_output(n, idx, out);
        return out;
    }

    void import_conv(const onnx::NodeProto& n, size_t idx) {
        const Value& a = activation(n, idx, 0);
        const Tensor& w = constant(n, idx, 1, DType::i8, "weight");
        if (attr_int(n, idx, "group", 1) != 1) fail(n, idx, "group other than 1 not supported");
        Layer l = layer_from(n, idx, LayerKind::conv2d, {&a});
        const Shape& x = l.in_shapes[0];
        if (x.size() != 4) fail(n, idx, "input must be NCHW, got " + shape_str(x));
        if (w.shape.size() != 4 || w.shape[1] != x[1])
            fail(n, idx,
                 "weight '" + w.name + "' " + shape_str(w.shape) + " does not match input " +
                     shape_str(x) + " (expected [out_c, " + std::to_string(x[1]) + ", kh, kw])");
        for (size_t i : {2u, 3u})
            if (w.shape[i] > kMaxWindow)
                fail(n, idx,
                     "weight '" + w.name + "' " + shape_str(w.shape) + ": kernel size " +
                         std::to_string(w.shape[i]) + " outside 1.." + std::to_string(kMaxWindow));
        l.window.kernel_h = static_cast<int>(w.shape[2]);
        l.window.kernel_w = static_cast<int>(w.shape[3]);
        l.out_shape = window_output(n, idx, x, l.window);
        if (l.window.kernel_h != w.shape[2] || l.window.kernel_w != w.shape[3])
            fail(n, idx, "kernel_shape differs from the weight shape " + shape_str(w.shape));
        l.out_shape[1] = w.shape[0];
        check_output(n, idx, l.out_shape);
        l.weights = w;
        if (n.input_size() > 2 && !n.input(2).empty())
            set_bias(n, idx, l, constant(n, idx, 2, DType::i32, "bias"));
        set_output(n, new_layer(std::move(l)));
    }

    void import_relu(const onnx::NodeProto& n, size_t idx) {
        const Value& x = value(n, idx, 0);
        const bool ok = x.kind == Value::Kind::act_float &&
                        (m_graph.layers[x.layer].kind == LayerKind::linear ||
                         m_graph.layers[x.layer].kind == LayerKind::conv2d) &&
                        !m_graph.layers[x.layer].relu && m_consumers[n.input(0)] == 1;
        if (!ok)
            fail(n, idx,
                 "Relu must directly follow Gemm/MatMul/Conv, as their only consumer "
                 "(it is fused into that layer)");
        Layer& l = m_graph.layers[x.layer];
        l.relu = true;
        l.fused_nodes.push_back(label(n, idx));
        set_output(n, x.layer);
    }

    void import_pool(const onnx::NodeProto& n, size_t idx) {
        const bool max = n.op_type() == "MaxPool";
        const Value& a = activation(n, idx, 0);
        Layer l = layer_from(n, idx, max ? LayerKind::maxpool : LayerKind::avgpool, {&a});
        if (l.in_shapes[0].size() != 4)
            fail(n, idx, "input must be NCHW, got " + shape_str(l.in_shapes[0]));
        if (attr_int(n, idx, "ceil_mode", 0) != 0) fail(n, idx, "ceil_mode=1 not supported");
        if (attr_int(n, idx, "storage_order", 0) != 0)
            fail(n, idx, "storage_order=1 not supported");
        bool has_kernel = false;
        for (const onnx::AttributeProto& at : n.attribute())
            has_kernel |= at.name() == "kernel_shape";
        if (!has_kernel) fail(n, idx, "kernel_shape missing");
        l.out_shape = window_output(n, idx, l.in_shapes[0], l.window);
        const Window& w = l.window;
        if (!max && (w.pad_top || w.pad_left || w.pad_bottom || w.pad_right))
            fail(n, idx, "padding not supported for AveragePool");
        if (!max && int64_t{w.kernel_h} * w.kernel_w > kMaxPoolArea)
            fail(n, idx,
                 "window area " + std::to_string(int64_t{w.kernel_h} * w.kernel_w) + " above " +
                     std::to_string(kMaxPoolArea) +
                     " (the firmware sums the window of int8 values in 32 bits)");
        set_output(n, new_layer(std::move(l)));
    }

    void import_flatten(const onnx::NodeProto& n, size_t idx) {
        const Value& a = activation(n, idx, 0);
        Layer l = layer_from(n, idx, LayerKind::flatten, {&a});
        const Shape& x = l.in_shapes[0];
        if (n.op_type() == "Flatten") {
            if (attr_int(n, idx, "axis", 1) != 1) fail(n, idx, "only axis=1 is supported");
            l.out_shape = {x[0], shape_elements(x) / x[0]};
        } else {
            if (n.input_size() != 2) fail(n, idx, "expected 2 inputs");
            if (attr_int(n, idx, "allowzero", 0) != 0) fail(n, idx, "allowzero=1 not supported");
            const onnx::TensorProto& t = constant_input(n, idx, 1, "shape");
            std::vector<int64_t> s = int_data(n, idx, t);
            if (s.empty() || s.size() > kMaxRank)
                fail(n, idx,
                     "shape '" + t.name() + "' has " + std::to_string(s.size()) +
                         " dimensions, outside 1.." + std::to_string(kMaxRank));
            int64_t known = 1;
            int minus = -1;
            for (size_t i = 0; i < s.size(); ++i) {
                if (s[i] == 0) {
                    if (i >= x.size()) fail(n, idx, "shape 0 refers to a missing input dimension");
                    s[i] = x[i];
                }
                if (s[i] == -1) {
                    if (minus >= 0) fail(n, idx, "more than one -1 in the shape");
                    minus = static_cast<int>(i);
                } else if (s[i] <= 0) {
                    fail(n, idx, "invalid target dimension " + std::to_string(s[i]));
                } else if (!checked_mul(known, s[i], &known) || known > shape_elements(x)) {
                    fail(n, idx, "cannot reshape " + shape_str(x) + " to " + shape_str(s));
                }
            }
            if (minus >= 0) s[static_cast<size_t>(minus)] = shape_elements(x) / known;
            if (shape_elements(s) != shape_elements(x))
                fail(n, idx, "cannot reshape " + shape_str(x) + " to " + shape_str(s));
            l.out_shape = s;
        }
        check_output(n, idx, l.out_shape);
        set_output(n, new_layer(std::move(l)));
    }

    void import_softmax(const onnx::NodeProto& n, size_t idx) {
        const Value& a = activation(n, idx, 0);
        Layer l = layer_from(n, idx, LayerKind::softmax, {&a});
        const int64_t rank = static_cast<int64_t>(l.in_shapes[0].size());
        int64_t axis = attr_int(n, idx, "axis", -1);
        if (axis < 0) axis += rank;
        if (axis != rank - 1) fail(n, idx, "only softmax over the last axis is supported");
        if (l.in_shapes[0].back() > kMaxSoftmaxRow)
            fail(n, idx,
                 "rows of " + std::to_string(l.in_shapes[0].back()) + " elements, above " +
                     std::to_string(kMaxSoftmaxRow) +
                     " (the integer softmax sums up to 2^15 per element in 32 bits)");
        // The worker's integer softmax (dnn_image.h) shifts x - max into s16.15: 2^(15 - k_in).
        if (a.exponent < 0 || a.exponent > S2_DNN_SOFTMAX_MAX_IN_EXPONENT)
            fail(n, idx,
                 "input exponent " + std::to_string(a.exponent) + " outside 0.." +
                     std::to_string(S2_DNN_SOFTMAX_MAX_IN_EXPONENT) +
                     " (the integer softmax needs x * 2^(15 - k_in))");
        l.out_shape = l.in_shapes[0];
        set_output(n, new_layer(std::move(l)));
    }

    // Output exponents known everywhere; shifts derived; exponent-preserving layers checked.
    void finish() {
        for (size_t i = 0; i < m_graph.layers.size(); ++i) {
            Layer& l = m_graph.layers[i];
            const std::string where =
                m_src + ": layer '" + l.name + "' (" + to_string(l.kind) + ")";
            if (!m_out_set[i])
                throw CompileError(where +
                                   ": output is never quantised (expected "
                                   "QuantizeLinear with an int8 zero point after it)");
            const int k_in = l.in_exponents.empty() ? 0 : l.in_exponents[0];
            switch (l.kind) {
                case LayerKind::linear:
                case LayerKind::conv2d:
                    l.shift = k_in + l.weights->exponent - l.out_exponent;
                    break;
                case LayerKind::add:
                    l.shift = k_in - l.out_exponent;
                    break;
                case LayerKind::avgpool: {
                    // At most kMaxPoolArea (import_pool): the shifts stay far inside int64.
                    const int64_t area = int64_t{l.window.kernel_h} * l.window.kernel_w;
                    int log2 = 0;
                    while ((int64_t{1} << log2) < area) ++log2;
                    if ((int64_t{1} << log2) != area)
                        throw CompileError(where + ": window area " + std::to_string(area) +
                                           " is not a power of two (no shift divides by it)");
                    l.shift = k_in + log2 - l.out_exponent;
                    break;
                }
                case LayerKind::softmax:
                    // y = e * 2^k_out / sum e with e <= 2^15 must fit 32 bits (dnn_image.h).
                    if (l.out_exponent < 0 || l.out_exponent > S2_DNN_SOFTMAX_MAX_OUT_EXPONENT)
                        throw CompileError(where + ": output exponent " +
                                           std::to_string(l.out_exponent) + " outside 0.." +
                                           std::to_string(S2_DNN_SOFTMAX_MAX_OUT_EXPONENT) +
                                           " (the integer softmax's range)");
                    break;
                case LayerKind::maxpool:
                case LayerKind::flatten:
                    if (l.out_exponent != k_in)
                        throw CompileError(where + ": output exponent " +
                                           std::to_string(l.out_exponent) +
                                           " differs from input exponent " + std::to_string(k_in) +
                                           " (must be kept)");
                    break;
                default:
                    break;
            }
        }
    }
};

}  // namespace

Graph parse_onnx(const std::string& bytes, const std::string& source) {
    onnx::ModelProto model;
    if (!model.ParseFromString(bytes))
        throw CompileError(source + ": not a valid ONNX model (protobuf parse failed)");
    if (!model.has_graph()) throw CompileError(source + ": ONNX model has no graph");
    return Importer(model, source).run();
}

Graph load_onnx(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw CompileError(path + ": cannot open file");
    std::ostringstream bytes;
    bytes << in.rdbuf();
    if (in.bad()) throw CompileError(path + ": read error");
    return parse_onnx(bytes.str(), path);
}

}  // namespace nmsim::compiler
