// Network description: validation on insertion (seed 004 section 4.1.4, Listing 16: the network
// graph object checks a projection when it is added).
#include "tools/compiler/bss2/network.h"

#include <cmath>

namespace nmsim::compiler::bss2 {

std::string SourceRef::str() const {
    if (file.empty() && line <= 0) return "";
    std::string s = file.empty() ? std::string("<network>") : file;
    if (line > 0) s += ":" + std::to_string(line) + ":" + std::to_string(col);
    return s;
}

const char* to_string(PopulationKind k) {
    switch (k) {
        case PopulationKind::external:
            return "external";
        case PopulationKind::internal:
            return "internal";
        case PopulationKind::background:
            return "background";
    }
    return "?";
}

const char* to_string(Receptor r) {
    return r == Receptor::excitatory ? "excitatory" : "inhibitory";
}

namespace {

[[noreturn]] void fail(const SourceRef& where, const std::string& what, const std::string& msg) {
    const std::string w = where.str();
    throw NetworkError((w.empty() ? "" : w + ": ") + what + ": " + msg);
}

bool finite_positive(double v) { return std::isfinite(v) && v > 0.0; }

void check_neuron(const SourceRef& where, const std::string& what, size_t i,
                  const NeuronProperties& n) {
    auto bad = [&](const char* field, const char* why) {
        fail(where, what, "neuron " + std::to_string(i) + ": " + field + " " + why);
    };
    const std::pair<const char*, double> positive[] = {{"c_mem", n.c_mem},
                                                       {"tau_mem", n.tau_mem},
                                                       {"tau_syn_exc", n.tau_syn_exc},
                                                       {"tau_syn_inh", n.tau_syn_inh},
                                                       {"tau_w", n.tau_w},
                                                       {"delta_t", n.delta_t}};
    for (const auto& [field, v] : positive)
        if (!finite_positive(v)) bad(field, "must be a positive number");
    const std::pair<const char*, double> finite[] = {{"v_leak", n.v_leak},
                                                     {"v_reset", n.v_reset},
                                                     {"v_threshold", n.v_threshold},
                                                     {"i_offset", n.i_offset},
                                                     {"v_exp", n.v_exp},
                                                     {"a", n.a},
                                                     {"b", n.b}};
    for (const auto& [field, v] : finite)
        if (!std::isfinite(v)) bad(field, "must be finite");
    const std::pair<const char*, double> nonneg[] = {
        {"t_ref", n.t_ref}, {"w_exc", n.w_exc}, {"w_inh", n.w_inh}};
    for (const auto& [field, v] : nonneg)
        if (!std::isfinite(v) || v < 0.0) bad(field, "must be >= 0");
}

}  // namespace

size_t Network::add(Population p) {
    const std::string what = "population '" + p.name + "'";
    if (p.name.empty()) fail(p.where, "population", "empty name");
    if (find(p.name)) fail(p.where, what, "name already used by another population");
    if (p.size == 0) fail(p.where, what, "size must be > 0");
    if (p.kind != PopulationKind::internal) {
        if (p.hemisphere || p.first_column)
            fail(p.where, what,
                 "placement hints (hemisphere, first_column) apply to internal populations only");
        if (!p.neurons.empty())
            fail(p.where, what, "neuron properties apply to internal populations only");
    }
    if (p.kind == PopulationKind::internal) {
        if (p.neurons.empty()) p.neurons.resize(p.size);
        if (p.neurons.size() != p.size)
            fail(p.where, what,
                 std::to_string(p.neurons.size()) + " neuron property entries for size " +
                     std::to_string(p.size));
        for (size_t i = 0; i < p.neurons.size(); ++i) check_neuron(p.where, what, i, p.neurons[i]);
        if (p.hemisphere && *p.hemisphere >= 2) fail(p.where, what, "hemisphere must be 0 or 1");
        if (p.first_column && *p.first_column + p.size > 256)
            fail(p.where, what,
                 "first_column " + std::to_string(*p.first_column) + " + size " +
                     std::to_string(p.size) + " exceeds the 256 columns of a hemisphere");
    }
    if (p.kind == PopulationKind::background) {
        if (p.size > 256 || (p.size & (p.size - 1)) != 0)
            fail(p.where, what,
                 "background size " + std::to_string(p.size) +
                     " must be a power of two <= 256 (the generator randomises low label bits)");
        if (!finite_positive(p.rate_hz)) fail(p.where, what, "background rate must be > 0 Hz");
    }
    populations.push_back(std::move(p));
    return populations.size() - 1;
}

size_t Network::add(Projection p) {
    const std::string what = "projection '" + p.name + "'";
    if (p.name.empty()) fail(p.where, "projection", "empty name");
    for (const auto& q : projections)
        if (q.name == p.name) fail(p.where, what, "name already used by another projection");
    if (p.source >= populations.size())
        fail(p.where, what,
             "source population index " + std::to_string(p.source) + " out of range");
    if (p.target >= populations.size())
        fail(p.where, what,
             "target population index " + std::to_string(p.target) + " out of range");
    const Population& src = populations[p.source];
    const Population& tgt = populations[p.target];
    if (tgt.kind != PopulationKind::internal)
        fail(p.where, what,
             "target population '" + tgt.name + "' is " + to_string(tgt.kind) +
                 "; only on-chip (internal) neurons can receive events");
    for (size_t i = 0; i < p.connections.size(); ++i) {
        const Connection& c = p.connections[i];
        const std::string ci = "connection " + std::to_string(i) + " (" + std::to_string(c.source) +
                               " -> " + std::to_string(c.target) + ")";
        if (c.source >= src.size)
            fail(p.where, what,
                 ci + ": source index out of range of '" + src.name + "' (size " +
                     std::to_string(src.size) + ")");
        if (c.target >= tgt.size)
            fail(p.where, what,
                 ci + ": target index out of range of '" + tgt.name + "' (size " +
                     std::to_string(tgt.size) + ")");
        if (c.weight > 63)
            fail(p.where, what,
                 ci + ": weight " + std::to_string(c.weight) + " > 63 (6-bit synapse)");
    }
    if (p.stp) {
        if (!(std::isfinite(p.stp->u) && p.stp->u > 0.0 && p.stp->u <= 1.0))
            fail(p.where, what, "stp.u must be in (0, 1]");
        if (!finite_positive(p.stp->tau_rec)) fail(p.where, what, "stp.tau_rec must be > 0 us");
    }
    projections.push_back(std::move(p));
    return projections.size() - 1;
}

const Population* Network::find(const std::string& name) const {
    for (const auto& p : populations)
        if (p.name == name) return &p;
    return nullptr;
}

}  // namespace nmsim::compiler::bss2
