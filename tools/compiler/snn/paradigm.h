// Switching between the serial and the parallel SNN paradigm per layer (seed 001 sec. IV): the
// PE count of a layer under both paradigms (compiler only), the seed's dataset of layers, and the
// classifier (AdaBoost over decision trees, trained by tools/snn/paradigm_classifier.py) that the
// compiler evaluates without Python. Plain C++: no SystemC, no models. docs/snn_parallel.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tools/compiler/snn/compiler.h"
#include "tools/compiler/snn/parallel.h"

namespace nmsim::compiler::snn {

// The seed's layer characters (sec. IV-A): the classifier's features, in this order.
struct LayerFeatures {
    double n_sources = 0, n_targets = 0, density_pct = 0, delay_range = 0;
};

// A random layer of the seed's dataset: each (source, target) pair is a synapse with probability
// density_pct / 100 (fixed_probability's streams), excitatory, weight 1..127 and delay
// 1..delay_range drawn uniformly per synapse (docs/snn_parallel.md, "Dataset").
ParLayer dataset_layer(uint32_t n_sources, uint32_t n_targets, uint32_t density_pct,
                       uint32_t delay_range, uint64_t seed);

// PEs of one layer (sources injected: the source neurons live on the previous layer's PEs).
// serial: the serial compiler's LIF PEs (255 per PE, matrix splits up to max_matrix_split);
// parallel: one dominant + its subordinates.
uint32_t serial_layer_pes(const ParLayer& layer, uint32_t max_matrix_split = 64);
uint32_t parallel_layer_pes(const ParLayer& layer);
// The serial count as seed 001 sec. IV-A computes it, without compiling: sources and targets
// split at 255 into equal blocks, each block's PEs from Table I with the neuron count fixed at
// 255 (n_neuron = 255 in every item, the synaptic matrix 4 x 255 x 255 x max_connected_rate with
// the block's longest row over its targets), the matrix spread over the fewest PEs k that make
// each fit the 96 kB DTCM (k = 2..4 for the densities where the seed says one PE is not enough;
// the rule gives k > 4 nowhere in the dataset's range). docs/snn_parallel.md, "Two serial rules".
uint32_t serial_layer_pes_table1(const ParLayer& layer);

// One dataset row: the features, both PE counts and the label (parallel only if it needs
// strictly fewer PEs).
struct DatasetRow {
    uint32_t n_sources = 0, n_targets = 0, density_pct = 0, delay_range = 0;
    uint32_t synapses = 0, serial_pes = 0, parallel_pes = 0;
    Paradigm label = Paradigm::serial;
    // The seed's own serial rule (serial_layer_pes_table1) and the label it gives.
    uint32_t serial_pes_table1 = 0;
    Paradigm label_table1 = Paradigm::serial;
};
// The seed's grid: sources and targets 50..500 step 50, density 10..100 % step 10, delay range
// 1..16: 16,000 layers. `stride` > 1 keeps every stride-th layer (tests).
std::vector<DatasetRow> make_dataset(uint64_t seed = 1, uint32_t stride = 1);
std::string dataset_csv_header();
std::string dataset_csv_line(const DatasetRow& r);

// AdaBoost (SAMME) over decision trees, as exported by tools/snn/paradigm_classifier.py.
// Decision: (sum of the weights of the trees voting parallel minus those voting serial, in
// tree order) / the sum of all weights; > 0 -> parallel (sklearn's AdaBoostClassifier for two
// classes). Features are compared as float32 against double thresholds, as sklearn's trees do.
class ParadigmClassifier {
public:
    // Parses the text format (docs/snn_parallel.md, "Classifier file"); throws
    // std::runtime_error naming the file and line.
    static ParadigmClassifier parse(const std::string& text, const std::string& name = "<text>");
    static ParadigmClassifier load(const std::string& path);
    // The classifier shipped with nmsim (tools/compiler/snn/paradigm_classifier.txt).
    static const ParadigmClassifier& shipped();

    double decision(const LayerFeatures& f) const;
    Paradigm predict(const LayerFeatures& f) const {
        return decision(f) > 0 ? Paradigm::parallel : Paradigm::serial;
    }
    size_t n_trees() const { return m_trees.size(); }

private:
    struct Node {
        int32_t left = -1, right = -1, feature = -1;
        double threshold = 0;
        int32_t cls = 0;  // leaves: 0 serial, 1 parallel
    };
    struct Tree {
        double weight = 0;
        std::vector<Node> nodes;
    };
    std::vector<Tree> m_trees;
};

LayerFeatures features_of(const ParLayer& layer);

// Seed 001 sec. IV-C: the gesture network (2048-20-4, 3.16 %) under both paradigms and the
// switch, per layer with sources injected, next to the seed's 9 / 5 / 4.
struct GestureParadigmCounts {
    uint32_t serial = 0, parallel = 0, classifier = 0, ideal = 0;
    std::vector<uint32_t> serial_per_layer, parallel_per_layer;
    // The seed's serial rule (serial_layer_pes_table1) and the ideal switch under it.
    uint32_t serial_table1 = 0, ideal_table1 = 0;
    std::vector<uint32_t> serial_table1_per_layer;
    std::vector<Paradigm> predicted;
    std::vector<MapSavings> savings;         // per layer: the weight-delay map under O1..O4
    GesturePeCounts serial_interpretations;  // the serial compiler's counts (compiler.h)
};
GestureParadigmCounts gesture_paradigm_counts(uint64_t seed = 1);

}  // namespace nmsim::compiler::snn
