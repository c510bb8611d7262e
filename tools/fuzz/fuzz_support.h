// Shared by the libFuzzer harnesses (docs/fuzzing.md): a finding is anything a loader does with
// bad input other than throwing its documented error. The harnesses report a broken invariant
// (a wrong routing, a dump that does not load back, an error without location) through
// finding(), which prints the message and aborts, so libFuzzer saves the input as a crash.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

namespace nmsim::fuzz {

[[noreturn]] inline void finding(const std::string& what) {
    std::fprintf(stderr, "nmsim fuzz finding: %s\n", what.c_str());
    std::fflush(stderr);
    std::abort();
}

// The documented error must say where: its message starts with the input's name.
inline void expect_located(const std::string& message, const std::string& source) {
    if (message.rfind(source, 0) != 0)
        finding("error message does not start with \"" + source + "\": " + message);
}

}  // namespace nmsim::fuzz
