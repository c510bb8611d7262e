// Parameters of the BrainScaleS-2 platform for a scenario: defaults, then the scenario's
// overrides, with the platform's cross-parameter rules.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "platforms/brainscales2/chip.h"
#include "platforms/common/params.h"
#include "tools/scenario/scenario.h"

namespace nmsim::bss2 {

// The platform's cross-parameter rules: (parameter, problem) for each one broken, e.g.
// ("madc.v_max", "must be above madc.v_min"). Used by resolve_bss2_params and the Python module.
std::vector<std::pair<std::string, std::string>> bss2_param_problems(const ChipParams& p);

// Throws scenario::ScenarioError for unknown or bad parameters; `rows` receives every parameter
// with its value and origin.
ChipParams resolve_bss2_params(const scenario::Scenario& s, std::vector<run::ParamValue>* rows);

}  // namespace nmsim::bss2
