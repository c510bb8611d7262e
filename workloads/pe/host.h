// The host program of the pe workload: firmware and buffers on the SpiNNaker2 PE platform, the
// checks against integer references afterwards (platforms/common/host_program.h for the stages).
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "models/arm/elf_image.h"
#include "models/common/energy.h"
#include "platforms/common/host_program.h"
#include "platforms/spinnaker2/pe_platform.h"
#include "workloads/pe/buffers.h"
#include "workloads/pe/checks.h"

namespace nmsim::workloads::pe {

class PeHost : public run::HostProgram {
public:
    void prepare(run::RunContext& ctx) override;
    void elaboration(const run::RunContext& ctx, std::ostream& out) const override;
    void load(run::RunContext& ctx) override;
    void begin(run::RunContext& ctx) override;
    uint64_t max_time_ps() const override { return m_p.sim.max_time.ps; }
    void collect(run::RunContext& ctx) override;
    void check(run::RunContext& ctx) override;
    void write_metrics(run::RunContext& ctx) override;
    void report(const run::RunContext& ctx, std::ostream& out) const override;

    const std::vector<CheckOutcome>& outcomes() const { return m_outcomes; }

private:
    const PeWorkload* m_w = nullptr;
    spinnaker2::PePlatformParams m_p;
    std::vector<std::unique_ptr<arm::ElfImage>> m_images;  // per PE, if loaded
    std::vector<size_t> m_pes;                             // PEs with a core, in core order
    Layout m_layout;
    std::vector<PreparedCheck> m_checks;
    std::unique_ptr<spinnaker2::PePlatform> m_plat;
    energy::Meter m_meter;
    std::vector<CheckOutcome> m_outcomes;
};

}  // namespace nmsim::workloads::pe
