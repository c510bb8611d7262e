// The host program of every registered workload kind (docs/workloads.md): `nmsim run`
// dispatches on the scenario's workload key.
#include "platforms/common/host_program.h"
#include "workloads/bss2/host.h"
#include "workloads/deepr/host.h"
#include "workloads/dnn/host.h"
#include "workloads/hagen/host.h"
#include "workloads/pe/host.h"
#include "workloads/snn/host.h"

namespace nmsim::run {

std::unique_ptr<HostProgram> make_host_program(const std::string& kind) {
    if (kind == "pe") return std::make_unique<workloads::pe::PeHost>();
    if (kind == "dnn") return std::make_unique<workloads::dnn::DnnHost>();
    if (kind == "bss2") return std::make_unique<workloads::bss2::Bss2Host>();
    if (kind == "snn") return std::make_unique<workloads::snn::SnnHost>();
    if (kind == "hagen") return std::make_unique<workloads::hagen::HagenHost>();
    if (kind == "deepr") return std::make_unique<workloads::deepr::DeeprHost>();
    return nullptr;
}

RunResult run_scenario(const scenario::Scenario& s, const RunOptions& o, std::ostream& out,
                       std::ostream& err) {
    auto host = make_host_program(s.workload.kind());
    if (!host)
        throw std::runtime_error(s.path + ": workload kind \"" + s.workload.kind() +
                                 "\" has no host program in this build");
    return run_scenario(s, o, out, err, *host);
}

}  // namespace nmsim::run
