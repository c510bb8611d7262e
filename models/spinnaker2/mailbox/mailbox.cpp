#include "models/spinnaker2/mailbox/mailbox.h"

#include <iterator>
#include <stdexcept>

#include "nmsim/hw/spinnaker2/mailbox_regs.h"

namespace nmsim::spinnaker2 {

namespace {

const nmsim::RegDesc kRegs[] = {S2_MAILBOX_REGS(NMSIM_REG_DESC)};
const bool kRegd = nmsim::register_reg_table("s2.mailbox", kRegs, std::size(kRegs));

constexpr uint32_t kToHost[4] = {S2_MAILBOX_TO_HOST0, S2_MAILBOX_TO_HOST1, S2_MAILBOX_TO_HOST2,
                                 S2_MAILBOX_TO_HOST3};
constexpr uint32_t kFromHost[4] = {S2_MAILBOX_FROM_HOST0, S2_MAILBOX_FROM_HOST1,
                                   S2_MAILBOX_FROM_HOST2, S2_MAILBOX_FROM_HOST3};
constexpr uint32_t kPending = NM_FIELD_SET(1u, S2_MAILBOX_STATUS_PENDING);

}  // namespace

Mailbox::Mailbox(sc_core::sc_module_name name, nmsim::trace::Sink* sink)
    : Peripheral(name, kRegs, std::size(kRegs), sink) {
    (void)kRegd;
    m_regs.on_write(S2_MAILBOX_DOORBELL, [this](uint32_t v) {
        m_regs.value(S2_MAILBOX_DOORBELL) = v;
        m_last_doorbell = v;
        ++m_doorbells;
        if (on_doorbell) on_doorbell(v);
    });
    m_regs.on_write(S2_MAILBOX_ACK, [this](uint32_t v) { write_ack(v); });
    for (unsigned i = 0; i < 4; ++i) {
        m_regs.on_write(kToHost[i], [this, i](uint32_t v) {
            m_regs.value(kToHost[i]) = v;
            m_to_host[i] = v;
        });
    }
}

void Mailbox::b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
    // Bring a doorbell ring to its true time before the host hears it.
    if (p.is_write() && p.get_address() == S2_MAILBOX_DOORBELL && delay != sc_core::SC_ZERO_TIME) {
        sc_core::wait(delay);
        delay = sc_core::SC_ZERO_TIME;
    }
    Peripheral::b_transport(p, delay);
}

void Mailbox::write_ack(uint32_t v) {
    m_regs.value(S2_MAILBOX_ACK) = v;
    if (!(v & 1u)) return;
    m_pending = false;
    m_regs.value(S2_MAILBOX_STATUS) &= ~kPending;
    irq.set(false);
}

void Mailbox::host_send(const std::array<uint32_t, 4>& words) {
    for (unsigned i = 0; i < 4; ++i) m_regs.value(kFromHost[i]) = words[i];
    if (m_pending) ++m_host_overwrites;
    m_pending = true;
    m_regs.value(S2_MAILBOX_STATUS) |= kPending;
    ++m_host_messages;
    irq.set(true);
}

uint32_t Mailbox::to_host(unsigned i) const {
    if (i >= 4) throw std::out_of_range("Mailbox::to_host: word " + std::to_string(i));
    return m_to_host[i];
}

void Mailbox::write_summary() {
    if (!m_sink) return;
    m_sink->counter(m_component, "doorbells", "1", static_cast<double>(m_doorbells));
    m_sink->counter(m_component, "host_messages", "1", static_cast<double>(m_host_messages));
    m_sink->counter(m_component, "host_overwrites", "1", static_cast<double>(m_host_overwrites));
}

}  // namespace nmsim::spinnaker2
