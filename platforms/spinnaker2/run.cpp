#include "platforms/spinnaker2/run.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iomanip>
#include <iterator>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "models/common/seeding.h"
#include "models/common/sim_error.h"
#include "nmsim/hw/spinnaker2/console_regs.h"
#include "nmsim/hw/spinnaker2/pe_map.h"
#include "nmsim/trace/hdf5_writer.h"
#include "platforms/spinnaker2/energy.h"
#include "platforms/spinnaker2/run_chip.h"
#include "platforms/spinnaker2/run_common.h"
#include "tools/reference/int_ops.h"

#ifndef NMSIM_VERSION
#define NMSIM_VERSION "dev"
#endif

namespace nmsim::spinnaker2 {

using scenario::Buffer;
using scenario::Check;
using scenario::ConfigError;
using scenario::DType;
using scenario::Origin;
using scenario::Scenario;
using scenario::ScenarioError;

using namespace detail;

namespace {

constexpr uint32_t kStackReserve = 0x1000;  // link.ld's _min_stack
constexpr uint32_t kAlign = 16;             // buffer alignment (MLA and DMA friendly)

uint32_t align_up(uint64_t v, uint32_t a) { return static_cast<uint32_t>((v + a - 1) / a * a); }

// --- deterministic data ----------------------------------------------------------------------

uint64_t name_hash(const std::string& s) {
    uint64_t h = 1469598103934665603ULL;  // FNV-1a
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
    return h;
}

void encode(DType t, double v, uint8_t* out) {
    switch (t) {
        case DType::i8: { const auto x = static_cast<int8_t>(v); std::memcpy(out, &x, 1); break; }
        case DType::u8: { const auto x = static_cast<uint8_t>(v); std::memcpy(out, &x, 1); break; }
        case DType::i16: { const auto x = static_cast<int16_t>(v); std::memcpy(out, &x, 2); break; }
        case DType::u16: { const auto x = static_cast<uint16_t>(v); std::memcpy(out, &x, 2); break; }
        case DType::i32: { const auto x = static_cast<int32_t>(v); std::memcpy(out, &x, 4); break; }
        case DType::u32: { const auto x = static_cast<uint32_t>(v); std::memcpy(out, &x, 4); break; }
        case DType::f32: { const auto x = static_cast<float>(v); std::memcpy(out, &x, 4); break; }
    }
}

double decode(DType t, const uint8_t* in) {
    switch (t) {
        case DType::i8: { int8_t x; std::memcpy(&x, in, 1); return x; }
        case DType::u8: { uint8_t x; std::memcpy(&x, in, 1); return x; }
        case DType::i16: { int16_t x; std::memcpy(&x, in, 2); return x; }
        case DType::u16: { uint16_t x; std::memcpy(&x, in, 2); return x; }
        case DType::i32: { int32_t x; std::memcpy(&x, in, 4); return x; }
        case DType::u32: { uint32_t x; std::memcpy(&x, in, 4); return x; }
        case DType::f32: { float x; std::memcpy(&x, in, 4); return x; }
    }
    return 0;
}

void fill(const Buffer& b, uint64_t seed, uint8_t* out) {
    const size_t es = scenario::dtype_size(b.dtype);
    const uint64_t n = b.elements();
    switch (b.init.kind) {
        case scenario::BufferInit::Kind::zeros:
            std::memset(out, 0, b.bytes());
            break;
        case scenario::BufferInit::Kind::values:
            for (uint64_t i = 0; i < n; ++i) encode(b.dtype, b.init.values[i], out + i * es);
            break;
        case scenario::BufferInit::Kind::file: {
            std::ifstream f(b.init.file, std::ios::binary);
            std::vector<char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
            if (!f.good() && !f.eof()) throw std::runtime_error(b.init.file + ": cannot read");
            if (bytes.size() != b.bytes())
                throw std::runtime_error(b.init.file + ": " + std::to_string(bytes.size()) +
                                         " bytes, buffer " + b.name + " needs " + std::to_string(b.bytes()));
            std::memcpy(out, bytes.data(), bytes.size());
            break;
        }
        case scenario::BufferInit::Kind::random: {
            // Our own generator (splitmix64) so that data are identical on every platform and
            // library version; one stream per buffer name.
            uint64_t s = seed ^ name_hash(b.name);
            for (uint64_t i = 0; i < n; ++i) {
                const uint64_t r = splitmix64_next(s);
                double v;
                if (b.dtype == DType::f32) {
                    v = b.init.lo + (b.init.hi - b.init.lo) * static_cast<double>(r >> 11) * 0x1.0p-53;
                } else {
                    const auto span = static_cast<uint64_t>(b.init.hi - b.init.lo) + 1;
                    v = b.init.lo + static_cast<double>(r % span);
                }
                encode(b.dtype, v, out + i * es);
            }
            break;
        }
    }
}

// --- placement -----------------------------------------------------------------------------

struct Placed {
    const Buffer* buf = nullptr;
    uint32_t addr = 0;  // core address
    uint8_t* host = nullptr;
};

struct Layout {
    std::map<std::string, Placed> buffers;
};

Layout place_buffers(const Scenario& s, const PePlatformParams& p,
                     const std::vector<std::unique_ptr<arm::ElfImage>>& images) {
    Layout L;
    std::vector<ConfigError> errors;
    std::vector<uint32_t> next(p.pe_count), image_end(p.pe_count, 0);
    for (size_t i = 0; i < p.pe_count; ++i) {
        if (images[i]) {
            uint32_t end = 0;
            image_end[i] = images[i]->find_symbol("_end", end) ? end : images[i]->end_of_image();
        }
        next[i] = align_up(image_end[i], kAlign);
    }
    uint64_t ext_next = S2_EXT_BASE;
    struct Range {
        uint64_t lo, hi;
        std::string what;
    };
    std::map<std::string, std::vector<Range>> used;  // per memory
    for (const auto& name : s.buffer_order) {
        const Buffer& b = s.buffers.at(name);
        const uint64_t bytes = b.bytes();
        uint64_t addr = 0;
        std::string mem;
        auto fail = [&](const std::string& msg) { errors.push_back(ConfigError{b.origin, "workload.buffers." + name, msg}); };
        if (b.at.kind == scenario::Placement::Kind::sram) {
            const uint32_t pe = b.at.pe;
            mem = "pe" + std::to_string(pe) + ".sram";
            if (pe >= p.pe_count) {
                fail("placed in pe" + std::to_string(pe) + " but the platform has pe_count=" + std::to_string(p.pe_count));
                continue;
            }
            const uint64_t low_limit = S2_ARGS_BASE - kStackReserve;
            const uint64_t sram = p.pe.sram_size.n;
            if (b.at.address) {
                addr = *b.at.address;
                const bool in_low = addr >= image_end[pe] && addr + bytes <= low_limit;
                const bool in_high = addr >= S2_ARGS_BASE + 4 * S2_ARGS_WORDS && addr + bytes <= sram;
                if (!in_low && !in_high) {
                    fail("address " + hex32(addr) + " (" + std::to_string(bytes) + " B) overlaps the firmware image (ends " +
                         hex32(image_end[pe]) + "), the stack and argument block [" + hex32(low_limit) + ", " +
                         hex32(S2_ARGS_BASE + 4 * S2_ARGS_WORDS) + ") or the end of SRAM (" + hex32(sram) + ")");
                    continue;
                }
            } else {
                addr = next[pe];
                if (addr + bytes > low_limit) {
                    // Larger-than-default SRAM: the space above the argument block.
                    uint64_t hi = std::max<uint64_t>(align_up(S2_ARGS_BASE + 4 * S2_ARGS_WORDS, kAlign), 0);
                    for (const auto& r : used[mem]) if (r.lo >= S2_ARGS_BASE) hi = std::max(hi, static_cast<uint64_t>(align_up(r.hi, kAlign)));
                    if (hi + bytes <= sram) {
                        addr = hi;
                    } else {
                        fail("does not fit pe" + std::to_string(pe) + " SRAM: needs " + std::to_string(bytes) + " B, " +
                             std::to_string(low_limit > addr ? low_limit - addr : 0) + " B free between " + hex32(addr) +
                             " and the stack reserve at " + hex32(low_limit) + " (pe.sram_size=" +
                             format_bytes(p.pe.sram_size) + ")");
                        continue;
                    }
                } else {
                    next[pe] = align_up(addr + bytes, kAlign);
                }
            }
        } else {
            mem = "ext";
            const uint64_t limit = S2_EXT_BASE + p.ext.size.n;
            addr = b.at.address ? *b.at.address : ext_next;
            if (addr < S2_EXT_BASE || addr + bytes > limit) {
                fail("does not fit the external memory [" + hex32(S2_EXT_BASE) + ", " + hex32(limit) + ") at " + hex32(addr) +
                     " (" + std::to_string(bytes) + " B; ext.size=" + format_bytes(p.ext.size) + ")");
                continue;
            }
            if (!b.at.address) ext_next = align_up(addr + bytes, kAlign);
        }
        for (const auto& r : used[mem]) {
            if (addr < r.hi && r.lo < addr + bytes) {
                fail("overlaps buffer " + r.what + " in " + mem + " at " + hex32(addr));
                break;
            }
        }
        used[mem].push_back(Range{addr, addr + bytes, name});
        L.buffers[name] = Placed{&b, static_cast<uint32_t>(addr), nullptr};
    }
    if (!errors.empty()) throw ScenarioError(errors);
    return L;
}

// --- checks --------------------------------------------------------------------------------

struct PreparedCheck {
    const Check* check;
    std::string title;
    reference::MlaOp op;  // kind reference
    std::vector<uint8_t> c_old;  // accumulate: result buffer before the run
};

std::string op_get(const Check& c, const std::string& key, const std::string& def = "") {
    auto it = c.op.find(key);
    return it == c.op.end() ? def : it->second;
}

PreparedCheck prepare_check(const Check& c, size_t index, const Scenario& s, const PePlatformParams& p) {
    PreparedCheck pc{&c, "", {}, {}};
    const std::string key = "checks." + std::to_string(index);
    auto fail = [&](const std::string& k, const std::string& msg) -> PreparedCheck {
        throw ScenarioError({ConfigError{c.origin, key + (k.empty() ? "" : "." + k), msg}});
    };
    auto as_uint = [&](const std::string& k, uint32_t def) {
        const std::string v = op_get(c, k);
        if (v.empty()) return def;
        char* end = nullptr;
        const unsigned long x = std::strtoul(v.c_str(), &end, 0);
        if (*end || x > 0xFFFFFFFFul) fail("op." + k, "expected an unsigned integer, got \"" + v + "\"");
        return static_cast<uint32_t>(x);
    };
    auto as_bool = [&](const std::string& k, bool def) {
        const std::string v = op_get(c, k);
        if (v.empty()) return def;
        if (v == "true" || v == "yes" || v == "on" || v == "1") return true;
        if (v == "false" || v == "no" || v == "off" || v == "0") return false;
        fail("op." + k, "expected true or false, got \"" + v + "\"");
        return def;
    };
    if (c.kind == "equal") {
        pc.title = c.buffer + " == " + c.expect;
        return pc;
    }
    const std::string fn = op_get(c, "fn");
    if (c.kind == "allclose") {
        if (fn != "softmax") fail("op.fn", "allclose supports fn: softmax, got \"" + fn + "\"");
        const uint32_t row = as_uint("row", 1);
        if (row == 0 || s.buffers.at(op_get(c, "input")).elements() % row)
            fail("op.row", "must be > 0 and divide the element count of " + op_get(c, "input"));
        pc.title = c.buffer + " ~ softmax(" + op_get(c, "input") + ") within " + std::to_string(c.atol);
        return pc;
    }
    // kind == reference
    if (fn == "sparse_mlp") {
        // seed 003's sparse MLP (firmware/programs/sparse_mlp); evaluate_sparse_mlp runs it.
        auto buffer = [&](const std::string& k,
                          std::initializer_list<DType> types) -> const Buffer& {
            const auto it = s.buffers.find(op_get(c, k));
            if (it == s.buffers.end()) fail("op." + k, "unknown buffer \"" + op_get(c, k) + "\"");
            if (std::find(types.begin(), types.end(), it->second.dtype) == types.end())
                fail("op." + k, "buffer " + it->first + " has the wrong dtype " +
                                    scenario::dtype_name(it->second.dtype));
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
        const uint64_t count = as_uint(
            "count", static_cast<uint32_t>(argmax ? out.elements() : out.elements() / n_out));
        if (in.elements() < (uint64_t(as_uint("first", 0)) + count) * n_in ||
            out.elements() < count * (argmax ? 1 : n_out))
            fail("op", "input " + in.name + " or result " + out.name +
                           " too small for first + count inputs");
        for (int l = 1; l <= 3; ++l) {
            const std::string n = std::to_string(l);
            const uint64_t nnz = as_uint(
                "nnz" + n, static_cast<uint32_t>(buffer("rows" + n, {DType::u16}).elements()));
            if (buffer("rows" + n, {DType::u16}).elements() < nnz ||
                buffer("cols" + n, {DType::u16}).elements() < nnz ||
                buffer("w" + n, {DType::i16}).elements() < nnz)
                fail("op.nnz" + n, "rows" + n + ", cols" + n + " and w" + n + " need " +
                                       std::to_string(nnz) + " elements");
        }
        pc.title = c.buffer + " = sparse_mlp(" + in.name + ")" + (argmax ? " argmax" : "");
        return pc;
    }
    if (fn != "mla_matmul" && fn != "mla_conv2d")
        fail("op.fn",
             "unknown reference \"" + fn + "\" (valid: mla_matmul, mla_conv2d, sparse_mlp)");
    reference::MlaOp& op = pc.op;
    op.mode = fn == "mla_matmul" ? reference::MlaMode::matmul : reference::MlaMode::conv2d;
    const Buffer& a = s.buffers.at(op_get(c, "a"));
    const Buffer& b = s.buffers.at(op_get(c, "b"));
    const Buffer& out = s.buffers.at(c.buffer);
    auto is_signed = [](DType t) { return t == DType::i8 || t == DType::i16 || t == DType::i32; };
    op.a_signed = as_bool("a_signed", is_signed(a.dtype));
    op.b_signed = as_bool("b_signed", is_signed(b.dtype));
    op.in16 = scenario::dtype_size(a.dtype) == 2;
    if (scenario::dtype_size(a.dtype) != scenario::dtype_size(b.dtype) || scenario::dtype_size(a.dtype) > 2)
        fail("op", "operands a and b must both be 8-bit or both 16-bit");
    const std::string outp = op_get(c, "out", "int8");
    if (outp == "int8") op.out = reference::MlaOutPrec::int8;
    else if (outp == "int16") op.out = reference::MlaOutPrec::int16;
    else if (outp == "int32") op.out = reference::MlaOutPrec::int32;
    else fail("op.out", "expected int8, int16 or int32, got \"" + outp + "\"");
    if (scenario::dtype_size(out.dtype) != (op.out == reference::MlaOutPrec::int8 ? 1u : op.out == reference::MlaOutPrec::int16 ? 2u : 4u))
        fail("buffer", "result buffer " + c.buffer + " is " + scenario::dtype_name(out.dtype) + " but op.out is " + outp);
    op.shift = as_uint("shift", 0);
    op.relu = as_bool("relu", false);
    op.bias_en = !op_get(c, "bias").empty();
    op.accumulate = as_bool("accumulate", false);
    op.acc_bits = as_uint("acc_bits", p.pe.mla.acc_bits);
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
    if (op.mode == reference::MlaMode::conv2d && (op.stride == 0 || op.ifm_h + 2 * op.pad < op.ker_h || op.ifm_w + 2 * op.pad < op.ker_w))
        fail("op", "convolution shape: kernel larger than the padded input or stride 0");
    auto need = [&](const Buffer& buf, size_t count, const char* what) {
        if (buf.elements() < count)
            fail("op", std::string(what) + " buffer " + buf.name + " has " + std::to_string(buf.elements()) +
                           " elements, the op needs " + std::to_string(count));
    };
    need(a, op.a_count(), "a");
    need(b, op.b_count(), "b");
    need(out, op.c_count(), "result");
    if (op.bias_en) {
        const Buffer& bias = s.buffers.at(op_get(c, "bias"));
        if (bias.dtype != DType::i32) fail("op.bias", "bias buffer " + bias.name + " must be int32");
        need(bias, op.mode == reference::MlaMode::matmul ? op.n : op.ofm_c, "bias");
    }
    pc.title = c.buffer + " = " + fn + "(" + a.name + ", " + b.name + (op.bias_en ? ", " + op_get(c, "bias") : "") + ")";
    return pc;
}

struct CheckOutcome {
    bool passed = false;
    std::string detail;
};

std::vector<uint8_t> bytes_of(const Placed& pl) {
    return std::vector<uint8_t>(pl.host, pl.host + pl.buf->bytes());
}

std::vector<double> values_of(const Placed& pl) {
    const size_t es = scenario::dtype_size(pl.buf->dtype);
    std::vector<double> v(pl.buf->elements());
    for (size_t i = 0; i < v.size(); ++i) v[i] = decode(pl.buf->dtype, pl.host + i * es);
    return v;
}

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
        const double in_scale = std::stod(op_get(c, "in_scale", "1")), out_scale = std::stod(op_get(c, "out_scale", "1"));
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
            if (d > worst) { worst = d; at = i; }
        }
        o.passed = got.size() >= ref.size() && worst <= c.atol;
        std::ostringstream m;
        m << ref.size() << " values, max |error| " << std::setprecision(3) << worst << " at [" << at << "] (atol " << c.atol << ")";
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
        for (double v : values_of(L.buffers.at(op_get(c, "bias")))) bias.push_back(static_cast<int32_t>(v));
        bias.resize(op.mode == reference::MlaMode::matmul ? op.n : op.ofm_c);
    }
    std::vector<int32_t> c_old;
    if (op.accumulate) {
        auto bytes = pc.c_old;
        const size_t ob = op.out == reference::MlaOutPrec::int8 ? 1 : op.out == reference::MlaOutPrec::int16 ? 2 : 4;
        bytes.resize(op.c_count() * ob);
        c_old = reference::decode_results(bytes, op.out);
    }
    const auto want = reference::mla_ref(op, a, b, bias, c_old);
    auto got_bytes = bytes_of(res);
    const size_t ob = op.out == reference::MlaOutPrec::int8 ? 1 : op.out == reference::MlaOutPrec::int16 ? 2 : 4;
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
        o.detail = std::to_string(bad) + " of " + std::to_string(want.size()) + " values differ; first at [" +
                   std::to_string(first / cols) + "][" + std::to_string(first % cols) + "]: simulated " +
                   std::to_string(got[first]) + ", reference " + std::to_string(want[first]);
    }
    return o;
}

}  // namespace

PePlatformParams resolve_params(const Scenario& s, std::vector<ParamValue>* rows) {
    return detail::resolve_paramset<PePlatformParams>(
        s,
        [](const PePlatformParams& p, const detail::OriginOf& origin_of, std::vector<ConfigError>& errors) {
            if (p.pe.sram_size.n % 4096 != 0)
                errors.push_back(ConfigError{origin_of("pe.sram_size"), "pe.sram_size", "must be a multiple of 4 KiB"});
            if (p.ext.size.n % 4096 != 0)
                errors.push_back(ConfigError{origin_of("ext.size"), "ext.size", "must be a multiple of 4 KiB"});
        },
        rows);
}

RunResult run_scenario(const Scenario& s, const RunOptions& o, std::ostream& out, std::ostream& err) {
    const auto wall0 = std::chrono::steady_clock::now();
    if (s.platform_kind == "spinnaker2_chip") return run_chip_scenario(s, o, out, err);
    if (s.platform_kind != "spinnaker2_pe")
        throw std::runtime_error(s.path + ": platform kind \"" + s.platform_kind + "\" is not available in this build");
    std::vector<ParamValue> rows;
    const PePlatformParams p = resolve_params(s, &rows);

    // Everything that can be checked before simulating is checked here.
    std::vector<std::unique_ptr<arm::ElfImage>> images(p.pe_count);
    std::vector<ConfigError> errors;
    std::vector<size_t> pes;
    for (size_t i = 0; i < s.cores.size(); ++i) {
        const auto& c = s.cores[i];
        if (c.pe >= p.pe_count) {
            errors.push_back(ConfigError{c.origin, "workload.cores." + std::to_string(i) + ".pe",
                                         "pe" + std::to_string(c.pe) + " does not exist: the platform has pe_count=" +
                                             std::to_string(p.pe_count)});
            continue;
        }
        try {
            images[c.pe] = std::make_unique<arm::ElfImage>(arm::ElfImage::load(c.firmware_path));
            for (const auto& seg : images[c.pe]->segments())
                if (uint64_t(seg.addr) + seg.memsz > p.pe.sram_size.n)
                    throw std::runtime_error(c.firmware_path + ": segment at " + hex32(seg.addr) + " (" +
                                             std::to_string(seg.memsz) + " B) does not fit pe.sram_size=" +
                                             format_bytes(p.pe.sram_size));
        } catch (const std::exception& e) {
            errors.push_back(ConfigError{c.origin, "workload.cores." + std::to_string(i) + ".firmware", e.what()});
        }
        pes.push_back(c.pe);
    }
    if (!errors.empty()) throw ScenarioError(errors);
    Layout L = place_buffers(s, p, images);
    std::vector<PreparedCheck> checks;
    for (size_t i = 0; i < s.checks.size(); ++i) checks.push_back(prepare_check(s.checks[i], i, s, p));

    RunResult r;
    if (o.elaborate_only) {
        out << "elaborated " << s.name << ": platform " << s.platform_kind << ", " << p.pe_count << " PE"
            << (p.pe_count > 1 ? "s" : "") << " at " << format_frequency(p.pe.clock()) << ", " << s.cores.size()
            << " firmware image" << (s.cores.size() == 1 ? "" : "s") << ", " << checks.size() << " check"
            << (checks.size() == 1 ? "" : "s") << "\n";
        for (const auto& c : s.cores)
            out << "  pe" << c.pe << " firmware " << c.firmware_path << " (image ends "
                << hex32(images[c.pe]->end_of_image()) << ", " << c.args.size() << " argument words)\n";
        for (const auto& name : s.buffer_order) {
            const Placed& pl = L.buffers.at(name);
            out << "  buffer " << name << " " << scenario::dtype_name(pl.buf->dtype) << "[" << pl.buf->elements()
                << "] at " << hex32(pl.addr) << " (" << pl.buf->bytes() << " B, "
                << (pl.buf->at.kind == scenario::Placement::Kind::sram ? "pe" + std::to_string(pl.buf->at.pe) + ".sram" : std::string("ext"))
                << ")\n";
        }
        r.ok = true;
        return r;
    }
    r.trace_path = trace_path(s, o);
    const auto writer_owner = open_trace(s, o, rows, r.trace_path);
    trace::Hdf5Writer& writer = *writer_owner;

    PePlatform plat("s2", p, s.seed, &writer, s.trace.console_stdout && !o.quiet);
    for (size_t pe : pes) plat.pe(pe).load(*images[pe]);
    for (auto& [name, pl] : L.buffers) {
        pl.host = pl.buf->at.kind == scenario::Placement::Kind::sram
                      ? plat.pe(pl.buf->at.pe).sram.data() + pl.addr
                      : plat.ext().data() + (pl.addr - S2_EXT_BASE);
        fill(*pl.buf, s.seed, pl.host);
    }
    for (auto& pc : checks)
        if (pc.op.accumulate) pc.c_old = bytes_of(L.buffers.at(pc.check->buffer));
    for (const auto& c : s.cores) {
        std::vector<uint32_t> words;
        for (const auto& a : c.args) words.push_back(a.value ? *a.value : L.buffers.at(a.buffer).addr);
        plat.pe(c.pe).set_args(words);
    }

    // Energy: one phase "run"; firmware may split it with s2_mark(n) (phase "mark<n>").
    energy::Meter meter;
    add_platform_energy(meter, plat);
    meter.attach(writer);
    for (size_t i = 0; i < plat.pe_count(); ++i)
        plat.pe(i).console.on_mark = [&meter](uint32_t v, uint64_t t) {
            meter.mark(v == S2_CONSOLE_MARK_IDLE ? "run" : "mark" + std::to_string(v), t);
        };
    meter.start("run", 0);

    writer.start();
    plat.start(pes);
    const sc_core::sc_time max_time(static_cast<double>(p.sim.max_time.ps), sc_core::SC_PS);
    sc_core::sc_start(max_time);
    r.sim_time_us = sc_core::sc_time_stamp().to_seconds() * 1e6;
    finish_energy(meter, writer, sc_core::sc_time_stamp().value());

    // Outcome of the simulation itself.
    std::string problem;
    if (sim_error().set) {
        problem = sim_error().formatted();
    } else {
        for (size_t pe : pes) {
            problem = core_problem(plat.pe(pe), p.sim.max_time);
            if (!problem.empty()) break;
        }
    }
    r.sim_error = !problem.empty();

    std::vector<CheckOutcome> outcomes;
    if (!r.sim_error) {
        for (const auto& pc : checks) {
            outcomes.push_back(evaluate(pc, L));
            if (!outcomes.back().passed) {
                r.checks_failed = true;
                if (problem.empty()) problem = "check failed: " + pc.title + ": " + outcomes.back().detail;
            }
        }
    }
    r.ok = problem.empty();
    r.message = problem;
    plat.write_summaries();
    r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    {
        size_t passed = 0;
        for (const auto& oc : outcomes) passed += oc.passed;
        write_metric(writer, "checks_passed", "1", static_cast<double>(passed));
        write_metric(writer, "checks_failed", "1", static_cast<double>(outcomes.size() - passed));
    }
    write_run_metrics(writer, r);
    writer.finish(r.ok ? "ok" : "error", problem, static_cast<uint64_t>(sc_core::sc_time_stamp().value()),
                  r.wall_seconds);

    if (!problem.empty()) err << "nmsim: error: " << problem << "\n";
    if (o.quiet) return r;
    // Report.
    const double sim_s = r.sim_time_us * 1e-6;
    out << "nmsim " << NMSIM_VERSION << "  scenario " << s.name << "  platform " << s.platform_kind << "  seed "
        << s.seed << "\n";
    out << "  simulated time   " << fmt(r.sim_time_us, 3) << " us\n";
    for (size_t pe : pes) {
        Pe& x = plat.pe(pe);
        const double f = p.pe.clock().hz;
        out << "  " << x.name() << " core      " << (x.exited ? "exit " + std::to_string(x.exit_code) : "did not exit")
            << "  " << grouped(x.core.instructions()) << " instructions  " << grouped(x.core.active_cycles())
            << " cycles @ " << format_frequency(p.pe.clock()) << "  CPI "
            << fmt(x.core.instructions() ? double(x.core.active_cycles()) / double(x.core.instructions()) : 0, 2)
            << "  asleep " << fmt(x.core.sleep_time().to_seconds() * 1e6, 3) << " us\n";
        if (x.mla.total_ops()) {
            const double peak = double(p.pe.mla.n_rows) * p.pe.mla.n_cols;
            const double busy_util = double(x.mla.total_macs()) / (double(x.mla.busy_cycles()) * peak);
            const double run_cycles = sim_s * f;
            out << "  " << x.name() << " mla       " << x.mla.total_ops() << " op" << (x.mla.total_ops() > 1 ? "s" : "")
                << "  " << grouped(x.mla.total_macs()) << " MACs  busy " << grouped(x.mla.busy_cycles()) << " cycles ("
                << fmt(x.mla.busy_time().to_seconds() * 1e6, 3) << " us)  utilisation " << fmt(100 * busy_util, 1)
                << " % while busy, " << fmt(100 * double(x.mla.total_macs()) / (run_cycles * peak), 2)
                << " % of the run (peak " << peak << " MAC/cycle)\n";
        }
        if (x.dma.transfers())
            out << "  " << x.name() << " dma       " << x.dma.transfers() << " transfers  " << grouped(x.dma.bytes_moved())
                << " B  busy " << fmt(double(x.dma.busy_ps()) * 1e-6, 3) << " us\n";
    }
    energy::print_breakdown(meter, out);
    for (size_t i = 0; i < outcomes.size(); ++i)
        out << "  check            " << (outcomes[i].passed ? "PASS " : "FAIL ") << checks[i].title << ": "
            << outcomes[i].detail << "\n";
    if (r.sim_error) out << "  checks           not run (the simulation failed)\n";
    out << "  trace            " << r.trace_path << "\n";
    out << "  wall time        " << fmt(r.wall_seconds, 3) << " s";
    if (sim_s > 0) out << "  (" << fmt(r.wall_seconds / sim_s, 0) << "x slower than real time)";
    out << "\n";
    out << "  result           " << (r.ok ? "OK" : "FAILED") << "\n";
    return r;
}

}  // namespace nmsim::spinnaker2
