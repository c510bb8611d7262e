#include "tools/compiler/bss2/graph.h"

#include <algorithm>
#include <climits>
#include <set>
#include <sstream>
#include <type_traits>
#include <utility>

namespace nmsim::compiler::bss2 {

const char* to_string(ConnectionType t) {
    switch (t) {
        case ConnectionType::DataTimedSpikeSequence:
            return "DataTimedSpikeSequence";
        case ConnectionType::TimedSpikeSequence:
            return "TimedSpikeSequence";
        case ConnectionType::CrossbarInputLabel:
            return "CrossbarInputLabel";
        case ConnectionType::CrossbarOutputLabel:
            return "CrossbarOutputLabel";
        case ConnectionType::PADILabel:
            return "PADILabel";
        case ConnectionType::SynapseInputLabel:
            return "SynapseInputLabel";
        case ConnectionType::SynapticInput:
            return "SynapticInput";
        case ConnectionType::MembraneVoltage:
            return "MembraneVoltage";
        case ConnectionType::TimedSpikeFromChipSequence:
            return "TimedSpikeFromChipSequence";
        case ConnectionType::DataTimedSpikeFromChipSequence:
            return "DataTimedSpikeFromChipSequence";
        case ConnectionType::DataMADCSamples:
            return "DataMADCSamples";
        case ConnectionType::DataCADCSamples:
            return "DataCADCSamples";
        case ConnectionType::DataUInt5:
            return "DataUInt5";
        case ConnectionType::DataInt8:
            return "DataInt8";
    }
    return "?";
}

std::string ExecutionInstance::str() const {
    return "chip " + std::to_string(chip.value) + ", index " + std::to_string(index.value);
}

namespace {

bool ascending_unique(const std::vector<uint32_t>& v) {
    for (size_t i = 1; i < v.size(); ++i)
        if (v[i] <= v[i - 1]) return false;
    return true;
}

std::string check_columns(const std::vector<uint32_t>& columns) {
    if (!ascending_unique(columns)) return "columns are not ascending and unique";
    if (!columns.empty() && columns.back() >= BSS2_COLUMNS)
        return "column " + std::to_string(columns.back()) + " out of range 0..255";
    return "";
}

std::string check_hemi(uint32_t hemi) {
    return hemi < BSS2_HEMISPHERES ? "" : "hemisphere " + std::to_string(hemi) + " is not 0 or 1";
}

// Elements [first, last] of a source's out-port selected by an edge.
std::pair<size_t, size_t> selected(const InputSlot& s, size_t shape) {
    if (s.restriction) return {s.restriction->min, s.restriction->max};
    return {0, shape == 0 ? 0 : shape - 1};
}

}  // namespace

// ---- vertex checks ------------------------------------------------------------------------

std::string CrossbarNode::check() const {
    if (!bss2_xbar_node_exists(in, out))
        return "no crossbar node at (in " + std::to_string(in) + ", out " + std::to_string(out) +
               ")";
    if (mask > BSS2_LABEL14_MASK || target > BSS2_LABEL14_MASK)
        return "mask/target wider than 14 bit";
    return "";
}

bool CrossbarNode::supports_input_from(const CrossbarL2Input&, const InputSlot& s) const {
    return in >= BSS2_XIN_L2(0) && in < BSS2_XIN_BG(0) && s.restriction &&
           s.restriction->min == in - BSS2_XIN_L2(0);
}

bool CrossbarNode::supports_input_from(const NeuronEventOutputView& src, const InputSlot& s) const {
    const auto ch = src.channels();
    const size_t k = s.restriction ? s.restriction->min : 0;
    return in < BSS2_NEURON_CHANNELS && k < ch.size() && ch[k] == in;
}

bool CrossbarNode::supports_input_from(const BackgroundSpikeSource& src, const InputSlot&) const {
    return in == BSS2_XIN_BG(src.cfg.index);
}

std::string PADIBus::check() const {
    if (auto e = check_hemi(hemi); !e.empty()) return e;
    return bus < BSS2_PADI_PER_HEMI ? "" : "bus " + std::to_string(bus) + " out of range 0..3";
}

bool PADIBus::supports_input_from(const CrossbarNode& src, const InputSlot&) const {
    return src.out == BSS2_XOUT_PADI(hemi, bus);
}

std::string SynapseDriver::check() const {
    if (auto e = check_hemi(cfg.hemi); !e.empty()) return e;
    if (cfg.driver >= BSS2_DRIVERS)
        return "driver " + std::to_string(cfg.driver) + " out of range 0..127";
    if (cfg.row_mask > 0x1Fu) return "row mask wider than 5 bit";
    for (uint32_t m : cfg.mode)
        if (m > BSS2_ROW_INHIBITORY) return "row mode " + std::to_string(m) + " unknown";
    if (cfg.stp && (cfg.stp_u < 0.0 || cfg.stp_u > 1.0 || cfg.stp_tau_rec < 0.0))
        return "STP parameters out of range (u in 0..1, tau_rec >= 0)";
    return "";
}

bool SynapseDriver::supports_input_from(const PADIBus& src, const InputSlot&) const {
    return src.hemi == cfg.hemi && src.bus == bss2_driver_bus(cfg.driver);
}

std::vector<uint32_t> SynapseArrayView::drivers() const {
    std::vector<uint32_t> d;
    for (uint32_t r : rows)
        if (d.empty() || d.back() != r / 2) d.push_back(r / 2);
    return d;
}

std::vector<Port> SynapseArrayView::inputs() const {
    return std::vector<Port>(drivers().size(), Port{2, ConnectionType::SynapseInputLabel});
}

std::string SynapseArrayView::check() const {
    if (auto e = check_hemi(hemi); !e.empty()) return e;
    if (!ascending_unique(rows)) return "rows are not ascending and unique";
    if (!rows.empty() && rows.back() >= BSS2_ROWS)
        return "row " + std::to_string(rows.back()) + " out of range 0..255";
    if (auto e = check_columns(columns); !e.empty()) return e;
    std::set<std::pair<uint32_t, uint32_t>> cells;
    for (const auto& s : synapses) {
        const std::string at =
            "synapse (row " + std::to_string(s.row) + ", column " + std::to_string(s.col) + ")";
        if (!std::binary_search(rows.begin(), rows.end(), s.row) ||
            !std::binary_search(columns.begin(), columns.end(), s.col))
            return at + " is outside the view's rows x columns";
        if (s.weight >= 64u) return at + ": weight " + std::to_string(s.weight) + " > 63";
        if (s.label >= 64u) return at + ": label " + std::to_string(s.label) + " > 63";
        if (!cells.insert({s.row, s.col}).second) return at + " appears twice";
    }
    return "";
}

bool SynapseArrayView::supports_input_from(const SynapseDriver& src, const InputSlot& s) const {
    const auto d = drivers();
    return src.cfg.hemi == hemi && s.port < d.size() && d[s.port] == src.cfg.driver;
}

std::string NeuronView::check() const {
    if (auto e = check_hemi(hemi); !e.empty()) return e;
    if (auto e = check_columns(columns); !e.empty()) return e;
    if (neurons.size() != columns.size())
        return std::to_string(neurons.size()) + " neurons for " + std::to_string(columns.size()) +
               " columns";
    for (const auto& n : neurons)
        if (n.addr > 0xFFu) return "event address " + std::to_string(n.addr) + " wider than 8 bit";
    return "";
}

bool NeuronView::supports_input_from(const SynapseArrayView& src, const InputSlot&) const {
    return src.hemi == hemi && src.columns == columns;
}

std::vector<uint32_t> NeuronEventOutputView::channels() const {
    std::set<uint32_t> ch;
    for (const auto& s : sources)
        for (uint32_t c : s.columns) ch.insert(bss2_neuron_channel(c));
    return {ch.begin(), ch.end()};
}

std::vector<Port> NeuronEventOutputView::inputs() const {
    std::vector<Port> p;
    for (const auto& s : sources) p.push_back({s.columns.size(), ConnectionType::MembraneVoltage});
    return p;
}

std::string NeuronEventOutputView::check() const {
    std::set<std::pair<uint32_t, uint32_t>> seen;
    for (const auto& s : sources) {
        if (auto e = check_hemi(s.hemi); !e.empty()) return e;
        if (auto e = check_columns(s.columns); !e.empty()) return e;
        for (uint32_t c : s.columns)
            if (!seen.insert({s.hemi, c}).second)
                return "neuron (hemisphere " + std::to_string(s.hemi) + ", column " +
                       std::to_string(c) + ") listed twice";
    }
    return "";
}

bool NeuronEventOutputView::supports_input_from(const NeuronView& src, const InputSlot& s) const {
    return s.port < sources.size() && sources[s.port].hemi == src.hemi &&
           sources[s.port].columns == src.columns && !s.restriction;
}

bool CrossbarL2Output::supports_input_from(const CrossbarNode& src, const InputSlot&) const {
    return src.out >= BSS2_XOUT_L2(0) && src.out < BSS2_XBAR_OUTPUTS;
}

std::string BackgroundSpikeSource::check() const {
    if (cfg.index >= BSS2_BACKGROUND)
        return "generator " + std::to_string(cfg.index) + " out of range 0..7";
    if (cfg.period < 1 || cfg.period > 0xFFFFu) return "period must be 1..65535 cycles";
    if (cfg.rate > 0xFFu || cfg.mask > 0xFFu) return "rate/mask wider than 8 bit";
    if (cfg.label > BSS2_LABEL14_MASK) return "label wider than 14 bit";
    return "";
}

std::string MADCReadoutView::check() const {
    if (auto e = check_hemi(hemi); !e.empty()) return e;
    return column < BSS2_COLUMNS ? "" : "column " + std::to_string(column) + " out of range";
}

bool MADCReadoutView::supports_input_from(const NeuronView& src, const InputSlot& s) const {
    const auto [first, last] = selected(s, src.columns.size());
    return src.hemi == hemi && first == last && first < src.columns.size() &&
           src.columns[first] == column;
}

std::string CADCMembraneReadoutView::check() const {
    if (auto e = check_hemi(hemi); !e.empty()) return e;
    return check_columns(columns);
}

bool CADCMembraneReadoutView::supports_input_from(const NeuronView& src, const InputSlot& s) const {
    const auto [first, last] = selected(s, src.columns.size());
    if (src.hemi != hemi || last >= src.columns.size() || last - first + 1 != columns.size())
        return false;
    return std::equal(columns.begin(), columns.end(), src.columns.begin() + first);
}

std::string SpikeLabelMap::check() const {
    for (const auto& [from, to] : labels)
        if (from > 0xFFFFu || to > 0xFFFFu) return "labels must be 16-bit L2 events";
    return "";
}

std::string MACSpikeTrainGenerator::check() const {
    if (parts.empty() || parts.size() > BSS2_HEMISPHERES)
        return "one or two tiles (hemispheres), got " + std::to_string(parts.size());
    if (parts.size() == 2 && parts[0].hemi == parts[1].hemi) return "both tiles on one hemisphere";
    for (const Part& part : parts) {
        if (auto e = check_hemi(part.hemi); !e.empty()) return e;
        if (part.rows == 0 || part.rows > BSS2_DRIVERS)
            return std::to_string(part.rows) + " inputs on a hemisphere (1..128 signed inputs)";
        if (part.row0 + part.rows > size)
            return "inputs " + std::to_string(part.row0) + ".." +
                   std::to_string(part.row0 + part.rows - 1) + " outside the vector of " +
                   std::to_string(size);
    }
    if (num_sends == 0 || wait == 0) return "num_sends and wait must be >= 1";
    return "";
}

std::vector<Port> Concatenation::inputs() const {
    std::vector<Port> p;
    for (size_t n : sizes) p.push_back({n, ConnectionType::DataInt8});
    return p;
}

Port Concatenation::output() const {
    size_t n = 0;
    for (size_t k : sizes) n += k;
    return {n, ConnectionType::DataInt8};
}

// ---- generic vertex access ----------------------------------------------------------------

const char* vertex_name(const Vertex& v) {
    return std::visit([](const auto& x) { return std::decay_t<decltype(x)>::name; }, v);
}

bool is_digital_op(const Vertex& v) {
    return std::visit([](const auto& x) { return std::decay_t<decltype(x)>::is_digital_op; }, v);
}

bool can_connect_different_execution_instances(const Vertex& v) {
    return std::visit(
        [](const auto& x) {
            return std::decay_t<decltype(x)>::can_connect_different_execution_instances;
        },
        v);
}

namespace {

template <class T, class S, class = void>
struct HasSupports : std::false_type {};
template <class T, class S>
struct HasSupports<T, S,
                   std::void_t<decltype(std::declval<const T&>().supports_input_from(
                       std::declval<const S&>(), std::declval<const InputSlot&>()))>>
    : std::true_type {};

// Port matching and placement checks of one edge; "" if fine.
bool supports(const Vertex& target, const Vertex& source, const InputSlot& slot) {
    return std::visit(
        [&](const auto& t, const auto& s) {
            using T = std::decay_t<decltype(t)>;
            using S = std::decay_t<decltype(s)>;
            if constexpr (HasSupports<T, S>::value) {
                return t.supports_input_from(s, slot);
            } else {
                return true;
            }
        },
        target, source);
}

std::vector<Port> vertex_inputs(const Vertex& v) {
    return std::visit([](const auto& x) { return x.inputs(); }, v);
}
Port vertex_output(const Vertex& v) {
    return std::visit([](const auto& x) { return x.output(); }, v);
}
bool vertex_variadic(const Vertex& v) {
    return std::visit([](const auto& x) { return std::decay_t<decltype(x)>::variadic_input; }, v);
}
std::string vertex_check(const Vertex& v) {
    return std::visit([](const auto& x) { return x.check(); }, v);
}

}  // namespace

// ---- graph ----------------------------------------------------------------------------------

const Vertex& Graph::vertex(VertexDescriptor v) const {
    return m_configs.at(m_vertices.at(v).config);
}

ExecutionInstance Graph::instance(VertexDescriptor v) const {
    return m_instances[m_vertices.at(v).instance];
}

VertexDescriptor Graph::root(VertexDescriptor v) const { return m_vertices.at(v).root; }

const std::vector<Edge>& Graph::in_edges(VertexDescriptor v) const { return m_vertices.at(v).in; }

const std::vector<Edge>& Graph::out_edges(VertexDescriptor v) const { return m_vertices.at(v).out; }

std::string Graph::label(VertexDescriptor v) const {
    return std::string(vertex_name(vertex(v))) + "(" + std::to_string(root(v)) + ")";
}

size_t Graph::instance_index(ExecutionInstance i) const {
    for (size_t k = 0; k < m_instances.size(); ++k)
        if (m_instances[k] == i) return k;
    return SIZE_MAX;
}

const std::vector<VertexDescriptor>& Graph::vertices(ExecutionInstance i) const {
    static const std::vector<VertexDescriptor> kNone;
    const size_t k = instance_index(i);
    return k == SIZE_MAX ? kNone : m_instance_vertices[k];
}

std::vector<ExecutionInstance> Graph::instance_predecessors(ExecutionInstance i) const {
    std::vector<ExecutionInstance> p;
    const size_t k = instance_index(i);
    for (size_t a = 0; a < m_instances.size(); ++a)
        for (size_t b : m_instance_out[a])
            if (b == k) p.push_back(m_instances[a]);
    return p;
}

bool Graph::instance_reaches(size_t from, size_t to) const {
    std::vector<char> seen(m_instances.size(), 0);
    std::vector<size_t> stack{from};
    while (!stack.empty()) {
        const size_t a = stack.back();
        stack.pop_back();
        if (a == to) return true;
        if (seen[a]) continue;
        seen[a] = 1;
        for (size_t b : m_instance_out[a]) stack.push_back(b);
    }
    return false;
}

std::vector<ExecutionInstance> Graph::instance_order() const {
    const size_t n = m_instances.size();
    std::vector<size_t> indeg(n, 0);
    for (size_t a = 0; a < n; ++a)
        for (size_t b : m_instance_out[a]) ++indeg[b];
    std::vector<ExecutionInstance> order;
    std::vector<char> done(n, 0);
    for (size_t step = 0; step < n; ++step) {
        size_t pick = SIZE_MAX;
        for (size_t a = 0; a < n && pick == SIZE_MAX; ++a)
            if (!done[a] && indeg[a] == 0) pick = a;
        if (pick == SIZE_MAX) throw GraphError("execution-instance graph is cyclic");
        done[pick] = 1;
        order.push_back(m_instances[pick]);
        for (size_t b : m_instance_out[pick]) --indeg[b];
    }
    return order;
}

VertexDescriptor Graph::add(Vertex config, ExecutionInstance instance,
                            const std::vector<Input>& inputs) {
    const VertexDescriptor id = m_vertices.size();
    const std::string who = std::string(vertex_name(config)) + "(" + std::to_string(id) + ")";
    if (auto e = vertex_check(config); !e.empty()) throw GraphError(who + ": " + e);
    m_configs.push_back(std::move(config));
    try {
        return insert(m_configs.size() - 1, id, instance, inputs);
    } catch (...) {
        m_configs.pop_back();
        throw;
    }
}

VertexDescriptor Graph::add(VertexDescriptor reference, ExecutionInstance instance,
                            const std::vector<Input>& inputs) {
    const VertexDescriptor id = m_vertices.size();
    if (reference >= m_vertices.size())
        throw GraphError("vertex " + std::to_string(id) + ": reference to unknown vertex " +
                         std::to_string(reference));
    const VertexDescriptor r = root(reference);
    if (this->instance(r) != instance)
        throw GraphError(label(reference) + " referenced from " + instance.str() +
                         ": a reference must stay in the referenced vertex's execution instance (" +
                         this->instance(r).str() + ")");
    return insert(m_vertices[r].config, r, instance, inputs);
}

VertexDescriptor Graph::insert(size_t config, VertexDescriptor root, ExecutionInstance instance,
                               const std::vector<Input>& inputs) {
    const VertexDescriptor id = m_vertices.size();
    const Vertex& v = m_configs[config];
    const std::string who = std::string(vertex_name(v)) + "(" + std::to_string(root) + ")" +
                            (root != id ? " (reference, vertex " + std::to_string(id) + ")" : "");

    // Port count (eq. 4.1: the last port of a variadic vertex repeats N >= 0 times).
    const std::vector<Port> ports = vertex_inputs(v);
    const bool variadic = vertex_variadic(v);
    if (variadic ? inputs.size() + 1 < ports.size() : inputs.size() != ports.size())
        throw GraphError(who + ": expects " + (variadic ? "at least " : "") +
                         std::to_string(variadic ? ports.size() - 1 : ports.size()) +
                         " input(s), got " + std::to_string(inputs.size()) +
                         (inputs.size() < ports.size() ? " (unconnected input)" : ""));

    const size_t inst = instance_index(instance);
    std::set<size_t> new_instance_deps;
    std::set<std::pair<VertexDescriptor, std::pair<size_t, size_t>>> seen_inputs;
    for (size_t i = 0; i < inputs.size(); ++i) {
        const Input& in = inputs[i];
        const std::string at = who + " input " + std::to_string(i);
        if (in.descriptor >= id)
            throw GraphError(at + ": unknown vertex descriptor " + std::to_string(in.descriptor));
        const Vertex& src = vertex(in.descriptor);
        const std::string src_label = label(in.descriptor);
        const Port& port = ports[std::min(i, ports.size() - 1)];
        const Port out = vertex_output(src);
        if (out.type != port.type)
            throw GraphError(at + ": " + src_label + " delivers " + to_string(out.type) +
                             ", the port expects " + to_string(port.type));
        size_t shape = out.shape;
        if (in.port_restriction) {
            const auto& r = *in.port_restriction;
            if (r.min > r.max || r.max >= out.shape)
                throw GraphError(at + ": port restriction [" + std::to_string(r.min) + ", " +
                                 std::to_string(r.max) + "] outside " + src_label +
                                 "'s out-port of shape " + std::to_string(out.shape));
            shape = r.size();
        }
        if (shape != port.shape)
            throw GraphError(at + ": shape mismatch: " + src_label + " delivers " +
                             std::to_string(shape) + " element(s), the port expects " +
                             std::to_string(port.shape));
        const auto key = std::make_pair(
            in.descriptor, in.port_restriction
                               ? std::make_pair(in.port_restriction->min, in.port_restriction->max)
                               : std::make_pair(SIZE_MAX, SIZE_MAX));
        if (!seen_inputs.insert(key).second)
            throw GraphError(at + ": duplicate input from " + src_label);
        const InputSlot slot{std::min(i, ports.size() - 1), in.port_restriction};
        if (!supports(v, src, slot))
            throw GraphError(at + ": does not support input from " + src_label +
                             " (placement/configuration mismatch)");
        const size_t src_inst = m_vertices[in.descriptor].instance;
        if (inst == SIZE_MAX || src_inst != inst) {
            if (!can_connect_different_execution_instances(v) ||
                !can_connect_different_execution_instances(src))
                throw GraphError(at + ": edge from " + src_label + " (" +
                                 m_instances[src_inst].str() + ") to " + instance.str() +
                                 " crosses execution instances; both vertex types must allow it");
            new_instance_deps.insert(src_inst);
        }
    }
    // Instance graph stays acyclic: the new vertex's instance must not reach any source instance.
    if (inst != SIZE_MAX)
        for (size_t s : new_instance_deps)
            if (instance_reaches(inst, s))
                throw GraphError(who + ": edge from " + m_instances[s].str() + " to " +
                                 instance.str() + " makes the execution-instance graph cyclic");

    // Digital operations only in acyclic subgraphs: with references merged, a new edge
    // src_root -> root closes a cycle iff root already reaches src_root; reject if any vertex on
    // such a cycle is a digital operation.
    if (root != id) {
        std::vector<char> fwd(m_vertices.size(), 0), bwd(m_vertices.size(), 0);
        auto mark = [&](VertexDescriptor start, std::vector<char>& seen,
                        const std::vector<std::vector<VertexDescriptor>>& adj) {
            std::vector<VertexDescriptor> stack{start};
            while (!stack.empty()) {
                const VertexDescriptor a = stack.back();
                stack.pop_back();
                if (seen[a]) continue;
                seen[a] = 1;
                for (VertexDescriptor b : adj[a]) stack.push_back(b);
            }
        };
        mark(root, fwd, m_root_out);
        for (const Input& in : inputs) {
            const VertexDescriptor sr = this->root(in.descriptor);
            if (!fwd[sr]) continue;
            std::fill(bwd.begin(), bwd.end(), 0);
            mark(sr, bwd, m_root_in);
            for (VertexDescriptor u = 0; u < m_vertices.size(); ++u)
                if (fwd[u] && bwd[u] && m_vertices[u].root == u && is_digital_op(vertex(u)))
                    throw GraphError(who + ": input from " + label(in.descriptor) +
                                     " closes a cycle through digital operation " + label(u) +
                                     "; digital operations must be in acyclic subgraphs");
        }
    }

    // Commit.
    size_t ii = inst;
    if (ii == SIZE_MAX) {
        ii = m_instances.size();
        m_instances.push_back(instance);
        m_instance_vertices.emplace_back();
        m_instance_out.emplace_back();
    }
    for (size_t s : new_instance_deps) {
        auto& out = m_instance_out[s];
        if (std::find(out.begin(), out.end(), ii) == out.end()) out.push_back(ii);
    }
    Record rec;
    rec.config = config;
    rec.root = root;
    rec.instance = ii;
    m_vertices.push_back(rec);
    m_root_out.emplace_back();
    m_root_in.emplace_back();
    m_instance_vertices[ii].push_back(id);
    for (size_t i = 0; i < inputs.size(); ++i) {
        Edge e{inputs[i].descriptor, id, std::min(i, ports.size() - 1), inputs[i].port_restriction};
        m_vertices[id].in.push_back(e);
        m_vertices[inputs[i].descriptor].out.push_back(e);
        const VertexDescriptor sr = this->root(inputs[i].descriptor);
        auto& ro = m_root_out[sr];
        if (std::find(ro.begin(), ro.end(), root) == ro.end()) {
            ro.push_back(root);
            m_root_in[root].push_back(sr);
        }
    }
    return id;
}

std::string Graph::to_dot() const {
    std::ostringstream o;
    o << "digraph G {\n";
    auto emit_vertex = [&](VertexDescriptor v) { o << v << "[label=\"" << label(v) << "\"];\n"; };
    if (m_instances.size() <= 1) {
        for (VertexDescriptor v = 0; v < m_vertices.size(); ++v) emit_vertex(v);
    } else {
        for (size_t k = 0; k < m_instances.size(); ++k) {
            o << "subgraph cluster_" << k << " {\nlabel=\"" << m_instances[k].str() << "\";\n";
            for (VertexDescriptor v : m_instance_vertices[k]) emit_vertex(v);
            o << "}\n";
        }
    }
    for (VertexDescriptor v = 0; v < m_vertices.size(); ++v)
        for (const Edge& e : m_vertices[v].in) {
            o << e.source << "->" << e.target;
            if (e.restriction)
                o << "[label=\"[" << e.restriction->min << "," << e.restriction->max << "]\"]";
            o << ";\n";
        }
    o << "}\n";
    return o.str();
}

}  // namespace nmsim::compiler::bss2
