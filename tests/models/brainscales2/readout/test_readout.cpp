// The BrainScaleS-2 readouts: MADC sample rate, quantisation of a ramp, start/stop, neuron
// selection, noise determinism and register errors; CADC quantisation of all 512 channels,
// conversion-time semantics and register errors. References recompute the codes in double
// precision with the public transfer function (docs/bss2_fpga.md).
#include <gtest/gtest.h>
#include <systemc>

#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "models/brainscales2/readout/cadc.h"
#include "models/brainscales2/readout/madc.h"
#include "nmsim/hw/brainscales2/bss2_map.h"
#include "tests/support/memory_sink.h"
#include "tests/support/systemc_fixture.h"

namespace {

using nmsim::bss2::Cadc;
using nmsim::bss2::CadcParams;
using nmsim::bss2::Madc;
using nmsim::bss2::MadcParams;

uint64_t now_ps() { return sc_core::sc_time_stamp().value(); }
void wait_until(uint64_t t) {
    if (t > now_ps()) sc_core::wait(sc_core::sc_time::from_value(t - now_ps()));
}

// Runs a test body as an SC_THREAD.
struct Proc : sc_core::sc_module {
    SC_HAS_PROCESS(Proc);
    Proc(sc_core::sc_module_name n, std::function<void()> fn) : sc_module(n), body(std::move(fn)) {
        SC_THREAD(run);
    }
    void run() { body(); }
    std::function<void()> body;
};

// Ideal ADC code, written independently of the models: the largest k with
// v_min + k * LSB <= v, clamped to the code range.
int64_t ideal_code(double v, double v_min, double v_max, unsigned bits) {
    const int64_t top = int64_t{1} << bits;
    const double lsb = (v_max - v_min) / static_cast<double>(top);
    int64_t k = static_cast<int64_t>(std::floor((v - v_min) / lsb));
    if (k < 0) k = 0;
    if (k > top - 1) k = top - 1;
    return k;
}

class ReadoutTest : public nmsim::test::SystemCTest {
protected:
    void SetUp() override {
        SystemCTest::SetUp();
        sc_core::sc_set_time_resolution(1, sc_core::SC_PS);
    }
};

constexpr uint32_t kNeuron = BSS2_MADC_NEURON - BSS2_MADC_BASE;
constexpr uint32_t kCtrl = BSS2_MADC_CTRL - BSS2_MADC_BASE;

struct Sample {
    uint64_t t;
    uint32_t code;
};

TEST_F(ReadoutTest, MadcSamplesARampAtTheHaldlsRate) {
    MadcParams p;
    Madc madc("madc", p);
    const double slope = 1300.0 / 5e6;  // mV per ps: beyond v_max before the end (clamping)
    std::vector<uint32_t> asked;
    madc.bind_probe([&](uint32_t n) {
        asked.push_back(n);
        return slope * static_cast<double>(now_ps()) - 20.0;  // starts below v_min
    });
    std::vector<Sample> out;
    madc.bind_output([&](uint32_t code) { out.push_back({now_ps(), code}); });
    const uint64_t t0 = 10'000, t1 = 5'000'000;
    Proc drv("drv", [&] {
        std::string err;
        wait_until(t0 / 2);
        ASSERT_TRUE(madc.write_config(kNeuron, 300, &err)) << err;
        wait_until(t0);
        ASSERT_TRUE(madc.write_config(kCtrl, 1, &err)) << err;
        wait_until(t1);
        ASSERT_TRUE(madc.write_config(kCtrl, 0, &err)) << err;
    });
    sc_core::sc_start(sc_core::sc_time(10, sc_core::SC_US));
    const uint64_t T = 17 * 2000;  // 17 cycles of 500 MHz
    EXPECT_EQ(madc.sample_period_ps(), T);
    const double rate = 1e12 / static_cast<double>(madc.sample_period_ps());
    std::printf("MADC sample rate %.3f MSa/s\n", rate / 1e6);
    EXPECT_NEAR(rate, 29.41e6, 0.01e6);
    ASSERT_EQ(out.size(), (t1 - t0) / T);
    bool saw_low = false, saw_high = false;
    for (size_t k = 0; k < out.size(); ++k) {
        const uint64_t t = t0 + (k + 1) * T;
        EXPECT_EQ(out[k].t, t);
        const double v = slope * static_cast<double>(t) - 20.0;
        EXPECT_EQ(out[k].code, ideal_code(v, 0.0, 1200.0, 10)) << "sample " << k << " v " << v;
        saw_low |= out[k].code == 0;
        saw_high |= out[k].code == 1023;
    }
    EXPECT_TRUE(saw_low);
    EXPECT_TRUE(saw_high);
    for (uint32_t n : asked) EXPECT_EQ(n, 300u);
    EXPECT_EQ(madc.samples(), out.size());
}

TEST_F(ReadoutTest, MadcStartStopRestartAndNeuronSwitch) {
    MadcParams p;
    Madc madc("madc", p);
    madc.bind_probe([](uint32_t n) { return 1.0 + 2.0 * n; });  // code = floor(v / 1.171875 mV)
    std::vector<Sample> out;
    madc.bind_output([&](uint32_t code) { out.push_back({now_ps(), code}); });
    const uint64_t T = madc.sample_period_ps();
    Proc drv("drv", [&] {
        std::string err;
        ASSERT_TRUE(madc.write_config(kNeuron, 5, &err));
        wait_until(1000);
        ASSERT_TRUE(madc.write_config(kCtrl, 1, &err));
        wait_until(1000 + 3 * T + T / 2);
        ASSERT_TRUE(madc.write_config(kNeuron, 511, &err));  // next sample uses it
        wait_until(1000 + 5 * T + T / 2);
        ASSERT_TRUE(madc.write_config(kCtrl, 0, &err));  // stops after 5 samples
        wait_until(1'000'000);
        ASSERT_TRUE(madc.write_config(kCtrl, 1, &err));  // new sample grid
        wait_until(1'000'000 + 2 * T + 1);
        ASSERT_TRUE(madc.write_config(kCtrl, 0, &err));
    });
    sc_core::sc_start(sc_core::sc_time(5, sc_core::SC_US));
    ASSERT_EQ(out.size(), 7u);
    for (size_t k = 0; k < 5; ++k) EXPECT_EQ(out[k].t, 1000 + (k + 1) * T);
    EXPECT_EQ(out[0].code, ideal_code(11.0, 0, 1200, 10));
    EXPECT_EQ(out[3].code, ideal_code(1023.0, 0, 1200, 10));
    EXPECT_EQ(out[5].t, 1'000'000 + T);
    EXPECT_EQ(out[6].t, 1'000'000 + 2 * T);
    EXPECT_EQ(madc.starts(), 2u);
}

TEST_F(ReadoutTest, MadcRegisterErrorsAndReadback) {
    Madc madc("madc", MadcParams{});
    std::string err;
    uint32_t v = 0;
    EXPECT_FALSE(madc.write_config(kNeuron, 512, &err));
    EXPECT_NE(err.find("NEURON"), std::string::npos) << err;
    EXPECT_FALSE(madc.write_config(kCtrl, 2, &err));
    EXPECT_NE(err.find("CTRL"), std::string::npos) << err;
    EXPECT_FALSE(madc.read_config(kCtrl, &v, &err));
    EXPECT_NE(err.find("write-only"), std::string::npos) << err;
    EXPECT_FALSE(madc.write_config(7, 0, &err));
    EXPECT_NE(err.find("offset 7"), std::string::npos) << err;
    EXPECT_TRUE(madc.write_config(kNeuron, 257, &err));
    EXPECT_TRUE(madc.read_config(kNeuron, &v, &err));
    EXPECT_EQ(v, 257u);
}

TEST_F(ReadoutTest, MadcNoiseIsSeededAndHasTheRequestedSpread) {
    int instance = 0;
    auto codes = [&instance](uint64_t seed) {
        MadcParams p;
        p.noise_lsb = 2.0;
        p.seed = seed;
        Madc m(("madc" + std::to_string(instance++)).c_str(), p);
        std::vector<uint32_t> c;
        for (int i = 0; i < 4000; ++i) c.push_back(m.quantise(600.0 + 0.5 * 1200.0 / 1024));
        return c;
    };
    const auto a = codes(7), b = codes(7), c = codes(8);
    EXPECT_EQ(a, b);
    EXPECT_NE(a, c);
    double mean = 0, var = 0;
    for (uint32_t x : a) mean += x;
    mean /= a.size();
    for (uint32_t x : a) var += (x - mean) * (x - mean);
    var /= a.size();
    // floor(512.5 + N(0, 2)): mean 512.5 - 0.5 = 512, variance 4 + 1/12.
    EXPECT_NEAR(mean, 512.0, 0.15);
    EXPECT_NEAR(std::sqrt(var), std::sqrt(4.0 + 1.0 / 12), 0.15);
}

TEST_F(ReadoutTest, CadcQuantisesAll512ChannelsAfterTheConversionTime) {
    CadcParams p;
    Cadc cadc("cadc", p);
    double offset = 0.0;  // changes after the trigger: must not affect the conversion
    cadc.bind_probe([&](uint32_t n) { return offset + n * (1250.0 / 512) - 10.0; });
    const uint64_t tc = static_cast<uint64_t>(p.t_conversion.ps);
    std::vector<uint32_t> before(BSS2_NEURONS), after(BSS2_NEURONS), second_early(BSS2_NEURONS);
    std::string refused;
    Proc drv("drv", [&] {
        std::string err;
        auto read_all = [&](std::vector<uint32_t>& into) {
            for (uint32_t n = 0; n < BSS2_NEURONS; ++n)
                ASSERT_TRUE(cadc.read_config(BSS2_CADC_RESULT(n / 256, n % 256) - BSS2_CADC_BASE,
                                             &into[n], &err))
                    << err;
        };
        wait_until(1'000'000);
        ASSERT_TRUE(cadc.write_config(0, 1, &err)) << err;
        offset = 100.0;
        wait_until(1'000'000 + tc - 1);
        read_all(before);  // still running: the previous (none yet: 0) results
        EXPECT_FALSE(cadc.write_config(0, 1, &refused));
        wait_until(1'000'000 + tc);
        read_all(after);
        ASSERT_TRUE(cadc.write_config(0, 1, &err)) << err;  // second conversion, offset 100 mV
        wait_until(1'000'000 + tc + tc / 2);
        read_all(second_early);
    });
    sc_core::sc_start(sc_core::sc_time(5, sc_core::SC_US));
    for (uint32_t n = 0; n < BSS2_NEURONS; ++n) {
        EXPECT_EQ(before[n], 0u);
        EXPECT_EQ(after[n], ideal_code(n * (1250.0 / 512) - 10.0, 0, 1200, 8)) << "channel " << n;
        EXPECT_EQ(second_early[n], after[n]) << "channel " << n;
    }
    EXPECT_EQ(after[0], 0u);      // below range clamps
    EXPECT_EQ(after[511], 255u);  // above range clamps
    EXPECT_NE(refused.find("still running"), std::string::npos) << refused;
    EXPECT_EQ(cadc.conversions(), 2u);
    nmsim::test::MemorySink sink;
    cadc.write_summary(sink, sink.component("cadc"));
    EXPECT_EQ(sink.counter_value("cadc", "conversions"), 2.0);
    EXPECT_EQ(sink.counter_value("cadc", "refused_triggers"), 1.0);
}

TEST(ReadoutParamsTest, EveryParameterHasDocSourceUnitAndAValidDefault) {
    for (const std::string& s : nmsim::check_registry(nmsim::registry_of<MadcParams>()))
        ADD_FAILURE() << "madc: " << s;
    for (const std::string& s : nmsim::check_registry(nmsim::registry_of<CadcParams>()))
        ADD_FAILURE() << "cadc: " << s;
}

TEST_F(ReadoutTest, CadcRegisterErrors) {
    Cadc cadc("cadc", CadcParams{});
    std::string err;
    uint32_t v = 0;
    EXPECT_FALSE(cadc.read_config(0, &v, &err));
    EXPECT_NE(err.find("write-only"), std::string::npos) << err;
    EXPECT_FALSE(cadc.write_config(0x100 + 3, 1, &err));
    EXPECT_NE(err.find("read-only"), std::string::npos) << err;
    EXPECT_TRUE(cadc.read_config(0x300 + 127, &v, &err)) << err;  // the last quad
    EXPECT_FALSE(cadc.write_config(0x300, 1, &err));
    EXPECT_NE(err.find("read-only"), std::string::npos) << err;
    EXPECT_FALSE(cadc.read_config(0x300 + 128, &v, &err));
    EXPECT_NE(err.find("no register"), std::string::npos) << err;
    EXPECT_FALSE(cadc.read_config(5, &v, &err));
}

}  // namespace
