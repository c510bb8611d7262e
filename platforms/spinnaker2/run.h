// The host program of a scenario on the SpiNNaker2 PE platform: resolves the platform parameters,
// loads firmware and data, runs the simulation, checks the results against the references,
// writes the trace and prints the report. What `nmsim run` calls.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "platforms/spinnaker2/pe_platform.h"
#include "tools/scenario/scenario.h"

namespace nmsim::spinnaker2 {

struct ParamValue {
    std::string path, value, unit, type, origin, source, doc;
};

// Defaults + scenario overrides (+ --set). Throws scenario::ScenarioError naming each unknown
// parameter (with did-you-mean) or bad value with its origin. `rows` receives every parameter
// with its effective value and origin, sorted by path.
PePlatformParams resolve_params(const scenario::Scenario& s, std::vector<ParamValue>* rows);

struct RunOptions {
    std::string trace_path;  // overrides the scenario's trace.file when not empty
    std::string argv;        // command line, recorded in the trace
    bool quiet = false;      // no report and no console echo on stdout (errors still go to `err`)
    bool elaborate_only = false;  // validate and lay out everything, print the layout, simulate nothing
};

struct RunResult {
    bool ok = false;             // every core exited 0 and every check passed
    bool sim_error = false;      // fault, hang, timeout or bad exit status
    bool checks_failed = false;
    std::string message;         // first problem, if any
    std::string trace_path;
    double sim_time_us = 0;
    double wall_seconds = 0;
};

// Runs the scenario; configuration errors throw scenario::ScenarioError or std::runtime_error
// before anything is simulated. A failing run still writes its trace.
RunResult run_scenario(const scenario::Scenario& s, const RunOptions& o, std::ostream& out,
                       std::ostream& err);

}  // namespace nmsim::spinnaker2
