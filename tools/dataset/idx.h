// IDX files (the MNIST / Fashion-MNIST format, LeCun et al.), plain or gzip-compressed: a
// big-endian header (two zero bytes, the element type, the number of dimensions, one 32-bit size
// per dimension), then the elements. Only unsigned bytes (type 0x08) are needed: images
// [count][rows][cols] and labels [count]. Errors name the file and what is wrong.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace nmsim::dataset {

struct IdxError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct IdxArray {
    std::vector<uint32_t> dims;  // e.g. {60000, 28, 28}
    std::vector<uint8_t> data;   // row-major, dims' product bytes
    // Elements per item (the product of the dimensions after the first).
    size_t item_size() const;
};

// Reads the first `max_items` items (all if 0). Throws IdxError.
IdxArray read_idx_u8(const std::string& path, size_t max_items = 0);

// Images and labels of one split: `images` [count][item], `labels` [count], each < classes.
struct LabelledImages {
    uint32_t count = 0, item = 0;  // images, pixels per image
    std::vector<uint8_t> images, labels;
};
// Reads an image file and its label file (the same count, labels < 256); throws IdxError.
LabelledImages read_labelled(const std::string& images, const std::string& labels,
                             size_t max_items = 0);

}  // namespace nmsim::dataset
