// DRAM image writer and reader: graph + tiling -> the bytes of seed 000 Fig. 2 (global
// configuration, time area, linked layer configurations with per-worker weights and biases, data
// memory), in the layout of firmware/include/nmsim/hw/spinnaker2/dnn_image.h. Plain C++: no
// SystemC, no models (docs/architecture.md, principle 6). See docs/compiler.md, "DRAM image".
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "nmsim/hw/spinnaker2/dnn_image.h"
#include "tools/compiler/graph.h"
#include "tools/compiler/tiling.h"

namespace nmsim::compiler {

// Where the image goes and which PEs run it.
struct ImageTarget {
    uint32_t base = 0x20000000u;       // a DRAM global address (s2_dram_global_addr(0, 0))
    uint32_t scheduler_pe = 0;         // global PE index
    std::vector<uint32_t> worker_pes;  // global PE indices; a layer with w workers uses the first w
};

// One activation tensor in the data memory (int8, graph element order).
struct TensorPlacement {
    uint32_t addr = 0;
    uint32_t size = 0;  // bytes
    Shape shape;
    // {C, H, W} when the bytes are the HWC order of that feature map (a [1, C, H, W] map, or
    // a flatten of one); empty when they are in the graph's row-major order.
    std::vector<int64_t> hwc;
};

struct DramImage {
    uint32_t base = 0;
    std::vector<uint8_t> bytes;  // bytes[i] lives at base + i
    uint32_t global_addr = 0, worker_pes_addr = 0;
    uint32_t time_addr = 0, time_size = 0;
    uint32_t first_layer_addr = 0, finish_addr = 0;
    uint32_t data_addr = 0, data_size = 0;
    // By layer name: the output tensor of every graph layer (input and output layers included;
    // flatten and output layers share their input's placement).
    std::map<std::string, TensorPlacement> tensors;
    std::string input_layer, output_layer;  // names of the graph's input and output layers
    std::vector<std::string> list_layers;   // graph layer of each layer-list entry, in order
};

// Builds the image. Throws CompileError (prefixed with graph.source) for what the image cannot
// express (batch > 1 feature maps, unequal strides or pads, softmax over an HWC map), a tiling
// that does not match the graph, too few worker PEs, or an image that does not fit the DRAM
// window.
DramImage build_image(const Graph& graph, const std::vector<LayerTiling>& tiling,
                      const ImageTarget& target);

// The image read back through the dnn_image.h structs only.
struct DecodedWorker {
    s2_dnn_worker_t cfg{};
    std::vector<std::vector<int8_t>> weights;  // per part: B[k][pn] row-major
    std::vector<std::vector<int32_t>> biases;  // per part: pn values (empty without the flag)
};

struct DecodedLayer {
    uint32_t addr = 0;
    s2_dnn_layer_t header{};
    std::vector<DecodedWorker> workers;
};

struct DecodedImage {
    s2_dnn_global_t global{};
    std::vector<uint32_t> worker_pes;
    std::vector<DecodedLayer> layers;  // FINISH excluded
    DecodedLayer finish;
};

// Throws std::runtime_error on a bad magic or version, a truncated image, an address outside the
// image, a misaligned region or a list that does not end in FINISH.
DecodedImage decode_image(const std::vector<uint8_t>& bytes, uint32_t base);

}  // namespace nmsim::compiler
