// The scenario document as a small tree that keeps an Origin per node, so that --set edits carry
// their own origin and duplicate keys stay visible (yaml-cpp's nodes drop both). yaml-cpp parses;
// this tree is what the frame and the workload schemas read.
#pragma once

#include <string>
#include <vector>

#include "tools/scenario/errors.h"

namespace nmsim::scenario {

struct YNode {
    enum class Kind { null, scalar, seq, map } kind = Kind::null;
    std::string text;          // scalar
    std::vector<YNode> keys;   // map keys (scalars), parallel to items
    std::vector<YNode> items;  // sequence items or map values
    Origin origin;

    static YNode scalar(std::string t, Origin o);
    static YNode map(Origin o);
};

extern const Origin kSetOrigin;  // {"--set", 0, 0}

// "an empty value", "\"text\"", "a list", "a map": for "expected X, got Y" messages.
std::string describe(const YNode& n);

// The node of key `k` in map `n` (its first occurrence), or nullptr.
const YNode* key_node(const YNode& n, const std::string& k);
// The value of key `k` in map `n` (its first occurrence), or nullptr.
const YNode* value_node(const YNode& n, const std::string& k);
YNode* value_node(YNode& n, const std::string& k);

// Parses YAML `text` (of file `path`) into a tree. Throws ScenarioError for malformed YAML (with
// a hint when a tab in the indentation is the cause) and for a document that expands (aliases
// are copied) to more than a million nodes; problems inside a well-formed document (non-scalar
// keys, nesting deeper than 64 levels) go to `errors`.
YNode parse_yaml(const std::string& text, const std::string& path,
                 std::vector<ConfigError>& errors);

// Applies one --set edit "a.b.0.c" = `value` to the document: flow collections and quoted scalars
// are parsed as YAML, anything else is taken literally; missing maps and lists are created (a
// list when the next segment is an index; an index equal to the length appends).
void set_in_doc(YNode& root, const std::vector<std::string>& segs, const std::string& key,
                const std::string& value, std::vector<ConfigError>& errors);

}  // namespace nmsim::scenario
