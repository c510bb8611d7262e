// The spiking-network description of the SpiNNaker2 serial paradigm (seed 001 sec. III-A; the
// sPyNNaker way): LIF populations (eq. 1), spike sources (Poisson rates or spike-time lists) and
// projections between them with 8-bit signed-magnitude weights and delays in ticks. Connectors
// are expanded into synapse lists when a network is loaded, spike trains when it is compiled for
// a number of ticks. Plain C++: no SystemC, no models. Format: docs/snn_compiler.md.
//
// Units: time in ticks of `timestep` ms (tau_m in ms); membrane voltages, thresholds and currents
// in weight LSB (one unit of a synapse's weight: a weight-w spike adds w to the membrane).
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "tools/compiler/source_ref.h"

namespace nmsim::compiler::snn {

using compiler::Range;
using compiler::SourceRef;

// A network that cannot be described. The message names file:line:col (if known), the key path
// or element, and the reason.
class NetworkError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

enum class ResetMode { subtract, to_v_reset };
const char* to_string(ResetMode m);

enum class SynapseType : uint8_t { excitatory = 0, inhibitory = 1 };
const char* to_string(SynapseType t);

// LIF neuron parameters of a population (seed 001 eq. 1 plus i_offset, refractoriness and the
// reset mode). The compiler turns them into the fixed-point words of snn_image.h
// (lif_fixed() in compiler.h).
struct LifParams {
    double tau_m = 20.0;          // ms: alpha = exp(-timestep / tau_m) unless alpha is given
    std::optional<double> alpha;  // decay per tick, 0..1 (overrides tau_m)
    double v_th = 64.0;           // weight LSB, > 0
    double v_reset = 0.0;         // weight LSB (reset to_v_reset)
    ResetMode reset = ResetMode::subtract;
    double i_offset = 0.0;  // weight LSB added every non-refractory tick
    uint32_t t_ref = 0;     // refractory ticks after a spike
    double v_init = 0.0;    // weight LSB, membrane at tick 0
};

// The range of each LifParams value (docs/snn_compiler.md, "Parameter ranges").
Range tau_m_range();     // ms
Range alpha_range();     // 0..1
Range v_th_range();      // weight LSB: one Q16.16 LSB .. 32767
Range voltage_range();   // v_reset, v_init, i_offset: -32768 .. 32767 weight LSB
Range timestep_range();  // ms
Range rate_range();      // Hz

// Bounds of the loader (docs/snn_compiler.md, "Bounds").
constexpr uint32_t kMaxPopulationSize = 38912;       // 152 PEs x 256 neurons
constexpr uint64_t kMaxCandidatePairs = 1ull << 26;  // pre x post of a generated connector
constexpr uint64_t kMaxSynapses = 4'000'000;         // whole network: more than 152 x 90 KiB holds
constexpr uint32_t kMaxElements = 4096;              // populations + sources, and projections
constexpr uint32_t kMaxSpikeTick = 0x7FFFFFFFu;
constexpr int32_t kMaxWeight = 127;  // 7-bit magnitude of the 8-bit signed-magnitude weight
constexpr uint32_t kMaxDelay = 16;   // ticks (4-bit delay field)

// The decay per tick of `lif` at `timestep_ms`.
double decay_per_tick(const LifParams& lif, double timestep_ms);

// How a population's synaptic processing is mapped (seed 001 sec. III, IV; docs/snn_parallel.md):
// serial (ARM, sPyNNaker way), parallel (MLA: a dominant and subordinate PEs), automatic (the
// shipped classifier decides), ideal (both compiled, the one with fewer PEs kept).
enum class Paradigm { serial, parallel, automatic, ideal };
const char* paradigm_name(Paradigm p);  // "serial", "parallel", "auto", "ideal"
// "serial" | "parallel" | "auto" | "ideal"; false for anything else.
bool parse_paradigm(const std::string& s, Paradigm& out);

struct Population {
    std::string name;
    uint32_t size = 0;
    LifParams lif;
    bool record_spikes = true;
    std::vector<uint32_t> record_v;    // neurons whose membrane is recorded every tick
    std::optional<Paradigm> paradigm;  // unset: CompileOptions::paradigm
    SourceRef where;
};

// A spike source: `size` independent sources, either Poisson of `rate_hz` each (seeded) or the
// given spike ticks per source.
struct Source {
    std::string name;
    uint32_t size = 0;
    std::optional<double> rate_hz;                   // Poisson
    std::vector<std::vector<uint32_t>> spike_times;  // per source: ticks, increasing
    uint64_t seed = 0;                               // Poisson (derived if not given)
    SourceRef where;
};

// The pre side of a projection: a source or a population.
struct PreRef {
    bool is_source = false;
    uint32_t index = 0;  // into Network::sources or Network::populations
    bool operator==(const PreRef& o) const { return is_source == o.is_source && index == o.index; }
};

struct Synapse {
    uint32_t pre = 0;     // neuron index in the pre population or source
    uint32_t post = 0;    // neuron index in the post population
    uint32_t weight = 0;  // magnitude 0..kMaxWeight (the sign is the type)
    uint32_t delay = 1;   // ticks, 1..kMaxDelay
    SynapseType type = SynapseType::excitatory;
    bool operator==(const Synapse& o) const {
        return pre == o.pre && post == o.post && weight == o.weight && delay == o.delay &&
               type == o.type;
    }
};

struct Projection {
    std::string name;
    PreRef pre;
    uint32_t post = 0;              // population index
    std::vector<Synapse> synapses;  // the expanded connector
    SourceRef where;
};

struct Network {
    double timestep_ms = 1.0;
    uint64_t seed = 1;  // default seeds of sources and random connectors derive from it
    std::vector<Population> populations;
    std::vector<Source> sources;
    std::vector<Projection> projections;
    std::string file;  // the YAML file, "" if built in code

    uint32_t pre_size(const PreRef& p) const {
        return p.is_source ? sources[p.index].size : populations[p.index].size;
    }
    const std::string& pre_name(const PreRef& p) const {
        return p.is_source ? sources[p.index].name : populations[p.index].name;
    }
    uint64_t synapse_count() const;
};

// Checks a network built in code (the loader applies the same rules with file:line:col): unique
// names, sizes, parameters in range, synapse indices, weights and delays, record_v indices,
// spike times increasing. Throws NetworkError naming the element.
void validate(const Network& net);

// Reads a network YAML file (docs/snn_compiler.md, "Network files"). Errors name file:line:col
// and the key path.
Network load_network(const std::string& path);

// ---- Deterministic random numbers (docs/snn_compiler.md, "Random numbers") ----
uint64_t splitmix64(uint64_t x);
// derive(seed, salt) = splitmix64(seed ^ splitmix64(salt)): the seed of an independent stream.
uint64_t derive_seed(uint64_t seed, uint64_t salt);
// FNV-1a 64 of a name: the salt of an element's default seed.
uint64_t name_hash(const std::string& s);
// A double in [0, 1) from the top 53 bits of one mt19937_64 draw.
double unit_double(uint64_t draw);

// The default seed of an element (random connector, Poisson source) named `name`.
inline uint64_t element_seed(uint64_t network_seed, const std::string& name) {
    return derive_seed(network_seed, name_hash(name));
}

// fixed_probability: synapse (i, j) exists if the j-th draw of stream derive_seed(seed, i) is
// below p (every pre neuron its own stream: independent of slicing and iteration order).
std::vector<std::pair<uint32_t, uint32_t>> fixed_probability_pairs(uint32_t n_pre, uint32_t n_post,
                                                                   double p, uint64_t seed,
                                                                   bool allow_self);

// Spike trains of every source over `n_ticks` ticks: [source][neuron] -> increasing ticks.
// Poisson: source neuron i spikes at tick t if the t-th draw of stream derive_seed(seed, i) is
// below 1 - exp(-rate * timestep) (at most one spike per tick; a longer run extends a shorter
// one). spike_times: the given ticks below n_ticks.
using SpikeTrains = std::vector<std::vector<std::vector<uint32_t>>>;
SpikeTrains spike_trains(const Network& net, uint32_t n_ticks);

}  // namespace nmsim::compiler::snn
