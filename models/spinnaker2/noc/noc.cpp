#include "models/spinnaker2/noc/noc.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "models/common/hex.h"
#include "models/common/peripheral.h"
#include "nmsim/hw/spinnaker2/noc_map.h"

namespace nmsim::spinnaker2 {

namespace {

constexpr uint32_t kDim = S2_NOC_MESH_DIM;
constexpr uint32_t kMeshLinks = kDim * kDim * 4;
enum Dir : uint32_t { kEast = 0, kWest = 1, kNorth = 2, kSouth = 3 };
const char* const kDirName[] = {"e", "w", "n", "s"};

uint64_t now_ps() { return sc_core::sc_time_stamp().value(); }

std::string hex(uint64_t v) { return nmsim::hex(v, 8); }

}  // namespace

Noc::Noc(sc_core::sc_module_name name, const NocParams& params, nmsim::trace::Sink* sink)
    : sc_module(name),
      in("in"),
      out("out"),
      m_params(params),
      m_period_ps(params.clock.hz > 0 ? static_cast<uint64_t>(params.clock.period_ps()) : 0),
      m_n_pes(params.n_qpes * S2_NOC_PES_PER_QPE),
      m_sink(sink) {
    const std::string me = this->name();
    if (sc_core::sc_get_time_resolution() != sc_core::sc_time(1, sc_core::SC_PS))
        throw std::logic_error(me + ": SystemC time resolution must be 1 ps");
    if (m_period_ps == 0) throw std::logic_error(me + ": clock frequency must be positive");
    if (params.flit_bytes == 0 || params.flit_cycles == 0 || params.hop_cycles == 0)
        throw std::logic_error(me + ": flit_bytes, flit_cycles and hop_cycles must be positive");
    if (params.n_qpes == 0 || params.n_qpes > S2_NOC_N_QPES)
        throw std::logic_error(me + ": n_qpes must be in 1..38");
    if (params.pe_sram_size.n == 0 || params.pe_sram_size.n > (1u << S2_PE_GLOBAL_OFFSET_BITS))
        throw std::logic_error(me + ": pe_sram_size must be in 1..512 KiB");

    for (uint32_t q = 0; q < params.n_qpes; ++q) {
        uint32_t qx = 0, qy = 0;
        s2_qpe_coord(q, &qx, &qy);
        for (uint32_t pe = 0; pe < S2_NOC_PES_PER_QPE; ++pe) m_pos.push_back(MeshPos{qx, qy});
    }
    m_pos.push_back(MeshPos{S2_NOC_DRAM0_X, S2_NOC_DRAM0_Y});
    m_pos.push_back(MeshPos{S2_NOC_DRAM1_X, S2_NOC_DRAM1_Y});
    m_pos.push_back(MeshPos{S2_NOC_HOST_X, S2_NOC_HOST_Y});
    m_pos.push_back(MeshPos{S2_NOC_ROUTER_X, S2_NOC_ROUTER_Y});
    m_in_offset.assign(m_pos.size(), 0);
    m_links.resize(kMeshLinks + 2 * m_pos.size());

    in.init(m_pos.size());
    out.init(m_pos.size());
    for (size_t e = 0; e < m_pos.size(); ++e) {
        in[e].register_b_transport(this, &Noc::b_transport, static_cast<int>(e));
        in[e].register_transport_dbg(this, &Noc::transport_dbg, static_cast<int>(e));
    }
    if (m_sink) m_component = m_sink->component(me);
}

EndpointOnNoc Noc::pe_endpoint(uint32_t qx, uint32_t qy, uint32_t pe) const {
    const int32_t q = s2_qpe_index(qx, qy);
    if (q < 0 || static_cast<uint32_t>(q) >= m_params.n_qpes || pe >= S2_NOC_PES_PER_QPE)
        throw std::out_of_range(std::string(name()) + ": no PE " + std::to_string(pe) +
                                " in a QPE at (" + std::to_string(qx) + "," + std::to_string(qy) +
                                ")");
    return EndpointOnNoc{static_cast<uint32_t>(q) * S2_NOC_PES_PER_QPE + pe};
}

EndpointOnNoc Noc::dram_endpoint(uint32_t dram_if) const {
    if (dram_if >= S2_DRAM_IF_COUNT)
        throw std::out_of_range(std::string(name()) + ": no DRAM interface " +
                                std::to_string(dram_if));
    return EndpointOnNoc{m_n_pes + dram_if};
}

EndpointOnNoc Noc::host_endpoint() const { return EndpointOnNoc{m_n_pes + S2_DRAM_IF_COUNT}; }

EndpointOnNoc Noc::router_endpoint() const { return EndpointOnNoc{m_n_pes + S2_DRAM_IF_COUNT + 1}; }

std::string Noc::endpoint_name(EndpointOnNoc e) const {
    if (e.value < m_n_pes) {
        const MeshPos p = m_pos.at(e.value);
        return "pe_x" + std::to_string(p.x) + "y" + std::to_string(p.y) + "_" +
               std::to_string(e.value % S2_NOC_PES_PER_QPE);
    }
    if (e.value < m_n_pes + S2_DRAM_IF_COUNT) return "dram" + std::to_string(e.value - m_n_pes);
    if (e.value == host_endpoint().value) return "host";
    if (e.value == router_endpoint().value) return "router";
    return "endpoint" + std::to_string(e.value);
}

void Noc::set_in_address_offset(EndpointOnNoc e, uint64_t offset) {
    m_in_offset.at(e.value) = offset;
}

uint32_t Noc::mesh_link(MeshPos from, uint32_t dir) const {
    return (from.y * kDim + from.x) * 4 + dir;
}

size_t Noc::route_into(EndpointOnNoc src, MeshPos d, uint32_t* links) const {
    size_t n = 0;
    MeshPos p = m_pos[src.value];
    links[n++] = kMeshLinks + 2 * src.value;
    // XY routing: first along x, then along y.
    while (p.x != d.x) {
        const bool east = d.x > p.x;
        links[n++] = mesh_link(p, east ? kEast : kWest);
        p.x = east ? p.x + 1 : p.x - 1;
    }
    while (p.y != d.y) {
        const bool north = d.y > p.y;
        links[n++] = mesh_link(p, north ? kNorth : kSouth);
        p.y = north ? p.y + 1 : p.y - 1;
    }
    return n;
}

std::vector<LinkOnNoc> Noc::route(EndpointOnNoc src, EndpointOnNoc dst) const {
    uint32_t links[kMaxRoute];
    const size_t n = route_into(src, m_pos.at(dst.value), links);
    std::vector<LinkOnNoc> r;
    for (size_t k = 0; k < n; ++k) r.push_back(LinkOnNoc{links[k]});
    r.push_back(LinkOnNoc{kMeshLinks + 2 * dst.value + 1});
    return r;
}

uint32_t Noc::hops(EndpointOnNoc src, EndpointOnNoc dst) const {
    return static_cast<uint32_t>(route(src, dst).size()) - 2;
}

std::string Noc::link_name(LinkOnNoc l) const {
    if (l.value < kMeshLinks) {
        const uint32_t node = l.value / 4;
        return "x" + std::to_string(node % kDim) + "y" + std::to_string(node / kDim) + "_" +
               kDirName[l.value % 4];
    }
    const uint32_t e = (l.value - kMeshLinks) / 2;
    return endpoint_name(EndpointOnNoc{e}) + ((l.value - kMeshLinks) % 2 ? "_eject" : "_inject");
}

bool Noc::decode(uint64_t addr, uint64_t len, Target& t, std::string& why) const {
    const uint64_t end = addr + len;
    if (addr >= S2_DRAM_GLOBAL_BASE && addr < uint64_t{S2_DRAM_GLOBAL_BASE} + S2_DRAM_GLOBAL_SIZE) {
        const uint64_t off = addr - S2_DRAM_GLOBAL_BASE;
        const uint32_t dram_if = static_cast<uint32_t>(off / S2_DRAM_IF_SIZE);
        const uint64_t local = off % S2_DRAM_IF_SIZE;
        if (local + len > S2_DRAM_IF_SIZE) {
            why = "crosses the end of DRAM interface " + std::to_string(dram_if);
            return false;
        }
        t = Target{dram_endpoint(dram_if), local};
        return true;
    }
    if (addr >= S2_ROUTER_GLOBAL_BASE &&
        addr < uint64_t{S2_ROUTER_GLOBAL_BASE} + S2_ROUTER_GLOBAL_SIZE) {
        if (end > uint64_t{S2_ROUTER_GLOBAL_BASE} + S2_ROUTER_GLOBAL_SIZE) {
            why = "crosses the end of the router window";
            return false;
        }
        t = Target{router_endpoint(), addr - S2_ROUTER_GLOBAL_BASE};
        return true;
    }
    if (addr >= S2_HOST_GLOBAL_BASE && addr < uint64_t{S2_HOST_GLOBAL_BASE} + S2_HOST_GLOBAL_SIZE) {
        if (end > uint64_t{S2_HOST_GLOBAL_BASE} + S2_HOST_GLOBAL_SIZE) {
            why = "crosses the end of the host window";
            return false;
        }
        t = Target{host_endpoint(), addr - S2_HOST_GLOBAL_BASE};
        return true;
    }
    uint32_t qx = 0, qy = 0, pe = 0, off = 0;
    if (addr <= 0xFFFFFFFFu &&
        s2_pe_global_decode(static_cast<uint32_t>(addr), &qx, &qy, &pe, &off)) {
        const int32_t q = s2_qpe_index(qx, qy);
        if (q < 0 || static_cast<uint32_t>(q) >= m_params.n_qpes) {
            why = "no QPE at (" + std::to_string(qx) + "," + std::to_string(qy) + ")";
            return false;
        }
        if (off + len > m_params.pe_sram_size.n) {
            why = "beyond the " + std::to_string(m_params.pe_sram_size.n) + "-byte PE SRAM";
            return false;
        }
        t = Target{EndpointOnNoc{static_cast<uint32_t>(q) * S2_NOC_PES_PER_QPE + pe}, off};
        return true;
    }
    why = "no NoC endpoint";
    return false;
}

uint64_t Noc::send(EndpointOnNoc src, const EndpointOnNoc* dst, size_t n_dst, uint64_t n,
                   uint64_t t_ps) {
    uint32_t r[kMaxRoute];
    const size_t n_path = route_into(src, m_pos[dst[0].value], r);
    const uint64_t h = n_path - 1;
    size_t n_links = n_path;
    for (size_t i = 0; i < n_dst; ++i) r[n_links++] = kMeshLinks + 2 * dst[i].value + 1;
    // Offset of the head flit on link k, in cycles after injection: 0 on the injection link,
    // inject + (k - 1) hops on the k-th mesh link, inject + h hops on every ejection link.
    auto offset_ps = [&](size_t k) {
        const uint64_t c =
            k == 0 ? 0
                   : m_params.inject_cycles + std::min<uint64_t>(k - 1, h) * m_params.hop_cycles;
        return c * m_period_ps;
    };
    uint64_t start = t_ps;
    for (size_t k = 0; k < n_links; ++k) {
        const uint64_t busy = m_links[r[k]].busy_until_ps;
        const uint64_t d = offset_ps(k);
        if (busy > d) start = std::max(start, busy - d);
    }
    const uint64_t occupy_ps = n * m_params.flit_cycles * m_period_ps;
    uint64_t end = start;
    for (size_t k = 0; k < n_links; ++k) {
        Link& l = m_links[r[k]];
        const uint64_t s = start + offset_ps(k);
        end = s + occupy_ps;
        l.busy_until_ps = end;
        l.flits += n;
        l.busy_ps += occupy_ps;
        if (on_reserve) on_reserve(LinkOnNoc{r[k]}, s, end);
    }
    m_flits += n;
    m_flit_hops += n * h;
    return end;
}

void Noc::fail(tlm::tlm_generic_payload& p, const std::string& why) {
    ++m_errors;
    p.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    BusErrorExt* ext = nullptr;
    p.get_extension(ext);
    if (ext) ext->why = why;
}

void Noc::b_transport(int id, tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
    const EndpointOnNoc src{static_cast<uint32_t>(id)};
    const uint64_t orig = p.get_address();
    const uint64_t addr = orig + m_in_offset[src.value];
    const uint64_t len = p.get_data_length();
    Target t;
    std::string why;
    if (!decode(addr, len, t, why)) {
        fail(p, std::string(name()) + ": " + endpoint_name(src) + " access to " + hex(addr) + " (" +
                    std::to_string(len) + " bytes): " + why);
        return;
    }
    NocMulticastExt* mc = nullptr;
    p.get_extension(mc);
    if (mc && mc->pe_mask != 0) {
        multicast(src, t, mc->pe_mask, p, delay);
        return;
    }
    if (out[t.ep.value].size() == 0) {
        fail(p, std::string(name()) + ": " + endpoint_name(src) + " access to " + hex(addr) +
                    ": nothing bound to " + endpoint_name(t.ep));
        return;
    }
    ++m_transactions;
    m_bytes += len;
    const uint64_t now = now_ps();
    const uint64_t n = std::max<uint64_t>(1, (len + m_params.flit_bytes - 1) / m_params.flit_bytes);
    const bool read = p.is_read();
    // A read request is one header-only flit; a write carries the data.
    const uint64_t arrive = send(src, t.ep, read ? 1 : n, now + delay.value());
    sc_core::sc_time d = sc_core::sc_time::from_value(arrive - now);
    p.set_address(t.local_addr);
    out[t.ep.value]->b_transport(p, d);
    p.set_address(orig);
    if (read) {
        const uint64_t n_resp = p.is_response_ok() ? n : 1;
        delay = sc_core::sc_time::from_value(send(t.ep, src, n_resp, now + d.value()) - now);
    } else {
        delay = d;
    }
}

void Noc::multicast(EndpointOnNoc src, const Target& t, uint32_t pe_mask,
                    tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
    const uint64_t orig = p.get_address();
    if (t.ep.value >= m_n_pes || !p.is_write() || pe_mask > 0xFu) {
        fail(p, std::string(name()) + ": " + endpoint_name(src) + " multicast to " +
                    hex(orig + m_in_offset[src.value]) +
                    ": a multicast is a write to a PE window with a 4-bit PE mask");
        return;
    }
    EndpointOnNoc dst[S2_NOC_PES_PER_QPE];
    size_t n_dst = 0;
    const uint32_t base = t.ep.value - t.ep.value % S2_NOC_PES_PER_QPE;
    for (uint32_t pe = 0; pe < S2_NOC_PES_PER_QPE; ++pe) {
        if (!(pe_mask >> pe & 1u)) continue;
        dst[n_dst] = EndpointOnNoc{base + pe};
        if (out[dst[n_dst].value].size() == 0) {
            fail(p, std::string(name()) + ": " + endpoint_name(src) + " multicast to " +
                        hex(orig + m_in_offset[src.value]) + ": nothing bound to " +
                        endpoint_name(dst[n_dst]));
            return;
        }
        ++n_dst;
    }
    ++m_transactions;
    ++m_multicasts;
    const uint64_t len = p.get_data_length();
    m_bytes += len;
    const uint64_t now = now_ps();
    const uint64_t n = std::max<uint64_t>(1, (len + m_params.flit_bytes - 1) / m_params.flit_bytes);
    const uint64_t arrive = send(src, dst, n_dst, n, now + delay.value());
    p.set_address(t.local_addr);
    uint64_t done = arrive;
    for (size_t i = 0; i < n_dst; ++i) {
        sc_core::sc_time d = sc_core::sc_time::from_value(arrive - now);
        p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        out[dst[i].value]->b_transport(p, d);
        if (!p.is_response_ok()) break;
        done = std::max<uint64_t>(done, now + d.value());
    }
    p.set_address(orig);
    delay = sc_core::sc_time::from_value(done - now);
}

unsigned int Noc::transport_dbg(int id, tlm::tlm_generic_payload& p) {
    const uint64_t orig = p.get_address();
    Target t;
    std::string why;
    if (!decode(orig + m_in_offset.at(static_cast<size_t>(id)), p.get_data_length(), t, why))
        return 0;
    if (out[t.ep.value].size() == 0) return 0;
    p.set_address(t.local_addr);
    const unsigned int n = out[t.ep.value]->transport_dbg(p);
    p.set_address(orig);
    return n;
}

void Noc::write_summary() {
    if (!m_sink) return;
    m_sink->counter(m_component, "transactions", "1", static_cast<double>(m_transactions));
    m_sink->counter(m_component, "bytes", "B", static_cast<double>(m_bytes));
    m_sink->counter(m_component, "flits", "1", static_cast<double>(m_flits));
    m_sink->counter(m_component, "flit_hops", "1", static_cast<double>(m_flit_hops));
    m_sink->counter(m_component, "multicasts", "1", static_cast<double>(m_multicasts));
    m_sink->counter(m_component, "errors", "1", static_cast<double>(m_errors));
    // Only links that carried traffic: the full list has 256 mesh links plus two per endpoint.
    for (uint32_t i = 0; i < m_links.size(); ++i) {
        const Link& l = m_links[i];
        if (l.flits == 0) continue;
        const std::string n = "link." + link_name(LinkOnNoc{i});
        m_sink->counter(m_component, n + ".flits", "1", static_cast<double>(l.flits));
        m_sink->counter(m_component, n + ".busy_ps", "ps", static_cast<double>(l.busy_ps));
    }
}

}  // namespace nmsim::spinnaker2
