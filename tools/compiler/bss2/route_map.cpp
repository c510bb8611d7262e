// Map and route (seed 004 section 4.1.4, Listing 21): placement of on-chip neurons, event labels,
// crossbar nodes, PADI buses, synapse-driver row-select classes and synapse cells. The algorithm
// and its limits are described in docs/bss2_compiler.md ("Map and route").
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <set>
#include <tuple>
#include <unordered_map>

#include "nmsim/hw/brainscales2/bss2_map.h"
#include "tools/compiler/bss2/placement.h"

namespace nmsim::compiler::bss2 {
namespace {

constexpr uint32_t kNoProj = std::numeric_limits<uint32_t>::max();

struct Src {
    size_t pop = 0, idx = 0;
    PopulationKind kind = PopulationKind::external;
    std::vector<size_t> merged;  // indices into Router::m_merged
    bool to[2] = {false, false};
};

struct Merged {  // all connections of one source to one target neuron with one receptor
    uint32_t sid = 0, hemi = 0, col = 0;
    Receptor rec = Receptor::excitatory;
    uint32_t weight = 0;
    uint32_t proj = kNoProj;                       // first contributing projection (for messages)
    int stp_proj = -1;                             // a contributing projection with STP, or -1
    std::vector<std::pair<size_t, size_t>> conns;  // (projection, connection)
    size_t synapse = SIZE_MAX;
};

// Row demand of a set of sources in one hemisphere: D_x = max over columns of the number of
// sources with an x-type connection to the column.
struct Need {
    uint32_t d[2] = {0, 0};  // excitatory, inhibitory
    uint32_t col[2] = {0, 0};
    uint32_t proj[2] = {kNoProj, kNoProj};
    uint32_t rows() const { return d[0] + d[1]; }
};

enum class GroupKind { neurons, background, external };

struct Group {
    GroupKind kind = GroupKind::external;
    uint32_t bus = 0;
    uint32_t channel = 0;            // neurons
    size_t pop = 0;                  // background
    uint32_t rowsel = 0;             // the row select of every member's event
    std::vector<uint32_t> members;   // sources with connections through this class (sid, in order)
    std::vector<uint32_t> arriving;  // every source whose event reaches the class (sid)
    std::vector<uint32_t> label6;    // parallel to `arriving`
    bool used[2] = {false, false};
    Need need[2];
    uint32_t size[2] = {0, 0};               // block size in drivers, per hemisphere
    const Stp* stp[2] = {nullptr, nullptr};  // per hemisphere: STP of the class's drivers
};

uint32_t pow2_at_least(uint32_t v) {
    uint32_t p = 1;
    while (p < v) p <<= 1;
    return p;
}

class Router {
public:
    explicit Router(const Network& net) : m_net(net) {
        for (auto& h : m_slot)
            for (auto& b : h)
                for (int& slot : b) slot = -1;
    }

    Placement run() {
        m_pl.populations.resize(m_net.populations.size());
        m_pl.projections.resize(m_net.projections.size());
        for (size_t p = 0; p < m_net.populations.size(); ++p)
            m_pl.populations[p].kind = m_net.populations[p].kind;
        for (size_t j = 0; j < m_net.projections.size(); ++j)
            m_pl.projections[j].synapses.assign(m_net.projections[j].connections.size(), SIZE_MAX);
        place_neurons();
        enumerate_sources();
        merge_connections();
        build_neuron_groups();
        build_background_groups();
        build_external_groups();
        emit();
        return std::move(m_pl);
    }

private:
    [[noreturn]] void fail_pop(size_t p, const std::string& msg) const {
        const Population& pop = m_net.populations[p];
        const std::string w = pop.where.str();
        throw NetworkError((w.empty() ? "" : w + ": ") + "population '" + pop.name + "': " + msg);
    }
    [[noreturn]] void fail_proj(uint32_t j, const std::string& msg) const {
        if (j == kNoProj) throw NetworkError(msg);
        const Projection& pr = m_net.projections[j];
        const std::string w = pr.where.str();
        throw NetworkError((w.empty() ? "" : w + ": ") + "projection '" + pr.name + "': " + msg);
    }
    std::string src_name(uint32_t sid) const {
        const Src& s = m_src[sid];
        return "'" + m_net.populations[s.pop].name + "'[" + std::to_string(s.idx) + "]";
    }

    // ---- placement of internal neurons ----------------------------------------------------
    void place_neurons() {
        size_t total = 0;
        for (size_t p = 0; p < m_net.populations.size(); ++p) {
            const Population& pop = m_net.populations[p];
            if (pop.kind != PopulationKind::internal) continue;
            total += pop.size;
            if (total > BSS2_NEURONS)
                fail_pop(p, std::to_string(pop.size) + " neurons bring the total to " +
                                std::to_string(total) + ", the chip has " +
                                std::to_string(BSS2_NEURONS));
        }
        std::vector<int> owner(BSS2_NEURONS, -1);  // global column g = hemi * 256 + col
        auto free_run = [&](size_t g0, size_t n) {
            if (g0 + n > BSS2_NEURONS) return false;
            for (size_t g = g0; g < g0 + n; ++g)
                if (owner[g] >= 0) return false;
            return true;
        };
        auto take = [&](size_t p, size_t g0) {
            PopulationPlacement& pp = m_pl.populations[p];
            for (size_t i = 0; i < m_net.populations[p].size; ++i) {
                const uint32_t g = static_cast<uint32_t>(g0 + i);
                owner[g] = static_cast<int>(p);
                NeuronSlot s;
                s.hemi = g / BSS2_COLUMNS;
                s.col = g % BSS2_COLUMNS;
                s.addr = (s.hemi << 5) | (s.col % BSS2_COLUMNS_PER_CHANNEL);
                pp.neurons.push_back(s);
            }
        };
        // Pass 0: both hints; pass 1: one hint; pass 2: none (linear fill over the chip).
        for (int pass = 0; pass < 3; ++pass) {
            for (size_t p = 0; p < m_net.populations.size(); ++p) {
                const Population& pop = m_net.populations[p];
                if (pop.kind != PopulationKind::internal) continue;
                const int hints = (pop.hemisphere ? 1 : 0) + (pop.first_column ? 1 : 0);
                if (2 - hints != pass) continue;
                bool done = false;
                for (uint32_t h = 0; h < BSS2_HEMISPHERES && !done; ++h) {
                    if (pop.hemisphere && *pop.hemisphere != h) continue;
                    if (pop.first_column) {
                        const size_t g0 = h * BSS2_COLUMNS + *pop.first_column;
                        if (*pop.first_column + pop.size <= BSS2_COLUMNS &&
                            free_run(g0, pop.size)) {
                            take(p, g0);
                            done = true;
                        }
                        continue;
                    }
                    if (!pop.hemisphere) break;  // no hints: handled below
                    for (size_t c = 0; c + pop.size <= BSS2_COLUMNS && !done; ++c)
                        if (free_run(h * BSS2_COLUMNS + c, pop.size)) {
                            take(p, h * BSS2_COLUMNS + c);
                            done = true;
                        }
                }
                if (!done && hints == 0)
                    for (size_t g = 0; g + pop.size <= BSS2_NEURONS && !done; ++g)
                        if (free_run(g, pop.size)) {
                            take(p, g);
                            done = true;
                        }
                if (!done) {
                    std::string hint;
                    if (pop.hemisphere) hint += " in hemisphere " + std::to_string(*pop.hemisphere);
                    if (pop.first_column)
                        hint += " from column " + std::to_string(*pop.first_column);
                    fail_pop(p, "no " + std::to_string(pop.size) +
                                    " consecutive free neuron columns" + hint);
                }
            }
        }
    }

    // ---- sources and merged connections ------------------------------------------------------
    void enumerate_sources() {
        m_first_sid.resize(m_net.populations.size());
        for (size_t p = 0; p < m_net.populations.size(); ++p) {
            m_first_sid[p] = static_cast<uint32_t>(m_src.size());
            for (size_t i = 0; i < m_net.populations[p].size; ++i) {
                Src s;
                s.pop = p;
                s.idx = i;
                s.kind = m_net.populations[p].kind;
                m_src.push_back(s);
            }
        }
    }

    void merge_connections() {
        std::unordered_map<uint64_t, size_t> index;
        // Synapses per neuron column (hemi * 256 + col): one per source and receptor, at most
        // the column's 256 rows. Checked here, before anything is built per synapse, so that a
        // short file with millions of connections fails at once.
        std::vector<uint32_t> fan_in(BSS2_NEURONS, 0);
        for (size_t j = 0; j < m_net.projections.size(); ++j) {
            const Projection& pr = m_net.projections[j];
            const PopulationPlacement& tp = m_pl.populations[pr.target];
            for (size_t ci = 0; ci < pr.connections.size(); ++ci) {
                const Connection& c = pr.connections[ci];
                if (c.weight == 0) continue;  // stays SIZE_MAX: no synapse
                const NeuronSlot& slot = tp.neurons[c.target];
                const uint32_t sid = m_first_sid[pr.source] + c.source;
                const uint64_t key = (uint64_t{sid} << 10) | (slot.hemi << 9) | (slot.col << 1) |
                                     (pr.receptor == Receptor::inhibitory ? 1u : 0u);
                auto [it, fresh] = index.emplace(key, m_merged.size());
                if (fresh) {
                    Merged m;
                    m.sid = sid;
                    m.hemi = slot.hemi;
                    m.col = slot.col;
                    m.rec = pr.receptor;
                    m.proj = static_cast<uint32_t>(j);
                    m.stp_proj = pr.stp ? static_cast<int>(j) : -1;
                    m_merged.push_back(m);
                    m_src[sid].merged.push_back(it->second);
                    m_src[sid].to[slot.hemi] = true;
                    if (++fan_in[slot.hemi * BSS2_COLUMNS + slot.col] > BSS2_ROWS)
                        fail_proj(static_cast<uint32_t>(j),
                                  "neuron '" + m_net.populations[pr.target].name + "'[" +
                                      std::to_string(c.target) + "] (hemisphere " +
                                      std::to_string(slot.hemi) + ", column " +
                                      std::to_string(slot.col) +
                                      ") receives from more than 256 sources (counting "
                                      "each receptor); its column has 256 synapse rows, one "
                                      "synapse per source and receptor");
                }
                Merged& m = m_merged[it->second];
                if (!fresh && !same_stp(m.stp_proj, pr.stp ? static_cast<int>(j) : -1))
                    fail_proj(static_cast<uint32_t>(j),
                              "connection " + src_name(sid) + " -> '" +
                                  m_net.populations[pr.target].name + "'[" +
                                  std::to_string(c.target) + "] duplicates one of projection '" +
                                  m_net.projections[m.proj].name +
                                  "' with different short-term plasticity (one synapse cannot have "
                                  "both)");
                m.weight += c.weight;
                m.conns.emplace_back(j, ci);
                if (m.weight > 63)
                    fail_proj(static_cast<uint32_t>(j),
                              "connections " + src_name(sid) + " -> '" +
                                  m_net.populations[pr.target].name + "'[" +
                                  std::to_string(c.target) + "] (" + to_string(pr.receptor) +
                                  ") sum to weight " + std::to_string(m.weight) +
                                  " > 63 after merging");
            }
        }
    }

    bool same_stp(int a, int b) const {
        if (a < 0 || b < 0) return a == b;
        const Stp& x = *m_net.projections[a].stp;
        const Stp& y = *m_net.projections[b].stp;
        return x.u == y.u && x.tau_rec == y.tau_rec;
    }

    // STP of a class: every connection through it must agree (STP state lives in the driver).
    const Stp* class_stp(const std::vector<uint32_t>& members, uint32_t h, size_t arriving,
                         const std::string& what) const {
        int first = -2;
        uint32_t first_proj = kNoProj;
        for (uint32_t sid : members)
            for (size_t mi : m_src[sid].merged) {
                const Merged& m = m_merged[mi];
                if (m.hemi != h) continue;
                if (first == -2) {
                    first = m.stp_proj;
                    first_proj = m.proj;
                } else if (!same_stp(first, m.stp_proj)) {
                    const uint32_t culprit = m.stp_proj >= 0 ? m.proj : first_proj;
                    fail_proj(culprit, "short-term plasticity is per synapse driver: " + what +
                                           " shares its drivers in hemisphere " +
                                           std::to_string(h) +
                                           " with connections of different (or no) plasticity");
                }
            }
        if (first < 0) return nullptr;
        if (arriving != 1)
            fail_proj(first_proj,
                      "short-term plasticity needs a synapse-driver class of its own, but " + what +
                          " shares its class with " + std::to_string(arriving - 1) +
                          " other source(s) (STP is supported for external sources, background "
                          "populations of size 1 and neurons alone on their output channel)");
        return &*m_net.projections[first].stp;
    }

    Need need_of(const std::vector<uint32_t>& members, uint32_t h) const {
        std::vector<uint32_t> cnt(2 * BSS2_COLUMNS, 0);
        Need n;
        for (uint32_t sid : members)
            for (size_t mi : m_src[sid].merged) {
                const Merged& m = m_merged[mi];
                if (m.hemi != h) continue;
                const int t = m.rec == Receptor::inhibitory ? 1 : 0;
                const uint32_t v = ++cnt[t * BSS2_COLUMNS + m.col];
                if (v > n.d[t]) {
                    n.d[t] = v;
                    n.col[t] = m.col;
                    n.proj[t] = m.proj;
                }
            }
        return n;
    }

    void check_rows(const Group& g, uint32_t h, uint32_t max_rows, const std::string& what) const {
        const Need& n = g.need[h];
        if (n.rows() <= max_rows) return;
        const int t = n.d[1] > n.d[0] ? 1 : 0;
        fail_proj(n.proj[t], "hemisphere " + std::to_string(h) + " PADI bus " +
                                 std::to_string(g.bus) + ": " + what + " need " +
                                 std::to_string(n.d[0]) + " excitatory + " +
                                 std::to_string(n.d[1]) + " inhibitory synapse rows (" +
                                 std::to_string(n.d[t]) + " " + (t ? "inhibitory" : "excitatory") +
                                 " for column " + std::to_string(n.col[t]) +
                                 "), a block has at most " + std::to_string(max_rows));
    }

    // ---- driver blocks -------------------------------------------------------------------------
    bool block_free(uint32_t h, uint32_t bus, uint32_t base, uint32_t size) const {
        for (uint32_t i = base; i < base + size; ++i)
            if (m_slot[h][bus][i] >= 0) return false;
        return true;
    }
    void block_take(uint32_t h, uint32_t bus, uint32_t base, uint32_t size, size_t gi) {
        for (uint32_t i = base; i < base + size; ++i) m_slot[h][bus][i] = static_cast<int>(gi);
        m_blocks.push_back({h, bus, base, size, gi});
    }
    uint32_t free_slots(uint32_t h, uint32_t bus) const {
        uint32_t n = 0;
        for (int s : m_slot[h][bus]) n += s < 0 ? 1 : 0;
        return n;
    }

    void build_neuron_groups() {
        for (uint32_t ch = 0; ch < BSS2_NEURON_CHANNELS; ++ch) {
            Group g;
            g.kind = GroupKind::neurons;
            g.channel = ch;
            g.bus = ch % BSS2_PADI_PER_HEMI;
            for (size_t p = 0; p < m_net.populations.size(); ++p)
                for (size_t i = 0; i < m_pl.populations[p].neurons.size(); ++i) {
                    const NeuronSlot& s = m_pl.populations[p].neurons[i];
                    if (bss2_neuron_channel(s.col) != ch) continue;
                    const uint32_t sid = m_first_sid[p] + static_cast<uint32_t>(i);
                    const uint32_t ev = bss2_neuron_event(s.col, s.addr);
                    g.rowsel = bss2_padi_rowsel(ev);
                    g.arriving.push_back(sid);
                    g.label6.push_back(bss2_padi_synlabel(ev));
                    if (!m_src[sid].merged.empty()) g.members.push_back(sid);
                    if (m_net.populations[p].record_spikes) m_record[ch] = true;
                }
            for (uint32_t sid : g.members)
                for (int h = 0; h < 2; ++h) g.used[h] = g.used[h] || m_src[sid].to[h];
            if (!g.used[0] && !g.used[1]) continue;
            const size_t gi = m_groups.size();
            const std::string what = "neurons of output channel " + std::to_string(ch);
            for (uint32_t h = 0; h < 2; ++h) {
                if (!g.used[h]) continue;
                g.need[h] = need_of(g.members, h);
                check_rows(g, h, 2 * BSS2_DRIVERS_PER_BUS, what);
                g.size[h] = pow2_at_least((g.need[h].rows() + 1) / 2);
                const uint32_t base = g.rowsel & ~(g.size[h] - 1);
                if (!block_free(h, g.bus, base, g.size[h])) {
                    for (uint32_t i = base; i < base + g.size[h]; ++i)
                        if (m_slot[h][g.bus][i] >= 0) {
                            const Group& o = m_groups[m_slot[h][g.bus][i]];
                            fail_proj(g.need[h].proj[g.need[h].d[1] > g.need[h].d[0] ? 1 : 0],
                                      "hemisphere " + std::to_string(h) + " PADI bus " +
                                          std::to_string(g.bus) + ": " + what + " need " +
                                          std::to_string(g.need[h].rows()) + " synapse rows and " +
                                          "neurons of channel " + std::to_string(o.channel) +
                                          " need " + std::to_string(o.need[h].rows()) +
                                          "; two channels sharing a bus get at most 32 rows each");
                        }
                }
                g.stp[h] = class_stp(g.members, h, g.arriving.size(), what);
                block_take(h, g.bus, base, g.size[h], gi);
            }
            m_groups.push_back(std::move(g));
        }
    }

    void build_background_groups() {
        bool gen_used[BSS2_BACKGROUND] = {};
        for (size_t p = 0; p < m_net.populations.size(); ++p) {
            const Population& pop = m_net.populations[p];
            if (pop.kind != PopulationKind::background) continue;
            const uint32_t first = m_first_sid[p];
            bool to[2] = {false, false};
            for (size_t i = 0; i < pop.size; ++i)
                for (int h = 0; h < 2; ++h) to[h] = to[h] || m_src[first + i].to[h];
            if (to[0] && to[1])
                fail_pop(p,
                         "background population targets both hemispheres; a background generator "
                         "reaches the "
                         "PADI buses of one hemisphere only (split the population)");
            const uint32_t h = to[1] ? 1 : 0;
            const uint32_t parts = static_cast<uint32_t>(std::max<size_t>(1, pop.size / 64));
            const uint32_t per_part = static_cast<uint32_t>(std::min<size_t>(pop.size, 64));
            // The parts of a large population differ in the low row-select bits only: each needs a
            // one-driver block of its own (labels repeat across parts).
            std::vector<Group> gs(parts);
            uint32_t part_size = 1;
            for (uint32_t q = 0; q < parts; ++q) {
                Group& g = gs[q];
                g.kind = GroupKind::background;
                g.pop = p;
                for (uint32_t i = 0; i < per_part; ++i) {
                    const uint32_t sid = first + q * 64 + i;
                    g.arriving.push_back(sid);
                    g.label6.push_back(i);
                    if (!m_src[sid].merged.empty()) g.members.push_back(sid);
                }
                g.used[h] = to[h];
                if (!to[h]) continue;
                g.need[h] = need_of(g.members, h);
                const std::string what = "background population '" + pop.name + "'" +
                                         (parts > 1 ? " part " + std::to_string(q) : std::string());
                check_rows(g, h, parts > 1 ? 2 : 2 * BSS2_DRIVERS_PER_BUS,
                           parts > 1 ? what + " (its " + std::to_string(parts) +
                                           " parts of 64 repeat the 6-bit labels, so each part "
                                           "gets one driver)"
                                     : what);
                g.size[h] = parts > 1 ? 1 : pow2_at_least((g.need[h].rows() + 1) / 2);
                part_size = std::max(part_size, g.size[h]);
                g.stp[h] = class_stp(g.members, h, g.arriving.size(), what);
            }
            // Generator on the target hemisphere's side whose bus has room; most free bus first.
            int best = -1;
            uint32_t best_base = 0, best_free = 0;
            if (!to[0] && !to[1])  // unconnected: any free generator, no block, no node
                for (uint32_t gen = 0; gen < BSS2_BACKGROUND && best < 0; ++gen)
                    if (!gen_used[gen]) best = static_cast<int>(gen);
            for (uint32_t bus = 0; bus < BSS2_PADI_PER_HEMI && to[h]; ++bus) {
                const uint32_t gen = h * 4 + bus;
                if (gen_used[gen]) continue;
                const uint32_t span = parts > 1 ? parts : part_size;
                for (uint32_t base = 0; base + span <= BSS2_DRIVERS_PER_BUS; base += span)
                    if (block_free(h, bus, base, span)) {
                        const uint32_t f = free_slots(h, bus);
                        if (best < 0 || f > best_free) {
                            best = static_cast<int>(gen);
                            best_base = base;
                            best_free = f;
                        }
                        break;
                    }
            }
            if (best < 0 && !to[0] && !to[1]) fail_pop(p, "all 8 background generators are in use");
            if (best < 0)
                fail_pop(
                    p,
                    "no background generator of hemisphere " + std::to_string(h) +
                        " with a free block of synapse drivers on its PADI bus (4 generators per "
                        "hemisphere, one per bus, " +
                        std::to_string(parts > 1 ? parts : part_size) + " drivers needed)");
            gen_used[best] = true;
            BackgroundCfg& bg = m_pl.populations[p].background;
            bg.index = static_cast<uint32_t>(best);
            bg.poisson = pop.poisson;
            bg.mask = static_cast<uint32_t>(pop.size - 1);
            bg.label = best_base << BSS2_PADI_ROWSEL_SHIFT;
            set_rate(p, bg);
            for (size_t i = 0; i < pop.size; ++i)
                m_pl.populations[p].labels.push_back(bg.label | static_cast<uint32_t>(i));
            if (!to[h]) continue;
            for (uint32_t q = 0; q < parts; ++q) {
                Group& g = gs[q];
                g.bus = static_cast<uint32_t>(best) % 4;
                g.rowsel = best_base + q;
                const size_t gi = m_groups.size();
                block_take(h, g.bus, g.rowsel & ~(g.size[h] - 1), g.size[h], gi);
                m_groups.push_back(std::move(g));
            }
            m_bg_nodes.push_back(static_cast<uint32_t>(best));
        }
    }

    void set_rate(size_t p, BackgroundCfg& bg) const {
        const Population& pop = m_net.populations[p];
        const std::string why =
            background_setting(pop.rate_hz, pop.size, pop.poisson, &bg.period, &bg.rate);
        if (!why.empty()) fail_pop(p, why);
    }

    // ---- external sources
    // -------------------------------------------------------------------------
    struct Chunk {
        std::vector<uint32_t> members;
        std::vector<uint32_t> cnt[2];  // [h]: 2 * 256 counters (type * 256 + col)
        uint32_t d[2][2] = {{0, 0}, {0, 0}};
        bool stp = false;
    };

    uint32_t delta_rows(const Chunk& c, uint32_t sid, uint32_t* new_rows) const {
        uint32_t nd[2][2] = {{c.d[0][0], c.d[0][1]}, {c.d[1][0], c.d[1][1]}};
        for (size_t mi : m_src[sid].merged) {
            const Merged& m = m_merged[mi];
            const int t = m.rec == Receptor::inhibitory ? 1 : 0;
            const uint32_t v =
                c.cnt[m.hemi].empty() ? 1 : c.cnt[m.hemi][t * BSS2_COLUMNS + m.col] + 1;
            nd[m.hemi][t] = std::max(nd[m.hemi][t], v);
        }
        uint32_t delta = 0;
        for (int h = 0; h < 2; ++h) {
            delta += nd[h][0] + nd[h][1] - c.d[h][0] - c.d[h][1];
            new_rows[h] = nd[h][0] + nd[h][1];
        }
        return delta;
    }
    void chunk_add(Chunk& c, uint32_t sid) const {
        c.members.push_back(sid);
        for (size_t mi : m_src[sid].merged) {
            const Merged& m = m_merged[mi];
            const int t = m.rec == Receptor::inhibitory ? 1 : 0;
            if (c.cnt[m.hemi].empty()) c.cnt[m.hemi].assign(2 * BSS2_COLUMNS, 0);
            const uint32_t v = ++c.cnt[m.hemi][t * BSS2_COLUMNS + m.col];
            c.d[m.hemi][t] = std::max(c.d[m.hemi][t], v);
        }
    }

    void build_external_groups() {
        // 1. Pack external sources into chunks (one synapse-driver class each): a source joins the
        //    chunk where it adds the fewest rows, unless a chunk of its own would cost less.
        std::vector<Chunk> chunks;
        for (uint32_t sid = 0; sid < m_src.size(); ++sid) {
            const Src& s = m_src[sid];
            if (s.kind != PopulationKind::external || s.merged.empty()) continue;
            bool stp = false;
            for (size_t mi : s.merged) stp = stp || m_merged[mi].stp_proj >= 0;
            if (stp) {
                Chunk c;
                c.stp = true;
                chunk_add(c, sid);
                chunks.push_back(std::move(c));
                continue;
            }
            Chunk alone;
            uint32_t alone_rows[2];
            const uint32_t own = delta_rows(alone, sid, alone_rows);
            int best = -1;
            uint32_t best_delta = 0;
            for (size_t ci = 0; ci < chunks.size(); ++ci) {
                const Chunk& c = chunks[ci];
                if (c.stp || c.members.size() >= 64) continue;
                uint32_t rows[2];
                const uint32_t d = delta_rows(c, sid, rows);
                if (rows[0] > 2 * BSS2_DRIVERS_PER_BUS || rows[1] > 2 * BSS2_DRIVERS_PER_BUS)
                    continue;
                if (best < 0 || d < best_delta) {
                    best_delta = d;
                    best = static_cast<int>(ci);
                }
                if (d == 0) break;
            }
            if (best >= 0 && best_delta > own) best = -1;  // a chunk of its own costs fewer rows
            if (best < 0) {
                chunk_add(alone, sid);
                chunks.push_back(std::move(alone));
            } else {
                chunk_add(chunks[best], sid);
            }
        }
        // 2. Allocate blocks, largest first; a chunk that fits nowhere is split in halves.
        struct Todo {
            std::vector<uint32_t> members;
            bool stp = false;
            uint32_t rows = 0;  // max over hemispheres
        };
        std::vector<Todo> todo;
        auto push = [&](std::vector<uint32_t> members, bool stp) {
            Todo t;
            t.rows = std::max(need_of(members, 0).rows(), need_of(members, 1).rows());
            t.members = std::move(members);
            t.stp = stp;
            todo.push_back(std::move(t));
        };
        for (Chunk& c : chunks) push(std::move(c.members), c.stp);
        while (!todo.empty()) {
            // largest first (ties: declaration order)
            size_t pick = 0;
            for (size_t i = 1; i < todo.size(); ++i)
                if (todo[i].rows > todo[pick].rows) pick = i;
            Todo t = std::move(todo[pick]);
            todo.erase(todo.begin() + static_cast<std::ptrdiff_t>(pick));
            if (place_external(t.members, t.stp)) continue;
            if (t.members.size() == 1) {
                const uint32_t sid = t.members[0];
                const Need n0 = need_of(t.members, 0), n1 = need_of(t.members, 1);
                const Need& n = n1.rows() > n0.rows() ? n1 : n0;
                uint32_t proj = n.proj[n.d[1] > n.d[0] ? 1 : 0];
                if (proj == kNoProj) proj = m_merged[m_src[sid].merged[0]].proj;
                fail_proj(proj, "external source " + src_name(sid) + " needs " +
                                    std::to_string(n0.rows()) +
                                    " synapse rows in hemisphere 0 and " +
                                    std::to_string(n1.rows()) +
                                    " in hemisphere 1, but no PADI bus has a free block of synapse "
                                    "drivers left "
                                    "(each bus has 64 rows per hemisphere)");
            }
            const auto half = t.members.begin() + static_cast<std::ptrdiff_t>(t.members.size() / 2);
            push(std::vector<uint32_t>(t.members.begin(), half), t.stp);
            push(std::vector<uint32_t>(half, t.members.end()), t.stp);
        }
    }

    bool place_external(const std::vector<uint32_t>& members, bool stp) {
        Group g;
        g.kind = GroupKind::external;
        g.members = members;
        g.arriving = members;
        for (uint32_t sid : members)
            for (int h = 0; h < 2; ++h) g.used[h] = g.used[h] || m_src[sid].to[h];
        const std::string what = members.size() == 1
                                     ? "external source " + src_name(members[0])
                                     : std::to_string(members.size()) + " external sources";
        for (uint32_t h = 0; h < 2; ++h) {
            if (!g.used[h]) continue;
            g.need[h] = need_of(members, h);
            check_rows(g, h, 2 * BSS2_DRIVERS_PER_BUS, what);
            g.size[h] = pow2_at_least((g.need[h].rows() + 1) / 2);
            if (stp) g.stp[h] = class_stp(members, h, 1, what);
        }
        // Bus with the most free drivers (summed over the hemispheres used) where a row select
        // exists whose aligned block is free in every hemisphere used; lowest such row select.
        int best_bus = -1;
        uint32_t best_rs = 0, best_free = 0;
        const uint32_t step = std::min(g.used[0] ? g.size[0] : 32u, g.used[1] ? g.size[1] : 32u);
        for (uint32_t bus = 0; bus < BSS2_PADI_PER_HEMI; ++bus) {
            uint32_t f = 0;
            for (uint32_t h = 0; h < 2; ++h)
                if (g.used[h]) f += free_slots(h, bus);
            if (best_bus >= 0 && f <= best_free) continue;
            for (uint32_t rs = 0; rs < BSS2_DRIVERS_PER_BUS; rs += step) {
                bool ok = true;
                for (uint32_t h = 0; h < 2 && ok; ++h)
                    if (g.used[h]) ok = block_free(h, bus, rs & ~(g.size[h] - 1), g.size[h]);
                if (ok) {
                    best_bus = static_cast<int>(bus);
                    best_rs = rs;
                    best_free = f;
                    break;
                }
            }
        }
        if (best_bus < 0) return false;
        g.bus = static_cast<uint32_t>(best_bus);
        g.rowsel = best_rs;
        const size_t gi = m_groups.size();
        for (uint32_t h = 0; h < 2; ++h)
            if (g.used[h]) block_take(h, g.bus, g.rowsel & ~(g.size[h] - 1), g.size[h], gi);
        for (uint32_t k = 0; k < members.size(); ++k) {
            g.label6.push_back(k);
            const Src& s = m_src[members[k]];
            const uint32_t label14 = (s.to[0] ? 1u << 13 : 0u) | (s.to[1] ? 1u << 12 : 0u) |
                                     (g.rowsel << BSS2_PADI_ROWSEL_SHIFT) | k;
            m_ext_event[members[k]] = bss2_l2_event(g.bus, label14);
        }
        m_groups.push_back(std::move(g));
        return true;
    }

    // ---- configuration
    // ---------------------------------------------------------------------------
    void add_node(uint32_t in, uint32_t out, uint32_t mask, uint32_t target) {
        for (const XbarNodeCfg& n : m_pl.nodes)
            if (n.in == in && n.out == out) return;
        m_pl.nodes.push_back({in, out, mask, target});
        if (out < 8) m_buses.insert(out);
    }

    void emit() {
        // External events (sources without connections get an event that no node forwards).
        for (size_t p = 0; p < m_net.populations.size(); ++p) {
            if (m_net.populations[p].kind != PopulationKind::external) continue;
            for (size_t i = 0; i < m_net.populations[p].size; ++i) {
                const auto it = m_ext_event.find(m_first_sid[p] + static_cast<uint32_t>(i));
                m_pl.populations[p].l2_events.push_back(it == m_ext_event.end() ? 0u : it->second);
            }
        }
        // Nodes.
        for (const Group& g : m_groups)
            for (uint32_t h = 0; h < 2; ++h) {
                if (!g.used[h]) continue;
                if (g.kind == GroupKind::neurons)
                    add_node(BSS2_XIN_NEURON(g.channel), BSS2_XOUT_PADI(h, g.bus), 0, 0);
                if (g.kind == GroupKind::external) {
                    const uint32_t bit = h == 0 ? 1u << 13 : 1u << 12;
                    add_node(BSS2_XIN_L2(g.bus), BSS2_XOUT_PADI(h, g.bus), bit, bit);
                }
            }
        for (uint32_t i : m_bg_nodes) add_node(BSS2_XIN_BG(i), i, 0, 0);
        for (uint32_t ch = 0; ch < BSS2_NEURON_CHANNELS; ++ch)
            if (m_record[ch]) add_node(BSS2_XIN_NEURON(ch), BSS2_XOUT_L2(ch % 4), 0, 0);
        for (size_t p = 0; p < m_net.populations.size(); ++p) {
            if (m_net.populations[p].kind != PopulationKind::internal ||
                !m_net.populations[p].record_spikes)
                continue;
            for (size_t i = 0; i < m_pl.populations[p].neurons.size(); ++i) {
                const NeuronSlot& s = m_pl.populations[p].neurons[i];
                const uint32_t ch = bss2_neuron_channel(s.col);
                m_pl.output_events[(ch % 4) << BSS2_L2_CHANNEL_SHIFT |
                                   bss2_neuron_event(s.col, s.addr)] = {p, i};
            }
        }
        // Blocks in a canonical order: hemisphere, bus, driver.
        std::sort(m_blocks.begin(), m_blocks.end(), [](const Block& a, const Block& b) {
            return std::tie(a.h, a.bus, a.base) < std::tie(b.h, b.bus, b.base);
        });
        for (const Block& b : m_blocks) emit_block(b);
        m_pl.padi_buses.assign(m_buses.begin(), m_buses.end());
        for (const Merged& m : m_merged)
            for (const auto& [j, ci] : m.conns) m_pl.projections[j].synapses[ci] = m.synapse;
    }

    struct Block {
        uint32_t h, bus, base, size;
        size_t group;
    };

    void emit_block(const Block& b) {
        const Group& g = m_groups[b.group];
        const Need& n = g.need[b.h];
        std::vector<uint32_t> rows;
        for (uint32_t i = b.base; i < b.base + b.size; ++i) {
            const uint32_t d = i * BSS2_PADI_PER_HEMI + b.bus;
            rows.push_back(2 * d);
            rows.push_back(2 * d + 1);
        }
        // Rows: first D_exc excitatory, then D_inh inhibitory, the rest unused.
        for (uint32_t i = b.base; i < b.base + b.size; ++i) {
            DriverCfg dc;
            dc.hemi = b.h;
            dc.driver = i * BSS2_PADI_PER_HEMI + b.bus;
            dc.row_mask = 0x1Fu & ~(b.size - 1);
            dc.lower5 = true;
            bool any = false;
            for (uint32_t r = 0; r < 2; ++r) {
                const uint32_t k = 2 * (i - b.base) + r;
                dc.mode[r] = k < n.d[0]     ? BSS2_ROW_EXCITATORY
                             : k < n.rows() ? BSS2_ROW_INHIBITORY
                                            : BSS2_ROW_DISABLED;
                any = any || dc.mode[r] != BSS2_ROW_DISABLED;
            }
            if (!any) continue;
            if (const Stp* stp = g.stp[b.h]) {
                dc.stp = true;
                dc.stp_u = stp->u;
                dc.stp_tau_rec = stp->tau_rec;
            }
            m_pl.drivers.push_back(dc);
        }
        std::unordered_map<uint32_t, uint32_t> lab;
        bool label_used[64] = {};
        for (size_t k = 0; k < g.arriving.size(); ++k) {
            lab[g.arriving[k]] = g.label6[k];
            label_used[g.label6[k]] = true;
        }
        uint32_t filler = 0;
        while (filler < 64 && label_used[filler]) ++filler;
        if (filler == 64) filler = 0;  // every label arrives: weight 0 makes the cell inert
        // Cells: the t-th source with an x-type connection to a column takes the t-th x row.
        std::vector<uint32_t> next(2 * BSS2_COLUMNS, 0);
        std::vector<int> cell(n.rows() * BSS2_COLUMNS, -1);
        for (uint32_t sid : g.members)
            for (size_t mi : m_src[sid].merged) {
                Merged& m = m_merged[mi];
                if (m.hemi != b.h) continue;
                const int t = m.rec == Receptor::inhibitory ? 1 : 0;
                const uint32_t k = (t ? n.d[0] : 0) + next[t * BSS2_COLUMNS + m.col]++;
                SynapseCfg s;
                s.hemi = b.h;
                s.row = rows[k];
                s.col = m.col;
                s.weight = m.weight;
                s.label = lab.at(sid);
                m.synapse = m_pl.synapses.size();
                cell[k * BSS2_COLUMNS + m.col] = static_cast<int>(m.synapse);
                m_pl.synapses.push_back(s);
            }
        for (uint32_t k = 0; k < n.rows(); ++k)
            for (uint32_t c = 0; c < BSS2_COLUMNS; ++c)
                if (cell[k * BSS2_COLUMNS + c] < 0)
                    m_pl.synapses.push_back({b.h, rows[k], c, 0, filler});
    }

    const Network& m_net;
    Placement m_pl;
    std::vector<uint32_t> m_first_sid;
    std::vector<Src> m_src;
    std::vector<Merged> m_merged;
    std::vector<Group> m_groups;
    std::vector<Block> m_blocks;
    // Owner group of each (hemisphere, bus, static index) driver slot, -1 = free.
    int m_slot[2][BSS2_PADI_PER_HEMI][BSS2_DRIVERS_PER_BUS];
    bool m_record[BSS2_NEURON_CHANNELS] = {};
    std::vector<uint32_t> m_bg_nodes;
    std::unordered_map<uint32_t, uint32_t> m_ext_event;
    std::set<uint32_t> m_buses;
};

}  // namespace

Placement map_and_route(const Network& net, const RouteOptions& opt) {
    (void)opt;  // the router makes no random choices: every tie is broken by declaration order
    Router r(net);
    return r.run();
}

}  // namespace nmsim::compiler::bss2
