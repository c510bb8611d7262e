// The `pe` workload: buffers and firmware on SpiNNaker2 PEs (spinnaker2_pe, or spinnaker2_chip
// with the external memory in DRAM interface 0). Buffers live in a PE's SRAM or in the external
// memory; each core runs one ELF with argument words written to its argument block; checks
// compare results with integer references after the run. Schema in schema.cpp, host program in
// host.cpp; scenarios/README.md, "workload.pe".
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tools/scenario/workload.h"

namespace nmsim::workloads::pe {

using scenario::Origin;

enum class DType { i8, u8, i16, u16, i32, u32, f32 };
const char* dtype_name(DType t);
size_t dtype_size(DType t);
bool dtype_is_float(DType t);
// The YAML name ("int8", ..., "float32") to the enum; nullopt for anything else.
std::optional<DType> parse_dtype(const std::string& name);
std::vector<std::string> dtype_names();

// Where a buffer lives: the SRAM of one PE (auto-placed after the firmware image unless
// `address` is given) or the host-visible external memory (window at S2_EXT_BASE).
struct Placement {
    enum class Kind { sram, ext } kind = Kind::sram;
    uint32_t pe = 0;
    std::optional<uint32_t> address;  // absolute core address; auto-placed if absent
};

struct BufferInit {
    enum class Kind { zeros, random, values, file } kind = Kind::zeros;
    double lo = 0, hi = 0;       // random: uniform integers (or reals for f32) in [lo, hi]
    std::vector<double> values;  // values: literal list, row-major
    std::string file;  // file: raw little-endian bytes; absolute (resolved against the scenario)
};

struct Buffer {
    std::string name;
    DType dtype = DType::i8;
    std::vector<uint64_t> shape;
    Placement at;
    BufferInit init;
    Origin origin;
    uint64_t bytes() const;
    uint64_t elements() const;  // product of shape
};

// One 32-bit argument word written to the core's argument block before it starts:
// an integer, or the address of a buffer ("@name").
struct ArgWord {
    std::string name;  // key in the YAML map (documentation; order defines the layout)
    std::optional<uint32_t> value;
    std::string buffer;  // set for "@name"
    Origin origin;
};

struct CoreLoad {
    uint32_t pe = 0;
    std::string firmware;       // as written: a built-in program name or a path
    std::string firmware_path;  // resolved absolute ELF path (exists at load time)
    std::vector<ArgWord> args;
    Origin origin;
};

// A check of the results, run on the host after the simulation.
//   kind: reference  -- recompute `op` with the integer reference and compare bit-exactly
//   kind: equal      -- buffer equals another buffer (`expect`)
//   kind: allclose   -- buffer (converted by `scale`) within atol of reference `op` output
struct Check {
    std::string kind;
    std::string buffer;  // result buffer
    std::string expect;  // equal: the other buffer
    double atol = 0;
    std::map<std::string, std::string> op;  // reference op: name -> value (buffers by name)
    Origin origin;
};

struct PeWorkload : scenario::WorkloadSpec {
    std::map<std::string, Buffer> buffers;
    std::vector<std::string> buffer_order;  // file order (placement order)
    std::vector<CoreLoad> cores;
    std::vector<Check> checks;

    std::unique_ptr<scenario::WorkloadSpec> clone() const override;
    void dump(YAML::Emitter& e) const override;
    void diff(const scenario::WorkloadSpec& other, const std::string& prefix,
              scenario::Differ& d) const override;
};

const scenario::WorkloadSchema& schema();

}  // namespace nmsim::workloads::pe
