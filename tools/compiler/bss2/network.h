// The abstract spiking-network description of the BrainScaleS-2 back end (seed 004 section 4.1.4,
// Listings 16-20): populations (external spike sources, on-chip AdEx neurons, on-chip background
// generators) and projections between them (connection lists or dense matrices, excitatory or
// inhibitory, 6-bit weights, optional short-term plasticity). It holds no placement and no input
// data: spike trains are execution data (bss2/executor.h). Plain C++: no SystemC, no models.
//
// Units are those of the emulated hardware (1000x faster than biology, seed 004 section 3.2.3):
// time in us, voltage in mV of the membrane circuit, capacitance in pF, current in nA,
// conductance in uS (pF / us). docs/bss2.md explains the neuron parameters.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "tools/compiler/source_ref.h"

namespace nmsim::compiler::bss2 {

// Where an element was written ("nets/wta.yaml:12:5"), numeric ranges and numbers in messages:
// shared with the other network loaders (tools/compiler/source_ref.h).
using compiler::format_number;
using compiler::Range;
using compiler::SourceRef;

// A network that cannot be described, mapped or routed. The message names the file/line (if
// known), the population or projection, and the reason or the exhausted resource.
class NetworkError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// One on-chip AdEx neuron (calibration targets; the chip adds its fixed-pattern mismatch).
// Defaults: calix default calibration targets (hardware_facts.md B1) where they exist,
// converted with a CADC range of 0..1.2 V over 256 codes (assumed); see docs/bss2.md.
struct NeuronProperties {
    double v_leak = 375.0;       // mV   (calix leak target 80 CADC LSB)
    double v_reset = 328.0;      // mV   (calix reset target 70 CADC LSB)
    double v_threshold = 586.0;  // mV   (calix threshold target 125 CADC LSB): spike comparator
    double c_mem = 2.2;          // pF   (calix C_mem 63 LSB = 2.2 pF)
    double tau_mem = 10.0;       // us   (calix default tau_mem)
    double tau_syn_exc = 5.0;    // us   (calibratable 0.3..30 us; assumed 5)
    double tau_syn_inh = 5.0;    // us
    double t_ref = 2.0;          // us   (calix default refractory time)
    double i_offset = 0.0;       // nA   constant input current
    double w_exc = 0.3;          // nA per weight LSB: excitatory synaptic input strength (assumed)
    double w_inh = 0.3;          // nA per weight LSB: inhibitory
    bool exponential = false;    // AdEx exponential term on
    double v_exp = 560.0;        // mV   V_T of the exponential term
    double delta_t = 10.0;       // mV   slope factor
    bool adaptation = false;     // adaptation current on
    double tau_w = 100.0;        // us
    double a = 0.0;              // uS   subthreshold adaptation
    double b = 0.0;              // nA   spike-triggered adaptation increment
    bool integrator = false;     // hagen mode: integrates from v_reset, no leak, no spikes
};

enum class PopulationKind { external, internal, background };
const char* to_string(PopulationKind k);

// The valid values of a numeric network parameter (Range: the closed interval [lo, hi] in
// `unit`, and the hardware reason; docs/bss2_compiler.md, "Parameter ranges") are checked once,
// when a network is loaded (with the file:line:col and key) or added in code (Network::add).

// A numeric field of NeuronProperties: its key (as in network files) and range.
struct NeuronParameter {
    const char* key;
    double NeuronProperties::*field;
    Range range;
};
// Every numeric field of NeuronProperties, in declaration order (the booleans `exponential` and
// `adaptation` have no range).
const std::vector<NeuronParameter>& neuron_parameters();

// Ranges of the other numeric network keys (docs/bss2_compiler.md, "Parameter ranges").
Range population_size_range(PopulationKind kind);  // background: also a power of two
Range stp_u_range();
Range stp_tau_rec_range();  // us

// The background generator setting for `rate_hz` per neuron of a population of `size` (seed 004:
// one generator per population, 125 MHz clock): regular = one event every `period` cycles;
// Poisson = an event with probability rate/256 every `period` cycles. Returns "" and fills `period`
// and `rate`, or the reason the rate cannot be produced.
std::string background_setting(double rate_hz, size_t size, bool poisson, uint32_t* period,
                               uint32_t* rate);

struct Population {
    std::string name;
    PopulationKind kind = PopulationKind::internal;
    size_t size = 0;
    std::vector<NeuronProperties> neurons;  // internal: one per neuron (size entries)
    bool record_spikes = true;              // internal: route its spikes to the FPGA
    // internal: optional placement hints (the router fills in the rest).
    std::optional<uint32_t> hemisphere;    // 0 top, 1 bottom
    std::optional<uint32_t> first_column;  // first neuron column (consecutive columns)
    // background: each neuron is an independent source of `rate_hz` (hardware time, Hz),
    // Poisson or regular; size must be a power of two <= 256 (the generator randomises the low
    // log2(size) label bits, hardware_facts.md B4).
    double rate_hz = 0.0;
    bool poisson = true;
    SourceRef where;
};

enum class Receptor { excitatory, inhibitory };
const char* to_string(Receptor r);

struct Connection {
    uint32_t source = 0;  // index in the source population
    uint32_t target = 0;  // index in the target population
    uint32_t weight = 0;  // 0..63 (6-bit synapse weight)
};

// Short-term plasticity of a projection's synapse drivers (Tsodyks-Markram depression).
struct Stp {
    double u = 0.2;        // utilisation (hardware_facts.md B1: "some 0.2")
    double tau_rec = 100;  // us recovery time constant (assumed)
};

struct Projection {
    std::string name;
    size_t source = 0;  // population index
    size_t target = 0;  // population index (must be internal)
    Receptor receptor = Receptor::excitatory;
    std::vector<Connection> connections;  // dense matrices are expanded by the loader
    std::optional<Stp> stp;
    SourceRef where;
};

struct Network {
    std::vector<Population> populations;
    std::vector<Projection> projections;
    std::string file;  // the YAML file, "" if built in code

    // Add with validation (throws NetworkError naming the element): unique names, sizes,
    // targets internal, indices in range, weights 0..63, background size a power of two <= 256,
    // neuron parameters (neuron_parameters()) and STP (stp_u_range, stp_tau_rec_range) in range.
    size_t add(Population p);
    size_t add(Projection p);
    const Population* find(const std::string& name) const;  // nullptr if absent
};

// Reads a network YAML file (format: docs/bss2_compiler.md, "Network files"). Errors name
// file:line:col and the key.
Network load_network(const std::string& path);
// As load_network(), on the text of a network file already in memory (the fuzz harness,
// tools/fuzz); `path` names it in messages and in Network::file.
Network parse_network(const std::string& text, const std::string& path);

}  // namespace nmsim::compiler::bss2
