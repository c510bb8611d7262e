// Runs one ELF image on a single simulated SpiNNaker2 PE with default parameters (plus
// overrides) and returns what it printed and how it ended. Used by differential tests against
// QEMU and by quick experiments; scenario runs go through the full host program instead.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace nmsim::spinnaker2 {

struct ElfRunResult {
    bool exited = false;    // the program ended through _exit / semihosting SYS_EXIT(_EXTENDED)
    int exit_code = -1;
    bool error = false;     // fault, bus error, hang or timeout: `message` says which
    std::string message;    // the formatted simulation error, if any
    std::string console;    // console + semihosting output, lines joined with '\n'
    uint64_t instructions = 0;
    uint64_t cycles = 0;
    double sim_time_us = 0;
};

// `param_sets` are "path=value" platform parameter overrides (e.g. "pe.core.quantum=100ns");
// `args` are written to the argument block (S2_ARGS_BASE) before the core starts.
// Each call runs in a fresh SystemC kernel, so calls can be repeated in one process.
ElfRunResult run_elf(const std::string& elf_path, const std::vector<std::string>& param_sets = {},
                     const std::vector<uint32_t>& args = {});

}  // namespace nmsim::spinnaker2
