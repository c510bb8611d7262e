// Multicast routing of the SNN compiler: one router entry per source vertex (its 256 keys, key =
// vertex << 8 | neuron index, to the set of PEs holding targets of its neurons), and their exact
// key/mask compression (docs/snn_compiler.md, "Keys and routing"). Plain C++.
#pragma once

#include <cstdint>
#include <vector>

namespace nmsim::compiler::snn {

// One entry of the chip's multicast table: a packet with key k takes this entry if
// (k & mask) == key (the first such entry of the table); it is copied to every PE in `pes`
// (global PE indices, ascending) and out of every chip link set in `links` (bit i = link i of
// the router's 6 chip-to-chip links, hardware_facts.md A5; the compiler, for one chip, sets 0).
// The snn workload converts it to the router model's type.
struct RouterEntry {
    uint32_t key = 0;
    uint32_t mask = 0;
    std::vector<uint32_t> pes;
    uint8_t links = 0;
    bool operator==(const RouterEntry& o) const {
        return key == o.key && mask == o.mask && pes == o.pes && links == o.links;
    }
    bool same_route(const RouterEntry& o) const { return pes == o.pes && links == o.links; }
};

// The first entry that `key` matches, or nullptr (the packet matches no entry: it is dropped or
// default-routed, as the router model decides; the compiler never relies on either).
const RouterEntry* route_lookup(const std::vector<RouterEntry>& table, uint32_t key);

// Exact compression of a table of per-vertex entries (mask S2_SNN_KEY_VERTEX_MASK, key = vertex
// << 8, vertices < n_vertices, each at most once). Entries with the same route are merged into
// ternary cubes over the vertex id (Quine-McCluskey: prime implicants of the route's vertices
// plus the unused ids n_vertices .. 2^w - 1 as don't-cares, w the bits of n_vertices - 1, then a
// greedy cover). For every key of every vertex id below n_vertices the result gives the same
// route as the input (no entry when the input had none), and keys with a vertex id >= 2^w match
// no entry. Ids n_vertices .. 2^w - 1 are emitted by no vertex and may match any entry. Output
// sorted by (key, mask); never longer than the input.
std::vector<RouterEntry> compress_routes(const std::vector<RouterEntry>& table,
                                         uint32_t n_vertices);

}  // namespace nmsim::compiler::snn
