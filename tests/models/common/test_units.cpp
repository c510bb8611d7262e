// Dimensioned parameter values: every type parses with its units (and only with a unit), prints
// in the largest unit that keeps the value readable, and reads back to the same value; the error
// texts name what is wrong and suggest the fix.
#include "models/common/units.h"

#include <gtest/gtest.h>

#include <string>

namespace nmsim {
namespace {

template <class T, class F>
std::string error_of(F parse, const std::string& text) {
    std::string err;
    const std::optional<T> v = parse(text, err);
    EXPECT_FALSE(v.has_value()) << text;
    return err;
}

TEST(Units, BandwidthTakesDecimalBinaryAndBitRates) {
    std::string err;
    EXPECT_EQ(parse_bandwidth("3.2GB/s", err)->bytes_per_s, 3.2e9);
    EXPECT_EQ(parse_bandwidth("125 MB/s", err)->bytes_per_s, 125e6);
    EXPECT_EQ(parse_bandwidth("1Gbit/s", err)->bytes_per_s, 125e6);
    EXPECT_EQ(parse_bandwidth("25.6Gbit/s", err)->bytes_per_s, 3.2e9);
    EXPECT_EQ(parse_bandwidth("64KiB/s", err)->bytes_per_s, 65536.0);
    EXPECT_EQ(parse_bandwidth("3.2e9B/s", err)->bytes_per_s, 3.2e9);
    EXPECT_EQ(format_bandwidth(Bandwidth{3.2e9}), "3.2GB/s");
    EXPECT_EQ(format_bandwidth(Bandwidth{125e6}), "125MB/s");
    EXPECT_EQ(format_bandwidth(Bandwidth{0}), "0B/s");
    for (double v : {1.6e9, 6.4e9, 125e6, 1e3, 8.5e11}) {
        const std::string text = format_bandwidth(Bandwidth{v});
        EXPECT_EQ(parse_bandwidth(text, err)->bytes_per_s, v) << text;
    }
}

TEST(Units, PlainNumbersAndUnknownUnitsAreErrors) {
    EXPECT_EQ(error_of<Bandwidth>(parse_bandwidth, "3.2e9"),
              "missing unit; did you mean \"3.2e9B/s\"?");
    EXPECT_NE(error_of<Bandwidth>(parse_bandwidth, "3.2GBps").find("unknown unit \"GBps\""),
              std::string::npos);
    EXPECT_EQ(error_of<Bandwidth>(parse_bandwidth, "-1GB/s"), "negative rate");
    EXPECT_EQ(error_of<Time>(parse_time, "10"), "missing unit; did you mean \"10ns\"?");
    EXPECT_NE(error_of<Bytes>(parse_bytes, "64KB").find("ambiguous unit \"KB\""),
              std::string::npos);
    EXPECT_EQ(error_of<Frequency>(parse_frequency, "fast"), "not a number");
}

TEST(Units, OtherTypesRoundTrip) {
    std::string err;
    EXPECT_EQ(parse_time("3.333ns", err)->ps, 3333);
    EXPECT_EQ(format_time(Time{1000000}), "1us");
    EXPECT_EQ(parse_frequency("300MHz", err)->hz, 300e6);
    EXPECT_EQ(format_frequency(Frequency{300e6}), "300MHz");
    EXPECT_EQ(parse_bytes("128KiB", err)->n, 131072u);
    EXPECT_EQ(format_bytes(Bytes{131072}), "128KiB");
    EXPECT_EQ(parse_power("46.4mW", err)->w, 0.0464);
    EXPECT_EQ(format_power(Power{0.0464}), "46.4mW");
    EXPECT_EQ(parse_energy("15pJ", err)->j, 15e-12);
    EXPECT_EQ(parse_voltage("800mV", err)->v, 0.8);
}

}  // namespace
}  // namespace nmsim
