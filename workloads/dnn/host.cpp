#include "workloads/dnn/host.h"

#include <systemc>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>

#include "models/common/sim_error.h"
#include "models/spinnaker2/exp/exp_accel.h"
#include "nmsim/hw/spinnaker2/console_regs.h"
#include "nmsim/hw/spinnaker2/dnn_image.h"
#include "nmsim/hw/spinnaker2/noc_map.h"
#include "nmsim/trace/hdf5_writer.h"
#include "platforms/common/format.h"
#include "platforms/common/run_outputs.h"
#include "platforms/spinnaker2/energy.h"
#include "platforms/spinnaker2/params.h"
#include "tools/compiler/graph_reference.h"
#include "workloads/dnn/tables.h"

namespace nmsim::workloads::dnn {

using run::copy_str;
using run::fmt;

namespace {

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

std::string layer_label(const compiler::Layer& l) {
    std::ostringstream o;
    o << to_string(l.kind) << (l.relu ? "+relu" : "");
    if (!l.in_shapes.empty())
        o << " " << compiler::shape_str(l.in_shapes[0]) << "->" << compiler::shape_str(l.out_shape);
    return o.str();
}

const s2_dnn_global_t& global_of(const compiler::DramImage& img) {
    return *reinterpret_cast<const s2_dnn_global_t*>(img.bytes.data());
}

}  // namespace

// The host side of the run on the simulated host link: writes the DRAM image once, then per
// inference the input, the RUN signal, and reads the output and the time area back.
class DnnHost::Driver : public sc_core::sc_module {
public:
    SC_HAS_PROCESS(Driver);
    Driver(sc_core::sc_module_name name, spinnaker2::Chip& chip, const Compiled& c, uint64_t count,
           HostResult& r, energy::Meter& meter)
        : sc_module(name), m_chip(chip), m_c(c), m_count(count), m_r(r), m_meter(meter) {
        SC_THREAD(run);
    }

private:
    s2_dnn_host_status_t status() const {
        s2_dnn_host_status_t st;
        std::memcpy(&st, m_chip.host().buffer() + S2_DNN_HOST_STATUS_OFFSET, sizeof st);
        return st;
    }

    void run() {
        spinnaker2::HostLink& link = m_chip.host();
        const compiler::DramImage& img = m_c.image;
        const s2_dnn_global_t& g = global_of(img);
        link.write(img.base, img.bytes.data(), img.bytes.size());
        m_r.image_loaded_ps = sc_core::sc_time_stamp().value();
        m_meter.mark("host", m_r.image_loaded_ps);
        for (uint64_t i = 0; i < m_count; ++i) {
            const sc_core::sc_time t0 = sc_core::sc_time_stamp();
            const uint8_t* x = m_c.inputs.data() + i * m_c.input_size;
            const auto& in_hwc = img.tensors.at(img.input_layer).hwc;
            if (in_hwc.size() == 3 && in_hwc[0] > 1) {
                const std::vector<uint8_t> t = nchw_to_hwc(x, in_hwc);
                link.write(g.input_addr, t.data(), t.size());
            } else {
                link.write(g.input_addr, x, m_c.input_size);
            }
            link.signal(m_c.scheduler, S2_DNN_SIG_RUN, S2_DNN_HOST_SOURCE);
            s2_dnn_host_status_t st;
            for (;;) {
                st = status();
                if (st.status != 0 || st.runs > i) break;
                sc_core::wait(link.buffer_written());
            }
            if (st.status != 0) {  // the scheduler has stopped every core
                m_r.status = st.status;
                m_r.status_pe = st.pe;
                m_r.status_layer = st.layer;
                return;
            }
            std::vector<uint8_t> out(g.output_size), times(g.time_size);
            link.read(g.output_addr, out.data(), out.size());
            link.read(g.time_addr, times.data(), times.size());
            const auto& out_hwc = img.tensors.at(img.output_layer).hwc;
            if (out_hwc.size() == 3 && out_hwc[0] > 1) out = hwc_to_nchw(out, out_hwc);
            m_r.outputs.push_back(std::move(out));
            m_r.times.push_back(std::move(times));
            m_r.host_ps.push_back((sc_core::sc_time_stamp() - t0).value());
        }
        link.signal(m_c.scheduler, S2_DNN_SIG_EXIT, S2_DNN_HOST_SOURCE);
        m_r.finished = true;
    }

    spinnaker2::Chip& m_chip;
    const Compiled& m_c;
    uint64_t m_count;
    HostResult& m_r;
    energy::Meter& m_meter;
};

DnnHost::DnnHost() = default;
DnnHost::~DnnHost() = default;

void DnnHost::prepare(run::RunContext& ctx) {
    m_w = &ctx.scenario.workload.as<DnnWorkload>();
    m_p = spinnaker2::resolve_chip_params(ctx.scenario, &ctx.params);
    m_c = compile(*m_w, m_p);
}

double DnnHost::clock_hz(uint32_t pe) const {
    return m_c.levels[pe] == 0 ? m_p.pe.pl0_freq.hz : m_p.pe.pl1_freq.hz;
}

void DnnHost::load(run::RunContext& ctx) {
    m_chip = std::make_unique<spinnaker2::Chip>("s2", m_p, ctx.scenario.seed, ctx.trace,
                                                ctx.console_echo());
    m_chip->pe(m_c.scheduler).load(*m_c.sched_elf);
    m_chip->pe(m_c.scheduler).set_args({m_c.image.base});
    for (uint32_t pe : m_c.workers) {
        m_chip->pe(pe).load(*m_c.worker_elf);
        m_chip->pe(pe).set_args({m_c.image.base});
    }
    // Energy phases: "image load" (the DRAM image over the host link), then the scheduler's
    // markers: "setup", each layer by name, "cleanup"; "host" between inferences (input, RUN,
    // results back).
    spinnaker2::add_chip_energy(m_meter, *m_chip);
    m_meter.attach(*ctx.trace);
    m_chip->pe(m_c.scheduler).console.on_mark = [this](uint32_t v, uint64_t t) {
        const size_t layers = m_c.image.list_layers.size();
        m_meter.mark(v == 0                      ? "setup"
                     : v <= layers               ? m_c.image.list_layers[v - 1]
                     : v == layers + 1           ? "cleanup"
                     : v == S2_CONSOLE_MARK_IDLE ? "host"
                                                 : "mark" + std::to_string(v),
                     t);
    };
    m_meter.start("image load", 0);
    m_driver = std::make_unique<Driver>("host_program", *m_chip, m_c, m_w->count, m_hr, m_meter);
    m_pes = {m_c.scheduler};
    m_pes.insert(m_pes.end(), m_c.workers.begin(), m_c.workers.end());
    ctx.trace->declare_table(EntryRecord_schema());
    ctx.trace->declare_table(WorkerRecord_schema());
    ctx.trace->declare_table(LayerRecord_schema());
    ctx.trace->declare_table(InferenceRecord_schema());
    ctx.trace->declare_table(OutputRecord_schema());

    // The layer list (names and kinds as every report uses them).
    const uint32_t L = global_of(m_c.image).num_layers;
    const compiler::DecodedImage decoded = compiler::decode_image(m_c.image.bytes, m_c.image.base);
    m_sum.mean.resize(L + 2);
    m_sum.mean[0].name = m_sum.mean[0].kind = "setup";
    m_sum.mean[L + 1].name = m_sum.mean[L + 1].kind = "cleanup";
    m_sum.mean[0].workers = m_sum.mean[L + 1].workers = static_cast<uint32_t>(m_c.workers.size());
    for (uint32_t l = 0; l < L; ++l) {
        const compiler::Layer* gl = m_c.graph.find(m_c.image.list_layers[l]);
        m_sum.mean[1 + l].name = m_c.image.list_layers[l];
        m_sum.mean[1 + l].kind = gl ? layer_label(*gl) : "?";
        m_sum.mean[1 + l].workers = decoded.layers[l].header.num_workers;
    }
}

void DnnHost::begin(run::RunContext& ctx) {
    const trace::TableId t = ctx.trace->declare_table(LayerRecord_schema());
    for (size_t e = 0; e < m_sum.mean.size(); ++e) {
        LayerRecord rec{};
        rec.entry = static_cast<uint32_t>(e);
        rec.workers = m_sum.mean[e].workers;
        copy_str(rec.name, sizeof rec.name, m_sum.mean[e].name);
        copy_str(rec.kind, sizeof rec.kind, m_sum.mean[e].kind);
        ctx.trace->append(t, &rec);
    }
    m_chip->start(m_pes);
}

run::Progress DnnHost::progress() const { return {m_hr.outputs.size(), m_w->count, "inferences"}; }

void DnnHost::collect(run::RunContext& ctx) {
    run::finish_energy(m_meter, *ctx.trace, sc_core::sc_time_stamp().value());
    if (sim_error().set) {
        ctx.sim_failed(sim_error().formatted());
    } else if (m_hr.status != 0) {
        std::ostringstream m;
        m << "inference " << m_hr.outputs.size() << ": pe" << m_hr.status_pe << " failed in layer "
          << m_hr.status_layer;
        if (m_hr.status_layer < m_c.image.list_layers.size())
            m << " (" << m_c.image.list_layers[m_hr.status_layer] << ")";
        m << " with error " << (m_hr.status - S2_DNN_SIG_ERROR_BASE)
          << " (dnn_image.h S2_DNN_ERR_*; see its console line)";
        ctx.sim_failed(m.str());
    } else {
        std::string problem;
        for (size_t pe : m_pes) {
            problem = spinnaker2::core_problem(m_chip->pe(pe), m_p.sim.max_time);
            if (!problem.empty()) break;
        }
        if (problem.empty() && !m_hr.finished)
            problem = "the host program did not finish (simulation ended early)";
        if (!problem.empty()) ctx.sim_failed(problem);
    }
    m_sum.inferences = m_hr.outputs.size();
    read_times(ctx);
    m_chip->write_summaries();
    // Energy of the inferences themselves (setup to cleanup; not the image load or host phases).
    double inference_j = 0.0;
    for (const auto& row : m_meter.rows())
        if (row.phase != "image load" && row.phase != "host") inference_j += row.energy_j;
    if (m_sum.inferences) m_sum.inference_energy_uj = inference_j / double(m_sum.inferences) * 1e6;
}

// The time area of every inference: the scheduler's entries and the workers' records, as trace
// rows and as means.
void DnnHost::read_times(run::RunContext& ctx) {
    const s2_dnn_global_t& g = global_of(m_c.image);
    const uint32_t L = g.num_layers;
    const compiler::DecodedImage decoded = compiler::decode_image(m_c.image.bytes, m_c.image.base);
    const trace::TableId t_entries = ctx.trace->declare_table(EntryRecord_schema());
    const trace::TableId t_workers = ctx.trace->declare_table(WorkerRecord_schema());
    const double f_sched = clock_hz(m_c.scheduler);
    for (size_t i = 0; i < m_hr.times.size(); ++i) {
        const auto& t = m_hr.times[i];
        auto interval = [&](uint32_t addr) {
            s2_dnn_interval_t v;
            std::memcpy(&v, t.data() + (addr - g.time_addr), sizeof v);
            return v;
        };
        for (uint32_t e = 0; e < L + 2; ++e) {
            const s2_dnn_interval_t v = interval(g.time_addr + 8 * e);
            const uint32_t cyc = v.end - v.start;
            m_sum.mean[e].us += cyc / f_sched * 1e6;
            EntryRecord rec{static_cast<uint64_t>(cyc / f_sched * 1e12),
                            static_cast<uint32_t>(i),
                            e,
                            v.start,
                            v.end,
                            m_sum.mean[e].workers,
                            0};
            ctx.trace->append(t_entries, &rec);
        }
        const s2_dnn_interval_t first = interval(s2_dnn_time_setup(g.time_addr));
        const s2_dnn_interval_t last = interval(s2_dnn_time_cleanup(g.time_addr, L));
        m_sum.total_us += (last.end - first.start) / f_sched * 1e6;
        for (uint32_t l = 0; l < L; ++l) {
            const uint32_t nw = decoded.layers[l].header.num_workers;
            for (uint32_t k = 0; k < nw; ++k) {
                s2_dnn_worker_time_t wt;
                std::memcpy(&wt,
                            t.data() + (s2_dnn_time_worker(g.time_addr, L, k, l) - g.time_addr),
                            sizeof wt);
                const double f = clock_hz(m_c.workers[k]);
                m_sum.mean[1 + l].worker_us += (wt.end - wt.start) / f * 1e6 / nw;
                m_sum.mean[1 + l].load_us += wt.load / f * 1e6 / nw;
                m_sum.mean[1 + l].compute_us += wt.compute / f * 1e6 / nw;
                WorkerRecord rec{static_cast<uint64_t>((wt.end - wt.start) / f * 1e12),
                                 static_cast<uint64_t>(wt.load / f * 1e12),
                                 static_cast<uint64_t>(wt.compute / f * 1e12),
                                 static_cast<uint32_t>(i),
                                 l,
                                 k,
                                 m_c.workers[k]};
                ctx.trace->append(t_workers, &rec);
            }
        }
    }
    if (m_sum.inferences) {
        const double n = static_cast<double>(m_sum.inferences);
        for (auto& e : m_sum.mean) {
            e.us /= n;
            e.worker_us /= n;
            e.load_us /= n;
            e.compute_us /= n;
        }
        m_sum.total_us /= n;
        uint64_t host_ps = 0;
        for (uint64_t ps : m_hr.host_ps) host_ps += ps;
        m_sum.host_per_inference_us = static_cast<double>(host_ps) * 1e-6 / n;
    }
    m_sum.image_load_us = static_cast<double>(m_hr.image_loaded_ps) * 1e-6;
}

// Every output against the integer reference (the chip's arithmetic: the check) and against ONNX
// semantics (counted, not checked); accuracy; the dnn/outputs and dnn/inferences tables.
void DnnHost::check(run::RunContext& ctx) {
    const s2_dnn_global_t& g = global_of(m_c.image);
    const uint32_t L = g.num_layers;
    const double f_sched = clock_hz(m_c.scheduler);
    compiler::ReferenceOptions ro;
    ro.acc_bits = m_p.pe.mla.acc_bits;
    ro.exp = [](int32_t x, unsigned it) { return spinnaker2::ExpAccel::compute(x, it); };
    const compiler::ReferenceOptions onnx = compiler::ReferenceOptions::onnx();
    const trace::TableId t_inf = ctx.trace->declare_table(InferenceRecord_schema());
    const trace::TableId t_out = ctx.trace->declare_table(OutputRecord_schema());
    // The references of every inference share the layers' prepared weights.
    compiler::GraphReference graph_ref(m_c.graph);
    for (size_t i = 0; i < m_hr.outputs.size(); ++i) {
        const std::vector<int8_t> x(
            m_c.inputs.begin() + static_cast<std::ptrdiff_t>(i * m_c.input_size),
            m_c.inputs.begin() + static_cast<std::ptrdiff_t>((i + 1) * m_c.input_size));
        const auto& chip_out = m_hr.outputs[i];
        const int8_t* co = reinterpret_cast<const int8_t*>(chip_out.data());
        std::vector<int8_t> ref, ox;
        if (m_w->check || !m_c.labels.empty())
            ref = graph_ref.run(x, ro).at(m_c.image.output_layer);
        if (m_w->check) ox = graph_ref.run(x, onnx).at(m_c.image.output_layer);

        InferenceRecord rec{};
        rec.inference = static_cast<uint32_t>(i);
        rec.input = static_cast<uint32_t>(m_w->first + i);
        rec.check = 2;
        rec.label = rec.float_predicted = -1;
        rec.predicted = static_cast<int16_t>(argmax(co, chip_out.size()));
        rec.reference_predicted =
            ref.empty() ? int16_t{-1} : static_cast<int16_t>(argmax(ref.data(), ref.size()));
        if (m_w->check) {
            size_t j = 0;
            while (j < ref.size() && j < chip_out.size() && ref[j] == co[j]) ++j;
            for (size_t k = 0; k < chip_out.size(); ++k) {
                rec.mismatches += k >= ref.size() || ref[k] != co[k];
                const int d = k < ox.size() ? std::abs(int(co[k]) - int(ox[k])) : 256;
                rec.onnx_mismatches += d != 0;
                rec.onnx_max_lsb = std::max<uint32_t>(rec.onnx_max_lsb, static_cast<uint32_t>(d));
            }
            const bool exact = ref.size() == chip_out.size() && rec.mismatches == 0;
            rec.check = exact ? 1 : 0;
            if (exact) {
                ++m_sum.bit_exact;
            } else if (m_first_mismatch.empty()) {
                std::ostringstream m;
                m << "inference " << i << " (input " << m_w->first + i << "): output element " << j
                  << " is " << (j < chip_out.size() ? int(co[j]) : 0) << ", the reference "
                  << (j < ref.size() ? int(ref[j]) : 0);
                m_first_mismatch = m.str();
            }
            m_sum.onnx_elements += chip_out.size();
            m_sum.onnx_mismatches += rec.onnx_mismatches;
            m_sum.onnx_max_lsb = std::max<uint64_t>(m_sum.onnx_max_lsb, rec.onnx_max_lsb);
            m_sum.onnx_inferences_differing += rec.onnx_mismatches != 0;
        }
        if (!m_c.labels.empty()) {
            ++m_sum.labelled;
            const size_t label = m_c.labels[i];
            rec.label = static_cast<int16_t>(label);
            m_sum.correct_chip += size_t(rec.predicted) == label;
            m_sum.correct_reference += argmax(ref.data(), ref.size()) == label;
            if (!m_c.float_pred.empty()) {
                m_sum.have_float = true;
                rec.float_predicted = static_cast<int16_t>(m_c.float_pred[i]);
                m_sum.correct_float += m_c.float_pred[i] == label;
            }
        }
        // The scheduler's total for this inference (as the report's Total) and the host time.
        const auto& t = m_hr.times[i];
        s2_dnn_interval_t first, last;
        std::memcpy(&first, t.data() + (s2_dnn_time_setup(g.time_addr) - g.time_addr),
                    sizeof first);
        std::memcpy(&last, t.data() + (s2_dnn_time_cleanup(g.time_addr, L) - g.time_addr),
                    sizeof last);
        rec.total_ps =
            static_cast<uint64_t>(std::llround((last.end - first.start) / f_sched * 1e12));
        rec.host_ps = m_hr.host_ps[i];
        ctx.trace->append(t_inf, &rec);
        for (size_t k = 0; k < chip_out.size(); ++k) {
            OutputRecord o{};
            o.inference = static_cast<uint32_t>(i);
            o.element = static_cast<uint32_t>(k);
            o.chip = co[k];
            o.reference = k < ref.size() ? ref[k] : 0;
            o.onnx = k < ox.size() ? ox[k] : 0;
            ctx.trace->append(t_out, &o);
        }
    }
    if (!ctx.result.sim_error && m_w->check && m_sum.bit_exact != m_sum.inferences)
        ctx.check_failed("check failed: " + std::to_string(m_sum.inferences - m_sum.bit_exact) +
                         " of " + std::to_string(m_sum.inferences) +
                         " outputs differ from the integer reference; first: " + m_first_mismatch);
}

// dnn.* metrics: the breakdown of the mean inference (entries by index), accuracy, ONNX
// differences, energy per inference.
void DnnHost::write_metrics(run::RunContext& ctx) {
    trace::Sink& w = *ctx.trace;
    const DnnRunSummary& sum = m_sum;
    run::write_metric(w, "dnn.inferences", "1", static_cast<double>(sum.inferences));
    run::write_metric(w, "dnn.workers", "1", static_cast<double>(m_c.workers.size()));
    if (sum.inferences) {
        run::write_metric(w, "dnn.bit_exact_fraction", "1",
                          double(sum.bit_exact) / double(sum.inferences));
        run::write_metric(w, "dnn.total_us", "us", sum.total_us);
        run::write_metric(w, "dnn.host_per_inference_us", "us", sum.host_per_inference_us);
        for (size_t e = 0; e < sum.mean.size(); ++e) {
            const std::string name = e == 0                     ? "setup"
                                     : e + 1 == sum.mean.size() ? "cleanup"
                                                                : "layer" + std::to_string(e - 1);
            run::write_metric(w, "dnn." + name + "_us", "us", sum.mean[e].us);
            if (e > 0 && e + 1 < sum.mean.size()) {
                run::write_metric(w, "dnn." + name + "_load_us", "us", sum.mean[e].load_us);
                run::write_metric(w, "dnn." + name + "_compute_us", "us", sum.mean[e].compute_us);
            }
        }
        if (m_w->check) {
            run::write_metric(w, "dnn.onnx_mismatches", "1", double(sum.onnx_mismatches));
            run::write_metric(w, "dnn.onnx_max_lsb", "1", double(sum.onnx_max_lsb));
        }
    }
    run::write_metric(w, "dnn.image_load_us", "us", sum.image_load_us);
    if (sum.labelled) {
        const double n = static_cast<double>(sum.labelled);
        run::write_metric(w, "dnn.accuracy_chip", "1", double(sum.correct_chip) / n);
        run::write_metric(w, "dnn.accuracy_reference", "1", double(sum.correct_reference) / n);
        if (sum.have_float)
            run::write_metric(w, "dnn.accuracy_float", "1", double(sum.correct_float) / n);
    }
    if (sum.inferences)
        run::write_metric(w, "energy.per_inference_uJ", "uJ", sum.inference_energy_uj);
}

std::string DnnHost::wall_note(const run::RunResult& r) const {
    if (!m_sum.inferences) return HostProgram::wall_note(r);
    const double sim_s = r.sim_time_us * 1e-6;
    std::string s =
        "(" + fmt(r.wall_seconds / double(m_sum.inferences) * 1e3, 1) + " ms per inference";
    if (sim_s > 0) s += ", " + fmt(r.wall_seconds / sim_s, 0) + "x slower than real time";
    return s + ")";
}

}  // namespace nmsim::workloads::dnn
