#include "workloads/pe/buffers.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "models/common/param.h"
#include "models/common/seeding.h"
#include "nmsim/hw/spinnaker2/pe_map.h"
#include "platforms/common/format.h"

namespace nmsim::workloads::pe {

using run::hex32;
using scenario::ConfigError;
using scenario::ScenarioError;

namespace {

constexpr uint32_t kStackReserve = 0x1000;  // link.ld's _min_stack
constexpr uint32_t kAlign = 16;             // buffer alignment (MLA and DMA friendly)

uint32_t align_up(uint64_t v, uint32_t a) { return static_cast<uint32_t>((v + a - 1) / a * a); }

uint64_t name_hash(const std::string& s) {
    uint64_t h = 1469598103934665603ULL;  // FNV-1a
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
    return h;
}

void encode(DType t, double v, uint8_t* out) {
    switch (t) {
        case DType::i8: {
            const auto x = static_cast<int8_t>(v);
            std::memcpy(out, &x, 1);
            break;
        }
        case DType::u8: {
            const auto x = static_cast<uint8_t>(v);
            std::memcpy(out, &x, 1);
            break;
        }
        case DType::i16: {
            const auto x = static_cast<int16_t>(v);
            std::memcpy(out, &x, 2);
            break;
        }
        case DType::u16: {
            const auto x = static_cast<uint16_t>(v);
            std::memcpy(out, &x, 2);
            break;
        }
        case DType::i32: {
            const auto x = static_cast<int32_t>(v);
            std::memcpy(out, &x, 4);
            break;
        }
        case DType::u32: {
            const auto x = static_cast<uint32_t>(v);
            std::memcpy(out, &x, 4);
            break;
        }
        case DType::f32: {
            const auto x = static_cast<float>(v);
            std::memcpy(out, &x, 4);
            break;
        }
    }
}

}  // namespace

double decode(DType t, const uint8_t* in) {
    switch (t) {
        case DType::i8: {
            int8_t x;
            std::memcpy(&x, in, 1);
            return x;
        }
        case DType::u8: {
            uint8_t x;
            std::memcpy(&x, in, 1);
            return x;
        }
        case DType::i16: {
            int16_t x;
            std::memcpy(&x, in, 2);
            return x;
        }
        case DType::u16: {
            uint16_t x;
            std::memcpy(&x, in, 2);
            return x;
        }
        case DType::i32: {
            int32_t x;
            std::memcpy(&x, in, 4);
            return x;
        }
        case DType::u32: {
            uint32_t x;
            std::memcpy(&x, in, 4);
            return x;
        }
        case DType::f32: {
            float x;
            std::memcpy(&x, in, 4);
            return x;
        }
    }
    return 0;
}

void fill(const Buffer& b, uint64_t seed, uint8_t* out) {
    const size_t es = dtype_size(b.dtype);
    const uint64_t n = b.elements();
    switch (b.init.kind) {
        case BufferInit::Kind::zeros:
            std::memset(out, 0, b.bytes());
            break;
        case BufferInit::Kind::values:
            for (uint64_t i = 0; i < n; ++i) encode(b.dtype, b.init.values[i], out + i * es);
            break;
        case BufferInit::Kind::file: {
            std::ifstream f(b.init.file, std::ios::binary);
            std::vector<char> bytes((std::istreambuf_iterator<char>(f)),
                                    std::istreambuf_iterator<char>());
            if (!f.good() && !f.eof()) throw std::runtime_error(b.init.file + ": cannot read");
            if (bytes.size() != b.bytes())
                throw std::runtime_error(b.init.file + ": " + std::to_string(bytes.size()) +
                                         " bytes, buffer " + b.name + " needs " +
                                         std::to_string(b.bytes()));
            std::memcpy(out, bytes.data(), bytes.size());
            break;
        }
        case BufferInit::Kind::random: {
            // Our own generator (splitmix64) so that data are identical on every platform and
            // library version; one stream per buffer name.
            uint64_t s = seed ^ name_hash(b.name);
            for (uint64_t i = 0; i < n; ++i) {
                const uint64_t r = splitmix64_next(s);
                double v;
                if (b.dtype == DType::f32) {
                    v = b.init.lo +
                        (b.init.hi - b.init.lo) * static_cast<double>(r >> 11) * 0x1.0p-53;
                } else {
                    const auto span = static_cast<uint64_t>(b.init.hi - b.init.lo) + 1;
                    v = b.init.lo + static_cast<double>(r % span);
                }
                encode(b.dtype, v, out + i * es);
            }
            break;
        }
    }
}

Layout place_buffers(const PeWorkload& w, const MemoryMap& m,
                     const std::vector<std::unique_ptr<arm::ElfImage>>& images) {
    Layout L;
    std::vector<ConfigError> errors;
    std::vector<uint32_t> next(m.pe_count), image_end(m.pe_count, 0);
    for (size_t i = 0; i < m.pe_count; ++i) {
        if (images[i]) {
            uint32_t end = 0;
            image_end[i] = images[i]->find_symbol("_end", end) ? end : images[i]->end_of_image();
        }
        next[i] = align_up(image_end[i], kAlign);
    }
    uint64_t ext_next = S2_EXT_BASE;
    struct Range {
        uint64_t lo, hi;
        std::string what;
    };
    std::map<std::string, std::vector<Range>> used;  // per memory
    for (const auto& name : w.buffer_order) {
        const Buffer& b = w.buffers.at(name);
        const uint64_t bytes = b.bytes();
        uint64_t addr = 0;
        std::string mem;
        auto fail = [&](const std::string& msg) {
            errors.push_back(ConfigError{b.origin, "workload.pe.buffers." + name, msg});
        };
        if (b.at.kind == Placement::Kind::sram) {
            const uint32_t pe = b.at.pe;
            mem = "pe" + std::to_string(pe) + ".sram";
            if (pe >= m.pe_count) {
                fail("placed in pe" + std::to_string(pe) + " but the platform has " +
                     std::to_string(m.pe_count) + " PEs");
                continue;
            }
            const uint64_t low_limit = S2_ARGS_BASE - kStackReserve;
            const uint64_t sram = m.sram_size.n;
            if (b.at.address) {
                addr = *b.at.address;
                const bool in_low = addr >= image_end[pe] && addr + bytes <= low_limit;
                const bool in_high =
                    addr >= S2_ARGS_BASE + 4 * S2_ARGS_WORDS && addr + bytes <= sram;
                if (!in_low && !in_high) {
                    fail("address " + hex32(addr) + " (" + std::to_string(bytes) +
                         " B) overlaps the firmware image (ends " + hex32(image_end[pe]) +
                         "), the stack and argument block [" + hex32(low_limit) + ", " +
                         hex32(S2_ARGS_BASE + 4 * S2_ARGS_WORDS) + ") or the end of SRAM (" +
                         hex32(sram) + ")");
                    continue;
                }
            } else {
                addr = next[pe];
                if (addr + bytes > low_limit) {
                    // Larger-than-default SRAM: the space above the argument block.
                    uint64_t hi =
                        std::max<uint64_t>(align_up(S2_ARGS_BASE + 4 * S2_ARGS_WORDS, kAlign), 0);
                    for (const auto& r : used[mem])
                        if (r.lo >= S2_ARGS_BASE)
                            hi = std::max(hi, static_cast<uint64_t>(align_up(r.hi, kAlign)));
                    if (hi + bytes <= sram) {
                        addr = hi;
                    } else {
                        fail("does not fit pe" + std::to_string(pe) + " SRAM: needs " +
                             std::to_string(bytes) + " B, " +
                             std::to_string(low_limit > addr ? low_limit - addr : 0) +
                             " B free between " + hex32(addr) + " and the stack reserve at " +
                             hex32(low_limit) + " (pe.sram_size=" + format_bytes(m.sram_size) +
                             ")");
                        continue;
                    }
                } else {
                    next[pe] = align_up(addr + bytes, kAlign);
                }
            }
        } else {
            mem = "ext";
            const uint64_t limit = S2_EXT_BASE + m.ext_size.n;
            addr = b.at.address ? *b.at.address : ext_next;
            if (addr < S2_EXT_BASE || addr + bytes > limit) {
                fail("does not fit the external memory [" + hex32(S2_EXT_BASE) + ", " +
                     hex32(limit) + ") at " + hex32(addr) + " (" + std::to_string(bytes) + " B; " +
                     m.ext_param + "=" + format_bytes(m.ext_size) + ")");
                continue;
            }
            if (!b.at.address) ext_next = align_up(addr + bytes, kAlign);
        }
        for (const auto& r : used[mem]) {
            if (addr < r.hi && r.lo < addr + bytes) {
                fail("overlaps buffer " + r.what + " in " + mem + " at " + hex32(addr));
                break;
            }
        }
        used[mem].push_back(Range{addr, addr + bytes, name});
        L.buffers[name] = Placed{&b, static_cast<uint32_t>(addr), nullptr};
    }
    if (!errors.empty()) throw ScenarioError(errors);
    return L;
}

std::vector<uint8_t> bytes_of(const Placed& pl) {
    return std::vector<uint8_t>(pl.host, pl.host + pl.buf->bytes());
}

std::vector<double> values_of(const Placed& pl) {
    const size_t es = dtype_size(pl.buf->dtype);
    std::vector<double> v(pl.buf->elements());
    for (size_t i = 0; i < v.size(); ++i) v[i] = decode(pl.buf->dtype, pl.host + i * es);
    return v;
}

}  // namespace nmsim::workloads::pe
