#include "platforms/spinnaker2/energy.h"

#include <algorithm>
#include <string>

namespace nmsim::spinnaker2 {

namespace {

double seconds(uint64_t ps) { return static_cast<double>(ps) * 1e-12; }

// Seconds a resource has been open at t_ps when it opened at `since_ps` (UINT64_MAX: never).
double open_since(uint64_t since_ps, uint64_t t_ps) {
    return since_ps != UINT64_MAX && t_ps > since_ps ? seconds(t_ps - since_ps) : 0.0;
}

// The core's power states up to t: active + asleep + gated = time since the core started. The
// ISS may have run ahead of t by up to a quantum; those cycles are counted in the next phase.
struct CoreStates {
    double active = 0.0, sleep = 0.0, gated = 0.0;
};

CoreStates core_states(const arm::CortexM4F& c, uint64_t t_ps) {
    CoreStates s;
    if (!c.iss_created()) return s;
    const uint64_t t0 = c.start_time().value();
    if (t_ps <= t0) return s;
    const double elapsed = seconds(t_ps - t0);
    const sc_core::sc_time now(static_cast<double>(t_ps), sc_core::SC_PS);
    s.sleep = std::min(elapsed, c.sleep_time_at(now).to_seconds());
    s.active = std::min(elapsed - s.sleep, static_cast<double>(c.active_cycles()) / c.clock().hz);
    s.gated = std::max(0.0, elapsed - s.sleep - s.active);
    return s;
}

}  // namespace

void add_pe_energy(energy::Meter& m, Pe& pe) {
    const PeParams& p = pe.params();
    const PeEnergyParams& e = p.energy;
    const bool pl1 = p.perf_level == 1;
    const double v = p.voltage().v;
    const double v_ref = (pl1 ? e.ref_voltage_pl1 : e.ref_voltage_pl0).v;
    const double v_ref1 = e.ref_voltage_pl1.v;
    const std::string pl = pl1 ? "@PL1" : "@PL0";
    const double sleep_w =
        energy::scale_v2((pl1 ? e.sleep_power_pl1 : e.sleep_power_pl0).w, v, v_ref);
    const double cycle_j =
        energy::scale_v2((pl1 ? e.cycle_energy_pl1 : e.cycle_energy_pl0).j, v, v_ref);
    const double hz = p.clock().hz;

    const std::string core = pe.core.name();
    const arm::CortexM4F* c = &pe.core;
    // An active PE draws its sleep power (leakage, clock tree) plus the energy of each cycle.
    m.add_state(
        core, "active" + pl, [c](uint64_t t) { return core_states(*c, t).active; }, sleep_w);
    m.add_state(
        core, "sleep" + pl, [c](uint64_t t) { return core_states(*c, t).sleep; }, sleep_w);
    m.add_state(
        core, "gated" + pl, [c](uint64_t t) { return core_states(*c, t).gated; },
        sleep_w * e.gated_ratio);
    // Cycles as the active time above (not the ISS's count) so that states and cycles agree at
    // every phase boundary.
    m.add_events_at(
        core, "cycles" + pl, [c, hz](uint64_t t) { return core_states(*c, t).active * hz; },
        cycle_j);

    const Mla* mla = &pe.mla;
    m.add_events(
        pe.mla.name(), "macs" + pl, [mla] { return static_cast<double>(mla->total_macs()); },
        energy::scale_v2((pl1 ? e.mac_energy_pl1 : e.mac_energy_pl0).j, v, v_ref));
    const ExpAccel* x = &pe.exp;
    m.add_events(
        pe.exp.name(), "exp_ops" + pl, [x] { return static_cast<double>(x->total_ops()); },
        energy::scale_v2(e.exp_energy.j, v, e.exp_ref_voltage.v));
    const Prng* r = &pe.prng;
    m.add_events(
        pe.prng.name(), "numbers" + pl, [r] { return static_cast<double>(r->reads()); },
        energy::scale_v2(e.prng_energy.j, v, v_ref1));
    const Dma* d = &pe.dma;
    m.add_events(
        pe.dma.name(), "bytes" + pl, [d] { return static_cast<double>(d->bytes_moved()); },
        energy::scale_v2(e.dma_byte_energy.j, v, v_ref1));
}

void add_platform_energy(energy::Meter& m, PePlatform& p) {
    const PePlatformEnergyParams& e = p.params().energy;
    m.add_state(
        p.name(), "on", [](uint64_t t) { return seconds(t); }, e.baseline_power.w);
    for (size_t i = 0; i < p.pe_count(); ++i) add_pe_energy(m, p.pe(i));
    const Memory* ext = &p.ext();
    if (e.ext_close_when_idle)
        m.add_state(
            p.ext().name(), "open", [ext](uint64_t) { return seconds(ext->busy_ps()); },
            e.ext_open_power.w);
    else
        m.add_state(
            p.ext().name(), "open",
            [ext](uint64_t t) { return open_since(ext->first_access_ps(), t); },
            e.ext_open_power.w);
    m.add_events(
        p.ext().name(), "bytes",
        [ext] { return static_cast<double>(ext->bytes_read() + ext->bytes_written()); },
        e.ext_byte_energy.j);
}

void add_chip_energy(energy::Meter& m, Chip& c) {
    const ChipEnergyParams& e = c.params().energy;
    m.add_state(
        c.name(), "on", [](uint64_t t) { return seconds(t); }, e.baseline_power.w);
    for (size_t i = 0; i < c.pe_count(); ++i) add_pe_energy(m, c.pe(i));
    const Noc* noc = &c.noc();
    m.add_events(
        c.noc().name(), "flit_hops", [noc] { return static_cast<double>(noc->flit_hops()); },
        e.flit_hop_energy.j);
    for (unsigned i = 0; i < c.dram_count(); ++i) {
        const DramCtrl* d = &c.dram(i);
        const std::string name = c.dram(i).name();
        if (e.dram_close_when_idle)
            m.add_state(
                name, "open",
                [d](uint64_t t) {
                    return std::min(seconds(d->in_flight_ps()),
                                    open_since(d->first_access_ps(), t));
                },
                e.dram_open_power.w);
        else
            m.add_state(
                name, "open", [d](uint64_t t) { return open_since(d->first_access_ps(), t); },
                e.dram_open_power.w);
        auto sum = [d](auto field) {
            double s = 0.0;
            for (uint32_t ch = 0; ch < d->params().channels; ++ch)
                s += static_cast<double>(field(d->channel_stats(ch)));
            return s;
        };
        m.add_events(
            name, "bytes",
            [sum] {
                return sum(
                    [](const DramCtrl::ChannelStats& s) { return s.bytes_read + s.bytes_written; });
            },
            e.dram_byte_energy.j);
        m.add_events(
            name, "activations",
            [sum] { return sum([](const DramCtrl::ChannelStats& s) { return s.activations; }); },
            e.dram_activation_energy.j);
    }
    const SpikeRouter* r = &c.router();
    m.add_events(
        c.router().name(), "packets", [r] { return static_cast<double>(r->counters().processed); },
        e.router_packet_energy.j);
    m.add_events(
        c.router().name(), "deliveries",
        [r] { return static_cast<double>(r->counters().delivered); }, e.router_delivery_energy.j);
    m.add_events(
        c.router().name(), "link_packets",
        [r] {
            uint64_t n = 0;
            for (uint64_t k : r->counters().link_sent) n += k;
            return static_cast<double>(n);
        },
        e.router_link_packet_energy.j);
    const HostLink* h = &c.host();
    m.add_events(
        c.host().name(), "bytes",
        [h] { return static_cast<double>(h->bytes_to_chip() + h->bytes_from_chip()); },
        e.host_byte_energy.j);
}

}  // namespace nmsim::spinnaker2
