#include "models/spinnaker2/signal/signal.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <string>

#include "nmsim/hw/spinnaker2/noc_map.h"
#include "nmsim/hw/spinnaker2/pe_map.h"
#include "nmsim/hw/spinnaker2/signal_regs.h"

namespace nmsim::spinnaker2 {

namespace {

const nmsim::RegDesc kRegs[] = {S2_SIGNAL_REGS(NMSIM_REG_DESC)};
const bool kRegd = nmsim::register_reg_table("s2.signal", kRegs, std::size(kRegs));

constexpr uint32_t kPop = NM_FIELD_SET(1u, S2_SIGNAL_ACK_POP);
constexpr uint32_t kClearOverflow = NM_FIELD_SET(1u, S2_SIGNAL_ACK_CLEAR_OVERFLOW);

void set_error(tlm::tlm_generic_payload& p, tlm::tlm_response_status st, const std::string& why) {
    p.set_response_status(st);
    BusErrorExt* ext = nullptr;
    p.get_extension(ext);
    if (ext) ext->why = why;
}

}  // namespace

Signal::Signal(sc_core::sc_module_name name, nmsim::trace::Sink* sink)
    : Peripheral(name, kRegs, std::size(kRegs), sink), tx("tx"), rx("rx") {
    (void)kRegd;
    rx.register_b_transport(this, &Signal::rx_transport);
    m_regs.on_write(S2_SIGNAL_ACK, [this](uint32_t v) { write_ack(v); });
    SC_HAS_PROCESS(Signal);
    SC_METHOD(deliver);
    sensitive << m_arrival;
    dont_initialize();
}

void Signal::set_index(uint32_t index) {
    m_index = index;
    m_regs.value(S2_SIGNAL_SELF) = index;
}

void Signal::b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
    // SEND is handled here rather than in a register handler: it can fail with a reason.
    if (p.is_write() && p.get_address() == S2_SIGNAL_SEND && p.get_data_length() == 4 &&
        !p.get_byte_enable_ptr()) {
        uint32_t word = 0;
        std::memcpy(&word, p.get_data_ptr(), 4);
        std::string why;
        if (!send(word, delay, why)) {
            set_error(p, tlm::TLM_COMMAND_ERROR_RESPONSE, std::string(name()) + ": SEND: " + why);
            return;
        }
        p.set_response_status(tlm::TLM_OK_RESPONSE);
        return;
    }
    Peripheral::b_transport(p, delay);
}

bool Signal::send(uint32_t word, const sc_core::sc_time& delay, std::string& why) {
    const uint32_t target = m_regs.value(S2_SIGNAL_TARGET);
    if (target >= S2_NOC_N_PES) {
        why = "TARGET " + std::to_string(target) + " is not a PE index (0.." +
              std::to_string(S2_NOC_N_PES - 1) + ")";
        return false;
    }
    if (tx.size() == 0) {
        why = "this platform has no NoC: PE-to-PE signals need the chip platform";
        return false;
    }
    uint32_t qx = 0, qy = 0;
    s2_qpe_coord(target / S2_NOC_PES_PER_QPE, &qx, &qy);
    const uint32_t addr =
        s2_pe_global_addr(qx, qy, target % S2_NOC_PES_PER_QPE, S2_SIGNAL_RX_OFFSET);
    uint32_t msg[2] = {word, m_index};
    tlm::tlm_generic_payload p;
    BusErrorExt err;
    p.set_command(tlm::TLM_WRITE_COMMAND);
    p.set_address(addr - S2_EXT_BASE);
    p.set_data_ptr(reinterpret_cast<unsigned char*>(msg));
    p.set_data_length(S2_SIGNAL_RX_BYTES);
    p.set_streaming_width(S2_SIGNAL_RX_BYTES);
    p.set_byte_enable_ptr(nullptr);
    p.set_dmi_allowed(false);
    p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    p.set_extension(&err);
    sc_core::sc_time flight = delay;  // posted: the sender does not wait for the flight
    tx->b_transport(p, flight);
    p.clear_extension(&err);
    if (!p.is_response_ok()) {
        why = "NoC write to PE " + std::to_string(target) + " failed" +
              (err.why.empty() ? std::string() : ": " + err.why);
        return false;
    }
    ++m_sent;
    return true;
}

void Signal::rx_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
    if (!p.is_write() || p.get_address() != 0 || p.get_data_length() != S2_SIGNAL_RX_BYTES ||
        p.get_byte_enable_ptr()) {
        set_error(p, tlm::TLM_ADDRESS_ERROR_RESPONSE,
                  std::string(name()) + ": the signal window takes one 8-byte write at offset 0");
        return;
    }
    uint32_t msg[2];
    std::memcpy(msg, p.get_data_ptr(), sizeof msg);
    const uint64_t t = (sc_core::sc_time_stamp() + delay).value();
    const Word w{t, msg[0], msg[1]};
    // Equal arrival times keep their call order.
    auto at = std::upper_bound(m_in_flight.begin(), m_in_flight.end(), t,
                               [](uint64_t v, const Word& x) { return v < x.t_ps; });
    m_in_flight.insert(at, w);
    m_arrival.notify(sc_core::sc_time::from_value(m_in_flight.front().t_ps) -
                     sc_core::sc_time_stamp());
    p.set_response_status(tlm::TLM_OK_RESPONSE);
}

void Signal::deliver() {
    const uint64_t now = sc_core::sc_time_stamp().value();
    size_t n = 0;
    for (; n < m_in_flight.size() && m_in_flight[n].t_ps <= now; ++n) {
        ++m_received;
        if (m_fifo.size() >= S2_SIGNAL_FIFO_DEPTH) {
            m_overflow = true;
            ++m_dropped;
        } else {
            m_fifo.push_back(m_in_flight[n]);
        }
    }
    m_in_flight.erase(m_in_flight.begin(), m_in_flight.begin() + static_cast<std::ptrdiff_t>(n));
    if (!m_in_flight.empty())
        m_arrival.notify(sc_core::sc_time::from_value(m_in_flight.front().t_ps - now));
    update_outputs();
}

void Signal::write_ack(uint32_t v) {
    if ((v & kPop) && !m_fifo.empty()) m_fifo.pop_front();
    if (v & kClearOverflow) m_overflow = false;
    update_outputs();
}

void Signal::update_outputs() {
    const bool pending = !m_fifo.empty();
    m_regs.value(S2_SIGNAL_RX_WORD) = pending ? m_fifo.front().word : 0u;
    m_regs.value(S2_SIGNAL_RX_SOURCE) = pending ? m_fifo.front().source : 0u;
    m_regs.value(S2_SIGNAL_STATUS) =
        NM_FIELD_SET(pending ? 1u : 0u, S2_SIGNAL_STATUS_PENDING) |
        NM_FIELD_SET(m_overflow ? 1u : 0u, S2_SIGNAL_STATUS_OVERFLOW) |
        NM_FIELD_SET(static_cast<uint32_t>(m_fifo.size()), S2_SIGNAL_STATUS_COUNT);
    irq.set(pending);
}

void Signal::write_summary() {
    if (!m_sink) return;
    m_sink->counter(m_component, "sent", "1", static_cast<double>(m_sent));
    m_sink->counter(m_component, "received", "1", static_cast<double>(m_received));
    m_sink->counter(m_component, "dropped", "1", static_cast<double>(m_dropped));
}

}  // namespace nmsim::spinnaker2
