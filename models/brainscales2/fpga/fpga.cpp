#include "models/brainscales2/fpga/fpga.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "models/common/hex.h"
#include "models/common/sim_error.h"
#include "nmsim/hw/brainscales2/playback.h"

namespace nmsim::bss2 {

namespace {

std::string hex64(uint64_t v) { return nmsim::hex(v, 16); }

std::string hex8(uint32_t v) { return nmsim::hex(v & 0xFFu, 2); }

std::string hex24(uint32_t v) { return nmsim::hex(v, 6); }

uint64_t ps_of(double bytes, double bandwidth) {
    return static_cast<uint64_t>(std::llround(bytes * 1e12 / bandwidth));
}

const FpgaParams& checked(const FpgaParams& p, const std::string& me) {
    if (!(p.clock.hz > 0)) throw std::invalid_argument(me + ": clock must be positive");
    if (!(p.host_bandwidth.bytes_per_s > 0) || !(p.chip_link_bandwidth.bytes_per_s > 0))
        throw std::invalid_argument(me + ": link bandwidths must be positive");
    if (p.host_frame_words == 0 ||
        uint64_t{p.host_frame_words} * BSS2_PB_WORD_BYTES > p.host_frame_bytes)
        throw std::invalid_argument(me + ": host_frame_words * 8 B must fit host_frame_bytes");
    if (p.spikes_per_message < 1 || p.spikes_per_message > 3 || p.madc_samples_per_message < 1 ||
        p.madc_samples_per_message > 3)
        throw std::invalid_argument(me + ": spikes/madc per message must be 1..3");
    if (p.up_fifo_depth == 0) throw std::invalid_argument(me + ": up_fifo_depth must be positive");
    if (p.host_latency.ps < 0 || p.chip_link_latency.ps < 0 || p.t_omnibus_read.ps < 0)
        throw std::invalid_argument(me + ": latencies must not be negative");
    return p;
}

}  // namespace

Fpga::Fpga(sc_core::sc_module_name name, const FpgaParams& p)
    : sc_module(name),
      m_p(checked(p, this->name())),
      m_period(static_cast<uint64_t>(p.clock.period_ps())),
      m_msg_ps(ps_of(p.chip_message_bytes, p.chip_link_bandwidth.bytes_per_s)),
      m_chip_lat_ps(static_cast<uint64_t>(p.chip_link_latency.ps)),
      m_host_lat_ps(static_cast<uint64_t>(p.host_latency.ps)),
      m_up(m_msg_ps, m_chip_lat_ps, p.spikes_per_message, p.madc_samples_per_message,
           p.up_fifo_depth) {
    if (sc_core::sc_get_time_resolution() != sc_core::sc_time(1, sc_core::SC_PS))
        throw std::logic_error(std::string(this->name()) +
                               ": SystemC time resolution must be 1 ps");
    if (m_period == 0 || m_msg_ps == 0)
        throw std::invalid_argument(std::string(this->name()) +
                                    ": clock period and message time must be at least 1 ps");
}

uint64_t Fpga::now_ps() const { return sc_core::sc_time_stamp().value(); }

void Fpga::wait_until(uint64_t t_ps) {
    const uint64_t now = now_ps();
    if (t_ps > now) sc_core::wait(sc_core::sc_time::from_value(t_ps - now));
}

uint64_t Fpga::edge_ceil(uint64_t t_ps) const {
    return (t_ps + m_period - 1) / m_period * m_period;
}

uint64_t Fpga::host_wire_bytes(uint64_t words) const {
    const uint64_t overhead =
        m_p.host_frame_bytes - uint64_t{m_p.host_frame_words} * BSS2_PB_WORD_BYTES;
    const uint64_t full = words / m_p.host_frame_words, rest = words % m_p.host_frame_words;
    return full * m_p.host_frame_bytes + (rest ? rest * BSS2_PB_WORD_BYTES + overhead : 0);
}

uint64_t Fpga::host_transfer(uint64_t t_ps, uint64_t words, bool down) {
    const uint64_t wire = host_wire_bytes(words);
    uint64_t& busy = m_host_busy[down ? 0 : 1];
    const uint64_t start = std::max(t_ps, busy);
    busy = start + ps_of(static_cast<double>(wire), m_p.host_bandwidth.bytes_per_s);
    (down ? m_c.wire_bytes_to_fpga : m_c.wire_bytes_to_host) += wire;
    (down ? m_c.bytes_to_fpga : m_c.bytes_to_host) += words * BSS2_PB_WORD_BYTES;
    return busy + m_host_lat_ps;
}

uint64_t Fpga::send_down(uint64_t t_ps, uint64_t* arrive) {
    const uint64_t start = std::max(t_ps, m_down_busy);
    m_down_busy = start + m_msg_ps;
    *arrive = m_down_busy + m_chip_lat_ps;
    ++m_c.messages_down;
    return start;
}

void Fpga::fail(const std::string& message) {
    m_fault = message;
    throw Fault{};
}

void Fpga::fail_at(size_t index, uint64_t word, const std::string& what) {
    fail("playback instruction #" + std::to_string(index) + " (" + hex64(word) + "): " + what);
}

void Fpga::process_due(uint64_t t_ps) {
    for (;;) {
        const uint64_t td = m_departures.empty() ? UINT64_MAX : m_departures.front().t_ps;
        const uint64_t ta = m_deliveries.empty() ? UINT64_MAX : m_deliveries.front().t_ps;
        const uint64_t t = std::min(td, ta);
        if (t == UINT64_MAX || t > t_ps) return;
        wait_until(t);
        // Read responses leaving now entered the up FIFO before messages arriving now act.
        while (!m_departures.empty() && m_departures.front().t_ps == t) {
            m_up.push(t, ChipUpLink::Kind::read, m_departures.front().word);
            m_departures.pop_front();
        }
        while (!m_deliveries.empty() && m_deliveries.front().t_ps == t) {
            const Delivery d = m_deliveries.front();
            m_deliveries.pop_front();
            std::string err;
            if (!m_chip) fail_at(d.index, d.word, "no chip bound to the FPGA");
            switch (d.op) {
                case Op::write:
                    if (!m_chip->config_write(d.addr, d.data, &err))
                        fail_at(d.index, d.word,
                                "chip refused write to " + hex24(d.addr) + ": " + err);
                    break;
                case Op::read: {
                    uint32_t data = 0;
                    if (!m_chip->config_read(d.addr, &data, &err))
                        fail_at(d.index, d.word,
                                "chip refused read of " + hex24(d.addr) + ": " + err);
                    m_departures.push_back(
                        Departure{t + static_cast<uint64_t>(m_p.t_omnibus_read.ps),
                                  bss2_pb_make(BSS2_PB_RSP_READ, uint64_t{d.addr} << 32 | data)});
                    ++m_reads_outstanding;
                    break;
                }
                case Op::inject:
                    m_chip->inject(d.data);
                    ++m_c.spikes_injected;
                    break;
            }
        }
    }
}

void Fpga::on_up(uint64_t t_ps, ChipUpLink::Kind kind, uint64_t payload) {
    if (!m_up.push(t_ps, kind, payload)) ++m_c.dropped_fifo;
    process_arrivals(now_ps());
}

void Fpga::chip_event(uint32_t event16) {
    on_up(now_ps(), ChipUpLink::Kind::spike, event16 & 0xFFFFu);
}

void Fpga::chip_event_at(uint32_t event16, uint64_t t_ps) {
    on_up(std::min(t_ps, now_ps()), ChipUpLink::Kind::spike, event16 & 0xFFFFu);
}

void Fpga::chip_madc_sample(uint32_t sample) {
    on_up(now_ps(), ChipUpLink::Kind::madc, sample & 0x3FFFu);
}

void Fpga::process_arrivals(uint64_t t_ps) {
    m_up.advance(t_ps);
    auto& flight = m_up.in_flight();
    while (!flight.empty() && flight.front().t_ps <= t_ps) {
        const ChipUpLink::Item it = flight.front();
        flight.pop_front();
        if (it.kind == ChipUpLink::Kind::read) {
            m_rsp.push_back(it.payload);
            --m_reads_outstanding;
            continue;
        }
        if (!m_running || !m_recording) {
            ++m_c.unrecorded;
            continue;
        }
        if (m_rsp.size() >= m_p.response_capacity) {
            ++m_c.dropped_memory;
            continue;
        }
        // Timer at arrival; the 32-bit field wraps like the hardware timer.
        const uint32_t stamp = static_cast<uint32_t>((it.t_ps - m_t_reset) / m_period);
        if (it.kind == ChipUpLink::Kind::spike) {
            m_rsp.push_back(bss2_pb_rsp_spike(static_cast<uint32_t>(it.payload), stamp));
            ++m_c.events_recorded;
        } else {
            m_rsp.push_back(bss2_pb_rsp_madc(static_cast<uint32_t>(it.payload), stamp));
            ++m_c.madc_recorded;
        }
    }
}

std::vector<uint64_t> Fpga::execute(const std::vector<uint64_t>& program, ExecutionTiming* timing) {
    try {
        return run_program(program, timing);
    } catch (const Fault&) {
        // Unwound first, so nothing of the failed program lives on this thread's stack.
    }
    raise_sim_error(name(), m_fault);
    // The run stops at the end of this delta cycle; the host must not go on with responses
    // that do not exist.
    for (;;) sc_core::wait(m_never);
}

std::vector<uint64_t> Fpga::run_program(const std::vector<uint64_t>& program,
                                        ExecutionTiming* timing) {
    const uint64_t t_call = now_ps();
    const auto phase = [this](const std::string& name) {
        if (on_phase) on_phase(name, now_ps());
    };
    phase("program transfer");
    ++m_c.executions;
    const uint64_t t_arrive = host_transfer(t_call, program.size(), true);
    wait_until(t_arrive);
    while (m_running) sc_core::wait(m_idle);  // one program at a time (buffered behind)
    phase("configuration");
    m_running = true;
    m_recording = false;
    m_rsp.clear();
    const uint64_t dropped_before = m_c.dropped_fifo + m_c.dropped_memory;

    uint64_t e = edge_ceil(now_ps());
    m_t_reset = e;
    uint64_t runs = 0, late = 0, realtime = 0, run_start = 0, t_first_run = UINT64_MAX;
    bool halted = false;
    const uint64_t instructions_before = m_c.instructions;
    // Waits until edge e and takes in the up-link arrivals up to it (before a state change).
    auto sync = [&](uint64_t edge) {
        wait_until(edge);
        process_arrivals(edge);
    };

    for (size_t i = 0; i < program.size() && !halted; ++i) {
        const uint64_t w = program[i];
        process_due(e);
        ++m_c.instructions;  // per instruction: the energy phases read it between runs
        uint64_t next = e + m_period;
        switch (bss2_pb_opcode(w)) {
            case BSS2_PB_TIMER_RESET:
                sync(e);
                m_t_reset = e;
                break;
            case BSS2_PB_WAIT_UNTIL: {
                if ((e - m_t_reset) / m_period > 0xFFFFFFFFull)
                    fail_at(i, w,
                            "WAIT_UNTIL after the 32-bit FPGA timer overflowed (" +
                                std::to_string((e - m_t_reset) / m_period) +
                                " cycles since TIMER_RESET)");
                const uint64_t target = m_t_reset + uint64_t{bss2_pb_data(w)} * m_period;
                if (target < e + m_period) {
                    ++late;
                    ++m_c.late_waits;
                }
                next = std::max(next, target);
                break;
            }
            case BSS2_PB_WRITE:
            case BSS2_PB_READ: {
                const bool wr = bss2_pb_opcode(w) == BSS2_PB_WRITE;
                uint64_t arrive = 0;
                const uint64_t start = send_down(e, &arrive);
                m_deliveries.push_back(Delivery{arrive, wr ? Op::write : Op::read, bss2_pb_addr(w),
                                                bss2_pb_data(w), i, w});
                ++(wr ? m_c.writes : m_c.reads);
                next = edge_ceil(std::max(next, start));
                break;
            }
            case BSS2_PB_SPIKES: {
                const uint32_t n = bss2_pb_spike_count(w);
                if (n == 0) fail_at(i, w, "SPIKES with count 0 (must be 1..3)");
                uint64_t start = e;
                for (uint32_t k = 0; k < n; k += m_p.spikes_per_message) {
                    uint64_t arrive = 0;
                    start = send_down(e, &arrive);
                    for (uint32_t j = k; j < std::min(n, k + m_p.spikes_per_message); ++j)
                        m_deliveries.push_back(
                            Delivery{arrive, Op::inject, 0, bss2_pb_spike_label(w, j), i, w});
                }
                ++m_c.spike_instructions;
                next = edge_ceil(std::max(next, start));
                break;
            }
            case BSS2_PB_RUN_BEGIN:
                if (m_recording) fail_at(i, w, "RUN_BEGIN while a run is open (missing RUN_END)");
                sync(e);
                m_rsp.push_back(bss2_pb_make(BSS2_PB_RSP_RUN, bss2_pb_data(w)));
                m_recording = true;
                phase("run" + std::to_string(bss2_pb_data(w)));
                run_start = e;
                t_first_run = std::min(t_first_run, e);
                ++runs;
                break;
            case BSS2_PB_RUN_END:
                if (!m_recording) fail_at(i, w, "RUN_END without an open run");
                sync(e);
                m_recording = false;
                phase("configuration");
                realtime += e - run_start;
                break;
            case BSS2_PB_HALT:
                halted = true;
                break;
            default:
                fail_at(i, w, "unknown opcode " + hex8(bss2_pb_opcode(w)));
        }
        if (!halted) e = next;
    }
    if (!halted) {
        if (program.empty()) fail("empty playback program (no HALT)");
        fail_at(program.size() - 1, program.back(),
                "program ends without HALT (" + std::to_string(program.size()) + " words)");
    }
    // HALT at edge e: an open run ends here; outstanding chip accesses and read responses finish.
    if (m_recording) {
        sync(e);
        m_recording = false;
        realtime += e - run_start;
    }
    process_due(UINT64_MAX);
    sync(std::max(e + m_period, now_ps()));
    while (m_reads_outstanding > 0) {
        wait_until(std::max(now_ps(), m_up.next_arrival()));
        process_arrivals(now_ps());
    }
    const uint64_t t_end = now_ps();
    phase("read-back");
    const uint64_t dropped = m_c.dropped_fifo + m_c.dropped_memory - dropped_before;
    m_rsp.push_back(bss2_pb_make(BSS2_PB_RSP_HALT, std::min<uint64_t>(dropped, 0xFFFFFFFFull)));
    std::vector<uint64_t> rsp;
    rsp.swap(m_rsp);
    m_running = false;
    m_idle.notify(sc_core::SC_ZERO_TIME);

    const uint64_t t_host = host_transfer(t_end, rsp.size(), false);
    wait_until(t_host);
    phase("host");

    if (timing) {
        ExecutionTiming& tm = *timing;
        tm.host_to_fpga_ps = t_arrive - t_call;
        tm.config_ps = (runs ? t_first_run : t_end) - t_arrive;
        tm.realtime_ps = realtime;
        tm.between_ps = runs ? t_end - t_first_run - realtime : 0;
        tm.readback_ps = t_host - t_end;
        tm.total_ps = t_host - t_call;
        tm.runs = runs;
        tm.late_waits = late;
    }
    if (m_sink) {
        FpgaExecRecord r{};
        r.t_call_ps = t_call;
        r.t_program_ps = t_arrive;
        r.t_exec_end_ps = t_end;
        r.t_host_ps = t_host;
        r.realtime_ps = realtime;
        r.instructions = m_c.instructions - instructions_before;
        r.responses = rsp.size();
        r.runs = static_cast<uint32_t>(runs);
        r.dropped = static_cast<uint32_t>(std::min<uint64_t>(dropped, 0xFFFFFFFFull));
        r.component = m_comp;
        m_sink->append(m_tbl, &r);
    }
    return rsp;
}

void Fpga::attach_trace(nmsim::trace::Sink* sink) {
    m_sink = sink;
    if (!sink) return;
    m_tbl = sink->declare_table(FpgaExecRecord_schema());
    m_comp = sink->component(name());
}

void Fpga::write_summary(nmsim::trace::Sink& sink, nmsim::trace::ComponentId c) const {
    auto put = [&](const char* n, const char* unit, uint64_t v) {
        sink.counter(c, n, unit, static_cast<double>(v));
    };
    put("executions", "1", m_c.executions);
    put("instructions", "1", m_c.instructions);
    put("writes", "1", m_c.writes);
    put("reads", "1", m_c.reads);
    put("spike_instructions", "1", m_c.spike_instructions);
    put("spikes_injected", "1", m_c.spikes_injected);
    put("late_waits", "1", m_c.late_waits);
    put("events_recorded", "1", m_c.events_recorded);
    put("madc_samples_recorded", "1", m_c.madc_recorded);
    put("events_unrecorded", "1", m_c.unrecorded);
    put("events_dropped_fifo", "1", m_c.dropped_fifo);
    put("events_dropped_memory", "1", m_c.dropped_memory);
    put("chip_messages_down", "1", m_c.messages_down);
    put("chip_messages_up", "1", m_up.messages());
    put("chip_up_busy", "ps", m_up.busy_ps());
    put("up_link_pending", "1", m_up.pending());
    put("bytes_to_fpga", "B", m_c.bytes_to_fpga);
    put("bytes_to_host", "B", m_c.bytes_to_host);
    put("wire_bytes_to_fpga", "B", m_c.wire_bytes_to_fpga);
    put("wire_bytes_to_host", "B", m_c.wire_bytes_to_host);
}

}  // namespace nmsim::bss2
