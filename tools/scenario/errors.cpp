#include "tools/scenario/errors.h"

#include <algorithm>
#include <tuple>

namespace nmsim::scenario {

std::string Origin::str() const {
    if (file == "--set") return file;
    if (line <= 0) return file;
    return file + ":" + std::to_string(line) + ":" + std::to_string(col);
}

std::string ConfigError::str() const {
    std::string s = origin.str() + (warning ? ": warning: " : ": error: ");
    if (!key.empty()) s += key + ": ";
    return s + message;
}

void sort_by_origin(std::vector<ConfigError>& errors) {
    std::stable_sort(errors.begin(), errors.end(), [](const ConfigError& a, const ConfigError& b) {
        return std::tie(a.origin.file, a.origin.line, a.origin.col) <
               std::tie(b.origin.file, b.origin.line, b.origin.col);
    });
}

namespace {
std::string sort_and_join(std::vector<ConfigError>& errors) {
    sort_by_origin(errors);
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

}  // namespace nmsim::scenario
