#include "platforms/spinnaker2/run_chip.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "models/arm/elf_image.h"
#include "models/common/sim_error.h"
#include "models/spinnaker2/exp/exp_accel.h"
#include "nmsim/hw/spinnaker2/console_regs.h"
#include "nmsim/hw/spinnaker2/dnn_image.h"
#include "nmsim/hw/spinnaker2/noc_map.h"
#include "nmsim/hw/spinnaker2/pe_map.h"
#include "nmsim/trace/hdf5_writer.h"
#include "platforms/spinnaker2/energy.h"
#include "platforms/spinnaker2/run_common.h"
#include "tools/compiler/dram_image.h"
#include "tools/compiler/graph_reference.h"
#include "tools/compiler/onnx_frontend.h"
#include "tools/compiler/tiling.h"

#ifndef NMSIM_VERSION
#define NMSIM_VERSION "dev"
#endif

namespace nmsim {

// One row per inference and list entry (setup, each layer, cleanup), from the time area.
struct DnnEntryRecord {
    uint64_t duration_ps;
    uint32_t inference;
    uint32_t entry;  // 0 setup, 1..L layer entry-1, L+1 cleanup
    uint32_t start_cycles, end_cycles;
    uint32_t workers;
    uint32_t pad_;
};
NMSIM_TRACE_TABLE(
    DnnEntryRecord, "dnn/entries",
    "scheduler intervals per inference: setup, each layer, cleanup (time area)",
    NMSIM_COL(DnnEntryRecord, duration_ps, "ps", "end - start at the scheduler's clock"),
    NMSIM_COL(DnnEntryRecord, inference, "1", "inference index in this run"),
    NMSIM_COL(DnnEntryRecord, entry, "1", "0 setup, 1..L layer entry-1, L+1 cleanup"),
    NMSIM_COL(DnnEntryRecord, start_cycles, "cycles", "scheduler CYCCNT at the start"),
    NMSIM_COL(DnnEntryRecord, end_cycles, "cycles", "scheduler CYCCNT at the end"),
    NMSIM_COL(DnnEntryRecord, workers, "1", "workers of the layer (all for setup/cleanup)"));

// One row per inference, layer and worker, from the workers' time records.
struct DnnWorkerRecord {
    uint64_t duration_ps;
    uint64_t load_ps;
    uint64_t compute_ps;
    uint32_t inference;
    uint32_t layer;
    uint32_t worker;
    uint32_t pe;
};
NMSIM_TRACE_TABLE(
    DnnWorkerRecord, "dnn/workers",
    "worker records per inference and layer: interval, DMA-in wait, compute",
    NMSIM_COL(DnnWorkerRecord, duration_ps, "ps", "the worker's interval for the layer"),
    NMSIM_COL(DnnWorkerRecord, load_ps, "ps",
              "waiting for DMA of weights and biases (layers without: of the inputs)"),
    NMSIM_COL(DnnWorkerRecord, compute_ps, "ps", "MLA operations or the core's compute loops"),
    NMSIM_COL(DnnWorkerRecord, inference, "1", "inference index in this run"),
    NMSIM_COL(DnnWorkerRecord, layer, "1", "layer list index"),
    NMSIM_COL(DnnWorkerRecord, worker, "1", "index in the worker list"),
    NMSIM_COL(DnnWorkerRecord, pe, "1", "global PE index"));

namespace spinnaker2 {

using namespace detail;
using scenario::ConfigError;
using scenario::Origin;
using scenario::Scenario;
using scenario::ScenarioError;

namespace {

constexpr uint32_t kImageBase = S2_DRAM_GLOBAL_BASE;
constexpr uint32_t kDefaultMinStack = 0x1000;  // link.ld's _min_stack

std::vector<uint8_t> read_file(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw std::runtime_error(path + ": cannot open");
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}

// Index of the largest value, lowest index on ties (fmnist_models.json "prediction").
size_t argmax(const int8_t* v, size_t n) {
    size_t best = 0;
    for (size_t i = 1; i < n; ++i)
        if (v[i] > v[best]) best = i;
    return best;
}

// A feature map [1][C][H][W] lives in DRAM as HWC (dnn_image.h); the host converts at the link.
std::vector<uint8_t> nchw_to_hwc(const uint8_t* x, const std::vector<int64_t>& chw) {
    const size_t C = size_t(chw[0]), H = size_t(chw[1]), W = size_t(chw[2]);
    std::vector<uint8_t> y(C * H * W);
    for (size_t c = 0; c < C; ++c)
        for (size_t i = 0; i < H * W; ++i) y[i * C + c] = x[c * H * W + i];
    return y;
}
std::vector<uint8_t> hwc_to_nchw(const std::vector<uint8_t>& x, const std::vector<int64_t>& chw) {
    const size_t C = size_t(chw[0]), H = size_t(chw[1]), W = size_t(chw[2]);
    std::vector<uint8_t> y(C * H * W);
    for (size_t c = 0; c < C; ++c)
        for (size_t i = 0; i < H * W; ++i) y[c * H * W + i] = x[i * C + c];
    return y;
}

// Everything the host program prepares before simulating.
struct Prepared {
    const scenario::DnnWorkload* w = nullptr;
    compiler::Graph graph;
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

Origin origin_in(const scenario::DnnWorkload& w, const std::string& field) {
    auto it = w.origins.find(field);
    return it == w.origins.end() ? w.origin : it->second;
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

Prepared prepare(const Scenario& s, const ChipParams& p) {
    Prepared P;
    std::vector<ConfigError> errors;
    if (!s.dnn) {
        errors.push_back(ConfigError{Origin{s.path, 0, 0}, "workload.dnn",
                                     "platform kind spinnaker2_chip needs a workload.dnn section"});
        throw ScenarioError(errors);
    }
    const scenario::DnnWorkload& w = *s.dnn;
    P.w = &w;
    const uint32_t n_pes = p.qpe_count * S2_NOC_PES_PER_QPE;
    auto err = [&](const std::string& field, const std::string& msg) {
        errors.push_back(ConfigError{origin_in(w, field), "workload.dnn." + field, msg});
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
        P.levels = parse_perf_levels(p.perf_levels, n_pes, p.pe.perf_level);
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
        tt.clock_hz = p.pe.clock().hz;
        tt.mla_rows = p.pe.mla.n_rows;
        tt.mla_cols = p.pe.mla.n_cols;
        tt.mla_fetch_bytes_per_cycle = p.pe.mla.fetch_bytes_per_cycle;
        tt.mla_writeback_bytes_per_cycle = p.pe.mla.writeback_bytes_per_cycle;
        tt.mla_startup_cycles = p.pe.mla.startup_cycles;
        P.tiling = compiler::tile_graph(P.graph, tt);
        // layer_workers caps entries of the layer list (graph layers that compute).
        size_t entry = 0;
        for (size_t gi = 0; gi < P.graph.layers.size(); ++gi) {
            const compiler::LayerKind k = P.graph.layers[gi].kind;
            if (k == compiler::LayerKind::input || k == compiler::LayerKind::output ||
                k == compiler::LayerKind::flatten)
                continue;
            if (entry < w.layer_workers.size() && w.layer_workers[entry] != 0) {
                compiler::TilingTarget capped = tt;
                capped.max_workers = static_cast<uint32_t>(
                    std::min<uint64_t>(tt.max_workers, w.layer_workers[entry]));
                P.tiling[gi] = compiler::tile_layer(P.graph.layers[gi], capped);
            }
            ++entry;
        }
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
    if (P.image.bytes.size() > p.dram.size.n / S2_DRAM_IF_COUNT)
        err("model", "the DRAM image (" + std::to_string(P.image.bytes.size()) +
                         " B) does not fit DRAM interface 0 (" +
                         std::to_string(p.dram.size.n / S2_DRAM_IF_COUNT) + " B)");
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

// What the host thread brings back.
struct HostResult {
    std::vector<std::vector<uint8_t>> outputs;  // per completed inference
    std::vector<std::vector<uint8_t>> times;    // the time area after each inference
    sc_core::sc_time image_loaded, first_run;
    sc_core::sc_time host_total;  // sum over inferences: RUN sent .. results read
    s2_dnn_host_status_t status{};
    bool finished = false;  // every inference done and EXIT sent
};

// The host side of the run, on the simulated host link.
class DnnHost : public sc_core::sc_module {
public:
    SC_HAS_PROCESS(DnnHost);
    DnnHost(sc_core::sc_module_name name, Chip& chip, const Prepared& P, HostResult& r,
            energy::Meter& meter)
        : sc_module(name), m_chip(chip), m_P(P), m_r(r), m_meter(meter) {
        SC_THREAD(run);
    }

private:
    s2_dnn_host_status_t status() const {
        s2_dnn_host_status_t st;
        std::memcpy(&st, m_chip.host().buffer() + S2_DNN_HOST_STATUS_OFFSET, sizeof st);
        return st;
    }

    void run() {
        HostLink& link = m_chip.host();
        const compiler::DramImage& img = m_P.image;
        const s2_dnn_global_t& g = *reinterpret_cast<const s2_dnn_global_t*>(img.bytes.data());
        link.write(img.base, img.bytes.data(), img.bytes.size());
        m_r.image_loaded = sc_core::sc_time_stamp();
        m_meter.mark("host", m_r.image_loaded.value());
        const uint64_t count = m_P.w->count;
        for (uint64_t i = 0; i < count; ++i) {
            const sc_core::sc_time t0 = sc_core::sc_time_stamp();
            if (i == 0) m_r.first_run = t0;
            const uint8_t* x = m_P.inputs.data() + i * m_P.input_size;
            const auto& in_hwc = img.tensors.at(img.input_layer).hwc;
            if (in_hwc.size() == 3 && in_hwc[0] > 1) {
                const std::vector<uint8_t> t = nchw_to_hwc(x, in_hwc);
                link.write(g.input_addr, t.data(), t.size());
            } else {
                link.write(g.input_addr, x, m_P.input_size);
            }
            link.signal(m_P.scheduler, S2_DNN_SIG_RUN, S2_DNN_HOST_SOURCE);
            for (;;) {
                m_r.status = status();
                if (m_r.status.status != 0 || m_r.status.runs > i) break;
                sc_core::wait(link.buffer_written());
            }
            if (m_r.status.status != 0) return;  // the scheduler has stopped every core
            std::vector<uint8_t> out(g.output_size), times(g.time_size);
            link.read(g.output_addr, out.data(), out.size());
            link.read(g.time_addr, times.data(), times.size());
            const auto& out_hwc = img.tensors.at(img.output_layer).hwc;
            if (out_hwc.size() == 3 && out_hwc[0] > 1) out = hwc_to_nchw(out, out_hwc);
            m_r.outputs.push_back(std::move(out));
            m_r.times.push_back(std::move(times));
            m_r.host_total += sc_core::sc_time_stamp() - t0;
        }
        link.signal(m_P.scheduler, S2_DNN_SIG_EXIT, S2_DNN_HOST_SOURCE);
        m_r.finished = true;
    }

    Chip& m_chip;
    const Prepared& m_P;
    HostResult& m_r;
    energy::Meter& m_meter;
};

std::string layer_label(const compiler::Layer& l) {
    std::ostringstream o;
    o << to_string(l.kind) << (l.relu ? "+relu" : "");
    if (!l.in_shapes.empty())
        o << " " << compiler::shape_str(l.in_shapes[0]) << "->" << compiler::shape_str(l.out_shape);
    return o.str();
}

}  // namespace

namespace {

// dnn.* metrics: the breakdown of the mean inference (entries by index and by kind), accuracy.
void write_dnn_metrics(trace::Sink& w, const DnnRunSummary& sum, size_t workers) {
    write_metric(w, "dnn.inferences", "1", static_cast<double>(sum.inferences));
    write_metric(w, "dnn.workers", "1", static_cast<double>(workers));
    if (sum.inferences) {
        write_metric(w, "dnn.bit_exact_fraction", "1",
                     double(sum.bit_exact) / double(sum.inferences));
        write_metric(w, "dnn.total_us", "us", sum.total_us);
        write_metric(w, "dnn.host_per_inference_us", "us", sum.host_per_inference_us);
        for (size_t e = 0; e < sum.mean.size(); ++e) {
            const std::string name = e == 0                     ? "setup"
                                     : e + 1 == sum.mean.size() ? "cleanup"
                                                                : "layer" + std::to_string(e - 1);
            write_metric(w, "dnn." + name + "_us", "us", sum.mean[e].us);
            if (e > 0 && e + 1 < sum.mean.size()) {
                write_metric(w, "dnn." + name + "_load_us", "us", sum.mean[e].load_us);
                write_metric(w, "dnn." + name + "_compute_us", "us", sum.mean[e].compute_us);
            }
        }
    }
    write_metric(w, "dnn.image_load_us", "us", sum.image_load_us);
    if (sum.labelled) {
        const double n = static_cast<double>(sum.labelled);
        write_metric(w, "dnn.accuracy_chip", "1", double(sum.correct_chip) / n);
        write_metric(w, "dnn.accuracy_reference", "1", double(sum.correct_reference) / n);
        if (sum.have_float)
            write_metric(w, "dnn.accuracy_float", "1", double(sum.correct_float) / n);
    }
}

}  // namespace

ChipParams resolve_chip_params(const Scenario& s, std::vector<ParamValue>* rows) {
    return resolve_paramset<ChipParams>(
        s,
        [](const ChipParams& p, const OriginOf& origin_of, std::vector<ConfigError>& errors) {
            if (p.pe.sram_size.n % 4096 != 0)
                errors.push_back(ConfigError{origin_of("pe.sram_size"), "pe.sram_size",
                                             "must be a multiple of 4 KiB"});
            try {
                parse_perf_levels(p.perf_levels, p.qpe_count * S2_NOC_PES_PER_QPE, p.pe.perf_level);
            } catch (const std::exception& e) {
                errors.push_back(ConfigError{origin_of("perf_levels"), "perf_levels", e.what()});
            }
        },
        rows);
}

RunResult run_chip_scenario(const Scenario& s, const RunOptions& o, std::ostream& out,
                            std::ostream& err, DnnRunSummary* summary) {
    const auto wall0 = std::chrono::steady_clock::now();
    std::vector<ParamValue> rows;
    const ChipParams p = resolve_chip_params(s, &rows);
    Prepared P = prepare(s, p);
    const scenario::DnnWorkload& w = *P.w;
    const s2_dnn_global_t g = *reinterpret_cast<const s2_dnn_global_t*>(P.image.bytes.data());
    const uint32_t L = g.num_layers;
    const compiler::DecodedImage decoded = compiler::decode_image(P.image.bytes, P.image.base);

    RunResult r;
    if (o.elaborate_only) {
        out << "elaborated " << s.name << ": platform " << s.platform_kind << ", "
            << p.qpe_count * S2_NOC_PES_PER_QPE << " PEs, scheduler pe" << P.scheduler << ", "
            << P.workers.size() << " worker PEs, " << w.count << " inference"
            << (w.count == 1 ? "" : "s") << "\n";
        out << "  model " << w.model << ": " << L << " layers in the list, DRAM image "
            << grouped(P.image.bytes.size()) << " B at " << hex32(P.image.base)
            << ", worker SRAM budget " << grouped(P.sram_budget) << " B\n";
        for (const auto& t : P.tiling)
            if (t.workers) out << "  " << t << "\n";
        r.ok = true;
        return r;
    }

    r.trace_path = trace_path(s, o);
    const auto writer_owner = open_trace(s, o, rows, r.trace_path);
    trace::Hdf5Writer& writer = *writer_owner;

    Chip chip("s2", p, s.seed, &writer, s.trace.console_stdout && !o.quiet);
    chip.pe(P.scheduler).load(*P.sched_elf);
    chip.pe(P.scheduler).set_args({P.image.base});
    for (uint32_t pe : P.workers) {
        chip.pe(pe).load(*P.worker_elf);
        chip.pe(pe).set_args({P.image.base});
    }
    // Energy phases: "image load" (the DRAM image over the host link), then the scheduler's
    // markers: "setup", each layer by name, "cleanup"; "host" between inferences (input, RUN,
    // results back).
    energy::Meter meter;
    add_chip_energy(meter, chip);
    meter.attach(writer);
    chip.pe(P.scheduler).console.on_mark = [&meter, &P](uint32_t v, uint64_t t) {
        const size_t layers = P.image.list_layers.size();
        meter.mark(v == 0                      ? "setup"
                   : v <= layers               ? P.image.list_layers[v - 1]
                   : v == layers + 1           ? "cleanup"
                   : v == S2_CONSOLE_MARK_IDLE ? "host"
                                               : "mark" + std::to_string(v),
                   t);
    };
    meter.start("image load", 0);
    HostResult hr;
    DnnHost host("host_program", chip, P, hr, meter);
    std::vector<size_t> pes{P.scheduler};
    pes.insert(pes.end(), P.workers.begin(), P.workers.end());

    const trace::TableId t_entries = writer.declare_table(DnnEntryRecord_schema());
    const trace::TableId t_workers = writer.declare_table(DnnWorkerRecord_schema());
    writer.start();
    chip.start(pes);
    const sc_core::sc_time max_time(static_cast<double>(p.sim.max_time.ps), sc_core::SC_PS);
    sc_core::sc_start(max_time);
    r.sim_time_us = sc_core::sc_time_stamp().to_seconds() * 1e6;
    finish_energy(meter, writer, sc_core::sc_time_stamp().value());

    // Outcome of the simulation itself.
    std::string problem;
    if (sim_error().set) {
        problem = sim_error().formatted();
    } else if (hr.status.status != 0) {
        std::ostringstream m;
        m << "inference " << hr.outputs.size() << ": pe" << hr.status.pe << " failed in layer "
          << hr.status.layer;
        if (hr.status.layer < decoded.layers.size() && hr.status.layer < P.image.list_layers.size())
            m << " (" << P.image.list_layers[hr.status.layer] << ")";
        m << " with error " << (hr.status.status - S2_DNN_SIG_ERROR_BASE)
          << " (dnn_image.h S2_DNN_ERR_*; see its console line)";
        problem = m.str();
    } else {
        for (size_t pe : pes) {
            problem = core_problem(chip.pe(pe), p.sim.max_time);
            if (!problem.empty()) break;
        }
        if (problem.empty() && !hr.finished)
            problem = "the host program did not finish (simulation ended early)";
    }
    r.sim_error = !problem.empty();

    // Results: bit-exactness, accuracy, times.
    DnnRunSummary sum;
    sum.inferences = hr.outputs.size();
    auto f_of = [&](uint32_t pe) {
        return P.levels[pe] == 0 ? p.pe.pl0_freq.hz : p.pe.pl1_freq.hz;
    };
    const double f_sched = f_of(P.scheduler);
    compiler::ReferenceOptions ro;
    ro.acc_bits = p.pe.mla.acc_bits;
    ro.exp = [](int32_t x, unsigned it) { return ExpAccel::compute(x, it); };
    std::string first_mismatch;
    sum.mean.resize(L + 2);
    sum.mean[0].name = sum.mean[0].kind = "setup";
    sum.mean[L + 1].name = sum.mean[L + 1].kind = "cleanup";
    sum.mean[0].workers = sum.mean[L + 1].workers = static_cast<uint32_t>(P.workers.size());
    for (uint32_t l = 0; l < L; ++l) {
        const compiler::Layer* gl = P.graph.find(P.image.list_layers[l]);
        sum.mean[1 + l].name = P.image.list_layers[l];
        sum.mean[1 + l].kind = gl ? layer_label(*gl) : "?";
        sum.mean[1 + l].workers = decoded.layers[l].header.num_workers;
    }
    for (size_t i = 0; i < hr.outputs.size(); ++i) {
        const std::vector<int8_t> x(
            P.inputs.begin() + static_cast<std::ptrdiff_t>(i * P.input_size),
            P.inputs.begin() + static_cast<std::ptrdiff_t>((i + 1) * P.input_size));
        const auto& chip_out = hr.outputs[i];
        const int8_t* co = reinterpret_cast<const int8_t*>(chip_out.data());
        std::vector<int8_t> ref;
        if (w.check || !P.labels.empty()) {
            const auto all = compiler::run_reference(P.graph, x, ro);
            ref = all.at(P.image.output_layer);
        }
        if (w.check) {
            if (ref.size() == chip_out.size() && std::memcmp(ref.data(), co, ref.size()) == 0) {
                ++sum.bit_exact;
            } else if (first_mismatch.empty()) {
                std::ostringstream m;
                size_t j = 0;
                while (j < ref.size() && j < chip_out.size() && ref[j] == co[j]) ++j;
                m << "inference " << i << " (input " << w.first + i << "): output element " << j
                  << " is " << (j < chip_out.size() ? int(co[j]) : 0) << ", the reference "
                  << (j < ref.size() ? int(ref[j]) : 0);
                first_mismatch = m.str();
            }
        }
        if (!P.labels.empty()) {
            ++sum.labelled;
            const size_t label = P.labels[i];
            sum.correct_chip += argmax(co, chip_out.size()) == label;
            sum.correct_reference += argmax(ref.data(), ref.size()) == label;
            if (!P.float_pred.empty()) {
                sum.have_float = true;
                sum.correct_float += P.float_pred[i] == label;
            }
        }
        // Time area of this inference.
        const auto& t = hr.times[i];
        auto interval = [&](uint32_t addr) {
            s2_dnn_interval_t v;
            std::memcpy(&v, t.data() + (addr - g.time_addr), sizeof v);
            return v;
        };
        for (uint32_t e = 0; e < L + 2; ++e) {
            const s2_dnn_interval_t v = interval(g.time_addr + 8 * e);
            const uint32_t cyc = v.end - v.start;
            sum.mean[e].us += cyc / f_sched * 1e6;
            DnnEntryRecord rec{static_cast<uint64_t>(cyc / f_sched * 1e12),
                               static_cast<uint32_t>(i),
                               e,
                               v.start,
                               v.end,
                               sum.mean[e].workers,
                               0};
            writer.append(t_entries, &rec);
        }
        const s2_dnn_interval_t first = interval(s2_dnn_time_setup(g.time_addr));
        const s2_dnn_interval_t last = interval(s2_dnn_time_cleanup(g.time_addr, L));
        sum.total_us += (last.end - first.start) / f_sched * 1e6;
        for (uint32_t l = 0; l < L; ++l) {
            const uint32_t nw = decoded.layers[l].header.num_workers;
            for (uint32_t k = 0; k < nw; ++k) {
                s2_dnn_worker_time_t wt;
                std::memcpy(&wt,
                            t.data() + (s2_dnn_time_worker(g.time_addr, L, k, l) - g.time_addr),
                            sizeof wt);
                const double f = f_of(P.workers[k]);
                sum.mean[1 + l].worker_us += (wt.end - wt.start) / f * 1e6 / nw;
                sum.mean[1 + l].load_us += wt.load / f * 1e6 / nw;
                sum.mean[1 + l].compute_us += wt.compute / f * 1e6 / nw;
                DnnWorkerRecord rec{static_cast<uint64_t>((wt.end - wt.start) / f * 1e12),
                                    static_cast<uint64_t>(wt.load / f * 1e12),
                                    static_cast<uint64_t>(wt.compute / f * 1e12),
                                    static_cast<uint32_t>(i),
                                    l,
                                    k,
                                    P.workers[k]};
                writer.append(t_workers, &rec);
            }
        }
    }
    if (sum.inferences) {
        const double n = static_cast<double>(sum.inferences);
        for (auto& e : sum.mean) {
            e.us /= n;
            e.worker_us /= n;
            e.load_us /= n;
            e.compute_us /= n;
        }
        sum.total_us /= n;
        sum.host_per_inference_us = hr.host_total.to_seconds() * 1e6 / n;
    }
    sum.image_load_us = hr.image_loaded.to_seconds() * 1e6;
    if (!r.sim_error && w.check && sum.bit_exact != sum.inferences) {
        r.checks_failed = true;
        problem = "check failed: " + std::to_string(sum.inferences - sum.bit_exact) + " of " +
                  std::to_string(sum.inferences) +
                  " outputs differ from the integer reference; first: " + first_mismatch;
    }
    r.ok = problem.empty();
    r.message = problem;
    chip.write_summaries();
    r.wall_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    write_dnn_metrics(writer, sum, P.workers.size());
    // Energy of the inferences themselves (setup to cleanup; not the image load or host phases).
    double inference_j = 0.0;
    for (const auto& row : meter.rows())
        if (row.phase != "image load" && row.phase != "host") inference_j += row.energy_j;
    if (sum.inferences)
        write_metric(writer, "energy.per_inference_uJ", "uJ",
                     inference_j / double(sum.inferences) * 1e6);
    write_run_metrics(writer, r);
    writer.finish(r.ok ? "ok" : "error", problem,
                  static_cast<uint64_t>(sc_core::sc_time_stamp().value()), r.wall_seconds);
    if (summary) *summary = sum;

    if (!problem.empty()) err << "nmsim: error: " << problem << "\n";
    if (o.quiet) return r;
    const auto pct = [](uint64_t a, uint64_t b) {
        return b ? fmt(100.0 * double(a) / double(b), 2) + " %" : "-";
    };
    out << "nmsim " << NMSIM_VERSION << "  scenario " << s.name << "  platform " << s.platform_kind
        << "  seed " << s.seed << "\n";
    out << "  model            " << w.model << "\n";
    out << "  mapping          scheduler pe" << P.scheduler << ", " << P.workers.size()
        << " worker PEs; " << L << " layers; DRAM image " << grouped(P.image.bytes.size())
        << " B; worker SRAM budget " << grouped(P.sram_budget) << " B\n";
    out << "  inferences       " << sum.inferences << " of " << w.count << " (inputs " << w.first
        << ".." << w.first + w.count - 1 << ", batch 1)\n";
    if (w.check)
        out << "  check            "
            << (sum.bit_exact == sum.inferences && sum.inferences ? "PASS " : "FAIL ")
            << sum.bit_exact << "/" << sum.inferences
            << " outputs bit-exact against the integer reference of the quantised graph\n";
    if (sum.labelled)
        out << "  accuracy         "
            << (sum.have_float ? "float " + pct(sum.correct_float, sum.labelled) + "  " : "")
            << "quantised reference " << pct(sum.correct_reference, sum.labelled)
            << "  simulated chip " << pct(sum.correct_chip, sum.labelled) << "  (" << sum.labelled
            << " labelled inputs)\n";
    if (sum.inferences) {
        out << "  runtime per inference (mean of " << sum.inferences << ", scheduler pe"
            << P.scheduler << " at " << fmt(f_sched / 1e6, 0)
            << " MHz; host link excluded as in seed 000)\n";
        for (uint32_t e = 0; e < L + 2; ++e) {
            const DnnEntryTime& m = sum.mean[e];
            std::ostringstream row;
            row << "    " << std::left;
            if (e == 0 || e == L + 1) {
                row << (e == 0 ? "Setup" : "Cleanup");
                std::string pad(std::max<int>(1, 44 - static_cast<int>(row.str().size())), ' ');
                row << pad << fmt(m.us, 1) << " us  (" << m.workers << " workers)";
            } else {
                row << m.name << "  " << m.kind;
                std::string pad(std::max<int>(1, 44 - static_cast<int>(row.str().size())), ' ');
                row << pad << fmt(m.us, 1) << " us  (" << m.workers << " worker"
                    << (m.workers == 1 ? "" : "s") << "; per worker: weight DMA "
                    << fmt(m.load_us, 1) << " us, compute " << fmt(m.compute_us, 1) << " us)";
            }
            out << row.str() << "\n";
        }
        out << "    Total" << std::string(39, ' ') << fmt(sum.total_us, 1) << " us\n";
        if (w.published_us.size() == L + 3) {
            out << "  vs published     "
                << (w.published_source.empty() ? "" : w.published_source + ": ");
            for (uint32_t e = 0; e < L + 3; ++e) {
                const double sim = e < L + 2 ? sum.mean[e].us : sum.total_us;
                const double pub = w.published_us[e];
                out << (e ? ", " : "")
                    << (e == 0       ? "setup "
                        : e == L + 1 ? "cleanup "
                        : e == L + 2 ? "total "
                                     : "")
                    << fmt(pub, 0) << " us"
                    << (pub > 0 ? " (" + std::string(sim >= pub ? "+" : "") +
                                      fmt(100 * (sim - pub) / pub, 1) + " %)"
                                : "");
            }
            out << "\n";
        } else if (!w.published_us.empty()) {
            out << "  vs published     not shown: published_us has " << w.published_us.size()
                << " entries, this run has " << L + 3 << " (setup, " << L
                << " layers, cleanup, total)\n";
        }
        if (L > 0)
            out << "  first layer      " << sum.mean[1].name << ": DRAM weight load "
                << fmt(sum.mean[1].load_us, 1) << " us vs compute "
                << fmt(sum.mean[1].compute_us, 1) << " us per worker (of " << fmt(sum.mean[1].us, 1)
                << " us)\n";
        out << "  host link        DRAM image " << fmt(sum.image_load_us, 1)
            << " us once; per inference " << fmt(sum.host_per_inference_us, 1)
            << " us (input, RUN, results and time area back)\n";
    }
    out << "  simulated time   " << fmt(r.sim_time_us, 3) << " us\n";
    energy::print_breakdown(meter, out);
    if (sum.inferences)
        out << "  per inference    " << fmt(inference_j / double(sum.inferences) * 1e6, 2)
            << " uJ (setup to cleanup, mean of " << sum.inferences
            << "; image load and host phases excluded)\n";
    out << "  trace            " << r.trace_path << "\n";
    const double sim_s = r.sim_time_us * 1e-6;
    out << "  wall time        " << fmt(r.wall_seconds, 3) << " s";
    if (sum.inferences)
        out << "  (" << fmt(r.wall_seconds / double(sum.inferences) * 1e3, 1)
            << " ms per inference";
    if (sim_s > 0)
        out << (sum.inferences ? ", " : "  (") << fmt(r.wall_seconds / sim_s, 0)
            << "x slower than real time)";
    out << "\n";
    out << "  result           " << (r.ok ? "OK" : "FAILED") << "\n";
    return r;
}

}  // namespace spinnaker2
}  // namespace nmsim
