// One SP804-style 32-bit down counter of the SpiNNaker2 PE dual timer (the platform creates
// timer0 and timer1). Register map: firmware/include/nmsim/hw/spinnaker2/timer_regs.h.
//
// Behaviour (SP804 periodic / one-shot modes; the free-running mode and the 16-bit size of the
// SP804 do not exist in this register map):
// - The counter advances one tick every timclk_div * prescale PE clock cycles while CTRL.EN is 1.
// - Writing LOAD sets the reload value and the count; BGLOAD sets only the reload value, used at
//   the next wrap. Both registers read back the one reload value (as on the SP804).
// - The count goes LOAD, LOAD-1, ..., 1, 0. Reaching 0 is an expiry: RIS is set. A periodic timer
//   reloads on the following tick (interrupt period = reload + 1 ticks); a one-shot timer stays
//   at 0 until LOAD is written. LOAD = 0 on an enabled timer expires at once.
// - MIS = RIS & CTRL.IRQ_EN; the irq line follows MIS; any write to INTCLR clears RIS.
// - Clearing EN freezes the count (the fraction of the current tick is dropped). Setting EN, a
//   LOAD write and a PRESCALE change restart the prescaler, so ticks fall at whole multiples of
//   the tick period after that access.
// - PRESCALE = 3 is undefined on the SP804 ("do not use"): writing it is a simulation error.
// Nothing runs per tick: the count is computed from the time of the last restart, and a single
// sc_event wakes the model at the next expiry. Accesses happen at sc_time_stamp() (the core
// synchronises before MMIO); the SystemC time resolution must be 1 ps.
#pragma once

#include <systemc>

#include <cstdint>

#include "models/common/irq.h"
#include "models/common/param.h"
#include "models/common/peripheral.h"
#include "nmsim/trace/sink.h"

namespace nmsim::spinnaker2 {

struct TimerParams {
    NMSIM_PARAMSET(TimerParams);
    NMSIM_PARAM(
        uint32_t, timclk_div, 1, "1", nmsim::range(1, 256),
        "PE clock cycles per counter clock (TIMCLKEN rate), before the CTRL prescaler",
        "assumed: SP804 TIMCLKEN tied high; timer_regs.h: clocked by the PE clock / prescale");
};

class Timer : public nmsim::Peripheral {
public:
    Timer(sc_core::sc_module_name name, const TimerParams& params, nmsim::Frequency clock,
          nmsim::trace::Sink* sink);

    nmsim::IrqLine irq;

    void write_summary() override;  // counters: expiries

    uint64_t expiries() const { return m_expiries; }
    // Counter tick period for the current PRESCALE, in ps.
    uint64_t tick_ps() const;

private:
    SC_HAS_PROCESS(Timer);

    bool enabled() const;
    bool periodic() const;
    bool halted() const;  // one-shot timer that reached zero

    void on_expiry_event();
    void advance(uint64_t now_ps);  // brings the count and RIS up to now_ps
    void expire();
    void reschedule(uint64_t now_ps);
    void update_outputs();  // irq line and the stored register values seen by debug reads

    void write_load(uint32_t v);
    void write_bgload(uint32_t v);
    void write_ctrl(uint32_t v);
    void write_intclr(uint32_t v);
    uint32_t read_value();
    uint32_t read_ris();
    uint32_t read_mis();

    TimerParams m_params;
    uint64_t m_clock_ps;
    sc_core::sc_event m_expiry_ev;

    uint32_t m_ctrl;
    uint32_t m_reload;
    uint32_t m_count;      // count at m_anchor_ps (valid until the next tick)
    uint64_t m_anchor_ps;  // time of the last tick (or restart) while enabled
    bool m_ris = false;
    uint64_t m_expiries = 0;
};

}  // namespace nmsim::spinnaker2
