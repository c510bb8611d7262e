#include "models/common/sim_error.h"

#include <cstdio>

namespace nmsim {

SimErrorInfo& sim_error() {
    static SimErrorInfo e;
    return e;
}

std::string format_time_us(const sc_core::sc_time& t) {
    char b[48];
    std::snprintf(b, sizeof b, "%.6f us", t.to_seconds() * 1e6);
    return b;
}

std::string SimErrorInfo::formatted() const {
    char b[48];
    std::snprintf(b, sizeof b, "[E %.6f us] ", t_us);
    return b + component + ": " + message;
}

void raise_sim_error(const std::string& component, const std::string& message) {
    SimErrorInfo& e = sim_error();
    if (e.set) return;  // keep the first cause
    e.set = true;
    e.component = component;
    e.t_us = sc_core::sc_time_stamp().to_seconds() * 1e6;
    e.message = message;
    sc_core::sc_stop();
}

}  // namespace nmsim
