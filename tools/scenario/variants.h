// Named platform variants: a set of parameter values, each with its own source, that a scenario
// selects with `platform.variant` and that resolve between the compiled-in defaults and the
// scenario's own overrides (platforms/common/params.cpp). The tables are plain data in
// platforms/<family>/variants.cpp, listed by platforms/variants.cpp; the scenario frame knows
// only this interface (as it knows workload kinds through workload.h).
#pragma once

#include <string>
#include <vector>

namespace nmsim::scenario {

struct VariantValue {
    std::string path;    // parameter path, e.g. "pe.pl1_freq"
    std::string value;   // as a scenario would write it: "500 MHz"
    std::string source;  // why this value: paper and section, or the derivation
};

struct PlatformVariant {
    std::string platform;  // platform kind: "spinnaker2_chip"
    std::string name;      // "prototype"
    std::string doc;       // one line
    std::vector<VariantValue> values;
};

// Every variant of every platform kind, in registration order.
const std::vector<const PlatformVariant*>& platform_variants();
const PlatformVariant* find_platform_variant(const std::string& platform, const std::string& name);
std::vector<std::string> platform_variant_names(const std::string& platform);

}  // namespace nmsim::scenario
