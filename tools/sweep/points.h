// Expands a sweep file into its points. The combination rule (docs/sweeps.md):
//   points = grid x zip x random, where the grid is the cartesian product of `axes` (file order,
//   the last axis varies fastest), `zip` is one dimension whose i-th entry takes the i-th value of
//   every zipped list, and `random` is one dimension of `n` samples drawn once from `seed` (the
//   same samples are combined with every grid/zip entry). An absent part counts as one entry.
//   Point ids count up in that nested order: grid outermost, then zip, then random innermost.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tools/sweep/sweep_file.h"

namespace nmsim::sweep {

struct Point {
    uint32_t id = 0;
    // The varied parameters in column order (axes, zip, random), value text as passed to --set.
    std::vector<std::pair<std::string, std::string>> params;
};

// The varied parameter paths in column order: axes, then zip, then random (file order each).
std::vector<std::string> varied_paths(const SweepSpec& s);

// All points of the sweep. Deterministic: the random samples depend only on random.seed.
std::vector<Point> expand_points(const SweepSpec& s);

// The random samples alone (n rows, params in file order); exposed for tests.
std::vector<std::vector<std::string>> draw_samples(const RandomSpec& r);

// The most points one sweep may have (a sweep directory holds a trace per point; sample a larger
// space with `random`, or split it).
constexpr uint64_t kMaxPoints = 1000000;

// The number of points expand_points() returns, without building them (checks overflow).
uint64_t point_count(const SweepSpec& s);

}  // namespace nmsim::sweep
