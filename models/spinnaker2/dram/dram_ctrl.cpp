#include "models/spinnaker2/dram/dram_ctrl.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "models/common/hex.h"
#include "models/common/peripheral.h"

namespace nmsim::spinnaker2 {

namespace {}  // namespace

std::string DramCtrl::check_params(const DramParams& p) {
    if (p.channels == 0 || p.banks == 0 || p.burst_bytes == 0 || p.queue_depth == 0 ||
        p.row_bytes.n == 0)
        return "channels, banks, burst_bytes, row_bytes and queue_depth must be positive";
    if (!(p.bandwidth.bytes_per_s > 0) || !(p.efficiency > 0) || p.efficiency > 1)
        return "bandwidth must be positive and efficiency in (0, 1]";
    if (p.size.n == 0) return "size must be positive";
    if (p.interleave.n == 0 && p.size.n % p.channels != 0)
        return "size " + std::to_string(p.size.n) + " B does not split evenly over " +
               std::to_string(p.channels) + " channels (interleave 0)";
    if (p.page_bytes.n == 0 || (p.page_bytes.n & (p.page_bytes.n - 1)) != 0)
        return "page_bytes must be a power of two";
    return "";
}

namespace {

const DramParams& checked(const DramParams& p, const char* who) {
    const std::string why = DramCtrl::check_params(p);
    if (!why.empty()) throw std::logic_error(std::string(who) + ": " + why);
    return p;
}

}  // namespace

DramCtrl::DramCtrl(sc_core::sc_module_name name, const DramParams& params, trace::Sink* sink)
    : sc_module(name),
      tgt("tgt"),
      m_params(checked(params, this->name())),
      m_store(params.size.n, params.page_bytes.n),
      m_granule(params.interleave.n ? params.interleave.n : params.size.n / params.channels),
      m_sink(sink) {
    if (sc_core::sc_get_time_resolution() != sc_core::sc_time(1, sc_core::SC_PS))
        throw std::logic_error(std::string(this->name()) +
                               ": SystemC time resolution must be 1 ps");
    m_ch.resize(m_params.channels);
    for (auto& ch : m_ch) {
        ch.open_row.assign(m_params.banks, -1);
        ch.in_flight.reserve(m_params.queue_depth);
    }
    m_parts.resize(m_params.channels);
    m_row = Divisor(m_params.row_bytes.n);
    m_bank = Divisor(m_params.banks);
    m_burst = Divisor(m_params.burst_bytes);
    m_gran = Divisor(m_granule);
    m_nch = Divisor(m_params.channels);
    tgt.register_b_transport(this, &DramCtrl::b_transport);
    tgt.register_transport_dbg(this, &DramCtrl::transport_dbg);
    if (m_sink) m_component = m_sink->component(this->name());
}

uint32_t DramCtrl::channel_of(uint64_t addr) const {
    return static_cast<uint32_t>(m_nch.mod(m_gran.div(addr)));
}

void DramCtrl::reject(tlm::tlm_generic_payload& p, tlm::tlm_response_status st, const char* what) {
    ++m_errors;
    p.set_response_status(st);
    BusErrorExt* ext = nullptr;
    p.get_extension(ext);
    if (ext)
        ext->why = std::string(name()) + ": " + what + " at " + hex(p.get_address()) + " (" +
                   std::to_string(p.get_data_length()) + " B; DRAM is 0x0.." +
                   hex(m_params.size.n - 1) + ")";
}

void DramCtrl::b_transport(int, tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
    const uint64_t addr = p.get_address();
    const uint64_t len = p.get_data_length();
    if (p.get_command() == tlm::TLM_IGNORE_COMMAND) {
        p.set_response_status(tlm::TLM_OK_RESPONSE);
        return;
    }
    if (!m_store.contains(addr, len)) {
        reject(p, tlm::TLM_ADDRESS_ERROR_RESPONSE, "access outside the DRAM");
        return;
    }
    if (p.get_byte_enable_ptr()) {
        reject(p, tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE, "byte enables not supported");
        return;
    }
    if (p.get_streaming_width() < len) {
        reject(p, tlm::TLM_BURST_ERROR_RESPONSE, "streaming access not supported");
        return;
    }
    const bool read = p.is_read();
    if (read)
        m_store.read(addr, p.get_data_ptr(), len);
    else
        m_store.write(addr, p.get_data_ptr(), len);
    p.set_response_status(tlm::TLM_OK_RESPONSE);
    if (len == 0) return;
    if (m_requests++ == 0) m_first_access_ps = (sc_core::sc_time_stamp() + delay).value();

    // Split into per-channel runs of channel-local addresses (each channel's bytes are contiguous
    // there: chunks k and k + channels of the same channel are neighbours).
    for (auto& part : m_parts) part = Part{};
    const uint64_t g = m_granule, nch = m_params.channels;
    for (uint64_t a = addr, end = addr + len; a < end;) {
        const uint64_t chunk = m_gran.div(a), off = m_gran.mod(a);
        const uint64_t n = std::min(g - off, end - a);
        Part& part = m_parts[m_nch.mod(chunk)];
        if (!part.used) part = Part{m_nch.div(chunk) * g + off, 0, true};
        part.len += n;
        a += n;
    }

    const uint64_t now_ps = sc_core::sc_time_stamp().value();
    const uint64_t t_arrive = now_ps + delay.value();
    uint64_t done = t_arrive;
    for (uint32_t c = 0; c < nch; ++c)
        if (m_parts[c].used) done = std::max(done, serve(c, m_parts[c], read, t_arrive));
    const uint64_t from = std::max(t_arrive, m_in_flight_until_ps);
    if (done > from) m_in_flight_ps += done - from;
    m_in_flight_until_ps = std::max(m_in_flight_until_ps, done);
    delay = sc_core::sc_time::from_value(done - now_ps);
}

uint64_t DramCtrl::serve(uint32_t c, const Part& part, bool read, uint64_t t_arrive) {
    const DramParams& p = m_params;
    Channel& ch = m_ch[c];
    ChannelStats& st = ch.stats;

    // Queue slot: wait for the oldest request in flight when all queue_depth slots are taken.
    while (!ch.in_flight.empty() && ch.in_flight.front() <= t_arrive) ch.in_flight.pop_front();
    uint64_t accept = t_arrive;
    if (ch.in_flight.size() >= p.queue_depth) {
        accept = ch.in_flight.front();
        while (!ch.in_flight.empty() && ch.in_flight.front() <= accept) ch.in_flight.pop_front();
    }
    st.queue_wait_ps += accept - t_arrive;

    // Row buffers: walk the rows the part touches; the first one sets the latency.
    uint64_t row_term = 0;
    const uint64_t first_r = m_row.div(part.local), last_r = m_row.div(part.local + part.len - 1);
    for (uint64_t r = first_r; r <= last_r; ++r) {
        int64_t& open = ch.open_row[m_bank.mod(r)];
        const int64_t row = static_cast<int64_t>(m_bank.div(r));
        uint64_t term = 0;
        if (open == row) {
            ++st.row_hits;
        } else {
            term = static_cast<uint64_t>(p.t_rcd.ps);
            if (open >= 0) {
                term += static_cast<uint64_t>(p.t_rp.ps);
                ++st.row_conflicts;
            }
            ++st.activations;
            open = row;
        }
        if (r == first_r) row_term = term;
    }
    const uint64_t lat =
        static_cast<uint64_t>(p.t_ctrl.ps + (read ? p.t_rl.ps : p.t_wl.ps)) + row_term;

    const uint64_t bursts = m_burst.div(part.local + part.len - 1) - m_burst.div(part.local) + 1;
    if (bursts != m_xfer_bursts) {  // requests come in runs of one size (DMA bursts)
        m_xfer_bursts = bursts;
        m_xfer_ps =
            static_cast<uint64_t>(std::llround(static_cast<double>(bursts * p.burst_bytes) * 1e12 /
                                               (p.bandwidth.bytes_per_s * p.efficiency)));
    }
    const uint64_t xfer = m_xfer_ps;

    const uint64_t start = std::max(accept + lat, ch.busy_until_ps);
    const uint64_t done = start + xfer;
    ch.busy_until_ps = done;
    ch.in_flight.push_back(done);

    ++st.requests;
    st.busy_ps += xfer;
    (read ? st.bytes_read : st.bytes_written) += part.len;
    return done;
}

unsigned int DramCtrl::transport_dbg(int, tlm::tlm_generic_payload& p) {
    const uint64_t a = p.get_address();
    if (a >= m_store.size()) return 0;
    const uint64_t len = std::min<uint64_t>(p.get_data_length(), m_store.size() - a);
    if (p.is_read())
        m_store.read(a, p.get_data_ptr(), len);
    else if (p.is_write())
        m_store.write(a, p.get_data_ptr(), len);
    else
        return 0;
    return static_cast<unsigned int>(len);
}

void DramCtrl::write_summary() {
    if (!m_sink) return;
    m_sink->counter(m_component, "requests", "1", static_cast<double>(m_requests));
    m_sink->counter(m_component, "errors", "1", static_cast<double>(m_errors));
    for (uint32_t c = 0; c < m_ch.size(); ++c) {
        const ChannelStats& s = m_ch[c].stats;
        const std::string pre = "ch" + std::to_string(c) + "_";
        m_sink->counter(m_component, pre + "bytes_read", "B", static_cast<double>(s.bytes_read));
        m_sink->counter(m_component, pre + "bytes_written", "B",
                        static_cast<double>(s.bytes_written));
        m_sink->counter(m_component, pre + "requests", "1", static_cast<double>(s.requests));
        m_sink->counter(m_component, pre + "activations", "1", static_cast<double>(s.activations));
        m_sink->counter(m_component, pre + "row_hits", "1", static_cast<double>(s.row_hits));
        m_sink->counter(m_component, pre + "row_conflicts", "1",
                        static_cast<double>(s.row_conflicts));
        m_sink->counter(m_component, pre + "busy_ps", "ps", static_cast<double>(s.busy_ps));
        m_sink->counter(m_component, pre + "queue_wait_ps", "ps",
                        static_cast<double>(s.queue_wait_ps));
    }
}

}  // namespace nmsim::spinnaker2
