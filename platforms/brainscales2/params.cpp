#include "platforms/brainscales2/params.h"

namespace nmsim::bss2 {

using scenario::ConfigError;

ChipParams resolve_bss2_params(const scenario::Scenario& s, std::vector<run::ParamValue>* rows) {
    return run::resolve_paramset<ChipParams>(
        s,
        [](const ChipParams& p, const run::OriginOf& origin_of, std::vector<ConfigError>& errors) {
            if (p.madc.v_max <= p.madc.v_min)
                errors.push_back(
                    ConfigError{origin_of("madc.v_max"), "madc.v_max", "must be above madc.v_min"});
            if (p.neuron.v_max_mV <= p.neuron.v_min_mV)
                errors.push_back(ConfigError{origin_of("neuron.v_max_mV"), "neuron.v_max_mV",
                                             "must be above neuron.v_min_mV"});
        },
        rows);
}

}  // namespace nmsim::bss2
