// The `hagen` workload: one matrix product y = x W on BrainScaleS-2 chips in hagen mode (the
// synapse arrays as analog vector-matrix multipliers, seeds 002 and 004): random 5-bit inputs and
// 6-bit signed weights from the scenario seed, tiled onto the chips' halves by the host compiler,
// run through the simulated FPGAs and chips by the hagen executor with the host in the loop, the
// values checked against the integer reference. Schema in schema.cpp, host program in host.cpp;
// docs/bss2_hagen.md.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "tools/scenario/workload.h"

namespace nmsim::workloads::hagen {

using scenario::Origin;

struct HagenWorkload : scenario::WorkloadSpec {
    uint32_t in = 128;                 // inputs per vector (rows of W)
    uint32_t out = 256;                // outputs per vector (columns of W)
    uint32_t batch = 100;              // input vectors
    uint32_t chips = 1;                // chips (each with its FPGA) the tiles are spread over
    uint32_t num_sends = 1;            // repetitions of each vector (seed 002 sec. 3.5)
    uint32_t wait_between_events = 8;  // FPGA cycles between events (seed 004 Listing 25)
    bool baseline = true;              // CADC baseline read before every vector (grenade)
    bool rewrite_synapses = false;     // the v1 workaround (seed 002 sec. 4.1)
    double input_density = 1.0;        // probability of a non-zero input
    uint32_t input_max = 31;           // inputs uniform in [1, input_max] where non-zero
    uint32_t weight_max = 63;          // weights uniform in [-weight_max, weight_max]
    uint64_t max_program_words = uint64_t{8} << 20;  // instructions per playback program
    bool check = true;  // compare with the integer reference (exact in the ideal setting)
    Origin origin;
    std::map<std::string, Origin> origins;

    static constexpr uint32_t kMaxDim = 16384;                  // seed 002 Fig. 8: up to 2^14
    // The product's signal-flow graph holds two synapse cells per weight (about 60 B per weight
    // with the operands): 2^24 weights (4096 x 4096, seed 004 Fig. 5.12) take about 1 GB.
    static constexpr uint64_t kMaxWeights = uint64_t{1} << 24;
    static constexpr uint64_t kMaxValues = uint64_t{1} << 27;   // batch x in, batch x out

    Origin origin_of(const std::string& field) const;
    std::unique_ptr<scenario::WorkloadSpec> clone() const override;
    void dump(YAML::Emitter& e) const override;
    void diff(const scenario::WorkloadSpec& other, const std::string& prefix,
              scenario::Differ& d) const override;
};

const scenario::WorkloadSchema& schema();

}  // namespace nmsim::workloads::hagen
