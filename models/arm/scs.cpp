#include "models/arm/scs.h"

#include <cstdio>
#include <utility>

#include "models/common/hex.h"

namespace nmsim::arm {
namespace {

constexpr uint32_t kCpuid = 0x410FC241u;  // Cortex-M4 r0p1

std::string hex(uint32_t v) { return nmsim::hex(v, 8); }

}  // namespace

Scs::Scs(unsigned priority_bits, unsigned n_irq, std::function<uint64_t()> now_ticks)
    : m_prio_bits(priority_bits),
      m_n_irq(n_irq),
      m_now(std::move(now_ticks)),
      m_pending(kIrq0 + n_irq, false),
      m_active(kIrq0 + n_irq, false),
      m_enabled(kIrq0 + n_irq, false),
      m_level(n_irq, false),
      m_prio(kIrq0 + n_irq, 0) {}

int Scs::priority(int exc) const {
    if (exc == kReset) return -3;
    if (exc == kNmi) return -2;
    if (exc == kHardFault) return -1;
    return m_prio[static_cast<size_t>(exc)];
}

int Scs::group_priority(int exc) const {
    const int p = priority(exc);
    if (p < 0) return p;
    const uint32_t mask = (0xFFu << (m_prigroup + 1)) & 0xFFu;
    return static_cast<int>(static_cast<uint32_t>(p) & mask);
}

void Scs::set_pending(int exc) {
    if (!m_pending[static_cast<size_t>(exc)]) {
        m_pending[static_cast<size_t>(exc)] = true;
        m_changed = true;
        m_best_stale = true;
    }
}

void Scs::clear_pending(int exc) {
    m_pending[static_cast<size_t>(exc)] = false;
    m_best_stale = true;
}

void Scs::irq_level(unsigned irq, bool level) {
    if (irq >= m_n_irq) return;
    m_level[irq] = level;
    // Level-sensitive: a rising line pends; an active handler's line is re-pended on return.
    if (level) set_pending(kIrq0 + static_cast<int>(irq));
}

void Scs::update_best() const {
    int best = kNoException;
    int best_prio = 1 << 16;
    for (int e = kNmi; e < kIrq0 + static_cast<int>(m_n_irq); ++e) {
        if (!m_pending[static_cast<size_t>(e)]) continue;
        if (e >= kIrq0 && !m_enabled[static_cast<size_t>(e)]) continue;
        const int p = priority(e);
        if (p < best_prio) {  // ties: the lower exception number wins (scan order)
            best_prio = p;
            best = e;
        }
    }
    m_best = best;
    m_best_stale = false;
}

int Scs::execution_priority(bool primask, uint32_t basepri, bool faultmask) const {
    int prio = 256;
    for (int e : m_active_stack) prio = std::min(prio, group_priority(e));
    const uint32_t bp = basepri & ((0xFFu << (8 - m_prio_bits)) & 0xFFu);
    if (bp != 0) {
        const uint32_t mask = (0xFFu << (m_prigroup + 1)) & 0xFFu;
        prio = std::min(prio, static_cast<int>(bp & mask));
    }
    if (primask) prio = std::min(prio, 0);
    if (faultmask) prio = std::min(prio, -1);
    return prio;
}

void Scs::activate(int exc) {
    m_active[static_cast<size_t>(exc)] = true;
    m_pending[static_cast<size_t>(exc)] = false;
    m_best_stale = true;
    m_active_stack.push_back(exc);
}

void Scs::deactivate(int exc) {
    m_active[static_cast<size_t>(exc)] = false;
    for (auto it = m_active_stack.rbegin(); it != m_active_stack.rend(); ++it) {
        if (*it == exc) {
            m_active_stack.erase(std::next(it).base());
            break;
        }
    }
    if (exc >= kIrq0 && m_level[static_cast<size_t>(exc - kIrq0)]) set_pending(exc);
}

void Scs::record_fault(uint32_t cfsr_bits, uint32_t hfsr_bits, uint32_t bfar, uint32_t mmfar) {
    m_cfsr |= cfsr_bits;
    m_hfsr |= hfsr_bits;
    if (cfsr_bits & (1u << 15)) m_bfar = bfar;   // BFARVALID
    if (cfsr_bits & (1u << 7)) m_mmfar = mmfar;  // MMARVALID
}

bool Scs::fault_enabled(int exc) const {
    switch (exc) {
        case kMemManage:
            return (m_shcsr & (1u << 16)) != 0;
        case kBusFault:
            return (m_shcsr & (1u << 17)) != 0;
        case kUsageFault:
            return (m_shcsr & (1u << 18)) != 0;
        default:
            return true;
    }
}

// --- SysTick -----------------------------------------------------------------------------

uint32_t Scs::systick_current(uint64_t now) const {
    if (!(m_syst_csr & 1u)) return m_systick_base_val;
    const uint64_t k = now - m_systick_base;
    const uint64_t c = m_systick_base_val;
    if (k <= c) return static_cast<uint32_t>(c - k);
    if (m_syst_rvr == 0) return 0;
    const uint64_t k2 = k - c - 1;
    return static_cast<uint32_t>(m_syst_rvr - (k2 % (uint64_t(m_syst_rvr) + 1)));
}

void Scs::systick_reschedule(uint64_t now, uint32_t current) {
    m_systick_base = now;
    m_systick_base_val = current;
    if (!(m_syst_csr & 1u)) {
        m_systick_next = UINT64_MAX;
    } else if (current > 0) {
        m_systick_next = now + current;
    } else {
        m_systick_next = m_syst_rvr ? now + 1 + m_syst_rvr : UINT64_MAX;
    }
}

void Scs::systick_expired(uint64_t now) {
    while (m_systick_next <= now) {
        m_countflag = true;
        if (m_syst_csr & 2u) set_pending(kSysTick);
        m_systick_base = m_systick_next;
        m_systick_base_val = 0;
        m_systick_next = m_syst_rvr ? m_systick_next + m_syst_rvr + 1 : UINT64_MAX;
    }
}

// --- registers ---------------------------------------------------------------------------

bool Scs::access_nvic(uint32_t off, unsigned size, bool is_write, uint32_t& v, std::string& why) {
    // IPR: byte-addressable priority bytes for IRQs.
    if (off >= 0x400 && off < 0x400 + m_n_irq) {
        const unsigned first = off - 0x400;
        for (unsigned i = 0; i < size; ++i) {
            const size_t e = kIrq0 + first + i;
            if (e >= m_prio.size()) break;
            if (is_write) {
                m_prio[e] = static_cast<uint8_t>((v >> (8 * i)) & (0xFFu << (8 - m_prio_bits)));
            } else {
                v |= uint32_t(m_prio[e]) << (8 * i);
            }
        }
        if (is_write) m_changed = true;
        return true;
    }
    if (size != 4) {
        why = std::to_string(size) + "-byte access to word-only NVIC register " + hex(kScsBase + off);
        return false;
    }
    const unsigned bank = (off & 0x7F) / 4;
    const unsigned group = off & ~0x7Fu;
    if (bank * 32 >= m_n_irq) {
        if (!is_write) v = 0;
        return true;  // unimplemented banks read as zero, writes ignored (architectural)
    }
    auto bit = [&](unsigned i) { return kIrq0 + static_cast<int>(bank * 32 + i); };
    const unsigned n = std::min(32u, m_n_irq - bank * 32);
    for (unsigned i = 0; i < n; ++i) {
        const size_t e = static_cast<size_t>(bit(i));
        const bool b = (v >> i) & 1u;
        switch (group) {
            case 0x100:  // ISER
            case 0x180:  // ICER
                if (is_write && b) m_enabled[e] = group == 0x100;
                if (!is_write && m_enabled[e]) v |= 1u << i;
                break;
            case 0x200:  // ISPR
            case 0x280:  // ICPR
                if (is_write && b) m_pending[e] = group == 0x200;
                if (!is_write && m_pending[e]) v |= 1u << i;
                break;
            case 0x300:  // IABR
                if (is_write) {
                    why = "write to read-only NVIC IABR " + hex(kScsBase + off);
                    return false;
                }
                if (m_active[e]) v |= 1u << i;
                break;
            default:
                why = "no NVIC register at " + hex(kScsBase + off);
                return false;
        }
    }
    if (is_write) m_changed = true;
    return true;
}

bool Scs::read(uint32_t addr, unsigned size, uint32_t& v, std::string& why) {
    v = 0;
    const uint64_t now = m_now();
    if (addr >= kDwtBase && addr < kDwtBase + 0x1000) {
        const uint32_t off = addr - kDwtBase;
        if (size != 4) {
            why = "sub-word access to DWT register " + hex(addr);
            return false;
        }
        if (off == 0x000) {
            v = m_dwt_ctrl;
        } else if (off == 0x004) {
            v = (m_dwt_ctrl & 1u) ? m_cyccnt_base + static_cast<uint32_t>(now - m_cyccnt_base_tick)
                                  : m_cyccnt_base;
        } else {
            why = "DWT register " + hex(addr) + " is not modelled (only CTRL and CYCCNT)";
            return false;
        }
        return true;
    }
    const uint32_t off = addr - kScsBase;
    if (off >= 0x100 && off < 0x5F0) return access_nvic(off, size, false, v, why);
    // Byte-accessible system handler priorities (SHPR1..3) and fault status (CFSR).
    if (off >= 0xD18 && off < 0xD24) {
        for (unsigned i = 0; i < size; ++i) v |= uint32_t(m_prio[off - 0xD18 + 4 + i]) << (8 * i);
        return true;
    }
    if (off >= 0xD28 && off < 0xD2C) {
        v = m_cfsr >> (8 * (off - 0xD28));
        if (size < 4) v &= (1u << (8 * size)) - 1;
        return true;
    }
    if (size != 4) {
        why = std::to_string(size) + "-byte access to word-only SCS register " + hex(addr);
        return false;
    }
    switch (off) {
        case 0x004: v = (m_n_irq + 31) / 32 - 1; break;  // ICTR
        case 0x008: v = 0; break;                        // ACTLR
        case 0x010:
            v = m_syst_csr | (m_countflag ? 1u << 16 : 0u);
            m_countflag = false;  // COUNTFLAG clears on read
            break;
        case 0x014: v = m_syst_rvr; break;
        case 0x018: v = systick_current(now); break;
        case 0x01C: v = 0xC0000000u; break;  // CALIB: NOREF, SKEW, no TENMS value
        case 0xD00: v = kCpuid; break;
        case 0xD04: {  // ICSR
            const int act = current();
            const int pend = highest_pending();
            bool isr_pending = false;
            for (size_t e = kIrq0; e < m_pending.size(); ++e) isr_pending = isr_pending || m_pending[e];
            v = static_cast<uint32_t>(act) | (nesting() <= 1 ? 1u << 11 : 0u) |
                (static_cast<uint32_t>(pend) << 12) | (isr_pending ? 1u << 22 : 0u) |
                (m_pending[kSysTick] ? 1u << 26 : 0u) | (m_pending[kPendSv] ? 1u << 28 : 0u) |
                (m_pending[kNmi] ? 1u << 31 : 0u);
            break;
        }
        case 0xD08: v = m_vtor; break;
        case 0xD0C: v = 0xFA050000u | (m_prigroup << 8); break;
        case 0xD10: v = m_scr; break;
        case 0xD14: v = m_ccr; break;
        case 0xD24: {  // SHCSR: enables (stored) plus live active/pending state
            v = m_shcsr & 0x70000u;
            const std::pair<int, unsigned> act[] = {{kMemManage, 0}, {kBusFault, 1}, {kUsageFault, 3},
                                                    {kSvcall, 7}, {kDebugMon, 8}, {kPendSv, 10},
                                                    {kSysTick, 11}};
            for (const auto& [e, b] : act)
                if (m_active[static_cast<size_t>(e)]) v |= 1u << b;
            const std::pair<int, unsigned> pend[] = {{kUsageFault, 12}, {kMemManage, 13}, {kBusFault, 14},
                                                     {kSvcall, 15}};
            for (const auto& [e, b] : pend)
                if (m_pending[static_cast<size_t>(e)]) v |= 1u << b;
            break;
        }
        case 0xD2C: v = m_hfsr; break;
        case 0xD30: v = 0; break;  // DFSR
        case 0xD34: v = m_mmfar; break;
        case 0xD38: v = m_bfar; break;
        case 0xD3C: v = 0; break;  // AFSR
        case 0xD88: v = m_cpacr; break;
        case 0xDFC: v = m_demcr; break;  // DEMCR: TRCENA etc. (stored; the DWT counts regardless)
        case 0xF34: v = m_fpccr; break;
        case 0xF38: v = m_fpcar; break;
        case 0xF3C: v = m_fpdscr; break;
        default:
            if (off >= 0xD40 && off < 0xD80) break;  // feature ID registers read as zero
            if (off >= 0xFD0) break;                  // peripheral/component IDs read as zero
            why = "SCS register " + hex(addr) + " is not modelled";
            return false;
    }
    return true;
}

bool Scs::write(uint32_t addr, unsigned size, uint32_t v, std::string& why) {
    const uint64_t now = m_now();
    m_best_stale = true;  // a write may change what is pending, enabled or its priority
    if (addr >= kDwtBase && addr < kDwtBase + 0x1000) {
        const uint32_t off = addr - kDwtBase;
        if (size != 4 || (off != 0 && off != 4)) {
            why = "DWT register " + hex(addr) + " is not modelled (only CTRL and CYCCNT)";
            return false;
        }
        uint32_t cur = 0;
        std::string unused;
        read(kDwtBase + 4, 4, cur, unused);
        if (off == 0) m_dwt_ctrl = v & 1u;
        m_cyccnt_base = off == 4 ? v : cur;
        m_cyccnt_base_tick = now;
        return true;
    }
    const uint32_t off = addr - kScsBase;
    if (off >= 0x100 && off < 0x5F0) return access_nvic(off, size, true, v, why);
    if (off >= 0xD18 && off < 0xD24) {
        for (unsigned i = 0; i < size; ++i) {
            const size_t e = off - 0xD18 + 4 + i;
            m_prio[e] = static_cast<uint8_t>((v >> (8 * i)) & (0xFFu << (8 - m_prio_bits)));
        }
        m_changed = true;
        return true;
    }
    if (off >= 0xD28 && off < 0xD2C) {  // CFSR: write-one-to-clear
        uint32_t mask = size < 4 ? ((1u << (8 * size)) - 1) : 0xFFFFFFFFu;
        m_cfsr &= ~((v & mask) << (8 * (off - 0xD28)));
        return true;
    }
    if (size != 4) {
        why = std::to_string(size) + "-byte access to word-only SCS register " + hex(addr);
        return false;
    }
    switch (off) {
        case 0x008: break;  // ACTLR: accepted, no effect modelled
        case 0x010: {
            const uint32_t cur = systick_current(now);
            m_syst_csr = v & 0x7u;
            if (!(m_syst_csr & 4u) && (m_syst_csr & 1u)) {
                why = "SysTick external reference clock (CLKSOURCE=0) is not modelled";
                return false;
            }
            systick_reschedule(now, cur);
            m_changed = true;
            break;
        }
        case 0x014:
            m_syst_rvr = v & 0x00FFFFFFu;
            systick_reschedule(now, systick_current(now));
            break;
        case 0x018:
            m_countflag = false;
            systick_reschedule(now, 0);
            break;
        case 0xD04:  // ICSR
            if (v & (1u << 31)) set_pending(kNmi);
            if (v & (1u << 28)) set_pending(kPendSv);
            if (v & (1u << 27)) clear_pending(kPendSv);
            if (v & (1u << 26)) set_pending(kSysTick);
            if (v & (1u << 25)) clear_pending(kSysTick);
            m_changed = true;
            break;
        case 0xD08: m_vtor = v & 0xFFFFFF80u; break;
        case 0xD0C:
            if ((v >> 16) != 0x05FAu) break;  // wrong VECTKEY: write ignored (architectural)
            m_prigroup = (v >> 8) & 7u;
            if (v & 4u) m_reset_requested = true;
            m_changed = true;
            break;
        case 0xD10: m_scr = v & 0x16u; break;
        case 0xD14:  // CCR: NONBASETHRDENA, USERSETMPEND, UNALIGN_TRP, DIV_0_TRP, BFHFNMIGN,
                     // STKALIGN
            m_ccr = v & 0x31Bu;
            break;
        case 0xD24: m_shcsr = v & 0x70000u; break;  // active/pending bits are live state
        case 0xD2C: m_hfsr &= ~v; break;
        case 0xD34: m_mmfar = v; break;
        case 0xD38: m_bfar = v; break;
        case 0xD88: m_cpacr = v & 0x00F00000u; break;
        case 0xDFC: m_demcr = v & 0x010F07F1u; break;
        case 0xF00:  // STIR
            if ((v & 0x1FFu) < m_n_irq) set_pending(kIrq0 + static_cast<int>(v & 0x1FFu));
            break;
        case 0xF34: m_fpccr = v & 0xC00001FBu; break;
        case 0xF38: m_fpcar = v & ~7u; break;
        case 0xF3C: m_fpdscr = v & 0x07C00000u; break;
        default:
            why = "write to read-only or unmodelled SCS register " + hex(addr);
            return false;
    }
    return true;
}

}  // namespace nmsim::arm
