#include "workloads/bss2/host.h"

#include <systemc>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "models/common/sim_error.h"
#include "nmsim/trace/hdf5_writer.h"
#include "platforms/brainscales2/energy.h"
#include "platforms/brainscales2/params.h"
#include "platforms/common/format.h"
#include "platforms/common/run_outputs.h"
#include "workloads/bss2/tables.h"

namespace nmsim::workloads::bss2 {

using nmsim::bss2::Chip;
using run::copy_str;
using run::fmt;

namespace {

void fnv(uint64_t& h, uint64_t v) {
    for (int i = 0; i < 8; ++i) {
        h ^= (v >> (8 * i)) & 0xFFu;
        h *= 0x100000001b3ull;
    }
}

// The simulated chip as the executor's connection: each program goes through the FPGA model.
class SimConnection : public cb::ChipConnection {
public:
    explicit SimConnection(Chip& chip) : m_chip(chip) {}
    cb::ExecutionResult execute(const std::vector<uint64_t>& program) override {
        nmsim::bss2::ExecutionTiming t;
        cb::ExecutionResult r;
        r.responses = m_chip.fpga().execute(program, &t);
        const std::string bad = m_chip.invalid_neurons();
        if (!bad.empty()) throw cb::ExecutionError("invalid neuron configuration: " + bad);
        r.times.host_to_fpga_us = static_cast<double>(t.host_to_fpga_ps) * 1e-6;
        r.times.config_us = static_cast<double>(t.config_ps) * 1e-6;
        r.times.realtime_us = static_cast<double>(t.realtime_ps) * 1e-6;
        r.times.readback_us = static_cast<double>(t.readback_ps) * 1e-6;
        r.times.total_us = static_cast<double>(t.total_ps) * 1e-6;
        return r;
    }

private:
    Chip& m_chip;
};

}  // namespace

// The host computer: runs the just-in-time executor in simulated time, then stops the kernel.
class Bss2Host::Driver : public sc_core::sc_module {
public:
    Driver(sc_core::sc_module_name n, Chip& chip, const Compiled& c)
        : sc_core::sc_module(n), conn(chip), m_c(c) {
        SC_HAS_PROCESS(Driver);
        SC_THREAD(main);
    }
    cb::IODataMap outputs;
    bool finished = false;
    std::string error;
    SimConnection conn;

private:
    void main() {
        try {
            outputs =
                cb::JitExecutor::run(m_c.graph, m_c.inputs, {{cb::PhysicalChip{0}, &conn}}, m_c.eo);
            finished = true;
        } catch (const std::exception& e) {
            error = e.what();
        }
        sc_core::sc_stop();
    }
    const Compiled& m_c;
};

Bss2Host::Bss2Host() = default;
Bss2Host::~Bss2Host() = default;

void Bss2Host::prepare(run::RunContext& ctx) {
    m_w = &ctx.scenario.workload.as<Bss2Workload>();
    m_p = nmsim::bss2::resolve_bss2_params(ctx.scenario, &ctx.params);
    try {
        m_c = compile(*m_w, ctx.scenario.seed);
    } catch (const cb::NetworkError& e) {
        throw std::runtime_error(e.what());
    } catch (const cb::GraphError& e) {
        throw std::runtime_error(std::string("signal-flow graph: ") + e.what());
    }
}

void Bss2Host::load(run::RunContext& ctx) {
    m_chip = std::make_unique<Chip>("bss2", m_p, ctx.scenario.seed);
    m_chip->attach_trace(ctx.trace);
    m_driver = std::make_unique<Driver>("host", *m_chip, m_c);
    nmsim::bss2::add_bss2_energy(m_meter, *m_chip);
    m_meter.attach(*ctx.trace);
    m_chip->fpga().on_phase = [this](const std::string& phase, uint64_t t) {
        m_meter.mark(phase, t);
        if (phase.rfind("run", 0) == 0) ++m_runs_begun;
    };
    m_meter.start("host", 0);
    for (const auto& schema :
         {&InputSpikeRecord_schema(), &OutputSpikeRecord_schema(), &MadcSampleRecord_schema(),
          &ConfigWordRecord_schema(), &PlacementRecord_schema(), &PopulationRecord_schema(),
          &RunRecord_schema(), &RateRecord_schema()})
        ctx.trace->declare_table(*schema);
}

// The tables known before the run: configuration, placement, populations, runs, input spikes.
void Bss2Host::begin(run::RunContext& ctx) {
    trace::Hdf5Writer& w = *ctx.trace;
    const auto t_cfg = w.declare_table(ConfigWordRecord_schema());
    for (const auto& [a, d] : m_c.config) {
        ConfigWordRecord rec{a, d};
        w.append(t_cfg, &rec);
    }
    const auto t_pl = w.declare_table(PlacementRecord_schema());
    for (size_t pi = 0; pi < m_c.net.populations.size(); ++pi)
        for (size_t i = 0; i < m_c.pl.populations[pi].neurons.size(); ++i) {
            const auto& sl = m_c.pl.populations[pi].neurons[i];
            PlacementRecord rec{static_cast<uint16_t>(pi),      static_cast<uint16_t>(i),
                                static_cast<uint16_t>(sl.hemi), static_cast<uint16_t>(sl.col),
                                static_cast<uint16_t>(sl.addr), 0};
            w.append(t_pl, &rec);
        }
    const auto t_pop = w.declare_table(PopulationRecord_schema());
    for (size_t pi = 0; pi < m_c.net.populations.size(); ++pi) {
        const cb::Population& pop = m_c.net.populations[pi];
        PopulationRecord rec{};
        rec.size = static_cast<uint32_t>(pop.size);
        rec.population = static_cast<uint16_t>(pi);
        copy_str(rec.name, sizeof rec.name, pop.name);
        copy_str(rec.kind, sizeof rec.kind, cb::to_string(pop.kind));
        w.append(t_pop, &rec);
    }
    const auto t_runs = w.declare_table(RunRecord_schema());
    for (size_t r = 0; r < m_w->runs.size(); ++r) {
        RunRecord rec{};
        rec.input_rate_hz =
            m_w->input_rate_hz(r).value_or(std::numeric_limits<double>::quiet_NaN());
        rec.runtime_us = m_w->runtime_us;
        rec.run = static_cast<uint32_t>(r);
        w.append(t_runs, &rec);
    }
    // Input spikes as sent (the executor rounds them to the FPGA clock: recorded rounded here too).
    if (m_c.gm.external_input) {
        const auto t_in = w.declare_table(InputSpikeRecord_schema());
        std::map<uint32_t, std::pair<size_t, size_t>> who;
        for (const auto& [pi, evs] : m_c.gm.input_events)
            for (size_t i = 0; i < evs.size(); ++i) who[evs[i]] = {pi, i};
        const auto& batch = m_c.inputs.spikes.at(*m_c.gm.external_input);
        for (size_t run = 0; run < batch.size(); ++run)
            for (const auto& sp : batch[run]) {
                const auto it = who.find(sp.event);
                InputSpikeRecord rec{};
                rec.t_ps = static_cast<uint64_t>(
                    std::llround(cb::cycles_to_us(cb::us_to_cycles(sp.time_us)) * 1e6));
                rec.run = static_cast<uint32_t>(run);
                rec.population = static_cast<uint16_t>(it == who.end() ? 0xFFFF : it->second.first);
                rec.neuron = static_cast<uint16_t>(it == who.end() ? 0xFFFF : it->second.second);
                rec.event = static_cast<uint16_t>(sp.event);
                w.append(t_in, &rec);
            }
    }
}

// Realtime runs done: a run is done when the next phase after it begins (the FPGA marks each).
run::Progress Bss2Host::progress() const {
    const uint64_t total = m_w->runs.size();
    const uint64_t done = m_driver->finished ? total : (m_runs_begun > 0 ? m_runs_begun - 1 : 0);
    return {std::min(done, total), total, "runs"};
}

void Bss2Host::collect(run::RunContext& ctx) {
    run::finish_energy(m_meter, *ctx.trace, sc_core::sc_time_stamp().value());
    // The chip alone (seed 004 sec. 5.6.4 quotes chip-only energies), in all phases and in the
    // realtime runs: without the setup's static power and the FPGA's events.
    const nmsim::bss2::ChipEnergy chip = nmsim::bss2::chip_energy(m_meter, {m_chip.get()}, "run");
    m_sum.chip_uj = chip.all_j * 1e6;
    m_sum.chip_realtime_uj = chip.phase_j * 1e6;
    run::write_metric(*ctx.trace, "energy.chip_uJ", "uJ", m_sum.chip_uj);
    run::write_metric(*ctx.trace, "energy.chip_realtime_uJ", "uJ", m_sum.chip_realtime_uj);
    if (sim_error().set)
        ctx.sim_failed(sim_error().formatted());
    else if (!m_driver->error.empty())
        ctx.sim_failed(m_driver->error);
    else if (!m_driver->finished)
        ctx.sim_failed("timeout: the experiment had not finished at sim.max_time = " +
                       fmt(m_p.sim.max_time.seconds() * 1e6, 0) + " us of simulated time");
    decode_outputs(ctx);
    m_chip->write_summary(*ctx.trace);
}

// What the host received: spikes and MADC samples to trace rows, rates per run and population,
// the time split, drops.
void Bss2Host::decode_outputs(run::RunContext& ctx) {
    trace::Hdf5Writer& w = *ctx.trace;
    Bss2RunSummary& sum = m_sum;
    const Compiled& P = m_c;
    sum.runs = m_w->runs.size();
    sum.runtime_us = m_w->runtime_us;
    const double run_s = m_w->runtime_us * 1e-6;
    for (const auto& pop : P.net.populations) {
        PopulationStats ps;
        ps.name = pop.name;
        ps.kind = cb::to_string(pop.kind);
        ps.size = pop.size;
        ps.rate_hz.assign(sum.runs, 0.0);
        ps.run_spikes.assign(sum.runs, 0);
        sum.populations.push_back(ps);
    }
    for (size_t run = 0; run < P.injected.size(); ++run)
        for (const auto& [pi, n] : P.injected[run]) {
            sum.populations[pi].spikes += n;
            sum.populations[pi].run_spikes[run] += n;
            sum.populations[pi].rate_hz[run] =
                static_cast<double>(n) / static_cast<double>(P.net.populations[pi].size) / run_s;
            sum.input_spikes += n;
        }
    const cb::IODataMap& outputs = m_driver->outputs;
    if (m_driver->finished) {
        const auto t_out = w.declare_table(OutputSpikeRecord_schema());
        if (P.gm.data_output) {
            auto it = outputs.spikes.find(*P.gm.data_output);
            if (it != outputs.spikes.end()) {
                std::vector<std::vector<uint64_t>> counts(
                    sum.runs, std::vector<uint64_t>(P.net.populations.size(), 0));
                for (size_t run = 0; run < it->second.size() && run < sum.runs; ++run)
                    for (const auto& sp : it->second[run]) {
                        ++sum.recorded_spikes;
                        fnv(sum.output_hash, run);
                        fnv(sum.output_hash, static_cast<uint64_t>(std::llround(sp.time_us * 1e6)));
                        fnv(sum.output_hash, sp.event);
                        const auto who = P.gm.output_events.find(sp.event);
                        OutputSpikeRecord rec{};
                        rec.t_ps = static_cast<uint64_t>(std::llround(sp.time_us * 1e6));
                        rec.run = static_cast<uint32_t>(run);
                        rec.event = static_cast<uint16_t>(sp.event);
                        rec.population = rec.neuron = 0xFFFF;
                        if (who != P.gm.output_events.end()) {
                            rec.population = static_cast<uint16_t>(who->second.first);
                            rec.neuron = static_cast<uint16_t>(who->second.second);
                            ++counts[run][who->second.first];
                        }
                        w.append(t_out, &rec);
                    }
                for (size_t run = 0; run < sum.runs; ++run)
                    for (size_t pi = 0; pi < P.net.populations.size(); ++pi) {
                        if (P.net.populations[pi].kind != cb::PopulationKind::internal) continue;
                        sum.populations[pi].spikes += counts[run][pi];
                        sum.populations[pi].run_spikes[run] += counts[run][pi];
                        sum.populations[pi].rate_hz[run] =
                            static_cast<double>(counts[run][pi]) /
                            static_cast<double>(P.net.populations[pi].size) / run_s;
                    }
            }
        }
        if (P.madc) {
            const auto t_madc = w.declare_table(MadcSampleRecord_schema());
            auto it = outputs.madc.find(*P.madc);
            if (it != outputs.madc.end()) {
                const double lsb =
                    (m_p.madc.v_max - m_p.madc.v_min) / static_cast<double>(1u << m_p.madc.bits);
                for (size_t run = 0; run < it->second.size(); ++run)
                    for (const auto& smp : it->second[run]) {
                        MadcSampleRecord rec{};
                        rec.t_ps = static_cast<uint64_t>(std::llround(smp.time_us * 1e6));
                        rec.v_mV = m_p.madc.v_min + (static_cast<double>(smp.value) + 0.5) * lsb;
                        rec.run = static_cast<uint32_t>(run);
                        rec.neuron = static_cast<uint16_t>(P.madc_neuron);
                        rec.code = static_cast<uint16_t>(smp.value);
                        w.append(t_madc, &rec);
                        ++sum.madc_samples;
                        fnv(sum.output_hash, run);
                        fnv(sum.output_hash, rec.t_ps);
                        fnv(sum.output_hash, rec.code);
                    }
            }
        }
        for (const auto& [inst, t] : outputs.times) {
            sum.host_to_fpga_us += t.host_to_fpga_us;
            sum.config_us += t.config_us;
            sum.realtime_us += t.realtime_us;
            sum.readback_us += t.readback_us;
            sum.total_us += t.total_us;
        }
        for (const auto& [inst, d] : outputs.dropped) sum.fpga_drops += d;
    }
    const auto t_rates = w.declare_table(RateRecord_schema());
    for (size_t run = 0; run < sum.runs; ++run)
        for (size_t pi = 0; pi < sum.populations.size(); ++pi) {
            const PopulationStats& ps = sum.populations[pi];
            if (ps.kind == "background") continue;  // not measured (the report prints "bg")
            RateRecord rec{ps.rate_hz[run], ps.run_spikes[run], static_cast<uint32_t>(run),
                           static_cast<uint16_t>(pi), 0};
            w.append(t_rates, &rec);
        }
    sum.chip_spikes = m_chip->chip_spikes();
    sum.neuron_steps = m_chip->neurons().steps();
    sum.neuron_leap_steps = m_chip->neurons().leap_steps();
    sum.late_waits = m_chip->fpga().counters().late_waits;
    for (uint32_t h = 0; h < BSS2_HEMISPHERES; ++h) {
        for (uint32_t b = 0; b < BSS2_PADI_PER_HEMI; ++b)
            sum.padi_drops += m_chip->padi(h, b).drops();
        sum.synaptic_events += m_chip->synapses(h).synaptic_events();
    }
}

// bss2.* metrics: rates per population (mean over runs, and per run), spikes, drops, time split.
void Bss2Host::write_metrics(run::RunContext& ctx) {
    trace::Sink& w = *ctx.trace;
    const Bss2RunSummary& sum = m_sum;
    for (const auto& ps : sum.populations) {
        if (ps.kind == "background") continue;
        double mean = 0;
        for (size_t r = 0; r < ps.rate_hz.size(); ++r) {
            mean += ps.rate_hz[r];
            if (ps.rate_hz.size() > 1)
                run::write_metric(w, "bss2.rate." + ps.name + ".run" + std::to_string(r), "Hz",
                                  ps.rate_hz[r]);
        }
        if (!ps.rate_hz.empty())
            run::write_metric(w, "bss2.rate." + ps.name, "Hz", mean / double(ps.rate_hz.size()));
    }
    run::write_metric(w, "bss2.runs", "1", static_cast<double>(sum.runs));
    run::write_metric(w, "bss2.input_spikes", "1", static_cast<double>(sum.input_spikes));
    run::write_metric(w, "bss2.recorded_spikes", "1", static_cast<double>(sum.recorded_spikes));
    run::write_metric(w, "bss2.chip_spikes", "1", static_cast<double>(sum.chip_spikes));
    run::write_metric(w, "bss2.synaptic_events", "1", static_cast<double>(sum.synaptic_events));
    run::write_metric(w, "bss2.padi_drops", "1", static_cast<double>(sum.padi_drops));
    run::write_metric(w, "bss2.fpga_drops", "1", static_cast<double>(sum.fpga_drops));
    run::write_metric(w, "bss2.late_inputs", "1", static_cast<double>(sum.late_waits));
    run::write_metric(w, "bss2.host_to_fpga_us", "us", sum.host_to_fpga_us);
    run::write_metric(w, "bss2.config_us", "us", sum.config_us);
    run::write_metric(w, "bss2.realtime_us", "us", sum.realtime_us);
    run::write_metric(w, "bss2.readback_us", "us", sum.readback_us);
    run::write_metric(w, "bss2.total_us", "us", sum.total_us);
}

}  // namespace nmsim::workloads::bss2
