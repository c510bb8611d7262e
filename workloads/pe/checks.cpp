#include "workloads/pe/checks.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iomanip>
#include <sstream>

namespace nmsim::workloads::pe {

using scenario::ConfigError;
using scenario::ScenarioError;

namespace {

std::string op_get(const Check& c, const std::string& key, const std::string& def = "") {
    auto it = c.op.find(key);
    return it == c.op.end() ? def : it->second;
}

// The operands of a check's `op`, read with errors that name workload.pe.checks.<i>.op.<key>.
class OpReader {
public:
    OpReader(const Check& c, size_t index)
        : m_c(c), m_key("workload.pe.checks." + std::to_string(index)) {}

    [[noreturn]] void fail(const std::string& k, const std::string& msg) const {
        throw ScenarioError({ConfigError{m_c.origin, m_key + (k.empty() ? "" : "." + k), msg}});
    }
    std::string get(const std::string& k, const std::string& def = "") const {
        return op_get(m_c, k, def);
    }
    uint32_t as_uint(const std::string& k, uint32_t def) const {
        const std::string v = get(k);
        if (v.empty()) return def;
        char* end = nullptr;
        const unsigned long x = std::strtoul(v.c_str(), &end, 0);
        if (*end || x > 0xFFFFFFFFul)
            fail("op." + k, "expected an unsigned integer, got \"" + v + "\"");
        return static_cast<uint32_t>(x);
    }
    bool as_bool(const std::string& k, bool def) const {
        const std::string v = get(k);
        if (v.empty()) return def;
        if (v == "true" || v == "yes" || v == "on" || v == "1") return true;
        if (v == "false" || v == "no" || v == "off" || v == "0") return false;
        fail("op." + k, "expected true or false, got \"" + v + "\"");
    }

private:
    const Check& m_c;
    std::string m_key;
};

// seed 003's sparse MLP (firmware/programs/sparse_mlp); evaluate_sparse_mlp runs it.
void prepare_sparse_mlp(const Check& c, const OpReader& r, const PeWorkload& s, PreparedCheck& pc) {
    auto fail = [&](const std::string& k, const std::string& msg) { r.fail(k, msg); };
    auto as_uint = [&](const std::string& k, uint32_t def) { return r.as_uint(k, def); };
    // seed 003's sparse MLP (firmware/programs/sparse_mlp); evaluate_sparse_mlp runs it.
    auto buffer = [&](const std::string& k, std::initializer_list<DType> types) -> const Buffer& {
        const auto it = s.buffers.find(op_get(c, k));
        if (it == s.buffers.end()) fail("op." + k, "unknown buffer \"" + op_get(c, k) + "\"");
        if (std::find(types.begin(), types.end(), it->second.dtype) == types.end())
            fail("op." + k,
                 "buffer " + it->first + " has the wrong dtype " + dtype_name(it->second.dtype));
        return it->second;
    };
    const bool argmax = op_get(c, "out", "logits") == "argmax";
    if (!argmax && op_get(c, "out", "logits") != "logits")
        fail("op.out", "expected logits or argmax");
    const uint32_t n_in = as_uint("n_in", 0), n_out = as_uint("n_out", 0);
    if (!n_in || !as_uint("n_h1", 0) || !as_uint("n_h2", 0) || !n_out)
        fail("op", "needs n_in, n_h1, n_h2, n_out > 0");
    if (as_uint("shift1", 0) > 31 || as_uint("shift2", 0) > 31)
        fail("op", "shift1 and shift2 must be 0..31");
    const Buffer& in = buffer("input", {DType::u8});
    const Buffer& out = s.buffers.at(c.buffer);
    if (out.dtype != (argmax ? DType::u8 : DType::i32))
        fail("buffer", "needs an int32 buffer for logits, uint8 for argmax");
    const uint64_t count =
        as_uint("count", static_cast<uint32_t>(argmax ? out.elements() : out.elements() / n_out));
    if (in.elements() < (uint64_t(as_uint("first", 0)) + count) * n_in ||
        out.elements() < count * (argmax ? 1 : n_out))
        fail("op",
             "input " + in.name + " or result " + out.name + " too small for first + count inputs");
    for (int l = 1; l <= 3; ++l) {
        const std::string n = std::to_string(l);
        const uint64_t nnz =
            as_uint("nnz" + n, static_cast<uint32_t>(buffer("rows" + n, {DType::u16}).elements()));
        if (buffer("rows" + n, {DType::u16}).elements() < nnz ||
            buffer("cols" + n, {DType::u16}).elements() < nnz ||
            buffer("w" + n, {DType::i16}).elements() < nnz)
            fail("op.nnz" + n, "rows" + n + ", cols" + n + " and w" + n + " need " +
                                   std::to_string(nnz) + " elements");
    }
    pc.title = c.buffer + " = sparse_mlp(" + in.name + ")" + (argmax ? " argmax" : "");
}

// An MLA operation (mla_matmul, mla_conv2d): the op's shape against the buffers.
void prepare_mla(const Check& c, const OpReader& r, const PeWorkload& s,
                 const spinnaker2::PeParams& p, const std::string& fn, PreparedCheck& pc) {
    auto fail = [&](const std::string& k, const std::string& msg) { r.fail(k, msg); };
    auto as_uint = [&](const std::string& k, uint32_t def) { return r.as_uint(k, def); };
    auto as_bool = [&](const std::string& k, bool def) { return r.as_bool(k, def); };
    reference::MlaOp& op = pc.op;
    op.mode = fn == "mla_matmul" ? reference::MlaMode::matmul : reference::MlaMode::conv2d;
    const Buffer& a = s.buffers.at(op_get(c, "a"));
    const Buffer& b = s.buffers.at(op_get(c, "b"));
    const Buffer& out = s.buffers.at(c.buffer);
    auto is_signed = [](DType t) { return t == DType::i8 || t == DType::i16 || t == DType::i32; };
    op.a_signed = as_bool("a_signed", is_signed(a.dtype));
    op.b_signed = as_bool("b_signed", is_signed(b.dtype));
    op.in16 = dtype_size(a.dtype) == 2;
    if (dtype_size(a.dtype) != dtype_size(b.dtype) || dtype_size(a.dtype) > 2)
        fail("op", "operands a and b must both be 8-bit or both 16-bit");
    const std::string outp = op_get(c, "out", "int8");
    if (outp == "int8")
        op.out = reference::MlaOutPrec::int8;
    else if (outp == "int16")
        op.out = reference::MlaOutPrec::int16;
    else if (outp == "int32")
        op.out = reference::MlaOutPrec::int32;
    else
        fail("op.out", "expected int8, int16 or int32, got \"" + outp + "\"");
    if (dtype_size(out.dtype) != (op.out == reference::MlaOutPrec::int8    ? 1u
                                  : op.out == reference::MlaOutPrec::int16 ? 2u
                                                                           : 4u))
        fail("buffer", "result buffer " + c.buffer + " is " + dtype_name(out.dtype) +
                           " but op.out is " + outp);
    op.shift = as_uint("shift", 0);
    op.relu = as_bool("relu", false);
    op.bias_en = !op_get(c, "bias").empty();
    op.accumulate = as_bool("accumulate", false);
    op.acc_bits = as_uint("acc_bits", p.mla.acc_bits);
    op.m = as_uint("m", 1);
    op.k = as_uint("k", 1);
    op.n = as_uint("n", 1);
    op.ifm_h = as_uint("ifm_h", 1);
    op.ifm_w = as_uint("ifm_w", 1);
    op.ifm_c = as_uint("ifm_c", 1);
    op.ker_h = as_uint("ker_h", 1);
    op.ker_w = as_uint("ker_w", 1);
    op.stride = as_uint("stride", 1);
    op.pad = as_uint("pad", 0);
    op.ofm_c = as_uint("ofm_c", 1);
    if (op.mode == reference::MlaMode::conv2d &&
        (op.stride == 0 || op.ifm_h + 2 * op.pad < op.ker_h || op.ifm_w + 2 * op.pad < op.ker_w))
        fail("op", "convolution shape: kernel larger than the padded input or stride 0");
    auto need = [&](const Buffer& buf, size_t count, const char* what) {
        if (buf.elements() < count)
            fail("op", std::string(what) + " buffer " + buf.name + " has " +
                           std::to_string(buf.elements()) + " elements, the op needs " +
                           std::to_string(count));
    };
    need(a, op.a_count(), "a");
    need(b, op.b_count(), "b");
    need(out, op.c_count(), "result");
    if (op.bias_en) {
        const Buffer& bias = s.buffers.at(op_get(c, "bias"));
        if (bias.dtype != DType::i32)
            fail("op.bias", "bias buffer " + bias.name + " must be int32");
        need(bias, op.mode == reference::MlaMode::matmul ? op.n : op.ofm_c, "bias");
    }
    pc.title = c.buffer + " = " + fn + "(" + a.name + ", " + b.name +
               (op.bias_en ? ", " + op_get(c, "bias") : "") + ")";
}

}  // namespace

PreparedCheck prepare_check(const Check& c, size_t index, const PeWorkload& s,
                            const spinnaker2::PeParams& p) {
    PreparedCheck pc{&c, "", {}, {}};
    const OpReader r(c, index);
    if (c.kind == "equal") {
        pc.title = c.buffer + " == " + c.expect;
        return pc;
    }
    const std::string fn = op_get(c, "fn");
    if (c.kind == "allclose") {
        if (fn != "softmax") r.fail("op.fn", "allclose supports fn: softmax, got \"" + fn + "\"");
        const uint32_t row = r.as_uint("row", 1);
        if (row == 0 || s.buffers.at(op_get(c, "input")).elements() % row)
            r.fail("op.row", "must be > 0 and divide the element count of " + op_get(c, "input"));
        pc.title =
            c.buffer + " ~ softmax(" + op_get(c, "input") + ") within " + std::to_string(c.atol);
        return pc;
    }
    if (fn == "sparse_mlp")
        prepare_sparse_mlp(c, r, s, pc);
    else if (fn == "mla_matmul" || fn == "mla_conv2d")
        prepare_mla(c, r, s, p, fn, pc);
    else
        r.fail("op.fn",
               "unknown reference \"" + fn + "\" (valid: mla_matmul, mla_conv2d, sparse_mlp)");
    return pc;
}

namespace {

// Recomputes the sparse MLP from the buffers' contents (checked by prepare_check) and compares.
CheckOutcome evaluate_sparse_mlp(const Check& c, const Layout& L) {
    auto num = [&](const std::string& k, unsigned long def) {
        const std::string v = op_get(c, k);
        return v.empty() ? def : std::stoul(v, nullptr, 0);
    };
    auto ints = [&](const std::string& name, size_t n) {
        const auto v = values_of(L.buffers.at(name));
        std::vector<int32_t> r;
        for (size_t i = 0; i < n && i < v.size(); ++i) r.push_back(static_cast<int32_t>(v[i]));
        return r;
    };
    const Placed& res = L.buffers.at(c.buffer);
    const bool argmax = op_get(c, "out") == "argmax";
    reference::SparseMlp net;
    net.sizes = {uint32_t(num("n_in", 0)), uint32_t(num("n_h1", 0)), uint32_t(num("n_h2", 0)),
                 uint32_t(num("n_out", 0))};
    net.shifts = {unsigned(num("shift1", 0)), unsigned(num("shift2", 0))};
    for (int l = 1; l <= 3; ++l) {
        const std::string n = std::to_string(l);
        const size_t nnz = num("nnz" + n, L.buffers.at(op_get(c, "rows" + n)).buf->elements());
        const auto rows = ints(op_get(c, "rows" + n), nnz), cols = ints(op_get(c, "cols" + n), nnz);
        net.layers.push_back({std::vector<uint32_t>(rows.begin(), rows.end()),
                              std::vector<uint32_t>(cols.begin(), cols.end()),
                              ints(op_get(c, "w" + n), nnz)});
    }
    const size_t n_out = net.sizes.back();
    const size_t count = num("count", argmax ? res.buf->elements() : res.buf->elements() / n_out);
    const auto input = ints(op_get(c, "input"), L.buffers.at(op_get(c, "input")).buf->elements());
    auto want = reference::sparse_mlp_ref(net, input, num("first", 0), count);
    if (argmax) want = reference::argmax_rows(want, n_out);
    const auto got = ints(c.buffer, want.size());
    const size_t per_row = argmax ? 1 : n_out;
    CheckOutcome o;
    size_t bad = 0, first_bad = 0;
    for (size_t i = 0; i < want.size(); ++i)
        if (got[i] != want[i] && !bad++) first_bad = i;
    o.passed = bad == 0;
    o.detail = o.passed ? std::to_string(want.size()) + " values bit-exact"
                        : std::to_string(bad) + " of " + std::to_string(want.size()) +
                              " values differ; first at [" + std::to_string(first_bad / per_row) +
                              "][" + std::to_string(first_bad % per_row) + "]: simulated " +
                              std::to_string(got[first_bad]) + ", reference " +
                              std::to_string(want[first_bad]);
    return o;
}

}  // namespace

CheckOutcome evaluate(const PreparedCheck& pc, const Layout& L) {
    const Check& c = *pc.check;
    const Placed& res = L.buffers.at(c.buffer);
    CheckOutcome o;
    if (c.kind == "equal") {
        const auto x = bytes_of(res), y = bytes_of(L.buffers.at(c.expect));
        auto mm = std::mismatch(x.begin(), x.end(), y.begin(), y.end());
        o.passed = mm.first == x.end() && mm.second == y.end();
        o.detail = o.passed ? std::to_string(x.size()) + " bytes equal"
                            : "first difference at byte " + std::to_string(mm.first - x.begin());
        return o;
    }
    if (c.kind == "allclose") {
        const double in_scale = std::stod(op_get(c, "in_scale", "1")),
                     out_scale = std::stod(op_get(c, "out_scale", "1"));
        auto in = values_of(L.buffers.at(op_get(c, "input")));
        for (double& v : in) v *= in_scale;
        // op.row: one softmax per row of that many values (default: the whole buffer)
        const size_t row = std::stoul(op_get(c, "row", std::to_string(in.size())), nullptr, 0);
        std::vector<double> ref;
        for (size_t r = 0; row && r + row <= in.size(); r += row) {
            const auto part =
                reference::softmax_ref(std::vector<double>(in.begin() + r, in.begin() + r + row));
            ref.insert(ref.end(), part.begin(), part.end());
        }
        auto got = values_of(res);
        double worst = 0;
        size_t at = 0;
        for (size_t i = 0; i < ref.size() && i < got.size(); ++i) {
            const double d = std::fabs(got[i] * out_scale - ref[i]);
            if (d > worst) {
                worst = d;
                at = i;
            }
        }
        o.passed = got.size() >= ref.size() && worst <= c.atol;
        std::ostringstream m;
        m << ref.size() << " values, max |error| " << std::setprecision(3) << worst << " at [" << at
          << "] (atol " << c.atol << ")";
        o.detail = m.str();
        return o;
    }
    if (op_get(c, "fn") == "sparse_mlp") return evaluate_sparse_mlp(c, L);
    const reference::MlaOp& op = pc.op;
    auto operand = [&](const std::string& name, size_t count, bool sgn) {
        auto bytes = bytes_of(L.buffers.at(name));
        bytes.resize(count * (op.in16 ? 2 : 1));
        return reference::decode_operands(bytes, sgn, op.in16);
    };
    const auto a = operand(op_get(c, "a"), op.a_count(), op.a_signed);
    const auto b = operand(op_get(c, "b"), op.b_count(), op.b_signed);
    std::vector<int32_t> bias;
    if (op.bias_en) {
        for (double v : values_of(L.buffers.at(op_get(c, "bias"))))
            bias.push_back(static_cast<int32_t>(v));
        bias.resize(op.mode == reference::MlaMode::matmul ? op.n : op.ofm_c);
    }
    std::vector<int32_t> c_old;
    if (op.accumulate) {
        auto bytes = pc.c_old;
        const size_t ob = op.out == reference::MlaOutPrec::int8    ? 1
                          : op.out == reference::MlaOutPrec::int16 ? 2
                                                                   : 4;
        bytes.resize(op.c_count() * ob);
        c_old = reference::decode_results(bytes, op.out);
    }
    const auto want = reference::mla_ref(op, a, b, bias, c_old);
    auto got_bytes = bytes_of(res);
    const size_t ob = op.out == reference::MlaOutPrec::int8    ? 1
                      : op.out == reference::MlaOutPrec::int16 ? 2
                                                               : 4;
    got_bytes.resize(want.size() * ob);
    const auto got = reference::decode_results(got_bytes, op.out);
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < want.size(); ++i) {
        if (got[i] != want[i]) {
            if (!bad) first = i;
            ++bad;
        }
    }
    o.passed = bad == 0;
    if (o.passed) {
        o.detail = std::to_string(want.size()) + " values bit-exact";
    } else {
        const uint32_t cols = op.mode == reference::MlaMode::matmul ? op.n : op.ofm_c;
        o.detail = std::to_string(bad) + " of " + std::to_string(want.size()) +
                   " values differ; first at [" + std::to_string(first / cols) + "][" +
                   std::to_string(first % cols) + "]: simulated " + std::to_string(got[first]) +
                   ", reference " + std::to_string(want[first]);
    }
    return o;
}

}  // namespace nmsim::workloads::pe
