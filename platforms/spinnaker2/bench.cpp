#include "platforms/spinnaker2/bench.h"

#include <chrono>
#include <fstream>
#include <iomanip>

#include "platforms/spinnaker2/run_elf.h"

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

Timed timed_run(const std::string& elf, const std::vector<std::string>& sets, const std::vector<uint32_t>& args) {
    const auto t0 = std::chrono::steady_clock::now();
    Timed t{run_elf(elf, sets, args), 0};
    t.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return t;
}

}  // namespace

int run_bench(const std::vector<std::string>& dirs, bool quick, std::ostream& out, std::ostream& err) {
    const std::string loop = find_fw(dirs, "bench_loop"), mla = find_fw(dirs, "mla_bench");
    if (loop.empty() || mla.empty()) {
        err << "nmsim bench: firmware bench_loop.elf or mla_bench.elf not found (build the firmware target)\n";
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
        out << (variant ? "compute loop, registers only " : "compute loop, loads+stores    ") << std::setprecision(1)
            << double(t.r.instructions) / t.wall / 1e6 << " M instructions/s  (" << t.r.instructions
            << " instructions, " << std::setprecision(3) << t.r.sim_time_us / 1e3 << " ms simulated in " << t.wall
            << " s wall; " << std::setprecision(1) << double(t.r.cycles) / t.wall / 1e6 << " M cycles/s)\n";
    }
    // int8 matmul 64x256 by 256x64 (1,048,576 MACs per operation) repeated; operands in SRAM
    // above the firmware image; the core sleeps in WFI until each completion interrupt.
    const uint32_t m = 64, k = 256, n = 64, reps = quick ? 200u : 2000u;
    const Timed t = timed_run(mla, {"sim.max_time=100s"}, {0x8000u, 0xC000u, 0x10000u, m, k, n, reps, 2u});
    if (t.r.error || t.r.exit_code != 0) {
        err << "nmsim bench: mla_bench failed: " << t.r.message << "\n";
        return 1;
    }
    const double macs = double(m) * k * n * reps;
    out << "MLA int8 matmul                " << std::setprecision(2) << macs / t.wall / 1e9
        << " G simulated MACs/s  (" << reps << " x " << m << "x" << k << "x" << n << ", " << std::setprecision(3)
        << t.r.sim_time_us / 1e3 << " ms simulated in " << t.wall << " s wall)\n";
    return rc;
}

}  // namespace nmsim::spinnaker2
