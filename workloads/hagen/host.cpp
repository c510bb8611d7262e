// The hagen workload's host program (host.h).
#include "workloads/hagen/host.h"

#include <systemc>

#include <algorithm>
#include <cmath>

#include "models/common/sim_error.h"
#include "nmsim/trace/hdf5_writer.h"
#include "platforms/brainscales2/energy.h"
#include "platforms/brainscales2/params.h"
#include "platforms/common/format.h"
#include "platforms/common/run_outputs.h"
#include "tools/scenario/errors.h"
#include "workloads/hagen/tables.h"

namespace nmsim::workloads::hagen {

using nmsim::bss2::Chip;
using run::fmt;

// The host computer: runs the product on the executor in simulated time, then stops the kernel.
class HagenHost::Driver : public sc_core::sc_module {
public:
    Driver(sc_core::sc_module_name n, std::vector<Chip*> chips, const Compiled& c,
           const nmsim::bss2::HagenHostParams& hp, uint64_t max_words)
        : sc_core::sc_module(n), m_exec(std::move(chips), hp), m_c(c) {
        m_exec.set_max_program_words(max_words);
        SC_HAS_PROCESS(Driver);
        SC_THREAD(main);
    }
    uint64_t vectors_decoded() const { return m_exec.vectors_decoded(); }
    hg::IntMatrix y;
    nmsim::bss2::HagenTimes times;
    bool finished = false;
    std::string error;

private:
    void main() {
        try {
            y = m_exec.matmul(m_c.x, m_c.w, m_c.plan, m_c.timing, &times);
            finished = true;
        } catch (const std::exception& e) {
            error = e.what();
        }
        sc_core::sc_stop();
    }
    nmsim::bss2::HagenExecutor m_exec;
    const Compiled& m_c;
};

HagenHost::HagenHost() = default;
HagenHost::~HagenHost() = default;

void HagenHost::prepare(run::RunContext& ctx) {
    m_w = &ctx.scenario.workload.as<HagenWorkload>();
    m_p = nmsim::bss2::resolve_bss2_params(ctx.scenario, &ctx.params);
    try {
        m_c = compile(*m_w, ctx.scenario.seed);
    } catch (const hg::OperatorError& e) {
        throw scenario::ScenarioError(
            {scenario::ConfigError{m_w->origin, "workload.hagen", e.what()}});
    }
    const auto& n = m_p.neuron;
    m_check.ideal = n.mismatch_tau_rel == 0 && n.mismatch_c_rel == 0 && n.mismatch_w_rel == 0 &&
                    n.mismatch_v_mV == 0 && n.noise_mV == 0 && m_p.cadc.noise_lsb == 0;
}

void HagenHost::load(run::RunContext& ctx) {
    std::vector<Chip*> chips;
    for (uint32_t i = 0; i < m_w->chips; ++i) {
        // Each chip its own fixed pattern: the seed differs per chip.
        m_chips.push_back(std::make_unique<Chip>(("bss2_" + std::to_string(i)).c_str(), m_p,
                                                 ctx.scenario.seed + 7919 * i));
        m_chips.back()->attach_trace(ctx.trace);
        nmsim::bss2::add_bss2_energy(m_meter, *m_chips.back());
        chips.push_back(m_chips.back().get());
    }
    m_driver = std::make_unique<Driver>("host", chips, m_c, m_p.host, m_w->max_program_words);
    m_meter.attach(*ctx.trace);
    m_meter.start("product", 0);
    ctx.trace->declare_table(TileRecord_schema());
    ctx.trace->declare_table(ColumnRecord_schema());
}

void HagenHost::begin(run::RunContext& ctx) {
    const auto t = ctx.trace->declare_table(TileRecord_schema());
    for (const hg::Tile& tile : m_c.plan.tiles) {
        TileRecord r{tile.chip, tile.half, tile.pass, tile.row0, tile.rows, tile.col0, tile.cols};
        ctx.trace->append(t, &r);
    }
}

// Tile vectors whose results the host has decoded, of batch x tiles.
run::Progress HagenHost::progress() const {
    const uint64_t total = uint64_t{m_c.x.rows} * m_c.plan.tiles.size();
    return {m_driver ? std::min(m_driver->vectors_decoded(), total) : 0, total, "tile vectors"};
}

void HagenHost::collect(run::RunContext& ctx) {
    run::finish_energy(m_meter, *ctx.trace, sc_core::sc_time_stamp().value());
    double total_j = 0;
    for (const auto& row : m_meter.rows()) total_j += row.energy_j;
    std::vector<const Chip*> chips;
    for (const auto& c : m_chips) chips.push_back(c.get());
    m_chip_uj = nmsim::bss2::chip_energy(m_meter, chips).all_j * 1e6;
    m_total_uj = total_j * 1e6;
    run::write_metric(*ctx.trace, "energy.chip_uJ", "uJ", m_chip_uj);
    if (sim_error().set)
        ctx.sim_failed(sim_error().formatted());
    else if (!m_driver->error.empty())
        ctx.sim_failed(m_driver->error);
    else if (!m_driver->finished)
        ctx.sim_failed("timeout: the product had not finished at sim.max_time = " +
                       fmt(m_p.sim.max_time.seconds() * 1e6, 0) + " us of simulated time");
    for (const auto& chip : m_chips) {
        const std::string bad = chip->invalid_neurons();
        if (!bad.empty()) ctx.sim_failed(std::string(chip->name()) + ": " + bad);
        chip->write_summary(*ctx.trace);
    }
    m_y = m_driver->y;
    m_times = m_driver->times;
}

// Bit for bit in the ideal setting; otherwise the deviation is measured and reported.
void HagenHost::check(run::RunContext& ctx) {
    if (!m_w->check || !m_driver->finished) return;
    const hg::IntMatrix ref = hg::reference_matmul(m_c.x, m_c.w, m_c.timing.num_sends, m_c.plan);
    CheckSummary& s = m_check;
    const uint32_t out = m_c.w.cols;
    std::vector<double> sum(out, 0), sum2(out, 0);
    std::vector<uint32_t> worst(out, 0);
    double sy = 0, sr = 0, syy = 0, srr = 0, syr = 0, se2 = 0, sabs = 0;
    for (size_t k = 0; k < ref.v.size(); ++k) {
        const double y = m_y.v[k], r = ref.v[k], e = y - r;
        if (m_y.v[k] != ref.v[k] && s.differ++ == 0) s.first_bad = k;
        const uint32_t c = static_cast<uint32_t>(k % out);
        sum[c] += e;
        sum2[c] += e * e;
        worst[c] = std::max(worst[c], static_cast<uint32_t>(std::abs(e)));
        sy += y, sr += r, syy += y * y, srr += r * r, syr += y * r, se2 += e * e;
        sabs += std::abs(e);
    }
    s.values = ref.v.size();
    const double n = static_cast<double>(s.values);
    s.mean_abs_lsb = sabs / n;
    s.rms_lsb = std::sqrt(se2 / n);
    s.max_abs_lsb = *std::max_element(worst.begin(), worst.end());
    const double vy = syy - sy * sy / n, vr = srr - sr * sr / n;
    s.correlation = (vy > 0 && vr > 0) ? (syr - sy * sr / n) / std::sqrt(vy * vr) : 1.0;
    const auto t = ctx.trace->declare_table(ColumnRecord_schema());
    const double b = m_c.x.rows;
    for (uint32_t c = 0; c < out; ++c) {
        const double mean = sum[c] / b;
        ColumnRecord r{mean, std::sqrt(std::max(0.0, sum2[c] / b - mean * mean)), c, worst[c]};
        ctx.trace->append(t, &r);
    }
    if (s.ideal && s.differ) {
        const uint64_t v = s.first_bad / out, c = s.first_bad % out;
        ctx.check_failed("hagen: " + std::to_string(s.differ) + " of " + std::to_string(s.values) +
                         " values differ from the integer reference in the ideal setting; first: "
                         "vector " +
                         std::to_string(v) + ", column " + std::to_string(c) + ": " +
                         std::to_string(m_y.v[s.first_bad]) + " instead of " +
                         std::to_string(ref.v[s.first_bad]));
    }
}

// hagen.* metrics: the rate, the time split, the values' deviation.
void HagenHost::write_metrics(run::RunContext& ctx) {
    trace::Sink& w = *ctx.trace;
    const auto& t = m_times;
    const auto us = [](uint64_t ps) { return static_cast<double>(ps) * 1e-6; };
    run::write_metric(w, "hagen.macs", "1", static_cast<double>(t.macs));
    run::write_metric(w, "hagen.vectors", "1", static_cast<double>(t.vectors));
    run::write_metric(w, "hagen.tiles", "1", static_cast<double>(m_c.plan.tiles.size()));
    run::write_metric(w, "hagen.executions", "1", static_cast<double>(t.executions));
    run::write_metric(w, "hagen.wall_us", "us", us(t.wall_ps));
    run::write_metric(w, "hagen.gops", "Gop/s",
                      t.wall_ps ? static_cast<double>(t.macs) / us(t.wall_ps) * 1e-3 : 0.0);
    run::write_metric(w, "hagen.config_words", "1", static_cast<double>(t.config_words));
    run::write_metric(w, "hagen.vector_words", "1", static_cast<double>(t.vector_words));
    run::write_metric(w, "hagen.response_words", "1", static_cast<double>(t.response_words));
    // Seed 002 Fig. 8: the batch at which the static configuration's data volume equals the
    // vectors' (program and responses).
    if (t.vector_words + t.response_words)
        run::write_metric(w, "hagen.break_even_batch", "1",
                          static_cast<double>(t.config_words) * m_c.x.rows /
                              static_cast<double>(t.vector_words + t.response_words));
    run::write_metric(w, "hagen.transfer_us", "us", us(t.transfer_ps));
    run::write_metric(w, "hagen.config_us", "us", us(t.config_ps));
    run::write_metric(w, "hagen.realtime_us", "us", us(t.realtime_ps));
    run::write_metric(w, "hagen.other_us", "us", us(t.other_ps));
    run::write_metric(w, "hagen.host_graph_us", "us", us(t.host_graph_ps));
    run::write_metric(w, "hagen.host_preprocess_us", "us", us(t.host_preprocess_ps));
    run::write_metric(w, "hagen.host_encode_us", "us", us(t.host_encode_ps));
    run::write_metric(w, "hagen.host_decode_us", "us", us(t.host_decode_ps));
    run::write_metric(w, "hagen.host_postprocess_us", "us", us(t.host_postprocess_ps));
    run::write_metric(w, "hagen.bound_1g_gops", "Gop/s", transport_bound_ops(m_c.plan, 1e9) * 1e-9);
    run::write_metric(w, "hagen.bound_8g_gops", "Gop/s", transport_bound_ops(m_c.plan, 8e9) * 1e-9);
    if (m_check.values) {
        run::write_metric(w, "hagen.differ", "1", static_cast<double>(m_check.differ));
        run::write_metric(w, "hagen.mean_abs_error_lsb", "LSB", m_check.mean_abs_lsb);
        run::write_metric(w, "hagen.rms_error_lsb", "LSB", m_check.rms_lsb);
        run::write_metric(w, "hagen.correlation", "1", m_check.correlation);
    }
    if (t.macs && m_chip_uj > 0)
        run::write_metric(w, "hagen.chip_pj_per_mac", "pJ", m_chip_uj * 1e6 / double(t.macs));
}

}  // namespace nmsim::workloads::hagen
