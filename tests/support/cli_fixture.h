// End-to-end tests of the nmsim executables: a fixture that gives each test a temporary working
// directory (kept and named on failure) and runs a tool there as a subprocess, with the helpers
// those tests share.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace nmsim::test {

const std::string kNmsim = NMSIM_BINARY_DIR "/bin/nmsim";
const std::string kScenarios = NMSIM_SOURCE_DIR "/scenarios/";

struct Proc {
    int rc = -1;
    std::string out, err;
};

// Single-quoted for /bin/sh.
inline std::string quote(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

inline std::string slurp(const std::filesystem::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

inline bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

inline std::string show(const Proc& p) {
    return "exit " + std::to_string(p.rc) + "\n--- stdout\n" + p.out + "--- stderr\n" + p.err;
}

// "  simulated time   123.456 us" from a run report; negative if absent.
inline double simulated_us(const std::string& report) {
    std::smatch m;
    static const std::regex re(R"(simulated time\s+([0-9.]+) us)");
    return std::regex_search(report, m, re) ? std::stod(m[1].str()) : -1.0;
}

class CliTest : public ::testing::Test {
protected:
    void SetUp() override {
        std::string tmpl = (std::filesystem::temp_directory_path() / "nmsim_cli_XXXXXX").string();
        ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
        m_dir = tmpl;
    }
    void TearDown() override {
        if (HasFailure()) {
            std::printf("kept %s for inspection\n", m_dir.c_str());
            return;
        }
        std::error_code ec;
        std::filesystem::remove_all(m_dir, ec);
    }

    // Runs `exe args...` in the temporary directory; stdout and stderr go to files there.
    // `shell_prefix` (e.g. "ulimit -v 8000000") runs first in the same shell.
    Proc run_tool(const std::string& exe, const std::vector<std::string>& args,
                  const std::string& shell_prefix = "") {
        const std::filesystem::path out = m_dir / "stdout.txt", err = m_dir / "stderr.txt";
        std::string cmd = "cd " + quote(m_dir.string()) + " && ";
        if (!shell_prefix.empty()) cmd += shell_prefix + " && ";
        cmd += quote(exe);
        for (const auto& a : args) cmd += " " + quote(a);
        cmd += " >" + quote(out.string()) + " 2>" + quote(err.string()) + " </dev/null";
        Proc p;
        const int st = std::system(cmd.c_str());
        p.rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
        p.out = slurp(out);
        p.err = slurp(err);
        return p;
    }
    Proc nmsim(const std::vector<std::string>& args) { return run_tool(kNmsim, args); }

    std::filesystem::path m_dir;
};

}  // namespace nmsim::test
