#include "platforms/common/run_outputs.h"
#include "platforms/common/version.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <sstream>

#include <unistd.h>

#include "models/common/sim_kernel.h"
#include "platforms/common/format.h"

namespace nmsim::run {

namespace fs = std::filesystem;

trace::RunInfo run_info(const scenario::Scenario& s, const RunOptions& o) {
    trace::RunInfo info;
    info.simulator_version = nmsim::version();
    info.scenario_path = s.path;
    info.scenario_name = s.name;
    info.platform = s.platform_kind;
    info.argv = o.argv;
    info.created_utc = utc_now();
    info.seed = s.seed;
    return info;
}

std::string trace_path(const scenario::Scenario& s, const RunOptions& o) {
    if (!o.trace_path.empty()) return o.trace_path;
    if (!o.run_dir.empty()) return (fs::path(o.run_dir) / "trace.h5").string();
    return !s.trace.file.empty() ? s.trace.file : s.name + ".h5";
}

namespace {

// A plain-words reason why `path` cannot be written, or "".
std::string unwritable(const std::string& path) {
    std::error_code ec;
    const fs::path dir = fs::absolute(path, ec).parent_path();
    if (!fs::exists(dir, ec)) return "the directory " + dir.string() + " does not exist";
    if (!fs::is_directory(dir, ec)) return dir.string() + " is not a directory";
    if (::access(dir.c_str(), W_OK) != 0)
        return "the directory " + dir.string() + " is not writable (" + std::strerror(errno) + ")";
    if (fs::is_directory(path, ec)) return path + " is a directory";
    return "";
}

}  // namespace

std::unique_ptr<trace::Hdf5Writer> open_trace(const scenario::Scenario& s, const RunOptions& o,
                                              const std::vector<ParamValue>& rows,
                                              const std::string& path) {
    if (const std::string why = unwritable(path); !why.empty())
        throw std::runtime_error("cannot write the trace " + path + ": " + why);
    fresh_sim_kernel();
    auto writer = std::make_unique<trace::Hdf5Writer>(path, run_info(s, o), s.trace.events);
    writer->set_config(scenario::dump(s), param_rows(rows));
    return writer;
}

std::vector<trace::ParamRow> param_rows(const std::vector<ParamValue>& rows) {
    std::vector<trace::ParamRow> prow;
    for (const auto& v : rows)
        prow.push_back(trace::ParamRow{v.path, v.value, v.unit, v.type, v.origin, v.source, v.doc});
    return prow;
}

void write_metric(trace::Sink& sink, const std::string& name, const std::string& unit,
                  double value) {
    sink.counter(sink.component("metrics"), name, unit, value);
}

void write_run_metrics(trace::Sink& sink, const RunResult& r) {
    write_metric(sink, "ok", "1", r.ok ? 1.0 : 0.0);
    write_metric(sink, "sim_time_us", "us", r.sim_time_us);
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

void make_run_dir(const std::string& dir) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec || !fs::is_directory(dir))
        throw std::runtime_error(dir + ": cannot create the run directory: " +
                                 (ec ? ec.message() : std::string("not a directory")));
}

namespace {

void write_file(const fs::path& path, const std::string& text) {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f << text;
    f.close();
    if (!f) throw std::runtime_error(path.string() + ": cannot write: " + std::strerror(errno));
}

// Counters as "component.name" (metrics: "metrics.<name>"), in the trace's order.
std::string stat_name(const trace::CounterRow& c) { return c.component + "." + c.name; }

std::string number(double v) {
    std::ostringstream o;
    o << std::setprecision(12) << v;
    return o.str();
}

std::string params_yaml(const std::vector<ParamValue>& params) {
    YAML::Emitter e;
    e << YAML::BeginMap;
    for (const auto& p : params) {
        e << YAML::Key << p.path << YAML::Value << YAML::Flow << YAML::BeginMap;
        e << YAML::Key << "value" << YAML::Value << p.value;
        e << YAML::Key << "unit" << YAML::Value << p.unit;
        e << YAML::Key << "type" << YAML::Value << p.type;
        e << YAML::Key << "origin" << YAML::Value << p.origin;
        e << YAML::Key << "source" << YAML::Value << p.source;
        e << YAML::EndMap;
    }
    e << YAML::EndMap;
    return std::string(e.c_str()) + "\n";
}

std::string stats_txt(const std::vector<trace::CounterRow>& counters, const RunResult& r) {
    size_t width = 0;
    for (const auto& c : counters) width = std::max(width, stat_name(c).size());
    std::ostringstream o;
    o << "# nmsim statistics: name, value, unit (metrics first, then components as in the "
         "trace's /summary/counters)\n";
    o << "# status " << r.status << (r.message.empty() ? "" : ": " + r.message) << "\n";
    auto rows = counters;
    std::stable_partition(rows.begin(), rows.end(),
                          [](const trace::CounterRow& c) { return c.component == "metrics"; });
    for (const auto& c : rows)
        o << std::left << std::setw(static_cast<int>(width)) << stat_name(c) << "  "
          << number(c.value) << "  " << c.unit << "\n";
    return o.str();
}

std::string stats_json(const scenario::Scenario& s, const std::vector<trace::CounterRow>& counters,
                       const RunResult& r) {
    nlohmann::ordered_json j;
    j["schema"] = "nmsim-stats";
    j["schema_version"] = 1;
    j["scenario"] = s.name;
    j["platform"] = s.platform_kind;
    j["workload"] = s.workload.kind();
    j["seed"] = s.seed;
    j["status"] = r.status;
    j["message"] = r.message;
    j["sim_time_us"] = r.sim_time_us;
    j["wall_seconds"] = r.wall_seconds;
    std::error_code ec;
    const fs::path trace = fs::absolute(r.trace_path, ec);
    j["trace"] = ec ? r.trace_path : trace.lexically_normal().string();
    nlohmann::ordered_json metrics = nlohmann::ordered_json::object();
    nlohmann::ordered_json comps = nlohmann::ordered_json::object();
    for (const auto& c : counters) {
        nlohmann::ordered_json v = {{"value", c.value}, {"unit", c.unit}};
        if (c.component == "metrics")
            metrics[c.name] = v;
        else
            comps[c.component][c.name] = v;
    }
    j["metrics"] = metrics;
    j["counters"] = comps;
    return j.dump(1) + "\n";
}

}  // namespace

void write_run_dir(const std::string& dir, const scenario::Scenario& s,
                   const std::vector<ParamValue>& params,
                   const std::vector<trace::CounterRow>& counters, const RunResult& r) {
    const fs::path d(dir);
    write_file(d / "config.yaml", std::string("# nmsim ") + nmsim::version() +
                                      " resolved scenario of " + s.path +
                                      " (run it again with: nmsim run " +
                                      (d / "config.yaml").string() + ")\n" + scenario::dump(s));
    write_file(d / "params.yaml", "# effective platform parameters of " + s.name +
                                      ": value, unit, origin, source\n" + params_yaml(params));
    write_file(d / "stats.txt", stats_txt(counters, r));
    write_file(d / "stats.json", stats_json(s, counters, r));
    write_file(d / "report.txt", r.report);
}

}  // namespace nmsim::run
