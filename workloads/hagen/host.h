// The host program of the hagen workload: draws the operands from the scenario seed, plans the
// tiles (host compiler), runs the hagen executor on the simulated chips (each with its FPGA) with
// the host's own work in simulated time, then checks the values against the integer reference
// and reports the time split in seed 002's categories, the rate and seed 004's eq. 3.1 bounds.
// docs/bss2_hagen.md; stages in platforms/common/host_program.h.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "models/common/energy.h"
#include "platforms/brainscales2/chip.h"
#include "platforms/brainscales2/hagen_executor.h"
#include "platforms/common/host_program.h"
#include "tools/compiler/bss2/hagen_ops.h"
#include "tools/compiler/bss2/hagen_program.h"
#include "workloads/hagen/spec.h"

namespace nmsim::workloads::hagen {

namespace hg = nmsim::compiler::bss2::hagen;

// What the compile step produces (compile.cpp).
struct Compiled {
    hg::IntMatrix x, w;
    hg::MatmulPlan plan;
    hg::VectorTiming timing;
};
// Operands from `seed`, the plan over the workload's chips, the vector timing. Throws
// scenario::ScenarioError naming workload.hagen.<key> for what the plan cannot do.
Compiled compile(const HagenWorkload& w, uint64_t seed);

// Seed 004 eq. 3.1 applied to a plan's tiles: the rate (multiply-accumulates per second) at
// which the link of `bits_per_s` carries the vectors' data, with Table 3.1's sizes per value
// (input 32 bit, trigger 16 bit, output 16 bit).
double transport_bound_ops(const hg::MatmulPlan& plan, double bits_per_s);

// The results against the reference.
struct CheckSummary {
    bool ideal = false;       // the chip parameters have no mismatch and no noise
    uint64_t values = 0;      // compared
    uint64_t differ = 0;      // values != reference
    double mean_abs_lsb = 0;  // mean |y - reference|
    double rms_lsb = 0;
    uint32_t max_abs_lsb = 0;
    double correlation = 0;  // Pearson, y against the reference
    uint64_t first_bad = 0;  // index of the first differing value (vector * out + column)
};

class HagenHost : public run::HostProgram {
public:
    HagenHost();
    ~HagenHost() override;
    void prepare(run::RunContext& ctx) override;
    void elaboration(const run::RunContext& ctx, std::ostream& out) const override;
    void load(run::RunContext& ctx) override;
    void begin(run::RunContext& ctx) override;
    uint64_t max_time_ps() const override { return m_p.sim.max_time.ps; }
    run::Progress progress() const override;
    void collect(run::RunContext& ctx) override;
    void check(run::RunContext& ctx) override;
    void write_metrics(run::RunContext& ctx) override;
    void report(const run::RunContext& ctx, std::ostream& out) const override;

    const nmsim::bss2::HagenTimes& times() const { return m_times; }
    const CheckSummary& check_summary() const { return m_check; }

private:
    class Driver;  // the host computer running the executor (an sc_module)

    const HagenWorkload* m_w = nullptr;
    nmsim::bss2::ChipParams m_p;
    Compiled m_c;
    std::vector<std::unique_ptr<nmsim::bss2::Chip>> m_chips;
    std::unique_ptr<Driver> m_driver;
    energy::Meter m_meter;
    hg::IntMatrix m_y;
    nmsim::bss2::HagenTimes m_times;
    CheckSummary m_check;
    double m_chip_uj = 0, m_total_uj = 0;
};

}  // namespace nmsim::workloads::hagen
