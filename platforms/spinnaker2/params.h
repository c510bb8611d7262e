// Parameters of the SpiNNaker2 platforms for a scenario: defaults, then the scenario's overrides,
// with the cross-parameter rules of each platform; and what went wrong with a started core.
#pragma once

#include <string>
#include <vector>

#include "platforms/common/params.h"
#include "platforms/spinnaker2/chip.h"
#include "platforms/spinnaker2/pe_platform.h"
#include "tools/scenario/scenario.h"

namespace nmsim::spinnaker2 {

// Throw scenario::ScenarioError naming each unknown parameter (with did-you-mean) or bad value
// with its origin; `rows` receives every parameter with its effective value and origin.
PePlatformParams resolve_pe_params(const scenario::Scenario& s, std::vector<run::ParamValue>* rows);
ChipParams resolve_chip_params(const scenario::Scenario& s, std::vector<run::ParamValue>* rows);

// What went wrong with a started core after the simulation, or "" if it exited with status 0:
// a non-zero exit status, a hang (asleep with nothing left to simulate) or a timeout at
// max_time. Shared by the host programs so their messages agree.
std::string core_problem(Pe& pe, Time max_time);

}  // namespace nmsim::spinnaker2
