// The just-in-time graph executor (seed 004 section 4.1.2, Listing 13, Figs. 4.7-4.9): executes
// the execution instances of a signal-flow graph in topological order of the instance graph.
// Per instance: preprocess (host digital operations whose inputs are ready, e.g. SpikeLabelMap
// of an earlier instance's recorded spikes), compile (static configuration from lowering.h, then
// for each batch entry a realtime run with the input spikes as immediates), execute on the
// instance's chip connection, postprocess (decode the responses into DataOutput / MADC / CADC
// data, then the remaining digital operations). Everything runs sequentially: realtime runs on
// one chip are serialised anyway, and pre/post-processing is cheap compared to them (grenade
// overlaps them with tbb::flow_graph; docs/bss2_graph.md).
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <vector>

#include "tools/compiler/bss2/graph.h"
#include "tools/compiler/bss2/playback_program.h"

namespace nmsim::compiler::bss2 {

class ExecutionError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Wall-clock phases of one program execution as measured by the platform (host link model).
struct ExecutionTimes {
    double host_to_fpga_us = 0;  // program transfer
    double config_us = 0;        // static configuration writes
    double realtime_us = 0;      // the realtime runs
    double readback_us = 0;      // responses back to the host
    double total_us = 0;
};

struct ExecutionResult {
    std::vector<uint64_t> responses;  // playback.h response words
    ExecutionTimes times;
};

// A handle to one physical chip (its FPGA): runs a playback program and returns the responses.
// Named ChipConnection because network.h already defines bss2::Connection (a synapse).
class ChipConnection {
public:
    virtual ~ChipConnection();
    virtual ExecutionResult execute(const std::vector<uint64_t>& program) = 0;
};

struct TimedSpike {
    double time_us = 0;  // since the start of the run
    uint32_t event = 0;  // 16-bit L2 event
    bool operator==(const TimedSpike& o) const { return time_us == o.time_us && event == o.event; }
};
using SpikeTrain = std::vector<TimedSpike>;  // one run
using SpikeBatch = std::vector<SpikeTrain>;  // one entry per run

struct TimedSample {
    double time_us = 0;
    uint32_t value = 0;
};

// Execution data keyed by vertex descriptor.
//   inputs:  spikes[ExternalInput] = the input spike trains (one entry per run).
//   outputs: spikes[DataOutput] = recorded spikes (times are the FPGA arrival times);
//            spikes[SpikeLabelMap] = its result; madc[MADCReadoutView] = samples per run;
//            cadc[CADCMembraneReadoutView] = per run one value per column; times and dropped
//            event counts per execution instance.
struct IODataMap {
    std::map<VertexDescriptor, SpikeBatch> spikes;
    std::map<VertexDescriptor, std::vector<std::vector<TimedSample>>> madc;
    std::map<VertexDescriptor, std::vector<std::vector<uint32_t>>> cadc;
    std::map<ExecutionInstance, ExecutionTimes> times;
    std::map<ExecutionInstance, uint32_t> dropped;
};

struct ExecutionOptions {
    double runtime_us = 100.0;        // duration of every run (from its timer reset)
    size_t batch_size = 1;            // runs per execution instance
    bool reset_between_runs = true;   // reset the neurons before every run (else before run 0)
    double cadc_read_delay_us = 1.0;  // CADC trigger -> first result read
};

class JitExecutor {
public:
    using Connections = std::map<PhysicalChip, ChipConnection*>;
    static IODataMap run(const Graph& graph, const IODataMap& inputs,
                         const Connections& connections, const ExecutionOptions& options);
};

}  // namespace nmsim::compiler::bss2
