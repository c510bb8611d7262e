// The SpiNNaker2 host link: the host computer, its Ethernet connection and the chip's Ethernet
// bridge, seen from the data NoC's host endpoint. docs/chip.md ("Host link") has the model.
//
// Two directions through one module:
//  - host -> chip: the host program (an SC_THREAD) calls write()/read()/signal(); the bridge turns
//    every Ethernet packet into one TLM transaction on `init`, which the chip binds to the NoC's
//    in[host endpoint]. That port takes chip global addresses unchanged (noc_map.h: DRAM window,
//    PE windows including a PE's signal window, Noc::set_in_address_offset left at 0).
//  - chip -> host: the NoC's out[host endpoint] reaches `tgt`, the host-side buffer the chip sees
//    at S2_HOST_GLOBAL_BASE (address 0 on `tgt` = first byte of the buffer).
//
// Timing. The link is full duplex: each direction (down = host to chip, up = chip to host)
// carries `bandwidth` B/s and keeps the time until which it is reserved, so transfers in one
// direction serialise in call order (never reusing gaps, as the NoC) and the two directions
// overlap. L = latency (one way), ser(b) = b / bandwidth.
//  - write(addr, n) issued at t0: the n bytes leave the host as packets of packet_bytes (the last
//    one shorter), back to back: the call reserves the down direction for [S, S + ser(n)) with
//    S = max(t0, down busy-until). Packet k (bytes [o_k, o_k + b_k)) reaches the bridge at
//    a_k = S + ser(o_k + b_k) + L (all packets fly the same latency, so a call pays it once).
//    At a_k the bridge issues it on `init` (one TLM write); the NoC + target annotate d_k and the
//    packet is done at a_k + d_k. The bridge buffers packets, so the NoC/DRAM side of packet k
//    overlaps the link transfer of packet k + 1 (posted writes; the NoC queues them itself).
//    write() returns at max_k(a_k + d_k): the last byte is in its memory.
//    Uncontended: t0 + L + ser(n) + d_last, with d_last about one packet's NoC + DRAM time.
//  - read(addr, n) issued at t0: one header-only request goes down (it waits for the down
//    direction to be free, its own serialisation is neglected) and reaches the bridge at
//    R = max(t0, down busy-until) + L. The bridge then reads packet by packet on `init`, each
//    read starting when the previous one's data is back (r_0 = R, r_{k+1} = r_k + d_k); packet k
//    is sent up at u_k = max(r_k + d_k, up busy-until) for ser(b_k). read() returns when the last
//    packet has arrived, (u_last + ser(b_last)) + L. Uncontended: t0 + 2 L + d_0 + ser(n) when the
//    link is slower than the NoC (the usual case: 1 Gbit/s against 16 B per 3.3 ns).
//  - signal(pe, word, source): write() of the 8-byte {word, source} message (one packet).
//  - The chip's accesses on `tgt` (posted, LT) keep the plain host-memory semantics: an access
//    of b bytes arriving at t = sc_time_stamp() + delay reserves its data direction (up for a
//    write, down for a read) for ser(b) from max(t, busy-until) and completes L later; uncontended
//    the delay grows by L + ser(b). A write's data lands in the buffer at its completion time
//    (staged until then, so the host never sees it early) and buffer_written() is notified then
//    (once per distinct completion time); a read gets the buffer as of its own access time t
//    (staged writes completing by t included).
// Errors: a host write/read the NoC or the target rejects raises a simulation error (the first
// error stops the run) naming the address and the reason, and the call does not return. On `tgt`
// an access outside the buffer is TLM_ADDRESS_ERROR_RESPONSE, byte enables
// TLM_BYTE_ENABLE_ERROR_RESPONSE (reason in BusErrorExt if attached; no time, no data).
#pragma once

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <systemc>
#include <tlm>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "models/common/param.h"
#include "nmsim/trace/sink.h"

namespace nmsim::spinnaker2 {

struct HostLinkParams {
    NMSIM_PARAMSET(HostLinkParams);
    NMSIM_PARAM(Bandwidth, bandwidth, Bandwidth{125e6}, "", range(1e3, 1e12),
                "host link data rate per direction (full duplex)",
                "hardware_facts.md A5: 1 Gbit/s UDP Ethernet per chip [2nd]");
    NMSIM_PARAM(Time, latency, Time::from_us(20), "", range(0, 1e12),
                "one-way latency between the host and the chip's Ethernet bridge, paid once per "
                "host write, twice per host read (request and response) and once per chip access "
                "to the host buffer",
                "assumed: order of a LAN UDP round trip half; not public");
    NMSIM_PARAM(Bytes, buffer_size, Bytes{64 * 1024}, "", range(4096, 512.0 * 1024 * 1024),
                "host-side buffer the chip reaches at S2_HOST_GLOBAL_BASE (multiple of 4 KiB)",
                "assumed: simulator choice, room for result blocks; not a hardware quantity");
    NMSIM_PARAM(uint32_t, packet_bytes, 1024, "B", range(8, 65507),
                "payload per Ethernet packet; the bridge turns each into one NoC write or read",
                "assumed: the SpiNNaker2 host protocol is not public; about 1 KiB of payload fits "
                "one standard 1500-byte Ethernet frame with UDP/IP and protocol headers "
                "(SpiNNaker-style SDP/UDP host packets)");
};

class HostLink : public sc_core::sc_module {
public:
    tlm_utils::simple_initiator_socket<HostLink> init;  // host -> chip: to noc.in[host endpoint]
    tlm_utils::simple_target_socket<HostLink> tgt;      // chip -> host buffer: from noc.out[host]

    // Throws std::invalid_argument for parameters it cannot model (non-positive bandwidth, a
    // packet below 8 bytes, an empty buffer) and std::logic_error unless the time resolution is
    // 1 ps.
    HostLink(sc_core::sc_module_name name, const HostLinkParams& p, trace::Sink* sink);

    // Host side; call from an SC_THREAD only. `global_addr` is a chip global address (noc_map.h).
    // Blocking: returns when the last byte is in the chip's memory (write) / in `data` (read).
    void write(uint64_t global_addr, const void* data, size_t n);
    void read(uint64_t global_addr, void* data, size_t n);
    // Sends a PE-to-PE style signal word to PE `pe` (global index 0..151): an 8-byte write
    // {word, source} (little endian) to its signal window (signal_regs.h S2_SIGNAL_RX_OFFSET).
    void signal(uint32_t pe, uint32_t word, uint32_t source);

    // The host buffer the chip writes/reads at S2_HOST_GLOBAL_BASE (offset 0 = first byte).
    uint8_t* buffer() { return m_buf.get(); }
    size_t buffer_size() const { return m_buf_size; }
    // Notified after every chip write into the buffer, at the write's completion time (when its
    // data has landed in buffer()).
    const sc_core::sc_event& buffer_written() const { return m_written; }

    const HostLinkParams& params() const { return m_p; }
    uint64_t bytes_to_chip() const { return m_dir[kDown].bytes; }
    uint64_t bytes_from_chip() const { return m_dir[kUp].bytes; }
    uint64_t packets_to_chip() const { return m_dir[kDown].packets; }
    uint64_t packets_from_chip() const { return m_dir[kUp].packets; }
    uint64_t busy_ps_to_chip() const { return m_dir[kDown].busy_ps; }
    uint64_t busy_ps_from_chip() const { return m_dir[kUp].busy_ps; }
    uint64_t buffer_reads() const { return m_buffer_reads; }
    uint64_t buffer_writes() const { return m_buffer_writes; }

    void write_summary();  // counters via the sink

private:
    enum Dir { kDown = 0, kUp = 1 };  // down: host -> chip, up: chip -> host
    struct Direction {
        uint64_t busy_until_ps = 0;
        uint64_t bytes = 0, packets = 0, busy_ps = 0;
    };

    uint64_t ser_ps(uint64_t bytes) const;  // serialisation time of `bytes` on one direction
    uint64_t packets_of(uint64_t bytes) const;
    // Reserves direction d for `bytes` from t_ps on; returns the end of the reservation.
    uint64_t reserve(Dir d, uint64_t t_ps, uint64_t bytes);
    static void wait_until(uint64_t t_ps);
    // One transaction on `init` at sc_time_stamp(); returns the annotated delay in ps. Raises the
    // simulation error (and does not return) if it fails.
    uint64_t issue(tlm::tlm_command cmd, uint64_t addr, uint8_t* data, size_t n, size_t call_n,
                   uint64_t call_addr);
    [[noreturn]] void fail(const std::string& message);

    void b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay);
    unsigned int transport_dbg(tlm::tlm_generic_payload& p);
    void notify_written();  // SC_METHOD: lands staged writes, fires buffer_written()

    struct Free {
        void operator()(uint8_t* p) const { std::free(p); }
    };

    HostLinkParams m_p;
    uint64_t m_latency_ps;
    std::unique_ptr<uint8_t[], Free> m_buf;
    size_t m_buf_size;
    std::vector<uint8_t> m_packet;  // scratch payload of one host packet
    Direction m_dir[2];
    // Chip writes into the buffer not yet completed, by (completion time, call order): offset,
    // data.
    std::map<std::pair<uint64_t, uint64_t>, std::pair<uint64_t, std::vector<uint8_t>>> m_pending;
    uint64_t m_pending_seq = 0;
    sc_core::sc_event m_wake, m_written, m_never;
    trace::Sink* m_sink;
    trace::ComponentId m_component = 0;
    uint64_t m_host_writes = 0, m_host_reads = 0, m_signals = 0;
    uint64_t m_buffer_reads = 0, m_buffer_writes = 0, m_buffer_errors = 0;
};

}  // namespace nmsim::spinnaker2
