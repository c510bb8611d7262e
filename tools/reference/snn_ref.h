// Application-level reference of the SpiNNaker2 serial SNN paradigm (seed 001 eq. 1): the
// network's populations, synapses and source spike trains, simulated tick by tick with exactly
// the firmware's fixed-point arithmetic and order (firmware/include/nmsim/hw/spinnaker2/
// snn_image.h, docs/snn_compiler.md "Per-tick order"), independent of the per-PE images; and the
// same difference equation in doubles for the comparison with Brian2. Plain C++.
//
// Integer semantics, per tick t = 0 .. n_ticks - 1:
//   1. every neuron j updates with its input of tick t:
//        I = exc[t][j] - inh[t][j]               (each a sum of weights saturated at 32767)
//        R = v_th if the neuron spiked at tick t - 1 and reset is subtract, else 0
//        refractory r > 0: r -= 1, v = sat32(v - R), no spike (I discarded)
//        else v = sat32(((alpha * v + 2^15) >> 16) + I * 2^16 + i_offset - R)
//             spike if v >= v_th: r = t_ref; to_v_reset: v = v_reset
//   2. every spike of tick t (neurons of step 1 and sources' ticks) adds the weight of each of
//      its synapses to exc or inh [t + delay][post], saturating at 32767.
// The float version is the same with doubles (alpha unquantised, no rounding or saturation).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace nmsim::reference {

// LIF parameters in the image's fixed point: Q16.16 voltages in weight LSB, alpha Q0.16.
struct SnnLifFixed {
    uint32_t alpha = 0;  // 0 .. 65536
    int32_t v_th = 0;    // > 0
    int32_t v_reset = 0;
    int32_t i_offset = 0;
    int32_t v_init = 0;
    uint32_t t_ref = 0;
    bool subtract = true;  // reset mode: subtract v_th (eq. 1) or set v_reset
};

struct SnnLifFloat {
    double alpha = 0;
    double v_th = 0;
    double v_reset = 0;
    double i_offset = 0;
    double v_init = 0;
    uint32_t t_ref = 0;
    bool subtract = true;
};

struct SnnRefPopulation {
    std::string name;
    uint32_t size = 0;
    SnnLifFixed lif;
    SnnLifFloat lif_float;
    std::vector<uint32_t> record_v;  // neurons whose membrane is returned every tick
};

struct SnnRefSynapse {
    bool pre_is_source = false;
    uint32_t pre_group = 0;  // population or source index
    uint32_t pre = 0;        // neuron index
    uint32_t post_population = 0;
    uint32_t post = 0;
    uint32_t weight = 0;  // magnitude
    uint32_t delay = 1;   // ticks >= 1
    bool inhibitory = false;
};

struct SnnRefNetwork {
    std::vector<SnnRefPopulation> populations;
    // Per source group, per source neuron: the ticks it spikes at (increasing).
    std::vector<std::vector<std::vector<uint32_t>>> sources;
    std::vector<SnnRefSynapse> synapses;
    uint32_t n_ticks = 0;
};

struct SnnSpike {
    uint32_t tick = 0;
    uint32_t population = 0;
    uint32_t neuron = 0;
    bool operator==(const SnnSpike& o) const {
        return tick == o.tick && population == o.population && neuron == o.neuron;
    }
    bool operator<(const SnnSpike& o) const {
        if (tick != o.tick) return tick < o.tick;
        return population != o.population ? population < o.population : neuron < o.neuron;
    }
};

template <typename V>
struct SnnVoltageTrace {
    uint32_t population = 0;
    uint32_t neuron = 0;
    std::vector<V> v;  // the membrane at the end of every tick
};

template <typename V>
struct SnnRefResult {
    std::vector<SnnSpike> spikes;              // sorted by (tick, population, neuron)
    std::vector<SnnVoltageTrace<V>> voltages;  // record_v of each population, in order
    uint64_t saturations = 0;                  // input additions that saturated (integer only)
};

// Integer reference: voltages in Q16.16. Throws std::invalid_argument for a malformed network
// (indices out of range, delay 0).
SnnRefResult<int32_t> snn_reference(const SnnRefNetwork& net);
// The same difference equation in doubles (weight LSB).
SnnRefResult<double> snn_reference_float(const SnnRefNetwork& net);

// v rounded to the nearest Q16.16 value, saturated to int32 (half away from zero).
int32_t to_q16(double v);

}  // namespace nmsim::reference
