#include "tools/scenario/workload.h"

#include <algorithm>

namespace nmsim::scenario {

std::vector<std::string> WorkloadSchema::children(const std::string& prefix) const {
    std::vector<std::string> out;
    const std::string p = prefix.empty() ? "" : prefix + ".";
    for (const auto& k : keys) {
        if (k.key.compare(0, p.size(), p) != 0) continue;
        std::string rest = k.key.substr(p.size());
        const size_t end = rest.find_first_of(".[");
        rest = rest.substr(0, end);
        if (!rest.empty() && rest[0] != '<' && std::find(out.begin(), out.end(), rest) == out.end())
            out.push_back(rest);
    }
    return out;
}

}  // namespace nmsim::scenario
