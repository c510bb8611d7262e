// The SpiNNaker2 multicast spike router: one per chip, a NoC endpoint of its own (mesh node
// (4, 3), window S2_ROUTER_GLOBAL_BASE). Register window, table layout and packet format:
// firmware/include/nmsim/hw/spinnaker2/{router_regs.h,mc_packet.h}; model, timing formula,
// parameters and assumptions: docs/router.md.
//
// Path of a packet (all times in integer ps, no per-packet allocation):
//  1. A comms unit reserves an input-queue slot (request_input) and writes the packet over the
//     NoC to the multicast input port; the packet joins the input queue at its NoC arrival time.
//     Link packets (inject()) and writes without a reserved slot take a free slot or are dropped.
//  2. Each source (PE, link) has its engine (source index mod n_engines, so that packets from
//     one source keep their order). An engine takes the oldest queued packet of its sources when
//     it has a free pipeline slot (one packet per router cycle, pipeline_stages packets deep).
//     The packet is ready pipeline_stages cycles later.
//  3. Output, in order within an engine: the first matching table entry gives the route (PEs and
//     links; a link packet without a match goes to the opposite link; a PE packet without a
//     match is dropped). Copies to the PEs of one QPE leave as one NoC multicast transaction
//     (NocMulticastExt, 4 destination bits) through the router's output port, which issues one
//     transaction per output_rate period; a copy goes only to a PE whose RX FIFO has a credit.
//     Link copies are serialised on their link (link_packet_bits at link_bandwidth). Copies
//     still blocked wait_time after the packet was ready are dropped and counted; while a packet
//     waits it holds its engine (the engine's later packets wait behind it).
// Flow control with the comms units: McRouterIf (mc_flow_if.h).
#pragma once

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <systemc>
#include <tlm>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "models/common/param.h"
#include "models/common/register_bank.h"
#include "models/spinnaker2/noc/noc.h"
#include "models/spinnaker2/router/mc_flow_if.h"
#include "models/spinnaker2/router/router_table.h"
#include "nmsim/trace/sink.h"

namespace nmsim::spinnaker2 {

struct SpikeRouterParams {
    NMSIM_PARAMSET(SpikeRouterParams);
    NMSIM_PARAM(nmsim::Frequency, clock, nmsim::Frequency::from_mhz(400), "",
                nmsim::range(1e6, 5e9), "router clock",
                "hardware_facts.md A5: the SpiNNaker router runs at 400 MHz [2nd]");
    NMSIM_PARAM(uint32_t, n_engines, 3, "1", nmsim::range(1, 16),
                "parallel routing engines; each takes one packet per router cycle",
                "hardware_facts.md A5: three parallel routing engines [2nd]; one packet per "
                "cycle each assumed (pipelined)");
    NMSIM_PARAM(uint32_t, pipeline_stages, 4, "cycles", nmsim::range(1, 64),
                "pipeline stages of an engine, one router cycle each: the latency from taking a "
                "packet to its route, and the packets an engine holds",
                "hardware_facts.md A5: TCAM lookup, priority encode, link resolution, "
                "destination lookup [2nd]; one cycle per stage assumed");
    NMSIM_PARAM(uint32_t, n_entries, 16384, "entries", nmsim::range(1, 16384),
                "routing-table entries (key, mask, route); the first match in table order wins",
                "hardware_facts.md A5: 16,384 entries (datasheet [DS], SpiNNMachine "
                "n_router_entries [SW])");
    NMSIM_PARAM(uint32_t, input_queue_depth, 16, "packets", nmsim::range(1, 4096),
                "input queue: packets accepted (in flight to the router or arrived) and not yet "
                "taken by an engine; when it is full the senders' TX FIFOs hold packets",
                "assumed: not public");
    NMSIM_PARAM(nmsim::Frequency, output_rate, nmsim::Frequency::from_mhz(300), "",
                nmsim::range(1e6, 1e11),
                "NoC transactions the output port issues per second (one per destination QPE of "
                "a packet)",
                "assumed: one 192-bit DNoC flit per NoC cycle, 300 MHz (hardware_facts.md A5 "
                "[2nd]), through the router's one modelled NoC port");
    NMSIM_PARAM(nmsim::Bandwidth, link_bandwidth, nmsim::Bandwidth{0.75e9}, "",
                nmsim::range(1e6, 1e12), "data rate of each of the 6 chip links (per direction)",
                "hardware_facts.md G: 6 Gbit/s on-board chip-to-chip links [2nd]");
    NMSIM_PARAM(uint32_t, link_packet_bits, 96, "bits", nmsim::range(1, 4096),
                "bits a packet occupies on a chip link (framing and CRC included)",
                "hardware_facts.md A5: 96-bit link packets with CRC-12 [2nd]");
    NMSIM_PARAM(nmsim::Time, wait_time, nmsim::Time::from_us(10), "", nmsim::range(0, 1e12),
                "how long a ready packet waits for blocked outputs (a full RX FIFO, a busy link) "
                "before the copies still blocked are dropped and counted",
                "assumed: SpiNNaker1 drops after a wait the host sets in router cycles "
                "(hardware_facts.md G [SW]); no SpiNNaker2 value is public");
    NMSIM_PARAM(uint32_t, drop_keys, 16, "keys", nmsim::range(0, 4096),
                "distinct dropped keys kept with a count each in the summary (the first ones "
                "seen; the rest are counted together)",
                "nmsim choice");
    NMSIM_PARAM(bool, trace_packets, false, "", nmsim::any(),
                "write one events/router_packets row per packet the router routes",
                "nmsim choice: off, the table grows with every spike");
};

// One packet a chip link sends (its sink), for tests and future neighbour chips.
struct LinkPacket {
    uint32_t link = 0;
    uint32_t key = 0, payload = 0;
    bool has_payload = false;
    uint64_t t_start_ps = 0;  // serialisation starts
    uint64_t t_end_ps = 0;    // the last bit has left
};

class SpikeRouter : public sc_core::sc_module, public McRouterIf {
public:
    // From the NoC: the router window (registers, multicast input port, table).
    tlm_utils::simple_target_socket_optional<SpikeRouter> noc_in;
    // To the NoC (global addresses): one multicast write per destination QPE.
    tlm_utils::simple_initiator_socket_optional<SpikeRouter> noc_out;

    SpikeRouter(sc_core::sc_module_name name, const SpikeRouterParams& p, nmsim::trace::Sink* sink);
    ~SpikeRouter() override;

    const SpikeRouterParams& params() const { return m_p; }

    // Wiring: PE `pe` (global index) exists, its comms RX FIFO holds rx_depth packets.
    void attach_pe(uint32_t pe, uint32_t rx_depth);
    bool pe_attached(uint32_t pe) const { return m_present.test(pe); }

    // The table: entries 0 .. n-1 valid and in this order, the rest invalid. Throws
    // std::invalid_argument naming the entry for more than n_entries entries or a route to a PE
    // that is not attached.
    void load_table(const std::vector<RouterEntry>& entries);
    RouterEntry entry(uint32_t index, bool* valid = nullptr) const;
    uint32_t valid_entries() const;

    // A packet arriving on chip link `link` (0..5) at sc_time_stamp() + delay. False (nothing
    // happens) when the input queue has no free slot; wait for input_freed() and try again.
    bool inject(uint32_t link, uint32_t key, uint32_t payload, bool has_payload,
                sc_core::sc_time delay = sc_core::SC_ZERO_TIME);
    const sc_core::sc_event& input_freed() const { return m_input_freed; }
    // Called for every packet a link sends.
    std::function<void(const LinkPacket&)> on_link_send;

    // McRouterIf
    bool request_input(McSenderIf& sender) override;
    void rx_freed(uint32_t pe) override;

    struct Counters {
        uint64_t received = 0;          // packets taken into the input queue
        uint64_t routed = 0;            // matched an entry
        uint64_t default_routed = 0;    // link packets without a match
        uint64_t delivered = 0;         // copies issued to PEs
        uint64_t dropped_no_route = 0;  // PE packets without a match
        uint64_t dropped_timeout = 0;   // packets with copies dropped after wait_time
        uint64_t dropped_copies = 0;    // copies dropped after wait_time (PEs and links)
        uint64_t dropped_input = 0;     // packets without a slot at a full input queue
        uint64_t dropped_absent = 0;    // copies to PEs that are not attached
        uint64_t processed = 0;         // packets through an engine (table lookups)
        uint64_t noc_transactions = 0;  // multicast writes issued (one per QPE and issue)
        uint64_t link_sent[S2_ROUTER_N_LINKS] = {};
        uint32_t max_queue = 0;  // input queue occupancy (arrived, not taken)
        uint64_t queue_delay_sum_ps = 0, queue_delay_max_ps = 0;  // arrival to engine
        uint64_t latency_max_ps = 0;                              // arrival to the last copy issued
        uint32_t last_drop_key = 0;
    };
    const Counters& counters() const { return m_c; }
    // The first distinct dropped keys (drop_keys of them) with their drop counts, in the order
    // first seen, and the drops of all other keys.
    const std::vector<std::pair<uint32_t, uint64_t>>& dropped_keys() const { return m_drop_keys; }
    uint64_t dropped_other_keys() const { return m_drop_other; }
    // Slots of the input queue in use (reserved, in flight, queued).
    uint32_t input_occupancy() const;

    void write_summary();

private:
    struct Pkt {
        uint32_t key = 0, payload = 0;
        uint64_t t_arrive = 0;
        uint64_t order = 0;   // arrival order at the input queue (older packets go first)
        uint16_t source = 0;  // mc_packet.h SOURCE
        bool has_payload = false;
    };
    struct Arrival {
        uint64_t t = 0, seq = 0;
        Pkt pkt;
    };
    struct Slot {
        Pkt pkt;
        uint64_t t_start = 0, t_ready = 0;
    };
    struct Engine {
        std::vector<Slot> ring;  // pipeline_stages packets, oldest (the head) first
        uint32_t head = 0, count = 0;
        uint64_t next_accept = 0;    // one accept per router cycle
        uint64_t blocked_until = 0;  // the head's copies are booked on the port/links until then
        // Output state of the head packet.
        bool started = false, waiting = false;
        RoutePes pending;
        uint8_t pending_links = 0;
        uint64_t deadline = 0, t_last = 0;
        uint32_t pe_copies = 0, dropped = 0;
        uint8_t links = 0, flags = 0;
    };
    enum DropReason : uint8_t { kNoRoute = 1, kTimeout = 2, kInputFull = 3, kNoSuchPe = 4 };

    void noc_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay);
    unsigned int noc_dbg(tlm::tlm_generic_payload& p);
    bool accept(const Pkt& pkt, uint64_t t, bool reserved);
    void step();  // the router's process: arrivals, outputs, dispatch, grants, next wake-up
    void wake_at(uint64_t t, uint64_t now);  // step() at t (or earlier)
    bool output(Engine& e, uint64_t now);    // true when the head has left
    void resolve(Engine& e, uint64_t now);
    void issue(Engine& e, uint64_t now);
    void finish_head(Engine& e, uint64_t now);
    void drop(uint64_t t, uint32_t key, uint16_t source, uint32_t copies, DropReason reason);
    void grant();
    int32_t lookup(uint32_t key);
    void table_changed();
    uint32_t free_slots() const;

    SpikeRouterParams m_p;
    uint64_t m_period_ps, m_pipe_ps, m_out_ps, m_link_ps, m_wait_ps;
    nmsim::RegisterBank m_regs;

    // Table: n_entries x 8 words as router_regs.h lays them out; a direct-mapped cache of
    // lookup results (key -> first matching entry) invalidated by every table write.
    std::vector<uint32_t> m_table;
    std::vector<uint32_t> m_active;  // valid entries in order (rebuilt after a change)
    bool m_active_dirty = true;
    struct CacheLine {
        uint32_t key = 0, gen = 0;
        int32_t index = -1;
    };
    std::vector<CacheLine> m_cache;
    uint32_t m_gen = 1;

    // Input: arrivals in flight (a min-heap by time, then order), the queue ring, reservations.
    std::vector<Arrival> m_arrivals;
    uint64_t m_seq = 0;
    std::vector<Pkt> m_queue;
    uint32_t m_q_head = 0, m_q_count = 0, m_reserved = 0;
    uint64_t m_order = 0;
    std::vector<McSenderIf*> m_waiters;  // ring of senders waiting for a slot
    uint32_t m_w_head = 0, m_w_count = 0;
    bool m_injector_waiting = false;
    sc_core::sc_event m_input_freed;

    std::vector<Engine> m_engines;
    uint32_t m_n_waiting = 0;  // engines whose head waits for a credit
    uint64_t m_port_free = 0;
    uint64_t m_link_free[S2_ROUTER_N_LINKS] = {};

    // Destinations: credits per PE, the attached PEs, each QPE's comms RX address.
    std::vector<uint32_t> m_credits;
    RoutePes m_present;
    std::vector<uint32_t> m_qpe_addr;

    // The reusable NoC transaction of the output port.
    tlm::tlm_generic_payload m_outp;
    NocMulticastExt m_mc;
    uint32_t m_outbuf[3] = {};

    sc_core::sc_event m_wake;
    uint64_t m_wake_pending = ~uint64_t{0};  // time of the pending m_wake notification
    Counters m_c;
    std::vector<std::pair<uint32_t, uint64_t>> m_drop_keys;
    uint64_t m_drop_other = 0;

    nmsim::trace::Sink* m_sink;
    nmsim::trace::ComponentId m_component = 0;
    nmsim::trace::TableId m_drop_tbl = -1, m_link_tbl = -1, m_pkt_tbl = -1;
};

}  // namespace nmsim::spinnaker2
