// A one-line progress bar on a terminal: "[#####-----] 12/40  failed 1  ETA 1m23s". Silent when
// disabled (e.g. stderr is not a TTY), so logs and CI output stay clean.
#pragma once

#include <chrono>
#include <cstddef>
#include <ostream>
#include <string>

namespace nmsim::sweep {

class Progress {
public:
    Progress(std::ostream& os, size_t total, bool enabled, std::string label);
    // Points finished (ok + failed) so far and how many of them failed.
    void update(size_t done, size_t failed);
    void tick();    // redraw with the current time (ETA, elapsed)
    void finish();  // ends the line
    static bool stderr_is_tty();
    // "1h02m", "3m05s", "42s", "4.2s".
    static std::string duration(double seconds);
    // The line without control characters (for tests).
    std::string line() const;

private:
    void draw();
    std::ostream& m_os;
    size_t m_total, m_done = 0, m_failed = 0;
    bool m_enabled;
    std::string m_label;
    std::chrono::steady_clock::time_point m_t0;
};

}  // namespace nmsim::sweep
