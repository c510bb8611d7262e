#include "tools/sweep/results.h"

#include <hdf5.h>

#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace nmsim::sweep {

namespace {

namespace fs = std::filesystem;

constexpr size_t kStatusBytes = 16;
constexpr size_t kErrorBytes = 256;

// Closes an HDF5 id of any kind (file, dataset, attribute, type, space) at scope exit.
class H5Id {
public:
    explicit H5Id(hid_t id = -1) : m_id(id) {}
    H5Id(const H5Id&) = delete;
    H5Id& operator=(const H5Id&) = delete;
    ~H5Id() {
        if (m_id < 0) return;
        switch (H5Iget_type(m_id)) {
            case H5I_FILE:
                H5Fclose(m_id);
                break;
            case H5I_DATASET:
                H5Dclose(m_id);
                break;
            case H5I_ATTR:
                H5Aclose(m_id);
                break;
            case H5I_DATATYPE:
                H5Tclose(m_id);
                break;
            case H5I_DATASPACE:
                H5Sclose(m_id);
                break;
            default:
                break;
        }
    }
    hid_t get() const { return m_id; }
    bool ok() const { return m_id >= 0; }

private:
    hid_t m_id;
};

// Silences HDF5's automatic error printing for the lifetime of the object (missing datasets are
// expected while points are pending).
class QuietHdf5 {
public:
    QuietHdf5() {
        H5Eget_auto2(H5E_DEFAULT, &m_func, &m_data);
        H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    }
    ~QuietHdf5() { H5Eset_auto2(H5E_DEFAULT, m_func, m_data); }

private:
    H5E_auto2_t m_func = nullptr;
    void* m_data = nullptr;
};

hid_t fixed_str(size_t n) {
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, n);
    H5Tset_strpad(t, H5T_STR_NULLPAD);
    H5Tset_cset(t, H5T_CSET_UTF8);
    return t;
}

std::string from_fixed(const char* p, size_t n) { return std::string(p, strnlen(p, n)); }

// Rows of a 1-D dataset read into a memory compound type; false if the dataset is missing.
bool read_rows(hid_t file, const char* path, hid_t mem_type, size_t row_size,
               std::vector<unsigned char>* buf, size_t* rows) {
    if (H5Lexists(file, path, H5P_DEFAULT) <= 0) return false;
    H5Id d(H5Dopen2(file, path, H5P_DEFAULT));
    if (!d.ok()) return false;
    H5Id space(H5Dget_space(d.get()));
    hsize_t n = 0;
    if (H5Sget_simple_extent_dims(space.get(), &n, nullptr) != 1) return false;
    *rows = static_cast<size_t>(n);
    buf->assign(std::max<size_t>(1, *rows) * row_size, 0);
    if (*rows == 0) return true;
    return H5Dread(d.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf->data()) >= 0;
}

struct RunRow {
    char status[16];
    char message[1024];
    uint64_t sim_time_ps;
    double wall_seconds;
};
struct CounterLutRow {
    char name[64];
    char unit[32];
};
struct CounterRow {
    uint16_t component;
    uint16_t counter;
    double value;
};

// /config/params: variable-length strings (written before SWMR).
void read_params(hid_t file, std::map<std::string, PointResult::Param>* out) {
    if (H5Lexists(file, "/config/params", H5P_DEFAULT) <= 0) return;
    H5Id d(H5Dopen2(file, "/config/params", H5P_DEFAULT));
    if (!d.ok()) return;
    H5Id space(H5Dget_space(d.get()));
    hsize_t n = 0;
    if (H5Sget_simple_extent_dims(space.get(), &n, nullptr) != 1 || n == 0) return;
    struct Row {
        char *path, *value, *unit, *type;
    };
    H5Id vstr(H5Tcopy(H5T_C_S1));
    H5Tset_size(vstr.get(), H5T_VARIABLE);
    H5Id t(H5Tcreate(H5T_COMPOUND, sizeof(Row)));
    H5Tinsert(t.get(), "path", offsetof(Row, path), vstr.get());
    H5Tinsert(t.get(), "value", offsetof(Row, value), vstr.get());
    H5Tinsert(t.get(), "unit", offsetof(Row, unit), vstr.get());
    H5Tinsert(t.get(), "type", offsetof(Row, type), vstr.get());
    std::vector<Row> rows(n);
    if (H5Dread(d.get(), t.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, rows.data()) < 0) return;
    auto str = [](const char* c) { return c ? std::string(c) : std::string(); };
    for (const Row& r : rows)
        (*out)[str(r.path)] = PointResult::Param{str(r.value), str(r.unit), str(r.type)};
    H5Dvlen_reclaim(t.get(), space.get(), H5P_DEFAULT, rows.data());
}

// The unit of a swept parameter's column: a platform parameter's unit when its values are plain
// numbers; "" for dimensioned ones (the values carry their unit: "150 MHz") and scenario keys.
std::string param_unit(const std::string& path, const std::vector<PointResult>& results) {
    static const char* const kDimensioned[] = {"Time",    "Frequency", "Bytes",
                                               "Voltage", "Energy",    "Power", "Bandwidth"};
    for (const auto& r : results) {
        const auto it = r.params.find(path);
        if (it == r.params.end()) continue;
        for (const char* d : kDimensioned)
            if (it->second.type == d) return "";
        return it->second.unit == "1" ? "" : it->second.unit;
    }
    return "";
}

std::string read_text(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::string trim(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
    return s;
}

std::string number_text(double v) {
    if (std::isnan(v)) return "";
    // The shortest of %.15g / %.17g that reads back as the same double.
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.15g", v);
    if (std::strtod(buf, nullptr) != v) std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

// Cuts a string at `n - 1` bytes on a UTF-8 character boundary (room for one NUL).
std::string fit(const std::string& s, size_t n) {
    if (s.size() < n) return s;
    size_t cut = n - 1;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
    return s.substr(0, cut);
}

void write_h5(const std::string& path, const std::string& sweep_text,
              const std::vector<Point>& points, const std::vector<std::string>& param_paths,
              const std::vector<PointResult>& results, const std::vector<std::string>& metrics) {
    // Column widths: parameter values as written, at least 16 bytes.
    std::vector<size_t> pw(param_paths.size(), 16);
    for (const auto& p : points)
        for (size_t k = 0; k < p.params.size() && k < pw.size(); ++k)
            pw[k] = std::max(pw[k], p.params[k].second.size() + 1);

    size_t off = 0;
    const size_t off_point = off;
    off += 4;
    const size_t off_status = off;
    off += kStatusBytes;
    const size_t off_error = off;
    off += kErrorBytes;
    std::vector<size_t> off_param;
    for (size_t w : pw) {
        off_param.push_back(off);
        off += w;
    }
    std::vector<size_t> off_metric;
    for (size_t k = 0; k < metrics.size(); ++k) {
        off_metric.push_back(off);
        off += 8;
    }
    const size_t row_size = off;

    H5Id type(H5Tcreate(H5T_COMPOUND, row_size));
    H5Id st(fixed_str(kStatusBytes));
    H5Id et(fixed_str(kErrorBytes));
    H5Tinsert(type.get(), "point", off_point, H5T_STD_U32LE);
    H5Tinsert(type.get(), "status", off_status, st.get());
    H5Tinsert(type.get(), "error", off_error, et.get());
    std::vector<hid_t> ptypes;
    for (size_t k = 0; k < pw.size(); ++k) {
        ptypes.push_back(fixed_str(pw[k]));
        H5Tinsert(type.get(), ("param:" + param_paths[k]).c_str(), off_param[k], ptypes.back());
    }
    for (size_t k = 0; k < metrics.size(); ++k)
        H5Tinsert(type.get(), ("metric:" + metrics[k]).c_str(), off_metric[k], H5T_IEEE_F64LE);
    for (hid_t t : ptypes) H5Tclose(t);

    std::vector<unsigned char> buf(std::max<size_t>(1, points.size()) * row_size, 0);
    for (size_t i = 0; i < points.size(); ++i) {
        unsigned char* row = buf.data() + i * row_size;
        const uint32_t id = points[i].id;
        std::memcpy(row + off_point, &id, 4);
        const PointResult& r = results[i];
        const std::string status = fit(r.status, kStatusBytes);
        std::memcpy(row + off_status, status.data(), status.size());
        const std::string err = fit(r.error, kErrorBytes);
        std::memcpy(row + off_error, err.data(), err.size());
        for (size_t k = 0; k < pw.size() && k < points[i].params.size(); ++k)
            std::memcpy(row + off_param[k], points[i].params[k].second.data(),
                        points[i].params[k].second.size());
        for (size_t k = 0; k < metrics.size(); ++k) {
            const auto it = r.metrics.find(metrics[k]);
            const double v =
                it == r.metrics.end() ? std::numeric_limits<double>::quiet_NaN() : it->second;
            std::memcpy(row + off_metric[k], &v, 8);
        }
    }

    H5Id file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
    if (!file.ok()) throw std::runtime_error(path + ": cannot create the results file");
    const hsize_t n = points.size();
    H5Id space(H5Screate_simple(1, &n, nullptr));
    H5Id d(H5Dcreate2(file.get(), "results", type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT,
                      H5P_DEFAULT));
    if (!d.ok()) throw std::runtime_error(path + ": cannot create /results");
    if (n > 0 && H5Dwrite(d.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, buf.data()) < 0)
        throw std::runtime_error(path + ": cannot write /results");

    // Attributes: the sweep file's text, and one unit per column (parameters and metrics).
    H5Id vstr(H5Tcopy(H5T_C_S1));
    H5Tset_size(vstr.get(), H5T_VARIABLE);
    H5Tset_cset(vstr.get(), H5T_CSET_UTF8);
    {
        H5Id scalar(H5Screate(H5S_SCALAR));
        H5Id a(H5Acreate2(d.get(), "sweep", vstr.get(), scalar.get(), H5P_DEFAULT, H5P_DEFAULT));
        const char* text = sweep_text.c_str();
        H5Awrite(a.get(), vstr.get(), &text);
    }
    {
        std::vector<std::string> units(3, "");
        for (const auto& path : param_paths) units.push_back(param_unit(path, results));
        for (const auto& m : metrics) {
            std::string u;
            for (const auto& r : results) {
                const auto it = r.units.find(m);
                if (it != r.units.end()) {
                    u = it->second;
                    break;
                }
            }
            units.push_back(u);
        }
        std::vector<const char*> ptrs;
        for (const auto& u : units) ptrs.push_back(u.c_str());
        const hsize_t nu = ptrs.size();
        H5Id us(H5Screate_simple(1, &nu, nullptr));
        H5Id a(H5Acreate2(d.get(), "units", vstr.get(), us.get(), H5P_DEFAULT, H5P_DEFAULT));
        H5Awrite(a.get(), vstr.get(), ptrs.data());
    }
}

}  // namespace

std::string trace_path(const std::string& out_dir, uint32_t id) {
    return (fs::path(out_dir) / "points" / (std::to_string(id) + ".h5")).string();
}
std::string error_path(const std::string& out_dir, uint32_t id) {
    return (fs::path(out_dir) / "points" / (std::to_string(id) + ".error")).string();
}
std::string log_path(const std::string& out_dir, uint32_t id) {
    return (fs::path(out_dir) / "points" / (std::to_string(id) + ".log")).string();
}

PointResult read_point(const std::string& out_dir, uint32_t id,
                       const std::vector<std::string>& extra) {
    PointResult r;
    r.id = id;
    const std::string epath = error_path(out_dir, id);
    const bool failed = fs::exists(epath);
    std::string run_status, run_message;
    const std::string tpath = trace_path(out_dir, id);
    if (fs::exists(tpath)) {
        QuietHdf5 quiet;
        H5Id file(H5Fopen(tpath.c_str(), H5F_ACC_RDONLY | H5F_ACC_SWMR_READ, H5P_DEFAULT));
        if (file.ok()) {
            std::vector<unsigned char> buf;
            size_t rows = 0;
            H5Id run_t(H5Tcreate(H5T_COMPOUND, sizeof(RunRow)));
            H5Id s16(fixed_str(16)), s1024(fixed_str(1024));
            H5Tinsert(run_t.get(), "status", offsetof(RunRow, status), s16.get());
            H5Tinsert(run_t.get(), "message", offsetof(RunRow, message), s1024.get());
            H5Tinsert(run_t.get(), "sim_time_ps", offsetof(RunRow, sim_time_ps), H5T_NATIVE_UINT64);
            H5Tinsert(run_t.get(), "wall_seconds", offsetof(RunRow, wall_seconds),
                      H5T_NATIVE_DOUBLE);
            if (read_rows(file.get(), "/run", run_t.get(), sizeof(RunRow), &buf, &rows) &&
                rows > 0) {
                RunRow row;
                std::memcpy(&row, buf.data(), sizeof row);
                run_status = from_fixed(row.status, sizeof row.status);
                run_message = from_fixed(row.message, sizeof row.message);
                r.metrics[kSimTimeMetric] = static_cast<double>(row.sim_time_ps) * 1e-6;
                r.units[kSimTimeMetric] = "us";
                r.metrics[kWallMetric] = row.wall_seconds;
                r.units[kWallMetric] = "s";
                r.metric_order = {kSimTimeMetric, kWallMetric};
            }
            read_params(file.get(), &r.params);
            // Components and counters.
            std::vector<std::string> components;
            H5Id s128(fixed_str(128));
            if (read_rows(file.get(), "/lut/components", s128.get(), 128, &buf, &rows))
                for (size_t i = 0; i < rows; ++i)
                    components.push_back(
                        from_fixed(reinterpret_cast<const char*>(buf.data()) + i * 128, 128));
            std::vector<std::pair<std::string, std::string>> counters;
            H5Id lut_t(H5Tcreate(H5T_COMPOUND, sizeof(CounterLutRow)));
            H5Id s64(fixed_str(64)), s32(fixed_str(32));
            H5Tinsert(lut_t.get(), "name", offsetof(CounterLutRow, name), s64.get());
            H5Tinsert(lut_t.get(), "unit", offsetof(CounterLutRow, unit), s32.get());
            if (read_rows(file.get(), "/lut/counters", lut_t.get(), sizeof(CounterLutRow), &buf,
                          &rows))
                for (size_t i = 0; i < rows; ++i) {
                    CounterLutRow c;
                    std::memcpy(&c, buf.data() + i * sizeof c, sizeof c);
                    counters.emplace_back(from_fixed(c.name, sizeof c.name),
                                          from_fixed(c.unit, sizeof c.unit));
                }
            H5Id sum_t(H5Tcreate(H5T_COMPOUND, sizeof(CounterRow)));
            H5Tinsert(sum_t.get(), "component", offsetof(CounterRow, component), H5T_NATIVE_UINT16);
            H5Tinsert(sum_t.get(), "counter", offsetof(CounterRow, counter), H5T_NATIVE_UINT16);
            H5Tinsert(sum_t.get(), "value", offsetof(CounterRow, value), H5T_NATIVE_DOUBLE);
            if (read_rows(file.get(), "/summary/counters", sum_t.get(), sizeof(CounterRow), &buf,
                          &rows))
                for (size_t i = 0; i < rows; ++i) {
                    CounterRow c;
                    std::memcpy(&c, buf.data() + i * sizeof c, sizeof c);
                    if (c.component >= components.size() || c.counter >= counters.size()) continue;
                    const std::string& comp = components[c.component];
                    const auto& [name, unit] = counters[c.counter];
                    std::string metric;
                    if (comp == kMetricsComponent) {
                        metric = name;
                    } else {
                        const std::string qualified = comp + "/" + name;
                        if (std::find(extra.begin(), extra.end(), qualified) == extra.end())
                            continue;
                        metric = qualified;
                    }
                    if (!r.metrics.count(metric)) r.metric_order.push_back(metric);
                    r.metrics[metric] = c.value;  // last value wins, as in the trace
                    r.units[metric] = unit;
                }
        }
    }
    if (failed) {
        r.status = kError;
        r.error =
            run_status == kError && !run_message.empty() ? run_message : trim(read_text(epath));
    } else if (run_status == kOk) {
        r.status = kOk;
    } else if (run_status == kError) {
        r.status = kError;
        r.error = run_message;
    }
    return r;
}

std::vector<std::string> metric_columns(const std::vector<std::string>& requested,
                                        const std::vector<PointResult>& results) {
    if (!requested.empty()) return requested;
    std::vector<std::string> cols = {kSimTimeMetric, kWallMetric};
    for (const auto& r : results)
        for (const auto& m : r.metric_order)
            if (std::find(cols.begin(), cols.end(), m) == cols.end()) cols.push_back(m);
    return cols;
}

std::string csv_field(const std::string& s) {
    if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
    std::string o = "\"";
    for (char c : s) o += c == '"' ? std::string("\"\"") : std::string(1, c);
    return o + "\"";
}

void write_file_atomic(const std::string& path, const std::string& text) {
    const std::string tmp = path + ".tmp." + std::to_string(getpid());
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        out << text;
        if (!out) throw std::runtime_error(tmp + ": cannot write");
    }
    std::error_code ec;
    fs::rename(tmp, path, ec);
    if (ec) throw std::runtime_error(path + ": cannot replace: " + ec.message());
}

std::string manifest_text(const std::vector<Point>& points,
                          const std::vector<std::string>& param_paths) {
    std::string s = "point";
    for (const auto& p : param_paths) s += "," + csv_field("param:" + p);
    s += "\n";
    for (const auto& pt : points) {
        s += std::to_string(pt.id);
        for (const auto& kv : pt.params) s += "," + csv_field(kv.second);
        s += "\n";
    }
    return s;
}

void write_results(const std::string& out_dir, const std::string& sweep_text,
                   const std::vector<Point>& points, const std::vector<std::string>& param_paths,
                   const std::vector<PointResult>& results,
                   const std::vector<std::string>& metrics) {
    // CSV
    std::string s = "point,status,error";
    for (const auto& p : param_paths) s += "," + csv_field("param:" + p);
    for (const auto& m : metrics) s += "," + csv_field("metric:" + m);
    s += "\n";
    for (size_t i = 0; i < points.size(); ++i) {
        const PointResult& r = results[i];
        s += std::to_string(points[i].id) + "," + csv_field(r.status) + "," + csv_field(r.error);
        for (const auto& kv : points[i].params) s += "," + csv_field(kv.second);
        for (const auto& m : metrics) {
            const auto it = r.metrics.find(m);
            s += "," + (it == r.metrics.end() ? std::string() : number_text(it->second));
        }
        s += "\n";
    }
    write_file_atomic((fs::path(out_dir) / "results.csv").string(), s);

    // HDF5
    const std::string h5 = (fs::path(out_dir) / "results.h5").string();
    const std::string tmp = h5 + ".tmp." + std::to_string(getpid());
    write_h5(tmp, sweep_text, points, param_paths, results, metrics);
    std::error_code ec;
    fs::rename(tmp, h5, ec);
    if (ec) throw std::runtime_error(h5 + ": cannot replace: " + ec.message());
}

}  // namespace nmsim::sweep
