#include "platforms/spinnaker2/params.h"

#include "nmsim/hw/spinnaker2/noc_map.h"
#include "platforms/common/format.h"

namespace nmsim::spinnaker2 {

using run::OriginOf;
using scenario::ConfigError;

PePlatformParams resolve_pe_params(const scenario::Scenario& s,
                                   std::vector<run::ParamValue>* rows) {
    return run::resolve_paramset<PePlatformParams>(
        s,
        [](const PePlatformParams& p, const OriginOf& origin_of, std::vector<ConfigError>& errors) {
            if (p.pe.sram_size.n % 4096 != 0)
                errors.push_back(ConfigError{origin_of("pe.sram_size"), "pe.sram_size",
                                             "must be a multiple of 4 KiB"});
            if (p.ext.size.n % 4096 != 0)
                errors.push_back(
                    ConfigError{origin_of("ext.size"), "ext.size", "must be a multiple of 4 KiB"});
        },
        rows);
}

ChipParams resolve_chip_params(const scenario::Scenario& s, std::vector<run::ParamValue>* rows) {
    return run::resolve_paramset<ChipParams>(
        s,
        [](const ChipParams& p, const OriginOf& origin_of, std::vector<ConfigError>& errors) {
            if (p.pe.sram_size.n % 4096 != 0)
                errors.push_back(ConfigError{origin_of("pe.sram_size"), "pe.sram_size",
                                             "must be a multiple of 4 KiB"});
            try {
                parse_perf_levels(p.perf_levels, p.qpe_count * S2_NOC_PES_PER_QPE, p.pe.perf_level);
            } catch (const std::exception& e) {
                errors.push_back(ConfigError{origin_of("perf_levels"), "perf_levels", e.what()});
            }
        },
        rows);
}

std::string core_problem(Pe& x, Time max_time) {
    if (x.exited && x.exit_code != 0)
        return std::string(x.name()) + ": firmware exited with status " +
               std::to_string(x.exit_code) +
               (x.exit_code >= 0x100 && x.exit_code < 0x200
                    ? " (unhandled exception " + std::to_string(x.exit_code - 0x100) + ")"
                    : "");
    if (x.exited) return "";
    const std::string where = x.core.where(x.core.pc());
    const sc_core::sc_time limit(static_cast<double>(max_time.ps), sc_core::SC_PS);
    if (sc_core::sc_time_stamp() < limit)
        return std::string(x.core.name()) + ": hang: asleep in WFI at pc " + where +
               " with no interrupt pending and nothing left to simulate (t = " +
               run::fmt(sc_core::sc_time_stamp().to_seconds() * 1e6, 3) + " us)";
    return std::string(x.core.name()) +
           ": timeout: did not exit within sim.max_time = " + format_time(max_time) + " (pc " +
           where + ")";
}

}  // namespace nmsim::spinnaker2
