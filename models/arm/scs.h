// Cortex-M4 System Control Space (what Unicorn lacks): NVIC (enable, pending, active, priority),
// SCB (ICSR, VTOR, AIRCR/PRIGROUP, SCR, CCR, SHPR, SHCSR, fault status, CPACR, FPCCR), SysTick
// and the DWT cycle counter. Plain C++: the core owns it, maps it into the ISS and asks it which
// exception to take. Time comes from the core as clock ticks (processor clock cycles, including
// sleep).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace nmsim::arm {

enum Exc : int {
    kReset = 1, kNmi = 2, kHardFault = 3, kMemManage = 4, kBusFault = 5, kUsageFault = 6,
    kSvcall = 11, kDebugMon = 12, kPendSv = 14, kSysTick = 15, kIrq0 = 16
};

class Scs {
public:
    static constexpr uint32_t kScsBase = 0xE000E000u;
    static constexpr uint32_t kDwtBase = 0xE0001000u;
    static constexpr int kNoException = 0;

    Scs(unsigned priority_bits, unsigned n_irq, std::function<uint64_t()> now_ticks);

    // Register access; `addr` is absolute. Returns false with a reason on a bad access.
    bool read(uint32_t addr, unsigned size, uint32_t& v, std::string& why);
    bool write(uint32_t addr, unsigned size, uint32_t v, std::string& why);

    // Exception state.
    void set_pending(int exc);
    void clear_pending(int exc);
    bool pending(int exc) const { return m_pending[static_cast<size_t>(exc)]; }
    bool active(int exc) const { return m_active[static_cast<size_t>(exc)]; }
    void irq_level(unsigned irq, bool level);  // level-sensitive peripheral interrupt lines
    int priority(int exc) const;                // -3..-1 fixed, else 0..255 (implemented bits)
    int group_priority(int exc) const;
    // Highest-priority pending and enabled exception, or kNoException. The core asks before every
    // run of the ISS; the answer is kept until the pending, enable or priority state changes.
    int highest_pending() const {
        if (m_best_stale) update_best();
        return m_best;
    }
    // Execution priority given the masking registers (256 = thread mode, nothing masked).
    int execution_priority(bool primask, uint32_t basepri, bool faultmask) const;
    void activate(int exc);    // on exception entry
    void deactivate(int exc);  // on exception return; re-pends a still-asserted IRQ line
    int nesting() const { return static_cast<int>(m_active_stack.size()); }
    int current() const { return m_active_stack.empty() ? 0 : m_active_stack.back(); }
    uint32_t vtor() const { return m_vtor; }
    bool sleep_on_exit() const { return (m_scr & 2u) != 0; }
    bool changed() const { return m_changed; }  // something the core must re-evaluate
    void clear_changed() { m_changed = false; }

    // Configuration and control (CCR bits below), coprocessor access (CPACR) and DEMCR.
    static constexpr uint32_t kCcrNonBaseThrdEna = 1u << 0, kCcrUnalignTrp = 1u << 3,
                              kCcrDiv0Trp = 1u << 4, kCcrStkAlign = 1u << 9;
    uint32_t ccr() const { return m_ccr; }
    uint32_t cpacr() const { return m_cpacr; }
    uint32_t demcr() const { return m_demcr; }
    // MemManage, BusFault and UsageFault are taken only when SHCSR enables them (else they
    // escalate to HardFault); the other exceptions are always enabled.
    bool fault_enabled(int exc) const;
    // FP context state that exception entry and return update (lazy stacking: FPCCR.LSPACT and
    // the ready bits, FPCAR the address of the reserved FP area of the frame).
    uint32_t fpccr() const { return m_fpccr; }
    void set_fpccr(uint32_t v) { m_fpccr = v; }
    uint32_t fpcar() const { return m_fpcar; }
    void set_fpcar(uint32_t v) { m_fpcar = v & ~7u; }

    // Fault status updates (fault_policy "vector"): CFSR and HFSR bits are ORed in; BFAR/MMFAR
    // are written when the corresponding valid bit (BFARVALID, MMARVALID) is among the bits.
    void record_fault(uint32_t cfsr_bits, uint32_t hfsr_bits, uint32_t bfar, uint32_t mmfar);
    // Reset request through AIRCR.SYSRESETREQ.
    bool reset_requested() const { return m_reset_requested; }

    // SysTick: the tick at which the counter next reaches 0 (UINT64_MAX if it never will), and
    // the core's notification that it did (pends SysTick if TICKINT, sets COUNTFLAG).
    uint64_t systick_next() const { return m_systick_next; }
    void systick_expired(uint64_t now);

private:
    void systick_reschedule(uint64_t now, uint32_t current);
    uint32_t systick_current(uint64_t now) const;
    bool access_nvic(uint32_t off, unsigned size, bool is_write, uint32_t& v, std::string& why);
    void update_best() const;

    unsigned m_prio_bits;
    unsigned m_n_irq;
    std::function<uint64_t()> m_now;
    std::vector<bool> m_pending, m_active, m_enabled, m_level;
    std::vector<uint8_t> m_prio;  // by exception number
    std::vector<int> m_active_stack;
    mutable int m_best = kNoException;  // highest_pending() while !m_best_stale
    mutable bool m_best_stale = false;
    bool m_changed = false;
    bool m_reset_requested = false;
    uint32_t m_vtor = 0, m_prigroup = 0, m_scr = 0, m_ccr = 0x200u, m_shcsr = 0;
    uint32_t m_cfsr = 0, m_hfsr = 0, m_mmfar = 0, m_bfar = 0, m_cpacr = 0, m_demcr = 0;
    uint32_t m_fpccr = 0xC0000000u, m_fpcar = 0, m_fpdscr = 0;
    // SysTick
    uint32_t m_syst_csr = 0, m_syst_rvr = 0;
    uint64_t m_systick_base = 0;   // tick at which the counter held m_systick_base_val
    uint32_t m_systick_base_val = 0;
    uint64_t m_systick_next = UINT64_MAX;
    bool m_countflag = false;
    // DWT
    uint32_t m_dwt_ctrl = 0;
    uint64_t m_cyccnt_base_tick = 0;
    uint32_t m_cyccnt_base = 0;
};

}  // namespace nmsim::arm
