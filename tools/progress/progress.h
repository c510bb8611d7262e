// Progress of a long job (a run's inferences or realtime runs, a sweep's points) for people and
// for logs: on a terminal one line redrawn in place, "run [####------] 37/100 inferences  sim
// 31.2 ms  12.3/s  ETA 5 s"; elsewhere (logs, Slurm, CI) the same facts as a plain line every
// `log_interval` seconds. The ETA comes from the rate at the last completed unit and counts
// down between completions, so it does not grow while a unit is under way. No SystemC.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

namespace nmsim::progress {

enum class Mode { off, terminal, log };

// Terminal if stderr is one, else log lines.
Mode mode_for_stderr();

struct Status {
    uint64_t done = 0;
    uint64_t total = 0;   // 0: unknown (no bar, no ETA)
    uint64_t failed = 0;  // shown when non-zero
    std::string unit;     // "inferences", "runs", "points"
    std::string detail;   // e.g. "sim 31.2 ms"
};

class Reporter {
public:
    using Clock = std::chrono::steady_clock;
    Reporter(std::ostream& os, Mode mode, std::string label, double log_interval_s = 10.0);
    // Updates the status; draws (terminal: after the first second, at most every 0.2 s and at
    // every completion) or writes a log line (every log_interval_s), so short jobs stay quiet.
    void update(const Status& s);
    void update(const Status& s, Clock::time_point now);  // with an explicit clock (tests)
    // Ends the display. `keep`: a terminal keeps the last line and a log gets a final line (if
    // anything was shown); otherwise the terminal line is erased (a report follows).
    void finish(bool keep);

    // The current line without control characters, at time `now`.
    std::string line(Clock::time_point now) const;
    // Seconds left, if it can be estimated (done > 0 and total known).
    std::optional<double> eta_s(Clock::time_point now) const;
    // "42 s", "3 min 05 s", "1 h 02 min"; "4.2 s" below 10 s.
    static std::string duration(double seconds);

private:
    void emit(Clock::time_point now, bool force);

    std::ostream& m_os;
    Mode m_mode;
    std::string m_label;
    double m_log_interval_s;
    Status m_status;
    Clock::time_point m_t0, m_last_done_change, m_last_emit;
    double m_seconds_per_unit = 0;  // at the last completion
    bool m_emitted = false;
};

}  // namespace nmsim::progress
