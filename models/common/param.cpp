#include "models/common/param.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <memory>
#include <sstream>

namespace nmsim {

const char* param_type_name(ParamType t) {
    switch (t) {
        case ParamType::boolean:
            return "bool";
        case ParamType::u32:
            return "u32";
        case ParamType::u64:
            return "u64";
        case ParamType::i64:
            return "i64";
        case ParamType::f64:
            return "f64";
        case ParamType::string:
            return "string";
        case ParamType::time:
            return "Time";
        case ParamType::frequency:
            return "Frequency";
        case ParamType::bytes:
            return "Bytes";
        case ParamType::voltage:
            return "Voltage";
        case ParamType::energy:
            return "Energy";
        case ParamType::power:
            return "Power";
        case ParamType::bandwidth:
            return "Bandwidth";
    }
    return "?";
}

namespace detail {
namespace {
std::string trimmed(const std::string& s) {
    size_t b = s.find_first_not_of(" \t");
    size_t e = s.find_last_not_of(" \t");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

// Integers accept decimal and 0x-prefixed hex; a unit suffix is an error ("expected a number").
template <class T>
bool parse_integer(const std::string& in, T& out, std::string& err, bool is_signed) {
    std::string s = trimmed(in);
    if (s.empty()) {
        err = "expected an integer, got an empty value";
        return false;
    }
    if (!is_signed && s[0] == '-') {
        err = "expected a non-negative integer, got \"" + s + "\"";
        return false;
    }
    errno = 0;
    char* end = nullptr;
    long long sv = 0;
    unsigned long long uv = 0;
    if (is_signed)
        sv = std::strtoll(s.c_str(), &end, 0);
    else
        uv = std::strtoull(s.c_str(), &end, 0);
    if (end == s.c_str() || *end != '\0') {
        err = "expected an integer, got \"" + s + "\"";
        return false;
    }
    if (errno == ERANGE) {
        err = "integer out of range: \"" + s + "\"";
        return false;
    }
    if (is_signed) {
        out = static_cast<T>(sv);
    } else {
        if (uv > static_cast<unsigned long long>(std::numeric_limits<T>::max())) {
            err = "integer out of range for " + std::string(sizeof(T) == 4 ? "u32" : "u64") +
                  ": \"" + s + "\"";
            return false;
        }
        out = static_cast<T>(uv);
    }
    return true;
}
}  // namespace

bool parse_value(const std::string& in, bool& out, std::string& err) {
    std::string s = trimmed(in);
    if (s == "true" || s == "True" || s == "yes" || s == "on") {
        out = true;
        return true;
    }
    if (s == "false" || s == "False" || s == "no" || s == "off") {
        out = false;
        return true;
    }
    err = "expected true or false, got \"" + s + "\"";
    return false;
}
bool parse_value(const std::string& s, uint32_t& out, std::string& err) {
    return parse_integer(s, out, err, false);
}
bool parse_value(const std::string& s, uint64_t& out, std::string& err) {
    return parse_integer(s, out, err, false);
}
bool parse_value(const std::string& s, int64_t& out, std::string& err) {
    return parse_integer(s, out, err, true);
}
bool parse_value(const std::string& in, double& out, std::string& err) {
    std::string s = trimmed(in);
    char* end = nullptr;
    out = std::strtod(s.c_str(), &end);
    if (s.empty() || end == s.c_str() || *end != '\0' || !std::isfinite(out)) {
        err = "expected a number, got \"" + s + "\"";
        return false;
    }
    return true;
}
bool parse_value(const std::string& s, std::string& out, std::string&) {
    out = s;
    return true;
}
#define NMSIM_PARSE_DIM(T, fn, what)                                             \
    bool parse_value(const std::string& s, T& out, std::string& err) {           \
        std::string why;                                                         \
        auto v = fn(s, why);                                                     \
        if (!v) {                                                                \
            err = "expected " what ", got \"" + trimmed(s) + "\" (" + why + ")"; \
            return false;                                                        \
        }                                                                        \
        out = *v;                                                                \
        return true;                                                             \
    }
NMSIM_PARSE_DIM(Time, parse_time, "Time")
NMSIM_PARSE_DIM(Frequency, parse_frequency, "Frequency")
NMSIM_PARSE_DIM(Bytes, parse_bytes, "Bytes")
NMSIM_PARSE_DIM(Voltage, parse_voltage, "Voltage")
NMSIM_PARSE_DIM(Energy, parse_energy, "Energy")
NMSIM_PARSE_DIM(Power, parse_power, "Power")
NMSIM_PARSE_DIM(Bandwidth, parse_bandwidth, "Bandwidth")
#undef NMSIM_PARSE_DIM

std::string format_value(bool v) { return v ? "true" : "false"; }
std::string format_value(uint32_t v) { return std::to_string(v); }
std::string format_value(uint64_t v) { return std::to_string(v); }
std::string format_value(int64_t v) { return std::to_string(v); }
std::string format_value(double v) {
    std::ostringstream o;
    o.precision(12);
    o << v;
    return o.str();
}
std::string format_value(const std::string& v) { return v; }
std::string format_value(Time v) { return format_time(v); }
std::string format_value(Frequency v) { return format_frequency(v); }
std::string format_value(Bytes v) { return format_bytes(v); }
std::string format_value(Voltage v) { return format_voltage(v); }
std::string format_value(Energy v) { return format_energy(v); }
std::string format_value(Power v) { return format_power(v); }
std::string format_value(Bandwidth v) { return format_bandwidth(v); }

double magnitude(bool v) { return v ? 1 : 0; }
double magnitude(uint32_t v) { return v; }
double magnitude(uint64_t v) { return static_cast<double>(v); }
double magnitude(int64_t v) { return static_cast<double>(v); }
double magnitude(double v) { return v; }
double magnitude(Time v) { return static_cast<double>(v.ps); }
double magnitude(Frequency v) { return v.hz; }
double magnitude(Bytes v) { return static_cast<double>(v.n); }
double magnitude(Voltage v) { return v.v; }
double magnitude(Energy v) { return v.j; }
double magnitude(Power v) { return v.w; }
double magnitude(Bandwidth v) { return v.bytes_per_s; }

bool check_range(const Range& r, double mag, const std::string& text, std::string& err) {
    if (!r.has_bounds) return true;
    if (mag < r.lo || mag > r.hi) {
        std::ostringstream o;
        o << "value " << trimmed(text) << " out of range [" << format_value(r.lo) << ", "
          << format_value(r.hi) << "]";
        err = o.str();
        return false;
    }
    return true;
}

bool check_choice(const Range& r, const std::string& v, std::string& err) {
    if (r.choices.empty()) return true;
    if (std::find(r.choices.begin(), r.choices.end(), v) != r.choices.end()) return true;
    std::string list;
    for (const auto& c : r.choices) list += (list.empty() ? "" : ", ") + c;
    err = "unknown value \"" + v + "\" (valid: " + list + ")";
    std::string near = closest_match(v, r.choices);
    if (!near.empty()) err += "; did you mean \"" + near + "\"?";
    return false;
}
}  // namespace detail

std::vector<FlatParam> flatten(const ParamRegistry& reg, void* root, const std::string& prefix) {
    std::vector<FlatParam> out;
    for (const auto& e : reg.entries) {
        std::string path = prefix.empty() ? e.name : prefix + "." + e.name;
        if (e.group) {
            auto sub = flatten(*e.group, e.sub(root), path);
            out.insert(out.end(), sub.begin(), sub.end());
        } else {
            out.push_back(FlatParam{path, &e, root});
        }
    }
    return out;
}

namespace {
bool dimensioned(ParamType t) {
    return t == ParamType::time || t == ParamType::frequency || t == ParamType::bytes ||
           t == ParamType::voltage || t == ParamType::energy || t == ParamType::power ||
           t == ParamType::bandwidth;
}
}  // namespace

std::vector<std::string> check_registry(const ParamRegistry& reg, const std::string& prefix) {
    std::vector<std::string> problems;
    std::map<std::string, std::string> docs;
    std::unique_ptr<void, std::function<void(void*)>> def(reg.make_default(), reg.destroy);
    for (const auto& e : reg.entries) {
        std::string path = prefix.empty() ? e.name : prefix + "." + e.name;
        if (e.doc.empty()) problems.push_back(path + ": missing doc");
        if (!e.doc.empty()) {
            auto [it, fresh] = docs.emplace(e.doc, path);
            if (!fresh) problems.push_back(path + ": same doc as " + it->second);
        }
        if (e.group) {
            auto sub = check_registry(*e.group, path);
            problems.insert(problems.end(), sub.begin(), sub.end());
            continue;
        }
        if (e.source.empty()) problems.push_back(path + ": missing source");
        if (dimensioned(e.type) && !e.unit.empty())
            problems.push_back(path + ": dimensioned type must not name a unit string");
        if (!dimensioned(e.type) && e.type != ParamType::boolean && e.type != ParamType::string &&
            e.unit.empty())
            problems.push_back(path + ": plain number without a unit");
        std::string err;
        std::string text = e.get(def.get());
        if (!e.set(def.get(), text, err))
            problems.push_back(path + ": default " + text + ": " + err);
    }
    return problems;
}

std::string closest_match(const std::string& key, const std::vector<std::string>& candidates) {
    std::string best;
    size_t best_d = std::numeric_limits<size_t>::max();
    for (const auto& c : candidates) {
        std::vector<size_t> prev(c.size() + 1), cur(c.size() + 1);
        for (size_t j = 0; j <= c.size(); ++j) prev[j] = j;
        for (size_t i = 1; i <= key.size(); ++i) {
            cur[0] = i;
            for (size_t j = 1; j <= c.size(); ++j)
                cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1,
                                   prev[j - 1] + (key[i - 1] == c[j - 1] ? 0u : 1u)});
            std::swap(prev, cur);
        }
        if (prev[c.size()] < best_d) {
            best_d = prev[c.size()];
            best = c;
        }
    }
    size_t limit = std::max<size_t>(2, key.size() / 3);
    return best_d <= limit ? best : std::string();
}

}  // namespace nmsim
