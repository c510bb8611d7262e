#include "platforms/spinnaker2/run_common.h"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <iomanip>
#include <sstream>

#include "models/common/hex.h"
#include "models/common/sim_kernel.h"

#ifndef NMSIM_VERSION
#define NMSIM_VERSION "dev"
#endif

namespace nmsim::spinnaker2::detail {

using scenario::ConfigError;
using scenario::Origin;

std::string hex32(uint64_t v) { return nmsim::hex(v, 8); }

std::string fmt(double v, int prec) {
    std::ostringstream o;
    o << std::fixed << std::setprecision(prec) << v;
    return o.str();
}

std::string grouped(uint64_t v) {
    std::string s = std::to_string(v);
    for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3)
        s.insert(static_cast<size_t>(i), ",");
    return s;
}

std::string utc_now() {
    const std::time_t t = std::time(nullptr);
    char b[32];
    std::strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
    return b;
}

std::string unit_of(const ParamEntry& e) {
    switch (e.type) {
        case ParamType::time:
            return "s";
        case ParamType::frequency:
            return "Hz";
        case ParamType::bytes:
            return "B";
        case ParamType::voltage:
            return "V";
        case ParamType::energy:
            return "J";
        case ParamType::power:
            return "W";
        default:
            return e.unit;
    }
}

void resolve_into(const ParamRegistry& reg, void* root, const scenario::Scenario& s,
                  const std::function<void(const OriginOf&, std::vector<ConfigError>&)>& extra,
                  std::vector<ParamValue>* rows) {
    const auto flat = flatten(reg, root);
    std::map<std::string, const FlatParam*> by_path;
    std::vector<std::string> paths;
    for (const auto& f : flat) {
        by_path[f.path] = &f;
        paths.push_back(f.path);
    }
    std::map<std::string, Origin> origin;
    std::vector<ConfigError> errors;
    for (const auto& ov : s.params) {
        auto it = by_path.find(ov.path);
        if (it == by_path.end()) {
            std::string msg = "unknown parameter of platform " + s.platform_kind;
            const std::string near = closest_match(ov.path, paths);
            if (!near.empty()) msg += " (did you mean \"" + near + "\"?)";
            msg += "; `nmsim params " + s.platform_kind + "` lists them";
            errors.push_back(ConfigError{ov.origin, ov.path, msg});
            continue;
        }
        std::string err;
        if (!it->second->set(ov.value, err)) {
            errors.push_back(ConfigError{ov.origin, ov.path, err});
            continue;
        }
        origin[ov.path] = ov.origin;
    }
    const OriginOf origin_of = [&](const std::string& path) {
        auto it = origin.find(path);
        return it == origin.end() ? Origin{"default", 0, 0} : it->second;
    };
    if (extra) extra(origin_of, errors);
    if (!errors.empty()) throw scenario::ScenarioError(errors);
    if (rows) {
        rows->clear();
        for (const auto& f : flat) {
            const Origin o = origin_of(f.path);
            rows->push_back(ParamValue{
                f.path, f.get(), unit_of(*f.entry), param_type_name(f.entry->type),
                o.file == "default" ? "default" : o.str(), f.entry->source, f.entry->doc});
        }
        std::sort(rows->begin(), rows->end(),
                  [](const ParamValue& a, const ParamValue& b) { return a.path < b.path; });
    }
}

std::string core_problem(Pe& x, Time max_time) {
    if (x.exited && x.exit_code != 0)
        return std::string(x.name()) + ": firmware exited with status " +
               std::to_string(x.exit_code) +
               (x.exit_code >= 0x100 && x.exit_code < 0x200
                    ? " (unhandled exception " + std::to_string(x.exit_code - 0x100) + ")"
                    : "");
    if (x.exited) return "";
    const std::string where = x.core.where(x.core.pc());
    const sc_core::sc_time limit(static_cast<double>(max_time.ps), sc_core::SC_PS);
    if (sc_core::sc_time_stamp() < limit)
        return std::string(x.core.name()) + ": hang: asleep in WFI at pc " + where +
               " with no interrupt pending and nothing left to simulate (t = " +
               fmt(sc_core::sc_time_stamp().to_seconds() * 1e6, 3) + " us)";
    return std::string(x.core.name()) +
           ": timeout: did not exit within sim.max_time = " + format_time(max_time) + " (pc " +
           where + ")";
}

void write_metric(trace::Sink& sink, const std::string& name, const std::string& unit,
                  double value) {
    sink.counter(sink.component("metrics"), name, unit, value);
}

void write_run_metrics(trace::Sink& sink, const RunResult& r) {
    write_metric(sink, "ok", "1", r.ok ? 1.0 : 0.0);
    write_metric(sink, "sim_time_us", "us", r.sim_time_us);
}

std::string trace_path(const scenario::Scenario& s, const RunOptions& o) {
    if (!o.trace_path.empty()) return o.trace_path;
    return !s.trace.file.empty() ? s.trace.file : s.name + ".h5";
}

std::unique_ptr<trace::Hdf5Writer> open_trace(const scenario::Scenario& s, const RunOptions& o,
                                              const std::vector<ParamValue>& rows,
                                              const std::string& path) {
    fresh_sim_kernel();
    auto writer = std::make_unique<trace::Hdf5Writer>(path, run_info(s, o), s.trace.events);
    writer->set_config(scenario::dump(s), param_rows(rows));
    return writer;
}

trace::RunInfo run_info(const scenario::Scenario& s, const RunOptions& o) {
    trace::RunInfo info;
    info.simulator_version = NMSIM_VERSION;
    info.scenario_path = s.path;
    info.scenario_name = s.name;
    info.platform = s.platform_kind;
    info.argv = o.argv;
    info.created_utc = utc_now();
    info.seed = s.seed;
    return info;
}

std::vector<trace::ParamRow> param_rows(const std::vector<ParamValue>& rows) {
    std::vector<trace::ParamRow> prow;
    for (const auto& v : rows)
        prow.push_back(trace::ParamRow{v.path, v.value, v.unit, v.type, v.origin, v.source, v.doc});
    return prow;
}

void finish_energy(energy::Meter& m, trace::Sink& sink, uint64_t t_end_ps) {
    m.finish(t_end_ps);
    m.write();
    double dyn = 0.0, stat = 0.0;
    for (const auto& r : m.rows()) (r.is_static ? stat : dyn) += r.energy_j;
    write_metric(sink, "energy.total_uJ", "uJ", (dyn + stat) * 1e6);
    write_metric(sink, "energy.dynamic_uJ", "uJ", dyn * 1e6);
    write_metric(sink, "energy.static_uJ", "uJ", stat * 1e6);
    const double t = m.duration_s();
    write_metric(sink, "energy.average_power_mW", "mW", t > 0 ? (dyn + stat) / t * 1e3 : 0.0);
}

}  // namespace nmsim::spinnaker2::detail
