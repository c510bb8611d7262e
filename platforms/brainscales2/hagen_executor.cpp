// A hagen-mode product on simulated chips (hagen_executor.h).
#define SC_INCLUDE_DYNAMIC_PROCESSES  // sc_spawn: the chips' pipelines and their stages
#include "platforms/brainscales2/hagen_executor.h"

#include <algorithm>
#include <memory>
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

// Vectors per playback program so that a program stays within `max_words` instructions (the
// FPGA's program memory; the synapse rewrite of the v1 workaround makes programs large).
uint32_t batch_chunk(const std::vector<hg::Tile>& group, uint32_t batch,
                     const hg::VectorTiming& timing, uint64_t max_words) {
    const uint64_t per_vector = hg::vector_program_words(group, timing);
    return static_cast<uint32_t>(std::clamp<uint64_t>(max_words / per_vector, 1, batch));
}

void add(HagenTimes& t, const ExecutionTiming& e, bool config) {
    t.transfer_ps += e.host_to_fpga_ps + e.readback_ps;
    const uint64_t on_fpga = e.config_ps + e.realtime_ps + e.between_ps;
    if (config) {
        t.config_ps += on_fpga;
    } else {
        t.realtime_ps += e.realtime_ps;
        t.other_ps += on_fpga - e.realtime_ps;
    }
    t.total_ps += e.total_ps;
    ++t.executions;
}

// The host's worker threads (HagenHostParams::threads): host work of every chip and stage holds
// one while it runs. Built on sc_event: channels cannot be created while simulating.
class HostThreads {
public:
    explicit HostThreads(uint32_t n) : m_free(std::max(1u, n)) {}
    // Runs `seconds` of work on a thread, queuing for a free one first; returns the work's time
    // in ps (without the queuing).
    uint64_t work(double seconds) {
        const uint64_t ps = static_cast<uint64_t>(seconds * 1e12 + 0.5);
        if (!ps) return 0;
        while (m_free == 0) sc_core::wait(m_released);
        --m_free;
        sc_core::wait(sc_core::sc_time::from_value(ps));
        ++m_free;
        m_released.notify(sc_core::SC_ZERO_TIME);
        return ps;
    }

private:
    uint32_t m_free;
    sc_core::sc_event m_released;
};

// A chip's share of a product: per pass, its static configuration, then the vector programs of
// the batch's chunks, in a three-stage pipeline as grenade's JIT executor runs them: the host
// encodes program k + 1 while the FPGA runs program k and decodes program k - 1 (seed 002
// Fig. 5; seed 004 Figs. 4.7 and 4.8). At most kDepth encoded programs wait for the FPGA.
class ChipPipeline {
public:
    ChipPipeline(Fpga& fpga, const HagenHostParams& hp, HostThreads& threads,
                 const hg::IntMatrix& x, const hg::IntMatrix& w, const hg::VectorTiming& timing,
                 const hg::MacGraph& graph, std::vector<std::vector<hg::Tile>> groups,
                 std::vector<compiler::bss2::ExecutionInstance> instances, uint64_t max_words,
                 uint64_t& decoded)
        : m_graph(graph),
          m_instances(std::move(instances)),
          m_decoded(decoded),
          m_fpga(fpga),
          m_hp(hp),
          m_threads(threads),
          m_x(x),
          m_w(w),
          m_timing(timing),
          m_groups(std::move(groups)) {
        for (uint32_t p = 0; p < m_groups.size(); ++p) {
            if (m_groups[p].empty()) continue;
            m_jobs.push_back({p, true, 0, 0, results.size()});
            const uint32_t chunk = batch_chunk(m_groups[p], x.rows, timing, max_words);
            for (uint32_t b0 = 0; b0 < x.rows; b0 += chunk)
                m_jobs.push_back({p, false, b0, std::min(chunk, x.rows - b0), results.size()});
            for (const hg::Tile& t : m_groups[p])
                results.push_back({t, hg::IntMatrix(x.rows, t.cols)});
        }
        m_programs.resize(m_jobs.size());
        m_responses.resize(m_jobs.size());
    }

    // The FPGA stage, in the calling thread; spawns the encoder and the decoder and joins them.
    void run() {
        sc_core::sc_process_handle enc = sc_core::sc_spawn([this] { encode_all(); });
        sc_core::sc_process_handle dec = sc_core::sc_spawn([this] { decode_all(); });
        for (size_t k = 0; k < m_jobs.size(); ++k) {
            while (m_encoded <= k) sc_core::wait(m_progress);
            ExecutionTiming et;
            m_responses[k] = m_fpga.execute(m_programs[k], &et);
            std::vector<uint64_t>().swap(m_programs[k]);
            add(times, et, m_jobs[k].config);
            m_executed = k + 1;
            m_progress.notify(sc_core::SC_ZERO_TIME);
        }
        if (!enc.terminated()) sc_core::wait(enc.terminated_event());
        if (!dec.terminated()) sc_core::wait(dec.terminated_event());
    }

    std::vector<std::pair<hg::Tile, hg::IntMatrix>> results;  // per tile of every pass
    HagenTimes times;

private:
    static constexpr size_t kDepth = 2;
    struct Job {
        uint32_t pass;
        bool config;
        uint32_t b0, n;     // a vector program's chunk of the batch
        size_t first_tile;  // the pass's first entry in `results`
    };

    std::vector<uint64_t> make_program(const Job& j) const {
        const std::vector<hg::Tile>& g = m_groups[j.pass];
        // The pass's static configuration: the lowering of its execution instance.
        if (j.config)
            return config_program(
                compiler::bss2::configuration(m_graph.graph, m_instances[j.pass]));
        return hg::tile_program(g, m_x.slice_rows(j.b0, j.n), m_w, m_timing);
    }

    void encode_all() {
        for (size_t k = 0; k < m_jobs.size(); ++k) {
            while (m_encoded >= m_executed + kDepth) sc_core::wait(m_progress);
            m_programs[k] = make_program(m_jobs[k]);
            HagenHostWork enc;
            count_program(m_programs[k], enc);
            (m_jobs[k].config ? times.config_words : times.vector_words) += m_programs[k].size();
            times.host_encode_ps += m_threads.work(host_time(enc, m_hp).encode_s);
            m_encoded = k + 1;
            m_progress.notify(sc_core::SC_ZERO_TIME);
        }
    }

    void decode_all() {
        for (size_t k = 0; k < m_jobs.size(); ++k) {
            while (m_executed <= k) sc_core::wait(m_progress);
            HagenHostWork dec;
            count_responses(m_responses[k], dec);
            times.response_words += m_responses[k].size();
            times.host_decode_ps += m_threads.work(host_time(dec, m_hp).decode_s);
            const Job& j = m_jobs[k];
            if (!j.config) {
                const std::vector<hg::IntMatrix> ys =
                    hg::tile_results(m_groups[j.pass], j.n, m_responses[k], m_timing);
                for (size_t t = 0; t < ys.size(); ++t)
                    results[j.first_tile + t].second.set_rows(j.b0, ys[t]);
                times.vectors += uint64_t{j.n} * ys.size();
                m_decoded += uint64_t{j.n} * ys.size();
            }
            std::vector<uint64_t>().swap(m_responses[k]);
        }
    }

    const hg::MacGraph& m_graph;
    std::vector<compiler::bss2::ExecutionInstance> m_instances;  // per pass (with tiles)
    uint64_t& m_decoded;                                         // the executor's progress counter
    Fpga& m_fpga;
    const HagenHostParams& m_hp;
    HostThreads& m_threads;
    const hg::IntMatrix& m_x;
    const hg::IntMatrix& m_w;
    const hg::VectorTiming& m_timing;
    std::vector<std::vector<hg::Tile>> m_groups;  // per pass: the chip's tiles (one per half)
    std::vector<Job> m_jobs;
    std::vector<std::vector<uint64_t>> m_programs, m_responses;
    size_t m_encoded = 0, m_executed = 0;
    sc_core::sc_event m_progress;
};

}  // namespace

HagenTimes& HagenTimes::operator+=(const HagenTimes& o) {
    transfer_ps += o.transfer_ps;
    config_ps += o.config_ps;
    realtime_ps += o.realtime_ps;
    other_ps += o.other_ps;
    total_ps += o.total_ps;
    wall_ps += o.wall_ps;
    executions += o.executions;
    host_graph_ps += o.host_graph_ps;
    host_preprocess_ps += o.host_preprocess_ps;
    host_encode_ps += o.host_encode_ps;
    host_decode_ps += o.host_decode_ps;
    host_postprocess_ps += o.host_postprocess_ps;
    vectors += o.vectors;
    macs += o.macs;
    config_words += o.config_words;
    vector_words += o.vector_words;
    response_words += o.response_words;
    return *this;
}

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
    HagenTimes t;
    const uint64_t t_start = sc_core::sc_time_stamp().value();
    HostThreads threads(m_host.threads);
    // Pre-processing: the operands to the chip's formats.
    HagenHostWork pre;
    pre.inputs = uint64_t{x.rows} * x.cols;
    pre.weights = uint64_t{w.rows} * w.cols;
    t.host_preprocess_ps = threads.work(host_time(pre, m_host).preprocess_s);
    // One pipeline per chip over all its passes; the chips work concurrently and share the host's
    // threads.
    // The product's signal-flow graph: an execution instance per (chip, pass); its lowering is
    // each pass's configuration (hagen_graph.h).
    const hg::MacGraph graph = hg::build_mac_graph(plan, w, timing);
    HagenHostWork built;
    built.vertices = graph.graph.size();
    t.host_graph_ps = threads.work(host_time(built, m_host).graph_s);
    std::vector<std::unique_ptr<ChipPipeline>> pipes;
    for (uint32_t c = 0; c < plan.chips; ++c) {
        std::vector<std::vector<hg::Tile>> groups(plan.passes);
        std::vector<compiler::bss2::ExecutionInstance> instances(plan.passes);
        bool any = false;
        for (const hg::MacGraph::Group& grp : graph.groups) {
            if (grp.instance.chip.value != c) continue;
            const size_t pass = grp.instance.index.value;
            for (size_t k : grp.tiles) groups[pass].push_back(plan.tiles[k]);
            instances[pass] = grp.instance;
            any = true;
        }
        if (any)
            pipes.push_back(std::make_unique<ChipPipeline>(
                m_chips[c]->fpga(), m_host, threads, x, w, timing, graph, std::move(groups),
                std::move(instances), m_max_program_words, m_vectors_decoded));
    }
    std::vector<sc_core::sc_process_handle> handles;
    for (auto& p : pipes) {
        ChipPipeline* pp = p.get();
        handles.push_back(sc_core::sc_spawn([pp] { pp->run(); }));
    }
    for (sc_core::sc_process_handle& h : handles)
        if (!h.terminated()) sc_core::wait(h.terminated_event());
    // The host sums the row splits (int8 partial results) and concatenates the column splits.
    std::vector<int64_t> acc(size_t{x.rows} * w.cols, 0);
    for (const auto& p : pipes) {
        for (const auto& [tile, y] : p->results)
            for (uint32_t b = 0; b < x.rows; ++b)
                for (uint32_t j = 0; j < tile.cols; ++j)
                    acc[size_t{b} * w.cols + tile.col0 + j] += y.at(b, j);
        t += p->times;
    }
    // Post-processing: the results back to float.
    HagenHostWork post;
    post.outputs = uint64_t{x.rows} * w.cols;
    t.host_postprocess_ps = threads.work(host_time(post, m_host).postprocess_s);
    t.wall_ps = sc_core::sc_time_stamp().value() - t_start;
    t.macs = uint64_t{x.rows} * x.cols * w.cols;
    hg::IntMatrix y(x.rows, w.cols);
    for (size_t k = 0; k < acc.size(); ++k)
        y.v[k] = static_cast<int32_t>(std::clamp<int64_t>(acc[k], hg::kOutMin, hg::kOutMax));
    if (times) *times += t;
    return y;
}

}  // namespace nmsim::bss2
