// IDX files (tools/dataset/idx.h): plain and gzip-compressed files read alike, the first items
// only, and every malformed file rejected with its path and the reason.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "tools/dataset/idx.h"

namespace nmsim::dataset {
namespace {

std::vector<uint8_t> idx_bytes(std::vector<uint32_t> dims, uint8_t type = 0x08) {
    std::vector<uint8_t> b = {0, 0, type, uint8_t(dims.size())};
    size_t n = 1;
    for (uint32_t d : dims) {
        for (int s = 24; s >= 0; s -= 8) b.push_back(uint8_t(d >> s));
        n *= d;
    }
    for (size_t i = 0; i < n; ++i) b.push_back(uint8_t(i * 7));
    return b;
}

class Idx : public ::testing::Test {
protected:
    std::string path(const std::string& name) {
        return (std::filesystem::temp_directory_path() /
                (::testing::UnitTest::GetInstance()->current_test_info()->name() + name))
            .string();
    }
    std::string write(const std::string& name, const std::vector<uint8_t>& b, bool gz = false) {
        const std::string p = path(name);
        if (gz) {
            gzFile f = gzopen(p.c_str(), "wb");
            gzwrite(f, b.data(), unsigned(b.size()));
            gzclose(f);
        } else {
            std::ofstream(p, std::ios::binary)
                .write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
        }
        return p;
    }
};

TEST_F(Idx, PlainAndGzipReadAlike) {
    const auto bytes = idx_bytes({5, 3, 2});
    const IdxArray a = read_idx_u8(write("plain", bytes));
    const IdxArray b = read_idx_u8(write("gz", bytes, true));
    EXPECT_EQ(a.dims, (std::vector<uint32_t>{5, 3, 2}));
    EXPECT_EQ(a.item_size(), 6u);
    EXPECT_EQ(a.data, b.data);
    ASSERT_EQ(a.data.size(), 30u);
    EXPECT_EQ(a.data[29], uint8_t(29 * 7));
}

TEST_F(Idx, FirstItemsOnly) {
    const IdxArray a = read_idx_u8(write("f", idx_bytes({10, 4})), 3);
    EXPECT_EQ(a.dims[0], 3u);
    EXPECT_EQ(a.data.size(), 12u);
}

TEST_F(Idx, ImagesWithLabels) {
    const LabelledImages d =
        read_labelled(write("im", idx_bytes({4, 2, 2})), write("lb", idx_bytes({4})));
    EXPECT_EQ(d.count, 4u);
    EXPECT_EQ(d.item, 4u);
    EXPECT_EQ(d.labels.size(), 4u);
}

TEST_F(Idx, MalformedFilesNameThePathAndTheReason) {
    auto fails = [&](const std::string& p, const std::string& words) {
        try {
            (void)read_idx_u8(p);
            ADD_FAILURE() << p << " was accepted";
        } catch (const IdxError& e) {
            EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
        }
    };
    fails(path("missing"), "cannot open");
    fails(write("magic", {1, 2, 8, 1, 0, 0, 0, 1, 5}), "not an IDX file");
    fails(write("type", idx_bytes({2}, 0x0D)), "not unsigned bytes");
    auto b = idx_bytes({4, 4});
    b.resize(b.size() - 3);
    fails(write("short", b), "ends inside the data");
    fails(write("zero", idx_bytes({0, 4})), "dimension 0 is 0");
    try {
        (void)read_labelled(write("im2", idx_bytes({4, 2})), write("lb2", idx_bytes({3})));
        ADD_FAILURE() << "a label count mismatch was accepted";
    } catch (const IdxError& e) {
        EXPECT_NE(std::string(e.what()).find("3 labels for 4 images"), std::string::npos);
    }
}

}  // namespace
}  // namespace nmsim::dataset
