#include "models/spinnaker2/comms/comms.h"

#include <cstring>
#include <iterator>
#include <stdexcept>
#include <string>

#include "models/common/sim_error.h"
#include "nmsim/hw/spinnaker2/comms_regs.h"
#include "nmsim/hw/spinnaker2/mc_packet.h"
#include "nmsim/hw/spinnaker2/noc_map.h"
#include "nmsim/hw/spinnaker2/pe_map.h"
#include "nmsim/hw/spinnaker2/router_regs.h"

namespace nmsim::spinnaker2 {

namespace {

const nmsim::RegDesc kRegs[] = {S2_COMMS_REGS(NMSIM_REG_DESC)};
const bool kRegd = nmsim::register_reg_table("s2.comms", kRegs, std::size(kRegs));

void set_error(tlm::tlm_generic_payload& p, tlm::tlm_response_status st, const std::string& why) {
    p.set_response_status(st);
    BusErrorExt* ext = nullptr;
    p.get_extension(ext);
    if (ext) ext->why = why;
}

// The router's multicast input port as the PE's NoC port sees it (addresses minus S2_EXT_BASE).
constexpr uint64_t kRouterIn =
    uint64_t{S2_ROUTER_GLOBAL_BASE} + S2_ROUTER_MC_IN_OFFSET - S2_EXT_BASE;

}  // namespace

Comms::Comms(sc_core::sc_module_name name, const CommsParams& p, nmsim::trace::Sink* sink)
    : Peripheral(name, kRegs, std::size(kRegs), sink),
      tx("tx"),
      rx("rx"),
      m_p(p),
      m_tx(p.tx_fifo_depth),
      m_in_flight(p.rx_fifo_depth),
      m_rx(p.rx_fifo_depth) {
    (void)kRegd;
    if (p.tx_fifo_depth < 1 || p.tx_fifo_depth > S2_COMMS_FIFO_MAX || p.rx_fifo_depth < 1 ||
        p.rx_fifo_depth > S2_COMMS_FIFO_MAX)
        throw std::invalid_argument(std::string(this->name()) +
                                    ": tx_fifo_depth and rx_fifo_depth must be in 1..255");
    rx.register_b_transport(this, &Comms::rx_transport);
    m_regs.on_write(S2_COMMS_TX_PAYLOAD, [this](uint32_t v) {
        m_payload = v;
        m_payload_latched = true;
    });
    m_regs.on_read(S2_COMMS_RX_KEY, [this] { return read_rx_key(); });
    m_regs.on_read(S2_COMMS_SENT, [this] { return static_cast<uint32_t>(m_sent); });
    m_regs.on_read(S2_COMMS_RECEIVED, [this] { return static_cast<uint32_t>(m_received); });

    m_txp.set_command(tlm::TLM_WRITE_COMMAND);
    m_txp.set_address(kRouterIn);
    m_txp.set_data_ptr(reinterpret_cast<unsigned char*>(m_txbuf));
    m_txp.set_data_length(S2_MC_PKT_BYTES);
    m_txp.set_streaming_width(S2_MC_PKT_BYTES);
    m_txp.set_byte_enable_ptr(nullptr);
    m_txp.set_dmi_allowed(false);
    m_txp.set_extension(&m_txerr);

    SC_HAS_PROCESS(Comms);
    SC_METHOD(deliver);
    sensitive << m_arrival;
    dont_initialize();
}

// The payload would free its extensions, which are members here.
Comms::~Comms() { m_txp.clear_extension(&m_txerr); }

void Comms::set_index(uint32_t index) {
    m_index = index;
    m_regs.value(S2_COMMS_SELF) = index;
}

void Comms::b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
    // TX_KEY is handled here rather than in a register handler: it may wait and it can fail with
    // a reason.
    if (!(p.is_write() && p.get_address() == S2_COMMS_TX_KEY && p.get_data_length() == 4 &&
          !p.get_byte_enable_ptr())) {
        Peripheral::b_transport(p, delay);
        return;
    }
    if (!m_router || tx.size() == 0) {
        set_error(p, tlm::TLM_COMMAND_ERROR_RESPONSE,
                  std::string(name()) +
                      ": TX_KEY: this platform has no spike router: multicast packets need the "
                      "chip platform");
        return;
    }
    uint32_t key = 0;
    std::memcpy(&key, p.get_data_ptr(), 4);
    // The packet enters the FIFO at the access time (the core syncs before every access).
    if (delay != sc_core::SC_ZERO_TIME) {
        sc_core::wait(delay);
        delay = sc_core::SC_ZERO_TIME;
    }
    if (m_tx_count == m_p.tx_fifo_depth) {
        // Full: the access completes when a slot is free (back-pressure reaches the core).
        ++m_stalls;
        const uint64_t t0 = sc_core::sc_time_stamp().value();
        while (m_tx_count == m_p.tx_fifo_depth) sc_core::wait(m_tx_freed);
        m_stall_ps += sc_core::sc_time_stamp().value() - t0;
    }
    Packet& pk = m_tx[(m_tx_head + m_tx_count) % m_p.tx_fifo_depth];
    pk.key = key;
    pk.payload = m_payload_latched ? m_payload : 0u;
    pk.ctrl = s2_mc_ctrl(m_payload_latched ? 1u : 0u, 1u, m_index);
    m_payload = 0;
    m_payload_latched = false;
    ++m_tx_count;
    ++m_accepted;
    if (m_tx_count > m_max_tx) m_max_tx = m_tx_count;
    std::string why;
    const bool ok = pump(why);
    update_tx_status();
    if (!ok) {
        set_error(p, tlm::TLM_COMMAND_ERROR_RESPONSE, std::string(name()) + ": TX_KEY: " + why);
        return;
    }
    p.set_response_status(tlm::TLM_OK_RESPONSE);
}

bool Comms::pump(std::string& why) {
    while (m_tx_count > 0 && !m_waiting_grant) {
        if (!m_router->request_input(*this)) {
            m_waiting_grant = true;
            break;
        }
        if (!send_head(why)) return false;
    }
    return true;
}

void Comms::input_granted() {
    m_waiting_grant = false;
    std::string why;
    if (m_tx_count > 0 && send_head(why)) pump(why);
    update_tx_status();
    if (!why.empty()) raise_sim_error(name(), "multicast send failed: " + why);
}

bool Comms::send_head(std::string& why) {
    const Packet pk = m_tx[m_tx_head];
    m_tx_head = (m_tx_head + 1) % m_p.tx_fifo_depth;
    --m_tx_count;
    m_tx_freed.notify(sc_core::SC_ZERO_TIME);
    m_txbuf[S2_MC_PKT_KEY_WORD] = pk.key;
    m_txbuf[S2_MC_PKT_PAYLOAD_WORD] = pk.payload;
    m_txbuf[S2_MC_PKT_CTRL_WORD] = pk.ctrl;
    m_txp.set_address(kRouterIn);
    m_txp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    m_txerr.why.clear();
    sc_core::sc_time flight = sc_core::SC_ZERO_TIME;  // posted: the sender does not wait
    tx->b_transport(m_txp, flight);
    if (!m_txp.is_response_ok()) {
        why = "NoC write to the router failed" + (m_txerr.why.empty() ? "" : ": " + m_txerr.why);
        return false;
    }
    ++m_sent;
    return true;
}

void Comms::rx_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
    if (!p.is_write() || p.get_address() != 0 || p.get_data_length() != S2_MC_PKT_BYTES ||
        p.get_byte_enable_ptr()) {
        set_error(p, tlm::TLM_ADDRESS_ERROR_RESPONSE,
                  std::string(name()) + ": the comms RX window takes one " +
                      std::to_string(S2_MC_PKT_BYTES) + "-byte packet write at offset 0");
        return;
    }
    p.set_response_status(tlm::TLM_OK_RESPONSE);
    if (m_in_flight_n + m_rx_count >= m_p.rx_fifo_depth) {
        ++m_overflows;  // a writer without a credit: the router never does this
        return;
    }
    uint32_t w[3];
    std::memcpy(w, p.get_data_ptr(), sizeof w);
    const uint64_t now = sc_core::sc_time_stamp().value();
    const uint64_t t = now + delay.value();
    // Ordered by arrival time; equal times keep their call order.
    size_t i = m_in_flight_n;
    while (i > 0 && m_in_flight[i - 1].t_ps > t) {
        m_in_flight[i] = m_in_flight[i - 1];
        --i;
    }
    m_in_flight[i] = Arrival{
        t, Packet{w[S2_MC_PKT_KEY_WORD], w[S2_MC_PKT_PAYLOAD_WORD], w[S2_MC_PKT_CTRL_WORD]}};
    ++m_in_flight_n;
    m_arrival.notify(sc_core::sc_time::from_value(m_in_flight[0].t_ps - now));
}

void Comms::deliver() {
    const uint64_t now = sc_core::sc_time_stamp().value();
    size_t n = 0;
    for (; n < m_in_flight_n && m_in_flight[n].t_ps <= now; ++n) {
        m_rx[(m_rx_head + m_rx_count) % m_p.rx_fifo_depth] = m_in_flight[n].pkt;
        ++m_rx_count;
        ++m_received;
    }
    // The next arrival is notified even when nothing arrived now: this run may have been
    // triggered by a notification that replaced (SystemC keeps only the earliest) the one for
    // the packets still in flight, and they would otherwise wait for the next write.
    if (n > 0) {
        for (size_t i = n; i < m_in_flight_n; ++i) m_in_flight[i - n] = m_in_flight[i];
        m_in_flight_n -= n;
        if (m_rx_count > m_max_rx) m_max_rx = m_rx_count;
    }
    if (m_in_flight_n > 0)
        m_arrival.notify(sc_core::sc_time::from_value(m_in_flight[0].t_ps - now));
    if (n > 0) update_rx_outputs();
}

uint32_t Comms::read_rx_key() {
    if (m_rx_count == 0) return 0;
    const uint32_t key = m_rx[m_rx_head].key;
    m_rx_head = (m_rx_head + 1) % m_p.rx_fifo_depth;
    --m_rx_count;
    update_rx_outputs();
    if (m_router) m_router->rx_freed(m_index);
    return key;
}

void Comms::update_tx_status() {
    m_regs.value(S2_COMMS_TX_STATUS) =
        NM_FIELD_SET(m_tx_count == m_p.tx_fifo_depth ? 1u : 0u, S2_COMMS_TX_STATUS_FULL) |
        NM_FIELD_SET(m_tx_count, S2_COMMS_TX_STATUS_COUNT);
}

void Comms::update_rx_outputs() {
    const bool pending = m_rx_count > 0;
    const Packet* head = pending ? &m_rx[m_rx_head] : nullptr;
    const bool has_payload = head && s2_mc_ctrl_has_payload(head->ctrl);
    m_regs.value(S2_COMMS_RX_KEY) = head ? head->key : 0u;  // what a debug read shows
    m_regs.value(S2_COMMS_RX_PAYLOAD) = has_payload ? head->payload : 0u;
    m_regs.value(S2_COMMS_RX_STATUS) =
        NM_FIELD_SET(pending ? 1u : 0u, S2_COMMS_RX_STATUS_PENDING) |
        NM_FIELD_SET(has_payload ? 1u : 0u, S2_COMMS_RX_STATUS_HAS_PAYLOAD) |
        NM_FIELD_SET(m_rx_count, S2_COMMS_RX_STATUS_COUNT);
    irq.set(pending);
}

void Comms::write_summary() {
    // A unit that never sent or received leaves its counters out (most PEs of a DNN run), as
    // the NoC leaves out idle links.
    if (!m_sink || (m_accepted == 0 && m_received == 0 && m_overflows == 0)) return;
    m_sink->counter(m_component, "sent", "1", static_cast<double>(m_sent));
    m_sink->counter(m_component, "received", "1", static_cast<double>(m_received));
    m_sink->counter(m_component, "tx_stalls", "1", static_cast<double>(m_stalls));
    m_sink->counter(m_component, "tx_stall_ps", "ps", static_cast<double>(m_stall_ps));
    m_sink->counter(m_component, "tx_max_queued", "1", static_cast<double>(m_max_tx));
    m_sink->counter(m_component, "rx_max_queued", "1", static_cast<double>(m_max_rx));
    m_sink->counter(m_component, "rx_overflows", "1", static_cast<double>(m_overflows));
}

}  // namespace nmsim::spinnaker2
