// SNN network files (format: docs/snn_compiler.md, "Network files"). Every value is checked once,
// here, and every error names file:line:col and the key path; unknown keys are errors.
#include <algorithm>
#include <set>

#include "tools/compiler/snn/network.h"
#include "tools/compiler/yaml_file.h"

namespace nmsim::compiler::snn {
namespace {

class Loader {
public:
    explicit Loader(std::string path) : m_file(std::move(path)) {}

    Network load() {
        const YAML::Node root = m_file.load();
        m_net.file = m_file.path();
        if (!root.IsMap())
            m_file.fail(root, "", "the network file must be a map with 'populations'");
        m_file.check_keys(root, "", {"timestep", "seed", "populations", "sources", "projections"});
        if (const YAML::Node t = root["timestep"])
            m_net.timestep_ms = m_file.ranged(t, "timestep", timestep_range());
        if (const YAML::Node s = root["seed"]) m_net.seed = m_file.uint(s, "seed", kMaxSeed);
        const YAML::Node pops = root["populations"];
        if (!pops || !pops.IsSequence() || pops.size() == 0)
            m_file.fail(pops ? pops : root, "populations",
                        "a non-empty list of populations is required");
        if (const YAML::Node srcs = root["sources"]) {
            if (!srcs.IsSequence()) m_file.fail(srcs, "sources", "must be a list");
            count(srcs, "sources", pops.size() + srcs.size());
            for (size_t i = 0; i < srcs.size(); ++i) load_source(srcs[i], indexed("sources", i));
        }
        count(pops, "populations", pops.size() + m_net.sources.size());
        for (size_t i = 0; i < pops.size(); ++i)
            load_population(pops[i], indexed("populations", i));
        if (const YAML::Node projs = root["projections"]) {
            if (!projs.IsSequence()) m_file.fail(projs, "projections", "must be a list");
            count(projs, "projections", projs.size());
            for (size_t i = 0; i < projs.size(); ++i)
                load_projection(projs[i], indexed("projections", i));
        }
        validate(m_net);  // the rules for networks built in code; the checks above cover them
        return std::move(m_net);
    }

private:
    static constexpr uint64_t kMaxSeed = (1ull << 53) - 1;  // exact in a double

    static std::string indexed(const std::string& path, size_t i) {
        return path + "[" + std::to_string(i) + "]";
    }

    void count(const YAML::Node& n, const std::string& path, size_t k) const {
        if (k > kMaxElements)
            m_file.fail(n, path,
                        std::to_string(k) + " elements: at most " + std::to_string(kMaxElements));
    }

    void check_name(const YAML::Node& n, const std::string& path, const std::string& name) {
        if (name.empty()) m_file.fail(n, path, "must not be empty");
        if (!m_names.insert(name).second)
            m_file.fail(n, path, "'" + name + "' already names a population or source");
    }

    uint32_t size(const YAML::Node& n, const std::string& path) const {
        const uint64_t v = m_file.uint(n, path, kMaxPopulationSize);
        if (v == 0)
            m_file.fail(
                n, path,
                "0 outside 1.." + std::to_string(kMaxPopulationSize) + " (152 PEs x 256 neurons)");
        return static_cast<uint32_t>(v);
    }

    void load_population(const YAML::Node& n, const std::string& path) {
        if (!n.IsMap()) m_file.fail(n, path, "expected a map");
        m_file.check_keys(n, path,
                          {"name", "size", "tau_m", "alpha", "v_th", "v_reset", "reset", "i_offset",
                           "refractory", "v_init", "record_spikes", "record_v", "paradigm"});
        Population p;
        p.where = m_file.ref(n);
        const YAML::Node name = m_file.need(n, path, "name");
        p.name = m_file.str(name, path + ".name");
        check_name(name, path + ".name", p.name);
        p.size = size(m_file.need(n, path, "size"), path + ".size");
        LifParams& lif = p.lif;
        if (n["tau_m"] && n["alpha"])
            m_file.fail(n["alpha"], path + ".alpha", "give either tau_m or alpha, not both");
        if (n["tau_m"]) lif.tau_m = m_file.ranged(n["tau_m"], path + ".tau_m", tau_m_range());
        if (n["alpha"]) lif.alpha = m_file.ranged(n["alpha"], path + ".alpha", alpha_range());
        if (n["v_th"]) lif.v_th = m_file.ranged(n["v_th"], path + ".v_th", v_th_range());
        if (n["reset"])
            lif.reset =
                m_file.choice(n["reset"], path + ".reset", {"subtract", "to_v_reset"}) == "subtract"
                    ? ResetMode::subtract
                    : ResetMode::to_v_reset;
        if (n["v_reset"]) {
            if (lif.reset != ResetMode::to_v_reset)
                m_file.fail(n["v_reset"], path + ".v_reset",
                            "used only with reset: to_v_reset (reset is subtract)");
            lif.v_reset = m_file.ranged(n["v_reset"], path + ".v_reset", voltage_range());
        }
        if (n["i_offset"])
            lif.i_offset = m_file.ranged(n["i_offset"], path + ".i_offset", voltage_range());
        if (n["v_init"]) lif.v_init = m_file.ranged(n["v_init"], path + ".v_init", voltage_range());
        if (n["refractory"])
            lif.t_ref =
                static_cast<uint32_t>(m_file.uint(n["refractory"], path + ".refractory", 65535));
        if (n["record_spikes"])
            p.record_spikes = m_file.boolean(n["record_spikes"], path + ".record_spikes");
        if (const YAML::Node rv = n["record_v"]) {
            const std::string rp = path + ".record_v";
            if (!rv.IsSequence()) m_file.fail(rv, rp, "expected a list of neuron indices");
            std::set<uint32_t> seen;
            for (size_t i = 0; i < rv.size(); ++i) {
                const uint32_t k =
                    static_cast<uint32_t>(m_file.uint(rv[i], indexed(rp, i), p.size - 1));
                if (!seen.insert(k).second)
                    m_file.fail(rv[i], indexed(rp, i), "neuron " + std::to_string(k) + " twice");
                p.record_v.push_back(k);
            }
        }
        if (n["paradigm"]) {
            Paradigm par = Paradigm::serial;
            parse_paradigm(m_file.choice(n["paradigm"], path + ".paradigm",
                                         {"serial", "parallel", "auto", "ideal"}),
                           par);
            p.paradigm = par;
        }
        m_net.populations.push_back(std::move(p));
    }

    void load_source(const YAML::Node& n, const std::string& path) {
        if (!n.IsMap()) m_file.fail(n, path, "expected a map");
        m_file.check_keys(n, path, {"name", "size", "rate", "spike_times", "seed"});
        Source s;
        s.where = m_file.ref(n);
        const YAML::Node name = m_file.need(n, path, "name");
        s.name = m_file.str(name, path + ".name");
        check_name(name, path + ".name", s.name);
        s.size = size(m_file.need(n, path, "size"), path + ".size");
        const YAML::Node rate = n["rate"], times = n["spike_times"];
        if (!rate == !times)
            m_file.fail(rate ? rate : n, path, "give either 'rate' or 'spike_times'");
        if (rate) {
            s.rate_hz = m_file.ranged(rate, path + ".rate", rate_range());
            s.seed = n["seed"] ? m_file.uint(n["seed"], path + ".seed", kMaxSeed)
                               : element_seed(m_net.seed, s.name);
            m_net.sources.push_back(std::move(s));
            return;
        }
        if (n["seed"]) m_file.fail(n["seed"], path + ".seed", "used only with 'rate'");
        const std::string tp = path + ".spike_times";
        if (!times.IsSequence() || times.size() != s.size)
            m_file.fail(times, tp,
                        "expected a list of " + std::to_string(s.size) +
                            " lists of ticks (one per source)");
        s.spike_times.resize(s.size);
        for (size_t i = 0; i < times.size(); ++i) {
            const YAML::Node list = times[i];
            const std::string lp = indexed(tp, i);
            if (!list.IsSequence()) m_file.fail(list, lp, "expected a list of ticks");
            for (size_t k = 0; k < list.size(); ++k) {
                const uint32_t t =
                    static_cast<uint32_t>(m_file.uint(list[k], indexed(lp, k), kMaxSpikeTick));
                if (!s.spike_times[i].empty() && t <= s.spike_times[i].back())
                    m_file.fail(list[k], indexed(lp, k),
                                "tick " + std::to_string(t) + " after " +
                                    std::to_string(s.spike_times[i].back()) +
                                    ": ticks must increase (one spike per source and tick)");
                s.spike_times[i].push_back(t);
            }
        }
        m_net.sources.push_back(std::move(s));
    }

    PreRef pre(const YAML::Node& n, const std::string& path) const {
        const std::string name = m_file.str(n, path);
        for (uint32_t i = 0; i < m_net.populations.size(); ++i)
            if (m_net.populations[i].name == name) return {false, i};
        for (uint32_t i = 0; i < m_net.sources.size(); ++i)
            if (m_net.sources[i].name == name) return {true, i};
        m_file.fail(n, path, "no population or source named '" + name + "'");
    }

    // A signed weight -127..127 -> (magnitude, type); `inhibitory` (the projection's type) makes
    // the weights inhibitory and then they must not be negative.
    std::pair<uint32_t, SynapseType> weight(const YAML::Node& n, const std::string& path,
                                            bool inhibitory) const {
        const int64_t w = m_file.integer(n, path, -kMaxWeight, kMaxWeight);
        if (inhibitory && w < 0)
            m_file.fail(n, path,
                        "negative weight with type inhibitory: write the magnitude (a negative "
                        "weight alone makes an inhibitory synapse)");
        if (inhibitory) return {static_cast<uint32_t>(w), SynapseType::inhibitory};
        return {static_cast<uint32_t>(w < 0 ? -w : w),
                w < 0 ? SynapseType::inhibitory : SynapseType::excitatory};
    }
    uint32_t delay(const YAML::Node& n, const std::string& path) const {
        return static_cast<uint32_t>(m_file.integer(n, path, 1, kMaxDelay));
    }

    void load_projection(const YAML::Node& n, const std::string& path) {
        if (!n.IsMap()) m_file.fail(n, path, "expected a map");
        m_file.check_keys(n, path,
                          {"name", "pre", "post", "connector", "weight", "delay", "type", "p",
                           "seed", "allow_self", "connections"});
        Projection p;
        p.where = m_file.ref(n);
        const YAML::Node name = m_file.need(n, path, "name");
        p.name = m_file.str(name, path + ".name");
        if (p.name.empty()) m_file.fail(name, path + ".name", "must not be empty");
        for (const Projection& q : m_net.projections)
            if (q.name == p.name)
                m_file.fail(name, path + ".name", "'" + p.name + "' already names a projection");
        p.pre = pre(m_file.need(n, path, "pre"), path + ".pre");
        const YAML::Node post = m_file.need(n, path, "post");
        const PreRef post_ref = pre(post, path + ".post");
        if (post_ref.is_source)
            m_file.fail(post, path + ".post",
                        "'" + m_file.str(post, path + ".post") +
                            "' is a source: projections end at populations");
        p.post = post_ref.index;
        const uint32_t ns = m_net.pre_size(p.pre), nt = m_net.populations[p.post].size;
        const bool inhibitory =
            n["type"] &&
            m_file.choice(n["type"], path + ".type", {"excitatory", "inhibitory"}) == "inhibitory";
        const YAML::Node cn = m_file.need(n, path, "connector");
        const std::string connector = m_file.choice(
            cn, path + ".connector", {"all_to_all", "one_to_one", "fixed_probability", "list"});
        auto forbid = [&](const char* key, const char* why) {
            if (n[key]) m_file.fail(n[key], path + "." + key, why);
        };
        const char* not_used = "not used by this connector";
        if (connector != "fixed_probability") {
            forbid("p", not_used);
            forbid("seed", not_used);
        }
        if (connector != "all_to_all" && connector != "fixed_probability")
            forbid("allow_self", not_used);
        if (connector != "list") forbid("connections", not_used);
        const bool allow_self =
            n["allow_self"] ? m_file.boolean(n["allow_self"], path + ".allow_self") : true;
        const bool same = !p.pre.is_source && p.pre.index == p.post;
        uint32_t d = n["delay"] ? delay(n["delay"], path + ".delay") : 1;
        std::pair<uint32_t, SynapseType> w{0, SynapseType::excitatory};
        if (connector != "list")
            w = weight(m_file.need(n, path, "weight"), path + ".weight", inhibitory);
        if ((connector == "all_to_all" || connector == "fixed_probability") &&
            static_cast<uint64_t>(ns) * nt > kMaxCandidatePairs)
            m_file.fail(cn, path + ".connector",
                        std::to_string(ns) + " x " + std::to_string(nt) +
                            " candidate pairs: at most " + std::to_string(kMaxCandidatePairs));
        auto add = [&](uint32_t i, uint32_t j, std::pair<uint32_t, SynapseType> ww, uint32_t dd) {
            p.synapses.push_back({i, j, ww.first, dd, ww.second});
        };
        if (connector == "all_to_all") {
            for (uint32_t i = 0; i < ns; ++i)
                for (uint32_t j = 0; j < nt; ++j)
                    if (allow_self || !same || i != j) add(i, j, w, d);
        } else if (connector == "one_to_one") {
            if (ns != nt)
                m_file.fail(cn, path + ".connector",
                            "one_to_one needs equal sizes (" + std::to_string(ns) + " vs " +
                                std::to_string(nt) + ")");
            for (uint32_t i = 0; i < ns; ++i) add(i, i, w, d);
        } else if (connector == "fixed_probability") {
            const double prob = m_file.ranged(m_file.need(n, path, "p"), path + ".p",
                                              Range{0.0, 1.0, "", "a probability"});
            const uint64_t seed = n["seed"] ? m_file.uint(n["seed"], path + ".seed", kMaxSeed)
                                            : element_seed(m_net.seed, p.name);
            for (const auto& [i, j] :
                 fixed_probability_pairs(ns, nt, prob, seed, allow_self || !same))
                add(i, j, w, d);
        } else {  // list
            const YAML::Node list = m_file.need(n, path, "connections");
            const std::string lp = path + ".connections";
            if (!list.IsSequence())
                m_file.fail(list, lp, "expected a list of [i, j, weight, delay]");
            const bool scalar_w = static_cast<bool>(n["weight"]);
            const bool scalar_d = static_cast<bool>(n["delay"]);
            if (scalar_w) w = weight(n["weight"], path + ".weight", inhibitory);
            for (size_t k = 0; k < list.size(); ++k) {
                const YAML::Node e = list[k];
                const std::string ep = indexed(lp, k);
                const size_t lo = scalar_w ? 2 : 3, hi = scalar_w ? 2 : (scalar_d ? 3 : 4);
                if (!e.IsSequence() || e.size() < lo || e.size() > hi)
                    m_file.fail(e, ep,
                                scalar_w ? "expected [i, j] (the projection has a scalar weight)"
                                : scalar_d
                                    ? "expected [i, j, weight] (the projection has a scalar delay)"
                                    : "expected [i, j, weight] or [i, j, weight, delay]");
                const uint32_t i = static_cast<uint32_t>(m_file.uint(e[0], ep + "[0]", ns - 1));
                const uint32_t j = static_cast<uint32_t>(m_file.uint(e[1], ep + "[1]", nt - 1));
                const auto ww = scalar_w ? w : weight(e[2], ep + "[2]", inhibitory);
                const uint32_t dd = e.size() == 4 ? delay(e[3], ep + "[3]") : d;
                add(i, j, ww, dd);
            }
        }
        m_synapses += p.synapses.size();
        if (m_synapses > kMaxSynapses)
            m_file.fail(n, path,
                        "the network has more than " + std::to_string(kMaxSynapses) +
                            " synapses (more than the chip's SRAM holds)");
        m_net.projections.push_back(std::move(p));
    }

    YamlFile<NetworkError> m_file;
    Network m_net;
    std::set<std::string> m_names;
    uint64_t m_synapses = 0;
};

}  // namespace

Network load_network(const std::string& path) {
    try {
        return Loader(path).load();
    } catch (const YAML::Exception& e) {  // e.g. a non-scalar map key
        throw NetworkError(path + ":" + std::to_string(e.mark.line + 1) + ":" +
                           std::to_string(e.mark.column + 1) + ": " + e.msg);
    }
}

}  // namespace nmsim::compiler::snn
