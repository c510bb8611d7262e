#include "tools/sweep/progress.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>

namespace nmsim::sweep {

Progress::Progress(std::ostream& os, size_t total, bool enabled, std::string label)
    : m_os(os),
      m_total(total),
      m_enabled(enabled),
      m_label(std::move(label)),
      m_t0(std::chrono::steady_clock::now()) {
    draw();
}

bool Progress::stderr_is_tty() { return isatty(2) == 1; }

std::string Progress::duration(double s) {
    char buf[32];
    const long t = std::lround(s < 0 ? 0 : s);
    if (t >= 3600)
        std::snprintf(buf, sizeof buf, "%ldh%02ldm", t / 3600, (t % 3600) / 60);
    else if (t >= 60)
        std::snprintf(buf, sizeof buf, "%ldm%02lds", t / 60, t % 60);
    else if (s < 9.95)
        std::snprintf(buf, sizeof buf, "%.1fs", s < 0 ? 0.0 : s);
    else
        std::snprintf(buf, sizeof buf, "%lds", t);
    return buf;
}

std::string Progress::line() const {
    constexpr size_t kWidth = 24;
    const size_t fill = m_total ? m_done * kWidth / m_total : kWidth;
    std::string s = m_label + " [" + std::string(fill, '#') + std::string(kWidth - fill, '-') +
                    "] " + std::to_string(m_done) + "/" + std::to_string(m_total);
    if (m_failed) s += "  failed " + std::to_string(m_failed);
    const double el =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - m_t0).count();
    if (m_done > 0 && m_done < m_total)
        s += "  ETA " +
             duration(el / static_cast<double>(m_done) * static_cast<double>(m_total - m_done));
    else
        s += "  " + duration(el);
    return s;
}

void Progress::draw() {
    if (!m_enabled) return;
    m_os << "\r" << line() << "\033[K" << std::flush;
}

void Progress::update(size_t done, size_t failed) {
    m_done = done;
    m_failed = failed;
    draw();
}

void Progress::tick() { draw(); }

void Progress::finish() {
    if (!m_enabled) return;
    draw();
    m_os << "\n" << std::flush;
}

}  // namespace nmsim::sweep
