// The registered workload kinds (their schemas), in the order `nmsim params --workloads` lists
// them. A new kind adds one line here and one in hosts.cpp (docs/workloads.md).
#include "tools/scenario/workload.h"
#include "workloads/bss2/spec.h"
#include "workloads/deepr/spec.h"
#include "workloads/dnn/spec.h"
#include "workloads/hagen/spec.h"
#include "workloads/pe/spec.h"
#include "workloads/snn/spec.h"

namespace nmsim::scenario {

const std::vector<const WorkloadSchema*>& workload_schemas() {
    static const std::vector<const WorkloadSchema*> all = {
        &workloads::pe::schema(),
        &workloads::dnn::schema(),
        &workloads::bss2::schema(),
        &workloads::snn::schema(),
        &workloads::hagen::schema(),
        &workloads::deepr::schema(),
    };
    return all;
}

const WorkloadSchema* find_workload_schema(const std::string& name) {
    for (const WorkloadSchema* s : workload_schemas())
        if (s->name == name) return s;
    return nullptr;
}

std::vector<std::string> workload_names() {
    std::vector<std::string> v;
    for (const WorkloadSchema* s : workload_schemas()) v.push_back(s->name);
    return v;
}

}  // namespace nmsim::scenario
