// The SNN compiler's pipeline (compiler.h, docs/snn_compiler.md): machine graph with equal
// splits and matrix splits, placement, routes, DRAM regions, images, Table I.
#include "tools/compiler/snn/compiler.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>

#include "nmsim/hw/spinnaker2/noc_map.h"
#include "tools/compiler/snn/image.h"
#include "tools/compiler/snn/paradigm.h"
#include "tools/compiler/snn/parallel.h"

namespace nmsim::compiler::snn {
namespace {

// Stack and host argument block above the image: the part of the DTCM the image cannot use.
constexpr uint32_t kArgsBytes = S2_SRAM_SIZE - S2_ARGS_BASE;
constexpr uint32_t kReserveBytes = S2_SNN_STACK_BYTES + kArgsBytes;

uint32_t ceil_div(uint32_t a, uint32_t b) { return (a + b - 1) / b; }
uint64_t align16(uint64_t v) { return (v + S2_SNN_ALIGN - 1) & ~uint64_t{S2_SNN_ALIGN - 1}; }
uint32_t next_pow2(uint32_t v) {
    uint32_t p = 1;
    while (p < v) p <<= 1;
    return p;
}

// Equal split of n neurons into m parts: part p has n / m neurons, the first n % m one more.
uint32_t part_lo(uint32_t n, uint32_t m, uint32_t p) { return p * (n / m) + std::min(p, n % m); }
uint32_t part_size(uint32_t n, uint32_t m, uint32_t p) { return n / m + (p < n % m ? 1u : 0u); }
uint32_t part_of(uint32_t n, uint32_t m, uint32_t i) {
    const uint32_t q = n / m, r = n % m;
    return i < r * (q + 1) ? i / (q + 1) : r + (i - r * (q + 1)) / q;
}

// Parts of a population of `size` neurons with matrix split k.
uint32_t population_parts(uint32_t size, uint32_t max_per_pe, uint32_t k) {
    return std::min(size, ceil_div(size, max_per_pe) * k);
}

MachineGraph make_graph(const Network& net, const CompileOptions& opt,
                        const std::vector<uint32_t>& split) {
    MachineGraph g;
    g.matrix_split = split;
    auto add = [&](bool is_source, uint32_t app, uint32_t size, uint32_t parts) {
        std::vector<uint32_t> ids;
        for (uint32_t p = 0; p < parts; ++p) {
            MachineVertex v;
            v.id = static_cast<uint32_t>(g.vertices.size());
            v.is_source = is_source;
            v.app = app;
            v.lo = part_lo(size, parts, p);
            v.n = part_size(size, parts, p);
            ids.push_back(v.id);
            g.vertices.push_back(v);
        }
        return ids;
    };
    for (uint32_t s = 0; s < net.sources.size(); ++s) {
        const uint32_t n = net.sources[s].size;
        g.source_vertices.push_back(add(true, s, n, ceil_div(n, opt.max_neurons_per_pe)));
    }
    for (uint32_t p = 0; p < net.populations.size(); ++p) {
        const uint32_t n = net.populations[p].size;
        g.population_vertices.push_back(
            add(false, p, n, population_parts(n, opt.max_neurons_per_pe, split[p])));
    }
    return g;
}

bool synapse_word_less(uint32_t a, uint32_t b) {
    const auto k = [](uint32_t w) {
        return std::make_tuple(s2_snn_syn_index(w), s2_snn_syn_delay(w), s2_snn_syn_type(w),
                               s2_snn_syn_weight(w));
    };
    return k(a) < k(b);
}

// The blocks of every neuron vertex (empty for sources), grouped by source vertex ascending,
// then projection; rows sorted by (index, delay, type, weight).
std::vector<std::vector<SynBlock>> build_blocks(const Network& net, const MachineGraph& g) {
    std::vector<std::map<std::pair<uint32_t, uint32_t>, SynBlock>> by(g.vertices.size());
    for (uint32_t pj = 0; pj < net.projections.size(); ++pj) {
        const Projection& proj = net.projections[pj];
        for (const Synapse& s : proj.synapses) {
            const MachineVertex& sv = g.vertices[g.vertex_of(proj.pre, s.pre)];
            const MachineVertex& tv = g.vertices[g.vertex_of({false, proj.post}, s.post)];
            SynBlock& b = by[tv.id][{sv.id, pj}];
            if (b.rows.empty()) {
                b.src_vertex = sv.id;
                b.projection = pj;
                b.rows.resize(sv.n);
            }
            b.rows[s.pre - sv.lo].push_back(
                s2_snn_syn_word(s.weight, s.delay, static_cast<uint32_t>(s.type), s.post - tv.lo));
        }
    }
    std::vector<std::vector<SynBlock>> out(g.vertices.size());
    for (size_t v = 0; v < by.size(); ++v)
        for (auto& [k, b] : by[v]) {
            for (auto& row : b.rows) std::sort(row.begin(), row.end(), synapse_word_less);
            out[v].push_back(std::move(b));
        }
    return out;
}

uint32_t max_delay(const std::vector<SynBlock>& blocks) {
    uint32_t d = 0;
    for (const SynBlock& b : blocks)
        for (const auto& row : b.rows)
            for (uint32_t w : row) d = std::max(d, s2_snn_syn_delay(w));
    return d;
}

std::vector<uint32_t> local_record_v(const Population& pop, const MachineVertex& v) {
    std::vector<uint32_t> out;
    for (uint32_t i : pop.record_v)
        if (i >= v.lo && i < v.lo + v.n) out.push_back(i - v.lo);
    return out;
}

NeuronPeSpec neuron_spec(const Network& net, const CompileOptions& opt, const MachineVertex& v,
                         std::vector<SynBlock> blocks) {
    const Population& pop = net.populations[v.app];
    NeuronPeSpec s;
    s.vertex = v.id;
    s.pe = v.pe;
    s.n_neurons = v.n;
    s.n_ticks = opt.n_ticks;
    s.lif = lif_fixed(pop.lif, net.timestep_ms);
    s.record_spikes = pop.record_spikes;
    s.record_v = local_record_v(pop, v);
    s.spike_buffer_entries = opt.spike_buffer_entries;
    s.n_delay_slots = next_pow2(std::max(1u, max_delay(blocks)));
    s.blocks = std::move(blocks);
    return s;
}

// The spike list of a source vertex: keys by tick (ascending index within a tick).
void source_list(const SpikeTrains& trains, const MachineVertex& v, uint32_t n_ticks,
                 SourcePeSpec& s) {
    s.tick_index.assign(uint64_t{n_ticks} + 1, 0);
    for (uint32_t i = 0; i < v.n; ++i)
        for (uint32_t t : trains[v.app][v.lo + i]) ++s.tick_index[t + 1];
    for (uint32_t t = 0; t < n_ticks; ++t) s.tick_index[t + 1] += s.tick_index[t];
    s.keys.assign(s.tick_index.back(), 0);
    std::vector<uint32_t> next(s.tick_index.begin(), s.tick_index.end() - 1);
    for (uint32_t i = 0; i < v.n; ++i)  // neurons in order: keys ascend within each tick
        for (uint32_t t : trains[v.app][v.lo + i]) s.keys[next[t]++] = v.key() | i;
}

PeReport neuron_report(const Network& net, const CompileOptions& opt, const MachineVertex& v,
                       const NeuronPeSpec& s) {
    const NeuronCounts c = neuron_counts(s);
    const PeLayout l = neuron_layout(c);
    PeReport r;
    r.vertex = v.id;
    r.pe = v.pe;
    r.element = net.populations[v.app].name;
    r.lo = v.lo;
    r.n = v.n;
    r.n_source_vertex = c.mpt_count;
    r.n_address_list_rows = c.addr_list_count;
    r.delay_range = std::max(1u, max_delay(s.blocks));
    uint64_t matrix_model = 0;
    for (const SynBlock& b : s.blocks) {
        matrix_model += 4ull * b.rows.size() * (b.stride() - 1);
        r.max_connected_rate =
            std::max(r.max_connected_rate, static_cast<double>(b.stride() - 1) / v.n);
    }
    r.items = table1_model(v.n, c.mpt_count, c.addr_list_count, matrix_model, r.delay_range);
    const uint64_t actual[] = {
        4ull * c.spike_buffer_entries,
        0,
        uint64_t{sizeof(s2_snn_mpt_entry_t)} * c.mpt_count,
        4ull * c.addr_list_count,
        4ull * c.syn_matrix_words,
        2ull * c.n_delay_slots * 2 * input_stride(v.n),
        sizeof(s2_snn_lif_params_t) + uint64_t{sizeof(s2_snn_neuron_state_t)} * v.n,
        4ull * c.record_words + 4ull * c.n_record_v,
        S2_SNN_STACK_BYTES,
        sizeof(s2_snn_image_t) + sizeof(s2_snn_counters_t) + kArgsBytes + uint64_t{l.padding},
        0,
    };
    for (size_t k = 0; k < r.items.size(); ++k) r.items[k].actual_bytes = actual[k];
    for (const TableIItem& it : r.items) {
        r.model_total += it.model_bytes;
        r.actual_total += it.actual_bytes;
    }
    r.budget_bytes = opt.dtcm_bytes;
    return r;
}

PeReport source_report(const Network& net, const CompileOptions& opt, const MachineVertex& v,
                       const PeLayout& l) {
    PeReport r;
    r.vertex = v.id;
    r.pe = v.pe;
    r.element = net.sources[v.app].name;
    r.is_source = true;
    r.lo = v.lo;
    r.n = v.n;
    r.items = table1_model(0, 0, 0, 0, 0);  // the seed models no source PE: its formulas give 0
    for (TableIItem& it : r.items) it.actual_bytes = 0;
    r.items[8].actual_bytes = S2_SNN_STACK_BYTES;
    r.items[9].actual_bytes =
        sizeof(s2_snn_image_t) + sizeof(s2_snn_counters_t) + kArgsBytes + uint64_t{l.padding};
    r.items[10].actual_bytes =
        l.size - sizeof(s2_snn_image_t) - sizeof(s2_snn_counters_t) - l.padding;
    for (const TableIItem& it : r.items) {
        r.model_total += it.model_bytes;
        r.actual_total += it.actual_bytes;
    }
    r.budget_bytes = opt.dtcm_bytes;
    return r;
}

std::string range_text(const MachineVertex& v) {
    return "neurons " + std::to_string(v.lo) + ".." + std::to_string(v.lo + v.n - 1);
}

void check_options(const CompileOptions& o) {
    auto bad = [](const std::string& m) { throw std::invalid_argument("snn compile: " + m); };
    if (o.n_ticks < 1 || o.n_ticks > kMaxTicks) bad("n_ticks outside 1..2^24");
    if (o.max_neurons_per_pe < 1 || o.max_neurons_per_pe > S2_SNN_MAX_NEURONS_PER_PE)
        bad("max_neurons_per_pe outside 1..256");
    if (o.max_matrix_split < 1) bad("max_matrix_split must be >= 1");
    if (o.dtcm_bytes < 8192 || o.dtcm_bytes > S2_SNN_DTCM_BYTES)
        bad("dtcm_bytes outside 8 KiB..96 KiB (the image lives in [S2_SNN_IMAGE_BASE, "
            "S2_SNN_IMAGE_LIMIT))");
    if (o.spike_buffer_entries == 0 || (o.spike_buffer_entries & (o.spike_buffer_entries - 1)) != 0)
        bad("spike_buffer_entries must be a power of two");
    if (!(o.core_clock_hz >= 1e6 && o.core_clock_hz <= 2e9))
        bad("core_clock_hz outside 1 MHz..2 GHz");
    std::set<uint32_t> seen;
    for (uint32_t pe : o.pes)
        if (pe >= S2_NOC_N_PES || !seen.insert(pe).second)
            bad("pes: " + std::to_string(pe) + " is not a PE of the chip or listed twice");
    if (o.dram_base % S2_SNN_ALIGN != 0 || o.dram_base < S2_DRAM_GLOBAL_BASE ||
        uint64_t{o.dram_base} + o.dram_size > uint64_t{S2_DRAM_GLOBAL_BASE} + S2_DRAM_GLOBAL_SIZE)
        bad("dram_base/dram_size outside the DRAM window or misaligned");
}

bool has_synapses_onto(const Network& net, uint32_t population) {
    for (const Projection& pj : net.projections)
        if (pj.post == population && !pj.synapses.empty()) return true;
    return false;
}

std::string where_of(const Network& net, const Population& pop) {
    if (!pop.where.str().empty()) return pop.where.str();
    return net.file.empty() ? std::string("<network>") : net.file;
}

// Serial or parallel per population (docs/snn_parallel.md, "Switching in the compiler").
std::vector<ParadigmChoice> choose_paradigms(const Network& net, const CompileOptions& opt,
                                             const MachineGraph& g) {
    std::vector<ParadigmChoice> r(net.populations.size());
    for (uint32_t p = 0; p < net.populations.size(); ++p) {
        const Population& pop = net.populations[p];
        ParadigmChoice& ch = r[p];
        ch.requested = pop.paradigm.value_or(opt.paradigm);
        if (ch.requested == Paradigm::serial) continue;
        if (!has_synapses_onto(net, p)) {
            ch.no_synapses = true;  // nothing to multiply on the MLA: serial
            continue;
        }
        const ParLayer layer = layer_of_population(net, g, p);
        switch (ch.requested) {
            case Paradigm::parallel:
                ch.compiled = Paradigm::parallel;
                break;
            case Paradigm::automatic:
                ch.decision = ParadigmClassifier::shipped().decision(features_of(layer));
                ch.compiled = ch.decision > 0 ? Paradigm::parallel : Paradigm::serial;
                break;
            case Paradigm::ideal: {
                try {
                    ch.serial_pes = serial_layer_pes(layer, opt.max_matrix_split);
                } catch (const CompileError&) {
                }
                try {
                    ch.parallel_pes = parallel_layer_pes(layer);
                } catch (const CompileError&) {
                }
                const bool par_better =
                    ch.parallel_pes >= 0 && (ch.serial_pes < 0 || ch.parallel_pes < ch.serial_pes);
                ch.compiled = par_better ? Paradigm::parallel : Paradigm::serial;
                break;
            }
            case Paradigm::serial:
                break;
        }
    }
    return r;
}

// The layer of parallel population p as the chip runs it: the graph's keys for sources and
// targets, the population's recording, whether anything listens to its spikes.
ParLayer chip_layer(const Network& net, const MachineGraph& g, uint32_t p, bool has_targets) {
    ParLayer l = layer_of_population(net, g, p);
    const Population& pop = net.populations[p];
    l.target_keys.assign(pop.size, 0);
    for (uint32_t id : g.population_vertices[p]) {
        const MachineVertex& v = g.vertices[id];
        for (uint32_t j = 0; j < v.n; ++j) l.target_keys[v.lo + j] = v.key() | j;
    }
    l.record_spikes = pop.record_spikes;
    l.record_v = pop.record_v;
    l.has_targets = has_targets;
    return l;
}

ParOptions par_options(const CompileOptions& opt) {
    ParOptions po;
    po.dtcm_bytes = opt.dtcm_bytes;
    po.spike_buffer_entries = opt.spike_buffer_entries;
    po.n_ticks = opt.n_ticks;
    po.core_clock_hz = opt.core_clock_hz;
    return po;
}

ParCompiled compile_parallel_in(const Network& net, uint32_t p, const ParLayer& l,
                                const ParOptions& po) {
    try {
        return compile_parallel_layer(l, po);
    } catch (const CompileError& e) {
        const Population& pop = net.populations[p];
        throw CompileError(
            where_of(net, pop) + ": population '" + pop.name + "' (paradigm parallel): " + e.what(),
            pop.name, e.structure(), e.needed(), e.available());
    }
}

PeReport par_report(const Network& net, uint32_t p, const ParPeReport& r) {
    PeReport out;
    out.pe = r.pe;
    out.element = net.populations[p].name +
                  (r.dominant ? " dominant" : " subordinate " + std::to_string(r.index));
    out.n = net.populations[p].size;
    out.items = r.items;
    out.model_total = r.model_total;
    out.actual_total = r.actual_total;
    out.budget_bytes = r.budget_bytes;
    return out;
}

}  // namespace

uint32_t MachineGraph::vertex_of(const PreRef& pre, uint32_t i) const {
    const std::vector<uint32_t>& ids =
        pre.is_source ? source_vertices[pre.index] : population_vertices[pre.index];
    const MachineVertex& last = vertices[ids.back()];
    const uint32_t n = last.lo + last.n;
    return ids[part_of(n, static_cast<uint32_t>(ids.size()), i)];
}

std::vector<TableIItem> table1_model(uint32_t n_neuron, uint32_t n_source_vertex,
                                     uint32_t n_address_list_rows, uint64_t matrix_model_bytes,
                                     uint32_t delay_range) {
    const uint64_t n = n_neuron;
    return {
        {"input spike buffer", 4 * n, 0},
        {"DMA buffer", 0, 0},
        {"master population table", 12ull * n_source_vertex, 0},
        {"address list", 4ull * n_address_list_rows, 0},
        {"synaptic matrix", matrix_model_bytes, 0},
        {"synaptic input buffer", 2 * n * delay_range * 2, 0},
        {"neuron and synapse model", n_neuron != 0 ? 4ull * (8 + 6) : 0, 0},
        {"output recording", n_neuron != 0 ? 4 * ((n + 31) / 32 + 1) + 4 * n * 3 : 0, 0},
        {"stack & heap", 12ull * n_source_vertex, 0},
        {"hw mgmt & OS", 6000, 0},
        {"spike list (source PE)", 0, 0},
    };
}

std::string format_table1_items(const std::vector<TableIItem>& items, uint64_t model_total,
                                uint64_t actual_total, uint64_t budget, int width) {
    char line[160];
    std::string out;
    std::snprintf(line, sizeof line, "  %-*s %10s %10s\n", width, "item", "model B", "actual B");
    out += line;
    for (const TableIItem& it : items) {
        std::snprintf(line, sizeof line, "  %-*s %10llu %10llu\n", width, it.item.c_str(),
                      static_cast<unsigned long long>(it.model_bytes),
                      static_cast<unsigned long long>(it.actual_bytes));
        out += line;
    }
    std::snprintf(line, sizeof line, "  %-*s %10llu %10llu (budget %llu)\n", width, "total",
                  static_cast<unsigned long long>(model_total),
                  static_cast<unsigned long long>(actual_total),
                  static_cast<unsigned long long>(budget));
    out += line;
    return out;
}

std::string format_table1(const PeReport& r) {
    char line[160];
    std::snprintf(line, sizeof line, "PE %u vertex %u %s '%s' neurons %u..%u\n", r.pe, r.vertex,
                  r.is_source ? "source" : "population", r.element.c_str(), r.lo, r.lo + r.n - 1);
    return line + format_table1_items(r.items, r.model_total, r.actual_total, r.budget_bytes, 26);
}

uint32_t Compiled::pes_used() const { return static_cast<uint32_t>(images.size()); }

const DramRegion* Compiled::record_region(uint32_t vertex) const {
    for (const DramRegion& r : dram)
        if (r.kind == DramKind::record && r.vertex == vertex) return &r;
    return nullptr;
}

reference::SnnLifFixed lif_fixed(const LifParams& lif, double timestep_ms) {
    reference::SnnLifFixed f;
    const double alpha = std::round(decay_per_tick(lif, timestep_ms) * 65536.0);
    f.alpha = static_cast<uint32_t>(std::clamp(alpha, 0.0, 65536.0));
    f.v_th = std::max(1, reference::to_q16(lif.v_th));
    f.v_reset = reference::to_q16(lif.v_reset);
    f.i_offset = reference::to_q16(lif.i_offset);
    f.v_init = reference::to_q16(lif.v_init);
    f.t_ref = lif.t_ref;
    f.subtract = lif.reset == ResetMode::subtract;
    return f;
}

reference::SnnLifFloat lif_float(const LifParams& lif, double timestep_ms) {
    reference::SnnLifFloat f;
    f.alpha = decay_per_tick(lif, timestep_ms);
    f.v_th = lif.v_th;
    f.v_reset = lif.v_reset;
    f.i_offset = lif.i_offset;
    f.v_init = lif.v_init;
    f.t_ref = lif.t_ref;
    f.subtract = lif.reset == ResetMode::subtract;
    return f;
}

reference::SnnRefNetwork reference_network(const Network& net, const SpikeTrains& trains,
                                           uint32_t n_ticks) {
    reference::SnnRefNetwork r;
    r.n_ticks = n_ticks;
    for (const Population& p : net.populations)
        r.populations.push_back({p.name, p.size, lif_fixed(p.lif, net.timestep_ms),
                                 lif_float(p.lif, net.timestep_ms), p.record_v});
    r.sources = trains;
    for (const Projection& proj : net.projections)
        for (const Synapse& s : proj.synapses)
            r.synapses.push_back({proj.pre.is_source, proj.pre.index, s.pre, proj.post, s.post,
                                  s.weight, s.delay, s.type == SynapseType::inhibitory});
    return r;
}

Compiled compile(const Network& net, const CompileOptions& opt) {
    validate(net);
    check_options(opt);
    Compiled c;
    c.options = opt;
    if (c.options.pes.empty())
        for (uint32_t pe = 0; pe < S2_NOC_N_PES; ++pe) c.options.pes.push_back(pe);
    c.tick_cycles = static_cast<uint32_t>(
        std::max(1.0, std::round(net.timestep_ms * 1e-3 * opt.core_clock_hz)));
    c.timestep_ns = static_cast<uint32_t>(std::round(net.timestep_ms * 1e6));
    c.trains = spike_trains(net, opt.n_ticks);
    const uint64_t budget = opt.dtcm_bytes - kReserveBytes;  // image bytes a PE can hold
    const std::string file = net.file.empty() ? std::string("<network>") : net.file;

    // Machine graph: split populations whose PEs do not fit until they fit (docs: "Machine
    // graph"). A pass splits every failing population once more; splits only grow.
    std::vector<uint32_t> split(net.populations.size(), 1);
    c.paradigm = choose_paradigms(net, opt, make_graph(net, opt, split));
    auto is_parallel = [&](uint32_t p) { return c.paradigm[p].compiled == Paradigm::parallel; };
    std::vector<std::vector<SynBlock>> blocks;
    for (;;) {
        c.graph = make_graph(net, opt, split);
        blocks = build_blocks(net, c.graph);
        bool changed = false;
        const MachineVertex* failed = nullptr;
        for (uint32_t p = 0; p < net.populations.size(); ++p) {
            if (is_parallel(p)) continue;  // its map is split over subordinates instead
            for (uint32_t id : c.graph.population_vertices[p]) {
                const MachineVertex& v = c.graph.vertices[id];
                NeuronPeSpec s = neuron_spec(net, opt, v, std::move(blocks[id]));
                const uint32_t size = neuron_layout(neuron_counts(s)).size;
                const bool too_long = std::any_of(s.blocks.begin(), s.blocks.end(), [](auto& b) {
                    return b.stride() >= (1u << S2_SNN_ADDR_STRIDE_WIDTH);
                });
                blocks[id] = std::move(s.blocks);
                if (size <= budget && !too_long) continue;
                const uint32_t parts =
                    population_parts(net.populations[p].size, opt.max_neurons_per_pe, split[p]);
                if (split[p] < opt.max_matrix_split && parts < net.populations[p].size) {
                    ++split[p];
                    changed = true;
                } else if (failed == nullptr) {
                    failed = &v;
                }
                break;
            }
        }
        if (changed) continue;
        if (failed != nullptr) {
            const MachineVertex& v = *failed;
            const Population& pop = net.populations[v.app];
            const std::string where = pop.where.str().empty() ? file : pop.where.str();
            uint32_t stride = 0;
            for (const SynBlock& b : blocks[v.id]) stride = std::max(stride, b.stride());
            if (stride >= (1u << S2_SNN_ADDR_STRIDE_WIDTH))
                throw CompileError(where + ": population '" + pop.name + "': " + range_text(v) +
                                       ": a synaptic row of " + std::to_string(stride) +
                                       " words exceeds the address word's stride limit of " +
                                       std::to_string((1u << S2_SNN_ADDR_STRIDE_WIDTH) - 1),
                                   pop.name, "synaptic row", stride,
                                   (1u << S2_SNN_ADDR_STRIDE_WIDTH) - 1);
            const PeReport r = neuron_report(net, opt, v, neuron_spec(net, opt, v, blocks[v.id]));
            const TableIItem* big = &r.items[0];
            for (const TableIItem& it : r.items)
                if (it.actual_bytes > big->actual_bytes) big = &it;
            throw CompileError(
                where + ": population '" + pop.name + "': " + range_text(v) + " need " +
                    std::to_string(r.actual_total) + " B of DTCM, the budget is " +
                    std::to_string(r.budget_bytes) + " B; the largest structure is the " +
                    big->item + " (" + std::to_string(big->actual_bytes) + " B, Table I model " +
                    std::to_string(big->model_bytes) +
                    " B), still too large with the population split over " +
                    std::to_string(
                        population_parts(pop.size, opt.max_neurons_per_pe, split[v.app])) +
                    " PEs (max_matrix_split " + std::to_string(opt.max_matrix_split) + ")",
                pop.name, big->item, r.actual_total, r.budget_bytes);
        }
        break;
    }

    // Placement: vertices in id order on the usable PEs, in their order; a parallel population
    // takes its dominant and subordinates at its first vertex (all its vertices are on the
    // dominant: they send from there).
    const ParOptions po = par_options(opt);
    std::vector<uint32_t> par_pes(net.populations.size(), 0);
    for (uint32_t p = 0; p < net.populations.size(); ++p)
        if (is_parallel(p))
            par_pes[p] =
                compile_parallel_in(net, p, chip_layer(net, c.graph, p, true), po).pes_used();
    auto pes_of = [&](const MachineVertex& v) -> uint32_t {
        if (v.is_source) return opt.sources_on_pes ? 1 : 0;
        if (!is_parallel(v.app)) return 1;
        return c.graph.population_vertices[v.app].front() == v.id ? par_pes[v.app] : 0;
    };
    uint32_t placed = 0, next = 0;
    for (const MachineVertex& v : c.graph.vertices) placed += pes_of(v);
    if (placed > c.options.pes.size())
        throw CompileError(file + ": the network needs " + std::to_string(placed) +
                               " PEs (machine vertices), " + std::to_string(c.options.pes.size()) +
                               " are available",
                           "network", "PEs", placed, c.options.pes.size());
    for (MachineVertex& v : c.graph.vertices) {
        const uint32_t n = pes_of(v);
        if (n == 0) continue;
        v.pe = c.options.pes[next];
        if (!v.is_source && is_parallel(v.app)) {
            ParallelPlacement pp;
            pp.population = v.app;
            pp.vertex = v.id;
            pp.pes.assign(c.options.pes.begin() + next, c.options.pes.begin() + next + n);
            c.parallel.push_back(std::move(pp));
            for (uint32_t id : c.graph.population_vertices[v.app]) c.graph.vertices[id].pe = v.pe;
        }
        next += n;
    }

    // Routes: each vertex to the PEs holding targets of its neurons.
    std::vector<std::set<uint32_t>> targets(c.graph.vertices.size());
    for (const MachineVertex& t : c.graph.vertices)
        for (const SynBlock& b : blocks[t.id]) targets[b.src_vertex].insert(t.pe);
    for (const MachineVertex& v : c.graph.vertices)
        if (!targets[v.id].empty())
            c.routes_full.push_back(
                {v.key(), S2_SNN_KEY_VERTEX_MASK,
                 std::vector<uint32_t>(targets[v.id].begin(), targets[v.id].end()), 0});
    c.routes = compress_routes(c.routes_full, static_cast<uint32_t>(c.graph.vertices.size()));
    if (c.routes.size() > opt.max_router_entries)
        throw CompileError(file + ": the router table needs " + std::to_string(c.routes.size()) +
                               " entries after compression, the router holds " +
                               std::to_string(opt.max_router_entries),
                           "network", "router table", c.routes.size(), opt.max_router_entries);

    // DRAM regions and images, vertex by vertex.
    uint64_t cursor = opt.dram_base;
    auto allocate = [&](DramKind kind, const MachineVertex& v, uint64_t size) -> uint32_t {
        const uint64_t at = cursor;
        cursor = align16(at + size);
        if (cursor > uint64_t{opt.dram_base} + opt.dram_size) {
            const std::string name =
                v.is_source ? net.sources[v.app].name : net.populations[v.app].name;
            throw CompileError(file + ": '" + name + "' " + range_text(v) + ": the " +
                                   (kind == DramKind::record ? "recording" : "spike list") +
                                   " needs DRAM up to " + std::to_string(cursor - opt.dram_base) +
                                   " B, dram_size is " + std::to_string(opt.dram_size) + " B",
                               name, "DRAM", cursor - opt.dram_base, opt.dram_size);
        }
        c.dram.push_back({kind, v.id, static_cast<uint32_t>(at), static_cast<uint32_t>(size), {}});
        return static_cast<uint32_t>(at);
    };
    auto placement_of = [&](uint32_t p) -> ParallelPlacement& {
        for (ParallelPlacement& pp : c.parallel)
            if (pp.population == p) return pp;
        throw std::logic_error("snn compile: parallel population without placement");
    };
    for (const MachineVertex& v : c.graph.vertices) {
        if (v.pe == kNoPe) continue;
        if (!v.is_source && is_parallel(v.app)) {
            // Placeholder Table I rows per vertex (the host indexes them by vertex); the PEs'
            // own reports are in c.parallel.
            PeReport r;
            r.vertex = v.id;
            r.pe = v.pe;
            r.element = net.populations[v.app].name;
            r.lo = v.lo;
            r.n = v.n;
            r.budget_bytes = opt.dtcm_bytes;
            c.table1.push_back(r);
            if (c.graph.population_vertices[v.app].front() != v.id) continue;
            ParallelPlacement& pp = placement_of(v.app);
            bool has_targets = false;
            for (uint32_t id : c.graph.population_vertices[v.app])
                has_targets = has_targets || !targets[id].empty();
            const ParLayer l = chip_layer(net, c.graph, v.app, has_targets);
            ParOptions o = po;
            o.pes = pp.pes;
            o.vertex = v.id;
            const Population& pop = net.populations[v.app];
            const uint32_t rw = record_words(pop.size, pop.record_spikes,
                                             static_cast<uint32_t>(pop.record_v.size()));
            if (rw != 0) o.record_dram = allocate(DramKind::record, v, 4ull * rw * opt.n_ticks);
            const ParCompiled pc = compile_parallel_in(net, v.app, l, o);
            if (pc.pes != pp.pes)
                throw std::logic_error("snn compile: parallel layer changed its PE count");
            pp.n_rows = pc.n_rows;
            pp.n_delays = static_cast<uint32_t>(pc.delays.size());
            c.images.push_back({v.id, pp.pes[0], S2_SNN_IMAGE_BASE, pc.dominant_image});
            for (size_t k = 0; k < pc.sub_images.size(); ++k)
                c.images.push_back({v.id, pp.pes[1 + k], S2_SNN_IMAGE_BASE, pc.sub_images[k]});
            for (const ParPeReport& r2 : pc.table1) pp.table1.push_back(par_report(net, v.app, r2));
            continue;
        }
        if (v.is_source) {
            SourcePeSpec s;
            s.vertex = v.id;
            s.pe = v.pe;
            s.n_neurons = v.n;
            s.n_ticks = opt.n_ticks;
            s.tick_cycles = c.tick_cycles;
            s.timestep_ns = c.timestep_ns;
            source_list(c.trains, v, opt.n_ticks, s);
            const uint64_t n_spikes = s.keys.size();
            const bool fits =
                n_spikes < 0x40000000ull &&
                source_layout(opt.n_ticks, static_cast<uint32_t>(n_spikes), true).size <= budget;
            if (!fits) {
                s.dram_addr =
                    allocate(DramKind::spike_list, v, 4 * (uint64_t{opt.n_ticks} + 1 + n_spikes));
                c.dram.back().bytes = source_spike_list(s);
            }
            c.images.push_back(build_source_image(s));
            c.table1.push_back(source_report(
                net, opt, v, source_layout(opt.n_ticks, static_cast<uint32_t>(n_spikes), fits)));
        } else {
            NeuronPeSpec s = neuron_spec(net, opt, v, std::move(blocks[v.id]));
            s.has_targets = !targets[v.id].empty();
            s.tick_cycles = c.tick_cycles;
            s.timestep_ns = c.timestep_ns;
            const uint32_t rw =
                record_words(v.n, s.record_spikes, static_cast<uint32_t>(s.record_v.size()));
            if (rw != 0) s.record_dram = allocate(DramKind::record, v, 4ull * rw * opt.n_ticks);
            c.images.push_back(build_neuron_image(s));
            c.table1.push_back(neuron_report(net, opt, v, s));
        }
    }
    return c;
}

GesturePeCounts gesture_pe_counts(uint32_t max_neurons_per_pe, uint64_t seed) {
    // Seed 001 sec. IV-C (citing its ref. [8]): 2048 inputs, 20 hidden, 4 outputs, 3.16 % of
    // the weights non-zero. Delays of 1 tick; the Poisson rate only sizes the spike lists.
    Network net;
    net.seed = seed;
    Source in;
    in.name = "input";
    in.size = 2048;
    in.rate_hz = 10.0;
    in.seed = element_seed(seed, in.name);
    net.sources.push_back(in);
    for (auto [name, size] : {std::pair<const char*, uint32_t>{"hidden", 20}, {"output", 4}}) {
        Population p;
        p.name = name;
        p.size = size;
        net.populations.push_back(p);
    }
    auto project = [&](const char* name, PreRef pre, uint32_t post) {
        Projection pj;
        pj.name = name;
        pj.pre = pre;
        pj.post = post;
        for (const auto& [i, j] :
             fixed_probability_pairs(net.pre_size(pre), net.populations[post].size, 0.0316,
                                     element_seed(seed, name), true))
            pj.synapses.push_back({i, j, 1, 1, SynapseType::excitatory});
        net.projections.push_back(std::move(pj));
    };
    project("input_hidden", {true, 0}, 0);
    project("hidden_output", {false, 0}, 1);

    CompileOptions opt;
    opt.n_ticks = 100;
    opt.max_neurons_per_pe = max_neurons_per_pe;
    GesturePeCounts r;
    Compiled own = compile(net, opt);
    r.sources_on_pes = own.pes_used();
    r.table1 = own.table1;
    opt.sources_on_pes = false;
    r.sources_injected = compile(net, opt).pes_used();
    r.source_pes = ceil_div(2048, max_neurons_per_pe);
    for (const Projection& pj : net.projections)
        r.per_layer += ceil_div(net.pre_size(pj.pre), max_neurons_per_pe) *
                       static_cast<uint32_t>(own.graph.population_vertices[pj.post].size());
    return r;
}

}  // namespace nmsim::compiler::snn
