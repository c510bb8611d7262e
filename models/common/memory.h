// A RAM: TLM-2.0 target with b_transport, DMI and debug transport over a host byte buffer.
// Cores map the buffer straight into their ISS; accelerators use data() as a DMI pointer.
#pragma once

#include <tlm_utils/multi_passthrough_target_socket.h>
#include <systemc>
#include <tlm>

#include <cstdint>
#include <cstdlib>
#include <memory>

namespace nmsim {

class Memory : public sc_core::sc_module {
public:
    // Several initiators may bind (a PE's bus and its NoC port both reach its SRAM); none is
    // also fine for a RAM used only through data().
    tlm_utils::multi_passthrough_target_socket<Memory, 32, tlm::tlm_base_protocol_types, 0,
                                               sc_core::SC_ZERO_OR_MORE_BOUND>
        tgt;

    // Every b_transport access is annotated with `latency` plus its length at `bytes_per_second`
    // (0: unlimited). Contention between initiators is not modelled here.
    Memory(sc_core::sc_module_name name, uint64_t size, sc_core::sc_time latency,
           double bytes_per_second = 0.0);

    uint8_t* data() { return m_data.get(); }
    const uint8_t* data() const { return m_data.get(); }
    uint64_t size() const { return m_size; }
    bool contains(uint64_t addr, uint64_t len) const {
        return addr <= size() && len <= size() - addr;
    }
    // Bytes moved by bus transactions (not by data() or debug access): energy accounting.
    uint64_t bytes_read() const { return m_bytes_read; }
    uint64_t bytes_written() const { return m_bytes_written; }
    uint64_t first_access_ps() const { return m_first_access_ps; }  // UINT64_MAX before any
    uint64_t busy_ps() const { return m_busy_ps; }  // sum of the accesses' annotated times

private:
    void b_transport(int id, tlm::tlm_generic_payload& p, sc_core::sc_time& delay);
    bool get_direct_mem_ptr(int id, tlm::tlm_generic_payload& p, tlm::tlm_dmi& dmi);
    unsigned int transport_dbg(int id, tlm::tlm_generic_payload& p);

    struct Free {
        void operator()(uint8_t* p) const { std::free(p); }
    };
    // calloc: large buffers come zeroed from the OS and cost resident memory only once touched
    // (a full chip builds 152 SRAMs, most of them idle).
    std::unique_ptr<uint8_t[], Free> m_data;
    uint64_t m_size;
    sc_core::sc_time m_latency;
    double m_bytes_per_second;
    uint64_t m_bytes_read = 0, m_bytes_written = 0, m_first_access_ps = UINT64_MAX, m_busy_ps = 0;
};

}  // namespace nmsim
