// The driver of a run: the host program's stages in order, the simulation in slices with
// progress, the trace's outcome, the run directory and the report.
#include "platforms/common/host_program.h"
#include "platforms/common/version.h"

#include <systemc>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstring>
#include <iostream>
#include <sstream>

#include "platforms/common/format.h"
#include "platforms/common/run_outputs.h"
#include "tools/progress/progress.h"

namespace nmsim::run {

void RunContext::sim_failed(const std::string& why) {
    if (result.message.empty()) result.message = why;
    result.sim_error = true;
}

void RunContext::check_failed(const std::string& why) {
    if (result.message.empty()) result.message = why;
    result.checks_failed = true;
}

std::string HostProgram::wall_note(const RunResult& r) const {
    const double sim_s = r.sim_time_us * 1e-6;
    return sim_s > 0 ? "(" + fmt(r.wall_seconds / sim_s, 0) + "x slower than real time)" : "";
}

namespace {

using Clock = std::chrono::steady_clock;

volatile std::sig_atomic_t g_interrupt = 0;

}  // namespace

void request_interrupt(int signal) noexcept { g_interrupt = signal; }
int interrupt_requested() noexcept { return g_interrupt; }

namespace {

std::string signal_name(int sig) {
    return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "signal " + std::to_string(sig);
}

std::string sim_time_text(double us) {
    return us < 1e3   ? fmt(us, 1) + " us"
           : us < 1e6 ? fmt(us / 1e3, 2) + " ms"
                      : fmt(us / 1e6, 3) + " s";
}

// Why a simulation stopped before its end, if it did.
struct Stop {
    std::string status;  // "" (ran to its end), "interrupted" or "timeout"
    int signal = 0;
};

// The simulation, in slices of simulated time so that progress can be shown and stop requests
// (signals, the wall-time limit) honoured between them. A slice adapts to take about 0.25 s of
// wall time. When nothing is left to simulate, time jumps to the limit as one sc_start(limit)
// would.
Stop simulate(const RunContext& ctx, const HostProgram& host, Clock::time_point wall0) {
    const sc_core::sc_time limit(static_cast<double>(host.max_time_ps()), sc_core::SC_PS);
    const bool show = ctx.options.progress && !ctx.options.quiet;
    progress::Reporter rep(std::cerr, show ? progress::mode_for_stderr() : progress::Mode::off,
                           "nmsim run " + ctx.scenario.name, ctx.options.progress_interval_s);
    const double max_wall = ctx.options.max_wall_s;
    sc_core::sc_time slice(1, sc_core::SC_US);
    Stop stop;
    while (sc_core::sc_get_status() != sc_core::SC_STOPPED && sc_core::sc_time_stamp() < limit) {
        if (const int sig = interrupt_requested()) {
            stop = {"interrupted", sig};
            break;
        }
        if (max_wall > 0 &&
            std::chrono::duration<double>(Clock::now() - wall0).count() >= max_wall) {
            stop = {"timeout", 0};
            break;
        }
        const sc_core::sc_time left = limit - sc_core::sc_time_stamp();
        if (!sc_core::sc_pending_activity()) {
            sc_core::sc_start(left);
            break;
        }
        const auto t0 = Clock::now();
        sc_core::sc_start(std::min(slice, left));
        const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
        if (wall < 0.1 && slice < sc_core::sc_time(1, sc_core::SC_SEC))
            slice = slice * 2;
        else if (wall > 0.5 && slice > sc_core::sc_time(10, sc_core::SC_NS))
            slice = slice / 2;
        const Progress p = host.progress();
        rep.update({p.done, p.total, 0, p.unit,
                    "sim " + sim_time_text(sc_core::sc_time_stamp().to_seconds() * 1e6)});
    }
    rep.finish(false);
    return stop;
}

// "interrupted by SIGINT at 12.3 ms of simulated time (37 of 100 inferences done)".
std::string stop_message(const Stop& stop, const RunContext& ctx, const HostProgram& host) {
    std::string where =
        " at " + sim_time_text(sc_core::sc_time_stamp().to_seconds() * 1e6) + " of simulated time";
    const Progress p = host.progress();
    if (!p.unit.empty())
        where += " (" + std::to_string(p.done) +
                 (p.total ? " of " + std::to_string(p.total) : std::string()) + " " + p.unit +
                 " done)";
    if (stop.status == "interrupted") return "interrupted by " + signal_name(stop.signal) + where;
    return "timeout: the wall-time limit of " + fmt(ctx.options.max_wall_s, 1) + " s was reached" +
           where;
}

std::string render_report(const RunContext& ctx, const HostProgram& host) {
    const RunResult& r = ctx.result;
    const scenario::Scenario& s = ctx.scenario;
    std::ostringstream out;
    out << "nmsim " << nmsim::version() << "  scenario " << s.name << "  platform "
        << s.platform_kind
        << (s.platform_variant.empty() ? "" : " (variant " + s.platform_variant + ")") << "  seed "
        << s.seed << "\n";
    host.report(ctx, out);
    out << "  trace            " << r.trace_path << "\n";
    const std::string note = host.wall_note(r);
    out << "  wall time        " << fmt(r.wall_seconds, 3) << " s"
        << (note.empty() ? "" : "  " + note) << "\n";
    out << "  result           "
        << (r.ok                        ? "OK"
            : r.status == "interrupted" ? "INTERRUPTED: " + r.message
            : r.status == "timeout"     ? "TIMEOUT: " + r.message
                                        : std::string("FAILED"))
        << "\n";
    return out.str();
}

}  // namespace

RunResult run_scenario(const scenario::Scenario& s, const RunOptions& o, std::ostream& out,
                       std::ostream& err, HostProgram& host) {
    const auto wall0 = Clock::now();
    RunContext ctx(s, o);
    host.prepare(ctx);
    if (o.elaborate_only) {
        host.elaboration(ctx, out);
        ctx.result.ok = true;
        return ctx.result;
    }
    if (!o.run_dir.empty()) make_run_dir(o.run_dir);

    RunResult& r = ctx.result;
    r.trace_path = trace_path(s, o);
    const auto writer = open_trace(s, o, ctx.params, r.trace_path);
    ctx.trace = writer.get();
    host.load(ctx);
    writer->start();
    host.begin(ctx);
    const Stop stop = simulate(ctx, host, wall0);
    r.sim_time_us = sc_core::sc_time_stamp().to_seconds() * 1e6;
    if (!stop.status.empty()) {
        // First, so that it is the run's message; the host's own findings (a core that did not
        // finish) follow from it.
        ctx.sim_failed(stop_message(stop, ctx, host));
        r.status = stop.status;
        r.signal = stop.signal;
    }
    host.collect(ctx);
    host.check(ctx);
    r.ok = !ctx.failed();
    if (stop.status.empty()) r.status = r.ok ? "ok" : "error";
    r.wall_seconds = std::chrono::duration<double>(Clock::now() - wall0).count();
    host.write_metrics(ctx);
    write_run_metrics(*writer, r);
    const std::vector<trace::CounterRow> counters = writer->counters();
    writer->finish(r.status, r.message, static_cast<uint64_t>(sc_core::sc_time_stamp().value()),
                   r.wall_seconds);
    r.report = render_report(ctx, host);
    if (!o.run_dir.empty()) write_run_dir(o.run_dir, s, ctx.params, counters, r);

    if (!r.message.empty()) err << "nmsim: error: " << r.message << "\n";
    if (!o.quiet) out << r.report;
    return r;
}

}  // namespace nmsim::run
