// The BrainScaleS-2 FPGA: host link (Gigabit Ethernet), playback-program executor and chip link
// (docs/bss2_fpga.md has the model with worked numbers). Instruction and response words:
// firmware/include/nmsim/hw/brainscales2/playback.h.
//
// Flow of one execute() (called from the host program's SC_THREAD at t0):
//  1. Host link down: the program's 8-byte words travel in Ethernet frames of host_frame_words
//     words, each frame host_frame_bytes on the wire (a last, shorter frame keeps the same
//     per-frame overhead). The down direction is reserved from S = max(t0, busy-until) for
//     wire_bytes / host_bandwidth; the program has arrived host_latency after the last byte.
//  2. The FPGA buffers the whole program, then executes it from the first clock edge at or after
//     its arrival (and after any previous program has finished): at most one instruction per
//     FPGA clock. The timer is 0 at the first edge. Semantics per instruction (issued at edge E,
//     period P, timer = (t - t_reset) / P):
//       TIMER_RESET  t_reset := E. Next instruction at E + P.
//       WAIT_UNTIL v next instruction at max(E + P, t_reset + v P): the instruction after the
//                    wait issues at timer == v unless the wait is "late" (t_reset + v P < E + P,
//                    counted, no stall). Error if the 32-bit timer has wrapped (timer > 2^32-1).
//       WRITE/READ   one message down the chip link; SPIKES ceil(count / spikes_per_message)
//                    messages, labels in order, spikes_per_message per message. A message starts
//                    at S = max(E, down busy-until), occupies the link for message time m =
//                    chip_message_bytes / chip_link_bandwidth and reaches the chip at
//                    A = S + m + chip_link_latency. The link has a one-message transmit buffer:
//                    the next instruction issues at the first edge >= max(E + P, S_last) (S_last:
//                    start of the instruction's last message), so a saturated link stalls the
//                    executor and later WAIT_UNTILs run late.
//                    At A (the FPGA waits in simulated time until then): WRITE calls
//                    chip->config_write, READ chip->config_read, SPIKES chip->inject for each
//                    label of that message. A read's response leaves the chip at
//                    A + t_omnibus_read and queues on the up link; its BSS2_PB_RSP_READ word is
//                    appended when it arrives at the FPGA.
//       RUN_BEGIN i  appends BSS2_PB_RSP_RUN(i) and starts recording (error if a run is open).
//       RUN_END      stops recording (error if no run is open).
//       HALT         ends the program (an open run ends here). The FPGA waits for outstanding
//                    chip accesses and read responses, then appends BSS2_PB_RSP_HALT(dropped).
//                    Words after HALT are not executed.
//  3. Host link up: the response words travel back the same way (frames, latency); execute()
//     returns when the host has them.
//
// Chip -> FPGA (chip_event, chip_madc_sample, read responses): the up direction of the chip link
// (chip_link.h: FIFO of up_fifo_depth items, packing spikes_per_message events or
// madc_samples_per_message samples per message, drops when the FIFO is full). An item is stamped
// with the timer at its arrival at the FPGA; it is recorded (RSP_SPIKE / RSP_MADC) iff it arrives
// while a run is recording (an arrival at the exact edge of RUN_BEGIN counts as before it, one at
// the edge of RUN_END as inside) and the response memory (response_capacity words) has room;
// otherwise it is counted as unrecorded or dropped. Response words are in FPGA arrival order.
//
// Errors (bad opcode, SPIKES with count 0, chip access refused, timer overflow, RUN_BEGIN/RUN_END
// out of order, no HALT) raise a simulation error naming the instruction index and the word in
// hex; execute() then never returns (the run stops).
#pragma once

#include <systemc>

#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "models/brainscales2/fpga/chip_link.h"
#include "models/common/param.h"
#include "nmsim/trace/sink.h"

namespace nmsim::bss2 {

// Implemented by the chip assembly; the FPGA drives it.
class ChipInterface {
public:
    virtual ~ChipInterface() = default;
    // Omnibus access arriving at the chip at sc_time_stamp(); false + message for an invalid
    // access.
    virtual bool config_write(uint32_t addr, uint32_t data, std::string* error) = 0;
    virtual bool config_read(uint32_t addr, uint32_t* data, std::string* error) = 0;
    // A 16-bit L2 event arriving at the chip at sc_time_stamp().
    virtual void inject(uint32_t event16) = 0;
};

struct FpgaParams {
    NMSIM_PARAMSET(FpgaParams);
    NMSIM_PARAM(nmsim::Frequency, clock, nmsim::Frequency::from_mhz(125), "",
                nmsim::range(1e6, 1e10),
                "FPGA clock: playback instruction issue (at most one per cycle) and timer tick",
                "seed 004 section 5.2.4: \"The FPGA's clock frequency is 125 MHz\"; "
                "hardware_facts.md B4 (fisch: 125 cycles/us)");
    NMSIM_PARAM(Bandwidth, host_bandwidth, Bandwidth{125e6}, "", nmsim::range(1e3, 1e12),
                "host link raw data rate per direction (full duplex)",
                "seed 004 section 5.2.3: 1 Gbit/s Ethernet (full-duplex)");
    NMSIM_PARAM(uint32_t, host_frame_bytes, 1538, "B", nmsim::range(16, 65536),
                "bytes on the wire per full Ethernet frame (payload, headers, gaps)",
                "seed 004 section 5.2.3: maximal frame size 1538 B");
    NMSIM_PARAM(uint32_t, host_frame_words, 180, "words", nmsim::range(1, 8192),
                "8-byte playback/response words carried per Ethernet frame",
                "seed 004 section 5.2.3: 1538 B frames carry 180 * 8 B words (117 MB/s expected)");
    NMSIM_PARAM(nmsim::Time, host_latency, nmsim::Time::from_us(20), "", nmsim::range(0, 1e12),
                "one-way host <-> FPGA latency (network stack, switch, FPGA transport layer), paid "
                "once by the program and once by the responses",
                "assumed: order of half a LAN round trip of a user-space transport; not public");
    NMSIM_PARAM(Bandwidth, chip_link_bandwidth, Bandwidth{1e9}, "", nmsim::range(1e3, 1e12),
                "chip link data rate per direction (full duplex)",
                "seed 004 section 3.1.1: chip-FPGA link 8 Gbit/s; seed 002 section 4.1: "
                "full-duplex 8 Gbit/s interconnects");
    NMSIM_PARAM(uint32_t, chip_message_bytes, 8, "B", nmsim::range(1, 64),
                "bytes per universal-translator (UT) message on the chip link",
                "seed 004 section 5.2.1: every UT message features a width of 8 B");
    NMSIM_PARAM(nmsim::Time, chip_link_latency, nmsim::Time::from_ns(40), "", nmsim::range(0, 1e9),
                "one-way flight time of a chip link message after its serialisation (SerDes and "
                "UT pipeline)",
                "assumed: a few FPGA cycles of serialiser/deserialiser pipeline; not public");
    NMSIM_PARAM(uint32_t, spikes_per_message, 2, "1", nmsim::range(1, 3),
                "spike labels per chip link message, for injection and for recorded events",
                "seed 004 section 5.3.2: \"sending two events per UT message\" saturates the "
                "FPGA-chip connection");
    NMSIM_PARAM(uint32_t, madc_samples_per_message, 2, "1", nmsim::range(1, 3),
                "MADC samples per up-link message",
                "assumed: as for spike events (seed 004 section 5.3.2); hxcomm packs up to 3 MADC "
                "samples per FPGA-to-host message (hardware_facts.md B2)");
    NMSIM_PARAM(nmsim::Time, t_omnibus_read, nmsim::Time::from_ns(100), "", nmsim::range(0, 1e9),
                "from a read request's arrival at the chip to its response entering the up link "
                "(on-chip Omnibus round trip)",
                "assumed: a few chip clock cycles of bus arbitration and SRAM access; the Omnibus "
                "timing is not public (hardware_facts.md S-U)");
    NMSIM_PARAM(uint32_t, up_fifo_depth, 512, "items", nmsim::range(1, 1 << 24),
                "events/samples waiting for the up link beyond which new ones are dropped",
                "assumed: one FPGA block-RAM FIFO; not public");
    NMSIM_PARAM(uint64_t, response_capacity, uint64_t{1} << 24, "words", nmsim::range(1, 1e12),
                "response words the FPGA buffers per program; recorded events beyond are dropped",
                "assumed: FPGA DRAM size is unspecified (hardware_facts.md S-B.3); 2^24 words "
                "= 128 MiB");
};

// Where the time of one execute() went. total = host_to_fpga + config + realtime + between +
// readback (exactly).
struct ExecutionTiming {
    uint64_t host_to_fpga_ps = 0;  // program transfer (call to program arrival at the FPGA)
    uint64_t config_ps = 0;    // program arrival to the first RUN_BEGIN (to execution end if none)
    uint64_t realtime_ps = 0;  // sum over runs of RUN_BEGIN..RUN_END (or HALT)
    uint64_t between_ps = 0;   // after the first RUN_BEGIN: time outside runs until execution end
    uint64_t readback_ps = 0;  // execution end to responses at the host
    uint64_t total_ps = 0;
    uint64_t runs = 0;
    uint64_t late_waits = 0;  // WAIT_UNTILs that could not hold their time
};

// One row per execute().
struct FpgaExecRecord {
    uint64_t t_call_ps;      // execute() called
    uint64_t t_program_ps;   // program arrived at the FPGA
    uint64_t t_exec_end_ps;  // execution finished (responses complete)
    uint64_t t_host_ps;      // responses at the host
    uint64_t realtime_ps;
    uint64_t instructions;  // executed, HALT included
    uint64_t responses;     // response words
    uint32_t runs;
    uint32_t dropped;
    uint16_t component;
    uint8_t pad_[6];
};
NMSIM_TRACE_TABLE(FpgaExecRecord, "events/bss2_fpga_exec", "BrainScaleS-2 FPGA playback executions",
                  NMSIM_COL(FpgaExecRecord, t_call_ps, "ps", "execute() called by the host"),
                  NMSIM_COL(FpgaExecRecord, t_program_ps, "ps", "program arrived at the FPGA"),
                  NMSIM_COL(FpgaExecRecord, t_exec_end_ps, "ps", "execution finished"),
                  NMSIM_COL(FpgaExecRecord, t_host_ps, "ps", "responses arrived at the host"),
                  NMSIM_COL(FpgaExecRecord, realtime_ps, "ps", "sum of run durations"),
                  NMSIM_COL(FpgaExecRecord, instructions, "1", "instructions executed"),
                  NMSIM_COL(FpgaExecRecord, responses, "1", "response words"),
                  NMSIM_COL(FpgaExecRecord, runs, "1", "RUN_BEGIN count"),
                  NMSIM_COL(FpgaExecRecord, dropped, "1", "events dropped (HALT word)"),
                  NMSIM_COL(FpgaExecRecord, component, "1", "component id"));

class Fpga : public sc_core::sc_module {
public:
    // Throws std::invalid_argument for parameters it cannot model and std::logic_error unless the
    // time resolution is 1 ps.
    Fpga(sc_core::sc_module_name name, const FpgaParams& p);

    void bind_chip(ChipInterface* chip) { m_chip = chip; }

    // Host side; call from an SC_THREAD. Blocks until the responses are at the host.
    std::vector<uint64_t> execute(const std::vector<uint64_t>& program,
                                  ExecutionTiming* timing = nullptr);

    // Chip -> FPGA at sc_time_stamp(): a spike leaving the chip's L2 output; an MADC sample.
    void chip_event(uint32_t event16);
    void chip_madc_sample(uint32_t sample);
    // As chip_event, emitted at t_ps <= sc_time_stamp() (a spike found inside the last neuron
    // step); clamped to the last emission time on the up link.
    void chip_event_at(uint32_t event16, uint64_t t_ps);

    void attach_trace(nmsim::trace::Sink* sink);
    void write_summary(nmsim::trace::Sink& sink, nmsim::trace::ComponentId c) const;

    const FpgaParams& params() const { return m_p; }
    uint64_t clock_period_ps() const { return m_period; }
    uint64_t message_ps() const { return m_msg_ps; }
    // Bytes on the Ethernet wire for `words` 8-byte words (frames with their overhead).
    uint64_t host_wire_bytes(uint64_t words) const;

    struct Counters {
        uint64_t executions = 0, instructions = 0, writes = 0, reads = 0, spike_instructions = 0;
        uint64_t spikes_injected = 0, messages_down = 0, late_waits = 0;
        uint64_t events_recorded = 0, madc_recorded = 0, unrecorded = 0;
        uint64_t dropped_fifo = 0, dropped_memory = 0;
        uint64_t bytes_to_fpga = 0, bytes_to_host = 0, wire_bytes_to_fpga = 0,
                 wire_bytes_to_host = 0;
    };
    const Counters& counters() const { return m_c; }
    // Called at each phase change of an execution, at the current simulated time: "program
    // transfer", "configuration" (program arrival; also between runs), "run<k>" (RUN_BEGIN k),
    // "read-back" (execution end), "host" (responses at the host). The energy accounting uses it.
    std::function<void(const std::string& phase, uint64_t t_ps)> on_phase;
    uint64_t messages_up() const { return m_up.messages(); }

private:
    enum class Op : uint8_t { write, read, inject };
    struct Delivery {  // a down-link message item reaching the chip
        uint64_t t_ps;
        Op op;
        uint32_t addr, data;  // inject: data = label
        size_t index;         // instruction index
        uint64_t word;
    };
    struct Departure {  // a read response leaving the chip
        uint64_t t_ps;
        uint64_t word;
    };

    uint64_t now_ps() const;
    void wait_until(uint64_t t_ps);
    uint64_t edge_ceil(uint64_t t_ps) const;
    // Reserves one down-link message from t_ps; returns its start, sets *arrive.
    uint64_t send_down(uint64_t t_ps, uint64_t* arrive);
    // Runs chip deliveries and read departures due by t_ps, in time order (waits for each).
    void process_due(uint64_t t_ps);
    // Classifies up-link arrivals up to t_ps (t_ps <= now).
    void process_arrivals(uint64_t t_ps);
    void on_up(uint64_t t_ps, ChipUpLink::Kind kind, uint64_t payload);
    uint64_t host_transfer(uint64_t t_ps, uint64_t words, bool down);
    std::vector<uint64_t> run_program(const std::vector<uint64_t>& program,
                                      ExecutionTiming* timing);
    // Errors unwind run_program (Fault) to execute(), which raises the simulation error.
    struct Fault {};
    [[noreturn]] void fail(const std::string& message);
    [[noreturn]] void fail_at(size_t index, uint64_t word, const std::string& what);

    FpgaParams m_p;
    uint64_t m_period, m_msg_ps, m_chip_lat_ps, m_host_lat_ps;
    ChipInterface* m_chip = nullptr;
    ChipUpLink m_up;
    uint64_t m_down_busy = 0, m_host_busy[2] = {0, 0};  // host link: 0 down, 1 up
    std::deque<Delivery> m_deliveries;
    std::deque<Departure> m_departures;
    uint64_t m_reads_outstanding = 0;

    // State of the running program.
    bool m_running = false, m_recording = false;
    uint64_t m_t_reset = 0;
    std::vector<uint64_t> m_rsp;
    sc_core::sc_event m_idle, m_never;
    std::string m_fault;

    Counters m_c;
    nmsim::trace::Sink* m_sink = nullptr;
    nmsim::trace::TableId m_tbl = -1;
    nmsim::trace::ComponentId m_comp = 0;
};

}  // namespace nmsim::bss2
