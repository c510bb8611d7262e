// The host program of the deepr workload on the SpiNNaker2 chip platform (the prototype variant):
// lays out each PE's data memory (compile.cpp), writes the configuration into the PEs' SRAM and
// the samples into DRAM, sets the router for the four-core messages, lets the PEs train, reads the
// records and final weights back and checks them against the bit-exact reference. docs/deepr.md.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "models/arm/elf_image.h"
#include "models/common/energy.h"
#include "nmsim/hw/spinnaker2/deepr_image.h"
#include "platforms/common/host_program.h"
#include "platforms/spinnaker2/chip.h"
#include "tools/dataset/idx.h"
#include "tools/reference/deepr_ref.h"
#include "workloads/deepr/spec.h"

namespace nmsim::workloads::deepr {

// The IEEE binary32 bits of a float (configuration words, record comparison).
inline uint32_t float_bits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}

// Bytes of a PE's data memory by the categories of seed 003 Fig. 8.
struct Footprint {
    uint32_t weights = 0, vectors = 0, temporary = 0;
    uint32_t data = 0;  // all of the data memory in use: + configuration, counters, stack
    uint32_t total() const { return weights + vectors + temporary; }
};

struct CellLayout {
    uint32_t pe = 0;
    s2_deepr_config_t cfg{};
    Footprint fp;
};

// What the compile step produces (compile.cpp).
struct Compiled {
    reference::DeeprSpec spec;
    dataset::LabelledImages train, test;
    std::vector<uint8_t> train_blob, test_blob;  // the samples as laid out in DRAM
    uint32_t train_addr = 0, test_addr = 0, records_addr = 0, dram_end = 0;
    std::vector<CellLayout> cells;
    std::unique_ptr<arm::ElfImage> elf;
    double clock_hz = 0;
};
// Reads the data, lays out every PE's data memory and the DRAM; throws scenario::ScenarioError
// naming workload.deepr.<key>.
Compiled compile(const DeeprWorkload& w, const spinnaker2::ChipParams& p, uint64_t seed);

struct DeeprSummary {
    uint64_t iterations = 0, rewiring_steps = 0, deleted = 0, inserted = 0;
    uint64_t correct_train = 0, correct_test = 0, test_count = 0;
    uint64_t prng_draws = 0, exps = 0, messages = 0, max_pending = 0;
    // cell 0's phase cycles (the critical path in the checkerboard)
    double import_cycles = 0, forward_cycles = 0, backward_cycles = 0, rewire_cycles = 0,
           test_cycles = 0;
    double train_us = 0, test_us = 0;  // simulated
    double energy_uj = 0, dram_energy_uj = 0, mean_power_mw = 0;
    bool checked = false;
    uint64_t mismatches = 0;
    double ref_test_accuracy = -1;  // the double-precision reference (when run)
};

class DeeprHost : public run::HostProgram {
public:
    DeeprHost();
    ~DeeprHost() override;
    void prepare(run::RunContext& ctx) override;
    void elaboration(const run::RunContext& ctx, std::ostream& out) const override;
    void load(run::RunContext& ctx) override;
    void begin(run::RunContext& ctx) override;
    // sim.max_time when the scenario sets it, else a bound from the workload (a training run
    // of many iterations outlasts the platform's default of 1 s).
    uint64_t max_time_ps() const override { return m_max_time_ps; }
    run::Progress progress() const override;
    void collect(run::RunContext& ctx) override;
    void check(run::RunContext& ctx) override;
    void write_metrics(run::RunContext& ctx) override;
    void report(const run::RunContext& ctx, std::ostream& out) const override;

    const DeeprSummary& summary() const { return m_sum; }

private:
    const s2_deepr_counters_t& counters(size_t cell) const;
    void read_records(run::RunContext& ctx);
    std::string check_iteration(uint64_t k, const reference::DeeprIteration<float>& want) const;
    std::string check_final(const reference::DeeprTrainer<float>& ref) const;

    const DeeprWorkload* m_w = nullptr;
    spinnaker2::ChipParams m_p;
    Compiled m_c;
    std::unique_ptr<spinnaker2::Chip> m_chip;
    energy::Meter m_meter;
    std::vector<std::vector<s2_deepr_record_t>> m_records;  // per cell
    DeeprSummary m_sum;
    std::string m_first_mismatch;
    uint64_t m_train_ps = 0, m_test_ps = 0;  // cell 0's marks: training and testing begin
    uint64_t m_max_time_ps = 0;
};

}  // namespace nmsim::workloads::deepr
