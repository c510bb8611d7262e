// The compile stage of the dnn workload: which PEs work, the firmware, the ONNX model compiled
// into the DRAM image (graph, tiling within the workers' SRAM, image layout), and the inputs,
// labels and float predictions of the inferences. No simulation.
#include <algorithm>
#include <cstddef>
#include <fstream>
#include <iterator>

#include "nmsim/hw/spinnaker2/dnn_image.h"
#include "nmsim/hw/spinnaker2/noc_map.h"
#include "nmsim/hw/spinnaker2/pe_map.h"
#include "tools/compiler/onnx_frontend.h"
#include "workloads/dnn/host.h"

namespace nmsim::workloads::dnn {

using scenario::ConfigError;
using scenario::Origin;
using scenario::ScenarioError;

namespace {

constexpr uint32_t kImageBase = S2_DRAM_GLOBAL_BASE;
constexpr uint32_t kDefaultMinStack = 0x1000;  // link.ld's _min_stack

std::vector<uint8_t> read_file(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw std::runtime_error(path + ": cannot open");
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}

// The SRAM a worker can give one layer: between its image's end and the stack (link.ld).
uint64_t worker_sram_budget(const arm::ElfImage& elf) {
    uint32_t stack_top = S2_ARGS_BASE, min_stack = kDefaultMinStack;
    elf.find_symbol("_stack_top", stack_top);
    elf.find_symbol("_min_stack", min_stack);
    const uint64_t heap = (uint64_t{elf.end_of_image()} + 15) / 16 * 16;
    const uint64_t top = uint64_t{stack_top} - min_stack;
    return top > heap ? (top - heap) / 16 * 16 : 0;
}

}  // namespace

void set_cost_constants(compiler::TilingTarget& tt, const spinnaker2::ChipParams& p) {
    tt.clock_hz = p.pe.clock().hz;
    tt.mla_rows = p.pe.mla.n_rows;
    tt.mla_cols = p.pe.mla.n_cols;
    tt.mla_fetch_bytes_per_cycle = p.pe.mla.fetch_bytes_per_cycle;
    tt.mla_writeback_bytes_per_cycle = p.pe.mla.writeback_bytes_per_cycle;
    tt.mla_startup_cycles = p.pe.mla.startup_cycles;
    tt.dma_setup_cycles = p.pe.dma.setup_cycles;
    tt.dma_burst_bytes = p.pe.dma.burst_bytes;
    tt.dram_bytes_per_s = p.dram.bandwidth.bytes_per_s * p.dram.efficiency;
    // A request and its response cross the NoC (injection, the calibrated mean path); a DMA
    // burst's data adds its flits, a core access one.
    const double noc_s =
        2.0 * (p.noc.inject_cycles + tt.noc_hops * p.noc.hop_cycles) / p.noc.clock.hz;
    const double flits =
        static_cast<double>((tt.dma_burst_bytes + p.noc.flit_bytes - 1) / p.noc.flit_bytes);
    tt.ext_access_s = p.core_ext_latency.seconds() + noc_s + p.noc.flit_cycles / p.noc.clock.hz;
    tt.dma_burst_s = p.dram.t_ctrl.seconds() +
                     static_cast<double>(tt.dma_burst_bytes) / tt.dram_bytes_per_s + noc_s +
                     flits * p.noc.flit_cycles / p.noc.clock.hz;
    tt.dram_conflict_s = p.dram.t_rp.seconds() + p.dram.t_rcd.seconds();
    tt.worker_config_words = static_cast<uint32_t>(offsetof(s2_dnn_worker_t, row0) / 4);
    tt.row_config_words = static_cast<uint32_t>(
        (offsetof(s2_dnn_worker_t, reserved) - offsetof(s2_dnn_worker_t, row0)) / 4);
    tt.layer_header_words = sizeof(s2_dnn_layer_t) / 4;
    tt.global_config_words = sizeof(s2_dnn_global_t) / 4;
}

Compiled compile(const DnnWorkload& w, const spinnaker2::ChipParams& p) {
    Compiled P;
    std::vector<ConfigError> errors;
    const uint32_t n_pes = p.qpe_count * S2_NOC_PES_PER_QPE;
    auto err = [&](const std::string& field, const std::string& msg) {
        errors.push_back(ConfigError{w.origin_of(field), "workload.dnn." + field, msg});
    };

    // PEs
    P.scheduler = w.scheduler_pe;
    if (P.scheduler >= n_pes)
        err("scheduler_pe", "pe" + std::to_string(P.scheduler) + " does not exist: the chip has " +
                                std::to_string(n_pes) +
                                " PEs (qpe_count = " + std::to_string(p.qpe_count) + ")");
    if (!w.worker_pes.empty()) {
        P.workers = w.worker_pes;
    } else {
        const uint32_t want = w.all_workers ? n_pes - 1 : w.workers;
        for (uint32_t pe = 0; pe < n_pes && P.workers.size() < want; ++pe)
            if (pe != P.scheduler) P.workers.push_back(pe);
        if (P.workers.size() < want)
            err("workers",
                std::to_string(want) + " workers asked, the chip has only " +
                    std::to_string(P.workers.size()) +
                    " PEs besides the scheduler (qpe_count = " + std::to_string(p.qpe_count) + ")");
    }
    for (uint32_t pe : P.workers)
        if (pe >= n_pes)
            err("worker_pes", "pe" + std::to_string(pe) + " does not exist: the chip has " +
                                  std::to_string(n_pes) + " PEs");
    if (P.workers.empty()) err("workers", "at least one worker PE is needed");
    try {
        P.levels = spinnaker2::parse_perf_levels(p.perf_levels, n_pes, p.pe.perf_level);
    } catch (const std::exception& e) {
        errors.push_back(ConfigError{Origin{"default", 0, 0}, "perf_levels", e.what()});
    }

    // Firmware
    try {
        P.sched_elf =
            std::make_unique<arm::ElfImage>(arm::ElfImage::load(w.scheduler_firmware_path));
    } catch (const std::exception& e) {
        err("scheduler_firmware", e.what());
    }
    try {
        P.worker_elf = std::make_unique<arm::ElfImage>(arm::ElfImage::load(w.worker_firmware_path));
        P.sram_budget = worker_sram_budget(*P.worker_elf);
    } catch (const std::exception& e) {
        err("worker_firmware", e.what());
    }
    if (!errors.empty()) throw ScenarioError(errors);

    // Compile: ONNX -> graph -> tiling -> DRAM image.
    try {
        P.graph = compiler::load_onnx(w.model);
        compiler::TilingTarget tt;
        tt.max_workers = static_cast<uint32_t>(P.workers.size());
        if (w.max_workers_per_layer)
            tt.max_workers =
                static_cast<uint32_t>(std::min<uint64_t>(tt.max_workers, w.max_workers_per_layer));
        tt.sram_budget_bytes = P.sram_budget;
        set_cost_constants(tt, p);
        P.target = tt;
        P.tiling = compiler::tile_graph(P.graph, tt);
        // layer_workers pins entries of the layer list (graph layers that compute).
        size_t entry = 0;
        for (size_t gi = 0; gi < P.graph.layers.size(); ++gi) {
            const compiler::LayerKind k = P.graph.layers[gi].kind;
            if (k == compiler::LayerKind::input || k == compiler::LayerKind::output ||
                k == compiler::LayerKind::flatten)
                continue;
            if (entry < w.layer_workers.size() && w.layer_workers[entry] != 0) {
                const uint64_t want = w.layer_workers[entry];
                if (want > P.workers.size()) {
                    err("layer_workers", "entry " + std::to_string(entry) + " asks for " +
                                             std::to_string(want) + " workers, " +
                                             std::to_string(P.workers.size()) + " are configured");
                    throw ScenarioError(errors);
                }
                try {
                    P.tiling[gi] = compiler::tile_layer_with(P.graph.layers[gi], tt,
                                                             static_cast<uint32_t>(want));
                } catch (const compiler::CompileError& e) {
                    err("layer_workers",
                        "entry " + std::to_string(entry) + ": " + P.graph.source + ": " + e.what());
                    throw ScenarioError(errors);
                }
            }
            ++entry;
        }
        compiler::add_worker_setup(P.graph, P.tiling, tt);
        if (w.layer_workers.size() > entry) {
            err("layer_workers", std::to_string(w.layer_workers.size()) +
                                     " entries, the model's layer list has " +
                                     std::to_string(entry));
            throw ScenarioError(errors);
        }
        compiler::ImageTarget target;
        target.base = kImageBase;
        target.scheduler_pe = P.scheduler;
        target.worker_pes = P.workers;
        P.image = compiler::build_image(P.graph, P.tiling, target);
    } catch (const ScenarioError&) {
        throw;
    } catch (const std::exception& e) {
        err("model", e.what());
        throw ScenarioError(errors);
    }
    if (P.image.bytes.size() > spinnaker2::dram_if_size(p))
        err("model", "the DRAM image (" + std::to_string(P.image.bytes.size()) +
                         " B) does not fit DRAM interface 0 (" +
                         std::to_string(spinnaker2::dram_if_size(p)) + " B)");
    const s2_dnn_global_t& g = *reinterpret_cast<const s2_dnn_global_t*>(P.image.bytes.data());
    P.input_size = g.input_size;
    P.output_size = g.output_size;

    // Inputs, labels, float predictions.
    try {
        const std::vector<uint8_t> all = read_file(w.inputs);
        const uint64_t need = (w.first + w.count) * P.input_size;
        if (all.size() % P.input_size != 0)
            err("inputs", w.inputs + ": " + std::to_string(all.size()) +
                              " B is not a whole number of inputs of " +
                              std::to_string(P.input_size) + " B (the model's input)");
        else if (all.size() < need)
            err("count", "inputs " + std::to_string(w.first) + ".." +
                             std::to_string(w.first + w.count - 1) + " asked, " + w.inputs +
                             " holds " + std::to_string(all.size() / P.input_size));
        else
            P.inputs.assign(all.begin() + static_cast<std::ptrdiff_t>(w.first * P.input_size),
                            all.begin() + static_cast<std::ptrdiff_t>(need));
    } catch (const std::exception& e) {
        err("inputs", e.what());
    }
    auto per_input = [&](const std::string& field, const std::string& path,
                         std::vector<uint8_t>& dst) {
        if (path.empty()) return;
        try {
            const std::vector<uint8_t> all = read_file(path);
            if (all.size() < w.first + w.count)
                err(field, path + ": " + std::to_string(all.size()) + " entries, inputs up to " +
                               std::to_string(w.first + w.count - 1) + " need one each");
            else
                dst.assign(all.begin() + static_cast<std::ptrdiff_t>(w.first),
                           all.begin() + static_cast<std::ptrdiff_t>(w.first + w.count));
        } catch (const std::exception& e) {
            err(field, e.what());
        }
    };
    per_input("labels", w.labels, P.labels);
    per_input("float_predictions", w.float_predictions, P.float_pred);
    if (!errors.empty()) throw ScenarioError(errors);
    return P;
}

}  // namespace nmsim::workloads::dnn
