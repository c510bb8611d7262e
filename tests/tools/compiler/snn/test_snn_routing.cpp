// Router table compression: exact for every key of every vertex (property test on random
// tables), keys past the id range match nothing (docs/snn_compiler.md, "Keys and routing").
#include <gtest/gtest.h>

#include <random>

#include "nmsim/hw/spinnaker2/snn_image.h"
#include "tools/compiler/snn/routing.h"

namespace nmsim::compiler::snn {
namespace {

RouterEntry entry(uint32_t vertex, std::vector<uint32_t> pes) {
    return {vertex << S2_SNN_KEY_VERTEX_SHIFT, S2_SNN_KEY_VERTEX_MASK, std::move(pes), 0};
}

TEST(SnnRouting, LookupTakesTheFirstMatch) {
    const std::vector<RouterEntry> t = {{0x100, 0xFFFFFF00, {1}, 0}, {0x100, 0xFFFFFE00, {2}, 0}};
    EXPECT_EQ(route_lookup(t, 0x1FF)->pes, std::vector<uint32_t>{1});
    EXPECT_EQ(route_lookup(t, 0x000), nullptr);
    EXPECT_EQ(route_lookup(t, 0x200), nullptr);
}

TEST(SnnRouting, MergesVerticesWithTheSameRoute) {
    // 5 vertices (ids 0..7 with 5..7 unused): 0, 1, 4 -> {2, 3}; 2, 3 -> {4}.
    const std::vector<RouterEntry> full = {entry(0, {2, 3}), entry(1, {2, 3}), entry(2, {4}),
                                           entry(3, {4}), entry(4, {2, 3})};
    const auto c = compress_routes(full, 5);
    ASSERT_EQ(c.size(), 2u);
    EXPECT_EQ(c[0], (RouterEntry{0x000, 0xFFFFFA00, {2, 3}, 0}));  // ids x0x: 0, 1, 4, 5
    EXPECT_EQ(c[1], (RouterEntry{0x200, 0xFFFFFA00, {4}, 0}));     // ids x1x: 2, 3, 6, 7
}

TEST(SnnRouting, VerticesWithoutRoutesStayUnrouted) {
    // 0 and 2 route to PE 9, 1 routes nowhere (3 is unused): the cube x0 covers 0 and 2 only.
    const auto c = compress_routes({entry(0, {9}), entry(2, {9})}, 3);
    ASSERT_EQ(c.size(), 1u);
    EXPECT_EQ(route_lookup(c, 1u << 8), nullptr);
    EXPECT_EQ(route_lookup(c, (2u << 8) | 77)->pes, std::vector<uint32_t>{9});
    // 0, 3 -> 9 and 1, 2 -> 8: each pair differs in both id bits, nothing merges.
    const auto d = compress_routes({entry(0, {9}), entry(1, {8}), entry(2, {8}), entry(3, {9})}, 4);
    EXPECT_EQ(d.size(), 4u);
}

TEST(SnnRouting, RejectsTablesThatAreNotPerVertex) {
    EXPECT_THROW(compress_routes({{0x100, 0xFFFFFE00, {1}, 0}}, 4), std::invalid_argument);
    EXPECT_THROW(compress_routes({entry(4, {1})}, 4), std::invalid_argument);
    EXPECT_THROW(compress_routes({entry(1, {1}), entry(1, {2})}, 4), std::invalid_argument);
    EXPECT_TRUE(compress_routes({}, 0).empty());
}

// Property: for random tables, every key of every vertex routes as before compression, and ids
// at or above 2^w (w the bits of n - 1) match nothing.
TEST(SnnRouting, CompressionIsExactOnRandomTables) {
    for (uint32_t seed = 1; seed <= 300; ++seed) {
        SCOPED_TRACE("seed " + std::to_string(seed));
        std::mt19937_64 rng(seed);
        const uint32_t n = 1 + static_cast<uint32_t>(rng() % 160);
        const uint32_t n_routes = 1 + static_cast<uint32_t>(rng() % 6);
        std::vector<std::vector<uint32_t>> routes(n_routes);
        for (auto& r : routes) {
            for (uint32_t pe = 0; pe < 152; ++pe)
                if (rng() % 20 == 0) r.push_back(pe);
            if (r.empty()) r.push_back(static_cast<uint32_t>(rng() % 152));
        }
        std::vector<RouterEntry> full;
        for (uint32_t v = 0; v < n; ++v)
            if (rng() % 4 != 0) full.push_back(entry(v, routes[rng() % n_routes]));
        const auto c = compress_routes(full, n);
        EXPECT_LE(c.size(), full.size());
        for (uint32_t v = 0; v < n; ++v)
            for (uint32_t idx : {0u, 1u, 128u, 254u, 255u}) {
                const uint32_t key = (v << 8) | idx;
                const RouterEntry* a = route_lookup(full, key);
                const RouterEntry* b = route_lookup(c, key);
                ASSERT_EQ(a == nullptr, b == nullptr) << "vertex " << v;
                if (a != nullptr) {
                    ASSERT_TRUE(a->same_route(*b)) << "vertex " << v;
                }
            }
        uint32_t w = 0;
        while ((1u << w) < n) ++w;
        for (uint32_t id : {1u << w, (1u << w) + 3, 0xFFFFFFu})
            EXPECT_EQ(route_lookup(c, id << 8), nullptr) << "id " << id;
    }
}

}  // namespace
}  // namespace nmsim::compiler::snn
