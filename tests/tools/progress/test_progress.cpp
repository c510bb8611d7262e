// Progress lines of runs and sweeps: the line's content, durations, an ETA that counts down
// while a unit is under way (it must not grow), log lines at the interval only, a terminal line
// that stays quiet for short jobs and is erased or kept at the end, and silence when off.
#include "tools/progress/progress.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

namespace nmsim::progress {
namespace {

using Clock = Reporter::Clock;
using std::chrono::milliseconds;
using std::chrono::seconds;

TEST(Progress, Durations) {
    EXPECT_EQ(Reporter::duration(4.24), "4.2 s");
    EXPECT_EQ(Reporter::duration(42.4), "42 s");
    EXPECT_EQ(Reporter::duration(185), "3 min 05 s");
    EXPECT_EQ(Reporter::duration(3720), "1 h 02 min");
    EXPECT_EQ(Reporter::duration(-3), "0.0 s");
}

TEST(Progress, LineShowsBarCountsRateAndEta) {
    std::ostringstream os;
    Reporter r(os, Mode::off, "sweep x");
    const auto t0 = Clock::now();
    r.update({12, 40, 1, "points", "3 finished earlier"}, t0 + seconds(24));
    const std::string l = r.line(t0 + seconds(24));
    EXPECT_NE(l.find("sweep x [######--------------] 12/40 points, failed 1  3 finished earlier"),
              std::string::npos)
        << l;
    EXPECT_NE(l.find("0.5 points/s"), std::string::npos) << l;
    // 2 s per point at the last completion, 28 points left.
    EXPECT_NE(l.find("ETA 56 s"), std::string::npos) << l;
    EXPECT_EQ(os.str(), "");  // off: silent
}

TEST(Progress, EtaCountsDownWhileAUnitRunsAndNeverGrows) {
    std::ostringstream os;
    Reporter r(os, Mode::off, "run");
    const auto t0 = Clock::now();
    r.update({1, 4, 0, "inferences", ""}, t0 + seconds(10));
    const double at_done = *r.eta_s(t0 + seconds(10));
    EXPECT_NEAR(at_done, 30.0, 0.1);
    double last = at_done;
    for (int s = 11; s < 60; s += 7) {  // the second unit takes long: the ETA only shrinks
        const double e = *r.eta_s(t0 + seconds(s));
        EXPECT_LE(e, last) << "t = " << s << " s";
        EXPECT_GE(e, 0.0);
        last = e;
    }
    EXPECT_FALSE(Reporter(os, Mode::off, "x").eta_s(t0).has_value());  // nothing done yet
}

TEST(Progress, LogModeWritesOneLinePerInterval) {
    std::ostringstream os;
    Reporter r(os, Mode::log, "nmsim run s", 10.0);
    const auto t0 = Clock::now();
    r.update({1, 100, 0, "inferences", ""}, t0 + seconds(3));
    EXPECT_EQ(os.str(), "");  // a short job writes nothing
    r.update({2, 100, 0, "inferences", ""}, t0 + seconds(11));
    r.update({3, 100, 0, "inferences", ""}, t0 + seconds(15));
    r.update({4, 100, 0, "inferences", ""}, t0 + seconds(22));
    const std::string out = os.str();
    EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 2) << out;
    EXPECT_EQ(out.find('\r'), std::string::npos) << out;
    EXPECT_NE(out.find("nmsim run s [--------------------] 2/100 inferences"), std::string::npos)
        << out;
    r.finish(true);
    const std::string all = os.str();
    EXPECT_EQ(std::count(all.begin(), all.end(), '\n'), 3);
}

TEST(Progress, TerminalLineIsQuietAtFirstThenRedrawnAndErased) {
    std::ostringstream os;
    Reporter r(os, Mode::terminal, "x");
    const auto t0 = Clock::now();
    r.update({1, 2, 0, "runs", ""}, t0 + milliseconds(300));
    EXPECT_EQ(os.str(), "");  // under a second: nothing
    r.update({1, 2, 0, "runs", ""}, t0 + milliseconds(1500));
    EXPECT_EQ(os.str().rfind("\r", 0), 0u) << os.str();
    EXPECT_EQ(os.str().find('\n'), std::string::npos);
    r.finish(false);  // a report follows: the line is erased
    EXPECT_EQ(os.str().find('\n'), std::string::npos);
    EXPECT_NE(os.str().find("\033[K"), std::string::npos);

    std::ostringstream kept;
    Reporter k(kept, Mode::terminal, "y");
    k.update({2, 2, 0, "points", ""}, t0 + seconds(2));
    k.finish(true);
    EXPECT_EQ(kept.str().back(), '\n');
}

}  // namespace
}  // namespace nmsim::progress
