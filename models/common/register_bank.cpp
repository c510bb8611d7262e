#include "models/common/register_bank.h"

#include <cstdio>
#include <stdexcept>

#include "models/common/hex.h"
#include "nmsim/hw/regdef.h"

namespace nmsim {

std::vector<RegTable>& reg_table_registry() {
    static std::vector<RegTable> r;
    return r;
}

bool register_reg_table(const char* kind, const RegDesc* regs, size_t count) {
    reg_table_registry().push_back(RegTable{kind, regs, count});
    return true;
}

RegisterBank::RegisterBank(const RegDesc* regs, size_t count, size_t window_bytes)
    : m_descs(regs, regs + count), m_values(count), m_slots(window_bytes / 4) {
    for (size_t i = 0; i < count; ++i) {
        if (regs[i].offset % 4 != 0 || regs[i].offset / 4 >= m_slots.size())
            throw std::logic_error(std::string("register ") + regs[i].name + " outside window");
        m_slots[regs[i].offset / 4].index = static_cast<int>(i);
    }
    reset();
}

void RegisterBank::reset() {
    for (size_t i = 0; i < m_descs.size(); ++i) m_values[i] = m_descs[i].reset;
}

RegisterBank::Slot* RegisterBank::slot(uint32_t offset) {
    if (offset % 4 != 0 || offset / 4 >= m_slots.size()) return nullptr;
    Slot* s = &m_slots[offset / 4];
    return s->index < 0 ? nullptr : s;
}

void RegisterBank::on_read(uint32_t offset, ReadFn fn) {
    Slot* s = slot(offset);
    if (!s) throw std::logic_error("on_read: no register at offset " + std::to_string(offset));
    s->rd = std::move(fn);
}

void RegisterBank::on_write(uint32_t offset, WriteFn fn) {
    Slot* s = slot(offset);
    if (!s) throw std::logic_error("on_write: no register at offset " + std::to_string(offset));
    s->wr = std::move(fn);
}

uint32_t& RegisterBank::value(uint32_t offset) {
    Slot* s = slot(offset);
    if (!s) throw std::logic_error("value: no register at offset " + std::to_string(offset));
    return m_values[static_cast<size_t>(s->index)];
}

const RegDesc* RegisterBank::find(uint32_t offset) const {
    if (offset % 4 != 0 || offset / 4 >= m_slots.size()) return nullptr;
    int i = m_slots[offset / 4].index;
    return i < 0 ? nullptr : &m_descs[static_cast<size_t>(i)];
}

namespace {
std::string hex(uint32_t v) { return nmsim::hex(v, 3); }
}  // namespace

bool RegisterBank::read(uint32_t offset, unsigned size, uint32_t& out, std::string& why) {
    Slot* s = slot(offset);
    if (!s) {
        why = "no register at offset " + hex(offset);
        return false;
    }
    const RegDesc& d = m_descs[static_cast<size_t>(s->index)];
    if (size != 4) {
        why = std::to_string(size) + "-byte read of 32-bit register " + d.name + " (" + hex(offset) + ")";
        return false;
    }
    if (d.access == NM_WO) {
        why = std::string("read of write-only ") + d.name + " (" + hex(offset) + ")";
        return false;
    }
    out = s->rd ? s->rd() : m_values[static_cast<size_t>(s->index)];
    return true;
}

bool RegisterBank::write(uint32_t offset, unsigned size, uint32_t v, std::string& why) {
    Slot* s = slot(offset);
    if (!s) {
        why = "no register at offset " + hex(offset);
        return false;
    }
    const RegDesc& d = m_descs[static_cast<size_t>(s->index)];
    if (size != 4) {
        why = std::to_string(size) + "-byte write to 32-bit register " + d.name + " (" + hex(offset) + ")";
        return false;
    }
    if (d.access == NM_RO) {
        why = std::string("write to read-only ") + d.name + " (" + hex(offset) + ")";
        return false;
    }
    if (s->wr)
        s->wr(v);
    else
        m_values[static_cast<size_t>(s->index)] = v;
    return true;
}

}  // namespace nmsim
