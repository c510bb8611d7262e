#include "platforms/spinnaker2/run_elf.h"

#include <exception>
#include <stdexcept>

#include "models/common/sim_error.h"
#include "models/common/sim_kernel.h"
#include "platforms/spinnaker2/pe_platform.h"
#include "platforms/spinnaker2/params.h"

namespace nmsim::spinnaker2 {

ElfRunResult run_elf(const std::string& elf_path, const std::vector<std::string>& param_sets,
                     const std::vector<uint32_t>& args) {
    ElfRunResult r;
    fresh_sim_kernel();
    PePlatformParams p;
    try {
        scenario::Scenario s;
        s.platform_kind = "spinnaker2_pe";
        for (const auto& kv : param_sets) {
            const auto eq = kv.find('=');
            if (eq == std::string::npos) throw std::runtime_error("bad parameter override \"" + kv + "\": expected key=value");
            s.params.push_back(scenario::ParamOverride{kv.substr(0, eq), kv.substr(eq + 1), {"--set", 0, 0}});
        }
        p = resolve_pe_params(s, nullptr);
    } catch (const std::exception& e) {  // scenario::ScenarioError included
        r.error = true;
        r.message = e.what();
        return r;
    }
    try {
        const arm::ElfImage image = arm::ElfImage::load(elf_path);
        PePlatform plat("s2", p, 1, nullptr, false);
        Pe& pe = plat.pe(0);
        pe.load(image);
        pe.set_args(args);
        plat.start({0});
        sc_core::sc_start(sc_core::sc_time(static_cast<double>(p.sim.max_time.ps), sc_core::SC_PS));
        pe.console.flush();
        r.console = pe.console.text();
        r.exited = pe.exited;
        r.exit_code = pe.exit_code;
        r.instructions = pe.core.instructions();
        r.cycles = pe.core.active_cycles();
        r.sim_time_us = sc_core::sc_time_stamp().to_seconds() * 1e6;
        if (sim_error().set) {
            r.error = true;
            r.message = sim_error().formatted();
        } else if (!pe.exited) {
            r.error = true;
            r.message = pe.core.sleeping() ? "program did not exit: core asleep in WFI at pc " + pe.core.where(pe.core.pc())
                                           : "program did not exit before sim.max_time (pc " + pe.core.where(pe.core.pc()) + ")";
        }
    } catch (const std::exception& e) {
        r.error = true;
        r.message = e.what();
    }
    return r;
}

}  // namespace nmsim::spinnaker2
