// Routing-table entries of the SpiNNaker2 spike router as plain values: what the host compiler
// produces and what SpikeRouter::load_table takes. Header only, no SystemC: it includes nothing
// but the standard library and the firmware register map (router_regs.h), so tools that must not
// depend on the models can use it.
//
// Matching (docs/router.md): a packet with key k matches entry e iff (k & e.mask) == e.key; the
// first matching entry in table order decides the route. An entry whose key has bits outside its
// mask never matches (as on SpiNNaker's TCAM).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "nmsim/hw/spinnaker2/noc_map.h"
#include "nmsim/hw/spinnaker2/router_regs.h"

namespace nmsim::spinnaker2 {

// A set of the chip's PEs, by global index (4 * qpe_index + pe, 0..151). The words are the
// ROUTE0..4 words of a table entry: bit j of word w is PE 32 w + j.
struct RoutePes {
    static constexpr uint32_t kWords = S2_ROUTER_ENTRY_ROUTE_WORDS;
    static constexpr uint32_t kPes = S2_NOC_N_PES;
    uint32_t w[kWords] = {};

    void set(uint32_t pe) { w[pe >> 5] |= 1u << (pe & 31u); }
    void reset(uint32_t pe) { w[pe >> 5] &= ~(1u << (pe & 31u)); }
    bool test(uint32_t pe) const { return pe < kPes && ((w[pe >> 5] >> (pe & 31u)) & 1u) != 0; }
    bool any() const {
        for (uint32_t x : w)
            if (x) return true;
        return false;
    }
    uint32_t count() const {
        uint32_t n = 0;
        for (uint32_t x : w) n += static_cast<uint32_t>(__builtin_popcount(x));
        return n;
    }
    // Bits at or above kPes (ROUTE4 bits 24..31): no PE has such an index.
    bool has_invalid_bits() const { return (w[kWords - 1] >> (kPes - 32 * (kWords - 1))) != 0; }
    // The 4 bits of QPE q (PEs 4q .. 4q + 3), PE 4q in bit 0.
    uint32_t qpe_bits(uint32_t q) const { return (w[q >> 3] >> ((q & 7u) * 4u)) & 0xFu; }
    bool operator==(const RoutePes& o) const {
        for (uint32_t i = 0; i < kWords; ++i)
            if (w[i] != o.w[i]) return false;
        return true;
    }
    bool operator!=(const RoutePes& o) const { return !(*this == o); }
};

struct RouterEntry {
    uint32_t key = 0;
    uint32_t mask = 0;
    RoutePes pes;       // destination PEs
    uint8_t links = 0;  // bit k: chip link k (0..5, S2_ROUTER_LINK_*)

    bool matches(uint32_t k) const { return (k & mask) == key; }
    bool operator==(const RouterEntry& o) const {
        return key == o.key && mask == o.mask && pes == o.pes && links == o.links;
    }
};

// The index of the first entry that matches `key`, or -1.
inline long first_match(const std::vector<RouterEntry>& table, uint32_t key) {
    for (size_t i = 0; i < table.size(); ++i)
        if (table[i].matches(key)) return static_cast<long>(i);
    return -1;
}

// The 8 words of a valid table entry as the router's table window holds them (router_regs.h), in
// the order a host writes them to s2_router_entry_addr(index).
inline void encode_entry(const RouterEntry& e, uint32_t out[S2_ROUTER_ENTRY_WORDS]) {
    out[S2_ROUTER_ENTRY_KEY] = e.key;
    out[S2_ROUTER_ENTRY_MASK] = e.mask;
    for (uint32_t i = 0; i < RoutePes::kWords; ++i) out[S2_ROUTER_ENTRY_ROUTE0 + i] = e.pes.w[i];
    out[S2_ROUTER_ENTRY_CTRL] = NM_FIELD_SET(e.links, S2_ROUTER_ENTRY_CTRL_LINKS) |
                                NM_FIELD_SET(1u, S2_ROUTER_ENTRY_CTRL_VALID);
}

// The table as one block of words for the table window: entry i at words 8 i .. 8 i + 7.
inline std::vector<uint32_t> encode_table(const std::vector<RouterEntry>& table) {
    std::vector<uint32_t> words(table.size() * S2_ROUTER_ENTRY_WORDS);
    for (size_t i = 0; i < table.size(); ++i)
        encode_entry(table[i], &words[i * S2_ROUTER_ENTRY_WORDS]);
    return words;
}

// The entry held in 8 table words and whether its VALID bit is set.
inline RouterEntry decode_entry(const uint32_t in[S2_ROUTER_ENTRY_WORDS], bool* valid) {
    RouterEntry e;
    e.key = in[S2_ROUTER_ENTRY_KEY];
    e.mask = in[S2_ROUTER_ENTRY_MASK];
    for (uint32_t i = 0; i < RoutePes::kWords; ++i) e.pes.w[i] = in[S2_ROUTER_ENTRY_ROUTE0 + i];
    e.links =
        static_cast<uint8_t>(NM_FIELD_GET(in[S2_ROUTER_ENTRY_CTRL], S2_ROUTER_ENTRY_CTRL_LINKS));
    if (valid) *valid = NM_FIELD_GET(in[S2_ROUTER_ENTRY_CTRL], S2_ROUTER_ENTRY_CTRL_VALID) != 0;
    return e;
}

}  // namespace nmsim::spinnaker2
