// libFuzzer harness of the scenario loader (tools/scenario with every workload schema: pe, dnn,
// bss2). The input is the YAML text of a scenario; its lines starting with "#set " (YAML comments,
// so the document does not see them) are also passed as --set items. The text is loaded as if it
// were scenarios/fuzz.yaml, so relative paths of the committed scenarios resolve, with a firmware
// directory holding an empty <name>.elf for every built-in program.
//
// Fine: a scenario, or ScenarioError (every error located at the file or --set). Findings: any
// other exception, a crash, a sanitizer report, and a loaded scenario whose dump() does not load
// back to the same resolved scenario (the -d run directory's config.yaml relies on it).
//
// NMSIM_FUZZ_PRINT_DICT=1 prints a libFuzzer dictionary of the schemas' keys and choice words
// (tools/fuzz/run.sh uses it) and exits.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tools/fuzz/fuzz_support.h"
#include "tools/scenario/scenario.h"

namespace fs = std::filesystem;
namespace sc = nmsim::scenario;

namespace {

const std::string kPath = std::string(NMSIM_SOURCE_DIR) + "/scenarios/fuzz.yaml";
std::string g_firmware_dir;

// The names of a dotted KeyDoc key, or the words of its type ("poisson|regular|times"): the
// identifiers among the pieces between `seps` (for types: less the words that describe them).
void add_words(const std::string& s, const char* seps, bool type, std::set<std::string>& out) {
    static const std::set<std::string> kTypeWords = {
        "bool", "int",  "list", "lists",    "map",     "name",   "of",
        "or",   "path", "real", "positive", "program", "string", "unsigned"};
    std::string w;
    for (const char c : s + seps[0]) {
        if (std::string(seps).find(c) == std::string::npos) {
            w += c;
            continue;
        }
        if (!w.empty() &&
            w.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") == std::string::npos &&
            !(type && kTypeWords.count(w)))
            out.insert(w);
        w.clear();
    }
}

// A libFuzzer dictionary entry: "text" with " and \ escaped.
void print_entry(const std::string& s) {
    std::string q;
    for (const char c : s) q += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
    std::printf("\"%s\"\n", q.c_str());
}

// Spellings the schemas do not list: the harness's --set lines, YAML syntax, values at limits.
const char* const kTokens[] = {"#set ",
                               "workload.pe.",
                               "workload.dnn.",
                               "workload.bss2.",
                               "pe0.sram",
                               "@",
                               "[",
                               "]",
                               "{",
                               "}",
                               ": ",
                               "- ",
                               "&a ",
                               "*a",
                               "!!str ",
                               "'",
                               "\"",
                               ".nan",
                               ".inf",
                               "-1",
                               "0x",
                               "1e300",
                               "18446744073709551616",
                               "KiB",
                               "MHz",
                               "ns",
                               "GB/s"};

void print_dict() {
    std::set<std::string> keys, words;
    for (const sc::KeyDoc& k : sc::frame_keys()) add_words(k.key, ".", false, keys);
    for (const std::string& p : sc::platform_kinds()) words.insert(p);
    for (const sc::WorkloadSchema* s : sc::workload_schemas()) {
        keys.insert(s->name);
        for (const sc::KeyDoc& k : s->keys) {
            add_words(k.key, ".[]", false, keys);
            add_words(k.type, "|,{}: ", true, words);
        }
    }
    keys.insert("params");
    for (const std::string& k : keys) print_entry(k + ":");
    for (const std::string& w : words) print_entry(w);
    for (const char* t : kTokens) print_entry(t);
}

// An empty <name>.elf for every built-in program (NMSIM_FUZZ_FIRMWARE, "a,b,...", from
// firmware/programs): the schemas only check that the file exists.
void make_firmware_dir() {
    char tmpl[] = "/tmp/nmsim-fuzz-fw-XXXXXX";
    if (!mkdtemp(tmpl)) {
        std::perror("mkdtemp");
        std::exit(1);
    }
    g_firmware_dir = tmpl;
    std::istringstream names(NMSIM_FUZZ_FIRMWARE);
    for (std::string n; std::getline(names, n, ',');)
        std::ofstream(fs::path(g_firmware_dir) / (n + ".elf"));
    std::atexit([] {
        std::error_code ec;
        fs::remove_all(g_firmware_dir, ec);
    });
}

void check_errors(const sc::ScenarioError& e) {
    if (e.errors().empty()) nmsim::fuzz::finding("ScenarioError without errors");
    for (const sc::ConfigError& c : e.errors()) {
        const std::string s = c.str();
        if (c.origin.file != kPath && c.origin.file != "--set")
            nmsim::fuzz::finding("error not located in the scenario or --set: " + s);
    }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    if (std::getenv("NMSIM_FUZZ_PRINT_DICT")) {
        print_dict();
        std::exit(0);
    }
    make_firmware_dir();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    sc::LoadOptions opts;
    opts.firmware_dirs = {g_firmware_dir};
    for (size_t at = 0; at < text.size();) {
        size_t end = text.find('\n', at);
        if (end == std::string::npos) end = text.size();
        if (text.compare(at, 5, "#set ") == 0)
            opts.sets.push_back(text.substr(at + 5, end - at - 5));
        at = end + 1;
    }
    sc::Scenario s;
    try {
        s = sc::load_text(text, kPath, opts);
    } catch (const sc::ScenarioError& e) {
        check_errors(e);
        return 0;
    }
    // The resolved scenario as YAML loads back to the same scenario (without the --set items:
    // they are part of it now).
    const std::string dumped = sc::dump(s);
    sc::LoadOptions again;
    again.firmware_dirs = opts.firmware_dirs;
    try {
        const sc::Scenario t = sc::load_text(dumped, kPath, again);
        const std::string d = sc::diff_resolved(s, t);
        if (!d.empty())
            nmsim::fuzz::finding("dump() does not load back equal: " + d + "\n--- dump:\n" +
                                 dumped);
    } catch (const sc::ScenarioError& e) {
        nmsim::fuzz::finding(std::string("dump() does not load back: ") + e.what() +
                             "\n--- dump:\n" + dumped);
    }
    return 0;
}
