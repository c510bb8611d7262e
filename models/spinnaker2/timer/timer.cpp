#include "models/spinnaker2/timer/timer.h"

#include <cstdio>
#include <iterator>
#include <stdexcept>
#include <string>

#include "models/common/hex.h"
#include "models/common/sim_error.h"
#include "nmsim/hw/spinnaker2/timer_regs.h"

namespace nmsim::spinnaker2 {

namespace {

const nmsim::RegDesc kRegs[] = {S2_TIMER_REGS(NMSIM_REG_DESC)};
const bool kRegd = nmsim::register_reg_table("s2.timer", kRegs, std::size(kRegs));

constexpr uint32_t kCtrlMask =
    NM_FIELD_SET(~0u, S2_TIMER_CTRL_EN) | NM_FIELD_SET(~0u, S2_TIMER_CTRL_PERIODIC) |
    NM_FIELD_SET(~0u, S2_TIMER_CTRL_IRQ_EN) | NM_FIELD_SET(~0u, S2_TIMER_CTRL_PRESCALE);

uint64_t now_ps() { return sc_core::sc_time_stamp().value(); }

std::string hex32(uint32_t v) { return nmsim::hex(v, 8); }

}  // namespace

Timer::Timer(sc_core::sc_module_name name, const TimerParams& params, nmsim::Frequency clock,
             nmsim::trace::Sink* sink)
    : Peripheral(name, kRegs, std::size(kRegs), sink),
      m_params(params),
      m_clock_ps(clock.hz > 0 ? static_cast<uint64_t>(clock.period_ps()) : 0) {
    (void)kRegd;
    if (sc_core::sc_get_time_resolution() != sc_core::sc_time(1, sc_core::SC_PS))
        throw std::logic_error(std::string(this->name()) +
                               ": SystemC time resolution must be 1 ps");
    if (m_clock_ps == 0)
        throw std::logic_error(std::string(this->name()) + ": clock frequency must be positive");
    m_ctrl = m_regs.value(S2_TIMER_CTRL);
    m_reload = m_regs.value(S2_TIMER_LOAD);
    m_count = m_regs.value(S2_TIMER_VALUE);
    m_anchor_ps = 0;

    m_regs.on_write(S2_TIMER_LOAD, [this](uint32_t v) { write_load(v); });
    m_regs.on_write(S2_TIMER_BGLOAD, [this](uint32_t v) { write_bgload(v); });
    m_regs.on_write(S2_TIMER_CTRL, [this](uint32_t v) { write_ctrl(v); });
    m_regs.on_write(S2_TIMER_INTCLR, [this](uint32_t v) { write_intclr(v); });
    m_regs.on_read(S2_TIMER_VALUE, [this] { return read_value(); });
    m_regs.on_read(S2_TIMER_RIS, [this] { return read_ris(); });
    m_regs.on_read(S2_TIMER_MIS, [this] { return read_mis(); });

    SC_METHOD(on_expiry_event);
    sensitive << m_expiry_ev;
    dont_initialize();
}

bool Timer::enabled() const { return NM_FIELD_GET(m_ctrl, S2_TIMER_CTRL_EN) != 0; }
bool Timer::periodic() const { return NM_FIELD_GET(m_ctrl, S2_TIMER_CTRL_PERIODIC) != 0; }
bool Timer::halted() const { return !periodic() && m_count == 0; }

uint64_t Timer::tick_ps() const {
    static const uint64_t kDiv[4] = {1, 16, 256, 256};
    return m_clock_ps * m_params.timclk_div * kDiv[NM_FIELD_GET(m_ctrl, S2_TIMER_CTRL_PRESCALE)];
}

void Timer::expire() {
    m_ris = true;
    ++m_expiries;
}

void Timer::advance(uint64_t now) {
    if (!enabled()) return;
    const uint64_t p = tick_ps();
    // Each pass moves the anchor to a later tick; a pass ends at an expiry or a wrap, which
    // happen once per period, and the expiry event runs once per period, so this loop is short.
    while (now >= m_anchor_ps + p) {
        const uint64_t n = (now - m_anchor_ps) / p;
        if (m_count > 0) {
            if (n < m_count) {
                m_anchor_ps += n * p;
                m_count -= static_cast<uint32_t>(n);
                return;
            }
            m_anchor_ps += static_cast<uint64_t>(m_count) * p;
            m_count = 0;
            expire();
        } else {
            if (!periodic()) {  // one-shot: stays at zero; the prescaler keeps its phase
                m_anchor_ps += n * p;
                return;
            }
            m_anchor_ps += p;
            m_count = m_reload;
            if (m_count == 0) expire();
        }
    }
}

void Timer::reschedule(uint64_t now) {
    m_expiry_ev.cancel();
    if (!enabled() || halted()) return;
    const uint64_t p = tick_ps();
    const uint64_t next = m_count > 0 ? m_anchor_ps + static_cast<uint64_t>(m_count) * p
                                      : m_anchor_ps + (static_cast<uint64_t>(m_reload) + 1) * p;
    m_expiry_ev.notify(sc_core::sc_time::from_value(next - now));
}

void Timer::update_outputs() {
    const bool mis = m_ris && NM_FIELD_GET(m_ctrl, S2_TIMER_CTRL_IRQ_EN) != 0;
    irq.set(mis);
    m_regs.value(S2_TIMER_LOAD) = m_reload;
    m_regs.value(S2_TIMER_BGLOAD) = m_reload;
    m_regs.value(S2_TIMER_VALUE) = m_count;
    m_regs.value(S2_TIMER_CTRL) = m_ctrl;
    m_regs.value(S2_TIMER_RIS) = m_ris ? 1u : 0u;
    m_regs.value(S2_TIMER_MIS) = mis ? 1u : 0u;
}

void Timer::on_expiry_event() {
    const uint64_t now = now_ps();
    advance(now);
    update_outputs();
    reschedule(now);
}

void Timer::write_load(uint32_t v) {
    const uint64_t now = now_ps();
    advance(now);
    m_reload = v;
    m_count = v;
    m_anchor_ps = now;
    if (enabled() && v == 0) expire();
    update_outputs();
    reschedule(now);
}

void Timer::write_bgload(uint32_t v) {
    const uint64_t now = now_ps();
    advance(now);
    m_reload = v;
    update_outputs();
    reschedule(now);
}

void Timer::write_ctrl(uint32_t v) {
    const uint64_t now = now_ps();
    advance(now);
    const uint32_t old = m_ctrl;
    if (NM_FIELD_GET(v, S2_TIMER_CTRL_PRESCALE) == 3)
        raise_sim_error(name(), "CTRL (0x008) write " + hex32(v) +
                                    ": PRESCALE 3 is undefined (0: /1, 1: /16, 2: /256)");
    m_ctrl = v & kCtrlMask;
    const bool started = enabled() && NM_FIELD_GET(old, S2_TIMER_CTRL_EN) == 0;
    const bool rescaled =
        NM_FIELD_GET(old, S2_TIMER_CTRL_PRESCALE) != NM_FIELD_GET(m_ctrl, S2_TIMER_CTRL_PRESCALE);
    if (started || rescaled) m_anchor_ps = now;
    update_outputs();
    reschedule(now);
}

void Timer::write_intclr(uint32_t) {
    advance(now_ps());
    m_ris = false;
    update_outputs();
}

uint32_t Timer::read_value() {
    advance(now_ps());
    update_outputs();
    return m_count;
}

uint32_t Timer::read_ris() {
    advance(now_ps());
    update_outputs();
    return m_ris ? 1u : 0u;
}

uint32_t Timer::read_mis() {
    advance(now_ps());
    update_outputs();
    return m_regs.value(S2_TIMER_MIS);
}

void Timer::write_summary() {
    if (m_sink) m_sink->counter(m_component, "expiries", "1", static_cast<double>(m_expiries));
}

}  // namespace nmsim::spinnaker2
