// The SpiNNaker2 data NoC (DNoC): a 2-D mesh of QPE routers with XY routing, as a TLM-2.0
// loosely-timed interconnect. Layout and global address map: firmware/include/nmsim/hw/
// spinnaker2/noc_map.h. Model description, parameters and assumptions: docs/noc.md.
//
// Endpoints: the PEs of the first n_qpes QPEs (endpoint 4 * qpe_index + pe), then DRAM
// interface 0 and 1, then the host interface, then the spike router (docs/router.md). Each endpoint
// has a target socket `in[e]` for the transactions it initiates (its DMA) and an initiator socket
// `out[e]` to its memory (a PE's SRAM, a DRAM controller, the host bridge); unbound sockets are
// allowed, an access to an endpoint whose `out` is unbound fails with an address error.
//
// A transaction from endpoint A to global address X: X decodes to endpoint B and its local
// address (the PE SRAM offset, the offset inside the DRAM interface or the host window). The
// route is the injection link of A, the XY mesh links from A's router to B's, and the ejection
// link to B. L bytes are n = ceil(L / flit_bytes) flits (a flit carries a whole packet); a read
// is a one-flit request A -> B, the target access, then n response flits B -> A; a write is n
// flits A -> B, then the target access (posted: no acknowledgement on the NoC).
// Timing, with P the NoC clock period: the head enters link k of the route d_k cycles after it
// is injected (d = 0 for the injection link, inject_cycles + (j - 1) * hop_cycles for the j-th
// mesh link, inject_cycles + hops * hop_cycles for the ejection link); each link stays busy for
// n * flit_cycles cycles. Each link keeps the time until which it is reserved; a packet train
// starts at S = max(t_issue, max_k(busy_until_k - d_k * P)), reserves [S + d_k P, S + d_k P +
// n flit_cycles P) on every link and is delivered when its ejection link reservation ends. So
// streams that share a link serialise and a long stream runs at flit_bytes per flit_cycles.
// Reservations never reuse gaps before a link's busy-until time (the usual LT pessimism).
// The total delay is annotated on b_transport (nothing waits inside); the target's own delay
// adds to it.
// QPE multicast: a write that carries a NocMulticastExt with a non-zero PE mask goes to the PEs
// of the addressed QPE that the mask selects (the address's own PE field is ignored): one flit
// train over the injection link and the mesh, then one ejection link per selected PE, all
// reserved together; every selected PE's target gets the write at its arrival time.
#pragma once

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <systemc>
#include <tlm>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "models/common/param.h"
#include "nmsim/trace/sink.h"

namespace nmsim::spinnaker2 {

// Marks a write as a QPE multicast (see above): bit p of pe_mask selects PE p of the QPE that the
// address names. The NoC's routers deliver to the 4 PEs of a QPE as one packet with 4
// destination-PE bits (docs/hardware_facts.md A5); the spike router uses it for its copies.
struct NocMulticastExt : tlm::tlm_extension<NocMulticastExt> {
    uint32_t pe_mask = 0;
    tlm::tlm_extension_base* clone() const override { return new NocMulticastExt(*this); }
    void copy_from(const tlm::tlm_extension_base& e) override {
        pe_mask = static_cast<const NocMulticastExt&>(e).pe_mask;
    }
};

struct NocParams {
    NMSIM_PARAMSET(NocParams);
    NMSIM_PARAM(nmsim::Frequency, clock, nmsim::Frequency::from_mhz(300), "",
                nmsim::range(1e6, 5e9), "DNoC clock", "hardware_facts.md A5: DNoC 300 MHz [2nd]");
    NMSIM_PARAM(uint32_t, flit_bytes, 16, "B", nmsim::range(1, 1024),
                "payload bytes per flit (a flit carries a whole packet)",
                "hardware_facts.md A5: 192-bit flit = 15-bit NoC header + 17-bit packet "
                "header + 32-bit address + up to 128-bit payload [2nd]");
    NMSIM_PARAM(uint32_t, hop_cycles, 5, "cycles", nmsim::range(1, 1000),
                "NoC cycles for the head flit to cross one mesh link (router + wire)",
                "hardware_facts.md A5: 5 cycles/hop [2nd]");
    NMSIM_PARAM(uint32_t, inject_cycles, 2, "cycles", nmsim::range(0, 1000),
                "NoC cycles from an endpoint to its router's output (injection and routing), "
                "paid once per packet, also between PEs of one QPE",
                "assumed: not public; a short local hop, below one mesh hop");
    NMSIM_PARAM(uint32_t, flit_cycles, 1, "cycles", nmsim::range(1, 1000),
                "NoC cycles a flit occupies a link (1: one flit per cycle per link)",
                "assumed: one 192-bit flit per cycle; with 16 B payload at 300 MHz this matches "
                "the 307.2 Gbit/s bisection of A5 [2nd] for 8 crossing links");
    NMSIM_PARAM(uint32_t, n_qpes, 38, "1", nmsim::range(1, 38),
                "QPEs on the mesh: the first n_qpes of the QUAD_MAP layout (fewer for small tests)",
                "hardware_facts.md A1: QUAD_MAP, 38 QPE positions [SW]");
    NMSIM_PARAM(nmsim::Bytes, pe_sram_size, nmsim::Bytes{128 * 1024}, "",
                nmsim::range(16, 512 * 1024),
                "bytes of each PE's SRAM reachable through the PE window",
                "hardware_facts.md A3: 128 KB per PE [DS]");
};

// Position of a router on the mesh.
struct MeshPos {
    uint32_t x = 0, y = 0;
    bool operator==(const MeshPos& o) const { return x == o.x && y == o.y; }
};

// An endpoint of the NoC: an index into in/out.
struct EndpointOnNoc {
    uint32_t value = 0;
    bool operator==(const EndpointOnNoc& o) const { return value == o.value; }
};

// A directed link: mesh links between routers, and one injection and one ejection link per
// endpoint (between the endpoint and its router).
struct LinkOnNoc {
    uint32_t value = 0;
};

class Noc : public sc_core::sc_module {
public:
    using InSocket = tlm_utils::simple_target_socket_tagged_optional<Noc>;
    using OutSocket = tlm_utils::simple_initiator_socket_optional<Noc>;

    sc_core::sc_vector<InSocket> in;    // from initiators, indexed by EndpointOnNoc
    sc_core::sc_vector<OutSocket> out;  // to targets, indexed by EndpointOnNoc

    Noc(sc_core::sc_module_name name, const NocParams& params, nmsim::trace::Sink* sink);

    // Endpoints.
    uint32_t n_endpoints() const { return static_cast<uint32_t>(m_pos.size()); }
    EndpointOnNoc pe_endpoint(uint32_t qx, uint32_t qy, uint32_t pe) const;  // throws if absent
    EndpointOnNoc dram_endpoint(uint32_t dram_if) const;
    EndpointOnNoc host_endpoint() const;
    EndpointOnNoc router_endpoint() const;  // the spike router, mesh node (4, 3)
    MeshPos position(EndpointOnNoc e) const { return m_pos.at(e.value); }
    std::string endpoint_name(EndpointOnNoc e) const;

    // Added to every address arriving on in[e] (the PE DMA sends off-PE addresses minus
    // S2_EXT_BASE: its platform sets S2_EXT_BASE here). Default 0: global addresses.
    void set_in_address_offset(EndpointOnNoc e, uint64_t offset);

    // Routing (also used by tests and for placement costs): the links from src to dst, the
    // injection link first and the ejection link last; hops = mesh links among them.
    std::vector<LinkOnNoc> route(EndpointOnNoc src, EndpointOnNoc dst) const;
    uint32_t hops(EndpointOnNoc src, EndpointOnNoc dst) const;
    uint32_t n_links() const { return static_cast<uint32_t>(m_links.size()); }
    std::string link_name(LinkOnNoc l) const;

    // Called for every link reservation [start_ps, end_ps) (tests check invariants with it).
    std::function<void(LinkOnNoc, uint64_t start_ps, uint64_t end_ps)> on_reserve;

    // Counters: per link flits and busy time; per transaction, totals of flits and flit-hops.
    uint64_t link_flits(LinkOnNoc l) const { return m_links.at(l.value).flits; }
    uint64_t link_busy_ps(LinkOnNoc l) const { return m_links.at(l.value).busy_ps; }
    uint64_t transactions() const { return m_transactions; }
    uint64_t flits() const { return m_flits; }
    uint64_t flit_hops() const { return m_flit_hops; }
    uint64_t errors() const { return m_errors; }
    void write_summary();

private:
    struct Link {
        uint64_t busy_until_ps = 0;
        uint64_t flits = 0, busy_ps = 0;
    };
    struct Target {
        EndpointOnNoc ep;
        uint64_t local_addr = 0;
    };

    // The endpoint and local address of [addr, addr + len); false with a reason otherwise.
    bool decode(uint64_t addr, uint64_t len, Target& t, std::string& why) const;
    // At most: injection link, 7 + 7 mesh links, 4 ejection links (a QPE multicast).
    static constexpr size_t kMaxRoute = 1 + 2 * 7 + 4;
    // The injection link of src and the XY mesh links to `to`; returns their number.
    size_t route_into(EndpointOnNoc src, MeshPos to, uint32_t* links) const;
    // Reserves the route from src to the n_dst endpoints dst (all at one mesh node: one
    // ejection link each) for n flits issued at t_ps; returns the delivery time of the last flit.
    uint64_t send(EndpointOnNoc src, const EndpointOnNoc* dst, size_t n_dst, uint64_t n,
                  uint64_t t_ps);
    uint64_t send(EndpointOnNoc src, EndpointOnNoc dst, uint64_t n, uint64_t t_ps) {
        return send(src, &dst, 1, n, t_ps);
    }
    // A QPE multicast write (NocMulticastExt) from src to the PEs of t's QPE.
    void multicast(EndpointOnNoc src, const Target& t, uint32_t pe_mask,
                   tlm::tlm_generic_payload& p, sc_core::sc_time& delay);
    uint32_t mesh_link(MeshPos from, uint32_t dir) const;
    void fail(tlm::tlm_generic_payload& p, const std::string& why);

    void b_transport(int id, tlm::tlm_generic_payload& p, sc_core::sc_time& delay);
    unsigned int transport_dbg(int id, tlm::tlm_generic_payload& p);

    NocParams m_params;
    uint64_t m_period_ps;
    uint32_t m_n_pes;
    std::vector<MeshPos> m_pos;         // per endpoint
    std::vector<uint64_t> m_in_offset;  // per endpoint
    std::vector<Link> m_links;
    nmsim::trace::Sink* m_sink;
    nmsim::trace::ComponentId m_component = 0;
    uint64_t m_transactions = 0, m_flits = 0, m_flit_hops = 0, m_bytes = 0, m_errors = 0;
    uint64_t m_multicasts = 0;
};

}  // namespace nmsim::spinnaker2
