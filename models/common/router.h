// An address-decoding TLM-2.0 interconnect: any number of initiators, any number of targets,
// each target owning [base, base+size). The target sees the address minus its base. Accesses
// that hit no target fail with TLM_ADDRESS_ERROR_RESPONSE and a reason in BusErrorExt.
// Optional per-access latency models the bus itself.
#pragma once

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include <string>
#include <vector>

namespace nmsim {

class Router : public sc_core::sc_module {
public:
    tlm_utils::multi_passthrough_target_socket<Router> in;
    tlm_utils::multi_passthrough_initiator_socket<Router> out;

    Router(sc_core::sc_module_name name, sc_core::sc_time latency = sc_core::SC_ZERO_TIME);

    // Binds the next `out` port to a target that owns [base, base+size); returns the port.
    // Windows must not overlap (std::logic_error naming both).
    template <class Socket>
    void map(Socket& target, uint64_t base, uint64_t size, const std::string& what) {
        check_free(base, size, what);
        m_map.push_back(Entry{base, size, m_map.size(), what});
        out.bind(target);
    }

private:
    struct Entry {
        uint64_t base, size;
        size_t port;
        std::string what;
    };
    const Entry* decode(uint64_t addr, unsigned len) const;
    void check_free(uint64_t base, uint64_t size, const std::string& what) const;
    void b_transport(int id, tlm::tlm_generic_payload& p, sc_core::sc_time& delay);
    unsigned int transport_dbg(int id, tlm::tlm_generic_payload& p);

    std::vector<Entry> m_map;
    mutable size_t m_last = 0;  // decode's last hit
    sc_core::sc_time m_latency;
};

}  // namespace nmsim
