#include "tools/reference/deepr_ref.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <type_traits>

#include "models/common/seeding.h"
#include "nmsim/hw/spinnaker2/exp_regs.h"

namespace nmsim::reference {

namespace {

uint32_t key_of(uint32_t row, uint32_t col) { return row << 16 | col; }

template <class T>
T relu(T v) {
    return v > T(0) ? v : T(0);
}

}  // namespace

template <class T>
DeeprTrainer<T>::DeeprTrainer(const DeeprSpec& spec) : m_spec(spec), m_rng(spec.seeds) {
    for (unsigned l = 0; l < 3; ++l) {
        if (spec.four_cores && (spec.n[l] % 2 || spec.n[l + 1] % 2 || spec.connections[l] % 4))
            throw std::invalid_argument(
                "deepr reference: four cores need even layer sizes and "
                "connections divisible by 4");
        if (uint64_t(spec.block_capacity(l)) * 2 > uint64_t(spec.block_in(l)) * spec.block_out(l))
            throw std::invalid_argument("deepr reference: more than half of a block connected");
    }
    for (unsigned l = 0; l < 3; ++l) m_acts[l].assign(spec.n[l], T(0));
    m_z.assign(spec.n[3], T(0));
    m_p.assign(spec.n[3], T(0));
    for (unsigned l = 1; l < 4; ++l) m_delta[l].assign(spec.n[l], T(0));
    // Each cell draws its blocks in layer order from its own stream (the firmware's start-up).
    for (unsigned c = 0; c < spec.cells(); ++c)
        for (unsigned l = 0; l < 3; ++l) init_block(c, l);
}

template <class T>
uint32_t DeeprTrainer<T>::rand(unsigned cell) {
    ++m_draws;
    return s2_kiss_step(&m_rng[cell]);
}

template <class T>
uint32_t DeeprTrainer<T>::rand_below(unsigned cell, uint32_t n) {
    return static_cast<uint32_t>((uint64_t{rand(cell)} * n) >> 32);
}

// Irwin-Hall: the sum of 12 uniforms on 24 bits, minus 6, has mean 0 and variance 1. The integer
// sum is exact; its conversion rounds once (to nearest) and the scaling by 2^-24 is exact.
template <class T>
T DeeprTrainer<T>::gauss(unsigned cell) {
    uint32_t s = 0;
    for (int i = 0; i < 12; ++i) s += rand(cell) >> 8;
    const int32_t centred = static_cast<int32_t>(s) - 6 * (1 << 24);
    return static_cast<T>(centred) * static_cast<T>(1.0 / 16777216.0);
}

// `n_new` distinct new coordinates not yet in the block, appended as (row, column, 0, sign) and
// then merged into the sorted entries. A coordinate already present is drawn again.
template <class T>
void DeeprTrainer<T>::insert_new(unsigned cell, unsigned l, uint32_t n_new) {
    DeeprBlock<T>& b = m_blocks[cell][l];
    const size_t kept = b.rows.size();
    std::vector<uint32_t> keys;
    std::vector<uint8_t> signs;
    for (uint32_t i = 0; i < n_new; ++i) {
        uint32_t key = 0;
        for (;;) {
            const uint32_t r = rand_below(cell, m_spec.block_in(l));
            const uint32_t c = rand_below(cell, m_spec.block_out(l));
            key = key_of(r, c);
            size_t lo = 0, hi = kept;
            while (lo < hi) {
                const size_t mid = (lo + hi) / 2;
                if (key_of(b.rows[mid], b.cols[mid]) < key)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            const bool in_block = lo < kept && key_of(b.rows[lo], b.cols[lo]) == key;
            if (!in_block && std::find(keys.begin(), keys.end(), key) == keys.end()) break;
        }
        keys.push_back(key);
        signs.push_back(static_cast<uint8_t>(rand(cell) >> 31));
    }
    std::vector<size_t> order(keys.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::sort(order.begin(), order.end(), [&](size_t x, size_t y) { return keys[x] < keys[y]; });
    DeeprBlock<T> merged;
    size_t i = 0, j = 0;
    while (i < kept || j < order.size()) {
        const bool take_old =
            j == order.size() || (i < kept && key_of(b.rows[i], b.cols[i]) < keys[order[j]]);
        if (take_old) {
            merged.rows.push_back(b.rows[i]);
            merged.cols.push_back(b.cols[i]);
            merged.theta.push_back(b.theta[i]);
            merged.sign.push_back(b.sign[i]);
            ++i;
        } else {
            merged.rows.push_back(static_cast<uint16_t>(keys[order[j]] >> 16));
            merged.cols.push_back(static_cast<uint16_t>(keys[order[j]] & 0xFFFFu));
            merged.theta.push_back(T(0));
            merged.sign.push_back(signs[order[j]]);
            ++j;
        }
    }
    b = std::move(merged);
}

template <class T>
void DeeprTrainer<T>::init_block(unsigned cell, unsigned l) {
    // drawn max_new at a time, like rewiring steps (the firmware's temporary buffer)
    DeeprBlock<T>& b = m_blocks[cell][l];
    while (b.rows.size() < m_spec.block_capacity(l))
        insert_new(
            cell, l,
            std::min<uint32_t>(m_spec.block_capacity(l) - uint32_t(b.rows.size()), m_spec.max_new));
    const T scale = static_cast<T>(m_spec.init_scale[l]);
    for (T& th : b.theta) th = std::fabs(gauss(cell)) * scale;
}

template <class T>
void DeeprTrainer<T>::rewire(unsigned cell, unsigned l, uint32_t& deleted, uint32_t& inserted) {
    DeeprBlock<T>& b = m_blocks[cell][l];
    size_t kept = 0;
    for (size_t k = 0; k < b.rows.size(); ++k) {
        if (b.theta[k] < T(0)) continue;
        b.rows[kept] = b.rows[k];
        b.cols[kept] = b.cols[k];
        b.theta[kept] = b.theta[k];
        b.sign[kept] = b.sign[k];
        ++kept;
    }
    deleted = static_cast<uint32_t>(b.rows.size() - kept);
    b.rows.resize(kept);
    b.cols.resize(kept);
    b.theta.resize(kept);
    b.sign.resize(kept);
    inserted =
        std::min<uint32_t>(m_spec.block_capacity(l) - static_cast<uint32_t>(kept), m_spec.max_new);
    insert_new(cell, l, inserted);
}

template <class T>
void DeeprTrainer<T>::forward_block(unsigned cell, unsigned l, const T* in, T* out) const {
    const DeeprBlock<T>& b = m_blocks[cell][l];
    std::fill(out, out + m_spec.block_out(l), T(0));
    for (size_t k = 0; k < b.rows.size(); ++k) {
        const T x = in[b.rows[k]];
        if (x == T(0) || b.theta[k] < T(0)) continue;
        const T w = b.sign[k] ? -b.theta[k] : b.theta[k];
        out[b.cols[k]] = out[b.cols[k]] + x * w;
    }
}

template <class T>
void DeeprTrainer<T>::backward_block(unsigned cell, unsigned l, const T* d, T* out) const {
    const DeeprBlock<T>& b = m_blocks[cell][l];
    std::fill(out, out + m_spec.block_in(l), T(0));
    for (size_t k = 0; k < b.rows.size(); ++k) {
        if (b.theta[k] < T(0)) continue;
        const T w = b.sign[k] ? -b.theta[k] : b.theta[k];
        out[b.rows[k]] = out[b.rows[k]] + w * d[b.cols[k]];
    }
}

// theta <- theta - eta dE/dtheta - eta alpha + eta sigma nu, one rounding per operation, for the
// active entries in array order (one normal draw each).
template <class T>
void DeeprTrainer<T>::update_block(unsigned cell, unsigned l, const T* in, const T* d) {
    DeeprBlock<T>& b = m_blocks[cell][l];
    for (size_t k = 0; k < b.rows.size(); ++k) {
        T th = b.theta[k];
        if (th < T(0)) continue;
        const T step = m_eta * (in[b.rows[k]] * d[b.cols[k]]);
        th = b.sign[k] ? th + step : th - step;
        th = th - m_eta_l1;
        th = th + m_eta_noise * gauss(cell);
        b.theta[k] = th;
    }
}

template <class T>
void DeeprTrainer<T>::set_rates(uint64_t k) {
    const uint64_t epoch = k / m_spec.epoch_size;
    if (epoch == m_epoch) return;
    m_epoch = epoch;
    T eta = static_cast<T>(m_spec.learning_rate);
    for (uint64_t h = 0; h < epoch / m_spec.lr_halving_epochs; ++h) eta = eta * T(0.5);
    m_eta = eta;
    m_eta_l1 = eta * static_cast<T>(m_spec.l1);
    m_eta_noise = eta * static_cast<T>(m_spec.noise);
}

template <class T>
void DeeprTrainer<T>::forward(const uint8_t* image) {
    for (uint32_t i = 0; i < m_spec.n[0]; ++i)
        m_acts[0][i] = static_cast<T>(image[i]) * static_cast<T>(1.0 / 256.0);
    for (unsigned l = 0; l < 3; ++l) {
        T* out = l < 2 ? m_acts[l + 1].data() : m_z.data();
        if (!m_spec.four_cores) {
            forward_block(0, l, m_acts[l].data(), out);
        } else {
            // cell (a, b) sums its block over input half a; (b, b) adds the other partial
            const uint32_t bi = m_spec.block_in(l), bo = m_spec.block_out(l);
            std::array<std::vector<T>, 4> part;
            for (unsigned a = 0; a < 2; ++a)
                for (unsigned b = 0; b < 2; ++b) {
                    part[2 * a + b].assign(bo, T(0));
                    forward_block(2 * a + b, l, m_acts[l].data() + a * bi, part[2 * a + b].data());
                }
            for (unsigned b = 0; b < 2; ++b)
                for (uint32_t j = 0; j < bo; ++j)
                    out[b * bo + j] = part[3 * b][j] + part[2 * (1 - b) + b][j];
        }
        if (l < 2)
            for (uint32_t j = 0; j < m_spec.n[l + 1]; ++j) out[j] = relu(out[j]);
    }
}

// Probabilities with the EXP datapath (float) or std::exp (double), errors p - onehot(label).
template <class T>
void DeeprTrainer<T>::softmax_and_delta(uint32_t label, DeeprIteration<T>& it) {
    const uint32_t n = m_spec.n[3];
    uint32_t best = 0;
    for (uint32_t j = 1; j < n; ++j)
        if (m_z[j] > m_z[best]) best = j;
    it.pred = best;
    if constexpr (std::is_same_v<T, float>) {
        std::vector<int32_t> e(n);
        int32_t sum = 0;
        for (uint32_t j = 0; j < n; ++j) {
            const float t = m_z[j] - m_z[best];
            const int32_t x = t > -64.0f ? static_cast<int32_t>(t * 32768.0f) : -64 * 32768;
            e[j] = s2_exp_datapath(x, m_spec.exp_iterations);
            sum += e[j];
        }
        for (uint32_t j = 0; j < n; ++j)
            m_p[j] = static_cast<float>(e[j]) / static_cast<float>(sum);
    } else {
        T sum = 0;
        for (uint32_t j = 0; j < n; ++j) sum += (m_p[j] = std::exp(m_z[j] - m_z[best]));
        for (uint32_t j = 0; j < n; ++j) m_p[j] /= sum;
    }
    for (uint32_t j = 0; j < n; ++j) {
        m_delta[3][j] = j == label ? m_p[j] - T(1) : m_p[j];
        if (j < it.prob.size()) it.prob[j] = m_p[j];
    }
}

template <class T>
DeeprIteration<T> DeeprTrainer<T>::train(const uint8_t* image, uint32_t label, uint64_t k) {
    DeeprIteration<T> it;
    it.label = label;
    set_rates(k);
    forward(image);
    softmax_and_delta(label, it);
    // errors of the hidden layers with the weights before this iteration's update
    for (unsigned l = 2; l >= 1; --l) {
        T* out = m_delta[l].data();
        if (!m_spec.four_cores) {
            backward_block(0, l, m_delta[l + 1].data(), out);
        } else {
            // cell (a, b) sums over output half b; (a, a) adds the other partial
            const uint32_t bi = m_spec.block_in(l), bo = m_spec.block_out(l);
            std::array<std::vector<T>, 4> part;
            for (unsigned a = 0; a < 2; ++a)
                for (unsigned b = 0; b < 2; ++b) {
                    part[2 * a + b].assign(bi, T(0));
                    backward_block(2 * a + b, l, m_delta[l + 1].data() + b * bo,
                                   part[2 * a + b].data());
                }
            for (unsigned a = 0; a < 2; ++a)
                for (uint32_t i = 0; i < bi; ++i)
                    out[a * bi + i] = part[3 * a][i] + part[2 * a + 1 - a][i];
        }
        for (uint32_t i = 0; i < m_spec.n[l]; ++i)
            if (!(m_acts[l][i] > T(0))) out[i] = T(0);
    }
    for (unsigned c = 0; c < m_spec.cells(); ++c) {
        const unsigned a = c / 2, b = c % 2;
        for (int l = 2; l >= 0; --l) {
            const uint32_t in_off = m_spec.four_cores ? a * m_spec.block_in(l) : 0;
            const uint32_t out_off = m_spec.four_cores ? b * m_spec.block_out(l) : 0;
            update_block(c, l, m_acts[l].data() + in_off, m_delta[l + 1].data() + out_off);
        }
    }
    if ((k + 1) % m_spec.rewiring_period == 0) {
        it.rewired = true;
        for (unsigned c = 0; c < m_spec.cells(); ++c)
            for (unsigned l = 0; l < 3; ++l) rewire(c, l, it.deleted[c][l], it.inserted[c][l]);
    }
    return it;
}

template <class T>
uint32_t DeeprTrainer<T>::classify(const uint8_t* image) {
    forward(image);
    uint32_t best = 0;
    for (uint32_t j = 1; j < m_spec.n[3]; ++j)
        if (m_z[j] > m_z[best]) best = j;
    return best;
}

s2_kiss_state_t deepr_stream_state(uint64_t seed, uint32_t cell) {
    uint64_t s = derive_seed(seed, 0xDEE90000u + cell);
    const uint64_t a = splitmix64_next(s), b = splitmix64_next(s);
    s2_kiss_state_t k;
    k.x = static_cast<uint32_t>(a);
    k.y = static_cast<uint32_t>(a >> 32) | 1u;
    k.z = static_cast<uint32_t>(b);
    k.c = static_cast<uint32_t>((b >> 32) % (S2_PRNG_MWC_MULTIPLIER - 1u) + 1u);
    return k;
}

DeeprSpec deepr_spec(const std::array<uint32_t, 4>& n, const std::array<uint32_t, 3>& connections,
                     bool four_cores, uint64_t seed) {
    DeeprSpec s;
    s.n = n;
    s.connections = connections;
    s.four_cores = four_cores;
    for (uint32_t cell = 0; cell < s.cells(); ++cell) s.seeds[cell] = deepr_stream_state(seed, cell);
    for (unsigned l = 0; l < 3; ++l)
        s.init_scale[l] = static_cast<float>(1.0 / std::sqrt(static_cast<double>(n[l])));
    return s;
}

template class DeeprTrainer<float>;
template class DeeprTrainer<double>;

}  // namespace nmsim::reference
