// SpiNNaker2 PE exponential accelerator ("EXP", NMU block): exp(x) for x and the result in s16.15
// fixed point, register map firmware/include/nmsim/hw/spinnaker2/exp_regs.h.
//
// Datapath (nmsim's own design; the chip's internals are not public):
//  1. range reduction x = k*ln2 + r with integer k and 0 <= r < ln2, r held with kFracBits
//     fraction bits (the hardware would multiply by 1/ln2; the model divides exactly);
//  2. multiplicative normalisation, one table step per iteration i = 1..ITERATIONS:
//     if r >= ln(1+2^-i) { r -= ln(1+2^-i); y += y >> i; }   starting from y = 1.
//     Greedy selection keeps 0 <= r < ln(1+2^-i) after step i (ln(1+2^-(i-1)) <= 2 ln(1+2^-i)),
//     so y = exp(x_reduced - r) with r < 2^-ITERATIONS;
//  3. one linear correction y += y*r (exp(r) ~ 1 + r, error below r^2/2 < 2^-(2*ITERATIONS+1)),
//  4. scaling by 2^k with round-to-nearest to 15 fraction bits, saturating to INT32_MAX on
//     overflow; results below half an LSB round to 0.
// Measured error against double exp over every s16.15 input in [-12, 12] (test_exp_accel):
// see compute() below. Writing CTRL with ITERATIONS 0 or 17..31 is a bus error (the value is
// not stored); bits above the field are reserved and read as zero. Latency: latency_base +
// ITERATIONS PE cycles from the write of IN; reading OUT (or writing IN) before the result is ready
// stalls the bus access until it is.
#pragma once

#include <cstdint>
#include <string>

#include "models/common/param.h"
#include "models/common/peripheral.h"
#include "models/common/units.h"

namespace nmsim::spinnaker2 {

struct ExpParams {
    NMSIM_PARAMSET(ExpParams);
    NMSIM_PARAM(uint32_t, latency_base, 6, "cycles", nmsim::range(0, 1000),
                "EXP latency besides the ITERATIONS table steps (range reduction, correction, "
                "scaling)",
                "[2nd] chip paper via hardware_facts.md A4: 1-16 iterations take 7-22 cycles");
};

class ExpAccel : public nmsim::Peripheral {
public:
    static constexpr unsigned kMaxIterations = 16;
    static constexpr unsigned kFracBits = 40;  // internal fraction bits of r, y and the table

    ExpAccel(sc_core::sc_module_name name, const ExpParams& params, nmsim::Frequency clock,
             nmsim::trace::Sink* sink);

    // The bit-exact datapath: exp(x) for x in s16.15 with 1..16 table steps, result in s16.15.
    // Measured max |result - 2^15 exp(x)| over every input in [-12, 12], in ulp (2^-15):
    //   iterations  16    15    14    12    10     8       4       1
    //   all x       0.75  1.46  4.4   64    1015   1.6e4   3.8e6   1.0e8
    //   x <= 0      0.50  0.50  0.50  0.50  0.51   0.73    57      1549
    // 16 iterations are monotonic over the sweep. The error is relative (< 2^-(2n+1) after n
    // steps), so it is largest, up to ~2^(30-2n) ulp, at the largest outputs near x = 11.09;
    // for x <= 0 (softmax inputs) 8 iterations already stay within 0.73 ulp.
    static int32_t compute(int32_t x_s16_15, unsigned iterations);

    uint64_t total_ops() const { return m_ops; }

    // Cycles of one operation.
    uint32_t latency_cycles(unsigned iterations) const {
        return m_params.latency_base + iterations;
    }

    void write_summary() override;

protected:
    void b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay) override;

private:
    void write_ctrl(uint32_t v);
    void write_in(uint32_t v);
    uint32_t read_out();
    uint32_t read_status();
    // Extends the current access until `t` (a bus stall) if it is earlier.
    void stall_until(const sc_core::sc_time& t);

    ExpParams m_params;
    int64_t m_period_ps;
    sc_core::sc_time m_ready;   // time the current result becomes valid
    sc_core::sc_time m_access;  // time of the access being served (incl. stalls so far)
    sc_core::sc_time m_stall;   // stall added to the access being served
    std::string m_ctrl_error;   // set by write_ctrl for an invalid ITERATIONS value
    uint64_t m_ops = 0;
    uint64_t m_busy_ps = 0;
    uint64_t m_stall_ps = 0;
};

}  // namespace nmsim::spinnaker2
