// The SpiNNaker2 DRAM controller: 2 LPDDR4 interfaces ("channels") in front of a sparse 2 GiB
// backing store. TLM-2.0 loosely timed: b_transport moves the data at once and annotates the
// time at which the access completes; no events, no per-beat processes. docs/dram.md has the
// model, the sources of every parameter and how calibration uses them.
//
// Addresses are offsets into the DRAM (0 .. size-1); the platform's router subtracts the base.
//
// Address map. With interleave = 0 channel k owns the contiguous range
// [k*size/channels, (k+1)*size/channels); with interleave = G > 0 consecutive G-byte chunks go to
// channels 0, 1, ..., channels-1, 0, ... Inside a channel, the channel-local address L maps to
// row-buffer index R = L / row_bytes, bank = R % banks, row = R / banks (consecutive rows go to
// consecutive banks).
//
// Timing of one request that arrives at t = sc_time_stamp() + delay (all in ps). Per channel c
// that the request touches (its bytes on c form one run of channel-local addresses):
//   accept_c = t, or, when queue_depth requests issued earlier to c are still incomplete at t,
//              the completion time of the oldest of them (the request waits for a queue slot);
//   lat_c    = t_ctrl + (read ? t_rl : t_wl) + row term of the first row the request opens on c:
//              0 on a row hit, t_rcd on a closed bank, t_rp + t_rcd on a row conflict
//              (later rows of the same request are assumed activated ahead, hidden by the data
//              transfer: consecutive rows sit in different banks);
//   xfer_c   = bursts_c * burst_bytes / (bandwidth * efficiency), bursts_c = burst_bytes-aligned
//              bursts the request's bytes touch on c (a 4-byte read costs a full burst);
//   start_c  = max(accept_c + lat_c, busy_until_c);  done_c = start_c + xfer_c;
//   busy_until_c = done_c (the channel's data bus is reserved until then).
// The request completes at max_c done_c; delay becomes that minus sc_time_stamp(). Latency
// overlaps other requests' transfers (up to queue_depth in flight); queue_depth = 1 serialises
// latency and transfer. Requests reserve in call order (LT: an initiator that is ahead in time
// can push one that calls later but is earlier behind it). Refresh is not modelled separately:
// it is part of `efficiency`.
//
// Errors: an access outside [0, size) -> TLM_ADDRESS_ERROR_RESPONSE; byte enables ->
// TLM_BYTE_ENABLE_ERROR_RESPONSE; a streaming width below the length -> TLM_BURST_ERROR_RESPONSE.
// Each fills a BusErrorExt (if attached) with a reason naming the address, moves no data and
// takes no time.
#pragma once

#include <tlm_utils/multi_passthrough_target_socket.h>
#include <systemc>
#include <tlm>

#include <cstdint>
#include <string>
#include <vector>

#include "models/common/param.h"
#include "models/spinnaker2/dram/sparse_memory.h"
#include "nmsim/trace/sink.h"

namespace nmsim::spinnaker2 {

struct DramParams {
    NMSIM_PARAMSET(DramParams);
    NMSIM_PARAM(nmsim::Bytes, size, nmsim::Bytes{uint64_t{2} << 30}, "",
                nmsim::range(1 << 20, 17179869184.0), "DRAM capacity: the address space served",
                "seed 000 sec. I ('paired with an external 2 GB DRAM'); datasheet v0.03 and TU "
                "Dresden FAQ '2 GB LPDDR4' [DS]; conflicts with SpiNNMachine max_sdram_per_chip "
                "= 1 GiB [SW] (hardware_facts.md D2)");
    NMSIM_PARAM(uint32_t, channels, 2, "interfaces", nmsim::range(1, 16),
                "LPDDR4 interfaces (channels), each with its own data bus, banks and queue",
                "datasheet v0.03: '2 LPDDR4 PHYs' [DS] (hardware_facts.md A3)");
    NMSIM_PARAM(nmsim::Bytes, interleave, nmsim::Bytes{0}, "", nmsim::range(0, 17179869184.0),
                "channel interleave granule; 0 = none: channel k owns the k-th of `channels` "
                "equal contiguous ranges",
                "secondary compilation citing the SpiNNaker2 DMA docs: 'a read may not cross an "
                "interface boundary' [2nd], i.e. interfaces own contiguous ranges");
    NMSIM_PARAM(Bandwidth, bandwidth, Bandwidth{3.2e9}, "", nmsim::range(1e6, 1e12),
                "peak data rate of one channel (data bus fully busy)",
                "16 bit x 1600 MT/s = 25.6 Gbit/s raw per interface [2nd]; equals half of "
                "'up to 6.4 GB/s sustained' for 2 PHYs [DS]; the PHY maximum 16 bit x "
                "2.4 Gbit/s = 4.8 GB/s [DS] is not reached by the 800 MHz controller [2nd]");
    NMSIM_PARAM(double, efficiency, 1.0, "1", nmsim::range(0.01, 1.0),
                "sustained fraction of `bandwidth` (refresh, turnarounds, command overhead)",
                "assumed: 1; the seed 000 calibration kept it (FC1 weight load 212 us vs 192 us "
                "measured, docs/calibration.md)");
    NMSIM_PARAM(uint32_t, burst_bytes, 32, "B", nmsim::range(1, 4096),
                "bytes per DRAM burst: the unit of transfer time (partial bursts cost a full one)",
                "LPDDR4 BL16 x 16-bit channel = 32 B (JEDEC LPDDR4; DRAMSys memspec "
                "JEDEC_1Gbx16_LPDDR4-1600: burstLength 16, width 16)");
    NMSIM_PARAM(uint32_t, banks, 8, "banks", nmsim::range(1, 64),
                "banks per channel, each with one open row",
                "LPDDR4 standard: 8 banks per channel (DRAMSys memspec "
                "JEDEC_1Gbx16_LPDDR4-1600: nbrOfBanks 8)");
    NMSIM_PARAM(nmsim::Bytes, row_bytes, nmsim::Bytes{2048}, "", nmsim::range(32, 65536),
                "row (page) size of one bank: the span of a row-buffer hit",
                "LPDDR4 x16: 1024 columns x 16 bit = 2 KiB (DRAMSys memspec "
                "JEDEC_1Gbx16_LPDDR4-1600: nbrOfColumns 1024, width 16)");
    NMSIM_PARAM(nmsim::Time, t_ctrl, nmsim::Time::from_ns(20), "", nmsim::range(0, 1e7),
                "controller and PHY pipeline latency added to every request",
                "assumed: 16 cycles of the 800 MHz controller [2nd clock]; not public");
    NMSIM_PARAM(nmsim::Time, t_rcd, nmsim::Time::from_ps(18750), "", nmsim::range(0, 1e7),
                "activate to read/write (tRCD), paid when the bank is closed or on a conflict",
                "LPDDR4-1600: RCD 15 tCK x 1.25 ns (DRAMSys memspec JEDEC_1Gbx16_LPDDR4-1600)");
    NMSIM_PARAM(nmsim::Time, t_rp, nmsim::Time::from_ps(18750), "", nmsim::range(0, 1e7),
                "precharge (tRPpb), paid on a row conflict",
                "LPDDR4-1600: RPpb 15 tCK x 1.25 ns (DRAMSys memspec JEDEC_1Gbx16_LPDDR4-1600)");
    NMSIM_PARAM(nmsim::Time, t_rl, nmsim::Time::from_ps(17500), "", nmsim::range(0, 1e7),
                "read latency: read command to first data (RL)",
                "LPDDR4-1600: RL 14 tCK x 1.25 ns (DRAMSys memspec JEDEC_1Gbx16_LPDDR4-1600)");
    NMSIM_PARAM(nmsim::Time, t_wl, nmsim::Time::from_ps(10000), "", nmsim::range(0, 1e7),
                "write latency: write command to first data (WL)",
                "LPDDR4-1600: WL 8 tCK x 1.25 ns (DRAMSys memspec JEDEC_1Gbx16_LPDDR4-1600)");
    NMSIM_PARAM(uint32_t, queue_depth, 8, "requests", nmsim::range(1, 4096),
                "requests in flight per channel; a further request waits for the oldest to end",
                "assumed: a typical controller request buffer (DRAMSys example configs use 8); "
                "not public");
    NMSIM_PARAM(nmsim::Bytes, page_bytes, nmsim::Bytes{65536}, "", nmsim::range(4096, 1 << 30),
                "host allocation granule of the sparse backing store (simulator only, no timing "
                "effect; a power of two)",
                "assumed: simulator implementation choice, small against the 1.5 GB run budget "
                "of issue 3");
};

class DramCtrl : public sc_core::sc_module {
public:
    // Several initiators (NoC ports, the host link) bind here.
    tlm_utils::multi_passthrough_target_socket<DramCtrl> tgt;

    // Throws std::logic_error (naming the module) when check_params() finds a problem.
    DramCtrl(sc_core::sc_module_name name, const DramParams& params, trace::Sink* sink = nullptr);

    // "" if the parameters describe a valid controller, else the first problem.
    static std::string check_params(const DramParams& p);

    const DramParams& params() const { return m_params; }
    // The backing store, for loaders and tests (no timing, no counters).
    SparseMemory& store() { return m_store; }
    const SparseMemory& store() const { return m_store; }
    // Channel of a DRAM address under the interleave rule.
    uint32_t channel_of(uint64_t addr) const;

    struct ChannelStats {
        uint64_t bytes_read = 0, bytes_written = 0;
        uint64_t requests = 0;     // requests (or parts of requests) served by this channel
        uint64_t activations = 0;  // rows opened (closed bank or conflict)
        uint64_t row_hits = 0;     // row segments that found their row open
        uint64_t row_conflicts = 0;
        uint64_t busy_ps = 0;        // data bus reserved for transfers
        uint64_t queue_wait_ps = 0;  // time requests waited for a queue slot
    };
    const ChannelStats& channel_stats(uint32_t c) const { return m_ch[c].stats; }
    uint64_t requests() const { return m_requests; }
    // Time of the first request (UINT64_MAX before): the interface counts as open from then on.
    uint64_t first_access_ps() const { return m_first_access_ps; }
    // Time during which at least one request was in flight (arrival to completion), up to the
    // latest completion so far; requests that arrive behind an earlier caller's window add only
    // what extends it (the LT call order).
    uint64_t in_flight_ps() const { return m_in_flight_ps; }
    uint64_t errors() const { return m_errors; }

    // Counters per channel ("ch0_bytes_read", ...) plus requests and errors.
    void write_summary();

private:
    // Completion times of the requests in flight on a channel, ascending: a ring of queue_depth
    // slots (serve() never holds more), so that a request allocates nothing.
    class InFlight {
    public:
        void reserve(size_t n) { m_t.assign(n, 0); }
        bool empty() const { return m_n == 0; }
        size_t size() const { return m_n; }
        uint64_t front() const { return m_t[m_head]; }
        void pop_front() {
            m_head = m_head + 1 == m_t.size() ? 0 : m_head + 1;
            --m_n;
        }
        void push_back(uint64_t t) {
            if (m_n == m_t.size()) grow();  // not reached: serve() keeps at most queue_depth
            const size_t i = m_head + m_n;  // < 2 * size
            m_t[i >= m_t.size() ? i - m_t.size() : i] = t;
            ++m_n;
        }
        void grow() {
            std::vector<uint64_t> t(2 * m_t.size() + 1);
            for (size_t i = 0; i < m_n; ++i) t[i] = m_t[(m_head + i) % m_t.size()];
            m_t.swap(t);
            m_head = 0;
        }

    private:
        std::vector<uint64_t> m_t;
        size_t m_head = 0, m_n = 0;
    };
    struct Channel {
        uint64_t busy_until_ps = 0;
        InFlight in_flight;
        std::vector<int64_t> open_row;   // per bank, -1 = closed
        ChannelStats stats;
    };
    // Division by a size fixed at construction (rows, banks, bursts, interleave, channels): a
    // shift and a mask when it is a power of two, as all the defaults are; a division otherwise.
    struct Divisor {
        uint64_t d = 1;
        unsigned shift = 0;
        bool pow2 = true;
        Divisor() = default;
        explicit Divisor(uint64_t v) : d(v), pow2(v != 0 && (v & (v - 1)) == 0) {
            while (pow2 && (uint64_t{1} << shift) < v) ++shift;
        }
        uint64_t div(uint64_t x) const { return pow2 ? x >> shift : x / d; }
        uint64_t mod(uint64_t x) const { return pow2 ? x & (d - 1) : x % d; }
    };
    // The bytes of one request on one channel: channel-local [local, local + len).
    struct Part {
        uint64_t local = 0, len = 0;
        bool used = false;
    };

    void b_transport(int id, tlm::tlm_generic_payload& p, sc_core::sc_time& delay);
    unsigned int transport_dbg(int id, tlm::tlm_generic_payload& p);
    void reject(tlm::tlm_generic_payload& p, tlm::tlm_response_status st, const char* what);
    // Serves one part on channel c; returns its completion time.
    uint64_t serve(uint32_t c, const Part& part, bool read, uint64_t t_arrive_ps);
    Divisor m_row, m_bank, m_burst, m_gran, m_nch;
    uint64_t m_xfer_bursts = 0, m_xfer_ps = 0;  // serve(): transfer time of the last burst count

    DramParams m_params;
    SparseMemory m_store;
    uint64_t m_granule;  // effective interleave granule
    std::vector<Channel> m_ch;
    std::vector<Part> m_parts;  // scratch, one per channel
    trace::Sink* m_sink;
    trace::ComponentId m_component = 0;
    uint64_t m_requests = 0, m_errors = 0;
    uint64_t m_first_access_ps = UINT64_MAX;
    uint64_t m_in_flight_ps = 0, m_in_flight_until_ps = 0;
};

}  // namespace nmsim::spinnaker2
