// Scenario files: YAML that names a platform and its parameter overrides, one workload (its kind
// is the single key of `workload`; each kind parses its own section, tools/scenario/workload.h),
// trace options and the seed. Loading resolves every value and keeps its origin (file:line:col or
// --set) for messages and for the resolved-config dump. This file is the common frame only;
// nothing here knows SystemC, models or any one workload. See scenarios/README.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tools/scenario/errors.h"
#include "tools/scenario/reader.h"
#include "tools/scenario/workload.h"

namespace nmsim::scenario {

struct TraceOptions {
    std::string file;            // output path (-o overrides); default "<scenario name>.h5"
    bool events = true;          // false: summary only
    bool console_stdout = true;  // echo console lines to stdout
};

// Limits of a run that are not platform parameters (the simulated-time limit is the platform's
// sim.max_time).
struct Limits {
    double max_wall_s = 0;  // wall-time limit in seconds (0: none): the run stops as "timeout"
};

struct ParamOverride {
    std::string path;   // platform parameter path, e.g. "pe.mla.acc_bits"
    std::string value;  // scalar text as written
    Origin origin;
};

struct Scenario {
    std::string path;  // the file
    std::string name;
    std::string description;
    std::string platform_kind;          // "spinnaker2_pe", "spinnaker2_chip" or "brainscales2"
    std::string platform_variant;       // "" or a name of tools/scenario/variants.h
    Origin platform_variant_origin;     // where platform.variant was given
    std::vector<ParamOverride> params;  // in file order, then --set order
    uint64_t seed = 1;
    Workload workload;  // workload.kind() is the registered name: "pe", "dnn", "bss2"
    TraceOptions trace;
    Limits limits;
    std::string source_text;            // the YAML as loaded, for the trace
    std::vector<ConfigError> warnings;  // problems that do not stop the run (old spellings)
};

// The platform kinds a scenario may name.
const std::vector<std::string>& platform_kinds();
// The frame's own keys (name, description, seed, platform.*, trace.*) with their docs.
const std::vector<KeyDoc>& frame_keys();

// Loads and validates a scenario. Throws ScenarioError listing every problem found.
// `--set` keys whose first segment is a scenario key (name, description, seed, platform, workload,
// trace) edit the document; `platform.params.<p>` and any other key are platform parameter
// overrides.
Scenario load(const std::string& path, const LoadOptions& opts);

// As load(), on scenario text already in memory (the fuzz harness, tools/fuzz): `path` names the
// text in messages and relative paths resolve against its directory (or opts.base_dir); the file
// itself is not read.
Scenario load_text(const std::string& text, const std::string& path, const LoadOptions& opts);

// The resolved scenario as YAML (round-trips through load()).
std::string dump(const Scenario& s);

// Compares two scenarios by resolved content, ignoring origins, `path`, `source_text`, warnings
// and the spelling of firmware (resolved paths are compared). Returns "" if they are equal, else
// the dotted key of the first difference and both values.
std::string diff_resolved(const Scenario& a, const Scenario& b);

}  // namespace nmsim::scenario
