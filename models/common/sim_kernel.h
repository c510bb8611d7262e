// A fresh SystemC kernel (simulation context) with 1 ps time resolution, so that one process can
// run several simulations one after another (SystemC 2.3 cannot restart a finished context).
#pragma once

namespace nmsim {

void fresh_sim_kernel();

}  // namespace nmsim
