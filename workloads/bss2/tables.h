// Trace tables of the bss2 workload (traces/README.md, "BrainScaleS-2 tables"): what the host
// sent and the FPGA recorded, decoded with the placement; the configuration; and the results the
// report prints (rates per run and population), so a run can be reused without re-running.
#pragma once

#include <cstdint>

#include "nmsim/trace/sink.h"

namespace nmsim::workloads::bss2 {

struct InputSpikeRecord {
    uint64_t t_ps;  // since the run's start (as injected: the FPGA rounds to its 8 ns clock)
    uint32_t run;
    uint16_t population;
    uint16_t neuron;
    uint16_t event;  // 16-bit L2 event
    uint8_t pad_[6];
};
NMSIM_TRACE_TABLE(InputSpikeRecord, "events/bss2_input_spikes",
                  "input spikes the host sent (external populations), per realtime run",
                  NMSIM_COL(InputSpikeRecord, t_ps, "ps", "time since the run's start"),
                  NMSIM_COL(InputSpikeRecord, run, "1", "realtime run (batch entry)"),
                  NMSIM_COL(InputSpikeRecord, population, "1",
                            "population index in the network file"),
                  NMSIM_COL(InputSpikeRecord, neuron, "1", "neuron index in the population"),
                  NMSIM_COL(InputSpikeRecord, event, "1", "16-bit L2 event label"));

struct OutputSpikeRecord {
    uint64_t t_ps;  // FPGA timestamp (arrival at the FPGA) since the run's start
    uint32_t run;
    uint16_t population;
    uint16_t neuron;
    uint16_t event;
    uint8_t pad_[6];
};
NMSIM_TRACE_TABLE(OutputSpikeRecord, "events/bss2_output_spikes",
                  "spikes the FPGA recorded (on-chip neurons), per realtime run",
                  NMSIM_COL(OutputSpikeRecord, t_ps, "ps",
                            "FPGA timestamp (8 ns clock) since the run's start"),
                  NMSIM_COL(OutputSpikeRecord, run, "1", "realtime run (batch entry)"),
                  NMSIM_COL(OutputSpikeRecord, population, "1",
                            "population index in the network file"),
                  NMSIM_COL(OutputSpikeRecord, neuron, "1", "neuron index in the population"),
                  NMSIM_COL(OutputSpikeRecord, event, "1", "16-bit L2 output event"));

struct MadcSampleRecord {
    uint64_t t_ps;  // FPGA timestamp since the run's start
    double v_mV;    // the code converted back with the MADC range
    uint32_t run;
    uint16_t neuron;  // hemisphere * 256 + column
    uint16_t code;
};
NMSIM_TRACE_TABLE(MadcSampleRecord, "events/bss2_madc",
                  "membrane samples of the MADC-selected neuron, per realtime run",
                  NMSIM_COL(MadcSampleRecord, t_ps, "ps", "FPGA timestamp since the run's start"),
                  NMSIM_COL(MadcSampleRecord, v_mV, "mV",
                            "sample converted to the membrane voltage"),
                  NMSIM_COL(MadcSampleRecord, run, "1", "realtime run (batch entry)"),
                  NMSIM_COL(MadcSampleRecord, neuron, "1", "neuron: hemisphere * 256 + column"),
                  NMSIM_COL(MadcSampleRecord, code, "1", "ADC code"));

struct ConfigWordRecord {
    uint32_t addr;
    uint32_t data;
};
NMSIM_TRACE_TABLE(ConfigWordRecord, "bss2/config",
                  "the static chip configuration the host compiled (Omnibus words, bss2_map.h)",
                  NMSIM_COL(ConfigWordRecord, addr, "1", "24-bit word address"),
                  NMSIM_COL(ConfigWordRecord, data, "1", "data word"));

struct PlacementRecord {
    uint16_t population;
    uint16_t neuron;
    uint16_t hemi;
    uint16_t column;
    uint16_t addr;
    uint16_t pad_;
};
NMSIM_TRACE_TABLE(PlacementRecord, "bss2/placement",
                  "where each on-chip neuron of the network sits",
                  NMSIM_COL(PlacementRecord, population, "1",
                            "population index in the network file"),
                  NMSIM_COL(PlacementRecord, neuron, "1", "neuron index in the population"),
                  NMSIM_COL(PlacementRecord, hemi, "1", "hemisphere (0 top, 1 bottom)"),
                  NMSIM_COL(PlacementRecord, column, "1", "neuron column 0..255"),
                  NMSIM_COL(PlacementRecord, addr, "1", "8-bit event address"));

struct PopulationRecord {
    uint32_t size;
    uint16_t population;
    uint16_t pad_;
    char name[48];
    char kind[16];
};
NMSIM_TRACE_TABLE(PopulationRecord, "bss2/populations", "the network's populations",
                  NMSIM_COL(PopulationRecord, size, "1", "neurons"),
                  NMSIM_COL(PopulationRecord, population, "1",
                            "population index in the network file"),
                  NMSIM_STR_COL(PopulationRecord, name, "population name"),
                  NMSIM_STR_COL(PopulationRecord, kind, "external, internal or background"));

struct RunRecord {
    double input_rate_hz;  // NaN unless the run's Poisson/regular inputs share one rate
    double runtime_us;
    uint32_t run;
    uint32_t pad_;
};
NMSIM_TRACE_TABLE(RunRecord, "bss2/runs", "the realtime runs and their configured input rate",
                  NMSIM_COL(RunRecord, input_rate_hz, "Hz",
                            "the rate of the run's inputs when they all share one (the swept "
                            "quantity of an input_sweep); NaN otherwise"),
                  NMSIM_COL(RunRecord, runtime_us, "us", "duration, hardware time"),
                  NMSIM_COL(RunRecord, run, "1", "realtime run (batch entry)"));

struct RateRecord {
    double rate_hz;
    uint64_t spikes;
    uint32_t run;
    uint16_t population;
    uint16_t pad_;
};
NMSIM_TRACE_TABLE(RateRecord, "bss2/rates",
                  "the report's rates table: mean rate per neuron, per run and population",
                  NMSIM_COL(RateRecord, rate_hz, "Hz",
                            "spikes per neuron per second of hardware time (external: injected, "
                            "internal: recorded by the FPGA)"),
                  NMSIM_COL(RateRecord, spikes, "1", "spikes of the population in the run"),
                  NMSIM_COL(RateRecord, run, "1", "realtime run (batch entry)"),
                  NMSIM_COL(RateRecord, population, "1", "population index in the network file"));

}  // namespace nmsim::workloads::bss2
