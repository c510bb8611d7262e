// End-to-end tests of firmware/programs/sparse_mlp with the seed 003 prototype scenarios: the real
// `nmsim` binary runs each scenario in a temporary directory; the scenario's own checks compare
// the logits and predictions bit-exactly with the integer reference (tools/reference
// sparse_mlp_ref) and the softmax outputs with double precision. Here: the runs pass, four PEs
// take about a quarter of one PE's simulated time, the software exponential is slower than the
// accelerator, and a firmware that computes something else fails the checks.
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "tests/support/cli_fixture.h"

namespace nmsim::test {
namespace {

// Sum of the firmware's "correct=N" over all PEs' summary lines.
int correct_predictions(const std::string& report) {
    static const std::regex re(R"(sparse_mlp: images=\d+ .* correct=(\d+))");
    int sum = 0;
    for (auto it = std::sregex_iterator(report.begin(), report.end(), re);
         it != std::sregex_iterator(); ++it)
        sum += std::stoi((*it)[1].str());
    return sum;
}

class SparseMlpScenario : public CliTest {
protected:
    Proc nmsim(const std::string& scenario, const std::vector<std::string>& sets = {}) {
        std::vector<std::string> args{"run", kScenarios + scenario, "-o", "t.h5"};
        for (const auto& s : sets) {
            args.push_back("--set");
            args.push_back(s);
        }
        return CliTest::nmsim(args);
    }
};

void expect_all_checks_pass(const Proc& p) {
    ASSERT_EQ(p.rc, 0) << show(p);
    EXPECT_TRUE(contains(p.out, "result           OK")) << show(p);
    EXPECT_TRUE(contains(
        p.out, "check            PASS logits = sparse_mlp(images): 10000 values bit-exact"))
        << show(p);
    EXPECT_TRUE(contains(
        p.out, "check            PASS pred = sparse_mlp(images) argmax: 1000 values bit-exact"))
        << show(p);
    EXPECT_TRUE(contains(p.out, "check            PASS probs ~ softmax(logits)")) << show(p);
}

TEST_F(SparseMlpScenario, OneAndFourCoresPassAndFourTakeAboutAQuarterOfTheTime) {
    const Proc one = nmsim("s2_proto_sparse_1core.yaml");
    expect_all_checks_pass(one);
    EXPECT_TRUE(
        contains(one.out, "sparse_mlp: images=1000 first=0 stride=1 nnz=2352/900/300 exp_accel=1"))
        << show(one);
    const Proc four = nmsim("s2_proto_sparse_4core.yaml");
    expect_all_checks_pass(four);
    for (int pe = 0; pe < 4; ++pe)
        EXPECT_TRUE(contains(four.out, "s2.pe" + std::to_string(pe) +
                                           ": sparse_mlp: images=250 first=" + std::to_string(pe) +
                                           " stride=4"))
            << show(four);
    // The same network and images: the same predictions, so the same number of correct ones
    // (random weights: near chance, 10 % of 1000).
    EXPECT_EQ(correct_predictions(one.out), correct_predictions(four.out));
    EXPECT_GT(correct_predictions(one.out), 0);
    const double t1 = simulated_us(one.out), t4 = simulated_us(four.out);
    ASSERT_GT(t1, 0.0) << show(one);
    EXPECT_GE(t4 / t1, 0.2) << t1 << " us vs " << t4 << " us";
    EXPECT_LE(t4 / t1, 0.35) << t1 << " us vs " << t4 << " us";
}

TEST_F(SparseMlpScenario, SoftwareExponentialPassesAndIsSlower) {
    const Proc hw = nmsim("s2_proto_sparse_1core.yaml");
    const Proc sw = nmsim("s2_proto_sparse_1core_sw.yaml");
    expect_all_checks_pass(sw);
    EXPECT_TRUE(contains(sw.out, "exp_accel=0")) << show(sw);
    EXPECT_GT(simulated_us(sw.out), simulated_us(hw.out)) << show(hw) << show(sw);
}

TEST_F(SparseMlpScenario, ChecksCatchAWrongShiftAndAWrongLogitScale) {
    // shift2 = 11 in the firmware only: the hidden layer 2 differs, so logits and predictions do.
    const Proc shift = nmsim("s2_proto_sparse_1core.yaml", {"workload.pe.cores.0.args.shift2=11"});
    EXPECT_EQ(shift.rc, 1) << show(shift);
    EXPECT_TRUE(contains(shift.out, "check            FAIL logits = sparse_mlp(images)"))
        << show(shift);
    EXPECT_TRUE(contains(shift.err, "check failed")) << show(shift);
    // 13 instead of 14 logit fraction bits: the softmax of twice the logits; the logits still
    // match.
    const Proc scale =
        nmsim("s2_proto_sparse_1core.yaml", {"workload.pe.cores.0.args.logit_frac_bits=13"});
    EXPECT_EQ(scale.rc, 1) << show(scale);
    EXPECT_TRUE(contains(scale.out, "check            PASS logits = sparse_mlp(images)"))
        << show(scale);
    EXPECT_TRUE(contains(scale.out, "check            FAIL probs ~ softmax(logits)"))
        << show(scale);
}

}  // namespace
}  // namespace nmsim::test
