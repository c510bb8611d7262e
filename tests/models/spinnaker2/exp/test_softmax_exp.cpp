// End-to-end test of the softmax_exp firmware program on the simulated PE (core + EXP unit):
// its console summary against a double-precision softmax, argument checking, and the EXP
// iteration count showing up in the program's run time.
#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "nmsim/hw/spinnaker2/pe_map.h"
#include "platforms/spinnaker2/run_elf.h"

namespace nmsim::spinnaker2 {
namespace {

const std::string kElf = std::string(NMSIM_FIRMWARE_DIR) + "/softmax_exp.elf";

// The argument block holds the 4 arguments, then x, then room for y (64 words in all).
std::vector<uint32_t> args_for(const std::vector<int32_t>& x, uint32_t n, uint32_t iterations) {
    const uint32_t x_addr = S2_ARGS_BASE + 16;
    const uint32_t y_addr = x_addr + 4 * static_cast<uint32_t>(x.size());
    std::vector<uint32_t> a = {x_addr, y_addr, n, iterations};
    for (int32_t v : x) a.push_back(static_cast<uint32_t>(v));
    a.resize(a.size() + x.size(), 0u);
    return a;
}

std::vector<int32_t> logits(size_t n) {
    std::vector<int32_t> x;
    uint32_t s = 12345;
    for (size_t i = 0; i < n; ++i) {
        s = s * 1103515245u + 12345u;
        x.push_back(static_cast<int32_t>((s >> 8) % (12u * 32768u)) - 6 * 32768);  // [-6, 6)
    }
    x[5] = INT32_MIN;  // far below the maximum: the difference must not wrap
    return x;
}

struct Summary {
    unsigned n = 0, iterations = 0, argmax = 0, sum = 0, y_sum = 0;
    int max = 0, y_max = 0;
};

bool parse(const std::string& console, Summary& s) {
    return std::sscanf(console.c_str(),
                       "softmax_exp: n=%u iterations=%u max=%d argmax=%u sum=%u y_max=%d y_sum=%u",
                       &s.n, &s.iterations, &s.max, &s.argmax, &s.sum, &s.y_max, &s.y_sum) == 7;
}

TEST(SoftmaxExp, MatchesDoubleSoftmax) {
    const size_t n = 24;
    const std::vector<int32_t> x = logits(n);
    const ElfRunResult r = run_elf(kElf, {}, args_for(x, n, 16));
    ASSERT_FALSE(r.error) << r.message;
    ASSERT_TRUE(r.exited);
    EXPECT_EQ(r.exit_code, 0);
    Summary s;
    ASSERT_TRUE(parse(r.console, s)) << r.console;

    size_t imax = 0;
    for (size_t i = 1; i < n; ++i)
        if (x[i] > x[imax]) imax = i;
    double e_sum = 0;
    for (int32_t v : x) e_sum += std::exp((static_cast<double>(v) - x[imax]) / 32768.0) * 32768.0;
    EXPECT_EQ(s.n, n);
    EXPECT_EQ(s.iterations, 16u);
    EXPECT_EQ(s.max, x[imax]);
    EXPECT_EQ(s.argmax, imax);
    // Each e_i is within 0.5 ulp at 16 iterations (test_exp_accel), so the sum within n/2.
    EXPECT_NEAR(static_cast<double>(s.sum), e_sum, n / 2.0);
    EXPECT_NEAR(static_cast<double>(s.y_max), 32768.0 * 32768.0 / e_sum, 1.0);
    // Rounded probabilities sum to 1.0 within half an LSB each.
    EXPECT_NEAR(static_cast<double>(s.y_sum), 32768.0, n / 2.0);
}

TEST(SoftmaxExp, RejectsBadArguments) {
    const std::vector<int32_t> x = logits(8);
    ElfRunResult r = run_elf(kElf, {}, args_for(x, 8, 0));
    ASSERT_FALSE(r.error) << r.message;
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.console.find("bad iterations=0"), std::string::npos) << r.console;
    r = run_elf(kElf, {}, args_for(x, 0, 16));
    ASSERT_FALSE(r.error) << r.message;
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.console.find("bad n=0"), std::string::npos) << r.console;
}

TEST(SoftmaxExp, MoreIterationsTakeLonger) {
    const size_t n = 24;
    const std::vector<int32_t> x = logits(n);
    const ElfRunResult fast = run_elf(kElf, {}, args_for(x, n, 1));
    const ElfRunResult slow = run_elf(kElf, {}, args_for(x, n, 16));
    ASSERT_FALSE(fast.error) << fast.message;
    ASSERT_FALSE(slow.error) << slow.message;
    EXPECT_EQ(fast.exit_code, 0);
    // 15 more EXP cycles per element; the loop does less than 7 cycles of other work between
    // starting an exp and reading it, so most of them show. The printed line differs by a few
    // characters (about 20 cycles each through s2_printf).
    EXPECT_GT(slow.cycles, fast.cycles + 15u * n / 2u);
    EXPECT_LT(slow.cycles, fast.cycles + 15u * n + 100u);
}

}  // namespace
}  // namespace nmsim::spinnaker2
