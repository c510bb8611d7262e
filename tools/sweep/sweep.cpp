#include "tools/sweep/sweep.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "tools/progress/progress.h"
#include "tools/sweep/points.h"
#include "tools/sweep/process_pool.h"
#include "tools/sweep/results.h"
#include "tools/sweep/slurm.h"
#include "tools/sweep/sweep_file.h"

namespace nmsim::sweep {

namespace {

namespace fs = std::filesystem;

std::string read_text(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::vector<std::string> nonempty_lines(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
        if (!line.empty()) lines.push_back(line);
    }
    return lines;
}

// The error message of a failed child: its last stderr line, with the cause if it crashed.
std::string child_error(const JobResult& r, const std::string& log) {
    const auto lines = nonempty_lines(read_text(log));
    const std::string last = lines.empty() ? "" : lines.back();
    if (r.exited && r.exit_code != 0 && !last.empty()) return last;
    return r.describe() + (last.empty() ? "" : ": " + last);
}

// flock() on <out>/.lock for the life of the invocation: a local sweep holds it exclusively (two
// pools on one directory would run the same points twice and interleave their tables), Slurm
// array tasks (--point) and --collect share it. The descriptor is inherited by the children (no
// O_CLOEXEC), so the lock lasts while any of them runs.
class DirLock {
public:
    DirLock() = default;
    DirLock(const DirLock&) = delete;
    DirLock& operator=(const DirLock&) = delete;
    ~DirLock() {
        if (fd_ >= 0) close(fd_);
    }

    // "" when held, else why not.
    std::string acquire(const std::string& dir, bool exclusive) {
        const std::string path = (fs::path(dir) / ".lock").string();
        fd_ = open(path.c_str(), O_RDWR | O_CREAT, 0644);
        if (fd_ < 0) return path + ": " + std::strerror(errno);
        if (flock(fd_, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) == 0) {
            if (exclusive) record_pid();
            return "";
        }
        const int e = errno;
        if (e != EWOULDBLOCK) return path + ": " + std::strerror(e);
        std::string holder = read_text(path);
        while (!holder.empty() && (holder.back() == '\n' || holder.back() == ' '))
            holder.pop_back();
        return dir + " is in use by another nmsim sweep" +
               (holder.empty() ? "" : " (pid " + holder + ")") +
               "; wait for it to end or give another output directory (-o)";
    }

private:
    // Only for the message a second sweep prints: a failed write does no harm.
    void record_pid() {
        const std::string pid = std::to_string(getpid()) + "\n";
        const bool written =
            ftruncate(fd_, 0) == 0 && pwrite(fd_, pid.data(), pid.size(), 0) == ssize_t(pid.size());
        (void)written;
    }

    int fd_ = -1;
};

struct Context {
    SweepSpec spec;
    std::vector<Point> points;
    std::vector<std::string> paths;
    std::vector<std::string> extra;  // "component/counter" metrics
    std::string exe, sweep_abs, out;
    std::vector<PointResult> results;
};

std::vector<std::string> run_argv(const Context& c, const Point& p, bool elaborate) {
    std::vector<std::string> a = {c.exe, "run", c.spec.base};
    for (const auto& f : c.spec.fixed) {
        a.push_back("--set");
        a.push_back(f.path + "=" + f.value);
    }
    for (const auto& kv : p.params) {
        a.push_back("--set");
        a.push_back(kv.first + "=" + kv.second);
    }
    if (elaborate) {
        a.push_back("--elaborate-only");
    } else {
        a.push_back("-o");
        a.push_back(trace_path(c.out, p.id));
    }
    a.push_back("-q");
    return a;
}

Job make_job(const Context& c, const Point& p, bool elaborate) {
    return Job{run_argv(c, p, elaborate), "", log_path(c.out, p.id),
               (fs::path(c.out) / "points").string()};
}

void clear_point(const Context& c, uint32_t id) {
    std::error_code ec;
    fs::remove(trace_path(c.out, id), ec);
    fs::remove(error_path(c.out, id), ec);
    fs::remove(log_path(c.out, id), ec);
}

void write_error(const Context& c, uint32_t id, const std::string& msg) {
    std::ofstream(error_path(c.out, id)) << msg << "\n";
}

bool is_done(const PointResult& r, bool retry_failed) {
    return r.status == kOk || (r.status == kError && !retry_failed);
}

void write_table(const Context& c) {
    write_results(c.out, c.spec.source_text, c.points, c.paths, c.results,
                  metric_columns(c.spec.metrics, c.results));
}

void count(const Context& c, SweepSummary* s) {
    s->ok = s->failed = s->pending = 0;
    for (const auto& r : c.results) {
        if (r.status == kOk)
            ++s->ok;
        else if (r.status == kError)
            ++s->failed;
        else
            ++s->pending;
    }
}

// Checks the manifest against the one the output directory was started with (or writes it).
bool check_manifest(const Context& c, std::ostream& err, bool write_if_missing) {
    const std::string path = (fs::path(c.out) / "points.csv").string();
    const std::string now = manifest_text(c.points, c.paths);
    if (!fs::exists(path)) {
        if (write_if_missing) write_file_atomic(path, now);
        return true;
    }
    const std::string before = read_text(path);
    if (before == now) return true;
    const auto a = nonempty_lines(before), b = nonempty_lines(now);
    size_t i = 0;
    while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
    err << "nmsim sweep: error: " << path
        << ": the sweep file changed since this output directory was started (its points differ";
    if (i < a.size() || i < b.size())
        err << " from line " << i + 1 << ": was \"" << (i < a.size() ? a[i] : "(none)")
            << "\", now \"" << (i < b.size() ? b[i] : "(none)") << "\"";
    err << "); use another output directory (-o) or remove " << c.out << "\n";
    return false;
}

// Validates points (parameter resolution, no simulation) in the pool. Returns the ids that
// failed, with their messages in `messages`. `fatal`: the first point named an unknown key, which
// no value can fix, and the others were not checked.
std::vector<uint32_t> validate(Context& c, const std::vector<uint32_t>& ids, int jobs,
                               progress::Mode progress, std::ostream& err, SweepSummary* sum,
                               std::map<uint32_t, std::string>* messages, bool* fatal,
                               const std::function<bool()>& stop) {
    std::vector<uint32_t> bad;
    if (ids.empty()) return bad;
    auto check = [&](const std::vector<uint32_t>& batch) {
        std::vector<Job> js;
        for (uint32_t id : batch) js.push_back(make_job(c, c.points[id], true));
        progress::Reporter bar(err, batch.size() > 1 ? progress : progress::Mode::off,
                               "nmsim sweep " + c.spec.name + ": validate");
        size_t done = 0;
        const auto status = [&] {
            return progress::Status{done, batch.size(), bad.size(), "points", ""};
        };
        sum->validations += static_cast<uint32_t>(run_jobs(
            js, jobs,
            [&](size_t i, const JobResult& r) {
                const uint32_t id = batch[i];
                if (!r.ok() && !r.interrupted) {
                    std::string msg;
                    for (const auto& l : nonempty_lines(read_text(log_path(c.out, id))))
                        msg += (msg.empty() ? "" : "; ") + l;
                    if (msg.empty() || !r.exited) msg = child_error(r, log_path(c.out, id));
                    (*messages)[id] = msg;
                    bad.push_back(id);
                }
                ++done;
                bar.update(status());
            },
            [&] { bar.update(status()); }, stop));
        bar.finish(false);
    };
    // The first point alone: an unknown parameter name fails every point alike, so stop there.
    check({ids.front()});
    if (stop && stop()) return bad;
    if (!bad.empty() && (*messages)[bad.front()].find("unknown ") != std::string::npos) {
        *fatal = true;
        return bad;
    }
    check(std::vector<uint32_t>(ids.begin() + 1, ids.end()));
    std::sort(bad.begin(), bad.end());
    return bad;
}

void print_points(const Context& c, std::ostream& out) {
    out << "sweep " << c.spec.name << ": " << c.points.size() << " point"
        << (c.points.size() == 1 ? "" : "s") << ", base " << c.spec.base << ", output " << c.out
        << "\n";
    for (const auto& p : c.points) {
        out << "  " << p.id << ":";
        for (const auto& kv : p.params) out << " " << kv.first << "=" << kv.second;
        out << "\n";
    }
}

int run_one_point(Context& c, uint32_t id, bool retry_failed, std::ostream& out, std::ostream& err,
                  SweepSummary* sum) {
    if (id >= c.points.size()) {
        err << "nmsim sweep: error: --point " << id << ": the sweep has " << c.points.size()
            << " points (0.." << c.points.size() - 1 << ")\n";
        return 2;
    }
    const PointResult before = read_point(c.out, id, c.extra);
    if (is_done(before, retry_failed)) {
        out << "point " << id << ": already finished (" << before.status << ")\n";
        return before.status == kOk ? 0 : 1;
    }
    clear_point(c, id);
    const auto t0 = std::chrono::steady_clock::now();
    const JobResult r = run_job(make_job(c, c.points[id], false));
    sum->runs = 1;
    sum->run_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!r.ok()) write_error(c, id, child_error(r, log_path(c.out, id)));
    const PointResult after = read_point(c.out, id, c.extra);
    out << "point " << id << ": " << after.status << (after.error.empty() ? "" : ": " + after.error)
        << "\n";
    return after.status == kOk ? 0 : 1;
}

}  // namespace

int run_sweep(const SweepOptions& o, std::ostream& out, std::ostream& err, SweepSummary* summary) {
    SweepSummary local_sum;
    SweepSummary* sum = summary ? summary : &local_sum;
    *sum = SweepSummary{};
    if (o.backend != "local" && o.backend != "slurm") {
        err << "nmsim sweep: error: --backend \"" << o.backend << "\": expected local or slurm\n";
        return 2;
    }
    if (int(o.collect) + int(o.dry_run) + int(o.point.has_value()) > 1) {
        err << "nmsim sweep: error: --collect, --dry-run and --point exclude each other\n";
        return 2;
    }
    Context c;
    try {
        c.spec = load_sweep(o.sweep_path);
        c.points = expand_points(c.spec);
    } catch (const ScenarioError& e) {
        for (const auto& ce : e.errors()) err << ce.str() << "\n";
        return 2;
    } catch (const std::exception& e) {
        err << o.sweep_path << ": error: " << e.what() << "\n";
        return 2;
    }
    c.paths = varied_paths(c.spec);
    for (const auto& m : c.spec.metrics)
        if (m.find('/') != std::string::npos) c.extra.push_back(m);
    c.out = o.output.empty() ? c.spec.output : fs::absolute(o.output).lexically_normal().string();
    c.sweep_abs = fs::absolute(o.sweep_path).lexically_normal().string();
    std::error_code ec;
    c.exe = o.exe.empty() ? fs::read_symlink("/proc/self/exe", ec).string() : o.exe;
    c.exe = fs::absolute(c.exe).string();
    sum->total = static_cast<uint32_t>(c.points.size());
    const std::function<bool()> stopped = [&o] { return o.stop_signal && o.stop_signal() != 0; };
    const int jobs =
        o.jobs > 0 ? o.jobs : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
    // Forced on: a redrawn line; forced off: nothing; default: a line on a terminal, else a log
    // line every interval (Slurm and CI logs show how far the sweep is).
    const progress::Mode progress = !o.progress   ? progress::mode_for_stderr()
                                    : *o.progress ? progress::Mode::terminal
                                                  : progress::Mode::off;

    if (o.dry_run) {
        print_points(c, out);
        // Validation children write their stderr under the output directory; use a scratch one.
        const std::string real_out = c.out;
        c.out =
            (fs::temp_directory_path() / ("nmsim-sweep-dry-" + std::to_string(getpid()))).string();
        fs::create_directories(fs::path(c.out) / "points");
        std::vector<uint32_t> all;
        for (const auto& p : c.points) all.push_back(p.id);
        std::map<uint32_t, std::string> msgs;
        bool fatal = false;
        const auto bad = validate(c, all, jobs, progress, err, sum, &msgs, &fatal, stopped);
        fs::remove_all(c.out, ec);
        if (const int sig = o.stop_signal ? o.stop_signal() : 0) return 128 + sig;
        c.out = real_out;
        for (uint32_t id : bad) err << "point " << id << ": invalid: " << msgs[id] << "\n";
        if (o.backend == "slurm") {
            std::vector<uint32_t> ids;
            for (const auto& p : c.points)
                if (!std::binary_search(bad.begin(), bad.end(), p.id)) ids.push_back(p.id);
            out << sbatch_script(c.spec, {c.exe, c.sweep_abs, c.out, ids, o.retry_failed});
        }
        if (fatal || (!c.points.empty() && bad.size() == c.points.size())) return 2;
        return bad.empty() ? 0 : 1;
    }

    try {
        fs::create_directories(fs::path(c.out) / "points");
        if (o.collect && !fs::exists(fs::path(c.out) / "points.csv")) {
            err << "nmsim sweep: error: nothing to collect: " << c.out
                << "/points.csv does not exist (the sweep was not started there)\n";
            return 2;
        }
        DirLock lock;
        if (const std::string why = lock.acquire(c.out, !o.point && !o.collect); !why.empty()) {
            err << "nmsim sweep: error: " << why << "\n";
            return 2;
        }
        // Written once the points are known to be valid (a fixed typo then needs no new -o).
        if (!check_manifest(c, err, o.point.has_value())) return 2;
        c.results.resize(c.points.size());
        for (const auto& p : c.points) c.results[p.id] = read_point(c.out, p.id, c.extra);

        if (o.point) return run_one_point(c, *o.point, o.retry_failed, out, err, sum);

        std::vector<uint32_t> todo;
        if (!o.collect)
            for (const auto& p : c.points)
                if (!is_done(c.results[p.id], o.retry_failed)) todo.push_back(p.id);
        sum->skipped = static_cast<uint32_t>(c.points.size() - todo.size());

        if (o.collect) {
            write_table(c);
            count(c, sum);
            out << "sweep " << c.spec.name << ": collected " << sum->total << " points: " << sum->ok
                << " ok, " << sum->failed << " failed, " << sum->pending
                << " pending; results: " << c.out << "/results.csv\n";
            return sum->failed ? 1 : 0;
        }

        // Validate the points to run before running any.
        for (uint32_t id : todo) clear_point(c, id);
        std::map<uint32_t, std::string> msgs;
        bool fatal = false;
        const auto bad = validate(c, todo, jobs, progress, err, sum, &msgs, &fatal, stopped);
        if (const int sig = o.stop_signal ? o.stop_signal() : 0) {
            err << "nmsim sweep " << c.spec.name << ": interrupted by signal " << sig
                << " while validating; no point was run\n";
            return 128 + sig;
        }
        // Not one valid point (and none finished earlier): the sweep file itself is wrong.
        const bool any_ok = std::any_of(c.results.begin(), c.results.end(),
                                        [](const PointResult& r) { return r.status == kOk; });
        if (fatal || (!todo.empty() && bad.size() == todo.size() && !any_ok)) {
            err << "nmsim sweep: error: " << o.sweep_path
                << (fatal ? ": a parameter is unknown" : ": no point is valid") << "; point "
                << bad.front() << " (nmsim run --elaborate-only):\n";
            for (const auto& l : nonempty_lines(read_text(log_path(c.out, bad.front()))))
                err << "  " << l << "\n";
            return 2;
        }
        check_manifest(c, err, true);
        write_file_atomic((fs::path(c.out) / "sweep.yaml").string(), c.spec.source_text);
        for (uint32_t id : bad) {
            write_error(c, id, "invalid point: " + msgs[id]);
            c.results[id] = read_point(c.out, id, c.extra);
            err << "nmsim sweep: point " << id << " is invalid and not run: " << msgs[id] << "\n";
        }
        std::vector<uint32_t> run_ids;
        for (uint32_t id : todo)
            if (!std::binary_search(bad.begin(), bad.end(), id)) run_ids.push_back(id);

        if (o.backend == "slurm") {
            write_table(c);
            if (run_ids.empty()) {
                count(c, sum);
                out << "sweep " << c.spec.name << ": nothing to submit (" << sum->ok << " ok, "
                    << sum->failed << " failed)\n";
                return sum->failed ? 1 : 0;
            }
            const std::string dir = (fs::path(c.out) / "slurm").string();
            fs::create_directories(dir);
            const std::string script = dir + "/sweep.sbatch";
            write_file_atomic(script, sbatch_script(c.spec, {c.exe, c.sweep_abs, c.out, run_ids,
                                                             o.retry_failed}));
            sum->job_id = submit(script, c.out, o.sbatch);
            count(c, sum);
            out << "sweep " << c.spec.name << ": submitted job array " << sum->job_id << " ("
                << run_ids.size() << " tasks, script " << script << ")\n"
                << "collect when it has finished: nmsim sweep " << o.sweep_path << " --collect -o "
                << c.out << "\n";
            return bad.empty() ? 0 : 1;
        }

        write_table(c);
        std::vector<Job> js;
        for (uint32_t id : run_ids) js.push_back(make_job(c, c.points[id], false));
        size_t done = 0, failed = 0, interrupted = 0;
        progress::Reporter bar(err, progress, "nmsim sweep " + c.spec.name, o.progress_interval_s);
        const std::string skipped =
            sum->skipped ? std::to_string(sum->skipped) + " finished earlier" : "";
        const auto status = [&] {
            return progress::Status{done, run_ids.size(), failed, "points", skipped};
        };
        const auto t0 = std::chrono::steady_clock::now();
        sum->runs = static_cast<uint32_t>(run_jobs(
            js, jobs,
            [&](size_t i, const JobResult& r) {
                const uint32_t id = run_ids[i];
                if (r.interrupted) {
                    // Stopped, not failed: its trace (status "interrupted") stays for a look,
                    // the point stays pending and runs again when the sweep is resumed.
                    c.results[id] = PointResult{};
                    c.results[id].id = id;
                    c.results[id].status = kPending;
                    ++interrupted;
                    write_table(c);
                    return;
                }
                if (!r.ok()) write_error(c, id, child_error(r, log_path(c.out, id)));
                c.results[id] = read_point(c.out, id, c.extra);
                // A child that exits 0 without a finished trace is a failure too.
                if (c.results[id].status == kPending) {
                    write_error(
                        c, id,
                        child_error(r, log_path(c.out, id)) + " (no finished trace written)");
                    c.results[id] = read_point(c.out, id, c.extra);
                }
                ++done;
                if (c.results[id].status != kOk) ++failed;
                write_table(c);
                bar.update(status());
            },
            [&] { bar.update(status()); }, stopped));
        bar.finish(true);
        sum->run_seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        count(c, sum);
        if (const int sig = o.stop_signal ? o.stop_signal() : 0) {
            out << "sweep " << c.spec.name << ": interrupted by signal " << sig << ": " << sum->ok
                << " ok, " << sum->failed << " failed, " << sum->pending << " pending ("
                << interrupted << " stopped while running); resume with the same command\n";
            return 128 + sig;
        }
        char rate[64] = "";
        if (sum->runs > 0 && sum->run_seconds > 0)
            std::snprintf(rate, sizeof rate, ": %.1f points/min",
                          60.0 * sum->runs / sum->run_seconds);
        out << "sweep " << c.spec.name << ": ran " << sum->runs << " of " << sum->total
            << " points in " << progress::Reporter::duration(sum->run_seconds) << " with -j "
            << jobs << rate << "\n"
            << "  " << sum->ok << " ok, " << sum->failed << " failed, " << sum->skipped
            << " skipped (finished earlier), " << bad.size() << " invalid; results: " << c.out
            << "/results.csv\n";
        for (const auto& r : c.results)
            if (r.status == kError) out << "  point " << r.id << ": error: " << r.error << "\n";
        return sum->failed ? 1 : 0;
    } catch (const std::exception& e) {
        err << "nmsim sweep: error: " << e.what() << "\n";
        return 2;
    }
}

}  // namespace nmsim::sweep
