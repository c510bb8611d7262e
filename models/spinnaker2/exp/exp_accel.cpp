#include "models/spinnaker2/exp/exp_accel.h"

#include <climits>
#include <iterator>
#include <string>

#include "nmsim/hw/spinnaker2/exp_regs.h"

namespace nmsim::spinnaker2 {

namespace {

const nmsim::RegDesc kRegs[] = {S2_EXP_REGS(NMSIM_REG_DESC)};
const bool kRegd = nmsim::register_reg_table("s2.exp", kRegs, std::size(kRegs));

static_assert(ExpAccel::kFracBits == S2_EXP_Q, "the datapath has 40 fraction bits");
static_assert(ExpAccel::kMaxIterations == S2_EXP_MAX_ITERATIONS, "table steps");

}  // namespace

int32_t ExpAccel::compute(int32_t x_s16_15, unsigned iterations) {
    return s2_exp_datapath(x_s16_15, iterations);
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
