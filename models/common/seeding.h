// One seed drives every random stream of a run (DESIGN.md, determinism). splitmix64 (Steele,
// Lea, Flood 2014) spreads a seed and a salt (a component index, a run number) into independent-
// looking 64-bit seeds and serves as a counter-based generator where streams must not depend on
// call order.
#pragma once

#include <cstdint>

namespace nmsim {

constexpr uint64_t splitmix64(uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

// Sequential use: returns the next value of the generator with state `state` and advances it.
constexpr uint64_t splitmix64_next(uint64_t& state) {
    const uint64_t r = splitmix64(state);
    state += 0x9E3779B97F4A7C15ull;
    return r;
}

// The seed of stream `salt` of a run seeded with `seed`.
constexpr uint64_t derive_seed(uint64_t seed, uint64_t salt) {
    return splitmix64(seed + 0x9E3779B97F4A7C15ull * salt);
}

}  // namespace nmsim
