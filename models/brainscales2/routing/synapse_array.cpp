#include "models/brainscales2/routing/synapse_array.h"

namespace nmsim::bss2 {
namespace {

constexpr uint32_t kWeightMask = (1u << BSS2_SYN_WEIGHT_WIDTH) - 1u;
constexpr uint32_t kLabelMask = (1u << BSS2_SYN_LABEL_WIDTH) - 1u;
constexpr uint32_t kWordMask = kWeightMask << BSS2_SYN_WEIGHT_SHIFT | kLabelMask
                                                                          << BSS2_SYN_LABEL_SHIFT;
constexpr uint32_t kSynapses = BSS2_ROWS * BSS2_COLUMNS;

}  // namespace

SynapseArray::SynapseArray(sc_core::sc_module_name name, uint32_t hemi,
                           const SynapseArrayParams& params)
    : sc_core::sc_module(name),
      m_params(params),
      m_hemi(hemi),
      m_words(kSynapses, 0),
      m_index(BSS2_ROWS) {}

bool SynapseArray::write_config(uint32_t offset, uint32_t data, std::string* error) {
    if (offset >= kSynapses) {
        if (error) {
            *error = "synapse array (hemi " + std::to_string(m_hemi) + "): offset " +
                     std::to_string(offset) + " beyond the 256 x 256 synapses";
        }
        return false;
    }
    if (data & ~kWordMask) {
        if (error) {
            *error = "synapse (hemi " + std::to_string(m_hemi) + ", row " +
                     std::to_string(offset / BSS2_COLUMNS) + ", col " +
                     std::to_string(offset % BSS2_COLUMNS) +
                     "): reserved bits set (only weight 5:0 and label 11:6) in " +
                     std::to_string(data);
        }
        return false;
    }
    m_words[offset] = static_cast<uint16_t>(data);
    m_index[offset / BSS2_COLUMNS].dirty = true;
    return true;
}

bool SynapseArray::read_config(uint32_t offset, uint32_t* data, std::string* error) const {
    if (offset >= kSynapses) {
        if (error) {
            *error = "synapse array (hemi " + std::to_string(m_hemi) + "): offset " +
                     std::to_string(offset) + " beyond the 256 x 256 synapses";
        }
        return false;
    }
    *data = m_words[offset];
    return true;
}

uint32_t SynapseArray::weight(uint32_t row, uint32_t col) const {
    return (m_words[(row % BSS2_ROWS) * BSS2_COLUMNS + col % BSS2_COLUMNS] >>
            BSS2_SYN_WEIGHT_SHIFT) &
           kWeightMask;
}

uint32_t SynapseArray::label(uint32_t row, uint32_t col) const {
    return (m_words[(row % BSS2_ROWS) * BSS2_COLUMNS + col % BSS2_COLUMNS] >>
            BSS2_SYN_LABEL_SHIFT) &
           kLabelMask;
}

void SynapseArray::rebuild_row(uint32_t row) {
    RowIndex& idx = m_index[row];
    // Counting sort of the row's non-zero synapses by label, columns ascending within a label.
    std::array<uint16_t, 65> count{};
    const uint16_t* w = &m_words[row * BSS2_COLUMNS];
    for (uint32_t c = 0; c < BSS2_COLUMNS; ++c) {
        if ((w[c] >> BSS2_SYN_WEIGHT_SHIFT) & kWeightMask) {
            ++count[((w[c] >> BSS2_SYN_LABEL_SHIFT) & kLabelMask) + 1];
        }
    }
    idx.start[0] = 0;
    for (uint32_t l = 1; l <= 64; ++l)
        idx.start[l] = static_cast<uint16_t>(idx.start[l - 1] + count[l]);
    idx.entries.assign(idx.start[64], Entry{0, 0});
    std::array<uint16_t, 64> fill{};
    for (uint32_t l = 0; l < 64; ++l) fill[l] = idx.start[l];
    for (uint32_t c = 0; c < BSS2_COLUMNS; ++c) {
        const uint32_t wt = (w[c] >> BSS2_SYN_WEIGHT_SHIFT) & kWeightMask;
        if (!wt) continue;
        const uint32_t l = (w[c] >> BSS2_SYN_LABEL_SHIFT) & kLabelMask;
        idx.entries[fill[l]++] = Entry{static_cast<uint16_t>(c), static_cast<uint16_t>(wt)};
    }
    idx.dirty = false;
    ++m_rebuilds;
}

void SynapseArray::row_event(uint32_t row, uint32_t label6, double efficacy, bool inhibitory,
                             uint64_t t_ps) {
    if (row >= BSS2_ROWS || label6 > kLabelMask) {
        ++m_malformed;
        return;
    }
    ++m_row_events;
    RowIndex& idx = m_index[row];
    if (idx.dirty) rebuild_row(row);
    const uint32_t begin = idx.start[label6], end = idx.start[label6 + 1];
    m_synaptic_events += end - begin;
    if (!m_sink) {
        m_unbound += end - begin;
        return;
    }
    const uint64_t t_out = t_ps + static_cast<uint64_t>(m_params.latency.ps);
    if (begin == end) return;
    const Entry* e = idx.entries.data();
    m_batch.clear();
    for (uint32_t i = begin; i < end; ++i)
        m_batch.push_back({e[i].col, static_cast<double>(e[i].weight) * efficacy});
    m_sink(m_batch.data(), m_batch.size(), inhibitory, t_out);
}

void SynapseArray::write_summary(nmsim::trace::Sink& sink, nmsim::trace::ComponentId c) const {
    sink.counter(c, "row_events", "1", static_cast<double>(m_row_events));
    sink.counter(c, "synaptic_events", "1", static_cast<double>(m_synaptic_events));
    sink.counter(c, "malformed", "1", static_cast<double>(m_malformed));
    sink.counter(c, "unbound", "1", static_cast<double>(m_unbound));
}

}  // namespace nmsim::bss2
