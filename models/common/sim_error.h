// Run-time errors of a simulation (firmware faults, bus errors, hangs). The first error stops
// the simulation (sc_stop); the platform reports it after sc_start returns. Messages follow
// "[E 12.345678 us] s2.pe0.dma: write to read-only STATUS (0x010)".
#pragma once

#include <systemc>

#include <string>

namespace nmsim {

struct SimErrorInfo {
    bool set = false;
    std::string component;  // instance path
    double t_us = 0;
    std::string message;    // without the prefix
    std::string formatted() const;
};

SimErrorInfo& sim_error();  // process-wide; reset by the platform before each run
void raise_sim_error(const std::string& component, const std::string& message);
std::string format_time_us(const sc_core::sc_time& t);

}  // namespace nmsim
