// Sweep files: YAML that names a base scenario, the parameters to vary (grid axes, zipped lists,
// random samples with a seed), fixed overrides, the metrics to collect, the output directory and
// Slurm options. Loading validates the file and reports every problem with file:line:col and key
// (the scenario loader's ConfigError/ScenarioError). See docs/sweeps.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tools/scenario/scenario.h"

namespace nmsim::sweep {

using scenario::ConfigError;
using scenario::Origin;
using scenario::ScenarioError;

// A --set item of every point: a parameter path and its value text as passed to `nmsim run --set`
// (scalars as written; lists and maps as YAML flow text).
struct Setting {
    std::string path;
    std::string value;
    Origin origin;
};

// A grid axis or a zipped list: one parameter, its values in file order.
struct ValueList {
    std::string path;
    std::vector<std::string> values;
    Origin origin;
};

// One randomly sampled parameter.
struct Distribution {
    enum class Kind { uniform, loguniform, integer, choice } kind = Kind::uniform;
    std::string path;
    double lo = 0, hi = 0;             // uniform, loguniform: reals; integer: inclusive bounds
    std::string unit;                  // suffix written after the numbers ("MHz"), appended
    std::vector<std::string> choices;  // choice
    Origin origin;
};

struct RandomSpec {
    uint64_t n = 0;     // samples (0: no random part)
    uint64_t seed = 1;  // sampling seed
    std::vector<Distribution> params;
};

struct SlurmOptions {
    std::string partition;  // "" = cluster default
    std::string time;       // sbatch --time, e.g. "00:10:00"; "" = default
    uint32_t cpus_per_task = 1;
    uint32_t max_parallel = 0;  // array throttle %M; 0 = no limit
};

struct SweepSpec {
    std::string path;  // the sweep file as given
    std::string dir;   // its directory (absolute)
    std::string name;  // `name`, default the file name without .yaml
    std::string description;
    std::string base;  // absolute path of the base scenario
    std::vector<Setting> fixed;
    std::vector<ValueList> axes;  // grid, file order
    std::vector<ValueList> zip;   // equal lengths
    RandomSpec random;
    std::vector<std::string> metrics;  // empty: every metric found
    std::string output;                // absolute output directory (may not exist yet)
    SlurmOptions slurm;
    std::string source_text;  // the YAML as loaded
};

// Loads and validates a sweep file; throws ScenarioError listing every problem.
SweepSpec load_sweep(const std::string& path);

}  // namespace nmsim::sweep
