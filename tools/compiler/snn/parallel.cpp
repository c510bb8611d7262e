// The parallel-paradigm compiler (parallel.h, docs/snn_parallel.md): weight-delay map, its four
// optimisations, the two-stage split, the images of the dominant and the subordinates, Table I.
#include "tools/compiler/snn/parallel.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <numeric>
#include <stdexcept>

#include "nmsim/hw/spinnaker2/noc_map.h"
#include "tools/compiler/snn/image.h"

namespace nmsim::compiler::snn {
namespace {

constexpr uint32_t kArgsBytes = S2_SRAM_SIZE - S2_ARGS_BASE;
constexpr uint32_t kReserveBytes = S2_SNN_STACK_BYTES + kArgsBytes;

uint32_t align16(uint64_t v) {
    return static_cast<uint32_t>((v + S2_SNN_ALIGN - 1) & ~uint64_t{S2_SNN_ALIGN - 1});
}
uint32_t even(uint32_t v) { return (v + 1u) & ~1u; }
uint32_t next_pow2(uint32_t v) {
    uint32_t p = 1;
    while (p < v) p <<= 1;
    return p;
}

// One synapse entry of a map row: column 2 * target + type, weight 1 .. 127.
struct Entry {
    uint32_t col = 0, w = 0;
    bool operator<(const Entry& o) const { return col != o.col ? col < o.col : w < o.w; }
    bool operator==(const Entry& o) const { return col == o.col && w == o.w; }
};
using Entries = std::vector<Entry>;

// The map after the dominant's optimisations (O1 rows, O3 merging): global rows.
struct GlobalMap {
    std::vector<uint32_t> delays;
    std::vector<uint32_t> delay_row_lo;  // per delay index: first row; [n_delays + 1]
    std::vector<uint16_t> row_of;        // [n_delays][stride]
    uint32_t stride = 0;
    std::vector<Entries> rows;  // sorted by column
    std::vector<uint32_t> row_delay, row_mult;
    std::vector<std::vector<uint32_t>> target_delay_synapses;  // [target][delay index]
};

[[noreturn]] void fail(const ParLayer& l, const std::string& what, const std::string& structure,
                       uint64_t needed, uint64_t available) {
    throw CompileError("layer '" + l.name + "': " + what, l.name, structure, needed, available);
}

GlobalMap build_global(const ParLayer& l, const MapOptimisations& o) {
    if (l.n_sources == 0 || l.n_targets == 0)
        fail(l, "a layer needs at least one source and one target", "layer", 1, 0);
    if (l.n_targets > S2_SNNP_MAX_TARGETS)
        fail(l,
             std::to_string(l.n_targets) + " targets, a dominant PE holds at most " +
                 std::to_string(S2_SNNP_MAX_TARGETS),
             "neurons", l.n_targets, S2_SNNP_MAX_TARGETS);
    uint32_t max_delay = 1;
    std::vector<bool> used(kMaxDelay + 1, false);
    for (const Synapse& s : l.synapses) {
        if (s.pre >= l.n_sources || s.post >= l.n_targets || s.weight > kMaxWeight || s.delay < 1 ||
            s.delay > kMaxDelay)
            fail(l,
                 "synapse " + std::to_string(s.pre) + " -> " + std::to_string(s.post) +
                     " outside the layer or its weight/delay range",
                 "synapse", 0, 0);
        if (s.weight == 0) continue;  // adds nothing (serial: a zero add)
        max_delay = std::max(max_delay, s.delay);
        used[s.delay] = true;
    }
    GlobalMap g;
    for (uint32_t d = 1; d <= max_delay; ++d)
        if (used[d] || !o.zero_rows) g.delays.push_back(d);
    if (g.delays.empty()) g.delays.push_back(1);
    std::vector<uint32_t> dindex(kMaxDelay + 1, 0);
    for (uint32_t k = 0; k < g.delays.size(); ++k) dindex[g.delays[k]] = k;
    const uint32_t nd = static_cast<uint32_t>(g.delays.size());

    std::vector<Entries> raw(uint64_t{nd} * l.n_sources);
    g.target_delay_synapses.assign(l.n_targets, std::vector<uint32_t>(nd, 0));
    for (const Synapse& s : l.synapses) {
        if (s.weight == 0) continue;
        const uint32_t k = dindex[s.delay];
        raw[uint64_t{k} * l.n_sources + s.pre].push_back(
            {2 * s.post + static_cast<uint32_t>(s.type), s.weight});
        ++g.target_delay_synapses[s.post][k];
    }
    g.stride = even(l.n_sources);
    g.row_of.assign(uint64_t{nd} * g.stride, S2_SNNP_NO_ROW);
    for (uint32_t k = 0; k < nd; ++k) {
        g.delay_row_lo.push_back(static_cast<uint32_t>(g.rows.size()));
        std::map<Entries, uint32_t> seen;  // O3: identical rows of this delay
        for (uint32_t i = 0; i < l.n_sources; ++i) {
            Entries& e = raw[uint64_t{k} * l.n_sources + i];
            std::sort(e.begin(), e.end());
            // Duplicate synapses (same pre, post, delay, type) add up, as in the serial paradigm.
            Entries merged;
            for (const Entry& x : e) {
                if (!merged.empty() && merged.back().col == x.col)
                    merged.back().w += x.w;
                else
                    merged.push_back(x);
            }
            for (const Entry& x : merged)
                if (x.w > kMaxWeight)
                    fail(l,
                         "synapses " + std::to_string(i) + " -> " + std::to_string(x.col / 2) +
                             " of delay " + std::to_string(g.delays[k]) + " sum to weight " +
                             std::to_string(x.w) + ", the map's int8 operand holds 127",
                         "weight-delay map", x.w, kMaxWeight);
            if (merged.empty() && o.zero_rows) continue;  // O1
            uint32_t row = 0;
            auto it = o.merge_rows ? seen.find(merged) : seen.end();
            if (it != seen.end() && g.row_mult[it->second] < S2_SNNP_MAX_MULT) {
                row = it->second;
                ++g.row_mult[row];
            } else {
                row = static_cast<uint32_t>(g.rows.size());
                if (row >= S2_SNNP_MAX_ROWS)
                    fail(l,
                         "the weight-delay map needs more than " +
                             std::to_string(S2_SNNP_MAX_ROWS - 1) + " rows",
                         "weight-delay map", row + 1ull, S2_SNNP_MAX_ROWS - 1);
                if (o.merge_rows) seen[merged] = row;
                g.rows.push_back(std::move(merged));
                g.row_delay.push_back(g.delays[k]);
                g.row_mult.push_back(1);
            }
            g.row_of[uint64_t{k} * g.stride + i] = static_cast<uint16_t>(row);
        }
    }
    g.delay_row_lo.push_back(static_cast<uint32_t>(g.rows.size()));
    return g;
}

// Layout of a subordinate image (SRAM addresses relative to S2_SNN_IMAGE_BASE).
struct SubLayout {
    uint32_t counters, raw, gather_start, gather, x, map, c, col_of, out, size;
};
SubLayout sub_layout(uint32_t row_count, uint32_t k, uint32_t n_gather, uint32_t n_cols,
                     uint32_t targets) {
    SubLayout s{};
    uint32_t at = align16(sizeof(s2_snnp_subordinate_t));
    auto place = [&](uint64_t bytes) {
        const uint32_t a = at;
        at = align16(at + bytes);
        return a;
    };
    s.counters = place(sizeof(s2_snn_counters_t));
    s.raw = place((row_count + 3u) & ~3u);
    s.gather_start = place(2ull * (k + 1));
    s.gather = place(2ull * n_gather);
    s.x = place(k);
    s.map = place(uint64_t{k} * n_cols);
    s.c = place(2ull * n_cols);
    s.col_of = place(2ull * 2 * even(targets));
    s.out = place(2ull * 2 * even(targets) + 4);  // + the tick stamp word
    s.size = at;
    return s;
}

// Builds the block of targets [j0, j1) and global rows [r0, r1) with O1, O2, O4 applied locally
// (O3 locally: rows identical within the block are gathered into one x).
SubordinateMap build_block(const GlobalMap& g, uint32_t j0, uint32_t j1, uint32_t r0, uint32_t r1,
                           const MapOptimisations& o) {
    SubordinateMap b;
    b.target_lo = j0;
    b.target_count = j1 - j0;
    b.row_lo = r0;
    b.row_count = r1 - r0;
    b.delay_lo = r1 > r0 ? g.row_delay[r0] : 0;
    b.delay_hi = r1 > r0 ? g.row_delay[r1 - 1] : 0;
    const uint32_t c0 = 2 * j0, c1 = 2 * j1;
    struct Local {
        const Entry* lo;
        const Entry* hi;
        uint32_t mult;
        std::vector<uint16_t> members;
    };
    std::vector<Local> locals;
    std::map<Entries, uint32_t> seen;
    for (uint32_t r = r0; r < r1; ++r) {
        const Entries& e = g.rows[r];
        const Entry* lo = std::lower_bound(e.data(), e.data() + e.size(), Entry{c0, 0});
        const Entry* hi = std::lower_bound(e.data(), e.data() + e.size(), Entry{c1, 0});
        b.synapses += static_cast<uint32_t>(hi - lo) * g.row_mult[r];
        if (lo == hi && o.zero_rows) continue;  // O1 in the block
        if (o.merge_rows) {
            Entries key(lo, hi);
            for (Entry& x : key) x.col -= c0;
            auto it = seen.find(key);
            if (it != seen.end() && locals[it->second].mult + g.row_mult[r] <= S2_SNNP_MAX_MULT) {
                locals[it->second].mult += g.row_mult[r];
                locals[it->second].members.push_back(static_cast<uint16_t>(r - r0));
                continue;
            }
            seen[key] = static_cast<uint32_t>(locals.size());
        }
        locals.push_back({lo, hi, g.row_mult[r], {static_cast<uint16_t>(r - r0)}});
    }
    b.k_rows = static_cast<uint32_t>(locals.size());
    b.gather_start.push_back(0);
    for (const Local& L : locals) {
        b.gather.insert(b.gather.end(), L.members.begin(), L.members.end());
        b.gather_start.push_back(static_cast<uint16_t>(b.gather.size()));
    }
    // Columns: (local row, weight) lists per (type, target).
    std::vector<std::vector<std::pair<uint32_t, uint32_t>>> cols(c1 - c0);
    for (uint32_t k = 0; k < locals.size(); ++k)
        for (const Entry* x = locals[k].lo; x != locals[k].hi; ++x)
            cols[x->col - c0].push_back({k, x->w});
    const uint32_t stride = even(b.target_count);
    b.col_of.assign(2ull * stride, S2_SNNP_NO_COL);
    std::map<std::vector<std::pair<uint32_t, uint32_t>>, uint32_t> seen_cols;
    std::vector<uint32_t> rep;  // a representative (type, target) column per local column
    for (uint32_t c = 0; c < c1 - c0; ++c) {
        if (cols[c].empty() && o.zero_cols) continue;  // O2
        uint32_t col = 0;
        auto it = o.merge_cols ? seen_cols.find(cols[c]) : seen_cols.end();
        if (it != seen_cols.end()) {
            col = it->second;  // O4
        } else {
            col = static_cast<uint32_t>(rep.size());
            rep.push_back(c);
            if (o.merge_cols) seen_cols[cols[c]] = col;
        }
        b.col_of[(c & 1u) * stride + c / 2] = static_cast<uint16_t>(col);
    }
    b.n_cols = static_cast<uint32_t>(rep.size());
    b.map.assign(uint64_t{b.k_rows} * b.n_cols, 0);
    for (uint32_t n = 0; n < b.n_cols; ++n) {
        uint64_t sum = 0;
        for (const auto& [k, w] : cols[rep[n]]) {
            b.map[uint64_t{k} * b.n_cols + n] = static_cast<int8_t>(w);
            sum += uint64_t{locals[k].mult} * w;
        }
        b.max_column_sum = std::max(b.max_column_sum, sum);
    }
    b.image_bytes = sub_layout(b.row_count, b.k_rows, static_cast<uint32_t>(b.gather.size()),
                               b.n_cols, b.target_count)
                        .size;
    return b;
}

// Contiguous partition of w into `parts` non-empty ranges with sums as equal as the greedy
// prefix allows; returns the boundaries (parts + 1 values, first 0, last w.size()).
std::vector<uint32_t> partition(const std::vector<uint64_t>& w, uint32_t parts) {
    const uint32_t n = static_cast<uint32_t>(w.size());
    parts = std::max(1u, std::min(parts, n));
    std::vector<uint64_t> cum(n + 1, 0);
    for (uint32_t i = 0; i < n; ++i) cum[i + 1] = cum[i] + w[i];
    std::vector<uint32_t> b{0};
    for (uint32_t k = 1; k < parts; ++k) {
        const double target = static_cast<double>(cum[n]) * k / parts;
        uint32_t lo = b.back() + 1, hi = n - (parts - k);
        uint32_t best = lo;
        for (uint32_t i = lo; i <= hi; ++i)
            if (std::abs(static_cast<double>(cum[i]) - target) <
                std::abs(static_cast<double>(cum[best]) - target))
                best = i;
        b.push_back(best);
    }
    b.push_back(n);
    return b;
}

// Dominant layout.
struct DomLayout {
    uint32_t counters, params, state, keys, record_v_index, record_stage, spike_buffer, src_table,
        fanout, delays, hist, row_of, stacked, subs, partial, size;
    uint32_t hist_slots, hist_words, stacked_bytes, record_words, partial_words;
};
DomLayout dom_layout(const ParLayer& l, const GlobalMap& g, uint32_t n_subs, uint32_t partial_words,
                     uint32_t spike_buffer_entries, uint32_t src_count) {
    DomLayout d{};
    uint32_t at = align16(sizeof(s2_snnp_dominant_t));
    auto place = [&](uint64_t bytes) {
        const uint32_t a = at;
        at = align16(at + bytes);
        return a;
    };
    const uint32_t nd = static_cast<uint32_t>(g.delays.size());
    d.hist_slots = next_pow2(g.delays.back() + 1);
    d.hist_words = (l.n_sources + 31) / 32;
    d.stacked_bytes = (static_cast<uint32_t>(g.rows.size()) + 3u) & ~3u;
    d.record_words =
        record_words(l.n_targets, l.record_spikes, static_cast<uint32_t>(l.record_v.size()));
    d.partial_words = partial_words;
    d.counters = place(sizeof(s2_snn_counters_t));
    d.params = place(sizeof(s2_snn_lif_params_t));
    d.state = place(uint64_t{sizeof(s2_snn_neuron_state_t)} * l.n_targets);
    d.keys = place(4ull * l.n_targets);
    d.record_v_index = place(4ull * l.record_v.size());
    d.record_stage = place(4ull * d.record_words);
    d.spike_buffer = place(4ull * spike_buffer_entries);
    d.src_table = place(uint64_t{sizeof(s2_snnp_src_entry_t)} * src_count);
    d.fanout = place(4ull * l.n_sources);
    d.delays = place(4ull * nd);
    d.hist = place(4ull * d.hist_slots * d.hist_words);
    d.row_of = place(2ull * nd * g.stride);
    d.stacked = place(d.stacked_bytes);
    d.subs = place(uint64_t{sizeof(s2_snnp_sub_entry_t)} * n_subs);
    d.partial = place(4ull * partial_words);
    d.size = at;
    return d;
}

template <class T>
void put(std::vector<uint8_t>& img, uint32_t off, const T& v) {
    std::memcpy(img.data() + off, &v, sizeof v);
}

uint32_t global_sram(uint32_t pe, uint32_t local) {
    // Global address of `local` in PE `pe`'s SRAM (noc_map.h: node id = pe << 6 | qy << 3 | qx).
    const uint32_t q = pe / S2_NOC_PES_PER_QPE, p = pe % S2_NOC_PES_PER_QPE;
    uint32_t idx = 0, qx = 0, qy = 0;
    for (uint32_t x = S2_NOC_QX_MIN; x <= S2_NOC_QX_MAX; ++x)
        for (uint32_t y = S2_NOC_QY_MIN; y <= S2_NOC_QY_MAX; ++y)
            if (s2_qpe_exists(x, y) && idx++ == q) {
                qx = x;
                qy = y;
            }
    const uint32_t node =
        (p << S2_NOC_NODE_PE_SHIFT) | (qy << S2_NOC_NODE_QY_SHIFT) | (qx << S2_NOC_NODE_QX_SHIFT);
    return S2_PE_GLOBAL_BASE | (node << S2_PE_GLOBAL_NODE_SHIFT) | local;
}

std::vector<s2_snnp_src_entry_t> default_src_table(uint32_t n_sources) {
    std::vector<s2_snnp_src_entry_t> t;
    for (uint32_t first = 0, v = 0; first < n_sources; first += 256, ++v)
        t.push_back({v << S2_SNN_KEY_VERTEX_SHIFT, S2_SNN_KEY_VERTEX_MASK, first});
    return t;
}

}  // namespace

std::vector<TableIItem> table1_dominant_model(uint32_t n_source, uint32_t n_target,
                                              uint32_t delay_range, uint32_t n_source_vertex) {
    const uint64_t s = n_source, d = delay_range;
    return {
        {"input spike buffer", 4 * s, 0},
        {"reversed order", 2 * s * d, 0},
        {"input merging table", 3 * s * d, 0},
        {"stacked input", 4 * s * d, 0},
        // The seed prints 4 n n max_connected_rate here, the serial synaptic matrix's formula
        // (a copy slip: the dominant holds no synapses); nmsim uses the serial LIF item.
        {"neuron and synapse model", 4ull * (8 + 6), 0},
        {"output recording", 4ull * n_target * 4, 0},
        {"stack & heap", 12ull * n_source_vertex, 0},
        {"hw mgmt & OS", 6000, 0},
        {"subordinate inputs (not in the seed)", 0, 0},
    };
}

std::vector<TableIItem> table1_subordinate_model(uint32_t n_neuron, uint32_t delay_range,
                                                 uint32_t n_source_vertex) {
    return {
        {"optimized weight delay map", 0, 0},  // "can't be accurately estimated": measured
        {"output recording", 2ull * n_neuron * delay_range * 2, 0},
        {"stack & heap", 12ull * n_source_vertex, 0},
        {"hw mgmt & OS", 6000, 0},
        {"stacked input slice (not in the seed)", 0, 0},
    };
}

std::string format_par_table1(const ParPeReport& r) {
    char line[160];
    std::snprintf(line, sizeof line, "PE %u %s%s\n", r.pe, r.dominant ? "dominant" : "subordinate ",
                  r.dominant ? "" : std::to_string(r.index).c_str());
    return line + format_table1_items(r.items, r.model_total, r.actual_total, r.budget_bytes, 38);
}

MapSavings map_savings(const ParLayer& layer) {
    MapSavings s;
    for (int stage = 0; stage < 5; ++stage) {
        MapOptimisations o{stage >= 1, stage >= 2, stage >= 3, stage >= 4};
        const GlobalMap g = build_global(layer, o);
        const SubordinateMap b =
            build_block(g, 0, layer.n_targets, 0, static_cast<uint32_t>(g.rows.size()), o);
        s.rows[stage] = b.k_rows;
        s.cols[stage] = b.n_cols;
        s.bytes[stage] = uint64_t{b.k_rows} * b.n_cols;
    }
    return s;
}

ParCompiled compile_parallel_layer(const ParLayer& layer, const ParOptions& opt) {
    if (opt.dtcm_bytes < 8192 || opt.dtcm_bytes > S2_SNN_DTCM_BYTES)
        throw std::invalid_argument("snn parallel compile: dtcm_bytes outside 8 KiB..96 KiB");
    if (opt.acc_bits < 16 || opt.acc_bits > 48)
        throw std::invalid_argument("snn parallel compile: acc_bits outside 16..48");
    if (opt.spike_buffer_entries == 0 ||
        (opt.spike_buffer_entries & (opt.spike_buffer_entries - 1)) != 0)
        throw std::invalid_argument("snn parallel compile: spike_buffer_entries not a power of 2");
    if (!layer.target_keys.empty() && layer.target_keys.size() != layer.n_targets)
        throw std::invalid_argument("snn parallel compile: target_keys must have n_targets keys");
    for (uint32_t j : layer.record_v)
        if (j >= layer.n_targets)
            throw std::invalid_argument("snn parallel compile: record_v index " +
                                        std::to_string(j) + " >= n_targets");
    ParCompiled c;
    c.options = opt;
    // The dominant receives every spike of the layer (the serial paradigm spreads them over the
    // population's PEs): its buffer holds one tick's keys of every source, at least the option's.
    c.options.spike_buffer_entries = std::max(c.options.spike_buffer_entries,
                                              next_pow2(std::min<uint32_t>(layer.n_sources, 4096)));
    c.n_sources = layer.n_sources;
    c.n_targets = layer.n_targets;
    const GlobalMap g = build_global(layer, opt.opt);
    c.delays = g.delays;
    c.row_of = g.row_of;
    c.row_of_stride = g.stride;
    c.n_rows = static_cast<uint32_t>(g.rows.size());
    c.row_delay = g.row_delay;
    c.row_mult = g.row_mult;
    const uint64_t budget = opt.dtcm_bytes - kReserveBytes;
    const uint64_t acc_limit = (uint64_t{1} << (opt.acc_bits - 1)) - 1;
    const uint32_t nd = static_cast<uint32_t>(g.delays.size());

    // Two-stage split (docs/snn_parallel.md, "Split"): targets into g balanced ranges (stage 1,
    // spatial); a range whose block does not fit is split into h balanced delay ranges (stage 2,
    // temporal); if even one delay per PE does not fit, g grows.
    std::vector<uint64_t> per_target(layer.n_targets, 0);
    for (uint32_t j = 0; j < layer.n_targets; ++j)
        for (uint32_t k = 0; k < nd; ++k) per_target[j] += g.target_delay_synapses[j][k];
    auto fits = [&](const SubordinateMap& b) {
        return b.image_bytes <= budget && b.max_column_sum <= acc_limit && b.k_rows < 0xFFFFu &&
               b.gather.size() < 0xFFFFu;
    };
    const SubordinateMap whole = build_block(g, 0, layer.n_targets, 0, c.n_rows, opt.opt);
    const std::vector<s2_snnp_src_entry_t> src =
        layer.src_table.empty() ? default_src_table(layer.n_sources) : layer.src_table;
    const uint32_t n_src_entries = static_cast<uint32_t>(src.size());
    uint64_t dominant_bytes = 0;
    uint32_t g_start = 1;
    if (!fits(whole)) {
        const uint64_t lower = whole.image_bytes / (2 * budget * nd);
        g_start = static_cast<uint32_t>(std::clamp<uint64_t>(lower, 1, layer.n_targets));
    }
    for (uint32_t groups = g_start; groups <= layer.n_targets; ++groups) {
        std::vector<SubordinateMap> subs;
        const std::vector<uint32_t> tb = partition(per_target, groups);
        bool ok = true;
        for (size_t r = 0; r + 1 < tb.size() && ok; ++r) {
            const uint32_t j0 = tb[r], j1 = tb[r + 1];
            SubordinateMap b = groups == 1 ? whole : build_block(g, j0, j1, 0, c.n_rows, opt.opt);
            if (fits(b)) {
                subs.push_back(std::move(b));
                continue;
            }
            // Stage 2: delay ranges of this target range, balanced by synapses per delay.
            std::vector<uint64_t> per_delay(nd, 0);
            for (uint32_t j = j0; j < j1; ++j)
                for (uint32_t k = 0; k < nd; ++k) per_delay[k] += g.target_delay_synapses[j][k];
            const uint32_t h_start = static_cast<uint32_t>(
                std::clamp<uint64_t>((b.image_bytes + budget - 1) / budget, 2, nd + 1));
            bool placed = false;
            for (uint32_t h = h_start; h <= nd && !placed; ++h) {
                const std::vector<uint32_t> db = partition(per_delay, h);
                std::vector<SubordinateMap> part;
                bool all = true;
                for (size_t q = 0; q + 1 < db.size() && all; ++q) {
                    SubordinateMap pb = build_block(g, j0, j1, g.delay_row_lo[db[q]],
                                                    g.delay_row_lo[db[q + 1]], opt.opt);
                    all = fits(pb);
                    part.push_back(std::move(pb));
                }
                if (all) {
                    for (SubordinateMap& pb : part) subs.push_back(std::move(pb));
                    placed = true;
                }
            }
            ok = placed;
        }
        if (!ok) continue;
        // The dominant holds a partial-input area per subordinate: a split with many delay
        // ranges may not fit it; more target groups need fewer.
        uint32_t words = 0;
        for (const SubordinateMap& b : subs) words += even(b.target_count) + 1;
        dominant_bytes = dom_layout(layer, g, static_cast<uint32_t>(subs.size()), words,
                                    c.options.spike_buffer_entries, n_src_entries)
                             .size;
        if (dominant_bytes > budget) continue;
        if (subs.size() > opt.max_subordinates)
            fail(layer,
                 "needs " + std::to_string(subs.size()) + " subordinate PEs, at most " +
                     std::to_string(opt.max_subordinates),
                 "PEs", subs.size(), opt.max_subordinates);
        c.subs = std::move(subs);
        c.target_groups = groups;
        break;
    }
    if (c.subs.empty()) {
        if (dominant_bytes > budget)
            fail(layer,
                 "the dominant PE needs " + std::to_string(dominant_bytes + kReserveBytes) +
                     " B of DTCM, the budget is " + std::to_string(opt.dtcm_bytes) + " B",
                 "dominant PE", dominant_bytes + kReserveBytes, opt.dtcm_bytes);
        if (whole.max_column_sum > acc_limit)
            fail(layer,
                 "a column of the weight-delay map sums to " +
                     std::to_string(whole.max_column_sum) + ", the accumulator holds " +
                     std::to_string(acc_limit),
                 "accumulator", whole.max_column_sum, acc_limit);
        fail(layer, "no split of the weight-delay map fits a subordinate's DTCM",
             "weight-delay map", whole.image_bytes, budget);
    }

    // PEs.
    c.pes = opt.pes;
    if (c.pes.empty())
        for (uint32_t p = 0; p < c.pes_used(); ++p) c.pes.push_back(p);
    if (c.pes.size() < c.pes_used())
        fail(layer,
             "needs " + std::to_string(c.pes_used()) + " PEs, " + std::to_string(c.pes.size()) +
                 " are given",
             "PEs", c.pes_used(), c.pes.size());
    c.pes.resize(c.pes_used());
    for (uint32_t pe : c.pes)
        if (pe >= S2_NOC_N_PES)
            throw std::invalid_argument("snn parallel compile: PE " + std::to_string(pe) +
                                        " is not a PE of the chip");

    // Dominant image.
    uint32_t partial_words = 0;
    std::vector<uint32_t> partial_off;
    for (const SubordinateMap& b : c.subs) {
        partial_off.push_back(partial_words);
        partial_words += even(b.target_count) + 1;  // int16 [2][even(target_count)], stamp
    }
    const DomLayout dl =
        dom_layout(layer, g, static_cast<uint32_t>(c.subs.size()), partial_words,
                   c.options.spike_buffer_entries, static_cast<uint32_t>(src.size()));
    const uint32_t base = S2_SNN_IMAGE_BASE;
    const uint32_t tick_cycles = static_cast<uint32_t>(
        std::max(1.0, std::round(layer.timestep_ms * 1e-3 * opt.core_clock_hz)));
    const uint32_t timestep_ns = static_cast<uint32_t>(std::round(layer.timestep_ms * 1e6));
    {
        std::vector<uint8_t>& img = c.dominant_image;
        img.assign(dl.size, 0);
        s2_snnp_dominant_t h{};
        h.magic = S2_SNNP_IMAGE_MAGIC;
        h.version = S2_SNNP_IMAGE_VERSION;
        h.kind = S2_SNNP_KIND_DOMINANT;
        h.flags = (layer.record_spikes ? S2_SNN_FLAG_RECORD_SPIKES : 0u) |
                  (layer.has_targets ? 0u : S2_SNN_FLAG_NO_TARGETS);
        h.image_size = dl.size;
        h.pe = c.pes[0];
        h.vertex = opt.vertex;
        h.key_base = opt.vertex << S2_SNN_KEY_VERTEX_SHIFT;
        h.n_targets = layer.n_targets;
        h.n_sources = layer.n_sources;
        h.n_ticks = opt.n_ticks;
        h.tick_cycles = tick_cycles;
        h.timestep_ns = timestep_ns;
        h.counters = base + dl.counters;
        h.src_table = base + dl.src_table;
        h.src_count = static_cast<uint32_t>(src.size());
        h.spike_buffer = base + dl.spike_buffer;
        h.spike_buffer_entries = c.options.spike_buffer_entries;
        h.delays = base + dl.delays;
        h.n_delays = nd;
        h.max_delay = g.delays.back();
        h.hist = base + dl.hist;
        h.hist_slots = dl.hist_slots;
        h.hist_words = dl.hist_words;
        h.row_of = base + dl.row_of;
        h.row_of_stride = g.stride;
        h.stacked = base + dl.stacked;
        h.n_rows = c.n_rows;
        h.stacked_bytes = dl.stacked_bytes;
        h.n_subordinates = static_cast<uint32_t>(c.subs.size());
        h.subs = base + dl.subs;
        h.partial = base + dl.partial;
        h.partial_words = partial_words;
        h.params = base + dl.params;
        h.state = base + dl.state;
        h.record_words = dl.record_words;
        h.record_stage = base + dl.record_stage;
        h.n_record_v = static_cast<uint32_t>(layer.record_v.size());
        h.record_v_index = base + dl.record_v_index;
        h.record_dram = opt.record_dram;
        h.keys = base + dl.keys;
        h.fanout = base + dl.fanout;
        put(img, 0, h);
        const reference::SnnLifFixed f = lif_fixed(layer.lif, layer.timestep_ms);
        s2_snn_lif_params_t p{};
        p.alpha = f.alpha;
        p.v_th = static_cast<uint32_t>(f.v_th);
        p.v_reset = static_cast<uint32_t>(f.v_reset);
        p.i_offset = static_cast<uint32_t>(f.i_offset);
        p.t_ref = f.t_ref;
        p.reset_mode = f.subtract ? S2_SNN_RESET_SUBTRACT : S2_SNN_RESET_TO_V_RESET;
        put(img, dl.params, p);
        for (uint32_t j = 0; j < layer.n_targets; ++j) {
            s2_snn_neuron_state_t st{};
            st.v = static_cast<uint32_t>(f.v_init);
            put(img, dl.state + j * static_cast<uint32_t>(sizeof st), st);
        }
        for (uint32_t j = 0; j < layer.n_targets; ++j)
            put(img, dl.keys + 4 * j,
                layer.target_keys.empty() ? (opt.vertex << S2_SNN_KEY_VERTEX_SHIFT) + j
                                          : layer.target_keys[j]);
        std::vector<uint32_t> fanout(layer.n_sources, 0);
        for (const Synapse& syn : layer.synapses) ++fanout[syn.pre];
        for (uint32_t i = 0; i < layer.n_sources; ++i) put(img, dl.fanout + 4 * i, fanout[i]);
        for (size_t k = 0; k < layer.record_v.size(); ++k)
            put(img, dl.record_v_index + 4 * static_cast<uint32_t>(k), layer.record_v[k]);
        for (size_t k = 0; k < src.size(); ++k)
            put(img, dl.src_table + static_cast<uint32_t>(k * sizeof(s2_snnp_src_entry_t)), src[k]);
        for (uint32_t k = 0; k < nd; ++k) put(img, dl.delays + 4 * k, g.delays[k]);
        std::memcpy(img.data() + dl.row_of, g.row_of.data(), 2 * g.row_of.size());
        for (size_t s = 0; s < c.subs.size(); ++s) {
            const SubordinateMap& b = c.subs[s];
            s2_snnp_sub_entry_t e{};
            e.pe = c.pes[1 + s];
            e.row_lo = b.row_lo;
            e.row_count = b.row_count;
            e.target_lo = b.target_lo;
            e.target_count = b.target_count;
            e.partial = base + dl.partial + 4 * partial_off[s];
            put(img, dl.subs + static_cast<uint32_t>(s * sizeof e), e);
        }
    }
    // Subordinate images.
    for (size_t s = 0; s < c.subs.size(); ++s) {
        const SubordinateMap& b = c.subs[s];
        const SubLayout sl =
            sub_layout(b.row_count, b.k_rows, static_cast<uint32_t>(b.gather.size()), b.n_cols,
                       b.target_count);
        std::vector<uint8_t> img(sl.size, 0);
        s2_snnp_subordinate_t h{};
        h.magic = S2_SNNP_IMAGE_MAGIC;
        h.version = S2_SNNP_IMAGE_VERSION;
        h.kind = S2_SNNP_KIND_SUBORDINATE;
        h.image_size = sl.size;
        h.pe = c.pes[1 + s];
        h.dominant_pe = c.pes[0];
        h.index = static_cast<uint32_t>(s);
        h.n_ticks = opt.n_ticks;
        h.tick_cycles = tick_cycles;
        h.timestep_ns = timestep_ns;
        h.counters = base + sl.counters;
        h.stacked_src = global_sram(c.pes[0], base + dl.stacked + b.row_lo);
        h.row_lo = b.row_lo;
        h.row_count = b.row_count;
        h.raw = base + sl.raw;
        h.gather_start = base + sl.gather_start;
        h.gather = base + sl.gather;
        h.n_gather = static_cast<uint32_t>(b.gather.size());
        h.x = base + sl.x;
        h.k_rows = b.k_rows;
        h.n_cols = b.n_cols;
        h.map = base + sl.map;
        h.c = base + sl.c;
        h.mla_ctrl = S2_SNNP_MLA_CTRL;
        h.target_lo = b.target_lo;
        h.target_count = b.target_count;
        h.col_of = base + sl.col_of;
        h.col_of_stride = even(b.target_count);
        h.out = base + sl.out;
        h.partial_dst = global_sram(c.pes[0], base + dl.partial + 4 * partial_off[s]);
        h.delay_lo = b.delay_lo;
        h.delay_hi = b.delay_hi;
        put(img, 0, h);
        std::memcpy(img.data() + sl.gather_start, b.gather_start.data(), 2 * b.gather_start.size());
        std::memcpy(img.data() + sl.gather, b.gather.data(), 2 * b.gather.size());
        std::memcpy(img.data() + sl.map, b.map.data(), b.map.size());
        std::memcpy(img.data() + sl.col_of, b.col_of.data(), 2 * b.col_of.size());
        c.sub_images.push_back(std::move(img));
    }

    // Table I per PE.
    // The layout's bytes next to the model's items, the totals, the budget.
    auto finish_report = [&](ParPeReport& r, const uint64_t* actual) {
        for (size_t k = 0; k < r.items.size(); ++k) r.items[k].actual_bytes = actual[k];
        for (const TableIItem& it : r.items) {
            r.model_total += it.model_bytes;
            r.actual_total += it.actual_bytes;
        }
        r.budget_bytes = opt.dtcm_bytes;
        c.table1.push_back(r);
    };
    const uint32_t n_src_vertex = static_cast<uint32_t>(src.size());
    const uint32_t delay_range = g.delays.back();
    const uint64_t mgmt = sizeof(s2_snnp_dominant_t) + sizeof(s2_snn_counters_t) + kArgsBytes;
    {
        ParPeReport r;
        r.dominant = true;
        r.pe = c.pes[0];
        r.items =
            table1_dominant_model(layer.n_sources, layer.n_targets, delay_range, n_src_vertex);
        const uint64_t tables =
            4ull * nd + uint64_t{sizeof(s2_snnp_src_entry_t)} * src.size() + 4ull * layer.n_sources;
        const uint64_t used =
            uint64_t{4} * c.options.spike_buffer_entries + 2ull * nd * g.stride + dl.stacked_bytes +
            4ull * dl.hist_slots * dl.hist_words + tables + sizeof(s2_snn_lif_params_t) +
            uint64_t{sizeof(s2_snn_neuron_state_t)} * layer.n_targets + 4ull * dl.record_words +
            4ull * layer.n_targets + 4ull * layer.record_v.size() +
            uint64_t{sizeof(s2_snnp_sub_entry_t)} * c.subs.size() + 4ull * partial_words;
        const uint64_t actual[] = {
            4ull * c.options.spike_buffer_entries,
            2ull * nd * g.stride,
            0,  // merging is folded into the reversed order table
            dl.stacked_bytes + 4ull * dl.hist_slots * dl.hist_words + tables,
            sizeof(s2_snn_lif_params_t) +
                uint64_t{sizeof(s2_snn_neuron_state_t)} * layer.n_targets + 4ull * layer.n_targets,
            4ull * dl.record_words + 4ull * layer.record_v.size(),
            S2_SNN_STACK_BYTES,
            mgmt + (dl.size - sizeof(s2_snnp_dominant_t) - sizeof(s2_snn_counters_t) - used),
            uint64_t{sizeof(s2_snnp_sub_entry_t)} * c.subs.size() + 4ull * partial_words,
        };
        finish_report(r, actual);
    }
    for (size_t s = 0; s < c.subs.size(); ++s) {
        const SubordinateMap& b = c.subs[s];
        const SubLayout sl =
            sub_layout(b.row_count, b.k_rows, static_cast<uint32_t>(b.gather.size()), b.n_cols,
                       b.target_count);
        ParPeReport r;
        r.dominant = false;
        r.pe = c.pes[1 + s];
        r.index = static_cast<uint32_t>(s);
        r.items =
            table1_subordinate_model(b.target_count, b.delay_hi - b.delay_lo + 1, n_src_vertex);
        const uint64_t map_b = sl.c - sl.map;
        const uint64_t out_b = sl.size - sl.c;
        const uint64_t slice_b = sl.map - sl.raw;
        // Header and counters (sl.raw bytes) and the args block are the management part.
        const uint64_t actual[] = {map_b, out_b, S2_SNN_STACK_BYTES, sl.raw + kArgsBytes, slice_b};
        finish_report(r, actual);
    }
    return c;
}

ParInput par_tick_input(const ParCompiled& c, const std::vector<std::vector<uint8_t>>& spiked,
                        uint32_t t) {
    // Dominant step 1: X from the history.
    std::vector<uint32_t> x(c.n_rows, 0);
    for (uint32_t k = 0; k < c.delays.size(); ++k) {
        if (c.delays[k] > t) continue;
        const std::vector<uint8_t>& sp = spiked[t - c.delays[k]];
        for (uint32_t i = 0; i < c.n_sources; ++i)
            if (sp[i]) {
                const uint16_t r = c.row_of[uint64_t{k} * c.row_of_stride + i];
                if (r != S2_SNNP_NO_ROW) ++x[r];
            }
    }
    ParInput in;
    in.exc.assign(c.n_targets, 0);
    in.inh.assign(c.n_targets, 0);
    for (const SubordinateMap& b : c.subs) {
        // Subordinate steps 3 and 4: gather, matmul (exact int64), col_of; dominant step 5.
        std::vector<int64_t> xl(b.k_rows, 0);
        for (uint32_t k = 0; k < b.k_rows; ++k)
            for (uint32_t j = b.gather_start[k]; j < b.gather_start[k + 1]; ++j)
                xl[k] += x[b.row_lo + b.gather[j]];
        std::vector<int64_t> cc(b.n_cols, 0);
        for (uint32_t k = 0; k < b.k_rows; ++k)
            if (xl[k] != 0)
                for (uint32_t n = 0; n < b.n_cols; ++n)
                    cc[n] += xl[k] * b.map[uint64_t{k} * b.n_cols + n];
        for (int64_t& v : cc) v = std::min<int64_t>(v, S2_SNN_INPUT_MAX);  // OUT16 saturation
        const uint32_t stride = even(b.target_count);
        for (uint32_t j = 0; j < b.target_count; ++j) {
            const uint16_t ce = b.col_of[j], ci = b.col_of[stride + j];
            if (ce != S2_SNNP_NO_COL) in.exc[b.target_lo + j] += cc[ce];
            if (ci != S2_SNNP_NO_COL) in.inh[b.target_lo + j] += cc[ci];
        }
    }
    return in;
}

ParInput synapse_tick_input(const ParLayer& layer, const std::vector<std::vector<uint8_t>>& spiked,
                            uint32_t t) {
    ParInput in;
    in.exc.assign(layer.n_targets, 0);
    in.inh.assign(layer.n_targets, 0);
    for (const Synapse& s : layer.synapses)
        if (s.delay <= t && spiked[t - s.delay][s.pre])
            (s.type == SynapseType::inhibitory ? in.inh : in.exc)[s.post] += s.weight;
    return in;
}

ParLayer layer_of_population(const Network& net, const MachineGraph& g, uint32_t population) {
    ParLayer l;
    l.name = net.populations[population].name;
    l.n_targets = net.populations[population].size;
    l.lif = net.populations[population].lif;
    l.timestep_ms = net.timestep_ms;
    std::vector<PreRef> pres;
    std::vector<uint32_t> first;
    for (const Projection& pj : net.projections) {
        if (pj.post != population) continue;
        auto it = std::find(pres.begin(), pres.end(), pj.pre);
        uint32_t off = 0;
        if (it == pres.end()) {
            pres.push_back(pj.pre);
            first.push_back(l.n_sources);
            off = l.n_sources;
            const std::vector<uint32_t>& ids = pj.pre.is_source
                                                   ? g.source_vertices[pj.pre.index]
                                                   : g.population_vertices[pj.pre.index];
            for (uint32_t id : ids) {
                const MachineVertex& v = g.vertices[id];
                l.src_table.push_back({v.key(), S2_SNN_KEY_VERTEX_MASK, l.n_sources + v.lo});
            }
            l.n_sources += net.pre_size(pj.pre);
        } else {
            off = first[static_cast<size_t>(it - pres.begin())];
        }
        for (Synapse s : pj.synapses) {
            s.pre += off;
            l.synapses.push_back(s);
        }
    }
    std::sort(
        l.src_table.begin(), l.src_table.end(),
        [](const s2_snnp_src_entry_t& a, const s2_snnp_src_entry_t& b) { return a.key < b.key; });
    return l;
}

}  // namespace nmsim::compiler::snn
