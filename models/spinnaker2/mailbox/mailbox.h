// SpiNNaker2 host mailbox and doorbell, register map
// firmware/include/nmsim/hw/spinnaker2/mailbox_regs.h.
//
// Core -> host: the core leaves up to four words in TO_HOST0..3 (plain read/write storage) and
// writes a message code to DOORBELL; on_doorbell(code) is called at the simulated time of that
// write (a non-zero annotated delay is waited out first, so the host sees the ring exactly when
// it happens: DOORBELL is a "sync" register, one whose effect another initiator sees at once).
// Host -> core: host_send() fills FROM_HOST0..3, sets STATUS.PENDING and raises `irq` (level,
// S2_IRQ_MAILBOX) until the core writes ACK with bit 0 set. A host_send() while a message is
// still pending overwrites the four words and leaves PENDING set (the older message is lost and
// counted as host_overwrites); the core sees only the latest message. ACK with bit 0 clear does
// nothing.
#pragma once

#include <array>
#include <cstdint>
#include <functional>

#include "models/common/irq.h"
#include "models/common/peripheral.h"

namespace nmsim::spinnaker2 {

class Mailbox : public nmsim::Peripheral {
public:
    Mailbox(sc_core::sc_module_name name, nmsim::trace::Sink* sink);

    nmsim::IrqLine irq;  // S2_IRQ_MAILBOX, high while STATUS.PENDING

    // Host -> core message (see above).
    void host_send(const std::array<uint32_t, 4>& words);
    // TO_HOST0..3 as left by the core.
    uint32_t to_host(unsigned i) const;
    bool pending() const { return m_pending; }

    // Called at the time the core writes DOORBELL, with the value written.
    std::function<void(uint32_t code)> on_doorbell;
    bool rang() const { return m_doorbells != 0; }
    uint32_t last_doorbell() const { return m_last_doorbell; }

    void write_summary() override;

protected:
    void b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay) override;

private:
    void write_ack(uint32_t v);

    std::array<uint32_t, 4> m_to_host{};  // mirrors TO_HOST0..3 for const access by the host
    bool m_pending = false;
    uint32_t m_last_doorbell = 0;
    uint64_t m_doorbells = 0;
    uint64_t m_host_messages = 0;
    uint64_t m_host_overwrites = 0;
};

}  // namespace nmsim::spinnaker2
