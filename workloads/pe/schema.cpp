// Schema of the `pe` workload: validation of workload.pe (buffers, cores, checks), its dump and
// comparison. Every problem is recorded with its file:line:col and key (tools/scenario/reader.h).
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <limits>

#include "models/common/hex.h"
#include "nmsim/hw/spinnaker2/pe_map.h"
#include "tools/scenario/text.h"
#include "workloads/pe/spec.h"

namespace nmsim::workloads::pe {

using namespace scenario;
namespace fs = std::filesystem;

namespace {

struct DTypeInfo {
    DType type;
    const char* name;
    size_t size;
    bool is_float;
    int64_t lo;  // integer range (unused for float32)
    uint64_t hi;
};

constexpr DTypeInfo kDTypes[] = {
    {DType::i8, "int8", 1, false, -128, 127},
    {DType::u8, "uint8", 1, false, 0, 255},
    {DType::i16, "int16", 2, false, -32768, 32767},
    {DType::u16, "uint16", 2, false, 0, 65535},
    {DType::i32, "int32", 4, false, std::numeric_limits<int32_t>::min(),
     static_cast<uint64_t>(std::numeric_limits<int32_t>::max())},
    {DType::u32, "uint32", 4, false, 0, std::numeric_limits<uint32_t>::max()},
    {DType::f32, "float32", 4, true, 0, 0},
};

const DTypeInfo& info(DType t) {
    for (const auto& d : kDTypes)
        if (d.type == t) return d;
    return kDTypes[0];
}

const char* const kCheckKinds[] = {"reference", "equal", "allclose"};
// Reference-op keys whose value names a buffer (other op keys are opaque to the loader).
const char* const kOpBufferKeys[] = {"a", "b", "bias", "input", "c", "out_buffer"};
constexpr uint32_t kMaxPe = 1024;
constexpr size_t kMaxElementErrors = 8;  // per list, so one bad paste does not flood the output

// Text of a value stored as double in a buffer of type t (integers print without exponent).
std::string format_element(double v, DType t) {
    if (info(t).is_float) return format_real(v);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
}

class PeLoader {
public:
    PeLoader(Reader& r, const std::string& key) : m_r(r), m_key(key) {}

    std::unique_ptr<WorkloadSpec> load(const YNode& n);

private:
    void load_buffers(const YNode* n);
    void load_buffer(const YNode& key_node, const YNode& n);
    void load_init(const YNode* n, const std::string& key, Buffer& b, bool typed);
    std::optional<double> get_element(const YNode& n, const std::string& key, DType t);
    void load_cores(const YNode* n, const YNode& parent, const Fields& f);
    void load_core(const YNode& n, const std::string& key, std::map<uint32_t, std::string>& pes);
    void load_checks(const YNode* n);
    void load_check(const YNode& n, const std::string& key);
    bool check_buffer_ref(const YNode& n, const std::string& key, const std::string& name);

    Reader& m_r;
    std::string m_key;                    // "workload.pe"
    std::vector<std::string> m_declared;  // every buffer key, valid or not (avoids cascades)
    PeWorkload m_w;
};

std::unique_ptr<WorkloadSpec> PeLoader::load(const YNode& n) {
    const size_t before = m_r.error_count();
    Fields f = m_r.read_map(&n, m_key, schema().children(""));
    if (!f.ok) return nullptr;
    load_buffers(f.get("buffers"));
    load_cores(f.get("cores"), n, f);
    load_checks(f.get("checks"));
    if (m_r.error_count() != before) return nullptr;
    return std::make_unique<PeWorkload>(std::move(m_w));
}

void PeLoader::load_buffers(const YNode* n) {
    auto entries = m_r.read_entries(n, m_key + ".buffers", true);
    for (const auto& e : entries) m_declared.push_back(e.key->text);
    for (const auto& e : entries) load_buffer(*e.key, *e.value);
}

void PeLoader::load_buffer(const YNode& key_node, const YNode& n) {
    const std::string& name = key_node.text;
    std::string key = m_key + ".buffers." + name;
    Buffer b;
    b.name = name;
    b.origin = key_node.origin;
    bool ok = true;
    if (!is_identifier(name)) {
        m_r.error(key_node.origin, key,
                  "buffer names must be identifiers ([A-Za-z_][A-Za-z0-9_]*), got " + quote(name));
        ok = false;
    }
    Fields f = m_r.read_map(&n, key, schema().children("buffers.<name>"));
    if (!f.ok) return;

    bool dtype_ok = false;
    if (const YNode* d = f.get("dtype")) {
        if (auto s = m_r.get_choice(d, key + ".dtype", dtype_names())) {
            b.dtype = *parse_dtype(*s);
            dtype_ok = true;
        }
    } else {
        m_r.missing(&f, "dtype", n, key + ".dtype");
    }

    bool shape_ok = false;
    if (const YNode* s = f.get("shape")) {
        std::string sk = key + ".shape";
        if (s->kind != YNode::Kind::seq || s->items.empty()) {
            m_r.error(s->origin, sk,
                      "expected a non-empty list of positive integers, got " +
                          (s->kind == YNode::Kind::seq ? "an empty list" : describe(*s)));
        } else {
            shape_ok = true;
            for (size_t i = 0; i < s->items.size(); ++i) {
                const YNode& d = s->items[i];
                IntLit v = d.kind == YNode::Kind::scalar ? parse_int(d.text) : IntLit{};
                if (!in_range(v, 1, std::numeric_limits<uint32_t>::max())) {
                    m_r.error(d.origin, sk + "." + std::to_string(i),
                              "expected a positive integer dimension, got " + describe(d));
                    shape_ok = false;
                } else {
                    b.shape.push_back(v.mag);
                }
            }
            // Buffers live in a 32-bit address space.
            if (shape_ok) {
                long double bytes = static_cast<long double>(dtype_size(b.dtype));
                for (uint64_t d : b.shape) bytes *= static_cast<long double>(d);
                if (bytes > static_cast<long double>(std::numeric_limits<uint32_t>::max())) {
                    m_r.error(s->origin, sk,
                              "buffer of " + shape_str(b.shape) + " " + dtype_name(b.dtype) +
                                  " does not fit in the 32-bit address space");
                    shape_ok = false;
                }
            }
        }
    } else {
        m_r.missing(&f, "shape", n, key + ".shape");
    }

    if (const YNode* a = f.get("at")) {
        if (auto s = m_r.get_string(a, key + ".at")) {
            const std::string& t = *s;
            if (t == "ext") {
                b.at.kind = Placement::Kind::ext;
            } else if (t.size() > 7 && t.compare(0, 2, "pe") == 0 &&
                       t.compare(t.size() - 5, 5, ".sram") == 0 &&
                       all_digits(t.substr(2, t.size() - 7))) {
                IntLit v = parse_int(t.substr(2, t.size() - 7));
                if (!in_range(v, 0, kMaxPe - 1)) {
                    m_r.error(a->origin, key + ".at",
                              "pe index " + t.substr(2, t.size() - 7) + " out of range [0, " +
                                  std::to_string(kMaxPe - 1) + "]");
                    ok = false;
                } else {
                    b.at.kind = Placement::Kind::sram;
                    b.at.pe = static_cast<uint32_t>(v.mag);
                }
            } else {
                m_r.error(a->origin, key + ".at",
                          "expected pe<N>.sram or ext, got " + quote(t) +
                              did_you_mean(t, {"ext", "pe0.sram"}));
                ok = false;
            }
        } else {
            ok = false;
        }
    }

    if (const YNode* a = f.get("address")) {
        std::string ak = key + ".address";
        if (auto v =
                m_r.get_uint(a, ak, std::numeric_limits<uint32_t>::max(), "a 32-bit address")) {
            uint32_t addr = static_cast<uint32_t>(*v);
            b.at.address = addr;
            const std::string hx = nmsim::hex(addr, 8);
            if (dtype_ok && addr % dtype_size(b.dtype) != 0) {
                m_r.error(a->origin, ak,
                          "address " + hx + " is not aligned to the " +
                              std::to_string(dtype_size(b.dtype)) + "-byte " + dtype_name(b.dtype) +
                              " elements");
            }
            if (b.at.kind == Placement::Kind::ext && addr < S2_EXT_BASE) {
                m_r.error(a->origin, ak,
                          "address " + hx + " is below the external-memory window at " +
                              nmsim::hex(S2_EXT_BASE, 8));
            }
            if (shape_ok && dtype_ok &&
                static_cast<uint64_t>(addr) + b.bytes() > (uint64_t{1} << 32)) {
                m_r.error(a->origin, ak,
                          "buffer at " + hx + " with " + std::to_string(b.bytes()) +
                              " bytes runs past the end of the 32-bit address space");
            }
        } else {
            ok = false;
        }
    }

    load_init(f.get("init"), key + ".init", b, shape_ok && dtype_ok);
    if (ok && shape_ok && dtype_ok) {
        m_w.buffers[name] = b;
        m_w.buffer_order.push_back(name);
    }
}

std::optional<double> PeLoader::get_element(const YNode& n, const std::string& key, DType t) {
    const DTypeInfo& d = info(t);
    if (n.kind != YNode::Kind::scalar) {
        m_r.error(n.origin, key,
                  std::string("expected a ") + d.name + " value, got " + describe(n));
        return std::nullopt;
    }
    if (d.is_float) {
        auto v = parse_real(n.text);
        if (!v) {
            m_r.error(n.origin, key, "expected a finite real number, got " + describe(n));
            return std::nullopt;
        }
        if (std::fabs(*v) > FLT_MAX) {
            m_r.error(n.origin, key, "value " + n.text + " out of range for float32");
            return std::nullopt;
        }
        return v;
    }
    IntLit v = parse_int(n.text);
    if (v.status == IntLit::Status::malformed) {
        m_r.error(n.origin, key,
                  std::string("expected an integer (") + d.name + "), got " + describe(n));
        return std::nullopt;
    }
    if (!in_range(v, d.lo, d.hi)) {
        m_r.error(n.origin, key,
                  "value " + n.text + " out of range for " + d.name + " [" + std::to_string(d.lo) +
                      ", " + std::to_string(d.hi) + "]");
        return std::nullopt;
    }
    return v.as_double();
}

void PeLoader::load_init(const YNode* n, const std::string& key, Buffer& b, bool typed) {
    if (!n) return;
    if (n->kind == YNode::Kind::scalar && n->text == "zeros") return;
    if (n->kind != YNode::Kind::map) {
        m_r.error(n->origin, key,
                  "expected zeros or a map with one of random, values, file; got " + describe(*n));
        return;
    }
    Fields f = m_r.read_map(n, key, {"random", "values", "file"});
    if (!f.ok) return;
    if (f.by_name.size() != 1) {
        if (f.by_name.size() > 1 || n->keys.empty())
            m_r.error(n->origin, key, "expected exactly one of random, values, file");
        return;
    }
    if (const YNode* r = f.get("random")) {
        b.init.kind = BufferInit::Kind::random;
        std::string rk = key + ".random";
        if (r->kind != YNode::Kind::seq || r->items.size() != 2) {
            m_r.error(r->origin, rk,
                      "expected [lo, hi], got " + describe(*r) +
                          (r->kind == YNode::Kind::seq
                               ? " of " + std::to_string(r->items.size()) + " items"
                               : ""));
            return;
        }
        if (!typed) return;  // the range check needs the dtype
        auto lo = get_element(r->items[0], rk + ".0", b.dtype);
        auto hi = get_element(r->items[1], rk + ".1", b.dtype);
        if (lo && hi) {
            if (*lo > *hi) {
                m_r.error(r->origin, rk,
                          "empty range: lo " + r->items[0].text + " > hi " + r->items[1].text);
                return;
            }
            b.init.lo = *lo;
            b.init.hi = *hi;
        }
    } else if (const YNode* v = f.get("values")) {
        b.init.kind = BufferInit::Kind::values;
        std::string vk = key + ".values";
        if (v->kind != YNode::Kind::seq) {
            m_r.error(v->origin, vk, "expected a list of numbers (row-major), got " + describe(*v));
            return;
        }
        if (!typed) return;
        if (v->items.size() != b.elements()) {
            m_r.error(v->origin, vk,
                      "expected " + std::to_string(b.elements()) + " values for shape " +
                          shape_str(b.shape) + ", got " + std::to_string(v->items.size()));
        }
        size_t bad = 0;
        for (size_t i = 0; i < v->items.size(); ++i) {
            if (bad == kMaxElementErrors) {
                m_r.error(v->items[i].origin, vk + "." + std::to_string(i),
                          "values from here on not checked after " +
                              std::to_string(kMaxElementErrors) + " errors");
                break;
            }
            auto x = get_element(v->items[i], vk + "." + std::to_string(i), b.dtype);
            if (x)
                b.init.values.push_back(*x);
            else
                ++bad;
        }
    } else if (const YNode* p = f.get("file")) {
        b.init.kind = BufferInit::Kind::file;
        std::string fk = key + ".file";
        auto s = m_r.get_string(p, fk);
        if (!s) return;
        if (s->empty()) {
            m_r.error(p->origin, fk, "expected a file path, got an empty string");
            return;
        }
        fs::path full = m_r.resolve(*s);
        b.init.file = full.string();
        std::error_code ec;
        if (!fs::exists(full, ec)) {
            m_r.error(p->origin, fk, "init file not found: " + full.string());
        } else if (!fs::is_regular_file(full, ec)) {
            m_r.error(p->origin, fk, "init file is not a regular file: " + full.string());
        } else if (typed) {
            uintmax_t size = fs::file_size(full, ec);
            if (ec) {
                m_r.error(p->origin, fk,
                          "cannot read init file " + full.string() + ": " + ec.message());
            } else if (size != b.bytes()) {
                m_r.error(p->origin, fk,
                          "init file " + full.string() + " has " + std::to_string(size) +
                              " bytes, buffer " + quote(b.name) + " (" + dtype_name(b.dtype) +
                              shape_str(b.shape) + ") needs " + std::to_string(b.bytes()));
            }
        }
    }
}

void PeLoader::load_cores(const YNode* n, const YNode& parent, const Fields& f) {
    const std::string key = m_key + ".cores";
    if (!n) {
        m_r.missing(&f, "cores", parent, key);
        return;
    }
    if (n->kind != YNode::Kind::seq || n->items.empty()) {
        m_r.error(n->origin, key,
                  "expected a non-empty list of cores ({pe, firmware, args}), got " +
                      (n->kind == YNode::Kind::seq ? "an empty list" : describe(*n)));
        return;
    }
    std::map<uint32_t, std::string> pes;
    for (size_t i = 0; i < n->items.size(); ++i)
        load_core(n->items[i], key + "." + std::to_string(i), pes);
}

void PeLoader::load_core(const YNode& n, const std::string& key,
                         std::map<uint32_t, std::string>& pes) {
    Fields f = m_r.read_map(&n, key, schema().children("cores[]"));
    if (!f.ok) return;
    CoreLoad c;
    c.origin = n.origin;
    bool ok = true;
    if (const YNode* p = f.get("pe")) {
        if (auto v = m_r.get_uint(p, key + ".pe", kMaxPe - 1, "a pe index")) {
            c.pe = static_cast<uint32_t>(*v);
        } else {
            ok = false;
        }
    }
    if (ok) {
        const YNode* p = f.get("pe");
        auto it = pes.find(c.pe);
        if (it != pes.end()) {
            m_r.error(p ? p->origin : n.origin, key + ".pe",
                      "pe " + std::to_string(c.pe) + " is already loaded by " + it->second);
            ok = false;
        } else {
            pes[c.pe] = key;
        }
    }
    if (const YNode* fw = f.get("firmware")) {
        m_r.resolve_firmware(*fw, key + ".firmware", c.firmware, c.firmware_path);
        if (c.firmware_path.empty()) ok = false;
    } else {
        m_r.missing(&f, "firmware", n, key + ".firmware");
        ok = false;
    }

    std::string ak = key + ".args";
    auto args = m_r.read_entries(f.get("args"), ak, true);
    if (args.size() > S2_ARGS_WORDS) {
        m_r.error(f.get("args")->origin, ak,
                  std::to_string(args.size()) + " argument words, the argument block holds " +
                      std::to_string(S2_ARGS_WORDS));
        ok = false;
    }
    for (const auto& e : args) {
        const YNode& v = *e.value;
        std::string sub = path_join(ak, e.key->text);
        ArgWord w;
        w.name = e.key->text;
        w.origin = v.origin;
        if (v.kind == YNode::Kind::scalar && !v.text.empty() && v.text[0] == '@') {
            std::string name = v.text.substr(1);
            if (!check_buffer_ref(v, sub, name)) {
                ok = false;
                continue;
            }
            w.buffer = name;
        } else {
            IntLit x = v.kind == YNode::Kind::scalar ? parse_int(v.text) : IntLit{};
            if (x.status == IntLit::Status::malformed) {
                m_r.error(v.origin, sub, "expected an integer or \"@buffer\", got " + describe(v));
                ok = false;
                continue;
            }
            if (!in_range(x, std::numeric_limits<int32_t>::min(),
                          std::numeric_limits<uint32_t>::max())) {
                m_r.error(v.origin, sub,
                          "value " + v.text + " does not fit in a 32-bit argument word [" +
                              std::to_string(std::numeric_limits<int32_t>::min()) + ", " +
                              std::to_string(std::numeric_limits<uint32_t>::max()) + "]");
                ok = false;
                continue;
            }
            // Negative values are stored as two's complement.
            w.value = x.neg ? static_cast<uint32_t>(0u - static_cast<uint32_t>(x.mag))
                            : static_cast<uint32_t>(x.mag);
        }
        c.args.push_back(w);
    }
    if (ok) m_w.cores.push_back(std::move(c));
}

bool PeLoader::check_buffer_ref(const YNode& n, const std::string& key, const std::string& name) {
    if (contains(m_declared, name)) return true;
    m_r.error(n.origin, key,
              "unknown buffer " + quote(name) + did_you_mean(name, m_declared) +
                  (m_declared.empty() ? "; no buffers are declared"
                                      : "; buffers: " + join(m_declared, ", ")));
    return false;
}

void PeLoader::load_checks(const YNode* n) {
    if (!n || n->kind == YNode::Kind::null) return;
    const std::string key = m_key + ".checks";
    if (n->kind != YNode::Kind::seq) {
        m_r.error(n->origin, key, "expected a list of checks, got " + describe(*n));
        return;
    }
    for (size_t i = 0; i < n->items.size(); ++i)
        load_check(n->items[i], key + "." + std::to_string(i));
}

void PeLoader::load_check(const YNode& n, const std::string& key) {
    // Per-kind keys; an unknown or missing kind validates against all of them.
    std::vector<std::string> valid = schema().children("checks[]");
    std::optional<std::string> kind;
    const std::vector<std::string> kinds(std::begin(kCheckKinds), std::end(kCheckKinds));
    if (n.kind == YNode::Kind::map) {
        if (const YNode* k = value_node(n, "kind")) kind = m_r.get_choice(k, key + ".kind", kinds);
    }
    if (kind == std::string("reference")) valid = {"kind", "buffer", "op"};
    if (kind == std::string("equal")) valid = {"kind", "buffer", "expect"};
    if (kind == std::string("allclose")) valid = {"kind", "buffer", "atol", "op"};
    Fields f = m_r.read_map(&n, key, valid);
    if (!f.ok) return;
    if (!f.get("kind")) m_r.missing(&f, "kind", n, key + ".kind");
    Check c;
    c.origin = n.origin;
    bool ok = kind.has_value();
    if (kind) c.kind = *kind;

    auto buffer_field = [&](const char* field, std::string& out) {
        const YNode* b = f.get(field);
        if (!b) {
            if (kind) m_r.missing(&f, field, n, key + "." + field);
            ok = false;
            return;
        }
        auto s = m_r.get_string(b, key + "." + field);
        if (!s || !check_buffer_ref(*b, key + "." + field, *s)) {
            ok = false;
            return;
        }
        out = *s;
    };
    buffer_field("buffer", c.buffer);
    if (kind == std::string("equal")) {
        buffer_field("expect", c.expect);
        auto a = m_w.buffers.find(c.buffer);
        auto b = m_w.buffers.find(c.expect);
        if (ok && a != m_w.buffers.end() && b != m_w.buffers.end() &&
            (a->second.dtype != b->second.dtype || a->second.elements() != b->second.elements())) {
            m_r.error(f.get("expect")->origin, key + ".expect",
                      "buffer " + quote(c.buffer) + " (" + dtype_name(a->second.dtype) +
                          shape_str(a->second.shape) + ") cannot equal " + quote(c.expect) + " (" +
                          dtype_name(b->second.dtype) + shape_str(b->second.shape) + ")");
            ok = false;
        }
    }
    if (kind == std::string("allclose")) {
        if (const YNode* a = f.get("atol")) {
            std::optional<double> v;
            if (a->kind == YNode::Kind::scalar) v = parse_real(a->text);
            if (!v || *v < 0) {
                m_r.error(a->origin, key + ".atol",
                          "expected a non-negative real number, got " + describe(*a));
                ok = false;
            } else {
                c.atol = *v;
            }
        } else {
            m_r.missing(&f, "atol", n, key + ".atol");
            ok = false;
        }
    }
    if (kind == std::string("reference") || kind == std::string("allclose")) {
        const YNode* op = f.get("op");
        std::string ok_key = key + ".op";
        if (!op) {
            m_r.missing(&f, "op", n, ok_key);
            ok = false;
        } else if (op->kind != YNode::Kind::map) {
            m_r.error(op->origin, ok_key,
                      "expected a map {fn: <reference op>, <operand>: <value>, ...}, got " +
                          describe(*op));
            ok = false;
        } else {
            const std::vector<std::string> buffer_keys(std::begin(kOpBufferKeys),
                                                       std::end(kOpBufferKeys));
            for (const auto& e : m_r.read_entries(op, ok_key, false)) {
                std::string sub = path_join(ok_key, e.key->text);
                if (e.value->kind != YNode::Kind::scalar) {
                    m_r.error(
                        e.value->origin, sub,
                        "expected a scalar (number, name or buffer), got " + describe(*e.value));
                    ok = false;
                    continue;
                }
                if (contains(buffer_keys, e.key->text) &&
                    !check_buffer_ref(*e.value, sub, e.value->text)) {
                    ok = false;
                    continue;
                }
                c.op[e.key->text] = e.value->text;
            }
            if (!c.op.count("fn") && !key_node(*op, "fn")) {
                m_r.missing(nullptr, "fn", *op, ok_key + ".fn");
                ok = false;
            }
        }
    }
    if (ok) m_w.checks.push_back(std::move(c));
}

std::unique_ptr<WorkloadSpec> load_pe(Reader& r, const YNode& n, const std::string& key) {
    return PeLoader(r, key).load(n);
}

}  // namespace

const char* dtype_name(DType t) { return info(t).name; }
size_t dtype_size(DType t) { return info(t).size; }
bool dtype_is_float(DType t) { return info(t).is_float; }

std::optional<DType> parse_dtype(const std::string& name) {
    for (const auto& d : kDTypes)
        if (name == d.name) return d.type;
    return std::nullopt;
}

std::vector<std::string> dtype_names() {
    std::vector<std::string> v;
    for (const auto& d : kDTypes) v.emplace_back(d.name);
    return v;
}

uint64_t Buffer::elements() const {
    uint64_t n = 1;
    for (uint64_t d : shape) n *= d;
    return n;
}

uint64_t Buffer::bytes() const { return elements() * dtype_size(dtype); }

std::unique_ptr<WorkloadSpec> PeWorkload::clone() const {
    return std::make_unique<PeWorkload>(*this);
}

void PeWorkload::dump(YAML::Emitter& e) const {
    e << YAML::BeginMap;
    if (!buffer_order.empty()) {
        e << YAML::Key << "buffers" << YAML::Value << YAML::BeginMap;
        for (const auto& name : buffer_order) {
            const Buffer& b = buffers.at(name);
            e << YAML::Key << name << YAML::Value << YAML::Flow << YAML::BeginMap;
            e << YAML::Key << "dtype" << YAML::Value << dtype_name(b.dtype);
            e << YAML::Key << "shape" << YAML::Value << YAML::Flow << YAML::BeginSeq;
            for (uint64_t d : b.shape) e << static_cast<unsigned long long>(d);
            e << YAML::EndSeq;
            e << YAML::Key << "at" << YAML::Value
              << (b.at.kind == Placement::Kind::ext ? std::string("ext")
                                                    : "pe" + std::to_string(b.at.pe) + ".sram");
            if (b.at.address)
                e << YAML::Key << "address" << YAML::Value << nmsim::hex(*b.at.address, 8);
            e << YAML::Key << "init" << YAML::Value;
            switch (b.init.kind) {
                case BufferInit::Kind::zeros:
                    e << "zeros";
                    break;
                case BufferInit::Kind::random:
                    e << YAML::Flow << YAML::BeginMap << YAML::Key << "random" << YAML::Value
                      << YAML::Flow << YAML::BeginSeq << format_element(b.init.lo, b.dtype)
                      << format_element(b.init.hi, b.dtype) << YAML::EndSeq << YAML::EndMap;
                    break;
                case BufferInit::Kind::values:
                    e << YAML::Flow << YAML::BeginMap << YAML::Key << "values" << YAML::Value
                      << YAML::Flow << YAML::BeginSeq;
                    for (double v : b.init.values) e << format_element(v, b.dtype);
                    e << YAML::EndSeq << YAML::EndMap;
                    break;
                case BufferInit::Kind::file:
                    e << YAML::Flow << YAML::BeginMap << YAML::Key << "file" << YAML::Value
                      << b.init.file << YAML::EndMap;
                    break;
            }
            e << YAML::EndMap;
        }
        e << YAML::EndMap;
    }
    e << YAML::Key << "cores" << YAML::Value << YAML::BeginSeq;
    for (const auto& c : cores) {
        e << YAML::BeginMap;
        e << YAML::Key << "pe" << YAML::Value << c.pe;
        // A path is written resolved so that the dump loads from any directory.
        e << YAML::Key << "firmware" << YAML::Value
          << (is_builtin_firmware(c.firmware) ? c.firmware : c.firmware_path);
        if (!c.args.empty()) {
            e << YAML::Key << "args" << YAML::Value << YAML::Flow << YAML::BeginMap;
            for (const auto& a : c.args) {
                e << YAML::Key << a.name << YAML::Value;
                if (a.value)
                    e << *a.value;
                else
                    e << YAML::DoubleQuoted << "@" + a.buffer;
            }
            e << YAML::EndMap;
        }
        e << YAML::EndMap;
    }
    e << YAML::EndSeq;
    if (!checks.empty()) {
        e << YAML::Key << "checks" << YAML::Value << YAML::BeginSeq;
        for (const auto& c : checks) {
            e << YAML::Flow << YAML::BeginMap;
            e << YAML::Key << "kind" << YAML::Value << c.kind;
            e << YAML::Key << "buffer" << YAML::Value << c.buffer;
            if (c.kind == "equal") e << YAML::Key << "expect" << YAML::Value << c.expect;
            if (c.kind == "allclose")
                e << YAML::Key << "atol" << YAML::Value << format_real(c.atol);
            if (c.kind != "equal") {
                e << YAML::Key << "op" << YAML::Value << YAML::Flow << YAML::BeginMap;
                // fn first for readers; the rest in key order.
                if (c.op.count("fn")) e << YAML::Key << "fn" << YAML::Value << c.op.at("fn");
                for (const auto& [k, v] : c.op)
                    if (k != "fn") e << YAML::Key << k << YAML::Value << v;
                e << YAML::EndMap;
            }
            e << YAML::EndMap;
        }
        e << YAML::EndSeq;
    }
    e << YAML::EndMap;
}

void PeWorkload::diff(const WorkloadSpec& other, const std::string& prefix, Differ& d) const {
    const PeWorkload& b = dynamic_cast<const PeWorkload&>(other);
    d.field(prefix + ".buffers", join(buffer_order, ","), join(b.buffer_order, ","))
        .count(prefix + ".buffers", buffers.size(), b.buffers.size());
    for (const auto& [name, x] : buffers) {
        if (d.done()) break;
        auto it = b.buffers.find(name);
        if (it == b.buffers.end()) {
            d.note(prefix + ".buffers." + name + ": missing in second");
            break;
        }
        const Buffer& y = it->second;
        std::string k = prefix + ".buffers." + name;
        d.field(k + ".name", x.name, y.name)
            .field(k + ".dtype", std::string(dtype_name(x.dtype)), std::string(dtype_name(y.dtype)))
            .field(k + ".shape", x.shape, y.shape)
            .field(k + ".at.kind", x.at.kind == Placement::Kind::ext,
                   y.at.kind == Placement::Kind::ext)
            .field(k + ".at.pe", x.at.pe, y.at.pe)
            .field(k + ".address", x.at.address, y.at.address)
            .field(k + ".init.kind", static_cast<int>(x.init.kind), static_cast<int>(y.init.kind))
            .field(k + ".init.lo", x.init.lo, y.init.lo)
            .field(k + ".init.hi", x.init.hi, y.init.hi)
            .list(k + ".init.values", x.init.values, y.init.values)
            .field(k + ".init.file", x.init.file, y.init.file);
    }
    d.count(prefix + ".cores", cores.size(), b.cores.size());
    for (size_t i = 0; i < cores.size() && !d.done(); ++i) {
        const CoreLoad& x = cores[i];
        const CoreLoad& y = b.cores[i];
        std::string k = prefix + ".cores." + std::to_string(i);
        d.field(k + ".pe", x.pe, y.pe)
            .field(k + ".firmware_path", x.firmware_path, y.firmware_path)
            .count(k + ".args", x.args.size(), y.args.size());
        for (size_t j = 0; j < x.args.size() && !d.done(); ++j) {
            std::string ak = k + ".args." + x.args[j].name;
            d.field(k + ".args." + std::to_string(j) + ".name", x.args[j].name, y.args[j].name)
                .field(ak, x.args[j].value, y.args[j].value)
                .field(ak + ".buffer", x.args[j].buffer, y.args[j].buffer);
        }
    }
    d.count(prefix + ".checks", checks.size(), b.checks.size());
    for (size_t i = 0; i < checks.size() && !d.done(); ++i) {
        const Check& x = checks[i];
        const Check& y = b.checks[i];
        std::string k = prefix + ".checks." + std::to_string(i);
        d.field(k + ".kind", x.kind, y.kind)
            .field(k + ".buffer", x.buffer, y.buffer)
            .field(k + ".expect", x.expect, y.expect)
            .field(k + ".atol", x.atol, y.atol)
            .count(k + ".op", x.op.size(), y.op.size());
        for (const auto& [ok, ov] : x.op) {
            if (d.done()) break;
            auto it = y.op.find(ok);
            d.field(k + ".op." + ok, ov, it == y.op.end() ? std::string("<missing>") : it->second);
        }
    }
}

const WorkloadSchema& schema() {
    static const WorkloadSchema s{
        "pe",
        {"spinnaker2_pe", "spinnaker2_chip"},
        "buffers and firmware on SpiNNaker2 PEs, results checked against integer references",
        {
            {"buffers", "map of name -> buffer", "{}",
             "data buffers, placed in file order; names are identifiers"},
            {"buffers.<name>.dtype", "int8|uint8|int16|uint16|int32|uint32|float32", "required",
             "element type (little-endian)"},
            {"buffers.<name>.shape", "list of positive int", "required", "dimensions, row-major"},
            {"buffers.<name>.at", "pe<N>.sram|ext", "pe0.sram",
             "where the buffer lives; ext is the external memory (spinnaker2_chip: DRAM "
             "interface 0)"},
            {"buffers.<name>.address", "32-bit int", "auto-placed",
             "absolute core address, aligned to the element size; ext: >= 0x20000000"},
            {"buffers.<name>.init", "zeros|{random: [lo, hi]}|{values: [...]}|{file: path}",
             "zeros", "initial contents; random draws from the scenario seed"},
            {"cores", "list", "required", "one entry per core to load"},
            {"cores[].pe", "int 0..1023", "0", "which PE; each PE at most once"},
            {"cores[].firmware", "program name or path.elf", "required",
             "a built-in program (firmware directories, NMSIM_FIRMWARE_DIR first) or an ELF file"},
            {"cores[].args", "map of name -> int or \"@buffer\"", "{}",
             "the argument block: word i is the i-th entry (s2_arg(i)); at most 64 words"},
            {"checks", "list", "[]", "checks run on the host after the simulation"},
            {"checks[].kind", "reference|equal|allclose", "required", "what to compare"},
            {"checks[].buffer", "buffer name", "required", "the result buffer"},
            {"checks[].expect", "buffer name", "required (equal)", "the buffer it must equal"},
            {"checks[].atol", "real >= 0", "required (allclose)", "absolute tolerance"},
            {"checks[].op", "map", "required (reference, allclose)",
             "the reference: fn (mla_matmul, mla_conv2d, softmax, sparse_mlp) and its operands"},
        },
        &load_pe,
    };
    return s;
}

}  // namespace nmsim::workloads::pe
