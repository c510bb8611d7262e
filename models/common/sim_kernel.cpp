#include "models/common/sim_kernel.h"

#include <systemc>

#include "models/common/sim_error.h"

namespace nmsim {

void fresh_sim_kernel() {
    // The previous context is deliberately leaked: deleting a finished context is not supported.
    sc_core::sc_curr_simcontext = new sc_core::sc_simcontext();
    sc_core::sc_default_global_context = sc_core::sc_curr_simcontext;
    sc_core::sc_set_time_resolution(1, sc_core::SC_PS);
    sim_error() = SimErrorInfo{};
    // sc_stop() is how runs end; its info message is noise.
    sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
}

}  // namespace nmsim
