// A RAM: TLM-2.0 target with b_transport, DMI and debug transport over a host byte buffer.
// Cores map the buffer straight into their ISS; accelerators use data() as a DMI pointer.
#pragma once

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include <cstdint>
#include <vector>

namespace nmsim {

class Memory : public sc_core::sc_module {
public:
    tlm_utils::simple_target_socket<Memory> tgt;

    // Every b_transport access is annotated with `latency` plus its length at `bytes_per_second`
    // (0: unlimited). Contention between initiators is not modelled here.
    Memory(sc_core::sc_module_name name, uint64_t size, sc_core::sc_time latency,
           double bytes_per_second = 0.0);

    uint8_t* data() { return m_data.data(); }
    const uint8_t* data() const { return m_data.data(); }
    uint64_t size() const { return m_data.size(); }
    bool contains(uint64_t addr, uint64_t len) const { return addr <= size() && len <= size() - addr; }

private:
    void b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay);
    bool get_direct_mem_ptr(tlm::tlm_generic_payload& p, tlm::tlm_dmi& dmi);
    unsigned int transport_dbg(tlm::tlm_generic_payload& p);

    std::vector<uint8_t> m_data;
    sc_core::sc_time m_latency;
    double m_bytes_per_second;
};

}  // namespace nmsim
