#include "tools/dataset/idx.h"

#include <zlib.h>

#include <algorithm>
#include <memory>

namespace nmsim::dataset {

namespace {

struct GzClose {
    void operator()(gzFile f) const { gzclose(f); }
};
using Gz = std::unique_ptr<gzFile_s, GzClose>;

// Reads exactly `len` bytes (gzread also reads uncompressed files as they are).
void read_exact(gzFile f, const std::string& path, uint8_t* dst, size_t len, const char* what) {
    while (len > 0) {
        const unsigned chunk = static_cast<unsigned>(std::min<size_t>(len, 1u << 30));
        const int n = gzread(f, dst, chunk);
        if (n <= 0) {
            int err = Z_OK;
            const char* msg = gzerror(f, &err);
            throw IdxError(path + ": " +
                           (n == 0 ? std::string("file ends inside the ") + what
                                   : std::string("cannot read the ") + what + ": " + msg));
        }
        dst += n;
        len -= static_cast<size_t>(n);
    }
}

}  // namespace

size_t IdxArray::item_size() const {
    size_t s = 1;
    for (size_t i = 1; i < dims.size(); ++i) s *= dims[i];
    return s;
}

IdxArray read_idx_u8(const std::string& path, size_t max_items) {
    Gz f(gzopen(path.c_str(), "rb"));
    if (!f) throw IdxError(path + ": cannot open");
    uint8_t magic[4];
    read_exact(f.get(), path, magic, 4, "header");
    if (magic[0] != 0 || magic[1] != 0)
        throw IdxError(path + ": not an IDX file (the first two bytes must be 0)");
    if (magic[2] != 0x08)
        throw IdxError(path + ": element type 0x" + std::to_string(magic[2]) +
                       " is not unsigned bytes (0x08)");
    if (magic[3] < 1 || magic[3] > 4)
        throw IdxError(path + ": " + std::to_string(magic[3]) + " dimensions (expected 1..4)");
    IdxArray a;
    uint64_t total = 1;
    for (unsigned d = 0; d < magic[3]; ++d) {
        uint8_t b[4];
        read_exact(f.get(), path, b, 4, "header");
        const uint32_t n = uint32_t{b[0]} << 24 | uint32_t{b[1]} << 16 | uint32_t{b[2]} << 8 | b[3];
        if (n == 0) throw IdxError(path + ": dimension " + std::to_string(d) + " is 0");
        a.dims.push_back(n);
        total *= n;
    }
    if (total > (uint64_t{1} << 32)) throw IdxError(path + ": more than 4 GiB of elements");
    if (max_items && max_items < a.dims[0]) {
        total = total / a.dims[0] * max_items;
        a.dims[0] = static_cast<uint32_t>(max_items);
    }
    a.data.resize(total);
    read_exact(f.get(), path, a.data.data(), a.data.size(), "data");
    return a;
}

LabelledImages read_labelled(const std::string& images, const std::string& labels,
                             size_t max_items) {
    IdxArray im = read_idx_u8(images, max_items);
    IdxArray lb = read_idx_u8(labels, max_items);
    if (im.dims.size() < 2) throw IdxError(images + ": expected images [count][...]");
    if (lb.dims.size() != 1) throw IdxError(labels + ": expected labels [count]");
    if (im.dims[0] != lb.dims[0])
        throw IdxError(labels + ": " + std::to_string(lb.dims[0]) + " labels for " +
                       std::to_string(im.dims[0]) + " images in " + images);
    LabelledImages out;
    out.count = im.dims[0];
    out.item = static_cast<uint32_t>(im.item_size());
    out.images = std::move(im.data);
    out.labels = std::move(lb.data);
    return out;
}

}  // namespace nmsim::dataset
