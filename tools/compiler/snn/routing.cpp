// Router table compression (docs/snn_compiler.md, "Keys and routing").
#include "tools/compiler/snn/routing.h"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>

#include "nmsim/hw/spinnaker2/snn_image.h"

namespace nmsim::compiler::snn {

const RouterEntry* route_lookup(const std::vector<RouterEntry>& table, uint32_t key) {
    for (const RouterEntry& e : table)
        if ((key & e.mask) == e.key) return &e;
    return nullptr;
}

namespace {

// A ternary cube over the w-bit vertex id: ids x with (x & mask) == value (value & ~mask == 0).
using Cube = std::pair<uint32_t, uint32_t>;  // value, mask

bool covers(const Cube& c, uint32_t id) { return (id & c.second) == c.first; }

// The prime implicants of `terms` (Quine-McCluskey): merge cubes of equal mask whose values
// differ in one cared bit until nothing merges; cubes that merged into nothing are prime.
std::vector<Cube> prime_implicants(std::set<Cube> current) {
    std::vector<Cube> primes;
    while (!current.empty()) {
        std::set<Cube> next, used;
        for (const Cube& c : current)
            for (uint32_t bits = c.second; bits != 0; bits &= bits - 1) {
                const uint32_t b = bits & (~bits + 1);  // lowest cared bit
                if ((c.first & b) != 0) continue;       // pair from the 0 side only
                const Cube partner{c.first | b, c.second};
                if (current.count(partner) == 0) continue;
                next.insert({c.first, c.second & ~b});
                used.insert(c);
                used.insert(partner);
            }
        for (const Cube& c : current)
            if (used.count(c) == 0) primes.push_back(c);
        current = std::move(next);
    }
    return primes;
}

int popcount(uint32_t x) {
    int n = 0;
    for (; x != 0; x &= x - 1) ++n;
    return n;
}

}  // namespace

std::vector<RouterEntry> compress_routes(const std::vector<RouterEntry>& table,
                                         uint32_t n_vertices) {
    if (n_vertices > (1u << 16))
        throw std::invalid_argument("compress_routes: more than 65536 vertices");
    uint32_t w = 0;  // id bits: ids 0 .. 2^w - 1 hold every vertex
    while ((1u << w) < n_vertices) ++w;
    const uint32_t full = (1u << w) - 1u;
    // Vertices by route, in the order of their first appearance (deterministic output).
    std::map<std::pair<std::vector<uint32_t>, uint8_t>, std::vector<uint32_t>> groups;
    std::set<uint32_t> seen;
    for (const RouterEntry& e : table) {
        const uint32_t v = e.key >> S2_SNN_KEY_VERTEX_SHIFT;
        if (e.mask != S2_SNN_KEY_VERTEX_MASK || (e.key & ~S2_SNN_KEY_VERTEX_MASK) != 0 ||
            v >= n_vertices || !seen.insert(v).second)
            throw std::invalid_argument("compress_routes: entry for key " + std::to_string(e.key) +
                                        " is not one vertex's keys, once, below " +
                                        std::to_string(n_vertices) + " vertices");
        groups[{e.pes, e.links}].push_back(v);
    }
    std::vector<RouterEntry> out;
    for (const auto& [route, ids] : groups) {
        std::set<Cube> terms;
        for (uint32_t id : ids) terms.insert({id, full});
        for (uint32_t id = n_vertices; id <= full; ++id) terms.insert({id, full});  // unused
        std::vector<Cube> primes = prime_implicants(std::move(terms));
        // Greedy cover of the route's vertices: the prime covering most uncovered ones, ties to
        // the larger cube, then the smaller (value, mask).
        std::set<uint32_t> uncovered(ids.begin(), ids.end());
        while (!uncovered.empty()) {
            const Cube* best = nullptr;
            size_t best_n = 0;
            for (const Cube& c : primes) {
                size_t n = 0;
                for (uint32_t id : uncovered) n += covers(c, id) ? 1 : 0;
                if (n == 0) continue;
                const bool better =
                    best == nullptr || n > best_n ||
                    (n == best_n && (popcount(c.second) < popcount(best->second) ||
                                     (popcount(c.second) == popcount(best->second) && c < *best)));
                if (better) {
                    best = &c;
                    best_n = n;
                }
            }
            for (auto it = uncovered.begin(); it != uncovered.end();)
                it = covers(*best, *it) ? uncovered.erase(it) : std::next(it);
            RouterEntry e;
            e.key = best->first << S2_SNN_KEY_VERTEX_SHIFT;
            e.mask = S2_SNN_KEY_VERTEX_MASK & ~((~best->second & full) << S2_SNN_KEY_VERTEX_SHIFT);
            e.pes = route.first;
            e.links = route.second;
            out.push_back(std::move(e));
        }
    }
    std::sort(out.begin(), out.end(), [](const RouterEntry& a, const RouterEntry& b) {
        return a.key != b.key ? a.key < b.key : a.mask < b.mask;
    });
    return out;
}

}  // namespace nmsim::compiler::snn
