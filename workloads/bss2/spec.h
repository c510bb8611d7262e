// The `bss2` workload: a spiking experiment on the BrainScaleS-2 chip (brainscales2). The network
// file is mapped and routed by the host compiler; one initial configuration is followed by a
// batch of realtime runs (seed 004 Fig. 3.14). Schema in schema.cpp, host program in host.cpp;
// docs/bss2.md.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tools/scenario/workload.h"

namespace nmsim::workloads::bss2 {

using scenario::Origin;

// One external population's input spike trains in a realtime run (times in us of hardware time,
// relative to the run's start): Poisson or regular at `rate_hz` per neuron in [start_us, stop_us),
// or explicit `times_us` per neuron.
struct Input {
    std::string population;
    enum class Kind { poisson, regular, times } kind = Kind::poisson;
    double rate_hz = 0;
    double start_us = 0;
    std::optional<double> stop_us;              // default: the run's end
    std::vector<std::vector<double>> times_us;  // kind times: one list per neuron
    Origin origin;
};

struct Run {
    std::vector<Input> inputs;
    Origin origin;
};

struct Bss2Workload : scenario::WorkloadSpec {
    std::string network;       // network YAML file (absolute path)
    double runtime_us = 1000;  // duration of every realtime run (hardware time)
    std::vector<Run> runs;     // >= 1; `input_sweep` expands to one run per rate
    struct Probe {
        std::string population;
        uint64_t neuron = 0;
        Origin origin;
    };
    std::optional<Probe> madc;  // record this neuron's membrane with the MADC
    bool cadc = false;          // read all membranes with the CADC at the end of every run
    bool reset_between_runs = true;
    // Write the signal-flow graph here (relative to the working directory); "" = no graph.
    std::string dot;
    Origin origin;
    std::map<std::string, Origin> origins;  // per key, as DnnWorkload::origins

    // The configured rate of run `run`'s Poisson/regular inputs when they all share one rate
    // (the swept quantity of an input_sweep); nullopt otherwise.
    std::optional<double> input_rate_hz(size_t run) const;

    std::unique_ptr<scenario::WorkloadSpec> clone() const override;
    void dump(YAML::Emitter& e) const override;
    void diff(const scenario::WorkloadSpec& other, const std::string& prefix,
              scenario::Differ& d) const override;
};

const scenario::WorkloadSchema& schema();

}  // namespace nmsim::workloads::bss2
