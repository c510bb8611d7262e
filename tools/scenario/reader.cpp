#include "tools/scenario/reader.h"

#include <algorithm>
#include <limits>

#include "tools/scenario/text.h"

namespace nmsim::scenario {

namespace fs = std::filesystem;

Reader::Reader(std::string scenario_path, const LoadOptions& opts)
    : m_path(std::move(scenario_path)), m_opts(opts) {}

void Reader::error(const Origin& o, const std::string& key, const std::string& msg) {
    m_errors.push_back(ConfigError{o, key, msg, false});
}

void Reader::warning(const Origin& o, const std::string& key, const std::string& msg) {
    m_warnings.push_back(ConfigError{o, key, msg, true});
}

std::vector<ConfigError> Reader::take_errors() { return std::move(m_errors); }
std::vector<ConfigError> Reader::take_warnings() { return std::move(m_warnings); }

Fields Reader::read_map(const YNode* n, const std::string& key,
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

std::vector<Entry> Reader::read_entries(const YNode* n, const std::string& key, bool null_ok) {
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

void Reader::missing(const Fields* f, const std::string& field, const YNode& parent,
                     const std::string& key) {
    if (f && !f->report_missing(field)) return;
    error(parent.origin, key, "missing required key");
}

void Reader::not_allowed(const YNode& map, const std::string& field, const std::string& key,
                         const std::string& why) {
    const YNode* k = key_node(map, field);
    error(k ? k->origin : map.origin, key, "not allowed: " + why);
}

std::optional<std::string> Reader::get_string(const YNode* n, const std::string& key) {
    if (!n) return std::nullopt;
    if (n->kind != YNode::Kind::scalar) {
        error(n->origin, key, "expected a string, got " + describe(*n));
        return std::nullopt;
    }
    return n->text;
}

std::optional<uint64_t> Reader::get_uint(const YNode* n, const std::string& key, uint64_t max,
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

std::optional<bool> Reader::get_bool(const YNode* n, const std::string& key) {
    if (!n) return std::nullopt;
    std::optional<bool> b;
    if (n->kind == YNode::Kind::scalar) b = parse_bool(n->text);
    if (!b) error(n->origin, key, "expected true or false, got " + describe(*n));
    return b;
}

std::optional<std::string> Reader::get_choice(const YNode* n, const std::string& key,
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

std::optional<double> Reader::get_real(const YNode* n, const std::string& key, double lo, double hi,
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

fs::path Reader::resolve(const std::string& p) const {
    const fs::path base =
        m_opts.base_dir.empty() ? fs::path(m_path).parent_path() : fs::path(m_opts.base_dir);
    return fs::absolute(base / fs::path(p)).lexically_normal();
}

std::string Reader::existing_file(const YNode& n, const std::string& key, const std::string& what) {
    auto s = get_string(&n, key);
    if (!s) return "";
    if (s->empty()) {
        error(n.origin, key, "expected a file path, got an empty string");
        return "";
    }
    fs::path full = resolve(*s);
    std::error_code ec;
    if (!fs::exists(full, ec)) {
        error(n.origin, key, what + " file not found: " + full.string());
        return "";
    }
    if (!fs::is_regular_file(full, ec)) {
        error(n.origin, key, what + " file is not a regular file: " + full.string());
        return "";
    }
    return full.string();
}

bool is_builtin_firmware(const std::string& fw) {
    return !(fw.size() > 4 && fw.compare(fw.size() - 4, 4, ".elf") == 0);
}

void Reader::resolve_firmware(const YNode& n, const std::string& key, std::string& name,
                              std::string& path) {
    path.clear();
    auto s = get_string(&n, key);
    if (!s) return;
    name = *s;
    const std::string& fw = *s;
    std::error_code ec;
    if (!is_builtin_firmware(fw)) {
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

}  // namespace nmsim::scenario
