// Routing verifier: an independent interpretation of a Placement with the hardware forwarding
// rules of bss2_map.h only (crossbar node filters, PADI buses, synapse-driver row-select filters,
// row modes, synapse labels). It does not use the router's internal structures.
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "nmsim/hw/brainscales2/bss2_map.h"
#include "tools/compiler/bss2/placement.h"

namespace nmsim::compiler::bss2 {
namespace {

constexpr size_t kMaxProblems = 200;

struct Delivery {
    uint32_t weight = 0;
    std::set<std::pair<double, double>> stp;  // (u, tau_rec) of the drivers; (-1,-1) = no STP
};

using Key = std::tuple<uint32_t, uint32_t, int>;  // hemi, column, receptor (0 exc, 1 inh)

class Verifier {
public:
    Verifier(const Network& net, const Placement& pl) : m_net(net), m_pl(pl) {}

    std::vector<std::string> run() {
        if (m_pl.populations.size() != m_net.populations.size() ||
            m_pl.projections.size() != m_net.projections.size()) {
            bad("placement has " + std::to_string(m_pl.populations.size()) + " populations and " +
                std::to_string(m_pl.projections.size()) + " projections, the network " +
                std::to_string(m_net.populations.size()) + " and " +
                std::to_string(m_net.projections.size()));
            return m_problems;
        }
        check_geometry();
        if (!m_problems.empty())
            return m_problems;  // simulating a malformed placement is meaningless
        check_populations();
        build_expectation();
        check_projection_placement();
        for (size_t p = 0; p < m_net.populations.size(); ++p)
            for (size_t i = 0; i < m_net.populations[p].size; ++i) simulate(p, i);
        check_outputs();
        if (m_dropped) bad("... and " + std::to_string(m_dropped) + " more problems");
        return m_problems;
    }

private:
    void bad(const std::string& s) {
        if (m_problems.size() < kMaxProblems)
            m_problems.push_back(s);
        else
            ++m_dropped;
    }
    std::string name(size_t p, size_t i) const {
        return "'" + m_net.populations[p].name + "'[" + std::to_string(i) + "]";
    }

    void check_geometry() {
        std::set<std::pair<uint32_t, uint32_t>> nodes;
        for (const XbarNodeCfg& n : m_pl.nodes) {
            const std::string w =
                "crossbar node (" + std::to_string(n.in) + ", " + std::to_string(n.out) + ")";
            if (!bss2_xbar_node_exists(n.in, n.out)) bad(w + " does not exist on the chip");
            if (n.mask > BSS2_LABEL14_MASK || n.target > BSS2_LABEL14_MASK)
                bad(w + ": mask/target wider than 14 bit");
            if ((n.target & ~n.mask) != 0)
                bad(w + ": target has bits outside the mask (forwards nothing)");
            if (!nodes.insert({n.in, n.out}).second) bad(w + " configured twice");
        }
        for (uint32_t b : m_pl.padi_buses) {
            if (b >= 8) bad("PADI bus " + std::to_string(b) + " out of range");
            if (!m_buses.insert(b).second) bad("PADI bus " + std::to_string(b) + " enabled twice");
        }
        std::set<std::pair<uint32_t, uint32_t>> drivers;
        for (const DriverCfg& d : m_pl.drivers) {
            const std::string w =
                "synapse driver " + std::to_string(d.hemi) + "/" + std::to_string(d.driver);
            if (d.hemi >= BSS2_HEMISPHERES || d.driver >= BSS2_DRIVERS) bad(w + " out of range");
            if (d.row_mask > 0x1F) bad(w + ": row mask wider than 5 bit");
            if (d.mode[0] > BSS2_ROW_INHIBITORY || d.mode[1] > BSS2_ROW_INHIBITORY)
                bad(w + ": invalid row mode");
            if (d.stp && !(d.stp_u > 0 && d.stp_u <= 1 && d.stp_tau_rec > 0))
                bad(w + ": invalid STP parameters");
            if (!drivers.insert({d.hemi, d.driver}).second) bad(w + " configured twice");
        }
        std::vector<bool> cell_used(BSS2_HEMISPHERES * BSS2_ROWS * BSS2_COLUMNS, false);
        std::vector<uint32_t> count(BSS2_HEMISPHERES * BSS2_ROWS * 64 + 1, 0);
        for (const SynapseCfg& s : m_pl.synapses) {
            if (s.hemi >= BSS2_HEMISPHERES || s.row >= BSS2_ROWS || s.col >= BSS2_COLUMNS ||
                s.weight > 63 || s.label > 63) {
                bad("synapse " + std::to_string(s.hemi) + "/" + std::to_string(s.row) + "/" +
                    std::to_string(s.col) + " out of range (or weight/label wider than 6 bit)");
                continue;
            }
            const size_t c = (size_t{s.hemi} * BSS2_ROWS + s.row) * BSS2_COLUMNS + s.col;
            if (cell_used[c])
                bad("synapse " + std::to_string(s.hemi) + "/" + std::to_string(s.row) + "/" +
                    std::to_string(s.col) + " used twice");
            cell_used[c] = true;
            ++count[row_key(s.hemi, s.row, s.label) + 1];
        }
        if (!m_problems.empty()) return;
        // Cells by (hemisphere, row, label), compressed: m_cells[m_start[key] .. m_start[key + 1]).
        for (size_t k = 1; k < count.size(); ++k) count[k] += count[k - 1];
        m_start = count;
        m_cells.resize(m_pl.synapses.size());
        for (size_t k = 0; k < m_pl.synapses.size(); ++k) {
            const SynapseCfg& s = m_pl.synapses[k];
            m_cells[count[row_key(s.hemi, s.row, s.label)]++] = static_cast<uint32_t>(k);
        }
        for (const DriverCfg& d : m_pl.drivers)
            m_bus_drivers[d.hemi * 4 + bss2_driver_bus(d.driver)].push_back(&d);
    }
    static uint32_t row_key(uint32_t h, uint32_t row, uint32_t label) {
        return (h * BSS2_ROWS + row) * 64 + label;
    }

    void check_populations() {
        std::map<std::pair<uint32_t, uint32_t>, std::pair<size_t, size_t>> slots;
        std::set<uint32_t> gens;
        for (size_t p = 0; p < m_net.populations.size(); ++p) {
            const Population& pop = m_net.populations[p];
            const PopulationPlacement& pp = m_pl.populations[p];
            const std::string w = "population '" + pop.name + "'";
            if (pp.kind != pop.kind) bad(w + ": placement kind differs");
            if (pop.kind == PopulationKind::internal) {
                if (pp.neurons.size() != pop.size) {
                    bad(w + ": " + std::to_string(pp.neurons.size()) + " neuron slots for size " +
                        std::to_string(pop.size));
                    continue;
                }
                for (size_t i = 0; i < pop.size; ++i) {
                    const NeuronSlot& s = pp.neurons[i];
                    if (s.hemi >= BSS2_HEMISPHERES || s.col >= BSS2_COLUMNS || s.addr > 0xFF)
                        bad(w + " neuron " + std::to_string(i) + ": slot out of range");
                    else if (!slots.insert({{s.hemi, s.col}, {p, i}}).second)
                        bad(w + " neuron " + std::to_string(i) + ": neuron circuit " +
                            std::to_string(s.hemi) + "/" + std::to_string(s.col) + " used twice");
                    if (pop.hemisphere && s.hemi != *pop.hemisphere)
                        bad(w + ": hemisphere hint not honoured");
                    if (pop.first_column && s.col != *pop.first_column + i)
                        bad(w + ": first_column hint not honoured");
                }
            } else if (pop.kind == PopulationKind::external) {
                if (pp.l2_events.size() != pop.size)
                    bad(w + ": l2_events size differs from population size");
                for (uint32_t e : pp.l2_events)
                    if (e > 0xFFFF) bad(w + ": L2 event wider than 16 bit");
            } else {
                const BackgroundCfg& bg = pp.background;
                if (bg.index >= BSS2_BACKGROUND || !gens.insert(bg.index).second)
                    bad(w + ": background generator " + std::to_string(bg.index) +
                        " out of range or used twice");
                if (pp.labels.size() != pop.size) {
                    bad(w + ": labels size differs from population size");
                    continue;
                }
                if (bg.mask > 0xFF || bg.label > BSS2_LABEL14_MASK)
                    bad(w + ": generator mask/label too wide");
                // The generator emits base label with every combination of the mask bits.
                std::set<uint32_t> emitted, listed(pp.labels.begin(), pp.labels.end());
                for (uint32_t r = 0; r <= 0xFF; ++r)
                    if ((r & ~bg.mask) == 0) emitted.insert((bg.label & ~bg.mask) | r);
                if (emitted != listed || listed.size() != pop.size)
                    bad(w +
                        ": the generator's labels (base/mask) are not exactly the population's "
                        "labels");
                if (bg.poisson != pop.poisson) bad(w + ": Poisson/regular mode differs");
                if (bg.period < 1 || bg.period > 0xFFFF || bg.rate > 0xFF)
                    bad(w + ": period/rate out of range");
                const double per_cycle = bg.poisson ? bg.rate / 256.0 : 1.0;
                const double total = 125e6 * per_cycle / std::max<uint32_t>(bg.period, 1);
                const double want = pop.rate_hz * static_cast<double>(pop.size);
                if (std::abs(total / want - 1.0) > 0.01)
                    bad(w + ": generator rate " + std::to_string(total) +
                        " Hz total, network asks " + std::to_string(want) + " Hz");
            }
        }
    }

    void build_expectation() {
        for (size_t j = 0; j < m_net.projections.size(); ++j) {
            const Projection& pr = m_net.projections[j];
            for (const Connection& c : pr.connections) {
                if (c.weight == 0) continue;
                const NeuronSlot& t = m_pl.populations[pr.target].neurons[c.target];
                Delivery& d = m_expect[{pr.source, c.source}]
                                      [{t.hemi, t.col, pr.receptor == Receptor::inhibitory}];
                d.weight += c.weight;
                d.stp.insert(pr.stp ? std::make_pair(pr.stp->u, pr.stp->tau_rec)
                                    : std::make_pair(-1.0, -1.0));
            }
        }
    }

    void check_projection_placement() {
        for (size_t j = 0; j < m_net.projections.size(); ++j) {
            const Projection& pr = m_net.projections[j];
            const ProjectionPlacement& pp = m_pl.projections[j];
            const std::string w = "projection '" + pr.name + "'";
            if (pp.synapses.size() != pr.connections.size()) {
                bad(w + ": " + std::to_string(pp.synapses.size()) + " synapse indices for " +
                    std::to_string(pr.connections.size()) + " connections");
                continue;
            }
            for (size_t ci = 0; ci < pr.connections.size(); ++ci) {
                const Connection& c = pr.connections[ci];
                const size_t k = pp.synapses[ci];
                if (c.weight == 0) {
                    if (k != SIZE_MAX)
                        bad(w + " connection " + std::to_string(ci) + ": weight 0 but a synapse");
                    continue;
                }
                if (k >= m_pl.synapses.size()) {
                    bad(w + " connection " + std::to_string(ci) + ": synapse index out of range");
                    continue;
                }
                const SynapseCfg& s = m_pl.synapses[k];
                const NeuronSlot& t = m_pl.populations[pr.target].neurons[c.target];
                if (s.hemi != t.hemi || s.col != t.col || s.weight < c.weight)
                    bad(w + " connection " + std::to_string(ci) +
                        ": its synapse is not on the target neuron's "
                        "column or has a smaller weight");
            }
        }
    }

    // Every event a source emits: (crossbar input, 14-bit event).
    std::vector<std::pair<uint32_t, uint32_t>> events_of(size_t p, size_t i) const {
        const PopulationPlacement& pp = m_pl.populations[p];
        switch (m_net.populations[p].kind) {
            case PopulationKind::internal: {
                const NeuronSlot& s = pp.neurons[i];
                return {{BSS2_XIN_NEURON(bss2_neuron_channel(s.col)),
                         bss2_neuron_event(s.col, s.addr)}};
            }
            case PopulationKind::external: {
                const uint32_t e = pp.l2_events[i];
                return {{BSS2_XIN_L2(e >> BSS2_L2_CHANNEL_SHIFT & 3u), e & BSS2_LABEL14_MASK}};
            }
            case PopulationKind::background:
                return {{BSS2_XIN_BG(pp.background.index), pp.labels[i] & BSS2_LABEL14_MASK}};
        }
        return {};
    }

    void simulate(size_t p, size_t i) {
        std::map<Key, Delivery> got;
        for (const auto& [in, ev] : events_of(p, i))
            for (const XbarNodeCfg& n : m_pl.nodes) {
                if (n.in != in || (ev & n.mask) != n.target) continue;
                if (n.out >= 8) {
                    m_reached[((n.out - 8) << BSS2_L2_CHANNEL_SHIFT) | ev].insert({p, i});
                    continue;
                }
                if (m_buses.count(n.out) == 0) continue;  // disabled bus: the event is lost
                const uint32_t h = n.out / 4, bus = n.out % 4;
                const uint32_t padi = ev & BSS2_PADI_MASK;
                const uint32_t rowsel = bss2_padi_rowsel(padi), label = bss2_padi_synlabel(padi);
                for (const DriverCfg* dp : m_bus_drivers[h * 4 + bus]) {
                    const DriverCfg& d = *dp;
                    if (!bss2_driver_accepts(bss2_driver_index(d.driver), d.row_mask, rowsel))
                        continue;
                    const uint32_t fwd = d.lower5 ? label : label & 0x20u;
                    for (uint32_t r = 0; r < 2; ++r) {
                        if (d.mode[r] == BSS2_ROW_DISABLED) continue;
                        const uint32_t key = row_key(h, 2 * d.driver + r, fwd);
                        for (uint32_t c = m_start[key]; c < m_start[key + 1]; ++c) {
                            const SynapseCfg& s = m_pl.synapses[m_cells[c]];
                            if (s.weight == 0) continue;  // inert cell
                            Delivery& dl = got[{h, s.col, d.mode[r] == BSS2_ROW_INHIBITORY}];
                            dl.weight += s.weight;
                            dl.stp.insert(d.stp ? std::make_pair(d.stp_u, d.stp_tau_rec)
                                                : std::make_pair(-1.0, -1.0));
                        }
                    }
                }
            }
        static const std::map<Key, Delivery> kNone;
        const auto eit = m_expect.find({p, i});
        const std::map<Key, Delivery>& want = eit == m_expect.end() ? kNone : eit->second;
        auto describe = [&](const Key& k) {
            const char* rec = std::get<2>(k) ? "inhibitory" : "excitatory";
            return "hemisphere " + std::to_string(std::get<0>(k)) + " column " +
                   std::to_string(std::get<1>(k)) + " (" + rec + ")";
        };
        for (const auto& [k, d] : want) {
            const auto g = got.find(k);
            const uint32_t w = g == got.end() ? 0 : g->second.weight;
            if (w != d.weight)
                bad("source " + name(p, i) + " -> " + describe(k) + ": network weight " +
                    std::to_string(d.weight) + ", delivered " + std::to_string(w));
            else if (g->second.stp != d.stp)
                bad("source " + name(p, i) + " -> " + describe(k) +
                    ": short-term plasticity of the drivers differs");
        }
        for (const auto& [k, d] : got)
            if (want.count(k) == 0)
                bad("source " + name(p, i) + " -> " + describe(k) + ": delivered weight " +
                    std::to_string(d.weight) + " without a connection");
    }

    void check_outputs() {
        for (const auto& [key, who] : m_reached)
            if (who.size() > 1) {
                const auto it = m_pl.output_events.find(key);
                if (it != m_pl.output_events.end())
                    bad("L2 output event " + std::to_string(key) + " is emitted by " +
                        std::to_string(who.size()) + " sources; recorded spikes are ambiguous");
            }
        for (const auto& [key, pn] : m_pl.output_events) {
            const auto it = m_reached.find(key);
            if (pn.first >= m_net.populations.size() ||
                m_net.populations[pn.first].kind != PopulationKind::internal ||
                pn.second >= m_net.populations[pn.first].size) {
                bad("output event " + std::to_string(key) + " names no on-chip neuron");
                continue;
            }
            if (it == m_reached.end() || it->second.count(pn) == 0)
                bad("output event " + std::to_string(key) + " of " + name(pn.first, pn.second) +
                    " is not emitted by that neuron");
        }
        std::set<std::pair<size_t, size_t>> mapped;
        for (const auto& [key, pn] : m_pl.output_events) mapped.insert(pn);
        for (size_t p = 0; p < m_net.populations.size(); ++p) {
            const Population& pop = m_net.populations[p];
            if (pop.kind != PopulationKind::internal || !pop.record_spikes) continue;
            for (size_t i = 0; i < pop.size; ++i)
                if (mapped.count({p, i}) == 0)
                    bad("recorded neuron " + name(p, i) + " has no output event");
        }
    }

    const Network& m_net;
    const Placement& m_pl;
    std::vector<std::string> m_problems;
    size_t m_dropped = 0;
    std::set<uint32_t> m_buses;
    std::vector<uint32_t> m_start, m_cells;
    std::vector<const DriverCfg*> m_bus_drivers[8];
    std::map<std::pair<size_t, size_t>, std::map<Key, Delivery>> m_expect;
    std::map<uint32_t, std::set<std::pair<size_t, size_t>>> m_reached;
};

}  // namespace

std::vector<std::string> verify_routing(const Network& net, const Placement& pl) {
    return Verifier(net, pl).run();
}

}  // namespace nmsim::compiler::bss2
