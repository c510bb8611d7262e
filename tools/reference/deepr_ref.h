// Reference of DEEP R training as the firmware runs it (firmware/programs/deepr, docs/deepr.md):
// sparse 3-layer perceptron in the sorted coordinate format, SGD with L1 and noise on the active
// connections, deletion of connections whose amplitude crossed zero, insertion of random new ones
// with the PE's random stream, one core or seed 003's four-core checkerboard. With T = float it
// is bit-exact with the firmware (IEEE binary32, round to nearest, no fused multiply-add: this
// file is compiled with -ffp-contract=off like the firmware), with T = double it is the
// floating-point reference for accuracy (same random streams, std::exp in the softmax).
// Independent of the models; the generator's step and the EXP datapath come from the hardware
// headers (prng_regs.h, exp_regs.h) where they are defined once.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "nmsim/hw/spinnaker2/prng_regs.h"

namespace nmsim::reference {

struct DeeprSpec {
    std::array<uint32_t, 4> n{784, 300, 100, 10};         // layer sizes
    std::array<uint32_t, 3> connections{2352, 900, 300};  // active connections per matrix
    bool four_cores = false;                              // seed 003 Fig. 5 checkerboard
    uint32_t epoch_size = 50000;                          // iterations per epoch
    uint32_t lr_halving_epochs = 2;
    float learning_rate = 0.05f, l1 = 1e-5f, noise = 3e-4f;
    uint32_t rewiring_period = 10;
    uint32_t max_new = 64;  // new connections per block and rewiring step
    uint32_t exp_iterations = 16;
    std::array<s2_kiss_state_t, 4> seeds{};  // per cell (one core: seeds[0])
    std::array<float, 3> init_scale{};       // initial amplitude = |N(0,1)| * init_scale

    uint32_t cells() const { return four_cores ? 4u : 1u; }
    // Rows and columns of one cell's block of matrix l.
    uint32_t block_in(unsigned l) const { return four_cores ? n[l] / 2 : n[l]; }
    uint32_t block_out(unsigned l) const { return four_cores ? n[l + 1] / 2 : n[l + 1]; }
    uint32_t block_capacity(unsigned l) const {
        return four_cores ? connections[l] / 4 : connections[l];
    }
};

// One block of a weight matrix in the seed's format (row, column, amplitude, sign), sorted by
// (row, column), distinct.
template <class T>
struct DeeprBlock {
    std::vector<uint16_t> rows, cols;
    std::vector<T> theta;
    std::vector<uint8_t> sign;  // 1: w = -theta
};

template <class T>
struct DeeprIteration {
    uint32_t label = 0, pred = 0;
    std::array<T, 16> prob{};
    std::array<std::array<uint32_t, 3>, 4> deleted{}, inserted{};  // per cell, per block
    bool rewired = false;
};

template <class T>
class DeeprTrainer {
public:
    explicit DeeprTrainer(const DeeprSpec& spec);

    // One training iteration (0-based index k): forward, backward, update, rewiring when
    // (k + 1) % rewiring_period == 0. `image` has n[0] pixels, x = pixel / 256.
    DeeprIteration<T> train(const uint8_t* image, uint32_t label, uint64_t k);
    // Forward pass only: the predicted class.
    uint32_t classify(const uint8_t* image);

    const DeeprBlock<T>& block(unsigned cell, unsigned layer) const {
        return m_blocks[cell][layer];
    }
    uint64_t random_draws() const { return m_draws; }

private:
    uint32_t rand(unsigned cell);
    uint32_t rand_below(unsigned cell, uint32_t n);
    T gauss(unsigned cell);
    void init_block(unsigned cell, unsigned l);
    void insert_new(unsigned cell, unsigned l, uint32_t n_new);
    void rewire(unsigned cell, unsigned l, uint32_t& deleted, uint32_t& inserted);
    // out = W^T in over the active entries (out has block_out entries, zeroed first).
    void forward_block(unsigned cell, unsigned l, const T* in, T* out) const;
    // out = W d (out has block_in entries, zeroed first).
    void backward_block(unsigned cell, unsigned l, const T* d, T* out) const;
    void update_block(unsigned cell, unsigned l, const T* in, const T* d);
    // Layer outputs, whole vectors: acts[0] = input, acts[1..2] rectified, z = logits.
    void forward(const uint8_t* image);
    void softmax_and_delta(uint32_t label, DeeprIteration<T>& it);
    void set_rates(uint64_t k);

    DeeprSpec m_spec;
    std::array<s2_kiss_state_t, 4> m_rng{};
    std::array<std::array<DeeprBlock<T>, 3>, 4> m_blocks;
    std::array<std::vector<T>, 3> m_acts;
    std::vector<T> m_z, m_p;
    std::array<std::vector<T>, 4> m_delta;  // m_delta[l]: errors of layer l's neurons (l = 1..3)
    T m_eta{}, m_eta_l1{}, m_eta_noise{};
    uint64_t m_epoch = ~uint64_t{0};
    uint64_t m_draws = 0;
};

// The random stream of cell `cell` for a run seeded with `seed` (the deepr workload's convention,
// so that this reference and a chip run agree): a valid KISS state (y != 0, 0 < c < the MWC
// multiplier) from splitmix64.
s2_kiss_state_t deepr_stream_state(uint64_t seed, uint32_t cell);

// The spec of seed 003's network with the given settings, the seeds of every cell from `seed`
// and the initial scale 1/sqrt(fan-in) per matrix.
DeeprSpec deepr_spec(const std::array<uint32_t, 4>& n, const std::array<uint32_t, 3>& connections,
                     bool four_cores, uint64_t seed);

extern template class DeeprTrainer<float>;
extern template class DeeprTrainer<double>;

}  // namespace nmsim::reference
