#include "tools/sweep/slurm.h"

#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "tools/sweep/process_pool.h"

namespace nmsim::sweep {

namespace {

namespace fs = std::filesystem;

// Single-quoted for bash.
std::string sh_quote(const std::string& s) {
    std::string o = "'";
    for (char c : s) o += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return o + "'";
}

// Job names and #SBATCH values: no spaces or quotes (sbatch reads these lines itself).
std::string sanitize(const std::string& s) {
    std::string o;
    for (char c : s)
        o += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' ||
              c == ':')
                 ? c
                 : '_';
    return o;
}

std::string read_text(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

}  // namespace

std::string array_ranges(const std::vector<uint32_t>& ids) {
    std::string s;
    for (size_t i = 0; i < ids.size();) {
        size_t j = i;
        while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
        if (!s.empty()) s += ",";
        s += std::to_string(ids[i]);
        if (j > i) s += "-" + std::to_string(ids[j]);
        i = j + 1;
    }
    return s;
}

std::string sbatch_script(const SweepSpec& s, const SbatchInput& in) {
    const std::string slurm_dir = (fs::path(in.out_dir) / "slurm").string();
    std::ostringstream o;
    o << "#!/bin/bash\n"
      << "# nmsim sweep " << s.name << ": one array task per point (written by `nmsim sweep "
      << "--backend slurm`; collect with `nmsim sweep " << in.sweep_path << " --collect -o "
      << in.out_dir << "`)\n"
      << "#SBATCH --job-name=nmsim-sweep-" << sanitize(s.name) << "\n"
      << "#SBATCH --array=" << array_ranges(in.ids);
    if (s.slurm.max_parallel > 0) o << "%" << s.slurm.max_parallel;
    o << "\n"
      << "#SBATCH --output=" << slurm_dir << "/%A_%a.out\n"
      << "#SBATCH --chdir=" << (fs::path(in.out_dir) / "points").string() << "\n"
      << "#SBATCH --cpus-per-task=" << s.slurm.cpus_per_task << "\n";
    if (!s.slurm.partition.empty())
        o << "#SBATCH --partition=" << sanitize(s.slurm.partition) << "\n";
    if (!s.slurm.time.empty()) o << "#SBATCH --time=" << sanitize(s.slurm.time) << "\n";
    o << "exec " << sh_quote(in.exe) << " sweep " << sh_quote(in.sweep_path)
      << " --point \"$SLURM_ARRAY_TASK_ID\" -o " << sh_quote(in.out_dir)
      << (in.retry_failed ? " --retry-failed" : "") << "\n";
    return o.str();
}

std::string find_in_path(const std::string& name) {
    if (name.find('/') != std::string::npos) return access(name.c_str(), X_OK) == 0 ? name : "";
    const char* path = std::getenv("PATH");
    std::stringstream ss(path ? path : "/usr/bin:/bin");
    std::string dir;
    while (std::getline(ss, dir, ':')) {
        if (dir.empty()) continue;
        const std::string p = (fs::path(dir) / name).string();
        if (access(p.c_str(), X_OK) == 0 && fs::is_regular_file(p)) return p;
    }
    return "";
}

std::string submit(const std::string& script_path, const std::string& out_dir,
                   const std::string& sbatch) {
    const std::string exe = find_in_path(sbatch);
    if (exe.empty())
        throw std::runtime_error("the slurm backend needs `" + sbatch +
                                 "`, which is not in PATH (Debian: apt-get install slurm-client; "
                                 "or run with --backend local)");
    const std::string dir = (fs::path(out_dir) / "slurm").string();
    Job job{{exe, "--parsable", script_path}, dir + "/submit.out", dir + "/submit.err", ""};
    const JobResult r = run_job(job);
    std::string id = read_text(job.stdout_path);
    while (!id.empty() && (id.back() == '\n' || id.back() == '\r')) id.pop_back();
    if (!r.ok() || id.empty()) {
        std::string err = read_text(job.stderr_path);
        while (!err.empty() && err.back() == '\n') err.pop_back();
        throw std::runtime_error(sbatch + " failed (" + r.describe() + ")" +
                                 (err.empty() ? "" : ": " + err));
    }
    // --parsable prints "jobid" or "jobid;cluster".
    return id.substr(0, id.find(';'));
}

}  // namespace nmsim::sweep
