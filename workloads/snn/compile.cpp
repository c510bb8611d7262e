// The compile stage of the snn workload: the network file, the PEs it may use, the firmware, and
// the compiler's machine graph, images, DRAM regions and routing table. No simulation.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "nmsim/hw/spinnaker2/noc_map.h"
#include "nmsim/hw/spinnaker2/snn_image.h"
#include "workloads/snn/host.h"

namespace nmsim::workloads::snn {

using scenario::ConfigError;
using scenario::Origin;
using scenario::ScenarioError;

namespace {

class Errors {
public:
    explicit Errors(const SnnWorkload& w) : m_w(w) {}
    void add(const std::string& field, const std::string& msg) {
        m_errors.push_back(ConfigError{m_w.origin_of(field), "workload.snn." + field, msg});
    }
    void add(const Origin& o, const std::string& key, const std::string& msg) {
        m_errors.push_back(ConfigError{o, key, msg});
    }
    void throw_if_any() {
        if (!m_errors.empty()) throw ScenarioError(std::move(m_errors));
    }

private:
    const SnnWorkload& m_w;
    std::vector<ConfigError> m_errors;
};

std::string hex(uint32_t v) {
    char b[16];
    std::snprintf(b, sizeof b, "%08x", v);
    return b;
}

// One clock for every PE of the network: the firmware's tick period is compiled in cycles.
double network_clock(const spinnaker2::ChipParams& p, const std::vector<uint32_t>& levels,
                     const std::vector<uint32_t>& pes, Errors& err) {
    const uint32_t level = levels.at(pes.front());
    for (uint32_t pe : pes)
        if (levels.at(pe) != level)
            err.add(Origin{"default", 0, 0}, "perf_levels",
                    "the network's PEs run at different performance levels (pe" +
                        std::to_string(pes.front()) + " at " + std::to_string(level) + ", pe" +
                        std::to_string(pe) + " at " + std::to_string(levels.at(pe)) +
                        "): the tick period is compiled for one clock");
    return level == 0 ? p.pe.pl0_freq.hz : p.pe.pl1_freq.hz;
}

}  // namespace

namespace {

// When the run switches paradigms (some population asked for other than serial): the PE counts
// of the whole network compiled all serial, all parallel and auto, for the report (seed 001
// sec. IV-C compares the three). Compiler only; a variant that does not fit counts -1.
std::vector<ParadigmCount> paradigm_counts(const compiler::snn::Network& net,
                                           const compiler::snn::CompileOptions& o,
                                           const compiler::snn::Compiled& done) {
    using compiler::snn::Paradigm;
    bool switching = false;
    for (const auto& ch : done.paradigm) switching = switching || ch.requested != Paradigm::serial;
    if (!switching) return {};
    std::vector<ParadigmCount> out;
    for (Paradigm p : {Paradigm::serial, Paradigm::parallel, Paradigm::automatic}) {
        compiler::snn::Network n = net;
        for (auto& pop : n.populations) pop.paradigm.reset();
        compiler::snn::CompileOptions v = o;
        v.paradigm = p;
        ParadigmCount c{compiler::snn::paradigm_name(p), -1, -1};
        try {
            const compiler::snn::Compiled cc = compiler::snn::compile(n, v);
            c.pes = cc.pes_used();
            c.source_pes = 0;
            for (const auto& vx : cc.graph.vertices)
                c.source_pes += vx.is_source && vx.pe != compiler::snn::kNoPe ? 1 : 0;
        } catch (const compiler::snn::CompileError&) {
        }
        out.push_back(c);
    }
    return out;
}

}  // namespace

Compiled compile(const SnnWorkload& w, const spinnaker2::ChipParams& p) {
    Compiled C;
    Errors err(w);
    const uint32_t n_pes = p.qpe_count * S2_NOC_PES_PER_QPE;
    if (w.first_pe >= n_pes)
        err.add("first_pe", "pe" + std::to_string(w.first_pe) + " does not exist: the chip has " +
                                std::to_string(n_pes) +
                                " PEs (qpe_count = " + std::to_string(p.qpe_count) + ")");
    if (w.ticks > std::numeric_limits<int32_t>::max()) err.add("ticks", "at most 2147483647 ticks");
    std::vector<uint32_t> levels;
    try {
        levels = spinnaker2::parse_perf_levels(p.perf_levels, n_pes, p.pe.perf_level);
    } catch (const std::exception& e) {
        err.add(Origin{"default", 0, 0}, "perf_levels", e.what());
    }
    try {
        C.elf = std::make_unique<arm::ElfImage>(arm::ElfImage::load(w.firmware_path));
        if (C.elf->end_of_image() > S2_SNN_IMAGE_BASE)
            err.add("firmware", w.firmware_path + " ends at 0x" + hex(C.elf->end_of_image()) +
                                    ", inside the SNN image at 0x" + hex(S2_SNN_IMAGE_BASE) +
                                    " (snn_image.h)");
    } catch (const std::exception& e) {
        err.add("firmware", e.what());
    }
    try {
        C.elf_par = std::make_unique<arm::ElfImage>(arm::ElfImage::load(w.firmware_parallel_path));
        if (C.elf_par->end_of_image() > S2_SNN_IMAGE_BASE)
            err.add("firmware_parallel", w.firmware_parallel_path + " ends at 0x" +
                                             hex(C.elf_par->end_of_image()) +
                                             ", inside the SNN image at 0x" +
                                             hex(S2_SNN_IMAGE_BASE) + " (snn_par_image.h)");
    } catch (const std::exception& e) {
        err.add("firmware_parallel", e.what());
    }
    err.throw_if_any();

    try {
        C.net = compiler::snn::load_network(w.network);
    } catch (const compiler::snn::NetworkError& e) {
        err.add("network", e.what());
        err.throw_if_any();
    }

    compiler::snn::CompileOptions o;
    o.n_ticks = static_cast<uint32_t>(w.ticks);
    o.max_neurons_per_pe = w.max_neurons_per_pe;
    o.max_matrix_split = w.max_matrix_split;
    compiler::snn::parse_paradigm(w.paradigm, o.paradigm);
    for (uint32_t pe = w.first_pe; pe < n_pes; ++pe) o.pes.push_back(pe);
    o.core_clock_hz = levels[w.first_pe] == 0 ? p.pe.pl0_freq.hz : p.pe.pl1_freq.hz;
    o.dram_base = S2_DRAM_GLOBAL_BASE;
    o.dram_size =
        static_cast<uint32_t>(std::min<uint64_t>(spinnaker2::dram_if_size(p), S2_DRAM_IF_SIZE));
    o.max_router_entries = p.router.n_entries - 1;  // one entry is the start key's
    try {
        C.c = compiler::snn::compile(C.net, o);
    } catch (const compiler::snn::CompileError& e) {
        err.add("network", e.what());
    } catch (const compiler::snn::NetworkError& e) {
        err.add("network", e.what());
    } catch (const std::invalid_argument& e) {
        err.add("network", e.what());
    }
    err.throw_if_any();
    C.paradigm_pes = paradigm_counts(C.net, o, C.c);

    for (const auto& img : C.c.images) C.pes.push_back(img.pe);
    std::sort(C.pes.begin(), C.pes.end());
    C.clock_hz = network_clock(p, levels, C.pes, err);

    // The run must fit the simulated-time limit: the load, n ticks and the drain tick.
    const double run_s = (static_cast<double>(w.ticks) + 2.0) * C.net.timestep_ms * 1e-3;
    if (run_s * 1e12 >= static_cast<double>(p.sim.max_time.ps))
        err.add(Origin{"default", 0, 0}, "platform.sim.max_time",
                std::to_string(w.ticks) + " ticks of " + scenario::format_real(C.net.timestep_ms) +
                    " ms need more than " + scenario::format_real(run_s) +
                    " s of simulated time; platform.sim.max_time is " +
                    scenario::format_real(static_cast<double>(p.sim.max_time.ps) * 1e-12) +
                    " s: raise it (e.g. --set platform.sim.max_time=" +
                    scenario::format_real(std::ceil(run_s * 1.2 + 0.1)) + "s)");
    err.throw_if_any();
    return C;
}

}  // namespace nmsim::workloads::snn
