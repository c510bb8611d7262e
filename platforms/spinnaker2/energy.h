// The SpiNNaker2 energy description: which counters and power states of the PE platform and the
// chip cost how much (parameters in energy_params.h, derivations in docs/energy.md). Registers
// accounts with an energy::Meter; the host programs mark the phases.
#pragma once

#include "models/common/energy.h"
#include "platforms/spinnaker2/chip.h"
#include "platforms/spinnaker2/pe_platform.h"

namespace nmsim::spinnaker2 {

// A PE at its performance level: the core's time active, asleep (WFI/WFE) and clock-gated
// (started but halted) with its active cycles, MLA MACs, EXP operations, PRNG numbers and DMA
// bytes. A PE whose core never starts is off (0 W).
void add_pe_energy(energy::Meter& m, Pe& pe);
// Every PE, the platform's baseline power and the external memory interface.
void add_platform_energy(energy::Meter& m, PePlatform& p);
// Every PE, the chip's baseline, NoC flit hops, each DRAM interface (open time, bytes,
// activations), host-link bytes and the spike router's packets, deliveries and link packets.
void add_chip_energy(energy::Meter& m, Chip& c);

}  // namespace nmsim::spinnaker2
