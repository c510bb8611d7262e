// The parallel-paradigm compiler (docs/snn_parallel.md): the optimised and split weight-delay map
// gives the synapse list's input on random layers and spike trains, the split covers every
// synapse once and balances, Table I on a hand-computed case, the image headers, the dataset's
// determinism and the C++ classifier against sklearn's predictions.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include "nmsim/hw/spinnaker2/noc_map.h"
#include "tools/compiler/snn/paradigm.h"
#include "tools/compiler/snn/parallel.h"

#ifndef NMSIM_TEST_DATA_DIR
#define NMSIM_TEST_DATA_DIR "tests/tools/compiler/snn/data"
#endif

namespace nmsim::compiler::snn {
namespace {

ParLayer random_layer(std::mt19937_64& rng, bool structured) {
    ParLayer l;
    l.n_sources = 1 + rng() % 60;
    l.n_targets = 1 + rng() % 40;
    const uint32_t dmax = 1 + rng() % 16;
    const double p = 0.05 + (rng() % 95) / 100.0;
    const uint32_t w_const = 1 + rng() % 127;
    for (uint32_t i = 0; i < l.n_sources; ++i)
        for (uint32_t j = 0; j < l.n_targets; ++j) {
            if ((rng() % 1000) / 1000.0 >= p) continue;
            const uint32_t w = structured ? w_const : static_cast<uint32_t>(rng() % 128);
            const uint32_t d = structured ? 1 + i % dmax : 1 + static_cast<uint32_t>(rng() % dmax);
            const auto type = rng() % 4 == 0 ? SynapseType::inhibitory : SynapseType::excitatory;
            l.synapses.push_back({i, j, w, d, type});
        }
    return l;
}

TEST(SnnParallel, OptimisedSplitMapGivesTheSynapseListsInput) {
    std::mt19937_64 rng(14);
    for (int trial = 0; trial < 48; ++trial) {
        const ParLayer l = random_layer(rng, trial % 3 == 0);
        const uint32_t ticks = 24;
        std::vector<std::vector<uint8_t>> spiked(ticks, std::vector<uint8_t>(l.n_sources));
        for (auto& tick : spiked)
            for (auto& s : tick) s = rng() % 3 == 0;
        for (uint32_t combo = 0; combo < 16; ++combo) {
            ParOptions opt;
            opt.opt = {(combo & 1) != 0, (combo & 2) != 0, (combo & 4) != 0, (combo & 8) != 0};
            opt.dtcm_bytes = trial % 2 ? 16384 : S2_SNN_DTCM_BYTES;  // small: forces splits
            const ParCompiled c = compile_parallel_layer(l, opt);
            for (uint32_t t = 0; t < ticks; ++t) {
                const ParInput a = par_tick_input(c, spiked, t),
                               b = synapse_tick_input(l, spiked, t);
                for (uint32_t j = 0; j < l.n_targets; ++j) {
                    ASSERT_EQ(std::min<int64_t>(a.exc[j], 32767),
                              std::min<int64_t>(b.exc[j], 32767))
                        << "trial " << trial << " combo " << combo << " tick " << t << " target "
                        << j;
                    ASSERT_EQ(std::min<int64_t>(a.inh[j], 32767),
                              std::min<int64_t>(b.inh[j], 32767));
                }
            }
        }
    }
}

TEST(SnnParallel, SplitCoversEverySynapseOnceAndBalances) {
    std::mt19937_64 rng(7);
    for (int trial = 0; trial < 16; ++trial) {
        const ParLayer l = dataset_layer(50 + 50 * (rng() % 4), 50 + 50 * (rng() % 4),
                                         10 * (1 + rng() % 10), 1 + rng() % 16, trial);
        ParOptions opt;
        opt.dtcm_bytes = 16384 + 2048 * (rng() % 40);
        ParCompiled c;
        try {
            c = compile_parallel_layer(l, opt);
        } catch (const CompileError&) {
            continue;  // the dominant does not fit such a small DTCM
        }
        // Blocks tile (target, row) space exactly: per target, the row ranges of the blocks that
        // hold it are disjoint and cover 0 .. n_rows.
        std::vector<std::vector<std::pair<uint32_t, uint32_t>>> rows(l.n_targets);
        uint64_t synapses = 0;
        for (const SubordinateMap& b : c.subs) {
            synapses += b.synapses;
            EXPECT_LE(b.image_bytes, opt.dtcm_bytes - S2_SNN_STACK_BYTES - 256u);
            for (uint32_t j = b.target_lo; j < b.target_lo + b.target_count; ++j)
                rows[j].push_back({b.row_lo, b.row_lo + b.row_count});
        }
        for (auto& r : rows) {
            std::sort(r.begin(), r.end());
            ASSERT_FALSE(r.empty());
            EXPECT_EQ(r.front().first, 0u);
            for (size_t k = 1; k < r.size(); ++k) EXPECT_EQ(r[k].first, r[k - 1].second);
            EXPECT_EQ(r.back().second, c.n_rows);
        }
        EXPECT_EQ(synapses, l.synapses.size());  // dataset layers: no duplicates, no zero weight
        // Stage 1 balance: each target group's synapses within one target's count of the mean.
        std::map<uint32_t, uint64_t> group;
        std::vector<uint64_t> per_target(l.n_targets, 0);
        for (const Synapse& s : l.synapses) ++per_target[s.post];
        for (const SubordinateMap& b : c.subs) group[b.target_lo] += b.synapses;
        const double mean = static_cast<double>(l.synapses.size()) / group.size();
        const uint64_t biggest = *std::max_element(per_target.begin(), per_target.end());
        for (const auto& [lo, n] : group) EXPECT_LE(std::abs(n - mean), biggest + 1.0);
    }
}

TEST(SnnParallel, TableIOnAHandComputedLayer) {
    // 10 sources all-to-all onto 4 targets, weight i + 1 from source i, delay 3: 10 distinct rows
    // (delay 3 only), 4 identical exc columns -> one column (O4), no inh columns (O2).
    ParLayer l;
    l.n_sources = 10;
    l.n_targets = 4;
    for (uint32_t i = 0; i < 10; ++i)
        for (uint32_t j = 0; j < 4; ++j)
            l.synapses.push_back({i, j, i + 1, 3, SynapseType::excitatory});
    const ParCompiled c = compile_parallel_layer(l);
    ASSERT_EQ(c.pes_used(), 2u);
    const SubordinateMap& b = c.subs[0];
    EXPECT_EQ(b.k_rows, 10u);
    EXPECT_EQ(b.n_cols, 1u);
    EXPECT_EQ(b.max_column_sum, 55u);
    // Subordinate: out int16[2][4] + stamp = 20 B -> 32 B with alignment. Dominant: + keys
    // (4 x 4 B), fan-out (10 x 4 B -> 48 B), partial area int16[2][4] + stamp (20 -> 32 B).
    EXPECT_EQ(b.image_bytes, 432u);
    EXPECT_EQ(c.dominant_image.size(), 1584u);
    const ParPeReport& d = c.table1[0];
    const uint64_t model[] = {40, 60, 90, 120, 56, 64, 12, 6000, 0};
    const uint64_t actual[] = {1024, 20, 0, 84, 80, 16, 5888, 564, 52};
    ASSERT_EQ(d.items.size(), 9u);
    for (size_t k = 0; k < 9; ++k) {
        EXPECT_EQ(d.items[k].model_bytes, model[k]) << d.items[k].item;
        EXPECT_EQ(d.items[k].actual_bytes, actual[k]) << d.items[k].item;
    }
    EXPECT_EQ(d.actual_total, 1584u + S2_SNN_STACK_BYTES + 256u);
    const ParPeReport& s = c.table1[1];
    const uint64_t smodel[] = {0, 16, 12, 6000, 0};  // its delay range: 3 .. 3
    const uint64_t sactual[] = {16, 64, 5888, 512, 96};
    for (size_t k = 0; k < 5; ++k) {
        EXPECT_EQ(s.items[k].model_bytes, smodel[k]) << s.items[k].item;
        EXPECT_EQ(s.items[k].actual_bytes, sactual[k]) << s.items[k].item;
    }
    EXPECT_EQ(s.actual_total, 432u + S2_SNN_STACK_BYTES + 256u);
    // The savings of the same layer: without O1 the rows of delays 1 and 2 stay.
    const MapSavings m = map_savings(l);
    EXPECT_EQ(m.bytes[0], 30u * 8u);  // (3 delays x 10 sources) x (2 types x 4 targets)
    EXPECT_EQ(m.bytes[1], 10u * 8u);
    EXPECT_EQ(m.bytes[2], 10u * 4u);
    EXPECT_EQ(m.bytes[4], 10u * 1u);
}

TEST(SnnParallel, ImageHeadersPointAtTheData) {
    std::mt19937_64 rng(3);
    const ParLayer l = random_layer(rng, false);
    const ParCompiled c = compile_parallel_layer(l);
    s2_snnp_dominant_t h;
    std::memcpy(&h, c.dominant_image.data(), sizeof h);
    EXPECT_EQ(h.magic, S2_SNNP_IMAGE_MAGIC);
    EXPECT_EQ(h.kind, S2_SNNP_KIND_DOMINANT);
    EXPECT_EQ(h.image_size, c.dominant_image.size());
    EXPECT_EQ(h.n_rows, c.n_rows);
    EXPECT_EQ(h.n_subordinates, c.subs.size());
    const uint8_t* row_of = c.dominant_image.data() + (h.row_of - S2_SNN_IMAGE_BASE);
    EXPECT_EQ(std::memcmp(row_of, c.row_of.data(), 2 * c.row_of.size()), 0);
    for (size_t s = 0; s < c.subs.size(); ++s) {
        s2_snnp_subordinate_t sh;
        std::memcpy(&sh, c.sub_images[s].data(), sizeof sh);
        EXPECT_EQ(sh.kind, S2_SNNP_KIND_SUBORDINATE);
        EXPECT_EQ(sh.k_rows, c.subs[s].k_rows);
        EXPECT_EQ(sh.mla_ctrl, S2_SNNP_MLA_CTRL);
        EXPECT_EQ(std::memcmp(c.sub_images[s].data() + (sh.map - S2_SNN_IMAGE_BASE),
                              c.subs[s].map.data(), c.subs[s].map.size()),
                  0);
        EXPECT_EQ(sh.partial_dst & 0xF0000000u, S2_PE_GLOBAL_BASE);
    }
}

TEST(SnnParallel, DuplicateWeightAbove127IsAnError) {
    ParLayer l;
    l.n_sources = 1;
    l.n_targets = 1;
    l.synapses = {{0, 0, 100, 1, SynapseType::excitatory}, {0, 0, 100, 1, SynapseType::excitatory}};
    EXPECT_THROW(compile_parallel_layer(l), CompileError);
}

TEST(SnnParadigm, DatasetIsDeterministic) {
    const ParLayer a = dataset_layer(100, 150, 30, 5, 1), b = dataset_layer(100, 150, 30, 5, 1);
    EXPECT_EQ(a.synapses, b.synapses);
    EXPECT_NE(a.synapses, dataset_layer(100, 150, 30, 5, 2).synapses);
    const auto x = make_dataset(1, 1999), y = make_dataset(1, 1999);
    ASSERT_EQ(x.size(), y.size());
    for (size_t k = 0; k < x.size(); ++k) EXPECT_EQ(dataset_csv_line(x[k]), dataset_csv_line(y[k]));
}

TEST(SnnParadigm, ClassifierMatchesSklearnPredictions) {
    const ParadigmClassifier& c = ParadigmClassifier::shipped();
    std::ifstream f(std::string(NMSIM_TEST_DATA_DIR) + "/paradigm_predictions.csv");
    ASSERT_TRUE(f) << "fixture missing: run tools/snn/paradigm_classifier.py";
    std::string line;
    std::getline(f, line);
    int n = 0;
    while (std::getline(f, line)) {
        std::istringstream ls(line);
        LayerFeatures x;
        double decision = 0;
        int pred = 0;
        char comma;
        ls >> x.n_sources >> comma >> x.n_targets >> comma >> x.density_pct >> comma >>
            x.delay_range >> comma >> decision >> comma >> pred;
        EXPECT_EQ(static_cast<int>(c.predict(x)), pred) << line;
        EXPECT_NEAR(c.decision(x), decision, 1e-9) << line;
        ++n;
    }
    EXPECT_GT(n, 100);
}

TEST(SnnParadigm, ClassifierFileErrorsNameTheLine) {
    try {
        ParadigmClassifier::parse("nmsim-paradigm-classifier 1 adaboost-samme\ntree 1 2\nnode x\n",
                                  "c.txt");
        FAIL();
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("c.txt:3"), std::string::npos) << e.what();
    }
}

TEST(SnnParadigm, SeedSerialRuleFromTableI) {
    // Table I with n fixed at 255, delay range 1: everything but the matrix is 1020 (spike
    // buffer) + 12 (population table) + 4 (address list) + 1020 (input buffer) + 56 (model) +
    // 3096 (recording) + 12 (stack) + 6000 (OS) = 11,220 B; 98,304 - 11,220 = 87,084 B for the
    // matrix. All-to-all: 4 x 255 x 255 = 260,100 B -> 3 PEs, however small the layer.
    ParLayer dense;
    dense.n_sources = 50;
    dense.n_targets = 50;
    for (uint32_t i = 0; i < 50; ++i)
        for (uint32_t j = 0; j < 50; ++j)
            dense.synapses.push_back({i, j, 1, 1, SynapseType::excitatory});
    EXPECT_EQ(serial_layer_pes_table1(dense), 3u);
    EXPECT_EQ(serial_layer_pes(dense), 1u);  // the compiler: 10,000 synapse words fit one PE
    // One synapse per source: one PE per (source block, target block): 600 -> 3, 300 -> 2.
    ParLayer sparse;
    sparse.n_sources = 600;
    sparse.n_targets = 300;
    for (uint32_t i = 0; i < 600; ++i)
        sparse.synapses.push_back({i, i % 300, 1, 1 + i % 16, SynapseType::excitatory});
    EXPECT_EQ(serial_layer_pes_table1(sparse), 6u);
    // Delay range 16 raises the fixed part by 15 x 1020 B: 26,520 B, 71,784 B for the matrix:
    // all-to-all 255 x 255 then needs 4 PEs (3.6).
    ParLayer d16;
    d16.n_sources = 255;
    d16.n_targets = 255;
    for (uint32_t i = 0; i < 255; ++i)
        for (uint32_t j = 0; j < 255; ++j)
            d16.synapses.push_back({i, j, 1, 1 + (i + j) % 16, SynapseType::excitatory});
    EXPECT_EQ(serial_layer_pes_table1(d16), 4u);
}

}  // namespace
}  // namespace nmsim::compiler::snn
