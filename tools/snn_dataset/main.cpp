// nmsim-snn-dataset: seed 001's dataset of SNN layers (sources and targets 50..500, density
// 10..100 %, delay range 1..16), each labelled with the paradigm that needs fewer PEs by
// compiling it with both compilers (no simulation); the gesture network's PE counts; the
// weight-delay map savings and Table I of one layer (docs/snn_parallel.md).
// Exit status: 0, 2 for an error.
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>

#include "tools/compiler/snn/paradigm.h"
#include "tools/compiler/snn/parallel.h"

namespace snn = nmsim::compiler::snn;

int main(int argc, char** argv) {
    CLI::App app{"SpiNNaker2 SNN paradigm dataset and switch (seed 001 sec. IV)"};
    std::string out;
    uint64_t seed = 1;
    uint32_t stride = 1;
    bool gesture = false;
    std::vector<uint32_t> layer;
    app.add_option("--out", out, "write the dataset as CSV to this file");
    app.add_option("--seed", seed, "dataset seed (layers' synapses, weights and delays)");
    app.add_option("--stride", stride, "keep every n-th layer of the grid")
        ->check(CLI::Range(1u, 16000u));
    app.add_flag("--gesture", gesture, "PE counts of the 2048-20-4 gesture network");
    app.add_option("--layer", layer,
                   "SOURCES TARGETS DENSITY_PCT DELAY_RANGE: map savings, PE counts and Table I "
                   "of one dataset layer")
        ->expected(4);
    CLI11_PARSE(app, argc, argv);
    try {
        if (gesture) {
            const snn::GestureParadigmCounts g = snn::gesture_paradigm_counts(seed);
            std::printf("gesture network 2048-20-4, 3.16 %%, sources injected (per layer)\n");
            for (size_t k = 0; k < g.serial_per_layer.size(); ++k)
                std::printf("  layer %zu: serial %u PEs, parallel %u PEs, classifier -> %s\n", k,
                            g.serial_per_layer[k], g.parallel_per_layer[k],
                            snn::paradigm_name(g.predicted[k]));
            for (size_t k = 0; k < g.savings.size(); ++k) {
                const snn::MapSavings& m = g.savings[k];
                std::printf(
                    "  layer %zu map bytes: unoptimised %llu, +O1 %llu, +O2 %llu, +O3 %llu, "
                    "+O4 %llu\n",
                    k, static_cast<unsigned long long>(m.bytes[0]),
                    static_cast<unsigned long long>(m.bytes[1]),
                    static_cast<unsigned long long>(m.bytes[2]),
                    static_cast<unsigned long long>(m.bytes[3]),
                    static_cast<unsigned long long>(m.bytes[4]));
            }
            std::printf(
                "  PEs: serial %u, parallel %u, auto (classifier) %u, ideal %u "
                "(seed 001: 9 / 5 / 4)\n",
                g.serial, g.parallel, g.classifier, g.ideal);
            std::printf(
                "  seed's serial rule (Table I, n fixed at 255, sources split at 255): "
                "serial %u (",
                g.serial_table1);
            for (size_t k = 0; k < g.serial_table1_per_layer.size(); ++k)
                std::printf("%s%u", k ? " + " : "", g.serial_table1_per_layer[k]);
            std::printf("), ideal switch %u\n", g.ideal_table1);
            const snn::GesturePeCounts& s = g.serial_interpretations;
            std::printf(
                "  serial with the sources on their own PEs %u (+%u source PEs for the "
                "parallel and auto counts: %u / %u)\n",
                s.sources_on_pes, s.source_pes, g.parallel + s.source_pes,
                g.classifier + s.source_pes);
            return 0;
        }
        if (!layer.empty()) {
            const snn::ParLayer l =
                snn::dataset_layer(layer[0], layer[1], layer[2], layer[3], seed);
            const snn::MapSavings m = snn::map_savings(l);
            const char* stage[] = {"unoptimised", "+O1 zero rows", "+O2 zero columns",
                                   "+O3 merged inputs", "+O4 merged outputs"};
            std::printf("layer %s: %zu synapses\n", l.name.c_str(), l.synapses.size());
            for (int k = 0; k < 5; ++k)
                std::printf("  %-20s %6u x %4u = %9llu B\n", stage[k], m.rows[k], m.cols[k],
                            static_cast<unsigned long long>(m.bytes[k]));
            const snn::ParCompiled c = snn::compile_parallel_layer(l);
            std::printf(
                "  serial %u PEs (seed's Table I rule %u), parallel %u PEs (1 dominant + %zu "
                "subordinates in %u target groups)\n",
                snn::serial_layer_pes(l), snn::serial_layer_pes_table1(l), c.pes_used(),
                c.subs.size(), c.target_groups);
            for (const snn::ParPeReport& r : c.table1)
                std::printf("%s", snn::format_par_table1(r).c_str());
            return 0;
        }
        const auto t0 = std::chrono::steady_clock::now();
        const std::vector<snn::DatasetRow> rows = snn::make_dataset(seed, stride);
        const double secs =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::ofstream f;
        std::ostream* os = &std::cout;
        if (!out.empty()) {
            f.open(out);
            if (!f) throw std::runtime_error(out + ": cannot write");
            os = &f;
        }
        *os << snn::dataset_csv_header() << "\n";
        for (const snn::DatasetRow& r : rows) *os << snn::dataset_csv_line(r) << "\n";
        uint64_t par = 0;
        for (const snn::DatasetRow& r : rows) par += r.label == snn::Paradigm::parallel;
        std::fprintf(stderr,
                     "%zu layers compiled with both paradigms in %.1f s; parallel "
                     "needs fewer PEs for %llu\n",
                     rows.size(), secs, static_cast<unsigned long long>(par));
    } catch (const std::exception& e) {
        std::cerr << "nmsim-snn-dataset: " << e.what() << "\n";
        return 2;
    }
    return 0;
}
