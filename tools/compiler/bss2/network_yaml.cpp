// YAML network files (format: docs/bss2_compiler.md, "Network files"). Every error names
// file:line:col and the key path; unknown keys are errors.
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <random>
#include <set>

#include "nmsim/hw/brainscales2/bss2_map.h"
#include "tools/compiler/bss2/network.h"

namespace nmsim::compiler::bss2 {
namespace {

// A network file expands its aliases (*a) where they are used: a few lines can stand for
// billions of nodes. Past this many the file is refused before anything is built from it.
constexpr size_t kMaxExpandedNodes = 10'000'000;
// A connector line can stand for millions of connections too: all_to_all and fixed_probability
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
        : m_path(std::move(path)), m_text(text) {}

    Network load() {
        YAML::Node root;
        try {
            root = m_text ? YAML::Load(*m_text) : YAML::LoadFile(m_path);
        } catch (const YAML::BadFile&) {
            throw NetworkError(m_path + ": cannot open network file");
        } catch (const YAML::DeepRecursion& e) {
            throw NetworkError(m_path + ":" + std::to_string(e.mark.line + 1) + ":" +
                               std::to_string(e.mark.column + 1) + ": YAML nested deeper than " +
                               std::to_string(e.depth() - 1) + " levels (the parser's limit)");
        } catch (const YAML::ParserException& e) {
            throw NetworkError(m_path + ":" + std::to_string(e.mark.line + 1) + ":" +
                               std::to_string(e.mark.column + 1) + ": YAML syntax error: " + e.msg);
        }
        m_net.file = m_path;
        check_expanded_size(root);
        if (!root.IsMap())
            fail(root, "", "the network file must be a map with 'populations' and 'projections'");
        check_keys(root, "", {"populations", "projections"});
        const YAML::Node pops = root["populations"];
        if (!pops || !pops.IsSequence() || pops.size() == 0)
            fail(pops ? pops : root, "populations", "a non-empty list of populations is required");
        for (size_t i = 0; i < pops.size(); ++i)
            load_population(pops[i], "populations[" + std::to_string(i) + "]");
        if (const YAML::Node projs = root["projections"]) {
            if (!projs.IsSequence()) fail(projs, "projections", "must be a list");
            for (size_t i = 0; i < projs.size(); ++i)
                load_projection(projs[i], "projections[" + std::to_string(i) + "]");
        }
        return std::move(m_net);
    }

private:
    // Counts the nodes as the loader will visit them (aliases once per use), up to the limit.
    void check_expanded_size(const YAML::Node& root) const {
        size_t count = 0;
        std::vector<YAML::Node> stack = {root};
        while (!stack.empty()) {
            const YAML::Node n = stack.back();
            stack.pop_back();
            if (++count > kMaxExpandedNodes)
                throw NetworkError(m_path +
                                   ": the file expands (its aliases copied where used) to "
                                   "more than " +
                                   std::to_string(kMaxExpandedNodes) + " YAML nodes");
            if (n.IsSequence()) {
                for (const auto& c : n) stack.push_back(c);
            } else if (n.IsMap()) {
                for (const auto& kv : n) {
                    stack.push_back(kv.first);
                    stack.push_back(kv.second);
                }
            }
        }
    }

    SourceRef ref(const YAML::Node& n) const {
        SourceRef r;
        r.file = m_path;
        const YAML::Mark m = n.Mark();
        if (!m.is_null()) {
            r.line = m.line + 1;
            r.col = m.column + 1;
        }
        return r;
    }

    [[noreturn]] void fail(const YAML::Node& n, const std::string& key,
                           const std::string& msg) const {
        throw NetworkError(ref(n).str() + ": " + (key.empty() ? "" : key + ": ") + msg);
    }

    void check_keys(const YAML::Node& map, const std::string& path,
                    std::initializer_list<const char*> allowed) const {
        for (const auto& kv : map) {
            if (!kv.first.IsScalar()) fail(kv.first, path, "map keys must be plain names");
            const std::string k = kv.first.Scalar();
            bool ok = false;
            for (const char* a : allowed) ok = ok || k == a;
            if (!ok) {
                std::string list;
                for (const char* a : allowed) list += std::string(list.empty() ? "" : ", ") + a;
                fail(kv.first, path.empty() ? k : path + "." + k,
                     "unknown key (allowed: " + list + ")");
            }
        }
    }

    YAML::Node need(const YAML::Node& map, const std::string& path, const char* key) const {
        YAML::Node n = map[key];
        if (!n) fail(map, path, std::string("missing required key '") + key + "'");
        return n;
    }

    std::string str(const YAML::Node& n, const std::string& path) const {
        if (!n.IsScalar()) fail(n, path, "expected a string");
        return n.Scalar();
    }
    double num(const YAML::Node& n, const std::string& path) const {
        if (!n.IsScalar()) fail(n, path, "expected a number");
        double v = 0;
        try {
            v = n.as<double>();
        } catch (const YAML::Exception&) {
            fail(n, path, "expected a number, got '" + n.Scalar() + "'");
        }
        if (!std::isfinite(v)) fail(n, path, "must be finite");
        return v;
    }
    // A number inside `r` (docs/bss2_compiler.md, "Parameter ranges").
    double ranged(const YAML::Node& n, const std::string& path, const Range& r) const {
        const double v = num(n, path);
        if (!r.contains(v)) fail(n, path, n.Scalar() + " " + r.outside());
        return v;
    }
    uint64_t uint(const YAML::Node& n, const std::string& path, uint64_t max) const {
        const double v = num(n, path);
        if (v < 0 || v != std::floor(v) || v > static_cast<double>(max))
            fail(n, path,
                 "expected an integer 0.." + std::to_string(max) + ", got '" + n.Scalar() + "'");
        return static_cast<uint64_t>(v);
    }
    bool boolean(const YAML::Node& n, const std::string& path) const {
        if (!n.IsScalar()) fail(n, path, "expected true or false");
        try {
            return n.as<bool>();
        } catch (const YAML::Exception&) {
            fail(n, path, "expected true or false, got '" + n.Scalar() + "'");
        }
    }

    void load_neuron(const YAML::Node& n, const std::string& path, NeuronProperties& p) const {
        if (!n.IsMap()) fail(n, path, "expected a map of neuron parameters");
        for (const auto& kv : n) {
            if (!kv.first.IsScalar()) fail(kv.first, path, "map keys must be plain names");
            const std::string k = kv.first.Scalar();
            const std::string kp = path + "." + k;
            if (k == "exponential") {
                p.exponential = boolean(kv.second, kp);
                continue;
            }
            if (k == "adaptation") {
                p.adaptation = boolean(kv.second, kp);
                continue;
            }
            bool found = false;
            for (const NeuronParameter& np : neuron_parameters())
                if (k == np.key) {
                    p.*np.field = ranged(kv.second, kp, np.range);
                    found = true;
                }
            if (!found)
                fail(kv.first, kp, "unknown neuron parameter (see NeuronProperties in network.h)");
        }
    }

    void load_population(const YAML::Node& n, const std::string& path) {
        if (!n.IsMap()) fail(n, path, "expected a map");
        check_keys(n, path,
                   {"name", "kind", "size", "hemisphere", "first_column", "record", "neuron",
                    "rate", "poisson"});
        Population p;
        p.where = ref(n);
        p.name = str(need(n, path, "name"), path + ".name");
        const YAML::Node kind = need(n, path, "kind");
        const std::string k = str(kind, path + ".kind");
        if (k == "external")
            p.kind = PopulationKind::external;
        else if (k == "internal")
            p.kind = PopulationKind::internal;
        else if (k == "background")
            p.kind = PopulationKind::background;
        else
            fail(kind, path + ".kind", "'" + k + "' is not one of external, internal, background");
        const YAML::Node size = need(n, path, "size");
        const Range size_range = population_size_range(p.kind);
        p.size = uint(size, path + ".size", 1u << 20);
        if (p.kind == PopulationKind::background &&
            (!size_range.contains(static_cast<double>(p.size)) || (p.size & (p.size - 1)) != 0))
            fail(size, path + ".size",
                 size.Scalar() + " is not a power of two in 1..256 (" + size_range.why + ")");
        if (!size_range.contains(static_cast<double>(p.size)))
            fail(size, path + ".size", size.Scalar() + " " + size_range.outside());
        auto only = [&](const char* key, PopulationKind kk) {
            if (n[key] && p.kind != kk)
                fail(n[key], path + "." + key,
                     std::string("only allowed for ") + to_string(kk) +
                         " populations (this one is " + to_string(p.kind) + ")");
        };
        for (const char* key : {"hemisphere", "first_column", "record", "neuron"})
            only(key, PopulationKind::internal);
        for (const char* key : {"rate", "poisson"}) only(key, PopulationKind::background);
        if (n["hemisphere"])
            p.hemisphere = static_cast<uint32_t>(uint(n["hemisphere"], path + ".hemisphere", 1));
        if (n["first_column"]) {
            p.first_column =
                static_cast<uint32_t>(uint(n["first_column"], path + ".first_column", 255));
            if (*p.first_column + p.size > BSS2_COLUMNS)
                fail(n["first_column"], path + ".first_column",
                     n["first_column"].Scalar() + " + size " + std::to_string(p.size) +
                         " exceeds the 256 columns of a hemisphere");
        }
        if (p.hemisphere && p.size > BSS2_COLUMNS)
            fail(n["hemisphere"], path + ".hemisphere",
                 "a population of " + std::to_string(p.size) +
                     " neurons does not fit the 256 columns of one hemisphere");
        if (n["record"]) p.record_spikes = boolean(n["record"], path + ".record");
        if (p.kind == PopulationKind::internal) {
            NeuronProperties props;
            if (n["neuron"]) load_neuron(n["neuron"], path + ".neuron", props);
            p.neurons.assign(p.size, props);
        }
        if (p.kind == PopulationKind::background) {
            if (n["poisson"]) p.poisson = boolean(n["poisson"], path + ".poisson");
            const YAML::Node rate = need(n, path, "rate");
            p.rate_hz = num(rate, path + ".rate");
            uint32_t period = 0, r = 0;
            const std::string why = background_setting(p.rate_hz, p.size, p.poisson, &period, &r);
            if (!why.empty()) fail(rate, path + ".rate", why);
        }
        m_net.add(std::move(p));
    }

    size_t population(const YAML::Node& n, const std::string& path) const {
        const std::string name = str(n, path);
        for (size_t i = 0; i < m_net.populations.size(); ++i)
            if (m_net.populations[i].name == name) return i;
        fail(n, path, "no population named '" + name + "'");
    }

    void load_projection(const YAML::Node& n, const std::string& path) {
        if (!n.IsMap()) fail(n, path, "expected a map");
        check_keys(n, path,
                   {"name", "source", "target", "receptor", "connector", "weight", "probability",
                    "seed", "connections", "matrix", "offset", "stp", "allow_self"});
        Projection p;
        p.where = ref(n);
        p.name = str(need(n, path, "name"), path + ".name");
        p.source = population(need(n, path, "source"), path + ".source");
        p.target = population(need(n, path, "target"), path + ".target");
        const size_t ns = m_net.populations[p.source].size, nt = m_net.populations[p.target].size;
        if (const YAML::Node r = n["receptor"]) {
            const std::string rs = str(r, path + ".receptor");
            if (rs == "excitatory")
                p.receptor = Receptor::excitatory;
            else if (rs == "inhibitory")
                p.receptor = Receptor::inhibitory;
            else
                fail(r, path + ".receptor", "'" + rs + "' is not one of excitatory, inhibitory");
        }
        const YAML::Node cn = need(n, path, "connector");
        const std::string connector = str(cn, path + ".connector");
        const std::set<std::string> uses_weight = {"all_to_all", "one_to_one", "fixed_probability"};
        auto forbid = [&](const char* key) {
            if (n[key]) fail(n[key], path + "." + key, "not used by connector '" + connector + "'");
        };
        uint32_t weight = 0;
        if (uses_weight.count(connector) != 0) {
            weight = static_cast<uint32_t>(uint(need(n, path, "weight"), path + ".weight", 63));
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
            allow_self = boolean(n["allow_self"], path + ".allow_self");
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
                fail(cn, path + ".connector",
                     "one_to_one needs equal sizes (" + std::to_string(ns) + " vs " +
                         std::to_string(nt) + ")");
            for (uint32_t i = 0; i < ns; ++i) p.connections.push_back({i, i, weight});
        } else if (connector == "fixed_probability") {
            const YAML::Node pn = need(n, path, "probability");
            const double prob = num(pn, path + ".probability");
            if (prob < 0 || prob > 1) fail(pn, path + ".probability", "must be in [0, 1]");
            const uint64_t seed = n["seed"] ? uint(n["seed"], path + ".seed", UINT64_MAX >> 11) : 1;
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
            const YAML::Node list = need(n, path, "connections");
            const std::string lp = path + ".connections";
            if (!list.IsSequence()) fail(list, lp, "expected a list of [source, target, weight]");
            const bool scalar = static_cast<bool>(n["weight"]);
            if (scalar) weight = static_cast<uint32_t>(uint(n["weight"], path + ".weight", 63));
            for (size_t i = 0; i < list.size(); ++i) {
                const YAML::Node e = list[i];
                const std::string ep = lp + "[" + std::to_string(i) + "]";
                const size_t want = scalar ? 2 : 3;
                if (!e.IsSequence() || e.size() != want)
                    fail(e, ep,
                         scalar ? "expected [source, target] (the projection has a scalar weight)"
                                : "expected [source, target, weight]");
                Connection c;
                c.source = static_cast<uint32_t>(uint(e[0], ep + "[0]", ns - 1));
                c.target = static_cast<uint32_t>(uint(e[1], ep + "[1]", nt - 1));
                c.weight = scalar ? weight : static_cast<uint32_t>(uint(e[2], ep + "[2]", 63));
                p.connections.push_back(c);
            }
        } else if (connector == "dense") {
            forbid("weight");
            forbid("connections");
            uint64_t os = 0, ot = 0;
            if (const YAML::Node off = n["offset"]) {
                const std::string op = path + ".offset";
                if (!off.IsMap()) fail(off, op, "expected {source: i, target: j}");
                check_keys(off, op, {"source", "target"});
                if (off["source"]) os = uint(off["source"], op + ".source", ns - 1);
                if (off["target"]) ot = uint(off["target"], op + ".target", nt - 1);
            }
            const YAML::Node m = need(n, path, "matrix");
            const std::string mp = path + ".matrix";
            if (!m.IsSequence()) fail(m, mp, "expected a list of rows");
            if (os + m.size() > ns)
                fail(m, mp,
                     std::to_string(m.size()) + " rows from offset " + std::to_string(os) +
                         " exceed source size " + std::to_string(ns));
            for (size_t i = 0; i < m.size(); ++i) {
                const YAML::Node row = m[i];
                const std::string rp = mp + "[" + std::to_string(i) + "]";
                if (!row.IsSequence()) fail(row, rp, "expected a list of weights");
                if (ot + row.size() > nt)
                    fail(row, rp,
                         std::to_string(row.size()) + " columns from offset " + std::to_string(ot) +
                             " exceed target size " + std::to_string(nt));
                for (size_t j = 0; j < row.size(); ++j) {
                    const uint32_t w =
                        static_cast<uint32_t>(uint(row[j], rp + "[" + std::to_string(j) + "]", 63));
                    if (w != 0)
                        p.connections.push_back(
                            {static_cast<uint32_t>(os + i), static_cast<uint32_t>(ot + j), w});
                }
            }
        } else {
            fail(cn, path + ".connector",
                 "'" + connector +
                     "' is not one of all_to_all, one_to_one, fixed_probability, list, dense");
        }
        count_connections(cn, cp, p.connections.size());  // list and dense: as many as written
        m_connections += p.connections.size();
        if (const YAML::Node s = n["stp"]) {
            const std::string sp = path + ".stp";
            if (!s.IsMap()) fail(s, sp, "expected {u: .., tau_rec: ..}");
            check_keys(s, sp, {"u", "tau_rec"});
            Stp stp;
            if (s["u"]) stp.u = ranged(s["u"], sp + ".u", stp_u_range());
            if (s["tau_rec"])
                stp.tau_rec = ranged(s["tau_rec"], sp + ".tau_rec", stp_tau_rec_range());
            p.stp = stp;
        }
        m_net.add(std::move(p));
    }

    // The size limits above: pairs a connector visits, connections it adds (so far).
    void count_pairs(const YAML::Node& cn, const std::string& path, const std::string& connector,
                     uint64_t pairs) {
        m_pairs += pairs;
        if (m_pairs > kMaxPairs)
            fail(cn, path,
                 connector + " visits " + std::to_string(pairs) +
                     " (source, target) pairs, bringing the network's total to " +
                     std::to_string(m_pairs) + ", above the limit of " + std::to_string(kMaxPairs) +
                     " (2 x 16384 sources x 512 neurons)");
    }
    // `so_far`: the connector has not finished (`added` is a lower bound).
    void count_connections(const YAML::Node& cn, const std::string& path, uint64_t added,
                           bool so_far = false) const {
        if (m_connections + added > kMaxConnections)
            fail(cn, path,
                 std::string("the projection adds ") + (so_far ? "at least " : "") +
                     std::to_string(added) + " connections, bringing the network's total to " +
                     std::to_string(m_connections + added) + ", above the limit of " +
                     std::to_string(kMaxConnections) +
                     " (16 x the chip's 131072 synapse cells; a connection of weight > 0 takes a "
                     "cell unless it merges with one of the same source, target and receptor)");
    }

    std::string m_path;
    const std::string* m_text;
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
