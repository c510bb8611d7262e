// nmsim-snn-ref: compiles an SNN network file for the SpiNNaker2 serial paradigm and prints, as
// CSV, what the reference computes or the compiler decided (docs/snn_compiler.md, "The
// nmsim-snn-ref tool"). The Brian2 comparison (tests/python/test_snn_brian2.py) reads it.
// Exit status: 0, 2 for an invalid network or one the chip cannot hold.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <iostream>
#include <string>

#include "tools/compiler/snn/compiler.h"
#include "tools/reference/snn_ref.h"

namespace snn = nmsim::compiler::snn;
namespace ref = nmsim::reference;

namespace {

template <typename V>
void print_result(const snn::Network& net, const ref::SnnRefResult<V>& res, bool voltages,
                  double scale) {
    if (voltages) {
        std::printf("tick,population,neuron,v\n");
        for (const auto& tr : res.voltages)
            for (size_t t = 0; t < tr.v.size(); ++t)
                std::printf("%zu,%s,%u,%.17g\n", t, net.populations[tr.population].name.c_str(),
                            tr.neuron, static_cast<double>(tr.v[t]) / scale);
        return;
    }
    std::printf("tick,population,neuron\n");
    for (const ref::SnnSpike& s : res.spikes)
        std::printf("%u,%s,%u\n", s.tick, net.populations[s.population].name.c_str(), s.neuron);
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"SpiNNaker2 SNN compiler and reference (serial paradigm, seed 001)"};
    std::string path, what = "spikes";
    uint32_t ticks = 1000;
    bool use_float = false, gesture = false;
    app.add_option("network", path, "network YAML file (docs/snn_compiler.md)");
    app.add_option("--ticks", ticks, "ticks to run")->check(CLI::Range(1u, snn::kMaxTicks));
    app.add_option("--print", what,
                   "spikes | voltages (the reference), sources (the source spike trains), "
                   "synapses (the expanded connectors), routes, table1 (the compilation)")
        ->check(CLI::IsMember({"spikes", "voltages", "sources", "synapses", "routes", "table1"}));
    app.add_flag("--float", use_float, "spikes/voltages of the float reference (eq. 1 in doubles)");
    app.add_flag("--gesture", gesture, "PE counts of seed 001's 2048-20-4 gesture network");
    CLI11_PARSE(app, argc, argv);
    try {
        if (gesture) {
            for (uint32_t max : {255u, 256u}) {
                const snn::GesturePeCounts g = snn::gesture_pe_counts(max);
                std::printf(
                    "max_neurons_per_pe=%u sources_on_pes=%u sources_injected=%u "
                    "source_pes=%u per_layer=%u\n",
                    max, g.sources_on_pes, g.sources_injected, g.source_pes, g.per_layer);
            }
            return 0;
        }
        if (path.empty()) {
            std::cerr << "nmsim-snn-ref: a network file is required\n";
            return 2;
        }
        const snn::Network net = snn::load_network(path);
        if (what == "routes" || what == "table1") {
            snn::CompileOptions opt;
            opt.n_ticks = ticks;
            const snn::Compiled c = snn::compile(net, opt);
            if (what == "table1") {
                for (const snn::PeReport& r : c.table1)
                    std::printf("%s", snn::format_table1(r).c_str());
                return 0;
            }
            std::printf("key,mask,pes\n");
            for (const snn::RouterEntry& e : c.routes) {
                std::printf("0x%08x,0x%08x,", e.key, e.mask);
                for (size_t k = 0; k < e.pes.size(); ++k)
                    std::printf("%s%u", k ? " " : "", e.pes[k]);
                std::printf("\n");
            }
            return 0;
        }
        const snn::SpikeTrains trains = snn::spike_trains(net, ticks);
        if (what == "sources") {
            std::printf("tick,source,neuron\n");
            for (size_t s = 0; s < trains.size(); ++s)
                for (size_t i = 0; i < trains[s].size(); ++i)
                    for (uint32_t t : trains[s][i])
                        std::printf("%u,%s,%zu\n", t, net.sources[s].name.c_str(), i);
            return 0;
        }
        if (what == "synapses") {
            std::printf("pre,pre_index,post,post_index,weight,delay,type\n");
            for (const snn::Projection& p : net.projections)
                for (const snn::Synapse& s : p.synapses)
                    std::printf("%s,%u,%s,%u,%u,%u,%s\n", net.pre_name(p.pre).c_str(), s.pre,
                                net.populations[p.post].name.c_str(), s.post, s.weight, s.delay,
                                snn::to_string(s.type));
            return 0;
        }
        const ref::SnnRefNetwork rn = snn::reference_network(net, trains, ticks);
        if (use_float)
            print_result(net, ref::snn_reference_float(rn), what == "voltages", 1.0);
        else
            print_result(net, ref::snn_reference(rn), what == "voltages", 65536.0);
        return 0;
    } catch (const snn::NetworkError& e) {
        std::cerr << e.what() << "\n";
    } catch (const snn::CompileError& e) {
        std::cerr << e.what() << "\n";
    }
    return 2;
}
