#include "models/brainscales2/routing/crossbar.h"

namespace nmsim::bss2 {
namespace {

constexpr uint32_t kEnableBit = 1u << BSS2_XBAR_MASK_ENABLE_SHIFT;

std::string node_name(uint32_t in, uint32_t out) {
    return "crossbar node (in " + std::to_string(in) + ", out " + std::to_string(out) + ")";
}

void set_error(std::string* error, const std::string& msg) {
    if (error) *error = msg;
}

}  // namespace

Crossbar::Crossbar(sc_core::sc_module_name name, const CrossbarParams& params)
    : sc_core::sc_module(name), m_params(params) {}

bool Crossbar::write_config(uint32_t offset, uint32_t data, std::string* error) {
    if (offset >= kWords) {
        set_error(error, "crossbar: offset " + std::to_string(offset) + " beyond the node table (" +
                             std::to_string(kWords) + " words)");
        return false;
    }
    const uint32_t node = offset / 2u;
    const uint32_t in = node / BSS2_XBAR_OUTPUTS, out = node % BSS2_XBAR_OUTPUTS;
    const bool is_mask = offset % 2u == BSS2_XBAR_MASK;
    const char* reg = is_mask ? "MASK" : "TARGET";
    const uint32_t allowed = is_mask ? (BSS2_LABEL14_MASK | kEnableBit) : BSS2_LABEL14_MASK;
    if (data & ~allowed) {
        set_error(error, node_name(in, out) + " " + reg + ": reserved bits set in " +
                             std::to_string(data));
        return false;
    }
    if (!bss2_xbar_node_exists(in, out) && data != 0) {
        set_error(error, node_name(in, out) + " " + reg +
                             ": the node does not exist (seed 004 Fig. 3.2), it can only be "
                             "written with 0");
        return false;
    }
    if (is_mask) {
        m_nodes[node].mask_word = data;
    } else {
        m_nodes[node].target = data;
    }
    rebuild_input(in);
    return true;
}

bool Crossbar::read_config(uint32_t offset, uint32_t* data, std::string* error) const {
    if (offset >= kWords) {
        set_error(error, "crossbar: offset " + std::to_string(offset) + " beyond the node table (" +
                             std::to_string(kWords) + " words)");
        return false;
    }
    const Node& n = m_nodes[offset / 2u];
    *data = offset % 2u == BSS2_XBAR_MASK ? n.mask_word : n.target;
    return true;
}

void Crossbar::rebuild_input(uint32_t in) {
    std::vector<Route>& r = m_routes[in];
    r.clear();
    for (uint32_t out = 0; out < BSS2_XBAR_OUTPUTS; ++out) {
        const Node& n = m_nodes[in * BSS2_XBAR_OUTPUTS + out];
        if (n.mask_word & kEnableBit) r.push_back({out, n.mask_word & BSS2_LABEL14_MASK, n.target});
    }
}

void Crossbar::bind_output(uint32_t out, EventSink sink) {
    if (out < BSS2_XBAR_OUTPUTS) m_sinks[out] = std::move(sink);
}

void Crossbar::input(uint32_t in, uint32_t label14, uint64_t t_ps) {
    if (in >= BSS2_XBAR_INPUTS || label14 > BSS2_LABEL14_MASK) {
        ++m_malformed;
        return;
    }
    ++m_in_events[in];
    const uint64_t t_out = t_ps + static_cast<uint64_t>(m_params.latency.ps);
    bool routed = false;
    for (const Route& r : m_routes[in]) {
        if ((label14 & r.mask) != r.target) continue;
        routed = true;
        ++m_out_events[r.out];
        if (m_sinks[r.out]) {
            m_sinks[r.out](label14, t_out);
        } else {
            ++m_unbound;
        }
    }
    if (!routed) ++m_unrouted[in];
}

EventSink Crossbar::input_sink(uint32_t in) {
    return [this, in](uint32_t label, uint64_t t_ps) { input(in, label, t_ps); };
}

void Crossbar::write_summary(nmsim::trace::Sink& sink, nmsim::trace::ComponentId c) const {
    for (uint32_t i = 0; i < BSS2_XBAR_INPUTS; ++i) {
        if (m_in_events[i] == 0) continue;
        const std::string n = "in" + std::to_string(i);
        sink.counter(c, n + ".events", "1", static_cast<double>(m_in_events[i]));
        sink.counter(c, n + ".unrouted", "1", static_cast<double>(m_unrouted[i]));
    }
    for (uint32_t o = 0; o < BSS2_XBAR_OUTPUTS; ++o) {
        if (m_out_events[o] == 0) continue;
        sink.counter(c, "out" + std::to_string(o) + ".events", "1",
                     static_cast<double>(m_out_events[o]));
    }
    sink.counter(c, "malformed", "1", static_cast<double>(m_malformed));
    sink.counter(c, "unbound", "1", static_cast<double>(m_unbound));
}

}  // namespace nmsim::bss2
