// `nmsim sweep`: runs every point of a sweep file as a child `nmsim run` (local process pool or a
// Slurm job array), resumable, and collects the results table. See docs/sweeps.md.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <ostream>
#include <string>

namespace nmsim::sweep {

struct SweepOptions {
    std::string sweep_path;
    int jobs = 0;                   // local pool size; 0 = number of cores
    std::string backend = "local";  // "local" or "slurm"
    std::string output;             // overrides the sweep file's `output` ("" = keep)
    bool dry_run = false;           // expand, validate and print; run and write nothing
    bool collect = false;           // only gather finished points into the results table
    bool retry_failed = false;      // run points recorded as failed again
    std::optional<uint32_t> point;  // run exactly this point (Slurm array tasks)
    std::string exe;                // nmsim binary for children; "" = /proc/self/exe
    std::string sbatch = "sbatch";  // sbatch command (name in PATH or path)
    // Progress on stderr: true a redrawn line, false none; default: a line on a terminal, else
    // a log line every progress_interval_s.
    std::optional<bool> progress;
    double progress_interval_s = 30.0;
    // Polled while points run: a non-zero signal number stops the sweep (no new point starts,
    // running ones get SIGTERM and keep their traces, unfinished points stay pending).
    std::function<int()> stop_signal;
};

struct SweepSummary {
    uint32_t total = 0;  // points of the sweep
    uint32_t ok = 0, failed = 0, pending = 0;
    uint32_t skipped = 0;      // already finished before this invocation
    uint32_t runs = 0;         // `nmsim run` children started to simulate points
    uint32_t validations = 0;  // `--elaborate-only` children started
    double run_seconds = 0;    // wall time of the simulation phase
    std::string job_id;        // Slurm: the submitted array job
};

// Exit status: 0 all points ok, 1 some point failed, 2 bad sweep file, options or output dir
// (or another sweep holds it), 128 + signal when stopped by `stop_signal`.
int run_sweep(const SweepOptions& o, std::ostream& out, std::ostream& err,
              SweepSummary* summary = nullptr);

}  // namespace nmsim::sweep
