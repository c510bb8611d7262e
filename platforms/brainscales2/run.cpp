#include "platforms/brainscales2/run.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <map>
#include <random>
#include <sstream>

#include "models/common/seeding.h"
#include "models/common/sim_error.h"
#include "nmsim/trace/hdf5_writer.h"
#include "platforms/brainscales2/energy.h"
#include "platforms/spinnaker2/run_common.h"
#include "tools/compiler/bss2/executor.h"
#include "tools/compiler/bss2/graph.h"
#include "tools/compiler/bss2/lowering.h"
#include "tools/compiler/bss2/network.h"
#include "tools/compiler/bss2/placement.h"

#ifndef NMSIM_VERSION
#define NMSIM_VERSION "dev"
#endif

namespace nmsim::bss2 {

// Trace tables of the host program (what the FPGA recorded, decoded with the placement).
struct InputSpikeRecord {
    uint64_t t_ps;  // since the run's start (as injected: the FPGA rounds to its 8 ns clock)
    uint32_t run;
    uint16_t population;
    uint16_t neuron;
    uint16_t event;  // 16-bit L2 event
    uint8_t pad_[6];
};
NMSIM_TRACE_TABLE(InputSpikeRecord, "events/bss2_input_spikes",
                  "input spikes the host sent (external populations), per realtime run",
                  NMSIM_COL(InputSpikeRecord, t_ps, "ps", "time since the run's start"),
                  NMSIM_COL(InputSpikeRecord, run, "1", "realtime run (batch entry)"),
                  NMSIM_COL(InputSpikeRecord, population, "1",
                            "population index in the network file"),
                  NMSIM_COL(InputSpikeRecord, neuron, "1", "neuron index in the population"),
                  NMSIM_COL(InputSpikeRecord, event, "1", "16-bit L2 event label"));

struct OutputSpikeRecord {
    uint64_t t_ps;  // FPGA timestamp (arrival at the FPGA) since the run's start
    uint32_t run;
    uint16_t population;
    uint16_t neuron;
    uint16_t event;
    uint8_t pad_[6];
};
NMSIM_TRACE_TABLE(OutputSpikeRecord, "events/bss2_output_spikes",
                  "spikes the FPGA recorded (on-chip neurons), per realtime run",
                  NMSIM_COL(OutputSpikeRecord, t_ps, "ps",
                            "FPGA timestamp (8 ns clock) since the run's start"),
                  NMSIM_COL(OutputSpikeRecord, run, "1", "realtime run (batch entry)"),
                  NMSIM_COL(OutputSpikeRecord, population, "1",
                            "population index in the network file"),
                  NMSIM_COL(OutputSpikeRecord, neuron, "1", "neuron index in the population"),
                  NMSIM_COL(OutputSpikeRecord, event, "1", "16-bit L2 output event"));

struct MadcSampleRecord {
    uint64_t t_ps;  // FPGA timestamp since the run's start
    double v_mV;    // the code converted back with the MADC range
    uint32_t run;
    uint16_t neuron;  // hemisphere * 256 + column
    uint16_t code;
};
NMSIM_TRACE_TABLE(MadcSampleRecord, "events/bss2_madc",
                  "membrane samples of the MADC-selected neuron, per realtime run",
                  NMSIM_COL(MadcSampleRecord, t_ps, "ps", "FPGA timestamp since the run's start"),
                  NMSIM_COL(MadcSampleRecord, v_mV, "mV",
                            "sample converted to the membrane voltage"),
                  NMSIM_COL(MadcSampleRecord, run, "1", "realtime run (batch entry)"),
                  NMSIM_COL(MadcSampleRecord, neuron, "1", "neuron: hemisphere * 256 + column"),
                  NMSIM_COL(MadcSampleRecord, code, "1", "ADC code"));

struct ConfigWordRecord {
    uint32_t addr;
    uint32_t data;
};
NMSIM_TRACE_TABLE(ConfigWordRecord, "bss2/config",
                  "the static chip configuration the host compiled (Omnibus words, bss2_map.h)",
                  NMSIM_COL(ConfigWordRecord, addr, "1", "24-bit word address"),
                  NMSIM_COL(ConfigWordRecord, data, "1", "data word"));

struct PlacementRecord {
    uint16_t population;
    uint16_t neuron;
    uint16_t hemi;
    uint16_t column;
    uint16_t addr;
    uint16_t pad_;
};
NMSIM_TRACE_TABLE(PlacementRecord, "bss2/placement",
                  "where each on-chip neuron of the network sits",
                  NMSIM_COL(PlacementRecord, population, "1",
                            "population index in the network file"),
                  NMSIM_COL(PlacementRecord, neuron, "1", "neuron index in the population"),
                  NMSIM_COL(PlacementRecord, hemi, "1", "hemisphere (0 top, 1 bottom)"),
                  NMSIM_COL(PlacementRecord, column, "1", "neuron column 0..255"),
                  NMSIM_COL(PlacementRecord, addr, "1", "8-bit event address"));

namespace {

namespace cb = nmsim::compiler::bss2;
using scenario::ConfigError;
using scenario::Scenario;
using spinnaker2::ParamValue;
using spinnaker2::RunOptions;
using spinnaker2::RunResult;
using spinnaker2::detail::fmt;
using spinnaker2::detail::grouped;

struct Prepared {
    cb::Network net;
    cb::Placement pl;
    cb::Graph graph;
    cb::GraphMapping gm;
    cb::IODataMap inputs;
    cb::ExecutionOptions eo;
    std::optional<cb::VertexDescriptor> madc;
    uint32_t madc_neuron = 0;  // hemi * 256 + column
    std::vector<cb::VertexDescriptor> cadc;
    std::vector<cb::ConfigWord> config;
    // per run, per external population: spikes generated
    std::vector<std::map<size_t, uint64_t>> injected;
};

void fnv(uint64_t& h, uint64_t v) {
    for (int i = 0; i < 8; ++i) {
        h ^= (v >> (8 * i)) & 0xFFu;
        h *= 0x100000001b3ull;
    }
}

uint64_t mix(uint64_t a, uint64_t b) { return derive_seed(splitmix64(a), b); }

[[noreturn]] void input_error(const scenario::Origin& o, const std::string& key,
                              const std::string& msg) {
    throw scenario::ScenarioError({ConfigError{o, key, msg}});
}

// The input spike trains of every run (seeded: same scenario seed, same trains).
void make_inputs(const Scenario& s, Prepared& P) {
    const scenario::Bss2Workload& w = *s.bss2;
    const auto input_v = P.gm.external_input;
    cb::SpikeBatch batch(w.runs.size());
    P.injected.assign(w.runs.size(), {});
    for (size_t r = 0; r < w.runs.size(); ++r) {
        for (size_t j = 0; j < w.runs[r].inputs.size(); ++j) {
            const scenario::Bss2Input& in = w.runs[r].inputs[j];
            const std::string key =
                "workload.bss2.runs." + std::to_string(r) + ".inputs." + std::to_string(j);
            const cb::Population* pop = P.net.find(in.population);
            if (!pop)
                input_error(in.origin, key + ".population",
                            "no population \"" + in.population + "\" in " + w.network);
            if (pop->kind != cb::PopulationKind::external)
                input_error(in.origin, key + ".population",
                            "population \"" + in.population + "\" is " + cb::to_string(pop->kind) +
                                "; input spike trains drive external populations");
            const size_t pi = static_cast<size_t>(pop - P.net.populations.data());
            auto ev = P.gm.input_events.find(pi);
            if (ev == P.gm.input_events.end() || !input_v)
                continue;  // the population projects nowhere: nothing to inject
            if (in.kind == scenario::Bss2Input::Kind::times && in.times_us.size() > pop->size)
                input_error(in.origin, key + ".times_us",
                            std::to_string(in.times_us.size()) + " spike lists for population \"" +
                                in.population + "\" of " + std::to_string(pop->size) + " neurons");
            uint64_t n_spikes = 0;
            for (size_t i = 0; i < pop->size; ++i) {
                const uint32_t event = ev->second.at(i);
                if (in.kind == scenario::Bss2Input::Kind::times) {
                    if (i < in.times_us.size())
                        for (double t : in.times_us[i]) {
                            batch[r].push_back({t, event});
                            ++n_spikes;
                        }
                    continue;
                }
                const double stop = in.stop_us.value_or(w.runtime_us);
                if (in.rate_hz <= 0 || stop <= in.start_us) continue;
                const double mean_isi_us = 1e6 / in.rate_hz;
                if (in.kind == scenario::Bss2Input::Kind::regular) {
                    // Phases spread over the neurons so that a population is not synchronous.
                    double t = in.start_us + mean_isi_us * (static_cast<double>(i) + 0.5) /
                                                 static_cast<double>(pop->size);
                    for (; t < stop; t += mean_isi_us) {
                        batch[r].push_back({t, event});
                        ++n_spikes;
                    }
                } else {
                    std::mt19937_64 rng(mix(mix(s.seed, r), mix(j, i)));
                    std::exponential_distribution<double> isi(1.0 / mean_isi_us);
                    for (double t = in.start_us + isi(rng); t < stop; t += isi(rng)) {
                        batch[r].push_back({t, event});
                        ++n_spikes;
                    }
                }
            }
            P.injected[r][pi] += n_spikes;
        }
        std::stable_sort(
            batch[r].begin(), batch[r].end(),
            [](const cb::TimedSpike& a, const cb::TimedSpike& b) { return a.time_us < b.time_us; });
    }
    if (input_v) P.inputs.spikes[*input_v] = std::move(batch);
}

Prepared prepare(const Scenario& s) {
    const scenario::Bss2Workload& w = *s.bss2;
    Prepared P;
    P.net = cb::load_network(w.network);
    cb::RouteOptions ro;
    ro.seed = s.seed;
    P.pl = cb::map_and_route(P.net, ro);
    const auto problems = cb::verify_routing(P.net, P.pl);
    if (!problems.empty())
        throw std::runtime_error("internal error: the routing of " + w.network +
                                 " fails verification: " + problems.front() + " (" +
                                 std::to_string(problems.size()) + " problems)");
    const cb::ExecutionInstance inst{};
    P.graph = cb::build_graph(P.net, P.pl, inst, &P.gm);

    // Readouts: vertices on the NeuronView that holds the probed neuron / every NeuronView.
    auto neuron_view_of = [&](uint32_t hemi) -> std::optional<cb::VertexDescriptor> {
        for (cb::VertexDescriptor v : P.graph.vertices(inst)) {
            if (P.graph.is_reference(v)) continue;
            if (const auto* nv = std::get_if<cb::NeuronView>(&P.graph.vertex(v));
                nv && nv->hemi == hemi)
                return v;
        }
        return std::nullopt;
    };
    if (w.madc) {
        const cb::Population* pop = P.net.find(w.madc->population);
        const std::string key = "workload.bss2.madc.population";
        if (!pop)
            input_error(w.madc->origin, key,
                        "no population \"" + w.madc->population + "\" in " + w.network);
        if (pop->kind != cb::PopulationKind::internal)
            input_error(w.madc->origin, key,
                        "population \"" + w.madc->population + "\" is not on the chip (" +
                            cb::to_string(pop->kind) + ")");
        if (w.madc->neuron >= pop->size)
            input_error(w.madc->origin, "workload.bss2.madc.neuron",
                        "neuron " + std::to_string(w.madc->neuron) + " of population \"" +
                            pop->name + "\" of " + std::to_string(pop->size));
        const size_t pi = static_cast<size_t>(pop - P.net.populations.data());
        const cb::NeuronSlot& slot = P.pl.populations[pi].neurons[w.madc->neuron];
        const auto nv = neuron_view_of(slot.hemi);
        if (!nv)
            throw std::runtime_error("internal error: no NeuronView for hemisphere " +
                                     std::to_string(slot.hemi));
        const auto& cols = std::get<cb::NeuronView>(P.graph.vertex(*nv)).columns;
        const size_t idx =
            static_cast<size_t>(std::find(cols.begin(), cols.end(), slot.col) - cols.begin());
        cb::MADCReadoutView m;
        m.hemi = slot.hemi;
        m.column = slot.col;
        P.madc = P.graph.add(m, inst, {cb::Input(*nv, cb::PortRestriction{idx, idx})});
        P.madc_neuron = slot.hemi * BSS2_COLUMNS + slot.col;
    }
    if (w.cadc) {
        for (uint32_t h = 0; h < BSS2_HEMISPHERES; ++h) {
            const auto nv = neuron_view_of(h);
            if (!nv) continue;
            cb::CADCMembraneReadoutView c;
            c.hemi = h;
            c.columns = std::get<cb::NeuronView>(P.graph.vertex(*nv)).columns;
            P.cadc.push_back(P.graph.add(c, inst, {cb::Input(*nv)}));
        }
    }
    P.config = cb::configuration(P.graph, inst);
    P.eo.runtime_us = w.runtime_us;
    P.eo.batch_size = w.runs.size();
    P.eo.reset_between_runs = w.reset_between_runs;
    make_inputs(s, P);
    if (!w.dot.empty()) {
        std::ofstream f(w.dot);
        f << P.graph.to_dot();
        if (!f) throw std::runtime_error("cannot write the graph to " + w.dot);
    }
    return P;
}

// The simulated chip as the executor's connection: each program goes through the FPGA model.
class SimConnection : public cb::ChipConnection {
public:
    explicit SimConnection(Chip& chip) : m_chip(chip) {}
    cb::ExecutionResult execute(const std::vector<uint64_t>& program) override {
        ExecutionTiming t;
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

// The host computer: runs the just-in-time executor in simulated time, then stops the kernel.
class Host : public sc_core::sc_module {
public:
    Host(sc_core::sc_module_name n, Chip& chip, const Prepared& P)
        : sc_core::sc_module(n), m_conn(chip), m_P(P) {
        SC_HAS_PROCESS(Host);
        SC_THREAD(main);
    }
    cb::IODataMap outputs;
    bool finished = false;
    std::string error;

private:
    void main() {
        try {
            outputs = cb::JitExecutor::run(m_P.graph, m_P.inputs, {{cb::PhysicalChip{0}, &m_conn}},
                                           m_P.eo);
            finished = true;
        } catch (const std::exception& e) {
            error = e.what();
        }
        sc_core::sc_stop();
    }
    SimConnection m_conn;
    const Prepared& m_P;
};

// bss2.* metrics: rates per population (mean over runs, and per run), spikes, drops, time split.
void write_bss2_metrics(trace::Sink& w, const Bss2RunSummary& sum) {
    using spinnaker2::detail::write_metric;
    for (const auto& ps : sum.populations) {
        if (ps.kind == "background") continue;
        double mean = 0;
        for (size_t r = 0; r < ps.rate_hz.size(); ++r) {
            mean += ps.rate_hz[r];
            if (ps.rate_hz.size() > 1)
                write_metric(w, "bss2.rate." + ps.name + ".run" + std::to_string(r), "Hz",
                             ps.rate_hz[r]);
        }
        if (!ps.rate_hz.empty())
            write_metric(w, "bss2.rate." + ps.name, "Hz", mean / double(ps.rate_hz.size()));
    }
    write_metric(w, "bss2.runs", "1", static_cast<double>(sum.runs));
    write_metric(w, "bss2.input_spikes", "1", static_cast<double>(sum.input_spikes));
    write_metric(w, "bss2.recorded_spikes", "1", static_cast<double>(sum.recorded_spikes));
    write_metric(w, "bss2.chip_spikes", "1", static_cast<double>(sum.chip_spikes));
    write_metric(w, "bss2.synaptic_events", "1", static_cast<double>(sum.synaptic_events));
    write_metric(w, "bss2.padi_drops", "1", static_cast<double>(sum.padi_drops));
    write_metric(w, "bss2.fpga_drops", "1", static_cast<double>(sum.fpga_drops));
    write_metric(w, "bss2.late_inputs", "1", static_cast<double>(sum.late_waits));
    write_metric(w, "bss2.host_to_fpga_us", "us", sum.host_to_fpga_us);
    write_metric(w, "bss2.config_us", "us", sum.config_us);
    write_metric(w, "bss2.realtime_us", "us", sum.realtime_us);
    write_metric(w, "bss2.readback_us", "us", sum.readback_us);
    write_metric(w, "bss2.total_us", "us", sum.total_us);
}

}  // namespace

ChipParams resolve_bss2_params(const Scenario& s, std::vector<ParamValue>* rows) {
    return spinnaker2::detail::resolve_paramset<ChipParams>(
        s,
        [](const ChipParams& p, const spinnaker2::detail::OriginOf& origin_of,
           std::vector<ConfigError>& errors) {
            if (p.madc.v_max <= p.madc.v_min)
                errors.push_back(
                    ConfigError{origin_of("madc.v_max"), "madc.v_max", "must be above madc.v_min"});
            if (p.neuron.v_max_mV <= p.neuron.v_min_mV)
                errors.push_back(ConfigError{origin_of("neuron.v_max_mV"), "neuron.v_max_mV",
                                             "must be above neuron.v_min_mV"});
        },
        rows);
}

RunResult run_bss2_scenario(const Scenario& s, const RunOptions& o, std::ostream& out,
                            std::ostream& err, Bss2RunSummary* summary) {
    const auto wall0 = std::chrono::steady_clock::now();
    const scenario::Bss2Workload& w = *s.bss2;
    std::vector<ParamValue> rows;
    const ChipParams p = resolve_bss2_params(s, &rows);
    Prepared P;
    try {
        P = prepare(s);
    } catch (const cb::NetworkError& e) {
        throw std::runtime_error(e.what());
    } catch (const cb::GraphError& e) {
        throw std::runtime_error(std::string("signal-flow graph: ") + e.what());
    }

    RunResult r;
    if (o.elaborate_only) {
        out << "elaborated " << s.name << ": platform " << s.platform_kind << ", network "
            << w.network << ": " << P.net.populations.size() << " populations, "
            << P.net.projections.size() << " projections; " << P.pl.synapses.size() << " synapses, "
            << P.pl.drivers.size() << " drivers, " << P.pl.nodes.size() << " crossbar nodes; graph "
            << P.graph.size() << " vertices; configuration " << P.config.size() << " words; "
            << w.runs.size() << " run" << (w.runs.size() == 1 ? "" : "s") << " of "
            << fmt(w.runtime_us, 1) << " us\n";
        r.ok = true;
        return r;
    }

    r.trace_path = spinnaker2::detail::trace_path(s, o);
    const auto writer_owner = spinnaker2::detail::open_trace(s, o, rows, r.trace_path);
    trace::Hdf5Writer& writer = *writer_owner;
    Chip chip("bss2", p, s.seed);
    chip.attach_trace(&writer);
    Host host("host", chip, P);
    energy::Meter meter;
    add_bss2_energy(meter, chip);
    meter.attach(writer);
    chip.fpga().on_phase = [&meter](const std::string& phase, uint64_t t) { meter.mark(phase, t); };
    meter.start("host", 0);
    const auto t_in = writer.declare_table(InputSpikeRecord_schema());
    const auto t_out = writer.declare_table(OutputSpikeRecord_schema());
    const auto t_madc = writer.declare_table(MadcSampleRecord_schema());
    const auto t_cfg = writer.declare_table(ConfigWordRecord_schema());
    const auto t_pl = writer.declare_table(PlacementRecord_schema());
    writer.start();
    for (const auto& [a, d] : P.config) {
        ConfigWordRecord rec{a, d};
        writer.append(t_cfg, &rec);
    }
    for (size_t pi = 0; pi < P.net.populations.size(); ++pi)
        for (size_t i = 0; i < P.pl.populations[pi].neurons.size(); ++i) {
            const auto& sl = P.pl.populations[pi].neurons[i];
            PlacementRecord rec{static_cast<uint16_t>(pi),      static_cast<uint16_t>(i),
                                static_cast<uint16_t>(sl.hemi), static_cast<uint16_t>(sl.col),
                                static_cast<uint16_t>(sl.addr), 0};
            writer.append(t_pl, &rec);
        }
    // Input spikes as sent (the executor rounds them to the FPGA clock: recorded rounded here too).
    if (P.gm.external_input) {
        std::map<uint32_t, std::pair<size_t, size_t>> who;
        for (const auto& [pi, evs] : P.gm.input_events)
            for (size_t i = 0; i < evs.size(); ++i) who[evs[i]] = {pi, i};
        const auto& batch = P.inputs.spikes.at(*P.gm.external_input);
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
                writer.append(t_in, &rec);
            }
    }

    const sc_core::sc_time max_time(static_cast<double>(p.sim.max_time.ps), sc_core::SC_PS);
    sc_core::sc_start(max_time);
    r.sim_time_us = sc_core::sc_time_stamp().to_seconds() * 1e6;
    spinnaker2::detail::finish_energy(meter, writer, sc_core::sc_time_stamp().value());
    // The chip alone (seed 004 sec. 5.6.4 quotes chip-only energies), in all phases and in the
    // realtime runs: without the setup's static power and the FPGA's events.
    double chip_j = 0.0, chip_runs_j = 0.0;
    const std::string fpga_name = chip.fpga().name();
    for (const auto& row : meter.rows()) {
        if (row.component == kSetupComponent || row.component == fpga_name) continue;
        chip_j += row.energy_j;
        if (row.phase.rfind("run", 0) == 0) chip_runs_j += row.energy_j;
    }
    spinnaker2::detail::write_metric(writer, "energy.chip_uJ", "uJ", chip_j * 1e6);
    spinnaker2::detail::write_metric(writer, "energy.chip_realtime_uJ", "uJ", chip_runs_j * 1e6);
    std::string problem;
    if (sim_error().set)
        problem = sim_error().formatted();
    else if (!host.error.empty())
        problem = host.error;
    else if (!host.finished)
        problem = "timeout: the experiment had not finished at sim.max_time = " +
                  fmt(p.sim.max_time.seconds() * 1e6, 0) + " us of simulated time";
    r.sim_error = !problem.empty();

    // Decode what the host received.
    Bss2RunSummary sum;
    sum.runs = w.runs.size();
    sum.runtime_us = w.runtime_us;
    for (const auto& pop : P.net.populations) {
        PopulationStats ps;
        ps.name = pop.name;
        ps.kind = cb::to_string(pop.kind);
        ps.size = pop.size;
        ps.rate_hz.assign(sum.runs, 0.0);
        sum.populations.push_back(ps);
    }
    for (size_t run = 0; run < P.injected.size(); ++run)
        for (const auto& [pi, n] : P.injected[run]) {
            sum.populations[pi].spikes += n;
            sum.populations[pi].rate_hz[run] = static_cast<double>(n) /
                                               static_cast<double>(P.net.populations[pi].size) /
                                               (w.runtime_us * 1e-6);
            sum.input_spikes += n;
        }
    if (host.finished) {
        if (P.gm.data_output) {
            auto it = host.outputs.spikes.find(*P.gm.data_output);
            if (it != host.outputs.spikes.end()) {
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
                        writer.append(t_out, &rec);
                    }
                for (size_t run = 0; run < sum.runs; ++run)
                    for (size_t pi = 0; pi < P.net.populations.size(); ++pi) {
                        if (P.net.populations[pi].kind != cb::PopulationKind::internal) continue;
                        sum.populations[pi].spikes += counts[run][pi];
                        sum.populations[pi].rate_hz[run] =
                            static_cast<double>(counts[run][pi]) /
                            static_cast<double>(P.net.populations[pi].size) / (w.runtime_us * 1e-6);
                    }
            }
        }
        if (P.madc) {
            auto it = host.outputs.madc.find(*P.madc);
            if (it != host.outputs.madc.end()) {
                const double lsb =
                    (p.madc.v_max - p.madc.v_min) / static_cast<double>(1u << p.madc.bits);
                for (size_t run = 0; run < it->second.size(); ++run)
                    for (const auto& smp : it->second[run]) {
                        MadcSampleRecord rec{};
                        rec.t_ps = static_cast<uint64_t>(std::llround(smp.time_us * 1e6));
                        rec.v_mV = p.madc.v_min + (static_cast<double>(smp.value) + 0.5) * lsb;
                        rec.run = static_cast<uint32_t>(run);
                        rec.neuron = static_cast<uint16_t>(P.madc_neuron);
                        rec.code = static_cast<uint16_t>(smp.value);
                        writer.append(t_madc, &rec);
                        ++sum.madc_samples;
                        fnv(sum.output_hash, run);
                        fnv(sum.output_hash, rec.t_ps);
                        fnv(sum.output_hash, rec.code);
                    }
            }
        }
        for (const auto& [inst, t] : host.outputs.times) {
            sum.host_to_fpga_us += t.host_to_fpga_us;
            sum.config_us += t.config_us;
            sum.realtime_us += t.realtime_us;
            sum.readback_us += t.readback_us;
            sum.total_us += t.total_us;
        }
        for (const auto& [inst, d] : host.outputs.dropped) sum.fpga_drops += d;
    }
    sum.chip_spikes = chip.chip_spikes();
    sum.late_waits = chip.fpga().counters().late_waits;
    for (uint32_t h = 0; h < BSS2_HEMISPHERES; ++h) {
        for (uint32_t b = 0; b < BSS2_PADI_PER_HEMI; ++b) sum.padi_drops += chip.padi(h, b).drops();
        sum.synaptic_events += chip.synapses(h).synaptic_events();
    }
    r.ok = problem.empty();
    r.message = problem;
    chip.write_summary(writer);
    r.wall_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    write_bss2_metrics(writer, sum);
    spinnaker2::detail::write_run_metrics(writer, r);
    writer.finish(r.ok ? "ok" : "error", problem,
                  static_cast<uint64_t>(sc_core::sc_time_stamp().value()), r.wall_seconds);
    if (summary) *summary = sum;

    if (!problem.empty()) err << "nmsim: error: " << problem << "\n";
    if (o.quiet) return r;
    out << "nmsim " << NMSIM_VERSION << "  scenario " << s.name << "  platform " << s.platform_kind
        << "  seed " << s.seed << "\n";
    size_t n_internal = 0;
    for (const auto& pop : P.net.populations)
        if (pop.kind == cb::PopulationKind::internal) n_internal += pop.size;
    out << "  network          " << w.network << ": " << P.net.populations.size()
        << " populations (" << n_internal << " on-chip neurons), " << P.net.projections.size()
        << " projection" << (P.net.projections.size() == 1 ? "" : "s") << "\n";
    std::map<uint32_t, int> buses;
    for (const auto& d : P.pl.drivers) buses[d.hemi * 4 + d.driver % 4] = 1;
    size_t weighted = 0;
    for (const auto& sy : P.pl.synapses) weighted += sy.weight > 0;
    out << "  mapping          " << grouped(weighted) << " synapses ("
        << grouped(P.pl.synapses.size()) << " cells in use), " << P.pl.drivers.size()
        << " synapse drivers on " << buses.size() << " PADI bus" << (buses.size() == 1 ? "" : "es")
        << ", " << P.pl.nodes.size() << " crossbar nodes; routing verified; graph "
        << P.graph.size() << " vertices, configuration " << grouped(P.config.size()) << " words\n";
    out << "  runs             " << sum.runs << " x " << fmt(w.runtime_us, 1)
        << " us hardware time after one configuration (seed 004 Fig. 3.14)\n";
    out << "  rates (Hz, hardware time, per neuron)\n";
    {
        std::ostringstream h;
        h << "    run";
        for (const auto& ps : sum.populations)
            h << "  " << std::setw(std::max<int>(10, static_cast<int>(ps.name.size()))) << ps.name;
        out << h.str() << "\n";
        for (size_t run = 0; run < sum.runs; ++run) {
            std::ostringstream row;
            row << "    " << std::setw(3) << run;
            for (const auto& ps : sum.populations) {
                const std::string v = ps.kind == "background" ? "bg" : fmt(ps.rate_hz[run], 0);
                row << "  " << std::setw(std::max<int>(10, static_cast<int>(ps.name.size()))) << v;
            }
            out << row.str() << "\n";
        }
    }
    out << "  spikes           " << grouped(sum.input_spikes) << " injected, "
        << grouped(sum.chip_spikes) << " emitted by the neurons, " << grouped(sum.recorded_spikes)
        << " recorded by the FPGA; " << grouped(sum.synaptic_events) << " synaptic events\n";
    {
        std::ostringstream bl;
        for (uint32_t h = 0; h < BSS2_HEMISPHERES; ++h)
            for (uint32_t b = 0; b < BSS2_PADI_PER_HEMI; ++b) {
                const PadiBus& bus = chip.padi(h, b);
                if (bus.events() == 0 && bus.drops() == 0) continue;
                bl << (bl.tellp() > 0 ? ", " : "") << (h ? "bottom " : "top ") << b << ": "
                   << grouped(bus.events())
                   << (bus.drops() ? " (" + grouped(bus.drops()) + " dropped)" : "");
            }
        out << "  PADI events      " << (bl.tellp() > 0 ? bl.str() : std::string("none")) << "\n";
    }
    out << "  drops            PADI buses " << grouped(sum.padi_drops) << ", FPGA "
        << grouped(sum.fpga_drops)
        << "; late input spikes (FPGA instruction issue or chip link busy) "
        << grouped(sum.late_waits) << "\n";
    if (P.madc)
        out << "  MADC             " << grouped(sum.madc_samples) << " samples of neuron "
            << P.madc_neuron << "\n";
    out << "  time split       configuration transfer "
        << fmt(sum.host_to_fpga_us + sum.config_us, 1) << " us (program "
        << fmt(sum.host_to_fpga_us, 1) << " us over the host link, writes " << fmt(sum.config_us, 1)
        << " us), realtime " << fmt(sum.realtime_us, 1) << " us, read-back "
        << fmt(sum.readback_us, 1) << " us, total " << fmt(sum.total_us, 1) << " us\n";
    out << "  simulated time   " << fmt(r.sim_time_us, 3) << " us\n";
    energy::print_breakdown(meter, out);
    out << "  chip only        " << fmt(chip_j * 1e6, 2) << " uJ, of which the realtime runs "
        << fmt(chip_runs_j * 1e6, 2) << " uJ (without the FPGA's events and the setup's static power, "
        << fmt(p.energy.system_power.w, 2) << " W)\n";
    out << "  trace            " << r.trace_path << "\n";
    out << "  wall time        " << fmt(r.wall_seconds, 3) << " s\n";
    out << "  result           " << (r.ok ? "OK" : "FAILED") << "\n";
    return r;
}

}  // namespace nmsim::bss2
