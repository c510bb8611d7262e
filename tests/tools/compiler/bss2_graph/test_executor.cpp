// JIT executor against a fake FPGA (implemented here, independently of the executor): it
// interprets the playback program, loops every injected spike back as a recorded event at the
// injection time, answers reads from the written words (or a fixed pattern) and streams MADC
// samples. Checks program structure (configuration, resets, runs, waits, packing), decoding, and
// the order of dependent execution instances.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "tools/compiler/bss2/executor.h"
#include "tools/compiler/bss2/lowering.h"

namespace nmsim::compiler::bss2 {
namespace {

class FakeFpga : public ChipConnection {
public:
    explicit FakeFpga(std::string name, std::vector<std::string>* log = nullptr)
        : m_name(std::move(name)), m_log(log) {}

    ExecutionResult execute(const std::vector<uint64_t>& program) override {
        programs.push_back(program);
        if (m_log) m_log->push_back(m_name);
        ExecutionResult r;
        uint64_t t = 0;
        bool in_run = false, madc_on = false;
        uint32_t madc_neuron = 0;
        uint64_t madc_from = 0;
        for (uint64_t w : program) {
            switch (bss2_pb_opcode(w)) {
                case BSS2_PB_TIMER_RESET:
                    t = 0;
                    break;
                case BSS2_PB_WAIT_UNTIL:
                    if (madc_on)  // one sample every 100 cycles while recording
                        for (uint64_t s = madc_from; s <= bss2_pb_data(w); s += 100) {
                            if (s < t) continue;
                            r.responses.push_back(
                                bss2_pb_rsp_madc(madc_neuron, static_cast<uint32_t>(s)));
                            madc_from = s + 100;
                        }
                    t = std::max<uint64_t>(t, bss2_pb_data(w));
                    break;
                case BSS2_PB_WRITE:
                    written[bss2_pb_addr(w)] = bss2_pb_data(w);
                    if (bss2_pb_addr(w) == BSS2_MADC_NEURON) madc_neuron = bss2_pb_data(w);
                    if (bss2_pb_addr(w) == BSS2_MADC_CTRL) {
                        madc_on = bss2_pb_data(w) == 1;
                        madc_from = t;
                    }
                    break;
                case BSS2_PB_READ: {
                    auto it = written.find(bss2_pb_addr(w));
                    const uint32_t v = it != written.end() ? it->second : bss2_pb_addr(w) & 0xFFu;
                    r.responses.push_back(
                        bss2_pb_make(BSS2_PB_RSP_READ, uint64_t(bss2_pb_addr(w)) << 32 | v));
                    break;
                }
                case BSS2_PB_SPIKES:
                    for (uint32_t i = 0; i < bss2_pb_spike_count(w); ++i)
                        if (in_run)
                            r.responses.push_back(bss2_pb_rsp_spike(bss2_pb_spike_label(w, i),
                                                                    static_cast<uint32_t>(t)));
                    break;
                case BSS2_PB_RUN_BEGIN:
                    in_run = true;
                    r.responses.push_back(bss2_pb_make(BSS2_PB_RSP_RUN, bss2_pb_data(w)));
                    break;
                case BSS2_PB_RUN_END:
                    in_run = false;
                    break;
                case BSS2_PB_HALT:
                    r.responses.push_back(bss2_pb_make(BSS2_PB_RSP_HALT, 3));
                    break;
                default:
                    ADD_FAILURE() << "unknown opcode " << bss2_pb_opcode(w);
            }
        }
        r.times.host_to_fpga_us = program.size() * 0.064;
        r.times.total_us = 1000.0 + static_cast<double>(programs.size());
        return r;
    }

    std::vector<std::vector<uint64_t>> programs;
    std::map<uint32_t, uint32_t> written;

private:
    std::string m_name;
    std::vector<std::string>* m_log;
};

// Loopback graph: ExternalInput -> ... -> CrossbarNode(8 -> L2 out 8) -> ... -> DataOutput,
// plus one neuron (hemisphere 0, columns 3 and 4) for resets and readouts.
struct Loopback {
    Graph g;
    VertexDescriptor ext = 0, out = 0, neurons = 0;
};

Loopback loopback(ExecutionInstance i, bool readouts) {
    Loopback l;
    l.ext = l.g.add(ExternalInput{}, i, {});
    const auto din = l.g.add(DataInput{}, i, {l.ext});
    const auto l2 = l.g.add(CrossbarL2Input{}, i, {din});
    const auto node = l.g.add(CrossbarNode{8, 8, 0, 0}, i, {Input(l2, PortRestriction{0, 0})});
    const auto l2o = l.g.add(CrossbarL2Output{}, i, {node});
    l.out = l.g.add(DataOutput{}, i, {l2o});
    NeuronView nv;
    nv.hemi = 0;
    nv.columns = {3, 4};
    nv.neurons = {{NeuronProperties{}, 1}, {NeuronProperties{}, 2}};
    l.neurons = l.g.add(nv, i, {});
    if (readouts) {
        l.g.add(MADCReadoutView{0, 4}, i, {Input(l.neurons, PortRestriction{1, 1})});
        l.g.add(CADCMembraneReadoutView{0, {3, 4}}, i, {l.neurons});
    }
    return l;
}

// Splits a program into (configuration writes, per-run instruction lists, tail).
struct Parsed {
    std::vector<ConfigWord> config;
    std::vector<std::vector<uint64_t>> runs;         // RUN_BEGIN .. RUN_END inclusive
    std::vector<std::vector<uint64_t>> before_runs;  // between previous run and RUN_BEGIN
    bool halt_last = false;
};

Parsed parse(const std::vector<uint64_t>& p) {
    Parsed r;
    size_t i = 0;
    while (i < p.size() && bss2_pb_opcode(p[i]) == BSS2_PB_WRITE &&
           bss2_pb_addr(p[i]) % 32u != BSS2_NRN_RESET) {
        r.config.push_back({bss2_pb_addr(p[i]), bss2_pb_data(p[i])});
        ++i;
    }
    std::vector<uint64_t> cur;
    bool in = false;
    for (; i < p.size(); ++i) {
        cur.push_back(p[i]);
        if (bss2_pb_opcode(p[i]) == BSS2_PB_RUN_BEGIN) {
            cur.pop_back();
            r.before_runs.push_back(cur);
            cur = {p[i]};
            in = true;
        } else if (bss2_pb_opcode(p[i]) == BSS2_PB_RUN_END) {
            r.runs.push_back(cur);
            cur.clear();
            in = false;
        }
    }
    EXPECT_FALSE(in);
    r.halt_last = cur.size() == 1 && bss2_pb_opcode(cur[0]) == BSS2_PB_HALT;
    return r;
}

TEST(Bss2Executor, ProgramStructureAndLoopback) {
    const ExecutionInstance i0{};
    Loopback l = loopback(i0, false);
    IODataMap in;
    // Run 0: unsorted, three spikes at the same cycle (3.0 us and 3.003 us round to 375),
    // four at another (packed 3 + 1). Run 1: no spikes.
    in.spikes[l.ext] = {{{5.0, 0x11},
                         {3.0, 0x21},
                         {3.003, 0x22},
                         {3.0, 0x23},
                         {5.0, 0x12},
                         {5.0, 0x13},
                         {5.0, 0x14}},
                        {}};
    FakeFpga fpga("chip0");
    ExecutionOptions opt;
    opt.runtime_us = 10.0;
    opt.batch_size = 2;
    const IODataMap out = JitExecutor::run(l.g, in, {{PhysicalChip(0), &fpga}}, opt);
    ASSERT_EQ(fpga.programs.size(), 1u);
    const Parsed p = parse(fpga.programs[0]);
    EXPECT_EQ(p.config, configuration(l.g, i0));
    EXPECT_TRUE(p.halt_last);
    ASSERT_EQ(p.runs.size(), 2u);
    // Before each run: reset of both neurons, then TIMER_RESET.
    for (const auto& b : p.before_runs) {
        ASSERT_EQ(b.size(), 3u);
        EXPECT_EQ(b[0], bss2_pb_write(BSS2_NEURON(0, 3) + BSS2_NRN_RESET, 1));
        EXPECT_EQ(b[1], bss2_pb_write(BSS2_NEURON(0, 4) + BSS2_NRN_RESET, 1));
        EXPECT_EQ(b[2], bss2_pb_make(BSS2_PB_TIMER_RESET, 0));
    }
    const std::vector<uint64_t> run0 = {
        bss2_pb_make(BSS2_PB_RUN_BEGIN, 0),
        bss2_pb_wait_until(375),
        bss2_pb_spikes(3, 0x21, 0x22, 0x23),  // input order kept among equal cycles
        bss2_pb_wait_until(625),
        bss2_pb_spikes(3, 0x11, 0x12, 0x13),
        bss2_pb_spikes(1, 0x14, 0, 0),
        bss2_pb_wait_until(1250),
        bss2_pb_make(BSS2_PB_RUN_END, 0),
    };
    EXPECT_EQ(p.runs[0], run0);
    const std::vector<uint64_t> run1 = {bss2_pb_make(BSS2_PB_RUN_BEGIN, 1),
                                        bss2_pb_wait_until(1250), bss2_pb_make(BSS2_PB_RUN_END, 0)};
    EXPECT_EQ(p.runs[1], run1);
    // Outputs: the loopback, times at the injection cycles.
    ASSERT_EQ(out.spikes.count(l.out), 1u);
    const SpikeBatch& rec = out.spikes.at(l.out);
    ASSERT_EQ(rec.size(), 2u);
    ASSERT_EQ(rec[0].size(), 7u);
    EXPECT_DOUBLE_EQ(rec[0][0].time_us, 3.0);
    EXPECT_EQ(rec[0][1].event, 0x22u);
    EXPECT_DOUBLE_EQ(rec[0][1].time_us, 3.0);
    EXPECT_DOUBLE_EQ(rec[0][6].time_us, 5.0);
    EXPECT_TRUE(rec[1].empty());
    EXPECT_EQ(out.spikes.count(l.ext), 0u);  // inputs are not echoed as outputs
    EXPECT_DOUBLE_EQ(out.times.at(i0).total_us, 1001.0);
    EXPECT_DOUBLE_EQ(out.times.at(i0).host_to_fpga_us, fpga.programs[0].size() * 0.064);
    EXPECT_EQ(out.dropped.at(i0), 3u);
}

TEST(Bss2Executor, NoResetBetweenRuns) {
    Loopback l = loopback(ExecutionInstance{}, false);
    IODataMap in;
    in.spikes[l.ext] = {{}, {}, {}};
    FakeFpga fpga("chip0");
    ExecutionOptions opt;
    opt.batch_size = 3;
    opt.reset_between_runs = false;
    JitExecutor::run(l.g, in, {{PhysicalChip(0), &fpga}}, opt);
    const Parsed p = parse(fpga.programs.at(0));
    ASSERT_EQ(p.before_runs.size(), 3u);
    EXPECT_EQ(p.before_runs[0].size(), 3u);  // 2 resets + timer reset
    EXPECT_EQ(p.before_runs[1].size(), 1u);
    EXPECT_EQ(p.before_runs[2].size(), 1u);
}

TEST(Bss2Executor, MadcAndCadcReadouts) {
    Loopback l = loopback(ExecutionInstance{}, true);
    IODataMap in;
    in.spikes[l.ext] = {{{1.0, 0x5}}};
    FakeFpga fpga("chip0");
    ExecutionOptions opt;
    opt.runtime_us = 4.0;  // 500 cycles
    opt.cadc_read_delay_us = 0.5;
    const IODataMap out = JitExecutor::run(l.g, in, {{PhysicalChip(0), &fpga}}, opt);
    const Parsed p = parse(fpga.programs.at(0));
    ASSERT_EQ(p.runs.size(), 1u);
    const std::vector<uint64_t> run0 = {
        bss2_pb_make(BSS2_PB_RUN_BEGIN, 0),
        bss2_pb_write(BSS2_MADC_NEURON, 4),
        bss2_pb_write(BSS2_MADC_CTRL, 1),
        bss2_pb_wait_until(125),
        bss2_pb_spikes(1, 0x5, 0, 0),
        bss2_pb_wait_until(500),
        bss2_pb_write(BSS2_MADC_CTRL, 0),
        bss2_pb_write(BSS2_CADC_TRIGGER, 1),
        bss2_pb_wait_until(562),  // 4.5 us = 562.5 cycles -> 563? see below
        bss2_pb_read(BSS2_CADC_RESULT(0, 3)),
        bss2_pb_read(BSS2_CADC_RESULT(0, 4)),
        bss2_pb_make(BSS2_PB_RUN_END, 0),
    };
    // 4.5 us / 8 ns = 562.5 cycles; rounding to nearest goes up.
    std::vector<uint64_t> expect = run0;
    expect[8] = bss2_pb_wait_until(563);
    EXPECT_EQ(p.runs[0], expect);
    // MADC: samples at 0, 100, ..., 500 of neuron 4 (the fake streams the selected neuron id).
    VertexDescriptor madc = 0, cadc = 0;
    for (VertexDescriptor v = 0; v < l.g.size(); ++v) {
        if (std::holds_alternative<MADCReadoutView>(l.g.vertex(v))) madc = v;
        if (std::holds_alternative<CADCMembraneReadoutView>(l.g.vertex(v))) cadc = v;
    }
    const auto& samples = out.madc.at(madc).at(0);
    ASSERT_EQ(samples.size(), 6u);
    EXPECT_DOUBLE_EQ(samples[1].time_us, 0.8);
    EXPECT_EQ(samples[1].value, 4u);
    // CADC: the fake answers unwritten addresses with their low byte.
    EXPECT_EQ(out.cadc.at(cadc).at(0), (std::vector<uint32_t>{BSS2_CADC_RESULT(0, 3) & 0xFFu,
                                                              BSS2_CADC_RESULT(0, 4) & 0xFFu}));
}

TEST(Bss2Executor, DependentInstancesRunInTopologicalOrder) {
    const ExecutionInstance i0{PhysicalChip(0), TemporalIndex(0)};
    const ExecutionInstance i1{PhysicalChip(1), TemporalIndex(0)};
    Graph g;
    // Instance 1 is inserted first (its ExternalInput-free part is added later).
    const auto ext = g.add(ExternalInput{}, i0, {});
    const auto din = g.add(DataInput{}, i0, {ext});
    const auto l2 = g.add(CrossbarL2Input{}, i0, {din});
    const auto node = g.add(CrossbarNode{8, 8, 0, 0}, i0, {Input(l2, PortRestriction{0, 0})});
    const auto l2o = g.add(CrossbarL2Output{}, i0, {node});
    const auto out0 = g.add(DataOutput{}, i0, {l2o});
    // Instance 1: relabel 0x0007 -> 0x4001 (L2 channel 1), drop everything else.
    const auto map = g.add(SpikeLabelMap{{{0x0007, 0x4001}}}, i1, {out0});
    const auto din1 = g.add(DataInput{}, i1, {map});
    const auto l21 = g.add(CrossbarL2Input{}, i1, {din1});
    const auto node1 = g.add(CrossbarNode{9, 9, 0, 0}, i1, {Input(l21, PortRestriction{1, 1})});
    const auto l2o1 = g.add(CrossbarL2Output{}, i1, {node1});
    const auto out1 = g.add(DataOutput{}, i1, {l2o1});

    IODataMap in;
    in.spikes[ext] = {{{1.0, 0x0007}, {2.0, 0x0008}, {3.0, 0x0007}}, {{0.5, 0x0008}}};
    std::vector<std::string> log;
    FakeFpga chip0("chip0", &log), chip1("chip1", &log);
    ExecutionOptions opt;
    opt.batch_size = 2;
    opt.runtime_us = 10.0;
    const IODataMap out =
        JitExecutor::run(g, in, {{PhysicalChip(1), &chip1}, {PhysicalChip(0), &chip0}}, opt);
    EXPECT_EQ(log, (std::vector<std::string>{"chip0", "chip1"}));
    const SpikeBatch& mapped = out.spikes.at(map);
    ASSERT_EQ(mapped.size(), 2u);
    EXPECT_EQ(mapped[0], (SpikeTrain{{1.0, 0x4001}, {3.0, 0x4001}}));
    EXPECT_TRUE(mapped[1].empty());
    const SpikeBatch& rec = out.spikes.at(out1);
    EXPECT_EQ(rec[0], mapped[0]);
    EXPECT_TRUE(rec[1].empty());
    // Instance 1's program injects exactly the mapped spikes.
    const Parsed p1 = parse(chip1.programs.at(0));
    ASSERT_EQ(p1.runs.size(), 2u);
    EXPECT_EQ(p1.runs[0][1], bss2_pb_wait_until(125));
    EXPECT_EQ(p1.runs[0][2], bss2_pb_spikes(1, 0x4001, 0, 0));
    EXPECT_EQ(out.times.size(), 2u);
}

TEST(Bss2Executor, Errors) {
    Loopback l = loopback(ExecutionInstance{}, false);
    FakeFpga fpga("chip0");
    ExecutionOptions opt;
    opt.runtime_us = 10.0;
    IODataMap in;
    // No input data for the ExternalInput.
    EXPECT_THROW(JitExecutor::run(l.g, in, {{PhysicalChip(0), &fpga}}, opt), ExecutionError);
    // No connection for the chip.
    in.spikes[l.ext] = {{}};
    EXPECT_THROW(JitExecutor::run(l.g, in, {{PhysicalChip(1), &fpga}}, opt), ExecutionError);
    // Batch size mismatch.
    in.spikes[l.ext] = {{}, {}};
    EXPECT_THROW(JitExecutor::run(l.g, in, {{PhysicalChip(0), &fpga}}, opt), ExecutionError);
    // Spike after the run's end.
    in.spikes[l.ext] = {{{10.5, 1}}};
    try {
        JitExecutor::run(l.g, in, {{PhysicalChip(0), &fpga}}, opt);
        ADD_FAILURE() << "no error";
    } catch (const ExecutionError& e) {
        EXPECT_NE(std::string(e.what()).find("ExternalInput(0) run 0: spike at 10.5"),
                  std::string::npos)
            << e.what();
    }
    EXPECT_TRUE(fpga.programs.empty());
}

// A connection whose responses lack the HALT word.
class Truncating : public ChipConnection {
public:
    ExecutionResult execute(const std::vector<uint64_t>&) override { return {}; }
};

TEST(Bss2Executor, IncompleteResponsesAreErrors) {
    Loopback l = loopback(ExecutionInstance{}, false);
    IODataMap in;
    in.spikes[l.ext] = {{}};
    Truncating t;
    EXPECT_THROW(JitExecutor::run(l.g, in, {{PhysicalChip(0), &t}}, ExecutionOptions{}),
                 ExecutionError);
}

}  // namespace
}  // namespace nmsim::compiler::bss2

namespace nmsim::compiler::bss2 {
namespace {

TEST(Bss2Executor, HostOnlyInstancesNeedNoChip) {
    const ExecutionInstance i0{};
    Loopback l = loopback(i0, false);
    // A host-only instance on a chip without connection: just the digital operation.
    const ExecutionInstance host{PhysicalChip(5), TemporalIndex(0)};
    const auto map = l.g.add(SpikeLabelMap{{{0x21, 0x99}}}, host, {l.out});
    IODataMap in;
    in.spikes[l.ext] = {{{2.0, 0x21}, {2.5, 0x22}}};
    FakeFpga fpga("chip0");
    const IODataMap out = JitExecutor::run(l.g, in, {{PhysicalChip(0), &fpga}}, ExecutionOptions{});
    EXPECT_EQ(out.spikes.at(map), (SpikeBatch{{{2.0, 0x99}}}));
    EXPECT_EQ(out.times.count(host), 0u);
}

}  // namespace
}  // namespace nmsim::compiler::bss2
