// The standing error-case table (cases.yaml beside this file): each bad input is written to a
// fresh directory, the named tool runs on it, and the run must end with the expected exit status,
// print every expected word on stderr (or stdout, for `nmsim-trace`), finish within its time, and
// show no crash: no sanitizer report, no uncaught exception, no signal death. Each case is its own
// ctest; the table runs in the Release and the ASan/UBSan builds alike.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "tests/support/cli_fixture.h"

namespace fs = std::filesystem;

namespace {

// A file the case writes: literal text, or a file of the source tree with text replaced (each
// `old` must occur: a stale case fails instead of testing nothing) or cut after `bytes` bytes.
struct InputFile {
    std::string text;
    std::string copy;  // source-tree path, "" = text
    std::vector<std::pair<std::string, std::string>> replace;
    long bytes = -1;  // -1 = all of it
};

struct Case {
    std::string name;
    int line = 0;
    std::string tool;  // nmsim or nmsim-trace
    std::vector<std::string> args;
    std::map<std::string, InputFile> files;
    int exit = 2;
    std::vector<std::string> words;
    std::string prefix;  // shell commands before the tool (ulimit, ...)
    int timeout_s = 60;
};

// "@SRC@" is the source tree.
std::string expand(std::string s) {
    const std::string key = "@SRC@";
    for (size_t p; (p = s.find(key)) != std::string::npos;)
        s.replace(p, key.size(), NMSIM_SOURCE_DIR);
    return s;
}

std::vector<Case> load_cases() {
    std::vector<Case> cases;
    const YAML::Node doc = YAML::LoadFile(NMSIM_ERROR_CASES);
    for (const auto& n : doc) {
        Case c;
        c.name = n["name"].as<std::string>();
        c.line = n.Mark().line + 1;
        const auto cmd = n["cmd"].as<std::vector<std::string>>();
        c.tool = cmd.at(0);
        for (size_t i = 1; i < cmd.size(); ++i) c.args.push_back(expand(cmd[i]));
        if (n["files"])
            for (const auto& f : n["files"]) {
                InputFile in;
                if (f.second.IsMap() && f.second["pieces"]) {
                    for (const auto& piece : f.second["pieces"])
                        for (int k = 0; k < piece[1].as<int>(); ++k)
                            in.text += piece[0].as<std::string>();
                } else if (f.second.IsMap()) {
                    in.copy = expand(f.second["copy"].as<std::string>());
                    in.bytes = f.second["bytes"] ? f.second["bytes"].as<long>() : -1;
                    for (const auto& r : f.second["replace"])
                        in.replace.emplace_back(r[0].as<std::string>(),
                                                expand(r[1].as<std::string>()));
                } else {
                    in.text = expand(f.second.as<std::string>());
                }
                c.files[f.first.as<std::string>()] = in;
            }
        c.exit = n["exit"].as<int>();
        c.words = n["words"].as<std::vector<std::string>>();
        if (n["prefix"]) c.prefix = n["prefix"].as<std::string>();
        if (n["timeout_s"]) c.timeout_s = n["timeout_s"].as<int>();
        cases.push_back(c);
    }
    return cases;
}

const std::vector<Case>& cases() {
    static const std::vector<Case> all = load_cases();
    return all;
}

std::string with_tmp(std::string s, const fs::path& dir) {
    const std::string key = "@TMP@";
    for (size_t p; (p = s.find(key)) != std::string::npos;) s.replace(p, key.size(), dir.string());
    return s;
}

void write_input(const fs::path& path, const InputFile& f, const fs::path& dir) {
    fs::create_directories(path.parent_path());
    std::ofstream out(path, std::ios::binary);
    if (f.copy.empty()) {
        out << with_tmp(f.text, dir);
        return;
    }
    std::string data = nmsim::test::slurp(f.copy);
    ASSERT_FALSE(data.empty()) << f.copy;
    for (const auto& [from, to] : f.replace) {
        const size_t at = data.find(from);
        ASSERT_NE(at, std::string::npos) << f.copy << " has no \"" << from << "\" to replace";
        data.replace(at, from.size(), with_tmp(to, dir));
    }
    if (f.bytes >= 0 && static_cast<size_t>(f.bytes) < data.size()) data.resize(f.bytes);
    out << data;
}

// Signs of a crash rather than an error the tool meant to report.
const char* const kCrashMarks[] = {"AddressSanitizer", "runtime error:",     "LeakSanitizer",
                                   "terminate called", "Segmentation fault", "Aborted",
                                   "internal error",   "core dumped"};

class ErrorCase : public nmsim::test::CliTest, public ::testing::WithParamInterface<size_t> {};

TEST_P(ErrorCase, EndsWithItsExitStatusAndMessage) {
    const Case& c = cases().at(GetParam());
    SCOPED_TRACE("tests/errors/cases.yaml:" + std::to_string(c.line) + ": " + c.name);
    for (const auto& [name, f] : c.files) write_input(m_dir / name, f, m_dir);
    const std::string exe = std::string(NMSIM_BINARY_DIR) + "/bin/" + c.tool;
    // The time limit: SIGKILL after timeout_s, so a hang fails the case (exit 137) quickly.
    std::string prefix = c.prefix;
    const nmsim::test::Proc p = run_tool(
        "timeout",
        [&] {
            std::vector<std::string> a = {"-s", "KILL", std::to_string(c.timeout_s), exe};
            for (const auto& arg : c.args) a.push_back(with_tmp(arg, m_dir));
            return a;
        }(),
        prefix);
    const std::string shown = nmsim::test::show(p);
    EXPECT_EQ(p.rc, c.exit) << shown;
    const std::string text = p.err + p.out;
    for (const auto& w : c.words)
        EXPECT_TRUE(nmsim::test::contains(text, w)) << "'" << w << "'\n" << shown;
    for (const char* m : kCrashMarks)
        EXPECT_FALSE(nmsim::test::contains(text, m)) << m << "\n" << shown;
}

std::string case_name(const ::testing::TestParamInfo<size_t>& info) {
    return cases().at(info.param).name;
}

INSTANTIATE_TEST_SUITE_P(Table, ErrorCase, ::testing::Range<size_t>(0, cases().size()), case_name);

TEST(ErrorCaseTable, NamesAreUniqueAndEveryCaseSaysWhatItExpects) {
    std::map<std::string, int> seen;
    for (const auto& c : cases()) {
        EXPECT_EQ(seen[c.name]++, 0) << "duplicate case " << c.name;
        EXPECT_FALSE(c.words.empty()) << c.name << ": no expected words";
        EXPECT_NE(c.exit, 0) << c.name << ": an error case exits non-zero";
        EXPECT_TRUE(c.tool == "nmsim" || c.tool == "nmsim-trace") << c.name << ": " << c.tool;
    }
    EXPECT_GE(cases().size(), 50u);
}

}  // namespace
