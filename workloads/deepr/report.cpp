// The deepr workload's report: the setup (1P, 1PA, 4PA), time per iteration and its phase split
// (seed 003 sec. 3.2), memory per PE against Fig. 8, power and energy against sec. 3.3, accuracy,
// the check. Seed values are quoted from Liu et al. 2018 (docs/deepr.md lists them with lines).
#include <sstream>

#include "platforms/common/format.h"
#include "platforms/common/run_outputs.h"
#include "workloads/deepr/host.h"

namespace nmsim::workloads::deepr {

using run::fmt;
using run::grouped;

namespace {

constexpr double kKiB = 1024.0;  // the seed's KB is 1024 B (3,552 x 65 bit = 28.18 KiB)

std::string setup_name(const DeeprWorkload& w) {
    return std::to_string(w.cores) + (w.accelerators ? "PA" : "P");
}

std::string pct(double part, double total) { return total > 0 ? fmt(100 * part / total, 1) : "-"; }

// The phase split from the measured cycles: import, forward and backward per iteration, then
// rewiring as measured (period 0) or one step every `period` iterations at the measured cost per
// step.
std::string split_at(const DeeprSummary& s, double period) {
    const double it = double(std::max<uint64_t>(s.iterations, 1));
    const double steps = double(std::max<uint64_t>(s.rewiring_steps, 1));
    const double i = s.import_cycles / it, f = s.forward_cycles / it, b = s.backward_cycles / it;
    const double r = period == 0 ? s.rewire_cycles / it
                                 : (s.rewiring_steps ? s.rewire_cycles / steps / period : 0.0);
    const double t = i + f + b + r;
    return pct(i, t) + " / " + pct(f, t) + " / " + pct(b, t) + " / " + pct(r, t) + " %";
}

}  // namespace

void DeeprHost::elaboration(const run::RunContext& ctx, std::ostream& out) const {
    out << "elaborated " << ctx.scenario.name << ": DEEP R " << setup_name(*m_w) << ", "
        << m_c.spec.n[0] << "-" << m_c.spec.n[1] << "-" << m_c.spec.n[2] << "-" << m_c.spec.n[3]
        << " with " << m_c.spec.connections[0] << "/" << m_c.spec.connections[1] << "/"
        << m_c.spec.connections[2] << " connections, " << m_w->iterations << " iterations\n";
    for (size_t c = 0; c < m_c.cells.size(); ++c) {
        const Footprint& fp = m_c.cells[c].fp;
        out << "  pe" << m_c.cells[c].pe << " (cell " << c << "): weights " << fp.weights
            << " B, vectors " << fp.vectors << " B, temporary " << fp.temporary
            << " B, data memory " << fp.data << " B of 64 KiB\n";
    }
    out << "  DRAM: " << grouped(m_w->train_count) << " training and " << grouped(m_w->test_count)
        << " test samples, records up to " << run::hex32(m_c.dram_end) << "\n";
}

void DeeprHost::report(const run::RunContext&, std::ostream& out) const {
    const DeeprSummary& s = m_sum;
    const double hz = m_c.clock_hz;
    const double it = double(std::max<uint64_t>(s.iterations, 1));
    out << "DEEP R " << setup_name(*m_w) << " on " << m_c.cells.size() << " PE"
        << (m_c.cells.size() > 1 ? "s" : "") << " at " << fmt(hz / 1e6, 0)
        << " MHz: " << grouped(s.iterations) << " iterations, rewiring period "
        << m_w->rewiring_period << " (" << s.rewiring_steps << " steps, " << grouped(s.deleted)
        << " connections deleted and " << grouped(s.inserted) << " inserted)\n";
    const double per_it_us = s.train_us / it;
    out << "  time per iteration   " << fmt(per_it_us, 1) << " us ("
        << grouped(uint64_t(per_it_us * hz * 1e-6))
        << " cycles); seed 003 implies 3.90 / 2.40 / "
           "0.51 ms for 1P / 1PA / 4PA if its 1,755 / 1,082 / 228 s were 450 k iterations (its "
           "ratios 1.62x, 4.75x: tools/examples/deepr/seed_table.py runs all setups)\n";
    out << "  phase split          import / forward / backward / rewiring, PE " << m_c.cells[0].pe
        << "\n";
    out << "    measured, period " << m_w->rewiring_period << ": " << split_at(s, 0) << "\n";
    for (double p : {1.0, 10.0})
        if (p != double(m_w->rewiring_period))
            out << "    at period " << fmt(p, 0)
                << " (this run's cost per rewiring step): " << split_at(s, p) << "\n";
    out << "    seed 003 sec. 3.2: period 1: 0.2 / 2.5 / 7.2 / 90.1 %, period 10: 1.0 / 13.4 / "
           "38.0 "
           "/ 47.6 %\n";
    if (s.rewiring_steps)
        out << "  rewiring step        "
            << fmt(s.rewire_cycles / double(s.rewiring_steps) / hz * 1e3, 3) << " ms; at most "
            << s.max_pending << " dormant connections per block at a step\n";
    const Footprint& fp = m_c.cells[0].fp;
    uint64_t w = 0, v = 0, t = 0;
    for (const CellLayout& c : m_c.cells) {
        w += c.fp.weights;
        v += c.fp.vectors;
        t += c.fp.temporary;
    }
    out << "  memory (KB = 1024 B) weights / vectors / temporary = total\n";
    out << "    per PE             " << fmt(fp.weights / kKiB, 2) << " / "
        << fmt(fp.vectors / kKiB, 2) << " / " << fmt(fp.temporary / kKiB, 2) << " = "
        << fmt(fp.total() / kKiB, 2)
        << " KB; seed 003 Fig. 8: 1PA 28.21 / 6.28 / 2.14 = 36.63 KB, 4PA per core 12.99 KB\n";
    if (m_c.cells.size() > 1)
        out << "    all PEs            " << fmt(w / kKiB, 2) << " / " << fmt(v / kKiB, 2) << " / "
            << fmt(t / kKiB, 2) << " = " << fmt((w + v + t) / kKiB, 2)
            << " KB; seed: 28.24 / 15.16 / 8.56 = 51.96 KB\n";
    out << "  power (training)     " << fmt(s.mean_power_mw, 1) << " mW, "
        << fmt(s.energy_uj / it, 2) << " uJ per iteration (DRAM interface "
        << fmt(s.train_us > 0 ? s.dram_energy_uj / s.train_us * 1e3 : 0.0, 2)
        << " mW on average); seed 003 sec. 3.3: 87.9 mW (1P, 1PA), 227.0 mW (4PA)\n";
    out << "  accuracy             training " << pct(double(s.correct_train), it)
        << " % (running, before each update)";
    if (s.test_count) {
        out << ", held-out " << pct(double(s.correct_test), double(s.test_count)) << " % of "
            << s.test_count << " (" << fmt(s.test_us / double(s.test_count), 1)
            << " us per inference; seed: 0.27 ms 1PA, 0.1 ms 4PA)";
    }
    out << "\n";
    out << "  random numbers       " << grouped(s.prng_draws) << " ("
        << (m_w->accelerators ? "PRNG accelerator" : "software KISS") << "), " << grouped(s.exps)
        << " exponentials (" << (m_w->accelerators ? "EXP accelerator" : "software") << ")";
    if (s.messages) out << ", " << grouped(s.messages) << " messages between the PEs";
    out << "\n";
    if (s.checked)
        out << "  check                "
            << (s.mismatches ? "FAILED: " + m_first_mismatch
                             : "every iteration and the final "
                               "weights bit-exact with the float32 "
                               "reference")
            << "\n";
}

void DeeprHost::write_metrics(run::RunContext& ctx) {
    trace::Sink& w = *ctx.trace;
    const DeeprSummary& s = m_sum;
    const double it = double(std::max<uint64_t>(s.iterations, 1));
    const double hz = m_c.clock_hz;
    const double total = s.import_cycles + s.forward_cycles + s.backward_cycles + s.rewire_cycles;
    run::write_metric(w, "deepr.iterations", "1", double(s.iterations));
    run::write_metric(w, "deepr.time_per_iteration_us", "us", s.train_us / it);
    run::write_metric(w, "deepr.import_pct", "%", total > 0 ? 100 * s.import_cycles / total : 0);
    run::write_metric(w, "deepr.forward_pct", "%", total > 0 ? 100 * s.forward_cycles / total : 0);
    run::write_metric(w, "deepr.backward_pct", "%",
                      total > 0 ? 100 * s.backward_cycles / total : 0);
    run::write_metric(w, "deepr.rewiring_pct", "%", total > 0 ? 100 * s.rewire_cycles / total : 0);
    run::write_metric(w, "deepr.import_us", "us", s.import_cycles / it / hz * 1e6);
    run::write_metric(w, "deepr.forward_us", "us", s.forward_cycles / it / hz * 1e6);
    run::write_metric(w, "deepr.backward_us", "us", s.backward_cycles / it / hz * 1e6);
    if (s.rewiring_steps)
        run::write_metric(w, "deepr.rewiring_step_us", "us",
                          s.rewire_cycles / double(s.rewiring_steps) / hz * 1e6);
    run::write_metric(w, "deepr.rewiring_steps", "1", double(s.rewiring_steps));
    const Footprint& fp = m_c.cells[0].fp;
    run::write_metric(w, "deepr.weight_bytes", "B", fp.weights);
    run::write_metric(w, "deepr.vector_bytes", "B", fp.vectors);
    run::write_metric(w, "deepr.temporary_bytes", "B", fp.temporary);
    run::write_metric(w, "deepr.footprint_kib", "KiB", fp.total() / kKiB);
    run::write_metric(w, "deepr.power_mW", "mW", s.mean_power_mw);
    run::write_metric(w, "deepr.energy_per_iteration_uJ", "uJ", s.energy_uj / it);
    run::write_metric(w, "deepr.train_accuracy", "1", double(s.correct_train) / it);
    if (s.test_count) {
        run::write_metric(w, "deepr.test_accuracy", "1",
                          double(s.correct_test) / double(s.test_count));
        run::write_metric(w, "deepr.inference_us", "us", s.test_us / double(s.test_count));
    }
    run::write_metric(w, "deepr.deleted", "1", double(s.deleted));
    run::write_metric(w, "deepr.prng_draws", "1", double(s.prng_draws));
    run::write_metric(w, "deepr.messages", "1", double(s.messages));
    if (s.checked) run::write_metric(w, "deepr.mismatches", "1", double(s.mismatches));
}

}  // namespace nmsim::workloads::deepr
