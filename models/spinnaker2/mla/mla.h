// SpiNNaker2 MLA (machine-learning accelerator): the 4x16 output-stationary MAC array of a PE.
//
// Register map and arithmetic: firmware/include/nmsim/hw/spinnaker2/mla_regs.h (the single source
// of truth). Operands and results live in the PE SRAM, addressed with core addresses in
// [S2_SRAM_BASE, S2_SRAM_BASE + sram.size()); every base address must be 4-byte aligned.
//
// Arithmetic per output element (bit-exact; tools/reference/int_ops.h is the independent
// reference):
//   acc = wrap_acc_bits(sum_k a*b + bias[n])     two's complement wrap at `acc_bits`
//   r   = (acc + 2^(SHIFT-1)) >> SHIFT            arithmetic shift, i.e. round half up (SHIFT>0)
//   r   = max(r, 0)                               if RELU
//   r  += C_old                                   if ACCUMULATE (C_old read as signed output type)
//   C   = saturate(r) to signed int8/int16/int32  (OUT_PREC)
// The hardware accumulates sequentially with a wrap after every step; since wrapping is addition
// modulo 2^acc_bits, that equals one wrap of the exact sum, which is what the model computes.
// The model reads the operands at the end of the modelled duration (firmware must not change them
// while BUSY) and reads all of A, B and the bias before it writes any result, so a result region
// overlapping the operands still sees the operands of this operation.
//
// Timing model (all in MLA clock cycles; the clock is the PE clock passed to the constructor):
//   A GEMM view is used for both modes: matmul (M, K, N); conv2d as im2col with M = OH*OW,
//   K = KER_H*KER_W*IFM_C, N = OFM_C (the IFM-reuse shift register of the chip is not modelled).
//   Tiles of R x C outputs: int8 R = n_rows, C = n_cols; int16 operands fuse 4 cells into one
//   16-bit MAC, modelled as R = n_rows, C = max(1, n_cols/4) with 2-byte operands.
//   For each tile (rows_used <= R, cols_used <= C):
//     step_bytes = rows_used*a_bytes + cols_used*b_bytes            operands per K step
//     k_loop     = max(K, ceil(K*step_bytes / fetch_bytes_per_cycle))
//     bias       = ceil(cols_used*4 / fetch_bytes_per_cycle)          if BIAS_EN
//     c_old      = ceil(rows_used*cols_used*out_bytes / fetch_bytes_per_cycle)  if ACCUMULATE
//     writeback  = ceil(rows_used*cols_used*out_bytes / writeback_bytes_per_cycle)
//   cycles = startup_cycles + sum over tiles (k_loop + bias + c_old + writeback)
//   A partial tile costs at least K cycles like a full one, so padding N to a multiple of the tile
//   width raises utilisation (seed 000 sec. V-A pads the output from 10 to 16).
//
//   | quantity                  | value        | source                                          |
//   |---------------------------|--------------|-------------------------------------------------|
//   | array shape               | 4 x 16       | seed 001 sec. II; TU Dresden FAQ [DS]            |
//   | int8 peak                 | 64 MAC/cycle | TU Dresden FAQ [DS]                              |
//   | int16 peak                | 16 MAC/cycle | FAQ: 4 MACs fuse to one 16-bit MAC; 4x4 assumed  |
//   | accumulator               | 29 bits      | FAQ [DS]; 24 bits per [2nd] (facts A4)           |
//   | operand fetch             | 16 B/cycle   | DNN-mapping simulator PE_SRAM 16 B/cycle [SW]    |
//   | write-back, start-up      | assumed      | not public                                       |
//
// The operation runs in its own SC_THREAD: START latches the registers and validates them (errors
// set STATUS.ERROR and ERRCODE at once, no operation runs); otherwise BUSY is set, the thread waits
// the modelled duration, computes the result, sets DONE, writes CYCLES, raises `irq` if
// CTRL.IRQ_EN, and appends an MlaOpRecord. The interrupt is level-sensitive:
// irq = CTRL.IRQ_EN && (DONE || ERROR); ACK (bit 0) clears DONE, ERROR and ERRCODE. A successful
// START also clears DONE/ERROR of the previous operation. START while BUSY leaves the running
// operation and CTRL untouched and sets ERROR with ERR_BUSY. Validation order: ERR_MODE (mode,
// OUT_PREC, SHIFT > 31), ERR_SHAPE (zero dimension, STRIDE 0, kernel larger than the padded
// input), ERR_ALIGN (A, B, C, and the bias if BIAS_EN), ERR_RANGE (any region outside the SRAM).
// MACs counted per op are M*K*N of the GEMM view (conv products with padding zeros included).
#pragma once

#include <systemc>

#include <cstdint>
#include <vector>

#include "models/common/irq.h"
#include "models/common/memory.h"
#include "models/common/param.h"
#include "models/common/peripheral.h"
#include "models/common/trace_records.h"

namespace nmsim::spinnaker2 {

struct MlaParams {
    NMSIM_PARAMSET(MlaParams);
    NMSIM_PARAM(uint32_t, n_rows, 4, "cells", nmsim::range(1, 64),
                "rows of the MAC array (output rows per tile)",
                "seed 001 sec. II: 64 MAC units in a 4x16 layout");
    NMSIM_PARAM(uint32_t, n_cols, 16, "cells", nmsim::range(4, 256),
                "columns of the MAC array (int8 output columns per tile; int16 uses n_cols/4)",
                "seed 001 sec. II: 64 MAC units in a 4x16 layout");
    NMSIM_PARAM(uint32_t, acc_bits, 29, "bits", nmsim::range(8, 48),
                "accumulator width; sums wrap in two's complement at this width",
                "TU Dresden SpiNNaker2 FAQ [DS] (29-bit); 24-bit for the final chip per a "
                "secondary compilation [2nd], hardware_facts.md A4");
    NMSIM_PARAM(uint32_t, fetch_bytes_per_cycle, 6, "B/cycle", nmsim::range(1, 1024),
                "operand fetch rate from the PE SRAM into the array",
                "calibrated against seed 000 sec. V-B: FC1's vector-matrix product (1x784x64 per "
                "worker, batch 1, 300 MHz) 'only needs 29 us' -> 30.0 us (docs/calibration.md); "
                "the public DNN-mapping simulator's 16 B/cycle [SW] would give 11.2 us");
    NMSIM_PARAM(uint32_t, writeback_bytes_per_cycle, 16, "B/cycle", nmsim::range(1, 1024),
                "result write-back width from the array into the PE SRAM",
                "assumed: same SRAM port width as the operand fetch");
    NMSIM_PARAM(uint32_t, startup_cycles, 16, "cycles", nmsim::range(0, 1000000),
                "fixed cost per operation (register latch, address setup, pipeline fill)",
                "assumed: not public; to be calibrated against seed 000 sec. V-B (FC1 29 us)");
};

// Cycle count of one operation in the GEMM view (see the timing model above).
struct MlaShape {
    uint64_t m = 1, k = 1, n = 1;
    bool in16 = false;
    unsigned out_bytes = 1;
    bool bias = false;
    bool accumulate = false;
};
uint64_t mla_cycles(const MlaParams& p, const MlaShape& s);

class Mla : public nmsim::Peripheral {
public:
    SC_HAS_PROCESS(Mla);
    Mla(sc_core::sc_module_name name, const MlaParams& p, nmsim::Frequency clock,
        nmsim::Memory& sram, nmsim::trace::Sink* sink);

    nmsim::IrqLine irq;

    void write_summary() override;

    uint64_t total_macs() const { return m_macs; }
    uint64_t busy_cycles() const { return m_cycles; }
    sc_core::sc_time busy_time() const { return sc_core::sc_time(m_busy_ps, sc_core::SC_PS); }
    uint64_t total_ops() const { return m_ops; }

private:
    // Registers latched at START, plus the derived GEMM view.
    struct Op {
        uint32_t ctrl = 0;
        bool conv = false, a_signed = false, b_signed = false, in16 = false;
        bool relu = false, accumulate = false, bias_en = false;
        unsigned out_prec = 0;
        uint32_t a = 0, b = 0, c = 0, bias = 0, shift = 0;
        uint64_t m = 0, k = 0, n = 0;  // GEMM view
        uint64_t ifm_h = 0, ifm_w = 0, ifm_c = 0, ker_h = 0, ker_w = 0, stride = 1, pad = 0;
        uint64_t out_h = 0, out_w = 0;
        uint64_t a_bytes = 0;  // size of the A region in SRAM
    };

    void write_ctrl(uint32_t v);
    void write_ack(uint32_t v);
    uint32_t validate(Op& op);  // fills the GEMM view; returns an S2_MLA_ERR_* code
    bool in_sram(uint32_t addr, uint64_t count, uint64_t elem_bytes) const;
    void set_error(uint32_t code);
    void update_irq();
    void run();
    void execute(const Op& op);
    void load_a_row(const Op& op, uint64_t i);  // widened row i of the GEMM A (im2col in conv)
    void load_b(const Op& op);

    MlaParams m_p;
    nmsim::Frequency m_clock;
    nmsim::Memory& m_sram;
    trace::TableId m_tbl = -1;

    bool m_busy = false;
    Op m_op;
    uint64_t m_op_cycles = 0;
    sc_core::sc_time m_t_start;
    sc_core::sc_event m_start_ev;

    // Widened operands (int8 -> int16, int16 -> int32; one row of A, all of B) and accumulators,
    // reused across ops.
    std::vector<uint8_t> m_a_raw;
    std::vector<int16_t> m_a16, m_b16;
    std::vector<int32_t> m_a32, m_b32;
    std::vector<int32_t> m_acc32;
    std::vector<int64_t> m_acc64;
    std::vector<int32_t> m_bias;

    uint64_t m_ops = 0, m_macs = 0, m_cycles = 0, m_busy_ps = 0, m_errors = 0;
};

}  // namespace nmsim::spinnaker2
