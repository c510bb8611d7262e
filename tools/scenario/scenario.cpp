// Scenario loader: the YAML text is parsed by yaml-cpp, copied into a small tree that keeps an
// Origin per node (so --set edits can carry their own origin and duplicate keys stay visible),
// edited by --set, then validated in one pass that collects every error.
#include "tools/scenario/scenario.h"
#include "models/common/hex.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <tuple>

#include "models/common/param.h"
#include "nmsim/hw/spinnaker2/noc_map.h"
#include "nmsim/hw/spinnaker2/pe_map.h"

namespace nmsim::scenario {

namespace fs = std::filesystem;

// ---------------------------------------------------------------------------------------------
// Errors

std::string Origin::str() const {
    if (file == "--set") return file;
    if (line <= 0) return file;
    return file + ":" + std::to_string(line) + ":" + std::to_string(col);
}

std::string ConfigError::str() const {
    std::string s = origin.str() + ": error: ";
    if (!key.empty()) s += key + ": ";
    return s + message;
}

namespace {
std::string sort_and_join(std::vector<ConfigError>& errors) {
    std::stable_sort(errors.begin(), errors.end(), [](const ConfigError& a, const ConfigError& b) {
        return std::tie(a.origin.file, a.origin.line, a.origin.col) <
               std::tie(b.origin.file, b.origin.line, b.origin.col);
    });
    std::string s;
    for (const auto& e : errors) {
        if (!s.empty()) s += '\n';
        s += e.str();
    }
    return s;
}
}  // namespace

// The base is initialised first, so the sort happens before m_errors takes the vector.
ScenarioError::ScenarioError(std::vector<ConfigError> errors)
    : std::runtime_error(sort_and_join(errors)), m_errors(std::move(errors)) {}

// ---------------------------------------------------------------------------------------------
// Data types

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
}  // namespace

const char* dtype_name(DType t) { return info(t).name; }
size_t dtype_size(DType t) { return info(t).size; }

std::optional<DType> parse_dtype(const std::string& name) {
    for (const auto& d : kDTypes)
        if (name == d.name) return d.type;
    return std::nullopt;
}

uint64_t Buffer::elements() const {
    uint64_t n = 1;
    for (uint64_t d : shape) n *= d;
    return n;
}

uint64_t Buffer::bytes() const { return elements() * dtype_size(dtype); }

// ---------------------------------------------------------------------------------------------
// Helpers

namespace {

const char* const kDocKeys[] = {"name",     "description", "seed", "platform",
                                "workload", "checks",      "trace"};
const char* const kPlatformKinds[] = {"spinnaker2_pe", "spinnaker2_chip", "brainscales2"};
const char* const kBss2Kind = "brainscales2";
const char* const kBss2Keys[] = {"network", "runtime_us",         "runs", "input_sweep", "madc",
                                 "cadc",    "reset_between_runs", "dot"};
const char* const kPeKind = "spinnaker2_pe";
const char* const kChipKind = "spinnaker2_chip";
const char* const kDnnKeys[] = {"model",
                                "inputs",
                                "labels",
                                "float_predictions",
                                "first",
                                "count",
                                "scheduler_pe",
                                "workers",
                                "worker_pes",
                                "max_workers_per_layer",
                                "layer_workers",
                                "published_us",
                                "published_source",
                                "scheduler_firmware",
                                "worker_firmware",
                                "check"};
const char* const kCheckKinds[] = {"reference", "equal", "allclose"};
// Reference-op keys whose value names a buffer (other op keys are opaque to the loader).
const char* const kOpBufferKeys[] = {"a", "b", "bias", "input", "c", "out_buffer"};
constexpr uint32_t kMaxPe = 1024;
// Global PE indices of the full chip (38 QPEs of 4 PEs). A platform built with fewer QPEs
// checks the indices against its own count.
constexpr uint32_t kChipPes = S2_NOC_N_PES;
constexpr size_t kMaxElementErrors = 8;  // per list, so one bad paste does not flood the output

template <size_t N>
std::vector<std::string> names(const char* const (&arr)[N]) {
    return std::vector<std::string>(std::begin(arr), std::end(arr));
}

std::vector<std::string> dtype_names() {
    std::vector<std::string> v;
    for (const auto& d : kDTypes) v.emplace_back(d.name);
    return v;
}

std::string join(const std::vector<std::string>& v, const char* sep) {
    std::string s;
    for (size_t i = 0; i < v.size(); ++i) {
        if (i) s += sep;
        s += v[i];
    }
    return s;
}

bool contains(const std::vector<std::string>& v, const std::string& x) {
    return std::find(v.begin(), v.end(), x) != v.end();
}

std::string quote(const std::string& s) {
    std::string q = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') {
            q += '\\';
            q += c;
        } else if (c == '\n') {
            q += "\\n";
        } else {
            q += c;
        }
    }
    return q + "\"";
}

// closest_match, minus suggestions that share no character with the input ("q" -> "x" for
// one-letter buffer names is noise, not a hint).
std::string suggest(const std::string& s, const std::vector<std::string>& candidates) {
    std::string near = closest_match(s, candidates);
    if (near.find_first_of(s) == std::string::npos) return "";
    return near;
}

// " (did you mean "x"?)" or "".
std::string did_you_mean(const std::string& s, const std::vector<std::string>& candidates) {
    std::string near = suggest(s, candidates);
    return near.empty() ? std::string() : " (did you mean " + quote(near) + "?)";
}

std::string path_join(const std::string& a, const std::string& b) {
    return a.empty() ? b : a + "." + b;
}

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out;
    size_t start = 0;
    for (;;) {
        size_t p = s.find(sep, start);
        out.push_back(s.substr(start, p == std::string::npos ? std::string::npos : p - start));
        if (p == std::string::npos) break;
        start = p + 1;
    }
    return out;
}

bool is_identifier(const std::string& s) {
    if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
    return std::all_of(s.begin(), s.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    });
}

bool all_digits(const std::string& s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c));
    });
}

// Integer literal: optional sign, then decimal digits or 0x/0X and hex digits.
struct IntLit {
    enum class Status { ok, malformed, overflow } status = Status::malformed;
    bool neg = false;
    uint64_t mag = 0;
    double as_double() const { return neg ? -static_cast<double>(mag) : static_cast<double>(mag); }
};

IntLit parse_int(const std::string& s) {
    IntLit r;
    size_t i = 0;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) r.neg = s[i++] == '-';
    unsigned base = 10;
    if (s.size() - i > 2 && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
        base = 16;
        i += 2;
    }
    if (i >= s.size()) return r;
    bool overflow = false;
    for (; i < s.size(); ++i) {
        char c = s[i];
        unsigned d;
        if (c >= '0' && c <= '9') {
            d = static_cast<unsigned>(c - '0');
        } else if (base == 16 && c >= 'a' && c <= 'f') {
            d = static_cast<unsigned>(c - 'a' + 10);
        } else if (base == 16 && c >= 'A' && c <= 'F') {
            d = static_cast<unsigned>(c - 'A' + 10);
        } else {
            return r;
        }
        if (r.mag > (std::numeric_limits<uint64_t>::max() - d) / base) overflow = true;
        r.mag = r.mag * base + d;
    }
    r.status = overflow ? IntLit::Status::overflow : IntLit::Status::ok;
    if (r.mag == 0) r.neg = false;
    return r;
}

bool in_range(const IntLit& v, int64_t lo, uint64_t hi) {
    if (v.status != IntLit::Status::ok) return false;
    if (!v.neg) return v.mag <= hi && (lo <= 0 || v.mag >= static_cast<uint64_t>(lo));
    if (lo >= 0) return false;
    uint64_t max_neg = static_cast<uint64_t>(-(lo + 1)) + 1;
    return v.mag <= max_neg;
}

std::optional<double> parse_real(const std::string& s) {
    if (s.empty() || std::isspace(static_cast<unsigned char>(s[0]))) return std::nullopt;
    char* end = nullptr;
    double v = std::strtod(s.c_str(), &end);
    if (end != s.c_str() + s.size() || !std::isfinite(v)) return std::nullopt;
    return v;
}

// Shortest decimal text that reads back as the same double.
std::string format_real(double v) {
    char buf[64];
    for (int prec = 6; prec <= 17; ++prec) {
        std::snprintf(buf, sizeof buf, "%.*g", prec, v);
        if (std::strtod(buf, nullptr) == v) break;
    }
    return buf;
}

// Text of a value stored as double in a buffer of type t (integers print without exponent).
std::string format_element(double v, DType t) {
    if (info(t).is_float) return format_real(v);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
}

std::optional<bool> parse_bool(const std::string& s) {
    std::string l = s;
    std::transform(l.begin(), l.end(), l.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (l == "true" || l == "yes" || l == "on") return true;
    if (l == "false" || l == "no" || l == "off") return false;
    return std::nullopt;
}

std::string shape_str(const std::vector<uint64_t>& shape) {
    std::string s = "[";
    for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

// ---------------------------------------------------------------------------------------------
// Node tree with origins

struct YNode {
    enum class Kind { null, scalar, seq, map } kind = Kind::null;
    std::string text;          // scalar
    std::vector<YNode> keys;   // map keys (scalars), parallel to items
    std::vector<YNode> items;  // sequence items or map values
    Origin origin;

    static YNode scalar(std::string t, Origin o) {
        YNode n;
        n.kind = Kind::scalar;
        n.text = std::move(t);
        n.origin = std::move(o);
        return n;
    }
};

const Origin kSetOrigin{"--set", 0, 0};

std::string describe(const YNode& n) {
    switch (n.kind) {
        case YNode::Kind::null:
            return "an empty value";
        case YNode::Kind::scalar:
            return quote(n.text);
        case YNode::Kind::seq:
            return "a list";
        case YNode::Kind::map:
            return "a map";
    }
    return "?";
}

// A map's fields after key validation: the first occurrence of every valid key.
struct Fields {
    bool ok = false;
    std::map<std::string, const YNode*> by_name;
    std::set<std::string> suggested;  // valid keys offered for a misspelt one
    // A required key that was offered as the fix for a misspelling is not reported again.
    bool report_missing(const std::string& k) const { return !suggested.count(k); }
    const YNode* get(const std::string& k) const {
        auto it = by_name.find(k);
        return it == by_name.end() ? nullptr : it->second;
    }
};

struct Entry {
    const YNode* key;
    const YNode* value;
};

// The node of key `k` in map `n` (its first occurrence), for errors about a key's presence.
const YNode* key_node(const YNode& n, const std::string& k) {
    for (const auto& key : n.keys)
        if (key.text == k) return &key;
    return nullptr;
}

class Loader {
public:
    Loader(std::string path, const LoadOptions& opts) : m_path(std::move(path)), m_opts(opts) {}

    Scenario run();

private:
    // Tree construction and editing
    YNode convert(const YAML::Node& n, bool from_set, int depth);
    Origin origin_of(const YAML::Mark& m, bool from_set) const;
    void apply_set(YNode& root, const std::string& item);
    void set_in_doc(YNode& root, const std::vector<std::string>& segs, const std::string& key,
                    const std::string& value);
    void add_set_param(const std::string& path, const std::string& value);

    // Validation
    void error(const Origin& o, const std::string& key, const std::string& msg) {
        m_errors.push_back(ConfigError{o, key, msg});
    }
    Fields read_map(const YNode* n, const std::string& key, const std::vector<std::string>& valid,
                    bool null_ok = false);
    std::vector<Entry> read_entries(const YNode* n, const std::string& key, bool null_ok);
    // `field` of map `f` (at `parent`) is absent; silent if `field` was offered as a
    // did-you-mean for a misspelt key of the same map, which already has an error.
    void missing(const Fields* f, const std::string& field, const YNode& parent,
                 const std::string& key) {
        if (f && !f->report_missing(field)) return;
        error(parent.origin, key, "missing required key");
    }
    std::optional<std::string> get_string(const YNode* n, const std::string& key);
    std::optional<uint64_t> get_uint(const YNode* n, const std::string& key, uint64_t max,
                                     const char* what);
    std::optional<bool> get_bool(const YNode* n, const std::string& key);
    std::optional<std::string> get_choice(const YNode* n, const std::string& key,
                                          const std::vector<std::string>& choices);

    void load_params(const YNode* n);
    void flatten_params(const YNode& n, const std::string& prefix, const std::string& key);
    void load_buffers(const YNode* n);
    void load_buffer(const YNode& key_node, const YNode& n);
    void load_init(const YNode* n, const std::string& key, Buffer& b, bool shape_ok);
    std::optional<double> get_element(const YNode& n, const std::string& key, DType t);
    void load_cores(const YNode* n, const YNode& workload, const Fields& wf);
    void load_core(const YNode& n, const std::string& key, std::map<uint32_t, std::string>& pes);
    // Sets `name` to the value as written and `path` to the ELF found ("" after an error).
    void resolve_firmware(const YNode& n, const std::string& key, std::string& name,
                          std::string& path);
    void load_dnn(const YNode* n, const YNode& workload, const Fields& wf);
    void load_bss2(const YNode* n, const YNode& workload, const Fields& wf);
    std::optional<double> get_real(const YNode* n, const std::string& key, double lo, double hi,
                                   const char* what);
    std::optional<Bss2Input> load_bss2_input(const YNode& n, const std::string& key,
                                             double runtime_us);
    std::string load_dnn_file(const Fields& f, const char* field, bool required, const YNode& dnn);
    // `field` of `map` is present but the platform kind has no use for it.
    void not_allowed(const YNode& map, const std::string& field, const std::string& key,
                     const std::string& why) {
        const YNode* k = key_node(map, field);
        error(k ? k->origin : map.origin, key,
              "not allowed with platform kind " + m_s.platform_kind + ": " + why);
    }
    void load_checks(const YNode* n);
    void load_check(const YNode& n, const std::string& key);
    bool check_buffer_ref(const YNode& n, const std::string& key, const std::string& name);
    void load_trace(const YNode* n);

    fs::path resolve(const std::string& p) const {
        fs::path base = fs::path(m_path).parent_path();
        return fs::absolute(base / fs::path(p)).lexically_normal();
    }

    std::string m_path;
    const LoadOptions& m_opts;
    std::vector<ConfigError> m_errors;
    std::vector<ParamOverride> m_set_params;
    std::vector<std::string> m_declared;  // every buffer key, valid or not (avoids cascades)
    Scenario m_s;
};

Origin Loader::origin_of(const YAML::Mark& m, bool from_set) const {
    if (from_set) return kSetOrigin;
    if (m.is_null()) return Origin{m_path, 0, 0};
    return Origin{m_path, m.line + 1, m.column + 1};
}

YNode Loader::convert(const YAML::Node& n, bool from_set, int depth) {
    YNode out;
    out.origin = origin_of(n.Mark(), from_set);
    if (depth > 64) {
        error(out.origin, "", "nesting deeper than 64 levels (recursive alias?)");
        return out;
    }
    switch (n.Type()) {
        case YAML::NodeType::Scalar:
            out.kind = YNode::Kind::scalar;
            out.text = n.Scalar();
            break;
        case YAML::NodeType::Sequence:
            out.kind = YNode::Kind::seq;
            for (const auto& item : n) out.items.push_back(convert(item, from_set, depth + 1));
            break;
        case YAML::NodeType::Map:
            out.kind = YNode::Kind::map;
            for (const auto& kv : n) {
                YNode k = convert(kv.first, from_set, depth + 1);
                if (k.kind != YNode::Kind::scalar) {
                    error(k.origin, "", "map keys must be plain strings, got " + describe(k));
                    continue;
                }
                YNode v = convert(kv.second, from_set, depth + 1);
                // yaml-cpp marks an empty value at the next token; point at its key instead.
                if (v.kind == YNode::Kind::null) v.origin = k.origin;
                out.keys.push_back(std::move(k));
                out.items.push_back(std::move(v));
            }
            break;
        default:
            break;
    }
    return out;
}

// ---------------------------------------------------------------------------------------------
// --set

void Loader::apply_set(YNode& root, const std::string& item) {
    size_t eq = item.find('=');
    if (eq == std::string::npos) {
        error(kSetOrigin, "", "malformed --set " + quote(item) + ": expected key.path=value");
        return;
    }
    std::string key = item.substr(0, eq);
    std::string value = item.substr(eq + 1);
    std::vector<std::string> segs = split(key, '.');
    if (std::any_of(segs.begin(), segs.end(), [](const std::string& s) { return s.empty(); })) {
        error(kSetOrigin, "",
              "malformed --set " + quote(item) + ": empty segment in key " + quote(key));
        return;
    }
    if (!contains(names(kDocKeys), segs[0])) {
        add_set_param(key, value);
        return;
    }
    if (segs.size() >= 3 && segs[0] == "platform" && segs[1] == "params") {
        std::vector<std::string> rest(segs.begin() + 2, segs.end());
        add_set_param(join(rest, "."), value);
        return;
    }
    set_in_doc(root, segs, key, value);
}

void Loader::add_set_param(const std::string& path, const std::string& value) {
    if (value.empty()) {
        error(kSetOrigin, path, "empty value");
        return;
    }
    if (value[0] == '[' || value[0] == '{') {
        error(kSetOrigin, path,
              std::string("parameter values must be scalars, got a ") +
                  (value[0] == '[' ? "list" : "map") + " " + quote(value));
        return;
    }
    m_set_params.push_back(ParamOverride{path, value, kSetOrigin});
}

void Loader::set_in_doc(YNode& root, const std::vector<std::string>& segs, const std::string& key,
                        const std::string& value) {
    // Flow collections and quoted scalars are YAML; anything else is taken literally.
    YNode v = YNode::scalar(value, kSetOrigin);
    if (!value.empty() &&
        (value[0] == '[' || value[0] == '{' || value[0] == '"' || value[0] == '\'')) {
        try {
            v = convert(YAML::Load(value), true, 0);
        } catch (const YAML::Exception& e) {
            error(kSetOrigin, key, "malformed YAML value " + quote(value) + ": " + e.msg);
            return;
        }
    }
    YNode* cur = &root;
    std::string at;  // path walked so far, for messages
    for (size_t i = 0; i < segs.size(); ++i) {
        const std::string& seg = segs[i];
        bool last = i + 1 == segs.size();
        // A new intermediate node is a list if the next segment is an index, else a map.
        auto fresh = [&]() {
            if (last) return v;
            YNode n;
            n.kind = all_digits(segs[i + 1]) ? YNode::Kind::seq : YNode::Kind::map;
            n.origin = kSetOrigin;
            return n;
        };
        if (cur->kind == YNode::Kind::null) {
            cur->kind = all_digits(seg) ? YNode::Kind::seq : YNode::Kind::map;
        }
        if (cur->kind == YNode::Kind::map) {
            size_t j = 0;
            while (j < cur->keys.size() && cur->keys[j].text != seg) ++j;
            if (j == cur->keys.size()) {
                cur->keys.push_back(YNode::scalar(seg, kSetOrigin));
                cur->items.push_back(fresh());
            } else if (last) {
                cur->items[j] = v;
            }
            cur = &cur->items[j];
        } else if (cur->kind == YNode::Kind::seq) {
            if (!all_digits(seg) || seg.size() > 9) {
                error(kSetOrigin, key,
                      "cannot set: " + quote(at) + " is a list, expected an index, got " +
                          quote(seg));
                return;
            }
            size_t idx = std::stoul(seg);
            if (idx > cur->items.size()) {
                error(kSetOrigin, key,
                      "cannot set: index " + seg + " out of range (" + quote(at) + " has " +
                          std::to_string(cur->items.size()) + " items; use " +
                          std::to_string(cur->items.size()) + " to append)");
                return;
            }
            if (idx == cur->items.size()) {
                cur->items.push_back(fresh());
            } else if (last) {
                cur->items[idx] = v;
            }
            cur = &cur->items[idx];
        } else {
            error(kSetOrigin, key, "cannot set: " + quote(at) + " is a scalar, not a map or list");
            return;
        }
        at = path_join(at, seg);
    }
}

// ---------------------------------------------------------------------------------------------
// Generic validation

Fields Loader::read_map(const YNode* n, const std::string& key,
                        const std::vector<std::string>& valid, bool null_ok) {
    Fields f;
    if (!n) return f;
    if (n->kind == YNode::Kind::null && null_ok) {
        f.ok = true;
        return f;
    }
    if (n->kind != YNode::Kind::map) {
        error(n->origin, key,
              "expected a map with keys " + join(valid, ", ") + ", got " + describe(*n));
        return f;
    }
    f.ok = true;
    std::map<std::string, const YNode*> first;
    for (size_t i = 0; i < n->keys.size(); ++i) {
        const YNode& k = n->keys[i];
        std::string sub = path_join(key, k.text);
        auto dup = first.find(k.text);
        if (dup != first.end()) {
            error(k.origin, sub,
                  "duplicate key (first defined at " + dup->second->origin.str() + ")");
            continue;
        }
        first[k.text] = &k;
        if (!contains(valid, k.text)) {
            std::string near = suggest(k.text, valid);
            std::string msg = "unknown key " + quote(k.text);
            if (!near.empty()) {
                msg += "; did you mean " + quote(near) + "?";
                f.suggested.insert(near);
            }
            error(k.origin, sub, msg + " (valid keys: " + join(valid, ", ") + ")");
            continue;
        }
        f.by_name[k.text] = &n->items[i];
    }
    return f;
}

std::vector<Entry> Loader::read_entries(const YNode* n, const std::string& key, bool null_ok) {
    std::vector<Entry> out;
    if (!n || (n->kind == YNode::Kind::null && null_ok)) return out;
    if (n->kind != YNode::Kind::map) {
        error(n->origin, key, "expected a map, got " + describe(*n));
        return out;
    }
    std::map<std::string, const YNode*> first;
    for (size_t i = 0; i < n->keys.size(); ++i) {
        const YNode& k = n->keys[i];
        auto dup = first.find(k.text);
        if (dup != first.end()) {
            error(k.origin, path_join(key, k.text),
                  "duplicate key (first defined at " + dup->second->origin.str() + ")");
            continue;
        }
        first[k.text] = &k;
        out.push_back(Entry{&k, &n->items[i]});
    }
    return out;
}

std::optional<std::string> Loader::get_string(const YNode* n, const std::string& key) {
    if (!n) return std::nullopt;
    if (n->kind != YNode::Kind::scalar) {
        error(n->origin, key, "expected a string, got " + describe(*n));
        return std::nullopt;
    }
    return n->text;
}

std::optional<uint64_t> Loader::get_uint(const YNode* n, const std::string& key, uint64_t max,
                                         const char* what) {
    if (!n) return std::nullopt;
    if (n->kind != YNode::Kind::scalar) {
        error(n->origin, key, std::string("expected ") + what + ", got " + describe(*n));
        return std::nullopt;
    }
    IntLit v = parse_int(n->text);
    if (v.status == IntLit::Status::malformed) {
        error(n->origin, key, std::string("expected ") + what + ", got " + describe(*n));
        return std::nullopt;
    }
    if (!in_range(v, 0, max)) {
        error(n->origin, key,
              std::string("expected ") + what + " in [0, " + std::to_string(max) + "], got " +
                  describe(*n));
        return std::nullopt;
    }
    return v.mag;
}

std::optional<bool> Loader::get_bool(const YNode* n, const std::string& key) {
    if (!n) return std::nullopt;
    std::optional<bool> b;
    if (n->kind == YNode::Kind::scalar) b = parse_bool(n->text);
    if (!b) error(n->origin, key, "expected true or false, got " + describe(*n));
    return b;
}

std::optional<std::string> Loader::get_choice(const YNode* n, const std::string& key,
                                              const std::vector<std::string>& choices) {
    auto s = get_string(n, key);
    if (!s) return std::nullopt;
    if (!contains(choices, *s)) {
        error(n->origin, key,
              "expected " + join(choices, "|") + ", got " + quote(*s) + did_you_mean(*s, choices));
        return std::nullopt;
    }
    return s;
}

// ---------------------------------------------------------------------------------------------
// Sections

void Loader::load_params(const YNode* n) {
    if (!n || n->kind == YNode::Kind::null) return;
    if (n->kind != YNode::Kind::map) {
        error(n->origin, "platform.params",
              "expected a map of parameter overrides, got " + describe(*n));
        return;
    }
    flatten_params(*n, "", "platform.params");
    // Each path appears once: a later value (nested vs dotted spelling, or --set) would be
    // ambiguous in the file and is reported there; --set replaces.
    std::map<std::string, const ParamOverride*> seen;
    std::vector<ParamOverride> unique;
    for (const auto& p : m_s.params) {
        auto it = seen.find(p.path);
        if (it != seen.end()) {
            error(p.origin, "platform.params." + p.path,
                  "parameter set twice (first at " + it->second->origin.str() + ")");
            continue;
        }
        seen[p.path] = &p;
        unique.push_back(p);
    }
    m_s.params = std::move(unique);
}

void Loader::flatten_params(const YNode& n, const std::string& prefix, const std::string& key) {
    if (n.keys.empty()) {
        error(n.origin, key, "expected a value or a map of parameters, got an empty map");
        return;
    }
    for (size_t i = 0; i < n.keys.size(); ++i) {
        const YNode& k = n.keys[i];
        const YNode& v = n.items[i];
        std::string sub = path_join(key, k.text);
        std::vector<std::string> segs = split(k.text, '.');
        if (std::any_of(segs.begin(), segs.end(), [](const std::string& s) { return s.empty(); })) {
            error(k.origin, sub, "malformed parameter key " + quote(k.text) + ": empty segment");
            continue;
        }
        std::string path = path_join(prefix, k.text);
        switch (v.kind) {
            case YNode::Kind::map:
                flatten_params(v, path, sub);
                break;
            case YNode::Kind::scalar:
                m_s.params.push_back(ParamOverride{path, v.text, v.origin});
                break;
            case YNode::Kind::seq:
                error(v.origin, sub, "parameter values must be scalars, got a list");
                break;
            case YNode::Kind::null:
                error(v.origin, sub, "missing value");
                break;
        }
    }
}

void Loader::load_buffers(const YNode* n) {
    auto entries = read_entries(n, "workload.buffers", true);
    for (const auto& e : entries) m_declared.push_back(e.key->text);
    for (const auto& e : entries) load_buffer(*e.key, *e.value);
}

void Loader::load_buffer(const YNode& key_node, const YNode& n) {
    const std::string& name = key_node.text;
    std::string key = "workload.buffers." + name;
    Buffer b;
    b.name = name;
    b.origin = key_node.origin;
    bool ok = true;
    if (!is_identifier(name)) {
        error(key_node.origin, key,
              "buffer names must be identifiers ([A-Za-z_][A-Za-z0-9_]*), got " + quote(name));
        ok = false;
    }
    Fields f = read_map(&n, key, {"dtype", "shape", "at", "address", "init"});
    if (!f.ok) return;

    bool dtype_ok = false;
    if (const YNode* d = f.get("dtype")) {
        if (auto s = get_choice(d, key + ".dtype", dtype_names())) {
            b.dtype = *parse_dtype(*s);
            dtype_ok = true;
        }
    } else {
        missing(&f, "dtype", n, key + ".dtype");
    }

    bool shape_ok = false;
    if (const YNode* s = f.get("shape")) {
        std::string sk = key + ".shape";
        if (s->kind != YNode::Kind::seq || s->items.empty()) {
            error(s->origin, sk,
                  "expected a non-empty list of positive integers, got " +
                      (s->kind == YNode::Kind::seq ? "an empty list" : describe(*s)));
        } else {
            shape_ok = true;
            for (size_t i = 0; i < s->items.size(); ++i) {
                const YNode& d = s->items[i];
                IntLit v = d.kind == YNode::Kind::scalar ? parse_int(d.text) : IntLit{};
                if (!in_range(v, 1, std::numeric_limits<uint32_t>::max())) {
                    error(d.origin, sk + "." + std::to_string(i),
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
                    error(s->origin, sk,
                          "buffer of " + shape_str(b.shape) + " " + dtype_name(b.dtype) +
                              " does not fit in the 32-bit address space");
                    shape_ok = false;
                }
            }
        }
    } else {
        missing(&f, "shape", n, key + ".shape");
    }

    if (const YNode* a = f.get("at")) {
        if (auto s = get_string(a, key + ".at")) {
            const std::string& t = *s;
            if (t == "ext") {
                b.at.kind = Placement::Kind::ext;
            } else if (t.size() > 7 && t.compare(0, 2, "pe") == 0 &&
                       t.compare(t.size() - 5, 5, ".sram") == 0 &&
                       all_digits(t.substr(2, t.size() - 7))) {
                IntLit v = parse_int(t.substr(2, t.size() - 7));
                if (!in_range(v, 0, kMaxPe - 1)) {
                    error(a->origin, key + ".at",
                          "pe index " + t.substr(2, t.size() - 7) + " out of range [0, " +
                              std::to_string(kMaxPe - 1) + "]");
                    ok = false;
                } else {
                    b.at.kind = Placement::Kind::sram;
                    b.at.pe = static_cast<uint32_t>(v.mag);
                }
            } else {
                error(a->origin, key + ".at",
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
        if (auto v = get_uint(a, ak, std::numeric_limits<uint32_t>::max(), "a 32-bit address")) {
            uint32_t addr = static_cast<uint32_t>(*v);
            b.at.address = addr;
            char hex[16];
            std::snprintf(hex, sizeof hex, "0x%08x", addr);
            if (dtype_ok && addr % dtype_size(b.dtype) != 0) {
                error(a->origin, ak,
                      std::string("address ") + hex + " is not aligned to the " +
                          std::to_string(dtype_size(b.dtype)) + "-byte " + dtype_name(b.dtype) +
                          " elements");
            }
            if (b.at.kind == Placement::Kind::ext && addr < S2_EXT_BASE) {
                char base[16];
                std::snprintf(base, sizeof base, "0x%08x", S2_EXT_BASE);
                error(a->origin, ak,
                      std::string("address ") + hex + " is below the external-memory window at " +
                          base);
            }
            if (shape_ok && dtype_ok &&
                static_cast<uint64_t>(addr) + b.bytes() > (uint64_t{1} << 32)) {
                error(a->origin, ak,
                      std::string("buffer at ") + hex + " with " + std::to_string(b.bytes()) +
                          " bytes runs past the end of the 32-bit address space");
            }
        } else {
            ok = false;
        }
    }

    load_init(f.get("init"), key + ".init", b, shape_ok && dtype_ok);
    if (ok && shape_ok && dtype_ok) {
        m_s.buffers[name] = b;
        m_s.buffer_order.push_back(name);
    }
}

std::optional<double> Loader::get_element(const YNode& n, const std::string& key, DType t) {
    const DTypeInfo& d = info(t);
    if (n.kind != YNode::Kind::scalar) {
        error(n.origin, key, std::string("expected a ") + d.name + " value, got " + describe(n));
        return std::nullopt;
    }
    if (d.is_float) {
        auto v = parse_real(n.text);
        if (!v) {
            error(n.origin, key, "expected a finite real number, got " + describe(n));
            return std::nullopt;
        }
        if (std::fabs(*v) > FLT_MAX) {
            error(n.origin, key, "value " + n.text + " out of range for float32");
            return std::nullopt;
        }
        return v;
    }
    IntLit v = parse_int(n.text);
    if (v.status == IntLit::Status::malformed) {
        error(n.origin, key,
              std::string("expected an integer (") + d.name + "), got " + describe(n));
        return std::nullopt;
    }
    if (!in_range(v, d.lo, d.hi)) {
        error(n.origin, key,
              "value " + n.text + " out of range for " + d.name + " [" + std::to_string(d.lo) +
                  ", " + std::to_string(d.hi) + "]");
        return std::nullopt;
    }
    return v.as_double();
}

void Loader::load_init(const YNode* n, const std::string& key, Buffer& b, bool typed) {
    if (!n) return;
    if (n->kind == YNode::Kind::scalar && n->text == "zeros") return;
    if (n->kind != YNode::Kind::map) {
        error(n->origin, key,
              "expected zeros or a map with one of random, values, file; got " + describe(*n));
        return;
    }
    Fields f = read_map(n, key, {"random", "values", "file"});
    if (!f.ok) return;
    if (f.by_name.size() != 1) {
        if (f.by_name.size() > 1 || n->keys.empty())
            error(n->origin, key, "expected exactly one of random, values, file");
        return;
    }
    if (const YNode* r = f.get("random")) {
        b.init.kind = BufferInit::Kind::random;
        std::string rk = key + ".random";
        if (r->kind != YNode::Kind::seq || r->items.size() != 2) {
            error(r->origin, rk,
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
                error(r->origin, rk,
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
            error(v->origin, vk, "expected a list of numbers (row-major), got " + describe(*v));
            return;
        }
        if (!typed) return;
        if (v->items.size() != b.elements()) {
            error(v->origin, vk,
                  "expected " + std::to_string(b.elements()) + " values for shape " +
                      shape_str(b.shape) + ", got " + std::to_string(v->items.size()));
        }
        size_t bad = 0;
        for (size_t i = 0; i < v->items.size(); ++i) {
            if (bad == kMaxElementErrors) {
                error(v->items[i].origin, vk + "." + std::to_string(i),
                      "values from here on not checked after " + std::to_string(kMaxElementErrors) +
                          " errors");
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
        auto s = get_string(p, fk);
        if (!s) return;
        if (s->empty()) {
            error(p->origin, fk, "expected a file path, got an empty string");
            return;
        }
        fs::path full = resolve(*s);
        b.init.file = full.string();
        std::error_code ec;
        if (!fs::exists(full, ec)) {
            error(p->origin, fk, "init file not found: " + full.string());
        } else if (!fs::is_regular_file(full, ec)) {
            error(p->origin, fk, "init file is not a regular file: " + full.string());
        } else if (typed) {
            uintmax_t size = fs::file_size(full, ec);
            if (ec) {
                error(p->origin, fk,
                      "cannot read init file " + full.string() + ": " + ec.message());
            } else if (size != b.bytes()) {
                error(p->origin, fk,
                      "init file " + full.string() + " has " + std::to_string(size) +
                          " bytes, buffer " + quote(b.name) + " (" + dtype_name(b.dtype) +
                          shape_str(b.shape) + ") needs " + std::to_string(b.bytes()));
            }
        }
    }
}

void Loader::load_cores(const YNode* n, const YNode& workload, const Fields& wf) {
    if (!n) {
        missing(&wf, "cores", workload, "workload.cores");
        return;
    }
    if (n->kind != YNode::Kind::seq || n->items.empty()) {
        error(n->origin, "workload.cores",
              "expected a non-empty list of cores ({pe, firmware, args}), got " +
                  (n->kind == YNode::Kind::seq ? "an empty list" : describe(*n)));
        return;
    }
    std::map<uint32_t, std::string> pes;
    for (size_t i = 0; i < n->items.size(); ++i)
        load_core(n->items[i], "workload.cores." + std::to_string(i), pes);
}

void Loader::load_core(const YNode& n, const std::string& key,
                       std::map<uint32_t, std::string>& pes) {
    Fields f = read_map(&n, key, {"pe", "firmware", "args"});
    if (!f.ok) return;
    CoreLoad c;
    c.origin = n.origin;
    bool ok = true;
    if (const YNode* p = f.get("pe")) {
        if (auto v = get_uint(p, key + ".pe", kMaxPe - 1, "a pe index")) {
            c.pe = static_cast<uint32_t>(*v);
        } else {
            ok = false;
        }
    }
    if (ok) {
        const YNode* p = f.get("pe");
        auto it = pes.find(c.pe);
        if (it != pes.end()) {
            error(p ? p->origin : n.origin, key + ".pe",
                  "pe " + std::to_string(c.pe) + " is already loaded by " + it->second);
            ok = false;
        } else {
            pes[c.pe] = key;
        }
    }
    if (const YNode* fw = f.get("firmware")) {
        resolve_firmware(*fw, key + ".firmware", c.firmware, c.firmware_path);
        if (c.firmware_path.empty()) ok = false;
    } else {
        missing(&f, "firmware", n, key + ".firmware");
        ok = false;
    }

    std::string ak = key + ".args";
    auto args = read_entries(f.get("args"), ak, true);
    if (args.size() > S2_ARGS_WORDS) {
        error(f.get("args")->origin, ak,
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
            if (!contains(m_declared, name)) {
                std::string msg = "unknown buffer " + quote(name) + did_you_mean(name, m_declared);
                error(v.origin, sub,
                      msg + (m_declared.empty() ? "; no buffers are declared"
                                                : "; buffers: " + join(m_declared, ", ")));
                ok = false;
                continue;
            }
            w.buffer = name;
        } else {
            IntLit x = v.kind == YNode::Kind::scalar ? parse_int(v.text) : IntLit{};
            if (x.status == IntLit::Status::malformed) {
                error(v.origin, sub, "expected an integer or \"@buffer\", got " + describe(v));
                ok = false;
                continue;
            }
            if (!in_range(x, std::numeric_limits<int32_t>::min(),
                          std::numeric_limits<uint32_t>::max())) {
                error(v.origin, sub,
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
    if (ok) m_s.cores.push_back(std::move(c));
}

void Loader::resolve_firmware(const YNode& n, const std::string& key, std::string& name,
                              std::string& path) {
    path.clear();
    auto s = get_string(&n, key);
    if (!s) return;
    name = *s;
    const std::string& fw = *s;
    bool is_path = fw.size() > 4 && fw.compare(fw.size() - 4, 4, ".elf") == 0;
    std::error_code ec;
    if (is_path) {
        fs::path full = resolve(fw);
        if (fs::is_regular_file(full, ec)) {
            path = full.string();
        } else {
            error(n.origin, key, "firmware file not found: " + full.string());
        }
        return;
    }
    if (fw.empty() || fw.find('/') != std::string::npos) {
        error(n.origin, key,
              "expected a built-in program name or a path ending in .elf, got " + quote(fw));
        return;
    }
    std::vector<std::string> looked;
    std::vector<std::string> available;
    for (const auto& dir : m_opts.firmware_dirs) {
        fs::path p = fs::absolute(fs::path(dir) / (fw + ".elf")).lexically_normal();
        if (fs::is_regular_file(p, ec)) {
            path = p.string();
            return;
        }
        looked.push_back(p.string());
        for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
            if (it->path().extension() == ".elf") available.push_back(it->path().stem().string());
        }
    }
    if (looked.empty()) {
        error(n.origin, key,
              "firmware " + quote(fw) + " not found: no firmware directories configured");
        return;
    }
    std::sort(available.begin(), available.end());
    error(n.origin, key,
          "firmware " + quote(fw) + " not found; looked in: " + join(looked, ", ") +
              did_you_mean(fw, available));
}

// A file of the dnn workload: resolved against the scenario, must exist. "" if absent or bad.
std::string Loader::load_dnn_file(const Fields& f, const char* field, bool required,
                                  const YNode& dnn) {
    const std::string fk = std::string("workload.dnn.") + field;
    const YNode* v = f.get(field);
    if (!v) {
        if (required) missing(&f, field, dnn, fk);
        return "";
    }
    auto s = get_string(v, fk);
    if (!s) return "";
    if (s->empty()) {
        error(v->origin, fk, "expected a file path, got an empty string");
        return "";
    }
    fs::path full = resolve(*s);
    std::error_code ec;
    if (!fs::exists(full, ec)) {
        error(v->origin, fk, std::string(field) + " file not found: " + full.string());
        return "";
    }
    if (!fs::is_regular_file(full, ec)) {
        error(v->origin, fk, std::string(field) + " file is not a regular file: " + full.string());
        return "";
    }
    return full.string();
}

void Loader::load_dnn(const YNode* n, const YNode& workload, const Fields& wf) {
    const std::string key = "workload.dnn";
    if (!n) {
        missing(&wf, "dnn", workload, key);
        return;
    }
    Fields f = read_map(n, key, names(kDnnKeys));
    if (!f.ok) return;
    const size_t errors_before = m_errors.size();
    DnnWorkload d;
    d.origin = n->origin;
    for (const char* k : kDnnKeys) {
        const YNode* v = f.get(k);
        d.origins[k] = v ? v->origin : n->origin;
    }

    d.model = load_dnn_file(f, "model", true, *n);
    d.inputs = load_dnn_file(f, "inputs", true, *n);
    d.labels = load_dnn_file(f, "labels", false, *n);
    d.float_predictions = load_dnn_file(f, "float_predictions", false, *n);
    if (!d.inputs.empty()) {
        std::error_code ec;
        if (fs::file_size(d.inputs, ec) == 0 && !ec)
            error(f.get("inputs")->origin, key + ".inputs", "inputs file is empty: " + d.inputs);
    }

    bool range_ok = true;
    if (const YNode* v = f.get("first")) {
        if (auto x =
                get_uint(v, key + ".first", std::numeric_limits<uint64_t>::max(), "an input index"))
            d.first = *x;
        else
            range_ok = false;
    }
    if (const YNode* v = f.get("count")) {
        if (auto x = get_uint(v, key + ".count", std::numeric_limits<uint64_t>::max(),
                              "an inference count")) {
            if (*x == 0) {
                error(v->origin, key + ".count",
                      "expected an inference count >= 1, got " + describe(*v));
                range_ok = false;
            } else {
                d.count = *x;
            }
        } else {
            range_ok = false;
        }
    }
    // Labels and float predictions hold one byte per input: the run's inputs must be among them
    // (the inputs file's entry size depends on the model, which the host program checks).
    if (range_ok) {
        for (const auto& [field, file] :
             {std::pair<const char*, const std::string*>{"labels", &d.labels},
              {"float_predictions", &d.float_predictions}}) {
            if (file->empty()) continue;
            std::error_code ec;
            uint64_t entries = fs::file_size(*file, ec);
            if (ec) continue;
            if (d.first >= entries || d.count > entries - d.first) {
                error(d.origins.at("count"), key + ".count",
                      "first " + std::to_string(d.first) + " + count " + std::to_string(d.count) +
                          " runs past the " + std::to_string(entries) + " entries of " + field +
                          " " + *file);
            }
        }
    }

    bool scheduler_ok = true;
    if (const YNode* v = f.get("scheduler_pe")) {
        if (auto x = get_uint(v, key + ".scheduler_pe", kChipPes - 1, "a global pe index"))
            d.scheduler_pe = static_cast<uint32_t>(*x);
        else
            scheduler_ok = false;
    }

    const YNode* workers = f.get("workers");
    const YNode* worker_pes = f.get("worker_pes");
    if (workers) {
        const std::string k = key + ".workers";
        IntLit x = workers->kind == YNode::Kind::scalar ? parse_int(workers->text) : IntLit{};
        if (workers->kind == YNode::Kind::scalar && workers->text == "all") {
            d.workers = 0;  // the platform knows how many PEs "all" is
            d.all_workers = true;
        } else if (in_range(x, 1, kChipPes - 1)) {
            d.workers = static_cast<uint32_t>(x.mag);
        } else {
            error(workers->origin, k,
                  "expected a worker count in [1, " + std::to_string(kChipPes - 1) +
                      "] or \"all\", got " + describe(*workers) +
                      (workers->kind == YNode::Kind::scalar && x.status == IntLit::Status::malformed
                           ? did_you_mean(workers->text, {"all"})
                           : ""));
        }
    }
    if (worker_pes) {
        const std::string k = key + ".worker_pes";
        if (worker_pes->kind != YNode::Kind::seq || worker_pes->items.empty()) {
            error(worker_pes->origin, k,
                  "expected a non-empty list of global pe indices, got " +
                      (worker_pes->kind == YNode::Kind::seq ? "an empty list"
                                                            : describe(*worker_pes)));
        }
        std::map<uint32_t, const YNode*> seen;
        for (size_t i = 0; worker_pes->kind == YNode::Kind::seq && i < worker_pes->items.size();
             ++i) {
            const YNode& item = worker_pes->items[i];
            const std::string ik = k + "." + std::to_string(i);
            IntLit x = item.kind == YNode::Kind::scalar ? parse_int(item.text) : IntLit{};
            if (!in_range(x, 0, kChipPes - 1)) {
                error(item.origin, ik,
                      "expected a global pe index in [0, " + std::to_string(kChipPes - 1) +
                          "], got " + describe(item));
                continue;
            }
            const uint32_t pe = static_cast<uint32_t>(x.mag);
            d.origins["worker_pes." + std::to_string(i)] = item.origin;
            if (scheduler_ok && pe == d.scheduler_pe) {
                error(item.origin, ik,
                      "pe " + std::to_string(pe) +
                          " is the scheduler (scheduler_pe); workers must be other pes");
                continue;
            }
            auto it = seen.find(pe);
            if (it != seen.end()) {
                error(item.origin, ik,
                      "duplicate worker pe " + std::to_string(pe) + " (first at " +
                          it->second->origin.str() + ")");
                continue;
            }
            seen[pe] = &item;
            d.worker_pes.push_back(pe);
        }
    }
    if (workers && worker_pes) {
        const YNode* k = key_node(*n, "worker_pes");
        error(k->origin, key + ".worker_pes",
              "give either workers (a count or \"all\") or worker_pes (a list), not both "
              "(workers at " +
                  key_node(*n, "workers")->origin.str() + ")");
    }

    if (const YNode* v = f.get("max_workers_per_layer")) {
        if (auto x = get_uint(v, key + ".max_workers_per_layer", kChipPes - 1,
                              "a worker count (0 = no cap)"))
            d.max_workers_per_layer = *x;
    }
    if (const YNode* v = f.get("published_us")) {
        const std::string k = key + ".published_us";
        d.origins["published_us"] = v->origin;
        if (v->kind != YNode::Kind::seq || v->items.empty()) {
            error(v->origin, k,
                  "expected a list of times in us (setup, layers, cleanup, total), got " +
                      describe(*v));
        } else {
            for (size_t i = 0; i < v->items.size(); ++i) {
                const YNode& item = v->items[i];
                char* end = nullptr;
                const double x =
                    item.kind == YNode::Kind::scalar ? std::strtod(item.text.c_str(), &end) : -1;
                if (item.kind != YNode::Kind::scalar || item.text.empty() || *end || !(x >= 0)) {
                    error(item.origin, k + "." + std::to_string(i),
                          "expected a time in us >= 0, got " + describe(item));
                    continue;
                }
                d.published_us.push_back(x);
            }
        }
    }
    if (const YNode* v = f.get("published_source")) {
        if (auto x = get_string(v, key + ".published_source")) d.published_source = *x;
    }
    if (const YNode* v = f.get("layer_workers")) {
        const std::string k = key + ".layer_workers";
        d.origins["layer_workers"] = v->origin;
        if (v->kind != YNode::Kind::seq) {
            error(v->origin, k,
                  "expected a list of worker counts (0 = no cap), got " + describe(*v));
        } else {
            for (size_t i = 0; i < v->items.size(); ++i) {
                const YNode& item = v->items[i];
                IntLit x = item.kind == YNode::Kind::scalar ? parse_int(item.text) : IntLit{};
                if (!in_range(x, 0, kChipPes - 1)) {
                    error(item.origin, k + "." + std::to_string(i),
                          "expected a worker count in [0, " + std::to_string(kChipPes - 1) +
                              "] (0 = no cap), got " + describe(item));
                    continue;
                }
                d.layer_workers.push_back(x.mag);
            }
        }
    }

    // Absent firmware keys resolve the built-in default; its errors point at the dnn map.
    auto firmware = [&](const char* field, std::string& name, std::string& path) {
        const YNode dflt = YNode::scalar(name, n->origin);
        const YNode* v = f.get(field);
        resolve_firmware(v ? *v : dflt, key + "." + field, name, path);
    };
    firmware("scheduler_firmware", d.scheduler_firmware, d.scheduler_firmware_path);
    firmware("worker_firmware", d.worker_firmware, d.worker_firmware_path);

    if (auto b = get_bool(f.get("check"), key + ".check")) d.check = *b;

    if (m_errors.size() == errors_before) m_s.dnn = std::move(d);
}

std::optional<double> Loader::get_real(const YNode* n, const std::string& key, double lo, double hi,
                                       const char* what) {
    if (!n) return std::nullopt;
    std::optional<double> v;
    if (n->kind == YNode::Kind::scalar) v = parse_real(n->text);
    if (!v) {
        error(n->origin, key, std::string("expected ") + what + ", got " + describe(*n));
        return std::nullopt;
    }
    if (!(*v >= lo && *v <= hi)) {
        error(n->origin, key,
              std::string("expected ") + what + " in [" + format_real(lo) + ", " + format_real(hi) +
                  "], got " + describe(*n));
        return std::nullopt;
    }
    return v;
}

// One input entry: {population, kind: poisson|regular|times, rate_hz, start_us, stop_us,
// times_us}.
std::optional<Bss2Input> Loader::load_bss2_input(const YNode& n, const std::string& key,
                                                 double runtime_us) {
    Fields f =
        read_map(&n, key, {"population", "kind", "rate_hz", "start_us", "stop_us", "times_us"});
    if (!f.ok) return std::nullopt;
    const size_t before = m_errors.size();
    Bss2Input in;
    in.origin = n.origin;
    if (auto s = get_string(f.get("population"), key + ".population"))
        in.population = *s;
    else if (!f.get("population"))
        missing(&f, "population", n, key + ".population");
    if (auto k = get_choice(f.get("kind"), key + ".kind", {"poisson", "regular", "times"}))
        in.kind = *k == "poisson"   ? Bss2Input::Kind::poisson
                  : *k == "regular" ? Bss2Input::Kind::regular
                                    : Bss2Input::Kind::times;
    const double max_rate = 1e9;  // far above any link: the platform reports what gets through
    if (in.kind == Bss2Input::Kind::times) {
        for (const char* k : {"rate_hz", "start_us", "stop_us"})
            if (f.get(k)) not_allowed(n, k, key + "." + k, "kind times lists the spike times");
        const YNode* t = f.get("times_us");
        if (!t) {
            missing(&f, "times_us", n, key + ".times_us");
        } else if (t->kind != YNode::Kind::seq) {
            error(t->origin, key + ".times_us",
                  "expected a list with one list of spike times (us) per neuron, got " +
                      describe(*t));
        } else {
            for (size_t i = 0; i < t->items.size(); ++i) {
                const YNode& lst = t->items[i];
                const std::string ik = key + ".times_us." + std::to_string(i);
                std::vector<double> times;
                if (lst.kind != YNode::Kind::seq && lst.kind != YNode::Kind::null) {
                    error(lst.origin, ik,
                          "expected a list of spike times (us), got " + describe(lst));
                    continue;
                }
                for (size_t j = 0; j < lst.items.size(); ++j)
                    if (auto v = get_real(&lst.items[j], ik + "." + std::to_string(j), 0,
                                          runtime_us, "a spike time (us) within the run"))
                        times.push_back(*v);
                std::sort(times.begin(), times.end());
                in.times_us.push_back(std::move(times));
            }
        }
    } else {
        if (f.get("times_us")) not_allowed(n, "times_us", key + ".times_us", "only for kind times");
        if (auto v = get_real(f.get("rate_hz"), key + ".rate_hz", 0, max_rate, "a rate (Hz)"))
            in.rate_hz = *v;
        else if (!f.get("rate_hz"))
            missing(&f, "rate_hz", n, key + ".rate_hz");
        if (auto v = get_real(f.get("start_us"), key + ".start_us", 0, runtime_us,
                              "a time (us) within the run"))
            in.start_us = *v;
        if (auto v = get_real(f.get("stop_us"), key + ".stop_us", 0, runtime_us,
                              "a time (us) within the run"))
            in.stop_us = *v;
        if (in.stop_us && *in.stop_us < in.start_us)
            error(f.get("stop_us")->origin, key + ".stop_us", "stop_us is before start_us");
    }
    if (m_errors.size() != before) return std::nullopt;
    return in;
}

void Loader::load_bss2(const YNode* n, const YNode& workload, const Fields& wf) {
    const std::string key = "workload.bss2";
    if (!n) {
        missing(&wf, "bss2", workload, key);
        return;
    }
    Fields f = read_map(n, key, names(kBss2Keys));
    if (!f.ok) return;
    Bss2Workload b;
    b.origin = n->origin;
    for (const char* k : kBss2Keys) {
        const YNode* v = f.get(k);
        b.origins[k] = v ? v->origin : n->origin;
    }
    if (const YNode* v = f.get("network")) {
        if (auto s = get_string(v, key + ".network")) {
            fs::path full = resolve(*s);
            std::error_code ec;
            if (s->empty())
                error(v->origin, key + ".network", "expected a file path, got an empty string");
            else if (!fs::is_regular_file(full, ec))
                error(v->origin, key + ".network", "network file not found: " + full.string());
            else
                b.network = full.string();
        }
    } else {
        missing(&f, "network", *n, key + ".network");
    }
    if (auto v = get_real(f.get("runtime_us"), key + ".runtime_us", 1e-3, 1e7,
                          "a run duration (us, hardware time)"))
        b.runtime_us = *v;
    if (auto v = get_bool(f.get("cadc"), key + ".cadc")) b.cadc = *v;
    if (auto v = get_bool(f.get("reset_between_runs"), key + ".reset_between_runs"))
        b.reset_between_runs = *v;
    const YNode* dot = f.get("dot");
    if (dot && dot->kind == YNode::Kind::null) dot = nullptr;  // `dot: ~`: no graph file
    // An output, relative to the working directory; "" = none.
    if (auto s = get_string(dot, key + ".dot")) b.dot = *s;
    if (const YNode* m = f.get("madc")) {
        Fields mf = read_map(m, key + ".madc", {"population", "neuron"});
        if (mf.ok) {
            Bss2Workload::Probe p;
            p.origin = m->origin;
            if (auto s = get_string(mf.get("population"), key + ".madc.population"))
                p.population = *s;
            else if (!mf.get("population"))
                missing(&mf, "population", *m, key + ".madc.population");
            if (auto x = get_uint(mf.get("neuron"), key + ".madc.neuron", 511, "a neuron index"))
                p.neuron = *x;
            b.madc = p;
        }
    }
    const YNode* runs = f.get("runs");
    const YNode* sweep = f.get("input_sweep");
    if (runs && sweep) {
        error(sweep->origin, key + ".input_sweep", "give either runs or input_sweep, not both");
    } else if (runs) {
        if (runs->kind != YNode::Kind::seq || runs->items.empty()) {
            error(runs->origin, key + ".runs",
                  "expected a non-empty list of runs, got " + describe(*runs));
        } else {
            for (size_t i = 0; i < runs->items.size(); ++i) {
                const YNode& r = runs->items[i];
                const std::string rk = key + ".runs." + std::to_string(i);
                Fields rf = read_map(&r, rk, {"inputs"}, true);
                if (!rf.ok) continue;
                Bss2Run run;
                run.origin = r.origin;
                if (const YNode* ins = rf.get("inputs")) {
                    if (ins->kind != YNode::Kind::seq) {
                        error(ins->origin, rk + ".inputs",
                              "expected a list of inputs, got " + describe(*ins));
                    } else {
                        for (size_t j = 0; j < ins->items.size(); ++j)
                            if (auto in = load_bss2_input(ins->items[j],
                                                          rk + ".inputs." + std::to_string(j),
                                                          b.runtime_us))
                                run.inputs.push_back(std::move(*in));
                    }
                }
                b.runs.push_back(std::move(run));
            }
        }
    } else if (sweep) {
        // {population, kind, rates_hz: [...], start_us, stop_us}: one run per rate.
        const std::string sk = key + ".input_sweep";
        Fields sf = read_map(sweep, sk, {"population", "kind", "rates_hz", "start_us", "stop_us"});
        if (sf.ok) {
            const YNode* rates = sf.get("rates_hz");
            // A single rate (scalar) is one run, so that --set and sweeps can vary it.
            YNode one;
            if (rates && rates->kind == YNode::Kind::scalar) {
                one.kind = YNode::Kind::seq;
                one.origin = rates->origin;
                one.items.push_back(*rates);
                rates = &one;
            }
            if (!rates) {
                missing(&sf, "rates_hz", *sweep, sk + ".rates_hz");
            } else if (rates->kind != YNode::Kind::seq || rates->items.empty()) {
                error(rates->origin, sk + ".rates_hz",
                      "expected a rate or a non-empty list of rates (Hz), got " + describe(*rates));
            } else {
                for (size_t i = 0; i < rates->items.size(); ++i) {
                    auto v = get_real(&rates->items[i], sk + ".rates_hz." + std::to_string(i), 0,
                                      1e9, "a rate (Hz)");
                    if (!v) continue;
                    YNode in;  // the equivalent input entry, with the sweep's origins
                    in.kind = YNode::Kind::map;
                    in.origin = sweep->origin;
                    for (size_t k = 0; k < sweep->keys.size(); ++k) {
                        if (sweep->keys[k].text == "rates_hz") continue;
                        in.keys.push_back(sweep->keys[k]);
                        in.items.push_back(sweep->items[k]);
                    }
                    in.keys.push_back(YNode::scalar("rate_hz", rates->items[i].origin));
                    in.items.push_back(rates->items[i]);
                    Bss2Run run;
                    run.origin = rates->items[i].origin;
                    if (auto x = load_bss2_input(in, sk, b.runtime_us))
                        run.inputs.push_back(std::move(*x));
                    b.runs.push_back(std::move(run));
                }
            }
        }
    } else {
        b.runs.push_back(Bss2Run{{}, n->origin});  // one run without external input
    }
    m_s.bss2 = std::move(b);
}

bool Loader::check_buffer_ref(const YNode& n, const std::string& key, const std::string& name) {
    if (contains(m_declared, name)) return true;
    error(n.origin, key,
          "unknown buffer " + quote(name) + did_you_mean(name, m_declared) +
              (m_declared.empty() ? "; no buffers are declared"
                                  : "; buffers: " + join(m_declared, ", ")));
    return false;
}

void Loader::load_checks(const YNode* n) {
    if (!n || n->kind == YNode::Kind::null) return;
    if (n->kind != YNode::Kind::seq) {
        error(n->origin, "checks", "expected a list of checks, got " + describe(*n));
        return;
    }
    for (size_t i = 0; i < n->items.size(); ++i)
        load_check(n->items[i], "checks." + std::to_string(i));
}

void Loader::load_check(const YNode& n, const std::string& key) {
    // Per-kind keys; an unknown or missing kind validates against all of them.
    std::vector<std::string> valid = {"kind", "buffer", "expect", "atol", "op"};
    std::optional<std::string> kind;
    if (n.kind == YNode::Kind::map) {
        for (size_t i = 0; i < n.keys.size(); ++i) {
            if (n.keys[i].text != "kind") continue;
            kind = get_choice(&n.items[i], key + ".kind", names(kCheckKinds));
            break;
        }
    }
    if (kind == std::string("reference")) valid = {"kind", "buffer", "op"};
    if (kind == std::string("equal")) valid = {"kind", "buffer", "expect"};
    if (kind == std::string("allclose")) valid = {"kind", "buffer", "atol", "op"};
    Fields f = read_map(&n, key, valid);
    if (!f.ok) return;
    if (!f.get("kind")) missing(&f, "kind", n, key + ".kind");
    Check c;
    c.origin = n.origin;
    bool ok = kind.has_value();
    if (kind) c.kind = *kind;

    auto buffer_field = [&](const char* field, std::string& out) {
        const YNode* b = f.get(field);
        if (!b) {
            if (kind) missing(&f, field, n, key + "." + field);
            ok = false;
            return;
        }
        auto s = get_string(b, key + "." + field);
        if (!s || !check_buffer_ref(*b, key + "." + field, *s)) {
            ok = false;
            return;
        }
        out = *s;
    };
    buffer_field("buffer", c.buffer);
    if (kind == std::string("equal")) {
        buffer_field("expect", c.expect);
        auto a = m_s.buffers.find(c.buffer);
        auto b = m_s.buffers.find(c.expect);
        if (ok && a != m_s.buffers.end() && b != m_s.buffers.end() &&
            (a->second.dtype != b->second.dtype || a->second.elements() != b->second.elements())) {
            error(f.get("expect")->origin, key + ".expect",
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
                error(a->origin, key + ".atol",
                      "expected a non-negative real number, got " + describe(*a));
                ok = false;
            } else {
                c.atol = *v;
            }
        } else {
            missing(&f, "atol", n, key + ".atol");
            ok = false;
        }
    }
    if (kind == std::string("reference") || kind == std::string("allclose")) {
        const YNode* op = f.get("op");
        std::string ok_key = key + ".op";
        if (!op) {
            missing(&f, "op", n, ok_key);
            ok = false;
        } else if (op->kind != YNode::Kind::map) {
            error(op->origin, ok_key,
                  "expected a map {fn: <reference op>, <operand>: <value>, ...}, got " +
                      describe(*op));
            ok = false;
        } else {
            for (const auto& e : read_entries(op, ok_key, false)) {
                std::string sub = path_join(ok_key, e.key->text);
                if (e.value->kind != YNode::Kind::scalar) {
                    error(e.value->origin, sub,
                          "expected a scalar (number, name or buffer), got " + describe(*e.value));
                    ok = false;
                    continue;
                }
                if (contains(names(kOpBufferKeys), e.key->text) &&
                    !check_buffer_ref(*e.value, sub, e.value->text)) {
                    ok = false;
                    continue;
                }
                c.op[e.key->text] = e.value->text;
            }
            if (!c.op.count("fn") && !std::any_of(op->keys.begin(), op->keys.end(),
                                                  [](const YNode& k) { return k.text == "fn"; })) {
                missing(nullptr, "fn", *op, ok_key + ".fn");
                ok = false;
            }
        }
    }
    if (ok) m_s.checks.push_back(std::move(c));
}

void Loader::load_trace(const YNode* n) {
    Fields f = read_map(n, "trace", {"file", "events", "console_stdout"}, true);
    if (const YNode* p = f.get("file")) {
        auto s = get_string(p, "trace.file");
        if (s && s->empty()) error(p->origin, "trace.file", "expected a file path, got \"\"");
        if (s && !s->empty()) m_s.trace.file = *s;
    }
    if (auto b = get_bool(f.get("events"), "trace.events")) m_s.trace.events = *b;
    if (auto b = get_bool(f.get("console_stdout"), "trace.console_stdout"))
        m_s.trace.console_stdout = *b;
    if (m_s.trace.file.empty()) m_s.trace.file = m_s.name + ".h5";
}

Scenario Loader::run() {
    const Origin file_origin{m_path, 0, 0};
    auto fail = [&](const std::string& msg) {
        throw ScenarioError({ConfigError{file_origin, "", msg}});
    };
    std::error_code ec;
    if (!fs::exists(m_path, ec)) fail("cannot open scenario: no such file");
    if (fs::is_directory(m_path, ec)) fail("cannot open scenario: is a directory");
    std::ifstream in(m_path, std::ios::binary);
    if (!in) fail(std::string("cannot open scenario: ") + std::strerror(errno));
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) fail("cannot read scenario");
    m_s.path = m_path;
    m_s.source_text = text.str();

    YAML::Node doc;
    try {
        doc = YAML::Load(m_s.source_text);
    } catch (const YAML::Exception& e) {
        std::string msg = "malformed YAML: " + e.msg;
        // yaml-cpp's messages do not say that a tab in the indentation is the cause.
        if (!e.mark.is_null()) {
            std::istringstream lines(m_s.source_text);
            std::string line;
            for (int i = 0; i <= e.mark.line && std::getline(lines, line); ++i) {
            }
            size_t indent_end = line.find_first_not_of(" \t");
            if (line.substr(0, indent_end).find('\t') != std::string::npos)
                msg += " (tabs are not allowed in indentation)";
        }
        throw ScenarioError({ConfigError{origin_of(e.mark, false), "", msg}});
    }
    YNode root = convert(doc, false, 0);
    if (root.kind == YNode::Kind::null) {  // empty file: report the missing keys
        root.kind = YNode::Kind::map;
        root.origin = Origin{m_path, 1, 1};
    }
    if (root.kind != YNode::Kind::map) {
        throw ScenarioError(
            {ConfigError{root.origin, "",
                         "expected a map of scenario keys (" + join(names(kDocKeys), ", ") +
                             "), got " + describe(root)}});
    }
    for (const auto& item : m_opts.sets) apply_set(root, item);

    Fields top = read_map(&root, "", names(kDocKeys));
    m_s.name = fs::path(m_path).stem().string();
    if (auto s = get_string(top.get("name"), "name")) {
        if (s->empty())
            error(top.get("name")->origin, "name", "expected a non-empty name");
        else
            m_s.name = *s;
    }
    if (auto s = get_string(top.get("description"), "description")) m_s.description = *s;
    if (const YNode* s = top.get("seed")) {
        if (auto v = get_uint(s, "seed", std::numeric_limits<uint64_t>::max(),
                              "an unsigned 64-bit integer"))
            m_s.seed = *v;
    }

    if (const YNode* p = top.get("platform")) {
        Fields pf = read_map(p, "platform", {"kind", "params"});
        if (pf.ok) {
            if (const YNode* k = pf.get("kind")) {
                if (auto s = get_choice(k, "platform.kind", names(kPlatformKinds)))
                    m_s.platform_kind = *s;
            } else {
                missing(&pf, "kind", *p, "platform.kind");
            }
            load_params(pf.get("params"));
        }
    } else {
        missing(&top, "platform", root, "platform.kind");
    }
    // --set overrides replace an earlier value for the same path and keep --set order.
    for (const auto& sp : m_set_params) {
        auto& ps = m_s.params;
        ps.erase(std::remove_if(ps.begin(), ps.end(),
                                [&](const ParamOverride& p) { return p.path == sp.path; }),
                 ps.end());
        ps.push_back(sp);
    }

    // The platform kind decides the workload's shape. Without a valid kind (already an error),
    // the workload's own keys decide and nothing is reported as not allowed.
    const bool kind_known = !m_s.platform_kind.empty();
    const YNode* w = top.get("workload");
    bool chip = m_s.platform_kind == kChipKind;
    bool bss2 = m_s.platform_kind == kBss2Kind;
    if (!kind_known && w && w->kind == YNode::Kind::map) {
        chip = key_node(*w, "dnn") && !key_node(*w, "cores");
        bss2 = key_node(*w, "bss2") && !key_node(*w, "cores");
    }
    if (bss2) {
        if (w) {
            Fields wf = read_map(w, "workload", {"buffers", "cores", "dnn", "bss2"});
            if (wf.ok) {
                for (const char* k : {"buffers", "cores", "dnn"})
                    if (kind_known && wf.get(k))
                        not_allowed(*w, k, std::string("workload.") + k,
                                    "the brainscales2 kind runs a workload.bss2");
                load_bss2(wf.get("bss2"), *w, wf);
            }
        } else {
            missing(&top, "workload", root, "workload.bss2");
        }
        if (kind_known && top.get("checks"))
            not_allowed(root, "checks", "checks",
                        "a brainscales2 run reports rates, drops and times; checks are for " +
                            std::string(kPeKind));
        load_trace(top.get("trace"));
        if (!m_errors.empty()) throw ScenarioError(std::move(m_errors));
        return std::move(m_s);
    }
    const std::string chip_why = std::string("the chip kind runs a workload.dnn (buffers, cores ") +
                                 "and checks are for " + kPeKind + ")";
    if (w) {
        Fields wf = read_map(w, "workload", {"buffers", "cores", "dnn", "bss2"});
        if (wf.ok && kind_known && wf.get("bss2"))
            not_allowed(*w, "bss2", "workload.bss2",
                        std::string("a bss2 workload runs on platform kind ") + kBss2Kind);
        if (wf.ok && chip) {
            for (const char* k : {"buffers", "cores"})
                if (kind_known && wf.get(k))
                    not_allowed(*w, k, std::string("workload.") + k, chip_why);
            load_dnn(wf.get("dnn"), *w, wf);
        } else if (wf.ok) {
            if (kind_known && wf.get("dnn"))
                not_allowed(*w, "dnn", "workload.dnn",
                            std::string("a dnn workload runs on platform kind ") + kChipKind);
            load_buffers(wf.get("buffers"));
            load_cores(wf.get("cores"), *w, wf);
        }
    } else {
        missing(&top, "workload", root, chip ? "workload.dnn" : "workload.cores");
    }
    if (!chip)
        load_checks(top.get("checks"));
    else if (kind_known && top.get("checks"))
        not_allowed(root, "checks", "checks",
                    "the chip kind runs a workload.dnn, whose outputs are compared with the "
                    "integer reference by workload.dnn.check");
    load_trace(top.get("trace"));

    if (!m_errors.empty()) throw ScenarioError(std::move(m_errors));
    return std::move(m_s);
}

}  // namespace

Scenario load(const std::string& path, const LoadOptions& opts) { return Loader(path, opts).run(); }

// ---------------------------------------------------------------------------------------------
// Dump

namespace {
std::string hex32(uint32_t v) { return nmsim::hex(v, 8); }

bool is_builtin_name(const std::string& fw) {
    return !(fw.size() > 4 && fw.compare(fw.size() - 4, 4, ".elf") == 0);
}
// The dnn workload with resolved paths (built-in firmware names stay names).
void dump_dnn(YAML::Emitter& e, const DnnWorkload& d) {
    e << YAML::Key << "dnn" << YAML::Value << YAML::BeginMap;
    e << YAML::Key << "model" << YAML::Value << d.model;
    e << YAML::Key << "inputs" << YAML::Value << d.inputs;
    if (!d.labels.empty()) e << YAML::Key << "labels" << YAML::Value << d.labels;
    if (!d.float_predictions.empty())
        e << YAML::Key << "float_predictions" << YAML::Value << d.float_predictions;
    e << YAML::Key << "first" << YAML::Value << static_cast<unsigned long long>(d.first);
    e << YAML::Key << "count" << YAML::Value << static_cast<unsigned long long>(d.count);
    e << YAML::Key << "scheduler_pe" << YAML::Value << d.scheduler_pe;
    if (!d.worker_pes.empty()) {
        e << YAML::Key << "worker_pes" << YAML::Value << YAML::Flow << YAML::BeginSeq;
        for (uint32_t pe : d.worker_pes) e << pe;
        e << YAML::EndSeq;
    } else if (d.all_workers) {
        e << YAML::Key << "workers" << YAML::Value << "all";
    } else {
        e << YAML::Key << "workers" << YAML::Value << d.workers;
    }
    e << YAML::Key << "max_workers_per_layer" << YAML::Value
      << static_cast<unsigned long long>(d.max_workers_per_layer);
    if (!d.published_us.empty()) {
        e << YAML::Key << "published_us" << YAML::Value << YAML::Flow << YAML::BeginSeq;
        for (double t : d.published_us) e << t;
        e << YAML::EndSeq;
    }
    if (!d.published_source.empty())
        e << YAML::Key << "published_source" << YAML::Value << d.published_source;
    if (!d.layer_workers.empty()) {
        e << YAML::Key << "layer_workers" << YAML::Value << YAML::Flow << YAML::BeginSeq;
        for (uint64_t w : d.layer_workers) e << static_cast<unsigned long long>(w);
        e << YAML::EndSeq;
    }
    e << YAML::Key << "scheduler_firmware" << YAML::Value
      << (is_builtin_name(d.scheduler_firmware) ? d.scheduler_firmware : d.scheduler_firmware_path);
    e << YAML::Key << "worker_firmware" << YAML::Value
      << (is_builtin_name(d.worker_firmware) ? d.worker_firmware : d.worker_firmware_path);
    e << YAML::Key << "check" << YAML::Value << d.check;
    e << YAML::EndMap;
}
// The bss2 workload with resolved paths; runs are written out (an input_sweep dumps as runs).
void dump_bss2(YAML::Emitter& e, const Bss2Workload& b) {
    e << YAML::Key << "bss2" << YAML::Value << YAML::BeginMap;
    e << YAML::Key << "network" << YAML::Value << b.network;
    e << YAML::Key << "runtime_us" << YAML::Value << b.runtime_us;
    e << YAML::Key << "runs" << YAML::Value << YAML::BeginSeq;
    for (const auto& r : b.runs) {
        e << YAML::BeginMap << YAML::Key << "inputs" << YAML::Value << YAML::BeginSeq;
        for (const auto& in : r.inputs) {
            e << YAML::Flow << YAML::BeginMap;
            e << YAML::Key << "population" << YAML::Value << in.population;
            if (in.kind == Bss2Input::Kind::times) {
                e << YAML::Key << "kind" << YAML::Value << "times";
                e << YAML::Key << "times_us" << YAML::Value << YAML::BeginSeq;
                for (const auto& t : in.times_us) {
                    e << YAML::BeginSeq;
                    for (double x : t) e << x;
                    e << YAML::EndSeq;
                }
                e << YAML::EndSeq;
            } else {
                e << YAML::Key << "kind" << YAML::Value
                  << (in.kind == Bss2Input::Kind::poisson ? "poisson" : "regular");
                e << YAML::Key << "rate_hz" << YAML::Value << in.rate_hz;
                e << YAML::Key << "start_us" << YAML::Value << in.start_us;
                if (in.stop_us) e << YAML::Key << "stop_us" << YAML::Value << *in.stop_us;
            }
            e << YAML::EndMap;
        }
        e << YAML::EndSeq << YAML::EndMap;
    }
    e << YAML::EndSeq;
    if (b.madc) {
        e << YAML::Key << "madc" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key
          << "population" << YAML::Value << b.madc->population << YAML::Key << "neuron"
          << YAML::Value << static_cast<unsigned long long>(b.madc->neuron) << YAML::EndMap;
    }
    e << YAML::Key << "cadc" << YAML::Value << b.cadc;
    e << YAML::Key << "reset_between_runs" << YAML::Value << b.reset_between_runs;
    if (!b.dot.empty()) e << YAML::Key << "dot" << YAML::Value << b.dot;
    e << YAML::EndMap;
}
}  // namespace

std::string dump(const Scenario& s) {
    YAML::Emitter e;
    e << YAML::BeginMap;
    e << YAML::Key << "name" << YAML::Value << s.name;
    e << YAML::Key << "description" << YAML::Value << YAML::DoubleQuoted << s.description;
    e << YAML::Key << "seed" << YAML::Value << static_cast<unsigned long long>(s.seed);

    e << YAML::Key << "platform" << YAML::Value << YAML::BeginMap;
    e << YAML::Key << "kind" << YAML::Value << s.platform_kind;
    if (!s.params.empty()) {
        e << YAML::Key << "params" << YAML::Value << YAML::BeginMap;
        for (const auto& p : s.params) e << YAML::Key << p.path << YAML::Value << p.value;
        e << YAML::EndMap;
    }
    e << YAML::EndMap;

    e << YAML::Key << "workload" << YAML::Value << YAML::BeginMap;
    if (!s.buffer_order.empty()) {
        e << YAML::Key << "buffers" << YAML::Value << YAML::BeginMap;
        for (const auto& name : s.buffer_order) {
            const Buffer& b = s.buffers.at(name);
            e << YAML::Key << name << YAML::Value << YAML::Flow << YAML::BeginMap;
            e << YAML::Key << "dtype" << YAML::Value << dtype_name(b.dtype);
            e << YAML::Key << "shape" << YAML::Value << YAML::Flow << YAML::BeginSeq;
            for (uint64_t d : b.shape) e << static_cast<unsigned long long>(d);
            e << YAML::EndSeq;
            e << YAML::Key << "at" << YAML::Value
              << (b.at.kind == Placement::Kind::ext ? std::string("ext")
                                                    : "pe" + std::to_string(b.at.pe) + ".sram");
            if (b.at.address) e << YAML::Key << "address" << YAML::Value << hex32(*b.at.address);
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
    if (s.dnn) {
        dump_dnn(e, *s.dnn);
    } else if (s.bss2) {
        dump_bss2(e, *s.bss2);
    } else {
        e << YAML::Key << "cores" << YAML::Value << YAML::BeginSeq;
        for (const auto& c : s.cores) {
            e << YAML::BeginMap;
            e << YAML::Key << "pe" << YAML::Value << c.pe;
            // A path is written resolved so that the dump loads from any directory.
            e << YAML::Key << "firmware" << YAML::Value
              << (is_builtin_name(c.firmware) ? c.firmware : c.firmware_path);
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
    }
    e << YAML::EndMap;

    if (!s.checks.empty()) {
        e << YAML::Key << "checks" << YAML::Value << YAML::BeginSeq;
        for (const auto& c : s.checks) {
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

    e << YAML::Key << "trace" << YAML::Value << YAML::BeginMap;
    e << YAML::Key << "file" << YAML::Value << s.trace.file;
    e << YAML::Key << "events" << YAML::Value << s.trace.events;
    e << YAML::Key << "console_stdout" << YAML::Value << s.trace.console_stdout;
    e << YAML::EndMap;
    e << YAML::EndMap;
    return std::string(e.c_str()) + "\n";
}

// ---------------------------------------------------------------------------------------------
// Comparison

namespace {
template <class T>
std::string to_text(const T& v) {
    std::ostringstream os;
    os << v;
    return os.str();
}
std::string to_text(const std::string& v) { return quote(v); }
std::string to_text(bool v) { return v ? "true" : "false"; }
std::string to_text(double v) { return format_real(v); }
std::string to_text(const std::optional<uint32_t>& v) { return v ? to_text(*v) : "none"; }
std::string to_text(const std::vector<uint64_t>& v) { return shape_str(v); }

class Differ {
public:
    template <class T>
    Differ& field(const std::string& key, const T& a, const T& b) {
        if (m_diff.empty() && !(a == b)) m_diff = key + ": " + to_text(a) + " != " + to_text(b);
        return *this;
    }
    Differ& count(const std::string& key, size_t a, size_t b) {
        if (m_diff.empty() && a != b)
            m_diff = key + ": " + std::to_string(a) + " != " + std::to_string(b) + " entries";
        return *this;
    }
    // Element count, then element by element ("key.i").
    template <class T>
    Differ& list(const std::string& key, const std::vector<T>& a, const std::vector<T>& b) {
        count(key, a.size(), b.size());
        for (size_t i = 0; i < a.size() && !done(); ++i)
            field(key + "." + std::to_string(i), a[i], b[i]);
        return *this;
    }
    bool done() const { return !m_diff.empty(); }
    std::string result() const { return m_diff; }

private:
    std::string m_diff;
};
}  // namespace

std::string diff_resolved(const Scenario& a, const Scenario& b) {
    Differ d;
    d.field("name", a.name, b.name)
        .field("description", a.description, b.description)
        .field("seed", a.seed, b.seed)
        .field("platform.kind", a.platform_kind, b.platform_kind)
        .count("platform.params", a.params.size(), b.params.size());
    for (size_t i = 0; i < a.params.size() && !d.done(); ++i) {
        std::string k = "platform.params." + std::to_string(i);
        d.field(k + ".path", a.params[i].path, b.params[i].path)
            .field(k + ".value", a.params[i].value, b.params[i].value);
    }
    d.field("workload.buffers", join(a.buffer_order, ","), join(b.buffer_order, ","))
        .count("workload.buffers", a.buffers.size(), b.buffers.size());
    for (const auto& [name, x] : a.buffers) {
        if (d.done()) break;
        auto it = b.buffers.find(name);
        if (it == b.buffers.end()) return "workload.buffers." + name + ": missing in second";
        const Buffer& y = it->second;
        std::string k = "workload.buffers." + name;
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
    d.count("workload.cores", a.cores.size(), b.cores.size());
    for (size_t i = 0; i < a.cores.size() && !d.done(); ++i) {
        const CoreLoad& x = a.cores[i];
        const CoreLoad& y = b.cores[i];
        std::string k = "workload.cores." + std::to_string(i);
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
    d.field("workload.dnn", a.dnn.has_value(), b.dnn.has_value());
    if (a.dnn && b.dnn && !d.done()) {
        const DnnWorkload& x = *a.dnn;
        const DnnWorkload& y = *b.dnn;
        const std::string k = "workload.dnn.";
        d.field(k + "model", x.model, y.model)
            .field(k + "inputs", x.inputs, y.inputs)
            .field(k + "labels", x.labels, y.labels)
            .field(k + "float_predictions", x.float_predictions, y.float_predictions)
            .field(k + "first", x.first, y.first)
            .field(k + "count", x.count, y.count)
            .field(k + "scheduler_pe", x.scheduler_pe, y.scheduler_pe)
            .field(k + "workers", x.workers, y.workers)
            .field(k + "all_workers", x.all_workers, y.all_workers)
            .list(k + "worker_pes", x.worker_pes, y.worker_pes)
            .list(k + "published_us", x.published_us, y.published_us)
            .field(k + "published_source", x.published_source, y.published_source)
            .list(k + "layer_workers", x.layer_workers, y.layer_workers)
            .field(k + "max_workers_per_layer", x.max_workers_per_layer, y.max_workers_per_layer)
            .field(k + "scheduler_firmware_path", x.scheduler_firmware_path,
                   y.scheduler_firmware_path)
            .field(k + "worker_firmware_path", x.worker_firmware_path, y.worker_firmware_path)
            .field(k + "check", x.check, y.check);
    }
    d.field("workload.bss2", a.bss2.has_value(), b.bss2.has_value());
    if (a.bss2 && b.bss2 && !d.done()) {
        const Bss2Workload& x = *a.bss2;
        const Bss2Workload& y = *b.bss2;
        const std::string k = "workload.bss2.";
        d.field(k + "network", x.network, y.network)
            .field(k + "runtime_us", x.runtime_us, y.runtime_us)
            .field(k + "cadc", x.cadc, y.cadc)
            .field(k + "reset_between_runs", x.reset_between_runs, y.reset_between_runs)
            .field(k + "dot", x.dot, y.dot)
            .field(k + "madc", x.madc.has_value(), y.madc.has_value())
            .count(k + "runs", x.runs.size(), y.runs.size());
        if (x.madc && y.madc)
            d.field(k + "madc.population", x.madc->population, y.madc->population)
                .field(k + "madc.neuron", x.madc->neuron, y.madc->neuron);
        for (size_t i = 0; i < x.runs.size() && !d.done(); ++i) {
            const std::string rk = k + "runs." + std::to_string(i) + ".inputs";
            d.count(rk, x.runs[i].inputs.size(), y.runs[i].inputs.size());
            for (size_t j = 0; j < x.runs[i].inputs.size() && !d.done(); ++j) {
                const Bss2Input& p = x.runs[i].inputs[j];
                const Bss2Input& q = y.runs[i].inputs[j];
                const std::string ik = rk + "." + std::to_string(j) + ".";
                d.field(ik + "population", p.population, q.population)
                    .field(ik + "kind", static_cast<int>(p.kind), static_cast<int>(q.kind))
                    .field(ik + "rate_hz", p.rate_hz, q.rate_hz)
                    .field(ik + "start_us", p.start_us, q.start_us)
                    .field(ik + "stop_us", p.stop_us.value_or(-1.0), q.stop_us.value_or(-1.0))
                    .count(ik + "times_us", p.times_us.size(), q.times_us.size());
                for (size_t t = 0; t < p.times_us.size() && !d.done(); ++t)
                    d.list(ik + "times_us." + std::to_string(t), p.times_us[t], q.times_us[t]);
            }
        }
    }
    d.count("checks", a.checks.size(), b.checks.size());
    for (size_t i = 0; i < a.checks.size() && !d.done(); ++i) {
        const Check& x = a.checks[i];
        const Check& y = b.checks[i];
        std::string k = "checks." + std::to_string(i);
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
    d.field("trace.file", a.trace.file, b.trace.file)
        .field("trace.events", a.trace.events, b.trace.events)
        .field("trace.console_stdout", a.trace.console_stdout, b.trace.console_stdout);
    return d.result();
}

}  // namespace nmsim::scenario
