// Where a value of a compiler input file was written, and the range a numeric value must lie in:
// the pieces every network loader's messages are made of ("file:line:col: key: 5 outside 0..1").
// Plain C++.
#pragma once

#include <cstdio>
#include <string>

namespace nmsim::compiler {

// Where an element was written: "nets/wta.yaml:12:5", or "" for networks built in code.
struct SourceRef {
    std::string file;
    int line = 0;
    int col = 0;
    // "file:line:col" or ""; an empty file with a line gives "<network>:line:col".
    std::string str() const {
        if (file.empty() && line <= 0) return "";
        std::string s = file.empty() ? std::string("<network>") : file;
        if (line > 0) s += ":" + std::to_string(line) + ":" + std::to_string(col);
        return s;
    }
};

// "0.5", "1e-30", "-2147.483648": a value in messages (10 significant digits).
inline std::string format_number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.10g", v);
    return buf;
}

// The valid values of a numeric key: the closed interval [lo, hi] in `unit`, and the reason.
struct Range {
    double lo = 0.0, hi = 0.0;
    const char* unit = "";  // "us", "mV", ...; "" for plain numbers
    const char* why = "";
    bool contains(double v) const { return v >= lo && v <= hi; }  // false for NaN
    // "outside 0.5..60 us (calix's calibratable range)"
    std::string outside() const {
        std::string s = "outside " + format_number(lo) + ".." + format_number(hi);
        if (*unit) s += std::string(" ") + unit;
        if (*why) s += std::string(" (") + why + ")";
        return s;
    }
};

}  // namespace nmsim::compiler
