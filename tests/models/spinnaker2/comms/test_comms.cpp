// Unit tests of the multicast communication controller without NoC and router: a fake router
// (McRouterIf) grants or withholds input slots and records returned credits, a fake network
// stands between `tx` and the router's input port (it records each packet and annotates a fixed
// flight), and a raw initiator writes into the RX window. Checks the TX latch and payload, the
// packet words, the TX FIFO and the stall of a write to a full FIFO until a slot is granted,
// TX_STATUS, the RX FIFO (arrival time, order, PENDING/HAS_PAYLOAD/COUNT, RX_PAYLOAD peek,
// RX_KEY pop, credits back to the router), the IRQ level, overflow without a credit, SELF,
// SENT/RECEIVED, reset values and access rights against the header table, and the bus errors.
#include <gtest/gtest.h>

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <cstring>
#include <functional>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "models/common/param.h"
#include "models/common/peripheral.h"
#include "models/spinnaker2/comms/comms.h"
#include "nmsim/hw/spinnaker2/comms_regs.h"
#include "nmsim/hw/spinnaker2/mc_packet.h"
#include "nmsim/hw/spinnaker2/noc_map.h"
#include "nmsim/hw/spinnaker2/pe_map.h"
#include "nmsim/hw/spinnaker2/router_regs.h"
#include "tests/support/bus_master.h"
#include "tests/support/memory_sink.h"
#include "tests/support/systemc_fixture.h"

namespace nmsim::spinnaker2 {
namespace {

using nmsim::test::BusMaster;
using sc_core::SC_NS;
using sc_core::SC_PS;
using sc_core::sc_time;

uint64_t now_ps() { return sc_core::sc_time_stamp().value(); }

// A bare SC_THREAD running `body` (for test code that is not a bus master).
struct Thread : sc_core::sc_module {
    std::function<void()> body;
    SC_HAS_PROCESS(Thread);
    Thread(sc_core::sc_module_name n, std::function<void()> b) : sc_module(n), body(std::move(b)) {
        SC_THREAD(run);
    }
    void run() { body(); }
};

struct IrqProbe : nmsim::IrqSink {
    std::vector<std::pair<bool, uint64_t>> edges;  // level, time
    void irq_level(unsigned, bool level) override { edges.emplace_back(level, now_ps()); }
};

// The router's side of the flow control: grants while `open`, else queues the sender; counts
// the credits the unit returns.
struct FakeRouter : McRouterIf {
    bool open = true;
    std::vector<McSenderIf*> waiting;
    std::vector<uint32_t> freed;  // PE of each returned credit
    uint32_t requests = 0;
    bool request_input(McSenderIf& s) override {
        ++requests;
        if (open) return true;
        waiting.push_back(&s);
        return false;
    }
    void rx_freed(uint32_t pe) override { freed.push_back(pe); }
    void grant_one() {
        ASSERT_FALSE(waiting.empty());
        McSenderIf* s = waiting.front();
        waiting.erase(waiting.begin());
        s->input_granted();
    }
};

// Stands in for the NoC and the router's input port: records every packet with its time.
struct FakeNet : sc_core::sc_module {
    tlm_utils::simple_target_socket<FakeNet> in;
    struct Pkt {
        uint64_t addr = 0, t_ps = 0;
        uint32_t len = 0, key = 0, payload = 0, ctrl = 0;
    };
    std::vector<Pkt> got;
    bool reject = false;
    explicit FakeNet(sc_core::sc_module_name n) : sc_module(n), in("in") {
        in.register_b_transport(this, &FakeNet::b_transport);
    }
    void b_transport(tlm::tlm_generic_payload& p, sc_time& d) {
        if (reject) {
            p.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
            BusErrorExt* e = nullptr;
            p.get_extension(e);
            if (e) e->why = "no router endpoint";
            return;
        }
        Pkt k;
        k.addr = p.get_address();
        k.len = p.get_data_length();
        k.t_ps = now_ps() + d.value();
        uint32_t w[3] = {};
        std::memcpy(w, p.get_data_ptr(), std::min<uint32_t>(k.len, 12));
        k.key = w[0];
        k.payload = w[1];
        k.ctrl = w[2];
        got.push_back(k);
        d += sc_time(10, SC_NS);
        p.set_response_status(tlm::TLM_OK_RESPONSE);
    }
};

// Writes packets into the RX window the way the router does (12 bytes at offset 0).
struct RawMaster : sc_core::sc_module {
    tlm_utils::simple_initiator_socket<RawMaster> sock;
    explicit RawMaster(sc_core::sc_module_name n) : sc_module(n), sock("sock") {}
    tlm::tlm_response_status write(uint64_t addr, const void* data, unsigned len,
                                   uint64_t delay_ps = 0) {
        uint8_t buf[16] = {};
        std::memcpy(buf, data, len);
        tlm::tlm_generic_payload p;
        p.set_command(tlm::TLM_WRITE_COMMAND);
        p.set_address(addr);
        p.set_data_ptr(buf);
        p.set_data_length(len);
        p.set_streaming_width(len);
        p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        sc_time d = sc_time::from_value(delay_ps);
        sock->b_transport(p, d);
        return p.get_response_status();
    }
    tlm::tlm_response_status packet(uint32_t key, uint32_t payload, bool has_payload,
                                    uint32_t source, uint64_t delay_ps = 0) {
        const uint32_t w[3] = {key, payload, s2_mc_ctrl(has_payload, 0, source)};
        return write(0, w, 12, delay_ps);
    }
};

uint32_t rx_status(bool pending, bool has_payload, uint32_t count) {
    return (pending ? 1u : 0u) << S2_COMMS_RX_STATUS_PENDING_SHIFT |
           (has_payload ? 1u : 0u) << S2_COMMS_RX_STATUS_HAS_PAYLOAD_SHIFT |
           count << S2_COMMS_RX_STATUS_COUNT_SHIFT;
}
uint32_t tx_status(bool full, uint32_t count) {
    return (full ? 1u : 0u) << S2_COMMS_TX_STATUS_FULL_SHIFT |
           count << S2_COMMS_TX_STATUS_COUNT_SHIFT;
}

class CommsTest : public nmsim::test::SystemCTest {
protected:
    void build(const CommsParams& p = CommsParams{}) {
        sc_core::sc_set_time_resolution(1, SC_PS);
        c = std::make_unique<Comms>("c", p, &sink);
        net = std::make_unique<FakeNet>("net");
        m = std::make_unique<BusMaster>("m");
        raw = std::make_unique<RawMaster>("raw");
        c->set_index(37);
        c->set_router(&router);
        c->tx.bind(net->in);
        raw->sock.bind(c->rx);
        m->sock.bind(c->cfg);
        c->irq.bind(probe, S2_IRQ_COMMS_RX);
    }
    void run(std::function<void()> body) {
        m->body = std::move(body);
        sc_core::sc_start();
    }

    nmsim::test::MemorySink sink;
    FakeRouter router;
    IrqProbe probe;
    std::unique_ptr<Comms> c;
    std::unique_ptr<FakeNet> net;
    std::unique_ptr<BusMaster> m;
    std::unique_ptr<RawMaster> raw;
};

TEST_F(CommsTest, TxLatchesThePayloadForOneKeyAndWritesOnePacketToTheRouterPort) {
    build();
    Comms idle("idle", CommsParams{}, &sink);
    BusMaster mi("mi");
    mi.sock.bind(idle.cfg);
    uint32_t self = 0, sent = 0;
    uint64_t t0 = 0, t_after = 0;
    run([&] {
        self = m->rd(S2_COMMS_SELF);
        sc_core::wait(sc_time(100, SC_NS));
        t0 = now_ps();
        m->wr(S2_COMMS_TX_PAYLOAD, 0xCAFEF00Du);
        m->wr(S2_COMMS_TX_KEY, 0x12340001u);
        m->wr(S2_COMMS_TX_KEY, 0x12340002u);  // no payload: the latch was cleared
        t_after = now_ps();
        sent = m->rd(S2_COMMS_SENT);
    });
    EXPECT_EQ(self, 37u);
    EXPECT_EQ(t_after, t0);  // posted: the writes do not wait for the flight
    ASSERT_EQ(net->got.size(), 2u);
    const uint64_t port = uint64_t{S2_ROUTER_GLOBAL_BASE} + S2_ROUTER_MC_IN_OFFSET - S2_EXT_BASE;
    for (const auto& k : net->got) {
        EXPECT_EQ(k.addr, port);
        EXPECT_EQ(k.len, S2_MC_PKT_BYTES);
        EXPECT_EQ(k.t_ps, t0);
        EXPECT_EQ(s2_mc_ctrl_credit(k.ctrl), 1u);
        EXPECT_EQ(s2_mc_ctrl_source(k.ctrl), 37u);
    }
    EXPECT_EQ(net->got[0].key, 0x12340001u);
    EXPECT_EQ(net->got[0].payload, 0xCAFEF00Du);
    EXPECT_EQ(s2_mc_ctrl_has_payload(net->got[0].ctrl), 1u);
    EXPECT_EQ(net->got[1].key, 0x12340002u);
    EXPECT_EQ(net->got[1].payload, 0u);
    EXPECT_EQ(s2_mc_ctrl_has_payload(net->got[1].ctrl), 0u);
    EXPECT_EQ(sent, 2u);
    EXPECT_EQ(c->sent(), 2u);
    EXPECT_EQ(router.requests, 2u);
    // Summary counters; a unit that never sent or received writes none.
    c->write_summary();
    idle.write_summary();
    EXPECT_EQ(sink.counter_value("c", "sent"), 2.0);
    EXPECT_EQ(sink.counter_value("c", "tx_stalls"), 0.0);
    EXPECT_FALSE(sink.has_counter("idle", "sent"));
}

// The router withholds slots: packets queue in the TX FIFO (TX_STATUS), a write to the full FIFO
// completes only when a grant frees a slot, and the packets leave in order, one per grant.
TEST_F(CommsTest, FullTxFifoStallsTheWriteUntilTheRouterGrantsASlot) {
    CommsParams p;
    p.tx_fifo_depth = 4;
    build(p);
    router.open = false;
    uint32_t st_one = 0, st_full = 0, st_after = 0;
    uint64_t t_write = 0, t_done = 0;
    BusMaster::Result stalled;
    // A second thread plays the router: one grant at 1 us, three more at 2 us.
    Thread g("g", [&] {
        sc_core::wait(sc_time(1000, SC_NS));
        router.grant_one();
        sc_core::wait(sc_time(1000, SC_NS));
        router.open = true;
        router.grant_one();
    });
    run([&] {
        m->wr(S2_COMMS_TX_KEY, 100);
        st_one = m->rd(S2_COMMS_TX_STATUS);
        for (uint32_t k = 101; k < 104; ++k) m->wr(S2_COMMS_TX_KEY, k);
        st_full = m->rd(S2_COMMS_TX_STATUS);
        t_write = now_ps();
        stalled = m->write(S2_COMMS_TX_KEY, 104);
        t_done = now_ps();
        sc_core::wait(sc_time(2000, SC_NS));
        st_after = m->rd(S2_COMMS_TX_STATUS);
    });
    // The first packet asked and waits for a grant: it stays in the FIFO.
    EXPECT_EQ(st_one, tx_status(false, 1));
    EXPECT_EQ(st_full, tx_status(true, 4));
    ASSERT_TRUE(stalled.ok) << stalled.why;
    EXPECT_EQ(t_write, 0u);
    EXPECT_EQ(t_done, 1'000'000u);  // the grant at 1 us freed a slot
    EXPECT_EQ(c->tx_stalls(), 1u);
    EXPECT_EQ(c->tx_stall_ps(), 1'000'000u);
    EXPECT_EQ(st_after, tx_status(false, 0));
    ASSERT_EQ(net->got.size(), 5u);
    for (uint32_t i = 0; i < 5; ++i) EXPECT_EQ(net->got[i].key, 100 + i);
    EXPECT_EQ(net->got[0].t_ps, 1'000'000u);
    for (uint32_t i = 1; i < 5; ++i) EXPECT_EQ(net->got[i].t_ps, 2'000'000u) << i;
}

TEST_F(CommsTest, RxShowsTheOldestPacketPopsOnRxKeyAndReturnsACreditPerPop) {
    build();
    std::vector<uint32_t> st, keys, payloads;
    uint32_t st_before = 0, empty_key = 99, received = 0;
    uint64_t t0 = 0;
    run([&] {
        sc_core::wait(sc_time(50, SC_NS));
        t0 = now_ps();
        EXPECT_EQ(raw->packet(0xA, 0x1111, true, 5, 20000), tlm::TLM_OK_RESPONSE);
        EXPECT_EQ(raw->packet(0xB, 0x2222, false, 6, 10000), tlm::TLM_OK_RESPONSE);  // earlier
        EXPECT_EQ(raw->packet(0xC, 0x3333, true, 7, 30000), tlm::TLM_OK_RESPONSE);
        m->at(t0 + 9999);
        st_before = m->rd(S2_COMMS_RX_STATUS);
        m->at(t0 + 30000);
        sc_core::wait(sc_core::SC_ZERO_TIME);
        while (true) {
            const uint32_t s = m->rd(S2_COMMS_RX_STATUS);
            st.push_back(s);
            if (!(s & 1u)) break;
            payloads.push_back(m->rd(S2_COMMS_RX_PAYLOAD));
            EXPECT_EQ(m->rd(S2_COMMS_RX_PAYLOAD), payloads.back());  // a peek: no pop
            keys.push_back(m->rd(S2_COMMS_RX_KEY));
        }
        empty_key = m->rd(S2_COMMS_RX_KEY);
        received = m->rd(S2_COMMS_RECEIVED);
    });
    EXPECT_EQ(st_before, rx_status(false, false, 0));
    // In arrival order: B (t0+10 ns), A (t0+20 ns), C (t0+30 ns).
    EXPECT_EQ(keys, (std::vector<uint32_t>{0xB, 0xA, 0xC}));
    EXPECT_EQ(payloads, (std::vector<uint32_t>{0, 0x1111, 0x3333}));
    ASSERT_EQ(st.size(), 4u);
    EXPECT_EQ(st[0], rx_status(true, false, 3));
    EXPECT_EQ(st[1], rx_status(true, true, 2));
    EXPECT_EQ(st[2], rx_status(true, true, 1));
    EXPECT_EQ(st[3], rx_status(false, false, 0));
    EXPECT_EQ(empty_key, 0u);
    EXPECT_EQ(received, 3u);
    EXPECT_EQ(router.freed, (std::vector<uint32_t>{37, 37, 37}));  // no credit for the empty read
    // The level interrupt: up at the first arrival, down after the last pop.
    ASSERT_EQ(probe.edges.size(), 2u);
    EXPECT_TRUE(probe.edges[0].first);
    EXPECT_EQ(probe.edges[0].second, t0 + 10000);
    EXPECT_FALSE(probe.edges[1].first);
    EXPECT_FALSE(c->irq.level());
}

TEST_F(CommsTest, AWriteWithoutACreditThatWouldOverflowIsDroppedAndCounted) {
    CommsParams p;
    p.rx_fifo_depth = 2;
    build(p);
    uint32_t st = 0;
    run([&] {
        for (uint32_t k = 1; k <= 3; ++k)
            EXPECT_EQ(raw->packet(k, 0, false, 1), tlm::TLM_OK_RESPONSE);
        sc_core::wait(sc_core::SC_ZERO_TIME);
        st = m->rd(S2_COMMS_RX_STATUS);
    });
    EXPECT_EQ(st, rx_status(true, false, 2));
    EXPECT_EQ(c->rx_overflows(), 1u);
    EXPECT_EQ(c->received(), 2u);
}

TEST_F(CommsTest, ErrorsNameTheirReason) {
    build();
    auto lone = std::make_unique<Comms>("lone", CommsParams{}, &sink);  // no router, no NoC
    auto ml = std::make_unique<BusMaster>("ml");
    ml->sock.bind(lone->cfg);
    BusMaster::Result no_router, rejected;
    tlm::tlm_response_status short_rx{}, off_rx{};
    run([&] {
        no_router = ml->write(S2_COMMS_TX_KEY, 1);
        net->reject = true;
        rejected = m->write(S2_COMMS_TX_KEY, 2);
        const uint32_t w[3] = {1, 2, 0};
        short_rx = raw->write(0, w, 8);
        off_rx = raw->write(16, w, 12);
    });
    EXPECT_FALSE(no_router.ok);
    EXPECT_NE(no_router.why.find("no spike router"), std::string::npos) << no_router.why;
    EXPECT_FALSE(rejected.ok);
    EXPECT_NE(rejected.why.find("no router endpoint"), std::string::npos) << rejected.why;
    EXPECT_EQ(short_rx, tlm::TLM_ADDRESS_ERROR_RESPONSE);
    EXPECT_EQ(off_rx, tlm::TLM_ADDRESS_ERROR_RESPONSE);
    EXPECT_EQ(c->received(), 0u);
}

// Reset values (debug reads, no side effects) equal the header table; RO registers refuse
// writes and WO registers reads.
TEST_F(CommsTest, ResetValuesAndAccessRightsFollowTheHeaderTable) {
    build();
    struct Row {
        const char* name;
        uint32_t off, acc, rst;
    };
#define ROW_(name, off, acc, rst, doc) Row{#name, off, acc, rst},
    const Row rows[] = {S2_COMMS_REGS(ROW_)};
#undef ROW_
    std::vector<std::string> bad;
    run([&] {
        for (const Row& r : rows) {
            if (r.acc != NM_WO && std::string(r.name) != "SELF") {
                const uint32_t v = m->dbg_read(r.off);
                if (v != r.rst) bad.push_back(std::string(r.name) + " reset");
            }
            if (r.acc == NM_RO && m->write(r.off, 1).ok) bad.push_back(std::string(r.name) + " w");
            if (r.acc == NM_WO && m->read(r.off).ok) bad.push_back(std::string(r.name) + " r");
        }
    });
    EXPECT_TRUE(bad.empty()) << bad.front();
    EXPECT_EQ(std::size(rows), 9u);
}

TEST(CommsParamsCheck, EveryParameterIsDocumented) {
    const auto problems = nmsim::check_registry(nmsim::registry_of<CommsParams>(), "comms");
    for (const auto& m : problems) ADD_FAILURE() << m;
}

}  // namespace
}  // namespace nmsim::spinnaker2
