// `nmsim bench`: simulation speed of the full PE platform on one host core, measured, not
// asserted: simulated instructions per wall second on compute loops, and simulated MLA MACs per
// wall second on repeated int8 matrix multiplications driven by firmware; and the peak memory of a
// full 152-PE chip run with two PEs active.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "tools/bench/targets.h"

namespace nmsim::spinnaker2 {

int run_bench(const std::vector<std::string>& firmware_dirs, bool quick, bench::SpeedFigures& fig,
              std::ostream& out, std::ostream& err);

}  // namespace nmsim::spinnaker2
