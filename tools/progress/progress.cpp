#include "tools/progress/progress.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace nmsim::progress {

Mode mode_for_stderr() { return isatty(2) == 1 ? Mode::terminal : Mode::log; }

Reporter::Reporter(std::ostream& os, Mode mode, std::string label, double log_interval_s)
    : m_os(os),
      m_mode(mode),
      m_label(std::move(label)),
      m_log_interval_s(log_interval_s),
      m_t0(Clock::now()),
      m_last_done_change(m_t0),
      m_last_emit(m_t0) {}

std::string Reporter::duration(double s) {
    if (!std::isfinite(s) || s < 0) s = 0;
    char buf[48];
    const long t = std::lround(s);
    if (t >= 3600)
        std::snprintf(buf, sizeof buf, "%ld h %02ld min", t / 3600, (t % 3600) / 60);
    else if (t >= 60)
        std::snprintf(buf, sizeof buf, "%ld min %02ld s", t / 60, t % 60);
    else if (s < 9.95)
        std::snprintf(buf, sizeof buf, "%.1f s", s);
    else
        std::snprintf(buf, sizeof buf, "%ld s", t);
    return buf;
}

std::optional<double> Reporter::eta_s(Clock::time_point now) const {
    const Status& s = m_status;
    if (s.total == 0 || s.done == 0 || s.done >= s.total) return std::nullopt;
    const double since = std::chrono::duration<double>(now - m_last_done_change).count();
    return std::max(0.0, m_seconds_per_unit * static_cast<double>(s.total - s.done) - since);
}

std::string Reporter::line(Clock::time_point now) const {
    const Status& s = m_status;
    const double elapsed = std::chrono::duration<double>(now - m_t0).count();
    std::string out = m_label;
    if (s.total > 0) {
        constexpr uint64_t kWidth = 20;
        const uint64_t fill = std::min(kWidth, s.done * kWidth / s.total);
        out += " [" + std::string(fill, '#') + std::string(kWidth - fill, '-') + "] " +
               std::to_string(s.done) + "/" + std::to_string(s.total);
        if (!s.unit.empty()) out += " " + s.unit;
    } else if (!s.unit.empty()) {
        out += " " + std::to_string(s.done) + " " + s.unit;
    }
    if (s.failed) out += ", failed " + std::to_string(s.failed);
    if (!s.detail.empty()) out += "  " + s.detail;
    if (s.done > 0 && elapsed > 0 && !s.unit.empty()) {
        char rate[48];
        std::snprintf(rate, sizeof rate, "  %.3g %s/s", static_cast<double>(s.done) / elapsed,
                      s.unit.c_str());
        out += rate;
    }
    if (auto eta = eta_s(now))
        out += "  ETA " + duration(*eta);
    else
        out += "  " + duration(elapsed);
    return out;
}

void Reporter::emit(Clock::time_point now, bool force) {
    const double since = std::chrono::duration<double>(now - m_last_emit).count();
    const double elapsed = std::chrono::duration<double>(now - m_t0).count();
    switch (m_mode) {
        case Mode::off:
            return;
        case Mode::terminal:
            if (elapsed < 1.0 || (!force && since < 0.2)) return;
            m_os << "\r" << line(now) << "\033[K" << std::flush;
            break;
        case Mode::log:
            if (!force && since < m_log_interval_s) return;
            m_os << line(now) << "\n" << std::flush;
            break;
    }
    m_last_emit = now;
    m_emitted = true;
}

void Reporter::update(const Status& s) { update(s, Clock::now()); }

void Reporter::update(const Status& s, Clock::time_point now) {
    const bool changed = s.done != m_status.done;
    if (changed && s.done > 0) {
        m_seconds_per_unit =
            std::chrono::duration<double>(now - m_t0).count() / static_cast<double>(s.done);
        m_last_done_change = now;
    }
    m_status = s;
    // A terminal shows every completion; a log only every interval.
    emit(now, changed && m_mode == Mode::terminal);
}

void Reporter::finish(bool keep) {
    if (!m_emitted) return;
    const auto now = Clock::now();
    if (m_mode == Mode::terminal)
        m_os << "\r" << (keep ? line(now) + "\033[K\n" : std::string("\033[K")) << std::flush;
    else if (m_mode == Mode::log && keep)
        m_os << line(now) << "\n" << std::flush;
}

}  // namespace nmsim::progress
