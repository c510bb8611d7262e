// trace_demo: writes a synthetic nmsim trace with the real record schemas, for the Python reader
// tests and for writer benchmarks. Deterministic for a given seed. Prints one JSON line with the
// counts (rows, bytes, append seconds) on stdout.
//
//   trace_demo OUT.h5 [--mla-rows N] [--seed S] [--no-events] [--error MESSAGE]
//                     [--no-finish] [--kill-after N] [--bench]
//
// --kill-after N: SIGKILL itself after N MLA rows (a crashed run). --no-finish: destroy the
// writer without finish() (status "incomplete"). --bench: only MLA rows, timed.
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "models/common/trace_records.h"
#include "nmsim/trace/hdf5_writer.h"

namespace {

using nmsim::trace::ComponentId;
using nmsim::trace::Hdf5Writer;
using nmsim::trace::TableId;

struct Options {
    std::string out;
    uint64_t mla_rows = 10000;
    uint64_t seed = 1;
    bool events = true;
    bool finish = true;
    bool bench = false;
    std::string error;
    std::optional<uint64_t> kill_after;
};

uint64_t splitmix64(uint64_t& s) {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

[[noreturn]] void usage(const char* msg) {
    std::fprintf(stderr, "trace_demo: %s\n", msg);
    std::exit(2);
}

Options parse(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) usage(("missing value for " + a).c_str());
            return argv[++i];
        };
        if (a == "--mla-rows")
            o.mla_rows = std::stoull(value());
        else if (a == "--seed")
            o.seed = std::stoull(value());
        else if (a == "--no-events")
            o.events = false;
        else if (a == "--no-finish")
            o.finish = false;
        else if (a == "--bench")
            o.bench = true;
        else if (a == "--error")
            o.error = value();
        else if (a == "--kill-after")
            o.kill_after = std::stoull(value());
        else if (!a.empty() && a[0] != '-' && o.out.empty())
            o.out = a;
        else
            usage(("unknown argument " + a).c_str());
    }
    if (o.out.empty()) usage("usage: trace_demo OUT.h5 [options]");
    return o;
}

constexpr int kPes = 4;
constexpr uint64_t kMlaPeriodPs = 6667;  // 150 MHz
constexpr uint64_t kDmaBytesPerNs = 4;

struct Pe {
    ComponentId mla, dma, core;
    uint64_t t_ps = 0;
    uint64_t ops = 0, macs = 0, busy_ps = 0, transfers = 0, bytes = 0, lines = 0;
};

int run(const Options& o) {
    nmsim::trace::RunInfo info;
    info.simulator_version = "trace_demo";
    info.scenario_path = "scenarios/demo.yaml";
    info.scenario_name = "demo";
    info.platform = "spinnaker2";
    info.argv = "trace_demo --seed " + std::to_string(o.seed);  // no path: files comparable
    info.created_utc = "2025-01-01T00:00:00Z";
    info.seed = o.seed;
    Hdf5Writer w(o.out, info, o.events);
    w.set_config("platform: spinnaker2\nseed: " + std::to_string(o.seed) + "\n",
                 {{"s2.chip0.qpe0.pe0.mla.clock", "150MHz", "Hz", "Frequency", "default",
                   "assumed: demo", "MLA clock"},
                  {"s2.chip0.qpe0.pe0.dma.burst", "64B", "B", "Bytes", "scenarios/demo.yaml:3:5",
                   "assumed: demo", "DMA burst length"}});

    const TableId mla = w.declare_table(nmsim::MlaOpRecord_schema());
    const TableId dma = o.bench ? -1 : w.declare_table(nmsim::DmaRecord_schema());
    const TableId con = o.bench ? -1 : w.declare_table(nmsim::ConsoleRecord_schema());
    const TableId irq = o.bench ? -1 : w.declare_table(nmsim::IrqRecord_schema());
    std::vector<Pe> pes(kPes);
    for (int p = 0; p < kPes; ++p) {
        const std::string base = "s2.chip0.qpe0.pe" + std::to_string(p);
        pes[p].mla = w.component(base + ".mla");
        pes[p].dma = w.component(base + ".dma");
        pes[p].core = w.component(base + ".core");
    }
    w.start();
    // A component that appears after start() (the LUT grows under SWMR).
    const ComponentId host = w.component("s2.host");

    uint64_t rng = o.seed;
    const auto t0 = std::chrono::steady_clock::now();
    for (uint64_t i = 0; i < o.mla_rows; ++i) {
        if (o.kill_after && i == *o.kill_after) {
            std::fflush(stdout);
            raise(SIGKILL);
        }
        const uint64_t r = splitmix64(rng);
        Pe& pe = pes[r % kPes];
        nmsim::MlaOpRecord rec{};
        rec.m = 1 + (r >> 8) % 64;
        rec.k = 1 + (r >> 16) % 256;
        rec.n = 1 + (r >> 24) % 64;
        rec.macs = uint64_t{rec.m} * rec.k * rec.n;
        rec.cycles = ((rec.m + 3) / 4) * ((rec.n + 15) / 16) * rec.k + 12;
        rec.t_start_ps = pe.t_ps + 1000 * ((r >> 32) % 50);
        rec.t_end_ps = rec.t_start_ps + rec.cycles * kMlaPeriodPs;
        rec.component = pe.mla;
        rec.mode = (r >> 40) & 1;
        rec.flags = (r >> 41) & 0x1FF;
        pe.t_ps = rec.t_end_ps;
        pe.ops += 1;
        pe.macs += rec.macs;
        pe.busy_ps += rec.t_end_ps - rec.t_start_ps;
        w.append(mla, &rec);
        if (o.bench) continue;
        if (i % 4 == 0) {
            nmsim::DmaRecord d{};
            d.t_start_ps = rec.t_end_ps;
            d.bytes = 4 * (1 + (r >> 50) % 1024);
            d.t_end_ps = d.t_start_ps + 1000 * d.bytes / kDmaBytesPerNs;
            d.src = 0x10000 + static_cast<uint32_t>(i);
            d.dst = 0x20000;
            d.component = pe.dma;
            w.append(dma, &d);
            pe.transfers += 1;
            pe.bytes += d.bytes;
            pe.t_ps = d.t_end_ps;
            nmsim::IrqRecord q{};
            q.t_ps = d.t_end_ps;
            q.exception = 16 + 3;
            q.component = pe.core;
            q.kind = 0;
            w.append(irq, &q);
        }
        if (i % 1000 == 0) {
            nmsim::ConsoleRecord c{};
            c.t_ps = pe.t_ps;
            c.component = pe.core;
            std::snprintf(c.text, sizeof c.text, "op %llu: m=%u k=%u n=%u \xc2\xb5s",
                          static_cast<unsigned long long>(i), rec.m, rec.k, rec.n);
            w.append(con, &c);
            pe.lines += 1;
        }
    }
    if (o.kill_after) raise(SIGKILL);  // at or beyond the last row: die before finish()
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    uint64_t t_end = 0;
    for (const Pe& pe : pes) {
        w.counter(pe.mla, "ops", "1", static_cast<double>(pe.ops));
        w.counter(pe.mla, "macs", "1", static_cast<double>(pe.macs));
        w.counter(pe.mla, "busy_time", "ps", static_cast<double>(pe.busy_ps));
        if (!o.bench) {
            w.counter(pe.dma, "transfers", "1", static_cast<double>(pe.transfers));
            w.counter(pe.dma, "bytes", "B", static_cast<double>(pe.bytes));
            w.counter(pe.core, "console_lines", "1", static_cast<double>(pe.lines));
        }
        t_end = std::max(t_end, pe.t_ps);
    }
    w.counter(host, "runs", "1", 1);
    const uint64_t rows = w.rows_written();
    if (o.finish) {
        const auto t1 = std::chrono::steady_clock::now();
        w.finish(o.error.empty() ? "ok" : "error", o.error, t_end, seconds);
        const double total =
            seconds + std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
        std::printf(
            "{\"rows\": %llu, \"mla_rows\": %llu, \"bytes\": %llu, \"append_seconds\": %.6f, "
            "\"total_seconds\": %.6f}\n",
            static_cast<unsigned long long>(rows), static_cast<unsigned long long>(o.mla_rows),
            static_cast<unsigned long long>(w.bytes_on_disk()), seconds, total);
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    const Options o = parse(argc, argv);
    try {
        return run(o);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "trace_demo: %s\n", e.what());
        return 1;
    }
}
