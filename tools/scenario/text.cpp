#include "tools/scenario/text.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "models/common/param.h"

namespace nmsim::scenario {

std::string join(const std::vector<std::string>& v, const char* sep) {
    std::string s;
    for (size_t i = 0; i < v.size(); ++i) {
        if (i) s += sep;
        s += v[i];
    }
    return s;
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

std::string path_join(const std::string& a, const std::string& b) {
    return a.empty() ? b : a + "." + b;
}

std::string suggest(const std::string& s, const std::vector<std::string>& candidates) {
    std::string near = closest_match(s, candidates);
    if (near.find_first_of(s) == std::string::npos) return "";
    return near;
}

std::string did_you_mean(const std::string& s, const std::vector<std::string>& candidates) {
    std::string near = suggest(s, candidates);
    return near.empty() ? std::string() : " (did you mean " + quote(near) + "?)";
}

bool is_identifier(const std::string& s) {
    if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
    return std::all_of(s.begin(), s.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    });
}

size_t invalid_utf8(const std::string& s) {
    size_t i = 0;
    while (i < s.size()) {
        const auto b = static_cast<unsigned char>(s[i]);
        size_t n = 0;      // continuation bytes
        uint32_t cp = 0;   // code point
        uint32_t min = 0;  // the smallest code point of this length (no overlong forms)
        if (b < 0x80) {
            ++i;
            continue;
        } else if ((b & 0xe0) == 0xc0) {
            n = 1, cp = b & 0x1f, min = 0x80;
        } else if ((b & 0xf0) == 0xe0) {
            n = 2, cp = b & 0x0f, min = 0x800;
        } else if ((b & 0xf8) == 0xf0) {
            n = 3, cp = b & 0x07, min = 0x10000;
        } else {
            return i;
        }
        if (s.size() - i <= n) return i;
        for (size_t k = 1; k <= n; ++k) {
            const auto c = static_cast<unsigned char>(s[i + k]);
            if ((c & 0xc0) != 0x80) return i;
            cp = (cp << 6) | (c & 0x3f);
        }
        if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
        i += n + 1;
    }
    return std::string::npos;
}

std::string utf8_problem(const std::string& s) {
    const size_t at = invalid_utf8(s);
    if (at == std::string::npos) return "";
    char byte[8];
    std::snprintf(byte, sizeof byte, "0x%02x",
                  static_cast<unsigned>(static_cast<unsigned char>(s[at])));
    return std::string("not valid UTF-8 (byte ") + byte + " at offset " + std::to_string(at) + ")";
}

bool all_digits(const std::string& s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c));
    });
}

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

std::string format_real(double v) {
    char buf[64];
    for (int prec = 6; prec <= 17; ++prec) {
        std::snprintf(buf, sizeof buf, "%.*g", prec, v);
        if (std::strtod(buf, nullptr) == v) break;
    }
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

}  // namespace nmsim::scenario
