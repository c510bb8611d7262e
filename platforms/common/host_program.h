// Host programs: what runs a scenario's workload on a simulated platform, as the stages every
// workload kind goes through (docs/workloads.md):
//   prepare  resolve the platform parameters, compile the workload, read and check its inputs
//   load     build the platform, load firmware and data, declare the result tables (then begin:
//            start the cores)
//   run      simulate (the driver: sc_start in slices, with progress)
//   collect  the simulation's outcome; read the results back and write them to the trace
//   check    compare the results with their references
//   report   metrics (trace counters of component "metrics") and the report text
// Each workload kind implements HostProgram once (workloads/<kind>/host.cpp) and registers it by
// the kind's name (workloads/hosts.cpp); run_scenario() drives the stages, writes the trace and
// the run directory, and prints the report.
#pragma once

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "platforms/common/params.h"
#include "tools/scenario/scenario.h"

namespace nmsim::trace {
class Hdf5Writer;
}

namespace nmsim::run {

struct RunOptions {
    std::string trace_path;  // -o: overrides the scenario's trace.file when not empty
    // -d: a run directory: trace.h5, config.yaml, stats.txt, stats.json, report.txt.
    std::string run_dir;
    std::string argv;             // command line, recorded in the trace
    bool quiet = false;           // no report, no console echo, no progress (errors still shown)
    bool elaborate_only = false;  // validate and lay out everything, print the layout, stop
    bool progress = true;         // progress on stderr (a line on a terminal, else log lines)
    double progress_interval_s = 10.0;  // log lines: one per interval
    double max_wall_s = 0;              // wall-time limit (0: none): the run stops as "timeout"
};

struct RunResult {
    // "ok", "error" (the simulation or a check failed), "interrupted" (SIGINT/SIGTERM) or
    // "timeout" (the wall-time limit): the trace's /run status.
    std::string status = "error";
    int signal = 0;              // the signal that interrupted the run
    bool ok = false;             // the simulation succeeded and every check passed
    bool sim_error = false;      // fault, hang, timeout, bad exit status, failed host program
    bool checks_failed = false;  // a result differs from its reference
    std::string message;         // the first problem, if any
    std::string trace_path;
    double sim_time_us = 0;
    double wall_seconds = 0;
    std::string report;  // the report text (printed unless quiet; report.txt in a run directory)
};

// How far a run has got, for the progress line: units of the workload (inferences, runs).
struct Progress {
    uint64_t done = 0;
    uint64_t total = 0;
    std::string unit;  // "" when the workload has no countable units
};

// What the stages of one run share.
class RunContext {
public:
    RunContext(const scenario::Scenario& s, const RunOptions& o) : scenario(s), options(o) {}

    const scenario::Scenario& scenario;
    const RunOptions& options;
    std::vector<ParamValue> params;      // the effective parameters (prepare fills them)
    trace::Hdf5Writer* trace = nullptr;  // the run's trace, from load on
    RunResult result;

    // Records that the simulation failed; the first problem becomes the run's message.
    void sim_failed(const std::string& why);
    // Records that a check failed.
    void check_failed(const std::string& why);
    bool failed() const { return result.sim_error || result.checks_failed; }
    // Echo firmware console lines to stdout (the scenario asks for it and the run is not quiet).
    bool console_echo() const { return scenario.trace.console_stdout && !options.quiet; }
};

class HostProgram {
public:
    virtual ~HostProgram() = default;
    // Resolves the platform parameters into ctx.params, compiles the workload and checks its
    // inputs. Bad input throws scenario::ScenarioError (or std::runtime_error); nothing runs.
    virtual void prepare(RunContext& ctx) = 0;
    // What --elaborate-only prints after prepare.
    virtual void elaboration(const RunContext& ctx, std::ostream& out) const = 0;
    // Builds the platform on ctx.trace, loads firmware and data, declares tables.
    virtual void load(RunContext& ctx) = 0;
    // After the trace has started, right before the simulation: starts the cores, writes the
    // tables known before the run.
    virtual void begin(RunContext& ctx) {}
    // The simulated-time limit (the platform's sim.max_time), in ps.
    virtual uint64_t max_time_ps() const = 0;
    // Units done so far, for the progress line (called between simulation slices).
    virtual Progress progress() const { return {}; }
    // After the simulation: its outcome, the results read back and written to the trace.
    virtual void collect(RunContext& ctx) = 0;
    // Compares results with references.
    virtual void check(RunContext& ctx) = 0;
    // The workload's metrics (the driver adds ok and sim_time_us).
    virtual void write_metrics(RunContext& ctx) = 0;
    // The report lines between the header and the trace / wall time / result footer.
    virtual void report(const RunContext& ctx, std::ostream& out) const = 0;
    // Appended to the report's wall time: default "(Nx slower than real time)".
    virtual std::string wall_note(const RunResult& r) const;
};

// Asks a running simulation to stop at its next slice boundary (within about half a second of
// wall time): it keeps what it has (tables of the completed inferences or runs, counters), ends
// with status "interrupted" and says where it stopped. Async-signal-safe: the CLI calls it from
// its SIGINT/SIGTERM handler.
void request_interrupt(int signal) noexcept;
// The signal of a pending request, or 0 (cleared by the next run).
int interrupt_requested() noexcept;

// The host program registered for a workload kind, or nullptr. Defined with the registry in
// workloads/hosts.cpp (library nmsim_workloads), as is the first run_scenario below.
std::unique_ptr<HostProgram> make_host_program(const std::string& kind);

// Runs a scenario with the host program of its workload kind: the stages above, then the trace
// is closed, the run directory written (RunOptions::run_dir) and the report printed to `out`
// (unless quiet); a problem goes to `err` as "nmsim: error: ...". Configuration errors throw
// before anything is simulated; a failing run still writes its trace.
RunResult run_scenario(const scenario::Scenario& s, const RunOptions& o, std::ostream& out,
                       std::ostream& err);
// The same with a given host program (tests and benchmarks read its results afterwards).
RunResult run_scenario(const scenario::Scenario& s, const RunOptions& o, std::ostream& out,
                       std::ostream& err, HostProgram& host);

}  // namespace nmsim::run
