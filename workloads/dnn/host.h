// The host program of the dnn workload on the full SpiNNaker2 chip: compiles the ONNX model into
// a DRAM image (tools/compiler), loads the generic scheduler and worker firmware, writes the image
// through the host link, runs the inferences one input at a time, reads every output and the
// time-measurement area back, checks the outputs bit-exactly against the integer reference of the
// quantised graph (and counts the differences to ONNX semantics), and reports accuracy and the
// per-layer runtime breakdown (seed 000 Table II). docs/dnn_flow.md; stages in
// platforms/common/host_program.h.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "models/arm/elf_image.h"
#include "models/common/energy.h"
#include "platforms/common/host_program.h"
#include "platforms/spinnaker2/chip.h"
#include "tools/compiler/dram_image.h"
#include "tools/compiler/graph.h"
#include "tools/compiler/tiling.h"
#include "workloads/dnn/spec.h"

namespace nmsim::workloads::dnn {

// One entry's times (setup, a layer, cleanup), means over the inferences.
struct DnnEntryTime {
    std::string name;  // "setup", the graph layer's name, "cleanup"
    std::string kind;  // "setup", "linear+relu [1, 784]->[1, 512]", ..., "cleanup"
    uint32_t workers = 0;
    double us = 0;          // scheduler interval
    double load_us = 0;     // mean over the layer's workers: waiting for weight/bias DMA
                            // (layers without constants: input DMA)
    double compute_us = 0;  // mean over the layer's workers: MLA / core compute
    double worker_us = 0;   // mean over the layer's workers: their whole interval
};

struct DnnRunSummary {
    uint64_t inferences = 0;  // completed
    uint64_t bit_exact = 0;   // outputs equal to the reference
    uint64_t labelled = 0;
    uint64_t correct_chip = 0, correct_reference = 0, correct_float = 0;
    bool have_float = false;
    std::vector<DnnEntryTime> mean;    // setup, layers, cleanup: means over the inferences
    double total_us = 0;               // mean setup start .. cleanup end
    double image_load_us = 0;          // host link: DRAM image written once
    double host_per_inference_us = 0;  // host link: mean RUN signal .. output and times read
    // ONNX semantics (round half to even): outputs that differ, over all inferences.
    uint64_t onnx_elements = 0, onnx_mismatches = 0, onnx_max_lsb = 0;
    uint64_t onnx_inferences_differing = 0;
    double inference_energy_uj = 0;  // mean per inference, setup to cleanup
};

// What the compile stage produces (compile.cpp).
struct Compiled {
    compiler::Graph graph;
    compiler::TilingTarget target;  // what the layers were tiled for (cost-model constants)
    std::vector<compiler::LayerTiling> tiling;
    compiler::DramImage image;
    uint32_t scheduler = 0;
    std::vector<uint32_t> workers;
    std::vector<uint32_t> levels;  // performance level per PE
    uint64_t sram_budget = 0;
    uint32_t input_size = 0, output_size = 0;
    std::vector<uint8_t> inputs;              // count * input_size
    std::vector<uint8_t> labels, float_pred;  // count each, or empty
    std::unique_ptr<arm::ElfImage> sched_elf, worker_elf;
};
// Worker PEs, firmware, ONNX -> graph -> tiling -> DRAM image, the inputs; throws
// scenario::ScenarioError naming workload.dnn.<key>.
Compiled compile(const DnnWorkload& w, const spinnaker2::ChipParams& p);
// `nmsim compile --explain`: per entry of the layer list the tiling, the estimate by phase, the
// estimate of every worker count and why this one; `csv` gives one machine-readable row each.
void explain(const Compiled& c, std::ostream& out, bool csv);
// The tiling cost model's hardware constants from the platform parameters.
void set_cost_constants(compiler::TilingTarget& tt, const spinnaker2::ChipParams& p);

// What the host thread on the simulated host link brings back.
struct HostResult {
    std::vector<std::vector<uint8_t>> outputs;  // per completed inference (NCHW order)
    std::vector<std::vector<uint8_t>> times;    // the time area after each inference
    std::vector<uint64_t> host_ps;              // per inference: RUN sent .. results read
    uint64_t image_loaded_ps = 0;
    uint32_t status = 0, status_pe = 0, status_layer = 0;  // the scheduler's error, if any
    bool finished = false;                                 // every inference done and EXIT sent
};

class DnnHost : public run::HostProgram {
public:
    DnnHost();
    ~DnnHost() override;
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

    const DnnRunSummary& summary() const { return m_sum; }

private:
    class Driver;  // the host side on the simulated host link (an sc_module)
    void read_times(run::RunContext& ctx);
    double clock_hz(uint32_t pe) const;

    const DnnWorkload* m_w = nullptr;
    spinnaker2::ChipParams m_p;
    Compiled m_c;
    std::unique_ptr<spinnaker2::Chip> m_chip;
    energy::Meter m_meter;
    HostResult m_hr;
    std::unique_ptr<Driver> m_driver;
    std::vector<size_t> m_pes;  // scheduler, then workers
    DnnRunSummary m_sum;
    std::vector<std::vector<int8_t>> m_reference, m_onnx;  // per inference (check)
    std::string m_first_mismatch;
};

}  // namespace nmsim::workloads::dnn
