// The hagen workload's compile step: operands, plan and timing (host.h). No simulation.
#include <algorithm>
#include <random>

#include "workloads/hagen/host.h"

namespace nmsim::workloads::hagen {

namespace {

// Inputs non-zero with probability `density`, then uniform in [1, max]; weights uniform in
// [-wmax, wmax]. One stream per operand, so that changing the batch keeps the weights.
void draw_operands(const HagenWorkload& w, uint64_t seed, Compiled& c) {
    std::mt19937_64 rw(seed * 0x9E3779B97F4A7C15ull + 1), rx(seed * 0x9E3779B97F4A7C15ull + 2);
    c.w = hg::IntMatrix(w.in, w.out);
    std::uniform_int_distribution<int32_t> wd(-static_cast<int32_t>(w.weight_max),
                                              static_cast<int32_t>(w.weight_max));
    for (int32_t& v : c.w.v) v = wd(rw);
    c.x = hg::IntMatrix(w.batch, w.in);
    std::bernoulli_distribution on(w.input_density);
    std::uniform_int_distribution<int32_t> xd(1, static_cast<int32_t>(std::max(1u, w.input_max)));
    for (int32_t& v : c.x.v) v = (w.input_max > 0 && on(rx)) ? xd(rx) : 0;
}

}  // namespace

Compiled compile(const HagenWorkload& w, uint64_t seed) {
    Compiled c;
    draw_operands(w, seed, c);
    c.plan = hg::plan_matmul(w.in, w.out, w.chips, "workload.hagen");
    c.timing.num_sends = w.num_sends;
    c.timing.wait_between_events = w.wait_between_events;
    c.timing.baseline = w.baseline;
    c.timing.rewrite_synapses = w.rewrite_synapses;
    return c;
}

double transport_bound_ops(const hg::MatmulPlan& plan, double bits_per_s) {
    constexpr double kInBits = 32, kTriggerBits = 16, kOutBits = 16;  // seed 004 Table 3.1
    double to_chip = 0, from_chip = 0;
    for (const hg::Tile& t : plan.tiles) {
        to_chip += t.rows * kInBits + t.cols * kTriggerBits;
        from_chip += t.cols * kOutBits;
    }
    const double macs = double(plan.in_features) * plan.out_features;
    return bits_per_s * macs / std::max(to_chip, from_chip);
}

}  // namespace nmsim::workloads::hagen
