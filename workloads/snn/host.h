// The host program of the snn workload on the full SpiNNaker2 chip: compiles the network into
// per-PE images and router entries (tools/compiler/snn), loads the generic `snn` firmware on every
// PE of the machine graph, writes the images into the PEs' SRAM, the spike lists into DRAM and the
// routing table into the router over the host link, multicasts the start key, lets the PEs run
// their ticks, reads the records back and checks every spike against the integer reference.
// docs/snn.md; stages in platforms/common/host_program.h.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "models/arm/elf_image.h"
#include "models/common/energy.h"
#include "platforms/common/host_program.h"
#include "platforms/spinnaker2/chip.h"
#include "tools/compiler/snn/compiler.h"
#include "tools/compiler/snn/network.h"
#include "tools/reference/snn_ref.h"
#include "workloads/snn/spec.h"

namespace nmsim::workloads::snn {

// The network's PE count with every population in one paradigm (the report's comparison).
struct ParadigmCount {
    std::string paradigm;     // serial, parallel, auto
    int64_t pes = -1;         // -1: does not fit
    int64_t source_pes = -1;  // of which spike-source PEs
};

// What the compile stage produces (compile.cpp).
struct Compiled {
    compiler::snn::Network net;
    compiler::snn::Compiled c;
    std::vector<uint32_t> pes;                // PEs of the machine graph, ascending
    double clock_hz = 0;                      // the PEs' clock (one performance level for all)
    std::unique_ptr<arm::ElfImage> elf;       // serial paradigm
    std::unique_ptr<arm::ElfImage> elf_par;   // parallel paradigm (dominant, subordinates)
    std::vector<ParadigmCount> paradigm_pes;  // empty unless some population switches
};
// Network file -> machine graph -> images; throws scenario::ScenarioError naming
// workload.snn.<key> (and the network file's own location for errors inside it).
Compiled compile(const SnnWorkload& w, const spinnaker2::ChipParams& p);

// Per PE of the machine graph, read back after the run.
struct PeResult {
    uint32_t pe = 0, vertex = 0;
    s2_snn_counters_t counters{};
    uint32_t role = 0;  // PeRole (tables.h)
};

struct SnnSummary {
    uint64_t ticks_done = 0;  // the fewest ticks any PE completed
    uint64_t spikes = 0, source_spikes = 0;
    uint64_t synaptic_events = 0, packets_received = 0;
    uint64_t overruns = 0, mpt_misses = 0, buffer_overflows = 0, saturations = 0;
    double mean_busy_fraction = 0;  // busy cycles over tick cycles, mean over neuron PEs and ticks
    double max_busy_fraction = 0;   // the busiest tick of any PE
    uint64_t router_routed = 0, router_delivered = 0, router_dropped = 0;
    double load_us = 0;            // host link: images, spike lists and table written, start sent
    double run_us = 0;             // start key .. last PE done
    double energy_uj = 0;          // the run phase, the whole chip
    double dynamic_energy_uj = 0;  // of which activity (not power-state time)
    double energy_per_syn_event_nj = 0, dynamic_per_syn_event_nj = 0;
    bool checked = false;
    uint64_t ref_spikes = 0, mismatched_spikes = 0, voltage_mismatches = 0;
};

class SnnHost : public run::HostProgram {
public:
    SnnHost();
    ~SnnHost() override;
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
    std::string wall_note(const run::RunResult& r) const override;

    const SnnSummary& summary() const { return m_sum; }
    const std::vector<reference::SnnSpike>& spikes() const { return m_spikes; }

private:
    class Driver;  // the host side on the simulated host link (an sc_module)
    void read_records(run::RunContext& ctx);
    // The counters in the SRAM of the PE holding `img`.
    const s2_snn_counters_t& counters_of(const compiler::snn::PeImage& img) const;
    // Its Table I report (serial: by vertex; parallel: by PE).
    const compiler::snn::PeReport& report_of(uint32_t pe, uint32_t vertex) const;

    const SnnWorkload* m_w = nullptr;
    spinnaker2::ChipParams m_p;
    Compiled m_c;
    std::unique_ptr<spinnaker2::Chip> m_chip;
    energy::Meter m_meter;
    std::unique_ptr<Driver> m_driver;
    uint64_t m_loaded_ps = 0;  // the start key sent
    std::vector<PeResult> m_results;
    std::vector<reference::SnnSpike> m_spikes;  // sorted
    std::vector<reference::SnnVoltageTrace<int32_t>> m_voltages;
    SnnSummary m_sum;
    std::string m_first_mismatch;
};

}  // namespace nmsim::workloads::snn
