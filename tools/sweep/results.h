// Per-point outcomes and the sweep's results table. A point's outcome comes from its directory
// entries under <out>/points/: <id>.h5 (the run's trace: /run outcome and summary counters, read
// with the HDF5 C API) and <id>.error (written by the sweep when the child failed: non-zero exit,
// crash, invalid parameters). The table goes to <out>/results.h5 (/results) and
// <out>/results.csv, each written to a temporary file and renamed, so readers never see a torn
// table.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tools/sweep/points.h"

namespace nmsim::sweep {

// Status strings of the table.
inline constexpr const char* kOk = "ok";
inline constexpr const char* kError = "error";
inline constexpr const char* kPending = "pending";

// Metrics every run has (from /run): simulated time and wall-clock time of the run.
inline constexpr const char* kSimTimeMetric = "sim_time_us";
inline constexpr const char* kWallMetric = "wall_s";
// The component whose summary counters are a run's metrics.
inline constexpr const char* kMetricsComponent = "metrics";

struct PointResult {
    uint32_t id = 0;
    std::string status = kPending;
    std::string error;
    std::map<std::string, double> metrics;     // by metric name
    std::map<std::string, std::string> units;  // by metric name
    std::vector<std::string> metric_order;     // names in the order the trace lists them
    // The point's effective platform parameters (/config/params): path -> value as the platform
    // prints it ("150MHz", "1") and its unit ("Hz", "1"); type "Time", "u32", ...
    struct Param {
        std::string value, unit, type;
    };
    std::map<std::string, Param> params;
};

std::string trace_path(const std::string& out_dir, uint32_t id);  // <out>/points/<id>.h5
std::string error_path(const std::string& out_dir, uint32_t id);  // <out>/points/<id>.error
std::string log_path(const std::string& out_dir, uint32_t id);    // <out>/points/<id>.log

// Reads a point's outcome. `extra` names metrics outside the metrics component
// ("component/counter", e.g. "s2.pe0.mla/macs") to read as well.
PointResult read_point(const std::string& out_dir, uint32_t id,
                       const std::vector<std::string>& extra = {});

// The metric columns: `requested` if not empty, else sim_time_us, wall_s and then every other
// metric found, in the order of first appearance over the points.
std::vector<std::string> metric_columns(const std::vector<std::string>& requested,
                                        const std::vector<PointResult>& results);

// Writes <out>/results.h5 and <out>/results.csv (columns: point, status, error, param:<path>...,
// metric:<name>...). `results` is indexed by point id. Throws std::runtime_error on I/O errors.
void write_results(const std::string& out_dir, const std::string& sweep_text,
                   const std::vector<Point>& points, const std::vector<std::string>& param_paths,
                   const std::vector<PointResult>& results,
                   const std::vector<std::string>& metrics);

// The manifest <out>/points.csv text: "point,param:<path>,..." then one row per point.
std::string manifest_text(const std::vector<Point>& points,
                          const std::vector<std::string>& param_paths);

// CSV field quoting (RFC 4180).
std::string csv_field(const std::string& s);

// Writes `text` to `path` through a temporary file and a rename.
void write_file_atomic(const std::string& path, const std::string& text);

}  // namespace nmsim::sweep
