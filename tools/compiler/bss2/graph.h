// The BrainScaleS-2 signal-flow graph (seed 004 sections 3.2.3 and 4.1.1, Listings 3-12): every
// configured hardware entity, every data movement between host and FPGA and every host-side
// digital operation is a vertex; edges carry typed, shaped signals (ports). Vertices are added
// together with their complete in-neighbourhood (static single assignment), so every check runs
// at insertion: unknown sources, port count and type, shape (with port restrictions), placement
// compatibility (supports_input_from), edges between execution instances, acyclicity of the
// execution-instance graph and of digital-operation subgraphs. Recurrence is expressed by adding
// a vertex by reference to an existing one (Listing 12). Plain C++: no SystemC, no models.
// docs/bss2_graph.md describes the vertex types and the checks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "firmware/include/nmsim/hw/brainscales2/bss2_map.h"
#include "tools/compiler/bss2/network.h"
#include "tools/compiler/bss2/placement.h"

namespace nmsim::compiler::bss2 {

// An invalid graph operation; the message names the vertex ("Type(descriptor)") and the problem.
class GraphError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Signal kinds carried by edges (seed 004 Table 3.2, Listing 4).
enum class ConnectionType {
    DataTimedSpikeSequence,          // host data: input spike trains (us, 16-bit L2 event)
    TimedSpikeSequence,              // spike trains in the FPGA playback program
    CrossbarInputLabel,              // 14-bit crossbar input event
    CrossbarOutputLabel,             // crossbar output event
    PADILabel,                       // 11-bit PADI event
    SynapseInputLabel,               // 6-bit synapse label + analog pulse of a driver row
    SynapticInput,                   // weighted analog pulses into neuron columns
    MembraneVoltage,                 // neuron membranes
    TimedSpikeFromChipSequence,      // recorded events in the FPGA
    DataTimedSpikeFromChipSequence,  // host data: recorded spikes
    DataMADCSamples,                 // host data: MADC samples of one neuron
    DataCADCSamples,                 // host data: CADC values of many neurons
    DataUInt5,                       // host data: 5-bit activation vectors (hagen mode)
    DataInt8,                        // host data: int8 result vectors (hagen mode)
};
const char* to_string(ConnectionType t);

using Shape = size_t;

struct Port {
    Shape shape = 1;
    ConnectionType type = ConnectionType::DataTimedSpikeSequence;
};

// Restricts an edge to the elements [min, max] (inclusive) of its source's out-port (Listing 8).
struct PortRestriction {
    size_t min = 0;
    size_t max = 0;
    size_t size() const { return max - min + 1; }
    bool operator==(const PortRestriction& o) const { return min == o.min && max == o.max; }
};

// Strong index types (Listing 9). The ordering operators exist only so that they can key maps;
// execution instances have no meaningful order (their dependencies are the instance graph).
struct PhysicalChip {
    size_t value = 0;
    explicit PhysicalChip(size_t v = 0) : value(v) {}
    bool operator==(const PhysicalChip& o) const { return value == o.value; }
    bool operator!=(const PhysicalChip& o) const { return value != o.value; }
    bool operator<(const PhysicalChip& o) const { return value < o.value; }
};
struct TemporalIndex {
    size_t value = 0;
    explicit TemporalIndex(size_t v = 0) : value(v) {}
    bool operator==(const TemporalIndex& o) const { return value == o.value; }
    bool operator!=(const TemporalIndex& o) const { return value != o.value; }
};
struct ExecutionInstance {
    PhysicalChip chip{};
    TemporalIndex index{};
    ExecutionInstance() = default;
    ExecutionInstance(PhysicalChip c, TemporalIndex i) : chip(c), index(i) {}
    bool operator==(const ExecutionInstance& o) const { return chip == o.chip && index == o.index; }
    bool operator!=(const ExecutionInstance& o) const { return !(*this == o); }
    bool operator<(const ExecutionInstance& o) const {  // map key only
        return chip.value != o.chip.value ? chip.value < o.chip.value : index.value < o.index.value;
    }
    std::string str() const;  // "chip 0, index 1"
};

// Where an edge enters a vertex: the in-port index and the edge's restriction (passed to
// supports_input_from so that placement checks can look at the selected elements).
struct InputSlot {
    size_t port = 0;
    std::optional<PortRestriction> restriction;
};

// ---- vertex types -------------------------------------------------------------------------
// Every type has: name (dot label), can_connect_different_execution_instances, variadic_input,
// is_digital_op (host-side operation: only in acyclic subgraphs), inputs(), output(), check()
// ("" if the configuration is valid, else the problem) and optional
// supports_input_from(const Source&, const InputSlot&) overloads for placement checks.

// Host-provided input spike trains (the data key of the executor's inputs).
struct ExternalInput {
    static constexpr const char* name = "ExternalInput";
    static constexpr bool can_connect_different_execution_instances = true;
    static constexpr bool variadic_input = false;
    static constexpr bool is_digital_op = false;
    std::vector<Port> inputs() const { return {}; }
    Port output() const { return {1, ConnectionType::DataTimedSpikeSequence}; }
    std::string check() const { return ""; }
};

// Moves host spike data into the realtime program (spike instructions).
struct DataInput {
    static constexpr const char* name = "DataInput";
    static constexpr bool can_connect_different_execution_instances = true;
    static constexpr bool variadic_input = false;
    static constexpr bool is_digital_op = false;
    std::vector<Port> inputs() const { return {{1, ConnectionType::DataTimedSpikeSequence}}; }
    Port output() const { return {1, ConnectionType::TimedSpikeSequence}; }
    std::string check() const { return ""; }
};

// The four L2 input channels of the crossbar (element j = crossbar input 8 + j).
struct CrossbarL2Input {
    static constexpr const char* name = "CrossbarL2Input";
    static constexpr bool can_connect_different_execution_instances = false;
    static constexpr bool variadic_input = false;
    static constexpr bool is_digital_op = false;
    std::vector<Port> inputs() const { return {{1, ConnectionType::TimedSpikeSequence}}; }
    Port output() const { return {BSS2_L2_CHANNELS, ConnectionType::CrossbarInputLabel}; }
    std::string check() const { return ""; }
};

struct BackgroundSpikeSource;
struct NeuronEventOutputView;

struct CrossbarNode {
    static constexpr const char* name = "CrossbarNode";
    static constexpr bool can_connect_different_execution_instances = false;
    static constexpr bool variadic_input = false;
    static constexpr bool is_digital_op = false;
    uint32_t in = 0, out = 0;
    uint32_t mask = 0, target = 0;  // 14 bit: forwards iff (event & mask) == target
    std::vector<Port> inputs() const { return {{1, ConnectionType::CrossbarInputLabel}}; }
    Port output() const { return {1, ConnectionType::CrossbarOutputLabel}; }
    std::string check() const;
    bool supports_input_from(const CrossbarL2Input&, const InputSlot& s) const;
    bool supports_input_from(const NeuronEventOutputView& src, const InputSlot& s) const;
    bool supports_input_from(const BackgroundSpikeSource& src, const InputSlot& s) const;
};

struct PADIBus {
    static constexpr const char* name = "PADIBus";
    static constexpr bool can_connect_different_execution_instances = false;
    static constexpr bool variadic_input = true;
    static constexpr bool is_digital_op = false;
    uint32_t hemi = 0, bus = 0;
    std::vector<Port> inputs() const { return {{1, ConnectionType::CrossbarOutputLabel}}; }
    Port output() const { return {1, ConnectionType::PADILabel}; }
    std::string check() const;
    bool supports_input_from(const CrossbarNode& src, const InputSlot& s) const;
};

// A driver's output has one element per synapse row it drives (2d, 2d + 1).
struct SynapseDriver {
    static constexpr const char* name = "SynapseDriver";
    static constexpr bool can_connect_different_execution_instances = false;
    static constexpr bool variadic_input = false;
    static constexpr bool is_digital_op = false;
    DriverCfg cfg;
    std::vector<Port> inputs() const { return {{1, ConnectionType::PADILabel}}; }
    Port output() const { return {2, ConnectionType::SynapseInputLabel}; }
    std::string check() const;
    bool supports_input_from(const PADIBus& src, const InputSlot& s) const;
};

// The synapses in use on a set of rows x columns of one hemisphere. In-port i is fed by the
// driver drivers()[i]; the out-port has one element per column.
struct SynapseArrayView {
    static constexpr const char* name = "SynapseArrayView";
    static constexpr bool can_connect_different_execution_instances = false;
    static constexpr bool variadic_input = false;
    static constexpr bool is_digital_op = false;
    struct Synapse {
        uint32_t row = 0, col = 0;
        uint32_t weight = 0;  // 6 bit
        uint32_t label = 0;   // 6 bit
    };
    uint32_t hemi = 0;
    std::vector<uint32_t> rows;             // ascending, unique
    std::vector<uint32_t> columns;          // ascending, unique
    std::vector<Synapse> synapses;          // each on one of rows x columns, at most one per cell
    std::vector<uint32_t> drivers() const;  // row / 2 of rows, ascending, unique
    std::vector<Port> inputs() const;
    Port output() const { return {columns.size(), ConnectionType::SynapticInput}; }
    std::string check() const;
    bool supports_input_from(const SynapseDriver& src, const InputSlot& s) const;
};

struct NeuronView {
    static constexpr const char* name = "NeuronView";
    static constexpr bool can_connect_different_execution_instances = false;
    static constexpr bool variadic_input = true;
    static constexpr bool is_digital_op = false;
    struct Neuron {
        NeuronProperties properties;
        uint32_t addr = 0;  // 8-bit event address
    };
    uint32_t hemi = 0;
    std::vector<uint32_t> columns;  // ascending, unique
    std::vector<Neuron> neurons;    // one per column
    std::vector<Port> inputs() const { return {{columns.size(), ConnectionType::SynapticInput}}; }
    Port output() const { return {columns.size(), ConnectionType::MembraneVoltage}; }
    std::string check() const;
    bool supports_input_from(const SynapseArrayView& src, const InputSlot& s) const;
};

// The spike detectors and output channels of some neuron views (in-port i = sources[i]); the
// out-port has one element per neuron output channel used, channels()[k].
struct NeuronEventOutputView {
    static constexpr const char* name = "NeuronEventOutputView";
    static constexpr bool can_connect_different_execution_instances = false;
    static constexpr bool variadic_input = false;
    static constexpr bool is_digital_op = false;
    struct Source {
        uint32_t hemi = 0;
        std::vector<uint32_t> columns;
    };
    std::vector<Source> sources;
    std::vector<uint32_t> channels() const;  // ascending, unique neuron output channels
    std::vector<Port> inputs() const;
    Port output() const { return {channels().size(), ConnectionType::CrossbarInputLabel}; }
    std::string check() const;
    bool supports_input_from(const NeuronView& src, const InputSlot& s) const;
};

// The L2 output channels: events of the crossbar outputs 8..11 go to the FPGA.
struct CrossbarL2Output {
    static constexpr const char* name = "CrossbarL2Output";
    static constexpr bool can_connect_different_execution_instances = false;
    static constexpr bool variadic_input = true;
    static constexpr bool is_digital_op = false;
    std::vector<Port> inputs() const { return {{1, ConnectionType::CrossbarOutputLabel}}; }
    Port output() const { return {1, ConnectionType::TimedSpikeFromChipSequence}; }
    std::string check() const { return ""; }
    bool supports_input_from(const CrossbarNode& src, const InputSlot& s) const;
};

// Moves the recorded spikes to the host (the data key of the executor's spike outputs).
struct DataOutput {
    static constexpr const char* name = "DataOutput";
    static constexpr bool can_connect_different_execution_instances = true;
    static constexpr bool variadic_input = false;
    static constexpr bool is_digital_op = false;
    std::vector<Port> inputs() const { return {{1, ConnectionType::TimedSpikeFromChipSequence}}; }
    Port output() const { return {1, ConnectionType::DataTimedSpikeFromChipSequence}; }
    std::string check() const { return ""; }
};

struct BackgroundSpikeSource {
    static constexpr const char* name = "BackgroundSpikeSource";
    static constexpr bool can_connect_different_execution_instances = false;
    static constexpr bool variadic_input = false;
    static constexpr bool is_digital_op = false;
    BackgroundCfg cfg;
    std::vector<Port> inputs() const { return {}; }
    Port output() const { return {1, ConnectionType::CrossbarInputLabel}; }
    std::string check() const;
};

// Samples one neuron's membrane with the MADC (one per execution instance).
struct MADCReadoutView {
    static constexpr const char* name = "MADCReadoutView";
    static constexpr bool can_connect_different_execution_instances = true;
    static constexpr bool variadic_input = false;
    static constexpr bool is_digital_op = false;
    uint32_t hemi = 0, column = 0;
    std::vector<Port> inputs() const { return {{1, ConnectionType::MembraneVoltage}}; }
    Port output() const { return {1, ConnectionType::DataMADCSamples}; }
    std::string check() const;
    bool supports_input_from(const NeuronView& src, const InputSlot& s) const;
};

// Reads the membranes of some columns with the CADC at the end of each run.
struct CADCMembraneReadoutView {
    static constexpr const char* name = "CADCMembraneReadoutView";
    static constexpr bool can_connect_different_execution_instances = true;
    static constexpr bool variadic_input = false;
    static constexpr bool is_digital_op = false;
    uint32_t hemi = 0;
    std::vector<uint32_t> columns;  // ascending, unique
    std::vector<Port> inputs() const { return {{columns.size(), ConnectionType::MembraneVoltage}}; }
    Port output() const { return {columns.size(), ConnectionType::DataCADCSamples}; }
    std::string check() const;
    bool supports_input_from(const NeuronView& src, const InputSlot& s) const;
};

// Host digital operation: relabels recorded spikes (16-bit L2 output events) into input spikes
// (16-bit L2 input events); events without an entry are dropped. Feeds one execution instance's
// output into another's input.
struct SpikeLabelMap {
    static constexpr const char* name = "SpikeLabelMap";
    static constexpr bool can_connect_different_execution_instances = true;
    static constexpr bool variadic_input = false;
    static constexpr bool is_digital_op = true;
    std::map<uint32_t, uint32_t> labels;
    std::vector<Port> inputs() const {
        return {{1, ConnectionType::DataTimedSpikeFromChipSequence}};
    }
    Port output() const { return {1, ConnectionType::DataTimedSpikeSequence}; }
    std::string check() const;
};

// ---- hagen mode (the synapse arrays as vector-matrix multipliers; seeds 002 and 004) --------
// A product's graph (tools/compiler/bss2/hagen_graph.h) follows grenade's MAC graph: host input
// vectors -> spike-train generator (digital op) -> DataInput -> CrossbarL2Input -> crossbar
// nodes -> PADI buses -> synapse drivers in hagen mode -> SynapseArrayView (signed weights on row
// pairs) -> NeuronView (integrators) -> CADCMembraneReadoutView -> MACResult (int8) -> Addition
// (row splits) -> Concatenation (column splits).

// Host-provided input vectors (the data key of the product's inputs): n 5-bit activations.
struct VectorInput {
    static constexpr const char* name = "VectorInput";
    static constexpr bool can_connect_different_execution_instances = true;
    static constexpr bool variadic_input = false;
    static constexpr bool is_digital_op = false;
    size_t size = 0;
    std::vector<Port> inputs() const { return {}; }
    Port output() const { return {size, ConnectionType::DataUInt5}; }
    std::string check() const { return size ? "" : "no inputs"; }
};

// Host digital operation: the events of each vector (one per non-zero input, the activation in
// the label, `num_sends` times, `wait` FPGA cycles apart; grenade's MACSpikeTrainGenerator). Its
// input is the whole vector (`size` values); part k sends inputs row0 .. row0 + rows - 1 to the
// drivers 0 .. rows - 1 of hemisphere hemi.
struct MACSpikeTrainGenerator {
    static constexpr const char* name = "MACSpikeTrainGenerator";
    static constexpr bool can_connect_different_execution_instances = true;
    static constexpr bool variadic_input = false;
    static constexpr bool is_digital_op = true;
    struct Part {
        uint32_t hemi = 0;
        size_t row0 = 0, rows = 0;
    };
    size_t size = 0;
    std::vector<Part> parts;
    uint32_t num_sends = 1, wait = 8;
    std::vector<Port> inputs() const { return {{size, ConnectionType::DataUInt5}}; }
    Port output() const { return {1, ConnectionType::DataTimedSpikeSequence}; }
    std::string check() const;
};

// Host digital operation: a tile's result, y = clamp(CADC after - CADC baseline, -128, 127).
struct MACResult {
    static constexpr const char* name = "MACResult";
    static constexpr bool can_connect_different_execution_instances = true;
    static constexpr bool variadic_input = false;
    static constexpr bool is_digital_op = true;
    size_t size = 0;
    bool baseline = true;  // else the resting level is code 128
    std::vector<Port> inputs() const { return {{size, ConnectionType::DataCADCSamples}}; }
    Port output() const { return {size, ConnectionType::DataInt8}; }
    std::string check() const { return size ? "" : "no columns"; }
};

// Host digital operation: the sum of the row splits' partial results, clamped to int8
// (grenade's Addition).
struct Addition {
    static constexpr const char* name = "Addition";
    static constexpr bool can_connect_different_execution_instances = true;
    static constexpr bool variadic_input = true;
    static constexpr bool is_digital_op = true;
    size_t size = 0;
    std::vector<Port> inputs() const { return {{size, ConnectionType::DataInt8}}; }
    Port output() const { return {size, ConnectionType::DataInt8}; }
    std::string check() const { return size ? "" : "no values"; }
};

// Host digital operation: the column splits side by side (in-port k: sizes[k] values).
struct Concatenation {
    static constexpr const char* name = "Concatenation";
    static constexpr bool can_connect_different_execution_instances = true;
    static constexpr bool variadic_input = false;
    static constexpr bool is_digital_op = true;
    std::vector<size_t> sizes;
    std::vector<Port> inputs() const;
    Port output() const;
    std::string check() const { return sizes.empty() ? "no parts" : ""; }
};

using Vertex =
    std::variant<ExternalInput, DataInput, CrossbarL2Input, CrossbarNode, PADIBus, SynapseDriver,
                 SynapseArrayView, NeuronView, NeuronEventOutputView, CrossbarL2Output, DataOutput,
                 BackgroundSpikeSource, MADCReadoutView, CADCMembraneReadoutView, SpikeLabelMap,
                 VectorInput, MACSpikeTrainGenerator, MACResult, Addition, Concatenation>;

const char* vertex_name(const Vertex& v);
bool is_digital_op(const Vertex& v);
bool can_connect_different_execution_instances(const Vertex& v);

using VertexDescriptor = size_t;

struct Input {
    VertexDescriptor descriptor = 0;
    std::optional<PortRestriction> port_restriction;
    Input(VertexDescriptor d) : descriptor(d) {}  // NOLINT: implicit, as in the seed's usage
    Input(VertexDescriptor d, PortRestriction r) : descriptor(d), port_restriction(r) {}
};

struct Edge {
    VertexDescriptor source = 0, target = 0;
    size_t port = 0;  // target in-port (variadic ports repeat the last index)
    std::optional<PortRestriction> restriction;
};

class Graph {
public:
    // Adds a vertex with its complete in-neighbourhood (Listing 11); throws GraphError.
    VertexDescriptor add(Vertex config, ExecutionInstance instance,
                         const std::vector<Input>& inputs);
    // Adds a vertex sharing `reference`'s configuration (the same hardware entity, same
    // execution instance) with a new in-neighbourhood (Listing 12); throws GraphError.
    VertexDescriptor add(VertexDescriptor reference, ExecutionInstance instance,
                         const std::vector<Input>& inputs);

    size_t size() const { return m_vertices.size(); }
    const Vertex& vertex(VertexDescriptor v) const;  // the configuration (shared by references)
    ExecutionInstance instance(VertexDescriptor v) const;
    VertexDescriptor root(VertexDescriptor v) const;  // the first vertex of its reference chain
    bool is_reference(VertexDescriptor v) const { return root(v) != v; }
    const std::vector<Edge>& in_edges(VertexDescriptor v) const;
    const std::vector<Edge>& out_edges(VertexDescriptor v) const;
    // "Type(descriptor)"; references use the descriptor of their root (as in seed Fig. 4.6).
    std::string label(VertexDescriptor v) const;

    // The execution-instance graph: instances in insertion order, their vertices in descriptor
    // order, dependencies, and a topological order (ties broken by insertion order).
    const std::vector<ExecutionInstance>& instances() const { return m_instances; }
    const std::vector<VertexDescriptor>& vertices(ExecutionInstance i) const;
    std::vector<ExecutionInstance> instance_predecessors(ExecutionInstance i) const;
    std::vector<ExecutionInstance> instance_order() const;

    // Graphviz dot text (seed 004 Fig. 4.6); several instances become clusters.
    std::string to_dot() const;

private:
    struct Record {
        size_t config = 0;  // index into m_configs
        VertexDescriptor root = 0;
        size_t instance = 0;  // index into m_instances
        std::vector<Edge> in, out;
    };
    VertexDescriptor insert(size_t config, VertexDescriptor root, ExecutionInstance instance,
                            const std::vector<Input>& inputs);
    size_t instance_index(ExecutionInstance i) const;  // SIZE_MAX if unknown
    bool instance_reaches(size_t from, size_t to) const;

    std::vector<Vertex> m_configs;
    std::vector<Record> m_vertices;
    std::vector<ExecutionInstance> m_instances;
    std::vector<std::vector<VertexDescriptor>> m_instance_vertices;
    std::vector<std::vector<size_t>> m_instance_out;  // instance dependency edges (unique)
    // Edges between roots (references merged): where recurrences become real cycles.
    std::vector<std::vector<VertexDescriptor>> m_root_out, m_root_in;
};

// Where each network element ended up in a graph built by build_graph (back-annotation).
struct GraphMapping {
    std::optional<VertexDescriptor> external_input;  // data key of the input spike trains
    std::optional<VertexDescriptor> data_input;
    std::optional<VertexDescriptor> data_output;  // data key of the recorded spikes
    // population -> vertices holding it: NeuronViews (and their references) of internal
    // populations, the BackgroundSpikeSource of background ones, ExternalInput of external ones.
    std::map<size_t, std::vector<VertexDescriptor>> populations;
    // projection -> SynapseArrayViews (roots) holding its synapses (every projection has an
    // entry; it is empty if all its connections have weight 0: they take no synapse cell).
    std::map<size_t, std::vector<VertexDescriptor>> projections;
    // vertex -> populations / projections (inverse of the above).
    std::map<VertexDescriptor, std::vector<size_t>> vertex_populations;
    std::map<VertexDescriptor, std::vector<size_t>> vertex_projections;
    // external population -> the 16-bit L2 event of each of its neurons; recorded L2 output
    // event -> (population, neuron).
    std::map<size_t, std::vector<uint32_t>> input_events;
    std::map<uint32_t, std::pair<size_t, size_t>> output_events;
};

// The canonical graph of a placed network (seed 004 Listing 21): one ExternalInput ->
// DataInput -> CrossbarL2Input chain for all external populations, the crossbar nodes of the
// placement, PADI buses, synapse drivers, one SynapseArrayView and one NeuronView per
// hemisphere, one NeuronEventOutputView, recurrent routes as reference vertices, background
// sources, CrossbarL2Output -> DataOutput if any node routes to an L2 output. Throws GraphError
// if the placement is inconsistent (e.g. a synapse without an enabled driver).
Graph build_graph(const Network& net, const Placement& pl,
                  ExecutionInstance instance = ExecutionInstance{},
                  GraphMapping* mapping = nullptr);

}  // namespace nmsim::compiler::bss2
