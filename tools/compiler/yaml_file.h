// Reading the compiler's YAML input files (network descriptions) with yaml-cpp, so that every
// error names file:line:col, the key path and the reason, and unknown keys are errors. Shared by
// the BrainScaleS-2 network files (bss2/network_yaml.cpp) and the SpiNNaker2 SNN network files
// (snn/network_yaml.cpp). Header-only; plain C++ (no SystemC).
#pragma once

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "tools/compiler/source_ref.h"

namespace nmsim::compiler {

// A network file expands its aliases (*a) where they are used: a few lines can stand for
// billions of nodes. Past this many the file is refused before anything is built from it.
constexpr size_t kMaxExpandedYamlNodes = 10'000'000;

// The reader of one file; `Error` (constructible from a message) is what every problem throws,
// with the message "file:line:col: key: reason".
template <class Error>
class YamlFile {
public:
    // `text`: the file's text (kept by the caller), or nullptr to read the file `path`.
    explicit YamlFile(std::string path, const std::string* text = nullptr)
        : m_path(std::move(path)), m_text(text) {}

    const std::string& path() const { return m_path; }

    // Parses the file; syntax errors, nesting past the parser's depth limit and documents that
    // expand to more than kMaxExpandedYamlNodes nodes are errors.
    YAML::Node load() const {
        YAML::Node root;
        try {
            root = m_text ? YAML::Load(*m_text) : YAML::LoadFile(m_path);
        } catch (const YAML::BadFile&) {
            throw Error(m_path + ": cannot open network file");
        } catch (const YAML::DeepRecursion& e) {
            throw Error(m_path + ":" + std::to_string(e.mark.line + 1) + ":" +
                        std::to_string(e.mark.column + 1) + ": YAML nested deeper than " +
                        std::to_string(e.depth() - 1) + " levels (the parser's limit)");
        } catch (const YAML::ParserException& e) {
            throw Error(m_path + ":" + std::to_string(e.mark.line + 1) + ":" +
                        std::to_string(e.mark.column + 1) + ": YAML syntax error: " + e.msg);
        }
        check_expanded_size(root);
        return root;
    }

    SourceRef ref(const YAML::Node& n) const {
        SourceRef r;
        r.file = m_path;
        const YAML::Mark m = n.Mark();
        if (!m.is_null()) {
            r.line = m.line + 1;
            r.col = m.column + 1;
        }
        return r;
    }

    [[noreturn]] void fail(const YAML::Node& n, const std::string& key,
                           const std::string& msg) const {
        throw Error(ref(n).str() + ": " + (key.empty() ? "" : key + ": ") + msg);
    }

    void check_keys(const YAML::Node& map, const std::string& path,
                    std::initializer_list<const char*> allowed) const {
        for (const auto& kv : map) {
            if (!kv.first.IsScalar()) fail(kv.first, path, "map keys must be plain names");
            const std::string k = kv.first.Scalar();
            bool ok = false;
            for (const char* a : allowed) ok = ok || k == a;
            if (!ok) {
                std::string list;
                for (const char* a : allowed) list += std::string(list.empty() ? "" : ", ") + a;
                fail(kv.first, path.empty() ? k : path + "." + k,
                     "unknown key (allowed: " + list + ")");
            }
        }
    }

    YAML::Node need(const YAML::Node& map, const std::string& path, const char* key) const {
        YAML::Node n = map[key];
        if (!n) fail(map, path, std::string("missing required key '") + key + "'");
        return n;
    }

    std::string str(const YAML::Node& n, const std::string& path) const {
        if (!n.IsScalar()) fail(n, path, "expected a string");
        return n.Scalar();
    }
    double num(const YAML::Node& n, const std::string& path) const {
        if (!n.IsScalar()) fail(n, path, "expected a number");
        double v = 0;
        try {
            v = n.as<double>();
        } catch (const YAML::Exception&) {
            fail(n, path, "expected a number, got '" + n.Scalar() + "'");
        }
        if (!std::isfinite(v)) fail(n, path, "must be finite");
        return v;
    }
    // A number inside `r`.
    double ranged(const YAML::Node& n, const std::string& path, const Range& r) const {
        const double v = num(n, path);
        if (!r.contains(v)) fail(n, path, n.Scalar() + " " + r.outside());
        return v;
    }
    // An integer 0..max.
    uint64_t uint(const YAML::Node& n, const std::string& path, uint64_t max) const {
        const double v = num(n, path);
        if (v < 0 || v != std::floor(v) || v > static_cast<double>(max))
            fail(n, path,
                 "expected an integer 0.." + std::to_string(max) + ", got '" + n.Scalar() + "'");
        return static_cast<uint64_t>(v);
    }
    // An integer lo..hi.
    int64_t integer(const YAML::Node& n, const std::string& path, int64_t lo, int64_t hi) const {
        const double v = num(n, path);
        if (v != std::floor(v) || v < static_cast<double>(lo) || v > static_cast<double>(hi))
            fail(n, path,
                 "expected an integer " + std::to_string(lo) + ".." + std::to_string(hi) +
                     ", got '" + n.Scalar() + "'");
        return static_cast<int64_t>(v);
    }
    bool boolean(const YAML::Node& n, const std::string& path) const {
        if (!n.IsScalar()) fail(n, path, "expected true or false");
        try {
            return n.as<bool>();
        } catch (const YAML::Exception&) {
            fail(n, path, "expected true or false, got '" + n.Scalar() + "'");
        }
    }
    // One of `choices` (enum strings).
    std::string choice(const YAML::Node& n, const std::string& path,
                       std::initializer_list<const char*> choices) const {
        const std::string s = str(n, path);
        std::string list;
        for (const char* c : choices) {
            if (s == c) return s;
            list += std::string(list.empty() ? "" : ", ") + c;
        }
        fail(n, path, "'" + s + "' is not one of " + list);
    }

private:
    // Counts the nodes as the loader will visit them (aliases once per use), up to the limit.
    void check_expanded_size(const YAML::Node& root) const {
        size_t count = 0;
        std::vector<YAML::Node> stack = {root};
        while (!stack.empty()) {
            const YAML::Node n = stack.back();
            stack.pop_back();
            if (++count > kMaxExpandedYamlNodes)
                throw Error(m_path +
                            ": the file expands (its aliases copied where used) to more than " +
                            std::to_string(kMaxExpandedYamlNodes) + " YAML nodes");
            if (n.IsSequence()) {
                for (const auto& c : n) stack.push_back(c);
            } else if (n.IsMap()) {
                for (const auto& kv : n) {
                    stack.push_back(kv.first);
                    stack.push_back(kv.second);
                }
            }
        }
    }

    std::string m_path;
    const std::string* m_text;
};

}  // namespace nmsim::compiler
