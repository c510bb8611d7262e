#include "tools/bench/spinnaker2_bench.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <stdexcept>

#include <unistd.h>

#include <sys/resource.h>

#include "models/common/sim_kernel.h"
#include "nmsim/hw/spinnaker2/noc_map.h"
#include "platforms/common/host_program.h"
#include "platforms/spinnaker2/chip.h"
#include "platforms/spinnaker2/run_elf.h"
#include "tools/compiler/snn/paradigm.h"
#include "tools/scenario/scenario.h"
#include "tools/sweep/sweep.h"
#include "workloads/deepr/host.h"
#include "workloads/dnn/host.h"
#include "workloads/snn/host.h"

namespace nmsim::spinnaker2 {
namespace {

std::string find_fw(const std::vector<std::string>& dirs, const std::string& name) {
    for (const auto& d : dirs) {
        const std::string p = d + "/" + name + ".elf";
        if (std::ifstream(p).good()) return p;
    }
    return "";
}

struct Timed {
    ElfRunResult r;
    double wall = 0;
};

Timed timed_run(const std::string& elf, const std::vector<std::string>& sets,
                const std::vector<uint32_t>& args) {
    const auto t0 = std::chrono::steady_clock::now();
    Timed t{run_elf(elf, sets, args), 0};
    t.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return t;
}

double peak_rss_mib() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_maxrss) / 1024.0;  // Linux: KiB
}

// The full 152-PE chip with two PEs running (chip_ping / chip_pong: DRAM, NoC, signals): the
// memory a chip run costs when most PEs are idle, and its wall time.
int bench_chip(const std::vector<std::string>& dirs, std::ostream& out, std::ostream& err) {
    const std::string ping = find_fw(dirs, "chip_ping"), pong = find_fw(dirs, "chip_pong");
    if (ping.empty() || pong.empty()) {
        err << "nmsim bench: firmware chip_ping.elf or chip_pong.elf not found (build the firmware "
               "target)\n";
        return 2;
    }
    const double rss0 = peak_rss_mib();
    const auto t0 = std::chrono::steady_clock::now();
    fresh_sim_kernel();
    ChipParams p;
    Chip chip("chip", p, 1, nullptr, false);
    const arm::ElfImage a = arm::ElfImage::load(ping), b = arm::ElfImage::load(pong);
    const uint32_t len = 256;
    chip.pe(0).load(a);
    chip.pe(0).set_args({5, s2_dram_global_addr(1, 0x1000), len});
    chip.pe(5).load(b);
    chip.pe(5).set_args({len});
    chip.start({0, 5});
    sc_core::sc_start(sc_core::sc_time(1, sc_core::SC_MS));
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!chip.all_exited() || chip.pe(0).exit_code != 0 || chip.pe(5).exit_code != 0) {
        err << "nmsim bench: the chip ping-pong did not finish cleanly\n";
        return 1;
    }
    out << "full chip (" << chip.pe_count() << " PEs, 2 running)   peak RSS "
        << std::setprecision(1) << peak_rss_mib() << " MiB (" << peak_rss_mib() - rss0
        << " MiB above the process before), " << chip.iss_count() << " ISS engines, "
        << std::setprecision(3) << wall << " s wall\n";
    return 0;
}

// One DNN scenario run for the bench: `count` inferences (plus `extra` settings); the run's wall
// seconds and its summary. Throws with the failure.
struct DnnBenchRun {
    double wall_s = 0;
    workloads::dnn::DnnRunSummary sum;
};

DnnBenchRun run_dnn(const std::vector<std::string>& dirs, const std::string& scenario_name,
                    uint64_t count, const std::vector<std::string>& extra) {
    const std::string path = std::string(NMSIM_SCENARIOS_DIR) + "/" + scenario_name + ".yaml";
    const std::string trace = "/tmp/nmsim_bench_dnn_" + std::to_string(::getpid()) + ".h5";
    scenario::LoadOptions lo;
    lo.firmware_dirs = dirs;
    lo.sets = {"workload.dnn.count=" + std::to_string(count)};
    lo.sets.insert(lo.sets.end(), extra.begin(), extra.end());
    std::ostringstream rep, rerr;
    workloads::dnn::DnnHost host;
    run::RunOptions o;
    o.quiet = true;
    o.trace_path = trace;
    const run::RunResult r = run::run_scenario(scenario::load(path, lo), o, rep, rerr, host);
    std::remove(trace.c_str());
    if (!r.ok) throw std::runtime_error(scenario_name + " failed: " + r.message);
    return {r.wall_seconds, host.summary()};
}

// Wall time per inference of a DNN scenario with the bit-exact check on, start-up apart: the
// difference between a run of `n` inferences and one of 10, per extra inference; the start-up
// is what the 10-inference run takes beyond its inferences.
int bench_dnn_scenario(const std::vector<std::string>& dirs, const std::string& name,
                       const std::string& label, bool quick, double* per_ms, std::ostream& out,
                       std::ostream& err) {
    try {
        const uint64_t n = quick ? 40 : 200;
        // The faster of two runs each (the figure is a difference of two wall times).
        auto fastest = [&](uint64_t count) {
            DnnBenchRun a = run_dnn(dirs, name, count, {});
            const DnnBenchRun b = run_dnn(dirs, name, count, {});
            if (b.wall_s < a.wall_s) a = b;
            return a;
        };
        const DnnBenchRun small = fastest(10);
        const DnnBenchRun big = fastest(n);
        const double per = (big.wall_s - small.wall_s) / double(n - 10);
        *per_ms = per * 1e3;
        const double on_chip = big.sum.total_us * 1e-6;
        out << label << std::setprecision(2) << per * 1e3 << " ms wall per inference  (" << n
            << " minus 10 inferences; start-up " << std::setprecision(3)
            << small.wall_s - 10.0 * per << " s; on-chip " << std::setprecision(1)
            << big.sum.total_us << " us each, slowdown " << per / on_chip << "x; outputs bit-exact "
            << big.sum.bit_exact << "/" << big.sum.inferences << ")\n";
    } catch (const std::exception& e) {
        err << "nmsim bench: " << e.what() << "\n";
        return 1;
    }
    return 0;
}

// Seed 000's MLP (scenarios/s2_mlp_fmnist.yaml) and the CNN scenario: wall time per simulated
// inference and the slowdown; then the MLP with every PE of the chip as a worker (all 152 cores
// running) for the peak memory of a full-chip run.
int bench_mlp(const std::vector<std::string>& dirs, bool quick, bench::SpeedFigures& fig,
              std::ostream& out, std::ostream& err) {
    int rc = bench_dnn_scenario(dirs, "s2_mlp_fmnist", "MLP inference (8 workers)      ", quick,
                                &fig.mlp_ms_per_inference, out, err);
    rc = std::max(rc, bench_dnn_scenario(dirs, "s2_cnn_fmnist", "CNN inference                  ",
                                         quick, &fig.cnn_ms_per_inference, out, err));
    try {
        const DnnBenchRun all = run_dnn(dirs, "s2_mlp_fmnist", 3, {"workload.dnn.workers=all"});
        out << "full chip, all 152 PEs running  peak RSS " << std::setprecision(1) << peak_rss_mib()
            << " MiB  (MLP with 151 workers, " << all.sum.inferences << " inferences, "
            << std::setprecision(3) << all.wall_s << " s wall)\n";
    } catch (const std::exception& e) {
        err << "nmsim bench: " << e.what() << "\n";
        rc = 1;
    }
    return rc;
}

// Sweep throughput (docs/sweeps.md): the MLP at four worker counts, 20 inferences per point, as
// `nmsim sweep` runs it (one child process per point), at -j 1 and -j 2: points per minute; and
// the start-up cost per point, from the same four points with one inference each at -j 1.
int bench_sweep(bool quick, std::ostream& out, std::ostream& err) {
    const std::string dir = "/tmp/nmsim_bench_sweep_" + std::to_string(::getpid());
    const std::string base = std::string(NMSIM_SCENARIOS_DIR) + "/s2_mlp_fmnist.yaml";
    auto timed_sweep = [&](int jobs, uint32_t count, const std::string& tag) {
        const std::string file = dir + "_" + tag + ".yaml";
        std::ofstream(file) << "name: bench_" << tag << "\nbase: " << base
                            << "\nset: {workload.dnn.count: " << count
                            << ", workload.dnn.layer_workers: \"[]\", trace.events: false}\n"
                            << "axes:\n  workload.dnn.workers: [1, 2, 4, 8]\n"
                            << "metrics: [dnn.total_us, wall_s]\noutput: " << dir << "_" << tag
                            << "\n";
        sweep::SweepOptions so;
        so.sweep_path = file;
        so.jobs = jobs;
        so.progress = false;
        std::ostringstream sout, serr;
        const auto t0 = std::chrono::steady_clock::now();
        const int rc = sweep::run_sweep(so, sout, serr);
        const double wall =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::filesystem::remove_all(dir + "_" + tag);
        std::remove(file.c_str());
        if (rc != 0) throw std::runtime_error("sweep (" + tag + ") failed: " + serr.str());
        return wall;
    };
    try {
        const uint32_t count = quick ? 5 : 20;
        const double j1 = timed_sweep(1, count, "j1");
        const double j2 = timed_sweep(2, count, "j2");
        const double start = timed_sweep(1, 1, "start");
        out << "MLP sweep, 4 points x " << count << " inferences  " << std::setprecision(1)
            << 4.0 / j1 * 60.0 << " points/min at -j 1, " << 4.0 / j2 * 60.0 << " at -j 2 ("
            << std::setprecision(2) << j1 / j2 << "x); start-up per point " << std::setprecision(3)
            << start / 4.0
            << " s (a 1-inference point: process, scenario, compile, chip, DRAM image)\n";
    } catch (const std::exception& e) {
        err << "nmsim bench: " << e.what() << "\n";
        return 1;
    }
    return 0;
}

// DEEP R training on the prototype (seed 003, issue 16): simulated training iterations per wall
// second for 1PA and 4PA with the bit-exact check on, and the wall time of a full epoch (50,000
// iterations) extrapolated from the per-iteration rate (the fixed start-up cost measured apart).
int bench_deepr(const std::vector<std::string>& dirs, bool quick, std::ostream& out,
                std::ostream& err) {
    const std::string trace = "/tmp/nmsim_bench_deepr_" + std::to_string(::getpid()) + ".h5";
    int rc = 0;
    for (const char* setup : {"1pa", "4pa"}) {
        const std::string path =
            std::string(NMSIM_SCENARIOS_DIR) + "/s2_proto_deepr_" + setup + ".yaml";
        auto timed = [&](uint64_t iterations, workloads::deepr::DeeprSummary* sum) {
            scenario::LoadOptions lo;
            lo.firmware_dirs = dirs;
            lo.sets = {"workload.deepr.iterations=" + std::to_string(iterations),
                       "workload.deepr.test_count=0"};
            std::ostringstream rep, rerr;
            workloads::deepr::DeeprHost host;
            run::RunOptions o;
            o.quiet = true;
            o.trace_path = trace;
            const run::RunResult r =
                run::run_scenario(scenario::load(path, lo), o, rep, rerr, host);
            std::remove(trace.c_str());
            if (!r.ok) throw std::runtime_error("DEEP R " + std::string(setup) + ": " + r.message);
            *sum = host.summary();
            return r.wall_seconds;
        };
        try {
            workloads::deepr::DeeprSummary base_sum, sum;
            const uint64_t n = quick ? 100 : 1000;
            const double base = timed(10, &base_sum);
            const double wall = timed(n, &sum);
            const double per = (wall - base) / double(n - 10);
            const double sim_per = sum.train_us / double(sum.iterations) * 1e-6;
            out << "DEEP R " << (setup[0] == '1' ? "1PA (1 PE) " : "4PA (4 PEs)") << "        "
                << std::setprecision(0) << 1.0 / per << " training iterations per wall second  ("
                << n << " iterations in " << std::setprecision(2) << wall << " s, start-up " << base
                << " s; " << std::setprecision(0) << sim_per * 1e6
                << " us simulated each, slowdown " << std::setprecision(1) << per / sim_per
                << "x; a 50,000-iteration epoch at this rate " << std::setprecision(1)
                << (base + per * 50000.0) / 60.0
                << " min wall, more later in training as more connections are rewired; every "
                   "iteration checked)\n";
        } catch (const std::exception& e) {
            err << "nmsim bench: " << e.what() << "\n";
            rc = 1;
        }
    }
    return rc;
}

// One SNN run for the bench: the network text, `ticks` ticks, every population in `paradigm`.
struct SnnBenchRun {
    bool ok = false;
    workloads::snn::SnnSummary sum;
    double wall_s = 0;
    size_t pes = 0;
};
SnnBenchRun run_snn(const std::vector<std::string>& dirs, const std::string& network,
                    uint32_t ticks, const std::string& paradigm, std::ostream& err) {
    SnnBenchRun out;
    const std::string base = "/tmp/nmsim_bench_snn_" + std::to_string(::getpid());
    {
        std::ofstream(base + "_net.yaml") << network;
        std::ofstream sc(base + ".yaml");
        sc << "platform: {kind: spinnaker2_chip, params: {sim.max_time: 5s}}\n"
           << "workload:\n  snn: {network: " << base << "_net.yaml, ticks: " << ticks
           << ", paradigm: " << paradigm << "}\n";
    }
    scenario::LoadOptions lo;
    lo.firmware_dirs = dirs;
    std::ostringstream rep, rerr;
    workloads::snn::SnnHost host;
    run::RunResult r;
    try {
        run::RunOptions o;
        o.quiet = true;
        o.trace_path = base + ".h5";
        r = run::run_scenario(scenario::load(base + ".yaml", lo), o, rep, rerr, host);
    } catch (const std::exception& e) {
        err << "nmsim bench: SNN (" << paradigm << "): " << e.what() << "\n";
        return out;
    }
    for (const char* f : {".yaml", "_net.yaml", ".h5"}) std::remove((base + f).c_str());
    // A failed spike check does not invalidate the speed figure: it is reported with it; a failed
    // simulation does.
    if (r.sim_error || !host.summary().checked) {
        err << "nmsim bench: SNN run (" << paradigm << ") failed: " << r.message << "\n";
        return out;
    }
    out.ok = true;
    out.sum = host.summary();
    out.wall_s = r.wall_seconds;
    return out;
}

std::string spike_check(const workloads::snn::SnnSummary& s) {
    return s.mismatched_spikes == 0 ? std::string("equal")
                                    : std::to_string(s.mismatched_spikes) + " of " +
                                          std::to_string(s.ref_spikes) + " DIFFER";
}

// The serial SNN paradigm on the whole chip: 76 spike-source PEs (255 Poisson sources at 50 Hz
// each) and as many LIF PEs (255 neurons each), source block b projecting onto LIF block b with
// probability 0.15 (rows of about 38 synapses) and the LIF blocks onto their neighbours sparsely.
// Synaptic events per wall second with real firmware on every PE, the slowdown against the
// chip's real time, and the peak memory.
int bench_snn(const std::vector<std::string>& dirs, bool quick, bench::SpeedFigures& fig,
              std::ostream& out, std::ostream& err) {
    const uint32_t blocks = 76, ticks = quick ? 50 : 200;
    std::ostringstream net;
    net << "timestep: 1.0\nseed: 5\nsources:\n";
    for (uint32_t b = 0; b < blocks; ++b) net << "  - {name: s" << b << ", size: 255, rate: 50}\n";
    net << "populations:\n";
    for (uint32_t b = 0; b < blocks; ++b)
        net << "  - {name: n" << b << ", size: 255, tau_m: 20, v_th: 150}\n";
    net << "projections:\n";
    for (uint32_t b = 0; b < blocks; ++b) {
        net << "  - {name: f" << b << ", pre: s" << b << ", post: n" << b
            << ", connector: fixed_probability, p: 0.15, weight: 4, delay: 1}\n";
        net << "  - {name: r" << b << ", pre: n" << b << ", post: n" << (b + 1) % blocks
            << ", connector: fixed_probability, p: 0.02, weight: -3, delay: 2}\n";
    }
    const SnnBenchRun r = run_snn(dirs, net.str(), ticks, "serial", err);
    if (!r.ok) return 1;
    const workloads::snn::SnnSummary& s = r.sum;
    fig.snn_serial_events_per_s = double(s.synaptic_events) / r.wall_s;
    out << "SNN serial paradigm, 152 PEs   " << std::setprecision(2)
        << double(s.synaptic_events) / r.wall_s / 1e6
        << " M synaptic events per wall second (target >= 10 M)  (" << s.synaptic_events
        << " events, " << s.spikes + s.source_spikes << " spikes in " << ticks << " ticks; "
        << std::setprecision(3) << r.wall_s << " s wall for " << s.run_us / 1e3
        << " ms on chip, slowdown " << std::setprecision(1) << r.wall_s / (s.run_us * 1e-6)
        << "x; spikes checked: " << spike_check(s) << "; peak RSS " << peak_rss_mib() << " MiB)\n";
    return 0;
}

// Serial against parallel (MLA) paradigm on the same network (seed 001): 16 blocks of 255
// Poisson sources at 50 Hz, each onto its own 255 LIF neurons (p 0.3, delays 1..2, both signs),
// the LIF blocks onto their neighbours (p 0.05). Synaptic events per wall second of each, the
// simulated work and energy per tick, and the compile time of the paradigm dataset (a strided
// sample of seed 001's 16,000 layers, both compilers), extrapolated to all of it.
int bench_snn_paradigms(const std::vector<std::string>& dirs, bool quick, std::ostream& out,
                        std::ostream& err) {
    const uint32_t blocks = 16, ticks = quick ? 50 : 200;
    std::ostringstream net;
    net << "timestep: 1.0\nseed: 9\nsources:\n";
    for (uint32_t b = 0; b < blocks; ++b) net << "  - {name: s" << b << ", size: 255, rate: 50}\n";
    net << "populations:\n";
    for (uint32_t b = 0; b < blocks; ++b)
        net << "  - {name: n" << b << ", size: 255, tau_m: 20, v_th: 400}\n";
    net << "projections:\n";
    for (uint32_t b = 0; b < blocks; ++b) {
        net << "  - {name: f" << b << ", pre: s" << b << ", post: n" << b
            << ", connector: fixed_probability, p: 0.3, weight: 5, delay: 1}\n";
        net << "  - {name: g" << b << ", pre: s" << b << ", post: n" << b
            << ", connector: fixed_probability, p: 0.05, weight: -9, delay: 2}\n";
        net << "  - {name: r" << b << ", pre: n" << b << ", post: n" << (b + 1) % blocks
            << ", connector: fixed_probability, p: 0.05, weight: 3, delay: 1}\n";
    }
    double rate[2] = {0, 0};
    int rc = 0;
    for (int k = 0; k < 2; ++k) {
        const char* paradigm = k == 0 ? "serial" : "parallel";
        const SnnBenchRun r = run_snn(dirs, net.str(), ticks, paradigm, err);
        if (!r.ok) {
            rc = 1;
            continue;
        }
        const workloads::snn::SnnSummary& s = r.sum;
        const double t = double(std::max<uint64_t>(s.ticks_done, 1));
        rate[k] = double(s.synaptic_events) / r.wall_s;
        out << "SNN " << std::left << std::setw(8) << paradigm << std::right << " 16 layers      "
            << std::setprecision(2) << rate[k] / 1e6 << " M synaptic events per wall second  ("
            << s.synaptic_events << " events in " << ticks << " ticks, " << std::setprecision(3)
            << r.wall_s << " s wall; on chip: tick work " << std::setprecision(1)
            << s.mean_busy_fraction * 1e3 << " us mean, energy " << std::setprecision(1)
            << s.energy_uj / t << " uJ per tick; spikes checked: " << spike_check(s) << ")\n";
    }
    if (rate[0] > 0 && rate[1] > 0)
        out << "SNN parallel / serial speed    " << std::setprecision(2) << rate[1] / rate[0]
            << "x synaptic events per wall second\n";
    const uint32_t stride = quick ? 400 : 40;
    const auto t0 = std::chrono::steady_clock::now();
    const auto rows = compiler::snn::make_dataset(1, stride);
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    out << "SNN paradigm dataset compile   " << std::setprecision(1)
        << secs / double(rows.size()) * 1e3 << " ms per layer, both paradigms  (" << rows.size()
        << " of the 16,000 layers in " << std::setprecision(2) << secs << " s; all of them about "
        << std::setprecision(0) << secs / double(rows.size()) * 16000.0 << " s)\n";
    return rc;
}

}  // namespace

int run_bench(const std::vector<std::string>& dirs, bool quick, bench::SpeedFigures& fig,
              std::ostream& out, std::ostream& err) {
    const std::string loop = find_fw(dirs, "bench_loop"), mla = find_fw(dirs, "mla_bench");
    if (loop.empty() || mla.empty()) {
        err << "nmsim bench: firmware bench_loop.elf or mla_bench.elf not found (build the "
               "firmware target)\n";
        return 2;
    }
    out << std::fixed;
    int rc = 0;
    const uint32_t iters = quick ? 2000000u : 20000000u;
    for (uint32_t variant : {0u, 1u}) {
        const Timed t = timed_run(loop, {"sim.max_time=100s"}, {iters, variant});
        if (t.r.error || t.r.exit_code != 0) {
            err << "nmsim bench: bench_loop failed: " << t.r.message << "\n";
            rc = 1;
            continue;
        }
        out << (variant ? "compute loop, registers only " : "compute loop, loads+stores    ")
            << std::setprecision(1) << double(t.r.instructions) / t.wall / 1e6
            << " M instructions/s  (" << t.r.instructions << " instructions, "
            << std::setprecision(3) << t.r.sim_time_us / 1e3 << " ms simulated in " << t.wall
            << " s wall; " << std::setprecision(1) << double(t.r.cycles) / t.wall / 1e6
            << " M cycles/s)\n";
    }
    // int8 matmul 64x256 by 256x64 (1,048,576 MACs per operation) repeated; operands in SRAM
    // above the firmware image; the core sleeps in WFI until each completion interrupt.
    const uint32_t m = 64, k = 256, n = 64, reps = quick ? 200u : 2000u;
    const Timed t =
        timed_run(mla, {"sim.max_time=100s"}, {0x8000u, 0xC000u, 0x10000u, m, k, n, reps, 2u});
    if (t.r.error || t.r.exit_code != 0) {
        err << "nmsim bench: mla_bench failed: " << t.r.message << "\n";
        return 1;
    }
    const double macs = double(m) * k * n * reps;
    out << "MLA int8 matmul                " << std::setprecision(2) << macs / t.wall / 1e9
        << " G simulated MACs/s  (" << reps << " x " << m << "x" << k << "x" << n << ", "
        << std::setprecision(3) << t.r.sim_time_us / 1e3 << " ms simulated in " << t.wall
        << " s wall)\n";
    rc = std::max(rc, bench_chip(dirs, out, err));
    rc = std::max(rc, bench_snn(dirs, quick, fig, out, err));
    rc = std::max(rc, bench_snn_paradigms(dirs, quick, out, err));
    rc = std::max(rc, bench_deepr(dirs, quick, out, err));
    rc = std::max(rc, bench_mlp(dirs, quick, fig, out, err));
    return std::max(rc, bench_sweep(quick, out, err));
}

}  // namespace nmsim::spinnaker2
