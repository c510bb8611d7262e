// The `snn` workload: a spiking network on the SpiNNaker2 chip (spinnaker2_chip), serial
// paradigm of seed 001 (sPyNNaker's way). The host compiler (tools/compiler/snn) turns `network`
// into per-PE images and router entries; the generic `snn` firmware runs `ticks` timer ticks;
// the spikes read back are checked against the integer reference. Schema in schema.cpp, host
// program in host.cpp; docs/snn.md.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tools/scenario/workload.h"

namespace nmsim::workloads::snn {

using scenario::Origin;

struct SnnWorkload : scenario::WorkloadSpec {
    std::string network;    // network YAML (tools/compiler/snn), absolute path (required)
    uint64_t ticks = 1000;  // timer ticks to run (1 .. kMaxTicks)
    uint32_t first_pe = 0;  // placement starts at this global PE index
    uint32_t max_neurons_per_pe = 255;  // machine-graph split (sPyNNaker and seed 001: 255)
    uint32_t max_matrix_split = 4;      // PEs one population's synaptic matrix may span
    // Paradigm of populations without their own: serial | parallel | auto | ideal (seed 001).
    std::string paradigm = "serial";
    // A published PE count printed next to the compiled one (e.g. seed 001's 9), with its source.
    uint64_t published_pes = 0;
    std::string published_source;
    std::string firmware = "snn";               // built-in program name or .elf path
    std::string firmware_path;                  // resolved absolute ELF path
    std::string firmware_parallel = "snn_par";  // program of the parallel paradigm's PEs
    std::string firmware_parallel_path;
    bool check = true;                      // compare every spike with the integer reference
    Origin origin;                          // of the `snn` map
    std::map<std::string, Origin> origins;  // per key ("network", "ticks", ...)

    static constexpr uint64_t kMaxTicks = 10'000'000;

    Origin origin_of(const std::string& field) const;

    std::unique_ptr<scenario::WorkloadSpec> clone() const override;
    void dump(YAML::Emitter& e) const override;
    void diff(const scenario::WorkloadSpec& other, const std::string& prefix,
              scenario::Differ& d) const override;
};

const scenario::WorkloadSchema& schema();

}  // namespace nmsim::workloads::snn
