// The bss2 workload's report: network and mapping, the rates per run and population, spikes,
// PADI events, drops, the time split and energy.
#include <iomanip>
#include <map>
#include <sstream>

#include "platforms/common/format.h"
#include "workloads/bss2/host.h"

namespace nmsim::workloads::bss2 {

using run::fmt;
using run::grouped;

void Bss2Host::elaboration(const run::RunContext& ctx, std::ostream& out) const {
    const scenario::Scenario& s = ctx.scenario;
    out << "elaborated " << s.name << ": platform " << s.platform_kind << ", network "
        << m_w->network << ": " << m_c.net.populations.size() << " populations, "
        << m_c.net.projections.size() << " projections; " << m_c.pl.synapses.size() << " synapses, "
        << m_c.pl.drivers.size() << " drivers, " << m_c.pl.nodes.size() << " crossbar nodes; graph "
        << m_c.graph.size() << " vertices; configuration " << m_c.config.size() << " words; "
        << m_w->runs.size() << " run" << (m_w->runs.size() == 1 ? "" : "s") << " of "
        << fmt(m_w->runtime_us, 1) << " us\n";
}

void Bss2Host::report(const run::RunContext& ctx, std::ostream& out) const {
    const Bss2RunSummary& sum = m_sum;
    const Compiled& P = m_c;
    size_t n_internal = 0;
    for (const auto& pop : P.net.populations)
        if (pop.kind == cb::PopulationKind::internal) n_internal += pop.size;
    out << "  network          " << m_w->network << ": " << P.net.populations.size()
        << " populations (" << n_internal << " on-chip neurons), " << P.net.projections.size()
        << " projection" << (P.net.projections.size() == 1 ? "" : "s") << "\n";
    std::map<uint32_t, int> buses;
    for (const auto& d : P.pl.drivers) buses[d.hemi * 4 + d.driver % 4] = 1;
    size_t weighted = 0;
    for (const auto& sy : P.pl.synapses) weighted += sy.weight > 0;
    out << "  mapping          " << grouped(weighted) << " synapses ("
        << grouped(P.pl.synapses.size()) << " cells in use), " << P.pl.drivers.size()
        << " synapse drivers on " << buses.size() << " PADI bus" << (buses.size() == 1 ? "" : "es")
        << ", " << P.pl.nodes.size() << " crossbar nodes; routing verified; graph "
        << P.graph.size() << " vertices, configuration " << grouped(P.config.size()) << " words\n";
    out << "  runs             " << sum.runs << " x " << fmt(m_w->runtime_us, 1)
        << " us hardware time after one configuration (seed 004 Fig. 3.14)\n";
    out << "  rates (Hz, hardware time, per neuron)\n";
    {
        std::ostringstream h;
        h << "    run";
        for (const auto& ps : sum.populations)
            h << "  " << std::setw(std::max<int>(10, static_cast<int>(ps.name.size()))) << ps.name;
        out << h.str() << "\n";
        for (size_t run = 0; run < sum.runs; ++run) {
            std::ostringstream row;
            row << "    " << std::setw(3) << run;
            for (const auto& ps : sum.populations) {
                const std::string v = ps.kind == "background" ? "bg" : fmt(ps.rate_hz[run], 0);
                row << "  " << std::setw(std::max<int>(10, static_cast<int>(ps.name.size()))) << v;
            }
            out << row.str() << "\n";
        }
    }
    out << "  spikes           " << grouped(sum.input_spikes) << " injected, "
        << grouped(sum.chip_spikes) << " emitted by the neurons, " << grouped(sum.recorded_spikes)
        << " recorded by the FPGA; " << grouped(sum.synaptic_events) << " synaptic events\n";
    {
        std::ostringstream bl;
        for (uint32_t h = 0; h < BSS2_HEMISPHERES; ++h)
            for (uint32_t b = 0; b < BSS2_PADI_PER_HEMI; ++b) {
                const nmsim::bss2::PadiBus& bus = m_chip->padi(h, b);
                if (bus.events() == 0 && bus.drops() == 0) continue;
                bl << (bl.tellp() > 0 ? ", " : "") << (h ? "bottom " : "top ") << b << ": "
                   << grouped(bus.events())
                   << (bus.drops() ? " (" + grouped(bus.drops()) + " dropped)" : "");
            }
        out << "  PADI events      " << (bl.tellp() > 0 ? bl.str() : std::string("none")) << "\n";
    }
    out << "  drops            PADI buses " << grouped(sum.padi_drops) << ", FPGA "
        << grouped(sum.fpga_drops)
        << "; late input spikes (FPGA instruction issue or chip link busy) "
        << grouped(sum.late_waits) << "\n";
    if (P.madc)
        out << "  MADC             " << grouped(sum.madc_samples) << " samples of neuron "
            << P.madc_neuron << "\n";
    out << "  time split       configuration transfer "
        << fmt(sum.host_to_fpga_us + sum.config_us, 1) << " us (program "
        << fmt(sum.host_to_fpga_us, 1) << " us over the host link, writes " << fmt(sum.config_us, 1)
        << " us), realtime " << fmt(sum.realtime_us, 1) << " us, read-back "
        << fmt(sum.readback_us, 1) << " us, total " << fmt(sum.total_us, 1) << " us\n";
    out << "  simulated time   " << fmt(ctx.result.sim_time_us, 3) << " us\n";
    energy::print_breakdown(m_meter, out);
    out << "  chip only        " << fmt(sum.chip_uj, 2) << " uJ, of which the realtime runs "
        << fmt(sum.chip_realtime_uj, 2)
        << " uJ (without the FPGA's events and the setup's static power, "
        << fmt(m_p.energy.system_power.w, 2) << " W)\n";
}

}  // namespace nmsim::workloads::bss2
