#include "models/common/peripheral.h"

#include <cstring>

namespace nmsim {

Peripheral::Peripheral(sc_core::sc_module_name name, const RegDesc* regs, size_t count,
                       trace::Sink* sink, size_t window_bytes)
    : sc_module(name), cfg("cfg"), m_regs(regs, count, window_bytes), m_sink(sink) {
    cfg.register_b_transport(this, &Peripheral::b_transport);
    cfg.register_transport_dbg(this, &Peripheral::transport_dbg);
    if (m_sink) m_component = m_sink->component(this->name());
}

void Peripheral::b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time&) {
    const uint32_t off = static_cast<uint32_t>(p.get_address());
    const unsigned len = p.get_data_length();
    std::string why;
    bool ok = false;
    if (p.is_read()) {
        uint32_t v = 0;
        ok = m_regs.read(off, len, v, why);
        if (ok) std::memcpy(p.get_data_ptr(), &v, 4);
    } else if (p.is_write()) {
        uint32_t v = 0;
        if (len == 4) std::memcpy(&v, p.get_data_ptr(), 4);
        ok = m_regs.write(off, len, v, why);
    }
    if (ok) {
        p.set_response_status(tlm::TLM_OK_RESPONSE);
        return;
    }
    p.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
    BusErrorExt* ext = nullptr;
    p.get_extension(ext);
    if (ext) ext->why = why;
}

unsigned int Peripheral::transport_dbg(tlm::tlm_generic_payload& p) {
    // Debug reads see stored values without side effects; debug writes are not supported.
    if (!p.is_read() || p.get_data_length() != 4) return 0;
    const RegDesc* d = m_regs.find(static_cast<uint32_t>(p.get_address()));
    if (!d) return 0;
    uint32_t v = m_regs.value(d->offset);
    std::memcpy(p.get_data_ptr(), &v, 4);
    return 4;
}

}  // namespace nmsim
