// libFuzzer harness of the ONNX front end (tools/compiler/onnx_frontend: parse_onnx on the bytes
// of a serialised ModelProto), then, for a model that imports, the compile steps `nmsim run` takes
// on a dnn workload (tiling, DRAM image, its decoder) and the integer reference, each bounded in
// size so that one input stays fast. The input is named "fuzz.onnx".
//
// Fine: CompileError (from the front end: its message starts with "fuzz.onnx: " and names a node,
// tensor or layer), CompileError from tiling and the image, std::invalid_argument from the
// reference. Findings: any other exception, a crash, a sanitizer report, and an imported graph
// with a layer outside graph.h's limits (layer_problem).
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "tools/compiler/dram_image.h"
#include "tools/compiler/graph_reference.h"
#include "tools/compiler/onnx_frontend.h"
#include "tools/compiler/tiling.h"
#include "tools/fuzz/fuzz_support.h"

namespace nc = nmsim::compiler;

namespace {

const std::string kSource = "fuzz.onnx";

// Past these the steps after the front end are skipped (they are linear in them; the limits of
// graph.h are far larger).
constexpr int64_t kMaxElements = 4'000'000;  // sum of the layers' output elements
constexpr int64_t kMaxOps = 20'000'000;      // reference multiply-adds / window elements

// The reference's work for `l`: output elements times the inputs each one reads.
int64_t ops_of(const nc::Layer& l) {
    const int64_t out = nc::shape_elements(l.out_shape);
    int64_t per = 1;
    if (l.weights && !l.weights->shape.empty() && l.weights->shape[0] > 0)
        per = nc::shape_elements(l.weights->shape) / l.weights->shape[0];
    else if (l.kind == nc::LayerKind::maxpool || l.kind == nc::LayerKind::avgpool)
        per = int64_t{l.window.kernel_h} * l.window.kernel_w;
    else if (!l.in_shapes.empty() && l.kind == nc::LayerKind::softmax)
        per = 2;
    int64_t ops = 0;
    return nc::checked_mul(out, per, &ops) ? ops : kMaxOps + 1;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string bytes(reinterpret_cast<const char*>(data), size);
    nc::Graph g;
    try {
        g = nc::parse_onnx(bytes, kSource);
    } catch (const nc::CompileError& e) {
        nmsim::fuzz::expect_located(e.what(), kSource + ": ");
        return 0;
    }
    int64_t elements = 0, ops = 0;
    const nc::Layer* input = nullptr;
    for (const nc::Layer& l : g.layers) {
        const std::string why = nc::layer_problem(l);
        if (!why.empty())
            nmsim::fuzz::finding("imported layer '" + l.name + "' breaks the limits: " + why);
        elements += nc::shape_elements(l.out_shape);
        ops = std::min(ops + std::min(ops_of(l), kMaxOps + 1), kMaxOps + 1);
        if (l.kind == nc::LayerKind::input) input = &l;
    }
    if (elements > kMaxElements) return 0;
    try {
        nc::TilingTarget t;
        t.max_workers = 4;
        t.sram_budget_bytes = 96 * 1024;
        const std::vector<nc::LayerTiling> tiling = nc::tile_graph(g, t);
        nc::ImageTarget target;
        for (uint32_t pe = 1; pe <= 4; ++pe) target.worker_pes.push_back(pe);
        const nc::DramImage img = nc::build_image(g, tiling, target);
        nc::decode_image(img.bytes, img.base);
    } catch (const nc::CompileError&) {
    }
    if (!input || ops > kMaxOps) return 0;
    try {
        nc::run_reference(
            g, std::vector<int8_t>(static_cast<size_t>(nc::shape_elements(input->out_shape)), 3),
            nc::ReferenceOptions::onnx());
    } catch (const std::invalid_argument&) {
    }
    return 0;
}
