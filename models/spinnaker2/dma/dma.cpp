#include "models/spinnaker2/dma/dma.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <stdexcept>
#include <string>

#include "models/common/trace_records.h"
#include "nmsim/hw/spinnaker2/dma_regs.h"
#include "nmsim/hw/spinnaker2/pe_map.h"

namespace nmsim::spinnaker2 {

namespace {

const nmsim::RegDesc kRegs[] = {S2_DMA_REGS(NMSIM_REG_DESC)};
const bool kRegd = nmsim::register_reg_table("s2.dma", kRegs, std::size(kRegs));

constexpr uint64_t kExtEnd = 0xE0000000u;  // the ext window ends where the peripherals begin
constexpr uint32_t kStartBit = NM_FIELD_SET(1u, S2_DMA_CTRL_START);
constexpr uint32_t kIrqEnBit = NM_FIELD_SET(1u, S2_DMA_CTRL_IRQ_EN);

uint64_t now_ps() { return sc_core::sc_time_stamp().value(); }

}  // namespace

Dma::Dma(sc_core::sc_module_name name, const DmaParams& params, nmsim::Frequency clock,
         nmsim::Memory& sram, nmsim::trace::Sink* sink)
    : Peripheral(name, kRegs, std::size(kRegs), sink),
      ext("ext"),
      m_params(params),
      m_clock_ps(clock.hz > 0 ? static_cast<uint64_t>(clock.period_ps()) : 0),
      m_sram(sram),
      m_buf(params.burst_bytes) {
    (void)kRegd;
    const std::string me = this->name();
    if (sc_core::sc_get_time_resolution() != sc_core::sc_time(1, sc_core::SC_PS))
        throw std::logic_error(me + ": SystemC time resolution must be 1 ps");
    if (m_clock_ps == 0) throw std::logic_error(me + ": clock frequency must be positive");
    if (params.burst_bytes == 0 || params.sram_bytes_per_cycle == 0)
        throw std::logic_error(me + ": burst_bytes and sram_bytes_per_cycle must be positive");
    if (m_sink) m_tbl = m_sink->declare_table(DmaRecord_schema());

    m_regs.on_write(S2_DMA_CTRL, [this](uint32_t v) { write_ctrl(v); });
    m_regs.on_write(S2_DMA_ACK, [this](uint32_t v) { write_ack(v); });
    m_regs.on_read(S2_DMA_STATUS, [this] { return read_status(); });

    SC_THREAD(run);
}

bool Dma::classify(uint32_t addr, uint32_t len, Space& space, uint32_t& bad) const {
    const uint64_t end = static_cast<uint64_t>(addr) + len;
    uint64_t limit = 0;
    const uint32_t sram_off = addr - S2_SRAM_BASE;  // wraps to a huge value below the base
    if (sram_off < m_sram.size()) {
        space = Space::sram;
        limit = static_cast<uint64_t>(S2_SRAM_BASE) + m_sram.size();
    } else if (addr >= S2_EXT_BASE && addr < kExtEnd) {
        space = Space::ext;
        limit = kExtEnd;
    } else {
        bad = addr;
        return false;
    }
    if (end > limit) {
        bad = static_cast<uint32_t>(limit);
        return false;
    }
    return true;
}

uint64_t Dma::sram_words(uint32_t addr, uint32_t len) const {
    const uint64_t w = m_params.sram_bytes_per_cycle;
    const uint64_t first = addr / w, last = (static_cast<uint64_t>(addr) + len - 1) / w;
    return last - first + 1;
}

bool Dma::ext_access(tlm::tlm_command cmd, uint32_t addr, uint8_t* data, uint32_t len,
                     sc_core::sc_time& delay) {
    tlm::tlm_generic_payload& p = m_payload;
    p.set_command(cmd);
    p.set_address(addr - S2_EXT_BASE);
    p.set_data_ptr(data);
    p.set_data_length(len);
    p.set_streaming_width(len);
    p.set_byte_enable_ptr(nullptr);
    p.set_dmi_allowed(false);
    p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    ext->b_transport(p, delay);
    return p.is_response_ok();
}

uint32_t Dma::read_status() const {
    return NM_FIELD_SET(m_busy ? 1u : 0u, S2_DMA_STATUS_BUSY) |
           NM_FIELD_SET(m_done ? 1u : 0u, S2_DMA_STATUS_DONE) |
           NM_FIELD_SET(m_error ? 1u : 0u, S2_DMA_STATUS_ERROR);
}

void Dma::update_outputs() {
    m_regs.value(S2_DMA_STATUS) = read_status();
    m_regs.value(S2_DMA_CTRL) = m_irq_en ? kIrqEnBit : 0u;
    m_regs.value(S2_DMA_ERR_ADDR) = m_err_addr;
    irq.set(m_irq_en && (m_done || m_error));
}

void Dma::write_ctrl(uint32_t v) {
    m_irq_en = (v & kIrqEnBit) != 0;
    if (v & kStartBit) start();  // START reads back as 0 (self-clearing)
    update_outputs();
}

void Dma::write_ack(uint32_t v) {
    if (v & 1u) m_done = m_error = false;
    update_outputs();
}

void Dma::fail(uint32_t err_addr) {
    m_error = true;
    m_err_addr = err_addr;
    ++m_errors;
}

void Dma::start() {
    const uint32_t src = m_regs.value(S2_DMA_SRC);
    if (m_busy) {
        fail(src);
        return;
    }
    Job j;
    j.src = src;
    j.dst = m_regs.value(S2_DMA_DST);
    j.len = m_regs.value(S2_DMA_LEN);
    j.t_start_ps = now_ps();
    m_done = m_error = false;
    uint32_t bad = 0;
    bool ok = true;
    if (j.len == 0) {
        ok = false;
        bad = j.src;
    } else if (!classify(j.src, j.len, j.src_space, bad) ||
               !classify(j.dst, j.len, j.dst_space, bad)) {
        ok = false;
    }
    if (!ok) {
        fail(bad);
        record(j.t_start_ps, j.t_start_ps, j, 0, true);
        return;
    }
    m_job = j;
    m_busy = true;
    m_start_ev.notify(sc_core::SC_ZERO_TIME);
}

void Dma::record(uint64_t t_start_ps, uint64_t t_end_ps, const Job& j, uint32_t bytes, bool error) {
    if (!m_sink) return;
    DmaRecord r{};
    r.t_start_ps = t_start_ps;
    r.t_end_ps = t_end_ps;
    r.src = j.src;
    r.dst = j.dst;
    r.bytes = bytes;
    r.component = m_component;
    r.status = error ? 1 : 0;
    m_sink->append(m_tbl, &r);
}

void Dma::run() {
    for (;;) {
        sc_core::wait(m_start_ev);
        const Job j = m_job;
        const uint32_t burst = m_params.burst_bytes;
        const uint64_t n_bursts = (static_cast<uint64_t>(j.len) + burst - 1) / burst;
        // memmove order: copy downwards when the destination lies above an overlapping source
        const bool same_space = j.src_space == j.dst_space;
        const bool backwards =
            same_space && j.dst > j.src && static_cast<uint64_t>(j.src) + j.len > j.dst;

        sc_core::wait(sc_core::sc_time::from_value(m_params.setup_cycles * m_clock_ps));

        uint32_t moved = 0;
        bool error = false;
        for (uint64_t i = 0; i < n_bursts && !error; ++i) {
            const uint64_t k = backwards ? n_bursts - 1 - i : i;
            const uint32_t off = static_cast<uint32_t>(k * burst);
            const uint32_t n = std::min<uint32_t>(burst, j.len - off);
            const uint32_t s = j.src + off, d = j.dst + off;
            sc_core::sc_time ext_delay = sc_core::SC_ZERO_TIME;
            uint64_t local_cycles = 0;
            if (j.src_space == Space::sram) {
                std::memcpy(m_buf.data(), m_sram.data() + (s - S2_SRAM_BASE), n);
                local_cycles += sram_words(s, n);
            } else if (!ext_access(tlm::TLM_READ_COMMAND, s, m_buf.data(), n, ext_delay)) {
                fail(s);
                error = true;
            }
            if (!error && j.dst_space == Space::ext &&
                !ext_access(tlm::TLM_WRITE_COMMAND, d, m_buf.data(), n, ext_delay)) {
                fail(d);
                error = true;
            }
            if (!error && j.dst_space == Space::sram) local_cycles += sram_words(d, n);
            const sc_core::sc_time local = sc_core::sc_time::from_value(local_cycles * m_clock_ps);
            sc_core::wait(std::max(local, ext_delay));
            if (error) break;
            if (j.dst_space == Space::sram)
                std::memcpy(m_sram.data() + (d - S2_SRAM_BASE), m_buf.data(), n);
            moved += n;
        }

        const uint64_t t_end = now_ps();
        m_busy = false;
        if (!error) {
            m_done = true;
            ++m_transfers;
        }
        m_bytes += moved;
        m_busy_ps += t_end - j.t_start_ps;
        update_outputs();
        record(j.t_start_ps, t_end, j, moved, error);
    }
}

void Dma::write_summary() {
    if (!m_sink) return;
    m_sink->counter(m_component, "transfers", "1", static_cast<double>(m_transfers));
    m_sink->counter(m_component, "bytes", "B", static_cast<double>(m_bytes));
    m_sink->counter(m_component, "busy_ps", "ps", static_cast<double>(m_busy_ps));
    m_sink->counter(m_component, "errors", "1", static_cast<double>(m_errors));
}

}  // namespace nmsim::spinnaker2
