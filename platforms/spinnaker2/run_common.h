// What the scenario host programs (run.cpp for the PE platform, run_chip.cpp for the chip) share:
// parameter resolution with origins, number formatting for reports, the trace's run header.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "models/common/energy.h"
#include "models/common/param.h"
#include "nmsim/trace/hdf5_writer.h"
#include "platforms/spinnaker2/pe_platform.h"
#include "platforms/spinnaker2/run.h"
#include "tools/scenario/scenario.h"

namespace nmsim::spinnaker2::detail {

std::string hex32(uint64_t v);
std::string fmt(double v, int prec);
std::string grouped(uint64_t v);  // 1234567 -> "1,234,567"
std::string utc_now();
std::string unit_of(const ParamEntry& e);

// Resolves defaults + scenario overrides into `root` (a parameter set with registry `reg`).
// `extra` may add errors for cross-parameter rules; it gets the origin of a path. Throws
// scenario::ScenarioError naming each unknown or bad parameter; fills `rows` sorted by path.
using OriginOf = std::function<scenario::Origin(const std::string& path)>;
void resolve_into(
    const ParamRegistry& reg, void* root, const scenario::Scenario& s,
    const std::function<void(const OriginOf&, std::vector<scenario::ConfigError>&)>& extra,
    std::vector<ParamValue>* rows);

template <typename P>
P resolve_paramset(const scenario::Scenario& s,
                   const std::function<void(const P&, const OriginOf&,
                                            std::vector<scenario::ConfigError>&)>& extra,
                   std::vector<ParamValue>* rows) {
    P p;
    resolve_into(
        registry_of<P>(), &p, s,
        [&](const OriginOf& o, std::vector<scenario::ConfigError>& e) {
            if (extra) extra(p, o, e);
        },
        rows);
    return p;
}

// What went wrong with a started core after sc_start returned, or "" if it exited with status 0:
// a non-zero exit status, a hang (asleep with nothing left to simulate) or a timeout at
// max_time. Shared by both host programs so their messages agree.
std::string core_problem(Pe& pe, Time max_time);

trace::RunInfo run_info(const scenario::Scenario& s, const RunOptions& o);

// The trace file of a run: -o, else the scenario's trace.file, else <scenario name>.h5.
std::string trace_path(const scenario::Scenario& s, const RunOptions& o);
// Starts a fresh SystemC kernel and creates the run's trace at `path` with the run header, the
// resolved scenario and the effective parameters (what every host program does first).
std::unique_ptr<trace::Hdf5Writer> open_trace(const scenario::Scenario& s, const RunOptions& o,
                                              const std::vector<ParamValue>& rows,
                                              const std::string& path);

// A run's machine-readable results: summary counters of the component "metrics" (docs in
// traces/README.md, "Metrics"), read by `nmsim sweep` and nmsim-trace. Names are dotted
// (dnn.total_us, bss2.rate.exc); every run has ok and sim_time_us. The wall time stays in /run
// only: metrics are deterministic (same seed, same trace).
void write_metric(trace::Sink& sink, const std::string& name, const std::string& unit,
                  double value);
void write_run_metrics(trace::Sink& sink, const RunResult& r);
// Closes the meter's last phase at t_end_ps, writes energy/breakdown and the metrics
// energy.total_uJ, energy.dynamic_uJ, energy.static_uJ and energy.average_power_mW.
void finish_energy(energy::Meter& m, trace::Sink& sink, uint64_t t_end_ps);
std::vector<trace::ParamRow> param_rows(const std::vector<ParamValue>& rows);

}  // namespace nmsim::spinnaker2::detail
