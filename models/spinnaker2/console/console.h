// SpiNNaker2 debug console (a simulator aid in the QPE register file), register map
// firmware/include/nmsim/hw/spinnaker2/console_regs.h.
//
// Each byte written to PUTC (the low 8 bits of the word) or passed to putc() is appended to the
// current line; '\n' ends the line, '\r' and NUL are ignored. An ended line becomes one or more
// rows of /events/console (ConsoleRecord), stamped with the time the line ended: lines longer
// than the 112-byte text field are split into several rows, all but the last with continued = 1,
// never inside a UTF-8 sequence. With echo_stdout each line is also printed as
// "<echo_prefix>: <line>" (just "<line>" for an empty prefix).
//
// Memory stays bounded in long runs: the model keeps only the most recent lines (kRetainBytes;
// the trace has them all), counts the others (counter lines_dropped), and ends a line that grows
// past kMaxLineBytes without a '\n' as if one had been written.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <string>

#include "models/common/peripheral.h"

namespace nmsim::spinnaker2 {

class Console : public nmsim::Peripheral {
public:
    Console(sc_core::sc_module_name name, nmsim::trace::Sink* sink, std::string echo_prefix,
            bool echo_stdout);

    // Appends one character at the current simulation time (also the core's semihosting
    // SYS_WRITEC / SYS_WRITE0 path).
    void putc(char c);
    // Ends a partial line (end of run); does nothing if the current line is empty.
    void flush();

    // Called for every MARK write with the value and the access time (ps).
    std::function<void(uint32_t value, uint64_t t_ps)> on_mark;

    static constexpr size_t kRetainBytes = 1 << 20;
    static constexpr size_t kMaxLineBytes = 64 * 1024;

    // The most recent completed lines, without their '\n' (older ones are counted, not kept).
    const std::deque<std::string>& lines() const { return m_lines; }
    uint64_t lines_dropped() const { return m_dropped; }
    // The output kept: "[N earlier lines not kept]" if any were dropped, the kept lines and a
    // pending partial line, joined with '\n'.
    std::string text() const;

    void write_summary() override;

protected:
    void b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay) override;

private:
    void put_at(char c, uint64_t t_ps);
    void end_line(uint64_t t_ps);

    std::string m_prefix;
    bool m_echo;
    nmsim::trace::TableId m_tbl = -1;
    std::string m_current;
    std::deque<std::string> m_lines;
    size_t m_kept_bytes = 0;
    uint64_t m_dropped = 0;
    uint64_t m_access_ps = 0;  // time of the bus access being served
    uint64_t m_chars = 0, m_marks = 0;
};

}  // namespace nmsim::spinnaker2
