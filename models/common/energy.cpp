#include "models/common/energy.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ostream>
#include <stdexcept>

namespace nmsim::energy {

void Meter::add_events(const std::string& component, const std::string& quantity, Counter counter,
                       double joules_per_unit) {
    if (m_open) throw std::logic_error("energy::Meter: accounts must be added before start()");
    m_accounts.push_back({component, quantity, false,
                          [c = std::move(counter)](uint64_t) { return c(); }, joules_per_unit});
}

void Meter::add_events_at(const std::string& component, const std::string& quantity,
                          StateClock counter, double joules_per_unit) {
    if (m_open) throw std::logic_error("energy::Meter: accounts must be added before start()");
    m_accounts.push_back({component, quantity, false, std::move(counter), joules_per_unit});
}

void Meter::add_state(const std::string& component, const std::string& quantity, StateClock clock,
                      double watts) {
    if (m_open) throw std::logic_error("energy::Meter: accounts must be added before start()");
    m_accounts.push_back({component, quantity, true, std::move(clock), watts});
}

void Meter::start(const std::string& phase, uint64_t t_ps) {
    if (m_open) throw std::logic_error("energy::Meter::start: a phase is already open");
    for (auto& a : m_accounts) a.last = a.read(t_ps);
    m_phase = phase;
    m_phase_start = t_ps;
    m_open = true;
}

void Meter::close(uint64_t t_ps) {
    auto it = m_counts.find(m_phase);
    if (it == m_counts.end()) {
        it = m_counts.emplace(m_phase, std::vector<double>(m_accounts.size(), 0.0)).first;
        m_phase_order.push_back(m_phase);
    }
    for (size_t i = 0; i < m_accounts.size(); ++i) {
        Account& a = m_accounts[i];
        const double now = a.read(t_ps);
        it->second[i] += now - a.last;
        a.last = now;
    }
    if (t_ps > m_phase_start) m_duration_s += static_cast<double>(t_ps - m_phase_start) * 1e-12;
    m_phase_start = t_ps;
}

void Meter::mark(const std::string& phase, uint64_t t_ps) {
    if (!m_open) throw std::logic_error("energy::Meter::mark: no phase is open");
    if (phase == m_phase) return;
    close(t_ps);
    m_phase = phase;
}

void Meter::finish(uint64_t t_ps) {
    if (!m_open) return;
    close(t_ps);
    m_open = false;
}

std::vector<Row> Meter::rows() const {
    std::vector<Row> out;
    for (const auto& phase : m_phase_order) {
        const auto& counts = m_counts.at(phase);
        for (size_t i = 0; i < m_accounts.size(); ++i) {
            const Account& a = m_accounts[i];
            if (counts[i] == 0.0) continue;
            out.push_back(
                {a.component, phase, a.is_static, a.quantity, counts[i], counts[i] * a.scale});
        }
    }
    return out;
}

double Meter::total_j() const {
    double sum = 0.0;
    for (const auto& r : rows()) sum += r.energy_j;
    return sum;
}

namespace {

template <size_t N>
void copy_str(char (&dst)[N], const std::string& s) {
    std::memset(dst, 0, N);
    std::memcpy(dst, s.data(), std::min(N - 1, s.size()));
}

// "chip.pe12.core" -> "chip.pe*.core": trailing digits of a path element below the root are
// an instance index (the root keeps its name: "s2").
std::string family(const std::string& path) {
    std::string out;
    size_t begin = 0;
    while (begin <= path.size()) {
        size_t end = path.find('.', begin);
        if (end == std::string::npos) end = path.size();
        std::string part = path.substr(begin, end - begin);
        size_t digits = part.size();
        while (digits > 0 && std::isdigit(static_cast<unsigned char>(part[digits - 1]))) --digits;
        if (begin > 0 && digits > 0 && digits < part.size()) part = part.substr(0, digits) + "*";
        out += (begin > 0 ? "." : "") + part;
        begin = end + 1;
    }
    return out;
}

std::string joules(double j) {
    char buf[32];
    const double a = std::fabs(j);
    if (a >= 1.0)
        std::snprintf(buf, sizeof buf, "%.3f J", j);
    else if (a >= 1e-3)
        std::snprintf(buf, sizeof buf, "%.3f mJ", j * 1e3);
    else if (a >= 1e-6)
        std::snprintf(buf, sizeof buf, "%.3f uJ", j * 1e6);
    else
        std::snprintf(buf, sizeof buf, "%.3f nJ", j * 1e9);
    return buf;
}

struct Split {
    double dynamic = 0.0, stat = 0.0;
    double total() const { return dynamic + stat; }
};

}  // namespace

void Meter::attach(trace::Sink& sink) {
    m_sink = &sink;
    m_tbl = sink.declare_table(EnergyRecord_schema());
}

void Meter::write() const {
    if (!m_sink) return;
    trace::Sink& sink = *m_sink;
    for (const auto& r : rows()) {
        EnergyRecord rec{};
        rec.count = r.count;
        rec.energy_j = r.energy_j;
        rec.component = sink.component(r.component);
        copy_str(rec.phase, r.phase);
        copy_str(rec.kind, r.is_static ? "static" : "dynamic");
        copy_str(rec.quantity, r.quantity);
        sink.append(m_tbl, &rec);
    }
}

void print_breakdown(const Meter& m, std::ostream& out, size_t max_phases) {
    const auto rows = m.rows();
    Split all;
    std::vector<std::pair<std::string, Split>> by_family, by_phase;
    auto slot = [](std::vector<std::pair<std::string, Split>>& v, const std::string& k) -> Split& {
        for (auto& e : v)
            if (e.first == k) return e.second;
        v.emplace_back(k, Split{});
        return v.back().second;
    };
    for (const auto& r : rows) {
        for (Split* s : {&all, &slot(by_family, family(r.component)), &slot(by_phase, r.phase)})
            (r.is_static ? s->stat : s->dynamic) += r.energy_j;
    }
    const double t = m.duration_s();
    char line[160];
    std::snprintf(line, sizeof line,
                  "  energy           %s over %.1f us, average %.2f mW (dynamic %s, static %s)\n",
                  joules(all.total()).c_str(), t * 1e6, t > 0 ? all.total() / t * 1e3 : 0.0,
                  joules(all.dynamic).c_str(), joules(all.stat).c_str());
    out << line;
    std::stable_sort(by_family.begin(), by_family.end(), [](const auto& a, const auto& b) {
        return a.second.total() > b.second.total();
    });
    std::snprintf(line, sizeof line, "    %-28s %12s %12s %12s %7s\n", "component", "dynamic",
                  "static", "total", "share");
    out << line;
    for (const auto& [name, s] : by_family) {
        if (s.total() == 0.0) continue;
        std::snprintf(line, sizeof line, "    %-28s %12s %12s %12s %5.1f %%\n", name.c_str(),
                      joules(s.dynamic).c_str(), joules(s.stat).c_str(), joules(s.total()).c_str(),
                      all.total() > 0 ? 100.0 * s.total() / all.total() : 0.0);
        out << line;
    }
    if (by_phase.size() > 1) {
        std::snprintf(line, sizeof line, "    %-28s %12s %12s %12s %7s\n", "phase", "dynamic",
                      "static", "total", "share");
        out << line;
        size_t shown = 0;
        for (const auto& [name, s] : by_phase) {
            if (shown++ == max_phases) {
                out << "    ... " << by_phase.size() - max_phases
                    << " more phases in energy/breakdown\n";
                break;
            }
            std::snprintf(line, sizeof line, "    %-28s %12s %12s %12s %5.1f %%\n", name.c_str(),
                          joules(s.dynamic).c_str(), joules(s.stat).c_str(),
                          joules(s.total()).c_str(),
                          all.total() > 0 ? 100.0 * s.total() / all.total() : 0.0);
            out << line;
        }
    }
}

}  // namespace nmsim::energy
