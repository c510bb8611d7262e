// The SNN compiler: machine graph (equal splits at 255, matrix splits), placement, keys,
// routes, DRAM regions, Table I, the errors that name population and structure, the gesture PE
// counts (docs/snn_compiler.md).
#include <gtest/gtest.h>

#include <cmath>
#include <tuple>

#include "tools/compiler/snn/compiler.h"
#include "tools/compiler/snn/image.h"

namespace nmsim::compiler::snn {
namespace {

Population pop(const std::string& name, uint32_t size) {
    Population p;
    p.name = name;
    p.size = size;
    return p;
}

Source poisson(const std::string& name, uint32_t size, double rate) {
    Source s;
    s.name = name;
    s.size = size;
    s.rate_hz = rate;
    s.seed = element_seed(1, name);
    return s;
}

Projection all_to_all(const Network& net, const std::string& name, PreRef pre, uint32_t post,
                      uint32_t weight = 1, uint32_t delay = 1) {
    Projection p;
    p.name = name;
    p.pre = pre;
    p.post = post;
    for (uint32_t i = 0; i < net.pre_size(pre); ++i)
        for (uint32_t j = 0; j < net.populations[post].size; ++j)
            p.synapses.push_back({i, j, weight, delay, SynapseType::excitatory});
    return p;
}

template <typename F>
CompileError compile_error(F&& f) {
    try {
        f();
    } catch (const CompileError& e) {
        return e;
    }
    ADD_FAILURE() << "no CompileError";
    return CompileError("", "", "", 0, 0);
}

TEST(SnnCompiler, SplitsEquallyAt255) {
    Network net;
    net.sources.push_back(poisson("in", 2048, 1));
    for (auto [name, size] :
         {std::pair<const char*, uint32_t>{"a", 600}, {"b", 510}, {"c", 256}, {"d", 255}, {"e", 1}})
        net.populations.push_back(pop(name, size));
    CompileOptions opt;
    opt.n_ticks = 10;
    const Compiled c = compile(net, opt);
    const MachineGraph& g = c.graph;
    auto sizes = [&](const std::vector<uint32_t>& ids) {
        std::vector<uint32_t> s;
        for (uint32_t id : ids) s.push_back(g.vertices[id].n);
        return s;
    };
    EXPECT_EQ(sizes(g.source_vertices[0]),
              (std::vector<uint32_t>{228, 228, 228, 228, 228, 227, 227, 227, 227}));
    EXPECT_EQ(sizes(g.population_vertices[0]), (std::vector<uint32_t>{200, 200, 200}));
    EXPECT_EQ(sizes(g.population_vertices[1]), (std::vector<uint32_t>{255, 255}));
    EXPECT_EQ(sizes(g.population_vertices[2]), (std::vector<uint32_t>{128, 128}));
    EXPECT_EQ(sizes(g.population_vertices[3]), (std::vector<uint32_t>{255}));
    EXPECT_EQ(sizes(g.population_vertices[4]), (std::vector<uint32_t>{1}));
    // Slices tile their population and vertex_of inverts them.
    for (uint32_t i = 0; i < 2048; ++i) {
        const MachineVertex& v = g.vertices[g.vertex_of({true, 0}, i)];
        ASSERT_TRUE(v.is_source && v.lo <= i && i < v.lo + v.n) << i;
    }
    for (uint32_t i = 0; i < 600; ++i) {
        const MachineVertex& v = g.vertices[g.vertex_of({false, 0}, i)];
        ASSERT_TRUE(!v.is_source && v.app == 0 && v.lo <= i && i < v.lo + v.n) << i;
    }
    // Ids: sources first, then populations in order; keys id << 8; PEs 0.. in order.
    for (uint32_t id = 0; id < g.vertices.size(); ++id) {
        EXPECT_EQ(g.vertices[id].id, id);
        EXPECT_EQ(g.vertices[id].key(), id << 8);
        EXPECT_EQ(g.vertices[id].pe, id);
        EXPECT_EQ(c.images[id].pe, id);
    }
    EXPECT_EQ(c.pes_used(), 9u + 3 + 2 + 2 + 1 + 1);
    // The limit is a parameter.
    opt.max_neurons_per_pe = 100;
    EXPECT_EQ(compile(net, opt).graph.population_vertices[0].size(), 6u);
}

TEST(SnnCompiler, PlacementFollowsThePeListAndInjectedSourcesTakeNone) {
    Network net;
    net.sources.push_back(poisson("in", 300, 1));
    net.populations.push_back(pop("a", 10));
    net.projections.push_back(all_to_all(net, "p", {true, 0}, 0));
    CompileOptions opt;
    opt.n_ticks = 5;
    opt.pes = {17, 3, 151};
    Compiled c = compile(net, opt);
    EXPECT_EQ(c.graph.vertices[0].pe, 17u);
    EXPECT_EQ(c.graph.vertices[1].pe, 3u);
    EXPECT_EQ(c.graph.vertices[2].pe, 151u);
    ASSERT_EQ(c.routes.size(), 1u);  // both source vertices -> PE 151, merged
    EXPECT_EQ(c.routes[0].pes, std::vector<uint32_t>{151});
    opt.sources_on_pes = false;
    c = compile(net, opt);
    EXPECT_EQ(c.graph.vertices[0].pe, kNoPe);
    EXPECT_EQ(c.graph.vertices[2].pe, 17u);
    EXPECT_EQ(c.pes_used(), 1u);
    EXPECT_EQ(c.routes_full.size(), 2u);  // injected sources still have keys and routes
    opt.pes = {1, 1};
    EXPECT_THROW(compile(net, opt), std::invalid_argument);
}

TEST(SnnCompiler, OptionsAreChecked) {
    Network net;
    net.populations.push_back(pop("a", 3));
    auto rejects = [&](auto change) {
        CompileOptions opt;
        change(opt);
        EXPECT_THROW(compile(net, opt), std::invalid_argument);
    };
    rejects([](CompileOptions& o) { o.n_ticks = 0; });
    rejects([](CompileOptions& o) { o.n_ticks = kMaxTicks + 1; });
    rejects([](CompileOptions& o) { o.max_neurons_per_pe = 257; });
    rejects([](CompileOptions& o) { o.dtcm_bytes = S2_SNN_DTCM_BYTES + 4; });
    rejects([](CompileOptions& o) { o.spike_buffer_entries = 100; });
    rejects([](CompileOptions& o) { o.pes = {152}; });
    rejects([](CompileOptions& o) { o.dram_base = 0x1000; });
    // A smaller DTCM is a smaller budget.
    CompileOptions opt;
    opt.n_ticks = 1;
    opt.dtcm_bytes = 16384;
    EXPECT_EQ(compile(net, opt).table1[0].budget_bytes, 16384u);
}

TEST(SnnCompiler, TooFewPesNamesTheNumbers) {
    Network net;
    net.populations.push_back(pop("big", 152 * 255));
    net.populations.push_back(pop("one", 1));
    const CompileError e = compile_error([&] { compile(net, {}); });
    EXPECT_EQ(e.structure(), "PEs");
    EXPECT_EQ(e.needed(), 153u);
    EXPECT_EQ(e.available(), 152u);
    EXPECT_NE(std::string(e.what()).find("needs 153 PEs"), std::string::npos) << e.what();
}

// 255 sources all-to-all onto 255 neurons: rows of 1 + 255 words do not fit one PE
// (255 x 256 x 4 = 261 kB); over 2 PEs rows of 1 + 128 words are 131 kB, over 3 PEs 1 + 85
// words are 87.7 kB, which fits the 92160 B an image may use (96 KiB minus stack and args).
TEST(SnnCompiler, DenseMatrixIsSplitOverAdjacentPes) {
    Network net;
    net.sources.push_back(poisson("in", 255, 1));
    net.populations.push_back(pop("dense", 255));
    net.projections.push_back(all_to_all(net, "p", {true, 0}, 0));
    CompileOptions opt;
    opt.n_ticks = 4;
    const Compiled c = compile(net, opt);
    EXPECT_EQ(c.graph.matrix_split[0], 3u);
    const auto& ids = c.graph.population_vertices[0];
    ASSERT_EQ(ids.size(), 3u);
    for (size_t k = 0; k < 3; ++k) {
        EXPECT_EQ(c.graph.vertices[ids[k]].n, 85u);
        EXPECT_EQ(c.graph.vertices[ids[k]].pe, 1u + k);  // adjacent PEs
        const DecodedPe d = decode_pe_image(c.images[ids[k]]);
        EXPECT_EQ(d.header.syn_matrix_words, 255u * 86u);
        EXPECT_LE(d.header.image_size, 92160u);
    }
    ASSERT_EQ(c.routes.size(), 1u);
    EXPECT_EQ(c.routes[0].pes, (std::vector<uint32_t>{1, 2, 3}));  // the source reaches all 3

    // With at most 2 PEs for the matrix it cannot be placed: the error names the population and
    // the synaptic matrix, with the numbers.
    opt.max_matrix_split = 2;
    const CompileError e = compile_error([&] { compile(net, opt); });
    EXPECT_EQ(e.element(), "dense");
    EXPECT_EQ(e.structure(), "synaptic matrix");
    EXPECT_EQ(e.available(), 98304u);
    EXPECT_GT(e.needed(), 98304u);
    const std::string msg = e.what();
    EXPECT_NE(msg.find("population 'dense': neurons 0..127 need "), std::string::npos) << msg;
    EXPECT_NE(msg.find("the largest structure is the synaptic matrix (131580 B, Table I model "
                       "130560 B)"),
              std::string::npos)
        << msg;
    EXPECT_NE(msg.find("split over 2 PEs (max_matrix_split 2)"), std::string::npos) << msg;
}

TEST(SnnCompiler, RowLongerThanTheStrideFieldIsAnError) {
    // One source neuron with 16,400 synapses onto one neuron (a list may repeat a pair): the
    // row fits the DTCM (66 kB) but not the 14-bit stride of the address word.
    Network net;
    net.sources.push_back(poisson("in", 1, 1));
    net.populations.push_back(pop("one", 1));
    Projection p;
    p.name = "p";
    p.pre = {true, 0};
    p.synapses.assign(16400, {0, 0, 1, 1, SynapseType::excitatory});
    net.projections.push_back(p);
    CompileOptions opt;
    opt.n_ticks = 2;
    const CompileError e = compile_error([&] { compile(net, opt); });
    EXPECT_EQ(e.structure(), "synaptic row");
    EXPECT_EQ(e.needed(), 16401u);
    EXPECT_EQ(e.available(), 16383u);
}

TEST(SnnCompiler, DtcmErrorNamesTheFileLine) {
    Network net;
    net.file = "net.yaml";
    net.sources.push_back(poisson("in", 2048, 1));
    net.populations.push_back(pop("h", 255));
    net.populations[0].where = {"net.yaml", 7, 5};
    net.projections.push_back(all_to_all(net, "p", {true, 0}, 0));
    CompileOptions opt;
    opt.n_ticks = 2;
    const CompileError e = compile_error([&] { compile(net, opt); });
    EXPECT_EQ(std::string(e.what()).rfind("net.yaml:7:5: population 'h': ", 0), 0u) << e.what();
    EXPECT_EQ(e.structure(), "synaptic matrix");
}

// Table I for a hand-computed PE: 10 sources all-to-all onto 4 neurons (delay 3, record_v [1]).
TEST(SnnCompiler, TableIHandComputed) {
    Network net;
    Source in;
    in.name = "in";
    in.size = 10;
    in.spike_times.assign(10, {});
    net.sources.push_back(in);
    net.populations.push_back(pop("a", 4));
    net.populations[0].record_v = {1};
    net.projections.push_back(all_to_all(net, "p", {true, 0}, 0, 1, 3));
    CompileOptions opt;
    opt.n_ticks = 8;
    const Compiled c = compile(net, opt);
    ASSERT_EQ(c.table1.size(), 2u);
    const PeReport& r = c.table1[1];
    EXPECT_EQ(r.element, "a");
    EXPECT_EQ(r.n_source_vertex, 1u);
    EXPECT_EQ(r.n_address_list_rows, 1u);
    EXPECT_EQ(r.delay_range, 3u);
    EXPECT_DOUBLE_EQ(r.max_connected_rate, 1.0);
    // item: model (the seed's formula), actual (this layout)
    const std::vector<std::tuple<const char*, uint64_t, uint64_t>> want = {
        {"input spike buffer", 4 * 4, 256 * 4},
        {"DMA buffer", 0, 0},
        {"master population table", 12, 12},
        {"address list", 4, 4},
        {"synaptic matrix", 4 * 10 * 4, 10 * 5 * 4},  // rows of 4 synapses + a count word
        {"synaptic input buffer", 2 * 4 * 3 * 2, 2 * 4 * 2 * 4},  // 4 slots (3 -> power of 2)
        {"neuron and synapse model", 4 * 14, 32 + 4 * 8},
        // record: tick, busy cycles, synapse words, bits, v; then the v index
        {"output recording", 4 * (1 + 1) + 4 * 4 * 3, 4 * 5 + 4},
        {"stack & heap", 12, 5888},
        {"hw mgmt & OS", 6000, 160 + 64 + 256 + 40},  // header, counters, args, padding
        {"spike list (source PE)", 0, 0},
    };
    ASSERT_EQ(r.items.size(), want.size());
    for (size_t k = 0; k < want.size(); ++k) {
        EXPECT_EQ(r.items[k].item, std::get<0>(want[k]));
        EXPECT_EQ(r.items[k].model_bytes, std::get<1>(want[k])) << std::get<0>(want[k]);
        EXPECT_EQ(r.items[k].actual_bytes, std::get<2>(want[k])) << std::get<0>(want[k]);
    }
    EXPECT_EQ(r.model_total, 6364u);
    EXPECT_EQ(r.actual_total, 7800u);
    // The actual column adds up to the image plus stack and args.
    EXPECT_EQ(r.actual_total, c.images[1].bytes.size() + 5888 + 256);
    for (const PeReport& p : c.table1)
        EXPECT_EQ(p.actual_total, c.images[p.vertex].bytes.size() + 6144) << p.element;
    EXPECT_NE(format_table1(r).find("synaptic matrix                   160        200"),
              std::string::npos)
        << format_table1(r);
}

TEST(SnnCompiler, GesturePeCounts) {
    const GesturePeCounts g = gesture_pe_counts(255);
    EXPECT_EQ(g.sources_on_pes, 11u);   // 9 input PEs + hidden + output
    EXPECT_EQ(g.sources_injected, 2u);  // hidden + output
    EXPECT_EQ(g.source_pes, 9u);        // ceil(2048 / 255): the seed's 9
    EXPECT_EQ(g.per_layer, 10u);        // 9 x 1 + 1 x 1
    const GesturePeCounts g256 = gesture_pe_counts(256);
    EXPECT_EQ(g256.sources_on_pes, 10u);
    EXPECT_EQ(g256.per_layer, 9u);
    for (const PeReport& r : g.table1) EXPECT_LE(r.actual_total, r.budget_bytes) << r.element;
}

TEST(SnnCompiler, RouterTableLimit) {
    // a and b of 2 vertices each, one to one both ways: 4 routes to 4 different PEs.
    Network net;
    net.populations.push_back(pop("a", 300));
    net.populations.push_back(pop("b", 300));
    for (auto [name, pre, post] :
         {std::tuple<const char*, uint32_t, uint32_t>{"ab", 0, 1}, {"ba", 1, 0}}) {
        Projection p;
        p.name = name;
        p.pre = {false, pre};
        p.post = post;
        for (uint32_t i = 0; i < 300; ++i)
            p.synapses.push_back({i, i, 1, 1, SynapseType::excitatory});
        net.projections.push_back(p);
    }
    CompileOptions opt;
    opt.n_ticks = 2;
    EXPECT_EQ(compile(net, opt).routes.size(), 4u);
    opt.max_router_entries = 3;
    const CompileError e = compile_error([&] { compile(net, opt); });
    EXPECT_EQ(e.structure(), "router table");
    EXPECT_EQ(e.needed(), 4u);
    EXPECT_EQ(e.available(), 3u);
}

TEST(SnnCompiler, FixedPointParameters) {
    LifParams l;
    l.v_th = 1.5;
    l.reset = ResetMode::to_v_reset;
    l.v_reset = -0.25;
    l.i_offset = 1.0 / 3.0;
    l.v_init = 2;
    l.t_ref = 4;
    const reference::SnnLifFixed f = lif_fixed(l, 1.0);
    EXPECT_EQ(f.alpha, static_cast<uint32_t>(std::lround(std::exp(-1.0 / 20) * 65536)));
    EXPECT_EQ(f.v_th, 98304);
    EXPECT_EQ(f.v_reset, -16384);
    EXPECT_EQ(f.i_offset, 21845);
    EXPECT_EQ(f.v_init, 131072);
    EXPECT_EQ(f.t_ref, 4u);
    EXPECT_FALSE(f.subtract);
    l.alpha = 1.0;
    EXPECT_EQ(lif_fixed(l, 1.0).alpha, 65536u);
    l.alpha = 0.0;
    EXPECT_EQ(lif_fixed(l, 1.0).alpha, 0u);
    EXPECT_DOUBLE_EQ(lif_float(l, 1.0).i_offset, 1.0 / 3.0);
}

TEST(SnnCompiler, TickPeriodAndDramRegions) {
    Network net;
    net.timestep_ms = 0.5;
    net.sources.push_back(poisson("busy", 255, 900));  // ~ 0.36 spikes per tick and source
    net.populations.push_back(pop("a", 40));
    net.populations[0].record_v = {3, 39};
    net.populations.push_back(pop("quiet", 5));
    net.populations[1].record_spikes = false;  // and no record_v: the tick header only
    net.projections.push_back(all_to_all(net, "p", {true, 0}, 0));
    CompileOptions opt;
    opt.n_ticks = 1000;
    opt.core_clock_hz = 300e6;
    opt.dram_base = 0x20001000u;
    const Compiled c = compile(net, opt);
    EXPECT_EQ(c.tick_cycles, 150000u);
    EXPECT_EQ(c.timestep_ns, 500000u);
    // The source's ~92 000 spikes (368 kB) do not fit SRAM: the list is in DRAM.
    const DecodedPe src = decode_pe_image(c.images[0], c.dram);
    EXPECT_EQ(src.header.flags, S2_SNN_FLAG_SPIKES_IN_DRAM);
    ASSERT_EQ(c.dram.size(), 3u);  // the spike list and two record regions
    EXPECT_EQ(c.dram[0].kind, DramKind::spike_list);
    EXPECT_EQ(c.dram[0].addr, 0x20001000u);
    EXPECT_EQ(src.header.spike_tick_index, 0x20001000u);
    uint64_t n = 0;
    for (const auto& t : c.trains[0]) n += t.size();
    EXPECT_EQ(src.header.n_spikes, n);
    EXPECT_EQ(c.dram[0].size, 4 * (1001 + n));
    // Population a records the tick header (tick, busy cycles, synapse words), 2 words of spike
    // bits and 2 voltages per tick; population b (nothing asked) the header only.
    const DramRegion* rec = c.record_region(1);
    ASSERT_NE(rec, nullptr);
    EXPECT_EQ(rec->addr % 16, 0u);
    EXPECT_GE(rec->addr, c.dram[0].addr + c.dram[0].size);
    EXPECT_EQ(rec->size, 1000u * 7 * 4);
    const DecodedPe a = decode_pe_image(c.images[1]);
    EXPECT_EQ(a.header.record_dram, rec->addr);
    EXPECT_EQ(a.header.record_words, 7u);
    EXPECT_EQ(a.record_v_index, (std::vector<uint32_t>{3, 39}));
    ASSERT_NE(c.record_region(2), nullptr);
    EXPECT_EQ(decode_pe_image(c.images[2]).header.record_words, S2_SNN_RECORD_HEADER_WORDS);
    // Not enough DRAM.
    opt.dram_size = 4096;
    EXPECT_EQ(compile_error([&] { compile(net, opt); }).structure(), "DRAM");
}

}  // namespace
}  // namespace nmsim::compiler::snn
