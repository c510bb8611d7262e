// Text helpers of the scenario loader and the workload schemas: literals as YAML scalars carry
// them (integers in decimal or 0x hex, reals, booleans), quoting and joining for messages, and the
// did-you-mean hint. Plain C++.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace nmsim::scenario {

std::string join(const std::vector<std::string>& v, const char* sep);
std::vector<std::string> split(const std::string& s, char sep);
bool contains(const std::vector<std::string>& v, const std::string& x);
std::string quote(const std::string& s);  // "\"a\\\"b\"": for values in messages
std::string path_join(const std::string& a, const std::string& b);  // "a.b", or b if a is ""

// The closest candidate, or "" when none is close or it shares no character with `s` ("q" ->
// "x" for one-letter names is noise, not a hint).
std::string suggest(const std::string& s, const std::vector<std::string>& candidates);
// " (did you mean \"x\"?)" or "".
std::string did_you_mean(const std::string& s, const std::vector<std::string>& candidates);

bool is_identifier(const std::string& s);  // [A-Za-z_][A-Za-z0-9_]*
// The offset of the first byte of `s` that does not belong to a valid UTF-8 sequence (overlong
// forms, surrogates and code points above U+10FFFF are not valid), or std::string::npos.
size_t invalid_utf8(const std::string& s);
// "not valid UTF-8 (byte 0xff at offset 3)", or "" for valid text. YAML is Unicode text: yaml-cpp
// reads such bytes as they are, but its emitter replaces them (a dumped scenario would differ).
std::string utf8_problem(const std::string& s);
bool all_digits(const std::string& s);

// Integer literal: optional sign, then decimal digits or 0x/0X and hex digits.
struct IntLit {
    enum class Status { ok, malformed, overflow } status = Status::malformed;
    bool neg = false;
    uint64_t mag = 0;
    double as_double() const { return neg ? -static_cast<double>(mag) : static_cast<double>(mag); }
};
IntLit parse_int(const std::string& s);
bool in_range(const IntLit& v, int64_t lo, uint64_t hi);

std::optional<double> parse_real(const std::string& s);  // finite reals only
std::string format_real(double v);  // shortest text that reads back as the same double
std::optional<bool> parse_bool(const std::string& s);       // true/yes/on, false/no/off
std::string shape_str(const std::vector<uint64_t>& shape);  // "[1, 784]"

}  // namespace nmsim::scenario
