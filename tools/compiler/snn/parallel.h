// The SNN compiler of the SpiNNaker2 parallel (MLA) paradigm (seed 001 sec. III-B, Table I): one
// layer (a target population with every projection onto it) -> the weight-delay map, optimised
// (zero rows, zero columns, merged inputs, merged outputs), split over subordinate PEs (targets
// first, then delay ranges) -> the dominant's and the subordinates' images
// (firmware/include/nmsim/hw/spinnaker2/snn_par_image.h) with the per-PE Table I report. Plain
// C++: no SystemC, no models. docs/snn_parallel.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nmsim/hw/spinnaker2/snn_par_image.h"
#include "tools/compiler/snn/compiler.h"
#include "tools/compiler/snn/network.h"

namespace nmsim::compiler::snn {

// One layer: n_targets LIF neurons and the synapses onto them from n_sources source neurons
// (Synapse::pre is the source index 0 .. n_sources - 1, Synapse::post the target).
struct ParLayer {
    std::string name = "layer";
    uint32_t n_sources = 0, n_targets = 0;
    std::vector<Synapse> synapses;
    LifParams lif;
    double timestep_ms = 1.0;
    // Source table of the dominant (key, mask, first source index); empty: one entry per 256
    // sources with keys (v << 8 | i) from vertex 0 on.
    std::vector<s2_snnp_src_entry_t> src_table;
    // The key each target sends; empty: (vertex << 8) + j (ParOptions::vertex, consecutive ids).
    std::vector<uint32_t> target_keys;
    bool record_spikes = true;
    std::vector<uint32_t> record_v;  // targets whose membrane is recorded every tick
    bool has_targets = true;         // false: no route leaves the layer, nothing is sent
};

// The four optimisations of the weight-delay map (docs/snn_parallel.md, "Optimisations").
struct MapOptimisations {
    bool zero_rows = true;   // O1: (delay, source) rows without a synapse, unused delays
    bool zero_cols = true;   // O2: (type, target) columns without a synapse in the block
    bool merge_rows = true;  // O3: identical rows share one row; x counts their spikes
    bool merge_cols = true;  // O4: identical columns share one column; col_of fans it out
};

struct ParOptions {
    // The seed's 96 KiB DTCM: image + stack + args block (as in the serial paradigm).
    uint32_t dtcm_bytes = S2_SNN_DTCM_BYTES;
    uint32_t acc_bits = S2_SNNP_ACC_BITS;  // no column sum may reach 2^(acc_bits - 1)
    uint32_t spike_buffer_entries = 256;
    uint32_t n_ticks = 1000;
    double core_clock_hz = 150e6;
    MapOptimisations opt;
    uint32_t max_subordinates = S2_SNNP_MAX_SUBORDINATES;
    // Global PE indices: the dominant, then the subordinates; empty: 0, 1, 2, ...
    std::vector<uint32_t> pes;
    uint32_t vertex = 0;       // the dominant's machine vertex id (its neurons' keys)
    uint32_t record_dram = 0;  // global DRAM address of n_ticks records (0: none allocated)
};

// One block of the optimised map on one subordinate.
struct SubordinateMap {
    uint32_t target_lo = 0, target_count = 0;
    uint32_t row_lo = 0, row_count = 0;  // global rows (the dominant's X slice)
    uint32_t delay_lo = 0, delay_hi = 0;
    std::vector<uint16_t> gather_start;  // [k_rows + 1]
    std::vector<uint16_t> gather;        // indices into the X slice
    uint32_t k_rows = 0, n_cols = 0;
    std::vector<int8_t> map;       // [k_rows][n_cols]
    std::vector<uint16_t> col_of;  // [2][target_count], S2_SNNP_NO_COL
    uint64_t max_column_sum = 0;   // largest sum of (max x) * weight over the rows
    uint32_t synapses = 0;         // synapses of the layer in this block
    uint32_t image_bytes = 0;      // the subordinate's image
};

// Table I (seed 001) for a parallel-paradigm PE next to the bytes of its image.
struct ParPeReport {
    bool dominant = true;
    uint32_t pe = 0, index = 0;  // index: subordinate number
    std::vector<TableIItem> items;
    uint64_t model_total = 0, actual_total = 0, budget_bytes = 0;
};

// Bytes of the (unsplit) weight-delay map with the optimisations applied one after the other:
// none, +O1, +O1..O2, +O1..O3, +O1..O4 (rows x columns, int8).
struct MapSavings {
    uint64_t bytes[5] = {0, 0, 0, 0, 0};
    uint32_t rows[5] = {0, 0, 0, 0, 0}, cols[5] = {0, 0, 0, 0, 0};
};

struct ParCompiled {
    ParOptions options;
    uint32_t n_sources = 0, n_targets = 0;
    std::vector<uint32_t> delays;  // used delays, ascending (all 1..max without O1)
    std::vector<uint16_t> row_of;  // [delays.size()][row_of_stride]
    uint32_t row_of_stride = 0;
    uint32_t n_rows = 0;              // rows of the optimised map (global)
    std::vector<uint32_t> row_delay;  // per row: its delay
    std::vector<uint32_t> row_mult;   // per row: (delay, source) pairs merged into it
    std::vector<SubordinateMap> subs;
    uint32_t target_groups = 0;  // stage 1 of the split
    std::vector<uint8_t> dominant_image;
    std::vector<std::vector<uint8_t>> sub_images;
    std::vector<uint32_t> pes;        // dominant, then subordinates
    std::vector<ParPeReport> table1;  // dominant, then subordinates
    uint32_t pes_used() const { return 1 + static_cast<uint32_t>(subs.size()); }
};

// Compiles one layer. Throws CompileError (element = layer name) when it does not fit: a
// structure that no split makes fit, the dominant's image, too many rows or subordinates, a
// summed duplicate weight above 127; std::invalid_argument for invalid options.
ParCompiled compile_parallel_layer(const ParLayer& layer, const ParOptions& opt = {});

// The unsplit map's size under the optimisations applied one after the other.
MapSavings map_savings(const ParLayer& layer);

// The per-target, per-type input of tick t computed from the compiled data the way the firmware
// does (X from the history, gather, matmul, the MLA's int16 saturation, col_of, the sum of the
// partials; before the dominant's final min(., 32767)); spiked[s][i] = source i spiked at tick s.
struct ParInput {
    std::vector<int64_t> exc, inh;  // [n_targets]
};
ParInput par_tick_input(const ParCompiled& c, const std::vector<std::vector<uint8_t>>& spiked,
                        uint32_t t);
// The same from the synapse list (the serial paradigm's sum, unsaturated).
ParInput synapse_tick_input(const ParLayer& layer, const std::vector<std::vector<uint8_t>>& spiked,
                            uint32_t t);

// Table I's parallel items with the seed's formulas (model column).
std::vector<TableIItem> table1_dominant_model(uint32_t n_source, uint32_t n_target,
                                              uint32_t delay_range, uint32_t n_source_vertex);
std::vector<TableIItem> table1_subordinate_model(uint32_t n_neuron, uint32_t delay_range,
                                                 uint32_t n_source_vertex);
std::string format_par_table1(const ParPeReport& r);

// The layers of a network for the parallel paradigm: one per population with projections onto
// it (sources: every pre element of those projections, in order of first appearance; keys as the
// serial compiler's machine graph `g` gives them).
ParLayer layer_of_population(const Network& net, const MachineGraph& g, uint32_t population);

}  // namespace nmsim::compiler::snn
