// Dimensioned value types for platform parameters. A parameter of one of these types must be
// given with a unit in scenarios ("10ns", "300MHz", "128KiB"); plain numbers are rejected.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace nmsim {

struct Time {
    int64_t ps = 0;  // integer picoseconds: the unit of every trace timestamp
    static constexpr Time from_ps(int64_t v) { return Time{v}; }
    static constexpr Time from_ns(double v) { return Time{static_cast<int64_t>(v * 1e3 + 0.5)}; }
    static constexpr Time from_us(double v) { return Time{static_cast<int64_t>(v * 1e6 + 0.5)}; }
    double seconds() const { return static_cast<double>(ps) * 1e-12; }
    bool operator==(const Time& o) const { return ps == o.ps; }
};

struct Frequency {
    double hz = 0.0;
    static constexpr Frequency from_mhz(double v) { return Frequency{v * 1e6}; }
    // Clock period rounded to whole picoseconds (300 MHz -> 3333 ps).
    int64_t period_ps() const { return static_cast<int64_t>(1e12 / hz + 0.5); }
    bool operator==(const Frequency& o) const { return hz == o.hz; }
};

struct Bytes {
    uint64_t n = 0;
    bool operator==(const Bytes& o) const { return n == o.n; }
};

struct Voltage {
    double v = 0.0;
    bool operator==(const Voltage& o) const { return v == o.v; }
};

struct Energy {
    double j = 0.0;
    bool operator==(const Energy& o) const { return j == o.j; }
};

struct Power {
    double w = 0.0;
    bool operator==(const Power& o) const { return w == o.w; }
};

// A data rate in bytes per second; given as "3.2GB/s", "125MB/s", "1Gbit/s", "64KiB/s".
struct Bandwidth {
    double bytes_per_s = 0.0;
    bool operator==(const Bandwidth& o) const { return bytes_per_s == o.bytes_per_s; }
};

// Parsing: returns std::nullopt and sets `err` (a short reason, possibly with a hint).
std::optional<Time> parse_time(const std::string& s, std::string& err);
std::optional<Frequency> parse_frequency(const std::string& s, std::string& err);
std::optional<Bytes> parse_bytes(const std::string& s, std::string& err);
std::optional<Voltage> parse_voltage(const std::string& s, std::string& err);
std::optional<Energy> parse_energy(const std::string& s, std::string& err);
std::optional<Power> parse_power(const std::string& s, std::string& err);
std::optional<Bandwidth> parse_bandwidth(const std::string& s, std::string& err);

// Canonical, round-trippable formatting ("3.333ns", "300MHz", "128KiB", "0.8V").
std::string format_time(Time t);
std::string format_frequency(Frequency f);
std::string format_bytes(Bytes b);
std::string format_voltage(Voltage v);
std::string format_energy(Energy e);        // "14.98pJ"
std::string format_power(Power p);          // "46.4mW"
std::string format_bandwidth(Bandwidth b);  // "3.2GB/s" (decimal prefixes)

}  // namespace nmsim
