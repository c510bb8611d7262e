// The Slurm backend: one job array whose task i runs point i through
// `nmsim sweep SWEEP --point $SLURM_ARRAY_TASK_ID -o OUT`, submitted with `sbatch --parsable`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tools/sweep/sweep_file.h"

namespace nmsim::sweep {

// "0-3,5,7-9" for {0,1,2,3,5,7,8,9} (ids sorted ascending).
std::string array_ranges(const std::vector<uint32_t>& ids);

struct SbatchInput {
    std::string exe;         // absolute path of the nmsim binary
    std::string sweep_path;  // absolute path of the sweep file
    std::string out_dir;     // absolute output directory
    std::vector<uint32_t> ids;
    bool retry_failed = false;
};

// The job-array script text.
std::string sbatch_script(const SweepSpec& s, const SbatchInput& in);

// Absolute path of `name` found in PATH, or "".
std::string find_in_path(const std::string& name);

// Submits `script` with `sbatch --parsable`; returns the job id. Throws std::runtime_error with
// sbatch's stderr if it fails, or naming sbatch if it is not installed.
std::string submit(const std::string& script_path, const std::string& out_dir,
                   const std::string& sbatch = "sbatch");

}  // namespace nmsim::sweep
