// Platform parameters of a run: defaults, then the scenario's overrides (file, then --set), each
// effective value with its origin. Every platform kind resolves its parameter set through here.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "models/common/param.h"
#include "tools/scenario/scenario.h"

namespace nmsim::run {

struct ParamValue {
    std::string path, value, unit, type, origin, source, doc;
};

std::string unit_of(const ParamEntry& e);

// Resolves defaults + scenario overrides into `root` (a parameter set with registry `reg`).
// `extra` may add errors for cross-parameter rules; it gets the origin of a path. Throws
// scenario::ScenarioError naming each unknown or bad parameter; fills `rows` sorted by path.
using OriginOf = std::function<scenario::Origin(const std::string& path)>;
void resolve_into(
    const ParamRegistry& reg, void* root, const scenario::Scenario& s,
    const std::function<void(const OriginOf&, std::vector<scenario::ConfigError>&)>& extra,
    std::vector<ParamValue>* rows);

template <typename P>
P resolve_paramset(const scenario::Scenario& s,
                   const std::function<void(const P&, const OriginOf&,
                                            std::vector<scenario::ConfigError>&)>& extra,
                   std::vector<ParamValue>* rows) {
    P p;
    resolve_into(
        registry_of<P>(), &p, s,
        [&](const OriginOf& o, std::vector<scenario::ConfigError>& e) {
            if (extra) extra(p, o, e);
        },
        rows);
    return p;
}

}  // namespace nmsim::run
