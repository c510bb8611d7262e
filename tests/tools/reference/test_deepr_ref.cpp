// The DEEP R reference (tools/reference/deepr_ref.h): the sparse format's invariants through
// training and rewiring (sorted, distinct, in range, capacity kept), determinism, float and
// double on the same streams, one core against four, and that the algorithm learns.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "tools/reference/deepr_ref.h"

namespace nmsim::reference {
namespace {

DeeprSpec small_spec(bool four) {
    DeeprSpec s;
    s.n = {64, 32, 16, 10};
    s.connections = {200, 100, 60};
    s.four_cores = four;
    s.epoch_size = 200;
    s.rewiring_period = 1;
    s.max_new = 8;
    for (unsigned c = 0; c < 4; ++c) s.seeds[c] = {123u + c, 456u + c, 789u + c, 1000u + c};
    for (unsigned l = 0; l < 3; ++l) s.init_scale[l] = 1.0f / std::sqrt(float(s.n[l]));
    return s;
}

// Images of class c: pixels of block c bright, the others dim noise.
struct Synthetic {
    std::vector<uint8_t> images, labels;
    uint32_t pixels = 0;
    const uint8_t* image(size_t i) const { return images.data() + i * pixels; }
};
Synthetic synthetic(uint32_t pixels, uint32_t classes, size_t count, uint32_t seed) {
    Synthetic d;
    d.pixels = pixels;
    std::mt19937 rng(seed);
    const uint32_t block = pixels / classes;
    for (size_t i = 0; i < count; ++i) {
        const uint32_t c = rng() % classes;
        d.labels.push_back(uint8_t(c));
        for (uint32_t p = 0; p < pixels; ++p)
            d.images.push_back(uint8_t(p / block == c ? 160 + rng() % 96 : rng() % 40));
    }
    return d;
}

template <class T>
void expect_valid(const DeeprTrainer<T>& t, const DeeprSpec& s) {
    for (unsigned c = 0; c < s.cells(); ++c)
        for (unsigned l = 0; l < 3; ++l) {
            const DeeprBlock<T>& b = t.block(c, l);
            ASSERT_LE(b.rows.size(), s.block_capacity(l));
            ASSERT_EQ(b.rows.size(), b.cols.size());
            ASSERT_EQ(b.rows.size(), b.theta.size());
            for (size_t k = 0; k < b.rows.size(); ++k) {
                ASSERT_LT(b.rows[k], s.block_in(l));
                ASSERT_LT(b.cols[k], s.block_out(l));
                if (k > 0) {
                    const uint32_t prev = uint32_t(b.rows[k - 1]) << 16 | b.cols[k - 1];
                    ASSERT_LT(prev, uint32_t(b.rows[k]) << 16 | b.cols[k])
                        << "cell " << c << " block " << l << " entry " << k;
                }
            }
        }
}

TEST(DeeprRef, InitialBlocksAreFullSortedAndNonNegative) {
    for (bool four : {false, true}) {
        const DeeprSpec s = small_spec(four);
        DeeprTrainer<float> t(s);
        expect_valid(t, s);
        for (unsigned c = 0; c < s.cells(); ++c)
            for (unsigned l = 0; l < 3; ++l) {
                EXPECT_EQ(t.block(c, l).rows.size(), s.block_capacity(l));
                for (float th : t.block(c, l).theta) EXPECT_GE(th, 0.0f);
            }
    }
}

TEST(DeeprRef, RewiringKeepsTheFormatAndReplacesWhatItDeletes) {
    for (bool four : {false, true}) {
        const DeeprSpec s = small_spec(four);
        const Synthetic d = synthetic(s.n[0], s.n[3], 300, 7);
        DeeprTrainer<float> t(s);
        uint64_t deleted = 0;
        for (uint64_t k = 0; k < 300; ++k) {
            const auto it = t.train(d.image(k), d.labels[k], k);
            ASSERT_TRUE(it.rewired);
            for (unsigned c = 0; c < s.cells(); ++c)
                for (unsigned l = 0; l < 3; ++l) {
                    deleted += it.deleted[c][l];
                    EXPECT_LE(it.inserted[c][l], s.max_new);
                }
            expect_valid(t, s);
        }
        EXPECT_GT(deleted, 0u) << "no connection ever crossed zero";
    }
}

TEST(DeeprRef, SameSeedsSameBits) {
    const DeeprSpec s = small_spec(true);
    const Synthetic d = synthetic(s.n[0], s.n[3], 50, 3);
    DeeprTrainer<float> a(s), b(s);
    for (uint64_t k = 0; k < 50; ++k) {
        const auto x = a.train(d.image(k), d.labels[k], k);
        const auto y = b.train(d.image(k), d.labels[k], k);
        for (unsigned j = 0; j < 10; ++j) ASSERT_EQ(x.prob[j], y.prob[j]);
    }
    EXPECT_EQ(a.random_draws(), b.random_draws());
}

TEST(DeeprRef, FloatAndDoubleStartFromTheSameConnections) {
    const DeeprSpec s = small_spec(false);
    DeeprTrainer<float> f(s);
    DeeprTrainer<double> d(s);
    for (unsigned l = 0; l < 3; ++l) {
        EXPECT_EQ(f.block(0, l).rows, d.block(0, l).rows);
        EXPECT_EQ(f.block(0, l).cols, d.block(0, l).cols);
        for (size_t k = 0; k < f.block(0, l).theta.size(); ++k)
            EXPECT_NEAR(f.block(0, l).theta[k], d.block(0, l).theta[k], 1e-6);
    }
}

// Four cells hold the quarters of each matrix: the forward pass over the quarters by hand (as
// one matrix, in double) gives the prediction the four-cell reference computes with its partial
// sums, on many inputs.
TEST(DeeprRef, FourCellsComputeTheWholeMatrix) {
    const DeeprSpec s = small_spec(true);
    const Synthetic d = synthetic(s.n[0], s.n[3], 200, 5);
    DeeprTrainer<double> t(s);
    auto layer = [&](unsigned l, const std::vector<double>& in, bool rectify) {
        std::vector<double> out(s.n[l + 1], 0.0);
        for (unsigned c = 0; c < 4; ++c) {
            const auto& b = t.block(c, l);
            for (size_t k = 0; k < b.rows.size(); ++k)
                out[(c % 2) * s.block_out(l) + b.cols[k]] +=
                    in[(c / 2) * s.block_in(l) + b.rows[k]] *
                    (b.sign[k] ? -b.theta[k] : b.theta[k]);
        }
        if (rectify)
            for (double& v : out) v = std::max(v, 0.0);
        return out;
    };
    uint32_t agree = 0;
    for (size_t i = 0; i < 200; ++i) {
        std::vector<double> x(s.n[0]);
        for (uint32_t p = 0; p < s.n[0]; ++p) x[p] = d.image(i)[p] / 256.0;
        const std::vector<double> z = layer(2, layer(1, layer(0, x, true), true), false);
        const uint32_t want = uint32_t(std::max_element(z.begin(), z.end()) - z.begin());
        agree += t.classify(d.image(i)) == want;
    }
    EXPECT_GE(agree, 199u);  // a near tie may round the other way
}

// The algorithm learns: a separable synthetic task, training accuracy over the last 300 of 3000
// iterations (seed 003's hyper-parameters; the double reference, the float one runs the same
// steps).
TEST(DeeprRef, LearnsASeparableTask) {
    for (bool four : {false, true}) {
        DeeprSpec s = small_spec(four);
        s.connections = {600, 200, 72};
        s.epoch_size = 50000;
        s.rewiring_period = 10;
        const Synthetic d = synthetic(s.n[0], s.n[3], 3000, 11);
        DeeprTrainer<double> t(s);
        uint32_t right = 0;
        for (uint64_t k = 0; k < 3000; ++k) {
            const auto it = t.train(d.image(k), d.labels[k], k);
            if (k >= 2700) right += it.pred == it.label;
        }
        EXPECT_GT(right, 270u) << (four ? "four cells" : "one cell") << ": " << right << "/300";
    }
}

TEST(DeeprRef, RejectsShapesItCannotSplit) {
    DeeprSpec s = small_spec(true);
    s.n[1] = 31;
    EXPECT_THROW(DeeprTrainer<float>{s}, std::invalid_argument);
    s = small_spec(false);
    s.connections[2] = 100;  // more than half of 16 x 10
    EXPECT_THROW(DeeprTrainer<float>{s}, std::invalid_argument);
}

}  // namespace
}  // namespace nmsim::reference
