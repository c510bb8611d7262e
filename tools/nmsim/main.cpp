// nmsim: the command-line front end.
//   nmsim run SCENARIO [--set key.path=value]... [-o trace.h5 | -d DIR] [--base-dir DIR] [-q]
//             [--elaborate-only] [--progress-interval S]
//   nmsim compile --explain SCENARIO [--set key.path=value]... [--csv]
//   nmsim params [PLATFORM] [--variant NAME] [--scenario FILE] [--set ...] [--regs KIND|all]
//                [--traces] [--workloads [KIND]] [--check] [--csv]
//   nmsim exec FIRMWARE.elf [--set key=value]... [--arg WORD]...
//   nmsim bench [--quick] [--platform spinnaker2|brainscales2|all]
//   nmsim sweep SWEEP.yaml [-j N] [--backend local|slurm] [-o DIR] [--dry-run] [--collect]
//   nmsim --version
// Exit status: 0 success, 1 the simulation or a check failed, 2 bad input (usage, scenario,
// parameters, files).
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "models/common/param.h"
#include "models/common/register_bank.h"
#include "nmsim/hw/regdef.h"
#include "nmsim/trace/sink.h"
#include "platforms/brainscales2/params.h"
#include "platforms/common/host_program.h"
#include "platforms/common/version.h"
#include "platforms/spinnaker2/params.h"
#include "platforms/spinnaker2/run_elf.h"
#include "tools/bench/bss2_bench.h"
#include "tools/bench/spinnaker2_bench.h"
#include "tools/scenario/scenario.h"
#include "tools/scenario/text.h"
#include "tools/scenario/variants.h"
#include "tools/sweep/sweep.h"
#include "workloads/dnn/host.h"

#ifndef NMSIM_FIRMWARE_DIR
#define NMSIM_FIRMWARE_DIR "firmware"
#endif

namespace {

using namespace nmsim;

// Where built-in firmware names are looked up, in order: $NMSIM_FIRMWARE_DIR, the installed
// firmware next to the binary (<prefix>/share/nmsim/firmware for <prefix>/bin/nmsim), the
// build tree's firmware directory.
std::vector<std::string> firmware_dirs() {
    std::vector<std::string> dirs;
    if (const char* env = std::getenv("NMSIM_FIRMWARE_DIR")) dirs.emplace_back(env);
    std::error_code ec;
    const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        const auto installed = exe.parent_path().parent_path() / "share" / "nmsim" / "firmware";
        if (std::filesystem::is_directory(installed, ec)) dirs.push_back(installed.string());
    }
    dirs.emplace_back(NMSIM_FIRMWARE_DIR);
    return dirs;
}

std::string join_argv(int argc, char** argv) {
    std::string s;
    for (int i = 0; i < argc; ++i) s += (i ? " " : "") + std::string(argv[i]);
    return s;
}

int report_scenario_error(const scenario::ScenarioError& e) {
    for (const auto& ce : e.errors()) std::cerr << ce.str() << "\n";
    return 2;
}

struct RunArgs {
    std::string scenario, out, run_dir, base_dir;
    std::vector<std::string> sets;
    bool quiet = false, elaborate_only = false;
    double progress_interval_s = 10.0;
    double max_wall_s = 0;
};

// An unknown subcommand or option, named with a did-you-mean ("" if every word is known). CLI11
// would say "A subcommand is required" or "The following arguments were not expected".
std::string unknown_word(const CLI::App& app, int argc, char** argv) {
    if (argc < 2) return "";
    const std::string first = argv[1];
    if (first.empty() || first[0] == '-') return "";  // --version, --help
    std::vector<std::string> subs;
    for (const CLI::App* sub : app.get_subcommands({})) subs.push_back(sub->get_name());
    const CLI::App* sub = nullptr;
    for (const CLI::App* x : app.get_subcommands({}))
        if (x->get_name() == first) sub = x;
    if (!sub) {
        const std::string near = closest_match(first, subs);
        return "unknown command \"" + first + "\"" +
               (near.empty() ? std::string() : " (did you mean \"" + near + "\"?)") +
               "; commands: " + scenario::join(subs, ", ");
    }
    std::vector<std::string> names = {"--help", "-h"};
    for (const CLI::Option* o : sub->get_options({})) {
        for (const auto& l : o->get_lnames()) names.push_back("--" + l);
        for (const auto& sn : o->get_snames()) names.push_back("-" + sn);
    }
    for (int i = 2; i < argc; ++i) {
        std::string w = argv[i];
        if (w == "--") break;
        if (w.size() < 2 || w[0] != '-' || std::isdigit(static_cast<unsigned char>(w[1])) ||
            w[1] == '.')
            continue;  // a value, or a negative number
        w = w.substr(0, w.find('='));
        if (w.size() > 2 && w[1] != '-') w = w.substr(0, 2);  // -j4
        if (std::find(names.begin(), names.end(), w) != names.end()) continue;
        const std::string near = closest_match(w, names);
        return "nmsim " + first + ": unknown option " + w +
               (near.empty() ? std::string() : " (did you mean " + near + "?)");
    }
    return "";
}

// SIGINT and SIGTERM ask the run to stop at its next slice boundary (it keeps its trace, status
// "interrupted"); the handler is reset by the first signal, so a second one ends the process at
// once (the trace then holds what was flushed: a readable prefix).
extern "C" void on_stop_signal(int sig) { run::request_interrupt(sig); }

void install_stop_handlers() {
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND;
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
}

// 0 ok, 1 failed or timed out, 128 + signal when interrupted (130 SIGINT, 143 SIGTERM).
int exit_status(const run::RunResult& r) {
    if (r.status == "interrupted") return 128 + r.signal;
    return r.ok ? 0 : 1;
}

int cmd_run(const RunArgs& a, const std::string& argv) {
    if (!a.out.empty() && !a.run_dir.empty()) {
        std::cerr << "nmsim: error: give -o (a trace file) or -d (a run directory), not both\n";
        return 2;
    }
    const std::string ext = std::filesystem::path(a.out).extension().string();
    if (!a.out.empty() && ext != ".h5" && ext != ".hdf5") {
        std::cerr << "nmsim: error: -o " << a.out
                  << ": a trace is an HDF5 file; give a name ending in .h5\n";
        return 2;
    }
    try {
        scenario::LoadOptions lo;
        lo.sets = a.sets;
        lo.firmware_dirs = firmware_dirs();
        lo.base_dir = a.base_dir;
        const scenario::Scenario s = scenario::load(a.scenario, lo);
        for (const auto& w : s.warnings) std::cerr << w.str() << "\n";
        run::RunOptions o;
        o.trace_path = a.out;
        o.run_dir = a.run_dir;
        o.argv = argv;
        o.quiet = a.quiet;
        o.elaborate_only = a.elaborate_only;
        o.progress_interval_s = a.progress_interval_s;
        o.max_wall_s = a.max_wall_s > 0 ? a.max_wall_s : s.limits.max_wall_s;
        install_stop_handlers();
        const auto r = run::run_scenario(s, o, std::cout, std::cerr);
        return exit_status(r);
    } catch (const scenario::ScenarioError& e) {
        return report_scenario_error(e);
    } catch (const std::exception& e) {
        std::cerr << "nmsim: error: " << e.what() << "\n";
        return 2;
    }
}

// The DNN compiler's tiling of a dnn scenario's model, explained per layer (no simulation).
int cmd_compile(const std::string& path, const std::vector<std::string>& sets, bool csv) {
    try {
        scenario::LoadOptions lo;
        lo.sets = sets;
        lo.firmware_dirs = firmware_dirs();
        const scenario::Scenario s = scenario::load(path, lo);
        for (const auto& w : s.warnings) std::cerr << w.str() << "\n";
        if (s.workload.kind() != "dnn") {
            std::cerr << "nmsim: error: " << path << ": workload: kind \"" << s.workload.kind()
                      << "\"; compile --explain needs a dnn workload\n";
            return 2;
        }
        const spinnaker2::ChipParams p = spinnaker2::resolve_chip_params(s, nullptr);
        const workloads::dnn::Compiled c =
            workloads::dnn::compile(s.workload.as<workloads::dnn::DnnWorkload>(), p);
        workloads::dnn::explain(c, std::cout, csv);
        return 0;
    } catch (const scenario::ScenarioError& e) {
        return report_scenario_error(e);
    } catch (const std::exception& e) {
        std::cerr << "nmsim: error: " << e.what() << "\n";
        return 2;
    }
}

// Every workload kind with its platforms and keys (or one kind's keys).
int print_workloads(const std::string& kind) {
    const auto& kinds = scenario::workload_schemas();
    bool found = kind.empty() || kind == "all";
    for (const auto* k : kinds) found = found || k->name == kind;
    if (!found) {
        std::cerr << "nmsim: error: no workload kind \"" << kind
                  << "\" (valid: " << scenario::join(scenario::workload_names(), ", ") << ")\n";
        return 2;
    }
    for (const auto* k : kinds) {
        if (!kind.empty() && kind != "all" && k->name != kind) continue;
        std::cout << "workload." << k->name << "  (platform " << scenario::join(k->platforms, ", ")
                  << ")\n    " << k->doc << "\n";
        if (kind.empty()) continue;
        for (const auto& d : k->keys)
            std::cout << "  workload." << k->name << "." << d.key << " = " << d.default_value
                      << "   [" << d.type << "]\n    " << d.doc << "\n";
    }
    if (kind.empty())
        std::cout << "(nmsim params --workloads KIND lists a kind's keys; scenarios/README.md "
                     "describes them)\n";
    return 0;
}

void print_regs(const std::string& kind) {
    for (const auto& t : reg_table_registry()) {
        if (kind != "all" && kind != t.kind) continue;
        std::cout << t.kind << " registers\n";
        for (size_t i = 0; i < t.count; ++i) {
            const RegDesc& d = t.regs[i];
            const char* acc = d.access == NM_RO ? "RO" : d.access == NM_WO ? "WO" : "RW";
            std::printf("  0x%03x  %-12s %s  reset 0x%08x  %s\n", d.offset, d.name, acc, d.reset,
                        d.doc);
        }
    }
}

void print_traces() {
    for (const auto* s : trace::schema_registry()) {
        std::cout << "/" << s->path << "  " << s->doc << "\n";
        for (const auto& c : s->columns)
            std::cout << "    " << std::left << std::setw(12) << c.name << " " << std::setw(4)
                      << c.unit << " " << c.doc << "\n";
    }
}

std::string csv(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string o = "\"";
    for (char c : s) o += c == '"' ? std::string("\"\"") : std::string(1, c);
    return o + "\"";
}

// The parameter table of `s`'s platform; throws scenario::ScenarioError for bad values.
std::vector<run::ParamValue> resolve_rows(const scenario::Scenario& s) {
    std::vector<run::ParamValue> rows;
    if (s.platform_kind == "spinnaker2_chip")
        spinnaker2::resolve_chip_params(s, &rows);
    else if (s.platform_kind == "brainscales2")
        bss2::resolve_bss2_params(s, &rows);
    else
        spinnaker2::resolve_pe_params(s, &rows);
    return rows;
}

// Every variant's values resolve on its platform and name a source.
std::vector<std::string> check_variants() {
    std::vector<std::string> problems;
    for (const auto* v : scenario::platform_variants()) {
        const std::string where = v->platform + " variant " + v->name;
        for (const auto& val : v->values)
            if (val.source.empty()) problems.push_back(where + ": " + val.path + " without source");
        scenario::Scenario s;
        s.platform_kind = v->platform;
        s.platform_variant = v->name;
        try {
            resolve_rows(s);
        } catch (const scenario::ScenarioError& e) {
            for (const auto& err : e.errors()) problems.push_back(where + ": " + err.message);
        }
    }
    return problems;
}

int cmd_params(std::string platform, const std::string& variant, const std::string& scenario_path,
               const std::vector<std::string>& sets, const std::string& regs, bool traces,
               bool check, bool as_csv, const std::string* workloads) {
    if (workloads) return print_workloads(*workloads);
    // A variant names its platform.
    if (platform.empty() && scenario_path.empty())
        for (const auto* v : scenario::platform_variants())
            if (v->name == variant) platform = v->platform;
    // "spinnaker2" is the PE platform (kind spinnaker2_pe); a --scenario's kind wins.
    if (platform.empty() && scenario_path.empty() && regs.empty() && !traces && !check) {
        std::cerr << "nmsim: error: params needs a platform (spinnaker2 = spinnaker2_pe, "
                     "spinnaker2_chip, brainscales2) or one of --regs, --traces, --workloads, "
                     "--check\n";
        return 2;
    }
    if (!platform.empty() && platform != "spinnaker2" && platform != "spinnaker2_pe" &&
        platform != "spinnaker2_chip" && platform != "brainscales2") {
        std::cerr << "nmsim: error: unknown platform \"" << platform
                  << "\" (valid: spinnaker2 = spinnaker2_pe, spinnaker2_chip, brainscales2)\n";
        return 2;
    }
    if (!regs.empty()) {
        bool found = regs == "all";
        for (const auto& t : reg_table_registry()) found = found || regs == t.kind;
        if (!found) {
            std::string kinds;
            for (const auto& t : reg_table_registry())
                kinds += std::string(kinds.empty() ? "" : ", ") + t.kind;
            std::cerr << "nmsim: error: no register table \"" << regs << "\" (valid: all, " << kinds
                      << ")\n";
            return 2;
        }
        print_regs(regs);
        return 0;
    }
    if (traces) {
        print_traces();
        return 0;
    }
    if (check) {
        auto problems = check_registry(registry_of<spinnaker2::PePlatformParams>());
        for (auto& p : check_registry(registry_of<spinnaker2::ChipParams>()))
            problems.push_back("chip: " + p);
        for (auto& p : check_registry(registry_of<bss2::ChipParams>()))
            problems.push_back("brainscales2: " + p);
        for (auto& p : check_variants()) problems.push_back(p);
        for (const auto* k : scenario::workload_schemas())
            for (const auto& d : k->keys)
                if (d.doc.empty() || d.type.empty() || d.default_value.empty())
                    problems.push_back("workload." + k->name + "." + d.key +
                                       ": key without doc, type or default");
        for (const auto* s : trace::schema_registry())
            for (const auto& c : s->columns)
                if (c.doc.empty())
                    problems.push_back(s->path + "." + c.name + ": trace column without doc");
        for (const auto& t : reg_table_registry())
            for (size_t i = 0; i < t.count; ++i)
                if (!*t.regs[i].doc)
                    problems.push_back(std::string(t.kind) + "." + t.regs[i].name +
                                       ": register without doc");
        for (const auto& p : problems) std::cerr << "nmsim params --check: " << p << "\n";
        return problems.empty() ? 0 : 1;
    }
    try {
        scenario::Scenario s;
        s.platform_kind = platform == "spinnaker2_chip" ? "spinnaker2_chip"
                          : platform == "brainscales2"  ? "brainscales2"
                                                        : "spinnaker2_pe";
        if (!scenario_path.empty()) {
            scenario::LoadOptions lo;
            lo.sets = sets;
            lo.firmware_dirs = firmware_dirs();
            const std::string asked = s.platform_kind;
            s = scenario::load(scenario_path, lo);
            if (!platform.empty() && s.platform_kind != asked) {
                std::cerr << "nmsim: error: " << scenario_path << " is a " << s.platform_kind
                          << " scenario, not " << asked << " (give its platform, or none)\n";
                return 2;
            }
        } else {
            for (const auto& kv : sets) {
                const auto eq = kv.find('=');
                if (eq == std::string::npos) {
                    std::cerr << "nmsim: error: --set \"" << kv << "\": expected key.path=value\n";
                    return 2;
                }
                s.params.push_back(
                    scenario::ParamOverride{kv.substr(0, eq), kv.substr(eq + 1), {"--set", 0, 0}});
            }
        }
        if (!variant.empty()) {
            if (!scenario::find_platform_variant(s.platform_kind, variant)) {
                const auto names = scenario::platform_variant_names(s.platform_kind);
                std::cerr << "nmsim: error: unknown variant \"" << variant << "\" of platform "
                          << s.platform_kind
                          << (names.empty() ? " (it has no variants)"
                                            : " (valid: " + scenario::join(names, ", ") + ")")
                          << "\n";
                return 2;
            }
            s.platform_variant = variant;
            s.platform_variant_origin = scenario::Origin{"--variant", 0, 0};
        }
        const std::vector<run::ParamValue> rows = resolve_rows(s);
        if (as_csv) {
            std::cout << "name,value,unit,type,origin,source,doc\n";
            for (const auto& r : rows)
                std::cout << csv(r.path) << "," << csv(r.value) << "," << csv(r.unit) << ","
                          << csv(r.type) << "," << csv(r.origin) << "," << csv(r.source) << ","
                          << csv(r.doc) << "\n";
            return 0;
        }
        for (const auto& r : rows) {
            std::cout << r.path << " = " << r.value;
            const bool dimensioned = r.type == "Time" || r.type == "Frequency" ||
                                     r.type == "Bytes" || r.type == "Voltage" ||
                                     r.type == "Energy" || r.type == "Power" ||
                                     r.type == "Bandwidth";
            if (!r.unit.empty() && r.unit != "1" && !dimensioned) std::cout << " " << r.unit;
            std::cout << "   [" << r.type << (r.origin == "default" ? "" : ", from " + r.origin)
                      << "]\n"
                      << "    " << r.doc << "\n    source: " << r.source << "\n";
        }
        return 0;
    } catch (const scenario::ScenarioError& e) {
        return report_scenario_error(e);
    } catch (const std::exception& e) {
        std::cerr << "nmsim: error: " << e.what() << "\n";
        return 2;
    }
}

int cmd_exec(const std::string& elf, const std::vector<std::string>& sets,
             const std::vector<std::string>& args) {
    std::vector<uint32_t> words;
    for (const auto& a : args) {
        char* end = nullptr;
        const long long v = std::strtoll(a.c_str(), &end, 0);
        if (a.empty() || *end || v < INT32_MIN || v > UINT32_MAX) {
            std::cerr << "nmsim: error: --arg \"" << a << "\": expected a 32-bit integer\n";
            return 2;
        }
        words.push_back(static_cast<uint32_t>(v));
    }
    const auto r = spinnaker2::run_elf(elf, sets, words);
    if (r.error && r.instructions == 0 && r.console.empty()) {  // nothing ran: bad input
        std::cerr << "nmsim: error: " << r.message << "\n";
        return 2;
    }
    std::cout << r.console;
    if (!r.console.empty() && r.console.back() != '\n') std::cout << "\n";
    std::cout << "exec: " << elf << ": "
              << (r.exited ? "exit " + std::to_string(r.exit_code) : "did not exit") << ", "
              << r.instructions << " instructions, " << r.cycles << " cycles, " << r.sim_time_us
              << " us\n";
    if (r.error) std::cerr << "nmsim: error: " << r.message << "\n";
    return r.error || r.exit_code != 0 ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
    CLI::App app{"nmsim: discrete-event full-system simulator of neuromorphic platforms"};
    app.set_version_flag("--version", std::string("nmsim ") + nmsim::version());
    app.require_subcommand(1);

    auto* run =
        app.add_subcommand("run", "run a scenario: simulate, check the results, write the trace");
    RunArgs ra;
    run->add_option("scenario", ra.scenario, "scenario YAML file")->required();
    run->add_option("--set", ra.sets,
                    "override: platform parameter (pe.mla.acc_bits=24) or scenario key (seed=3)");
    run->add_option("-o,--output", ra.out,
                    "trace file (default: the scenario's trace.file or <name>.h5)");
    run->add_option("-d,--run-dir", ra.run_dir,
                    "run directory: trace.h5, config.yaml, params.yaml, stats.txt, stats.json, "
                    "report.txt");
    run->add_option("--base-dir", ra.base_dir,
                    "resolve the scenario's relative paths against this directory instead of the "
                    "scenario file's");
    run->add_option("--progress-interval", ra.progress_interval_s,
                    "seconds between progress lines when stderr is not a terminal (default 10)")
        ->check(CLI::Range(0.01, 86400.0));
    run->add_option("--max-wall", ra.max_wall_s,
                    "wall-time limit in seconds: the run stops cleanly with status timeout "
                    "(overrides the scenario's limits.max_wall_s)")
        ->check(CLI::Range(0.001, 1e9));
    run->add_flag("-q,--quiet", ra.quiet,
                  "no report, no console echo, no progress (errors are still printed)");
    run->add_flag("--elaborate-only", ra.elaborate_only,
                  "check the scenario, parameters, firmware and buffer layout, print the layout, "
                  "do not simulate");

    auto* comp = app.add_subcommand(
        "compile", "compile a dnn scenario's model and explain the tiling (no simulation)");
    std::string cscenario;
    std::vector<std::string> csets;
    bool explain = false, ccsv = false;
    comp->add_option("scenario", cscenario, "scenario YAML file with a dnn workload")->required();
    comp->add_flag("--explain", explain,
                   "per layer: tiling, estimate by phase, estimate of each worker count, why")
        ->required();
    comp->add_option("--set", csets, "override, as for run");
    comp->add_flag("--csv", ccsv, "one CSV row per layer");

    auto* params = app.add_subcommand(
        "params", "print the parameters of a platform (name, value, unit, source, doc)");
    std::string platform, pscenario, regs;
    std::vector<std::string> psets;
    bool check = false, as_csv = false, traces = false;
    std::string variant;
    params->add_option("platform,--platform", platform,
                       "platform: spinnaker2 (= spinnaker2_pe), spinnaker2_chip or brainscales2");
    params->add_option("--variant", variant,
                       "a named variant of the platform (spinnaker2_chip: prototype): its "
                       "values and their sources over the defaults");
    std::string workloads_kind;
    auto* workloads_opt = params
                              ->add_option("--workloads", workloads_kind,
                                           "list the workload kinds, or the keys of one kind")
                              ->expected(0, 1);
    params->add_option("--scenario", pscenario,
                       "show effective values and their origins for this scenario");
    params->add_option("--set", psets, "parameter override, as for run");
    params->add_option("--regs", regs, "print a register table (s2.mla, ..., or all)");
    params->add_flag("--traces", traces, "print the trace tables models write");
    params->add_flag("--check", check, "check every parameter has a doc, source and unit (for CI)");
    params->add_flag("--csv", as_csv, "CSV output");

    auto* exec =
        app.add_subcommand("exec", "run one firmware ELF on a single PE (no scenario, no trace)");
    std::string elf;
    std::vector<std::string> esets, eargs;
    exec->add_option("firmware", elf, "ELF image")->required()->check(CLI::ExistingFile);
    exec->add_option("--set", esets, "platform parameter override");
    exec->add_option("--arg", eargs, "argument-block word (repeatable, in order)");

    auto* bench =
        app.add_subcommand("bench", "simulation speed: instructions and MLA MACs per wall second");
    bool quick = false;
    std::string bench_platform = "all";
    bench->add_flag("--quick", quick, "shorter runs (less stable figures)");
    bench->add_option("--platform", bench_platform, "spinnaker2, brainscales2 or all (default)")
        ->check(CLI::IsMember({"spinnaker2", "brainscales2", "all"}));

    auto* sweep = app.add_subcommand(
        "sweep", "run a parameter sweep on a local process pool or Slurm (docs/sweeps.md)");
    nmsim::sweep::SweepOptions so;
    uint32_t sweep_point = 0;
    sweep->add_option("sweep", so.sweep_path, "sweep YAML file")->required();
    sweep->add_option("-j,--jobs", so.jobs, "parallel points (local backend; default: cores)")
        ->check(CLI::Range(1, 4096));
    sweep->add_option("--backend", so.backend, "local (default) or slurm")
        ->check(CLI::IsMember({"local", "slurm"}));
    sweep->add_option("-o,--output", so.output, "output directory (default: the file's output)");
    sweep->add_flag("--dry-run", so.dry_run, "list and validate the points, run nothing");
    sweep->add_flag("--collect", so.collect, "gather finished points into results.h5/csv");
    sweep->add_flag("--retry-failed", so.retry_failed, "run failed points again");
    sweep
        ->add_option("--progress-interval", so.progress_interval_s,
                     "seconds between progress lines when stderr is not a terminal (default 30)")
        ->check(CLI::Range(0.01, 86400.0));
    auto* point_opt =
        sweep->add_option("--point", sweep_point, "run only this point (Slurm array tasks)");

    if (const std::string bad = unknown_word(app, argc, argv); !bad.empty()) {
        std::cerr << "nmsim: error: " << bad << "\nRun with --help for more information.\n";
        return 2;
    }
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int rc = app.exit(e);
        return rc == 0 ? 0 : 2;
    }
    if (*run) return cmd_run(ra, join_argv(argc, argv));
    if (*comp) return cmd_compile(cscenario, csets, ccsv);
    if (*params)
        return cmd_params(platform, variant, pscenario, psets, regs, traces, check, as_csv,
                          *workloads_opt ? &workloads_kind : nullptr);
    if (*exec) return cmd_exec(elf, esets, eargs);
    if (*sweep) {
        if (*point_opt) so.point = sweep_point;
        so.stop_signal = run::interrupt_requested;
        install_stop_handlers();
        return nmsim::sweep::run_sweep(so, std::cout, std::cerr);
    }
    if (*bench) {
        // BrainScaleS-2 first: its peak memory is then its own, not the SpiNNaker2 full-chip run's.
        int rc = 0;
        nmsim::bench::SpeedFigures fig;
        if (bench_platform != "spinnaker2")
            rc = nmsim::bss2::run_bench(quick, fig, std::cout, std::cerr);
        if (rc == 0 && bench_platform != "brainscales2")
            rc = nmsim::spinnaker2::run_bench(firmware_dirs(), quick, fig, std::cout, std::cerr);
        nmsim::bench::print_targets(fig, std::cout);
        return rc;
    }
    return 2;
}

// libsystemc.so's own main() references sc_main; ours above is the one that runs.
extern "C" int sc_main(int, char**) { return 1; }
