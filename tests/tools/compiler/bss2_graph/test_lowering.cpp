// Lowering: neuron unit conversion against hand-computed words, word order (background CFG last),
// conflicts and range errors, and the decoder round trip of every vertex kind.
#include <gtest/gtest.h>

#include <algorithm>

#include "tools/compiler/bss2/lowering.h"

namespace nmsim::compiler::bss2 {
namespace {

const ExecutionInstance kI0{};

TEST(Bss2Lowering, NeuronWordsInFixedPointUnits) {
    NeuronProperties p;
    p.v_leak = 375.25;      // mV -> 375250 uV
    p.v_reset = -12.5;      // -> -12500 uV
    p.v_threshold = 586.0;  // -> 586000
    p.v_exp = 560.0004;     // -> 560000 (rounded)
    p.delta_t = 10.0006;    // -> 10001 (rounded)
    p.c_mem = 2.2;          // pF -> 2200 fF
    p.tau_mem = 10.0;       // us -> 10000000 ps
    p.tau_syn_exc = 0.3;    // -> 300000
    p.tau_syn_inh = 30.0;   // -> 30000000
    p.tau_w = 100.0;        // -> 100000000
    p.a = 0.004;            // uS -> 4000 pS
    p.b = -0.02;            // nA -> -20000 fA
    p.t_ref = 2.0;          // -> 2000000 ps
    p.i_offset = -0.5;      // nA -> -500000 fA
    p.w_exc = 0.3;          // -> 300000 fA
    p.w_inh = 1.25;         // -> 1250000
    const auto w = neuron_words(p, 0x1AB, 0x5, "n");
    EXPECT_EQ(w[BSS2_NRN_CFG], 0x5u);
    EXPECT_EQ(w[BSS2_NRN_ADDR_OUT], 0xABu);
    EXPECT_EQ(w[BSS2_NRN_V_LEAK], 375250u);
    EXPECT_EQ(static_cast<int32_t>(w[BSS2_NRN_V_RESET]), -12500);
    EXPECT_EQ(w[BSS2_NRN_V_THRESHOLD], 586000u);
    EXPECT_EQ(w[BSS2_NRN_V_EXP], 560000u);
    EXPECT_EQ(w[BSS2_NRN_DELTA_T], 10001u);
    EXPECT_EQ(w[BSS2_NRN_C_MEM], 2200u);
    EXPECT_EQ(w[BSS2_NRN_TAU_MEM], 10000000u);
    EXPECT_EQ(w[BSS2_NRN_TAU_SYN_EXC], 300000u);
    EXPECT_EQ(w[BSS2_NRN_TAU_SYN_INH], 30000000u);
    EXPECT_EQ(w[BSS2_NRN_TAU_W], 100000000u);
    EXPECT_EQ(w[BSS2_NRN_A], 4000u);
    EXPECT_EQ(static_cast<int32_t>(w[BSS2_NRN_B]), -20000);
    EXPECT_EQ(w[BSS2_NRN_T_REF], 2000000u);
    EXPECT_EQ(w[BSS2_NRN_I_OFFSET], 0xFFF85EE0u);  // -500000 two's complement
    EXPECT_EQ(w[BSS2_NRN_W_EXC], 300000u);
    EXPECT_EQ(w[BSS2_NRN_W_INH], 1250000u);
}

TEST(Bss2Lowering, NeuronValuesOutOfRangeAreErrors) {
    NeuronProperties p;
    p.tau_mem = 5000.0;  // 5e9 ps > uint32
    try {
        neuron_words(p, 0, 0, "NeuronView(3) column 7");
        ADD_FAILURE() << "no error";
    } catch (const LoweringError& e) {
        EXPECT_NE(std::string(e.what()).find("NeuronView(3) column 7: tau_mem"), std::string::npos)
            << e.what();
    }
    NeuronProperties q;
    q.c_mem = -1.0;
    EXPECT_THROW(neuron_words(q, 0, 0, "n"), LoweringError);
    NeuronProperties r;
    r.v_leak = 3e6;  // 3e9 uV > int32
    EXPECT_THROW(neuron_words(r, 0, 0, "n"), LoweringError);
}

// A graph using every configurable vertex kind.
Graph all_kinds(BackgroundCfg bg_cfg) {
    Graph g;
    const auto ext = g.add(ExternalInput{}, kI0, {});
    const auto din = g.add(DataInput{}, kI0, {ext});
    const auto l2 = g.add(CrossbarL2Input{}, kI0, {din});
    const auto bg = g.add(BackgroundSpikeSource{bg_cfg}, kI0, {});
    const auto n1 =
        g.add(CrossbarNode{9, 5, 0x3C0, 0x040}, kI0, {Input(l2, PortRestriction{1, 1})});
    // Background generator i reaches L2 output i % 4 (and PADI bus i only).
    const auto n2 = g.add(
        CrossbarNode{BSS2_XIN_BG(bg_cfg.index), BSS2_XOUT_L2(bg_cfg.index % 4), 0, 0}, kI0, {bg});
    const auto bus = g.add(PADIBus{1, 1}, kI0, {n1});
    SynapseDriver d;
    d.cfg.hemi = 1;
    d.cfg.driver = 9;  // bus 1, index 2
    d.cfg.row_mask = 0x1B;
    d.cfg.lower5 = false;
    d.cfg.mode[0] = BSS2_ROW_INHIBITORY;
    d.cfg.mode[1] = BSS2_ROW_EXCITATORY;
    d.cfg.stp = true;
    d.cfg.stp_u = 0.2;
    d.cfg.stp_tau_rec = 150.0;
    const auto drv = g.add(d, kI0, {bus});
    SynapseArrayView a;
    a.hemi = 1;
    a.rows = {18, 19};
    a.columns = {40, 200};
    a.synapses = {{18, 40, 63, 5}, {19, 200, 1, 62}};
    const auto syn = g.add(a, kI0, {drv});
    NeuronView nv;
    nv.hemi = 1;
    nv.columns = {40, 200};
    NeuronProperties p0, p1;
    p0.adaptation = true;
    p0.a = 0.002;
    p1.exponential = true;
    p1.i_offset = 0.125;
    nv.neurons = {{p0, 3}, {p1, 250}};
    const auto nrn = g.add(nv, kI0, {syn});
    NeuronEventOutputView eo;
    eo.sources.push_back({1, {40, 200}});
    const auto out = g.add(eo, kI0, {nrn});  // channels {1, 6}
    // Only channel 6 (column 200) is routed: column 40 must not fire.
    const auto n3 = g.add(CrossbarNode{6, 10, 0, 0}, kI0, {Input(out, PortRestriction{1, 1})});
    const auto l2o = g.add(CrossbarL2Output{}, kI0, {n3, n2});
    g.add(DataOutput{}, kI0, {l2o});
    return g;
}

TEST(Bss2Lowering, RoundTripOfAllEntityKinds) {
    const BackgroundCfg bg{3, false, 1234, 77, 0x0F, 0x2A5};
    const Graph g = all_kinds(bg);
    const auto words = configuration(g, kI0);
    const ChipConfig c = decode_configuration(words);
    EXPECT_EQ(c.padi_buses, (std::set<std::pair<uint32_t, uint32_t>>{{1, 1}}));
    ASSERT_EQ(c.nodes.size(), 3u);
    EXPECT_EQ(c.nodes.at({9, 5}), std::make_pair(0x3C0u, 0x040u));
    EXPECT_EQ(c.nodes.at({15, 11}), std::make_pair(0u, 0u));
    EXPECT_EQ(c.nodes.at({6, 10}), std::make_pair(0u, 0u));
    EXPECT_EQ(c.enabled_nodes.size(), 3u);
    const DecodedDriver& d = c.drivers.at({1, 9});
    EXPECT_TRUE(d.enable);
    EXPECT_EQ(d.row_mask, 0x1Bu);
    EXPECT_FALSE(d.lower5);
    EXPECT_EQ(d.mode[0], BSS2_ROW_INHIBITORY);
    EXPECT_EQ(d.mode[1], BSS2_ROW_EXCITATORY);
    EXPECT_TRUE(d.stp);
    EXPECT_EQ(*d.stp_u, 51u);  // round(0.2 * 256)
    EXPECT_EQ(*d.stp_tau_rec, 150000u);
    ASSERT_EQ(c.synapses.size(), 2u);
    EXPECT_EQ(c.synapses.at({1, 18, 40}), std::make_pair(63u, 5u));
    EXPECT_EQ(c.synapses.at({1, 19, 200}), std::make_pair(1u, 62u));
    ASSERT_EQ(c.neurons.size(), 2u);
    const auto& a = c.neurons.at({1, 40});
    EXPECT_EQ(a.flags, BSS2_NRN_CFG_ENABLE | BSS2_NRN_CFG_ADAPT);  // channel 1 unrouted
    EXPECT_EQ(a.addr, 3u);
    EXPECT_DOUBLE_EQ(a.properties.a, 0.002);
    const auto& b = c.neurons.at({1, 200});
    EXPECT_EQ(b.flags, BSS2_NRN_CFG_ENABLE | BSS2_NRN_CFG_FIRE | BSS2_NRN_CFG_EXP);
    EXPECT_EQ(b.addr, 250u);
    EXPECT_DOUBLE_EQ(b.properties.i_offset, 0.125);
    const NeuronProperties dflt;
    EXPECT_DOUBLE_EQ(b.properties.tau_mem, dflt.tau_mem);
    EXPECT_DOUBLE_EQ(b.properties.v_leak, dflt.v_leak);
    EXPECT_DOUBLE_EQ(b.properties.c_mem, dflt.c_mem);
    const BackgroundCfg& x = c.background.at(3);
    EXPECT_TRUE(c.background_enabled.count(3));
    EXPECT_FALSE(x.poisson);
    EXPECT_EQ(x.period, 1234u);
    EXPECT_EQ(x.rate, 77u);
    EXPECT_EQ(x.mask, 0x0Fu);
    EXPECT_EQ(x.label, 0x2A5u);
    // Word count: 1 bus + 3 nodes x 2 + driver 3 + 2 synapses + 2 neurons x 18 + background 4.
    EXPECT_EQ(words.size(), 1u + 6u + 3u + 2u + 36u + 4u);
}

TEST(Bss2Lowering, OrderIsDeterministicAndBackgroundEnableIsLast) {
    const Graph g = all_kinds(BackgroundCfg{0, true, 10, 128, 0, 5});
    const auto words = configuration(g, kI0);
    ASSERT_FALSE(words.empty());
    EXPECT_EQ(words.back().first, BSS2_BG(0) + BSS2_BG_CFG);
    EXPECT_EQ(words.back().second, BSS2_BG_CFG_ENABLE | BSS2_BG_CFG_POISSON);
    // Kinds in the documented order: PADI, crossbar, drivers, synapses, neurons, background.
    auto kind = [](uint32_t addr) {
        if (addr >= BSS2_SYNAPSE_BASE) return 3;
        if (addr >= BSS2_NEURON_BASE) return 4;
        if (addr >= BSS2_PADI_BASE) return 0;
        if (addr >= BSS2_BG_BASE) return 5;
        if (addr >= BSS2_SYNDRV_BASE) return 2;
        return 1;
    };
    for (size_t i = 1; i < words.size(); ++i)
        EXPECT_LE(kind(words[i - 1].first), kind(words[i].first)) << i;
    EXPECT_EQ(configuration(all_kinds(BackgroundCfg{0, true, 10, 128, 0, 5}), kI0), words);
    // Other instances configure nothing from this one.
    EXPECT_TRUE(configuration(g, ExecutionInstance{PhysicalChip(1), TemporalIndex(0)}).empty());
}

TEST(Bss2Lowering, ConflictingEntitiesAreErrors) {
    Graph g;
    const auto ext = g.add(ExternalInput{}, kI0, {});
    const auto din = g.add(DataInput{}, kI0, {ext});
    const auto l2 = g.add(CrossbarL2Input{}, kI0, {din});
    g.add(CrossbarNode{8, 0, 0, 0}, kI0, {Input(l2, PortRestriction{0, 0})});
    // The same node again with the same filter is fine ...
    g.add(CrossbarNode{8, 0, 0, 0}, kI0, {Input(l2, PortRestriction{0, 0})});
    EXPECT_EQ(configuration(g, kI0).size(), 2u);
    // ... with a different one it is a conflict naming both vertices.
    g.add(CrossbarNode{8, 0, 0x10, 0}, kI0, {Input(l2, PortRestriction{0, 0})});
    try {
        configuration(g, kI0);
        ADD_FAILURE() << "no error";
    } catch (const LoweringError& e) {
        EXPECT_NE(std::string(e.what()).find("CrossbarNode(5)"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("CrossbarNode(3)"), std::string::npos) << e.what();
    }
}

TEST(Bss2Lowering, DecoderRejectsForeignWords) {
    EXPECT_THROW(decode_configuration({{BSS2_MADC_CTRL, 1}}), LoweringError);
    EXPECT_THROW(decode_configuration({{BSS2_NEURON(0, 0) + BSS2_NRN_RESET, 1}}), LoweringError);
    EXPECT_THROW(decode_configuration({{BSS2_SYNDRV(0, 0) + BSS2_SYNDRV_STP_PULSE, 1}}),
                 LoweringError);
}

}  // namespace
}  // namespace nmsim::compiler::bss2
