// The BrainScaleS-2 energy description: the chip's and the setup's static power over the whole
// run, and per-event energies of neuron spikes, PADI events, synapse rows, synaptic events, ADC
// conversions, chip-link and host-link bytes and playback instructions (energy_params.h,
// docs/energy.md). The FPGA model marks the phases (program transfer, configuration, run<k>,
// read-back, host).
#pragma once

#include "models/common/energy.h"
#include "platforms/brainscales2/chip.h"

namespace nmsim::bss2 {

// Component name of the setup outside the chip (FPGA board and host share).
inline const char* kSetupComponent = "setup";

void add_bss2_energy(energy::Meter& m, Chip& chip);

}  // namespace nmsim::bss2
