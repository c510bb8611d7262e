// The SpiNNaker2 prototype as the chip platform's variant "prototype": its values resolve with
// "variant prototype: <source>" as their origin, a scenario's own override wins over the variant,
// an unknown variant is an error at platform.variant's file:line; and the pe workload runs on the
// chip (seed 003's sparse MLP, scenarios/s2_proto_sparse_1core.yaml on 8 images), its checks
// pass and the DRAM interface, closed between accesses, is charged for a small part of the run.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "platforms/common/host_program.h"
#include "platforms/spinnaker2/params.h"
#include "tools/scenario/scenario.h"
#include "tools/scenario/variants.h"
#include "workloads/pe/host.h"

namespace nmsim::spinnaker2 {
namespace {

scenario::Scenario prototype_scenario() {
    scenario::Scenario s;
    s.path = "s.yaml";
    s.platform_kind = "spinnaker2_chip";
    s.platform_variant = "prototype";
    s.platform_variant_origin = scenario::Origin{"s.yaml", 3, 12};
    return s;
}

std::map<std::string, run::ParamValue> by_path(const std::vector<run::ParamValue>& rows) {
    std::map<std::string, run::ParamValue> m;
    for (const auto& r : rows) m[r.path] = r;
    return m;
}

TEST(PrototypeVariant, ValuesAndOriginsResolve) {
    std::vector<run::ParamValue> rows;
    const ChipParams p = resolve_chip_params(prototype_scenario(), &rows);
    EXPECT_EQ(p.qpe_count, 1u);
    EXPECT_EQ(p.pe.perf_level, 1u);
    EXPECT_EQ(p.pe.pl1_freq.hz, 500e6);
    EXPECT_DOUBLE_EQ(p.pe.pl1_voltage.v, 1.0);
    EXPECT_EQ(p.pe.sram_size.n, 128u * 1024);
    EXPECT_EQ(p.dram.size.n, 128u << 20);
    EXPECT_EQ(p.dram.channels, 1u);
    EXPECT_TRUE(p.energy.dram_close_when_idle);
    EXPECT_DOUBLE_EQ(p.energy.dram_open_power.w, 46.4e-3);
    EXPECT_DOUBLE_EQ(p.pe.energy.ref_voltage_pl1.v, 1.0);

    const scenario::PlatformVariant* v =
        scenario::find_platform_variant("spinnaker2_chip", "prototype");
    ASSERT_NE(v, nullptr);
    const auto rows_by_path = by_path(rows);
    for (const auto& val : v->values) {
        ASSERT_TRUE(rows_by_path.count(val.path)) << val.path;
        EXPECT_EQ(rows_by_path.at(val.path).origin, "variant prototype: " + val.source);
        EXPECT_FALSE(val.source.empty()) << val.path;
    }
    EXPECT_EQ(rows_by_path.at("pe.pl1_freq").origin,
              "variant prototype: seed 003 sec. 3.2: the prototype runs at 500 MHz");
    EXPECT_NE(rows_by_path.at("energy.baseline_power").origin.find("FITTED"), std::string::npos);
    EXPECT_EQ(rows_by_path.at("noc.clock").origin, "default");

    // Without the variant the chip keeps its defaults.
    scenario::Scenario plain = prototype_scenario();
    plain.platform_variant.clear();
    const ChipParams d = resolve_chip_params(plain, nullptr);
    EXPECT_EQ(d.qpe_count, 38u);
    EXPECT_EQ(d.dram.channels, 2u);
    EXPECT_FALSE(d.energy.dram_close_when_idle);
}

TEST(PrototypeVariant, ScenarioOverrideBeatsTheVariant) {
    scenario::Scenario s = prototype_scenario();
    s.params.push_back(scenario::ParamOverride{"pe.pl1_freq", "400 MHz", {"s.yaml", 7, 5}});
    s.params.push_back(
        scenario::ParamOverride{"energy.dram_close_when_idle", "false", {"--set", 0, 0}});
    std::vector<run::ParamValue> rows;
    const ChipParams p = resolve_chip_params(s, &rows);
    EXPECT_EQ(p.pe.pl1_freq.hz, 400e6);
    EXPECT_FALSE(p.energy.dram_close_when_idle);
    EXPECT_EQ(p.qpe_count, 1u);  // the variant's other values stay
    const auto r = by_path(rows);
    EXPECT_EQ(r.at("pe.pl1_freq").origin, "s.yaml:7:5");
    EXPECT_EQ(r.at("energy.dram_close_when_idle").origin, "--set");
    EXPECT_EQ(r.at("qpe_count").origin.rfind("variant prototype: ", 0), 0u);
}

TEST(PrototypeVariant, UnknownVariantNamesFileLineAndKey) {
    scenario::Scenario s = prototype_scenario();
    s.platform_variant = "protoype";
    try {
        resolve_chip_params(s, nullptr);
        FAIL() << "no error for an unknown variant";
    } catch (const scenario::ScenarioError& e) {
        ASSERT_EQ(e.errors().size(), 1u) << e.what();
        EXPECT_EQ(e.errors()[0].str(),
                  "s.yaml:3:12: error: platform.variant: unknown variant \"protoype\" of platform "
                  "spinnaker2_chip (did you mean \"prototype\"?)");
    }
    // A variant of another platform is unknown here.
    s.platform_kind = "spinnaker2_pe";
    s.platform_variant = "prototype";
    EXPECT_THROW(resolve_pe_params(s, nullptr), scenario::ScenarioError);
}

// The pe workload on the chip: ext buffers in DRAM interface 0, written and read back by the
// host through the DRAM's backdoor; PE 0 imports each image by DMA over the NoC.
TEST(PrototypeVariant, SparseMlpRunsOnTheChip) {
    scenario::LoadOptions lo;
    lo.firmware_dirs = {NMSIM_FIRMWARE_DIR};
    lo.sets = {
        "workload.pe.cores.0.args.image_count=8",  "workload.pe.buffers.logits.shape=[8, 10]",
        "workload.pe.buffers.probs.shape=[8, 10]", "workload.pe.buffers.pred.shape=[8]",
        "workload.pe.checks.0.op.count=8",         "workload.pe.checks.1.op.count=8"};
    const scenario::Scenario s =
        scenario::load(std::string(NMSIM_SOURCE_DIR) + "/scenarios/s2_proto_sparse_1core.yaml", lo);
    ASSERT_EQ(s.platform_kind, "spinnaker2_chip");
    ASSERT_EQ(s.platform_variant, "prototype");
    run::RunOptions o;
    o.quiet = true;
    o.trace_path = (std::filesystem::temp_directory_path() /
                    ("nmsim_proto_" + std::to_string(::getpid()) + ".h5"))
                       .string();
    std::ostringstream out, err;
    workloads::pe::PeHost host;
    const run::RunResult r = run::run_scenario(s, o, out, err, host);
    std::filesystem::remove(o.trace_path);
    ASSERT_TRUE(r.ok) << r.message << "\n" << err.str();
    ASSERT_EQ(host.outcomes().size(), 3u);
    for (const auto& oc : host.outcomes()) EXPECT_TRUE(oc.passed) << oc.detail;

    double dram_open_s = -1, pe0_active_s = 0, pe1_s = 0;
    for (const energy::Row& row : host.meter().rows()) {
        if (row.component == "s2.dram0" && row.is_static) dram_open_s = row.count;
        if (row.component == "s2.pe0.core" && row.quantity.find("active") != std::string::npos)
            pe0_active_s += row.count;
        if (row.component.rfind("s2.pe1", 0) == 0) pe1_s += row.energy_j;
    }
    const double run_s = r.sim_time_us * 1e-6;
    // Eight 784-byte imports and the outputs: a few microseconds of a run of about a
    // millisecond, while PE 0 is busy nearly all the time and PE 1 never starts.
    EXPECT_GT(dram_open_s, 0.0);
    EXPECT_LT(dram_open_s, 0.05 * run_s);
    EXPECT_GT(pe0_active_s, 0.8 * run_s);
    EXPECT_EQ(pe1_s, 0.0);
}

}  // namespace
}  // namespace nmsim::spinnaker2
