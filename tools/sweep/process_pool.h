// Runs child processes, at most N at a time: each job is an argv with its stdout/stderr
// redirected to files and a working directory. A crashing child affects only its own job.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace nmsim::sweep {

struct Job {
    std::vector<std::string> argv;  // argv[0] is the executable path (no PATH search)
    std::string stdout_path;        // "" = /dev/null
    std::string stderr_path;        // "" = /dev/null
    std::string cwd;                // "" = inherit
};

struct JobResult {
    bool interrupted = false;  // stopped by a stop request (or SIGINT/SIGTERM): not a failure
    bool exited = false;       // normal exit (else killed by a signal or not started)
    int exit_code = -1;        // if exited
    int signal = 0;            // if killed
    bool spawned = false;      // fork succeeded
    // "exit status 3", "killed by signal 11 (Segmentation fault)", "could not start: ...".
    std::string describe() const;
    bool ok() const { return exited && exit_code == 0; }
};

// Runs `jobs` with at most `parallel` at once, in order. `on_done(index, result)` is called in
// the calling thread as each job ends; `on_tick()` (optional) about every 200 ms while waiting.
// When `stop()` (optional) returns true, no further job starts, the running children get
// SIGTERM (nmsim run then stops cleanly and keeps its trace) and are waited for; their results
// are marked interrupted, as are those of children that ended by SIGINT/SIGTERM themselves
// (exit status 130/143). Children die with the parent (PR_SET_PDEATHSIG): a killed pool leaves
// no orphans. Returns the number of children started.
size_t run_jobs(const std::vector<Job>& jobs, int parallel,
                const std::function<void(size_t, const JobResult&)>& on_done,
                const std::function<void()>& on_tick = {}, const std::function<bool()>& stop = {});

// Runs one job and waits for it.
JobResult run_job(const Job& job);

}  // namespace nmsim::sweep
