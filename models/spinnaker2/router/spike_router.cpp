#include "models/spinnaker2/router/spike_router.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <limits>
#include <stdexcept>

#include "models/common/hex.h"
#include "models/common/peripheral.h"
#include "models/common/sim_error.h"
#include "models/common/trace_records.h"
#include "nmsim/hw/spinnaker2/comms_regs.h"
#include "nmsim/hw/spinnaker2/mc_packet.h"
#include "nmsim/hw/spinnaker2/noc_map.h"

namespace nmsim::spinnaker2 {

namespace {

const nmsim::RegDesc kRegs[] = {S2_ROUTER_REGS(NMSIM_REG_DESC)};
const bool kRegd = nmsim::register_reg_table("s2.router", kRegs, std::size(kRegs));

constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();
constexpr uint32_t kCacheLines = 4096;  // power of two
constexpr uint32_t kMaxSenders = 256;
constexpr uint32_t kMaxEngines = 16;  // SpikeRouterParams::n_engines range

uint64_t now_ps() { return sc_core::sc_time_stamp().value(); }

void set_error(tlm::tlm_generic_payload& p, tlm::tlm_response_status st, const std::string& why) {
    p.set_response_status(st);
    BusErrorExt* ext = nullptr;
    p.get_extension(ext);
    if (ext) ext->why = why;
}

bool is_link(uint16_t source) {
    return source >= S2_MC_SOURCE_LINK(0) && source < S2_MC_SOURCE_LINK(S2_ROUTER_N_LINKS);
}

uint32_t popcount4(uint32_t v) { return static_cast<uint32_t>(__builtin_popcount(v & 0xFu)); }

}  // namespace

SpikeRouter::SpikeRouter(sc_core::sc_module_name name, const SpikeRouterParams& p,
                         nmsim::trace::Sink* sink)
    : sc_module(name),
      noc_in("noc_in"),
      noc_out("noc_out"),
      m_p(p),
      m_period_ps(p.clock.hz > 0 ? static_cast<uint64_t>(p.clock.period_ps()) : 0),
      m_pipe_ps(uint64_t{p.pipeline_stages} * m_period_ps),
      m_out_ps(p.output_rate.hz > 0 ? static_cast<uint64_t>(p.output_rate.period_ps()) : 0),
      m_link_ps(p.link_bandwidth.bytes_per_s > 0
                    ? static_cast<uint64_t>(std::ceil(p.link_packet_bits * 1e12 /
                                                      (8.0 * p.link_bandwidth.bytes_per_s)))
                    : 0),
      m_wait_ps(static_cast<uint64_t>(p.wait_time.ps)),
      m_regs(kRegs, std::size(kRegs), S2_ROUTER_REGS_WINDOW),
      m_table(size_t{p.n_entries} * S2_ROUTER_ENTRY_WORDS, 0u),
      m_cache(kCacheLines),
      m_queue(p.input_queue_depth),
      m_waiters(kMaxSenders, nullptr),
      m_engines(p.n_engines),
      m_credits(S2_NOC_N_PES, 0u),
      m_sink(sink) {
    (void)kRegd;
    const std::string me = this->name();
    if (sc_core::sc_get_time_resolution() != sc_core::sc_time(1, sc_core::SC_PS))
        throw std::logic_error(me + ": SystemC time resolution must be 1 ps");
    if (m_period_ps == 0 || m_out_ps == 0 || m_link_ps == 0)
        throw std::invalid_argument(me +
                                    ": clock, output_rate and link_bandwidth must be positive");
    if (p.n_entries < 1 || p.n_entries > S2_ROUTER_MAX_ENTRIES || p.n_engines < 1 ||
        p.n_engines > kMaxEngines || p.pipeline_stages < 1 || p.input_queue_depth < 1 ||
        p.wait_time.ps < 0)
        throw std::invalid_argument(me +
                                    ": n_entries must be in 1..16384 and n_engines, "
                                    "pipeline_stages and input_queue_depth positive");
    m_active.reserve(p.n_entries);
    m_arrivals.reserve(p.input_queue_depth);
    m_drop_keys.reserve(p.drop_keys);
    for (Engine& e : m_engines) e.ring.resize(p.pipeline_stages);
    for (uint32_t q = 0; q < S2_NOC_N_QPES; ++q) {
        uint32_t qx = 0, qy = 0;
        s2_qpe_coord(q, &qx, &qy);
        m_qpe_addr.push_back(s2_pe_global_addr(qx, qy, 0, S2_COMMS_RX_OFFSET));
    }

    m_regs.value(S2_ROUTER_N_ENTRIES) = p.n_entries;
    m_regs.on_read(S2_ROUTER_VALID_ENTRIES, [this] { return valid_entries(); });
    auto counter = [this](uint32_t off, const uint64_t* v) {
        m_regs.on_read(off, [v] { return static_cast<uint32_t>(*v); });
    };
    counter(S2_ROUTER_RECEIVED, &m_c.received);
    counter(S2_ROUTER_ROUTED, &m_c.routed);
    counter(S2_ROUTER_DEFAULT_ROUTED, &m_c.default_routed);
    counter(S2_ROUTER_DELIVERED, &m_c.delivered);
    counter(S2_ROUTER_DROPPED_NO_ROUTE, &m_c.dropped_no_route);
    counter(S2_ROUTER_DROPPED_TIMEOUT, &m_c.dropped_timeout);
    counter(S2_ROUTER_DROPPED_COPIES, &m_c.dropped_copies);
    counter(S2_ROUTER_DROPPED_INPUT, &m_c.dropped_input);
    for (uint32_t k = 0; k < S2_ROUTER_N_LINKS; ++k)
        counter(S2_ROUTER_LINK_SENT0 + 4 * k, &m_c.link_sent[k]);
    m_regs.on_read(S2_ROUTER_MAX_QUEUE, [this] { return m_c.max_queue; });
    m_regs.on_read(S2_ROUTER_LAST_DROP_KEY, [this] { return m_c.last_drop_key; });
    m_regs.on_write(S2_ROUTER_CLEAR, [this](uint32_t v) {
        if (NM_FIELD_GET(v, S2_ROUTER_CLEAR_TABLE)) {
            for (uint32_t i = 0; i < m_p.n_entries; ++i)
                m_table[size_t{i} * S2_ROUTER_ENTRY_WORDS + S2_ROUTER_ENTRY_CTRL] = 0;
            table_changed();
        }
        if (NM_FIELD_GET(v, S2_ROUTER_CLEAR_COUNTERS)) {
            m_c = Counters{};
            m_drop_keys.clear();
            m_drop_other = 0;
        }
    });

    noc_in.register_b_transport(this, &SpikeRouter::noc_transport);
    noc_in.register_transport_dbg(this, &SpikeRouter::noc_dbg);

    m_outp.set_command(tlm::TLM_WRITE_COMMAND);
    m_outp.set_data_ptr(reinterpret_cast<unsigned char*>(m_outbuf));
    m_outp.set_data_length(S2_MC_PKT_BYTES);
    m_outp.set_streaming_width(S2_MC_PKT_BYTES);
    m_outp.set_byte_enable_ptr(nullptr);
    m_outp.set_dmi_allowed(false);
    m_outp.set_extension(&m_mc);

    if (m_sink) {
        m_component = m_sink->component(me);
        m_drop_tbl = m_sink->declare_table(RouterDropRecord_schema());
        m_link_tbl = m_sink->declare_table(RouterLinkRecord_schema());
        if (p.trace_packets) m_pkt_tbl = m_sink->declare_table(RouterPacketRecord_schema());
    }

    SC_HAS_PROCESS(SpikeRouter);
    SC_METHOD(step);
    sensitive << m_wake;
    dont_initialize();
}

// The payload would free its extensions, which are members here.
SpikeRouter::~SpikeRouter() { m_outp.clear_extension(&m_mc); }

// --- wiring and table ------------------------------------------------------------------------

void SpikeRouter::attach_pe(uint32_t pe, uint32_t rx_depth) {
    if (pe >= S2_NOC_N_PES)
        throw std::invalid_argument(std::string(name()) + ": no PE " + std::to_string(pe));
    m_present.set(pe);
    m_credits[pe] = rx_depth;
}

void SpikeRouter::load_table(const std::vector<RouterEntry>& entries) {
    const std::string me = name();
    if (entries.size() > m_p.n_entries)
        throw std::invalid_argument(me + ": a table of " + std::to_string(entries.size()) +
                                    " entries does not fit the " + std::to_string(m_p.n_entries) +
                                    " of router.n_entries");
    for (size_t i = 0; i < entries.size(); ++i) {
        const RouterEntry& e = entries[i];
        if (e.pes.has_invalid_bits())
            throw std::invalid_argument(me + ": entry " + std::to_string(i) +
                                        " routes to a PE index above 151");
        for (uint32_t pe = 0; pe < S2_NOC_N_PES; ++pe)
            if (e.pes.test(pe) && !m_present.test(pe))
                throw std::invalid_argument(
                    me + ": entry " + std::to_string(i) + " (key " + nmsim::hex(e.key, 8) +
                    ") routes to PE " + std::to_string(pe) + ", which this chip does not build");
        if (e.links >> S2_ROUTER_N_LINKS)
            throw std::invalid_argument(me + ": entry " + std::to_string(i) +
                                        " names a link above 5");
    }
    std::fill(m_table.begin(), m_table.end(), 0u);
    for (size_t i = 0; i < entries.size(); ++i)
        encode_entry(entries[i], &m_table[i * S2_ROUTER_ENTRY_WORDS]);
    table_changed();
}

RouterEntry SpikeRouter::entry(uint32_t index, bool* valid) const {
    if (index >= m_p.n_entries)
        throw std::out_of_range(std::string(name()) + ": no entry " + std::to_string(index));
    return decode_entry(&m_table[size_t{index} * S2_ROUTER_ENTRY_WORDS], valid);
}

uint32_t SpikeRouter::valid_entries() const {
    uint32_t n = 0;
    for (uint32_t i = 0; i < m_p.n_entries; ++i)
        n += m_table[size_t{i} * S2_ROUTER_ENTRY_WORDS + S2_ROUTER_ENTRY_CTRL] >>
                 S2_ROUTER_ENTRY_CTRL_VALID_SHIFT &
             1u;
    return n;
}

void SpikeRouter::table_changed() {
    m_active_dirty = true;
    if (++m_gen == 0) {  // wrapped: clear the cache for real
        for (CacheLine& c : m_cache) c.gen = 0;
        m_gen = 1;
    }
}

int32_t SpikeRouter::lookup(uint32_t key) {
    CacheLine& c = m_cache[(key * 0x9E3779B1u) >> 20 & (kCacheLines - 1)];
    if (c.gen == m_gen && c.key == key) return c.index;
    if (m_active_dirty) {
        m_active.clear();
        for (uint32_t i = 0; i < m_p.n_entries; ++i)
            if (m_table[size_t{i} * S2_ROUTER_ENTRY_WORDS + S2_ROUTER_ENTRY_CTRL] >>
                    S2_ROUTER_ENTRY_CTRL_VALID_SHIFT &
                1u)
                m_active.push_back(i);
        m_active_dirty = false;
    }
    int32_t found = -1;
    for (uint32_t i : m_active) {
        const uint32_t* w = &m_table[size_t{i} * S2_ROUTER_ENTRY_WORDS];
        if ((key & w[S2_ROUTER_ENTRY_MASK]) == w[S2_ROUTER_ENTRY_KEY]) {
            found = static_cast<int32_t>(i);
            break;
        }
    }
    c = CacheLine{key, m_gen, found};
    return found;
}

// --- input -----------------------------------------------------------------------------------

uint32_t SpikeRouter::input_occupancy() const {
    return m_reserved + static_cast<uint32_t>(m_arrivals.size()) + m_q_count;
}

uint32_t SpikeRouter::free_slots() const {
    const uint32_t used = input_occupancy();
    return used >= m_p.input_queue_depth ? 0 : m_p.input_queue_depth - used;
}

bool SpikeRouter::request_input(McSenderIf& sender) {
    if (m_w_count == 0 && free_slots() > 0) {
        ++m_reserved;
        return true;
    }
    if (m_w_count == kMaxSenders)
        throw std::logic_error(std::string(name()) + ": more than 256 senders wait for a slot");
    m_waiters[(m_w_head + m_w_count) % kMaxSenders] = &sender;
    ++m_w_count;
    return false;
}

void SpikeRouter::grant() {
    while (m_w_count > 0 && free_slots() > 0) {
        McSenderIf* s = m_waiters[m_w_head];
        m_w_head = (m_w_head + 1) % kMaxSenders;
        --m_w_count;
        ++m_reserved;
        s->input_granted();  // may send at once and may ask again (it queues behind the others)
    }
}

void SpikeRouter::rx_freed(uint32_t pe) {
    if (pe >= S2_NOC_N_PES) return;
    ++m_credits[pe];
    if (m_n_waiting > 0) wake_at(now_ps(), now_ps());
}

bool SpikeRouter::inject(uint32_t link, uint32_t key, uint32_t payload, bool has_payload,
                         sc_core::sc_time delay) {
    if (link >= S2_ROUTER_N_LINKS)
        throw std::invalid_argument(std::string(name()) + ": no chip link " + std::to_string(link));
    if (m_w_count > 0 || free_slots() == 0) {
        m_injector_waiting = true;
        return false;
    }
    Pkt pk;
    pk.key = key;
    pk.payload = has_payload ? payload : 0u;
    pk.has_payload = has_payload;
    pk.source = static_cast<uint16_t>(S2_MC_SOURCE_LINK(link));
    return accept(pk, now_ps() + delay.value(), false);
}

bool SpikeRouter::accept(const Pkt& pkt, uint64_t t, bool reserved) {
    if (reserved && m_reserved > 0) {
        --m_reserved;
    } else if (free_slots() == 0) {
        ++m_c.dropped_input;
        drop(t, pkt.key, pkt.source, 1, kInputFull);
        return false;
    }
    const uint64_t now = now_ps();
    Arrival a;
    a.t = std::max(t, now);
    a.seq = m_seq++;
    a.pkt = pkt;
    a.pkt.t_arrive = a.t;
    m_arrivals.push_back(a);
    std::push_heap(m_arrivals.begin(), m_arrivals.end(), [](const Arrival& x, const Arrival& y) {
        return x.t != y.t ? x.t > y.t : x.seq > y.seq;
    });
    wake_at(a.t, now);
    return true;
}

void SpikeRouter::noc_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
    const uint64_t off = p.get_address();
    const uint32_t len = p.get_data_length();
    const std::string me = name();
    if (p.get_byte_enable_ptr()) {
        set_error(p, tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE, me + ": byte enables are not supported");
        return;
    }
    if (off == S2_ROUTER_MC_IN_OFFSET && p.is_write() && len == S2_MC_PKT_BYTES) {
        uint32_t w[3];
        std::memcpy(w, p.get_data_ptr(), sizeof w);
        Pkt pk;
        pk.key = w[S2_MC_PKT_KEY_WORD];
        pk.has_payload = s2_mc_ctrl_has_payload(w[S2_MC_PKT_CTRL_WORD]) != 0;
        pk.payload = pk.has_payload ? w[S2_MC_PKT_PAYLOAD_WORD] : 0u;
        pk.source = static_cast<uint16_t>(s2_mc_ctrl_source(w[S2_MC_PKT_CTRL_WORD]));
        accept(pk, now_ps() + delay.value(), s2_mc_ctrl_credit(w[S2_MC_PKT_CTRL_WORD]) != 0);
        p.set_response_status(tlm::TLM_OK_RESPONSE);  // posted: a dropped packet is not an error
        return;
    }
    if (off >= S2_ROUTER_MC_IN_OFFSET && off < S2_ROUTER_MC_IN_OFFSET + S2_ROUTER_MC_IN_WINDOW) {
        set_error(p, tlm::TLM_ADDRESS_ERROR_RESPONSE,
                  me + ": the multicast input port takes one " + std::to_string(S2_MC_PKT_BYTES) +
                      "-byte packet write at offset " + nmsim::hex(S2_ROUTER_MC_IN_OFFSET, 4));
        return;
    }
    if (len == 0 || len % 4 != 0 || off % 4 != 0) {
        set_error(p, tlm::TLM_COMMAND_ERROR_RESPONSE,
                  me + ": registers and table take aligned whole words, got " +
                      std::to_string(len) + " bytes at offset " + nmsim::hex(off, 5));
        return;
    }
    uint8_t* data = p.get_data_ptr();
    const uint64_t table_end =
        S2_ROUTER_TABLE_OFFSET + uint64_t{m_p.n_entries} * S2_ROUTER_ENTRY_BYTES;
    if (off >= S2_ROUTER_TABLE_OFFSET && off + len <= table_end) {
        uint32_t* words = &m_table[(off - S2_ROUTER_TABLE_OFFSET) / 4];
        if (p.is_write()) {
            std::memcpy(words, data, len);
            table_changed();
        } else {
            std::memcpy(data, words, len);
        }
        p.set_response_status(tlm::TLM_OK_RESPONSE);
        return;
    }
    if (off + len <= S2_ROUTER_REGS_WINDOW) {
        for (uint32_t i = 0; i < len; i += 4) {
            std::string why;
            uint32_t v = 0;
            bool ok;
            if (p.is_write()) {
                std::memcpy(&v, data + i, 4);
                ok = m_regs.write(static_cast<uint32_t>(off + i), 4, v, why);
            } else {
                ok = m_regs.read(static_cast<uint32_t>(off + i), 4, v, why);
                if (ok) std::memcpy(data + i, &v, 4);
            }
            if (!ok) {
                set_error(p, tlm::TLM_COMMAND_ERROR_RESPONSE, me + ": " + why);
                return;
            }
        }
        p.set_response_status(tlm::TLM_OK_RESPONSE);
        return;
    }
    set_error(p, tlm::TLM_ADDRESS_ERROR_RESPONSE,
              me + ": nothing at offset " + nmsim::hex(off, 5) + " (" + std::to_string(len) +
                  " bytes) of the router window (registers at 0, multicast port at 0x01000, " +
                  std::to_string(m_p.n_entries) + " table entries at 0x80000)");
}

unsigned int SpikeRouter::noc_dbg(tlm::tlm_generic_payload& p) {
    const uint64_t off = p.get_address();
    const uint32_t len = p.get_data_length();
    if (!p.is_read() || len == 0 || len % 4 != 0 || off % 4 != 0) return 0;
    const uint64_t table_end =
        S2_ROUTER_TABLE_OFFSET + uint64_t{m_p.n_entries} * S2_ROUTER_ENTRY_BYTES;
    if (off >= S2_ROUTER_TABLE_OFFSET && off + len <= table_end) {
        std::memcpy(p.get_data_ptr(), &m_table[(off - S2_ROUTER_TABLE_OFFSET) / 4], len);
        return len;
    }
    if (off + len <= S2_ROUTER_REGS_WINDOW) {
        for (uint32_t i = 0; i < len; i += 4) {
            if (!m_regs.find(static_cast<uint32_t>(off + i))) return 0;
            const uint32_t v = m_regs.value(static_cast<uint32_t>(off + i));
            std::memcpy(p.get_data_ptr() + i, &v, 4);
        }
        return len;
    }
    return 0;
}

// --- the process -----------------------------------------------------------------------------

void SpikeRouter::wake_at(uint64_t t, uint64_t now) {
    // An earlier notification replaces a pending one, a later one would be ignored: tracking
    // the pending time spares SystemC's event queue the replaced entries.
    if (t >= m_wake_pending) return;
    m_wake_pending = t;
    m_wake.notify(t > now ? sc_core::sc_time::from_value(t - now) : sc_core::SC_ZERO_TIME);
}

void SpikeRouter::step() {
    const uint64_t now = now_ps();
    m_wake_pending = kNever;  // the notification that ran this process is consumed
    const auto later = [](const Arrival& x, const Arrival& y) {
        return x.t != y.t ? x.t > y.t : x.seq > y.seq;
    };
    // 1. Arrivals whose time has come join the input queue.
    while (!m_arrivals.empty() && m_arrivals.front().t <= now) {
        std::pop_heap(m_arrivals.begin(), m_arrivals.end(), later);
        m_arrivals.back().pkt.order = m_order++;
        m_queue[(m_q_head + m_q_count) % m_p.input_queue_depth] = m_arrivals.back().pkt;
        m_arrivals.pop_back();
        ++m_q_count;
        ++m_c.received;
        m_c.max_queue = std::max(m_c.max_queue, m_q_count);
    }
    // 2. Outputs and dispatch until nothing changes at this time.
    bool freed = false;
    for (bool progress = true; progress;) {
        progress = false;
        // Ready heads in arrival order, so that the oldest packet gets a freed credit or the
        // port first; after a head has left, its engine's next packet competes again.
        for (bool left = true; left;) {
            left = false;
            Engine* ready[kMaxEngines];
            uint32_t n = 0;
            for (Engine& e : m_engines)
                if (e.count > 0 && e.ring[e.head].t_ready <= now && e.blocked_until <= now)
                    ready[n++] = &e;
            std::sort(ready, ready + n, [](const Engine* a, const Engine* b) {
                return a->ring[a->head].pkt.order < b->ring[b->head].pkt.order;
            });
            for (uint32_t i = 0; i < n && !left; ++i) left = output(*ready[i], now);
            progress |= left;
        }
        // Each source has its engine (packets from one source keep their order); the oldest
        // queued packet whose engine can take it goes first.
        for (uint32_t i = 0; i < m_q_count;) {
            const uint32_t qi = (m_q_head + i) % m_p.input_queue_depth;
            Engine& e = m_engines[m_queue[qi].source % m_p.n_engines];
            if (e.count >= m_p.pipeline_stages || e.next_accept > now || e.blocked_until > now) {
                ++i;
                continue;
            }
            Slot& s = e.ring[(e.head + e.count) % m_p.pipeline_stages];
            s.pkt = m_queue[qi];
            s.t_start = now;
            s.t_ready = now + m_pipe_ps;
            ++e.count;
            e.next_accept = now + m_period_ps;
            // Close the gap in the queue ring.
            for (uint32_t j = i; j + 1 < m_q_count; ++j)
                m_queue[(m_q_head + j) % m_p.input_queue_depth] =
                    m_queue[(m_q_head + j + 1) % m_p.input_queue_depth];
            --m_q_count;
            const uint64_t qd = now - s.pkt.t_arrive;
            m_c.queue_delay_sum_ps += qd;
            m_c.queue_delay_max_ps = std::max(m_c.queue_delay_max_ps, qd);
            freed = true;
        }
    }
    // 3. Freed input slots go to the waiting senders, in the order they asked.
    if (freed) {
        grant();
        if (m_injector_waiting && free_slots() > 0) {
            m_injector_waiting = false;
            m_input_freed.notify();
        }
    }
    // 4. The next time something is due.
    uint64_t next = kNever;
    if (!m_arrivals.empty()) next = m_arrivals.front().t;
    uint32_t wanted = 0;  // engines a queued packet waits for
    for (uint32_t i = 0; i < m_q_count; ++i)
        wanted |= 1u << (m_queue[(m_q_head + i) % m_p.input_queue_depth].source % m_p.n_engines);
    for (uint32_t k = 0; k < m_p.n_engines; ++k) {
        const Engine& e = m_engines[k];
        if (e.count > 0) {
            const Slot& h = e.ring[e.head];
            next = std::min(next, e.waiting ? e.deadline : std::max(h.t_ready, e.blocked_until));
        }
        if ((wanted >> k & 1u) && e.count < m_p.pipeline_stages)
            next = std::min(next, std::max(e.next_accept, e.blocked_until));
    }
    if (next != kNever) wake_at(next, now);
}

bool SpikeRouter::output(Engine& e, uint64_t now) {
    if (!e.started) resolve(e, now);
    if (e.started) issue(e, now);
    if (e.started && (e.pending.any() || e.pending_links)) {
        if (now < e.deadline) {
            if (!e.waiting) ++m_n_waiting;
            e.waiting = true;
            return false;
        }
        // Waited wait_time: what is still blocked is lost.
        const uint32_t n =
            e.pending.count() + popcount4(e.pending_links) + popcount4(e.pending_links >> 4);
        e.dropped += n;
        m_c.dropped_copies += n;
        ++m_c.dropped_timeout;
        drop(now, e.ring[e.head].pkt.key, e.ring[e.head].pkt.source, n, kTimeout);
        e.pending = RoutePes{};
        e.pending_links = 0;
    }
    finish_head(e, now);
    return true;
}

void SpikeRouter::resolve(Engine& e, uint64_t now) {
    const Slot& h = e.ring[e.head];
    ++m_c.processed;
    e.pending = RoutePes{};
    e.pending_links = 0;
    e.deadline = now + m_wait_ps;  // the wait starts when the packet reaches the output
    e.t_last = now;
    e.pe_copies = e.dropped = 0;
    e.links = 0;
    e.flags = h.pkt.has_payload ? 1u : 0u;
    const int32_t idx = lookup(h.pkt.key);
    if (idx < 0) {
        if (is_link(h.pkt.source)) {
            e.pending_links = static_cast<uint8_t>(
                1u << s2_router_opposite_link(h.pkt.source - S2_MC_SOURCE_LINK(0)));
            e.flags |= 2u;
            ++m_c.default_routed;
        } else {
            e.flags |= 4u;
            ++m_c.dropped_no_route;
            drop(now, h.pkt.key, h.pkt.source, 1, kNoRoute);
            return;  // not started: finish_head() pops it
        }
    } else {
        ++m_c.routed;
        const uint32_t* w = &m_table[size_t(idx) * S2_ROUTER_ENTRY_WORDS];
        uint32_t absent = 0;
        for (uint32_t i = 0; i < RoutePes::kWords; ++i) {
            const uint32_t want = w[S2_ROUTER_ENTRY_ROUTE0 + i];
            e.pending.w[i] = want & m_present.w[i];
            absent += static_cast<uint32_t>(__builtin_popcount(want & ~m_present.w[i]));
        }
        e.pending_links =
            static_cast<uint8_t>(NM_FIELD_GET(w[S2_ROUTER_ENTRY_CTRL], S2_ROUTER_ENTRY_CTRL_LINKS));
        if (absent) {
            m_c.dropped_absent += absent;
            e.dropped += absent;
            drop(now, h.pkt.key, h.pkt.source, absent, kNoSuchPe);
        }
    }
    e.started = true;
}

void SpikeRouter::issue(Engine& e, uint64_t now) {
    const Slot& h = e.ring[e.head];
    // PE copies: one multicast transaction per QPE for the PEs that have a credit.
    for (uint32_t wi = 0; wi < RoutePes::kWords; ++wi) {
        uint32_t bits = e.pending.w[wi];
        while (bits) {
            const uint32_t nib_shift = static_cast<uint32_t>(__builtin_ctz(bits)) & ~3u;
            const uint32_t q = wi * 8 + nib_shift / 4;
            const uint32_t nib = bits >> nib_shift & 0xFu;
            bits &= ~(0xFu << nib_shift);
            uint32_t mask = 0;
            for (uint32_t b = 0; b < 4; ++b)
                if ((nib >> b & 1u) && m_credits[4 * q + b] > 0) mask |= 1u << b;
            if (!mask) continue;
            const uint64_t t = std::max(now, m_port_free);
            if (t > e.deadline) continue;  // the port is booked past the wait: dropped below
            m_port_free = t + m_out_ps;
            for (uint32_t b = 0; b < 4; ++b)
                if (mask >> b & 1u) --m_credits[4 * q + b];
            e.pending.w[wi] &= ~(mask << nib_shift);
            const uint32_t n = popcount4(mask);
            e.pe_copies += n;
            m_c.delivered += n;
            ++m_c.noc_transactions;
            e.t_last = std::max(e.t_last, t);
            m_outbuf[S2_MC_PKT_KEY_WORD] = h.pkt.key;
            m_outbuf[S2_MC_PKT_PAYLOAD_WORD] = h.pkt.payload;
            m_outbuf[S2_MC_PKT_CTRL_WORD] =
                s2_mc_ctrl(h.pkt.has_payload ? 1u : 0u, 0u, h.pkt.source);
            m_mc.pe_mask = mask;
            m_outp.set_address(m_qpe_addr[q]);
            m_outp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
            sc_core::sc_time d = sc_core::sc_time::from_value(t - now);
            if (noc_out.size() == 0) {
                raise_sim_error(name(), "no NoC to deliver key " + nmsim::hex(h.pkt.key, 8));
                return;
            }
            noc_out->b_transport(m_outp, d);
            if (!m_outp.is_response_ok()) {
                BusErrorExt* x = nullptr;
                m_outp.get_extension(x);
                raise_sim_error(name(), "delivery of key " + nmsim::hex(h.pkt.key, 8) + " to QPE " +
                                            std::to_string(q) + " failed" +
                                            (x && !x->why.empty() ? ": " + x->why : ""));
                return;
            }
        }
    }
    // Link copies: serialised on their link.
    for (uint32_t k = 0; k < S2_ROUTER_N_LINKS; ++k) {
        if (!(e.pending_links >> k & 1u)) continue;
        const uint64_t t = std::max(now, m_link_free[k]);
        if (t > e.deadline) continue;  // booked past the wait: dropped by output()
        e.pending_links = static_cast<uint8_t>(e.pending_links & ~(1u << k));
        m_link_free[k] = t + m_link_ps;
        ++m_c.link_sent[k];
        e.links = static_cast<uint8_t>(e.links | (1u << k));
        e.t_last = std::max(e.t_last, t);
        LinkPacket lp{k, h.pkt.key, h.pkt.payload, h.pkt.has_payload, t, t + m_link_ps};
        if (on_link_send) on_link_send(lp);
        if (m_sink) {
            RouterLinkRecord r{};
            r.t_ps = lp.t_end_ps;
            r.key = lp.key;
            r.payload = lp.payload;
            r.component = m_component;
            r.link = static_cast<uint8_t>(k);
            r.has_payload = lp.has_payload ? 1 : 0;
            m_sink->append(m_link_tbl, &r);
        }
    }
}

void SpikeRouter::finish_head(Engine& e, uint64_t now) {
    const Slot& h = e.ring[e.head];
    if (e.waiting) {
        e.waiting = false;
        --m_n_waiting;
    }
    const uint64_t done = std::max(e.t_last, now);
    if (e.dropped > 0) e.flags |= 8u;
    if (m_pkt_tbl >= 0) {
        RouterPacketRecord r{};
        r.t_arrive_ps = h.pkt.t_arrive;
        r.t_start_ps = h.t_start;
        r.t_done_ps = done;
        r.key = h.pkt.key;
        r.source = h.pkt.source;
        r.pe_copies = static_cast<uint16_t>(e.pe_copies);
        r.component = m_component;
        r.links = e.links;
        r.flags = e.flags;
        m_sink->append(m_pkt_tbl, &r);
    }
    m_c.latency_max_ps = std::max(m_c.latency_max_ps, done - h.pkt.t_arrive);
    e.blocked_until = std::max(e.blocked_until, e.t_last);
    e.started = false;
    e.head = (e.head + 1) % m_p.pipeline_stages;
    --e.count;
}

void SpikeRouter::drop(uint64_t t, uint32_t key, uint16_t source, uint32_t copies,
                       DropReason reason) {
    m_c.last_drop_key = key;
    bool found = false;
    for (auto& [k, n] : m_drop_keys)
        if (k == key) {
            ++n;
            found = true;
            break;
        }
    if (!found) {
        if (m_drop_keys.size() < m_p.drop_keys)
            m_drop_keys.emplace_back(key, 1);
        else
            ++m_drop_other;
    }
    if (m_sink) {
        RouterDropRecord r{};
        r.t_ps = t;
        r.key = key;
        r.copies = copies;
        r.source = source;
        r.component = m_component;
        r.reason = reason;
        m_sink->append(m_drop_tbl, &r);
    }
}

void SpikeRouter::write_summary() {
    if (!m_sink) return;
    auto c = [this](const std::string& n, const char* unit, double v) {
        m_sink->counter(m_component, n, unit, v);
    };
    const auto d = [](uint64_t v) { return static_cast<double>(v); };
    c("received", "1", d(m_c.received));
    c("routed", "1", d(m_c.routed));
    c("default_routed", "1", d(m_c.default_routed));
    c("delivered", "1", d(m_c.delivered));
    c("dropped_no_route", "1", d(m_c.dropped_no_route));
    c("dropped_timeout", "1", d(m_c.dropped_timeout));
    c("dropped_copies", "1", d(m_c.dropped_copies));
    c("dropped_input", "1", d(m_c.dropped_input));
    c("dropped_absent", "1", d(m_c.dropped_absent));
    c("noc_transactions", "1", d(m_c.noc_transactions));
    c("max_queue", "1", m_c.max_queue);
    c("queue_delay_mean_ps", "ps",
      m_c.processed ? d(m_c.queue_delay_sum_ps) / d(m_c.processed) : 0.0);
    c("queue_delay_max_ps", "ps", d(m_c.queue_delay_max_ps));
    c("latency_max_ps", "ps", d(m_c.latency_max_ps));
    for (uint32_t k = 0; k < S2_ROUTER_N_LINKS; ++k)
        c("link" + std::to_string(k) + ".sent", "1", d(m_c.link_sent[k]));
    for (const auto& [key, n] : m_drop_keys) {
        char b[32];
        std::snprintf(b, sizeof b, "dropped_key.0x%08x", key);
        c(b, "1", d(n));
    }
    if (m_drop_other) c("dropped_key.other", "1", d(m_drop_other));
}

}  // namespace nmsim::spinnaker2
