#include "tools/compiler/bss2/executor.h"

#include <algorithm>
#include <string>
#include <utility>

#include "tools/compiler/bss2/lowering.h"

namespace nmsim::compiler::bss2 {

ChipConnection::~ChipConnection() = default;

namespace {

// Whether every input of host vertex v has data already.
bool inputs_ready(const Graph& g, VertexDescriptor v, const IODataMap& data) {
    for (const Edge& e : g.in_edges(v))
        if (!data.spikes.count(e.source)) return false;
    return true;
}

SpikeBatch apply_label_map(const SpikeLabelMap& m, const SpikeBatch& in) {
    SpikeBatch out(in.size());
    for (size_t r = 0; r < in.size(); ++r)
        for (const TimedSpike& s : in[r]) {
            auto it = m.labels.find(s.event);
            if (it != m.labels.end()) out[r].push_back({s.time_us, it->second});
        }
    return out;
}

// Runs the instance's digital operations whose inputs are ready (descriptor order is a
// topological order: vertices are added after their inputs).
void run_digital_ops(const Graph& g, ExecutionInstance inst, IODataMap& data) {
    for (VertexDescriptor v : g.vertices(inst)) {
        if (!is_digital_op(g.vertex(v)) || data.spikes.count(v) || !inputs_ready(g, v, data))
            continue;
        if (const auto* m = std::get_if<SpikeLabelMap>(&g.vertex(v)))
            data.spikes[v] = apply_label_map(*m, data.spikes.at(g.in_edges(v).at(0).source));
    }
}

struct Compiled {
    std::vector<uint64_t> program;
    std::vector<VertexDescriptor> data_outputs;
    std::optional<VertexDescriptor> madc;
    std::vector<std::pair<VertexDescriptor, std::vector<ReadTicket>>> cadc;  // per run x column
};

Compiled compile(const Graph& g, ExecutionInstance inst, const IODataMap& data,
                 const ExecutionOptions& opt) {
    Compiled c;
    const std::string where = "execution instance (" + inst.str() + ")";
    // Input spikes of every run, from all DataInputs of the instance.
    std::vector<std::vector<std::pair<uint32_t, uint32_t>>> spikes(opt.batch_size);
    std::optional<std::pair<uint32_t, uint32_t>> madc_neuron;
    std::vector<std::pair<VertexDescriptor, const CADCMembraneReadoutView*>> cadc;
    const uint32_t runtime = us_to_cycles(opt.runtime_us);
    for (VertexDescriptor v : g.vertices(inst)) {
        const Vertex& vx = g.vertex(v);
        if (std::holds_alternative<DataInput>(vx)) {
            const VertexDescriptor src = g.in_edges(v).at(0).source;
            auto it = data.spikes.find(src);
            if (it == data.spikes.end())
                throw ExecutionError(where + ": no input spikes for " + g.label(src) +
                                     " (feeding " + g.label(v) + ")");
            if (it->second.size() != opt.batch_size)
                throw ExecutionError(
                    where + ": " + g.label(src) + " holds " + std::to_string(it->second.size()) +
                    " spike trains, the batch has " + std::to_string(opt.batch_size) + " runs");
            for (size_t r = 0; r < opt.batch_size; ++r)
                for (const TimedSpike& s : it->second[r]) {
                    if (!(s.time_us >= 0.0 && s.time_us <= opt.runtime_us))
                        throw ExecutionError(
                            where + ": " + g.label(src) + " run " + std::to_string(r) +
                            ": spike at " + std::to_string(s.time_us) + " us outside the run (0.." +
                            std::to_string(opt.runtime_us) + " us)");
                    if (s.event > 0xFFFFu)
                        throw ExecutionError(where + ": " + g.label(src) + " run " +
                                             std::to_string(r) + ": event " +
                                             std::to_string(s.event) + " wider than 16 bit");
                    spikes[r].push_back({us_to_cycles(s.time_us), s.event});
                }
        } else if (std::holds_alternative<DataOutput>(vx)) {
            c.data_outputs.push_back(v);
        } else if (const auto* m = std::get_if<MADCReadoutView>(&vx)) {
            if (c.madc && g.root(*c.madc) != g.root(v))
                throw ExecutionError(where + ": " + g.label(v) + ": the MADC records one neuron, " +
                                     g.label(*c.madc) + " already uses it");
            c.madc = v;
            madc_neuron = std::make_pair(m->hemi, m->column);
        } else if (const auto* cv = std::get_if<CADCMembraneReadoutView>(&vx)) {
            cadc.push_back({v, cv});
        }
    }

    PlaybackProgramBuilder b;
    for (const auto& [addr, value] : configuration(g, inst)) b.write(addr, value);
    const auto neurons = instance_neurons(g, inst);
    const uint32_t cadc_time = us_to_cycles(opt.runtime_us + opt.cadc_read_delay_us);
    for (const auto& [v, cv] : cadc) c.cadc.push_back({v, {}});
    for (size_t r = 0; r < opt.batch_size; ++r) {
        if (r == 0 || opt.reset_between_runs)
            for (const auto& [hc, fires] : neurons)
                b.write(BSS2_NEURON(hc.first, hc.second) + BSS2_NRN_RESET, 1u);
        b.timer_reset();
        b.run_begin(static_cast<uint32_t>(r));
        if (madc_neuron) {
            b.write(BSS2_MADC_NEURON, madc_neuron->first * BSS2_COLUMNS + madc_neuron->second);
            b.write(BSS2_MADC_CTRL, 1u);
        }
        auto& s = spikes[r];
        std::stable_sort(s.begin(), s.end(),
                         [](const auto& a, const auto& z) { return a.first < z.first; });
        for (size_t i = 0; i < s.size();) {
            size_t j = i;
            std::vector<uint32_t> labels;
            while (j < s.size() && s[j].first == s[i].first) labels.push_back(s[j++].second);
            b.wait_until(s[i].first);
            b.spikes(labels);
            i = j;
        }
        b.wait_until(runtime);
        if (madc_neuron) b.write(BSS2_MADC_CTRL, 0u);
        if (!cadc.empty()) {
            b.write(BSS2_CADC_TRIGGER, 1u);
            b.wait_until(cadc_time);
            for (size_t k = 0; k < cadc.size(); ++k)
                for (uint32_t col : cadc[k].second->columns)
                    c.cadc[k].second.push_back(b.read(BSS2_CADC_RESULT(cadc[k].second->hemi, col)));
        }
        b.run_end();
    }
    b.halt();
    c.program = b.words();
    return c;
}

void postprocess(const Graph& g, ExecutionInstance inst, const Compiled& c,
                 const ExecutionResult& result, const ExecutionOptions& opt, IODataMap& out) {
    const std::string where = "execution instance (" + inst.str() + ")";
    ProgramResponses rsp;
    try {
        rsp = decode_responses(result.responses);
    } catch (const PlaybackError& e) {
        throw ExecutionError(where + ": " + e.what());
    }
    if (!rsp.halted) throw ExecutionError(where + ": the program did not halt");
    SpikeBatch recorded(opt.batch_size);
    std::vector<std::vector<TimedSample>> samples(opt.batch_size);
    for (const RunResponses& run : rsp.runs) {
        if (run.run >= opt.batch_size)
            throw ExecutionError(where + ": responses for run " + std::to_string(run.run) +
                                 " of a batch of " + std::to_string(opt.batch_size));
        for (const RecordedSpike& s : run.spikes)
            recorded[run.run].push_back({cycles_to_us(s.cycles), s.event});
        for (const MadcSample& s : run.madc)
            samples[run.run].push_back({cycles_to_us(s.cycles), s.value});
    }
    for (VertexDescriptor v : c.data_outputs) out.spikes[v] = recorded;
    if (c.madc) out.madc[*c.madc] = samples;
    for (const auto& [v, tickets] : c.cadc) {
        const size_t cols = std::get<CADCMembraneReadoutView>(g.vertex(v)).columns.size();
        auto& values = out.cadc[v];
        values.assign(opt.batch_size, {});
        try {
            for (size_t i = 0; i < tickets.size(); ++i)
                values[i / cols].push_back(rsp.read(tickets[i]).data);
        } catch (const PlaybackError& e) {
            throw ExecutionError(where + ": " + g.label(v) + ": " + e.what());
        }
    }
    out.times[inst] = result.times;
    out.dropped[inst] = rsp.dropped;
}

}  // namespace

IODataMap JitExecutor::run(const Graph& graph, const IODataMap& inputs,
                           const Connections& connections, const ExecutionOptions& options) {
    if (options.batch_size == 0) throw ExecutionError("batch size must be at least 1");
    if (!(options.runtime_us > 0.0)) throw ExecutionError("runtime must be positive");
    // Everything computed so far; host inputs first.
    IODataMap data;
    data.spikes = inputs.spikes;
    IODataMap out;
    for (ExecutionInstance inst : graph.instance_order()) {
        run_digital_ops(graph, inst, data);  // preprocess
        // Instances holding only host vertices (inputs, digital operations) need no chip.
        bool hardware = false;
        for (VertexDescriptor v : graph.vertices(inst))
            hardware |= !is_digital_op(graph.vertex(v)) &&
                        !std::holds_alternative<ExternalInput>(graph.vertex(v));
        if (hardware) {
            auto it = connections.find(inst.chip);
            if (it == connections.end() || !it->second)
                throw ExecutionError("execution instance (" + inst.str() +
                                     "): no connection for physical chip " +
                                     std::to_string(inst.chip.value));
            Compiled c = compile(graph, inst, data, options);
            const ExecutionResult result = it->second->execute(c.program);
            postprocess(graph, inst, c, result, options, data);
        }
        run_digital_ops(graph, inst, data);  // delayed digital operations
    }
    for (const auto& [v, batch] : data.spikes)
        if (!inputs.spikes.count(v)) out.spikes[v] = batch;
    out.madc = std::move(data.madc);
    out.cadc = std::move(data.cadc);
    out.times = std::move(data.times);
    out.dropped = std::move(data.dropped);
    return out;
}

}  // namespace nmsim::compiler::bss2
