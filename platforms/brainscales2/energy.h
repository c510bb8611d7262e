// The BrainScaleS-2 energy description: the chip's and the setup's static power over the whole
// run, and per-event energies of neuron spikes, PADI events, synapse rows, synaptic events, ADC
// conversions, chip-link and host-link bytes and playback instructions (energy_params.h,
// docs/energy.md). The FPGA model marks the phases (program transfer, configuration, run<k>,
// read-back, host).
#pragma once

#include <string>
#include <vector>

#include "models/common/energy.h"
#include "platforms/brainscales2/chip.h"

namespace nmsim::bss2 {

// Component name of the setup outside the chip (FPGA board and host share).
inline const char* kSetupComponent = "setup";

void add_bss2_energy(energy::Meter& m, Chip& chip);

// The chips' own energy in a finished meter (seed 004 sec. 5.6.4 quotes chip-only energies):
// every row except the setup's static power and the chips' FPGAs, in all phases (`all_j`) and
// in the phases whose names begin with `phase_prefix` (`phase_j`; 0 for an empty prefix).
struct ChipEnergy {
    double all_j = 0, phase_j = 0;
};
ChipEnergy chip_energy(const energy::Meter& m, const std::vector<const Chip*>& chips,
                       const std::string& phase_prefix = "");

}  // namespace nmsim::bss2
