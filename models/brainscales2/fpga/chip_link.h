// The up direction (chip -> FPGA) of the BrainScaleS-2 chip link: a FIFO in front of the link,
// packing of items into 8-byte messages and the link's serialisation. Plain C++ on integer
// picoseconds (no SystemC): the Fpga feeds it at the chip's emission times and drains the
// arrivals lazily (docs/bss2_fpga.md, "Chip link, up direction").
//
// Model. Items (spike events, MADC samples, read responses) enter the FIFO at their emission time
// t (non-decreasing). Whenever the link is free (busy-until <= now) and the FIFO is not empty, one
// message starts at S = max(busy-until, t of the FIFO head); it takes the FIFO head and the items
// behind it of the same kind that were emitted by S, up to that kind's per-message limit (spikes:
// spikes_per_message, MADC samples: madc_per_message, read responses: 1). The link is then busy
// for one message time m; every item of the message reaches the FPGA at S + m + latency. So an
// isolated event travels alone in its message, and under load events pack, which caps the rate
// at limit / m. Events and samples that find `depth` items already waiting are dropped (counted);
// read responses are never dropped (the FPGA reserves their slots when it issues the read).
#pragma once

#include <cstdint>
#include <deque>

namespace nmsim::bss2 {

class ChipUpLink {
public:
    enum class Kind : uint8_t { spike, madc, read };
    struct Item {
        uint64_t t_ps;  // emission (entering the FIFO) or, for arrivals, arrival at the FPGA
        Kind kind;
        uint64_t payload;  // spike: 16-bit event, madc: sample, read: the RSP_READ word
    };

    // message_ps: serialisation time of one message; latency_ps: one-way flight time.
    ChipUpLink(uint64_t message_ps, uint64_t latency_ps, uint32_t spikes_per_message,
               uint32_t madc_per_message, uint32_t depth);

    // Enters an item emitted at t_ps (clamped to the last emission time and to the latest
    // advance() time, so the FIFO stays in order and no decided message changes). Returns false if
    // a spike/sample was dropped because the FIFO was full.
    bool push(uint64_t t_ps, Kind kind, uint64_t payload);
    // Starts every message whose start time is < t_ps. Call with t_ps <= the current time: items
    // emitted at t_ps itself may still come and join a message starting at t_ps (so events
    // emitted at the same instant pack). Arrivals up to t_ps are then all in in_flight().
    void advance(uint64_t t_ps);
    // Messages already started, per item, in arrival order; the caller pops what it consumed.
    std::deque<Item>& in_flight() { return m_flight; }
    bool idle() const { return m_wait.empty() && m_flight.empty(); }
    // Arrival time at the FPGA of the next item not yet consumed from in_flight(), assuming no
    // further emissions (UINT64_MAX if nothing is queued or in flight).
    uint64_t next_arrival() const;

    uint64_t messages() const { return m_messages; }
    uint64_t dropped() const { return m_dropped; }
    uint64_t busy_ps() const { return m_busy_ps; }
    uint32_t queued() const { return static_cast<uint32_t>(m_wait.size()); }
    uint64_t pending() const { return m_wait.size() + m_flight.size(); }  // not yet consumed

private:
    uint32_t limit(Kind k) const;

    uint64_t m_message_ps, m_latency_ps;
    uint32_t m_spm, m_mpm, m_depth;
    uint64_t m_busy_until = 0, m_last_t = 0, m_horizon = 0;
    std::deque<Item> m_wait, m_flight;
    uint64_t m_messages = 0, m_dropped = 0, m_busy_ps = 0;
};

}  // namespace nmsim::bss2
