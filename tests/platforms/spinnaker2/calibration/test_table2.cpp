// Calibration check against seed 000 Table II and sec. V-B/V-C (docs/calibration.md): the MLP
// scenario as committed (8 workers; 8/4/1/1 per layer as in the table), every row within 15 %,
// the total within 10 %, FC1's weight load and MLA compute within 15 %. Three parameters were
// fitted (pe.mla.fetch_bytes_per_cycle on FC1's 29 us; core_ext_latency and pe.dma.setup_cycles
// on the setup and softmax rows); the other rows are predictions.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <sstream>

#include "platforms/common/host_program.h"
#include "tools/scenario/scenario.h"
#include "workloads/dnn/host.h"

namespace nmsim::workloads::dnn {
namespace {

DnnRunSummary run_mlp(const std::vector<std::string>& sets) {
    scenario::LoadOptions lo;
    lo.sets = sets;
    lo.firmware_dirs = {NMSIM_FIRMWARE_DIR};
    const scenario::Scenario s =
        scenario::load(std::string(NMSIM_SOURCE_DIR) + "/scenarios/s2_mlp_fmnist.yaml", lo);
    run::RunOptions o;
    o.quiet = true;
    o.trace_path = (std::filesystem::temp_directory_path() /
                    ("nmsim_table2_" + std::to_string(::getpid()) + ".h5"))
                       .string();
    std::ostringstream out, err;
    DnnHost host;
    const run::RunResult r = run::run_scenario(s, o, out, err, host);
    const DnnRunSummary sum = host.summary();
    std::filesystem::remove(o.trace_path);
    EXPECT_TRUE(r.ok) << r.message << err.str();
    EXPECT_EQ(sum.bit_exact, sum.inferences);
    return sum;
}

double rel(double sim, double seed) { return (sim - seed) / seed; }

TEST(Table2, MlpRowsWithinTargets) {
    const DnnRunSummary s = run_mlp({"workload.dnn.count=2"});
    ASSERT_EQ(s.mean.size(), 6u);  // setup, FC1, FC2, FC3, softmax, cleanup
    const double seed[6] = {12, 323, 217, 80, 50, 9};
    const char* row[6] = {"Setup", "FC1+ReLU", "FC2+ReLU", "FC3", "Softmax", "Cleanup"};
    const uint32_t workers[6] = {8, 8, 4, 1, 1, 8};
    for (size_t i = 0; i < 6; ++i) {
        EXPECT_EQ(s.mean[i].workers, workers[i]) << row[i];
        EXPECT_LE(std::fabs(rel(s.mean[i].us, seed[i])), 0.15)
            << row[i] << ": simulated " << s.mean[i].us << " us, seed " << seed[i] << " us";
    }
    EXPECT_LE(std::fabs(rel(s.total_us, 688)), 0.10)
        << "total " << s.total_us << " us, seed 688 us";
    // Sec. V-B: FC1 loads its weights for 192 us of 323 us, the MLA needs only 29 us.
    EXPECT_LE(std::fabs(rel(s.mean[1].load_us, 192)), 0.15) << "FC1 load " << s.mean[1].load_us;
    EXPECT_LE(std::fabs(rel(s.mean[1].compute_us, 29)), 0.15) << "FC1 MLA " << s.mean[1].compute_us;
    // "the execution time of the linear layers is dominated by loading the weights from DRAM"
    for (size_t i = 1; i <= 2; ++i) EXPECT_GT(s.mean[i].load_us, 3 * s.mean[i].compute_us);
}

// Sec. V-C: with all workers enabled setup and cleanup grow (39 us and 93 us there); only the
// trend is asserted, the errors are reported in docs/calibration.md.
TEST(Table2, SetupAndCleanupGrowWithTheWorkers) {
    const DnnRunSummary few = run_mlp({"workload.dnn.count=1"});
    const DnnRunSummary all = run_mlp({"workload.dnn.count=1", "workload.dnn.workers=all"});
    ASSERT_EQ(all.mean.front().workers, 151u);
    EXPECT_GT(all.mean.front().us, 2 * few.mean.front().us);
    EXPECT_GT(all.mean.back().us, 2 * few.mean.back().us);
    // The layers keep their tiling (layer_workers pins 8/4/1/1); FC1 overlaps the tail of the
    // 151 workers' set-up (their configuration reads share the DRAM), so allow 10 %.
    for (size_t i = 1; i + 1 < few.mean.size(); ++i)
        EXPECT_NEAR(all.mean[i].us, few.mean[i].us, 0.10 * few.mean[i].us) << few.mean[i].name;
}

}  // namespace
}  // namespace nmsim::workloads::dnn
