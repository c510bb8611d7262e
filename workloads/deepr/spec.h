// The `deepr` workload: DEEP R training of a sparse perceptron on the SpiNNaker2 prototype (seed
// 003): one PE without or with the PRNG and EXP accelerators (1P, 1PA) or four PEs in the
// checkerboard partition (4PA), images imported from DRAM by DMA; every iteration checked against
// the bit-exact reference (tools/reference/deepr_ref.h). Schema in schema.cpp, host program in
// host.cpp; docs/deepr.md.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>

#include "tools/scenario/workload.h"

namespace nmsim::workloads::deepr {

using scenario::Origin;

struct DeeprWorkload : scenario::WorkloadSpec {
    uint32_t cores = 1;             // 1, or 4 (seed 003 Fig. 5 checkerboard)
    bool accelerators = true;       // PRNG and EXP accelerators (1PA, 4PA) or software (1P)
    uint64_t iterations = 100;      // training iterations (one image each)
    uint32_t rewiring_period = 10;  // iterations between rewiring steps (seed 003 sec. 3.2)
    std::array<uint32_t, 4> layers{784, 300, 100, 10};
    std::array<uint32_t, 3> connections{2352, 900, 300};  // 1 %, 3 %, 30 % (seed 003 sec. 2.2)
    double learning_rate = 0.05;                          // seed 003 sec. 2.2
    uint32_t lr_halving_epochs = 2;                       // the learning rate halves every 2 epochs
    double l1 = 1e-5;                                     // L1 regularisation alpha
    double noise = 3e-4;                                  // sigma of the gradient noise
    uint32_t max_new = 64;  // new connections per block and rewiring step, at most
    // in_place: seed 003 sec. 2.4 (swaps, in-place merge); linear: compaction, buffered merge
    std::string rewiring = "in_place";
    uint32_t exp_iterations = 16;  // EXP table steps
    // Data: IDX files (MNIST format), plain or gzip; default Debian's Fashion-MNIST.
    std::string train_images, train_labels, test_images, test_labels;
    uint64_t train_count = 50000;  // training images used (the first ones of the file)
    uint64_t epoch_size = 0;       // iterations per epoch (0: train_count)
    uint64_t test_count = 100;     // test images classified on the chip after training
    uint32_t first_pe = 0;         // the PEs are first_pe .. first_pe + cores - 1
    bool record = true;            // per-iteration records to DRAM (needed by `check`)
    bool check = true;             // every iteration against the bit-exact reference
    std::string firmware = "deepr";
    std::string firmware_path;
    Origin origin;
    std::map<std::string, Origin> origins;

    static constexpr const char* kDatasetDir = "/usr/share/datasets/fashion-mnist";
    static constexpr uint64_t kMaxIterations = 100'000'000;

    Origin origin_of(const std::string& field) const;
    std::unique_ptr<scenario::WorkloadSpec> clone() const override;
    void dump(YAML::Emitter& e) const override;
    void diff(const scenario::WorkloadSpec& other, const std::string& prefix,
              scenario::Differ& d) const override;
};

const scenario::WorkloadSchema& schema();

}  // namespace nmsim::workloads::deepr
