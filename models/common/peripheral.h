// Base of memory-mapped peripherals: a TLM-2.0 target socket in front of a RegisterBank built
// from the firmware register table. Subclasses add handlers in their constructor. Bus errors
// carry their reason back to the initiator in a BusErrorExt so that fault reports can name the
// register.
#pragma once

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include <string>

#include "models/common/register_bank.h"
#include "nmsim/trace/sink.h"

namespace nmsim {

// Filled by a target that fails an access; initiators attach it to learn why.
struct BusErrorExt : tlm::tlm_extension<BusErrorExt> {
    std::string why;
    tlm::tlm_extension_base* clone() const override { return new BusErrorExt(*this); }
    void copy_from(const tlm::tlm_extension_base& e) override {
        why = static_cast<const BusErrorExt&>(e).why;
    }
};

class Peripheral : public sc_core::sc_module {
public:
    tlm_utils::simple_target_socket<Peripheral> cfg;

    // `window_bytes`: the address window the bank decodes (register offsets must fall inside).
    Peripheral(sc_core::sc_module_name name, const RegDesc* regs, size_t count,
               trace::Sink* sink = nullptr, size_t window_bytes = 0x100);

    RegisterBank& regs() { return m_regs; }
    trace::Sink* sink() const { return m_sink; }
    trace::ComponentId component_id() const { return m_component; }

    // Writes the summary counters of this component (called once at the end of a run).
    virtual void write_summary() {}

protected:
    virtual void b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay);
    unsigned int transport_dbg(tlm::tlm_generic_payload& p);

    RegisterBank m_regs;
    trace::Sink* m_sink;
    trace::ComponentId m_component = 0;
};

}  // namespace nmsim
