// Scenario files: YAML that names a platform and its parameter overrides, the workload (firmware
// per core, data buffers, argument words), checks on the results, trace options and the seed.
// Loading resolves every value and keeps its origin (file:line:col or --set) for messages and
// for the resolved-config dump. Nothing here knows SystemC or models. See scenarios/README.md.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
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

// A config error: all errors of a phase are collected, sorted by file and line, then thrown.
struct ConfigError {
    Origin origin;
    std::string key;          // dotted key path, e.g. "workload.buffers.x.dtype"
    std::string message;      // "expected int, got \"abc\""
    std::string str() const;  // "file:line:col: error: key: message"
};

class ScenarioError : public std::runtime_error {
public:
    explicit ScenarioError(std::vector<ConfigError> errors);
    const std::vector<ConfigError>& errors() const { return m_errors; }

private:
    std::vector<ConfigError> m_errors;
};

enum class DType { i8, u8, i16, u16, i32, u32, f32 };
const char* dtype_name(DType t);
size_t dtype_size(DType t);
// The YAML name ("int8", ..., "float32") to the enum; nullopt for anything else.
std::optional<DType> parse_dtype(const std::string& name);

// Where a buffer lives: the SRAM of one PE (auto-placed after the firmware image unless
// `address` is given) or the host-visible external memory (window at S2_EXT_BASE).
struct Placement {
    enum class Kind { sram, ext } kind = Kind::sram;
    uint32_t pe = 0;
    std::optional<uint32_t> address;  // absolute core address; auto-placed if absent
};

struct BufferInit {
    enum class Kind { zeros, random, values, file } kind = Kind::zeros;
    double lo = 0, hi = 0;       // random: uniform integers (or reals for f32) in [lo, hi]
    std::vector<double> values;  // values: literal list, row-major
    std::string file;  // file: raw little-endian bytes; absolute (resolved against the scenario)
};

struct Buffer {
    std::string name;
    DType dtype = DType::i8;
    std::vector<uint64_t> shape;
    Placement at;
    BufferInit init;
    Origin origin;
    uint64_t bytes() const;
    uint64_t elements() const;  // product of shape
};

// One 32-bit argument word written to the core's argument block before it starts:
// an integer, or the address of a buffer ("@name").
struct ArgWord {
    std::string name;  // key in the YAML map (documentation; order defines the layout)
    std::optional<uint32_t> value;
    std::string buffer;  // set for "@name"
    Origin origin;
};

struct CoreLoad {
    uint32_t pe = 0;
    std::string firmware;       // as written: a built-in program name or a path
    std::string firmware_path;  // resolved absolute ELF path (exists at load time)
    std::vector<ArgWord> args;
    Origin origin;
};

// A check of the results, run on the host after the simulation.
//   kind: reference  -- recompute `op` with the integer reference and compare bit-exactly
//   kind: equal      -- buffer equals another buffer (`expect`)
//   kind: allclose   -- buffer (converted by `scale`) within atol of reference `op` output
struct Check {
    std::string kind;
    std::string buffer;  // result buffer
    std::string expect;  // equal: the other buffer
    double atol = 0;
    std::map<std::string, std::string> op;  // reference op: name -> value (buffers by name)
    Origin origin;
};

struct TraceOptions {
    std::string file;            // output path (-o overrides); default "<scenario name>.h5"
    bool events = true;          // false: summary only
    bool console_stdout = true;  // echo console lines to stdout
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
    std::string platform_kind;          // "spinnaker2_pe"
    std::vector<ParamOverride> params;  // in file order, then --set order
    uint64_t seed = 1;
    std::map<std::string, Buffer> buffers;
    std::vector<std::string> buffer_order;  // file order (placement order)
    std::vector<CoreLoad> cores;
    std::vector<Check> checks;
    TraceOptions trace;
    std::string source_text;  // the YAML as loaded, for the trace
};

struct LoadOptions {
    std::vector<std::string> sets;           // "--set key.path=value" items, in order
    std::vector<std::string> firmware_dirs;  // where built-in program names are looked up
};

// Loads and validates a scenario. Throws ScenarioError listing every problem found.
// `--set` keys whose first segment is a scenario key (name, description, seed, platform, workload,
// checks, trace) edit the document; `platform.params.<p>` and any other key are platform
// parameter overrides.
Scenario load(const std::string& path, const LoadOptions& opts);

// The resolved scenario as YAML (round-trips through load()).
std::string dump(const Scenario& s);

// Compares two scenarios by resolved content, ignoring origins, `path`, `source_text` and the
// spelling of `CoreLoad::firmware` (the resolved `firmware_path` is compared). Returns "" if
// they are equal, else the dotted key of the first difference and both values.
std::string diff_resolved(const Scenario& a, const Scenario& b);

}  // namespace nmsim::scenario
