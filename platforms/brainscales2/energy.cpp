#include "platforms/brainscales2/energy.h"

#include <algorithm>
#include <string>

namespace nmsim::bss2 {

void add_bss2_energy(energy::Meter& m, Chip& chip) {
    const Bss2EnergyParams& e = chip.params().energy;
    const auto on = [](uint64_t t) { return static_cast<double>(t) * 1e-12; };
    const auto u = [](uint64_t v) { return static_cast<double>(v); };
    const Chip* c = &chip;
    m.add_state(chip.name(), "on", on, e.chip_power.w);
    m.add_state(kSetupComponent, "on", on, e.system_power.w);
    m.add_events(
        std::string(chip.name()) + ".neurons", "spikes", [c, u] { return u(c->chip_spikes()); },
        e.spike_energy.j);
    for (uint32_t h = 0; h < 2; ++h) {
        for (uint32_t b = 0; b < 4; ++b) {
            const PadiBus* p = &chip.padi(h, b);
            m.add_events(
                p->name(), "events", [p, u] { return u(p->events()); }, e.padi_event_energy.j);
        }
        const SynapseDrivers* d = &chip.drivers(h);
        m.add_events(
            d->name(), "row_events", [d, u] { return u(d->row_events()); }, e.row_event_energy.j);
        const SynapseArray* s = &chip.synapses(h);
        m.add_events(
            s->name(), "synaptic_events", [s, u] { return u(s->synaptic_events()); },
            e.synaptic_event_energy.j);
    }
    const Madc* madc = &chip.madc();
    m.add_events(
        madc->name(), "samples", [madc, u] { return u(madc->samples()); }, e.madc_sample_energy.j);
    const Cadc* cadc = &chip.cadc();
    m.add_events(
        cadc->name(), "conversions", [cadc, u] { return u(cadc->conversions()); },
        e.cadc_conversion_energy.j);
    Fpga* f = &chip.fpga();
    const double msg = chip.params().fpga.chip_message_bytes;
    m.add_events(
        f->name(), "chip_link_bytes",
        [f, msg, u] { return (u(f->counters().messages_down) + u(f->messages_up())) * msg; },
        e.link_byte_energy.j);
    m.add_events(
        f->name(), "instructions", [f, u] { return u(f->counters().instructions); },
        e.instruction_energy.j);
    m.add_events(
        f->name(), "host_link_bytes",
        [f, u] { return u(f->counters().wire_bytes_to_fpga + f->counters().wire_bytes_to_host); },
        e.host_byte_energy.j);
}

ChipEnergy chip_energy(const energy::Meter& m, const std::vector<const Chip*>& chips,
                       const std::string& phase_prefix) {
    std::vector<std::string> fpgas;
    for (const Chip* c : chips) fpgas.push_back(c->fpga().name());
    ChipEnergy e;
    for (const auto& row : m.rows()) {
        if (row.component == kSetupComponent ||
            std::find(fpgas.begin(), fpgas.end(), row.component) != fpgas.end())
            continue;
        e.all_j += row.energy_j;
        if (!phase_prefix.empty() && row.phase.rfind(phase_prefix, 0) == 0)
            e.phase_j += row.energy_j;
    }
    return e;
}

}  // namespace nmsim::bss2
