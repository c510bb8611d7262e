#include "models/common/units.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <utility>
#include <vector>

namespace nmsim {
namespace {

// Splits "12.5ns" into 12.5 and "ns". Rejects empty numbers and trailing garbage in the number.
bool split_number(const std::string& in, double& value, std::string& unit, std::string& err) {
    size_t b = 0;
    while (b < in.size() && std::isspace(static_cast<unsigned char>(in[b]))) ++b;
    const char* start = in.c_str() + b;
    char* end = nullptr;
    value = std::strtod(start, &end);
    if (end == start) {
        err = "not a number";
        return false;
    }
    unit.assign(end);
    while (!unit.empty() && std::isspace(static_cast<unsigned char>(unit.front())))
        unit.erase(0, 1);
    while (!unit.empty() && std::isspace(static_cast<unsigned char>(unit.back()))) unit.pop_back();
    if (!std::isfinite(value)) {
        err = "not a finite number";
        return false;
    }
    return true;
}

template <class Table>
bool lookup(const Table& table, const std::string& unit, double& scale) {
    for (const auto& [name, s] : table) {
        if (unit == name) {
            scale = s;
            return true;
        }
    }
    return false;
}

std::string unit_list(const std::vector<std::pair<const char*, double>>& table) {
    std::string out;
    for (const auto& [name, s] : table) {
        if (!out.empty()) out += ", ";
        out += name;
    }
    return out;
}

template <class T, class Make>
std::optional<T> parse_dim(const std::string& s, std::string& err,
                           const std::vector<std::pair<const char*, double>>& table,
                           const char* example, Make make) {
    double v = 0;
    std::string unit;
    if (!split_number(s, v, unit, err)) return std::nullopt;
    if (unit.empty()) {
        std::ostringstream m;
        m << "missing unit; did you mean \"" << s << example << "\"?";
        err = m.str();
        return std::nullopt;
    }
    double scale = 0;
    if (!lookup(table, unit, scale)) {
        err = "unknown unit \"" + unit + "\" (valid: " + unit_list(table) + ")";
        return std::nullopt;
    }
    return make(v * scale);
}

const std::vector<std::pair<const char*, double>> kTimeUnits = {
    {"ps", 1.0}, {"ns", 1e3}, {"us", 1e6}, {"ms", 1e9}, {"s", 1e12}};
const std::vector<std::pair<const char*, double>> kFreqUnits = {
    {"Hz", 1.0}, {"kHz", 1e3}, {"MHz", 1e6}, {"GHz", 1e9}};
const std::vector<std::pair<const char*, double>> kByteUnits = {
    {"B", 1.0}, {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0}};
const std::vector<std::pair<const char*, double>> kVoltUnits = {{"mV", 1e-3}, {"V", 1.0}};
const std::vector<std::pair<const char*, double>> kEnergyUnits = {
    {"fJ", 1e-15}, {"pJ", 1e-12}, {"nJ", 1e-9}, {"uJ", 1e-6}, {"mJ", 1e-3}, {"J", 1.0}};
const std::vector<std::pair<const char*, double>> kPowerUnits = {
    {"nW", 1e-9}, {"uW", 1e-6}, {"mW", 1e-3}, {"W", 1.0}};
// Decimal prefixes for rates (as links and memories are specified), binary ones with "i", and
// bits per second (/8).
const std::vector<std::pair<const char*, double>> kBandwidthUnits = {
    {"B/s", 1.0},        {"kB/s", 1e3},       {"MB/s", 1e6},        {"GB/s", 1e9},
    {"TB/s", 1e12},      {"KiB/s", 1024.0},   {"MiB/s", 1048576.0}, {"GiB/s", 1073741824.0},
    {"bit/s", 1.0 / 8},  {"kbit/s", 1e3 / 8}, {"Mbit/s", 1e6 / 8},  {"Gbit/s", 1e9 / 8},
    {"Tbit/s", 1e12 / 8}};
const std::vector<std::pair<const char*, double>> kBandwidthFormat = {
    {"B/s", 1.0}, {"kB/s", 1e3}, {"MB/s", 1e6}, {"GB/s", 1e9}, {"TB/s", 1e12}};

std::string trim_number(double v) {
    std::ostringstream o;
    o.precision(12);
    o << v;
    return o.str();
}

}  // namespace

std::optional<Time> parse_time(const std::string& s, std::string& err) {
    auto t = parse_dim<Time>(s, err, kTimeUnits, "ns", [](double ps) {
        return Time{static_cast<int64_t>(std::llround(ps))};
    });
    if (t && t->ps < 0) {
        err = "negative time";
        return std::nullopt;
    }
    return t;
}

std::optional<Frequency> parse_frequency(const std::string& s, std::string& err) {
    auto f =
        parse_dim<Frequency>(s, err, kFreqUnits, "MHz", [](double hz) { return Frequency{hz}; });
    if (f && f->hz <= 0) {
        err = "frequency must be positive";
        return std::nullopt;
    }
    return f;
}

std::optional<Bytes> parse_bytes(const std::string& s, std::string& err) {
    double v = 0;
    std::string unit;
    if (!split_number(s, v, unit, err)) return std::nullopt;
    if (unit == "kB" || unit == "KB" || unit == "MB" || unit == "GB") {
        err = "ambiguous unit \"" + unit + "\": use KiB, MiB or GiB (binary) or B";
        return std::nullopt;
    }
    auto b = parse_dim<Bytes>(s, err, kByteUnits, "B", [](double n) {
        return Bytes{static_cast<uint64_t>(std::llround(n))};
    });
    if (b && v < 0) {
        err = "negative size";
        return std::nullopt;
    }
    if (b) {
        double scale = 1;
        lookup(kByteUnits, unit, scale);
        if (std::fabs(v * scale - std::round(v * scale)) > 1e-9) {
            err = "not a whole number of bytes";
            return std::nullopt;
        }
    }
    return b;
}

std::optional<Voltage> parse_voltage(const std::string& s, std::string& err) {
    return parse_dim<Voltage>(s, err, kVoltUnits, "V", [](double v) { return Voltage{v}; });
}

std::string format_time(Time t) {
    const int64_t ps = t.ps;
    if (ps == 0) return "0ns";
    if (ps % 1000000000000LL == 0) return std::to_string(ps / 1000000000000LL) + "s";
    if (ps % 1000000000LL == 0) return std::to_string(ps / 1000000000LL) + "ms";
    if (ps % 1000000LL == 0) return std::to_string(ps / 1000000LL) + "us";
    if (ps % 1000LL == 0) return std::to_string(ps / 1000LL) + "ns";
    return std::to_string(ps) + "ps";
}

std::string format_frequency(Frequency f) {
    if (f.hz >= 1e9 && std::fmod(f.hz, 1e6) == 0) return trim_number(f.hz / 1e9) + "GHz";
    if (f.hz >= 1e6) return trim_number(f.hz / 1e6) + "MHz";
    if (f.hz >= 1e3) return trim_number(f.hz / 1e3) + "kHz";
    return trim_number(f.hz) + "Hz";
}

std::string format_bytes(Bytes b) {
    if (b.n != 0 && b.n % 1073741824ULL == 0) return std::to_string(b.n / 1073741824ULL) + "GiB";
    if (b.n != 0 && b.n % 1048576ULL == 0) return std::to_string(b.n / 1048576ULL) + "MiB";
    if (b.n != 0 && b.n % 1024ULL == 0) return std::to_string(b.n / 1024ULL) + "KiB";
    return std::to_string(b.n) + "B";
}

std::string format_voltage(Voltage v) { return trim_number(v.v) + "V"; }

std::optional<Energy> parse_energy(const std::string& s, std::string& err) {
    return parse_dim<Energy>(s, err, kEnergyUnits, "J", [](double j) { return Energy{j}; });
}

std::optional<Power> parse_power(const std::string& s, std::string& err) {
    return parse_dim<Power>(s, err, kPowerUnits, "W", [](double w) { return Power{w}; });
}

std::optional<Bandwidth> parse_bandwidth(const std::string& s, std::string& err) {
    auto b = parse_dim<Bandwidth>(s, err, kBandwidthUnits, "B/s",
                                  [](double bps) { return Bandwidth{bps}; });
    if (b && b->bytes_per_s < 0) {
        err = "negative rate";
        return std::nullopt;
    }
    return b;
}

namespace {
// The largest unit in which `v` is at least 1 (the smallest unit for 0 and tiny values).
std::string format_scaled(double v, const std::vector<std::pair<const char*, double>>& units) {
    const auto* best = &units.front();
    for (const auto& u : units)
        if (v == 0.0 && u.second == 1.0) return std::string("0") + u.first;
    for (const auto& u : units)
        if (std::fabs(v) >= u.second * (1 - 1e-12)) best = &u;
    return trim_number(v / best->second) + best->first;  // 12 significant digits: 14.98pJ
}
}  // namespace

std::string format_energy(Energy e) { return format_scaled(e.j, kEnergyUnits); }
std::string format_power(Power p) { return format_scaled(p.w, kPowerUnits); }
std::string format_bandwidth(Bandwidth b) { return format_scaled(b.bytes_per_s, kBandwidthFormat); }

}  // namespace nmsim
