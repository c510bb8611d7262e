#include "platforms/common/format.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <iomanip>
#include <sstream>

#include "models/common/hex.h"

namespace nmsim::run {

std::string hex32(uint64_t v) { return nmsim::hex(v, 8); }

void copy_str(char* dst, size_t n, const std::string& s) {
    std::memset(dst, 0, n);
    std::memcpy(dst, s.data(), std::min(n - 1, s.size()));
}

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

std::string duration_text(double seconds) {
    if (!std::isfinite(seconds) || seconds < 0) return "?";
    const long long s = std::llround(seconds);
    char b[48];
    if (s < 60)
        std::snprintf(b, sizeof b, "%lld s", s);
    else if (s < 3600)
        std::snprintf(b, sizeof b, "%lld min %02lld s", s / 60, s % 60);
    else
        std::snprintf(b, sizeof b, "%lld h %02lld min", s / 3600, (s % 3600) / 60);
    return b;
}

}  // namespace nmsim::run
