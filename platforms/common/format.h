// Number and time formatting for reports and messages (one definition for every host program).
#pragma once

#include <cstdint>
#include <string>

namespace nmsim::run {

std::string hex32(uint64_t v);        // "0x0000abcd"
std::string fmt(double v, int prec);  // fixed-point with `prec` decimals
std::string grouped(uint64_t v);      // 1234567 -> "1,234,567"
std::string utc_now();                // "2026-11-26T08:27:03Z"
std::string duration_text(double seconds);
// Copies `s` into a fixed-size string column of a trace record (truncated, zero-padded).
void copy_str(char* dst, size_t n, const std::string& s);  // "42 s", "3 min 05 s", "1 h 02 min"

}  // namespace nmsim::run
