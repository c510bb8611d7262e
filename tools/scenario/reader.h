// Validation helpers shared by the scenario frame and every workload schema: typed getters that
// record "file:line:col: error: key: message" problems instead of throwing, map readers that
// reject unknown and duplicate keys (with a did-you-mean), and path resolution for files and
// firmware. A schema reads its whole section, collecting every problem; the frame throws them
// all at once.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "tools/scenario/errors.h"
#include "tools/scenario/yaml_tree.h"

namespace nmsim::scenario {

struct LoadOptions {
    std::vector<std::string> sets;           // "--set key.path=value" items, in order
    std::vector<std::string> firmware_dirs;  // where built-in program names are looked up
    // Relative paths in the scenario resolve against this directory instead of the scenario
    // file's own (for scenarios written to a temporary file, e.g. by the Python API).
    std::string base_dir;
};

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

class Reader {
public:
    Reader(std::string scenario_path, const LoadOptions& opts);

    const std::string& scenario_path() const { return m_path; }
    const LoadOptions& options() const { return m_opts; }

    // Problems
    void error(const Origin& o, const std::string& key, const std::string& msg);
    void warning(const Origin& o, const std::string& key, const std::string& msg);
    size_t error_count() const { return m_errors.size(); }
    std::vector<ConfigError> take_errors();
    std::vector<ConfigError> take_warnings();

    // Maps. `valid` lists the accepted keys (in the order messages list them).
    Fields read_map(const YNode* n, const std::string& key, const std::vector<std::string>& valid,
                    bool null_ok = false);
    // A free-form map (names chosen by the user): entries in file order, duplicates reported.
    std::vector<Entry> read_entries(const YNode* n, const std::string& key, bool null_ok);
    // `field` of map `f` (at `parent`) is absent; silent if `field` was offered as a
    // did-you-mean for a misspelt key of the same map, which already has an error.
    void missing(const Fields* f, const std::string& field, const YNode& parent,
                 const std::string& key);
    // `field` of `map` is present but has no use here: "not allowed: <why>".
    void not_allowed(const YNode& map, const std::string& field, const std::string& key,
                     const std::string& why);

    // Scalars; nullopt (after recording an error) when present but malformed, nullopt without
    // an error when `n` is null.
    std::optional<std::string> get_string(const YNode* n, const std::string& key);
    std::optional<uint64_t> get_uint(const YNode* n, const std::string& key, uint64_t max,
                                     const char* what);
    std::optional<bool> get_bool(const YNode* n, const std::string& key);
    std::optional<std::string> get_choice(const YNode* n, const std::string& key,
                                          const std::vector<std::string>& choices);
    std::optional<double> get_real(const YNode* n, const std::string& key, double lo, double hi,
                                   const char* what);

    // Paths: relative ones against the scenario's directory (or LoadOptions::base_dir).
    std::filesystem::path resolve(const std::string& p) const;
    // A file that must exist: the absolute path, or "" after recording an error (`what` names
    // it in messages: "model file not found: ...").
    std::string existing_file(const YNode& n, const std::string& key, const std::string& what);
    // A firmware image: a built-in program name (looked up in LoadOptions::firmware_dirs) or a
    // path ending in .elf. Sets `name` to the value as written and `path` to the ELF found (""
    // after an error).
    void resolve_firmware(const YNode& n, const std::string& key, std::string& name,
                          std::string& path);

private:
    std::string m_path;
    const LoadOptions& m_opts;
    std::vector<ConfigError> m_errors;
    std::vector<ConfigError> m_warnings;
};

// True for a firmware written as a built-in program name (not a path ending in .elf).
bool is_builtin_firmware(const std::string& fw);

}  // namespace nmsim::scenario
