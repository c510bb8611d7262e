#include "models/arm/block_checks.h"

#include <capstone/capstone.h>

#include <stdexcept>

namespace nmsim::arm {
namespace {

// r0..r12 = 0..12, SP 13, LR 14, PC 15; -1 for anything else.
int reg_index(unsigned r) {
    if (r >= ARM_REG_R0 && r <= ARM_REG_R12) return static_cast<int>(r - ARM_REG_R0);
    if (r == ARM_REG_SP) return 13;
    if (r == ARM_REG_LR) return 14;
    if (r == ARM_REG_PC) return 15;
    return -1;
}

bool writes_flags(csh h, const cs_insn& in) {
    const cs_arm& a = in.detail->arm;
    if (a.update_flags || in.id == ARM_INS_MSR) return true;
    cs_regs read, written;
    uint8_t n_read = 0, n_written = 0;
    if (cs_regs_access(h, &in, read, &n_read, written, &n_written) != CS_ERR_OK) return true;
    for (uint8_t i = 0; i < n_written; ++i)
        if (written[i] == ARM_REG_CPSR || written[i] == ARM_REG_APSR ||
            written[i] == ARM_REG_APSR_NZCV)
            return true;
    return false;
}

// Bit i set: the instruction writes r<i>.
uint32_t written_registers(csh h, const cs_insn& in) {
    cs_regs read, written;
    uint8_t n_read = 0, n_written = 0;
    if (cs_regs_access(h, &in, read, &n_read, written, &n_written) != CS_ERR_OK) return 0xFFFFu;
    uint32_t mask = 0;
    for (uint8_t i = 0; i < n_written; ++i) {
        const int r = reg_index(written[i]);
        if (r >= 0) mask |= 1u << r;
    }
    return mask;
}

// Fills the address of the memory operand; false if there is none.
bool memory_operand(const cs_insn& in, InsnCheck& c) {
    const cs_arm& a = in.detail->arm;
    for (int o = 0; o < a.op_count; ++o) {
        const cs_arm_op& op = a.operands[o];
        if (op.type != ARM_OP_MEM) continue;
        c.base = static_cast<int8_t>(reg_index(op.mem.base));
        if (op.mem.index != ARM_REG_INVALID) {
            c.index_reg = static_cast<int8_t>(reg_index(op.mem.index));
            c.shift =
                static_cast<uint8_t>(op.shift.type == ARM_SFT_LSL ? op.shift.value : op.mem.lshift);
        }
        const bool post_indexed = o + 1 < a.op_count;  // a trailing offset operand
        c.disp = post_indexed ? 0 : op.mem.disp;
        return c.base >= 0;
    }
    return false;
}

uint32_t bits_of(int r) { return r >= 0 && r < 16 ? 1u << r : 0u; }

// Where an instruction stores, for the replay: the bytes and their address operands, or
// kStoreUnknown for a store it cannot place (writeback addressing modes it does not follow,
// exclusive stores, register lists of unusual kinds); 0 for no store.
void place_store(const cs_insn& in, MicroOp& m) {
    const cs_arm& a = in.detail->arm;
    auto mem_op = [&]() -> const cs_arm_op* {
        for (int o = 0; o < a.op_count; ++o)
            if (a.operands[o].type == ARM_OP_MEM) return &a.operands[o];
        return nullptr;
    };
    auto at = [&](uint8_t bytes) {
        const cs_arm_op* op = mem_op();
        if (!op || op->mem.base == ARM_REG_PC) {
            m.store = MicroOp::kStoreUnknown;
            return;
        }
        m.store = bytes;
        m.st_base = static_cast<int8_t>(reg_index(op->mem.base));
        // post-indexed (an immediate after the memory operand): the address is the base
        const bool post = a.writeback && a.operands[a.op_count - 1].type != ARM_OP_MEM;
        m.st_imm = post ? 0 : op->mem.disp;
        if (op->mem.index != ARM_REG_INVALID) {
            m.st_index = static_cast<int8_t>(reg_index(op->mem.index));
            const arm_shifter t = op->shift.type;
            if (post || op->mem.scale < 0 || (t != ARM_SFT_INVALID && t != ARM_SFT_LSL))
                m.store = MicroOp::kStoreUnknown;
            m.st_shift = static_cast<uint8_t>(t == ARM_SFT_LSL ? op->shift.value : op->mem.lshift);
        }
        if (m.st_base < 0) m.store = MicroOp::kStoreUnknown;
    };
    auto list_bytes = [&](int first) {
        uint32_t bytes = 0;
        for (int o = first; o < a.op_count; ++o) {
            const arm_reg r = static_cast<arm_reg>(a.operands[o].reg);
            bytes += (r >= ARM_REG_D0 && r <= ARM_REG_D31) ? 8u : 4u;
        }
        return bytes;
    };
    switch (in.id) {
        case ARM_INS_STR:
        case ARM_INS_STRT:
            at(4);
            // a conditional store may not happen: its value must not be forwarded
            if (a.operands[0].type == ARM_OP_REG && (a.cc == ARM_CC_AL || a.cc == ARM_CC_INVALID)) {
                const int src = reg_index(a.operands[0].reg);
                m.st_src = static_cast<int8_t>(src >= 0 && src != 15 ? src : -1);
            }
            return;
        case ARM_INS_STRH:
        case ARM_INS_STRHT:
            return at(2);
        case ARM_INS_STRB:
        case ARM_INS_STRBT:
            return at(1);
        case ARM_INS_STRD:
            return at(8);
        case ARM_INS_VSTR: {
            const arm_reg r = static_cast<arm_reg>(a.operands[0].reg);
            return at((r >= ARM_REG_D0 && r <= ARM_REG_D31) ? 8 : 4);
        }
        case ARM_INS_PUSH:
        case ARM_INS_VPUSH: {
            const uint32_t bytes = list_bytes(0);
            m.store = bytes < MicroOp::kStoreUnknown ? static_cast<uint8_t>(bytes)
                                                     : MicroOp::kStoreUnknown;
            m.st_base = 13;
            m.st_imm = -static_cast<int32_t>(bytes);
            return;
        }
        case ARM_INS_STM:
        case ARM_INS_STMDB:
        case ARM_INS_VSTMIA:
        case ARM_INS_VSTMDB: {
            const uint32_t bytes = list_bytes(1);
            const int base = a.op_count > 0 && a.operands[0].type == ARM_OP_REG
                                 ? reg_index(a.operands[0].reg)
                                 : -1;
            if (base < 0 || base == 15 || bytes >= MicroOp::kStoreUnknown) {
                m.store = MicroOp::kStoreUnknown;
                return;
            }
            m.store = static_cast<uint8_t>(bytes);
            m.st_base = static_cast<int8_t>(base);
            const bool down = in.id == ARM_INS_STMDB || in.id == ARM_INS_VSTMDB;
            m.st_imm = down ? -static_cast<int32_t>(bytes) : 0;
            return;
        }
        case ARM_INS_STREX:
        case ARM_INS_STREXB:
        case ARM_INS_STREXH:
            m.store = MicroOp::kStoreUnknown;
            return;
        default:
            return;
    }
}

// The register effect of one instruction (MicroOp); `other` for what it does not describe.
MicroOp micro_op(csh h, const cs_insn& in, const uint8_t* code, uint32_t block, size_t size) {
    const cs_arm& a = in.detail->arm;
    const uint32_t pc = static_cast<uint32_t>(in.address);
    MicroOp m;
    m.writes = static_cast<uint16_t>(written_registers(h, in));
    const bool conditional = a.cc != ARM_CC_AL && a.cc != ARM_CC_INVALID;
    if (conditional) return m;  // may or may not write: unknown
    auto reg = [&](int o) { return static_cast<int8_t>(reg_index(a.operands[o].reg)); };
    auto is_reg = [&](int o) { return o < a.op_count && a.operands[o].type == ARM_OP_REG; };
    auto is_imm = [&](int o) { return o < a.op_count && a.operands[o].type == ARM_OP_IMM; };
    auto shifted = [&](int o) {  // a register operand with an immediate shift we can replay
        const arm_shifter t = a.operands[o].shift.type;
        if (t == ARM_SFT_INVALID) return true;
        if (t == ARM_SFT_LSL || t == ARM_SFT_LSR || t == ARM_SFT_ASR) {
            m.rm = reg(o);
            m.shift_type = static_cast<uint8_t>(t == ARM_SFT_LSL ? 0 : t == ARM_SFT_LSR ? 1 : 2);
            m.shift = static_cast<uint8_t>(a.operands[o].shift.value);
            return true;
        }
        return false;
    };
    switch (in.id) {
        case ARM_INS_MOV:
        case ARM_INS_MOVW:
            if (is_reg(0) && is_imm(1)) {
                m.kind = MicroOp::set;
                m.rd = reg(0);
                m.imm = static_cast<uint32_t>(a.operands[1].imm);
            } else if (is_reg(0) && is_reg(1) && reg(1) != 15) {
                m.kind = MicroOp::add;
                m.rd = reg(0);
                m.rm = reg(1);
                if (!shifted(1)) m.kind = MicroOp::other;
            }
            break;
        case ARM_INS_MOVT:
            if (is_reg(0) && is_imm(1)) {
                m.kind = MicroOp::movt;
                m.rd = reg(0);
                m.imm = static_cast<uint32_t>(a.operands[1].imm) << 16;
            }
            break;
        case ARM_INS_LSL:
        case ARM_INS_LSR:
        case ARM_INS_ASR:
            if (a.op_count == 3 && is_reg(0) && is_reg(1) && is_imm(2)) {
                m.kind = MicroOp::add;
                m.rd = reg(0);
                m.rm = reg(1);
                m.shift_type = static_cast<uint8_t>(in.id == ARM_INS_LSL   ? 0
                                                    : in.id == ARM_INS_LSR ? 1
                                                                           : 2);
                m.shift = static_cast<uint8_t>(a.operands[2].imm);
            }
            break;
        case ARM_INS_ADD:
        case ARM_INS_ADDW:
        case ARM_INS_SUB:
        case ARM_INS_SUBW: {
            const bool sub = in.id == ARM_INS_SUB || in.id == ARM_INS_SUBW;
            if (!is_reg(0)) break;
            // two operands (rd, op2) mean rd = rd op op2
            const int rn_op = a.op_count == 3 ? 1 : 0, op2 = a.op_count == 3 ? 2 : 1;
            if (!is_reg(rn_op)) break;
            m.rd = reg(0);
            m.rn = reg(rn_op);
            if (is_imm(op2)) {
                const uint32_t imm = static_cast<uint32_t>(a.operands[op2].imm);
                m.kind = MicroOp::add;
                m.imm = sub ? 0u - imm : imm;
                if (m.rn == 15) {  // ADR: Align(PC, 4) + imm
                    m.kind = MicroOp::set;
                    m.imm += (pc + 4) & ~3u;
                    m.rn = -1;
                }
            } else if (is_reg(op2) && reg(op2) != 15 && m.rn != 15 && shifted(op2)) {
                if (m.rm < 0) m.rm = reg(op2);
                m.subtract = sub;
                m.kind = MicroOp::add;
            }
            break;
        }
        case ARM_INS_ADR:
            if (is_reg(0) && is_imm(1)) {
                m.kind = MicroOp::set;
                m.rd = reg(0);
                m.imm = ((pc + 4) & ~3u) + static_cast<uint32_t>(a.operands[1].imm);
            }
            break;
        case ARM_INS_LDR:
            if (a.op_count == 2 && is_reg(0) && a.operands[1].type == ARM_OP_MEM &&
                a.operands[1].mem.base == ARM_REG_PC &&
                a.operands[1].mem.index == ARM_REG_INVALID) {
                m.kind = MicroOp::literal;
                m.rd = reg(0);
                m.imm = ((pc + 4) & ~3u) + static_cast<uint32_t>(a.operands[1].mem.disp);
                (void)code;
                (void)block;
                (void)size;
                break;
            }
            [[fallthrough]];
        case ARM_INS_LDRH:
        case ARM_INS_LDRSH:
        case ARM_INS_LDRB:
        case ARM_INS_LDRSB:
            if (a.op_count == 2 && !a.writeback && is_reg(0) && reg(0) != 15 &&
                a.operands[1].type == ARM_OP_MEM && a.operands[1].mem.base != ARM_REG_PC) {
                // a load whose value a later check may need (an index loaded from an array)
                const arm_op_mem& mem = a.operands[1].mem;
                m.kind = MicroOp::load;
                m.rd = reg(0);
                m.rn = static_cast<int8_t>(reg_index(mem.base));
                m.imm = static_cast<uint32_t>(mem.disp);
                m.size = in.id == ARM_INS_LDR                              ? 4
                         : in.id == ARM_INS_LDRH || in.id == ARM_INS_LDRSH ? 2
                                                                           : 1;
                m.sign = in.id == ARM_INS_LDRSH || in.id == ARM_INS_LDRSB;
                if (mem.index != ARM_REG_INVALID) {
                    m.rm = static_cast<int8_t>(reg_index(mem.index));
                    m.shift = static_cast<uint8_t>(mem.lshift);
                    m.subtract = mem.scale < 0;
                    const arm_shifter t = a.operands[1].shift.type;
                    if (t != ARM_SFT_INVALID && t != ARM_SFT_LSL) m.kind = MicroOp::other;
                    if (t == ARM_SFT_LSL) m.shift = static_cast<uint8_t>(a.operands[1].shift.value);
                }
                if (m.rn < 0 || (mem.index != ARM_REG_INVALID && m.rm < 0)) m.kind = MicroOp::other;
            }
            break;
        case ARM_INS_LDRD:
            if (a.op_count == 3 && !a.writeback && is_reg(0) && is_reg(1) && reg(0) != 15 &&
                reg(1) != 15 && a.operands[2].type == ARM_OP_MEM &&
                a.operands[2].mem.base != ARM_REG_PC &&
                a.operands[2].mem.index == ARM_REG_INVALID) {
                m.kind = MicroOp::load;
                m.rd = reg(0);
                m.rd2 = reg(1);
                m.rn = static_cast<int8_t>(reg_index(a.operands[2].mem.base));
                m.imm = static_cast<uint32_t>(a.operands[2].mem.disp);
                m.size = 8;
                if (m.rn < 0) m.kind = MicroOp::other;
            }
            break;
        default:
            break;
    }
    if (m.kind != MicroOp::other) return m;
    // Base writeback of loads and stores, and of LDM/STM/PUSH/POP: what the check may still use.
    if (a.writeback || in.id == ARM_INS_PUSH || in.id == ARM_INS_POP) {
        int base = -1;
        int32_t delta = 0;
        uint32_t listed = 0;
        for (int o = 0; o < a.op_count; ++o) {
            const cs_arm_op& op = a.operands[o];
            if (op.type == ARM_OP_MEM) {
                base = reg_index(op.mem.base);
                const bool post = o + 1 < a.op_count;
                if (post && a.operands[o + 1].type == ARM_OP_IMM)
                    delta = a.operands[o + 1].imm;
                else if (!post)
                    delta = op.mem.disp;
                else
                    base = -1;  // register post-index: unknown
                break;
            }
        }
        if (base < 0) {
            switch (in.id) {
                case ARM_INS_LDM:
                case ARM_INS_STM:
                case ARM_INS_LDMDB:
                case ARM_INS_STMDB:
                case ARM_INS_VLDMIA:
                case ARM_INS_VSTMIA:
                case ARM_INS_VLDMDB:
                case ARM_INS_VSTMDB: {
                    base = is_reg(0) ? reg_index(a.operands[0].reg) : -1;
                    uint32_t bytes = 0;
                    for (int o = 1; o < a.op_count; ++o) {
                        const int r =
                            a.operands[o].type == ARM_OP_REG ? reg_index(a.operands[o].reg) : -1;
                        bytes += r >= 0 ? 4u
                                        : (a.operands[o].reg >= ARM_REG_D0 &&
                                                   a.operands[o].reg <= ARM_REG_D31
                                               ? 8u
                                               : 4u);
                        listed |= bits_of(r);
                    }
                    const bool down = in.id == ARM_INS_LDMDB || in.id == ARM_INS_STMDB ||
                                      in.id == ARM_INS_VLDMDB || in.id == ARM_INS_VSTMDB;
                    delta = down ? -static_cast<int32_t>(bytes) : static_cast<int32_t>(bytes);
                    break;
                }
                case ARM_INS_PUSH:
                case ARM_INS_POP: {
                    base = 13;
                    delta = 4 * a.op_count;
                    if (in.id == ARM_INS_PUSH) delta = -delta;
                    break;
                }
                default:
                    break;
            }
        }
        if (base >= 0 && base != 15 && !(listed & bits_of(base))) {
            m.wb_reg = static_cast<int8_t>(base);
            m.wb_delta = delta;
            m.writes = static_cast<uint16_t>(m.writes & ~bits_of(base));
        }
    }
    return m;
}

}  // namespace

uint8_t BlockAnalysis::it_state(size_t i, uint8_t entry) const {
    uint8_t st = entry;
    for (size_t k = 0; k < i && k < it_bytes.size(); ++k)
        st = it_bytes[k] ? it_bytes[k] : it_advance(st);
    return st;
}

int BlockAnalysis::index_of(uint32_t block, uint32_t pc) const {
    for (size_t i = 0; i < offsets.size(); ++i)
        if (block + offsets[i] == pc) return static_cast<int>(i);
    return -1;
}

bool condition_passed(unsigned cond, uint32_t apsr) {
    const bool n = apsr >> 31 & 1u, z = apsr >> 30 & 1u, c = apsr >> 29 & 1u, v = apsr >> 28 & 1u;
    bool r = true;
    switch (cond >> 1) {
        case 0:
            r = z;
            break;
        case 1:
            r = c;
            break;
        case 2:
            r = n;
            break;
        case 3:
            r = v;
            break;
        case 4:
            r = c && !z;
            break;
        case 5:
            r = n == v;
            break;
        case 6:
            r = n == v && !z;
            break;
        default:
            r = true;
            break;
    }
    return (cond & 1u) && cond != 15 ? !r : r;
}

int coprocessor_of(uint16_t hw1, uint16_t hw2) {
    if ((hw1 & 0xEC00u) != 0xEC00u) return -1;  // 111x 11xx: coprocessor and FP instructions
    return (hw2 >> 8) & 0xF;
}

BlockAnalyzer::BlockAnalyzer() : m_handle(0) {
    csh h = 0;
    if (cs_open(CS_ARCH_ARM, static_cast<cs_mode>(CS_MODE_THUMB | CS_MODE_MCLASS), &h) != CS_ERR_OK)
        throw std::runtime_error("capstone: cannot open an ARM Thumb disassembler");
    cs_option(h, CS_OPT_DETAIL, CS_OPT_ON);
    m_handle = h;
}

BlockAnalyzer::~BlockAnalyzer() {
    csh h = m_handle;
    cs_close(&h);
}

BlockAnalysis BlockAnalyzer::analyze(const uint8_t* code, size_t size, uint32_t addr) const {
    BlockAnalysis b;
    const csh h = m_handle;
    cs_insn* insn = nullptr;
    const size_t n = cs_disasm(h, code, size, addr, 0, &insn);
    uint32_t written = 0;  // registers written by the instructions so far
    bool flags = false;    // NZCV written by the instructions so far
    for (size_t i = 0; i < n; ++i) {
        const cs_insn& in = insn[i];
        const cs_arm& a = in.detail->arm;
        const uint32_t off = static_cast<uint32_t>(in.address) - addr;
        b.offsets.push_back(static_cast<uint16_t>(off));
        b.it_bytes.push_back(in.id == ARM_INS_IT ? code[off] : 0);
        if (in.id == ARM_INS_IT && b.first_it == 0xFFFF) b.first_it = static_cast<uint16_t>(i);

        InsnCheck c;
        c.index = static_cast<uint16_t>(i);
        c.pc = static_cast<uint32_t>(in.address);
        c.flags_from_block = flags;
        if (in.size == 4) {
            const uint16_t hw1 = static_cast<uint16_t>(code[off] | code[off + 1] << 8);
            const uint16_t hw2 = static_cast<uint16_t>(code[off + 2] | code[off + 3] << 8);
            const int cp = coprocessor_of(hw1, hw2);
            if (cp == 10 || cp == 11) {  // an FPU instruction: CPACR, lazy preservation
                InsnCheck f = c;
                f.kind = InsnCheck::fp;
                b.has_fp = true;
                b.checks.push_back(f);
            }
        }
        bool add = false;
        switch (in.id) {
            case ARM_INS_LDREX:
            case ARM_INS_LDREXB:
            case ARM_INS_LDREXH:
                b.exclusive_load = true;
                break;
            default:
                break;
        }
        {
            switch (in.id) {
                case ARM_INS_LDRD:
                case ARM_INS_STRD:
                case ARM_INS_LDREX:
                case ARM_INS_STREX:
                case ARM_INS_VLDR:
                case ARM_INS_VSTR:
                    c.kind = InsnCheck::align;
                    c.align_mask = 3;
                    add = memory_operand(in, c);
                    break;
                case ARM_INS_LDREXH:
                case ARM_INS_STREXH:
                    c.kind = InsnCheck::align;
                    c.align_mask = 1;
                    add = memory_operand(in, c);
                    break;
                case ARM_INS_LDM:
                case ARM_INS_LDMDB:
                case ARM_INS_STM:
                case ARM_INS_STMDB:
                case ARM_INS_VLDMIA:
                case ARM_INS_VLDMDB:
                case ARM_INS_VSTMIA:
                case ARM_INS_VSTMDB:
                    // The list is a multiple of 4 bytes: the base decides the alignment.
                    c.kind = InsnCheck::align;
                    c.align_mask = 3;
                    c.base = a.op_count > 0 && a.operands[0].type == ARM_OP_REG
                                 ? static_cast<int8_t>(reg_index(a.operands[0].reg))
                                 : -1;
                    add = c.base >= 0;
                    break;
                case ARM_INS_LDR:
                case ARM_INS_STR:
                case ARM_INS_LDRT:
                case ARM_INS_STRT:
                    c.kind = InsnCheck::align_trp;
                    c.align_mask = 3;
                    add = memory_operand(in, c);
                    break;
                case ARM_INS_LDRH:
                case ARM_INS_STRH:
                case ARM_INS_LDRSH:
                case ARM_INS_LDRHT:
                case ARM_INS_STRHT:
                case ARM_INS_LDRSHT:
                    c.kind = InsnCheck::align_trp;
                    c.align_mask = 1;
                    add = memory_operand(in, c);
                    break;
                case ARM_INS_SDIV:
                case ARM_INS_UDIV:
                    if (a.op_count == 3 && a.operands[2].type == ARM_OP_REG) {
                        c.kind = InsnCheck::div0;
                        c.divisor = static_cast<int8_t>(reg_index(a.operands[2].reg));
                        add = c.divisor >= 0;
                    }
                    break;
                default:
                    break;
            }
            if (add && (c.kind == InsnCheck::align || c.kind == InsnCheck::align_trp)) {
                if (c.base == 15 && c.index_reg < 0) {  // literal: the address is known now
                    const uint32_t ea = ((c.pc + 4) & ~3u) + static_cast<uint32_t>(c.disp);
                    add = (ea & c.align_mask) != 0;
                } else if (c.base == 13 && c.index_reg < 0) {  // SP is always word-aligned
                    add = (static_cast<uint32_t>(c.disp) & c.align_mask) != 0;
                }
            }
        }
        if (add) {
            uint32_t needs = 0;
            if (c.base >= 0 && c.base != 13 && c.base != 15) needs |= 1u << c.base;
            if (c.index_reg >= 0) needs |= 1u << c.index_reg;
            if (c.divisor >= 0) needs |= 1u << c.divisor;
            c.operands_from_block = (needs & written) != 0;
            switch (c.kind) {
                case InsnCheck::align:
                    b.has_align = true;
                    break;
                case InsnCheck::align_trp:
                    b.has_align_trp = true;
                    break;
                case InsnCheck::div0:
                    b.has_div = true;
                    break;
                case InsnCheck::fp:
                    break;
            }
            b.checks.push_back(c);
        }
        written |= written_registers(h, in);
        flags = flags || writes_flags(h, in);
    }
    bool replay = false;
    for (const InsnCheck& c : b.checks) replay = replay || c.operands_from_block;
    if (replay) {
        b.ops.reserve(n);
        for (size_t i = 0; i < n; ++i) {
            MicroOp m = micro_op(h, insn[i], code, addr, size);
            place_store(insn[i], m);
            b.ops.push_back(m);
        }
    }
    if (insn) cs_free(insn, n);
    if (b.first_it != 0xFFFF) b.exit_it = b.it_state(b.offsets.size(), 0);
    return b;
}

}  // namespace nmsim::arm
