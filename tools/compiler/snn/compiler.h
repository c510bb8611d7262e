// The SNN compiler of the SpiNNaker2 serial paradigm (seed 001 sec. III-A, Table I; the sPyNNaker
// way): network -> machine graph (at most max_neurons_per_pe neurons per PE, equal splits; a
// population whose synaptic matrix does not fit is split further over 2..max_matrix_split
// adjacent PEs) -> placement on the chip's PEs -> keys -> router table (compressed) -> per-PE
// images (firmware/include/nmsim/hw/spinnaker2/snn_image.h) and DRAM regions, with the per-PE
// Table I report. Plain C++: no SystemC, no models. docs/snn_compiler.md.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "nmsim/hw/spinnaker2/snn_image.h"
#include "tools/compiler/snn/network.h"
#include "tools/compiler/snn/routing.h"
#include "tools/reference/snn_ref.h"

namespace nmsim::compiler::snn {

// A network the chip cannot hold: the message names the network file:line:col of the element,
// the element (population or source), the data structure or resource that does not fit, and
// the numbers.
class CompileError : public std::runtime_error {
public:
    CompileError(const std::string& msg, std::string element, std::string structure,
                 uint64_t needed, uint64_t available)
        : std::runtime_error(msg),
          m_element(std::move(element)),
          m_structure(std::move(structure)),
          m_needed(needed),
          m_available(available) {}
    const std::string& element() const { return m_element; }      // population / source name
    const std::string& structure() const { return m_structure; }  // Table I item or resource
    uint64_t needed() const { return m_needed; }
    uint64_t available() const { return m_available; }

private:
    std::string m_element, m_structure;
    uint64_t m_needed, m_available;
};

constexpr uint32_t kNoPe = 0xFFFFFFFFu;
// The longest run: 2^24 ticks (4.7 hours of 1 ms ticks); spike tick indices and records grow
// with it (4 B per tick and source PE, record_words x 4 B per tick and neuron PE).
constexpr uint32_t kMaxTicks = 1u << 24;

struct CompileOptions {
    uint32_t n_ticks = 1000;            // ticks to run, 1 .. kMaxTicks
    uint32_t max_neurons_per_pe = 255;  // seed 001 sec. III / sPyNNaker; 1 .. 256
    uint32_t max_matrix_split = 4;      // seed 001 sec. IV-A: "2-4 adjacent PEs"; >= 1
    // The seed's DTCM (sec. IV-A: 96 kB): image + stack + args block; 8 KiB .. S2_SNN_DTCM_BYTES.
    uint32_t dtcm_bytes = S2_SNN_DTCM_BYTES;
    uint32_t spike_buffer_entries = 256;  // input spike buffer, a power of two >= 1
    double core_clock_hz = 150e6;         // PE clock (platform pl0_freq) for the tick period
    // Global PE indices the network may use, in placement order; empty: 0 .. 151.
    std::vector<uint32_t> pes;
    uint32_t dram_base = S2_EXT_BASE;  // global DRAM address of the records and spike lists
    uint32_t dram_size = 0x40000000u;  // bytes from dram_base the compiler may fill
    // Router entries after compression: the SpiNNaker2 router's 16,384 (hardware_facts.md A5).
    uint32_t max_router_entries = 16384;
    // false: sources get keys and routes but no PE (their spikes are injected into the router);
    // for the PE count analysis (gesture_pe_counts) and hosts that inject spikes.
    bool sources_on_pes = true;
    // Paradigm of every population without its own `paradigm` (network.h).
    Paradigm paradigm = Paradigm::serial;
};

// One vertex of the machine graph: neurons [lo, lo + n) of a population or source, on one PE.
struct MachineVertex {
    uint32_t id = 0;  // keys id << 8 | index
    bool is_source = false;
    uint32_t app = 0;  // population or source index
    uint32_t lo = 0, n = 0;
    uint32_t pe = kNoPe;  // global PE index (kNoPe: injected source)
    uint32_t key() const { return id << S2_SNN_KEY_VERTEX_SHIFT; }
};

struct MachineGraph {
    std::vector<MachineVertex> vertices;  // by id: sources first, then populations
    std::vector<std::vector<uint32_t>> population_vertices;  // per population, ascending lo
    std::vector<std::vector<uint32_t>> source_vertices;      // per source
    std::vector<uint32_t> matrix_split;                      // per population: 1 .. max
    // The vertex holding neuron i of `pre`.
    uint32_t vertex_of(const PreRef& pre, uint32_t i) const;
};

// Table I of seed 001 (cost model in DTCM, serial paradigm) next to what this PE's image uses.
struct TableIItem {
    std::string item;       // the seed's item name
    uint64_t model_bytes;   // the seed's formula with this PE's numbers
    uint64_t actual_bytes;  // nmsim's layout (image, stack, args block)
};

struct PeReport {
    uint32_t vertex = 0, pe = kNoPe;
    std::string element;  // population or source name
    bool is_source = false;
    uint32_t lo = 0, n = 0;
    // The numbers the formulas use.
    uint32_t n_source_vertex = 0, n_address_list_rows = 0, delay_range = 0;
    double max_connected_rate = 0;  // max over blocks of (longest row) / n
    std::vector<TableIItem> items;  // in the seed's order, then "spike list" (source PEs)
    uint64_t model_total = 0, actual_total = 0;
    uint64_t budget_bytes = 0;  // CompileOptions::dtcm_bytes
};

// The seed's formulas (model column) for a neuron PE with these numbers.
std::vector<TableIItem> table1_model(uint32_t n_neuron, uint32_t n_source_vertex,
                                     uint32_t n_address_list_rows, uint64_t matrix_model_bytes,
                                     uint32_t delay_range);
// A report as text lines ("item  model  actual").
std::string format_table1(const PeReport& r);
// The item lines and the total line of a report, item names padded to `width`.
std::string format_table1_items(const std::vector<TableIItem>& items, uint64_t model_total,
                                uint64_t actual_total, uint64_t budget, int width);

struct PeImage {
    uint32_t vertex = 0, pe = 0;
    uint32_t base = S2_SNN_IMAGE_BASE;  // bytes[i] goes to local SRAM address base + i
    std::vector<uint8_t> bytes;
};

enum class DramKind { spike_list, record };
struct DramRegion {
    DramKind kind = DramKind::record;
    uint32_t vertex = 0;
    uint32_t addr = 0;           // global DRAM address, S2_SNN_ALIGN aligned
    uint32_t size = 0;           // bytes
    std::vector<uint8_t> bytes;  // spike_list: the content; record: empty (the firmware writes)
};

// A population compiled in the parallel paradigm (parallel.h): one dominant and its
// subordinates. Its machine vertices keep their ids and keys; all are on the dominant's PE.
struct ParallelPlacement {
    uint32_t population = 0;
    uint32_t vertex = 0;                // its first machine vertex (the images' `vertex`)
    std::vector<uint32_t> pes;          // dominant, then subordinates
    std::vector<PeReport> table1;       // per PE, same order (items of Table I's parallel rows)
    uint32_t n_rows = 0, n_delays = 0;  // the optimised map's rows, the delays used
};

// Per population: what was asked for and what was compiled, with the numbers of the choice.
struct ParadigmChoice {
    Paradigm requested = Paradigm::serial;
    Paradigm compiled = Paradigm::serial;  // serial or parallel
    double decision = 0;                   // automatic: the classifier's decision value
    bool no_synapses = false;              // nothing projects onto it: serial whatever was asked
    int64_t serial_pes = -1, parallel_pes = -1;  // ideal: the layer alone in each (-1: not run
                                                 // or does not fit)
};

struct Compiled {
    CompileOptions options;
    uint32_t tick_cycles = 0, timestep_ns = 0;
    MachineGraph graph;
    SpikeTrains trains;                                      // every source's spikes over n_ticks
    std::vector<PeImage> images;                             // every placed vertex, by vertex id
    std::vector<DramRegion> dram;                            // ascending addresses
    std::vector<RouterEntry> routes_full;                    // one per vertex with targets
    std::vector<RouterEntry> routes;                         // compress_routes(routes_full)
    std::vector<PeReport> table1;                            // every vertex, by id
    std::vector<ParadigmChoice> paradigm;                    // per population
    std::vector<ParallelPlacement> parallel;                 // parallel populations
    uint32_t pes_used() const;                               // PEs with an image
    const DramRegion* record_region(uint32_t vertex) const;  // nullptr if none
};

// Compiles `net` (validated with validate()) for `opt`. Throws NetworkError for an invalid
// network, CompileError when it does not fit, std::invalid_argument for invalid options.
Compiled compile(const Network& net, const CompileOptions& opt = {});

// The fixed-point parameters written to the images (and used by the integer reference).
reference::SnnLifFixed lif_fixed(const LifParams& lif, double timestep_ms);
reference::SnnLifFloat lif_float(const LifParams& lif, double timestep_ms);

// The reference's view of the network: the same synapses and spike trains the images hold.
reference::SnnRefNetwork reference_network(const Network& net, const SpikeTrains& trains,
                                           uint32_t n_ticks);

// Seed 001 sec. IV-C: the gesture network 2048-20-4 at 3.16 % weight density "needs 9 PEs on
// the serial paradigm". PE counts of that shape under the interpretations of
// docs/snn_compiler.md, "The gesture network".
struct GesturePeCounts {
    uint32_t sources_on_pes = 0;    // compiled: input sources on their own PEs
    uint32_t sources_injected = 0;  // compiled: input spikes injected, only LIF PEs count
    uint32_t source_pes = 0;        // the input layer's PEs alone: ceil(2048 / max_neurons)
    uint32_t per_layer = 0;  // seed-style per layer: ceil(src / max) * ceil(tgt / max) * split
    std::vector<PeReport> table1;  // of the sources_on_pes compilation
};
GesturePeCounts gesture_pe_counts(uint32_t max_neurons_per_pe = 255, uint64_t seed = 1);

}  // namespace nmsim::compiler::snn
