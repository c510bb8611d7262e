// Per-PE images decode back to the network (property test on random networks): every synapse
// appears exactly once in the image of its target PE with its weight, delay and type; every
// source neuron's key reaches exactly the PEs holding targets of its vertex; source PEs send the
// spike trains. And the reader rejects broken images.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <tuple>

#include "tools/compiler/snn/compiler.h"
#include "tools/compiler/snn/image.h"

namespace nmsim::compiler::snn {
namespace {

// (pre is source, pre group, pre, post population, post, weight, delay, type)
using Syn = std::tuple<bool, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, int>;

Network random_network(std::mt19937_64& rng) {
    auto pick = [&](uint32_t lo, uint32_t hi) {
        return lo + static_cast<uint32_t>(rng() % (hi - lo + 1));
    };
    Network net;
    net.seed = rng();
    const uint32_t n_src = pick(0, 2), n_pop = pick(1, 3);
    for (uint32_t s = 0; s < n_src; ++s) {
        Source src;
        src.name = "s" + std::to_string(s);
        src.size = pick(1, 600);
        if (rng() % 2) {
            src.rate_hz = rng() % 4 == 0 ? 1000 : pick(0, 100);  // 1 kHz: lists often in DRAM
            src.seed = rng() >> 11;
        } else {
            src.spike_times.resize(src.size);
            for (auto& t : src.spike_times)
                for (uint32_t k = pick(0, 3), tick = 0; k > 0; --k) t.push_back(tick += pick(1, 9));
        }
        net.sources.push_back(src);
    }
    for (uint32_t p = 0; p < n_pop; ++p) {
        Population pop;
        pop.name = "p" + std::to_string(p);
        pop.size = pick(1, 700);
        pop.lif.v_th = pick(1, 100);
        pop.lif.v_init = pick(0, 5);
        pop.record_spikes = rng() % 2;
        if (rng() % 2) pop.record_v = {0, pop.size - 1};
        if (pop.size == 1) pop.record_v.resize(std::min<size_t>(pop.record_v.size(), 1));
        net.populations.push_back(pop);
    }
    const uint32_t n_proj = pick(1, 5);
    for (uint32_t k = 0; k < n_proj; ++k) {
        Projection pj;
        pj.name = "j" + std::to_string(k);
        pj.pre = (n_src > 0 && rng() % 2) ? PreRef{true, pick(0, n_src - 1)}
                                          : PreRef{false, pick(0, n_pop - 1)};
        pj.post = pick(0, n_pop - 1);
        const uint32_t ns = net.pre_size(pj.pre), nt = net.populations[pj.post].size;
        const double density[] = {0.002, 0.02, 0.1, 0.6};  // 0.6: matrices split over PEs
        for (const auto& [i, j] :
             fixed_probability_pairs(ns, nt, density[rng() % 4], rng(), true)) {
            const uint32_t mult = rng() % 8 == 0 ? 2 : 1;  // some pairs twice (other delay)
            for (uint32_t m = 0; m < mult; ++m)
                pj.synapses.push_back(
                    {i, j, pick(0, 127), pick(1, 16),
                     rng() % 3 == 0 ? SynapseType::inhibitory : SynapseType::excitatory});
        }
        net.projections.push_back(std::move(pj));
    }
    return net;
}

TEST(SnnImage, ImagesDecodeToTheNetwork) {
    uint32_t compiled = 0, split = 0, dram = 0;
    for (uint32_t seed = 1; seed <= 40; ++seed) {
        SCOPED_TRACE("seed " + std::to_string(seed));
        std::mt19937_64 rng(seed);
        const Network net = random_network(rng);
        CompileOptions opt;
        opt.n_ticks = 400;
        opt.max_neurons_per_pe = 1 + static_cast<uint32_t>(rng() % 255);
        Compiled c;
        try {
            c = compile(net, opt);
        } catch (const CompileError& e) {
            continue;  // too large for the chip: the error path is tested elsewhere
        }
        ++compiled;
        for (uint32_t k : c.graph.matrix_split) split += k > 1 ? 1 : 0;
        for (const DramRegion& r : c.dram) dram += r.kind == DramKind::spike_list ? 1 : 0;
        const MachineGraph& g = c.graph;
        std::vector<DecodedPe> dec;
        for (const PeImage& img : c.images) dec.push_back(decode_pe_image(img, c.dram));
        std::map<uint32_t, const DecodedPe*> by_pe;
        for (size_t k = 0; k < dec.size(); ++k) by_pe[c.images[k].pe] = &dec[k];

        // PEs holding targets of each vertex's neurons, straight from the network.
        std::vector<std::set<uint32_t>> want_pes(g.vertices.size());
        std::multiset<Syn> want;
        for (const Projection& pj : net.projections)
            for (const Synapse& s : pj.synapses) {
                want.insert({pj.pre.is_source, pj.pre.index, s.pre, pj.post, s.post, s.weight,
                             s.delay, static_cast<int>(s.type)});
                want_pes[g.vertex_of(pj.pre, s.pre)].insert(
                    g.vertices[g.vertex_of({false, pj.post}, s.post)].pe);
            }
        std::multiset<Syn> got;
        for (const MachineVertex& v : g.vertices) {
            for (uint32_t i = 0; i < v.n; ++i) {
                const uint32_t key = v.key() | i;
                const RouterEntry* e = route_lookup(c.routes, key);
                const std::set<uint32_t> reached =
                    e ? std::set<uint32_t>(e->pes.begin(), e->pes.end()) : std::set<uint32_t>();
                ASSERT_EQ(reached, want_pes[v.id]) << "vertex " << v.id << " neuron " << i;
                for (uint32_t pe : reached) {
                    const DecodedPe& d = *by_pe.at(pe);
                    ASSERT_GE(d.mpt_index(key), 0) << "PE " << pe << " has no entry for " << key;
                    const MachineVertex& t = g.vertices[d.header.vertex];
                    for (uint32_t w : d.synapses_for_key(key))
                        got.insert({v.is_source, v.app, v.lo + i, t.app, t.lo + s2_snn_syn_index(w),
                                    s2_snn_syn_weight(w), s2_snn_syn_delay(w),
                                    static_cast<int>(s2_snn_syn_type(w))});
                }
            }
        }
        ASSERT_EQ(got, want);
        // Neuron PEs carry their population's parameters; source PEs their trains.
        for (size_t k = 0; k < dec.size(); ++k) {
            const MachineVertex& v = g.vertices[c.images[k].vertex];
            const DecodedPe& d = dec[k];
            EXPECT_EQ(d.header.n_neurons, v.n);
            EXPECT_EQ(d.header.key_base, v.key());
            EXPECT_EQ(d.header.n_ticks, 400u);
            if (v.is_source) {
                std::vector<uint32_t> keys;
                for (uint32_t t = 0; t < 400; ++t)
                    for (uint32_t i = 0; i < v.n; ++i) {
                        const auto& tr = c.trains[v.app][v.lo + i];
                        if (std::binary_search(tr.begin(), tr.end(), t))
                            keys.push_back(v.key() | i);
                    }
                EXPECT_EQ(d.spike_keys, keys);
                continue;
            }
            const auto f = lif_fixed(net.populations[v.app].lif, net.timestep_ms);
            EXPECT_EQ(d.params.alpha, f.alpha);
            EXPECT_EQ(static_cast<int32_t>(d.params.v_th), f.v_th);
            for (const auto& st : d.state) EXPECT_EQ(static_cast<int32_t>(st.v), f.v_init);
            uint32_t max_delay = 1;
            for (uint32_t a = 0; a < d.addr_list.size(); ++a)
                for (uint32_t r = 0; r < d.block_rows[a]; ++r) {
                    const uint32_t row =
                        s2_snn_addr_offset(d.addr_list[a]) + r * s2_snn_addr_stride(d.addr_list[a]);
                    for (uint32_t s = 1; s <= d.syn_matrix[row]; ++s)
                        max_delay = std::max(max_delay, s2_snn_syn_delay(d.syn_matrix[row + s]));
                }
            uint32_t slots = 1;
            while (slots < max_delay) slots *= 2;
            EXPECT_EQ(d.header.n_delay_slots, slots);
        }
    }
    // The random networks cover what they are meant to: most compile, some with split matrices.
    EXPECT_GE(compiled, 25u);
    EXPECT_GE(split, 3u);
    EXPECT_GE(dram, 3u);
    std::printf("compiled %u of 40, %u matrix splits, %u spike lists in DRAM\n", compiled, split,
                dram);
}

Compiled small() {
    Network net;
    Source s;
    s.name = "in";
    s.size = 3;
    s.spike_times = {{0, 2}, {1}, {}};
    net.sources.push_back(s);
    Population p;
    p.name = "a";
    p.size = 5;
    net.populations.push_back(p);
    Projection pj;
    pj.name = "p";
    pj.pre = {true, 0};
    pj.post = 0;
    pj.synapses = {{0, 1, 5, 2, SynapseType::excitatory}, {2, 4, 7, 1, SynapseType::inhibitory}};
    net.projections.push_back(pj);
    CompileOptions opt;
    opt.n_ticks = 4;
    return compile(net, opt);
}

TEST(SnnImage, SmallImageFieldByField) {
    const Compiled c = small();
    const DecodedPe src = decode_pe_image(c.images[0]);
    EXPECT_EQ(src.header.kind, S2_SNN_KIND_SOURCE);
    EXPECT_EQ(src.spike_tick_index, (std::vector<uint32_t>{0, 1, 2, 3, 3}));
    EXPECT_EQ(src.spike_keys, (std::vector<uint32_t>{0, 1, 0}));
    const DecodedPe d = decode_pe_image(c.images[1]);
    EXPECT_EQ(d.header.kind, S2_SNN_KIND_NEURON);
    EXPECT_EQ(d.header.key_base, 0x100u);
    EXPECT_EQ(d.header.n_delay_slots, 2u);
    EXPECT_EQ(d.header.input_stride, 6u);
    ASSERT_EQ(d.mpt.size(), 1u);
    EXPECT_EQ(d.mpt[0].key, 0u);
    EXPECT_EQ(d.mpt[0].mask, 0xFFFFFF00u);
    EXPECT_EQ(d.addr_list, (std::vector<uint32_t>{s2_snn_addr_word(0, 2)}));
    EXPECT_EQ(d.block_rows, (std::vector<uint32_t>{3}));
    EXPECT_EQ(d.syn_matrix,
              (std::vector<uint32_t>{1, s2_snn_syn_word(5, 2, S2_SNN_TYPE_EXC, 1), 0, 0, 1,
                                     s2_snn_syn_word(7, 1, S2_SNN_TYPE_INH, 4)}));
    EXPECT_EQ(s2_snn_syn_word(5, 2, 0, 1), (5u << 16) | (1u << 9) | 1u);
    EXPECT_EQ(d.synapses_for_key(2), (std::vector<uint32_t>{s2_snn_syn_word(7, 1, 1, 4)}));
    EXPECT_TRUE(d.synapses_for_key(1).empty());
    EXPECT_TRUE(d.synapses_for_key(0x200).empty());
    EXPECT_EQ(d.header.mpt % 16, 0u);
    EXPECT_GE(d.header.counters, S2_SNN_IMAGE_BASE + sizeof(s2_snn_image_t));
}

// A copy of `img` with the word at SRAM address `addr` replaced.
PeImage patched(const PeImage& img, uint32_t addr, uint32_t value) {
    PeImage out = img;
    std::memcpy(out.bytes.data() + (addr - img.base), &value, 4);
    return out;
}

TEST(SnnImage, ReaderRejectsBrokenImages) {
    const Compiled c = small();
    const PeImage& img = c.images[1];
    const DecodedPe d = decode_pe_image(img);
    const uint32_t base = S2_SNN_IMAGE_BASE;
    auto rejects = [&](const PeImage& bad, const std::string& what) {
        try {
            decode_pe_image(bad);
        } catch (const ImageError& e) {
            EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
            return;
        }
        ADD_FAILURE() << "accepted: " << what;
    };
    rejects(patched(img, base, 0), "bad magic");
    rejects(patched(img, base + offsetof(s2_snn_image_t, n_neurons), 0), "n_neurons");
    rejects(patched(img, base + offsetof(s2_snn_image_t, mpt), d.header.counters), "overlaps");
    rejects(patched(img, base + offsetof(s2_snn_image_t, n_delay_slots), 3), "power of two");
    // A synapse whose index is past n_neurons, one with reserved bits, a row count too long.
    const uint32_t syn0 = d.header.syn_matrix + 4;
    rejects(patched(img, syn0, s2_snn_syn_word(5, 2, 0, 5)), "out of range");
    rejects(patched(img, syn0, s2_snn_syn_word(5, 2, 0, 1) | 0x2000u), "out of range");
    rejects(patched(img, syn0, s2_snn_syn_word(128, 2, 0, 1)), "out of range");
    rejects(patched(img, d.header.syn_matrix, 2), "row count");
    rejects(patched(img, d.header.syn_matrix + 12, 1), "padding");
    rejects(patched(img, d.header.mpt + 4, 0xFFFFFF0Fu), "bad key/mask");
    rejects(patched(img, d.header.params, 65537), "LIF parameters");
    rejects(patched(img, d.header.input, 1), "input buffers not zero");
    PeImage shorter = img;
    shorter.bytes.resize(img.bytes.size() - 4);
    rejects(shorter, "image_size");
    // A source list whose keys are not this vertex's.
    const PeImage& s = c.images[0];
    const DecodedPe ds = decode_pe_image(s);
    rejects(patched(s, ds.header.spike_keys, 0x105), "spike key");
}

}  // namespace
}  // namespace nmsim::compiler::snn
