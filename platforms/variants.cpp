// The registered platform variants (tools/scenario/variants.h), in the order `nmsim params`
// lists them. A new variant adds a table in platforms/<family>/variants.cpp and one line here.
#include "tools/scenario/variants.h"

#include "platforms/spinnaker2/variants.h"

namespace nmsim::scenario {

const std::vector<const PlatformVariant*>& platform_variants() {
    static const std::vector<const PlatformVariant*> all = {
        &spinnaker2::prototype_variant(),
    };
    return all;
}

const PlatformVariant* find_platform_variant(const std::string& platform, const std::string& name) {
    for (const PlatformVariant* v : platform_variants())
        if (v->platform == platform && v->name == name) return v;
    return nullptr;
}

std::vector<std::string> platform_variant_names(const std::string& platform) {
    std::vector<std::string> names;
    for (const PlatformVariant* v : platform_variants())
        if (v->platform == platform) names.push_back(v->name);
    return names;
}

}  // namespace nmsim::scenario
