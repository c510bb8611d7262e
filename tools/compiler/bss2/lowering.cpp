#include "tools/compiler/bss2/lowering.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

namespace nmsim::compiler::bss2 {

namespace {

// Fixed-point conversion of one neuron field; signed fields are stored as two's complement.
uint32_t to_word(double value, double scale, bool is_signed, const std::string& who,
                 const char* field, const char* unit) {
    const double x = std::round(value * scale);
    const double lo = is_signed ? static_cast<double>(std::numeric_limits<int32_t>::min()) : 0.0;
    const double hi = is_signed ? static_cast<double>(std::numeric_limits<int32_t>::max())
                                : static_cast<double>(std::numeric_limits<uint32_t>::max());
    if (!(x >= lo && x <= hi))  // also rejects NaN
        throw LoweringError(who + ": " + field + " = " + std::to_string(value) +
                            " does not fit its word (" + (is_signed ? "int32 " : "uint32 ") + unit +
                            ")");
    return is_signed ? static_cast<uint32_t>(static_cast<int32_t>(x)) : static_cast<uint32_t>(x);
}

double from_word(uint32_t w, double scale, bool is_signed) {
    return (is_signed ? static_cast<double>(static_cast<int32_t>(w)) : static_cast<double>(w)) /
           scale;
}

// Field table: word offset, NeuronProperties member, scale from property unit to word unit.
struct NeuronField {
    uint32_t offset;
    double NeuronProperties::*member;
    double scale;
    bool is_signed;
    const char* name;
    const char* unit;
};
constexpr double kMilli = 1e3;  // mV->uV, pF->fF
constexpr double kMicro = 1e6;  // us->ps, uS->pS, nA->fA
const NeuronField kNeuronFields[] = {
    {BSS2_NRN_V_LEAK, &NeuronProperties::v_leak, kMilli, true, "v_leak", "uV"},
    {BSS2_NRN_V_RESET, &NeuronProperties::v_reset, kMilli, true, "v_reset", "uV"},
    {BSS2_NRN_V_THRESHOLD, &NeuronProperties::v_threshold, kMilli, true, "v_threshold", "uV"},
    {BSS2_NRN_V_EXP, &NeuronProperties::v_exp, kMilli, true, "v_exp", "uV"},
    {BSS2_NRN_DELTA_T, &NeuronProperties::delta_t, kMilli, true, "delta_t", "uV"},
    {BSS2_NRN_C_MEM, &NeuronProperties::c_mem, kMilli, false, "c_mem", "fF"},
    {BSS2_NRN_TAU_MEM, &NeuronProperties::tau_mem, kMicro, false, "tau_mem", "ps"},
    {BSS2_NRN_TAU_SYN_EXC, &NeuronProperties::tau_syn_exc, kMicro, false, "tau_syn_exc", "ps"},
    {BSS2_NRN_TAU_SYN_INH, &NeuronProperties::tau_syn_inh, kMicro, false, "tau_syn_inh", "ps"},
    {BSS2_NRN_TAU_W, &NeuronProperties::tau_w, kMicro, false, "tau_w", "ps"},
    {BSS2_NRN_A, &NeuronProperties::a, kMicro, true, "a", "pS"},
    {BSS2_NRN_B, &NeuronProperties::b, kMicro, true, "b", "fA"},
    {BSS2_NRN_T_REF, &NeuronProperties::t_ref, kMicro, false, "t_ref", "ps"},
    {BSS2_NRN_I_OFFSET, &NeuronProperties::i_offset, kMicro, true, "i_offset", "fA"},
    {BSS2_NRN_W_EXC, &NeuronProperties::w_exc, kMicro, false, "w_exc", "fA"},
    {BSS2_NRN_W_INH, &NeuronProperties::w_inh, kMicro, false, "w_inh", "fA"},
};

uint32_t driver_cfg_word(const DriverCfg& d) {
    return (d.row_mask & 0x1Fu) << BSS2_SYNDRV_CFG_ROWMASK_SHIFT |
           (d.lower5 ? 1u : 0u) << BSS2_SYNDRV_CFG_LOWER5_SHIFT |
           (d.mode[0] & 3u) << BSS2_SYNDRV_CFG_MODE0_SHIFT |
           (d.mode[1] & 3u) << BSS2_SYNDRV_CFG_MODE1_SHIFT |
           (d.stp ? 1u : 0u) << BSS2_SYNDRV_CFG_STP_SHIFT | 1u << BSS2_SYNDRV_CFG_ENABLE_SHIFT |
           (d.hagen ? 1u : 0u) << BSS2_SYNDRV_CFG_HAGEN_SHIFT;
}

// Same entity configured by two root vertices: fine if identical, an error otherwise.
template <class Key, class Value>
void put(std::map<Key, std::pair<Value, std::string>>& m, const Key& k, const Value& v,
         const std::string& who, const std::string& what) {
    auto [it, fresh] = m.emplace(k, std::make_pair(v, who));
    if (!fresh && !(it->second.first == v))
        throw LoweringError(who + ": " + what + " already configured differently by " +
                            it->second.second);
}

bool same(const NeuronProperties& a, const NeuronProperties& b) {
    for (const auto& f : kNeuronFields)
        if (a.*f.member != b.*f.member) return false;
    return a.exponential == b.exponential && a.adaptation == b.adaptation &&
           a.integrator == b.integrator;
}

struct NeuronEntry {
    NeuronProperties p;
    uint32_t addr = 0;
    bool operator==(const NeuronEntry& o) const { return addr == o.addr && same(p, o.p); }
};

struct DriverEntry {
    DriverCfg d;
    bool operator==(const DriverEntry& o) const {
        return d.row_mask == o.d.row_mask && d.lower5 == o.d.lower5 && d.mode[0] == o.d.mode[0] &&
               d.mode[1] == o.d.mode[1] && d.stp == o.d.stp && d.hagen == o.d.hagen &&
               (!d.stp || (d.stp_u == o.d.stp_u && d.stp_tau_rec == o.d.stp_tau_rec));
    }
};

struct BgEntry {
    BackgroundCfg c;
    bool operator==(const BgEntry& o) const {
        return c.poisson == o.c.poisson && c.period == o.c.period && c.rate == o.c.rate &&
               c.mask == o.c.mask && c.label == o.c.label;
    }
};

}  // namespace

std::array<uint32_t, kNeuronWords> neuron_words(const NeuronProperties& p, uint32_t addr,
                                                uint32_t flags, const std::string& who) {
    std::array<uint32_t, kNeuronWords> w{};
    w[BSS2_NRN_CFG] = flags;
    w[BSS2_NRN_ADDR_OUT] = addr & 0xFFu;
    for (const auto& f : kNeuronFields)
        w[f.offset] = to_word(p.*f.member, f.scale, f.is_signed, who, f.name, f.unit);
    return w;
}

std::map<std::pair<uint32_t, uint32_t>, bool> instance_neurons(const Graph& g,
                                                               ExecutionInstance instance) {
    const auto& vs = g.vertices(instance);
    // All descriptors of each root (references carry the same entity).
    std::map<VertexDescriptor, std::vector<VertexDescriptor>> members;
    for (VertexDescriptor v : vs) members[g.root(v)].push_back(v);
    std::map<std::pair<uint32_t, uint32_t>, bool> out;
    for (const auto& [root, all] : members) {
        const auto* nv = std::get_if<NeuronView>(&g.vertex(root));
        if (!nv) continue;
        std::set<uint32_t> used_channels;
        for (VertexDescriptor v : all)
            for (const Edge& e : g.out_edges(v)) {
                const auto* eo = std::get_if<NeuronEventOutputView>(&g.vertex(e.target));
                if (!eo) continue;
                const auto ch = eo->channels();
                for (VertexDescriptor ev : members[g.root(e.target)])
                    for (const Edge& n : g.out_edges(ev)) {
                        if (!std::holds_alternative<CrossbarNode>(g.vertex(n.target))) continue;
                        const size_t lo = n.restriction ? n.restriction->min : 0;
                        const size_t hi = n.restriction ? n.restriction->max : ch.size() - 1;
                        for (size_t k = lo; k <= hi && k < ch.size(); ++k)
                            used_channels.insert(ch[k]);
                    }
            }
        for (uint32_t c : nv->columns)
            out[{nv->hemi, c}] = used_channels.count(bss2_neuron_channel(c)) > 0;
    }
    return out;
}

std::vector<ConfigWord> configuration(const Graph& g, ExecutionInstance instance) {
    std::map<std::pair<uint32_t, uint32_t>, std::pair<bool, std::string>> buses;
    std::map<std::pair<uint32_t, uint32_t>, std::pair<std::pair<uint32_t, uint32_t>, std::string>>
        nodes;
    std::map<std::pair<uint32_t, uint32_t>, std::pair<DriverEntry, std::string>> drivers;
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>,
             std::pair<std::pair<uint32_t, uint32_t>, std::string>>
        synapses;
    std::map<std::pair<uint32_t, uint32_t>, std::pair<NeuronEntry, std::string>> neurons;
    std::map<uint32_t, std::pair<BgEntry, std::string>> background;

    for (VertexDescriptor v : g.vertices(instance)) {
        if (g.is_reference(v)) continue;
        const std::string who = g.label(v);
        const Vertex& vx = g.vertex(v);
        if (const auto* p = std::get_if<PADIBus>(&vx)) {
            put(buses, {p->hemi, p->bus}, true, who, "PADI bus");
        } else if (const auto* n = std::get_if<CrossbarNode>(&vx)) {
            put(nodes, {n->in, n->out}, std::make_pair(n->mask, n->target), who, "crossbar node");
        } else if (const auto* d = std::get_if<SynapseDriver>(&vx)) {
            put(drivers, {d->cfg.hemi, d->cfg.driver}, DriverEntry{d->cfg}, who,
                "synapse driver " + std::to_string(d->cfg.driver));
        } else if (const auto* a = std::get_if<SynapseArrayView>(&vx)) {
            for (const auto& s : a->synapses)
                put(synapses, {a->hemi, s.row, s.col}, std::make_pair(s.weight, s.label), who,
                    "synapse (row " + std::to_string(s.row) + ", column " + std::to_string(s.col) +
                        ")");
        } else if (const auto* nv = std::get_if<NeuronView>(&vx)) {
            for (size_t i = 0; i < nv->columns.size(); ++i)
                put(neurons, {nv->hemi, nv->columns[i]},
                    NeuronEntry{nv->neurons[i].properties, nv->neurons[i].addr}, who,
                    "neuron column " + std::to_string(nv->columns[i]));
        } else if (const auto* b = std::get_if<BackgroundSpikeSource>(&vx)) {
            put(background, b->cfg.index, BgEntry{b->cfg}, who,
                "background generator " + std::to_string(b->cfg.index));
        }
    }

    std::vector<ConfigWord> w;
    for (const auto& [k, v] : buses) w.push_back({BSS2_PADI(k.first, k.second), 1u});
    for (const auto& [k, v] : nodes) {
        const uint32_t base = BSS2_XBAR_NODE(k.first, k.second);
        w.push_back({base + BSS2_XBAR_MASK,
                     (v.first.first & BSS2_LABEL14_MASK) | 1u << BSS2_XBAR_MASK_ENABLE_SHIFT});
        w.push_back({base + BSS2_XBAR_TARGET, v.first.second & BSS2_LABEL14_MASK});
    }
    for (const auto& [k, v] : drivers) {
        const DriverCfg& d = v.first.d;
        const uint32_t base = BSS2_SYNDRV(k.first, k.second);
        w.push_back({base + BSS2_SYNDRV_CFG, driver_cfg_word(d)});
        if (d.stp) {
            // U in 1/256 on 8 bits: u = 1 saturates at 255/256.
            const uint32_t u =
                std::min<uint32_t>(255u, static_cast<uint32_t>(std::lround(d.stp_u * 256.0)));
            w.push_back({base + BSS2_SYNDRV_STP_U, u});
            w.push_back({base + BSS2_SYNDRV_STP_TAU_REC,
                         to_word(d.stp_tau_rec, 1e3, false, v.second, "stp_tau_rec", "ns")});
        }
    }
    for (const auto& [k, v] : synapses) {
        const auto [hemi, row, col] = k;
        w.push_back({BSS2_SYNAPSE(hemi, row, col), v.first.first << BSS2_SYN_WEIGHT_SHIFT |
                                                       v.first.second << BSS2_SYN_LABEL_SHIFT});
    }
    const auto fires = instance_neurons(g, instance);
    for (const auto& [k, v] : neurons) {
        const NeuronProperties& p = v.first.p;
        uint32_t flags = BSS2_NRN_CFG_ENABLE;
        if (fires.at(k)) flags |= BSS2_NRN_CFG_FIRE;
        if (p.exponential) flags |= BSS2_NRN_CFG_EXP;
        if (p.adaptation) flags |= BSS2_NRN_CFG_ADAPT;
        if (p.integrator) flags |= BSS2_NRN_CFG_INTEGRATOR;
        const auto words =
            neuron_words(p, v.first.addr, flags, v.second + " column " + std::to_string(k.second));
        const uint32_t base = BSS2_NEURON(k.first, k.second);
        for (uint32_t i = 0; i < kNeuronWords; ++i) w.push_back({base + i, words[i]});
    }
    for (const auto& [i, v] : background) {
        const BackgroundCfg& c = v.first.c;
        w.push_back({BSS2_BG(i) + BSS2_BG_PERIOD, c.period & 0xFFFFu});
        w.push_back({BSS2_BG(i) + BSS2_BG_RATE, (c.rate & 0xFFu) | (c.mask & 0xFFu) << 8});
        w.push_back({BSS2_BG(i) + BSS2_BG_LABEL, c.label & BSS2_LABEL14_MASK});
    }
    for (const auto& [i, v] : background)
        w.push_back({BSS2_BG(i) + BSS2_BG_CFG,
                     BSS2_BG_CFG_ENABLE | (v.first.c.poisson ? BSS2_BG_CFG_POISSON : 0u)});
    return w;
}

ChipConfig decode_configuration(const std::vector<ConfigWord>& words) {
    ChipConfig c;
    auto bad = [](uint32_t addr, const std::string& why) {
        char buf[16];
        std::snprintf(buf, sizeof buf, "0x%06x", addr);
        return LoweringError(std::string("configuration word at ") + buf + ": " + why);
    };
    for (const auto& [addr, data] : words) {
        if (addr >= BSS2_SYNAPSE_BASE) {
            const uint32_t i = addr - BSS2_SYNAPSE_BASE;
            if (i >= BSS2_HEMISPHERES * BSS2_ROWS * BSS2_COLUMNS)
                throw bad(addr, "beyond synapses");
            c.synapses[{i / (BSS2_ROWS * BSS2_COLUMNS), i / BSS2_COLUMNS % BSS2_ROWS,
                        i % BSS2_COLUMNS}] = {data >> BSS2_SYN_WEIGHT_SHIFT & 0x3Fu,
                                              data >> BSS2_SYN_LABEL_SHIFT & 0x3Fu};
        } else if (addr >= BSS2_NEURON_BASE) {
            const uint32_t i = addr - BSS2_NEURON_BASE;
            if (i >= BSS2_NEURONS * 32u) throw bad(addr, "beyond neurons");
            auto& n = c.neurons[{i / 32u / BSS2_COLUMNS, i / 32u % BSS2_COLUMNS}];
            const uint32_t off = i % 32u;
            if (off == BSS2_NRN_CFG) {
                n.flags = data;
                n.properties.exponential = (data & BSS2_NRN_CFG_EXP) != 0;
                n.properties.adaptation = (data & BSS2_NRN_CFG_ADAPT) != 0;
                n.properties.integrator = (data & BSS2_NRN_CFG_INTEGRATOR) != 0;
            } else if (off == BSS2_NRN_ADDR_OUT) {
                n.addr = data & 0xFFu;
            } else {
                bool found = false;
                for (const auto& f : kNeuronFields)
                    if (f.offset == off) {
                        n.properties.*f.member = from_word(data, f.scale, f.is_signed);
                        found = true;
                    }
                if (!found) throw bad(addr, "neuron word " + std::to_string(off) + " not written");
            }
        } else if (addr >= BSS2_XBAR_BASE &&
                   addr < BSS2_XBAR_BASE + BSS2_XBAR_INPUTS * BSS2_XBAR_OUTPUTS * 2u) {
            const uint32_t i = (addr - BSS2_XBAR_BASE) / 2u;
            const std::pair<uint32_t, uint32_t> k{i / BSS2_XBAR_OUTPUTS, i % BSS2_XBAR_OUTPUTS};
            if ((addr - BSS2_XBAR_BASE) % 2u == BSS2_XBAR_MASK) {
                c.nodes[k].first = data & BSS2_LABEL14_MASK;
                if (data >> BSS2_XBAR_MASK_ENABLE_SHIFT & 1u) c.enabled_nodes.insert(k);
            } else {
                c.nodes[k].second = data & BSS2_LABEL14_MASK;
            }
        } else if (addr >= BSS2_SYNDRV_BASE &&
                   addr < BSS2_SYNDRV_BASE + BSS2_HEMISPHERES * BSS2_DRIVERS * 4u) {
            const uint32_t i = (addr - BSS2_SYNDRV_BASE) / 4u;
            auto& d = c.drivers[{i / BSS2_DRIVERS, i % BSS2_DRIVERS}];
            switch ((addr - BSS2_SYNDRV_BASE) % 4u) {
                case BSS2_SYNDRV_CFG:
                    d.row_mask = data >> BSS2_SYNDRV_CFG_ROWMASK_SHIFT & 0x1Fu;
                    d.lower5 = data >> BSS2_SYNDRV_CFG_LOWER5_SHIFT & 1u;
                    d.mode[0] = data >> BSS2_SYNDRV_CFG_MODE0_SHIFT & 3u;
                    d.mode[1] = data >> BSS2_SYNDRV_CFG_MODE1_SHIFT & 3u;
                    d.stp = data >> BSS2_SYNDRV_CFG_STP_SHIFT & 1u;
                    d.enable = data >> BSS2_SYNDRV_CFG_ENABLE_SHIFT & 1u;
                    d.hagen = data >> BSS2_SYNDRV_CFG_HAGEN_SHIFT & 1u;
                    break;
                case BSS2_SYNDRV_STP_U:
                    d.stp_u = data & 0xFFu;
                    break;
                case BSS2_SYNDRV_STP_TAU_REC:
                    d.stp_tau_rec = data;
                    break;
                default:
                    throw bad(addr, "driver pulse word is not written by the lowering");
            }
        } else if (addr >= BSS2_BG_BASE && addr < BSS2_BG_BASE + BSS2_BACKGROUND * 4u) {
            const uint32_t i = (addr - BSS2_BG_BASE) / 4u;
            auto& b = c.background[i];
            b.index = i;
            switch ((addr - BSS2_BG_BASE) % 4u) {
                case BSS2_BG_CFG:
                    b.poisson = (data & BSS2_BG_CFG_POISSON) != 0;
                    if (data & BSS2_BG_CFG_ENABLE) c.background_enabled.insert(i);
                    break;
                case BSS2_BG_PERIOD:
                    b.period = data & 0xFFFFu;
                    break;
                case BSS2_BG_RATE:
                    b.rate = data & 0xFFu;
                    b.mask = data >> 8 & 0xFFu;
                    break;
                default:
                    b.label = data & BSS2_LABEL14_MASK;
                    break;
            }
        } else if (addr >= BSS2_PADI_BASE &&
                   addr < BSS2_PADI_BASE + BSS2_HEMISPHERES * BSS2_PADI_PER_HEMI) {
            if (data & 1u)
                c.padi_buses.insert({(addr - BSS2_PADI_BASE) / BSS2_PADI_PER_HEMI,
                                     (addr - BSS2_PADI_BASE) % BSS2_PADI_PER_HEMI});
        } else {
            throw bad(addr, "not a configuration word of the lowering");
        }
    }
    return c;
}

}  // namespace nmsim::compiler::bss2
