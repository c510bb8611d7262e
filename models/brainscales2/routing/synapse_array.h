// The 256 x 256 synapses of one BrainScaleS-2 hemisphere (seed 004 sections 3.1.1-3.1.2;
// docs/hardware_facts.md B1). Synapse (row, col) holds a 6-bit weight and a 6-bit label; a row
// event with label L reaches every synapse of the row whose label equals L ("each synapse locally
// compares its configurable 6 bit label value to the incoming event's value and elicits an event
// on match"); a synapse with weight 0 has no effect and is skipped. A matching synapse sends
// weight * efficacy (weight LSB units, efficacy from the synapse driver) to neuron column col.
//
// Speed: each row keeps an index label -> (column, weight) of its non-zero synapses, rebuilt
// lazily at the first event after a configuration write to that row, so a row event costs
// O(matching synapses), not O(256).
//
// Configuration (offsets relative to BSS2_SYNAPSE(h, 0, 0)): row * 256 + col; bits 5:0 weight,
// bits 11:6 label.
#pragma once

#include <systemc>

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "models/brainscales2/neuron/synaptic_input.h"
#include "models/common/param.h"
#include "nmsim/hw/brainscales2/bss2_map.h"
#include "nmsim/trace/sink.h"

namespace nmsim::bss2 {

struct SynapseArrayParams {
    NMSIM_PARAMSET(SynapseArrayParams);
    NMSIM_PARAM(nmsim::Time, latency, nmsim::Time::from_ps(0), "", nmsim::range(0, 1e9),
                "delay from a row event to the synaptic input of the neurons",
                "assumed: 0, the label comparison is part of the driver's pulse (seed 004 "
                "section 3.1.1); not public");
};

class SynapseArray : public sc_core::sc_module {
public:
    // The synaptic inputs of one row event, all at t_ps (n >= 1).
    using SynapseSink =
        std::function<void(const SynapticInput* inputs, size_t n, bool inhibitory, uint64_t t_ps)>;

    SynapseArray(sc_core::sc_module_name name, uint32_t hemi,
                 const SynapseArrayParams& params = SynapseArrayParams{});

    bool write_config(uint32_t offset, uint32_t data, std::string* error);
    bool read_config(uint32_t offset, uint32_t* data, std::string* error) const;

    // A synapse label sent to row `row` by its driver at t_ps.
    void row_event(uint32_t row, uint32_t label6, double efficacy, bool inhibitory, uint64_t t_ps);
    void bind_synapse(SynapseSink sink) { m_sink = std::move(sink); }

    uint32_t hemi() const { return m_hemi; }
    uint32_t weight(uint32_t row, uint32_t col) const;
    uint32_t label(uint32_t row, uint32_t col) const;

    uint64_t row_events() const { return m_row_events; }
    uint64_t synaptic_events() const { return m_synaptic_events; }  // matching synapses
    uint64_t malformed() const { return m_malformed; }
    uint64_t index_rebuilds() const { return m_rebuilds; }
    void write_summary(nmsim::trace::Sink& sink, nmsim::trace::ComponentId c) const;

private:
    struct Entry {
        uint16_t col;
        uint16_t weight;
    };
    struct RowIndex {
        std::array<uint16_t, 65> start{};  // entries of label L: [start[L], start[L + 1])
        std::vector<Entry> entries;
        bool dirty = true;
    };
    void rebuild_row(uint32_t row);

    SynapseArrayParams m_params;
    uint32_t m_hemi;
    std::vector<uint16_t> m_words;  // as written: weight | label << 6
    std::vector<RowIndex> m_index;
    SynapseSink m_sink;
    std::vector<SynapticInput> m_batch;  // row_event's inputs, reused
    uint64_t m_row_events = 0, m_synaptic_events = 0, m_malformed = 0, m_unbound = 0;
    uint64_t m_rebuilds = 0;
};

}  // namespace nmsim::bss2
