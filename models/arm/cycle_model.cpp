#include "models/arm/cycle_model.h"

#include <capstone/capstone.h>

#include <stdexcept>

namespace nmsim::arm {
namespace {

enum class Kind { alu, load, store, load_dual, multi, branch, table_branch, fp_mac, fp_div, fp_mem, fp_multi, div };

Kind classify(unsigned id) {
    switch (id) {
        case ARM_INS_LDR: case ARM_INS_LDRB: case ARM_INS_LDRH: case ARM_INS_LDRSB:
        case ARM_INS_LDRSH: case ARM_INS_LDRT: case ARM_INS_LDRBT: case ARM_INS_LDRHT:
        case ARM_INS_LDRSBT: case ARM_INS_LDRSHT: case ARM_INS_LDREX: case ARM_INS_LDREXB:
        case ARM_INS_LDREXH: case ARM_INS_STREX: case ARM_INS_STREXB: case ARM_INS_STREXH:
            return Kind::load;  // STREX pipelines like a load (TRM)
        case ARM_INS_STR: case ARM_INS_STRB: case ARM_INS_STRH: case ARM_INS_STRT:
        case ARM_INS_STRBT: case ARM_INS_STRHT:
            return Kind::store;
        case ARM_INS_LDRD: case ARM_INS_STRD: case ARM_INS_LDREXD: case ARM_INS_STREXD:
            return Kind::load_dual;
        case ARM_INS_LDM: case ARM_INS_LDMDB: case ARM_INS_STM: case ARM_INS_STMDB:
        case ARM_INS_PUSH: case ARM_INS_POP:
            return Kind::multi;
        case ARM_INS_B: case ARM_INS_BL: case ARM_INS_BX: case ARM_INS_BLX: case ARM_INS_CBZ:
        case ARM_INS_CBNZ:
            return Kind::branch;
        case ARM_INS_TBB: case ARM_INS_TBH:
            return Kind::table_branch;
        case ARM_INS_SDIV: case ARM_INS_UDIV:
            return Kind::div;
        case ARM_INS_VMLA: case ARM_INS_VMLS: case ARM_INS_VNMLA: case ARM_INS_VNMLS:
        case ARM_INS_VFMA: case ARM_INS_VFMS: case ARM_INS_VFNMA: case ARM_INS_VFNMS:
            return Kind::fp_mac;
        case ARM_INS_VDIV: case ARM_INS_VSQRT:
            return Kind::fp_div;
        case ARM_INS_VLDR: case ARM_INS_VSTR:
            return Kind::fp_mem;
        case ARM_INS_VLDMIA: case ARM_INS_VLDMDB: case ARM_INS_VSTMIA: case ARM_INS_VSTMDB:
        case ARM_INS_VPUSH: case ARM_INS_VPOP:
            return Kind::fp_multi;
        default:
            return Kind::alu;
    }
}

// Registers in a load/store-multiple list: operands minus the base register where present.
uint32_t list_length(const cs_insn& in) {
    const cs_arm& a = in.detail->arm;
    switch (in.id) {
        case ARM_INS_PUSH: case ARM_INS_POP: case ARM_INS_VPUSH: case ARM_INS_VPOP:
            return a.op_count;
        default:
            return a.op_count > 0 ? static_cast<uint32_t>(a.op_count - 1) : 0;
    }
}

bool writes_pc(const cs_insn& in) {
    const cs_arm& a = in.detail->arm;
    for (int o = 0; o < a.op_count; ++o)
        if (a.operands[o].type == ARM_OP_REG && a.operands[o].reg == ARM_REG_PC) {
            // PC as a destination: first operand of MOV/ADD/LDR, or in a POP/LDM register list.
            const bool list = in.id == ARM_INS_POP || in.id == ARM_INS_LDM || in.id == ARM_INS_LDMDB;
            if (list || o == 0) return in.id != ARM_INS_STR && in.id != ARM_INS_PUSH && in.id != ARM_INS_STM;
        }
    return false;
}

// Executed unconditionally (outside an IT block's false condition) and always changes the flow.
bool unconditional_transfer(const cs_insn& in) {
    const arm_cc cc = in.detail->arm.cc;
    if (cc != ARM_CC_AL && cc != ARM_CC_INVALID) return false;
    switch (in.id) {
        case ARM_INS_B: case ARM_INS_BL: case ARM_INS_BX: case ARM_INS_BLX: case ARM_INS_TBB:
        case ARM_INS_TBH:
            return true;
        case ARM_INS_CBZ: case ARM_INS_CBNZ:
            return false;  // conditional by nature: the core sees whether it was taken
        default:
            return writes_pc(in);
    }
}

}  // namespace

CycleModel::CycleModel(uint32_t div_cycles) : m_div_cycles(div_cycles), m_handle(0) {
    csh h = 0;
    if (cs_open(CS_ARCH_ARM, static_cast<cs_mode>(CS_MODE_THUMB | CS_MODE_MCLASS), &h) != CS_ERR_OK)
        throw std::runtime_error("capstone: cannot open an ARM Thumb disassembler");
    cs_option(h, CS_OPT_DETAIL, CS_OPT_ON);
    m_handle = h;
}

CycleModel::~CycleModel() {
    csh h = m_handle;
    cs_close(&h);
}

BlockCost CycleModel::cost(const uint8_t* code, size_t size, uint32_t addr) const {
    BlockCost c;
    cs_insn* insn = nullptr;
    const size_t n = cs_disasm(m_handle, code, size, addr, 0, &insn);
    bool prev_load = false;
    for (size_t i = 0; i < n; ++i) {
        const cs_insn& in = insn[i];
        uint32_t cyc = 1;
        bool is_load = false;
        switch (classify(in.id)) {
            case Kind::load:
                cyc = prev_load ? 1 : 2;  // neighbouring loads/stores pipeline (TRM)
                is_load = true;
                break;
            case Kind::store: cyc = 1; break;
            case Kind::load_dual: cyc = 3; break;
            case Kind::multi: cyc = 1 + list_length(in); break;
            case Kind::branch: cyc = 1; break;
            case Kind::table_branch: cyc = 2; break;
            case Kind::div: cyc = m_div_cycles; break;
            case Kind::fp_mac: cyc = 3; break;
            case Kind::fp_div: cyc = 14; break;
            case Kind::fp_mem: cyc = 2; break;
            case Kind::fp_multi: cyc = 1 + list_length(in); break;
            case Kind::alu:
                // VMOV between two core registers and a double-precision register pair.
                if (in.id == ARM_INS_VMOV && in.detail->arm.op_count >= 3) cyc = 2;
                break;
        }
        prev_load = is_load;
        c.cycles += cyc;
        c.instructions += 1;
    }
    if (n) c.ends_in_transfer = unconditional_transfer(insn[n - 1]);
    // Bytes capstone could not decode (should not happen for code Unicorn executed): 1 cycle per
    // halfword keeps time advancing.
    size_t decoded = n ? static_cast<size_t>(insn[n - 1].address + insn[n - 1].size - addr) : 0;
    if (decoded < size) {
        const uint32_t rest = static_cast<uint32_t>((size - decoded + 1) / 2);
        c.cycles += rest;
        c.instructions += rest;
    }
    if (insn) cs_free(insn, n);
    return c;
}

std::string CycleModel::disassemble(const uint8_t* code, size_t size, uint32_t addr) const {
    cs_insn* insn = nullptr;
    const size_t n = cs_disasm(m_handle, code, size, addr, 1, &insn);
    std::string out;
    if (n) out = std::string(insn[0].mnemonic) + " " + insn[0].op_str;
    if (insn) cs_free(insn, n);
    return out;
}

}  // namespace nmsim::arm

namespace nmsim::arm {

uint32_t CycleModel::find_access(const uint8_t* code, size_t size, uint32_t addr, uint32_t target,
                                 const std::function<uint32_t(unsigned)>& reg) const {
    cs_insn* insn = nullptr;
    const size_t n = cs_disasm(m_handle, code, size, addr, 0, &insn);
    uint32_t found = 0;
    for (size_t i = 0; i < n && !found; ++i) {
        const cs_insn& in = insn[i];
        const cs_arm& a = in.detail->arm;
        const Kind k = classify(in.id);
        if (k == Kind::multi || k == Kind::fp_multi) {
            // Register lists: the range touched around the base register (SP for PUSH/POP).
            const bool stack = in.id == ARM_INS_PUSH || in.id == ARM_INS_POP ||
                               in.id == ARM_INS_VPUSH || in.id == ARM_INS_VPOP;
            const uint32_t base = stack ? reg(ARM_REG_SP) : reg(a.operands[0].reg);
            const uint32_t span = 8u * list_length(in);  // generous: covers D registers too
            if (target >= base - span && target < base + span) found = static_cast<uint32_t>(in.address);
            continue;
        }
        for (int o = 0; o < a.op_count; ++o) {
            if (a.operands[o].type != ARM_OP_MEM) continue;
            const arm_op_mem& m = a.operands[o].mem;
            uint32_t ea = m.base == ARM_REG_PC ? ((static_cast<uint32_t>(in.address) + 4) & ~3u)
                                               : reg(m.base);
            const bool post_index = o + 1 < a.op_count;  // a trailing offset operand
            if (!post_index) {
                const cs_arm_op& op = a.operands[o];
                const int shift = op.shift.type == ARM_SFT_LSL
                                      ? static_cast<int>(op.shift.value)
                                      : m.lshift;  // LDR: shift; TBH: lshift
                uint32_t idx = m.index != ARM_REG_INVALID ? reg(m.index) << shift : 0;
                ea += static_cast<uint32_t>(m.disp) + (m.scale < 0 ? 0u - idx : idx);
            }
            if (target >= ea && target < ea + 8) found = static_cast<uint32_t>(in.address);
        }
    }
    if (insn) cs_free(insn, n);
    return found;
}

bool CycleModel::ends_with_wfi(const uint8_t* code, size_t size, uint32_t addr) const {
    cs_insn* insn = nullptr;
    const size_t n = cs_disasm(m_handle, code, size, addr, 0, &insn);
    const bool wfi = n && insn[n - 1].id == ARM_INS_WFI;
    if (insn) cs_free(insn, n);
    return wfi;
}

}  // namespace nmsim::arm
