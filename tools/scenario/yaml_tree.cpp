#include "tools/scenario/yaml_tree.h"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include <sstream>

#include "tools/scenario/text.h"

namespace nmsim::scenario {

const Origin kSetOrigin{"--set", 0, 0};

YNode YNode::scalar(std::string t, Origin o) {
    YNode n;
    n.kind = Kind::scalar;
    n.text = std::move(t);
    n.origin = std::move(o);
    return n;
}

YNode YNode::map(Origin o) {
    YNode n;
    n.kind = Kind::map;
    n.origin = std::move(o);
    return n;
}

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

const YNode* key_node(const YNode& n, const std::string& k) {
    for (const auto& key : n.keys)
        if (key.text == k) return &key;
    return nullptr;
}

const YNode* value_node(const YNode& n, const std::string& k) {
    for (size_t i = 0; i < n.keys.size(); ++i)
        if (n.keys[i].text == k) return &n.items[i];
    return nullptr;
}

YNode* value_node(YNode& n, const std::string& k) {
    for (size_t i = 0; i < n.keys.size(); ++i)
        if (n.keys[i].text == k) return &n.items[i];
    return nullptr;
}

namespace {

// Aliases are expanded into copies: a small file can stand for a huge tree (an alias bomb). The
// tree is bounded; data that large belongs in a file (e.g. a buffer's init: {file: ...}).
constexpr size_t kMaxNodes = 1000000;

class Converter {
public:
    Converter(std::string path, bool from_set, std::vector<ConfigError>& errors)
        : m_path(std::move(path)), m_from_set(from_set), m_errors(errors) {}

    Origin origin_of(const YAML::Mark& m) const {
        if (m_from_set) return kSetOrigin;
        if (m.is_null()) return Origin{m_path, 0, 0};
        return Origin{m_path, m.line + 1, m.column + 1};
    }

    YNode convert(const YAML::Node& n, int depth) {
        YNode out;
        out.origin = origin_of(n.Mark());
        if (++m_nodes > kMaxNodes)
            throw ScenarioError(
                {ConfigError{out.origin, "",
                             "the document expands to more than " + std::to_string(kMaxNodes) +
                                 " nodes (aliases are copied; put large data in a file)"}});
        if (depth > 64) {
            m_errors.push_back(
                {out.origin, "", "nesting deeper than 64 levels (recursive alias?)"});
            return out;
        }
        switch (n.Type()) {
            case YAML::NodeType::Scalar:
                out.kind = YNode::Kind::scalar;
                out.text = n.Scalar();
                if (const std::string why = utf8_problem(out.text); !why.empty())
                    m_errors.push_back({out.origin, "", why + "; YAML files are UTF-8 text"});
                break;
            case YAML::NodeType::Sequence:
                out.kind = YNode::Kind::seq;
                for (const auto& item : n) out.items.push_back(convert(item, depth + 1));
                break;
            case YAML::NodeType::Map:
                out.kind = YNode::Kind::map;
                for (const auto& kv : n) {
                    YNode k = convert(kv.first, depth + 1);
                    if (k.kind != YNode::Kind::scalar) {
                        m_errors.push_back(
                            {k.origin, "", "map keys must be plain strings, got " + describe(k)});
                        continue;
                    }
                    YNode v = convert(kv.second, depth + 1);
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

private:
    std::string m_path;
    bool m_from_set;
    std::vector<ConfigError>& m_errors;
    size_t m_nodes = 0;
};

}  // namespace

YNode parse_yaml(const std::string& text, const std::string& path,
                 std::vector<ConfigError>& errors) {
    Converter conv(path, false, errors);
    YAML::Node doc;
    try {
        doc = YAML::Load(text);
    } catch (const YAML::DeepRecursion& e) {
        // yaml-cpp says only "bad file"; its parser stops at a fixed nesting depth.
        throw ScenarioError(
            {ConfigError{conv.origin_of(e.mark), "",
                         "YAML nested deeper than " + std::to_string(e.depth() - 1) +
                             " levels (the parser's limit)"}});
    } catch (const YAML::Exception& e) {
        std::string msg = "malformed YAML: " + e.msg;
        // yaml-cpp's messages do not say that a tab in the indentation is the cause.
        if (!e.mark.is_null()) {
            std::istringstream lines(text);
            std::string line;
            for (int i = 0; i <= e.mark.line && std::getline(lines, line); ++i) {
            }
            size_t indent_end = line.find_first_not_of(" \t");
            if (line.substr(0, indent_end).find('\t') != std::string::npos)
                msg += " (tabs are not allowed in indentation)";
        }
        throw ScenarioError({ConfigError{conv.origin_of(e.mark), "", msg}});
    }
    return conv.convert(doc, 0);
}

void set_in_doc(YNode& root, const std::vector<std::string>& segs, const std::string& key,
                const std::string& value, std::vector<ConfigError>& errors) {
    auto error = [&](const std::string& msg) { errors.push_back({kSetOrigin, key, msg}); };
    // Flow collections and quoted scalars are YAML; anything else is taken literally.
    YNode v = YNode::scalar(value, kSetOrigin);
    if (!value.empty() &&
        (value[0] == '[' || value[0] == '{' || value[0] == '"' || value[0] == '\'')) {
        try {
            v = Converter("--set", true, errors).convert(YAML::Load(value), 0);
        } catch (const YAML::Exception& e) {
            error("malformed YAML value " + quote(value) + ": " + e.msg);
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
                error("cannot set: " + quote(at) + " is a list, expected an index, got " +
                      quote(seg));
                return;
            }
            size_t idx = std::stoul(seg);
            if (idx > cur->items.size()) {
                error("cannot set: index " + seg + " out of range (" + quote(at) + " has " +
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
            error("cannot set: " + quote(at) + " is a scalar, not a map or list");
            return;
        }
        at = path_join(at, seg);
    }
}

}  // namespace nmsim::scenario
