// What a synapse row delivers to the neurons of its hemisphere at one time: per matching synapse
// the column and the amount (weight x efficacy). The synapse array hands a row event's inputs
// over as one batch (SynapseArray::bind_synapse), the neuron array takes them so
// (AdexArray::add_inputs): one time conversion and one queue slot per row event, not per synapse.
#pragma once

#include <cstdint>

namespace nmsim::bss2 {

struct SynapticInput {
    uint32_t column;
    double amount;
};

}  // namespace nmsim::bss2
