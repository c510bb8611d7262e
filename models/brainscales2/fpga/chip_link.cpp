#include "models/brainscales2/fpga/chip_link.h"

#include <algorithm>

namespace nmsim::bss2 {

ChipUpLink::ChipUpLink(uint64_t message_ps, uint64_t latency_ps, uint32_t spikes_per_message,
                       uint32_t madc_per_message, uint32_t depth)
    : m_message_ps(message_ps),
      m_latency_ps(latency_ps),
      m_spm(std::max(1u, spikes_per_message)),
      m_mpm(std::max(1u, madc_per_message)),
      m_depth(depth) {}

uint32_t ChipUpLink::limit(Kind k) const {
    switch (k) {
        case Kind::spike:
            return m_spm;
        case Kind::madc:
            return m_mpm;
        case Kind::read:
            return 1;
    }
    return 1;
}

bool ChipUpLink::push(uint64_t t_ps, Kind kind, uint64_t payload) {
    // Never behind what advance() has already decided (messages started before m_horizon).
    t_ps = std::max({t_ps, m_last_t, m_horizon});
    advance(t_ps);
    if (kind != Kind::read && m_wait.size() >= m_depth) {
        ++m_dropped;
        return false;
    }
    m_last_t = t_ps;
    m_wait.push_back(Item{t_ps, kind, payload});
    return true;
}

void ChipUpLink::advance(uint64_t t_ps) {
    m_horizon = std::max(m_horizon, t_ps);
    while (!m_wait.empty()) {
        const uint64_t start = std::max(m_busy_until, m_wait.front().t_ps);
        if (start >= t_ps) break;
        const Kind kind = m_wait.front().kind;
        const uint64_t arrive = start + m_message_ps + m_latency_ps;
        uint32_t n = 0;
        while (!m_wait.empty() && n < limit(kind) && m_wait.front().kind == kind &&
               m_wait.front().t_ps <= start) {
            m_flight.push_back(Item{arrive, kind, m_wait.front().payload});
            m_wait.pop_front();
            ++n;
        }
        m_busy_until = start + m_message_ps;
        m_busy_ps += m_message_ps;
        ++m_messages;
    }
}

uint64_t ChipUpLink::next_arrival() const {
    if (!m_flight.empty()) return m_flight.front().t_ps;
    if (m_wait.empty()) return UINT64_MAX;
    return std::max(m_busy_until, m_wait.front().t_ps) + m_message_ps + m_latency_ps;
}

}  // namespace nmsim::bss2
