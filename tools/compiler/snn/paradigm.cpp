// Paradigm switching (paradigm.h, docs/snn_parallel.md): dataset, PE counts, the classifier.
#include "tools/compiler/snn/paradigm.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

#ifndef NMSIM_SNN_CLASSIFIER_FILE
#define NMSIM_SNN_CLASSIFIER_FILE "tools/compiler/snn/paradigm_classifier.txt"
#endif

namespace nmsim::compiler::snn {

ParLayer dataset_layer(uint32_t n_sources, uint32_t n_targets, uint32_t density_pct,
                       uint32_t delay_range, uint64_t seed) {
    ParLayer l;
    l.name = "layer_" + std::to_string(n_sources) + "_" + std::to_string(n_targets) + "_" +
             std::to_string(density_pct) + "_" + std::to_string(delay_range);
    l.n_sources = n_sources;
    l.n_targets = n_targets;
    const uint64_t s = derive_seed(seed, name_hash(l.name));
    const auto pairs =
        fixed_probability_pairs(n_sources, n_targets, density_pct / 100.0, derive_seed(s, 1), true);
    std::mt19937_64 rng(derive_seed(s, 2));
    l.synapses.reserve(pairs.size());
    for (const auto& [i, j] : pairs) {
        const uint64_t draw = rng();
        const uint32_t w = 1 + static_cast<uint32_t>((draw >> 8) % kMaxWeight);
        const uint32_t d = 1 + static_cast<uint32_t>((draw >> 40) % delay_range);
        l.synapses.push_back({i, j, w, d, SynapseType::excitatory});
    }
    return l;
}

uint32_t serial_layer_pes(const ParLayer& layer, uint32_t max_matrix_split) {
    Network net;
    Source src;
    src.name = "sources";
    src.size = layer.n_sources;
    src.spike_times.assign(layer.n_sources, {});
    net.sources.push_back(src);
    Population pop;
    pop.name = layer.name;
    pop.size = layer.n_targets;
    pop.lif = layer.lif;
    net.populations.push_back(pop);
    Projection pj;
    pj.name = "projection";
    pj.pre = {true, 0};
    pj.post = 0;
    pj.synapses = layer.synapses;
    net.projections.push_back(std::move(pj));
    CompileOptions opt;
    opt.n_ticks = 1;
    opt.sources_on_pes = false;
    opt.max_matrix_split = max_matrix_split;
    return compile(net, opt).pes_used();
}

uint32_t serial_layer_pes_table1(const ParLayer& layer) {
    constexpr uint32_t kN = 255;  // the seed: "source and target neuron numbers fixed to 255"
    const uint32_t sb = (layer.n_sources + kN - 1) / kN, tb = (layer.n_targets + kN - 1) / kN;
    // Equal splits as the serial compiler makes them: block of index i.
    auto block = [](uint32_t i, uint32_t n, uint32_t parts) {
        const uint32_t q = n / parts, r = n % parts;
        return i < r * (q + 1) ? i / (q + 1) : r + (i - r * (q + 1)) / q;
    };
    auto size = [](uint32_t b, uint32_t n, uint32_t parts) {
        return n / parts + (b < n % parts ? 1u : 0u);
    };
    uint32_t max_delay = 1;
    for (const Synapse& s : layer.synapses) max_delay = std::max(max_delay, s.delay);
    // Longest row (synapses of one source onto one target block) per block.
    std::vector<std::vector<uint32_t>> row(layer.n_sources, std::vector<uint32_t>(tb, 0));
    for (const Synapse& s : layer.synapses) ++row[s.pre][block(s.post, layer.n_targets, tb)];
    std::vector<uint32_t> longest(uint64_t{sb} * tb, 0);
    for (uint32_t i = 0; i < layer.n_sources; ++i)
        for (uint32_t t = 0; t < tb; ++t) {
            uint32_t& l = longest[uint64_t{block(i, layer.n_sources, sb)} * tb + t];
            l = std::max(l, row[i][t]);
        }
    uint32_t pes = 0;
    for (uint32_t b = 0; b < sb; ++b)
        for (uint32_t t = 0; t < tb; ++t) {
            const double rate =
                double(longest[uint64_t{b} * tb + t]) / size(t, layer.n_targets, tb);
            const uint64_t matrix =
                static_cast<uint64_t>(std::ceil(4.0 * kN * kN * std::min(rate, 1.0)));
            uint64_t fixed = 0;
            for (const TableIItem& it : table1_model(kN, 1, 1, 0, max_delay))
                fixed += it.model_bytes;
            const uint64_t room = S2_SNN_DTCM_BYTES > fixed ? S2_SNN_DTCM_BYTES - fixed : 1;
            pes += static_cast<uint32_t>(std::max<uint64_t>(1, (matrix + room - 1) / room));
        }
    return pes;
}

uint32_t parallel_layer_pes(const ParLayer& layer) {
    ParOptions opt;
    opt.n_ticks = 1;
    return compile_parallel_layer(layer, opt).pes_used();
}

std::vector<DatasetRow> make_dataset(uint64_t seed, uint32_t stride) {
    std::vector<DatasetRow> rows;
    uint64_t index = 0;
    for (uint32_t d = 1; d <= 16; ++d)
        for (uint32_t ns = 50; ns <= 500; ns += 50)
            for (uint32_t nt = 50; nt <= 500; nt += 50)
                for (uint32_t p = 10; p <= 100; p += 10) {
                    if (index++ % stride != 0) continue;
                    const ParLayer l = dataset_layer(ns, nt, p, d, seed);
                    DatasetRow r;
                    r.n_sources = ns;
                    r.n_targets = nt;
                    r.density_pct = p;
                    r.delay_range = d;
                    r.synapses = static_cast<uint32_t>(l.synapses.size());
                    r.serial_pes = serial_layer_pes(l);
                    r.parallel_pes = parallel_layer_pes(l);
                    r.label = r.parallel_pes < r.serial_pes ? Paradigm::parallel : Paradigm::serial;
                    r.serial_pes_table1 = serial_layer_pes_table1(l);
                    r.label_table1 = r.parallel_pes < r.serial_pes_table1 ? Paradigm::parallel
                                                                          : Paradigm::serial;
                    rows.push_back(r);
                }
    return rows;
}

std::string dataset_csv_header() {
    return "n_sources,n_targets,density_pct,delay_range,synapses,serial_pes,parallel_pes,label,"
           "serial_pes_table1,label_table1";
}

std::string dataset_csv_line(const DatasetRow& r) {
    char line[200];
    std::snprintf(line, sizeof line, "%u,%u,%u,%u,%u,%u,%u,%d,%u,%d", r.n_sources, r.n_targets,
                  r.density_pct, r.delay_range, r.synapses, r.serial_pes, r.parallel_pes,
                  r.label == Paradigm::parallel ? 1 : 0, r.serial_pes_table1,
                  r.label_table1 == Paradigm::parallel ? 1 : 0);
    return line;
}

ParadigmClassifier ParadigmClassifier::parse(const std::string& text, const std::string& name) {
    ParadigmClassifier c;
    std::istringstream in(text);
    std::string line;
    uint32_t lineno = 0;
    auto bad = [&](const std::string& why) {
        throw std::runtime_error(name + ":" + std::to_string(lineno) + ": " + why);
    };
    size_t expect_nodes = 0;
    bool header = false;
    while (std::getline(in, line)) {
        ++lineno;
        if (line.empty() || line[0] == '#') continue;
        std::istringstream ls(line);
        std::string kind;
        ls >> kind;
        if (kind == "nmsim-paradigm-classifier") {
            std::string algo;
            int version = 0;
            ls >> version >> algo;
            if (version != 1 || algo != "adaboost-samme") bad("unknown format '" + line + "'");
            header = true;
        } else if (kind == "tree") {
            if (!header) bad("tree before the header line");
            if (expect_nodes != 0) bad("previous tree has missing nodes");
            Tree t;
            if (!(ls >> t.weight >> expect_nodes) || expect_nodes == 0) bad("bad tree line");
            c.m_trees.push_back(t);
        } else if (kind == "node") {
            if (c.m_trees.empty() || expect_nodes == 0) bad("node outside a tree");
            Node n;
            if (!(ls >> n.left >> n.right >> n.feature >> n.threshold >> n.cls))
                bad("bad node line");
            c.m_trees.back().nodes.push_back(n);
            --expect_nodes;
        } else {
            bad("unknown line kind '" + kind + "'");
        }
    }
    if (!header || c.m_trees.empty()) bad("no classifier");
    if (expect_nodes != 0) bad("last tree has missing nodes");
    for (const Tree& t : c.m_trees)
        for (const Node& n : t.nodes) {
            const auto size = static_cast<int32_t>(t.nodes.size());
            const bool leaf = n.left < 0;
            if (leaf ? (n.cls != 0 && n.cls != 1)
                     : (n.left >= size || n.right < 0 || n.right >= size || n.feature < 0 ||
                        n.feature > 3))
                bad("invalid node in a tree");
        }
    return c;
}

ParadigmClassifier ParadigmClassifier::load(const std::string& path) {
    std::ifstream f(path);
    if (!f) throw std::runtime_error(path + ": cannot open the classifier file");
    std::stringstream ss;
    ss << f.rdbuf();
    return parse(ss.str(), path);
}

const ParadigmClassifier& ParadigmClassifier::shipped() {
    static const ParadigmClassifier c = load(NMSIM_SNN_CLASSIFIER_FILE);
    return c;
}

double ParadigmClassifier::decision(const LayerFeatures& f) const {
    const double x[4] = {f.n_sources, f.n_targets, f.density_pct, f.delay_range};
    double votes[2] = {0, 0}, total = 0;
    for (const Tree& t : m_trees) {
        total += t.weight;
        int32_t i = 0;
        size_t steps = 0;
        while (t.nodes[static_cast<size_t>(i)].left >= 0 && steps++ < t.nodes.size()) {
            const Node& n = t.nodes[static_cast<size_t>(i)];
            const double v = static_cast<double>(static_cast<float>(x[n.feature]));
            i = v <= n.threshold ? n.left : n.right;
        }
        votes[t.nodes[static_cast<size_t>(i)].cls] += t.weight;
    }
    return (votes[1] - votes[0]) / total;  // sklearn normalises by the weights' sum
}

LayerFeatures features_of(const ParLayer& layer) {
    uint32_t dmax = 1;
    for (const Synapse& s : layer.synapses) dmax = std::max(dmax, s.delay);
    LayerFeatures f;
    f.n_sources = layer.n_sources;
    f.n_targets = layer.n_targets;
    f.density_pct = 100.0 * static_cast<double>(layer.synapses.size()) /
                    (static_cast<double>(layer.n_sources) * layer.n_targets);
    f.delay_range = dmax;
    return f;
}

GestureParadigmCounts gesture_paradigm_counts(uint64_t seed) {
    // The same shape and synapses as gesture_pe_counts (compiler.cpp): 2048-20-4, 3.16 %,
    // weight 1, delay 1.
    GestureParadigmCounts r;
    r.serial_interpretations = gesture_pe_counts(255, seed);
    const std::pair<const char*, std::pair<uint32_t, uint32_t>> layers[] = {
        {"input_hidden", {2048, 20}}, {"hidden_output", {20, 4}}};
    for (const auto& [name, size] : layers) {
        ParLayer l;
        l.name = name;
        l.n_sources = size.first;
        l.n_targets = size.second;
        for (const auto& [i, j] : fixed_probability_pairs(size.first, size.second, 0.0316,
                                                          element_seed(seed, name), true))
            l.synapses.push_back({i, j, 1, 1, SynapseType::excitatory});
        const uint32_t s = serial_layer_pes(l, 4), p = parallel_layer_pes(l);
        const Paradigm pred = ParadigmClassifier::shipped().predict(features_of(l));
        r.serial_per_layer.push_back(s);
        r.parallel_per_layer.push_back(p);
        r.predicted.push_back(pred);
        r.savings.push_back(map_savings(l));
        r.serial += s;
        r.parallel += p;
        r.classifier += pred == Paradigm::parallel ? p : s;
        r.ideal += std::min(s, p);
        const uint32_t st = serial_layer_pes_table1(l);
        r.serial_table1_per_layer.push_back(st);
        r.serial_table1 += st;
        r.ideal_table1 += std::min(st, p);
    }
    return r;
}

}  // namespace nmsim::compiler::snn
