// One formatter for the addresses and words that error messages and reports name.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace nmsim {

// "0x" + lower-case hex digits of v, zero-padded to at least `digits` (0: no padding).
inline std::string hex(uint64_t v, int digits = 0) {
    char b[24];
    std::snprintf(b, sizeof b, "0x%0*llx", digits, static_cast<unsigned long long>(v));
    return b;
}

}  // namespace nmsim
