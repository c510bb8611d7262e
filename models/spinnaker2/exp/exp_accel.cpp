#include "models/spinnaker2/exp/exp_accel.h"

#include <climits>
#include <iterator>
#include <string>

#include "nmsim/hw/spinnaker2/exp_regs.h"

namespace nmsim::spinnaker2 {

namespace {

const nmsim::RegDesc kRegs[] = {S2_EXP_REGS(NMSIM_REG_DESC)};
const bool kRegd = nmsim::register_reg_table("s2.exp", kRegs, std::size(kRegs));

static_assert(ExpAccel::kFracBits == 40, "the constants below have 40 fraction bits");
// round(ln(2) * 2^40)
constexpr int64_t kLn2 = 762123384786;
// round(ln(1 + 2^-i) * 2^40) for i = 1..16 (index 0 unused), one entry per iteration.
constexpr int64_t kLnTable[ExpAccel::kMaxIterations + 1] = {
    0,           445813601022, 245348929333, 129503817259, 66657476617, 33833796510,
    17047033376, 8556553905,   4286600470,   2145389223,   1073217877,  536739883,
    268402693,   134209537,    67106816,     33553920,     16777088};

// Input is s16.15: shift to kFracBits fraction bits.
constexpr unsigned kInShift = ExpAccel::kFracBits - S2_EXP_FRAC_BITS;

int64_t floor_div(int64_t a, int64_t b) {
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    return q;
}

}  // namespace

int32_t ExpAccel::compute(int32_t x_s16_15, unsigned iterations) {
    const int64_t x = static_cast<int64_t>(x_s16_15) * (int64_t{1} << kInShift);
    const int64_t k = floor_div(x, kLn2);
    // exp(x) >= 2^17 cannot be represented (the maximum is just below 2^16). For k <= -17 the
    // result y * 2^(k - kInShift) with y < 2^41 stays below half an LSB and rounds to 0.
    if (k >= 17) return INT32_MAX;
    if (k <= -17) return 0;
    int64_t r = x - k * kLn2;  // 0 <= r < ln2
    uint64_t y = uint64_t{1} << kFracBits;
    for (unsigned i = 1; i <= iterations; ++i) {
        if (r >= kLnTable[i]) {
            r -= kLnTable[i];
            y += y >> i;
        }
    }
    y += static_cast<uint64_t>((static_cast<unsigned __int128>(y) * static_cast<uint64_t>(r)) >>
                               kFracBits);
    // result = y * 2^k with 15 fraction bits, rounded to nearest.
    const unsigned shift = static_cast<unsigned>(static_cast<int64_t>(kInShift) - k);
    const uint64_t res = (y + (uint64_t{1} << (shift - 1))) >> shift;
    return res > static_cast<uint64_t>(INT32_MAX) ? INT32_MAX : static_cast<int32_t>(res);
}

ExpAccel::ExpAccel(sc_core::sc_module_name name, const ExpParams& params, nmsim::Frequency clock,
                   nmsim::trace::Sink* sink)
    : Peripheral(name, kRegs, std::size(kRegs), sink),
      m_params(params),
      m_period_ps(clock.period_ps()) {
    (void)kRegd;
    m_regs.on_write(S2_EXP_CTRL, [this](uint32_t v) { write_ctrl(v); });
    m_regs.on_write(S2_EXP_IN, [this](uint32_t v) { write_in(v); });
    m_regs.on_read(S2_EXP_OUT, [this] { return read_out(); });
    m_regs.on_read(S2_EXP_STATUS, [this] { return read_status(); });
}

void ExpAccel::b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
    m_access = sc_core::sc_time_stamp() + delay;
    m_stall = sc_core::SC_ZERO_TIME;
    m_ctrl_error.clear();
    Peripheral::b_transport(p, delay);
    if (!m_ctrl_error.empty()) {
        // RegisterBank write handlers cannot fail: turn the rejected CTRL write into a bus error.
        p.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
        BusErrorExt* ext = nullptr;
        p.get_extension(ext);
        if (ext) ext->why = m_ctrl_error;
        return;
    }
    delay += m_stall;
}

void ExpAccel::stall_until(const sc_core::sc_time& t) {
    if (t <= m_access) return;
    const sc_core::sc_time extra = t - m_access;
    m_stall += extra;
    m_access = t;
    m_stall_ps += extra.value();
}

void ExpAccel::write_ctrl(uint32_t v) {
    const uint32_t n = NM_FIELD_GET(v, S2_EXP_CTRL_ITERATIONS);
    if (n < 1 || n > kMaxIterations) {
        m_ctrl_error = "write of ITERATIONS=" + std::to_string(n) +
                       " to CTRL (0x000): must be 1.." + std::to_string(kMaxIterations);
        return;
    }
    // Bits outside ITERATIONS are reserved: they read as zero.
    m_regs.value(S2_EXP_CTRL) = NM_FIELD_SET(n, S2_EXP_CTRL_ITERATIONS);
}

void ExpAccel::write_in(uint32_t v) {
    // One operation at a time: a new operand waits for the previous result.
    stall_until(m_ready);
    const unsigned n = NM_FIELD_GET(m_regs.value(S2_EXP_CTRL), S2_EXP_CTRL_ITERATIONS);
    const uint64_t cycles = latency_cycles(n);
    const sc_core::sc_time dur(static_cast<double>(cycles * static_cast<uint64_t>(m_period_ps)),
                               sc_core::SC_PS);
    m_regs.value(S2_EXP_IN) = v;
    m_regs.value(S2_EXP_OUT) = static_cast<uint32_t>(compute(static_cast<int32_t>(v), n));
    m_ready = m_access + dur;
    ++m_ops;
    m_busy_ps += dur.value();
}

uint32_t ExpAccel::read_out() {
    stall_until(m_ready);
    return m_regs.value(S2_EXP_OUT);
}

uint32_t ExpAccel::read_status() {
    return m_access < m_ready ? NM_FIELD_SET(1u, S2_EXP_STATUS_BUSY) : 0u;
}

void ExpAccel::write_summary() {
    if (!m_sink) return;
    m_sink->counter(m_component, "ops", "1", static_cast<double>(m_ops));
    m_sink->counter(m_component, "busy_ps", "ps", static_cast<double>(m_busy_ps));
    m_sink->counter(m_component, "stall_ps", "ps", static_cast<double>(m_stall_ps));
}

}  // namespace nmsim::spinnaker2
