// Flow control of multicast packets beside the data path. The packets themselves travel as NoC
// writes (mc_packet.h); these two interfaces stand for the NoC's back-pressure between the comms
// units and the spike router (docs/router.md, "Flow control"):
//  - a comms unit reserves a slot of the router's input queue before it sends a packet, so a
//    full input queue holds packets in the senders' TX FIFOs (and a full TX FIFO stalls the
//    core);
//  - the router sends a copy to a PE only while that PE's RX FIFO has room for it (credits:
//    copies in flight plus packets in the FIFO never exceed its depth), and a comms unit returns
//    a credit when the firmware pops a packet.
#pragma once

#include <cstdint>

namespace nmsim::spinnaker2 {

// A sender of packets to the router (a comms unit).
class McSenderIf {
public:
    virtual ~McSenderIf() = default;
    // The router has reserved an input-queue slot for this sender's next packet (the answer to
    // a request_input() that returned false). Called from the router's process.
    virtual void input_granted() = 0;
};

// The router as its senders and receivers see it.
class McRouterIf {
public:
    virtual ~McRouterIf() = default;
    // Reserves an input-queue slot for one packet of `sender` (true), or queues the request in
    // arrival order and calls sender.input_granted() once a slot is reserved for it (false). A
    // sender has at most one request queued.
    virtual bool request_input(McSenderIf& sender) = 0;
    // The comms unit of PE `pe` has popped a packet: one more RX FIFO entry is free.
    virtual void rx_freed(uint32_t pe) = 0;
};

}  // namespace nmsim::spinnaker2
