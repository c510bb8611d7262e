// Energy parameters of the BrainScaleS-2 platform. Public sources give only system-level figures
// (hardware_facts.md C): the chip's power is a constant estimate and no per-event energy is
// published, so the per-event energies below are order-of-magnitude assumptions that make the
// breakdown show where activity goes; the static powers carry the totals. docs/energy.md.
#pragma once

#include "models/common/param.h"

namespace nmsim::bss2 {

struct Bss2EnergyParams {
    NMSIM_PARAMSET(Bss2EnergyParams);
    NMSIM_PARAM(Power, chip_power, Power{0.3}, "", range(0, 100),
                "power of the chip while it is on (analog core biases, digital logic, links)",
                "seed 004 sec. 5.6.4: chip power estimated as constant 300 mW (its ref. [11])");
    NMSIM_PARAM(Power, system_power, Power{4.7}, "", range(0, 1000),
                "power of the rest of the setup: FPGA board and the controlling host's share",
                "seed 004 sec. 5.6.4: the complete setup (chip, FPGA, host) requires about 5 W; "
                "minus chip_power");
    NMSIM_PARAM(Energy, spike_energy, Energy{5e-12}, "", range(0, 1e-6),
                "energy per neuron spike (threshold crossing, reset, back-end event)",
                "assumed: no public figure (hardware_facts.md C)");
    NMSIM_PARAM(Energy, padi_event_energy, Energy{2e-12}, "", range(0, 1e-6),
                "energy per event on a PADI bus (long bus line across the synapse drivers)",
                "assumed: no public figure");
    NMSIM_PARAM(Energy, row_event_energy, Energy{5e-12}, "", range(0, 1e-6),
                "energy per synapse row driven by a synapse driver (row pulse, address lines)",
                "assumed: no public figure");
    NMSIM_PARAM(Energy, synaptic_event_energy, Energy{0.5e-12}, "", range(0, 1e-6),
                "energy per synapse whose label matches a row event (weight DAC current pulse)",
                "assumed: no public figure");
    NMSIM_PARAM(Energy, madc_sample_energy, Energy{10e-12}, "", range(0, 1e-6),
                "energy per MADC sample (10 bit)",
                "assumed: order of 10-bit ADCs at tens of MSa/s; no public figure");
    NMSIM_PARAM(Energy, cadc_conversion_energy, Energy{5e-12}, "", range(0, 1e-6),
                "energy per CADC channel conversion (8 bit, ramp)", "assumed: no public figure");
    NMSIM_PARAM(Energy, link_byte_energy, Energy{80e-12}, "", range(0, 1e-6),
                "FPGA-chip link energy per byte in either direction",
                "assumed: about 10 pJ/bit for a serial chip link; no public figure");
    NMSIM_PARAM(Energy, instruction_energy, Energy{1e-9}, "", range(0, 1e-3),
                "FPGA energy per playback instruction executed (fetch from FPGA memory, decode)",
                "assumed: FPGA logic and memory access at about 0.1 W per 100 M instructions/s; "
                "no public figure");
    NMSIM_PARAM(Energy, host_byte_energy, Energy{80e-12}, "", range(0, 1e-6),
                "host link (1 GbE) energy per byte on the wire, either direction",
                "assumed: about 10 pJ/bit for Gigabit Ethernet PHYs; no public figure");
};

}  // namespace nmsim::bss2
