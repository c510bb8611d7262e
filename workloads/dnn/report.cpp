// The dnn workload's report: mapping, check (and the ONNX comparison), accuracy, the runtime per
// inference as seed 000 Table II, the host link, energy.
#include <algorithm>
#include <sstream>

#include "nmsim/hw/spinnaker2/dnn_image.h"
#include "nmsim/hw/spinnaker2/noc_map.h"
#include "platforms/common/format.h"
#include "workloads/dnn/host.h"

namespace nmsim::workloads::dnn {

using run::fmt;
using run::grouped;
using run::hex32;

void DnnHost::elaboration(const run::RunContext& ctx, std::ostream& out) const {
    const scenario::Scenario& s = ctx.scenario;
    const uint32_t L = reinterpret_cast<const s2_dnn_global_t*>(m_c.image.bytes.data())->num_layers;
    out << "elaborated " << s.name << ": platform " << s.platform_kind << ", "
        << m_p.qpe_count * S2_NOC_PES_PER_QPE << " PEs, scheduler pe" << m_c.scheduler << ", "
        << m_c.workers.size() << " worker PEs, " << m_w->count << " inference"
        << (m_w->count == 1 ? "" : "s") << "\n";
    out << "  model " << m_w->model << ": " << L << " layers in the list, DRAM image "
        << grouped(m_c.image.bytes.size()) << " B at " << hex32(m_c.image.base)
        << ", worker SRAM budget " << grouped(m_c.sram_budget) << " B\n";
    for (const auto& t : m_c.tiling)
        if (t.workers) out << "  " << t << "\n";
}

void DnnHost::report(const run::RunContext& ctx, std::ostream& out) const {
    const DnnWorkload& w = *m_w;
    const DnnRunSummary& sum = m_sum;
    const uint32_t L = static_cast<uint32_t>(sum.mean.size()) - 2;
    const auto pct = [](uint64_t a, uint64_t b) {
        return b ? fmt(100.0 * double(a) / double(b), 2) + " %" : "-";
    };
    out << "  model            " << w.model << "\n";
    out << "  mapping          scheduler pe" << m_c.scheduler << ", " << m_c.workers.size()
        << " worker PEs; " << L << " layers; DRAM image " << grouped(m_c.image.bytes.size())
        << " B; worker SRAM budget " << grouped(m_c.sram_budget) << " B\n";
    out << "  inferences       " << sum.inferences << " of " << w.count << " (inputs " << w.first
        << ".." << w.first + w.count - 1 << ", batch 1)\n";
    if (w.check) {
        out << "  check            "
            << (sum.bit_exact == sum.inferences && sum.inferences ? "PASS " : "FAIL ")
            << sum.bit_exact << "/" << sum.inferences
            << " outputs bit-exact against the integer reference (the chip's arithmetic: "
               "requantisation rounds half up)\n";
        out << "  vs ONNX          ";
        if (sum.onnx_mismatches == 0)
            out << "all " << grouped(sum.onnx_elements)
                << " output values equal ONNX semantics (QuantizeLinear rounds half to even)\n";
        else
            out << grouped(sum.onnx_mismatches) << " of " << grouped(sum.onnx_elements)
                << " output values (in " << sum.onnx_inferences_differing << " of "
                << sum.inferences << " inferences) differ from ONNX semantics (round half to "
                << "even) by at most " << sum.onnx_max_lsb << " LSB\n";
    }
    if (sum.labelled)
        out << "  accuracy         "
            << (sum.have_float ? "float " + pct(sum.correct_float, sum.labelled) + "  " : "")
            << "quantised reference " << pct(sum.correct_reference, sum.labelled)
            << "  simulated chip " << pct(sum.correct_chip, sum.labelled) << "  (" << sum.labelled
            << " labelled inputs)\n";
    if (sum.inferences) {
        out << "  runtime per inference (mean of " << sum.inferences << ", scheduler pe"
            << m_c.scheduler << " at " << fmt(clock_hz(m_c.scheduler) / 1e6, 0)
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
    out << "  simulated time   " << fmt(ctx.result.sim_time_us, 3) << " us\n";
    energy::print_breakdown(m_meter, out);
    if (sum.inferences)
        out << "  per inference    " << fmt(sum.inference_energy_uj, 2)
            << " uJ (setup to cleanup, mean of " << sum.inferences
            << "; image load and host phases excluded)\n";
}

void explain(const Compiled& c, std::ostream& out, bool csv) {
    const auto us = [](double s) { return fmt(s * 1e6, 2); };
    if (csv)
        out << "layer,kind,workers,tile_n,parts,part_n,bytes_per_worker,est_us,scheduler_us,"
               "config_us,dma_in_us,dma_weights_us,compute_us,dma_out_us,parts_us,setup_us,"
               "dma_transfers,word_stores,split,candidates_us\n";
    else
        out << "tiling of " << c.graph.source << " for " << c.workers.size()
            << " worker PEs, SRAM budget " << grouped(c.sram_budget) << " B, PE clock "
            << fmt(c.target.clock_hz / 1e6, 0) << " MHz; estimates per layer (us)\n";
    double total = 0;
    for (size_t i = 0; i < c.graph.layers.size(); ++i) {
        const compiler::Layer& l = c.graph.layers[i];
        const compiler::LayerTiling& t = c.tiling[i];
        if (t.workers == 0 || l.kind == compiler::LayerKind::flatten) continue;
        const compiler::LayerCost& k = t.cost;
        total += t.est_cost;
        std::ostringstream cand;
        for (size_t w = 0; w < t.candidates.size(); ++w)
            if (t.candidates[w] > 0)
                cand << (cand.tellp() > 0 ? (csv ? ";" : ", ") : "") << w + 1 << (csv ? ":" : " ")
                     << us(t.candidates[w]);
        if (csv) {
            out << l.name << "," << compiler::to_string(l.kind) << "," << t.workers << ","
                << t.tile_n << "," << t.parts << "," << t.part_n << "," << t.bytes_per_worker << ","
                << us(t.est_cost) << "," << us(k.scheduler) << "," << us(k.config) << ","
                << us(k.dma_in) << "," << us(k.dma_weights) << "," << us(k.compute) << ","
                << us(k.dma_out) << "," << us(k.parts) << "," << us(k.setup) << ","
                << k.dma_transfers << "," << k.word_stores << ","
                << (t.split_rows ? "rows" : "outputs") << "," << cand.str() << "\n";
            continue;
        }
        out << "  " << l.name << " (" << compiler::to_string(l.kind) << " "
            << compiler::shape_str(l.out_shape) << "): " << t.workers << " worker"
            << (t.workers == 1 ? "" : "s") << " x " << t.tile_n
            << (t.split_rows ? " output rows (all channels), "
                             : " outputs (padding " + std::to_string(t.padded_outputs) + "), ")
            << t.parts << " part" << (t.parts == 1 ? "" : "s") << " of " << t.part_n
            << (t.split_rows ? " rows, " : ", ") << grouped(t.bytes_per_worker)
            << " B SRAM per worker\n";
        out << "    estimate " << us(t.est_cost) << " = scheduler " << us(k.scheduler)
            << " + configuration " << us(k.config) << " + DMA in " << us(k.dma_in)
            << " + DMA weights " << us(k.dma_weights) << " + "
            << (l.kind == compiler::LayerKind::linear || l.kind == compiler::LayerKind::conv2d
                    ? "MLA "
                    : "core ")
            << us(k.compute) << " + DMA out " << us(k.dma_out) << " + parts " << us(k.parts)
            << (k.setup > 0 ? " + workers' SETUP " + us(k.setup) : std::string())
            << "; slowest worker: " << k.dma_transfers << " DMA transfers, " << k.word_stores
            << " word stores\n";
        if (!cand.str().empty()) out << "    by worker count " << cand.str() << "\n";
        out << "    why: " << t.why << "\n";
    }
    if (!csv) out << "  total estimate " << us(total) << " us (setup and cleanup excluded)\n";
}

}  // namespace nmsim::workloads::dnn
