// End-to-end tests of the `nmsim` command line: the real binary runs as a subprocess in a fresh
// temporary directory, and each test checks its exit status, its report and error messages, and
// the trace file it wrote (read back with the HDF5 C API, or with `nmsim-trace summary`).
// Exit status contract: 0 success, 1 the simulation or a check failed, 2 bad input.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/cli_fixture.h"

namespace nmsim::test {
namespace {

namespace fs = std::filesystem;

const std::string kTraceCli = NMSIM_BINARY_DIR "/bin/nmsim-trace";
const std::string kData = NMSIM_SOURCE_DIR "/tests/scenarios/data/";
const std::string kDefault = kScenarios + "s2_pe_matmul.yaml";

// --- reading traces back (HDF5 C API) -------------------------------------------------------

// Every dataset of fixed-size type below `group`, as raw bytes in the file's own type.
void read_tables(hid_t file, const std::string& group,
                 std::map<std::string, std::vector<uint8_t>>& out) {
    const hid_t g = H5Gopen2(file, group.c_str(), H5P_DEFAULT);
    ASSERT_GE(g, 0) << group;
    H5G_info_t info;
    ASSERT_GE(H5Gget_info(g, &info), 0) << group;
    for (hsize_t i = 0; i < info.nlinks; ++i) {
        char name[256];
        H5Lget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, i, name, sizeof name, H5P_DEFAULT);
        const hid_t d = H5Oopen(g, name, H5P_DEFAULT);
        if (H5Iget_type(d) != H5I_DATASET) {
            H5Oclose(d);
            continue;
        }
        const hid_t t = H5Dget_type(d);
        const hid_t s = H5Dget_space(d);
        const auto rows = static_cast<size_t>(H5Sget_simple_extent_npoints(s));
        std::vector<uint8_t> bytes(rows * H5Tget_size(t));
        if (!bytes.empty()) {
            EXPECT_GE(H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, bytes.data()), 0) << name;
        }
        out[group + "/" + name] = std::move(bytes);
        H5Sclose(s);
        H5Tclose(t);
        H5Oclose(d);
    }
    H5Gclose(g);
}

struct TraceContent {
    bool opened = false;
    std::map<std::string, std::vector<uint8_t>> tables;  // events/*, summary/*, lut/*
    std::string resolved;                                // /config/resolved
    std::string status, message;                         // /run
    uint64_t sim_time_ps = 0;
    uint64_t seed = 0;
    std::map<std::string, std::string> attrs;  // root attributes, as text
};

std::string read_vlen_string(hid_t file, const char* path) {
    const hid_t d = H5Dopen2(file, path, H5P_DEFAULT);
    if (d < 0) return "<missing " + std::string(path) + ">";
    const hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    char* s = nullptr;
    std::string v;
    if (H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, &s) >= 0 && s) v = s;
    H5free_memory(s);
    H5Tclose(t);
    H5Dclose(d);
    return v;
}

// A string attribute (variable or fixed length) as it is, an integer one in decimal.
herr_t collect_attr(hid_t loc, const char* name, const H5A_info_t*, void* data) {
    auto& out = *static_cast<std::map<std::string, std::string>*>(data);
    const hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
    const hid_t t = H5Aget_type(a);
    std::string v = "<unreadable>";
    if (H5Tget_class(t) == H5T_STRING && H5Tis_variable_str(t) > 0) {
        char* s = nullptr;
        if (H5Aread(a, t, &s) >= 0 && s) v = s;
        H5free_memory(s);
    } else if (H5Tget_class(t) == H5T_STRING) {
        std::vector<char> buf(H5Tget_size(t));
        if (H5Aread(a, t, buf.data()) >= 0) v.assign(buf.data(), strnlen(buf.data(), buf.size()));
    } else if (H5Tget_class(t) == H5T_INTEGER) {
        uint64_t x = 0;
        if (H5Aread(a, H5T_NATIVE_UINT64, &x) >= 0) v = std::to_string(x);
    }
    out[name] = v;
    H5Tclose(t);
    H5Aclose(a);
    return 0;
}

TraceContent read_trace(const fs::path& path) {
    TraceContent c;
    const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) return c;
    c.opened = true;
    for (const char* g : {"events", "summary", "lut"}) read_tables(f, g, c.tables);
    c.resolved = read_vlen_string(f, "config/resolved");

    // /run: read the fields we need by name (a partial compound read).
    struct RunRow {
        char status[16];
        char message[1024];
        uint64_t sim_time_ps;
    };
    auto fixed_utf8 = [](size_t n) {
        const hid_t t = H5Tcopy(H5T_C_S1);
        H5Tset_size(t, n);
        H5Tset_cset(t, H5T_CSET_UTF8);
        H5Tset_strpad(t, H5T_STR_NULLPAD);
        return t;
    };
    const hid_t s16 = fixed_utf8(16), s1024 = fixed_utf8(1024);
    const hid_t rt = H5Tcreate(H5T_COMPOUND, sizeof(RunRow));
    H5Tinsert(rt, "status", HOFFSET(RunRow, status), s16);
    H5Tinsert(rt, "message", HOFFSET(RunRow, message), s1024);
    H5Tinsert(rt, "sim_time_ps", HOFFSET(RunRow, sim_time_ps), H5T_NATIVE_UINT64);
    const hid_t d = H5Dopen2(f, "run", H5P_DEFAULT);
    const hid_t sp = H5Dget_space(d);
    if (H5Sget_simple_extent_npoints(sp) == 1) {
        RunRow row{};
        if (H5Dread(d, rt, H5S_ALL, H5S_ALL, H5P_DEFAULT, &row) >= 0) {
            c.status.assign(row.status, strnlen(row.status, sizeof row.status));
            c.message.assign(row.message, strnlen(row.message, sizeof row.message));
            c.sim_time_ps = row.sim_time_ps;
        }
    }
    H5Sclose(sp);
    H5Dclose(d);
    H5Tclose(rt);
    H5Tclose(s1024);
    H5Tclose(s16);

    H5Aiterate2(f, H5_INDEX_NAME, H5_ITER_INC, nullptr, collect_attr, &c.attrs);
    if (c.attrs.count("seed")) c.seed = std::stoull(c.attrs.at("seed"));
    H5Fclose(f);
    return c;
}

// --- the fixture: one temporary working directory per test (tests/support/cli_fixture.h) -----

using Cli = CliTest;

// --- the example scenarios -----------------------------------------------------------------

TEST_F(Cli, DefaultScenarioPasses) {
    const Proc p = nmsim({"run", kDefault, "-o", "t.h5"});
    ASSERT_EQ(p.rc, 0) << show(p);
    EXPECT_TRUE(contains(p.out, "result           OK")) << show(p);
    EXPECT_TRUE(
        contains(p.out, "check            PASS y = mla_matmul(x, w, b): 64 values bit-exact"))
        << show(p);
    EXPECT_TRUE(contains(p.out, "mla_fc: M=1 K=784 N=64 relu=1 wfi=1")) << show(p);  // console echo
    EXPECT_EQ(p.err, "");
    EXPECT_GT(simulated_us(p.out), 0.0) << show(p);
    const TraceContent t = read_trace(m_dir / "t.h5");
    ASSERT_TRUE(t.opened);
    EXPECT_EQ(t.status, "ok");
}

TEST_F(Cli, QuietRunWritesTheScenarioTraceInTheWorkingDirectory) {
    // -q drops the report and the firmware's console echo; the trace still gets both.
    const Proc p = nmsim({"run", kDefault, "-q"});
    ASSERT_EQ(p.rc, 0) << show(p);
    EXPECT_EQ(p.out, "") << show(p);
    EXPECT_EQ(p.err, "");
    EXPECT_TRUE(fs::exists(m_dir / "s2_pe_matmul.h5"));
    EXPECT_EQ(read_trace(m_dir / "s2_pe_matmul.h5").status, "ok");
    // trace.console_stdout=false alone drops only the echo, not the report.
    const Proc no_echo =
        nmsim({"run", kDefault, "-o", "silent.h5", "--set", "trace.console_stdout=false"});
    ASSERT_EQ(no_echo.rc, 0) << show(no_echo);
    EXPECT_TRUE(contains(no_echo.out, "result           OK")) << show(no_echo);
    EXPECT_FALSE(contains(no_echo.out, "mla_fc: M=1")) << show(no_echo);
    EXPECT_EQ(read_trace(m_dir / "silent.h5").status, "ok");
}

TEST_F(Cli, SoftmaxScenarioPasses) {
    const Proc p = nmsim({"run", kScenarios + "s2_pe_softmax.yaml", "-o", "t.h5"});
    ASSERT_EQ(p.rc, 0) << show(p);
    EXPECT_TRUE(contains(p.out, "result           OK")) << show(p);
    EXPECT_TRUE(contains(p.out, "check            PASS y ~ softmax(x)")) << show(p);
    EXPECT_TRUE(contains(p.out, "softmax_exp: n=64 iterations=16")) << show(p);
    EXPECT_EQ(p.err, "");
    EXPECT_LT(simulated_us(p.out), 1000.0) << show(p);
}

TEST_F(Cli, SoftmaxCheckCatchesALessPreciseExponential) {
    // 3 EXP iterations leave errors far above the scenario's atol: the allclose check must see it.
    const Proc p = nmsim({"run", kScenarios + "s2_pe_softmax.yaml", "-o", "t.h5", "--set",
                          "workload.pe.cores.0.args.iterations=3"});
    EXPECT_EQ(p.rc, 1) << show(p);
    EXPECT_TRUE(contains(p.out, "check            FAIL y ~ softmax(x)")) << show(p);
    EXPECT_TRUE(contains(p.err, "check failed")) << show(p);
}

TEST_F(Cli, DmaScenarioPasses) {
    const Proc p = nmsim({"run", kScenarios + "s2_pe_dma.yaml", "-o", "t.h5"});
    ASSERT_EQ(p.rc, 0) << show(p);
    EXPECT_TRUE(contains(p.out, "result           OK")) << show(p);
    EXPECT_TRUE(contains(p.out, "check            PASS remote == src: 4096 bytes equal"))
        << show(p);
    EXPECT_TRUE(contains(p.out, "check            PASS back == src: 4096 bytes equal")) << show(p);
    EXPECT_TRUE(contains(p.out, "dma_copy: ok len=4096")) << show(p);
    EXPECT_TRUE(contains(p.out, "wait=irq irqs=2")) << show(p);
    EXPECT_TRUE(contains(p.out, "2 transfers  8,192 B")) << show(p);
    EXPECT_EQ(p.err, "");
}

TEST_F(Cli, InterruptsScenarioPasses) {
    const Proc p = nmsim({"run", kScenarios + "s2_pe_interrupts.yaml", "-o", "t.h5"});
    ASSERT_EQ(p.rc, 0) << show(p);
    EXPECT_TRUE(contains(p.out, "result           OK")) << show(p);
    EXPECT_TRUE(contains(p.out, "irq_timer: PASS")) << show(p);
    EXPECT_TRUE(contains(p.out, "core      exit 0")) << show(p);
    EXPECT_FALSE(contains(p.out, "check   ")) << show(p);  // no host-side check
    EXPECT_EQ(p.err, "");
}

TEST_F(Cli, InterruptsScenarioFailsWhenTheFirmwareDoes) {
    // Out-of-range arguments: the firmware returns 3; its exit status is the scenario's check.
    const Proc p = nmsim({"run", kScenarios + "s2_pe_interrupts.yaml", "-o", "t.h5", "--set",
                          "workload.pe.cores.0.args.ticks=17"});
    EXPECT_EQ(p.rc, 1) << show(p);
    EXPECT_TRUE(contains(p.err, "firmware exited with status 3")) << show(p);
    EXPECT_TRUE(contains(p.out, "result           FAILED")) << show(p);
}

TEST_F(Cli, FaultScenarioReportsTheFaultAndWritesAnErrorTrace) {
    const Proc p = nmsim({"run", kScenarios + "s2_pe_fault.yaml", "-o", "fault.h5"});
    EXPECT_EQ(p.rc, 1) << show(p);
    EXPECT_TRUE(contains(p.err, "pc 0x")) << show(p);
    EXPECT_TRUE(contains(p.err, "<main+")) << show(p);
    EXPECT_TRUE(contains(p.err, "address 0xe3000004")) << show(p);
    EXPECT_TRUE(contains(p.err, "read-only")) << show(p);
    EXPECT_TRUE(contains(p.out, "result           FAILED")) << show(p);
    EXPECT_TRUE(contains(p.out, "checks           not run")) << show(p);

    ASSERT_TRUE(fs::exists(m_dir / "fault.h5"));
    const TraceContent t = read_trace(m_dir / "fault.h5");
    ASSERT_TRUE(t.opened);
    EXPECT_EQ(t.status, "error");
    EXPECT_TRUE(contains(t.message, "address 0xe3000004")) << t.message;
    // One fault row whose address column is the register (FaultRecord: t_ps u64, pc u32, address
    // u32).
    ASSERT_TRUE(t.tables.count("events/faults"));
    const auto& rows = t.tables.at("events/faults");
    ASSERT_GE(rows.size(), 16u);
    uint32_t addr = 0;
    std::memcpy(&addr, rows.data() + 12, 4);
    EXPECT_EQ(addr, 0xE3000004u);

    const Proc s = run_tool(kTraceCli, {"summary", "fault.h5"});
    EXPECT_EQ(s.rc, 0) << show(s);
    EXPECT_TRUE(contains(s.out, "status     error")) << show(s);
}

// --- bad input: exit 2, file:line:col and the key --------------------------------------------

TEST_F(Cli, MalformedYaml) {
    const Proc p = nmsim({"run", kData + "malformed.yaml"});
    EXPECT_EQ(p.rc, 2) << show(p);
    EXPECT_TRUE(contains(p.err, "malformed.yaml:7:")) << show(p);
    EXPECT_TRUE(contains(p.err, "malformed YAML")) << show(p);
    EXPECT_EQ(p.out, "");
}

TEST_F(Cli, UnknownTopLevelKeySuggestsTheClosest) {
    const Proc p = nmsim({"run", kData + "unknown_top_key.yaml"});
    EXPECT_EQ(p.rc, 2) << show(p);
    EXPECT_TRUE(contains(p.err,
                         "unknown_top_key.yaml:4:1: error: worklod: unknown key \"worklod\"; did "
                         "you mean \"workload\"?"))
        << show(p);
    EXPECT_FALSE(contains(p.err, "workload: missing"))
        << "a misspelt required key is reported once\n"
        << show(p);
}

TEST_F(Cli, UnknownNestedKeySuggestsTheClosest) {
    const Proc p = nmsim({"run", kData + "unknown_nested_key.yaml"});
    EXPECT_EQ(p.rc, 2) << show(p);
    EXPECT_TRUE(contains(
        p.err,
        "unknown_nested_key.yaml:7:11: error: workload.pe.buffers.x.dtpye: unknown key \"dtpye\"; "
        "did you mean \"dtype\"?"))
        << show(p);
}

TEST_F(Cli, WrongTypeNamesTheKeyAndWhatWasExpected) {
    const Proc p = nmsim({"run", kData + "wrong_type.yaml"});
    EXPECT_EQ(p.rc, 2) << show(p);
    EXPECT_TRUE(contains(
        p.err,
        "wrong_type.yaml:7:31: error: workload.pe.buffers.x.shape: expected a non-empty list of "
        "positive integers"))
        << show(p);
    EXPECT_TRUE(contains(p.err, "abc")) << show(p);
}

TEST_F(Cli, MissingFirmwareFileIsNamed) {
    const Proc p = nmsim({"run", kData + "missing_firmware.yaml"});
    EXPECT_EQ(p.rc, 2) << show(p);
    EXPECT_TRUE(contains(p.err, "missing_firmware.yaml:7:19: error: workload.pe.cores.0.firmware:"))
        << show(p);
    EXPECT_TRUE(contains(p.err, kData + "fw/no_such_program.elf")) << show(p);
}

// --- the command line itself: exit 2 with a plain message --------------------------------------

TEST_F(Cli, UnknownCommandAndOptionSuggestTheClosest) {
    Proc p = nmsim({"runn", kDefault});
    EXPECT_EQ(p.rc, 2) << show(p);
    EXPECT_TRUE(contains(p.err,
                         "unknown command \"runn\" (did you mean \"run\"?); commands: "
                         "run, compile, params, exec, bench, sweep"))
        << show(p);
    p = nmsim({"run", kDefault, "--sett", "seed=2"});
    EXPECT_EQ(p.rc, 2) << show(p);
    EXPECT_TRUE(contains(p.err, "nmsim run: unknown option --sett (did you mean --set?)"))
        << show(p);
    p = nmsim({"bench", "--platfrom", "all"});
    EXPECT_EQ(p.rc, 2) << show(p);
    EXPECT_TRUE(contains(p.err, "unknown option --platfrom (did you mean --platform?)")) << show(p);
}

TEST_F(Cli, TraceFileNeedsAnH5NameAndAWritableDirectory) {
    Proc p = nmsim({"run", kDefault, "-o", "t.txt"});
    EXPECT_EQ(p.rc, 2) << show(p);
    EXPECT_TRUE(contains(p.err, "-o t.txt: a trace is an HDF5 file; give a name ending in .h5"))
        << show(p);
    p = nmsim({"run", kDefault, "-o", "no/such/dir/t.h5"});
    EXPECT_EQ(p.rc, 2) << show(p);
    EXPECT_TRUE(contains(p.err, "cannot write the trace no/such/dir/t.h5: the directory "))
        << show(p);
    EXPECT_TRUE(contains(p.err, "no/such/dir does not exist")) << show(p);
}

TEST_F(Cli, ParamsPlatformMustMatchTheScenario) {
    Proc p = nmsim({"params", "brainscales2", "--scenario", kDefault});
    EXPECT_EQ(p.rc, 2) << show(p);
    EXPECT_TRUE(contains(p.err, "is a spinnaker2_pe scenario, not brainscales2")) << show(p);
    p = nmsim({"params", "--scenario", kDefault});  // the scenario names its platform
    EXPECT_EQ(p.rc, 0) << show(p);
    EXPECT_TRUE(contains(p.out, "pe.perf_level = 1")) << show(p);
}

TEST_F(Cli, BandwidthTakesUnits) {
    Proc p = nmsim({"run", kDefault, "-q", "-o", "t.h5", "--set", "ext.bandwidth=3.2e9"});
    EXPECT_EQ(p.rc, 2) << show(p);
    EXPECT_TRUE(contains(p.err,
                         "ext.bandwidth: expected Bandwidth, got \"3.2e9\" (missing unit; "
                         "did you mean \"3.2e9B/s\"?)"))
        << show(p);
    p = nmsim({"run", kDefault, "-q", "-o", "t.h5", "--set", "ext.bandwidth=25.6Gbit/s"});
    EXPECT_EQ(p.rc, 0) << show(p);
}

TEST_F(Cli, SweepJobsMustBePositive) {
    for (const char* j : {"0", "-3"}) {
        const Proc p =
            nmsim({"sweep", kScenarios + "sweeps/mlp_perf_level.yaml", "--dry-run", "-j", j});
        EXPECT_EQ(p.rc, 2) << show(p);
        EXPECT_TRUE(contains(p.err, "--jobs: Value " + std::string(j) + " not in range 1 to 4096"))
            << show(p);
    }
}

// --- nmsim compile --explain ------------------------------------------------------------------

TEST_F(Cli, CompileExplainPrintsTilingEstimateAndWhy) {
    const Proc p = nmsim({"compile", "--explain", kScenarios + "s2_cnn_fmnist.yaml"});
    EXPECT_EQ(p.rc, 0) << show(p);
    EXPECT_TRUE(contains(p.out, "/0/Conv (conv2d [1, 8, 28, 28]): ")) << show(p);
    EXPECT_TRUE(contains(p.out, "    estimate ")) << show(p);
    EXPECT_TRUE(contains(p.out, " + DMA out ")) << show(p);
    EXPECT_TRUE(contains(p.out, "    by worker count 1 ")) << show(p);
    EXPECT_TRUE(contains(p.out, "    why: lowest estimate of 8 worker counts; next best "))
        << show(p);
    // The MLP scenario pins seed 000's counts.
    const Proc m = nmsim({"compile", "--explain", "--csv", kScenarios + "s2_mlp_fmnist.yaml"});
    EXPECT_EQ(m.rc, 0) << show(m);
    EXPECT_TRUE(contains(m.out, "\n/2/Gemm,linear,4,64,1,64,")) << show(m);
}

TEST_F(Cli, CompileExplainErrorsNameFileLineAndKey) {
    Proc p = nmsim({"compile", "--explain", kDefault});
    EXPECT_EQ(p.rc, 2) << show(p);
    EXPECT_TRUE(contains(p.err,
                         "s2_pe_matmul.yaml: workload: kind \"pe\"; compile --explain "
                         "needs a dnn workload"))
        << show(p);
    {
        std::ifstream in(kScenarios + "s2_mlp_fmnist.yaml");
        std::stringstream text;
        text << in.rdbuf();
        std::string y = text.str();
        y.replace(y.find("[8, 4, 1, 1]"), 12, "[8, 4, 1, 3]");
        for (size_t at = y.find(" models/"); at != std::string::npos; at = y.find(" models/", at))
            y.replace(at, 1, " " + kScenarios);
        std::ofstream(m_dir / "pins.yaml") << y;
    }
    p = nmsim({"compile", "--explain", "pins.yaml"});
    EXPECT_EQ(p.rc, 2) << show(p);
    EXPECT_TRUE(std::regex_search(p.err, std::regex("pins\\.yaml:[0-9]+:[0-9]+: error: "
                                                    "workload\\.dnn\\.layer_workers: entry 3: ")))
        << show(p);
    EXPECT_TRUE(contains(p.err,
                         "layer '/5/Softmax' (softmax [1, 16]): 3 workers asked, it has "
                         "1 output to share"))
        << show(p);
}

TEST_F(Cli, MissingScenarioFile) {
    const Proc p = nmsim({"run", "no_such_scenario.yaml"});
    EXPECT_EQ(p.rc, 2) << show(p);
    EXPECT_TRUE(contains(p.err, "no_such_scenario.yaml")) << show(p);
    EXPECT_TRUE(contains(p.err, "no such file")) << show(p);
    EXPECT_FALSE(fs::exists(m_dir / "no_such_scenario.h5"));
}

TEST_F(Cli, UnknownParameterViaSetSuggestsTheClosest) {
    const Proc p = nmsim({"run", kDefault, "--set", "pe.mla.acc_bit=24"});
    EXPECT_EQ(p.rc, 2) << show(p);
    EXPECT_TRUE(contains(p.err, "--set: error: pe.mla.acc_bit: unknown parameter")) << show(p);
    EXPECT_TRUE(contains(p.err, "did you mean \"pe.mla.acc_bits\"?")) << show(p);
    EXPECT_FALSE(fs::exists(m_dir / "s2_pe_matmul.h5")) << "nothing is simulated on bad input";
}

TEST_F(Cli, UnknownParameterInTheFileNamesLineAndColumn) {
    const Proc p = nmsim({"run", kData + "unknown_param.yaml"});
    EXPECT_EQ(p.rc, 2) << show(p);
    EXPECT_TRUE(
        contains(p.err, "unknown_param.yaml:5:21: error: pe.mla.acc_bit: unknown parameter"))
        << show(p);
    EXPECT_TRUE(contains(p.err, "did you mean \"pe.mla.acc_bits\"?")) << show(p);
}

TEST_F(Cli, ParameterValueOutOfRange) {
    const Proc p = nmsim({"run", kDefault, "--set", "pe.mla.acc_bits=99"});
    EXPECT_EQ(p.rc, 2) << show(p);
    EXPECT_TRUE(contains(p.err, "--set: error: pe.mla.acc_bits:")) << show(p);
    EXPECT_TRUE(contains(p.err, "99")) << show(p);
    EXPECT_TRUE(contains(p.err, "range")) << show(p);
}

TEST_F(Cli, ParameterValueWithoutUnit) {
    const Proc p = nmsim({"run", kDefault, "--set", "pe.core.quantum=10"});
    EXPECT_EQ(p.rc, 2) << show(p);
    EXPECT_TRUE(contains(p.err, "--set: error: pe.core.quantum:")) << show(p);
    EXPECT_TRUE(contains(p.err, "missing unit")) << show(p);
}

TEST_F(Cli, BufferLargerThanSram) {
    const Proc p = nmsim({"run", kData + "sram_overflow.yaml"});
    EXPECT_EQ(p.rc, 2) << show(p);
    EXPECT_TRUE(contains(p.err, "sram_overflow.yaml:7:")) << show(p);
    EXPECT_TRUE(contains(p.err, "workload.pe.buffers.big: does not fit pe0 SRAM: needs 262144 B"))
        << show(p);
}

// A BrainScaleS-2 network file out of the chip's range: exit 2 at load, naming file:line:col and
// the key (before: tau_mem 1e-30 failed during the run with exit 1 and no location).
TEST_F(Cli, Bss2NeuronParameterOutOfRangeNamesFileLineAndKey) {
    std::ofstream(m_dir / "net.yaml") << "populations:\n"
                                         "  - {name: in, kind: external, size: 8}\n"
                                         "  - name: exc\n"
                                         "    kind: internal\n"
                                         "    size: 4\n"
                                         "    neuron:\n"
                                         "      tau_mem: 1e-30\n"
                                         "projections:\n"
                                         "  - {name: p, source: in, target: exc, connector: "
                                         "all_to_all, weight: 16}\n";
    std::ofstream(m_dir / "sc.yaml") << "name: bad_neuron\nplatform: {kind: brainscales2}\n"
                                        "workload:\n  bss2:\n    network: net.yaml\n"
                                        "    runtime_us: 50\n    runs:\n      - inputs:\n"
                                        "          - {population: in, kind: regular, rate_hz: "
                                        "20000}\n";
    const Proc p = nmsim({"run", "sc.yaml", "-q"});
    EXPECT_EQ(p.rc, 2) << show(p);
    EXPECT_EQ(p.err, "nmsim: error: " + (m_dir / "net.yaml").string() +
                         ":7:16: populations[1].neuron.tau_mem: 1e-30 outside 0.5..60 us (calix's "
                         "calibratable range, hardware_facts.md B1)\n")
        << show(p);
    EXPECT_EQ(p.out, "");
}

// Connections of weight 0 (all_to_all, list entries, dense zeros) run and deliver nothing: the
// report equals the run of the same network without them (before: "refers to synapse
// 18446744073709551615", exit 2).
TEST_F(Cli, Bss2WeightZeroConnectionsRunAndDeliverNothing) {
    const std::string pops =
        "populations:\n"
        "  - {name: in, kind: external, size: 8}\n"
        "  - {name: quiet, kind: external, size: 4}\n"
        "  - {name: exc, kind: internal, size: 4}\n"
        "projections:\n"
        "  - {name: drive, source: in, target: exc, connector: all_to_all, "
        "weight: 63}\n";
    std::ofstream(m_dir / "plain.yaml") << pops;
    std::ofstream(m_dir / "zero.yaml")
        << pops
        << "  - {name: z_all, source: quiet, target: exc, connector: all_to_all, weight: 0}\n"
           "  - {name: z_list, source: in, target: exc, connector: list, connections: [[0, 1, 0], "
           "[5, 3, 0]]}\n"
           "  - {name: z_dense, source: exc, target: exc, receptor: inhibitory, connector: dense, "
           "matrix: [[0, 0], [0, 0]]}\n"
           "  - {name: z_prob, source: exc, target: exc, connector: fixed_probability, "
           "probability: 0.5, weight: 0}\n";
    for (const char* net : {"plain", "zero"})
        std::ofstream(m_dir / (std::string(net) + ".sc.yaml"))
            << "name: w0_" << net
            << "\nplatform: {kind: brainscales2}\nseed: 3\nworkload:\n  bss2:\n    network: " << net
            << ".yaml\n    runtime_us: 200\n    runs:\n      - inputs:\n"
               "          - {population: in, kind: poisson, rate_hz: 100000}\n"
               "          - {population: quiet, kind: poisson, rate_hz: 100000}\n";
    const Proc plain = nmsim({"run", "plain.sc.yaml"});
    const Proc zero = nmsim({"run", "zero.sc.yaml"});
    ASSERT_EQ(plain.rc, 0) << show(plain);
    ASSERT_EQ(zero.rc, 0) << show(zero);
    // Every line but the scenario and network names, the trace path and the wall time.
    auto body = [](const std::string& report) {
        std::istringstream in(report);
        std::string line, out;
        while (std::getline(in, line))
            if (!contains(line, "scenario w0_") && !contains(line, "  network ") &&
                !contains(line, "  trace ") && !contains(line, "  wall time "))
                out += line + "\n";
        return out;
    };
    EXPECT_EQ(body(zero.out), body(plain.out)) << show(zero);
    EXPECT_TRUE(contains(zero.out, "3 populations (4 on-chip neurons), 5 projections"))
        << show(zero);
    std::smatch m;
    const std::string out = zero.out;
    ASSERT_TRUE(std::regex_search(out, m, std::regex(R"(spikes\s+(\d+) injected, (\d+) emitted)")))
        << show(zero);
    EXPECT_GT(std::stoul(m[1].str()), 0u);
    EXPECT_GT(std::stoul(m[2].str()), 0u) << "weight 63 from 8 inputs at 100 kHz makes exc fire";
}

// --- failing runs: exit 1 --------------------------------------------------------------------

TEST_F(Cli, TimeoutCutsTheRunShort) {
    // The default scenario needs tens of microseconds; 2 us cannot finish it.
    const Proc p = nmsim({"run", kDefault, "-o", "t.h5", "--set", "sim.max_time=2us"});
    EXPECT_EQ(p.rc, 1) << show(p);
    EXPECT_TRUE(contains(p.err, "timeout")) << show(p);
    EXPECT_TRUE(contains(p.err, "did not exit within sim.max_time")) << show(p);
    EXPECT_NEAR(simulated_us(p.out), 2.0, 1e-3) << show(p);
    const TraceContent t = read_trace(m_dir / "t.h5");
    ASSERT_TRUE(t.opened);
    EXPECT_EQ(t.status, "error");
    EXPECT_EQ(t.sim_time_ps, 2000000u);
}

TEST_F(Cli, FailingCheckReportsTheDifference) {
    // The firmware shifts by 10, the reference (in the scenario's check) by 11.
    const Proc p =
        nmsim({"run", kDefault, "-o", "t.h5", "--set", "workload.pe.cores.0.args.shift=10"});
    EXPECT_EQ(p.rc, 1) << show(p);
    EXPECT_TRUE(contains(p.out, "check            FAIL y = mla_matmul(x, w, b)")) << show(p);
    EXPECT_TRUE(contains(p.out, "values differ")) << show(p);
    EXPECT_TRUE(contains(p.err, "check failed")) << show(p);
    EXPECT_TRUE(contains(p.out, "result           FAILED")) << show(p);
    const TraceContent t = read_trace(m_dir / "t.h5");
    EXPECT_EQ(t.status, "error");
}

// --- bounded resources: the ISS under an address-space limit (issue 12) ----------------------
// Each running core reserves pe.core.translation_buffer of address space for translated code
// (Unicorn 2.0.1 would reserve 1 GiB: 9 GiB for the MLP's nine cores). Sanitizer builds reserve
// terabytes of shadow memory, so an address-space limit cannot apply to them.

#ifndef NMSIM_SANITIZE
TEST_F(Cli, MlpRunsUnderAnEightGigabyteAddressSpaceLimit) {
    const Proc p = run_tool(kNmsim, {"run", kScenarios + "s2_mlp_fmnist.yaml", "-o", "t.h5"},
                            "ulimit -v 8000000");
    ASSERT_EQ(p.rc, 0) << show(p);
    EXPECT_TRUE(contains(p.out, "result           OK")) << show(p);
}

TEST_F(Cli, TranslationBufferThatDoesNotFitIsAnErrorNamingTheCore) {
    const Proc p = run_tool(kNmsim,
                            {"run", kScenarios + "s2_mlp_fmnist.yaml", "-o", "t.h5", "--set",
                             "pe.core.translation_buffer=1GiB"},
                            "ulimit -v 3000000");
    EXPECT_EQ(p.rc, 1) << show(p);
    const std::regex what(
        R"(s2\.pe[0-9]+\.core: cannot create the instruction-set simulator: its translation )"
        R"(buffer \(1024 MiB, pe\.core\.translation_buffer\) does not fit in the address space)");
    EXPECT_TRUE(std::regex_search(p.err, what)) << show(p);
    EXPECT_EQ(read_trace(m_dir / "t.h5").status, "error") << show(p);
}
#endif

// --- determinism ---------------------------------------------------------------------------

TEST_F(Cli, SameSeedGivesIdenticalTracesAndAnotherSeedOtherData) {
    // The same command line twice (the trace records argv), keeping the first trace aside.
    const Proc a = nmsim({"run", kDefault, "-o", "run.h5", "-q"});
    ASSERT_EQ(a.rc, 0) << show(a);
    fs::rename(m_dir / "run.h5", m_dir / "first.h5");
    const Proc b = nmsim({"run", kDefault, "-o", "run.h5", "-q"});
    ASSERT_EQ(b.rc, 0) << show(b);
    const Proc c = nmsim({"run", kDefault, "-o", "seed2.h5", "--set", "seed=2"});
    ASSERT_EQ(c.rc, 0) << show(c);  // another seed: the check still passes
    EXPECT_TRUE(contains(c.out, "check            PASS")) << show(c);

    const TraceContent ta = read_trace(m_dir / "first.h5"), tb = read_trace(m_dir / "run.h5"),
                       tc = read_trace(m_dir / "seed2.h5");
    ASSERT_TRUE(ta.opened && tb.opened && tc.opened);
    // Everything but wall time and creation time: tables, counters, config, outcome, attributes.
    ASSERT_TRUE(ta.tables.count("events/mla_ops"));
    EXPECT_FALSE(ta.tables.at("events/mla_ops").empty());
    ASSERT_TRUE(ta.tables.count("summary/counters"));
    EXPECT_FALSE(ta.tables.at("summary/counters").empty());
    EXPECT_EQ(ta.tables.size(), tb.tables.size());
    for (const auto& [name, bytes] : ta.tables) {
        ASSERT_TRUE(tb.tables.count(name)) << name;
        EXPECT_TRUE(bytes == tb.tables.at(name))
            << name << " differs between two runs with the same seed";
    }
    EXPECT_EQ(ta.resolved, tb.resolved);
    EXPECT_EQ(ta.status, tb.status);
    EXPECT_EQ(ta.message, tb.message);
    EXPECT_EQ(ta.sim_time_ps, tb.sim_time_ps);
    auto attrs_a = ta.attrs, attrs_b = tb.attrs;
    EXPECT_TRUE(attrs_a.count("created_utc") && attrs_a.count("argv"));
    attrs_a.erase("created_utc");
    attrs_b.erase("created_utc");
    EXPECT_EQ(attrs_a, attrs_b);
    EXPECT_EQ(ta.seed, 1u);
    EXPECT_EQ(tc.seed, 2u);
    EXPECT_TRUE(contains(tc.resolved, "seed: 2")) << tc.resolved;

    // Other data with another seed: the firmware never prints its data, so make the data visible
    // through a deliberately wrong shift, whose mismatch report quotes the first differing value.
    auto mismatch = [&](const std::string& seed) {
        const Proc p = nmsim({"run", kDefault, "-o", "m.h5", "--set",
                              "workload.pe.cores.0.args.shift=10", "--set", "seed=" + seed});
        EXPECT_EQ(p.rc, 1) << show(p);
        const auto at = p.out.find("values differ");
        return at == std::string::npos ? std::string() : p.out.substr(at);
    };
    const std::string m1 = mismatch("1"), m1_again = mismatch("1"), m2 = mismatch("2");
    EXPECT_FALSE(m1.empty());
    EXPECT_EQ(m1.substr(0, m1.find('\n')), m1_again.substr(0, m1_again.find('\n')));
    EXPECT_NE(m1.substr(0, m1.find('\n')), m2.substr(0, m2.find('\n')));
}

// --- other commands ------------------------------------------------------------------------

// --elaborate-only checks everything and prints the layout without simulating or tracing.
TEST_F(Cli, ElaborateOnlyPrintsTheLayoutAndSimulatesNothing) {
    const Proc p = nmsim({"run", kDefault, "--elaborate-only"});
    ASSERT_EQ(p.rc, 0) << show(p);
    EXPECT_TRUE(contains(p.out, "elaborated s2_pe_matmul")) << show(p);
    EXPECT_TRUE(contains(p.out, "buffer w int8[50176] at 0x")) << show(p);
    EXPECT_FALSE(contains(p.out, "simulated time")) << show(p);
    EXPECT_FALSE(fs::exists(m_dir / "s2_pe_matmul.h5"));
    // problems are still found: a buffer that does not fit
    const Proc big = nmsim(
        {"run", kDefault, "--elaborate-only", "--set", "workload.pe.buffers.w.shape=[784, 256]"});
    EXPECT_EQ(big.rc, 2) << show(big);
    EXPECT_TRUE(contains(big.err, "does not fit pe0 SRAM")) << show(big);
}

// The bench command runs its firmware and prints its figures (speed is measured, not asserted).
TEST_F(Cli, BenchQuickPrintsFigures) {
    const Proc p = nmsim({"bench", "--quick"});
    ASSERT_EQ(p.rc, 0) << show(p);
    EXPECT_TRUE(contains(p.out, "compute loop, loads+stores")) << show(p);
    EXPECT_TRUE(contains(p.out, "M instructions/s")) << show(p);
    EXPECT_TRUE(contains(p.out, "G simulated MACs/s")) << show(p);
    EXPECT_TRUE(contains(p.out, "full chip (152 PEs, 2 running)   peak RSS")) << show(p);
    EXPECT_TRUE(contains(p.out, "2 ISS engines")) << show(p);
}

TEST_F(Cli, VersionFlag) {
    const Proc p = nmsim({"--version"});
    EXPECT_EQ(p.rc, 0) << show(p);
    EXPECT_EQ(p.out.rfind("nmsim ", 0), 0u) << show(p);
}

TEST_F(Cli, ParamsCheckIsClean) {
    const Proc p = nmsim({"params", "spinnaker2", "--check"});
    EXPECT_EQ(p.rc, 0) << show(p);
    EXPECT_EQ(p.err, "");
}

TEST_F(Cli, ParamsListsEachParameterWithItsSource) {
    const Proc p = nmsim({"params", "spinnaker2"});
    ASSERT_EQ(p.rc, 0) << show(p);
    const auto at = p.out.find("pe.mla.acc_bits = ");
    ASSERT_NE(at, std::string::npos) << show(p);
    // The entry: "name = value unit [type]", then the doc line, then "    source: ...".
    const std::string entry = p.out.substr(at, p.out.find("\n", p.out.find("source:", at)) - at);
    EXPECT_TRUE(std::regex_search(entry, std::regex(R"(\n    source: \S)"))) << entry;
    EXPECT_FALSE(contains(entry, "from ")) << "no scenario: every value is a default\n" << entry;
}

TEST_F(Cli, ParamsPrintsARegisterTable) {
    const Proc p = nmsim({"params", "spinnaker2", "--regs", "s2.mla"});
    EXPECT_EQ(p.rc, 0) << show(p);
    EXPECT_TRUE(contains(p.out, "s2.mla registers")) << show(p);
    EXPECT_TRUE(std::regex_search(p.out, std::regex(R"(0x000  CTRL\s+RW)"))) << show(p);
    const Proc bad = nmsim({"params", "spinnaker2", "--regs", "s2.mlx"});
    EXPECT_EQ(bad.rc, 2) << show(bad);
}

TEST_F(Cli, ParamsWithAScenarioShowsEffectiveValuesAndOrigins) {
    const Proc p =
        nmsim({"params", "spinnaker2", "--scenario", kDefault, "--set", "pe.mla.acc_bits=24"});
    ASSERT_EQ(p.rc, 0) << show(p);
    EXPECT_TRUE(std::regex_search(
        p.out, std::regex(R"(pe\.mla\.acc_bits = 24 bits\s+\[\w+, from --set\])")))
        << show(p);
    // The scenario file's own override carries file:line:col.
    EXPECT_TRUE(std::regex_search(
        p.out, std::regex(R"(pe\.perf_level = 1 .*from [^\]]*s2_pe_matmul\.yaml:11:20\])")))
        << show(p);
}

// --- parameter sweep sanity ----------------------------------------------------------------

TEST_F(Cli, LowerPerfLevelTakesLongerAndStillPasses) {
    const Proc fast = nmsim({"run", kDefault, "-o", "fast.h5", "--set", "pe.perf_level=1"});
    const Proc slow = nmsim({"run", kDefault, "-o", "slow.h5", "--set", "pe.perf_level=0"});
    ASSERT_EQ(fast.rc, 0) << show(fast);
    ASSERT_EQ(slow.rc, 0) << show(slow);
    EXPECT_TRUE(contains(slow.out, "check            PASS")) << show(slow);
    const double t_fast = simulated_us(fast.out), t_slow = simulated_us(slow.out);
    ASSERT_GT(t_fast, 0.0);
    EXPECT_GT(t_slow, t_fast * 1.2) << "perf_level 0 (lower clock) must take longer";
}

}  // namespace
}  // namespace nmsim::test
