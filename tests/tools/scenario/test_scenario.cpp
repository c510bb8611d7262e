// Scenario loader: a complete file, every error class with its exact file:line:col and key,
// error collection and sorting, --set editing, firmware lookup and the dump round trip; the
// same for the chip kind's workload.dnn.
#include "tools/scenario/scenario.h"

#include <gtest/gtest.h>

#include "tools/scenario/text.h"
#include "workloads/bss2/spec.h"
#include "workloads/dnn/spec.h"
#include "workloads/pe/spec.h"

#include <unistd.h>
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace nmsim::scenario {
namespace {

namespace fs = std::filesystem;
using workloads::bss2::Bss2Workload;
using workloads::dnn::DnnWorkload;
using workloads::pe::Buffer;
using workloads::pe::BufferInit;
using workloads::pe::CoreLoad;
using workloads::pe::DType;
using workloads::pe::PeWorkload;
using workloads::pe::Placement;

// A scenario's workload section as its kind's spec.
const PeWorkload& pe(const Scenario& s) { return s.workload.as<PeWorkload>(); }
PeWorkload& pe(Scenario& s) { return s.workload.as<PeWorkload>(); }
DnnWorkload& dnn(Scenario& s) { return s.workload.as<DnnWorkload>(); }
const Bss2Workload& bss2(const Scenario& s) { return s.workload.as<Bss2Workload>(); }

const fs::path kData = NMSIM_SCENARIO_TEST_DATA;

void write_file(const fs::path& p, const std::string& text) {
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
}

// Each test gets its own directory with a fake firmware directory (fw/mla_fc.elf, fw/dma.elf).
class ScenarioTest : public ::testing::Test {
protected:
    void SetUp() override {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        m_dir = fs::temp_directory_path() /
                ("nmsim_scenario_" + std::string(info->name()) + "_" + std::to_string(getpid()));
        fs::remove_all(m_dir);
        write_file(m_dir / "fw" / "mla_fc.elf", "not really an ELF");
        write_file(m_dir / "fw" / "dma.elf", "not really an ELF");
        m_opts.firmware_dirs = {(m_dir / "fw").string()};
    }
    void TearDown() override { fs::remove_all(m_dir); }

    std::string path(const std::string& name = "s.yaml") const { return (m_dir / name).string(); }

    Scenario load_text(const std::string& yaml, const std::string& name = "s.yaml") {
        write_file(m_dir / name, yaml);
        return load(path(name), m_opts);
    }

    // Loads text that must fail; returns the collected errors.
    std::vector<ConfigError> errors_of(const std::string& yaml) {
        write_file(m_dir / "s.yaml", yaml);
        try {
            load(path(), m_opts);
        } catch (const ScenarioError& e) {
            return e.errors();
        }
        ADD_FAILURE() << "no ScenarioError for:\n" << yaml;
        return {};
    }

    fs::path m_dir;
    LoadOptions m_opts;
};

// The single error of a load, checked for file, line, col and key; returns its message.
std::string only_error(const std::vector<ConfigError>& errs, const std::string& file, int line,
                       int col, const std::string& key) {
    std::string all;
    for (const auto& e : errs) all += e.str() + "\n";
    EXPECT_EQ(errs.size(), 1u) << all;
    if (errs.empty()) return "";
    const ConfigError& e = errs[0];
    EXPECT_EQ(e.origin.file, file) << all;
    EXPECT_EQ(e.origin.line, line) << all;
    EXPECT_EQ(e.origin.col, col) << all;
    EXPECT_EQ(e.key, key) << all;
    return e.message;
}

const char* const kMinimal =
    "platform: {kind: spinnaker2_pe}\n"
    "workload:\n"
    "  cores:\n"
    "    - firmware: mla_fc\n";

// Field by field: GCC 12 at -O3 warns (falsely) about nested aggregate initialisers of strings.
ConfigError make_error(const std::string& file, int line, int col, const std::string& key,
                       const std::string& message) {
    ConfigError e;
    e.origin.file = file;
    e.origin.line = line;
    e.origin.col = col;
    e.key = key;
    e.message = message;
    return e;
}

TEST(ScenarioFormat, OriginAndErrorStrings) {
    EXPECT_EQ((Origin{"scenarios/x.yaml", 41, 17}.str()), "scenarios/x.yaml:41:17");
    EXPECT_EQ((Origin{"--set", 0, 0}.str()), "--set");
    EXPECT_EQ((Origin{"x.yaml", 0, 0}.str()), "x.yaml");
    ConfigError e =
        make_error("a.yaml", 3, 9, "workload.pe.buffers.x.dtype", "expected int8, got \"q\"");
    EXPECT_EQ(e.str(), "a.yaml:3:9: error: workload.pe.buffers.x.dtype: expected int8, got \"q\"");
    ConfigError k = make_error("a.yaml", 1, 1, "", "malformed YAML: x");
    EXPECT_EQ(k.str(), "a.yaml:1:1: error: malformed YAML: x");
}

TEST(ScenarioFormat, ErrorsSortedByFileLineColAndJoined) {
    ScenarioError err(
        {make_error("b.yaml", 1, 1, "k1", "m1"), make_error("a.yaml", 9, 2, "k2", "m2"),
         make_error("a.yaml", 9, 1, "k3", "m3"), make_error("a.yaml", 2, 7, "k4", "m4")});
    ASSERT_EQ(err.errors().size(), 4u);
    EXPECT_EQ(err.errors()[0].key, "k4");
    EXPECT_EQ(err.errors()[1].key, "k3");
    EXPECT_EQ(err.errors()[2].key, "k2");
    EXPECT_EQ(err.errors()[3].key, "k1");
    EXPECT_STREQ(err.what(),
                 "a.yaml:2:7: error: k4: m4\na.yaml:9:1: error: k3: m3\n"
                 "a.yaml:9:2: error: k2: m2\nb.yaml:1:1: error: k1: m1");
}

TEST(ScenarioFormat, DTypeTable) {
    const std::pair<const char*, size_t> expect[] = {{"int8", 1},   {"uint8", 1}, {"int16", 2},
                                                     {"uint16", 2}, {"int32", 4}, {"uint32", 4},
                                                     {"float32", 4}};
    for (const auto& [name, size] : expect) {
        auto t = workloads::pe::parse_dtype(name);
        ASSERT_TRUE(t.has_value()) << name;
        EXPECT_STREQ(workloads::pe::dtype_name(*t), name);
        EXPECT_EQ(workloads::pe::dtype_size(*t), size) << name;
    }
    EXPECT_FALSE(workloads::pe::parse_dtype("int9").has_value());
    EXPECT_FALSE(workloads::pe::parse_dtype("i8").has_value());
}

TEST(Scenario, LoadsCompleteFile) {
    LoadOptions opts;
    opts.firmware_dirs = {(kData / "no_such_dir").string(), (kData / "fw").string()};
    std::string file = (kData / "valid.yaml").string();
    Scenario s = load(file, opts);

    EXPECT_EQ(s.path, file);
    EXPECT_EQ(s.name, "s2_pe_matmul");
    EXPECT_EQ(s.description, "int8 fully connected layer on the MLA");
    EXPECT_EQ(s.seed, 42u);
    EXPECT_EQ(s.platform_kind, "spinnaker2_pe");
    std::ifstream in(file);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(s.source_text, text);

    ASSERT_EQ(s.params.size(), 3u);
    EXPECT_EQ(s.params[0].path, "pe.perf_level");
    EXPECT_EQ(s.params[0].value, "1");
    EXPECT_EQ(s.params[0].origin.str(), file + ":9:20");
    EXPECT_EQ(s.params[1].path, "pe.mla.acc_bits");
    EXPECT_EQ(s.params[1].value, "24");
    EXPECT_EQ(s.params[1].origin.str(), file + ":10:26");
    EXPECT_EQ(s.params[2].path, "clock.pe");
    EXPECT_EQ(s.params[2].value, "150 MHz");

    EXPECT_EQ(pe(s).buffer_order, (std::vector<std::string>{"x", "w", "b", "y", "e", "f"}));
    ASSERT_EQ(pe(s).buffers.size(), 6u);
    const Buffer& x = pe(s).buffers.at("x");
    EXPECT_EQ(x.name, "x");
    EXPECT_EQ(x.dtype, DType::i8);
    EXPECT_EQ(x.shape, (std::vector<uint64_t>{1, 8}));
    EXPECT_EQ(x.at.kind, Placement::Kind::sram);
    EXPECT_EQ(x.at.pe, 0u);
    EXPECT_FALSE(x.at.address.has_value());
    EXPECT_EQ(x.init.kind, BufferInit::Kind::random);
    EXPECT_EQ(x.init.lo, -128);
    EXPECT_EQ(x.init.hi, 127);
    EXPECT_EQ(x.origin.str(), file + ":15:7");
    EXPECT_EQ(x.bytes(), 8u);
    EXPECT_EQ(pe(s).buffers.at("w").bytes(), 32u);

    const Buffer& b = pe(s).buffers.at("b");
    EXPECT_EQ(b.dtype, DType::i32);
    EXPECT_EQ(b.init.kind, BufferInit::Kind::values);
    EXPECT_EQ(b.init.values, (std::vector<double>{1, -2, 16, 2147483647}));
    EXPECT_EQ(b.bytes(), 16u);

    EXPECT_EQ(pe(s).buffers.at("y").init.kind, BufferInit::Kind::zeros);

    const Buffer& e = pe(s).buffers.at("e");
    EXPECT_EQ(e.dtype, DType::u8);
    EXPECT_EQ(e.at.kind, Placement::Kind::ext);
    ASSERT_TRUE(e.at.address.has_value());
    EXPECT_EQ(*e.at.address, 0x20000100u);
    EXPECT_EQ(e.init.kind, BufferInit::Kind::file);
    EXPECT_EQ(fs::path(e.init.file), fs::absolute(kData / "e.bin").lexically_normal());

    const Buffer& f = pe(s).buffers.at("f");
    EXPECT_EQ(f.dtype, DType::f32);
    EXPECT_EQ(f.at.pe, 1u);
    EXPECT_EQ(*f.at.address, 0x1000u);
    EXPECT_EQ(f.init.values, (std::vector<double>{0.1, -2500.0}));

    ASSERT_EQ(pe(s).cores.size(), 2u);
    const CoreLoad& c0 = pe(s).cores[0];
    EXPECT_EQ(c0.pe, 0u);
    EXPECT_EQ(c0.firmware, "mla_fc");
    EXPECT_EQ(fs::path(c0.firmware_path), fs::absolute(kData / "fw" / "mla_fc.elf"));
    EXPECT_EQ(c0.origin.str(), file + ":22:9");
    const std::vector<std::string> names = {"x", "w", "bias",  "y",     "m",
                                            "k", "n", "shift", "flags", "neg"};
    ASSERT_EQ(c0.args.size(), names.size());
    for (size_t i = 0; i < names.size(); ++i) EXPECT_EQ(c0.args[i].name, names[i]);
    EXPECT_EQ(c0.args[0].buffer, "x");
    EXPECT_FALSE(c0.args[0].value.has_value());
    EXPECT_EQ(c0.args[2].buffer, "b");
    EXPECT_EQ(c0.args[5].value, 8u);
    EXPECT_EQ(c0.args[5].buffer, "");
    EXPECT_EQ(c0.args[8].value, 1u);
    EXPECT_EQ(c0.args[9].value, 0xFFFFFFFFu);  // -1, two's complement
    EXPECT_EQ(c0.args[0].origin.str(), file + ":24:19");
    const CoreLoad& c1 = pe(s).cores[1];
    EXPECT_EQ(c1.pe, 1u);
    EXPECT_EQ(c1.firmware, "fw/custom.elf");
    EXPECT_EQ(fs::path(c1.firmware_path), fs::absolute(kData / "fw" / "custom.elf"));
    EXPECT_TRUE(c1.args.empty());

    ASSERT_EQ(pe(s).checks.size(), 3u);
    EXPECT_EQ(pe(s).checks[0].kind, "reference");
    EXPECT_EQ(pe(s).checks[0].buffer, "y");
    EXPECT_EQ(pe(s).checks[0].op.at("fn"), "mla_matmul");
    EXPECT_EQ(pe(s).checks[0].op.at("bias"), "b");
    EXPECT_EQ(pe(s).checks[0].op.at("relu"), "true");
    EXPECT_EQ(pe(s).checks[0].op.at("out"), "int8");
    EXPECT_EQ(pe(s).checks[0].op.size(), 10u);
    EXPECT_EQ(pe(s).checks[1].kind, "equal");
    EXPECT_EQ(pe(s).checks[1].expect, "x");
    EXPECT_TRUE(pe(s).checks[1].op.empty());
    EXPECT_EQ(pe(s).checks[2].kind, "allclose");
    EXPECT_DOUBLE_EQ(pe(s).checks[2].atol, 0.001);
    EXPECT_EQ(pe(s).checks[2].op.at("in_scale"), "3.0517578125e-05");
    EXPECT_EQ(pe(s).checks[2].origin.str(), file + ":30:9");

    EXPECT_EQ(s.trace.file, "out.h5");
    EXPECT_FALSE(s.trace.events);
    EXPECT_TRUE(s.trace.console_stdout);
}

TEST_F(ScenarioTest, DefaultsAreFilled) {
    Scenario s = load_text(std::string(kMinimal) +
                               "  buffers:\n"
                               "    z: {dtype: uint16, shape: [3]}\n",
                           "my_run.yaml");
    EXPECT_EQ(s.name, "my_run");
    EXPECT_EQ(s.description, "");
    EXPECT_EQ(s.seed, 1u);
    EXPECT_TRUE(s.params.empty());
    EXPECT_EQ(s.trace.file, "my_run.h5");
    EXPECT_TRUE(s.trace.events);
    EXPECT_TRUE(s.trace.console_stdout);
    ASSERT_EQ(pe(s).cores.size(), 1u);
    EXPECT_EQ(pe(s).cores[0].pe, 0u);
    EXPECT_TRUE(pe(s).checks.empty());
    const Buffer& z = pe(s).buffers.at("z");
    EXPECT_EQ(z.at.kind, Placement::Kind::sram);
    EXPECT_EQ(z.at.pe, 0u);
    EXPECT_EQ(z.init.kind, BufferInit::Kind::zeros);
    EXPECT_EQ(z.bytes(), 6u);
}

TEST_F(ScenarioTest, MissingFileAndDirectory) {
    try {
        load(path("nope.yaml"), m_opts);
        FAIL() << "no error";
    } catch (const ScenarioError& e) {
        EXPECT_EQ(only_error(e.errors(), path("nope.yaml"), 0, 0, ""),
                  "cannot open scenario: no such file");
    }
    try {
        load(m_dir.string(), m_opts);
        FAIL() << "no error";
    } catch (const ScenarioError& e) {
        EXPECT_EQ(only_error(e.errors(), m_dir.string(), 0, 0, ""),
                  "cannot open scenario: is a directory");
    }
}

TEST_F(ScenarioTest, MalformedYamlReportsParserPosition) {
    // The flow list opened on line 3 is never closed; yaml-cpp notices at the start of line 4.
    auto errs = errors_of(
        "platform: {kind: spinnaker2_pe}\n"
        "workload:\n"
        "  cores: [{firmware: mla_fc}\n"
        "seed: 3\n");
    std::string msg = only_error(errs, path(), 4, 1, "");
    EXPECT_EQ(msg, "malformed YAML: end of sequence flow not found");
}

TEST_F(ScenarioTest, MalformedYamlHintsAtTabs) {
    auto errs = errors_of(
        "platform: {kind: spinnaker2_pe}\n"
        "workload:\n"
        "\tcores: []\n");
    std::string msg = only_error(errs, path(), 3, 7, "");
    EXPECT_EQ(msg, "malformed YAML: illegal map value (tabs are not allowed in indentation)");
}

TEST_F(ScenarioTest, TopLevelMustBeAMap) {
    auto errs = errors_of("- 1\n- 2\n");
    std::string msg = only_error(errs, path(), 1, 1, "");
    EXPECT_NE(msg.find("expected a map of scenario keys"), std::string::npos) << msg;
    EXPECT_NE(msg.find("got a list"), std::string::npos) << msg;
}

TEST_F(ScenarioTest, EmptyFileReportsMissingRequiredKeys) {
    auto errs = errors_of("");
    ASSERT_EQ(errs.size(), 2u);
    EXPECT_EQ(errs[0].key, "platform.kind");
    EXPECT_EQ(errs[0].message, "missing required key");
    EXPECT_EQ(errs[0].origin.line, 1);
    EXPECT_EQ(errs[1].key, "workload");
    EXPECT_EQ(errs[1].message,
              "missing required key: a map with one workload kind (pe, dnn, bss2, snn, hagen, deepr)");
}

TEST_F(ScenarioTest, MissingRequiredKeys) {
    auto errs = errors_of(
        "platform:\n"
        "  params: {pe.perf_level: 1}\n"
        "workload:\n"
        "  buffers: {}\n");
    ASSERT_EQ(errs.size(), 2u) << ScenarioError(errs).what();
    EXPECT_EQ(errs[0].str(), path() + ":2:3: error: platform.kind: missing required key");
    EXPECT_EQ(errs[1].str(), path() + ":4:3: error: workload.pe.cores: missing required key");

    auto errs2 = errors_of(
        "platform: {kind: spinnaker2_pe}\n"
        "workload:\n"
        "  cores:\n"
        "    - pe: 3\n"
        "      args: {n: 1}\n");
    EXPECT_EQ(only_error(errs2, path(), 4, 7, "workload.pe.cores.0.firmware"),
              "missing required key");
}

TEST_F(ScenarioTest, UnknownKeysListValidKeysAndSuggest) {
    auto errs = errors_of(std::string(kMinimal) +
                          "  buffers:\n"
                          "    x: {dtpye: int8, shape: [4]}\n"
                          "sede: 4\n");
    // The required dtype is not reported missing as well: the did-you-mean already names it.
    ASSERT_EQ(errs.size(), 2u) << ScenarioError(errs).what();
    EXPECT_EQ(errs[0].str(),
              path() +
                  ":6:9: error: workload.pe.buffers.x.dtpye: unknown key \"dtpye\"; did you "
                  "mean \"dtype\"? (valid keys: dtype, shape, at, address, init)");
    EXPECT_EQ(errs[1].str(),
              path() +
                  ":7:1: error: sede: unknown key \"sede\"; did you mean \"seed\"? (valid "
                  "keys: name, description, seed, platform, workload, trace, limits)");

    // Nothing close: no suggestion, only the list.
    auto errs2 = errors_of(std::string(kMinimal) + "trace: {zzzzzzzz: 1}\n");
    EXPECT_EQ(only_error(errs2, path(), 5, 9, "trace.zzzzzzzz"),
              "unknown key \"zzzzzzzz\" (valid keys: file, events, console_stdout)");
}

TEST_F(ScenarioTest, DtypeDidYouMean) {
    auto errs = errors_of(std::string(kMinimal) +
                          "  buffers:\n"
                          "    x: {dtype: int9, shape: [4]}\n");
    EXPECT_EQ(only_error(errs, path(), 6, 16, "workload.pe.buffers.x.dtype"),
              "expected int8|uint8|int16|uint16|int32|uint32|float32, got \"int9\" (did you mean "
              "\"int8\"?)");
}

TEST_F(ScenarioTest, UnknownPlatformKindListsValid) {
    auto errs = errors_of(
        "platform: {kind: spinaker2_pe}\n"
        "workload: {cores: [{firmware: mla_fc}]}\n");
    EXPECT_EQ(
        only_error(errs, path(), 1, 18, "platform.kind"),
        "expected spinnaker2_pe|spinnaker2_chip|brainscales2, got \"spinaker2_pe\" (did you mean "
        "\"spinnaker2_pe\"?)");
}

TEST_F(ScenarioTest, ShapeErrors) {
    auto errs = errors_of(std::string(kMinimal) +
                          "  buffers:\n"
                          "    a: {dtype: int8, shape: 4}\n"
                          "    b: {dtype: int8, shape: []}\n"
                          "    c: {dtype: int8, shape: [2, 0, -1, x]}\n"
                          "    d: {dtype: int32, shape: [65536, 65536]}\n");
    ASSERT_EQ(errs.size(), 6u) << ScenarioError(errs).what();
    EXPECT_EQ(errs[0].str(), path() +
                                 ":6:29: error: workload.pe.buffers.a.shape: expected a non-empty "
                                 "list of positive integers, got \"4\"");
    EXPECT_EQ(errs[1].str(), path() +
                                 ":7:29: error: workload.pe.buffers.b.shape: expected a non-empty "
                                 "list of positive integers, got an empty list");
    EXPECT_EQ(errs[2].str(), path() +
                                 ":8:33: error: workload.pe.buffers.c.shape.1: expected a "
                                 "positive integer dimension, got \"0\"");
    EXPECT_EQ(errs[3].key, "workload.pe.buffers.c.shape.2");
    EXPECT_EQ(errs[3].origin.col, 36);
    EXPECT_EQ(errs[4].key, "workload.pe.buffers.c.shape.3");
    EXPECT_EQ(errs[4].origin.col, 40);
    EXPECT_EQ(errs[5].key, "workload.pe.buffers.d.shape");
    EXPECT_EQ(errs[5].message,
              "buffer of [65536, 65536] int32 does not fit in the 32-bit address space");
}

TEST_F(ScenarioTest, SeedMustBeAnUnsignedInteger) {
    auto errs = errors_of(std::string(kMinimal) + "seed: 1.5\n");
    EXPECT_EQ(only_error(errs, path(), 5, 7, "seed"),
              "expected an unsigned 64-bit integer, got \"1.5\"");
    errs = errors_of(std::string(kMinimal) + "seed: -1\n");
    EXPECT_EQ(only_error(errs, path(), 5, 7, "seed"),
              "expected an unsigned 64-bit integer in [0, 18446744073709551615], got \"-1\"");
    errs = errors_of(std::string(kMinimal) + "seed: 18446744073709551616\n");
    EXPECT_EQ(only_error(errs, path(), 5, 7, "seed"),
              "expected an unsigned 64-bit integer in [0, 18446744073709551615], got "
              "\"18446744073709551616\"");
    Scenario s = load_text(std::string(kMinimal) + "seed: 18446744073709551615\n");
    EXPECT_EQ(s.seed, UINT64_MAX);
}

TEST_F(ScenarioTest, RandomRangeErrors) {
    auto errs = errors_of(std::string(kMinimal) +
                          "  buffers:\n"
                          "    a: {dtype: int8, shape: [4], init: {random: [5, 1]}}\n"
                          "    b: {dtype: uint8, shape: [4], init: {random: [-1, 300]}}\n"
                          "    c: {dtype: int8, shape: [4], init: {random: [1]}}\n"
                          "    d: {dtype: float32, shape: [4], init: {random: [-0.5, 0.5]}}\n"
                          "    e: {dtype: int16, shape: [4], init: {random: [0.5, 2]}}\n");
    ASSERT_EQ(errs.size(), 5u) << ScenarioError(errs).what();
    EXPECT_EQ(errs[0].str(),
              path() + ":6:49: error: workload.pe.buffers.a.init.random: empty range: lo 5 > hi 1");
    EXPECT_EQ(errs[1].str(), path() +
                                 ":7:51: error: workload.pe.buffers.b.init.random.0: value -1 "
                                 "out of range for uint8 [0, 255]");
    EXPECT_EQ(errs[2].str(), path() +
                                 ":7:55: error: workload.pe.buffers.b.init.random.1: value 300 "
                                 "out of range for uint8 [0, 255]");
    EXPECT_EQ(errs[3].str(), path() +
                                 ":8:49: error: workload.pe.buffers.c.init.random: expected "
                                 "[lo, hi], got a list of 1 items");
    EXPECT_EQ(errs[4].str(), path() +
                                 ":10:51: error: workload.pe.buffers.e.init.random.0: expected "
                                 "an integer (int16), got \"0.5\"");
}

TEST_F(ScenarioTest, ValuesErrors) {
    auto errs = errors_of(std::string(kMinimal) +
                          "  buffers:\n"
                          "    a: {dtype: int8, shape: [2, 2], init: {values: [1, 2, 3]}}\n"
                          "    b: {dtype: int8, shape: [2], init: {values: [1, 128]}}\n"
                          "    c: {dtype: uint32, shape: [2], init: {values: [0xffffffff, 0]}}\n");
    ASSERT_EQ(errs.size(), 2u) << ScenarioError(errs).what();
    EXPECT_EQ(errs[0].str(), path() +
                                 ":6:52: error: workload.pe.buffers.a.init.values: expected 4 "
                                 "values for shape [2, 2], got 3");
    EXPECT_EQ(errs[1].str(), path() +
                                 ":7:53: error: workload.pe.buffers.b.init.values.1: value 128 "
                                 "out of range for int8 [-128, 127]");
}

TEST_F(ScenarioTest, InitNeedsExactlyOneSource) {
    auto errs =
        errors_of(std::string(kMinimal) +
                  "  buffers:\n"
                  "    a: {dtype: int8, shape: [2], init: {random: [0, 1], values: [1, 2]}}\n"
                  "    b: {dtype: int8, shape: [2], init: ones}\n");
    ASSERT_EQ(errs.size(), 2u) << ScenarioError(errs).what();
    EXPECT_EQ(errs[0].str(), path() +
                                 ":6:40: error: workload.pe.buffers.a.init: expected exactly "
                                 "one of random, values, file");
    EXPECT_EQ(errs[1].key, "workload.pe.buffers.b.init");
    EXPECT_EQ(errs[1].message,
              "expected zeros or a map with one of random, values, file; got \"ones\"");
}

TEST_F(ScenarioTest, PlacementErrors) {
    auto errs = errors_of(std::string(kMinimal) +
                          "  buffers:\n"
                          "    a: {dtype: int8, shape: [2], at: pe1024.sram}\n"
                          "    b: {dtype: int8, shape: [2], at: pe0.dram}\n"
                          "    c: {dtype: int32, shape: [2], at: ext, address: 0x1002}\n");
    ASSERT_EQ(errs.size(), 4u) << ScenarioError(errs).what();
    EXPECT_EQ(errs[0].str(), path() +
                                 ":6:38: error: workload.pe.buffers.a.at: pe index 1024 out of "
                                 "range [0, 1023]");
    EXPECT_EQ(errs[1].str(), path() +
                                 ":7:38: error: workload.pe.buffers.b.at: expected pe<N>.sram "
                                 "or ext, got \"pe0.dram\" (did you mean \"pe0.sram\"?)");
    EXPECT_EQ(errs[2].str(), path() +
                                 ":8:53: error: workload.pe.buffers.c.address: address "
                                 "0x00001002 is not aligned to the 4-byte int32 elements");
    EXPECT_EQ(errs[3].str(), path() +
                                 ":8:53: error: workload.pe.buffers.c.address: address "
                                 "0x00001002 is below the external-memory window at "
                                 "0x20000000");
}

TEST_F(ScenarioTest, DuplicateKeysAndBufferNames) {
    auto errs = errors_of(
        "platform: {kind: spinnaker2_pe}\n"
        "workload:\n"
        "  buffers:\n"
        "    x: {dtype: int8, shape: [2]}\n"
        "    x: {dtype: int8, shape: [3]}\n"
        "  cores:\n"
        "    - firmware: mla_fc\n"
        "      args: {n: 1, n: 2}\n"
        "seed: 1\n"
        "seed: 2\n");
    ASSERT_EQ(errs.size(), 3u) << ScenarioError(errs).what();
    EXPECT_EQ(errs[0].str(), path() +
                                 ":5:5: error: workload.pe.buffers.x: duplicate key (first "
                                 "defined at " +
                                 path() + ":4:5)");
    EXPECT_EQ(errs[1].str(), path() +
                                 ":8:20: error: workload.pe.cores.0.args.n: duplicate key "
                                 "(first defined at " +
                                 path() + ":8:14)");
    EXPECT_EQ(errs[2].str(),
              path() + ":10:1: error: seed: duplicate key (first defined at " + path() + ":9:1)");
}

TEST_F(ScenarioTest, BufferNamesMustBeIdentifiers) {
    auto errs = errors_of(std::string(kMinimal) +
                          "  buffers:\n"
                          "    my.buf: {dtype: int8, shape: [2]}\n");
    EXPECT_EQ(only_error(errs, path(), 6, 5, "workload.pe.buffers.my.buf"),
              "buffer names must be identifiers ([A-Za-z_][A-Za-z0-9_]*), got \"my.buf\"");
}

TEST_F(ScenarioTest, ArgErrors) {
    auto errs = errors_of(
        "platform: {kind: spinnaker2_pe}\n"
        "workload:\n"
        "  buffers: {src: {dtype: int8, shape: [4]}}\n"
        "  cores:\n"
        "    - firmware: mla_fc\n"
        "      args:\n"
        "        a: \"@scr\"\n"
        "        b: abc\n"
        "        c: 4294967296\n"
        "        d: -2147483649\n"
        "        e: [1]\n"
        "        f: -2147483648\n"
        "        g: 0xFFFFFFFF\n");
    ASSERT_EQ(errs.size(), 5u) << ScenarioError(errs).what();
    EXPECT_EQ(errs[0].str(), path() +
                                 ":7:12: error: workload.pe.cores.0.args.a: unknown buffer "
                                 "\"scr\" (did you mean \"src\"?); buffers: src");
    EXPECT_EQ(errs[1].str(), path() +
                                 ":8:12: error: workload.pe.cores.0.args.b: expected an integer "
                                 "or \"@buffer\", got \"abc\"");
    EXPECT_EQ(errs[2].str(), path() +
                                 ":9:12: error: workload.pe.cores.0.args.c: value 4294967296 "
                                 "does not fit in a 32-bit argument word [-2147483648, "
                                 "4294967295]");
    EXPECT_EQ(errs[3].key, "workload.pe.cores.0.args.d");
    EXPECT_EQ(errs[3].origin.line, 10);
    EXPECT_EQ(errs[4].str(), path() +
                                 ":11:12: error: workload.pe.cores.0.args.e: expected an integer "
                                 "or \"@buffer\", got a list");
}

TEST_F(ScenarioTest, ArgBoundaryValues) {
    Scenario s = load_text(
        "platform: {kind: spinnaker2_pe}\n"
        "workload:\n"
        "  cores:\n"
        "    - firmware: mla_fc\n"
        "      args: {lo: -2147483648, hi: 0xFFFFFFFF, m1: -1, z: 0, d: 4294967295}\n");
    const auto& a = pe(s).cores[0].args;
    ASSERT_EQ(a.size(), 5u);
    EXPECT_EQ(a[0].value, 0x80000000u);
    EXPECT_EQ(a[1].value, 0xFFFFFFFFu);
    EXPECT_EQ(a[2].value, 0xFFFFFFFFu);
    EXPECT_EQ(a[3].value, 0u);
    EXPECT_EQ(a[4].value, 4294967295u);
}

TEST_F(ScenarioTest, TooManyArgWords) {
    std::string args;
    for (int i = 0; i < 65; ++i)
        args += (i ? ", a" : "a") + std::to_string(i) + ": " + std::to_string(i);
    auto errs = errors_of(
        "platform: {kind: spinnaker2_pe}\n"
        "workload:\n"
        "  cores:\n"
        "    - firmware: mla_fc\n"
        "      args: {" +
        args + "}\n");
    EXPECT_EQ(only_error(errs, path(), 5, 13, "workload.pe.cores.0.args"),
              "65 argument words, the argument block holds 64");
}

TEST_F(ScenarioTest, PeIndexRangeAndDuplicates) {
    auto errs = errors_of(
        "platform: {kind: spinnaker2_pe}\n"
        "workload:\n"
        "  cores:\n"
        "    - {pe: 1024, firmware: mla_fc}\n"
        "    - {pe: 2, firmware: mla_fc}\n"
        "    - {pe: 2, firmware: dma}\n");
    ASSERT_EQ(errs.size(), 2u) << ScenarioError(errs).what();
    EXPECT_EQ(errs[0].str(), path() +
                                 ":4:12: error: workload.pe.cores.0.pe: expected a pe index in "
                                 "[0, 1023], got \"1024\"");
    EXPECT_EQ(errs[1].str(), path() +
                                 ":6:12: error: workload.pe.cores.2.pe: pe 2 is already loaded "
                                 "by workload.pe.cores.1");
}

TEST_F(ScenarioTest, FirmwareNotFoundListsSearchedPaths) {
    fs::create_directories(m_dir / "fw2");
    m_opts.firmware_dirs = {(m_dir / "fw2").string(), (m_dir / "fw").string()};
    auto errs = errors_of(
        "platform: {kind: spinnaker2_pe}\n"
        "workload:\n"
        "  cores:\n"
        "    - firmware: mla_fx\n"
        "    - {pe: 1, firmware: bin/missing.elf}\n");
    ASSERT_EQ(errs.size(), 2u) << ScenarioError(errs).what();
    EXPECT_EQ(errs[0].str(), path() +
                                 ":4:17: error: workload.pe.cores.0.firmware: firmware "
                                 "\"mla_fx\" not found; looked in: " +
                                 (m_dir / "fw2" / "mla_fx.elf").string() + ", " +
                                 (m_dir / "fw" / "mla_fx.elf").string() +
                                 " (did you mean \"mla_fc\"?)");
    EXPECT_EQ(errs[1].str(), path() +
                                 ":5:25: error: workload.pe.cores.1.firmware: firmware file "
                                 "not found: " +
                                 (m_dir / "bin" / "missing.elf").string());

    m_opts.firmware_dirs.clear();
    errs = errors_of(kMinimal);
    EXPECT_EQ(only_error(errs, path(), 4, 17, "workload.pe.cores.0.firmware"),
              "firmware \"mla_fc\" not found: no firmware directories configured");
}

TEST_F(ScenarioTest, FirmwareLookupOrderAndRelativePath) {
    write_file(m_dir / "fw_first" / "mla_fc.elf", "first");
    write_file(m_dir / "sub" / "prog.elf", "x");
    m_opts.firmware_dirs = {(m_dir / "fw_first").string(), (m_dir / "fw").string()};
    Scenario s = load_text(
        "platform: {kind: spinnaker2_pe}\n"
        "workload:\n"
        "  cores:\n"
        "    - firmware: mla_fc\n"
        "    - {pe: 1, firmware: sub/../sub/prog.elf}\n");
    EXPECT_EQ(pe(s).cores[0].firmware_path, (m_dir / "fw_first" / "mla_fc.elf").string());
    EXPECT_EQ(pe(s).cores[1].firmware, "sub/../sub/prog.elf");
    EXPECT_EQ(pe(s).cores[1].firmware_path, (m_dir / "sub" / "prog.elf").string());
}

TEST_F(ScenarioTest, InitFileMissingOrWrongSize) {
    write_file(m_dir / "data" / "five.bin", "12345");
    auto errs = errors_of(std::string(kMinimal) +
                          "  buffers:\n"
                          "    a: {dtype: int16, shape: [3], init: {file: data/five.bin}}\n"
                          "    b: {dtype: int8, shape: [3], init: {file: data/none.bin}}\n");
    ASSERT_EQ(errs.size(), 2u) << ScenarioError(errs).what();
    EXPECT_EQ(errs[0].str(), path() + ":6:48: error: workload.pe.buffers.a.init.file: init file " +
                                 (m_dir / "data" / "five.bin").string() +
                                 " has 5 bytes, buffer \"a\" (int16[3]) needs 6");
    EXPECT_EQ(errs[1].str(), path() +
                                 ":7:47: error: workload.pe.buffers.b.init.file: init file not "
                                 "found: " +
                                 (m_dir / "data" / "none.bin").string());
}

TEST_F(ScenarioTest, CheckErrors) {
    auto errs =
        errors_of(std::string(kMinimal) +
                  "  buffers: {x: {dtype: int8, shape: [4]}, y: {dtype: int16, shape: [4]}}\n"
                  "checks:\n"
                  "  - {kind: refrence, buffer: x}\n"
                  "  - {kind: equal, buffer: x, expect: y}\n"
                  "  - {kind: reference, buffer: q, op: {a: x}}\n"
                  "  - {kind: allclose, buffer: x, op: {fn: softmax, input: z}}\n"
                  "  - {kind: equal, buffer: x, expect: x, atol: 1}\n");
    ASSERT_EQ(errs.size(), 7u) << ScenarioError(errs).what();
    EXPECT_EQ(errs[0].str(), path() +
                                 ":7:12: error: workload.pe.checks.0.kind: expected "
                                 "reference|equal|allclose, got \"refrence\" (did you mean "
                                 "\"reference\"?)");
    EXPECT_EQ(errs[1].str(),
              path() +
                  ":8:38: error: workload.pe.checks.1.expect: buffer \"x\" (int8[4]) "
                  "cannot equal \"y\" (int16[4])");
    EXPECT_EQ(errs[2].str(), path() +
                                 ":9:31: error: workload.pe.checks.2.buffer: unknown buffer \"q\"; "
                                 "buffers: x, y");
    EXPECT_EQ(errs[3].str(),
              path() + ":9:38: error: workload.pe.checks.2.op.fn: missing required key");
    EXPECT_EQ(errs[4].str(),
              path() + ":10:5: error: workload.pe.checks.3.atol: missing required key");
    EXPECT_EQ(errs[5].str(),
              path() +
                  ":10:58: error: workload.pe.checks.3.op.input: unknown buffer \"z\"; "
                  "buffers: x, y");
    EXPECT_EQ(errs[6].str(), path() +
                                 ":11:41: error: workload.pe.checks.4.atol: unknown key \"atol\" "
                                 "(valid keys: kind, buffer, expect)");
}

TEST_F(ScenarioTest, ParamsNestedAndDottedFlatten) {
    Scenario s = load_text(
        "platform:\n"
        "  kind: spinnaker2_pe\n"
        "  params:\n"
        "    pe:\n"
        "      mla: {acc_bits: 24, t_op: 5 ns}\n"
        "      sram.size: 64 KiB\n"
        "    noc.enabled: true\n"
        "workload: {cores: [{firmware: mla_fc}]}\n");
    ASSERT_EQ(s.params.size(), 4u);
    EXPECT_EQ(s.params[0].path, "pe.mla.acc_bits");
    EXPECT_EQ(s.params[1].path, "pe.mla.t_op");
    EXPECT_EQ(s.params[1].value, "5 ns");
    EXPECT_EQ(s.params[1].origin.str(), path() + ":5:33");
    EXPECT_EQ(s.params[2].path, "pe.sram.size");
    EXPECT_EQ(s.params[2].value, "64 KiB");
    EXPECT_EQ(s.params[3].path, "noc.enabled");
    EXPECT_EQ(s.params[3].value, "true");
}

TEST_F(ScenarioTest, ParamErrors) {
    auto errs = errors_of(
        "platform:\n"
        "  kind: spinnaker2_pe\n"
        "  params:\n"
        "    pe.mla.acc_bits: 24\n"
        "    pe: {mla: {acc_bits: 20}, list: [1, 2], empty: {}, none: }\n"
        "    a..b: 1\n"
        "workload: {cores: [{firmware: mla_fc}]}\n");
    ASSERT_EQ(errs.size(), 5u) << ScenarioError(errs).what();
    EXPECT_EQ(errs[0].str(), path() +
                                 ":5:26: error: platform.params.pe.mla.acc_bits: parameter "
                                 "set twice (first at " +
                                 path() + ":4:22)");
    EXPECT_EQ(errs[1].str(), path() +
                                 ":5:37: error: platform.params.pe.list: parameter values "
                                 "must be scalars, got a list");
    EXPECT_EQ(errs[2].str(), path() +
                                 ":5:52: error: platform.params.pe.empty: expected a value "
                                 "or a map of parameters, got an empty map");
    EXPECT_EQ(errs[3].str(), path() + ":5:56: error: platform.params.pe.none: missing value");
    EXPECT_EQ(errs[4].str(), path() +
                                 ":6:5: error: platform.params.a..b: malformed parameter "
                                 "key \"a..b\": empty segment");
}

TEST_F(ScenarioTest, MultipleErrorsCollectedAndSorted) {
    auto errs = errors_of(
        "seed: abc\n"
        "platform: {kind: spinnaker2_pe, parms: {}}\n"
        "workload:\n"
        "  buffers:\n"
        "    x: {dtype: int9, shape: [0]}\n"
        "  cores:\n"
        "    - {pe: 0, firmware: mla_fc, args: {p: \"@nope\"}}\n"
        "trace: {events: maybe}\n");
    std::vector<std::pair<int, std::string>> got;
    for (const auto& e : errs) got.emplace_back(e.origin.line, e.key);
    const std::vector<std::pair<int, std::string>> want = {
        {1, "seed"},
        {2, "platform.parms"},
        {5, "workload.pe.buffers.x.dtype"},
        {5, "workload.pe.buffers.x.shape.0"},
        {7, "workload.pe.cores.0.args.p"},
        {8, "trace.events"},
    };
    EXPECT_EQ(got, want) << ScenarioError(errs).what();
    // what() is every line in the same order.
    ScenarioError again(errs);
    std::string what = again.what();
    size_t pos = 0;
    for (const auto& e : errs) {
        size_t at = what.find(e.str(), pos);
        ASSERT_NE(at, std::string::npos) << e.str();
        pos = at + e.str().size();
    }
    EXPECT_EQ(std::count(what.begin(), what.end(), '\n'), 5);
}

TEST_F(ScenarioTest, SetEditsDocumentKeys) {
    m_opts.sets = {"seed=0x10",
                   "name=renamed",
                   "trace.events=false",
                   "description=\"quoted: text\"",
                   "workload.pe.cores.0.firmware=dma",
                   "workload.pe.cores.1.firmware=mla_fc",
                   "workload.pe.cores.1.pe=5",
                   "workload.pe.buffers.q.shape=[2, 3]",
                   "workload.pe.buffers.q.dtype=uint16",
                   "workload.pe.cores.1.args.p=@q",
                   "platform.kind=spinnaker2_pe"};
    Scenario s = load_text(kMinimal);
    EXPECT_EQ(s.seed, 16u);
    EXPECT_EQ(s.name, "renamed");
    EXPECT_EQ(s.trace.file, "renamed.h5");
    EXPECT_FALSE(s.trace.events);
    EXPECT_EQ(s.description, "quoted: text");
    ASSERT_EQ(pe(s).cores.size(), 2u);
    EXPECT_EQ(pe(s).cores[0].firmware, "dma");
    EXPECT_EQ(pe(s).cores[0].origin.str(), path() + ":4:7");
    EXPECT_EQ(pe(s).cores[1].firmware, "mla_fc");
    EXPECT_EQ(pe(s).cores[1].pe, 5u);
    EXPECT_EQ(pe(s).cores[1].origin.str(), "--set");
    ASSERT_EQ(pe(s).cores[1].args.size(), 1u);
    EXPECT_EQ(pe(s).cores[1].args[0].buffer, "q");
    EXPECT_EQ(pe(s).buffers.at("q").shape, (std::vector<uint64_t>{2, 3}));
    EXPECT_EQ(pe(s).buffers.at("q").dtype, DType::u16);
    EXPECT_TRUE(s.params.empty());
    // The source text is the file as written.
    EXPECT_EQ(s.source_text, kMinimal);
}

TEST_F(ScenarioTest, SetParamOverrides) {
    m_opts.sets = {"pe.mla.acc_bits=20", "platform.params.pe.perf_level=3", "clock= 150 MHz"};
    Scenario s = load_text(
        "platform:\n"
        "  kind: spinnaker2_pe\n"
        "  params: {pe: {perf_level: 1, mla: {t_op: 2 ns}}}\n"
        "workload: {cores: [{firmware: mla_fc}]}\n");
    ASSERT_EQ(s.params.size(), 4u);
    EXPECT_EQ(s.params[0].path, "pe.mla.t_op");
    EXPECT_EQ(s.params[0].origin.str(), path() + ":3:44");
    EXPECT_EQ(s.params[1].path, "pe.mla.acc_bits");
    EXPECT_EQ(s.params[1].value, "20");
    EXPECT_EQ(s.params[1].origin.str(), "--set");
    // The --set value replaces the file's pe.perf_level and moves to --set order.
    EXPECT_EQ(s.params[2].path, "pe.perf_level");
    EXPECT_EQ(s.params[2].value, "3");
    EXPECT_EQ(s.params[2].origin.str(), "--set");
    EXPECT_EQ(s.params[3].path, "clock");
    EXPECT_EQ(s.params[3].value, " 150 MHz");  // exactly as written
}

TEST_F(ScenarioTest, SetErrors) {
    m_opts.sets = {
        "seed",          "pe.x=[1, 2]", "pe.y={a: 1}",      "pe.z=",  "workload.pe.cores.3.pe=1",
        "seed=abc",      "seed.x=1",    "trace.evnts=true", "a..b=1", "workload.pe.cores.x=1",
        "name=[unclosed"};
    auto errs = errors_of(kMinimal);
    std::vector<std::string> got;
    for (const auto& e : errs) {
        EXPECT_EQ(e.origin.str(), "--set") << e.str();
        got.push_back(e.str());
    }
    // All from --set, so they keep --set order (stable sort), then validation order.
    const std::vector<std::string> want = {
        "--set: error: malformed --set \"seed\": expected key.path=value",
        "--set: error: pe.x: parameter values must be scalars, got a list \"[1, 2]\"",
        "--set: error: pe.y: parameter values must be scalars, got a map \"{a: 1}\"",
        "--set: error: pe.z: empty value",
        "--set: error: workload.pe.cores.3.pe: cannot set: index 3 out of range "
        "(\"workload.pe.cores\" "
        "has 1 items; use 1 to append)",
        "--set: error: seed.x: cannot set: \"seed\" is a scalar, not a map or list",
        "--set: error: malformed --set \"a..b=1\": empty segment in key \"a..b\"",
        "--set: error: workload.pe.cores.x: cannot set: \"workload.pe.cores\" is a list, expected "
        "an "
        "index, got \"x\"",
        "--set: error: name: malformed YAML value \"[unclosed\": end of sequence flow not found",
        "--set: error: seed: expected an unsigned 64-bit integer, got \"abc\"",
        "--set: error: trace.evnts: unknown key \"evnts\"; did you mean \"events\"? (valid keys: "
        "file, events, console_stdout)",
    };
    EXPECT_EQ(got, want);
}

TEST_F(ScenarioTest, RoundTripThroughDump) {
    LoadOptions opts;
    opts.firmware_dirs = {(kData / "fw").string()};
    opts.sets = {"pe.extra=7", "workload.pe.buffers.y.init.values=[1, 2, 3, -4]",
                 "description=two\nlines"};
    Scenario a = load((kData / "valid.yaml").string(), opts);
    std::string text = dump(a);
    // The dump lives elsewhere: paths in it must be resolved, not relative to the scenario.
    write_file(m_dir / "elsewhere" / "dumped.yaml", text);
    LoadOptions plain;
    plain.firmware_dirs = opts.firmware_dirs;
    Scenario b = load((m_dir / "elsewhere" / "dumped.yaml").string(), plain);
    EXPECT_EQ(diff_resolved(a, b), "") << text;
    EXPECT_EQ(b.description, "two\nlines");
    EXPECT_EQ(pe(b).buffers.at("f").init.values, (std::vector<double>{0.1, -2500.0}));
    EXPECT_EQ(pe(b).cores[0].args[9].value, 0xFFFFFFFFu);
    // A dump of the reloaded scenario is identical text (a fixed point).
    EXPECT_EQ(dump(b), text);

    // Minimal file: defaults are written out and survive too.
    Scenario m = load_text(kMinimal, "mini.yaml");
    write_file(m_dir / "elsewhere" / "mini_dump.yaml", dump(m));
    Scenario m2 = load((m_dir / "elsewhere" / "mini_dump.yaml").string(), m_opts);
    EXPECT_EQ(diff_resolved(m, m2), "") << dump(m);
    EXPECT_EQ(m2.name, "mini");
    EXPECT_EQ(m2.trace.file, "mini.h5");
}

// platform.variant: checked against the platform's variants at load, kept with its origin,
// dumped and compared; --set can choose it.
TEST_F(ScenarioTest, PlatformVariant) {
    const std::string chip =
        "platform:\n"
        "  kind: spinnaker2_chip\n"
        "  variant: prototype\n"
        "workload: {pe: {cores: [{firmware: mla_fc}]}}\n";
    Scenario s = load_text(chip);
    EXPECT_EQ(s.platform_variant, "prototype");
    EXPECT_EQ(s.platform_variant_origin.str(), path() + ":3:12");
    write_file(m_dir / "elsewhere" / "v.yaml", dump(s));
    Scenario d = load((m_dir / "elsewhere" / "v.yaml").string(), m_opts);
    EXPECT_EQ(diff_resolved(s, d), "") << dump(s);
    Scenario plain = s;
    plain.platform_variant.clear();
    EXPECT_EQ(diff_resolved(s, plain).rfind("platform.variant", 0), 0u) << diff_resolved(s, plain);

    auto errs = errors_of(
        "platform:\n"
        "  kind: spinnaker2_chip\n"
        "  variant: protoype\n"
        "workload: {pe: {cores: [{firmware: mla_fc}]}}\n");
    EXPECT_EQ(only_error(errs, path(), 3, 12, "platform.variant"),
              "unknown variant \"protoype\" of platform spinnaker2_chip (did you mean "
              "\"prototype\"?) (valid: prototype)");
    errs = errors_of(
        "platform: {kind: spinnaker2_pe, variant: prototype}\n"
        "workload: {pe: {cores: [{firmware: mla_fc}]}}\n");
    EXPECT_EQ(only_error(errs, path(), 1, 42, "platform.variant"),
              "unknown variant \"prototype\" of platform spinnaker2_pe (this platform has no "
              "variants)");

    m_opts.sets = {"platform.variant=prototype"};
    Scenario set = load_text(
        "platform: {kind: spinnaker2_chip}\nworkload: {pe: {cores: [{firmware: mla_fc}]}}\n",
        "set.yaml");
    EXPECT_EQ(set.platform_variant, "prototype");
}

// The documentation's complete example must load as written.
TEST_F(ScenarioTest, ReadmeExampleLoads) {
    std::ifstream in(fs::path(NMSIM_SOURCE_DIR) / "scenarios" / "README.md");
    ASSERT_TRUE(in) << "scenarios/README.md";
    std::string readme((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    size_t start = readme.find("```yaml\n");
    ASSERT_NE(start, std::string::npos);
    start += 8;
    size_t end = readme.find("```", start);
    ASSERT_NE(end, std::string::npos);
    write_file(m_dir / "data" / "e.bin", std::string(256, '\x5a'));
    Scenario s = load_text(readme.substr(start, end - start), "example.yaml");
    EXPECT_EQ(s.name, "s2_pe_matmul");
    EXPECT_TRUE(s.warnings.empty()) << s.warnings[0].str();  // the current form
    EXPECT_EQ(s.params.size(), 3u);
    EXPECT_EQ(pe(s).buffer_order.size(), 7u);
    EXPECT_EQ(pe(s).buffers.at("w").bytes(), 784u * 64u);
    ASSERT_EQ(pe(s).cores.size(), 1u);
    ASSERT_EQ(pe(s).cores[0].args.size(), 11u);
    EXPECT_EQ(pe(s).cores[0].args[10].value, 0xFFFFFFFCu);
    EXPECT_EQ(pe(s).checks.size(), 3u);
}

TEST_F(ScenarioTest, DiffResolvedNamesFirstDifference) {
    LoadOptions opts;
    opts.firmware_dirs = {(kData / "fw").string()};
    Scenario a = load((kData / "valid.yaml").string(), opts);
    Scenario b = a;
    EXPECT_EQ(diff_resolved(a, b), "");
    pe(b).buffers.at("b").init.values[2] = 17;
    EXPECT_EQ(diff_resolved(a, b), "workload.pe.buffers.b.init.values.2: 16 != 17");
    b = a;
    pe(b).cores[0].args[5].value = 9;
    EXPECT_EQ(diff_resolved(a, b), "workload.pe.cores.0.args.k: 8 != 9");
    b = a;
    pe(b).checks[0].op["relu"] = "false";
    EXPECT_EQ(diff_resolved(a, b), "workload.pe.checks.0.op.relu: \"true\" != \"false\"");
    b = a;
    b.params.pop_back();
    EXPECT_EQ(diff_resolved(a, b), "platform.params: 3 != 2 entries");
    b = a;
    b.trace.console_stdout = false;
    EXPECT_EQ(diff_resolved(a, b), "trace.console_stdout: true != false");
    // Origins are not content.
    b = a;
    pe(b).cores[0].origin = Origin{"--set", 0, 0};
    EXPECT_EQ(diff_resolved(a, b), "");
}

// ---------------------------------------------------------------------------------------------
// workload.dnn (platform kind spinnaker2_chip)

const fs::path kModels = fs::path(NMSIM_SOURCE_DIR) / "scenarios" / "models";

// Lines 1-5 of a chip scenario (the committed model and inputs, absolute paths); `rest` follows
// on line 6, indented as a key of the dnn map.
std::string chip_yaml(const std::string& rest = "") {
    return "platform: {kind: spinnaker2_chip}\n"
           "workload:\n"
           "  dnn:\n"
           "    model: " +
           (kModels / "mlp_fmnist_int8.onnx").string() +
           "\n"
           "    inputs: " +
           (kModels / "fmnist_test_1000.bin").string() + "\n" + rest;
}

// The fixture plus the two built-in DNN programs in the firmware directory.
class DnnScenarioTest : public ScenarioTest {
protected:
    void SetUp() override {
        ScenarioTest::SetUp();
        write_file(m_dir / "fw" / "dnn_scheduler.elf", "not really an ELF");
        write_file(m_dir / "fw" / "dnn_worker.elf", "not really an ELF");
    }
};

TEST_F(DnnScenarioTest, LoadsCompleteChipScenario) {
    write_file(m_dir / "data" / "float.bin", std::string(1000, '\x03'));
    write_file(m_dir / "sub" / "sched.elf", "x");
    const std::string yaml =
        "platform:\n"
        "  kind: spinnaker2_chip\n"
        "  params: {dram.efficiency: 0.5}\n"
        "workload:\n"
        "  dnn:\n"
        "    model: " +
        (kModels / "mlp_fmnist_int8.onnx").string() +
        "\n"
        "    inputs: " +
        (kModels / "fmnist_test_1000.bin").string() +
        "\n"
        "    labels: " +
        (kModels / "fmnist_test_1000_labels.bin").string() +
        "\n"
        "    float_predictions: data/../data/float.bin\n"
        "    first: 10\n"
        "    count: 990\n"
        "    scheduler_pe: 4\n"
        "    worker_pes: [0, 5, 151]\n"
        "    max_workers_per_layer: 2\n"
        "    scheduler_firmware: sub/sched.elf\n"
        "    worker_firmware: dnn_worker\n"
        "    check: no\n"
        "trace: {events: false}\n";
    Scenario s = load_text(yaml, "chip.yaml");
    const std::string file = path("chip.yaml");
    EXPECT_EQ(s.platform_kind, "spinnaker2_chip");
    ASSERT_EQ(s.params.size(), 1u);
    ASSERT_EQ(s.workload.kind(), "dnn");
    const DnnWorkload& d = dnn(s);
    EXPECT_EQ(d.model, (kModels / "mlp_fmnist_int8.onnx").lexically_normal().string());
    EXPECT_EQ(d.inputs, (kModels / "fmnist_test_1000.bin").lexically_normal().string());
    EXPECT_EQ(d.labels, (kModels / "fmnist_test_1000_labels.bin").lexically_normal().string());
    EXPECT_EQ(d.float_predictions, (m_dir / "data" / "float.bin").string());
    EXPECT_EQ(d.first, 10u);
    EXPECT_EQ(d.count, 990u);
    EXPECT_EQ(d.scheduler_pe, 4u);
    EXPECT_EQ(d.worker_pes, (std::vector<uint32_t>{0, 5, 151}));
    EXPECT_FALSE(d.all_workers);
    EXPECT_EQ(d.max_workers_per_layer, 2u);
    EXPECT_EQ(d.scheduler_firmware, "sub/sched.elf");
    EXPECT_EQ(d.scheduler_firmware_path, (m_dir / "sub" / "sched.elf").string());
    EXPECT_EQ(d.worker_firmware, "dnn_worker");
    EXPECT_EQ(d.worker_firmware_path, (m_dir / "fw" / "dnn_worker.elf").string());
    EXPECT_FALSE(d.check);
    EXPECT_EQ(d.origin.str(), file + ":6:5");
    EXPECT_EQ(d.origins.at("model").str(), file + ":6:12");
    EXPECT_EQ(d.origins.at("count").str(), file + ":11:12");
    EXPECT_EQ(d.origins.at("worker_pes").str(), file + ":13:17");
    EXPECT_EQ(d.origins.at("worker_pes.2").str(), file + ":13:24");
    // A key left at its default points at the dnn map.
    EXPECT_EQ(d.origins.at("workers").str(), file + ":6:5");
    EXPECT_EQ(d.origins.size(), 16u + 3u);
    EXPECT_FALSE(s.trace.events);
}

TEST_F(DnnScenarioTest, DefaultsAndWorkerForms) {
    Scenario s = load_text(chip_yaml());
    ASSERT_EQ(s.workload.kind(), "dnn");
    const DnnWorkload& d = dnn(s);
    EXPECT_EQ(d.labels, "");
    EXPECT_EQ(d.float_predictions, "");
    EXPECT_EQ(d.first, 0u);
    EXPECT_EQ(d.count, 100u);
    EXPECT_EQ(d.scheduler_pe, 0u);
    EXPECT_EQ(d.workers, 8u);
    EXPECT_FALSE(d.all_workers);
    EXPECT_TRUE(d.worker_pes.empty());
    EXPECT_EQ(d.max_workers_per_layer, 0u);
    EXPECT_EQ(d.scheduler_firmware, "dnn_scheduler");
    EXPECT_EQ(d.scheduler_firmware_path, (m_dir / "fw" / "dnn_scheduler.elf").string());
    EXPECT_EQ(d.worker_firmware, "dnn_worker");
    EXPECT_EQ(d.worker_firmware_path, (m_dir / "fw" / "dnn_worker.elf").string());
    EXPECT_TRUE(d.check);

    Scenario all = load_text(chip_yaml("    workers: all\n    scheduler_pe: 151\n"));
    EXPECT_TRUE(dnn(all).all_workers);
    EXPECT_EQ(dnn(all).workers, 0u);
    EXPECT_EQ(dnn(all).scheduler_pe, 151u);

    Scenario n = load_text(chip_yaml("    workers: 151\n"));
    EXPECT_FALSE(dnn(n).all_workers);
    EXPECT_EQ(dnn(n).workers, 151u);
}

TEST_F(DnnScenarioTest, MissingModelFile) {
    auto errs = errors_of(
        "platform: {kind: spinnaker2_chip}\n"
        "workload:\n"
        "  dnn:\n"
        "    model: models/nope.onnx\n"
        "    inputs: " +
        (kModels / "fmnist_test_1000.bin").string() + "\n");
    EXPECT_EQ(only_error(errs, path(), 4, 12, "workload.dnn.model"),
              "model file not found: " + (m_dir / "models" / "nope.onnx").string());
}

TEST_F(DnnScenarioTest, MissingRequiredKeys) {
    auto errs = errors_of(
        "platform: {kind: spinnaker2_chip}\n"
        "workload:\n"
        "  dnn: {count: 3}\n");
    ASSERT_EQ(errs.size(), 2u) << ScenarioError(errs).what();
    EXPECT_EQ(errs[0].str(), path() + ":3:8: error: workload.dnn.model: missing required key");
    EXPECT_EQ(errs[1].str(), path() + ":3:8: error: workload.dnn.inputs: missing required key");

    errs = errors_of("platform: {kind: spinnaker2_chip}\nworkload: {}\n");
    EXPECT_EQ(only_error(errs, path(), 2, 11, "workload"),
              "expected a map with one workload kind (pe, dnn, bss2, snn, hagen, deepr), got an empty map");
    errs = errors_of("platform: {kind: spinnaker2_chip}\n");
    EXPECT_EQ(only_error(errs, path(), 1, 1, "workload"),
              "missing required key: a map with one workload kind (pe, dnn, bss2, snn, hagen, deepr)");
}

TEST_F(DnnScenarioTest, UnknownKeySuggests) {
    auto errs = errors_of(chip_yaml("    cuont: 10\n"));
    EXPECT_EQ(
        only_error(errs, path(), 6, 5, "workload.dnn.cuont"),
        "unknown key \"cuont\"; did you mean \"count\"? (valid keys: model, inputs, labels, "
        "float_predictions, first, count, scheduler_pe, workers, worker_pes, "
        "max_workers_per_layer, layer_workers, published_us, published_source, scheduler_firmware, "
        "worker_firmware, check)");
}

TEST_F(DnnScenarioTest, CountMustBePositive) {
    auto errs = errors_of(chip_yaml("    count: 0\n"));
    EXPECT_EQ(only_error(errs, path(), 6, 12, "workload.dnn.count"),
              "expected an inference count >= 1, got \"0\"");
    errs = errors_of(chip_yaml("    count: -3\n"));
    EXPECT_EQ(only_error(errs, path(), 6, 12, "workload.dnn.count"),
              "expected an inference count in [0, 18446744073709551615], got \"-3\"");
}

TEST_F(DnnScenarioTest, WorkerErrors) {
    auto errs = errors_of(chip_yaml("    workers: 4\n    worker_pes: [1, 2]\n"));
    EXPECT_EQ(only_error(errs, path(), 7, 5, "workload.dnn.worker_pes"),
              "give either workers (a count or \"all\") or worker_pes (a list), not both "
              "(workers at " +
                  path() + ":6:5)");

    errs = errors_of(chip_yaml("    scheduler_pe: 7\n    worker_pes: [1, 7, 3]\n"));
    EXPECT_EQ(only_error(errs, path(), 7, 21, "workload.dnn.worker_pes.1"),
              "pe 7 is the scheduler (scheduler_pe); workers must be other pes");

    errs = errors_of(chip_yaml("    worker_pes: [1, 2, 3, 2]\n"));
    EXPECT_EQ(only_error(errs, path(), 6, 27, "workload.dnn.worker_pes.3"),
              "duplicate worker pe 2 (first at " + path() + ":6:21)");

    errs = errors_of(chip_yaml("    workers: many\n"));
    EXPECT_EQ(only_error(errs, path(), 6, 14, "workload.dnn.workers"),
              "expected a worker count in [1, 151] or \"all\", got \"many\"");
    errs = errors_of(chip_yaml("    workers: al\n"));
    EXPECT_EQ(only_error(errs, path(), 6, 14, "workload.dnn.workers"),
              "expected a worker count in [1, 151] or \"all\", got \"al\" (did you mean \"all\"?)");

    // Several at once: every problem is reported.
    errs =
        errors_of(chip_yaml("    workers: 0\n"
                            "    worker_pes: [152, x, 0]\n"
                            "    scheduler_pe: 152\n"
                            "    max_workers_per_layer: 200\n"));
    std::vector<std::string> got;
    for (const auto& e : errs) got.push_back(e.str());
    const std::string p = path();
    const std::vector<std::string> want = {
        p + ":6:14: error: workload.dnn.workers: expected a worker count in [1, 151] or \"all\", "
            "got \"0\"",
        p +
            ":7:5: error: workload.dnn.worker_pes: give either workers (a count or \"all\") or "
            "worker_pes (a list), not both (workers at " +
            p + ":6:5)",
        p + ":7:18: error: workload.dnn.worker_pes.0: expected a global pe index in [0, 151], "
            "got \"152\"",
        p + ":7:23: error: workload.dnn.worker_pes.1: expected a global pe index in [0, 151], "
            "got \"x\"",
        p + ":8:19: error: workload.dnn.scheduler_pe: expected a global pe index in [0, 151], "
            "got \"152\"",
        p + ":9:28: error: workload.dnn.max_workers_per_layer: expected a worker count (0 = no "
            "cap) in [0, 151], got \"200\"",
    };
    EXPECT_EQ(got, want);

    errs = errors_of(chip_yaml("    worker_pes: []\n"));
    EXPECT_EQ(only_error(errs, path(), 6, 17, "workload.dnn.worker_pes"),
              "expected a non-empty list of global pe indices, got an empty list");
}

TEST_F(DnnScenarioTest, LabelsMustCoverTheInputsUsed) {
    write_file(m_dir / "short.bin", std::string(50, '\0'));
    auto errs = errors_of(chip_yaml("    labels: short.bin\n    first: 45\n    count: 6\n"));
    EXPECT_EQ(
        only_error(errs, path(), 8, 12, "workload.dnn.count"),
        "first 45 + count 6 runs past the 50 entries of labels " + (m_dir / "short.bin").string());
    // The last entry is usable.
    Scenario s = load_text(chip_yaml("    labels: short.bin\n    first: 45\n    count: 5\n"));
    EXPECT_EQ(dnn(s).labels, (m_dir / "short.bin").string());
    // The count's default (100) counts too; the error then points at the dnn map.
    errs = errors_of(chip_yaml("    float_predictions: short.bin\n"));
    EXPECT_EQ(only_error(errs, path(), 4, 5, "workload.dnn.count"),
              "first 0 + count 100 runs past the 50 entries of float_predictions " +
                  (m_dir / "short.bin").string());

    write_file(m_dir / "empty.bin", "");
    errs = errors_of(
        "platform: {kind: spinnaker2_chip}\n"
        "workload: {dnn: {model: " +
        (kModels / "mlp_fmnist_int8.onnx").string() + ", inputs: empty.bin, labels: nope.bin}}\n");
    ASSERT_EQ(errs.size(), 2u) << ScenarioError(errs).what();
    EXPECT_EQ(errs[0].key, "workload.dnn.inputs");
    EXPECT_EQ(errs[0].message, "inputs file is empty: " + (m_dir / "empty.bin").string());
    EXPECT_EQ(errs[1].key, "workload.dnn.labels");
    EXPECT_EQ(errs[1].message, "labels file not found: " + (m_dir / "nope.bin").string());
}

TEST_F(DnnScenarioTest, FirmwareResolvedLikeCores) {
    auto errs = errors_of(chip_yaml("    worker_firmware: dnn_wroker\n"));
    EXPECT_EQ(only_error(errs, path(), 6, 22, "workload.dnn.worker_firmware"),
              "firmware \"dnn_wroker\" not found; looked in: " +
                  (m_dir / "fw" / "dnn_wroker.elf").string() + " (did you mean \"dnn_worker\"?)");
    // A missing default program is reported at the dnn map.
    fs::remove(m_dir / "fw" / "dnn_scheduler.elf");
    errs = errors_of(chip_yaml());
    EXPECT_EQ(only_error(errs, path(), 4, 5, "workload.dnn.scheduler_firmware"),
              "firmware \"dnn_scheduler\" not found; looked in: " +
                  (m_dir / "fw" / "dnn_scheduler.elf").string());
}

// The old pe form next to a dnn section reads as two workloads: one error, at the second.
TEST_F(DnnScenarioTest, ChipKindRunsOneWorkload) {
    auto errs =
        errors_of(chip_yaml("  buffers: {x: {dtype: int8, shape: [4]}}\n"
                            "  cores: [{firmware: mla_fc}]\n"
                            "checks: [{kind: equal, buffer: x, expect: x}]\n"));
    ASSERT_EQ(errs.size(), 1u) << ScenarioError(errs).what();
    EXPECT_EQ(errs[0].str(), path() +
                                 ":3:3: error: workload.dnn: a scenario runs one workload; "
                                 "\"pe\" is given at " +
                                 path() + ":6:3");
}

TEST_F(DnnScenarioTest, PeKindRejectsDnn) {
    auto errs = errors_of("platform: {kind: spinnaker2_pe}\nworkload:\n  dnn: {count: 3}\n");
    EXPECT_EQ(only_error(errs, path(), 3, 3, "workload.dnn"),
              "the dnn workload runs on platform kind spinnaker2_chip, not spinnaker2_pe");
    errs = errors_of("platform: {kind: spinnaker2_pe}\nworkload:\n  dnnn: {count: 3}\n");
    EXPECT_EQ(only_error(errs, path(), 3, 3, "workload.dnnn"),
              "unknown workload kind \"dnnn\" (did you mean \"dnn\"?) (valid: pe, dnn, bss2, snn, hagen, deepr)");
}

TEST_F(DnnScenarioTest, BadKindDoesNotCascade) {
    // With an invalid kind, the workload's keys decide its shape and only the kind is wrong.
    auto errs = errors_of("platform: {kind: spinnaker2_chp}\n" + chip_yaml().substr(34));
    EXPECT_EQ(
        only_error(errs, path(), 1, 18, "platform.kind"),
        "expected spinnaker2_pe|spinnaker2_chip|brainscales2, got \"spinnaker2_chp\" (did you mean "
        "\"spinnaker2_chip\"?)");
}

TEST_F(DnnScenarioTest, SetEditsDnn) {
    m_opts.sets = {"workload.dnn.count=10", "workload.dnn.worker_pes=[3, 1]",
                   "workload.dnn.check=false", "dram.efficiency=0.4"};
    Scenario s = load_text(chip_yaml("    count: 500\n"));
    ASSERT_EQ(s.workload.kind(), "dnn");
    EXPECT_EQ(dnn(s).count, 10u);
    EXPECT_EQ(dnn(s).origins.at("count").str(), "--set");
    EXPECT_EQ(dnn(s).worker_pes, (std::vector<uint32_t>{3, 1}));
    EXPECT_FALSE(dnn(s).check);
    ASSERT_EQ(s.params.size(), 1u);
    EXPECT_EQ(s.params[0].path, "dram.efficiency");

    // A pe scenario turned into a chip run from the command line.
    m_opts.sets = {"platform.kind=spinnaker2_chip",
                   "workload.dnn.model=" + (kModels / "mlp_fmnist_int8.onnx").string(),
                   "workload.dnn.inputs=" + (kModels / "fmnist_test_1000.bin").string(),
                   "workload.dnn.workers=all"};
    Scenario c = load_text("platform: {kind: spinnaker2_pe}\nworkload: {}\n");
    EXPECT_EQ(c.platform_kind, "spinnaker2_chip");
    ASSERT_EQ(c.workload.kind(), "dnn");
    EXPECT_TRUE(dnn(c).all_workers);
    EXPECT_EQ(dnn(c).origin.str(), "--set");

    m_opts.sets = {"workload.dnn.count=0"};
    auto errs = errors_of(chip_yaml());
    EXPECT_EQ(only_error(errs, "--set", 0, 0, "workload.dnn.count"),
              "expected an inference count >= 1, got \"0\"");
}

TEST_F(DnnScenarioTest, RoundTripThroughDump) {
    write_file(m_dir / "data" / "float.bin", std::string(1000, '\x01'));
    write_file(m_dir / "sub" / "sched.elf", "x");
    for (const std::string workers :
         {"    worker_pes: [9, 2, 100]\n", "    workers: all\n", "    workers: 17\n", ""}) {
        SCOPED_TRACE(workers);
        Scenario a = load_text(chip_yaml(workers + "    labels: " +
                                         (kModels / "fmnist_test_1000_labels.bin").string() +
                                         "\n"
                                         "    float_predictions: data/float.bin\n"
                                         "    first: 900\n"
                                         "    count: 7\n"
                                         "    scheduler_pe: 3\n"
                                         "    max_workers_per_layer: 5\n"
                                         "    scheduler_firmware: sub/sched.elf\n"
                                         "    check: off\n") +
                               "trace: {file: dnn.h5}\n");
        std::string text = dump(a);
        EXPECT_EQ(text.find("cores"), std::string::npos) << text;
        write_file(m_dir / "elsewhere" / "dumped.yaml", text);
        Scenario b = load((m_dir / "elsewhere" / "dumped.yaml").string(), m_opts);
        EXPECT_EQ(diff_resolved(a, b), "") << text;
        EXPECT_EQ(dump(b), text);
    }

    // The defaults (no optional files) round-trip too.
    Scenario m = load_text(chip_yaml(), "mini.yaml");
    write_file(m_dir / "elsewhere" / "mini_dump.yaml", dump(m));
    Scenario m2 = load((m_dir / "elsewhere" / "mini_dump.yaml").string(), m_opts);
    EXPECT_EQ(diff_resolved(m, m2), "") << dump(m);
    EXPECT_EQ(dnn(m2).labels, "");
    EXPECT_EQ(dnn(m2).workers, 8u);
}

TEST_F(DnnScenarioTest, DiffResolvedComparesDnn) {
    write_file(m_dir / "sub" / "w.elf", "x");
    Scenario a = load_text(chip_yaml("    worker_pes: [1, 2]\n    worker_firmware: sub/w.elf\n"));
    Scenario b = a;
    EXPECT_EQ(diff_resolved(a, b), "");
    dnn(b).count = 5;
    EXPECT_EQ(diff_resolved(a, b), "workload.dnn.count: 100 != 5");
    b = a;
    dnn(b).worker_pes[1] = 3;
    EXPECT_EQ(diff_resolved(a, b), "workload.dnn.worker_pes.1: 2 != 3");
    b = a;
    dnn(b).all_workers = true;
    EXPECT_EQ(diff_resolved(a, b), "workload.dnn.all_workers: false != true");
    b = a;
    dnn(b).check = false;
    EXPECT_EQ(diff_resolved(a, b), "workload.dnn.check: true != false");
    b = a;
    dnn(b).worker_firmware_path = "/x.elf";
    EXPECT_EQ(diff_resolved(a, b), "workload.dnn.worker_firmware_path: \"" +
                                       (m_dir / "sub" / "w.elf").string() + "\" != \"/x.elf\"");
    b = a;
    b.workload = Workload();
    EXPECT_EQ(diff_resolved(a, b), "workload: \"dnn\" != \"\"");
    // The firmware's spelling and the origins are not content.
    b = a;
    dnn(b).worker_firmware = "other/spelling.elf";
    dnn(b).origins.clear();
    dnn(b).origin = Origin{"--set", 0, 0};
    EXPECT_EQ(diff_resolved(a, b), "");
}

// The documentation's chip example must load as written (paths relative to scenarios/).
TEST_F(DnnScenarioTest, ReadmeChipExampleLoads) {
    std::ifstream in(fs::path(NMSIM_SOURCE_DIR) / "scenarios" / "README.md");
    ASSERT_TRUE(in) << "scenarios/README.md";
    std::string readme((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    size_t start = readme.find("```yaml\n", readme.find("### `workload.dnn`"));
    ASSERT_NE(start, std::string::npos);
    start += 8;
    size_t end = readme.find("```", start);
    ASSERT_NE(end, std::string::npos);
    fs::create_directory_symlink(kModels, m_dir / "models");
    Scenario s = load_text(readme.substr(start, end - start), "chip_example.yaml");
    EXPECT_EQ(s.platform_kind, "spinnaker2_chip");
    ASSERT_EQ(s.workload.kind(), "dnn");
    EXPECT_EQ(dnn(s).model, (m_dir / "models" / "mlp_fmnist_int8.onnx").string());
    EXPECT_FALSE(dnn(s).labels.empty());
}

}  // namespace
}  // namespace nmsim::scenario

// ---- brainscales2: workload.bss2 ------------------------------------------------------------

namespace nmsim::scenario {
namespace {

class Bss2ScenarioTest : public ScenarioTest {
protected:
    void SetUp() override {
        ScenarioTest::SetUp();
        write_file(m_dir / "net.yaml", "populations: []\n");
    }
};

TEST_F(Bss2ScenarioTest, LoadsRunsSweepAndProbes) {
    const Scenario s = load_text(
        "platform: {kind: brainscales2}\n"
        "workload:\n"
        "  bss2:\n"
        "    network: net.yaml\n"
        "    runtime_us: 250\n"
        "    runs:\n"
        "      - inputs:\n"
        "          - {population: a, kind: poisson, rate_hz: 1000, start_us: 10, stop_us: 200}\n"
        "          - {population: b, kind: times, times_us: [[1, 3.5], [], [2]]}\n"
        "      - inputs: []\n"
        "    madc: {population: c, neuron: 3}\n"
        "    cadc: true\n"
        "    dot: g.dot\n");
    ASSERT_EQ(s.workload.kind(), "bss2");
    const Bss2Workload& w = bss2(s);
    EXPECT_EQ(w.network, (m_dir / "net.yaml").string());
    EXPECT_EQ(w.runtime_us, 250);
    ASSERT_EQ(w.runs.size(), 2u);
    ASSERT_EQ(w.runs[0].inputs.size(), 2u);
    EXPECT_EQ(w.runs[0].inputs[0].kind, workloads::bss2::Input::Kind::poisson);
    EXPECT_EQ(w.runs[0].inputs[0].rate_hz, 1000);
    EXPECT_EQ(w.runs[0].inputs[0].start_us, 10);
    EXPECT_EQ(w.runs[0].inputs[0].stop_us.value_or(-1), 200);
    EXPECT_EQ(w.runs[0].inputs[1].times_us, (std::vector<std::vector<double>>{{1, 3.5}, {}, {2}}));
    ASSERT_TRUE(w.madc);
    EXPECT_EQ(w.madc->population, "c");
    EXPECT_EQ(w.madc->neuron, 3u);
    EXPECT_TRUE(w.cadc);
    EXPECT_EQ(w.dot, "g.dot");
    // The dump loads back to the same scenario.
    const Scenario again = load_text(dump(s), "dump.yaml");
    EXPECT_EQ(diff_resolved(s, again), "");

    const Scenario sweep = load_text(
        "platform: {kind: brainscales2}\n"
        "workload:\n"
        "  bss2:\n"
        "    network: net.yaml\n"
        "    input_sweep: {population: a, kind: regular, rates_hz: [10, 20, 30]}\n",
        "sweep.yaml");
    ASSERT_EQ(bss2(sweep).runs.size(), 3u);
    EXPECT_EQ(bss2(sweep).runs[2].inputs[0].rate_hz, 30);
    EXPECT_EQ(bss2(sweep).runs[2].inputs[0].kind, workloads::bss2::Input::Kind::regular);
}

TEST_F(Bss2ScenarioTest, ErrorsNameLineAndKey) {
    auto errs = errors_of(
        "platform: {kind: brainscales2}\n"
        "workload:\n"
        "  bss2:\n"
        "    network: missing.yaml\n"
        "    runtime_us: -1\n"
        "    runs:\n"
        "      - inputs:\n"
        "          - {population: a, kind: poison, rate_hz: 1}\n"
        "          - {population: b, kind: times, times_us: [[5000]]}\n"
        "    colour: red\n");
    ASSERT_EQ(errs.size(), 5u);
    EXPECT_EQ(errs[0].origin.line, 4);
    EXPECT_EQ(errs[0].key, "workload.bss2.network");
    EXPECT_NE(errs[0].message.find("network file not found"), std::string::npos);
    EXPECT_EQ(errs[1].key, "workload.bss2.runtime_us");
    EXPECT_EQ(errs[2].key, "workload.bss2.runs.0.inputs.0.kind");
    EXPECT_NE(errs[2].message.find("did you mean \"poisson\""), std::string::npos)
        << errs[2].message;
    EXPECT_EQ(errs[3].key, "workload.bss2.runs.0.inputs.1.times_us.0.0");
    EXPECT_EQ(errs[4].key, "workload.bss2.colour");

    errs = errors_of(
        "platform: {kind: brainscales2}\n"
        "workload:\n"
        "  bss2:\n"
        "    network: net.yaml\n"
        "    runs: [{inputs: []}]\n"
        "    input_sweep: {population: a, rates_hz: [1]}\n");
    EXPECT_EQ(only_error(errs, path(), 6, 18, "workload.bss2.input_sweep"),
              "give either runs or input_sweep, not both");

    errs = errors_of(
        "platform: {kind: brainscales2}\n"
        "workload:\n"
        "  cores: []\n"
        "  bss2: {network: net.yaml}\n");
    ASSERT_EQ(errs.size(), 2u) << ScenarioError(errs).what();
    EXPECT_EQ(errs[0].str(), path() +
                                 ":3:3: error: workload.pe: the pe workload runs on "
                                 "platform kind spinnaker2_pe or spinnaker2_chip, not "
                                 "brainscales2");
    EXPECT_EQ(errs[1].key, "workload.bss2");
}

// ---- the frame: workload kinds, the old pe form, --base-dir ----------------------------------

TEST(WorkloadRegistry, KindsPlatformsAndKeys) {
    EXPECT_EQ(workload_names(),
              (std::vector<std::string>{"pe", "dnn", "bss2", "snn", "hagen", "deepr"}));
    ASSERT_NE(find_workload_schema("dnn"), nullptr);
    EXPECT_EQ(find_workload_schema("dnn")->platforms,
              (std::vector<std::string>{"spinnaker2_chip"}));
    EXPECT_EQ(find_workload_schema("nope"), nullptr);
    const WorkloadSchema& pe_schema = *find_workload_schema("pe");
    EXPECT_EQ(pe_schema.platforms, (std::vector<std::string>{"spinnaker2_pe", "spinnaker2_chip"}));
    EXPECT_EQ(pe_schema.children(""), (std::vector<std::string>{"buffers", "cores", "checks"}));
    EXPECT_EQ(pe_schema.children("cores[]"), (std::vector<std::string>{"pe", "firmware", "args"}));
    EXPECT_EQ(pe_schema.children("buffers.<name>"),
              (std::vector<std::string>{"dtype", "shape", "at", "address", "init"}));
    EXPECT_EQ(find_workload_schema("bss2")->children("runs[].inputs[]"),
              (std::vector<std::string>{"population", "kind", "rate_hz", "start_us", "stop_us",
                                        "times_us"}));
    for (const WorkloadSchema* k : workload_schemas())
        for (const KeyDoc& d : k->keys) {
            EXPECT_FALSE(d.doc.empty()) << k->name << "." << d.key;
            EXPECT_FALSE(d.type.empty()) << k->name << "." << d.key;
            EXPECT_FALSE(d.default_value.empty()) << k->name << "." << d.key;
        }
}

// scenarios/README.md documents every key a workload schema declares (the key's last segment in
// backticks, in the kind's sections) and every frame key.
TEST(WorkloadRegistry, ReadmeDocumentsEveryKey) {
    std::ifstream in(fs::path(NMSIM_SOURCE_DIR) / "scenarios" / "README.md");
    ASSERT_TRUE(in);
    const std::string readme((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
    // The text of the sections whose heading names workload.<kind> (and its sub-sections).
    auto sections = [&](const std::string& kind) {
        std::string text;
        for (size_t at = readme.find("### `workload." + kind); at != std::string::npos;
             at = readme.find("### `workload." + kind, at + 1)) {
            const size_t end = readme.find("\n### ", at + 1);
            text += readme.substr(at, end == std::string::npos ? std::string::npos : end - at);
        }
        return text;
    };
    for (const WorkloadSchema* k : workload_schemas()) {
        const std::string text = sections(k->name);
        EXPECT_FALSE(text.empty()) << "no section for workload." << k->name;
        for (const KeyDoc& d : k->keys) {
            const size_t cut = d.key.find_last_of(".]");
            const std::string leaf = cut == std::string::npos ? d.key : d.key.substr(cut + 1);
            const bool found = text.find("`" + leaf + "`") != std::string::npos ||
                               text.find("." + leaf + "`") != std::string::npos;
            EXPECT_TRUE(found) << "workload." << k->name << "." << d.key << " is not documented";
        }
    }
    for (const KeyDoc& d : frame_keys()) {
        const std::string leaf = d.key.substr(d.key.find_last_of('.') + 1);
        EXPECT_NE(readme.find("`" + leaf + "`"), std::string::npos) << d.key;
    }
}

// A small file that expands (aliases are copied) to a huge tree stops the load at once.
// Bytes that are not UTF-8 (a fuzz finding: yaml-cpp read them as they were, its emitter replaced
// them, so the dump no longer loaded back equal) are an error in a value, a key or --set.
TEST_F(ScenarioTest, TextMustBeUtf8) {
    auto errs = errors_of(std::string(kMinimal) + "description: \"a\xff\xfe\"\n");
    EXPECT_EQ(only_error(errs, path(), 5, 14, ""),
              "not valid UTF-8 (byte 0xff at offset 1); YAML files are UTF-8 text");
    errs = errors_of(std::string(kMinimal) + "na\xc3me: x\n");
    ASSERT_FALSE(errs.empty());
    EXPECT_EQ(errs[0].str(),
              path() +
                  ":5:1: error: not valid UTF-8 (byte 0xc3 at offset 2); YAML files are UTF-8 "
                  "text");
    m_opts.sets = {"description=\xe2\x82"};
    errs = errors_of(kMinimal);
    EXPECT_EQ(only_error(errs, "--set", 0, 0, ""),
              "malformed --set: not valid UTF-8 (byte 0xe2 at offset 12)");
    // Valid multi-byte text loads and dumps back equal.
    m_opts.sets = {};
    const Scenario ok = load_text(std::string(kMinimal) + "description: \"µs → ∞ 😀\"\n");
    EXPECT_EQ(ok.description, "µs → ∞ 😀");
    const Scenario back = load_text(dump(ok), "back.yaml");
    EXPECT_EQ(diff_resolved(ok, back), "");
}

TEST(ScenarioFormat, Utf8Validation) {
    EXPECT_EQ(invalid_utf8(""), std::string::npos);
    EXPECT_EQ(invalid_utf8("plain \xc2\xb5 \xe2\x82\xac \xf4\x8f\xbf\xbf"), std::string::npos);
    EXPECT_EQ(invalid_utf8("ab\x80"), 2u);                // a lone continuation byte
    EXPECT_EQ(invalid_utf8("a\xc3"), 1u);                 // cut short
    EXPECT_EQ(invalid_utf8("\xc0\xaf"), 0u);              // overlong '/'
    EXPECT_EQ(invalid_utf8("x\xe0\x80\xaf"), 1u);         // overlong, 3 bytes
    EXPECT_EQ(invalid_utf8("\xed\xa0\x80"), 0u);          // a surrogate (U+D800)
    EXPECT_EQ(invalid_utf8("\xf4\x90\x80\x80"), 0u);      // above U+10FFFF
    EXPECT_EQ(invalid_utf8("\xf8\x88\x80\x80\x80"), 0u);  // 5-byte form
    EXPECT_EQ(invalid_utf8("\xe2\x28\xa1"), 0u);          // bad continuation
    EXPECT_EQ(utf8_problem("ok"), "");
    EXPECT_EQ(utf8_problem("a\xff"), "not valid UTF-8 (byte 0xff at offset 1)");
}

// load_text (the fuzz harness's entry point) is load() without reading the file: same scenario,
// same messages, relative paths against the named path's directory.
TEST_F(ScenarioTest, LoadTextEqualsLoadingTheFile) {
    const std::string text = std::string(kMinimal) + "seed: 7\n";
    const Scenario from_file = load_text(text);
    const Scenario in_memory = scenario::load_text(text, path(), m_opts);
    EXPECT_EQ(diff_resolved(from_file, in_memory), "");
    EXPECT_EQ(in_memory.path, path());
    EXPECT_EQ(in_memory.source_text, text);
    try {
        scenario::load_text("seed: x\n", path("nowhere.yaml"), m_opts);
        ADD_FAILURE() << "no ScenarioError";
    } catch (const ScenarioError& e) {
        EXPECT_EQ(e.errors().at(0).origin.file, path("nowhere.yaml"));
        EXPECT_FALSE(fs::exists(path("nowhere.yaml")));
    }
}

TEST_F(ScenarioTest, AliasBombIsBounded) {
    std::string bomb = "x0: &x0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n";
    for (int i = 1; i < 8; ++i) {
        bomb += "x" + std::to_string(i) + ": &x" + std::to_string(i) + " [";
        for (int k = 0; k < 10; ++k) bomb += (k ? ", *x" : "*x") + std::to_string(i - 1);
        bomb += "]\n";
    }
    auto errs = errors_of(bomb + "platform: {kind: spinnaker2_pe}\n");
    ASSERT_EQ(errs.size(), 1u) << ScenarioError(errs).what();
    EXPECT_NE(errs[0].message.find("expands to more than 1000000 nodes"), std::string::npos)
        << errs[0].str();
}

TEST_F(ScenarioTest, WallTimeLimit) {
    const Scenario s = load_text(std::string(kMinimal) + "limits: {max_wall_s: 90}\n");
    EXPECT_EQ(s.limits.max_wall_s, 90.0);
    EXPECT_EQ(load_text(kMinimal).limits.max_wall_s, 0.0);  // none
    auto errs = errors_of(std::string(kMinimal) + "limits: {max_wall_s: -1}\n");
    EXPECT_EQ(only_error(errs, path(), 5, 22, "limits.max_wall_s"),
              "expected a wall-time limit in seconds in [0.001, 1e+09], got \"-1\"");
    errs = errors_of(std::string(kMinimal) + "limits: {wall: 1}\n");
    EXPECT_EQ(only_error(errs, path(), 5, 10, "limits.wall"),
              "unknown key \"wall\" (valid keys: max_wall_s)");
}

TEST_F(ScenarioTest, OldPeFormReadsAsWorkloadPeWithAWarning) {
    const std::string old_form =
        "platform: {kind: spinnaker2_pe}\n"
        "workload:\n"
        "  buffers: {x: {dtype: int8, shape: [4]}}\n"
        "  cores:\n"
        "    - firmware: mla_fc\n"
        "      args: {x: \"@x\"}\n"
        "checks: [{kind: equal, buffer: x, expect: x}]\n";
    const std::string new_form =
        "platform: {kind: spinnaker2_pe}\n"
        "workload:\n"
        "  pe:\n"
        "    buffers: {x: {dtype: int8, shape: [4]}}\n"
        "    cores:\n"
        "      - firmware: mla_fc\n"
        "        args: {x: \"@x\"}\n"
        "    checks: [{kind: equal, buffer: x, expect: x}]\n";
    const Scenario a = load_text(old_form);
    const Scenario b = load_text(new_form);
    EXPECT_EQ(diff_resolved(a, b), "");
    ASSERT_EQ(a.warnings.size(), 1u);
    EXPECT_EQ(a.warnings[0].str(),
              path() +
                  ":3:3: warning: workload: old form: buffers and cores (and the top-level "
                  "checks) now sit under workload.pe; read as workload.pe");
    EXPECT_TRUE(b.warnings.empty());
    // Positions stay those of the file as written.
    EXPECT_EQ(pe(a).checks.at(0).origin.str(), path() + ":7:10");
    EXPECT_EQ(pe(b).checks.at(0).origin.str(), path() + ":8:14");
    // Top-level checks next to the new form are an error that says where they belong.
    auto errs = errors_of(new_form + "checks: []\n");
    EXPECT_EQ(only_error(errs, path(), 9, 1, "checks"),
              "checks belong to the pe workload: write them as workload.pe.checks");
}

TEST_F(ScenarioTest, OldSetKeysOfThePeWorkloadAreRewritten) {
    m_opts.sets = {"workload.cores.0.firmware=dma", "checks.0.kind=equal", "checks.0.buffer=z",
                   "checks.0.expect=z"};
    const Scenario s = load_text(
        "platform: {kind: spinnaker2_pe}\n"
        "workload: {pe: {buffers: {z: {dtype: int8, shape: [2]}}, cores: [{firmware: mla_fc}]}}\n");
    EXPECT_EQ(pe(s).cores.at(0).firmware, "dma");
    ASSERT_EQ(pe(s).checks.size(), 1u);
    EXPECT_EQ(pe(s).checks[0].kind, "equal");
    ASSERT_EQ(s.warnings.size(), 1u);
    EXPECT_EQ(s.warnings[0].str(),
              "--set: warning: workload.cores.0.firmware: old form: the pe "
              "workload's keys are now workload.pe.cores.0.firmware");
}

TEST_F(ScenarioTest, OneWorkloadPerScenario) {
    auto errs = errors_of(
        "platform: {kind: spinnaker2_pe}\n"
        "workload:\n"
        "  pe: {cores: [{firmware: mla_fc}]}\n"
        "  dnn: {count: 1}\n");
    EXPECT_EQ(only_error(errs, path(), 4, 3, "workload.dnn"),
              "a scenario runs one workload; \"pe\" is given at " + path() + ":3:3");
    errs = errors_of("platform: {kind: spinnaker2_pe}\nworkload: [pe]\n");
    EXPECT_EQ(only_error(errs, path(), 2, 11, "workload"),
              "expected a map with one workload kind (pe, dnn, bss2, snn, hagen, deepr), got a list");
}

TEST_F(ScenarioTest, BaseDirResolvesRelativePaths) {
    write_file(m_dir / "elsewhere" / "prog.elf", "x");
    m_opts.base_dir = (m_dir / "elsewhere").string();
    const Scenario s = load_text(
        "platform: {kind: spinnaker2_pe}\n"
        "workload: {pe: {cores: [{firmware: prog.elf}]}}\n");
    EXPECT_EQ(pe(s).cores.at(0).firmware_path, (m_dir / "elsewhere" / "prog.elf").string());
    m_opts.base_dir.clear();
    auto errs = errors_of(
        "platform: {kind: spinnaker2_pe}\n"
        "workload: {pe: {cores: [{firmware: prog.elf}]}}\n");
    EXPECT_EQ(only_error(errs, path(), 2, 36, "workload.pe.cores.0.firmware"),
              "firmware file not found: " + (m_dir / "prog.elf").string());
}

}  // namespace
}  // namespace nmsim::scenario
