#include "workloads/pe/host.h"

#include <systemc>

#include <algorithm>

#include "models/common/sim_error.h"
#include "nmsim/hw/spinnaker2/console_regs.h"
#include "nmsim/hw/spinnaker2/noc_map.h"
#include "nmsim/hw/spinnaker2/pe_map.h"
#include "platforms/common/format.h"
#include "platforms/common/run_outputs.h"
#include "platforms/spinnaker2/energy.h"
#include "platforms/spinnaker2/params.h"

namespace nmsim::workloads::pe {

using run::fmt;
using run::grouped;
using run::hex32;
using scenario::ConfigError;
using scenario::ScenarioError;

// Everything that can be checked before simulating is checked here.
void PeHost::prepare(run::RunContext& ctx) {
    const scenario::Scenario& s = ctx.scenario;
    m_w = &s.workload.as<PeWorkload>();
    m_on_chip = s.platform_kind == "spinnaker2_chip";
    if (m_on_chip) {
        m_cp = spinnaker2::resolve_chip_params(s, &ctx.params);
        m_pe = m_cp.pe;
        m_max_time = m_cp.sim.max_time;
        m_mem =
            MemoryMap{m_cp.qpe_count * size_t{S2_NOC_PES_PER_QPE}, m_pe.sram_size,
                      Bytes{std::min<uint64_t>(spinnaker2::dram_if_size(m_cp), S2_DRAM_IF_SIZE)},
                      "DRAM interface 0 (dram.size / dram.channels)"};
    } else {
        m_p = spinnaker2::resolve_pe_params(s, &ctx.params);
        m_pe = m_p.pe;
        m_max_time = m_p.sim.max_time;
        m_mem = MemoryMap{m_p.pe_count, m_pe.sram_size, m_p.ext.size, "ext.size"};
    }
    const std::string count_param = m_on_chip ? "4 x qpe_count" : "pe_count";
    m_images.clear();
    m_images.resize(m_mem.pe_count);
    std::vector<ConfigError> errors;
    for (size_t i = 0; i < m_w->cores.size(); ++i) {
        const auto& c = m_w->cores[i];
        const std::string key = "workload.pe.cores." + std::to_string(i);
        if (c.pe >= m_mem.pe_count) {
            errors.push_back(ConfigError{c.origin, key + ".pe",
                                         "pe" + std::to_string(c.pe) +
                                             " does not exist: the platform has " + count_param +
                                             " = " + std::to_string(m_mem.pe_count) + " PEs"});
            continue;
        }
        try {
            m_images[c.pe] = std::make_unique<arm::ElfImage>(arm::ElfImage::load(c.firmware_path));
            for (const auto& seg : m_images[c.pe]->segments())
                if (uint64_t(seg.addr) + seg.memsz > m_pe.sram_size.n)
                    throw std::runtime_error(
                        c.firmware_path + ": segment at " + hex32(seg.addr) + " (" +
                        std::to_string(seg.memsz) +
                        " B) does not fit pe.sram_size=" + format_bytes(m_pe.sram_size));
        } catch (const std::exception& e) {
            errors.push_back(ConfigError{c.origin, key + ".firmware", e.what()});
        }
        m_pes.push_back(c.pe);
    }
    if (!errors.empty()) throw ScenarioError(errors);
    m_layout = place_buffers(*m_w, m_mem, m_images);
    for (size_t i = 0; i < m_w->checks.size(); ++i)
        m_checks.push_back(prepare_check(m_w->checks[i], i, *m_w, m_pe));
}

uint8_t* PeHost::ext_host(uint32_t addr) {
    return (m_chip ? m_dram_copy.data() : m_plat->ext().data()) + (addr - S2_EXT_BASE);
}

void PeHost::elaboration(const run::RunContext& ctx, std::ostream& out) const {
    const scenario::Scenario& s = ctx.scenario;
    out << "elaborated " << s.name << ": platform " << s.platform_kind
        << (s.platform_variant.empty() ? "" : " (variant " + s.platform_variant + ")") << ", "
        << m_mem.pe_count << " PE" << (m_mem.pe_count > 1 ? "s" : "") << " at "
        << format_frequency(m_pe.clock()) << ", " << m_w->cores.size() << " firmware image"
        << (m_w->cores.size() == 1 ? "" : "s") << ", " << m_checks.size() << " check"
        << (m_checks.size() == 1 ? "" : "s") << "\n";
    for (const auto& c : m_w->cores)
        out << "  pe" << c.pe << " firmware " << c.firmware_path << " (image ends "
            << hex32(m_images[c.pe]->end_of_image()) << ", " << c.args.size()
            << " argument words)\n";
    for (const auto& name : m_w->buffer_order) {
        const Placed& pl = m_layout.buffers.at(name);
        out << "  buffer " << name << " " << dtype_name(pl.buf->dtype) << "[" << pl.buf->elements()
            << "] at " << hex32(pl.addr) << " (" << pl.buf->bytes() << " B, "
            << (pl.buf->at.kind == Placement::Kind::sram
                    ? "pe" + std::to_string(pl.buf->at.pe) + ".sram"
                    : std::string("ext"))
            << ")\n";
    }
}

void PeHost::load(run::RunContext& ctx) {
    const scenario::Scenario& s = ctx.scenario;
    if (m_on_chip) {
        m_chip =
            std::make_unique<spinnaker2::Chip>("s2", m_cp, s.seed, ctx.trace, ctx.console_echo());
        uint64_t ext_end = S2_EXT_BASE;
        for (const auto& [name, pl] : m_layout.buffers)
            if (pl.buf->at.kind != Placement::Kind::sram)
                ext_end = std::max<uint64_t>(ext_end, pl.addr + pl.buf->bytes());
        m_dram_copy.assign(ext_end - S2_EXT_BASE, 0);
    } else {
        m_plat = std::make_unique<spinnaker2::PePlatform>("s2", m_p, s.seed, ctx.trace,
                                                          ctx.console_echo());
    }
    for (size_t i : m_pes) pe(i).load(*m_images[i]);
    for (auto& [name, pl] : m_layout.buffers) {
        const bool sram = pl.buf->at.kind == Placement::Kind::sram;
        pl.host = sram ? pe(pl.buf->at.pe).sram.data() + pl.addr : ext_host(pl.addr);
        fill(*pl.buf, s.seed, pl.host);
        if (m_chip && !sram)
            m_chip->dram(0).store().write(pl.addr - S2_EXT_BASE, pl.host, pl.buf->bytes());
    }
    for (auto& pc : m_checks)
        if (pc.op.accumulate) pc.c_old = bytes_of(m_layout.buffers.at(pc.check->buffer));
    for (const auto& c : m_w->cores) {
        std::vector<uint32_t> words;
        for (const auto& a : c.args)
            words.push_back(a.value ? *a.value : m_layout.buffers.at(a.buffer).addr);
        pe(c.pe).set_args(words);
    }
    // Energy: one phase "run"; firmware may split it with s2_mark(n) (phase "mark<n>").
    if (m_chip)
        spinnaker2::add_chip_energy(m_meter, *m_chip);
    else
        spinnaker2::add_platform_energy(m_meter, *m_plat);
    m_meter.attach(*ctx.trace);
    for (size_t i = 0; i < m_mem.pe_count; ++i)
        pe(i).console.on_mark = [this](uint32_t v, uint64_t t) {
            m_meter.mark(v == S2_CONSOLE_MARK_IDLE ? "run" : "mark" + std::to_string(v), t);
        };
    m_meter.start("run", 0);
}

void PeHost::begin(run::RunContext&) {
    if (m_chip)
        m_chip->start(m_pes);
    else
        m_plat->start(m_pes);
}

void PeHost::collect(run::RunContext& ctx) {
    run::finish_energy(m_meter, *ctx.trace, sc_core::sc_time_stamp().value());
    if (sim_error().set) {
        ctx.sim_failed(sim_error().formatted());
    } else {
        for (size_t i : m_pes) {
            const std::string problem = spinnaker2::core_problem(pe(i), m_max_time);
            if (!problem.empty()) {
                ctx.sim_failed(problem);
                break;
            }
        }
    }
    if (m_chip) {
        for (auto& [name, pl] : m_layout.buffers)
            if (pl.buf->at.kind != Placement::Kind::sram)
                m_chip->dram(0).store().read(pl.addr - S2_EXT_BASE, pl.host, pl.buf->bytes());
        m_chip->write_summaries();
    } else {
        m_plat->write_summaries();
    }
}

void PeHost::check(run::RunContext& ctx) {
    if (ctx.result.sim_error) return;
    for (const auto& pc : m_checks) {
        m_outcomes.push_back(evaluate(pc, m_layout));
        if (!m_outcomes.back().passed)
            ctx.check_failed("check failed: " + pc.title + ": " + m_outcomes.back().detail);
    }
}

void PeHost::write_metrics(run::RunContext& ctx) {
    size_t passed = 0;
    for (const auto& oc : m_outcomes) passed += oc.passed;
    run::write_metric(*ctx.trace, "checks_passed", "1", static_cast<double>(passed));
    run::write_metric(*ctx.trace, "checks_failed", "1",
                      static_cast<double>(m_outcomes.size() - passed));
}

void PeHost::report(const run::RunContext& ctx, std::ostream& out) const {
    const run::RunResult& r = ctx.result;
    const double sim_s = r.sim_time_us * 1e-6;
    out << "  simulated time   " << fmt(r.sim_time_us, 3) << " us\n";
    for (size_t i : m_pes) {
        spinnaker2::Pe& x = pe(i);
        const double f = x.params().clock().hz;
        out << "  " << x.name() << " core      "
            << (x.exited ? "exit " + std::to_string(x.exit_code) : "did not exit") << "  "
            << grouped(x.core.instructions()) << " instructions  "
            << grouped(x.core.active_cycles()) << " cycles @ "
            << format_frequency(x.params().clock()) << "  CPI "
            << fmt(x.core.instructions()
                       ? double(x.core.active_cycles()) / double(x.core.instructions())
                       : 0,
                   2)
            << "  asleep " << fmt(x.core.sleep_time().to_seconds() * 1e6, 3) << " us\n";
        if (x.mla.total_ops()) {
            const double peak = double(m_pe.mla.n_rows) * m_pe.mla.n_cols;
            const double busy_util =
                double(x.mla.total_macs()) / (double(x.mla.busy_cycles()) * peak);
            const double run_cycles = sim_s * f;
            out << "  " << x.name() << " mla       " << x.mla.total_ops() << " op"
                << (x.mla.total_ops() > 1 ? "s" : "") << "  " << grouped(x.mla.total_macs())
                << " MACs  busy " << grouped(x.mla.busy_cycles()) << " cycles ("
                << fmt(x.mla.busy_time().to_seconds() * 1e6, 3) << " us)  utilisation "
                << fmt(100 * busy_util, 1) << " % while busy, "
                << fmt(100 * double(x.mla.total_macs()) / (run_cycles * peak), 2)
                << " % of the run (peak " << peak << " MAC/cycle)\n";
        }
        if (x.dma.transfers())
            out << "  " << x.name() << " dma       " << x.dma.transfers() << " transfers  "
                << grouped(x.dma.bytes_moved()) << " B  busy "
                << fmt(double(x.dma.busy_ps()) * 1e-6, 3) << " us\n";
    }
    energy::print_breakdown(m_meter, out);
    for (size_t i = 0; i < m_outcomes.size(); ++i)
        out << "  check            " << (m_outcomes[i].passed ? "PASS " : "FAIL ")
            << m_checks[i].title << ": " << m_outcomes[i].detail << "\n";
    if (r.sim_error) out << "  checks           not run (the simulation failed)\n";
}

}  // namespace nmsim::workloads::pe
