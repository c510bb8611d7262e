#include "platforms/common/params.h"

#include <algorithm>
#include <map>

#include "tools/scenario/variants.h"

namespace nmsim::run {

using scenario::ConfigError;
using scenario::Origin;

std::string unit_of(const ParamEntry& e) {
    switch (e.type) {
        case ParamType::time:
            return "s";
        case ParamType::frequency:
            return "Hz";
        case ParamType::bytes:
            return "B";
        case ParamType::voltage:
            return "V";
        case ParamType::energy:
            return "J";
        case ParamType::bandwidth:
            return "B/s";
        case ParamType::power:
            return "W";
        default:
            return e.unit;
    }
}

void resolve_into(const ParamRegistry& reg, void* root, const scenario::Scenario& s,
                  const std::function<void(const OriginOf&, std::vector<ConfigError>&)>& extra,
                  std::vector<ParamValue>* rows) {
    const auto flat = flatten(reg, root);
    std::map<std::string, const FlatParam*> by_path;
    std::vector<std::string> paths;
    for (const auto& f : flat) {
        by_path[f.path] = &f;
        paths.push_back(f.path);
    }
    std::map<std::string, Origin> origin;
    std::map<std::string, std::string> variant_origin;  // path -> "variant NAME: source"
    std::vector<ConfigError> errors;
    // The variant's values sit between the defaults and the scenario's overrides. A value its
    // platform rejects is a bug in the variant's table, reported at the variant's key.
    if (!s.platform_variant.empty()) {
        const scenario::PlatformVariant* v =
            scenario::find_platform_variant(s.platform_kind, s.platform_variant);
        if (!v) {
            const auto names = scenario::platform_variant_names(s.platform_kind);
            std::string msg =
                "unknown variant \"" + s.platform_variant + "\" of platform " + s.platform_kind;
            const std::string near = closest_match(s.platform_variant, names);
            if (!near.empty()) msg += " (did you mean \"" + near + "\"?)";
            errors.push_back(ConfigError{s.platform_variant_origin, "platform.variant", msg});
        }
        for (const auto& val : v ? v->values : std::vector<scenario::VariantValue>{}) {
            auto it = by_path.find(val.path);
            std::string err = "no such parameter";
            if (it == by_path.end() || !it->second->set(val.value, err)) {
                errors.push_back(ConfigError{
                    s.platform_variant_origin, "platform.variant",
                    "variant " + v->name + ": " + val.path + " = " + val.value + ": " + err});
                continue;
            }
            origin[val.path] = s.platform_variant_origin;
            variant_origin[val.path] = "variant " + v->name + ": " + val.source;
        }
    }
    for (const auto& ov : s.params) {
        auto it = by_path.find(ov.path);
        if (it == by_path.end()) {
            std::string msg = "unknown parameter of platform " + s.platform_kind;
            const std::string near = closest_match(ov.path, paths);
            if (!near.empty()) msg += " (did you mean \"" + near + "\"?)";
            msg += "; `nmsim params " + s.platform_kind + "` lists them";
            errors.push_back(ConfigError{ov.origin, ov.path, msg});
            continue;
        }
        std::string err;
        if (!it->second->set(ov.value, err)) {
            errors.push_back(ConfigError{ov.origin, ov.path, err});
            continue;
        }
        origin[ov.path] = ov.origin;
        variant_origin.erase(ov.path);
    }
    const OriginOf origin_of = [&](const std::string& path) {
        auto it = origin.find(path);
        return it == origin.end() ? Origin{"default", 0, 0} : it->second;
    };
    if (extra) extra(origin_of, errors);
    if (!errors.empty()) throw scenario::ScenarioError(errors);
    if (rows) {
        rows->clear();
        for (const auto& f : flat) {
            const Origin o = origin_of(f.path);
            const auto v = variant_origin.find(f.path);
            rows->push_back(ParamValue{f.path, f.get(), unit_of(*f.entry),
                                       param_type_name(f.entry->type),
                                       v != variant_origin.end() ? v->second
                                       : o.file == "default"     ? "default"
                                                                 : o.str(),
                                       f.entry->source, f.entry->doc});
        }
        std::sort(rows->begin(), rows->end(),
                  [](const ParamValue& a, const ParamValue& b) { return a.path < b.path; });
    }
}

}  // namespace nmsim::run
