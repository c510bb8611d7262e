// The host program of a DNN inference scenario on the full SpiNNaker2 chip (platform kind
// spinnaker2_chip, workload.dnn): compiles the ONNX model into a DRAM image (tools/compiler),
// loads the generic scheduler and worker firmware, writes the image through the host link, runs
// the inferences one input at a time, reads every output and the time-measurement area back,
// checks the outputs bit-exactly against the integer reference of the quantised graph, and
// reports accuracy and the per-layer runtime breakdown (seed 000 Table II). docs/dnn_flow.md.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "platforms/spinnaker2/chip.h"
#include "platforms/spinnaker2/run.h"
#include "tools/scenario/scenario.h"

namespace nmsim::spinnaker2 {

// Defaults + scenario overrides for the chip (as resolve_params for the PE platform).
ChipParams resolve_chip_params(const scenario::Scenario& s, std::vector<ParamValue>* rows);

// One inference's times, read from the time area (cycles of the recording PE) and converted.
struct DnnEntryTime {
    std::string name;   // "setup", the graph layer's name, "cleanup"
    std::string kind;   // "setup", "linear", "conv2d", ..., "cleanup"
    uint32_t workers = 0;
    double us = 0;             // scheduler interval
    double load_us = 0;        // mean over the layer's workers: waiting for weight/bias DMA
                               // (layers without constants: input DMA)
    double compute_us = 0;     // mean over the layer's workers: MLA / core compute
    double worker_us = 0;      // mean over the layer's workers: their whole interval
};

struct DnnRunSummary {
    uint64_t inferences = 0;        // completed
    uint64_t bit_exact = 0;         // outputs equal to the reference
    uint64_t labelled = 0;
    uint64_t correct_chip = 0, correct_reference = 0, correct_float = 0;
    bool have_float = false;
    std::vector<DnnEntryTime> mean;  // setup, layers, cleanup: means over the inferences
    double total_us = 0;             // mean setup start .. cleanup end
    double image_load_us = 0;        // host link: DRAM image written once
    double host_per_inference_us = 0;  // host link: mean RUN signal .. output and times read
};

RunResult run_chip_scenario(const scenario::Scenario& s, const RunOptions& o, std::ostream& out,
                            std::ostream& err, DnnRunSummary* summary = nullptr);

}  // namespace nmsim::spinnaker2
