// Per-PE images of the SNN compiler in the layout of firmware/include/nmsim/hw/spinnaker2/
// snn_image.h: the layout arithmetic (shared by the compiler's DTCM check and the writer), the
// writer, and the reader that checks an image's invariants and interprets its synaptic data the
// way the firmware does (tests use it to decode images back to the network). Plain C++.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "nmsim/hw/spinnaker2/snn_image.h"
#include "tools/compiler/snn/compiler.h"

namespace nmsim::compiler::snn {

// Counts that fix a neuron PE's layout.
struct NeuronCounts {
    uint32_t n_neurons = 0;
    uint32_t n_record_v = 0;
    uint32_t record_words = 0;
    uint32_t spike_buffer_entries = 0;
    uint32_t mpt_count = 0;
    uint32_t addr_list_count = 0;
    uint32_t n_delay_slots = 1;
    uint32_t syn_matrix_words = 0;
};

// Byte offsets of the regions from S2_SNN_IMAGE_BASE (0 for absent regions), and the image size.
struct PeLayout {
    uint32_t counters = 0, params = 0, state = 0, record_v_index = 0, record_stage = 0;
    uint32_t spike_buffer = 0, mpt = 0, addr_list = 0, input = 0, syn_matrix = 0;
    uint32_t spike_tick_index = 0, spike_keys = 0;
    uint32_t size = 0;     // image bytes
    uint32_t padding = 0;  // alignment bytes inside `size`
};

PeLayout neuron_layout(const NeuronCounts& c);
// A source PE with its spike list in SRAM (in_sram) or in DRAM (header and counters only).
PeLayout source_layout(uint32_t n_ticks, uint32_t n_spikes, bool in_sram);
inline uint32_t input_stride(uint32_t n_neurons) { return (n_neurons + 1u) & ~1u; }

// One block of a neuron PE's synaptic matrix: the rows of one source vertex's neurons for one
// projection; rows[i] holds the synapse words of source neuron i of that vertex.
struct SynBlock {
    uint32_t src_vertex = 0;
    uint32_t projection = 0;
    std::vector<std::vector<uint32_t>> rows;
    uint32_t stride() const;  // 1 + the longest row
};

struct NeuronPeSpec {
    uint32_t vertex = 0, pe = 0, n_neurons = 0, n_ticks = 0;
    uint32_t tick_cycles = 0, timestep_ns = 0;
    reference::SnnLifFixed lif;
    bool record_spikes = true;
    bool has_targets = true;         // false: S2_SNN_FLAG_NO_TARGETS (spikes are not sent)
    std::vector<uint32_t> record_v;  // local neuron indices
    uint32_t record_dram = 0;        // global address of the records (if any are recorded)
    uint32_t spike_buffer_entries = 256;
    uint32_t n_delay_slots = 1;
    std::vector<SynBlock> blocks;  // grouped by source vertex ascending, then projection
};
NeuronCounts neuron_counts(const NeuronPeSpec& s);
uint32_t record_words(uint32_t n_neurons, bool record_spikes, uint32_t n_record_v);
PeImage build_neuron_image(const NeuronPeSpec& s);

struct SourcePeSpec {
    uint32_t vertex = 0, pe = 0, n_neurons = 0, n_ticks = 0;
    uint32_t tick_cycles = 0, timestep_ns = 0;
    // The spike list: the keys of tick t are keys[tick_index[t] .. tick_index[t + 1] - 1]
    // (key_base | index, ascending within a tick); tick_index has n_ticks + 1 entries.
    std::vector<uint32_t> tick_index;
    std::vector<uint32_t> keys;
    uint32_t dram_addr = 0;  // 0: the list is in SRAM; else its global DRAM address
};
// The spike list as stored: uint32 tick index[n_ticks + 1], then the keys.
std::vector<uint8_t> source_spike_list(const SourcePeSpec& s);
PeImage build_source_image(const SourcePeSpec& s);

// An image that breaks the format (what and where in the message).
class ImageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// An image read back through the snn_image.h structs only.
struct DecodedPe {
    s2_snn_image_t header{};
    s2_snn_counters_t counters{};
    // neuron PE
    s2_snn_lif_params_t params{};
    std::vector<s2_snn_neuron_state_t> state;
    std::vector<uint32_t> record_v_index;
    std::vector<s2_snn_mpt_entry_t> mpt;
    std::vector<uint32_t> addr_list;
    std::vector<uint32_t> syn_matrix;
    std::vector<uint32_t> block_rows;  // per address-list entry: rows of its block
    // source PE
    std::vector<uint32_t> spike_tick_index, spike_keys;

    // What the firmware does with a received key: the synapse words of every row it reaches
    // (master population table -> address list -> rows), in address-list order; empty if the
    // key matches no entry (or only empty rows).
    std::vector<uint32_t> synapses_for_key(uint32_t key) const;
    // The index of the master population table entry `key` matches, or -1.
    int mpt_index(uint32_t key) const;
};

// Reads and checks an image: magic, version, kind, size, every region aligned, inside the image
// and below S2_SNN_IMAGE_LIMIT, regions disjoint; n_neurons 1..256; master population table
// sorted, masks contiguous, entries disjoint, address-list ranges inside the list; blocks
// contiguous in address-list order, each row's count below its stride, synapse words with index
// < n_neurons, delay <= n_delay_slots, weight <= S2_SNN_WEIGHT_MAX, reserved bits 0; n_delay_slots
// and the spike buffer powers of two; LIF parameters in range; the spike list monotone with keys
// of this vertex. A list in DRAM is read from `dram` (the compiler's regions). Throws ImageError.
DecodedPe decode_pe_image(const PeImage& img, const std::vector<DramRegion>& dram = {});

}  // namespace nmsim::compiler::snn
