// libFuzzer harness of the BrainScaleS-2 network files (tools/compiler/bss2: the YAML loader, then
// map and route, then the independent routing verifier), the steps `nmsim run` takes on a bss2
// scenario's network before it builds the signal-flow graph. The input is the text of a network
// file, loaded as "fuzz_network.yaml".
//
// Fine: NetworkError from the loader or the router (the loader's errors start with the file
// name). Findings: any other exception, a crash, a sanitizer report, and a placement that the
// verifier finds wrong (events that reach other synapses than the network's connections).
#include <cstdint>
#include <string>
#include <vector>

#include "tools/compiler/bss2/network.h"
#include "tools/compiler/bss2/placement.h"
#include "tools/fuzz/fuzz_support.h"

namespace cb = nmsim::compiler::bss2;

namespace {
const std::string kPath = "fuzz_network.yaml";
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    cb::Network net;
    try {
        net = cb::parse_network(text, kPath);
    } catch (const cb::NetworkError& e) {
        nmsim::fuzz::expect_located(e.what(), kPath);
        return 0;
    }
    cb::Placement pl;
    try {
        pl = cb::map_and_route(net);
    } catch (const cb::NetworkError&) {
        return 0;  // a resource exhausted or a constraint the chip cannot meet
    }
    const std::vector<std::string> problems = cb::verify_routing(net, pl);
    if (!problems.empty()) {
        std::string all;
        for (const std::string& p : problems) all += "\n  " + p;
        nmsim::fuzz::finding("map_and_route made a placement the verifier refuses:" + all);
    }
    return 0;
}
