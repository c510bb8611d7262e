// The compile stage of the bss2 workload: the network file mapped and routed onto the chip, the
// signal-flow graph with its readouts, the static configuration, and the input spike trains of
// every run. No simulation.
#include <algorithm>
#include <fstream>
#include <random>

#include "models/common/seeding.h"
#include "nmsim/hw/brainscales2/bss2_map.h"
#include "tools/scenario/text.h"
#include "workloads/bss2/host.h"

namespace nmsim::workloads::bss2 {

using scenario::ConfigError;

namespace {

uint64_t mix(uint64_t a, uint64_t b) { return derive_seed(splitmix64(a), b); }

[[noreturn]] void input_error(const scenario::Origin& o, const std::string& key,
                              const std::string& msg) {
    throw scenario::ScenarioError({ConfigError{o, key, msg}});
}

// The input spike trains of every run (seeded: same scenario seed, same trains).
// The host generates every input spike before the run; their expected number is bounded up
// front (the chip link carries at most 250 M events/s anyway: docs/bss2_fpga.md).
constexpr double kMaxInputSpikes = 20e6;

void make_inputs(const Bss2Workload& w, uint64_t seed, Compiled& P) {
    const auto input_v = P.gm.external_input;
    double expected = 0;
    for (size_t r = 0; r < w.runs.size(); ++r)
        for (size_t j = 0; j < w.runs[r].inputs.size(); ++j) {
            const Input& in = w.runs[r].inputs[j];
            const cb::Population* pop = P.net.find(in.population);
            if (!pop || in.kind == Input::Kind::times) continue;  // times: listed in the file
            const double span_us = std::max(0.0, in.stop_us.value_or(w.runtime_us) - in.start_us);
            const double n = in.rate_hz * static_cast<double>(pop->size) * span_us * 1e-6;
            expected += n;
            if (expected > kMaxInputSpikes)
                input_error(in.origin,
                            "workload.bss2.runs." + std::to_string(r) + ".inputs." +
                                std::to_string(j) + ".rate_hz",
                            "the inputs up to here would be about " +
                                std::to_string(static_cast<uint64_t>(expected)) +
                                " spikes (this one: " + std::to_string(pop->size) + " neurons x " +
                                scenario::format_real(in.rate_hz) + " Hz x " +
                                scenario::format_real(span_us) +
                                " us); the host generates at most " +
                                std::to_string(static_cast<uint64_t>(kMaxInputSpikes)) +
                                " input spikes per experiment");
        }
    cb::SpikeBatch batch(w.runs.size());
    P.injected.assign(w.runs.size(), {});
    for (size_t r = 0; r < w.runs.size(); ++r) {
        for (size_t j = 0; j < w.runs[r].inputs.size(); ++j) {
            const Input& in = w.runs[r].inputs[j];
            const std::string key =
                "workload.bss2.runs." + std::to_string(r) + ".inputs." + std::to_string(j);
            const cb::Population* pop = P.net.find(in.population);
            if (!pop)
                input_error(in.origin, key + ".population",
                            "no population \"" + in.population + "\" in " + w.network);
            if (pop->kind != cb::PopulationKind::external)
                input_error(in.origin, key + ".population",
                            "population \"" + in.population + "\" is " + cb::to_string(pop->kind) +
                                "; input spike trains drive external populations");
            const size_t pi = static_cast<size_t>(pop - P.net.populations.data());
            auto ev = P.gm.input_events.find(pi);
            if (ev == P.gm.input_events.end() || !input_v)
                continue;  // the population projects nowhere: nothing to inject
            if (in.kind == Input::Kind::times && in.times_us.size() > pop->size)
                input_error(in.origin, key + ".times_us",
                            std::to_string(in.times_us.size()) + " spike lists for population \"" +
                                in.population + "\" of " + std::to_string(pop->size) + " neurons");
            uint64_t n_spikes = 0;
            for (size_t i = 0; i < pop->size; ++i) {
                const uint32_t event = ev->second.at(i);
                if (in.kind == Input::Kind::times) {
                    if (i < in.times_us.size())
                        for (double t : in.times_us[i]) {
                            batch[r].push_back({t, event});
                            ++n_spikes;
                        }
                    continue;
                }
                const double stop = in.stop_us.value_or(w.runtime_us);
                if (in.rate_hz <= 0 || stop <= in.start_us) continue;
                const double mean_isi_us = 1e6 / in.rate_hz;
                if (in.kind == Input::Kind::regular) {
                    // Phases spread over the neurons so that a population is not synchronous.
                    double t = in.start_us + mean_isi_us * (static_cast<double>(i) + 0.5) /
                                                 static_cast<double>(pop->size);
                    for (; t < stop; t += mean_isi_us) {
                        batch[r].push_back({t, event});
                        ++n_spikes;
                    }
                } else {
                    std::mt19937_64 rng(mix(mix(seed, r), mix(j, i)));
                    std::exponential_distribution<double> isi(1.0 / mean_isi_us);
                    for (double t = in.start_us + isi(rng); t < stop; t += isi(rng)) {
                        batch[r].push_back({t, event});
                        ++n_spikes;
                    }
                }
            }
            P.injected[r][pi] += n_spikes;
        }
        std::stable_sort(
            batch[r].begin(), batch[r].end(),
            [](const cb::TimedSpike& a, const cb::TimedSpike& b) { return a.time_us < b.time_us; });
    }
    if (input_v) P.inputs.spikes[*input_v] = std::move(batch);
}

}  // namespace

Compiled compile(const Bss2Workload& w, uint64_t seed) {
    Compiled P;
    P.net = cb::load_network(w.network);
    cb::RouteOptions ro;
    ro.seed = seed;
    P.pl = cb::map_and_route(P.net, ro);
    const auto problems = cb::verify_routing(P.net, P.pl);
    if (!problems.empty())
        throw std::runtime_error("internal error: the routing of " + w.network +
                                 " fails verification: " + problems.front() + " (" +
                                 std::to_string(problems.size()) + " problems)");
    const cb::ExecutionInstance inst{};
    P.graph = cb::build_graph(P.net, P.pl, inst, &P.gm);

    // Readouts: vertices on the NeuronView that holds the probed neuron / every NeuronView.
    auto neuron_view_of = [&](uint32_t hemi) -> std::optional<cb::VertexDescriptor> {
        for (cb::VertexDescriptor v : P.graph.vertices(inst)) {
            if (P.graph.is_reference(v)) continue;
            if (const auto* nv = std::get_if<cb::NeuronView>(&P.graph.vertex(v));
                nv && nv->hemi == hemi)
                return v;
        }
        return std::nullopt;
    };
    if (w.madc) {
        const cb::Population* pop = P.net.find(w.madc->population);
        const std::string key = "workload.bss2.madc.population";
        if (!pop)
            input_error(w.madc->origin, key,
                        "no population \"" + w.madc->population + "\" in " + w.network);
        if (pop->kind != cb::PopulationKind::internal)
            input_error(w.madc->origin, key,
                        "population \"" + w.madc->population + "\" is not on the chip (" +
                            cb::to_string(pop->kind) + ")");
        if (w.madc->neuron >= pop->size)
            input_error(w.madc->origin, "workload.bss2.madc.neuron",
                        "neuron " + std::to_string(w.madc->neuron) + " of population \"" +
                            pop->name + "\" of " + std::to_string(pop->size));
        const size_t pi = static_cast<size_t>(pop - P.net.populations.data());
        const cb::NeuronSlot& slot = P.pl.populations[pi].neurons[w.madc->neuron];
        const auto nv = neuron_view_of(slot.hemi);
        if (!nv)
            throw std::runtime_error("internal error: no NeuronView for hemisphere " +
                                     std::to_string(slot.hemi));
        const auto& cols = std::get<cb::NeuronView>(P.graph.vertex(*nv)).columns;
        const size_t idx =
            static_cast<size_t>(std::find(cols.begin(), cols.end(), slot.col) - cols.begin());
        cb::MADCReadoutView m;
        m.hemi = slot.hemi;
        m.column = slot.col;
        P.madc = P.graph.add(m, inst, {cb::Input(*nv, cb::PortRestriction{idx, idx})});
        P.madc_neuron = slot.hemi * BSS2_COLUMNS + slot.col;
    }
    if (w.cadc) {
        for (uint32_t h = 0; h < BSS2_HEMISPHERES; ++h) {
            const auto nv = neuron_view_of(h);
            if (!nv) continue;
            cb::CADCMembraneReadoutView c;
            c.hemi = h;
            c.columns = std::get<cb::NeuronView>(P.graph.vertex(*nv)).columns;
            P.cadc.push_back(P.graph.add(c, inst, {cb::Input(*nv)}));
        }
    }
    P.config = cb::configuration(P.graph, inst);
    P.eo.runtime_us = w.runtime_us;
    P.eo.batch_size = w.runs.size();
    P.eo.reset_between_runs = w.reset_between_runs;
    make_inputs(w, seed, P);
    if (!w.dot.empty()) {
        std::ofstream f(w.dot);
        f << P.graph.to_dot();
        if (!f) throw std::runtime_error("cannot write the graph to " + w.dot);
    }
    return P;
}

}  // namespace nmsim::workloads::bss2
