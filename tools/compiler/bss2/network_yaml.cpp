// YAML network files (format: docs/bss2_compiler.md, "Network files"). Every error names
// file:line:col and the key path; unknown keys are errors.
#include <random>
#include <set>

#include "nmsim/hw/brainscales2/bss2_map.h"
#include "tools/compiler/bss2/network.h"
#include "tools/compiler/yaml_file.h"

namespace nmsim::compiler::bss2 {
namespace {

// A connector line can stand for millions of connections: all_to_all and fixed_probability
// visit every (source, target) pair. Past these totals per network the file is refused before
// they are generated (docs/bss2_compiler.md, "Size limits").
// Pairs visited: two projections of the largest populations (16384 sources x 512 neurons).
constexpr uint64_t kMaxPairs = uint64_t{2} * 16384 * BSS2_NEURONS;
// Connections: 16 per synapse cell of the chip (2 x 256 x 256). More can only be of weight 0 (no
// cell) or duplicates merged into one cell (weights summed to at most 63).
constexpr uint64_t kMaxConnections = uint64_t{16} * BSS2_HEMISPHERES * BSS2_ROWS * BSS2_COLUMNS;

class Loader {
public:
    // `text`: the file's text, or nullptr to read the file `path`.
    explicit Loader(std::string path, const std::string* text = nullptr)
        : m_file(std::move(path), text) {}

    Network load() {
        const YAML::Node root = m_file.load();
        m_net.file = m_file.path();
        if (!root.IsMap())
            m_file.fail(root, "",
                        "the network file must be a map with 'populations' and 'projections'");
        m_file.check_keys(root, "", {"populations", "projections"});
        const YAML::Node pops = root["populations"];
        if (!pops || !pops.IsSequence() || pops.size() == 0)
            m_file.fail(pops ? pops : root, "populations",
                        "a non-empty list of populations is required");
        for (size_t i = 0; i < pops.size(); ++i)
            load_population(pops[i], "populations[" + std::to_string(i) + "]");
        if (const YAML::Node projs = root["projections"]) {
            if (!projs.IsSequence()) m_file.fail(projs, "projections", "must be a list");
            for (size_t i = 0; i < projs.size(); ++i)
                load_projection(projs[i], "projections[" + std::to_string(i) + "]");
        }
        return std::move(m_net);
    }

private:
    void load_neuron(const YAML::Node& n, const std::string& path, NeuronProperties& p) const {
        if (!n.IsMap()) m_file.fail(n, path, "expected a map of neuron parameters");
        for (const auto& kv : n) {
            if (!kv.first.IsScalar()) m_file.fail(kv.first, path, "map keys must be plain names");
            const std::string k = kv.first.Scalar();
            const std::string kp = path + "." + k;
            if (k == "exponential") {
                p.exponential = m_file.boolean(kv.second, kp);
                continue;
            }
            if (k == "adaptation") {
                p.adaptation = m_file.boolean(kv.second, kp);
                continue;
            }
            bool found = false;
            for (const NeuronParameter& np : neuron_parameters())
                if (k == np.key) {
                    p.*np.field = m_file.ranged(kv.second, kp, np.range);
                    found = true;
                }
            if (!found)
                m_file.fail(kv.first, kp,
                            "unknown neuron parameter (see NeuronProperties in network.h)");
        }
    }

    void load_population(const YAML::Node& n, const std::string& path) {
        if (!n.IsMap()) m_file.fail(n, path, "expected a map");
        m_file.check_keys(n, path,
                          {"name", "kind", "size", "hemisphere", "first_column", "record", "neuron",
                           "rate", "poisson"});
        Population p;
        p.where = m_file.ref(n);
        p.name = m_file.str(m_file.need(n, path, "name"), path + ".name");
        const YAML::Node kind = m_file.need(n, path, "kind");
        const std::string k = m_file.str(kind, path + ".kind");
        if (k == "external")
            p.kind = PopulationKind::external;
        else if (k == "internal")
            p.kind = PopulationKind::internal;
        else if (k == "background")
            p.kind = PopulationKind::background;
        else
            m_file.fail(kind, path + ".kind",
                        "'" + k + "' is not one of external, internal, background");
        const YAML::Node size = m_file.need(n, path, "size");
        const Range size_range = population_size_range(p.kind);
        p.size = m_file.uint(size, path + ".size", 1u << 20);
        if (p.kind == PopulationKind::background &&
            (!size_range.contains(static_cast<double>(p.size)) || (p.size & (p.size - 1)) != 0))
            m_file.fail(
                size, path + ".size",
                size.Scalar() + " is not a power of two in 1..256 (" + size_range.why + ")");
        if (!size_range.contains(static_cast<double>(p.size)))
            m_file.fail(size, path + ".size", size.Scalar() + " " + size_range.outside());
        auto only = [&](const char* key, PopulationKind kk) {
            if (n[key] && p.kind != kk)
                m_file.fail(n[key], path + "." + key,
                            std::string("only allowed for ") + to_string(kk) +
                                " populations (this one is " + to_string(p.kind) + ")");
        };
        for (const char* key : {"hemisphere", "first_column", "record", "neuron"})
            only(key, PopulationKind::internal);
        for (const char* key : {"rate", "poisson"}) only(key, PopulationKind::background);
        if (n["hemisphere"])
            p.hemisphere =
                static_cast<uint32_t>(m_file.uint(n["hemisphere"], path + ".hemisphere", 1));
        if (n["first_column"]) {
            p.first_column =
                static_cast<uint32_t>(m_file.uint(n["first_column"], path + ".first_column", 255));
            if (*p.first_column + p.size > BSS2_COLUMNS)
                m_file.fail(n["first_column"], path + ".first_column",
                            n["first_column"].Scalar() + " + size " + std::to_string(p.size) +
                                " exceeds the 256 columns of a hemisphere");
        }
        if (p.hemisphere && p.size > BSS2_COLUMNS)
            m_file.fail(n["hemisphere"], path + ".hemisphere",
                        "a population of " + std::to_string(p.size) +
                            " neurons does not fit the 256 columns of one hemisphere");
        if (n["record"]) p.record_spikes = m_file.boolean(n["record"], path + ".record");
        if (p.kind == PopulationKind::internal) {
            NeuronProperties props;
            if (n["neuron"]) load_neuron(n["neuron"], path + ".neuron", props);
            p.neurons.assign(p.size, props);
        }
        if (p.kind == PopulationKind::background) {
            if (n["poisson"]) p.poisson = m_file.boolean(n["poisson"], path + ".poisson");
            const YAML::Node rate = m_file.need(n, path, "rate");
            p.rate_hz = m_file.num(rate, path + ".rate");
            uint32_t period = 0, r = 0;
            const std::string why = background_setting(p.rate_hz, p.size, p.poisson, &period, &r);
            if (!why.empty()) m_file.fail(rate, path + ".rate", why);
        }
        m_net.add(std::move(p));
    }

    size_t population(const YAML::Node& n, const std::string& path) const {
        const std::string name = m_file.str(n, path);
        for (size_t i = 0; i < m_net.populations.size(); ++i)
            if (m_net.populations[i].name == name) return i;
        m_file.fail(n, path, "no population named '" + name + "'");
    }

    void load_projection(const YAML::Node& n, const std::string& path) {
        if (!n.IsMap()) m_file.fail(n, path, "expected a map");
        m_file.check_keys(
            n, path,
            {"name", "source", "target", "receptor", "connector", "weight", "probability", "seed",
             "connections", "matrix", "offset", "stp", "allow_self"});
        Projection p;
        p.where = m_file.ref(n);
        p.name = m_file.str(m_file.need(n, path, "name"), path + ".name");
        p.source = population(m_file.need(n, path, "source"), path + ".source");
        p.target = population(m_file.need(n, path, "target"), path + ".target");
        const size_t ns = m_net.populations[p.source].size, nt = m_net.populations[p.target].size;
        if (const YAML::Node r = n["receptor"]) {
            const std::string rs = m_file.str(r, path + ".receptor");
            if (rs == "excitatory")
                p.receptor = Receptor::excitatory;
            else if (rs == "inhibitory")
                p.receptor = Receptor::inhibitory;
            else
                m_file.fail(r, path + ".receptor",
                            "'" + rs + "' is not one of excitatory, inhibitory");
        }
        const YAML::Node cn = m_file.need(n, path, "connector");
        const std::string connector = m_file.str(cn, path + ".connector");
        const std::set<std::string> uses_weight = {"all_to_all", "one_to_one", "fixed_probability"};
        auto forbid = [&](const char* key) {
            if (n[key])
                m_file.fail(n[key], path + "." + key, "not used by connector '" + connector + "'");
        };
        uint32_t weight = 0;
        if (uses_weight.count(connector) != 0) {
            weight = static_cast<uint32_t>(
                m_file.uint(m_file.need(n, path, "weight"), path + ".weight", 63));
            forbid("connections");
            forbid("matrix");
            forbid("offset");
        }
        if (connector != "fixed_probability") {
            forbid("probability");
            forbid("seed");
        }
        bool allow_self = true;
        if (n["allow_self"]) {
            if (connector != "all_to_all" && connector != "fixed_probability") forbid("allow_self");
            allow_self = m_file.boolean(n["allow_self"], path + ".allow_self");
        }
        const bool same = p.source == p.target;
        const std::string cp = path + ".connector";
        if (connector == "all_to_all") {
            count_pairs(cn, cp, connector, uint64_t{ns} * nt);
            count_connections(cn, cp, uint64_t{ns} * nt - (!allow_self && same ? ns : 0));
            for (uint32_t i = 0; i < ns; ++i)
                for (uint32_t j = 0; j < nt; ++j)
                    if (allow_self || !same || i != j) p.connections.push_back({i, j, weight});
        } else if (connector == "one_to_one") {
            if (ns != nt)
                m_file.fail(cn, path + ".connector",
                            "one_to_one needs equal sizes (" + std::to_string(ns) + " vs " +
                                std::to_string(nt) + ")");
            for (uint32_t i = 0; i < ns; ++i) p.connections.push_back({i, i, weight});
        } else if (connector == "fixed_probability") {
            const YAML::Node pn = m_file.need(n, path, "probability");
            const double prob = m_file.num(pn, path + ".probability");
            if (prob < 0 || prob > 1) m_file.fail(pn, path + ".probability", "must be in [0, 1]");
            const uint64_t seed =
                n["seed"] ? m_file.uint(n["seed"], path + ".seed", UINT64_MAX >> 11) : 1;
            count_pairs(cn, cp, connector, uint64_t{ns} * nt);
            std::mt19937_64 rng(seed);
            std::uniform_real_distribution<double> u(0.0, 1.0);
            for (uint32_t i = 0; i < ns; ++i) {
                for (uint32_t j = 0; j < nt; ++j) {
                    const bool take = u(rng) < prob;
                    if (take && (allow_self || !same || i != j))
                        p.connections.push_back({i, j, weight});
                }
                count_connections(cn, cp, p.connections.size(), true);
            }
        } else if (connector == "list") {
            forbid("matrix");
            forbid("offset");
            const YAML::Node list = m_file.need(n, path, "connections");
            const std::string lp = path + ".connections";
            if (!list.IsSequence())
                m_file.fail(list, lp, "expected a list of [source, target, weight]");
            const bool scalar = static_cast<bool>(n["weight"]);
            if (scalar)
                weight = static_cast<uint32_t>(m_file.uint(n["weight"], path + ".weight", 63));
            for (size_t i = 0; i < list.size(); ++i) {
                const YAML::Node e = list[i];
                const std::string ep = lp + "[" + std::to_string(i) + "]";
                const size_t want = scalar ? 2 : 3;
                if (!e.IsSequence() || e.size() != want)
                    m_file.fail(
                        e, ep,
                        scalar ? "expected [source, target] (the projection has a scalar weight)"
                               : "expected [source, target, weight]");
                Connection c;
                c.source = static_cast<uint32_t>(m_file.uint(e[0], ep + "[0]", ns - 1));
                c.target = static_cast<uint32_t>(m_file.uint(e[1], ep + "[1]", nt - 1));
                c.weight =
                    scalar ? weight : static_cast<uint32_t>(m_file.uint(e[2], ep + "[2]", 63));
                p.connections.push_back(c);
            }
        } else if (connector == "dense") {
            forbid("weight");
            forbid("connections");
            uint64_t os = 0, ot = 0;
            if (const YAML::Node off = n["offset"]) {
                const std::string op = path + ".offset";
                if (!off.IsMap()) m_file.fail(off, op, "expected {source: i, target: j}");
                m_file.check_keys(off, op, {"source", "target"});
                if (off["source"]) os = m_file.uint(off["source"], op + ".source", ns - 1);
                if (off["target"]) ot = m_file.uint(off["target"], op + ".target", nt - 1);
            }
            const YAML::Node m = m_file.need(n, path, "matrix");
            const std::string mp = path + ".matrix";
            if (!m.IsSequence()) m_file.fail(m, mp, "expected a list of rows");
            if (os + m.size() > ns)
                m_file.fail(m, mp,
                            std::to_string(m.size()) + " rows from offset " + std::to_string(os) +
                                " exceed source size " + std::to_string(ns));
            for (size_t i = 0; i < m.size(); ++i) {
                const YAML::Node row = m[i];
                const std::string rp = mp + "[" + std::to_string(i) + "]";
                if (!row.IsSequence()) m_file.fail(row, rp, "expected a list of weights");
                if (ot + row.size() > nt)
                    m_file.fail(row, rp,
                                std::to_string(row.size()) + " columns from offset " +
                                    std::to_string(ot) + " exceed target size " +
                                    std::to_string(nt));
                for (size_t j = 0; j < row.size(); ++j) {
                    const uint32_t w = static_cast<uint32_t>(
                        m_file.uint(row[j], rp + "[" + std::to_string(j) + "]", 63));
                    if (w != 0)
                        p.connections.push_back(
                            {static_cast<uint32_t>(os + i), static_cast<uint32_t>(ot + j), w});
                }
            }
        } else {
            m_file.fail(
                cn, path + ".connector",
                "'" + connector +
                    "' is not one of all_to_all, one_to_one, fixed_probability, list, dense");
        }
        count_connections(cn, cp, p.connections.size());  // list and dense: as many as written
        m_connections += p.connections.size();
        if (const YAML::Node s = n["stp"]) {
            const std::string sp = path + ".stp";
            if (!s.IsMap()) m_file.fail(s, sp, "expected {u: .., tau_rec: ..}");
            m_file.check_keys(s, sp, {"u", "tau_rec"});
            Stp stp;
            if (s["u"]) stp.u = m_file.ranged(s["u"], sp + ".u", stp_u_range());
            if (s["tau_rec"])
                stp.tau_rec = m_file.ranged(s["tau_rec"], sp + ".tau_rec", stp_tau_rec_range());
            p.stp = stp;
        }
        m_net.add(std::move(p));
    }

    // The size limits above: pairs a connector visits, connections it adds (so far).
    void count_pairs(const YAML::Node& cn, const std::string& path, const std::string& connector,
                     uint64_t pairs) {
        m_pairs += pairs;
        if (m_pairs > kMaxPairs)
            m_file.fail(cn, path,
                        connector + " visits " + std::to_string(pairs) +
                            " (source, target) pairs, bringing the network's total to " +
                            std::to_string(m_pairs) + ", above the limit of " +
                            std::to_string(kMaxPairs) + " (2 x 16384 sources x 512 neurons)");
    }
    // `so_far`: the connector has not finished (`added` is a lower bound).
    void count_connections(const YAML::Node& cn, const std::string& path, uint64_t added,
                           bool so_far = false) const {
        if (m_connections + added > kMaxConnections)
            m_file.fail(cn, path,
                        std::string("the projection adds ") + (so_far ? "at least " : "") +
                            std::to_string(added) +
                            " connections, bringing the network's total to " +
                            std::to_string(m_connections + added) + ", above the limit of " +
                            std::to_string(kMaxConnections) +
                            " (16 x the chip's 131072 synapse cells; a connection of weight > 0 "
                            "takes a cell unless it merges with one of the same source, target "
                            "and receptor)");
    }

    YamlFile<NetworkError> m_file;
    Network m_net;
    uint64_t m_pairs = 0;        // (source, target) pairs visited by all_to_all, fixed_probability
    uint64_t m_connections = 0;  // connections of the projections loaded so far
};

Network load(const std::string& path, const std::string* text) {
    try {
        return Loader(path, text).load();
    } catch (const YAML::Exception& e) {  // e.g. a non-scalar map key
        throw NetworkError(path + ":" + std::to_string(e.mark.line + 1) + ":" +
                           std::to_string(e.mark.column + 1) + ": " + e.msg);
    }
}

}  // namespace

Network load_network(const std::string& path) { return load(path, nullptr); }

Network parse_network(const std::string& text, const std::string& path) {
    return load(path, &text);
}

}  // namespace nmsim::compiler::bss2
