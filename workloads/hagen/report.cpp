// The hagen workload's report: the product and its tiles, the values check, the time split in
// seed 002's categories (host pre-processing, encoding, transfer, configuration, execution,
// decoding, post-processing), the rate next to seed 004's eq. 3.1 bounds, energy.
#include <iomanip>
#include <sstream>

#include "platforms/common/format.h"
#include "workloads/hagen/host.h"

namespace nmsim::workloads::hagen {

using run::fmt;
using run::grouped;

namespace {

void product_lines(const HagenWorkload& w, const Compiled& c, std::ostream& out) {
    const hg::MatmulPlan& p = c.plan;
    out << "  product          " << w.in << " x " << w.out << ", batch " << grouped(w.batch) << ", "
        << w.chips << (w.chips == 1 ? " chip" : " chips") << ": " << p.tiles.size()
        << (p.tiles.size() == 1 ? " tile" : " tiles") << " (" << p.row_splits << " row x "
        << p.col_splits << " column splits) in " << p.passes
        << (p.passes == 1 ? " pass" : " passes") << "\n";
    out << "  vectors          num_sends " << c.timing.num_sends << ", "
        << c.timing.wait_between_events << " cycles (" << fmt(c.timing.wait_between_events * 8.0, 0)
        << " ns) between events, baseline read " << (c.timing.baseline ? "on" : "off")
        << (c.timing.rewrite_synapses ? ", synapses rewritten per vector (v1 workaround)" : "")
        << "\n";
}

std::string us_text(uint64_t ps) { return fmt(static_cast<double>(ps) * 1e-6, 1) + " us"; }

}  // namespace

void HagenHost::elaboration(const run::RunContext& ctx, std::ostream& out) const {
    out << "elaborated " << ctx.scenario.name << ": platform " << ctx.scenario.platform_kind << ", "
        << m_w->chips << " chip(s) with FPGA, hagen mode\n";
    product_lines(*m_w, m_c, out);
    for (const hg::Tile& t : m_c.plan.tiles)
        out << "  tile             chip " << t.chip << " half " << t.half << " pass " << t.pass
            << ": rows " << t.row0 << ".." << t.row0 + t.rows - 1 << ", columns " << t.col0 << ".."
            << t.col0 + t.cols - 1 << "\n";
}

void HagenHost::report(const run::RunContext&, std::ostream& out) const {
    product_lines(*m_w, m_c, out);
    const CheckSummary& s = m_check;
    if (!m_w->check) {
        out << "  check            off\n";
    } else if (s.values && s.ideal) {
        out << "  check            " << (s.differ ? "FAIL: " : "PASS: ") << grouped(s.values)
            << " values, " << grouped(s.differ)
            << " differ from the integer reference (ideal setting: no mismatch, no noise)\n";
    } else if (s.values) {
        out << "  check            analog setting (mismatch/noise on): " << grouped(s.differ)
            << " of " << grouped(s.values) << " values differ from the integer reference; mean "
            << "|error| " << fmt(s.mean_abs_lsb, 2) << " LSB, rms " << fmt(s.rms_lsb, 2) << ", max "
            << s.max_abs_lsb << ", correlation " << fmt(s.correlation, 4) << "\n";
    }
    const auto& t = m_times;
    out << "  time split       simulated; sums over chips and executions (seed 002 Fig. 2)\n";
    const auto row = [&](const char* name, uint64_t ps, const char* what) {
        out << "    " << std::left << std::setw(18) << name << std::right << std::setw(14)
            << us_text(ps) << "  " << what << "\n";
    };
    row("host graph", t.host_graph_ps, "signal-flow graph construction");
    row("host preprocess", t.host_preprocess_ps, "operands to the 5/6-bit formats");
    row("host encode", t.host_encode_ps, "playback programs to messages");
    row("transfer", t.transfer_ps, "programs and responses over the host link");
    row("configuration", t.config_ps, "static configuration executed (synapses, drivers, neurons)");
    row("realtime", t.realtime_ps, "events, integration, CADC conversion and reads");
    row("other on FPGA", t.other_ps, "resets, settling, baseline reads");
    row("host decode", t.host_decode_ps, "responses to results");
    row("host postprocess", t.host_postprocess_ps, "row splits summed, results to float");
    row("wall", t.wall_ps, "from the call to the result (chips overlapping)");
    const double wall_us = static_cast<double>(t.wall_ps) * 1e-6;
    if (m_c.x.rows && wall_us > 0)
        out << "  per vector       " << fmt(wall_us / m_c.x.rows, 2) << " us wall, "
            << fmt(static_cast<double>(t.realtime_ps) * 1e-6 / double(t.vectors), 2)
            << " us realtime per tile vector\n";
    if (wall_us > 0)
        out << "  rate             " << fmt(static_cast<double>(t.macs) / wall_us * 1e-3, 3)
            << " Gop/s (" << grouped(t.macs) << " multiply-accumulates in " << fmt(wall_us, 1)
            << " us)\n";
    out << "  eq. 3.1 bound    " << fmt(transport_bound_ops(m_c.plan, 1e9) * 1e-9, 2)
        << " Gop/s at 1 Gbit/s, " << fmt(transport_bound_ops(m_c.plan, 8e9) * 1e-9, 2)
        << " Gop/s at 8 Gbit/s for these tiles (seed 004 sec. 3.1.4: 4 and 32 Gop/s for a full "
           "chip)\n";
    out << "  energy           chip " << fmt(m_chip_uj, 2) << " uJ";
    if (t.macs) out << " (" << fmt(m_chip_uj * 1e6 / double(t.macs), 1) << " pJ per MAC)";
    out << ", with FPGA and setup " << fmt(m_total_uj, 2) << " uJ\n";
}

}  // namespace nmsim::workloads::hagen
