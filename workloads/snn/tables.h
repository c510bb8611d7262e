// Trace tables of the snn workload (traces/README.md, "SNN tables"): every spike, the load of
// every PE in every tick, recorded membrane voltages, and one row per PE of the machine graph with
// its counters and its DTCM use next to seed 001's Table I estimate.
#pragma once

#include <cstdint>

#include "nmsim/trace/sink.h"

namespace nmsim::workloads::snn {

struct SpikeRecord {
    uint32_t tick;
    uint32_t population;  // index in snn/populations
    uint32_t neuron;      // index in the population
};
NMSIM_TRACE_TABLE(SpikeRecord, "snn/spikes", "every spike of the LIF populations, as recorded",
                  NMSIM_COL(SpikeRecord, tick, "tick", "the tick the neuron spiked in"),
                  NMSIM_COL(SpikeRecord, population, "1", "population index (snn/populations)"),
                  NMSIM_COL(SpikeRecord, neuron, "1", "neuron index in the population"));

struct TickLoadRecord {
    uint32_t tick;
    uint32_t pe;
    uint32_t busy_cycles;      // the tick's work: neuron update, recording, its synaptic rows
    uint32_t synaptic_events;  // synapse words processed as the tick's
};
NMSIM_TRACE_TABLE(
    TickLoadRecord, "snn/tick_load", "per neuron PE and tick: the work the tick took",
    NMSIM_COL(TickLoadRecord, tick, "tick", "tick index"),
    NMSIM_COL(TickLoadRecord, pe, "1", "global PE index"),
    NMSIM_COL(TickLoadRecord, busy_cycles, "cycles",
              "neuron update, recording and synaptic processing of the tick (PE clock)"),
    NMSIM_COL(TickLoadRecord, synaptic_events, "1", "synapse words processed as the tick's"));

struct VoltageRecord {
    int32_t v_q16;  // Q16.16 weight LSB
    uint32_t tick;
    uint32_t population;
    uint32_t neuron;
};
NMSIM_TRACE_TABLE(VoltageRecord, "snn/voltages",
                  "membrane voltage at the end of every tick of the recorded neurons",
                  NMSIM_COL(VoltageRecord, v_q16, "LSB/65536",
                            "membrane in Q16.16 units of one weight LSB"),
                  NMSIM_COL(VoltageRecord, tick, "tick", "tick index"),
                  NMSIM_COL(VoltageRecord, population, "1", "population index"),
                  NMSIM_COL(VoltageRecord, neuron, "1", "neuron index in the population"));

struct PopulationRecord {
    uint32_t index;
    uint32_t size;
    uint32_t is_source;  // 1: spike source, 0: LIF population
    uint32_t pad_;
    char name[64];
};
NMSIM_TRACE_TABLE(PopulationRecord, "snn/populations",
                  "the network's populations and sources (indices of the other tables)",
                  NMSIM_COL(PopulationRecord, index, "1",
                            "index among populations (or among sources if is_source)"),
                  NMSIM_COL(PopulationRecord, size, "1", "neurons"),
                  NMSIM_COL(PopulationRecord, is_source, "1", "1 spike source, 0 LIF population"),
                  NMSIM_STR_COL(PopulationRecord, name, "name in the network file"));

struct PeRecord {
    uint64_t synaptic_events;
    uint32_t pe;
    uint32_t vertex;
    uint32_t is_source;
    uint32_t element;  // population or source index
    uint32_t lo, n;    // neurons [lo, lo + n) of the element
    uint32_t packets;
    uint32_t spikes_sent;
    uint32_t overruns;
    uint32_t max_tick_cycles;
    uint32_t mpt_misses;
    uint32_t buffer_overflows;
    uint32_t dtcm_bytes;    // the image, stack and argument block (nmsim's layout)
    uint32_t table1_bytes;  // seed 001 Table I's estimate for the same PE
    uint32_t dtcm_budget_bytes;
    uint32_t role;  // PeRole
};
// What a PE of the snn workload runs.
enum PeRole : uint32_t {
    kRoleSerial = 0,
    kRoleSource = 1,
    kRoleDominant = 2,
    kRoleSubordinate = 3
};
NMSIM_TRACE_TABLE(
    PeRecord, "snn/pes", "per PE of the machine graph: what it holds and its counters",
    NMSIM_COL(PeRecord, synaptic_events, "1", "synapse words processed in the run"),
    NMSIM_COL(PeRecord, pe, "1", "global PE index"),
    NMSIM_COL(PeRecord, vertex, "1", "machine vertex id (keys vertex << 8 | neuron)"),
    NMSIM_COL(PeRecord, is_source, "1", "1 spike-source PE, 0 LIF neurons"),
    NMSIM_COL(PeRecord, element, "1", "population (or source) index"),
    NMSIM_COL(PeRecord, lo, "1", "first neuron of the element on this PE"),
    NMSIM_COL(PeRecord, n, "1", "neurons on this PE"),
    NMSIM_COL(PeRecord, packets, "1", "multicast packets received"),
    NMSIM_COL(PeRecord, spikes_sent, "1", "multicast packets sent"),
    NMSIM_COL(PeRecord, overruns, "1",
              "ticks whose timer event came before the previous tick's work ended"),
    NMSIM_COL(PeRecord, max_tick_cycles, "cycles", "the longest tick's work"),
    NMSIM_COL(PeRecord, mpt_misses, "1", "received keys without a master population table entry"),
    NMSIM_COL(PeRecord, buffer_overflows, "1", "received keys lost to a full input spike buffer"),
    NMSIM_COL(PeRecord, dtcm_bytes, "B", "image, stack and argument block as laid out"),
    NMSIM_COL(PeRecord, table1_bytes, "B", "seed 001 Table I's cost model for this PE"),
    NMSIM_COL(PeRecord, dtcm_budget_bytes, "B", "the DTCM budget (96 KiB)"),
    NMSIM_COL(PeRecord, role, "1",
              "0 serial-paradigm LIF PE, 1 spike source, 2 parallel dominant, 3 parallel "
              "subordinate"));

}  // namespace nmsim::workloads::snn
