// Sweep files (parsing, error messages with file:line:col and key), point expansion (grid x zip x
// random, against a plain nested-loop re-implementation), random sampling and the Slurm
// job-array script. The progress line is tested in tests/tools/progress.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

#include "tools/sweep/points.h"
#include "tools/sweep/results.h"
#include "tools/sweep/slurm.h"
#include "tools/sweep/sweep_file.h"

namespace fs = std::filesystem;
using namespace nmsim::sweep;

namespace {

class SweepFileTest : public ::testing::Test {
protected:
    void SetUp() override {
        m_dir = fs::temp_directory_path() /
                ("nmsim_sweep_file_" + std::to_string(getpid()) + "_" +
                 ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::create_directories(m_dir);
        std::ofstream(m_dir / "base.yaml") << "name: base\n";
    }
    void TearDown() override { fs::remove_all(m_dir); }

    std::string write(const std::string& text, const std::string& name = "sweep.yaml") {
        const auto p = m_dir / name;
        std::ofstream(p) << text;
        return p.string();
    }

    // The errors of loading `text`, one string each ("file:line:col: error: key: message").
    std::vector<std::string> errors_of(const std::string& text) {
        const std::string path = write(text);
        try {
            load_sweep(path);
        } catch (const ScenarioError& e) {
            std::vector<std::string> v;
            for (const auto& ce : e.errors()) v.push_back(ce.str());
            return v;
        }
        return {};
    }

    fs::path m_dir;
};

bool has(const std::vector<std::string>& v, const std::string& needle) {
    for (const auto& s : v)
        if (s.find(needle) != std::string::npos) return true;
    return false;
}

std::string dump(const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += x + "\n";
    return s;
}

}  // namespace

TEST_F(SweepFileTest, ParsesEveryKey) {
    const std::string path = write(R"(name: demo
description: "a demo sweep"
base: base.yaml
set: {workload.dnn.count: 20, pe: {mla: {acc_bits: 24}}}
axes:
  dram.bandwidth: [1.6GB/s, 3.2GB/s, 6.4GB/s]
  workload.dnn: {workers: [1, 2, 4, 8]}
zip:
  pe.perf_level: [0, 1]
  pe.pl1_freq: [300MHz, 400 MHz]
random:
  n: 10
  seed: 7
  params: {dram.efficiency: {uniform: [0.5, 1]}, pe.mla.fetch_bytes_per_cycle: {choice: [4, 6, 8]}}
metrics: [dnn.total_us, sim_time_us]
output: results/demo
slurm: {partition: debug, time: "00:05:00", cpus_per_task: 2, max_parallel: 3}
)");
    const SweepSpec s = load_sweep(path);
    EXPECT_EQ(s.name, "demo");
    EXPECT_EQ(s.description, "a demo sweep");
    EXPECT_EQ(s.base, (m_dir / "base.yaml").string());
    ASSERT_EQ(s.fixed.size(), 2u);
    EXPECT_EQ(s.fixed[0].path, "workload.dnn.count");
    EXPECT_EQ(s.fixed[0].value, "20");
    EXPECT_EQ(s.fixed[1].path, "pe.mla.acc_bits");
    EXPECT_EQ(s.fixed[1].value, "24");
    ASSERT_EQ(s.axes.size(), 2u);
    EXPECT_EQ(s.axes[0].path, "dram.bandwidth");
    EXPECT_EQ(s.axes[0].values, (std::vector<std::string>{"1.6GB/s", "3.2GB/s", "6.4GB/s"}));
    EXPECT_EQ(s.axes[0].origin.line, 6);
    EXPECT_EQ(s.axes[1].path, "workload.dnn.workers");
    EXPECT_EQ(s.axes[1].values, (std::vector<std::string>{"1", "2", "4", "8"}));
    ASSERT_EQ(s.zip.size(), 2u);
    EXPECT_EQ(s.zip[1].values, (std::vector<std::string>{"300MHz", "400 MHz"}));
    EXPECT_EQ(s.random.n, 10u);
    EXPECT_EQ(s.random.seed, 7u);
    ASSERT_EQ(s.random.params.size(), 2u);
    EXPECT_EQ(s.random.params[0].kind, Distribution::Kind::uniform);
    EXPECT_DOUBLE_EQ(s.random.params[0].lo, 0.5);
    EXPECT_DOUBLE_EQ(s.random.params[0].hi, 1.0);
    EXPECT_EQ(s.random.params[1].choices, (std::vector<std::string>{"4", "6", "8"}));
    EXPECT_EQ(s.metrics, (std::vector<std::string>{"dnn.total_us", "sim_time_us"}));
    EXPECT_EQ(s.output, (m_dir / "results/demo").string());
    EXPECT_EQ(s.slurm.partition, "debug");
    EXPECT_EQ(s.slurm.time, "00:05:00");
    EXPECT_EQ(s.slurm.cpus_per_task, 2u);
    EXPECT_EQ(s.slurm.max_parallel, 3u);
    EXPECT_NE(s.source_text.find("name: demo"), std::string::npos);
    EXPECT_EQ(varied_paths(s),
              (std::vector<std::string>{"dram.bandwidth", "workload.dnn.workers", "pe.perf_level",
                                        "pe.pl1_freq", "dram.efficiency",
                                        "pe.mla.fetch_bytes_per_cycle"}));
    EXPECT_EQ(point_count(s), 3u * 4u * 2u * 10u);
}

TEST_F(SweepFileTest, DefaultsAndListValues) {
    const std::string path = write(
        "base: base.yaml\naxes: {workload.bss2.input_sweep.rates_hz: [[5000], [10000, 20000]]}\n");
    const SweepSpec s = load_sweep(path);
    EXPECT_EQ(s.name, "sweep");
    EXPECT_EQ(s.output, (m_dir / "results" / "sweep").string());
    EXPECT_TRUE(s.metrics.empty());
    ASSERT_EQ(s.axes.size(), 1u);
    // Lists are passed to --set as YAML flow text.
    EXPECT_EQ(s.axes[0].values, (std::vector<std::string>{"[5000]", "[10000, 20000]"}));
    EXPECT_EQ(point_count(s), 2u);
}

TEST_F(SweepFileTest, PointCountsAreBounded) {
    auto e = errors_of(
        "base: base.yaml\nrandom: {n: 1000000000, seed: 1, params: {a: {int: [1, 2]}}}\n");
    EXPECT_TRUE(has(e,
                    "sweep.yaml:2:13: error: random.n: 1000000000 samples; a sweep has at most "
                    "1000000 points"))
        << dump(e);
    e = errors_of(
        "base: base.yaml\naxes: {a: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], b: [1, 2]}\n"
        "random: {n: 100000, seed: 1, params: {c: {int: [1, 2]}}}\n");
    EXPECT_TRUE(has(e,
                    "sweep.yaml:1:1: error: the sweep has 2000000 points (10 x 2 x 100000); at "
                    "most 1000000 per sweep"))
        << dump(e);
    // An alias bomb in one value of a list axis is stopped before it is expanded.
    std::string bomb = "base: base.yaml\nx0: &x0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n";
    for (int i = 1; i < 8; ++i)
        bomb += "x" + std::to_string(i) + ": &x" + std::to_string(i) + " [*x" +
                std::to_string(i - 1) + ", *x" + std::to_string(i - 1) + ", *x" +
                std::to_string(i - 1) + ", *x" + std::to_string(i - 1) + ", *x" +
                std::to_string(i - 1) + ", *x" + std::to_string(i - 1) + ", *x" +
                std::to_string(i - 1) + ", *x" + std::to_string(i - 1) + ", *x" +
                std::to_string(i - 1) + ", *x" + std::to_string(i - 1) + "]\n";
    e = errors_of(bomb + "axes: {rates: [*x7]}\n");
    EXPECT_TRUE(has(e, "axes.rates: a value of more than 100000 nodes (aliases are copied)"))
        << dump(e);
}

TEST_F(SweepFileTest, UnknownKeysNameLineColumnAndSuggestion) {
    const auto e = errors_of("base: base.yaml\naxis: {a: [1]}\nslurm: {partiton: x}\n");
    ASSERT_EQ(e.size(), 2u) << dump(e);
    EXPECT_TRUE(has(e, "sweep.yaml:2:1: error: axis: unknown key \"axis\"; did you mean \"axes\"?"))
        << dump(e);
    EXPECT_TRUE(has(e,
                    "sweep.yaml:3:9: error: slurm.partiton: unknown key \"partiton\"; did you "
                    "mean \"partition\"?"))
        << dump(e);
}

TEST_F(SweepFileTest, ZipLengthMismatch) {
    const auto e = errors_of("base: base.yaml\nzip:\n  a: [1, 2, 3]\n  b: [1, 2]\n");
    ASSERT_EQ(e.size(), 1u) << dump(e);
    EXPECT_TRUE(has(e, "sweep.yaml:4:6: error: zip.b: 2 values, but zip.a has 3")) << dump(e);
}

TEST_F(SweepFileTest, EmptyAxisAndNonListAxis) {
    const auto e = errors_of("base: base.yaml\naxes:\n  a: []\n  b: 3\n");
    ASSERT_EQ(e.size(), 2u) << dump(e);
    EXPECT_TRUE(has(e, "sweep.yaml:3:6: error: axes.a: empty list")) << dump(e);
    EXPECT_TRUE(has(e, "sweep.yaml:4:6: error: axes.b: expected a list of values, got \"3\""))
        << dump(e);
}

TEST_F(SweepFileTest, MissingBaseAndMissingFile) {
    EXPECT_TRUE(has(errors_of("axes: {a: [1]}\n"), "base: missing"));
    EXPECT_TRUE(has(errors_of("base: nope.yaml\n"), "sweep.yaml:1:7: error: base: no such file"));
}

TEST_F(SweepFileTest, RandomErrors) {
    const auto e = errors_of(R"(base: base.yaml
random:
  n: 0
  seed: -1
  params:
    a: {gaussian: [0, 1]}
    b: {uniform: [2, 1]}
    c: {uniform: [1MHz, 2GHz]}
    d: {choice: []}
    e: {loguniform: [0, 1]}
    f: {int: [0.5, 3]}
)");
    EXPECT_TRUE(has(e, "sweep.yaml:3:6: error: random.n: must be at least 1")) << dump(e);
    EXPECT_TRUE(has(e, "sweep.yaml:4:9: error: random.seed: expected a non-negative integer"))
        << dump(e);
    EXPECT_TRUE(has(e, "sweep.yaml:6:9: error: random.params.a.gaussian: unknown key")) << dump(e);
    EXPECT_TRUE(has(e, "random.params.b.uniform: lo is greater than hi")) << dump(e);
    EXPECT_TRUE(has(e, "random.params.c.uniform: lo and hi need the same unit")) << dump(e);
    EXPECT_TRUE(has(e, "random.params.d.choice: expected a non-empty list")) << dump(e);
    EXPECT_TRUE(has(e, "random.params.e.loguniform: loguniform needs lo > 0")) << dump(e);
    EXPECT_TRUE(has(e, "random.params.f.int: int needs integer bounds")) << dump(e);
    EXPECT_EQ(e.size(), 8u) << dump(e);
}

TEST_F(SweepFileTest, ParameterInTwoPlaces) {
    const auto e = errors_of("base: base.yaml\nset: {a: 1}\naxes: {a: [1, 2]}\n");
    ASSERT_EQ(e.size(), 1u) << dump(e);
    EXPECT_TRUE(has(e, "sweep.yaml:3:11: error: axes.a: parameter already varied or set in `set`"))
        << dump(e);
}

TEST_F(SweepFileTest, MalformedYamlHasLine) {
    const auto e = errors_of("base: base.yaml\naxes: {a: [1, 2}\n");
    ASSERT_EQ(e.size(), 1u) << dump(e);
    EXPECT_TRUE(has(e, "sweep.yaml:2:")) << dump(e);
    EXPECT_TRUE(has(e, "malformed YAML")) << dump(e);
}

TEST_F(SweepFileTest, ExpansionMatchesNestedLoops) {
    const SweepSpec s = load_sweep(write(R"(base: base.yaml
axes: {a: [a0, a1, a2], b: [b0, b1]}
zip: {z1: [p, q], z2: [P, Q]}
random: {n: 3, seed: 5, params: {r: {int: [0, 1000000]}}}
)"));
    const auto pts = expand_points(s);
    const auto samples = draw_samples(s.random);
    ASSERT_EQ(pts.size(), 3u * 2u * 2u * 3u);
    // Reference: the documented order written as plain nested loops.
    const char* A[] = {"a0", "a1", "a2"};
    const char* B[] = {"b0", "b1"};
    const char* Z1[] = {"p", "q"};
    const char* Z2[] = {"P", "Q"};
    uint32_t id = 0;
    for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 2; ++b)
            for (int z = 0; z < 2; ++z)
                for (int r = 0; r < 3; ++r, ++id) {
                    const Point& p = pts[id];
                    EXPECT_EQ(p.id, id);
                    ASSERT_EQ(p.params.size(), 5u);
                    EXPECT_EQ(p.params[0], std::make_pair(std::string("a"), std::string(A[a])));
                    EXPECT_EQ(p.params[1], std::make_pair(std::string("b"), std::string(B[b])));
                    EXPECT_EQ(p.params[2], std::make_pair(std::string("z1"), std::string(Z1[z])));
                    EXPECT_EQ(p.params[3], std::make_pair(std::string("z2"), std::string(Z2[z])));
                    EXPECT_EQ(p.params[4], std::make_pair(std::string("r"), samples[r][0]));
                }
    // The three samples differ (a collision in 1e6 values would be a broken generator).
    EXPECT_NE(samples[0][0], samples[1][0]);
    EXPECT_NE(samples[1][0], samples[2][0]);
}

TEST_F(SweepFileTest, NoVariedParametersIsOnePoint) {
    const SweepSpec s = load_sweep(write("base: base.yaml\nset: {seed: 3}\n"));
    const auto pts = expand_points(s);
    ASSERT_EQ(pts.size(), 1u);
    EXPECT_TRUE(pts[0].params.empty());
}

TEST(SweepRandom, DeterministicPerSeedAndInRange) {
    RandomSpec r;
    r.n = 2000;
    r.seed = 7;
    Distribution u;
    u.kind = Distribution::Kind::uniform;
    u.path = "u";
    u.lo = 1e9;
    u.hi = 8e9;
    Distribution l;
    l.kind = Distribution::Kind::loguniform;
    l.path = "l";
    l.lo = 1;
    l.hi = 1000;
    l.unit = "MHz";
    Distribution i;
    i.kind = Distribution::Kind::integer;
    i.path = "i";
    i.lo = -2;
    i.hi = 2;
    Distribution c;
    c.kind = Distribution::Kind::choice;
    c.path = "c";
    c.choices = {"4", "6", "8"};
    r.params = {u, l, i, c};
    const auto a = draw_samples(r), b = draw_samples(r);
    EXPECT_EQ(a, b);
    RandomSpec r2 = r;
    r2.seed = 8;
    EXPECT_NE(draw_samples(r2), a);

    std::set<std::string> ints, choices;
    double usum = 0, below_10 = 0;
    for (const auto& row : a) {
        const double uv = std::strtod(row[0].c_str(), nullptr);
        EXPECT_GE(uv, 1e9);
        EXPECT_LE(uv, 8e9);
        usum += uv;
        ASSERT_GE(row[1].size(), 4u);
        EXPECT_EQ(row[1].substr(row[1].size() - 3), "MHz");
        const double lv = std::strtod(row[1].c_str(), nullptr);
        EXPECT_GE(lv, 1 * 0.999999);
        EXPECT_LE(lv, 1000 * 1.000001);
        below_10 += lv < 10;
        ints.insert(row[2]);
        choices.insert(row[3]);
    }
    // Mean of U(1e9, 8e9) is 4.5e9 (sd of the mean ~ 4.5e7 for 2000 samples).
    EXPECT_NEAR(usum / 2000, 4.5e9, 2.5e8);
    // Log-uniform over three decades: a third below 10.
    EXPECT_NEAR(below_10 / 2000, 1.0 / 3, 0.05);
    EXPECT_EQ(ints, (std::set<std::string>{"-2", "-1", "0", "1", "2"}));
    EXPECT_EQ(choices, (std::set<std::string>{"4", "6", "8"}));
}

TEST(SweepSlurm, ArrayRanges) {
    EXPECT_EQ(array_ranges({0, 1, 2, 3, 5, 7, 8, 9}), "0-3,5,7-9");
    EXPECT_EQ(array_ranges({4}), "4");
    EXPECT_EQ(array_ranges({}), "");
}

TEST_F(SweepFileTest, SbatchScript) {
    SweepSpec s = load_sweep(write(R"(name: my sweep
base: base.yaml
axes: {a: [1, 2, 3, 4, 5, 6]}
slurm: {partition: debug, time: "00:10:00", cpus_per_task: 2, max_parallel: 2}
)"));
    const std::string text = sbatch_script(
        s, {"/opt/nm sim/nmsim", "/x/sweep.yaml", "/out/dir", {0, 1, 2, 3, 4, 5}, false});
    auto line = [&](const std::string& l) { return text.find(l + "\n") != std::string::npos; };
    EXPECT_EQ(text.rfind("#!/bin/bash\n", 0), 0u);
    EXPECT_TRUE(line("#SBATCH --job-name=nmsim-sweep-my_sweep")) << text;
    EXPECT_TRUE(line("#SBATCH --array=0-5%2")) << text;
    EXPECT_TRUE(line("#SBATCH --output=/out/dir/slurm/%A_%a.out")) << text;
    EXPECT_TRUE(line("#SBATCH --chdir=/out/dir/points")) << text;
    EXPECT_TRUE(line("#SBATCH --cpus-per-task=2")) << text;
    EXPECT_TRUE(line("#SBATCH --partition=debug")) << text;
    EXPECT_TRUE(line("#SBATCH --time=00:10:00")) << text;
    EXPECT_TRUE(
        line("exec '/opt/nm sim/nmsim' sweep '/x/sweep.yaml' --point "
             "\"$SLURM_ARRAY_TASK_ID\" -o '/out/dir'"))
        << text;
    // Resubmission of a partly finished sweep: only the remaining ids, no throttle if unset.
    s.slurm = SlurmOptions{};
    const std::string t2 = sbatch_script(s, {"/b/nmsim", "/x/s.yaml", "/o", {1, 2, 5}, true});
    EXPECT_NE(t2.find("#SBATCH --array=1-2,5\n"), std::string::npos) << t2;
    EXPECT_EQ(t2.find("--partition"), std::string::npos) << t2;
    EXPECT_NE(t2.find(" --retry-failed\n"), std::string::npos) << t2;
}

TEST(SweepSlurm, MissingSbatchIsNamed) {
    try {
        submit("/nonexistent.sbatch", "/tmp", "nmsim-test-no-such-sbatch");
        FAIL() << "no exception";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("nmsim-test-no-such-sbatch"), std::string::npos)
            << e.what();
        EXPECT_NE(std::string(e.what()).find("not in PATH"), std::string::npos) << e.what();
    }
}

TEST(SweepResults, CsvQuotingAndManifest) {
    EXPECT_EQ(csv_field("a"), "a");
    EXPECT_EQ(csv_field("out of range [8, 48]"), "\"out of range [8, 48]\"");
    EXPECT_EQ(csv_field("say \"x\""), "\"say \"\"x\"\"\"");
    std::vector<Point> pts = {{0, {{"a", "1"}, {"b", "[1, 2]"}}}, {1, {{"a", "2"}, {"b", "x"}}}};
    EXPECT_EQ(manifest_text(pts, {"a", "b"}), "point,param:a,param:b\n0,1,\"[1, 2]\"\n1,2,x\n");
}
