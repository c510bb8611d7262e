#include "workloads/snn/host.h"

#include <systemc>

#include <algorithm>
#include <cstring>
#include <sstream>

#include "models/common/sim_error.h"
#include "models/spinnaker2/router/router_table.h"
#include "nmsim/hw/spinnaker2/mc_packet.h"
#include "nmsim/hw/spinnaker2/noc_map.h"
#include "nmsim/hw/spinnaker2/router_regs.h"
#include "nmsim/hw/spinnaker2/snn_image.h"
#include "nmsim/hw/spinnaker2/snn_par_image.h"
#include "nmsim/trace/hdf5_writer.h"
#include "platforms/common/format.h"
#include "platforms/common/run_outputs.h"
#include "platforms/spinnaker2/energy.h"
#include "platforms/spinnaker2/params.h"
#include "workloads/snn/tables.h"

namespace nmsim::workloads::snn {

using run::copy_str;
using run::fmt;

namespace {

uint64_t pe_sram_global(uint32_t pe, uint32_t offset) {
    uint32_t qx = 0, qy = 0;
    s2_qpe_coord(pe / S2_NOC_PES_PER_QPE, &qx, &qy);
    return s2_pe_global_addr(qx, qy, pe % S2_NOC_PES_PER_QPE, offset);
}

// What the host needs of a PE's image, from either paradigm's header.
struct ImageView {
    PeRole role = kRoleSerial;
    uint32_t counters = 0, record_words = 0, n_neurons = 0, flags = 0, n_record_v = 0,
             record_v_index = 0, n_ticks = 0;
};
ImageView view_of(const compiler::snn::PeImage& img) {
    ImageView v;
    uint32_t word[3];
    std::memcpy(word, img.bytes.data(), sizeof word);
    if (word[0] == S2_SNNP_IMAGE_MAGIC && word[2] == S2_SNNP_KIND_SUBORDINATE) {
        s2_snnp_subordinate_t h;
        std::memcpy(&h, img.bytes.data(), sizeof h);
        v.role = kRoleSubordinate;
        v.counters = h.counters;
        v.n_ticks = h.n_ticks;
        return v;
    }
    if (word[0] == S2_SNNP_IMAGE_MAGIC) {
        s2_snnp_dominant_t h;
        std::memcpy(&h, img.bytes.data(), sizeof h);
        v = {kRoleDominant, h.counters,   h.record_words,   h.n_targets,
             h.flags,       h.n_record_v, h.record_v_index, h.n_ticks};
        return v;
    }
    s2_snn_image_t h;
    std::memcpy(&h, img.bytes.data(), sizeof h);
    v = {h.kind == S2_SNN_KIND_SOURCE ? kRoleSource : kRoleSerial,
         h.counters,
         h.record_words,
         h.n_neurons,
         h.flags,
         h.n_record_v,
         h.record_v_index,
         h.n_ticks};
    return v;
}

bool is_parallel(const compiler::snn::PeImage& img) { return view_of(img).role >= kRoleDominant; }

// The chip's table: first the start key to every PE of the network, then the compiler's
// (compressed) entries.
std::vector<spinnaker2::RouterEntry> router_table(const Compiled& C) {
    std::vector<spinnaker2::RouterEntry> t;
    spinnaker2::RouterEntry start;
    start.key = S2_SNN_START_KEY;
    start.mask = 0xFFFFFFFFu;
    for (uint32_t pe : C.pes) start.pes.set(pe);
    t.push_back(start);
    for (const compiler::snn::RouterEntry& r : C.c.routes) {
        spinnaker2::RouterEntry e;
        e.key = r.key;
        e.mask = r.mask;
        for (uint32_t pe : r.pes) e.pes.set(pe);
        e.links = r.links;
        t.push_back(e);
    }
    return t;
}

}  // namespace

// The host side on the simulated host link: the images into the PEs' SRAM, the spike lists into
// DRAM, the routing table into the router, then the start key into the router's input port.
class SnnHost::Driver : public sc_core::sc_module {
public:
    SC_HAS_PROCESS(Driver);
    Driver(sc_core::sc_module_name name, spinnaker2::Chip& chip, const Compiled& c,
           uint64_t& loaded_ps, energy::Meter& meter)
        : sc_module(name), m_chip(chip), m_c(c), m_loaded_ps(loaded_ps), m_meter(meter) {
        SC_THREAD(run);
    }

private:
    void run() {
        spinnaker2::HostLink& link = m_chip.host();
        for (const compiler::snn::PeImage& img : m_c.c.images)
            link.write(pe_sram_global(img.pe, img.base), img.bytes.data(), img.bytes.size());
        for (const compiler::snn::DramRegion& r : m_c.c.dram)
            if (r.kind == compiler::snn::DramKind::spike_list)
                link.write(r.addr, r.bytes.data(), r.bytes.size());
        const std::vector<uint32_t> words = spinnaker2::encode_table(router_table(m_c));
        link.write(S2_ROUTER_GLOBAL_BASE + S2_ROUTER_TABLE_OFFSET, words.data(), words.size() * 4);
        const uint32_t start[3] = {S2_SNN_START_KEY, 0u, s2_mc_ctrl(0u, 0u, S2_MC_SOURCE_NONE)};
        link.write(S2_ROUTER_GLOBAL_BASE + S2_ROUTER_MC_IN_OFFSET, start, sizeof start);
        m_loaded_ps = sc_core::sc_time_stamp().value();
        m_meter.mark("run", m_loaded_ps);
    }

    spinnaker2::Chip& m_chip;
    const Compiled& m_c;
    uint64_t& m_loaded_ps;
    energy::Meter& m_meter;
};

SnnHost::SnnHost() = default;
SnnHost::~SnnHost() = default;

void SnnHost::prepare(run::RunContext& ctx) {
    m_w = &ctx.scenario.workload.as<SnnWorkload>();
    m_p = spinnaker2::resolve_chip_params(ctx.scenario, &ctx.params);
    m_c = compile(*m_w, m_p);
}

void SnnHost::load(run::RunContext& ctx) {
    m_chip = std::make_unique<spinnaker2::Chip>("s2", m_p, ctx.scenario.seed, ctx.trace,
                                                ctx.console_echo());
    for (const compiler::snn::PeImage& img : m_c.c.images)
        m_chip->pe(img.pe).load(is_parallel(img) ? *m_c.elf_par : *m_c.elf);
    // Energy phases: "load" (images, spike lists and table over the host link), then "run".
    spinnaker2::add_chip_energy(m_meter, *m_chip);
    m_meter.attach(*ctx.trace);
    m_meter.start("load", 0);
    m_driver = std::make_unique<Driver>("host_program", *m_chip, m_c, m_loaded_ps, m_meter);
    ctx.trace->declare_table(PopulationRecord_schema());
    ctx.trace->declare_table(PeRecord_schema());
    ctx.trace->declare_table(SpikeRecord_schema());
    ctx.trace->declare_table(TickLoadRecord_schema());
    ctx.trace->declare_table(VoltageRecord_schema());
}

void SnnHost::begin(run::RunContext& ctx) {
    const trace::TableId t = ctx.trace->declare_table(PopulationRecord_schema());
    auto add = [&](uint32_t index, uint32_t size, bool source, const std::string& name) {
        PopulationRecord rec{};
        rec.index = index;
        rec.size = size;
        rec.is_source = source;
        copy_str(rec.name, sizeof rec.name, name);
        ctx.trace->append(t, &rec);
    };
    for (size_t i = 0; i < m_c.net.populations.size(); ++i)
        add(uint32_t(i), m_c.net.populations[i].size, false, m_c.net.populations[i].name);
    for (size_t i = 0; i < m_c.net.sources.size(); ++i)
        add(uint32_t(i), m_c.net.sources[i].size, true, m_c.net.sources[i].name);
    m_chip->start(std::vector<size_t>(m_c.pes.begin(), m_c.pes.end()));
}

const compiler::snn::PeReport& SnnHost::report_of(uint32_t pe, uint32_t vertex) const {
    for (const compiler::snn::ParallelPlacement& pp : m_c.c.parallel)
        for (const compiler::snn::PeReport& r : pp.table1)
            if (r.pe == pe) return r;
    return m_c.c.table1.at(vertex);
}

const s2_snn_counters_t& SnnHost::counters_of(const compiler::snn::PeImage& img) const {
    return *reinterpret_cast<const s2_snn_counters_t*>(m_chip->pe(img.pe).sram.data() +
                                                       view_of(img).counters);
}

run::Progress SnnHost::progress() const {
    uint64_t done = m_w->ticks;
    for (const auto& img : m_c.c.images) done = std::min<uint64_t>(done, counters_of(img).ticks);
    return {done, m_w->ticks, "ticks"};
}

void SnnHost::collect(run::RunContext& ctx) {
    const uint64_t now = sc_core::sc_time_stamp().value();
    run::finish_energy(m_meter, *ctx.trace, now);
    if (sim_error().set) {
        ctx.sim_failed(sim_error().formatted());
    } else {
        std::string problem;
        for (uint32_t pe : m_c.pes) {
            problem = spinnaker2::core_problem(m_chip->pe(pe), m_p.sim.max_time);
            if (!problem.empty()) break;
        }
        if (!problem.empty()) ctx.sim_failed(problem);
    }
    m_sum.ticks_done = progress().done;
    m_sum.load_us = static_cast<double>(m_loaded_ps) * 1e-6;
    m_sum.run_us = static_cast<double>(now - std::min(now, m_loaded_ps)) * 1e-6;
    read_records(ctx);
    const auto& rc = m_chip->router().counters();
    m_sum.router_routed = rc.routed;
    m_sum.router_delivered = rc.delivered;
    m_sum.router_dropped = rc.dropped_no_route + rc.dropped_timeout + rc.dropped_input;
    m_chip->write_summaries();
    for (const auto& row : m_meter.rows()) {
        if (row.phase != "run") continue;
        m_sum.energy_uj += row.energy_j * 1e6;
        if (!row.is_static) m_sum.dynamic_energy_uj += row.energy_j * 1e6;
    }
    if (m_sum.synaptic_events) {
        const double n = static_cast<double>(m_sum.synaptic_events);
        m_sum.energy_per_syn_event_nj = m_sum.energy_uj * 1e3 / n;
        m_sum.dynamic_per_syn_event_nj = m_sum.dynamic_energy_uj * 1e3 / n;
    }
}

// Counters of every PE, then the records in DRAM: spikes, per-tick load, voltages.
void SnnHost::read_records(run::RunContext& ctx) {
    const trace::TableId t_pes = ctx.trace->declare_table(PeRecord_schema());
    const trace::TableId t_spikes = ctx.trace->declare_table(SpikeRecord_schema());
    const trace::TableId t_load = ctx.trace->declare_table(TickLoadRecord_schema());
    const trace::TableId t_v = ctx.trace->declare_table(VoltageRecord_schema());
    const double tick_cycles = m_c.c.tick_cycles;
    uint64_t busy_ticks = 0;
    double busy_sum = 0;
    for (const compiler::snn::PeImage& img : m_c.c.images) {
        const ImageView h = view_of(img);
        const compiler::snn::MachineVertex& v = m_c.c.graph.vertices.at(img.vertex);
        const s2_snn_counters_t ctr = counters_of(img);
        m_results.push_back({img.pe, img.vertex, ctr, h.role});
        const compiler::snn::PeReport& rep = report_of(img.pe, img.vertex);
        PeRecord pr{};
        pr.role = h.role;
        pr.synaptic_events = ctr.synaptic_events;
        pr.pe = img.pe;
        pr.vertex = img.vertex;
        pr.is_source = v.is_source;
        pr.element = v.app;
        pr.lo = v.lo;
        pr.n = h.role == kRoleSubordinate ? 0 : h.n_neurons;
        pr.packets = ctr.packets;
        pr.spikes_sent = ctr.spikes_sent;
        pr.overruns = ctr.overruns;
        pr.max_tick_cycles = ctr.max_tick_cycles;
        pr.mpt_misses = ctr.mpt_misses;
        pr.buffer_overflows = ctr.buffer_overflows;
        pr.dtcm_bytes = static_cast<uint32_t>(rep.actual_total);
        pr.table1_bytes = static_cast<uint32_t>(rep.model_total);
        pr.dtcm_budget_bytes = static_cast<uint32_t>(rep.budget_bytes);
        ctx.trace->append(t_pes, &pr);
        m_sum.synaptic_events += ctr.synaptic_events;
        m_sum.packets_received += ctr.packets;
        m_sum.overruns += ctr.overruns;
        m_sum.mpt_misses += ctr.mpt_misses;
        m_sum.buffer_overflows += ctr.buffer_overflows;
        m_sum.saturations += ctr.saturations;
        if (v.is_source) {
            m_sum.source_spikes += ctr.spikes_sent;
            continue;
        }
        if (h.role == kRoleSubordinate) continue;
        const compiler::snn::DramRegion* reg = m_c.c.record_region(img.vertex);
        if (!reg || h.record_words == 0) continue;
        const uint32_t words = h.record_words;
        const uint64_t ticks = std::min<uint64_t>(ctr.ticks, h.n_ticks);
        std::vector<uint32_t> rec(size_t(ticks) * words);
        const uint64_t off = reg->addr - S2_DRAM_GLOBAL_BASE;
        m_chip->dram(unsigned(off / S2_DRAM_IF_SIZE))
            .store()
            .read(off % S2_DRAM_IF_SIZE, reinterpret_cast<uint8_t*>(rec.data()), rec.size() * 4);
        const uint32_t bit_words =
            (h.flags & S2_SNN_FLAG_RECORD_SPIKES) ? (h.n_neurons + 31u) / 32u : 0u;
        std::vector<reference::SnnVoltageTrace<int32_t>> vt;
        for (uint32_t k = 0; k < h.n_record_v; ++k) {
            const uint32_t local = reinterpret_cast<const uint32_t*>(
                img.bytes.data() + (h.record_v_index - S2_SNN_IMAGE_BASE))[k];
            vt.push_back({v.app, v.lo + local, {}});
        }
        for (uint64_t t = 0; t < ticks; ++t) {
            const uint32_t* r = rec.data() + t * words;
            if (t > 0) {  // record t holds tick t - 1's load
                TickLoadRecord lr{uint32_t(t - 1), img.pe, r[1], r[2]};
                ctx.trace->append(t_load, &lr);
                const double f = r[1] / tick_cycles;
                busy_sum += f;
                ++busy_ticks;
                m_sum.max_busy_fraction = std::max(m_sum.max_busy_fraction, f);
            }
            for (uint32_t j = 0; j < h.n_neurons && bit_words; ++j)
                if ((r[S2_SNN_RECORD_HEADER_WORDS + j / 32] >> (j % 32)) & 1u)
                    m_spikes.push_back({uint32_t(t), v.app, v.lo + j});
            for (uint32_t k = 0; k < h.n_record_v; ++k) {
                const int32_t val =
                    static_cast<int32_t>(r[S2_SNN_RECORD_HEADER_WORDS + bit_words + k]);
                vt[k].v.push_back(val);
                VoltageRecord vr{val, uint32_t(t), v.app, vt[k].neuron};
                ctx.trace->append(t_v, &vr);
            }
        }
        for (auto& x : vt) m_voltages.push_back(std::move(x));
    }
    std::sort(m_spikes.begin(), m_spikes.end());
    for (const reference::SnnSpike& s : m_spikes) {
        SpikeRecord sr{s.tick, s.population, s.neuron};
        ctx.trace->append(t_spikes, &sr);
    }
    m_sum.spikes = m_spikes.size();
    if (busy_ticks) m_sum.mean_busy_fraction = busy_sum / double(busy_ticks);
}

// Every recorded spike and voltage against the integer reference of the same network.
void SnnHost::check(run::RunContext& ctx) {
    if (!m_w->check || ctx.result.sim_error) return;
    const reference::SnnRefNetwork rn =
        compiler::snn::reference_network(m_c.net, m_c.c.trains, uint32_t(m_w->ticks));
    const reference::SnnRefResult<int32_t> ref = reference::snn_reference(rn);
    std::vector<reference::SnnSpike> want;
    for (const reference::SnnSpike& s : ref.spikes)
        if (m_c.net.populations.at(s.population).record_spikes) want.push_back(s);
    m_sum.checked = true;
    m_sum.ref_spikes = want.size();
    std::vector<reference::SnnSpike> only_chip, only_ref;
    std::set_difference(m_spikes.begin(), m_spikes.end(), want.begin(), want.end(),
                        std::back_inserter(only_chip));
    std::set_difference(want.begin(), want.end(), m_spikes.begin(), m_spikes.end(),
                        std::back_inserter(only_ref));
    m_sum.mismatched_spikes = only_chip.size() + only_ref.size();
    auto spike_text = [&](const reference::SnnSpike& s) {
        return m_c.net.populations.at(s.population).name + "[" + std::to_string(s.neuron) +
               "] at tick " + std::to_string(s.tick);
    };
    if (!only_ref.empty() || !only_chip.empty()) {
        const bool ref_first =
            !only_ref.empty() && (only_chip.empty() || only_ref.front() < only_chip.front());
        m_first_mismatch =
            ref_first
                ? "the reference spikes " + spike_text(only_ref.front()) + ", the chip does not"
                : "the chip spikes " + spike_text(only_chip.front()) + ", the reference does not";
    }
    for (const auto& got : m_voltages) {
        for (const auto& exp : ref.voltages) {
            if (exp.population != got.population || exp.neuron != got.neuron) continue;
            for (size_t t = 0; t < got.v.size() && t < exp.v.size(); ++t) {
                if (got.v[t] == exp.v[t]) continue;
                if (m_sum.voltage_mismatches++ == 0 && m_first_mismatch.empty())
                    m_first_mismatch = "membrane of " +
                                       m_c.net.populations.at(got.population).name + "[" +
                                       std::to_string(got.neuron) + "] at tick " +
                                       std::to_string(t) + " is " + std::to_string(got.v[t]) +
                                       ", the reference " + std::to_string(exp.v[t]) + " (Q16.16)";
            }
        }
    }
    if (!m_sum.mismatched_spikes && !m_sum.voltage_mismatches) return;
    // The reference assumes every spike is processed within its tick; an overloaded run is not
    // expected to match, and the message says why.
    std::string why;
    if (m_sum.overruns || m_sum.buffer_overflows || m_sum.router_dropped)
        why = " (the PEs could not keep up: " + std::to_string(m_sum.overruns) + " overruns, " +
              std::to_string(m_sum.buffer_overflows) + " input buffer overflows, " +
              std::to_string(m_sum.router_dropped) +
              " packets dropped by the router; spikes were processed late or lost)";
    ctx.check_failed("check failed: " + std::to_string(m_sum.mismatched_spikes) + " spikes and " +
                     std::to_string(m_sum.voltage_mismatches) +
                     " voltages differ from the integer reference; first: " + m_first_mismatch +
                     why);
}

void SnnHost::write_metrics(run::RunContext& ctx) {
    trace::Sink& w = *ctx.trace;
    const SnnSummary& s = m_sum;
    run::write_metric(w, "snn.pes", "1", double(m_c.pes.size()));
    size_t dominants = m_c.c.parallel.size(), subordinates = 0;
    for (const auto& pp : m_c.c.parallel) subordinates += pp.pes.size() - 1;
    run::write_metric(w, "snn.dominant_pes", "1", double(dominants));
    run::write_metric(w, "snn.subordinate_pes", "1", double(subordinates));
    const double ticks = double(std::max<uint64_t>(s.ticks_done, 1));
    run::write_metric(w, "snn.tick_work_us", "us",
                      s.mean_busy_fraction * m_c.net.timestep_ms * 1e3);
    run::write_metric(w, "snn.energy_per_tick_uJ", "uJ", s.energy_uj / ticks);
    run::write_metric(w, "snn.ticks", "1", double(s.ticks_done));
    run::write_metric(w, "snn.spikes", "1", double(s.spikes));
    run::write_metric(w, "snn.source_spikes", "1", double(s.source_spikes));
    run::write_metric(w, "snn.synaptic_events", "1", double(s.synaptic_events));
    run::write_metric(w, "snn.overruns", "1", double(s.overruns));
    run::write_metric(w, "snn.router_dropped", "1", double(s.router_dropped));
    run::write_metric(w, "snn.mean_busy_fraction", "1", s.mean_busy_fraction);
    run::write_metric(w, "snn.max_busy_fraction", "1", s.max_busy_fraction);
    run::write_metric(w, "snn.load_us", "us", s.load_us);
    run::write_metric(w, "snn.run_us", "us", s.run_us);
    run::write_metric(w, "snn.energy_uJ", "uJ", s.energy_uj);
    run::write_metric(w, "snn.dynamic_energy_uJ", "uJ", s.dynamic_energy_uj);
    if (s.synaptic_events) {
        run::write_metric(w, "snn.energy_per_synaptic_event_nJ", "nJ", s.energy_per_syn_event_nj);
        run::write_metric(w, "snn.dynamic_energy_per_synaptic_event_nJ", "nJ",
                          s.dynamic_per_syn_event_nj);
    }
    if (s.checked) run::write_metric(w, "snn.spike_mismatches", "1", double(s.mismatched_spikes));
}

// "(2.4x faster than real time, 0.53 M synaptic events per wall second)": SNN runs are often
// faster than the chip's real time, which the default note would print as "0x slower".
std::string SnnHost::wall_note(const run::RunResult& r) const {
    const double sim_s = r.sim_time_us * 1e-6;
    if (sim_s <= 0 || r.wall_seconds <= 0) return HostProgram::wall_note(r);
    const double ratio = r.wall_seconds / sim_s;
    std::string s = "(" + (ratio >= 1 ? fmt(ratio, 1) + "x slower than real time"
                                      : fmt(1 / ratio, 1) + "x faster than real time");
    if (m_sum.synaptic_events)
        s += ", " + fmt(double(m_sum.synaptic_events) / r.wall_seconds / 1e6, 2) +
             " M synaptic events per wall second";
    return s + ")";
}

}  // namespace nmsim::workloads::snn
