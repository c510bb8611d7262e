// The `dnn` workload: DNN inference on the full SpiNNaker2 chip (spinnaker2_chip), seed 000's
// flow. The host compiler turns `model` into a DRAM image; the generic scheduler/worker firmware
// runs `count` inferences of batch 1 on consecutive inputs; every output is checked against the
// integer reference. Schema in schema.cpp, host program in host.cpp; docs/dnn_flow.md.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tools/scenario/workload.h"

namespace nmsim::workloads::dnn {

using scenario::Origin;

struct DnnWorkload : scenario::WorkloadSpec {
    // Files, resolved against the scenario file to absolute paths; each must exist if given.
    std::string model;   // ONNX file (required)
    std::string inputs;  // raw int8 inputs back to back (required)
    // Optional ("" if absent): one uint8 label per input.
    std::string labels;
    // Optional ("" if absent): one uint8 class per input as predicted by the float model.
    std::string float_predictions;
    uint64_t first = 0;         // index of the first input used
    uint64_t count = 100;       // inferences (>= 1)
    uint32_t scheduler_pe = 0;  // global PE index (0..151)
    // Worker PEs: `workers: N` means the first N PEs after the scheduler in global index order
    // (skipping the scheduler), `workers: all` every other PE of the chip (151 with the default
    // 38 QPEs; the loader stores 0 and all_workers = true because the QPE count is a platform
    // parameter), `worker_pes: [..]` an explicit list (unique, not the scheduler). Exactly one of
    // workers / worker_pes; default: workers: 8.
    uint32_t workers = 8;
    bool all_workers = false;
    std::vector<uint32_t> worker_pes;  // explicit list (empty unless given)
    // Optional cap for the compiler's tiling search (0 = all workers).
    uint64_t max_workers_per_layer = 0;
    // Optional worker count per entry of the compiled layer list, in list order (0 = the
    // compiler's choice within max_workers_per_layer); e.g. [8, 4, 1, 1] pins seed 000 Table
    // II's worker counts.
    std::vector<uint64_t> layer_workers;
    // Optional published times (us) printed next to the simulated ones: setup, each entry of the
    // layer list, cleanup, total (e.g. seed 000 Table II); `published_source` names them.
    std::vector<double> published_us;
    std::string published_source;
    // Built-in program names or .elf paths, resolved like pe cores[].firmware.
    std::string scheduler_firmware = "dnn_scheduler";
    std::string scheduler_firmware_path;  // resolved absolute ELF path
    std::string worker_firmware = "dnn_worker";
    std::string worker_firmware_path;
    bool check = true;  // compare every output bit-exactly with the integer reference
    Origin origin;      // of the `dnn` map
    // Per field key ("model", "count", ...) for later messages: the value's origin, or the `dnn`
    // map's origin for a key left at its default; "worker_pes.<i>" for each listed PE.
    std::map<std::string, Origin> origins;

    // The origin of `field` (the dnn map's for a key left at its default).
    Origin origin_of(const std::string& field) const;

    std::unique_ptr<scenario::WorkloadSpec> clone() const override;
    void dump(YAML::Emitter& e) const override;
    void diff(const scenario::WorkloadSpec& other, const std::string& prefix,
              scenario::Differ& d) const override;
};

const scenario::WorkloadSchema& schema();

}  // namespace nmsim::workloads::dnn
