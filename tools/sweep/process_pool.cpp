#include "tools/sweep/process_pool.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <thread>

namespace nmsim::sweep {

namespace {

// Everything the child needs is prepared before fork(): after it, only async-signal-safe calls.
struct Prepared {
    std::vector<std::string> strings;
    std::vector<char*> argv;
};

pid_t spawn(const Job& job, std::string* err) {
    Prepared p;
    p.strings = job.argv;
    for (auto& s : p.strings) p.argv.push_back(s.data());
    p.argv.push_back(nullptr);
    const std::string out = job.stdout_path.empty() ? "/dev/null" : job.stdout_path;
    const std::string errp = job.stderr_path.empty() ? "/dev/null" : job.stderr_path;
    const pid_t parent = getpid();
    const pid_t pid = fork();
    if (pid < 0) {
        *err = std::string("fork: ") + std::strerror(errno);
        return -1;
    }
    if (pid == 0) {
        // Die with the pool, even if it is killed outright; it may have died before this call.
        if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() != parent) _exit(125);
        const int fo = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        const int fe = open(errp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        const int fi = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (fo < 0 || fe < 0 || fi < 0) _exit(126);
        dup2(fi, 0);
        dup2(fo, 1);
        dup2(fe, 2);
        if (!job.cwd.empty() && chdir(job.cwd.c_str()) != 0) {
            const char msg[] = "nmsim sweep: cannot enter the working directory\n";
            (void)!write(2, msg, sizeof msg - 1);
            _exit(126);
        }
        execv(p.argv[0], p.argv.data());
        const char msg[] = "nmsim sweep: cannot execute the child program\n";
        (void)!write(2, msg, sizeof msg - 1);
        _exit(127);
    }
    return pid;
}

JobResult decode(int status, bool stopping) {
    JobResult r;
    r.spawned = true;
    if (WIFEXITED(status)) {
        r.exited = true;
        r.exit_code = WEXITSTATUS(status);
        r.interrupted = r.exit_code == 128 + SIGINT || r.exit_code == 128 + SIGTERM;
    } else if (WIFSIGNALED(status)) {
        r.signal = WTERMSIG(status);
        r.interrupted = stopping;
    }
    return r;
}

}  // namespace

std::string JobResult::describe() const {
    if (!spawned) return "could not start the child process";
    if (exited) return "exit status " + std::to_string(exit_code);
    const char* name = strsignal(signal);
    return "killed by signal " + std::to_string(signal) +
           (name ? std::string(" (") + name + ")" : "");
}

size_t run_jobs(const std::vector<Job>& jobs, int parallel,
                const std::function<void(size_t, const JobResult&)>& on_done,
                const std::function<void()>& on_tick, const std::function<bool()>& stop) {
    if (parallel < 1) parallel = 1;
    struct Running {
        pid_t pid;
        size_t index;
    };
    std::vector<Running> running;
    size_t next = 0, started = 0;
    bool stopping = false;
    auto last_tick = std::chrono::steady_clock::now();
    while ((next < jobs.size() && !stopping) || !running.empty()) {
        if (!stopping && stop && stop()) {
            stopping = true;
            for (const Running& r : running) kill(r.pid, SIGTERM);
        }
        while (!stopping && next < jobs.size() && static_cast<int>(running.size()) < parallel) {
            std::string err;
            const pid_t pid = spawn(jobs[next], &err);
            if (pid < 0) {
                on_done(next, JobResult{});
            } else {
                running.push_back({pid, next});
                ++started;
            }
            ++next;
        }
        bool reaped = false;
        for (size_t i = 0; i < running.size();) {
            int status = 0;
            const pid_t r = waitpid(running[i].pid, &status, WNOHANG);
            if (r == running[i].pid || (r < 0 && errno == ECHILD)) {
                const size_t index = running[i].index;
                running.erase(running.begin() + static_cast<long>(i));
                on_done(index, r < 0 ? JobResult{} : decode(status, stopping));
                reaped = true;
            } else {
                ++i;
            }
        }
        if (!reaped && !running.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
        const auto now = std::chrono::steady_clock::now();
        if (on_tick && now - last_tick > std::chrono::milliseconds(200)) {
            on_tick();
            last_tick = now;
        }
    }
    return started;
}

JobResult run_job(const Job& job) {
    JobResult result;
    run_jobs({job}, 1, [&](size_t, const JobResult& r) { result = r; });
    return result;
}

}  // namespace nmsim::sweep
