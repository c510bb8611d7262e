// Buffers of the pe workload on the platform: deterministic contents (values, files, seeded
// random data), placement in PE SRAM or external memory (after the firmware image, clear of the
// stack and argument block), and typed access to their bytes after the run.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "models/arm/elf_image.h"
#include "platforms/spinnaker2/pe_platform.h"
#include "workloads/pe/spec.h"

namespace nmsim::workloads::pe {

// Writes the buffer's initial contents (b.bytes() bytes) to `out`; random data come from the
// run's seed, one stream per buffer name. Throws std::runtime_error for an unreadable file.
void fill(const Buffer& b, uint64_t seed, uint8_t* out);
// One element of type t at `in`, as a double.
double decode(DType t, const uint8_t* in);

struct Placed {
    const Buffer* buf = nullptr;
    uint32_t addr = 0;  // core address
    uint8_t* host = nullptr;
};

struct Layout {
    std::map<std::string, Placed> buffers;
};

// The memories a platform offers the buffers: every PE's SRAM and one external memory at
// S2_EXT_BASE (the PE platform's `ext`, the chip's DRAM interface 0).
struct MemoryMap {
    size_t pe_count = 0;
    Bytes sram_size;
    Bytes ext_size;
    std::string ext_param;  // the parameter that sets ext_size, for messages: "ext.size"
};

// Places every buffer (file order); `images[pe]` is the ELF loaded on that PE, if any. Throws
// scenario::ScenarioError naming each buffer that does not fit or overlaps.
Layout place_buffers(const PeWorkload& w, const MemoryMap& m,
                     const std::vector<std::unique_ptr<arm::ElfImage>>& images);

std::vector<uint8_t> bytes_of(const Placed& pl);
std::vector<double> values_of(const Placed& pl);

}  // namespace nmsim::workloads::pe
