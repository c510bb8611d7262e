#include "models/spinnaker2/console/console.h"

#include <algorithm>
#include <cstring>
#include <iostream>
#include <iterator>

#include "models/common/trace_records.h"
#include "nmsim/hw/spinnaker2/console_regs.h"

namespace nmsim::spinnaker2 {

namespace {

const nmsim::RegDesc kRegs[] = {S2_CONSOLE_REGS(NMSIM_REG_DESC)};
const bool kRegd = nmsim::register_reg_table("s2.console", kRegs, std::size(kRegs));

constexpr size_t kRowText = sizeof(ConsoleRecord::text);

bool utf8_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0u) == 0x80u; }

}  // namespace

Console::Console(sc_core::sc_module_name name, nmsim::trace::Sink* sink, std::string echo_prefix,
                 bool echo_stdout)
    : Peripheral(name, kRegs, std::size(kRegs), sink),
      m_prefix(std::move(echo_prefix)),
      m_echo(echo_stdout) {
    (void)kRegd;
    if (m_sink) m_tbl = m_sink->declare_table(ConsoleRecord_schema());
    m_regs.on_write(S2_CONSOLE_PUTC, [this](uint32_t v) {
        m_regs.value(S2_CONSOLE_PUTC) = v;
        put_at(static_cast<char>(v & 0xFFu), m_access_ps);
    });
    m_regs.on_write(S2_CONSOLE_MARK, [this](uint32_t v) {
        m_regs.value(S2_CONSOLE_MARK) = v;
        ++m_marks;
        if (on_mark) on_mark(v, m_access_ps);
    });
}

void Console::b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
    m_access_ps = (sc_core::sc_time_stamp() + delay).value();
    Peripheral::b_transport(p, delay);
}

void Console::putc(char c) { put_at(c, sc_core::sc_time_stamp().value()); }

void Console::put_at(char c, uint64_t t_ps) {
    if (c == '\r' || c == '\0') return;
    if (c == '\n') {
        end_line(t_ps);
        return;
    }
    m_current.push_back(c);
    ++m_chars;
    if (m_current.size() >= kMaxLineBytes) end_line(t_ps);
}

void Console::flush() {
    if (!m_current.empty()) end_line(sc_core::sc_time_stamp().value());
}

void Console::end_line(uint64_t t_ps) {
    if (m_sink) {
        size_t pos = 0;
        do {
            size_t len = std::min(kRowText, m_current.size() - pos);
            // Keep UTF-8 sequences whole: move the cut back to the start of a character.
            if (pos + len < m_current.size()) {
                size_t cut = len;
                for (int back = 0; back < 3 && cut > 0 && utf8_continuation(m_current[pos + cut]);
                     ++back)
                    --cut;
                if (cut > 0 && !utf8_continuation(m_current[pos + cut])) len = cut;
            }
            ConsoleRecord rec{};
            rec.t_ps = t_ps;
            rec.component = m_component;
            rec.continued = (pos + len < m_current.size()) ? 1 : 0;
            std::memcpy(rec.text, m_current.data() + pos, len);
            m_sink->append(m_tbl, &rec);
            pos += len;
        } while (pos < m_current.size());
    }
    if (m_echo) {
        if (m_prefix.empty())
            std::cout << m_current << std::endl;
        else
            std::cout << m_prefix << ": " << m_current << std::endl;
    }
    m_kept_bytes += m_current.size() + 1;
    m_lines.push_back(std::move(m_current));
    m_current.clear();
    while (m_kept_bytes > kRetainBytes && m_lines.size() > 1) {
        m_kept_bytes -= m_lines.front().size() + 1;
        m_lines.pop_front();
        ++m_dropped;
    }
}

std::string Console::text() const {
    std::string out;
    if (m_dropped) out = "[" + std::to_string(m_dropped) + " earlier lines not kept]\n";
    for (size_t i = 0; i < m_lines.size(); ++i) {
        if (i) out += '\n';
        out += m_lines[i];
    }
    if (!m_current.empty()) {
        if (!m_lines.empty()) out += '\n';
        out += m_current;
    }
    return out;
}

void Console::write_summary() {
    if (!m_sink) return;
    m_sink->counter(m_component, "lines", "1", static_cast<double>(m_lines.size() + m_dropped));
    m_sink->counter(m_component, "lines_dropped", "1", static_cast<double>(m_dropped));
    m_sink->counter(m_component, "chars", "1", static_cast<double>(m_chars));
    m_sink->counter(m_component, "marks", "1", static_cast<double>(m_marks));
}

}  // namespace nmsim::spinnaker2
