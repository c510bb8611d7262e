// The snn workload's report: network and machine graph (PE count, next to a published one),
// routing, spikes and rates, the check, per-PE load and DTCM against seed 001's Table I, energy.
#include <algorithm>
#include <iomanip>
#include <sstream>

#include "nmsim/hw/spinnaker2/noc_map.h"
#include "platforms/common/format.h"
#include "workloads/snn/host.h"
#include "workloads/snn/tables.h"

namespace nmsim::workloads::snn {

using run::fmt;
using run::grouped;

namespace {

struct GraphCounts {
    uint32_t source_pes = 0, neuron_pes = 0, dominant_pes = 0, subordinate_pes = 0;
    uint64_t neurons = 0, sources = 0;
};

GraphCounts graph_counts(const Compiled& c) {
    GraphCounts g;
    for (const auto& v : c.c.graph.vertices) {
        if (v.pe == compiler::snn::kNoPe) continue;
        if (v.is_source)
            ++g.source_pes;
        else if (c.c.paradigm.at(v.app).compiled == compiler::snn::Paradigm::serial)
            ++g.neuron_pes;
    }
    for (const auto& pp : c.c.parallel) {
        ++g.dominant_pes;
        g.subordinate_pes += static_cast<uint32_t>(pp.pes.size() - 1);
    }
    for (const auto& p : c.net.populations) g.neurons += p.size;
    for (const auto& s : c.net.sources) g.sources += s.size;
    return g;
}

// Per population with synapses onto it: the paradigm asked for, the one compiled, and why.
void paradigm_lines(const Compiled& c, std::ostream& out) {
    bool any = false;
    for (const auto& ch : c.c.paradigm)
        any = any || ch.requested != compiler::snn::Paradigm::serial;
    if (!any) return;
    for (size_t p = 0; p < c.c.paradigm.size(); ++p) {
        const auto& ch = c.c.paradigm[p];
        out << "  paradigm         " << std::left << std::setw(14) << c.net.populations[p].name
            << std::right << " " << compiler::snn::paradigm_name(ch.compiled);
        if (ch.no_synapses)
            out << " (asked " << compiler::snn::paradigm_name(ch.requested)
                << "; no synapses onto it, nothing for the MLA)";
        else if (ch.requested == compiler::snn::Paradigm::automatic)
            out << " (auto: classifier decision " << fmt(ch.decision, 3) << ")";
        if (ch.requested == compiler::snn::Paradigm::ideal && !ch.no_synapses) {
            auto count = [](int64_t n) {
                return n < 0 ? std::string("does not fit") : std::to_string(n) + " PEs";
            };
            out << " (ideal: layer alone " << count(ch.serial_pes) << " serial, "
                << count(ch.parallel_pes) << " parallel)";
        }
        for (const auto& pp : c.c.parallel)
            if (pp.population == p)
                out << ": pe" << pp.pes.front() << " dominant + " << pp.pes.size() - 1
                    << " subordinate" << (pp.pes.size() == 2 ? "" : "s") << ", map of "
                    << grouped(pp.n_rows) << " rows over " << pp.n_delays
                    << (pp.n_delays == 1 ? " delay" : " delays");
        out << "\n";
    }
}

void network_lines(const Compiled& c, const SnnWorkload& w, std::ostream& out) {
    const GraphCounts g = graph_counts(c);
    auto n = [](size_t k, const char* one, const char* many) {
        return std::to_string(k) + " " + (k == 1 ? one : many);
    };
    out << "  network          " << w.network << ": "
        << n(c.net.populations.size(), "LIF population", "LIF populations") << " ("
        << grouped(g.neurons) << " neurons), " << n(c.net.sources.size(), "source", "sources")
        << " (" << grouped(g.sources) << "), "
        << n(c.net.projections.size(), "projection", "projections") << " ("
        << grouped(c.net.synapse_count()) << " synapses), timestep " << fmt(c.net.timestep_ms, 3)
        << " ms\n";
    out << "  machine graph    " << c.pes.size() << " PEs (" << g.neuron_pes << " LIF serial, ";
    if (g.dominant_pes)
        out << g.dominant_pes << " dominant + " << g.subordinate_pes << " subordinate parallel, ";
    out << g.source_pes << " spike source), pe" << c.pes.front() << "..pe" << c.pes.back()
        << ", at most " << w.max_neurons_per_pe << " neurons per PE";
    if (w.published_pes)
        out << "\n                   published: " << w.published_pes
            << (w.published_source.empty() ? "" : " (" + w.published_source + ")") << "; here "
            << c.pes.size() << " with the sources on their own PEs, " << c.pes.size() - g.source_pes
            << " without them (docs/snn.md, \"PE counts\")";
    out << "\n";
    if (!c.paradigm_pes.empty()) {
        out << "  PE counts        every population in one paradigm:";
        for (const ParadigmCount& pc : c.paradigm_pes) {
            out << (&pc == &c.paradigm_pes.front() ? " " : ", ") << pc.paradigm << " ";
            if (pc.pes < 0)
                out << "does not fit";
            else
                out << pc.pes << " (" << pc.pes - pc.source_pes << " without sources)";
        }
        out << "\n";
    }
    paradigm_lines(c, out);
    out << "  routing          " << c.c.routes_full.size() << " entries, " << c.c.routes.size()
        << " after key/mask compression (+1 for the start key)\n";
}

}  // namespace

void SnnHost::elaboration(const run::RunContext& ctx, std::ostream& out) const {
    const scenario::Scenario& s = ctx.scenario;
    out << "elaborated " << s.name << ": platform " << s.platform_kind << ", "
        << m_p.qpe_count * S2_NOC_PES_PER_QPE << " PEs, " << m_w->ticks << " ticks of "
        << fmt(m_c.net.timestep_ms, 3) << " ms (" << m_c.c.tick_cycles << " cycles at "
        << fmt(m_c.clock_hz / 1e6, 0) << " MHz)\n";
    network_lines(m_c, *m_w, out);
    auto pe_line = [&](const compiler::snn::PeReport& r) {
        out << "  pe" << r.pe << " " << r.element << "[" << r.lo << ".." << r.lo + r.n - 1
            << "]: DTCM " << grouped(r.actual_total) << " B (Table I model "
            << grouped(r.model_total) << " B) of " << grouped(r.budget_bytes) << " B\n";
    };
    for (const auto& r : m_c.c.table1)
        if (r.pe != compiler::snn::kNoPe && (r.model_total != 0 || r.actual_total != 0))
            pe_line(r);  // not the placeholders of parallel populations' vertices
    for (const auto& pp : m_c.c.parallel)
        for (const auto& r : pp.table1) pe_line(r);
}

void SnnHost::report(const run::RunContext& ctx, std::ostream& out) const {
    const SnnSummary& s = m_sum;
    const double tick_s = m_c.net.timestep_ms * 1e-3;
    network_lines(m_c, *m_w, out);
    out << "  run              " << s.ticks_done << " of " << m_w->ticks << " ticks; load over "
        << "the host link " << fmt(s.load_us / 1e3, 3) << " ms, run " << fmt(s.run_us / 1e3, 3)
        << " ms\n";
    // Spikes and rates per population.
    std::vector<uint64_t> per_pop(m_c.net.populations.size(), 0);
    for (const auto& sp : m_spikes) ++per_pop[sp.population];
    out << "  spikes           " << grouped(s.spikes) << " from the LIF populations, "
        << grouped(s.source_spikes) << " from the sources\n";
    for (size_t p = 0; p < per_pop.size(); ++p) {
        const auto& pop = m_c.net.populations[p];
        if (!pop.record_spikes) continue;
        const double secs = double(std::max<uint64_t>(s.ticks_done, 1)) * tick_s;
        out << "    " << std::left << std::setw(14) << pop.name << std::right << " "
            << grouped(per_pop[p]) << (per_pop[p] == 1 ? " spike, " : " spikes, ")
            << fmt(double(per_pop[p]) / pop.size / secs, 2) << " Hz per neuron\n";
    }
    if (m_w->check) {
        out << "  check            ";
        if (!s.checked)
            out << "not run (the simulation failed)\n";
        else if (s.mismatched_spikes == 0 && s.voltage_mismatches == 0)
            out << "PASS " << grouped(s.spikes) << "/" << grouped(s.ref_spikes)
                << " spikes equal the integer reference, spike for spike"
                << (m_voltages.empty() ? "" : ", and every recorded membrane value") << "\n";
        else
            out << "FAIL " << s.mismatched_spikes << " spikes, " << s.voltage_mismatches
                << " voltages differ; first: " << m_first_mismatch << "\n";
    }
    const double ticks = double(std::max<uint64_t>(s.ticks_done, 1));
    out << "  synaptic events  " << grouped(s.synaptic_events) << " ("
        << fmt(double(s.synaptic_events) / ticks, 1) << " per tick), "
        << grouped(s.packets_received) << " packets received\n";
    out << "  PE load          busy " << fmt(100 * s.mean_busy_fraction, 2)
        << " % of the tick on average, " << fmt(100 * s.max_busy_fraction, 2)
        << " % at most; overruns " << s.overruns << "; input buffer overflows "
        << s.buffer_overflows << "; unmatched keys " << s.mpt_misses << "\n";
    out << "  router           " << grouped(s.router_routed) << " packets routed, "
        << grouped(s.router_delivered) << " copies delivered, " << s.router_dropped << " dropped\n";
    out << "  per PE           pe    element           neurons   syn.events  max busy  ovr"
           "   DTCM B  Table I B\n";
    for (const PeResult& r : m_results) {
        const auto& v = m_c.c.graph.vertices.at(r.vertex);
        const compiler::snn::PeReport& rep = report_of(r.pe, r.vertex);
        const bool sub = r.role == kRoleSubordinate;
        const uint32_t n = r.role == kRoleDominant ? m_c.net.populations.at(v.app).size : v.n;
        out << "                   " << std::setw(3) << r.pe << "   " << std::left << std::setw(16)
            << rep.element.substr(0, 16) << std::right << std::setw(4)
            << (sub ? std::string("MLA") : std::to_string(v.lo)) << (sub ? "  " : "..") << std::left
            << std::setw(4) << (sub ? std::string("") : std::to_string(v.lo + n - 1)) << std::right
            << std::setw(12) << grouped(r.counters.synaptic_events) << std::setw(9)
            << (v.is_source ? std::string("-")
                            : fmt(100.0 * r.counters.max_tick_cycles / m_c.c.tick_cycles, 1) + "%")
            << std::setw(5) << r.counters.overruns << std::setw(9) << grouped(rep.actual_total)
            << std::setw(11) << grouped(rep.model_total) << "\n";
    }
    out << "  energy           " << fmt(s.energy_uj / 1e3, 3) << " mJ over the run (whole chip), "
        << fmt(s.dynamic_energy_uj / 1e3, 3) << " mJ of it dynamic\n";
    out << "  per tick         work " << fmt(s.mean_busy_fraction * tick_s * 1e6, 2)
        << " us on average (busiest PE's tick " << fmt(s.max_busy_fraction * tick_s * 1e6, 2)
        << " us), energy " << fmt(s.energy_uj / ticks, 3) << " uJ ("
        << fmt(s.dynamic_energy_uj / ticks, 3) << " uJ dynamic)\n";
    if (s.synaptic_events)
        out << "  per syn. event   " << fmt(s.energy_per_syn_event_nj, 2) << " nJ all in, "
            << fmt(s.dynamic_per_syn_event_nj, 2)
            << " nJ dynamic (run-phase energy / synaptic events)\n";
}

}  // namespace nmsim::workloads::snn
