#include "tools/bench/targets.h"

#include <iomanip>
#include <sstream>
#include <string>

namespace nmsim::bench {
namespace {

// The CNN scenario's wall time per inference when issue 17 was filed: main at 2c7058e, this
// benchmark's method (100 minus 10 inferences), on the development machine (docs/performance.md).
constexpr double kCnnBaselineMs = 5.7;

void row(std::ostream& out, const std::string& what, double value, const std::string& shown,
         const std::string& target, bool met) {
    out << "  " << std::left << std::setw(46) << what << std::setw(22) << shown << std::setw(24)
        << target << std::right;
    if (value < 0)
        out << "not measured\n";
    else
        out << (met ? "met" : "NOT met") << "\n";
}

std::string fixed(double v, int digits, const std::string& unit) {
    if (v < 0) return "-";
    std::ostringstream s;
    s << std::fixed << std::setprecision(digits) << v << unit;
    return s.str();
}

}  // namespace

void print_targets(const SpeedFigures& f, std::ostream& out) {
    out << "\nTargets (issue 17; one host core, checks on)\n";
    out << "  " << std::left << std::setw(46) << "figure" << std::setw(22) << "measured"
        << std::setw(24) << "target"
        << "status\n"
        << std::right;
    row(out, "MLP wall per inference", f.mlp_ms_per_inference,
        fixed(f.mlp_ms_per_inference, 2, " ms"), "<= 3.4 ms", f.mlp_ms_per_inference <= 3.4);
    const double cnn_speedup =
        f.cnn_ms_per_inference > 0 ? kCnnBaselineMs / f.cnn_ms_per_inference : -1;
    row(out, "CNN wall per inference (speed-up on 5.7 ms)", f.cnn_ms_per_inference,
        fixed(f.cnn_ms_per_inference, 2, " ms") + " (" + fixed(cnn_speedup, 2, "x") + ")",
        ">= 3x (<= 1.9 ms)", cnn_speedup >= 3.0);
    row(out, "BSS-2 512 neurons, 1 ms at 30 kHz", f.bss2_s_per_ms,
        fixed(f.bss2_s_per_ms * 1e3, 0, " ms wall"), "<= 100 ms wall", f.bss2_s_per_ms <= 0.1);
    row(out, "SpiNNaker2 serial SNN, synaptic events", f.snn_serial_events_per_s,
        fixed(f.snn_serial_events_per_s / 1e6, 2, " M/s"), ">= 10 M/s",
        f.snn_serial_events_per_s >= 10e6);
    out << "  (why a target is not met, with the profile: docs/performance.md)\n";
}

}  // namespace nmsim::bench
