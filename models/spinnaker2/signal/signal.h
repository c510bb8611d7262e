// SpiNNaker2 PE-to-PE signal unit, register map and semantics in
// firmware/include/nmsim/hw/spinnaker2/signal_regs.h.
//
// Send: a write to SEND builds an 8-byte write {word, own global index} to the receiver's signal
// window (global address s2_pe_global_addr(..., S2_SIGNAL_RX_OFFSET)) and issues it on `tx`,
// which the chip binds to the PE's NoC port (addresses minus S2_EXT_BASE, as the PE DMA's `ext`).
// The NoC annotates the flight time and the receiving unit queues the word at that time; the
// sender's write itself is posted (its delay is not extended). SEND is a bus error (BusErrorExt
// names the reason) when `tx` is unbound (the PE platform has no NoC), when TARGET is not a
// global PE index (>= S2_NOC_N_PES), or when the NoC rejects the write (a QPE the chip does not
// build).
// Receive: `rx` takes the 8-byte write at offset 0 of the window; the word becomes visible at the
// annotated arrival time (sc_time_stamp() + delay) and raises `irq` (level, S2_IRQ_SIGNAL) while
// the FIFO (S2_SIGNAL_FIFO_DEPTH words) holds one. A word that finds the FIFO full is dropped and
// sets the sticky OVERFLOW bit.
#pragma once

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <systemc>
#include <tlm>

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "models/common/irq.h"
#include "models/common/peripheral.h"

namespace nmsim::spinnaker2 {

class Signal : public nmsim::Peripheral {
public:
    tlm_utils::simple_initiator_socket_optional<Signal> tx;  // to the NoC; unbound: no NoC
    tlm_utils::simple_target_socket_optional<Signal> rx;     // from the NoC: the signal window
    nmsim::IrqLine irq;                                      // S2_IRQ_SIGNAL

    Signal(sc_core::sc_module_name name, nmsim::trace::Sink* sink);

    // This PE's global index (4 * qpe_index + pe): the SELF register and the sender id of SEND.
    void set_index(uint32_t index);
    uint32_t index() const { return m_index; }

    size_t queued() const { return m_fifo.size(); }
    bool overflowed() const { return m_overflow; }
    uint64_t sent() const { return m_sent; }
    uint64_t received() const { return m_received; }
    uint64_t dropped() const { return m_dropped; }

    void write_summary() override;

protected:
    void b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay) override;

private:
    struct Word {
        uint64_t t_ps;  // arrival time
        uint32_t word, source;
    };

    // Sends `word` to TARGET; false with a reason if it cannot.
    bool send(uint32_t word, const sc_core::sc_time& delay, std::string& why);
    void rx_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay);
    void deliver();  // moves words whose arrival time has come into the FIFO
    void write_ack(uint32_t v);
    void update_outputs();

    uint32_t m_index = 0;
    std::vector<Word> m_in_flight;  // ordered by arrival time
    std::deque<Word> m_fifo;
    bool m_overflow = false;
    sc_core::sc_event m_arrival;
    uint64_t m_sent = 0, m_received = 0, m_dropped = 0;
};

}  // namespace nmsim::spinnaker2
