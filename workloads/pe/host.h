// The host program of the pe workload: firmware and buffers on the SpiNNaker2 PE platform or the
// chip, the checks against integer references afterwards (platforms/common/host_program.h for
// the stages). On the chip, `ext` buffers live in DRAM interface 0 (the same core addresses from
// S2_EXT_BASE on) and the host writes and reads them through the DRAM's backdoor.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "models/arm/elf_image.h"
#include "models/common/energy.h"
#include "platforms/common/host_program.h"
#include "platforms/spinnaker2/chip.h"
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
    uint64_t max_time_ps() const override { return m_max_time.ps; }
    void collect(run::RunContext& ctx) override;
    void check(run::RunContext& ctx) override;
    void write_metrics(run::RunContext& ctx) override;
    void report(const run::RunContext& ctx, std::ostream& out) const override;

    const std::vector<CheckOutcome>& outcomes() const { return m_outcomes; }
    const energy::Meter& meter() const { return m_meter; }

private:
    spinnaker2::Pe& pe(size_t i) const { return m_chip ? m_chip->pe(i) : m_plat->pe(i); }
    // Host bytes of the external memory at core address `addr`.
    uint8_t* ext_host(uint32_t addr);

    const PeWorkload* m_w = nullptr;
    bool m_on_chip = false;
    spinnaker2::PePlatformParams m_p;  // spinnaker2_pe
    spinnaker2::ChipParams m_cp;       // spinnaker2_chip
    spinnaker2::PeParams m_pe;         // the PEs' parameters on either platform
    Time m_max_time;
    MemoryMap m_mem;
    std::vector<std::unique_ptr<arm::ElfImage>> m_images;  // per PE, if loaded
    std::vector<size_t> m_pes;                             // PEs with a core, in core order
    Layout m_layout;
    std::vector<PreparedCheck> m_checks;
    std::unique_ptr<spinnaker2::PePlatform> m_plat;
    std::unique_ptr<spinnaker2::Chip> m_chip;
    std::vector<uint8_t> m_dram_copy;  // chip: host copy of the ext buffers' DRAM range
    energy::Meter m_meter;
    std::vector<CheckOutcome> m_outcomes;
};

}  // namespace nmsim::workloads::pe
