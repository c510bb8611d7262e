#include "models/common/router.h"

#include <cstdio>

#include "models/common/peripheral.h"

namespace nmsim {

Router::Router(sc_core::sc_module_name name, sc_core::sc_time latency)
    : sc_module(name), in("in"), out("out"), m_latency(latency) {
    in.register_b_transport(this, &Router::b_transport);
    in.register_transport_dbg(this, &Router::transport_dbg);
}

void Router::check_free(uint64_t base, uint64_t size, const std::string& what) const {
    for (const Entry& e : m_map)
        if (base < e.base + e.size && e.base < base + size)
            throw std::logic_error(std::string(name()) + ": window of " + what +
                                   " overlaps the window of " + e.what);
}

// Consecutive accesses mostly go to the same device (a polled status register, a DMA's bursts):
// the last entry hit is tried first.
const Router::Entry* Router::decode(uint64_t addr, unsigned len) const {
    auto hit = [addr, len](const Entry& e) {
        return addr >= e.base && addr - e.base < e.size && len <= e.size - (addr - e.base);
    };
    if (m_last < m_map.size() && hit(m_map[m_last])) return &m_map[m_last];
    for (size_t i = 0; i < m_map.size(); ++i) {
        if (!hit(m_map[i])) continue;
        m_last = i;
        return &m_map[i];
    }
    return nullptr;
}

void Router::b_transport(int, tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
    const uint64_t addr = p.get_address();
    const Entry* e = decode(addr, p.get_data_length());
    if (!e) {
        p.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        BusErrorExt* ext = nullptr;
        p.get_extension(ext);
        if (ext) {
            char b[96];
            std::snprintf(b, sizeof b, "no device at 0x%08llx (%u bytes) on %s",
                          static_cast<unsigned long long>(addr), p.get_data_length(), name());
            ext->why = b;
        }
        return;
    }
    delay += m_latency;
    p.set_address(addr - e->base);
    out[static_cast<int>(e->port)]->b_transport(p, delay);
    p.set_address(addr);
}

unsigned int Router::transport_dbg(int, tlm::tlm_generic_payload& p) {
    const uint64_t addr = p.get_address();
    const Entry* e = decode(addr, 1);
    if (!e) return 0;
    p.set_address(addr - e->base);
    const unsigned int n = out[static_cast<int>(e->port)]->transport_dbg(p);
    p.set_address(addr);
    return n;
}

}  // namespace nmsim
