// What a run leaves behind: the trace (its header, the resolved scenario and parameters, the
// metrics) and, with `nmsim run -d DIR`, a run directory in the manner of gem5's m5out:
//   trace.h5     the trace
//   config.yaml  the resolved scenario (loads back: `nmsim run DIR/config.yaml`)
//   params.yaml  every effective platform parameter: value, unit, origin, source
//   stats.txt    every summary counter and metric, one per line: name, value, unit
//   stats.json   the same with the run's outcome, for programs
//   report.txt   the report text
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "models/common/energy.h"
#include "nmsim/trace/hdf5_writer.h"
#include "platforms/common/host_program.h"
#include "platforms/common/params.h"
#include "tools/scenario/scenario.h"

namespace nmsim::run {

trace::RunInfo run_info(const scenario::Scenario& s, const RunOptions& o);

// The trace file of a run: -o, else DIR/trace.h5 for -d DIR, else the scenario's trace.file,
// else <scenario name>.h5.
std::string trace_path(const scenario::Scenario& s, const RunOptions& o);
// Starts a fresh SystemC kernel and creates the run's trace at `path` with the run header, the
// resolved scenario and the effective parameters (what every run does first).
std::unique_ptr<trace::Hdf5Writer> open_trace(const scenario::Scenario& s, const RunOptions& o,
                                              const std::vector<ParamValue>& rows,
                                              const std::string& path);
std::vector<trace::ParamRow> param_rows(const std::vector<ParamValue>& rows);

// A run's machine-readable results: summary counters of the component "metrics" (docs in
// traces/README.md, "Metrics"), read by `nmsim sweep`, nmsim-trace and the Python API. Names
// are dotted (dnn.total_us, bss2.rate.exc); every run has ok and sim_time_us. The wall time
// stays in /run only: metrics are deterministic (same seed, same trace).
void write_metric(trace::Sink& sink, const std::string& name, const std::string& unit,
                  double value);
void write_run_metrics(trace::Sink& sink, const RunResult& r);
// Closes the meter's last phase at t_end_ps, writes energy/breakdown and the metrics
// energy.total_uJ, energy.dynamic_uJ, energy.static_uJ and energy.average_power_mW.
void finish_energy(energy::Meter& m, trace::Sink& sink, uint64_t t_end_ps);

// Creates the run directory (and its parents); throws std::runtime_error naming it.
void make_run_dir(const std::string& dir);
// Writes config.yaml, params.yaml, stats.txt, stats.json and report.txt into `dir`.
void write_run_dir(const std::string& dir, const scenario::Scenario& s,
                   const std::vector<ParamValue>& params,
                   const std::vector<trace::CounterRow>& counters, const RunResult& r);

}  // namespace nmsim::run
