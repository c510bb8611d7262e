// FPGA playback programs (seed 004 section 3.1.3: a linear command sequence built with a builder,
// reads return future-like tickets, event data is available after execution) in the words of
// firmware/include/nmsim/hw/brainscales2/playback.h, and the decoder of the response stream.
//
// Time: the FPGA timer runs at 125 MHz (8 ns per cycle, seed 004 section 5.2.4). Times given in
// us are converted with us_to_cycles, which rounds to the NEAREST cycle (ties away from zero), so
// an input spike is injected at most 4 ns from its requested time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "firmware/include/nmsim/hw/brainscales2/playback.h"

namespace nmsim::compiler::bss2 {

// An invalid program operation or a malformed response stream.
class PlaybackError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

constexpr double kFpgaClockHz = 125e6;
constexpr double kFpgaCycleUs = 1e6 / kFpgaClockHz;  // 0.008 us

// Nearest FPGA cycle of a time in us; throws PlaybackError if negative, not finite or beyond
// the 32-bit timer.
uint32_t us_to_cycles(double us);
double cycles_to_us(uint64_t cycles);

struct ReadTicket {
    size_t index = 0;  // position among the program's reads (= among the read responses)
};

class PlaybackProgramBuilder {
public:
    void timer_reset();
    void wait_until(uint32_t cycles);
    void write(uint32_t addr, uint32_t data);  // addr: 24-bit word address
    ReadTicket read(uint32_t addr);
    // Injects 16-bit L2 events at the present timer value, packed 3 per SPIKES word.
    void spikes(const std::vector<uint32_t>& labels);
    void run_begin(uint32_t run);
    void run_end();
    void halt();  // ends the program; nothing may follow

    const std::vector<uint64_t>& words() const { return m_words; }
    size_t reads() const { return m_reads; }
    bool halted() const { return m_halted; }

private:
    void append(uint64_t w);
    std::vector<uint64_t> m_words;
    size_t m_reads = 0;
    bool m_in_run = false;
    bool m_halted = false;
};

struct RecordedSpike {
    uint32_t event = 0;   // 16-bit L2 output event
    uint32_t cycles = 0;  // FPGA timer at arrival (since the run's TIMER_RESET)
};

struct MadcSample {
    uint32_t value = 0;
    uint32_t cycles = 0;
};

struct RunResponses {
    uint32_t run = 0;
    std::vector<RecordedSpike> spikes;
    std::vector<MadcSample> madc;
};

struct ReadResponse {
    uint32_t addr = 0;
    uint32_t data = 0;
};

struct ProgramResponses {
    std::vector<RunResponses> runs;   // in arrival order
    std::vector<ReadResponse> reads;  // in ticket order
    uint32_t dropped = 0;             // events the FPGA dropped
    bool halted = false;              // the HALT response arrived

    const ReadResponse& read(ReadTicket t) const;   // throws PlaybackError if missing
    const RunResponses* run(uint32_t index) const;  // nullptr if no events header for it
};

// Throws PlaybackError for an unknown response type, events outside a run, or words after HALT.
ProgramResponses decode_responses(const std::vector<uint64_t>& responses);

}  // namespace nmsim::compiler::bss2
