#include "platforms/brainscales2/params.h"

namespace nmsim::bss2 {

using scenario::ConfigError;

std::vector<std::pair<std::string, std::string>> bss2_param_problems(const ChipParams& p) {
    std::vector<std::pair<std::string, std::string>> out;
    if (p.madc.v_max <= p.madc.v_min) out.push_back({"madc.v_max", "must be above madc.v_min"});
    if (p.neuron.v_max_mV <= p.neuron.v_min_mV)
        out.push_back({"neuron.v_max_mV", "must be above neuron.v_min_mV"});
    return out;
}

ChipParams resolve_bss2_params(const scenario::Scenario& s, std::vector<run::ParamValue>* rows) {
    return run::resolve_paramset<ChipParams>(
        s,
        [](const ChipParams& p, const run::OriginOf& origin_of, std::vector<ConfigError>& errors) {
            for (const auto& [key, problem] : bss2_param_problems(p))
                errors.push_back(ConfigError{origin_of(key), key, problem});
        },
        rows);
}

}  // namespace nmsim::bss2
