// A hagen-mode product on simulated chips (hagen_executor.h).
#define SC_INCLUDE_DYNAMIC_PROCESSES  // sc_spawn: one host thread per chip
#include "platforms/brainscales2/hagen_executor.h"

#include <algorithm>
#include <string>

#include "nmsim/hw/brainscales2/playback.h"

namespace nmsim::bss2 {

namespace hg = compiler::bss2::hagen;

namespace {

std::vector<uint64_t> config_program(const std::vector<hg::ConfigWord>& words) {
    std::vector<uint64_t> p;
    p.reserve(words.size() + 1);
    for (const auto& [a, d] : words) p.push_back(bss2_pb_write(a, d));
    p.push_back(bss2_pb_make(BSS2_PB_HALT, 0));
    return p;
}

// Waits `seconds` of host work in the calling thread; returns the time in ps.
uint64_t host_wait(double seconds) {
    const uint64_t ps = static_cast<uint64_t>(seconds * 1e12 + 0.5);
    if (ps) sc_core::wait(sc_core::sc_time(static_cast<double>(ps), sc_core::SC_PS));
    return ps;
}

// Encodes `program` (host time), executes it, decodes the responses (host time).
std::vector<uint64_t> run_on(Fpga& fpga, const std::vector<uint64_t>& program,
                             const HagenHostParams& hp, ExecutionTiming& et, HagenTimes& t) {
    HagenHostWork enc;
    count_program(program, enc);
    t.host_encode_ps += host_wait(host_time(enc, hp).encode_s);
    std::vector<uint64_t> rsp = fpga.execute(program, &et);
    HagenHostWork dec;
    count_responses(rsp, dec);
    t.host_decode_ps += host_wait(host_time(dec, hp).decode_s);
    return rsp;
}

// Vectors per playback program so that a program stays within `max_words` instructions (the
// FPGA's program memory; the synapse rewrite of the v1 workaround makes programs large).
uint32_t batch_chunk(const std::vector<hg::Tile>& group, uint32_t batch,
                     const hg::VectorTiming& timing, uint64_t max_words) {
    uint64_t per_vector = 16;  // timer, trigger, waits, run markers
    for (const hg::Tile& t : group) {
        const uint64_t quads = (t.cols + 3u) / 4u;
        per_vector += (timing.baseline ? 4 : 2) * quads;        // resets and reads
        per_vector += uint64_t{2} * t.rows * timing.num_sends;  // wait + spikes per event
        if (timing.rewrite_synapses) per_vector += uint64_t{2} * t.rows * t.cols;
    }
    return static_cast<uint32_t>(std::clamp<uint64_t>(max_words / per_vector, 1, batch));
}

void add(HagenTimes* t, const ExecutionTiming& e, bool config) {
    if (!t) return;
    t->transfer_ps += e.host_to_fpga_ps + e.readback_ps;
    const uint64_t on_fpga = e.config_ps + e.realtime_ps + e.between_ps;
    if (config) {
        t->config_ps += on_fpga;
    } else {
        t->realtime_ps += e.realtime_ps;
        t->other_ps += on_fpga - e.realtime_ps;
    }
    t->total_ps += e.total_ps;
    ++t->executions;
}

}  // namespace

hg::IntMatrix HagenExecutor::matmul(const hg::IntMatrix& x, const hg::IntMatrix& w,
                                    const hg::MatmulPlan& plan, const hg::VectorTiming& timing,
                                    HagenTimes* times) {
    if (plan.chips > m_chips.size())
        throw hg::OperatorError(plan.op + ": the plan uses " + std::to_string(plan.chips) +
                                " chips, " + std::to_string(m_chips.size()) + " are simulated");
    if (x.cols != plan.in_features || w.rows != plan.in_features || w.cols != plan.out_features)
        throw hg::OperatorError(plan.op + ": operand shapes do not match the plan");
    hg::check_inputs(x, plan.op);
    hg::check_weights(w, plan.op);
    std::vector<int64_t> acc(size_t{x.rows} * w.cols, 0);
    const uint64_t t_start = sc_core::sc_time_stamp().value();
    // Pre-processing: the operands to the chip's formats.
    HagenHostWork pre;
    pre.inputs = uint64_t{x.rows} * x.cols;
    pre.weights = uint64_t{w.rows} * w.cols;
    const uint64_t pre_ps = host_wait(host_time(pre, m_host).preprocess_s);
    if (times) times->host_preprocess_ps += pre_ps;
    // One host thread per chip and pass: the chips' FPGAs, links and analog cores work
    // concurrently; the host adds a chip's partial results when its thread is done.
    struct ChipWork {
        std::vector<const hg::Tile*> tiles;
        std::vector<hg::IntMatrix> results;
        HagenTimes times;
    };
    for (uint32_t pass = 0; pass < plan.passes; ++pass) {
        std::vector<ChipWork> work(plan.chips);
        for (const hg::Tile& t : plan.tiles)
            if (t.pass == pass) work[t.chip].tiles.push_back(&t);
        std::vector<sc_core::sc_process_handle> threads;
        for (uint32_t c = 0; c < plan.chips; ++c) {
            if (work[c].tiles.empty()) continue;
            ChipWork* cw = &work[c];
            Fpga* fpga = &m_chips[c]->fpga();
            const HagenHostParams* hp = &m_host;
            const uint64_t max_words = m_max_program_words;
            threads.push_back(sc_core::sc_spawn([cw, fpga, hp, &x, &w, &timing, max_words] {
                std::vector<hg::ConfigWord> words;
                for (const hg::Tile* t : cw->tiles) {
                    const std::vector<hg::ConfigWord> tw = hg::tile_config(*t, w);
                    words.insert(words.end(), tw.begin(), tw.end());
                }
                ExecutionTiming et;
                (void)run_on(*fpga, config_program(words), *hp, et, cw->times);
                add(&cw->times, et, true);
                // Both halves' tiles in one program per chunk of the batch.
                std::vector<hg::Tile> group;
                for (const hg::Tile* t : cw->tiles) group.push_back(*t);
                for (const hg::Tile& t : group) cw->results.emplace_back(x.rows, t.cols);
                const uint32_t chunk = batch_chunk(group, x.rows, timing, max_words);
                for (uint32_t b0 = 0; b0 < x.rows; b0 += chunk) {
                    const hg::IntMatrix xs = x.slice_rows(b0, std::min(chunk, x.rows - b0));
                    const std::vector<uint64_t> rsp =
                        run_on(*fpga, hg::tile_program(group, xs, w, timing), *hp, et, cw->times);
                    add(&cw->times, et, false);
                    const std::vector<hg::IntMatrix> ys =
                        hg::tile_results(group, xs.rows, rsp, timing);
                    for (size_t k = 0; k < group.size(); ++k) cw->results[k].set_rows(b0, ys[k]);
                }
                cw->times.vectors += uint64_t{x.rows} * group.size();
            }));
        }
        for (sc_core::sc_process_handle& h : threads)
            if (!h.terminated()) sc_core::wait(h.terminated_event());
        for (const ChipWork& cw : work) {
            for (size_t k = 0; k < cw.tiles.size(); ++k) {
                const hg::Tile& t = *cw.tiles[k];
                for (uint32_t b = 0; b < x.rows; ++b)
                    for (uint32_t j = 0; j < t.cols; ++j)
                        acc[size_t{b} * w.cols + t.col0 + j] += cw.results[k].at(b, j);
            }
            if (times) {
                times->transfer_ps += cw.times.transfer_ps;
                times->config_ps += cw.times.config_ps;
                times->realtime_ps += cw.times.realtime_ps;
                times->other_ps += cw.times.other_ps;
                times->total_ps += cw.times.total_ps;
                times->executions += cw.times.executions;
                times->vectors += cw.times.vectors;
                times->host_encode_ps += cw.times.host_encode_ps;
                times->host_decode_ps += cw.times.host_decode_ps;
            }
        }
    }
    // Post-processing: the results back to float.
    HagenHostWork post;
    post.outputs = uint64_t{x.rows} * w.cols;
    const uint64_t post_ps = host_wait(host_time(post, m_host).postprocess_s);
    if (times) {
        times->host_postprocess_ps += post_ps;
        times->wall_ps += sc_core::sc_time_stamp().value() - t_start;
    }
    hg::IntMatrix y(x.rows, w.cols);
    for (size_t k = 0; k < acc.size(); ++k)
        y.v[k] = static_cast<int32_t>(std::clamp<int64_t>(acc[k], hg::kOutMin, hg::kOutMax));
    if (times) times->macs += uint64_t{x.rows} * x.cols * w.cols;
    return y;
}

}  // namespace nmsim::bss2
