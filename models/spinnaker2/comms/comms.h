// SpiNNaker2 multicast communication controller ("comms"), one per PE: register map and
// semantics in firmware/include/nmsim/hw/spinnaker2/comms_regs.h, the packet in mc_packet.h, the
// model with the spike router in docs/router.md.
//
// Send: TX_KEY queues a packet in the TX FIFO (preallocated ring, depth tx_fifo_depth). The FIFO
// drains toward the router as the router's input queue takes packets: for each packet the unit
// reserves an input-queue slot (McRouterIf::request_input; when none is free the router grants
// one later through input_granted()) and then writes the packet (12 bytes, one flit) over `tx`,
// which the chip binds to the PE's NoC port (addresses minus S2_EXT_BASE, as the PE DMA's `ext`),
// to the router's multicast input port. The write is posted: the NoC annotates the flight and
// the router takes the packet at its arrival time. When the FIFO is full, a TX_KEY write waits
// inside b_transport until a slot is free: the core's bus access completes only then (the core
// counts the time it waited as a stall). TX_KEY is a bus error naming the reason when the PE has
// no router (the single-PE platform leaves `tx` unbound and the router unset).
// Receive: `rx` takes the router's 12-byte write at offset 0 of the comms RX window; the packet
// becomes visible at the annotated arrival time (sc_time_stamp() + delay) and raises `irq`
// (level, S2_IRQ_COMMS_RX) while the RX FIFO (depth rx_fifo_depth) holds one. Reading RX_KEY pops
// the oldest packet and returns its credit to the router (McRouterIf::rx_freed): the router
// sends only while credits remain, so a full FIFO back-pressures the router and never overflows.
// A write that would overflow anyway (a writer that holds no credit) is dropped and counted.
#pragma once

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <systemc>
#include <tlm>

#include <cstdint>
#include <string>
#include <vector>

#include "models/common/irq.h"
#include "models/common/param.h"
#include "models/common/peripheral.h"
#include "models/spinnaker2/router/mc_flow_if.h"

namespace nmsim::spinnaker2 {

struct CommsParams {
    NMSIM_PARAMSET(CommsParams);
    NMSIM_PARAM(uint32_t, tx_fifo_depth, 16, "packets", nmsim::range(1, 255),
                "TX FIFO of the communication controller: packets that wait for the router's "
                "input queue; a TX_KEY write to a full FIFO stalls the core",
                "assumed: not public; 16 packets absorb one timer tick's burst of a few spikes "
                "while the router is busy");
    NMSIM_PARAM(uint32_t, rx_fifo_depth, 16, "packets", nmsim::range(1, 255),
                "RX FIFO of the communication controller: received packets the firmware has not "
                "popped; when it is full the router holds further copies (back-pressure)",
                "assumed: not public. sPyNNaker's handler only queues each received key in "
                "software (hardware_facts.md G [SW]); nmsim's firmware may do synaptic work in "
                "the handler, so 16 packets absorb a burst meanwhile");
};

class Comms : public nmsim::Peripheral, public McSenderIf {
public:
    tlm_utils::simple_initiator_socket_optional<Comms> tx;  // to the NoC; unbound: no router
    tlm_utils::simple_target_socket_optional<Comms> rx;     // from the NoC: the comms RX window
    nmsim::IrqLine irq;                                     // S2_IRQ_COMMS_RX

    Comms(sc_core::sc_module_name name, const CommsParams& p, nmsim::trace::Sink* sink);
    ~Comms() override;

    // This PE's global index (4 * qpe_index + pe): SELF and the packets' source.
    void set_index(uint32_t index);
    uint32_t index() const { return m_index; }
    // The spike router (flow control); `tx` must be bound to the NoC too. Unset: no router.
    void set_router(McRouterIf* router) { m_router = router; }

    const CommsParams& params() const { return m_p; }
    uint32_t tx_queued() const { return m_tx_count; }
    uint32_t rx_queued() const { return m_rx_count; }
    uint64_t sent() const { return m_sent; }
    uint64_t received() const { return m_received; }
    uint64_t tx_stalls() const { return m_stalls; }      // TX_KEY writes that found the FIFO full
    uint64_t tx_stall_ps() const { return m_stall_ps; }  // time those writes waited
    uint64_t rx_overflows() const { return m_overflows; }

    void write_summary() override;

protected:
    void b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay) override;

private:
    struct Packet {
        uint32_t key = 0, payload = 0, ctrl = 0;  // mc_packet.h words
    };
    struct Arrival {
        uint64_t t_ps = 0;
        Packet pkt;
    };

    void input_granted() override;
    // Sends TX FIFO packets while the router grants slots; false with `why` if a write failed.
    bool pump(std::string& why);
    bool send_head(std::string& why);
    void rx_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay);
    void deliver();  // moves packets whose arrival time has come into the RX FIFO
    uint32_t read_rx_key();
    void update_tx_status();
    void update_rx_outputs();

    CommsParams m_p;
    uint32_t m_index = 0;
    McRouterIf* m_router = nullptr;

    // TX: latch, FIFO ring, the pending grant, the reusable NoC transaction.
    uint32_t m_payload = 0;
    bool m_payload_latched = false;
    std::vector<Packet> m_tx;
    uint32_t m_tx_head = 0, m_tx_count = 0;
    bool m_waiting_grant = false;
    sc_core::sc_event m_tx_freed;
    tlm::tlm_generic_payload m_txp;
    BusErrorExt m_txerr;
    uint32_t m_txbuf[3] = {};

    // RX: copies in flight (ordered by arrival time; at most rx_fifo_depth with credits) and
    // the FIFO ring.
    std::vector<Arrival> m_in_flight;
    size_t m_in_flight_n = 0;
    std::vector<Packet> m_rx;
    uint32_t m_rx_head = 0, m_rx_count = 0;
    sc_core::sc_event m_arrival;

    uint64_t m_sent = 0, m_received = 0, m_accepted = 0, m_stalls = 0, m_stall_ps = 0;
    uint64_t m_overflows = 0;
    uint32_t m_max_tx = 0, m_max_rx = 0;
};

}  // namespace nmsim::spinnaker2
