// Unit tests of the SpiNNaker2 data NoC: the global address map (round trip for all 152 PEs
// against plain arithmetic), XY routes against Manhattan distances over an independently written
// QUAD_MAP, the latency formula, data delivered to the right memories (random traffic compared
// with shadow copies), contention on shared links, bandwidth of a long stream, reservation
// invariants (no link double-booked, counters equal the recorded intervals), errors and the
// summary counters.
#include <gtest/gtest.h>
#include <systemc>
#include <tlm>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "models/common/memory.h"
#include "models/common/peripheral.h"
#include "models/spinnaker2/noc/noc.h"
#include "nmsim/hw/spinnaker2/noc_map.h"
#include "nmsim/hw/spinnaker2/pe_map.h"
#include "tests/support/bus_master.h"
#include "tests/support/memory_sink.h"
#include "tests/support/systemc_fixture.h"

namespace nmsim::spinnaker2 {
namespace {

using sc_core::sc_time;

uint64_t now_ps() { return sc_core::sc_time_stamp().value(); }

// The QUAD_MAP positions written out as the host software lists them (A1): every (qx, qy) with
// qx in 1..7, qy in 1..6 except the four positions of the chip router and the periphery.
std::vector<std::pair<uint32_t, uint32_t>> quad_positions() {
    const std::set<std::pair<uint32_t, uint32_t>> holes = {{4, 3}, {4, 4}, {7, 3}, {7, 4}};
    std::vector<std::pair<uint32_t, uint32_t>> v;
    for (uint32_t qx = 1; qx <= 7; ++qx)
        for (uint32_t qy = 1; qy <= 6; ++qy)
            if (!holes.count({qx, qy})) v.emplace_back(qx, qy);
    return v;
}

// A bus master that also moves blocks of any length (BusMaster itself does 4-byte accesses).
struct Master : nmsim::test::BusMaster {
    using BusMaster::BusMaster;
    struct Xfer {
        bool ok = false;
        std::string why;
        uint64_t delay_ps = 0;
    };
    // One b_transport of len bytes issued at sc_time_stamp() + delay_ps; does not wait.
    Xfer xfer(tlm::tlm_command cmd, uint64_t addr, uint8_t* data, uint32_t len,
              uint64_t delay_ps = 0) {
        nmsim::BusErrorExt ext;
        tlm::tlm_generic_payload p;
        p.set_command(cmd);
        p.set_address(addr);
        p.set_data_ptr(data);
        p.set_data_length(len);
        p.set_streaming_width(len);
        p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        p.set_extension(&ext);
        sc_time d = sc_time::from_value(delay_ps);
        sock->b_transport(p, d);
        p.clear_extension(&ext);
        return Xfer{p.is_response_ok(), ext.why, d.value()};
    }
    // xfer(), then waits out the returned delay.
    Xfer xfer_wait(tlm::tlm_command cmd, uint64_t addr, uint8_t* data, uint32_t len) {
        Xfer x = xfer(cmd, addr, data, len);
        if (x.delay_ps) wait(sc_time::from_value(x.delay_ps));
        return x;
    }
};

class NocTest : public nmsim::test::SystemCTest {
protected:
    static constexpr uint32_t kDramSize = 64 * 1024;  // enough for the tests, not 1 GiB
    static constexpr uint32_t kHostSize = 4096;

    void SetUp() override {
        SystemCTest::SetUp();
        sc_core::sc_set_time_resolution(1, sc_core::SC_PS);
    }

    // The NoC with a memory on every endpoint (zero latency, so the NoC alone sets the timing).
    void build(const NocParams& p = NocParams{}, nmsim::trace::Sink* sink = nullptr,
               const std::set<uint32_t>& unbound = {}) {
        params = p;
        period_ps = static_cast<uint64_t>(p.clock.period_ps());
        noc = std::make_unique<Noc>("noc", p, sink);
        const uint32_t n_pes = p.n_qpes * 4;
        for (uint32_t e = 0; e < noc->n_endpoints(); ++e) {
            const uint64_t size =
                e < n_pes ? p.pe_sram_size.n : (e < n_pes + 2 ? kDramSize : kHostSize);
            if (unbound.count(e)) {
                mems.push_back(nullptr);
                continue;
            }
            mems.push_back(std::make_unique<nmsim::Memory>(("mem" + std::to_string(e)).c_str(),
                                                           size, sc_core::SC_ZERO_TIME));
            noc->out[e].bind(mems.back()->tgt);
        }
    }
    // A master bound to endpoint e's in socket.
    Master& master(EndpointOnNoc e) {
        masters.push_back(
            std::make_unique<Master>(("master" + std::to_string(masters.size())).c_str()));
        masters.back()->sock.bind(noc->in[e.value]);
        return *masters.back();
    }
    EndpointOnNoc pe(uint32_t qx, uint32_t qy, uint32_t p) const {
        return noc->pe_endpoint(qx, qy, p);
    }
    uint64_t flits(uint32_t len) const { return std::max<uint64_t>(1, (len + 15) / 16); }
    // The latency formula, independent of the model's code: cycles of one packet train.
    uint64_t train_ps(uint32_t hops, uint64_t n) const {
        return (params.inject_cycles + uint64_t{hops} * params.hop_cycles +
                n * params.flit_cycles) *
               period_ps;
    }
    uint32_t manhattan(MeshPos a, MeshPos b) const {
        return static_cast<uint32_t>(std::abs(static_cast<int>(a.x) - static_cast<int>(b.x)) +
                                     std::abs(static_cast<int>(a.y) - static_cast<int>(b.y)));
    }

    NocParams params;
    uint64_t period_ps = 0;
    std::unique_ptr<Noc> noc;
    std::vector<std::unique_ptr<nmsim::Memory>> mems;
    std::vector<std::unique_ptr<Master>> masters;
};

TEST(NocMap, QuadMapHas38QpesAndIndexRoundTrips) {
    const auto pos = quad_positions();
    ASSERT_EQ(pos.size(), 38u);
    for (uint32_t i = 0; i < pos.size(); ++i) {
        uint32_t qx = 0, qy = 0;
        ASSERT_EQ(s2_qpe_coord(i, &qx, &qy), 1);
        EXPECT_EQ(qx, pos[i].first) << i;
        EXPECT_EQ(qy, pos[i].second) << i;
        EXPECT_EQ(s2_qpe_index(qx, qy), static_cast<int32_t>(i));
    }
    uint32_t qx = 0, qy = 0;
    EXPECT_EQ(s2_qpe_coord(38, &qx, &qy), 0);
    for (uint32_t x = 0; x < 8; ++x)
        for (uint32_t y = 0; y < 8; ++y) {
            const bool listed =
                std::find(pos.begin(), pos.end(), std::make_pair(x, y)) != pos.end();
            EXPECT_EQ(s2_qpe_exists(x, y) != 0, listed) << x << "," << y;
            if (!listed) {
                EXPECT_EQ(s2_qpe_index(x, y), -1);
            }
        }
}

TEST(NocMap, PeAddressRoundTripForAll152Pes) {
    std::mt19937 rng(7);
    std::set<uint32_t> bases;
    for (const auto& [qx, qy] : quad_positions())
        for (uint32_t p = 0; p < 4; ++p) {
            // The encoding spelled out as arithmetic: node id = pe*64 + qy*8 + qx, 512 KiB each.
            const uint32_t node = p * 64 + qy * 8 + qx;
            for (uint32_t off : {0u, 0x7FFFFu, static_cast<uint32_t>(rng() % 0x80000u)}) {
                const uint32_t a = s2_pe_global_addr(qx, qy, p, off);
                EXPECT_EQ(a, 0xA0000000u + node * 0x80000u + off);
                EXPECT_GE(a, S2_PE_GLOBAL_BASE);
                EXPECT_LT(a, S2_PE_GLOBAL_BASE + S2_PE_GLOBAL_SIZE);
                uint32_t dx = 99, dy = 99, dp = 99, doff = 0;
                ASSERT_EQ(s2_pe_global_decode(a, &dx, &dy, &dp, &doff), 1);
                EXPECT_EQ(dx, qx);
                EXPECT_EQ(dy, qy);
                EXPECT_EQ(dp, p);
                EXPECT_EQ(doff, off);
            }
            bases.insert(s2_pe_global_addr(qx, qy, p, 0));
            EXPECT_EQ(s2_noc_node_id(qx, qy, p), node);
        }
    EXPECT_EQ(bases.size(), 152u);
    uint32_t a, b, c, d;
    EXPECT_EQ(s2_pe_global_decode(S2_PE_GLOBAL_BASE - 1, &a, &b, &c, &d), 0);
    EXPECT_EQ(s2_pe_global_decode(S2_PE_GLOBAL_BASE + S2_PE_GLOBAL_SIZE, &a, &b, &c, &d), 0);
    // The windows do not overlap and all lie in the PE's off-PE window.
    EXPECT_LE(uint64_t{S2_DRAM_GLOBAL_BASE} + S2_DRAM_GLOBAL_SIZE, S2_PE_GLOBAL_BASE);
    EXPECT_LE(uint64_t{S2_PE_GLOBAL_BASE} + S2_PE_GLOBAL_SIZE, S2_ROUTER_GLOBAL_BASE);
    EXPECT_LE(uint64_t{S2_ROUTER_GLOBAL_BASE} + S2_ROUTER_GLOBAL_SIZE, S2_HOST_GLOBAL_BASE);
    EXPECT_LE(uint64_t{S2_HOST_GLOBAL_BASE} + S2_HOST_GLOBAL_SIZE, 0xE0000000u);
    EXPECT_EQ(S2_DRAM_GLOBAL_BASE, S2_EXT_BASE);
    EXPECT_EQ(s2_dram_global_addr(1, 16), 0x60000010u);
}

// What `nmsim params --check` requires: doc, source and unit on every parameter, defaults in range.
TEST(NocParamsCheck, EveryParameterIsDocumented) {
    const auto problems = nmsim::check_registry(nmsim::registry_of<NocParams>(), "noc");
    for (const auto& m : problems) ADD_FAILURE() << m;
    EXPECT_EQ(nmsim::registry_of<NocParams>().entries.size(), 7u);
}

TEST_F(NocTest, EndpointsSitAtTheirQpes) {
    build();
    ASSERT_EQ(noc->n_endpoints(), 152u + 4u);
    const auto pos = quad_positions();
    for (uint32_t i = 0; i < pos.size(); ++i)
        for (uint32_t p = 0; p < 4; ++p) {
            const EndpointOnNoc e = pe(pos[i].first, pos[i].second, p);
            EXPECT_EQ(e.value, i * 4 + p);
            EXPECT_EQ(noc->position(e), (MeshPos{pos[i].first, pos[i].second}));
        }
    EXPECT_EQ(noc->position(noc->dram_endpoint(0)), (MeshPos{0, 3}));
    EXPECT_EQ(noc->position(noc->dram_endpoint(1)), (MeshPos{7, 4}));
    EXPECT_EQ(noc->position(noc->host_endpoint()), (MeshPos{7, 3}));
    EXPECT_EQ(noc->position(noc->router_endpoint()), (MeshPos{4, 3}));
    EXPECT_EQ(noc->endpoint_name(noc->router_endpoint()), "router");
    EXPECT_THROW(noc->pe_endpoint(4, 3, 0), std::out_of_range);
    EXPECT_THROW(noc->pe_endpoint(1, 1, 4), std::out_of_range);
}

// Every route: injection link, then x moves, then y moves, ending at the destination, with
// |dx| + |dy| mesh links (checked by walking the link names).
TEST_F(NocTest, XyRoutesMatchManhattanDistance) {
    build();
    std::vector<MeshPos> where;  // independent positions: QUAD_MAP list, then the edge endpoints
    for (const auto& [qx, qy] : quad_positions())
        for (int p = 0; p < 4; ++p) where.push_back(MeshPos{qx, qy});
    where.push_back(MeshPos{S2_NOC_DRAM0_X, S2_NOC_DRAM0_Y});
    where.push_back(MeshPos{S2_NOC_DRAM1_X, S2_NOC_DRAM1_Y});
    where.push_back(MeshPos{S2_NOC_HOST_X, S2_NOC_HOST_Y});
    where.push_back(MeshPos{S2_NOC_ROUTER_X, S2_NOC_ROUTER_Y});
    ASSERT_EQ(where.size(), noc->n_endpoints());
    for (uint32_t s = 0; s < where.size(); ++s)
        for (uint32_t d = 0; d < where.size(); ++d) {
            const auto r = noc->route(EndpointOnNoc{s}, EndpointOnNoc{d});
            const uint32_t h = manhattan(where[s], where[d]);
            ASSERT_EQ(r.size(), h + 2u) << s << "->" << d;
            ASSERT_EQ(noc->hops(EndpointOnNoc{s}, EndpointOnNoc{d}), h);
            EXPECT_EQ(noc->link_name(r.front()), noc->endpoint_name(EndpointOnNoc{s}) + "_inject");
            EXPECT_EQ(noc->link_name(r.back()), noc->endpoint_name(EndpointOnNoc{d}) + "_eject");
            MeshPos at = where[s];
            bool y_started = false;
            for (size_t k = 1; k + 1 < r.size(); ++k) {
                unsigned x = 0, y = 0;
                char dir = 0;
                ASSERT_EQ(std::sscanf(noc->link_name(r[k]).c_str(), "x%uy%u_%c", &x, &y, &dir), 3);
                ASSERT_EQ((MeshPos{x, y}), at) << "link " << k << " of " << s << "->" << d;
                if (dir == 'e' || dir == 'w') {
                    ASSERT_FALSE(y_started) << "x move after a y move";
                    at.x = dir == 'e' ? at.x + 1 : at.x - 1;
                } else {
                    y_started = true;
                    at.y = dir == 'n' ? at.y + 1 : at.y - 1;
                }
            }
            ASSERT_EQ(at, where[d]);
        }
    EXPECT_EQ(noc->hops(pe(1, 1, 0), pe(7, 6, 3)), 11u);  // corner to corner
    EXPECT_EQ(noc->hops(pe(7, 6, 3), pe(1, 1, 0)), 11u);
    EXPECT_EQ(noc->hops(pe(3, 2, 0), pe(3, 2, 3)), 0u);  // same QPE
    EXPECT_EQ(noc->hops(pe(3, 2, 0), pe(3, 3, 1)), 1u);  // neighbours
    EXPECT_EQ(noc->hops(pe(3, 2, 0), pe(4, 2, 1)), 1u);
    EXPECT_EQ(noc->hops(pe(3, 3, 0), pe(5, 3, 0)), 2u);  // through the router position (4,3)
}

TEST_F(NocTest, SingleTransferLatencyMatchesFormula) {
    build();
    struct Case {
        EndpointOnNoc src, dst;
        uint32_t hops, len;
    };
    const std::vector<Case> cases = {{pe(1, 1, 0), pe(7, 6, 2), 11, 16},
                                     {pe(1, 1, 0), pe(1, 1, 1), 0, 4},
                                     {pe(2, 5, 3), pe(3, 5, 0), 1, 100},
                                     {pe(6, 2, 1), noc->dram_endpoint(0), 7, 4096},
                                     {pe(5, 6, 0), noc->dram_endpoint(1), 4, 64}};
    std::map<uint32_t, Master*> by_src;  // one master per source endpoint
    std::vector<Master*> ms;
    for (const Case& c : cases) {
        if (!by_src.count(c.src.value)) by_src[c.src.value] = &master(c.src);
        ms.push_back(by_src[c.src.value]);
    }
    ms[0]->body = [&] {
        for (size_t i = 0; i < cases.size(); ++i) {
            const Case& c = cases[i];
            const uint64_t addr = c.dst.value < 152 ? s2_pe_global_addr(noc->position(c.dst).x,
                                                                        noc->position(c.dst).y,
                                                                        c.dst.value % 4, 0x100)
                                                    : s2_dram_global_addr(c.dst.value - 152, 0x200);
            std::vector<uint8_t> buf(c.len, 0x5A);
            // Write: one train of ceil(len/16) flits; starts at the issue time (now + delay).
            const uint64_t t0 = now_ps();
            auto w = ms[i]->xfer(tlm::TLM_WRITE_COMMAND, addr, buf.data(), c.len, 1000);
            ASSERT_TRUE(w.ok) << w.why;
            EXPECT_EQ(w.delay_ps, 1000 + train_ps(c.hops, flits(c.len))) << i;
            wait(sc_time::from_value(w.delay_ps));
            // Read: a one-flit request, then the data back on the reverse route.
            auto r = ms[i]->xfer(tlm::TLM_READ_COMMAND, addr, buf.data(), c.len);
            ASSERT_TRUE(r.ok) << r.why;
            EXPECT_EQ(r.delay_ps, train_ps(c.hops, 1) + train_ps(c.hops, flits(c.len))) << i;
            wait(sc_time::from_value(r.delay_ps));
            EXPECT_EQ(now_ps() - t0, w.delay_ps + r.delay_ps);
            EXPECT_EQ(noc->hops(c.src, c.dst), c.hops);
        }
    };
    sc_core::sc_start();
    EXPECT_EQ(noc->transactions(), 2 * cases.size());
}

// Random reads and writes between random PEs, DRAM and the host; shadow copies of all memories
// say what each read must return and what every memory holds at the end.
TEST_F(NocTest, RandomTransfersDeliverDataToTheRightMemory) {
    build();
    std::mt19937 rng(12345);
    const uint32_t n_ep = noc->n_endpoints();
    std::vector<std::vector<uint8_t>> shadow(n_ep);
    for (uint32_t e = 0; e < n_ep; ++e) {
        std::generate(mems[e]->data(), mems[e]->data() + mems[e]->size(),
                      [&] { return static_cast<uint8_t>(rng()); });
        shadow[e].assign(mems[e]->data(), mems[e]->data() + mems[e]->size());
    }
    std::vector<Master*> ms;
    for (uint32_t e = 0; e < n_ep; e += 7) ms.push_back(&master(EndpointOnNoc{e}));
    uint32_t n_reads = 0, n_writes = 0;
    ms[0]->body = [&] {
        for (int i = 0; i < 600; ++i) {
            const uint32_t dst = rng() % n_ep;
            const uint32_t size = static_cast<uint32_t>(mems[dst]->size());
            const uint32_t len = 1 + rng() % 512;
            const uint32_t off = rng() % (size - len + 1);
            uint64_t addr;
            if (dst < 152)
                addr = s2_pe_global_addr(noc->position(EndpointOnNoc{dst}).x,
                                         noc->position(EndpointOnNoc{dst}).y, dst % 4, off);
            else if (dst < 154)
                addr = s2_dram_global_addr(dst - 152, off);
            else if (dst == 154)
                addr = S2_HOST_GLOBAL_BASE + off;
            else
                addr = S2_ROUTER_GLOBAL_BASE + off;
            Master& m = *ms[rng() % ms.size()];
            std::vector<uint8_t> buf(len);
            if (rng() % 2) {
                std::generate(buf.begin(), buf.end(), [&] { return static_cast<uint8_t>(rng()); });
                auto x = m.xfer(tlm::TLM_WRITE_COMMAND, addr, buf.data(), len);
                ASSERT_TRUE(x.ok) << x.why;
                std::copy(buf.begin(), buf.end(), shadow[dst].begin() + off);
                ++n_writes;
            } else {
                auto x = m.xfer(tlm::TLM_READ_COMMAND, addr, buf.data(), len);
                ASSERT_TRUE(x.ok) << x.why;
                ASSERT_TRUE(std::equal(buf.begin(), buf.end(), shadow[dst].begin() + off))
                    << "read of " << len << " bytes at " << std::hex << addr;
                ++n_reads;
            }
            if (i % 16 == 0) wait(sc_time::from_value(50000));
        }
    };
    sc_core::sc_start();
    EXPECT_GT(n_reads, 200u);
    EXPECT_GT(n_writes, 200u);
    for (uint32_t e = 0; e < n_ep; ++e)
        ASSERT_TRUE(std::equal(shadow[e].begin(), shadow[e].end(), mems[e]->data()))
            << "memory of " << noc->endpoint_name(EndpointOnNoc{e});
}

// Streams of back-to-back 4 KiB writes (each waits for the previous one). Phase 1 (from 0): the
// first stream alone; phase 2 (from kPhase2): all streams at once. Returns the duration of phase 1
// and of phase 2 (until the last stream finished), in ps.
struct StreamSpec {
    EndpointOnNoc src;
    uint64_t dst_addr;
};

class NocStreams : public NocTest {
protected:
    static constexpr uint64_t kPhase2 = 100'000'000;  // 100 us: long after phase 1 ended
    static constexpr uint32_t kN = 16, kLen = 4096;

    std::pair<uint64_t, uint64_t> run_streams(const std::vector<StreamSpec>& specs) {
        build();
        uint64_t t_one = 0;
        std::vector<uint64_t> end(specs.size(), 0);
        for (size_t i = 0; i < specs.size(); ++i) {
            Master* m = &master(specs[i].src);
            m->body = [this, m, i, &specs, &end, &t_one] {
                if (i == 0) {
                    stream(*m, specs[i].dst_addr);
                    t_one = now_ps();
                    ASSERT_LT(t_one, kPhase2);
                }
                m->at(kPhase2);
                stream(*m, specs[i].dst_addr);
                end[i] = now_ps() - kPhase2;
            };
        }
        sc_core::sc_start();
        return {t_one, *std::max_element(end.begin(), end.end())};
    }
    void stream(Master& m, uint64_t addr) {
        std::vector<uint8_t> buf(kLen, 0x33);
        for (uint32_t k = 0; k < kN; ++k) {
            auto x = m.xfer_wait(tlm::TLM_WRITE_COMMAND, addr, buf.data(), kLen);
            ASSERT_TRUE(x.ok) << x.why;
        }
    }
};

TEST_F(NocStreams, TwoStreamsSharingALinkTakeTwiceAsLong) {
    // (1,1) -> (5,1) and (2,1) -> (6,1) share the east links of (2,1), (3,1) and (4,1).
    ASSERT_EQ(s2_qpe_index(2, 1), 6);
    const StreamSpec a{EndpointOnNoc{0}, s2_pe_global_addr(5, 1, 0, 0)};
    const StreamSpec b{EndpointOnNoc{6 * 4}, s2_pe_global_addr(6, 1, 1, 0)};
    const auto [t_one, t_two] = run_streams({a, b});
    // Alone: 16 trains of 2 + 4 * 5 + 256 cycles.
    EXPECT_EQ(t_one, kN * train_ps(4, kLen / 16));
    // Together: the shared links carry twice the flits, one per cycle, so phase 2 lasts at least
    // 2 * 16 * 256 cycles; each stream's head latency hides behind the other's flits, so it ends
    // within one train of that bound (~1.84x the single stream, whose latency is not hidden).
    const uint64_t link_bound = 2 * kN * (kLen / 16) * period_ps;
    EXPECT_GE(t_two, link_bound);
    EXPECT_LE(t_two, link_bound + train_ps(4, kLen / 16));
    const double ratio = static_cast<double>(t_two) / static_cast<double>(t_one);
    EXPECT_GT(ratio, 1.8);
    EXPECT_LT(ratio, 2.05);
    // The shared link carried all three streams' flits (phase 1 and both of phase 2).
    bool found = false;
    for (uint32_t l = 0; l < noc->n_links(); ++l)
        if (noc->link_name(LinkOnNoc{l}) == "x3y1_e") {
            EXPECT_EQ(noc->link_flits(LinkOnNoc{l}), 3u * kN * kLen / 16);
            found = true;
        }
    EXPECT_TRUE(found);
}

TEST_F(NocStreams, DisjointPathsDoNotSlowEachOther) {
    const StreamSpec a{EndpointOnNoc{0}, s2_pe_global_addr(5, 1, 0, 0)};      // row 1
    const StreamSpec b{EndpointOnNoc{1 * 4}, s2_pe_global_addr(5, 2, 0, 0)};  // (1,2) -> (5,2)
    const auto [t_one, t_two] = run_streams({a, b});
    EXPECT_EQ(t_two, t_one);
}

// Transfers issued back to back at one time from one PE serialise on its injection link; the
// rate approaches flit_bytes per NoC cycle.
TEST_F(NocTest, LongStreamApproachesFlitBandwidth) {
    build();
    Master& m = master(pe(1, 1, 0));
    const uint32_t n = 64, len = 4096;
    uint64_t last = 0;
    m.body = [&] {
        std::vector<uint8_t> buf(len, 1);
        for (uint32_t k = 0; k < n; ++k) {
            auto x = m.xfer(tlm::TLM_WRITE_COMMAND, s2_pe_global_addr(7, 6, 0, 0), buf.data(), len);
            ASSERT_TRUE(x.ok) << x.why;
            last = std::max(last, x.delay_ps);
        }
    };
    sc_core::sc_start();
    // The head latency once, then n * 256 flits at one per cycle.
    EXPECT_EQ(last, train_ps(11, uint64_t{n} * len / 16));
    const double rate = static_cast<double>(n) * len / (static_cast<double>(last) * 1e-12);
    const double peak = 16.0 * 300e6;
    EXPECT_GT(rate, 0.99 * peak);
    EXPECT_LE(rate, peak * 1.0002);  // 1.0002: the 300 MHz period is rounded to 3333 ps
}

// Random traffic from many masters: every link's reservations are disjoint, the per-link
// counters equal the recorded intervals, and every transfer took at least its contention-free
// latency (causality).
TEST_F(NocTest, ReservationsNeverOverlap) {
    build();
    std::map<uint32_t, std::vector<std::pair<uint64_t, uint64_t>>> booked;
    noc->on_reserve = [&](LinkOnNoc l, uint64_t s, uint64_t e) {
        ASSERT_LT(s, e);
        booked[l.value].emplace_back(s, e);
    };
    std::mt19937 rng(99);
    const uint32_t n_ep = noc->n_endpoints();
    std::vector<uint32_t> pes(152);
    for (uint32_t i = 0; i < 152; ++i) pes[i] = i;
    std::shuffle(pes.begin(), pes.end(), rng);
    for (int i = 0; i < 24; ++i) {
        const EndpointOnNoc src{pes[i]};
        Master* m = &master(src);
        const uint32_t seed = rng();
        m->body = [&, m, src, seed] {
            std::mt19937 r(seed);
            for (int k = 0; k < 40; ++k) {
                const EndpointOnNoc dst{static_cast<uint32_t>(r() % (n_ep - 2))};  // no host/router
                const uint32_t len = 16 * (1 + r() % 64);
                const uint64_t addr =
                    dst.value < 152 ? s2_pe_global_addr(noc->position(dst).x, noc->position(dst).y,
                                                        dst.value % 4, 0)
                                    : s2_dram_global_addr(dst.value - 152, 0);
                std::vector<uint8_t> buf(len);
                const bool rd = r() % 2;
                const uint64_t issue_delay = (r() % 4) * 1000;
                auto x = m->xfer(rd ? tlm::TLM_READ_COMMAND : tlm::TLM_WRITE_COMMAND, addr,
                                 buf.data(), len, issue_delay);
                ASSERT_TRUE(x.ok) << x.why;
                const uint32_t h = noc->hops(src, dst);
                const uint64_t min_ps = issue_delay + (rd ? train_ps(h, 1) + train_ps(h, len / 16)
                                                          : train_ps(h, len / 16));
                EXPECT_GE(x.delay_ps, min_ps);
                if (r() % 3) wait(sc_time::from_value(x.delay_ps));
            }
        };
    }
    sc_core::sc_start();
    uint64_t total_flits = 0;
    for (auto& [link, iv] : booked) {
        std::sort(iv.begin(), iv.end());
        uint64_t busy = 0;
        for (size_t k = 0; k < iv.size(); ++k) {
            busy += iv[k].second - iv[k].first;
            if (k) {
                ASSERT_LE(iv[k - 1].second, iv[k].first) << noc->link_name(LinkOnNoc{link});
            }
        }
        EXPECT_EQ(noc->link_busy_ps(LinkOnNoc{link}), busy);
        EXPECT_EQ(noc->link_busy_ps(LinkOnNoc{link}), noc->link_flits(LinkOnNoc{link}) * period_ps);
        total_flits += noc->link_flits(LinkOnNoc{link});
    }
    EXPECT_EQ(noc->transactions(), 24u * 40u);
    // Every flit crosses its injection and ejection link plus its mesh hops.
    EXPECT_EQ(total_flits, 2 * noc->flits() + noc->flit_hops());
    EXPECT_GT(booked.size(), 50u);
}

TEST_F(NocTest, ErrorsNameTheReason) {
    NocParams p;
    p.n_qpes = 10;                    // QPEs (1,1)..(2,4): index 10 and up are absent
    build(p, nullptr, {10 * 4 + 2});  // nothing bound to the host endpoint
    Master& m = master(pe(1, 1, 0));
    m.body = [&] {
        uint8_t buf[64] = {};
        auto x = m.xfer(tlm::TLM_WRITE_COMMAND, s2_pe_global_addr(4, 3, 0, 0), buf, 16);
        EXPECT_FALSE(x.ok);
        EXPECT_NE(x.why.find("no QPE at (4,3)"), std::string::npos) << x.why;
        x = m.xfer(tlm::TLM_READ_COMMAND, s2_pe_global_addr(6, 6, 0, 0), buf, 16);  // beyond n_qpes
        EXPECT_FALSE(x.ok);
        EXPECT_NE(x.why.find("no QPE at (6,6)"), std::string::npos) << x.why;
        x = m.xfer(tlm::TLM_READ_COMMAND, s2_pe_global_addr(1, 2, 1, 128 * 1024 - 8), buf, 16);
        EXPECT_FALSE(x.ok);
        EXPECT_NE(x.why.find("PE SRAM"), std::string::npos) << x.why;
        x = m.xfer(tlm::TLM_READ_COMMAND, s2_dram_global_addr(1, 0) - 8, buf, 16);
        EXPECT_FALSE(x.ok);
        EXPECT_NE(x.why.find("DRAM interface 0"), std::string::npos) << x.why;
        x = m.xfer(tlm::TLM_READ_COMMAND, 0x10000000u, buf, 4);
        EXPECT_FALSE(x.ok);
        EXPECT_NE(x.why.find("no NoC endpoint"), std::string::npos) << x.why;
        EXPECT_NE(x.why.find("0x10000000"), std::string::npos) << x.why;
        x = m.xfer(tlm::TLM_WRITE_COMMAND, S2_HOST_GLOBAL_BASE + 64, buf, 16);
        EXPECT_FALSE(x.ok);
        EXPECT_NE(x.why.find("nothing bound to host"), std::string::npos) << x.why;
        EXPECT_EQ(noc->errors(), 6u);
        EXPECT_EQ(noc->flits(), 0u);  // rejected accesses never enter the mesh
    };
    sc_core::sc_start();
}

// The PE DMA sends off-PE addresses minus S2_EXT_BASE; the platform sets the offset on its port.
// Debug transport reaches the same memory without time and without counting.
TEST_F(NocTest, InAddressOffsetAndDebugTransport) {
    build();
    const EndpointOnNoc src = pe(3, 2, 1);
    noc->set_in_address_offset(src, S2_EXT_BASE);
    Master& m = master(src);
    m.body = [&] {
        const uint32_t global = s2_pe_global_addr(6, 5, 2, 0x40);
        uint32_t v = 0xCAFEF00Du;
        auto x =
            m.xfer(tlm::TLM_WRITE_COMMAND, global - S2_EXT_BASE, reinterpret_cast<uint8_t*>(&v), 4);
        ASSERT_TRUE(x.ok) << x.why;
        uint32_t got = 0;
        std::memcpy(&got, mems[pe(6, 5, 2).value]->data() + 0x40, 4);
        EXPECT_EQ(got, v);
        EXPECT_EQ(m.dbg_read(global - S2_EXT_BASE), v);
        // DRAM interface 1 local address: offset inside the interface.
        const uint32_t dram = s2_dram_global_addr(1, 0x1230);
        EXPECT_EQ(m.write(dram - S2_EXT_BASE, 0x12345678u).ok, true);
        std::memcpy(&got, mems[noc->dram_endpoint(1).value]->data() + 0x1230, 4);
        EXPECT_EQ(got, 0x12345678u);
        EXPECT_EQ(noc->transactions(), 2u);
    };
    sc_core::sc_start();
}

TEST_F(NocTest, SummaryCounters) {
    nmsim::test::MemorySink sink;
    build(NocParams{}, &sink);
    Master& m = master(pe(1, 1, 0));
    m.body = [&] {
        std::vector<uint8_t> buf(64, 1);
        // 4 flits over 3 hops ((1,1) -> (2,3)), then a read: 1 request + 4 response flits.
        ASSERT_TRUE(
            m.xfer_wait(tlm::TLM_WRITE_COMMAND, s2_pe_global_addr(2, 3, 0, 0), buf.data(), 64).ok);
        ASSERT_TRUE(
            m.xfer_wait(tlm::TLM_READ_COMMAND, s2_pe_global_addr(2, 3, 0, 0), buf.data(), 64).ok);
    };
    sc_core::sc_start();
    noc->write_summary();
    EXPECT_EQ(sink.counter_value("noc", "transactions"), 2.0);
    EXPECT_EQ(sink.counter_value("noc", "bytes"), 128.0);
    EXPECT_EQ(sink.counter_value("noc", "flits"), 9.0);
    EXPECT_EQ(sink.counter_value("noc", "flit_hops"), 27.0);
    EXPECT_EQ(sink.counter_value("noc", "errors"), 0.0);
    // XY: the request path goes east then north, the response west then south.
    EXPECT_EQ(sink.counter_value("noc", "link.x1y1_e.flits"), 5.0);  // write + read request
    EXPECT_EQ(sink.counter_value("noc", "link.x1y3_s.flits"), 4.0);  // read response
    EXPECT_FALSE(sink.has_counter("noc", "link.x2y2_s.flits"));
    EXPECT_EQ(sink.counter_value("noc", "link.pe_x1y1_0_inject.busy_ps"),
              static_cast<double>(5 * period_ps));
    EXPECT_FALSE(sink.has_counter("noc", "link.x5y5_e.flits"));  // idle links are left out
}

// A QPE multicast (NocMulticastExt): one train over the injection link and the mesh, one
// ejection link per selected PE; every selected PE's memory gets the data at the same arrival
// time, the others nothing; the mesh hops count once. Malformed multicasts are errors.
TEST_F(NocTest, QpeMulticastSharesTheMeshPathAndEjectsToEachSelectedPe) {
    build();
    std::map<uint32_t, std::vector<std::pair<uint64_t, uint64_t>>> booked;
    noc->on_reserve = [&](LinkOnNoc l, uint64_t s, uint64_t e) {
        booked[l.value].emplace_back(s, e);
    };
    const EndpointOnNoc src = noc->router_endpoint();
    Master& m = master(src);
    const uint32_t qx = 2, qy = 5;
    const uint32_t hops = manhattan(MeshPos{4, 3}, MeshPos{qx, qy});
    Master::Xfer ok, read, bad_mask, not_pe;
    m.body = [&] {
        uint8_t buf[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
        auto mc = [&](tlm::tlm_command cmd, uint64_t addr, uint32_t mask) {
            NocMulticastExt ext;
            ext.pe_mask = mask;
            nmsim::BusErrorExt err;
            tlm::tlm_generic_payload p;
            p.set_command(cmd);
            p.set_address(addr);
            p.set_data_ptr(buf);
            p.set_data_length(12);
            p.set_streaming_width(12);
            p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
            p.set_extension(&ext);
            p.set_extension(&err);
            sc_time d;
            m.sock->b_transport(p, d);
            p.clear_extension(&ext);
            p.clear_extension(&err);
            return Master::Xfer{p.is_response_ok(), err.why, d.value()};
        };
        // The address names PE 2 of the QPE; the mask decides (PEs 0, 1 and 3).
        ok = mc(tlm::TLM_WRITE_COMMAND, s2_pe_global_addr(qx, qy, 2, 0x40), 0xBu);
        read = mc(tlm::TLM_READ_COMMAND, s2_pe_global_addr(qx, qy, 0, 0x40), 0x1u);
        bad_mask = mc(tlm::TLM_WRITE_COMMAND, s2_pe_global_addr(qx, qy, 0, 0x40), 0x10u);
        not_pe = mc(tlm::TLM_WRITE_COMMAND, s2_dram_global_addr(0, 0x40), 0x1u);
    };
    sc_core::sc_start();
    ASSERT_TRUE(ok.ok) << ok.why;
    EXPECT_EQ(ok.delay_ps, train_ps(hops, 1));
    for (uint32_t p = 0; p < 4; ++p) {
        const EndpointOnNoc e = pe(qx, qy, p);
        const bool sel = p != 2;
        EXPECT_EQ(mems[e.value]->data()[0x40] == 1 && mems[e.value]->data()[0x4B] == 12, sel) << p;
        const uint32_t eject = noc->route(src, e).back().value;
        EXPECT_EQ(booked.count(eject), sel ? 1u : 0u) << p;
        if (sel) {
            EXPECT_EQ(booked[eject][0].second, train_ps(hops, 1));
        }
    }
    EXPECT_EQ(noc->flits(), 1u);
    EXPECT_EQ(noc->flit_hops(), hops);
    EXPECT_EQ(booked.size(), 1u + hops + 3u);
    EXPECT_FALSE(read.ok);
    EXPECT_NE(read.why.find("a multicast is a write to a PE window"), std::string::npos)
        << read.why;
    EXPECT_FALSE(bad_mask.ok);
    EXPECT_FALSE(not_pe.ok);
}

}  // namespace
}  // namespace nmsim::spinnaker2
