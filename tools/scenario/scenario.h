// Scenario files: YAML that names a platform and its parameter overrides, the workload (firmware
// per core, data buffers, argument words; or a DNN inference run on the full chip), checks on
// the results, trace options and the seed.
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

// A DNN inference workload on the full chip (platform kind spinnaker2_chip): the host compiler
// turns `model` into a DRAM image, the generic scheduler/worker firmware runs `count` inferences
// of batch 1 on consecutive inputs from `inputs`; see scenarios/README.md.
struct DnnWorkload {
    // Files, resolved against the scenario file to absolute paths; each must exist if given.
    std::string model;   // ONNX file (required)
    std::string inputs;  // raw int8 inputs back to back (required)
    // Optional ("" if absent): one uint8 label per input.
    std::string labels;
    // Optional ("" if absent): one uint8 class per input as predicted by the float model.
    std::string float_predictions;
    uint64_t first = 0;         // index of the first input used
    uint64_t count = 100;       // inferences (>= 1)
    uint32_t scheduler_pe = 0;  // global PE index (0..151)
    // Worker PEs: `workers: N` means the first N PEs after the scheduler in global index order
    // (skipping the scheduler), `workers: all` every other PE of the chip (151 with the default
    // 38 QPEs; the loader stores 0 and all_workers = true because the QPE count is a platform
    // parameter), `worker_pes: [..]` an explicit list (unique, not the scheduler). Exactly one of
    // workers / worker_pes; default: workers: 8.
    uint32_t workers = 8;
    bool all_workers = false;
    std::vector<uint32_t> worker_pes;  // explicit list (empty unless given)
    // Optional cap for the compiler's tiling search (0 = all workers).
    uint64_t max_workers_per_layer = 0;
    // Optional caps per entry of the compiled layer list, in list order (0 = no cap beyond
    // max_workers_per_layer); e.g. [8, 4, 1, 1] pins seed 000 Table II's worker counts.
    std::vector<uint64_t> layer_workers;
    // Optional published times (us) printed next to the simulated ones: setup, each entry of the
    // layer list, cleanup, total (e.g. seed 000 Table II); `published_source` names them.
    std::vector<double> published_us;
    std::string published_source;
    // Built-in program names or .elf paths, resolved like cores[].firmware.
    std::string scheduler_firmware = "dnn_scheduler";
    std::string scheduler_firmware_path;  // resolved absolute ELF path
    std::string worker_firmware = "dnn_worker";
    std::string worker_firmware_path;
    bool check = true;  // compare every output bit-exactly with the integer reference
    Origin origin;      // of the `dnn` map
    // Per field key ("model", "count", ...) for later messages: the value's origin, or the `dnn`
    // map's origin for a key left at its default; "worker_pes.<i>" for each listed PE.
    std::map<std::string, Origin> origins;
};

// One external population's input spike trains in a realtime run (times in us of hardware time,
// relative to the run's start): Poisson or regular at `rate_hz` per neuron in [start_us, stop_us),
// or explicit `times_us` per neuron.
struct Bss2Input {
    std::string population;
    enum class Kind { poisson, regular, times } kind = Kind::poisson;
    double rate_hz = 0;
    double start_us = 0;
    std::optional<double> stop_us;              // default: the run's end
    std::vector<std::vector<double>> times_us;  // kind times: one list per neuron
    Origin origin;
};

struct Bss2Run {
    std::vector<Bss2Input> inputs;
    Origin origin;
};

// A spiking experiment on the BrainScaleS-2 chip (platform kind brainscales2): the network file
// is mapped and routed by the host compiler, one initial configuration is followed by a batch of
// realtime runs (seed 004 Fig. 3.14); see scenarios/README.md.
struct Bss2Workload {
    std::string network;        // network YAML file (absolute path)
    double runtime_us = 1000;   // duration of every realtime run (hardware time)
    std::vector<Bss2Run> runs;  // >= 1; `input_sweep` expands to one run per rate
    struct Probe {
        std::string population;
        uint64_t neuron = 0;
        Origin origin;
    };
    std::optional<Probe> madc;  // record this neuron's membrane with the MADC
    bool cadc = false;          // read all membranes with the CADC at the end of every run
    bool reset_between_runs = true;
    std::string
        dot;  // write the signal-flow graph here (relative to the working directory), "" = no
    Origin origin;
    std::map<std::string, Origin> origins;  // per key, as DnnWorkload::origins
};

struct Scenario {
    std::string path;  // the file
    std::string name;
    std::string description;
    std::string platform_kind;          // "spinnaker2_pe", "spinnaker2_chip" or "brainscales2"
    std::vector<ParamOverride> params;  // in file order, then --set order
    uint64_t seed = 1;
    std::map<std::string, Buffer> buffers;
    std::vector<std::string> buffer_order;  // file order (placement order)
    std::vector<CoreLoad> cores;
    std::vector<Check> checks;
    std::optional<DnnWorkload> dnn;    // set for spinnaker2_chip (buffers, cores, checks are empty)
    std::optional<Bss2Workload> bss2;  // set for brainscales2 (buffers, cores, checks are empty)
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
// spelling of firmware (`CoreLoad::firmware`, `DnnWorkload::scheduler_firmware` and
// `worker_firmware`; the resolved paths are compared). Returns "" if they are equal, else the
// dotted key of the first difference and both values.
std::string diff_resolved(const Scenario& a, const Scenario& b);

}  // namespace nmsim::scenario
