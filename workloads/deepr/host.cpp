#include "workloads/deepr/host.h"

#include <systemc>

#include <algorithm>
#include <cstring>

#include "models/common/sim_error.h"
#include "models/spinnaker2/router/router_table.h"
#include "nmsim/hw/spinnaker2/console_regs.h"
#include "nmsim/hw/spinnaker2/noc_map.h"
#include "platforms/common/format.h"
#include "platforms/common/run_outputs.h"
#include "platforms/spinnaker2/energy.h"
#include "platforms/spinnaker2/params.h"
#include "workloads/deepr/tables.h"

namespace nmsim::workloads::deepr {

using run::fmt;

namespace {

float float_of(uint32_t u) {
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

uint64_t u64(uint32_t lo, uint32_t hi) { return uint64_t{hi} << 32 | lo; }

// The DRAM bytes at global address `addr` (interface 0 holds the workload's data).
uint64_t dram_offset(uint32_t addr) { return addr - S2_DRAM_GLOBAL_BASE; }

}  // namespace

DeeprHost::DeeprHost() = default;
DeeprHost::~DeeprHost() = default;

void DeeprHost::prepare(run::RunContext& ctx) {
    m_w = &ctx.scenario.workload.as<DeeprWorkload>();
    m_p = spinnaker2::resolve_chip_params(ctx.scenario, &ctx.params);
    m_c = compile(*m_w, m_p, ctx.scenario.seed);
    // Unless the scenario sets sim.max_time: 50 ms per iteration (about 10 x the slowest setup's
    // iteration late in training) and 5 ms per held-out image, plus 1 s.
    m_max_time_ps = m_p.sim.max_time.ps;
    for (const run::ParamValue& v : ctx.params)
        if (v.path == "sim.max_time" && v.origin == "default")
            m_max_time_ps =
                std::max<uint64_t>(m_max_time_ps, uint64_t{1'000'000'000'000} +
                                                      m_w->iterations * uint64_t{50'000'000'000} +
                                                      m_w->test_count * uint64_t{5'000'000'000});
}

void DeeprHost::load(run::RunContext& ctx) {
    m_chip = std::make_unique<spinnaker2::Chip>("s2", m_p, ctx.scenario.seed, ctx.trace,
                                                ctx.console_echo());
    spinnaker2::DramCtrl& dram = m_chip->dram(0);
    dram.store().write(dram_offset(m_c.train_addr), m_c.train_blob.data(), m_c.train_blob.size());
    dram.store().write(dram_offset(m_c.test_addr), m_c.test_blob.data(), m_c.test_blob.size());
    for (const CellLayout& cell : m_c.cells) {
        spinnaker2::Pe& pe = m_chip->pe(cell.pe);
        pe.load(*m_c.elf);
        std::memcpy(pe.sram.data() + S2_DEEPR_DATA_BASE, &cell.cfg, sizeof cell.cfg);
        std::memset(pe.sram.data() + S2_DEEPR_COUNTERS_ADDR, 0, sizeof(s2_deepr_counters_t));
    }
    // Four cores: every message is routed by its destination cell to that cell's PE.
    if (m_c.spec.four_cores) {
        std::vector<spinnaker2::RouterEntry> table;
        for (uint32_t dst = 0; dst < 4; ++dst) {
            spinnaker2::RouterEntry e;
            e.key = s2_deepr_key(dst, 0, 0, 0);
            e.mask = S2_DEEPR_KEY_DEST_MASK;
            e.pes.set(m_c.cells[dst].pe);
            table.push_back(e);
        }
        m_chip->router().load_table(table);
    }
    spinnaker2::add_chip_energy(m_meter, *m_chip);
    m_meter.attach(*ctx.trace);
    m_meter.start("init", 0);
    m_chip->pe(m_c.cells[0].pe).console.on_mark = [this](uint32_t v, uint64_t t) {
        if (v == S2_DEEPR_MARK_TRAIN) {
            m_train_ps = t;
            m_meter.mark("train", t);
        } else if (v == S2_DEEPR_MARK_TEST) {
            m_test_ps = t;
            m_meter.mark("test", t);
        }
    };
    ctx.trace->declare_table(IterationRecord_schema());
    ctx.trace->declare_table(PeMemoryRecord_schema());
}

void DeeprHost::begin(run::RunContext& ctx) {
    const trace::TableId t = ctx.trace->declare_table(PeMemoryRecord_schema());
    std::vector<size_t> pes;
    for (size_t c = 0; c < m_c.cells.size(); ++c) {
        const CellLayout& cell = m_c.cells[c];
        PeMemoryRecord r{cell.pe,         uint32_t(c),       cell.fp.weights,
                         cell.fp.vectors, cell.fp.temporary, cell.fp.data};
        ctx.trace->append(t, &r);
        pes.push_back(cell.pe);
    }
    m_chip->start(pes);
}

const s2_deepr_counters_t& DeeprHost::counters(size_t cell) const {
    return *reinterpret_cast<const s2_deepr_counters_t*>(
        m_chip->pe(m_c.cells[cell].pe).sram.data() + S2_DEEPR_COUNTERS_ADDR);
}

run::Progress DeeprHost::progress() const {
    uint64_t done = m_w->iterations;
    for (size_t c = 0; c < m_c.cells.size(); ++c)
        done = std::min<uint64_t>(done, counters(c).iterations_done);
    return {done, m_w->iterations, "iterations"};
}

void DeeprHost::collect(run::RunContext& ctx) {
    const uint64_t now = sc_core::sc_time_stamp().value();
    run::finish_energy(m_meter, *ctx.trace, now);
    if (sim_error().set) {
        ctx.sim_failed(sim_error().formatted());
    } else {
        for (const CellLayout& cell : m_c.cells) {
            const std::string problem =
                spinnaker2::core_problem(m_chip->pe(cell.pe), m_p.sim.max_time);
            if (!problem.empty()) {
                ctx.sim_failed(problem);
                break;
            }
        }
    }
    const s2_deepr_counters_t& c0 = counters(0);
    m_sum.iterations = progress().done;
    m_sum.rewiring_steps = c0.rewiring_steps;
    m_sum.correct_train = c0.correct_train;
    m_sum.correct_test = c0.correct_test;
    m_sum.test_count = c0.done ? m_w->test_count : 0;
    m_sum.exps = 0;
    for (size_t c = 0; c < m_c.cells.size(); ++c) {
        const s2_deepr_counters_t& k = counters(c);
        m_sum.deleted += k.deleted;
        m_sum.inserted += k.inserted;
        m_sum.prng_draws += u64(k.prng_draws_lo, k.prng_draws_hi);
        m_sum.exps += k.exps;
        m_sum.messages += k.messages_sent;
        m_sum.max_pending = std::max<uint64_t>(m_sum.max_pending, k.max_pending);
    }
    m_sum.import_cycles = double(u64(c0.cycles_import_lo, c0.cycles_import_hi));
    m_sum.forward_cycles = double(u64(c0.cycles_forward_lo, c0.cycles_forward_hi));
    m_sum.backward_cycles = double(u64(c0.cycles_backward_lo, c0.cycles_backward_hi));
    m_sum.rewire_cycles = double(u64(c0.cycles_rewire_lo, c0.cycles_rewire_hi));
    m_sum.test_cycles = double(u64(c0.cycles_test_lo, c0.cycles_test_hi));
    const uint64_t train_end = m_test_ps ? m_test_ps : now;
    m_sum.train_us = m_train_ps ? double(train_end - m_train_ps) * 1e-6 : 0.0;
    m_sum.test_us = m_test_ps ? double(now - m_test_ps) * 1e-6 : 0.0;
    std::vector<std::string> drams;
    for (size_t i = 0; i < m_chip->dram_count(); ++i) drams.push_back(m_chip->dram(i).name());
    for (const auto& row : m_meter.rows()) {
        if (row.phase != "train") continue;
        m_sum.energy_uj += row.energy_j * 1e6;
        if (std::find(drams.begin(), drams.end(), row.component) != drams.end())
            m_sum.dram_energy_uj += row.energy_j * 1e6;
    }
    if (m_sum.train_us > 0) m_sum.mean_power_mw = m_sum.energy_uj / m_sum.train_us * 1e3;
    read_records(ctx);
    m_chip->write_summaries();
}

// Each PE's records from DRAM into the trace.
void DeeprHost::read_records(run::RunContext& ctx) {
    if (!m_w->record) return;
    const trace::TableId t = ctx.trace->declare_table(IterationRecord_schema());
    const uint64_t n = m_sum.iterations;
    for (size_t c = 0; c < m_c.cells.size(); ++c) {
        std::vector<s2_deepr_record_t> recs(n);
        m_chip->dram(0).store().read(dram_offset(m_c.cells[c].cfg.records),
                                     reinterpret_cast<uint8_t*>(recs.data()),
                                     recs.size() * sizeof(s2_deepr_record_t));
        for (const s2_deepr_record_t& r : recs) {
            IterationRecord ir{};
            ir.iteration = r.iteration;
            ir.cell = uint32_t(c);
            ir.label = r.label_pred & 0xFFu;
            ir.pred = (r.label_pred >> 8) & 0xFFu;
            ir.cycles = r.cycles;
            for (uint32_t ch : r.changes) {
                ir.deleted += ch >> 16;
                ir.inserted += ch & 0xFFFFu;
            }
            ctx.trace->append(t, &ir);
        }
        m_records.push_back(std::move(recs));
    }
}

std::string DeeprHost::check_iteration(uint64_t k,
                                       const reference::DeeprIteration<float>& want) const {
    const std::string at = "iteration " + std::to_string(k);
    const s2_deepr_record_t& r0 = m_records[0][k];
    if (r0.iteration != k)
        return at + ": the record holds iteration " + std::to_string(r0.iteration);
    if ((r0.label_pred & 0xFFu) != want.label || ((r0.label_pred >> 8) & 0xFFu) != want.pred)
        return at + ": label " + std::to_string(r0.label_pred & 0xFFu) + " predicted " +
               std::to_string((r0.label_pred >> 8) & 0xFFu) + ", the reference " +
               std::to_string(want.label) + " predicted " + std::to_string(want.pred);
    for (uint32_t j = 0; j < std::min<uint32_t>(m_c.spec.n[3], 10); ++j)
        if (r0.prob[j] != float_bits(want.prob[j]))
            return at + ": probability " + std::to_string(j) + " is " +
                   fmt(float_of(r0.prob[j]), 9) + ", the reference " + fmt(want.prob[j], 9);
    for (size_t c = 0; c < m_records.size(); ++c)
        for (unsigned l = 0; l < 3; ++l) {
            const uint32_t got = m_records[c][k].changes[l];
            if ((got >> 16) != want.deleted[c][l] || (got & 0xFFFFu) != want.inserted[c][l])
                return at + ", PE " + std::to_string(m_c.cells[c].pe) + " block " +
                       std::to_string(l + 1) + ": " + std::to_string(got >> 16) + " deleted and " +
                       std::to_string(got & 0xFFFFu) + " inserted, the reference " +
                       std::to_string(want.deleted[c][l]) + " and " +
                       std::to_string(want.inserted[c][l]);
        }
    return "";
}

// Every entry of every block in SRAM against the reference's.
std::string DeeprHost::check_final(const reference::DeeprTrainer<float>& ref) const {
    for (size_t c = 0; c < m_c.cells.size(); ++c) {
        const uint8_t* sram = m_chip->pe(m_c.cells[c].pe).sram.data();
        const s2_deepr_config_t* cfg =
            reinterpret_cast<const s2_deepr_config_t*>(sram + S2_DEEPR_DATA_BASE);
        for (unsigned l = 0; l < 3; ++l) {
            const s2_deepr_layer_t& L = cfg->layer[l];
            const reference::DeeprBlock<float>& b = ref.block(unsigned(c), l);
            const std::string at = "final weights, PE " + std::to_string(m_c.cells[c].pe) +
                                   " block " + std::to_string(l + 1);
            if (L.count != b.rows.size())
                return at + ": " + std::to_string(L.count) + " entries, the reference " +
                       std::to_string(b.rows.size());
            for (uint32_t k = 0; k < L.count; ++k) {
                int16_t row, col;
                uint32_t th, sw;
                std::memcpy(&row, sram + L.rows + 2 * k, 2);
                std::memcpy(&col, sram + L.cols + 2 * k, 2);
                std::memcpy(&th, sram + L.theta + 4 * k, 4);
                std::memcpy(&sw, sram + L.signs + 4 * (k / 32), 4);
                const uint32_t sign = (sw >> (k % 32)) & 1u;
                if (uint16_t(row) != b.rows[k] || uint16_t(col) != b.cols[k] ||
                    th != float_bits(b.theta[k]) || sign != b.sign[k])
                    return at + " entry " + std::to_string(k) + ": (" + std::to_string(row) + ", " +
                           std::to_string(col) + ", " + fmt(float_of(th), 9) + ", sign " +
                           std::to_string(sign) + "), the reference (" + std::to_string(b.rows[k]) +
                           ", " + std::to_string(b.cols[k]) + ", " + fmt(b.theta[k], 9) +
                           ", sign " + std::to_string(b.sign[k]) + ")";
            }
        }
    }
    return "";
}

// Every iteration (label, prediction, probabilities, rewiring counts), the final weights and the
// held-out predictions against the float32 reference; the double reference gives the accuracy
// of the same training without float32 rounding.
void DeeprHost::check(run::RunContext& ctx) {
    if (!m_w->check || ctx.result.sim_error) return;
    reference::DeeprTrainer<float> ref(m_c.spec);
    const uint32_t n0 = m_c.spec.n[0];
    const uint32_t count = static_cast<uint32_t>(m_w->train_count);
    for (uint64_t k = 0; k < m_sum.iterations; ++k) {
        const uint32_t i = static_cast<uint32_t>(k % count);
        const auto want =
            ref.train(m_c.train.images.data() + size_t(i) * n0, m_c.train.labels[i], k);
        if (m_first_mismatch.empty()) m_first_mismatch = check_iteration(k, want);
        if (!m_first_mismatch.empty()) {
            ++m_sum.mismatches;
            break;
        }
    }
    if (m_first_mismatch.empty()) m_first_mismatch = check_final(ref);
    uint64_t correct = 0;
    for (uint32_t i = 0; i < m_sum.test_count; ++i)
        correct += ref.classify(m_c.test.images.data() + size_t(i) * n0) == m_c.test.labels[i];
    if (m_first_mismatch.empty() && correct != m_sum.correct_test)
        m_first_mismatch = "held-out set: " + std::to_string(m_sum.correct_test) +
                           " classified right on the chip, " + std::to_string(correct) +
                           " by the reference";
    m_sum.checked = true;
    if (!m_first_mismatch.empty()) {
        m_sum.mismatches = std::max<uint64_t>(m_sum.mismatches, 1);
        ctx.check_failed(
            "check failed: the chip's training differs from the bit-exact reference: " +
            m_first_mismatch);
    }
}

}  // namespace nmsim::workloads::deepr
