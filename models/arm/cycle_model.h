// Static per-instruction cycle costs for the Cortex-M4F, applied per translated basic block.
//
// Costs follow the Cortex-M4 TRM (ARM 100166_0001, Table 3-1 "Processor instruction set
// summary" and the FPU instruction table), zero wait states:
//
//   class                                   TRM cycles        nmsim          error source
//   data processing, moves, shifts, DSP     1                 1              -
//   MUL/MLA/MLS, (S|U)MULL, (S|U)MLAL       1                 1              -
//   SDIV/UDIV                               2..12 (data-dep.) div_cycles=7   +-5 cycles
//   LDR/LDRB/LDRH/LDREX (single)            2, 1 if pipelined 2 / 1 after    address-dependency
//                                           after a load                     stalls not modelled
//   STR (single)                            1 (write buffer)  1              2 when stalled
//   LDRD/STRD                               1+2               3              -
//   LDM/STM/PUSH/POP                        1+N               1+N            -
//   B/BL/BX/BLX/CBZ/CBNZ, POP/LDR to PC     1+P (P = 1..3)    1 (+P dynamic) P fixed at
//                                                                            branch_refill_cycles
//   TBB/TBH                                 2+P               2 (+P)         -
//   VADD/VSUB/VMUL/VABS/VNEG/VCVT/VCMP/VMOV 1                 1              VMOV to 2 core regs: 2
//   VMLA/VMLS/VNMLA/VFMA/VFMS/VFNMA         3                 3              -
//   VDIV/VSQRT                              14                14             -
//   VLDR/VSTR                               2                 2              -
//   VLDM/VSTM/VPUSH/VPOP                    1+N               1+N            -
//   DMB/DSB/ISB, WFI, other system          1(+B)             1              barrier B not modelled
//
// The pipeline-refill penalty P of taken branches is applied at run time by the core: when a
// block does not start where the previous one ended (a taken conditional branch, or an
// exception changed the flow), or when the previous block ended in an unconditional transfer. Condition-failed instructions in IT blocks are costed as
// executed (the TRM gives them 1 cycle).
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace nmsim::arm {

struct BlockCost {
    uint32_t cycles = 0;
    uint32_t instructions = 0;
    // The block ends in an unconditional control transfer (B, BL, BX, BLX, TBB/TBH, POP/LDM/LDR
    // to PC, MOV/ADD to PC): the pipeline refills even when the target is the next address.
    bool ends_in_transfer = false;
};

class CycleModel {
public:
    explicit CycleModel(uint32_t div_cycles);
    ~CycleModel();
    CycleModel(const CycleModel&) = delete;
    CycleModel& operator=(const CycleModel&) = delete;

    // Cost of the Thumb code in [code, code+size) located at `addr`.
    BlockCost cost(const uint8_t* code, size_t size, uint32_t addr) const;

    // Address of the first load/store in the block whose effective address range contains
    // `target`, evaluated with the register values given by `reg(capstone_reg_id)`; 0 if none.
    // Used to name the faulting instruction, because the ISS reports only the block start.
    uint32_t find_access(const uint8_t* code, size_t size, uint32_t addr, uint32_t target,
                         const std::function<uint32_t(unsigned)>& reg) const;
    // True if the last instruction of the block is WFI.
    bool ends_with_wfi(const uint8_t* code, size_t size, uint32_t addr) const;

    // Disassembly of one instruction (for fault messages); empty if undecodable.
    std::string disassemble(const uint8_t* code, size_t size, uint32_t addr) const;

private:
    uint32_t m_div_cycles;
    size_t m_handle;  // capstone csh
};

}  // namespace nmsim::arm
