// SNN network description: parameter ranges, validation of networks built in code, the seeded
// random streams of connectors and Poisson sources (docs/snn_compiler.md).
#include "tools/compiler/snn/network.h"

#include <cmath>
#include <random>
#include <set>

namespace nmsim::compiler::snn {

const char* paradigm_name(Paradigm p) {
    switch (p) {
        case Paradigm::serial:
            return "serial";
        case Paradigm::parallel:
            return "parallel";
        case Paradigm::automatic:
            return "auto";
        case Paradigm::ideal:
            return "ideal";
    }
    return "?";
}

bool parse_paradigm(const std::string& s, Paradigm& out) {
    for (Paradigm p : {Paradigm::serial, Paradigm::parallel, Paradigm::automatic, Paradigm::ideal})
        if (s == paradigm_name(p)) {
            out = p;
            return true;
        }
    return false;
}

const char* to_string(ResetMode m) { return m == ResetMode::subtract ? "subtract" : "to_v_reset"; }

const char* to_string(SynapseType t) {
    return t == SynapseType::excitatory ? "excitatory" : "inhibitory";
}

double decay_per_tick(const LifParams& lif, double timestep_ms) {
    return lif.alpha ? *lif.alpha : std::exp(-timestep_ms / lif.tau_m);
}

Range tau_m_range() { return {0.001, 1e9, "ms", "alpha = exp(-timestep / tau_m)"}; }
Range alpha_range() { return {0.0, 1.0, "", "decay per tick, Q0.16 with 1.0 exact"}; }
Range v_th_range() {
    return {1.0 / 65536.0, 32767.0, "weight LSB", "Q16.16, above 0 and inside int16 input sums"};
}
Range voltage_range() { return {-32768.0, 32767.0, "weight LSB", "Q16.16 in an int32"}; }
Range timestep_range() {
    return {0.001, 1000.0, "ms", "1 us .. 1 s: the tick period in ns and in cycles fits 32 bits"};
}
Range rate_range() { return {0.0, 1e6, "Hz", ""}; }

uint64_t Network::synapse_count() const {
    uint64_t n = 0;
    for (const Projection& p : projections) n += p.synapses.size();
    return n;
}

namespace {

[[noreturn]] void fail(const SourceRef& where, const std::string& what, const std::string& msg) {
    const std::string at = where.str();
    throw NetworkError((at.empty() ? "" : at + ": ") + what + ": " + msg);
}

void check_range(const SourceRef& where, const std::string& what, double v, const Range& r) {
    if (!r.contains(v)) fail(where, what, format_number(v) + " " + r.outside());
}

}  // namespace

void validate(const Network& net) {
    const SourceRef none;
    check_range(none, "timestep", net.timestep_ms, timestep_range());
    if (net.populations.empty()) fail(none, "populations", "a network needs a population");
    if (net.populations.size() + net.sources.size() > kMaxElements ||
        net.projections.size() > kMaxElements)
        fail(none, "network",
             "more than " + std::to_string(kMaxElements) +
                 " populations and sources or projections");
    std::set<std::string> names;
    auto check_name = [&](const std::string& name, const SourceRef& where) {
        if (name.empty()) fail(where, "name", "must not be empty");
        if (!names.insert(name).second) fail(where, "'" + name + "'", "name already used");
    };
    for (const Population& p : net.populations) {
        check_name(p.name, p.where);
        const std::string what = "population '" + p.name + "'";
        if (p.size < 1 || p.size > kMaxPopulationSize)
            fail(p.where, what,
                 "size " + std::to_string(p.size) + " outside 1.." +
                     std::to_string(kMaxPopulationSize));
        if (p.lif.alpha)
            check_range(p.where, what + ".alpha", *p.lif.alpha, alpha_range());
        else
            check_range(p.where, what + ".tau_m", p.lif.tau_m, tau_m_range());
        check_range(p.where, what + ".v_th", p.lif.v_th, v_th_range());
        check_range(p.where, what + ".v_reset", p.lif.v_reset, voltage_range());
        check_range(p.where, what + ".i_offset", p.lif.i_offset, voltage_range());
        check_range(p.where, what + ".v_init", p.lif.v_init, voltage_range());
        if (p.lif.t_ref > 65535) fail(p.where, what + ".refractory", "outside 0..65535 ticks");
        std::set<uint32_t> rec;
        for (uint32_t i : p.record_v)
            if (i >= p.size || !rec.insert(i).second)
                fail(p.where, what + ".record_v",
                     "neuron " + std::to_string(i) + " out of range or listed twice");
    }
    for (const Source& s : net.sources) {
        check_name(s.name, s.where);
        const std::string what = "source '" + s.name + "'";
        if (s.size < 1 || s.size > kMaxPopulationSize)
            fail(s.where, what,
                 "size " + std::to_string(s.size) + " outside 1.." +
                     std::to_string(kMaxPopulationSize));
        if (s.rate_hz) {
            check_range(s.where, what + ".rate", *s.rate_hz, rate_range());
            if (!s.spike_times.empty())
                fail(s.where, what, "give either rate or spike_times, not both");
        } else {
            if (s.spike_times.size() != s.size)
                fail(s.where, what + ".spike_times",
                     "needs one list per source (" + std::to_string(s.size) + ")");
            for (const auto& train : s.spike_times)
                for (size_t k = 0; k < train.size(); ++k)
                    if (train[k] > kMaxSpikeTick || (k > 0 && train[k] <= train[k - 1]))
                        fail(s.where, what + ".spike_times",
                             "ticks must increase and stay <= " + std::to_string(kMaxSpikeTick));
        }
    }
    uint64_t total = 0;
    for (const Projection& p : net.projections) {
        const std::string what = "projection '" + p.name + "'";
        const auto& pres = p.pre.is_source ? net.sources.size() : net.populations.size();
        if (p.pre.index >= pres || p.post >= net.populations.size())
            fail(p.where, what, "pre or post does not exist");
        const uint32_t ns = net.pre_size(p.pre), nt = net.populations[p.post].size;
        for (const Synapse& s : p.synapses) {
            if (s.pre >= ns || s.post >= nt)
                fail(p.where, what,
                     "synapse (" + std::to_string(s.pre) + ", " + std::to_string(s.post) +
                         ") outside the populations");
            if (s.weight > static_cast<uint32_t>(kMaxWeight))
                fail(p.where, what, "weight magnitude " + std::to_string(s.weight) + " > 127");
            if (s.delay < 1 || s.delay > kMaxDelay)
                fail(p.where, what, "delay " + std::to_string(s.delay) + " outside 1..16 ticks");
        }
        total += p.synapses.size();
        if (total > kMaxSynapses)
            fail(p.where, what,
                 "the network has more than " + std::to_string(kMaxSynapses) + " synapses");
    }
}

uint64_t splitmix64(uint64_t x) {
    uint64_t z = x + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

uint64_t derive_seed(uint64_t seed, uint64_t salt) { return splitmix64(seed ^ splitmix64(salt)); }

uint64_t name_hash(const std::string& s) {
    uint64_t h = 0xCBF29CE484222325ull;
    for (unsigned char c : s) {
        h ^= c;
        h *= 0x100000001B3ull;
    }
    return h;
}

double unit_double(uint64_t draw) { return static_cast<double>(draw >> 11) * 0x1.0p-53; }

std::vector<std::pair<uint32_t, uint32_t>> fixed_probability_pairs(uint32_t n_pre, uint32_t n_post,
                                                                   double p, uint64_t seed,
                                                                   bool allow_self) {
    std::vector<std::pair<uint32_t, uint32_t>> out;
    for (uint32_t i = 0; i < n_pre; ++i) {
        std::mt19937_64 rng(derive_seed(seed, i));
        for (uint32_t j = 0; j < n_post; ++j) {
            const bool take = unit_double(rng()) < p;  // draw first: allow_self keeps the stream
            if (take && (allow_self || i != j)) out.emplace_back(i, j);
        }
    }
    return out;
}

SpikeTrains spike_trains(const Network& net, uint32_t n_ticks) {
    SpikeTrains out(net.sources.size());
    for (size_t s = 0; s < net.sources.size(); ++s) {
        const Source& src = net.sources[s];
        auto& trains = out[s];
        trains.resize(src.size);
        if (src.rate_hz) {
            const double p = -std::expm1(-*src.rate_hz * net.timestep_ms / 1000.0);
            for (uint32_t i = 0; i < src.size; ++i) {
                std::mt19937_64 rng(derive_seed(src.seed, i));
                for (uint32_t t = 0; t < n_ticks; ++t)
                    if (unit_double(rng()) < p) trains[i].push_back(t);
            }
        } else {
            for (uint32_t i = 0; i < src.size; ++i)
                for (uint32_t t : src.spike_times[i])
                    if (t < n_ticks) trains[i].push_back(t);
        }
    }
    return out;
}

}  // namespace nmsim::compiler::snn
