// Where a scenario value came from, and the errors and warnings that name it. Every phase (load,
// compile, elaborate) collects its problems, then throws one ScenarioError holding all of them,
// sorted by file and line. Nothing here knows YAML, SystemC or models.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace nmsim::scenario {

struct Origin {
    std::string file;  // scenario path, or "--set"
    int line = 0;      // 1-based; 0 if unknown
    int col = 0;
    std::string str() const;  // "scenarios/x.yaml:41:17" or "--set"
};

// A config error (or, with `warning`, a note that does not stop the run, such as an old
// spelling that still parses).
struct ConfigError {
    Origin origin;
    std::string key;      // dotted key path, e.g. "workload.pe.buffers.x.dtype"
    std::string message;  // "expected int, got \"abc\""
    bool warning = false;
    std::string str() const;  // "file:line:col: error: key: message" ("warning:" for warnings)
};

class ScenarioError : public std::runtime_error {
public:
    explicit ScenarioError(std::vector<ConfigError> errors);
    const std::vector<ConfigError>& errors() const { return m_errors; }

private:
    std::vector<ConfigError> m_errors;
};

// Sorts by file, line and column (stable: equal positions keep their order).
void sort_by_origin(std::vector<ConfigError>& errors);

}  // namespace nmsim::scenario
