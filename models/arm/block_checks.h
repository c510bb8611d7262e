// Architectural checks that Unicorn 2.0.1 does not make, found per translated block (docs/iss.md,
// "Checks the ISS does not make"): the alignment of the accesses that always require it (LDRD,
// STRD, LDM, STM, LDREX, STREX, LDREXH, STREXH, VLDR, VSTR, VLDM, VSTM), the alignment of every
// halfword and word access when CCR.UNALIGN_TRP is set, SDIV/UDIV by zero when CCR.DIV_0_TRP is
// set, and FP instructions (CPACR access control and lazy FP state preservation). The core
// evaluates them in the block hook, before the block runs, with the register values at the block
// start; a check whose operands an earlier instruction of the block computes is settled by
// running up to that instruction first.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace nmsim::arm {

// ITSTATE after an instruction in an IT block (ARMv7-M A7.3.3 ITAdvance).
inline uint8_t it_advance(uint8_t it) {
    return (it & 7u) == 0 ? 0 : static_cast<uint8_t>((it & 0xE0u) | ((it << 1) & 0x1Fu));
}
// ITSTATE held in xPSR (IT[1:0] in bits 26:25, IT[7:2] in bits 15:10), and the xPSR with it.
inline uint8_t it_of_xpsr(uint32_t xpsr) {
    return static_cast<uint8_t>(((xpsr >> 25) & 3u) | (((xpsr >> 10) & 0x3Fu) << 2));
}
inline uint32_t xpsr_with_it(uint32_t xpsr, uint8_t it) {
    return (xpsr & ~0x0600FC00u) | (uint32_t{it} & 3u) << 25 | (uint32_t{it} >> 2) << 10;
}
struct InsnCheck {
    enum Kind : uint8_t { align, align_trp, div0, fp };
    Kind kind = align;
    uint16_t index = 0;      // instruction number in the block
    uint32_t pc = 0;         // instruction address
    uint8_t align_mask = 0;  // address bits that must be zero (align, align_trp)
    // Address = R[base] + disp + (R[index_reg] << shift); base 13 is SP (word-aligned), 15 the
    // PC (Align(PC + 4, 4), a literal address); -1: none. disp is 0 for post-indexed forms.
    int8_t base = -1;
    int8_t index_reg = -1;
    uint8_t shift = 0;
    int32_t disp = 0;
    int8_t divisor = -1;               // div0: the register holding the divisor
    bool operands_from_block = false;  // an earlier instruction of the block writes an operand
    bool flags_from_block = false;     // an earlier instruction of the block may write NZCV
};

// What an instruction does to the registers, as far as the checks need it: when a check's
// operands come from earlier instructions of its block, the core replays these on the register
// values at the block start (cortex_m4f.cpp, prepare_block) instead of running up to the check.
struct MicroOp {
    enum Kind : uint8_t {
        other,    // the registers in `writes` become unknown
        set,      // R[rd] = imm
        add,      // R[rd] = (rn < 0 ? 0 : R[rn]) + imm +/- shifted R[rm] (rm < 0: none)
        movt,     // R[rd] = R[rd]<15:0> | imm
        literal,  // R[rd] = the word at address imm (a PC-relative load)
        load,     // R[rd] = the `size`-byte value (sign-extended if `sign`) at R[rn] + imm
                  // (+ R[rm] << shift), read from SRAM, or forwarded from the block's own
                  // store of that word; unknown if an earlier store in the block may overlap
    };
    Kind kind = other;
    int8_t rd = -1, rn = -1, rm = -1;
    uint8_t shift_type = 0;  // on R[rm]: 0 LSL, 1 LSR, 2 ASR
    uint8_t shift = 0;
    bool subtract = false;  // R[rm] is subtracted
    uint32_t imm = 0;
    uint16_t writes = 0;  // other: the registers written
    int8_t wb_reg = -1;   // then a base writeback: R[wb_reg] += wb_delta
    int32_t wb_delta = 0;
    uint8_t size = 0;  // load: 1, 2 or 4 bytes; 8: LDRD, R[rd2] from the next word
    int8_t rd2 = -1;
    // Any kind may also store: `store` bytes at R[st_base] + st_imm (+ R[st_index] << st_shift),
    // with the registers before the instruction; kStoreUnknown: a store the replay cannot
    // place. A replayed load after a store it may overlap is unknown.
    static constexpr uint8_t kStoreUnknown = 0xFF;
    uint8_t store = 0;
    int8_t st_base = -1, st_index = -1;
    uint8_t st_shift = 0;
    int32_t st_imm = 0;
    int8_t st_src = -1;  // a 4-byte store of R[st_src]: a load of the same word gets its value
    bool sign = false;   // load: sign-extended
};

struct BlockAnalysis {
    std::vector<InsnCheck> checks;  // in program order
    std::vector<uint16_t> offsets;  // of each instruction from the block start
    std::vector<uint8_t> it_bytes;  // per instruction: firstcond:mask of an IT instruction, else 0
    std::vector<MicroOp> ops;       // per instruction, when a check's operands come from the block
    bool has_align = false, has_align_trp = false, has_div = false, has_fp = false;
    bool exclusive_load = false;  // LDREX, LDREXB or LDREXH: the local monitor may be open
    uint16_t first_it = 0xFFFF;   // index of the first IT instruction
    uint8_t exit_it = 0;          // ITSTATE after the block, if it has an IT instruction

    // ITSTATE after the block, given the ITSTATE at its entry.
    uint8_t it_after(uint8_t entry) const {
        if (first_it != 0xFFFF) return exit_it;
        for (size_t k = 0; k < offsets.size() && entry; ++k) entry = it_advance(entry);
        return entry;
    }

    // ITSTATE with which instruction `i` executes, given the ITSTATE at the block entry.
    uint8_t it_state(size_t i, uint8_t entry) const;
    // Index of the instruction at `pc`, or -1.
    int index_of(uint32_t block, uint32_t pc) const;
};

// ConditionPassed for condition `cond` (0..15) with APSR `apsr` (NZCV in bits 31:28).
bool condition_passed(unsigned cond, uint32_t apsr);
// The coprocessor a 32-bit Thumb instruction addresses (hw1 its first halfword), -1 if it is
// not in the coprocessor space (CP10 and CP11 are the FPU).
int coprocessor_of(uint16_t hw1, uint16_t hw2);

class BlockAnalyzer {
public:
    BlockAnalyzer();
    ~BlockAnalyzer();
    BlockAnalyzer(const BlockAnalyzer&) = delete;
    BlockAnalyzer& operator=(const BlockAnalyzer&) = delete;

    BlockAnalysis analyze(const uint8_t* code, size_t size, uint32_t addr) const;

private:
    size_t m_handle;  // capstone csh
};

}  // namespace nmsim::arm
