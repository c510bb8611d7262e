#include "models/common/memory.h"

#include <algorithm>
#include <cstring>
#include <new>

namespace nmsim {

Memory::Memory(sc_core::sc_module_name name, uint64_t size, sc_core::sc_time latency,
               double bytes_per_second)
    : sc_module(name),
      tgt("tgt"),
      m_data(static_cast<uint8_t*>(std::calloc(size ? size : 1, 1))),
      m_size(size),
      m_latency(latency),
      m_bytes_per_second(bytes_per_second) {
    if (!m_data) throw std::bad_alloc();
    tgt.register_b_transport(this, &Memory::b_transport);
    tgt.register_get_direct_mem_ptr(this, &Memory::get_direct_mem_ptr);
    tgt.register_transport_dbg(this, &Memory::transport_dbg);
}

void Memory::b_transport(int, tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
    const uint64_t a = p.get_address();
    const unsigned len = p.get_data_length();
    if (p.get_byte_enable_ptr() || !contains(a, len)) {
        p.set_response_status(p.get_byte_enable_ptr() ? tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE
                                                      : tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return;
    }
    if (p.is_read()) {
        std::memcpy(p.get_data_ptr(), &m_data[a], len);
        m_bytes_read += len;
    } else if (p.is_write()) {
        std::memcpy(&m_data[a], p.get_data_ptr(), len);
        m_bytes_written += len;
    }
    if (m_first_access_ps == UINT64_MAX)
        m_first_access_ps = (sc_core::sc_time_stamp() + delay).value();
    const sc_core::sc_time before = delay;
    delay += m_latency;
    if (m_bytes_per_second > 0)
        delay += sc_core::sc_time(len / m_bytes_per_second, sc_core::SC_SEC);
    m_busy_ps += (delay - before).value();
    p.set_dmi_allowed(true);
    p.set_response_status(tlm::TLM_OK_RESPONSE);
}

bool Memory::get_direct_mem_ptr(int, tlm::tlm_generic_payload&, tlm::tlm_dmi& dmi) {
    dmi.set_dmi_ptr(m_data.get());
    dmi.set_start_address(0);
    dmi.set_end_address(m_size - 1);
    dmi.allow_read_write();
    dmi.set_read_latency(m_latency);
    dmi.set_write_latency(m_latency);
    return true;
}

unsigned int Memory::transport_dbg(int, tlm::tlm_generic_payload& p) {
    const uint64_t a = p.get_address();
    if (a >= size()) return 0;
    unsigned len = static_cast<unsigned>(std::min<uint64_t>(p.get_data_length(), size() - a));
    if (p.is_read())
        std::memcpy(p.get_data_ptr(), &m_data[a], len);
    else
        std::memcpy(&m_data[a], p.get_data_ptr(), len);
    return len;
}

}  // namespace nmsim
