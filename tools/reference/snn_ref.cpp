// The SNN reference (snn_ref.h): plain loops over populations, one tick at a time.
#include "tools/reference/snn_ref.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace nmsim::reference {
namespace {

constexpr int32_t kInputMax = 32767;  // S2_SNN_INPUT_MAX

int32_t sat32(int64_t v) {
    return static_cast<int32_t>(std::clamp<int64_t>(v, std::numeric_limits<int32_t>::min(),
                                                    std::numeric_limits<int32_t>::max()));
}

// Integer arithmetic of one tick (snn_image.h).
struct FixedModel {
    using V = int32_t;
    using Input = int32_t;
    static const SnnLifFixed& lif(const SnnRefPopulation& p) { return p.lif; }
    static V init(const SnnLifFixed& l) { return l.v_init; }
    // Adds w to an input sum; returns true if it saturated.
    static bool add(Input& sum, uint32_t w) {
        const int64_t s = static_cast<int64_t>(sum) + w;
        sum = static_cast<Input>(std::min<int64_t>(s, kInputMax));
        return s > kInputMax;
    }
    static V refractory(V v, V r) { return sat32(static_cast<int64_t>(v) - r); }
    static V update(V v, Input exc, Input inh, V r, const SnnLifFixed& l) {
        const int64_t decayed = (static_cast<int64_t>(l.alpha) * v + (1 << 15)) >> 16;
        return sat32(decayed + static_cast<int64_t>(exc - inh) * 65536 + l.i_offset - r);
    }
};

struct FloatModel {
    using V = double;
    using Input = double;
    static const SnnLifFloat& lif(const SnnRefPopulation& p) { return p.lif_float; }
    static V init(const SnnLifFloat& l) { return l.v_init; }
    static bool add(Input& sum, uint32_t w) {
        sum += w;
        return false;
    }
    static V refractory(V v, V r) { return v - r; }
    static V update(V v, Input exc, Input inh, V r, const SnnLifFloat& l) {
        return l.alpha * v + (exc - inh) + l.i_offset - r;
    }
};

template <class M>
SnnRefResult<typename M::V> run(const SnnRefNetwork& net) {
    using V = typename M::V;
    const size_t np = net.populations.size();
    // Synapses by pre neuron: [population groups..., source groups...][neuron].
    std::vector<std::vector<std::vector<const SnnRefSynapse*>>> out(np + net.sources.size());
    for (size_t p = 0; p < np; ++p) out[p].resize(net.populations[p].size);
    for (size_t s = 0; s < net.sources.size(); ++s) out[np + s].resize(net.sources[s].size());
    uint32_t max_delay = 1;
    for (const SnnRefSynapse& syn : net.synapses) {
        const size_t g = syn.pre_is_source ? np + syn.pre_group : syn.pre_group;
        if (g >= out.size() || syn.pre >= out[g].size() || syn.post_population >= np ||
            syn.post >= net.populations[syn.post_population].size || syn.delay == 0)
            throw std::invalid_argument("snn_reference: synapse out of range or delay 0");
        out[g][syn.pre].push_back(&syn);
        max_delay = std::max(max_delay, syn.delay);
    }
    // Input sums by arrival tick modulo ring: [slot][population][neuron][exc, inh].
    const uint32_t ring = max_delay + 1;
    std::vector<std::vector<std::vector<std::array<typename M::Input, 2>>>> input(ring);
    for (auto& slot : input) {
        slot.resize(np);
        for (size_t p = 0; p < np; ++p) slot[p].assign(net.populations[p].size, {0, 0});
    }
    struct State {
        std::vector<V> v;
        std::vector<uint32_t> refractory;
        std::vector<uint8_t> spiked;  // at the previous tick
    };
    std::vector<State> st(np);
    SnnRefResult<V> res;
    for (size_t p = 0; p < np; ++p) {
        const SnnRefPopulation& pop = net.populations[p];
        st[p].v.assign(pop.size, M::init(M::lif(pop)));
        st[p].refractory.assign(pop.size, 0);
        st[p].spiked.assign(pop.size, 0);
        for (uint32_t j : pop.record_v) {
            if (j >= pop.size) throw std::invalid_argument("snn_reference: record_v out of range");
            res.voltages.push_back({static_cast<uint32_t>(p), j, {}});
        }
    }
    // Cursor into each source neuron's train.
    std::vector<std::vector<size_t>> cursor(net.sources.size());
    for (size_t s = 0; s < net.sources.size(); ++s) cursor[s].assign(net.sources[s].size(), 0);

    std::vector<std::pair<size_t, uint32_t>> fired;  // (group, neuron) of this tick
    for (uint32_t t = 0; t < net.n_ticks; ++t) {
        fired.clear();
        auto& slot = input[t % ring];
        // 1. neuron update with tick t's input.
        for (size_t p = 0; p < np; ++p) {
            const auto& l = M::lif(net.populations[p]);
            State& s = st[p];
            for (uint32_t j = 0; j < net.populations[p].size; ++j) {
                const auto in = slot[p][j];
                slot[p][j] = {0, 0};
                const V r = (s.spiked[j] != 0 && l.subtract) ? l.v_th : V(0);
                bool spike = false;
                if (s.refractory[j] > 0) {
                    --s.refractory[j];
                    s.v[j] = M::refractory(s.v[j], r);
                } else {
                    s.v[j] = M::update(s.v[j], in[0], in[1], r, l);
                    if (s.v[j] >= l.v_th) {
                        spike = true;
                        s.refractory[j] = l.t_ref;
                        if (!l.subtract) s.v[j] = l.v_reset;
                    }
                }
                s.spiked[j] = spike ? 1 : 0;
                if (spike) {
                    fired.emplace_back(p, j);
                    res.spikes.push_back({t, static_cast<uint32_t>(p), j});
                }
            }
        }
        for (auto& tr : res.voltages) tr.v.push_back(st[tr.population].v[tr.neuron]);
        // Sources of tick t.
        for (size_t g = 0; g < net.sources.size(); ++g)
            for (uint32_t i = 0; i < net.sources[g].size(); ++i) {
                const auto& train = net.sources[g][i];
                size_t& c = cursor[g][i];
                while (c < train.size() && train[c] < t) ++c;
                if (c < train.size() && train[c] == t) fired.emplace_back(np + g, i);
            }
        // 2. synaptic processing of tick t's spikes.
        for (const auto& [g, i] : fired)
            for (const SnnRefSynapse* syn : out[g][i]) {
                auto& sum = input[(t + syn->delay) % ring][syn->post_population][syn->post]
                                 [syn->inhibitory ? 1 : 0];
                if (M::add(sum, syn->weight)) ++res.saturations;
            }
    }
    return res;
}

}  // namespace

SnnRefResult<int32_t> snn_reference(const SnnRefNetwork& net) { return run<FixedModel>(net); }

SnnRefResult<double> snn_reference_float(const SnnRefNetwork& net) { return run<FloatModel>(net); }

int32_t to_q16(double v) {
    const double q = std::round(v * 65536.0);
    if (q >= 2147483647.0) return std::numeric_limits<int32_t>::max();
    if (q <= -2147483648.0) return std::numeric_limits<int32_t>::min();
    return static_cast<int32_t>(q);
}

}  // namespace nmsim::reference
