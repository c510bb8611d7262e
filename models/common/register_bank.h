// A bank of 32-bit registers built from a firmware X-macro table (firmware/include/nmsim/hw).
// Reads and writes go to per-register handlers; access rights are enforced here so that model
// code never sees a write to a read-only register. Errors carry a readable reason.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace nmsim {

struct RegDesc {
    const char* name;
    uint32_t offset;
    uint32_t access;  // NM_RW / NM_RO / NM_WO
    uint32_t reset;
    const char* doc;
};

// Expands a firmware register table into RegDesc initialisers: { S2_MLA_REGS(NMSIM_REG_DESC) }.
#define NMSIM_REG_DESC(name, off, acc, rst, doc) ::nmsim::RegDesc{#name, off, acc, rst, doc},

// Register tables by kind string ("s2.mla"), for `nmsim params --regs KIND` and tests.
struct RegTable {
    const char* kind;
    const RegDesc* regs;
    size_t count;
};
std::vector<RegTable>& reg_table_registry();
bool register_reg_table(const char* kind, const RegDesc* regs, size_t count);

class RegisterBank {
public:
    using ReadFn = std::function<uint32_t()>;
    using WriteFn = std::function<void(uint32_t)>;

    RegisterBank(const RegDesc* regs, size_t count, size_t window_bytes);

    void reset();
    // Handlers; without one a read returns the stored value and a write stores it.
    void on_read(uint32_t offset, ReadFn fn);
    void on_write(uint32_t offset, WriteFn fn);
    uint32_t& value(uint32_t offset);  // the stored value (handlers may use it)

    // Returns false and sets `why` on an unmapped offset, a bad width or an access violation.
    bool read(uint32_t offset, unsigned size, uint32_t& out, std::string& why);
    bool write(uint32_t offset, unsigned size, uint32_t v, std::string& why);

    const RegDesc* find(uint32_t offset) const;
    const std::vector<RegDesc>& descs() const { return m_descs; }

private:
    struct Slot {
        int index = -1;
        ReadFn rd;
        WriteFn wr;
    };
    Slot* slot(uint32_t offset);
    std::vector<RegDesc> m_descs;
    std::vector<uint32_t> m_values;
    std::vector<Slot> m_slots;  // by offset / 4
};

}  // namespace nmsim
