// Parameters of the BrainScaleS-2 platform for a scenario: defaults, then the scenario's
// overrides, with the platform's cross-parameter rules.
#pragma once

#include <vector>

#include "platforms/brainscales2/chip.h"
#include "platforms/common/params.h"
#include "tools/scenario/scenario.h"

namespace nmsim::bss2 {

// Throws scenario::ScenarioError for unknown or bad parameters; `rows` receives every parameter
// with its value and origin.
ChipParams resolve_bss2_params(const scenario::Scenario& s, std::vector<run::ParamValue>* rows);

}  // namespace nmsim::bss2
