// Lowering of a signal-flow graph's execution instance to the static chip configuration: the
// (address, data) words of firmware/include/nmsim/hw/brainscales2/bss2_map.h, in a deterministic
// order (by entity kind, then by coordinate), plus the decoder the tests use to read them back.
// docs/bss2_graph.md lists the words each vertex type produces.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>
#include <utility>
#include <vector>

#include "tools/compiler/bss2/graph.h"

namespace nmsim::compiler::bss2 {

// A vertex configuration that cannot be expressed in configuration words (value out of a
// field's range, two vertices configuring one entity differently); names vertex and field.
class LoweringError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

using ConfigWord = std::pair<uint32_t, uint32_t>;  // (24-bit word address, data)

// The static configuration of `instance`, in this order: PADI bus enables, crossbar nodes,
// synapse drivers (CFG, and STP_U/STP_TAU_REC if STP is on), synapses, neurons (words
// BSS2_NRN_CFG..BSS2_NRN_W_INH), background generators (PERIOD, RATE, LABEL of all, then their
// CFG words last so that the generators start only after everything else is configured).
// Within a kind, entities are ordered by coordinate; references configure nothing new.
std::vector<ConfigWord> configuration(const Graph& graph, ExecutionInstance instance);

// Neuron words BSS2_NRN_CFG..BSS2_NRN_W_INH of one neuron, converted to the map's fixed-point
// units (uV, fF, ps, pS, fA; rounded to nearest). Throws LoweringError naming `who` and the
// field if a value does not fit its word.
constexpr size_t kNeuronWords = BSS2_NRN_W_INH + 1;
std::array<uint32_t, kNeuronWords> neuron_words(const NeuronProperties& p, uint32_t addr,
                                                uint32_t flags, const std::string& who);

// The neurons (hemisphere, column) configured in `instance`, and for each whether its spike
// detector drives the output channel (BSS2_NRN_CFG_FIRE): true iff a CrossbarNode reads the
// neuron's channel from a NeuronEventOutputView fed by its NeuronView.
std::map<std::pair<uint32_t, uint32_t>, bool> instance_neurons(const Graph& graph,
                                                               ExecutionInstance instance);

// ---- decoder (tests, debugging) ------------------------------------------------------------

struct DecodedNeuron {
    uint32_t flags = 0;
    uint32_t addr = 0;
    NeuronProperties properties;  // converted back to mV, pF, us, uS, nA
};

struct DecodedDriver {
    uint32_t row_mask = 0;
    bool lower5 = false;
    uint32_t mode[2] = {0, 0};
    bool stp = false;
    bool enable = false;
    bool hagen = false;
    std::optional<uint32_t> stp_u;        // raw word (1/256)
    std::optional<uint32_t> stp_tau_rec;  // raw word (ns)
};

struct ChipConfig {
    std::set<std::pair<uint32_t, uint32_t>> padi_buses;  // (hemi, bus)
    std::map<std::pair<uint32_t, uint32_t>, std::pair<uint32_t, uint32_t>>
        nodes;                                                       // (in,out) -> (mask,target)
    std::set<std::pair<uint32_t, uint32_t>> enabled_nodes;           // (in, out)
    std::map<std::pair<uint32_t, uint32_t>, DecodedDriver> drivers;  // (hemi, driver)
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, std::pair<uint32_t, uint32_t>>
        synapses;  // (hemi, row, col) -> (weight, label)
    std::map<std::pair<uint32_t, uint32_t>, DecodedNeuron> neurons;  // (hemi, column)
    std::map<uint32_t, BackgroundCfg> background;                    // index -> cfg (+ enable)
    std::set<uint32_t> background_enabled;
};

// Decodes configuration words (throws LoweringError for an address outside the written blocks
// of bss2_map.h).
ChipConfig decode_configuration(const std::vector<ConfigWord>& words);

}  // namespace nmsim::compiler::bss2
