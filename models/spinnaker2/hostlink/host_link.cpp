#include "models/spinnaker2/hostlink/host_link.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <new>
#include <stdexcept>

#include "models/common/hex.h"
#include "models/common/peripheral.h"
#include "models/common/sim_error.h"
#include "nmsim/hw/spinnaker2/noc_map.h"
#include "nmsim/hw/spinnaker2/signal_regs.h"

namespace nmsim::spinnaker2 {

namespace {

uint64_t now_ps() { return sc_core::sc_time_stamp().value(); }

sc_core::sc_time ps(uint64_t v) { return sc_core::sc_time::from_value(v); }

std::string hex(uint64_t v) { return nmsim::hex(v, 8); }

void set_error(tlm::tlm_generic_payload& p, tlm::tlm_response_status s, const std::string& why) {
    p.set_response_status(s);
    BusErrorExt* ext = nullptr;
    p.get_extension(ext);
    if (ext) ext->why = why;
}

const HostLinkParams& checked(const HostLinkParams& p, const std::string& me) {
    if (!(p.bandwidth.bytes_per_s > 0))
        throw std::invalid_argument(me + ": bandwidth must be positive");
    if (p.packet_bytes < S2_SIGNAL_RX_BYTES)
        throw std::invalid_argument(me + ": packet_bytes must be at least 8 (one signal message)");
    if (p.buffer_size.n == 0) throw std::invalid_argument(me + ": buffer_size must be positive");
    return p;
}

}  // namespace

HostLink::HostLink(sc_core::sc_module_name name, const HostLinkParams& p, trace::Sink* sink)
    : sc_module(name),
      init("init"),
      tgt("tgt"),
      m_p(checked(p, this->name())),
      m_latency_ps(p.latency.ps),
      m_buf(static_cast<uint8_t*>(std::calloc(p.buffer_size.n ? p.buffer_size.n : 1, 1))),
      m_buf_size(p.buffer_size.n),
      m_sink(sink) {
    if (sc_core::sc_get_time_resolution() != sc_core::sc_time(1, sc_core::SC_PS))
        throw std::logic_error(std::string(this->name()) +
                               ": SystemC time resolution must be 1 ps");
    if (!m_buf) throw std::bad_alloc();
    tgt.register_b_transport(this, &HostLink::b_transport);
    tgt.register_transport_dbg(this, &HostLink::transport_dbg);
    SC_HAS_PROCESS(HostLink);
    SC_METHOD(notify_written);
    sensitive << m_wake;
    dont_initialize();
    if (m_sink) m_component = m_sink->component(this->name());
}

uint64_t HostLink::ser_ps(uint64_t bytes) const {
    return static_cast<uint64_t>(
        std::llround(static_cast<double>(bytes) * 1e12 / m_p.bandwidth.bytes_per_s));
}

uint64_t HostLink::packets_of(uint64_t bytes) const {
    return std::max<uint64_t>(1, (bytes + m_p.packet_bytes - 1) / m_p.packet_bytes);
}

uint64_t HostLink::reserve(Dir d, uint64_t t_ps, uint64_t bytes) {
    Direction& dir = m_dir[d];
    const uint64_t occupy = ser_ps(bytes);
    const uint64_t end = std::max(t_ps, dir.busy_until_ps) + occupy;
    dir.busy_until_ps = end;
    dir.busy_ps += occupy;
    dir.bytes += bytes;
    return end;
}

void HostLink::wait_until(uint64_t t_ps) {
    const uint64_t now = now_ps();
    if (t_ps > now) sc_core::wait(ps(t_ps - now));
}

void HostLink::fail(const std::string& message) {
    raise_sim_error(name(), message);
    // The run stops at the end of this delta cycle; the host program must not go on with data
    // that never arrived.
    for (;;) sc_core::wait(m_never);
}

uint64_t HostLink::issue(tlm::tlm_command cmd, uint64_t addr, uint8_t* data, size_t n,
                         size_t call_n, uint64_t call_addr) {
    tlm::tlm_generic_payload p;
    BusErrorExt ext;
    p.set_command(cmd);
    p.set_address(addr);
    p.set_data_ptr(data);
    p.set_data_length(static_cast<unsigned int>(n));
    p.set_streaming_width(static_cast<unsigned int>(n));
    p.set_byte_enable_ptr(nullptr);
    p.set_dmi_allowed(false);
    p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    p.set_extension(&ext);
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    init->b_transport(p, d);
    p.clear_extension(&ext);
    if (!p.is_response_ok()) {
        const bool rd = cmd == tlm::TLM_READ_COMMAND;
        std::string msg = std::string("host ") + (rd ? "read" : "write") + " of " +
                          std::to_string(call_n) + " bytes at " + hex(call_addr) + " failed at " +
                          hex(addr) + " (" + std::to_string(n) + "-byte packet): ";
        msg += ext.why.empty() ? p.get_response_string() : ext.why;
        fail(msg);
    }
    return d.value();
}

void HostLink::write(uint64_t global_addr, const void* data, size_t n) {
    ++m_host_writes;
    if (n == 0) return;
    const uint8_t* src = static_cast<const uint8_t*>(data);
    // The host hands the whole block to its NIC: the packets leave back to back.
    const uint64_t start = std::max(now_ps(), m_dir[kDown].busy_until_ps);
    reserve(kDown, start, n);
    m_dir[kDown].packets += packets_of(n);
    uint64_t done = 0;
    for (size_t off = 0; off < n; off += m_p.packet_bytes) {
        const size_t len = std::min<size_t>(m_p.packet_bytes, n - off);
        const uint64_t arrive = start + ser_ps(off + len) + m_latency_ps;
        wait_until(arrive);
        m_packet.assign(src + off, src + off + len);  // the target gets a buffer it may touch
        const uint64_t d =
            issue(tlm::TLM_WRITE_COMMAND, global_addr + off, m_packet.data(), len, n, global_addr);
        done = std::max(done, arrive + d);
    }
    wait_until(done);
}

void HostLink::read(uint64_t global_addr, void* data, size_t n) {
    ++m_host_reads;
    if (n == 0) return;
    uint8_t* dst = static_cast<uint8_t*>(data);
    // The request is header-only: it waits for the down direction but does not occupy it.
    wait_until(std::max(now_ps(), m_dir[kDown].busy_until_ps) + m_latency_ps);
    uint64_t last = 0;
    for (size_t off = 0; off < n; off += m_p.packet_bytes) {
        const size_t len = std::min<size_t>(m_p.packet_bytes, n - off);
        m_packet.assign(len, 0);
        const uint64_t d =
            issue(tlm::TLM_READ_COMMAND, global_addr + off, m_packet.data(), len, n, global_addr);
        std::memcpy(dst + off, m_packet.data(), len);
        wait_until(now_ps() + d);
        last = reserve(kUp, now_ps(), len);
        ++m_dir[kUp].packets;
    }
    wait_until(last + m_latency_ps);
}

void HostLink::signal(uint32_t pe, uint32_t word, uint32_t source) {
    ++m_signals;
    uint32_t qx = 0, qy = 0;
    if (pe >= S2_NOC_N_PES || !s2_qpe_coord(pe / S2_NOC_PES_PER_QPE, &qx, &qy))
        fail("host signal to PE " + std::to_string(pe) + ": not a PE index (0.." +
             std::to_string(S2_NOC_N_PES - 1) + ")");
    uint8_t msg[S2_SIGNAL_RX_BYTES];
    for (unsigned i = 0; i < 4; ++i) {
        msg[i] = static_cast<uint8_t>(word >> (8 * i));
        msg[4 + i] = static_cast<uint8_t>(source >> (8 * i));
    }
    write(s2_pe_global_addr(qx, qy, pe % S2_NOC_PES_PER_QPE, S2_SIGNAL_RX_OFFSET), msg, sizeof msg);
}

void HostLink::b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
    const uint64_t a = p.get_address();
    const uint64_t len = p.get_data_length();
    if (p.get_byte_enable_ptr()) {
        ++m_buffer_errors;
        set_error(p, tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE,
                  std::string(name()) + ": byte enables are not supported");
        return;
    }
    if (a > m_buf_size || len > m_buf_size - a) {
        ++m_buffer_errors;
        set_error(p, tlm::TLM_ADDRESS_ERROR_RESPONSE,
                  std::string(name()) + ": access to host buffer offset " + hex(a) + " (" +
                      std::to_string(len) + " bytes) outside the " + std::to_string(m_buf_size) +
                      "-byte buffer");
        return;
    }
    if (!p.is_read() && !p.is_write()) {  // TLM_IGNORE_COMMAND: nothing moves
        p.set_response_status(tlm::TLM_OK_RESPONSE);
        return;
    }
    const bool write = p.is_write();
    const uint64_t now = now_ps();
    const uint64_t t = now + delay.value();
    if (p.is_read()) {
        std::memcpy(p.get_data_ptr(), &m_buf[a], len);
        // Writes that have completed by this access's time but not yet landed (LT: the caller
        // may be ahead of sc_time_stamp()).
        for (auto it = m_pending.begin(); it != m_pending.end() && it->first.first <= t; ++it) {
            const uint64_t wa = it->second.first;
            const std::vector<uint8_t>& wd = it->second.second;
            const uint64_t lo = std::max(a, wa), hi = std::min(a + len, wa + wd.size());
            if (lo < hi) std::memcpy(p.get_data_ptr() + (lo - a), &wd[lo - wa], hi - lo);
        }
    }
    const Dir d = write ? kUp : kDown;
    const uint64_t done = reserve(d, t, len) + m_latency_ps;
    m_dir[d].packets += packets_of(len);
    delay = ps(done - now);
    if (write) {
        ++m_buffer_writes;
        const uint8_t* src = p.get_data_ptr();
        m_pending.emplace(std::make_pair(done, m_pending_seq++),
                          std::make_pair(a, std::vector<uint8_t>(src, src + len)));
        // An earlier pending wake-up wins; notify_written re-arms for the later ones.
        m_wake.notify(ps(m_pending.begin()->first.first - now));
    } else {
        ++m_buffer_reads;
    }
    p.set_response_status(tlm::TLM_OK_RESPONSE);
}

unsigned int HostLink::transport_dbg(tlm::tlm_generic_payload& p) {
    const uint64_t a = p.get_address();
    if (a >= m_buf_size) return 0;
    const unsigned len =
        static_cast<unsigned>(std::min<uint64_t>(p.get_data_length(), m_buf_size - a));
    if (p.is_read())
        std::memcpy(p.get_data_ptr(), &m_buf[a], len);
    else if (p.is_write())
        std::memcpy(&m_buf[a], p.get_data_ptr(), len);
    return len;
}

void HostLink::notify_written() {
    const uint64_t now = now_ps();
    bool due = false;
    while (!m_pending.empty() && m_pending.begin()->first.first <= now) {
        const auto& w = m_pending.begin()->second;
        std::memcpy(&m_buf[w.first], w.second.data(), w.second.size());
        m_pending.erase(m_pending.begin());
        due = true;
    }
    if (due) m_written.notify();
    if (!m_pending.empty()) m_wake.notify(ps(m_pending.begin()->first.first - now));
}

void HostLink::write_summary() {
    if (!m_sink) return;
    auto c = [&](const char* n, const char* unit, uint64_t v) {
        m_sink->counter(m_component, n, unit, static_cast<double>(v));
    };
    c("bytes_to_chip", "B", m_dir[kDown].bytes);
    c("bytes_from_chip", "B", m_dir[kUp].bytes);
    c("packets_to_chip", "1", m_dir[kDown].packets);
    c("packets_from_chip", "1", m_dir[kUp].packets);
    c("busy_ps_to_chip", "ps", m_dir[kDown].busy_ps);
    c("busy_ps_from_chip", "ps", m_dir[kUp].busy_ps);
    c("host_writes", "1", m_host_writes);
    c("host_reads", "1", m_host_reads);
    c("host_signals", "1", m_signals);
    c("buffer_writes", "1", m_buffer_writes);
    c("buffer_reads", "1", m_buffer_reads);
    c("buffer_errors", "1", m_buffer_errors);
}

}  // namespace nmsim::spinnaker2
