// Unit tests of the PE-to-PE signal unit without the NoC: a fake network stands between the
// sender's `tx` and the receiver's `rx` (it checks the address and size the sender produces and
// annotates a fixed flight time). Checks the packet (global address, {word, source}), arrival
// at send time + flight, the FIFO (order, depth 4, overflow, POP, CLEAR_OVERFLOW), the interrupt
// line, SELF, and the bus errors (bad TARGET, no NoC, network rejection, bad rx access).
#include <gtest/gtest.h>

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <cstring>
#include <functional>
#include <memory>
#include <vector>

#include "models/common/peripheral.h"
#include "models/spinnaker2/signal/signal.h"
#include "nmsim/hw/spinnaker2/noc_map.h"
#include "nmsim/hw/spinnaker2/pe_map.h"
#include "nmsim/hw/spinnaker2/signal_regs.h"
#include "tests/support/bus_master.h"
#include "tests/support/memory_sink.h"
#include "tests/support/systemc_fixture.h"

namespace nmsim::spinnaker2 {
namespace {

using nmsim::test::BusMaster;
using sc_core::SC_NS;
using sc_core::SC_PS;
using sc_core::sc_time;

struct IrqProbe : nmsim::IrqSink {
    std::vector<std::pair<bool, uint64_t>> edges;  // level, time
    void irq_level(unsigned, bool level) override {
        edges.emplace_back(level, sc_core::sc_time_stamp().value());
    }
};

// Stands in for the NoC: records what arrives, adds `flight`, forwards to the receiver's window.
struct FakeNoc : sc_core::sc_module {
    tlm_utils::simple_target_socket<FakeNoc> in;
    tlm_utils::simple_initiator_socket<FakeNoc> out;
    sc_time flight = sc_time(10, SC_NS);
    bool reject = false;
    std::vector<uint64_t> addrs;
    std::vector<unsigned> lens;

    explicit FakeNoc(sc_core::sc_module_name n) : sc_module(n), in("in"), out("out") {
        in.register_b_transport(this, &FakeNoc::b_transport);
    }
    void b_transport(tlm::tlm_generic_payload& p, sc_time& d) {
        addrs.push_back(p.get_address());
        lens.push_back(p.get_data_length());
        if (reject) {
            p.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
            BusErrorExt* e = nullptr;
            p.get_extension(e);
            if (e) e->why = "no such QPE";
            return;
        }
        d += flight;
        p.set_address(0);  // the receiver's window offset (a router subtracts the window base)
        out->b_transport(p, d);
    }
};

// A raw initiator for malformed accesses to rx.
struct RawMaster : sc_core::sc_module {
    tlm_utils::simple_initiator_socket<RawMaster> sock;
    explicit RawMaster(sc_core::sc_module_name n) : sc_module(n), sock("sock") {}
    tlm::tlm_response_status write(uint64_t addr, unsigned len) {
        uint8_t data[16] = {};
        tlm::tlm_generic_payload p;
        p.set_command(tlm::TLM_WRITE_COMMAND);
        p.set_address(addr);
        p.set_data_ptr(data);
        p.set_data_length(len);
        p.set_streaming_width(len);
        p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        sc_time d;
        sock->b_transport(p, d);
        return p.get_response_status();
    }
};

constexpr uint64_t reg(uint32_t off) { return off; }

uint32_t status(bool pending, bool overflow, uint32_t count) {
    return (pending ? 1u : 0u) << S2_SIGNAL_STATUS_PENDING_SHIFT |
           (overflow ? 1u : 0u) << S2_SIGNAL_STATUS_OVERFLOW_SHIFT |
           count << S2_SIGNAL_STATUS_COUNT_SHIFT;
}

class SignalTest : public nmsim::test::SystemCTest {
protected:
    void build() {
        sc_core::sc_set_time_resolution(1, SC_PS);
        a = std::make_unique<Signal>("a", &sink);
        b = std::make_unique<Signal>("b", &sink);
        noc = std::make_unique<FakeNoc>("noc");
        ma = std::make_unique<BusMaster>("ma");
        mb = std::make_unique<BusMaster>("mb");
        a->set_index(5);
        b->set_index(150);
        a->tx.bind(noc->in);
        noc->out.bind(b->rx);
        ma->sock.bind(a->cfg);
        mb->sock.bind(b->cfg);
        b->irq.bind(probe, S2_IRQ_SIGNAL);
    }
    void run(std::function<void()> body) {
        ma->body = std::move(body);
        sc_core::sc_start();
    }
    static uint64_t now_ps() { return sc_core::sc_time_stamp().value(); }

    nmsim::test::MemorySink sink;
    IrqProbe probe;
    std::unique_ptr<Signal> a, b;
    std::unique_ptr<FakeNoc> noc;
    std::unique_ptr<BusMaster> ma, mb;
};

TEST_F(SignalTest, WordArrivesAfterTheFlightWithItsSourceAndRaisesTheIrq) {
    build();
    uint64_t t_send = 0, t_before = 0;
    uint32_t st_before = 0, st_after = 0, word = 0, src = 0, self_a = 0, self_b = 0;
    run([&] {
        self_a = ma->rd(reg(S2_SIGNAL_SELF));
        self_b = mb->rd(reg(S2_SIGNAL_SELF));
        sc_core::wait(sc_time(100, SC_NS));
        ma->wr(reg(S2_SIGNAL_TARGET), 150);
        t_send = now_ps();
        ma->wr(reg(S2_SIGNAL_SEND), 0xCAFEF00Du);
        EXPECT_EQ(now_ps(), t_send);  // posted: the sender does not wait
        sc_core::wait(sc_time(9999, SC_PS));
        st_before = mb->rd(reg(S2_SIGNAL_STATUS));
        t_before = now_ps();
        sc_core::wait(sc_time(1, SC_PS));
        st_after = mb->rd(reg(S2_SIGNAL_STATUS));
        word = mb->rd(reg(S2_SIGNAL_RX_WORD));
        src = mb->rd(reg(S2_SIGNAL_RX_SOURCE));
        mb->wr(reg(S2_SIGNAL_ACK), 1u << S2_SIGNAL_ACK_POP_SHIFT);
    });
    EXPECT_EQ(self_a, 5u);
    EXPECT_EQ(self_b, 150u);
    // PE 150 = QPE 37, PE 2: its global window, at the signal offset, minus S2_EXT_BASE.
    uint32_t qx = 0, qy = 0;
    ASSERT_TRUE(s2_qpe_coord(37, &qx, &qy));
    ASSERT_EQ(noc->addrs.size(), 1u);
    EXPECT_EQ(noc->addrs[0],
              uint64_t{s2_pe_global_addr(qx, qy, 2, S2_SIGNAL_RX_OFFSET)} - S2_EXT_BASE);
    EXPECT_EQ(noc->lens[0], 8u);
    EXPECT_EQ(t_before, t_send + 9999);
    EXPECT_EQ(st_before, status(false, false, 0));
    EXPECT_EQ(st_after, status(true, false, 1));
    EXPECT_EQ(word, 0xCAFEF00Du);
    EXPECT_EQ(src, 5u);
    ASSERT_EQ(probe.edges.size(), 2u);
    EXPECT_TRUE(probe.edges[0].first);
    EXPECT_EQ(probe.edges[0].second, t_send + 10000);
    EXPECT_FALSE(probe.edges[1].first);
    EXPECT_EQ(b->queued(), 0u);
    EXPECT_EQ(a->sent(), 1u);
    EXPECT_EQ(b->received(), 1u);
}

TEST_F(SignalTest, FifoKeepsOrderHoldsFourAndFlagsOverflow) {
    build();
    std::vector<uint32_t> words;
    uint32_t st_full = 0, st_cleared = 0, st_empty = 0;
    run([&] {
        ma->wr(reg(S2_SIGNAL_TARGET), 150);
        for (uint32_t i = 0; i < 6; ++i) ma->wr(reg(S2_SIGNAL_SEND), 100 + i);
        sc_core::wait(sc_time(20, SC_NS));
        st_full = mb->rd(reg(S2_SIGNAL_STATUS));
        mb->wr(reg(S2_SIGNAL_ACK), 1u << S2_SIGNAL_ACK_CLEAR_OVERFLOW_SHIFT);
        st_cleared = mb->rd(reg(S2_SIGNAL_STATUS));
        while (mb->rd(reg(S2_SIGNAL_STATUS)) & (1u << S2_SIGNAL_STATUS_PENDING_SHIFT)) {
            words.push_back(mb->rd(reg(S2_SIGNAL_RX_WORD)));
            mb->wr(reg(S2_SIGNAL_ACK), 1u << S2_SIGNAL_ACK_POP_SHIFT);
        }
        st_empty = mb->rd(reg(S2_SIGNAL_STATUS));
    });
    EXPECT_EQ(st_full, status(true, true, S2_SIGNAL_FIFO_DEPTH));
    EXPECT_EQ(st_cleared, status(true, false, S2_SIGNAL_FIFO_DEPTH));
    EXPECT_EQ(words, (std::vector<uint32_t>{100, 101, 102, 103}));
    EXPECT_EQ(st_empty, status(false, false, 0));
    EXPECT_EQ(b->received(), 6u);
    EXPECT_EQ(b->dropped(), 2u);
    EXPECT_FALSE(b->irq.level());
}

TEST_F(SignalTest, SendErrorsNameTheirReason) {
    build();
    auto c = std::make_unique<Signal>("c", &sink);  // tx unbound: a platform without NoC
    auto mc = std::make_unique<BusMaster>("mc");
    mc->sock.bind(c->cfg);
    BusMaster::Result bad_target, no_noc, rejected;
    run([&] {
        ma->wr(reg(S2_SIGNAL_TARGET), S2_NOC_N_PES);
        bad_target = ma->write(reg(S2_SIGNAL_SEND), 1);
        mc->wr(reg(S2_SIGNAL_TARGET), 1);
        no_noc = mc->write(reg(S2_SIGNAL_SEND), 1);
        noc->reject = true;
        ma->wr(reg(S2_SIGNAL_TARGET), 7);
        rejected = ma->write(reg(S2_SIGNAL_SEND), 1);
    });
    EXPECT_FALSE(bad_target.ok);
    EXPECT_NE(bad_target.why.find("TARGET 152 is not a PE index"), std::string::npos)
        << bad_target.why;
    EXPECT_FALSE(no_noc.ok);
    EXPECT_NE(no_noc.why.find("no NoC"), std::string::npos) << no_noc.why;
    EXPECT_FALSE(rejected.ok);
    EXPECT_NE(rejected.why.find("no such QPE"), std::string::npos) << rejected.why;
    EXPECT_EQ(a->sent(), 0u);
    EXPECT_EQ(c->sent(), 0u);
    EXPECT_EQ(noc->addrs.size(), 1u);  // only the rejected one reached the network
}

TEST_F(SignalTest, RxAcceptsOnlyOneEightByteWordAtOffsetZero) {
    build();
    auto raw = std::make_unique<RawMaster>("raw");
    auto d = std::make_unique<Signal>("d", &sink);
    auto md = std::make_unique<BusMaster>("md");
    raw->sock.bind(d->rx);
    md->sock.bind(d->cfg);
    tlm::tlm_response_status short_write{}, off_write{}, good{};
    run([&] {
        short_write = raw->write(0, 4);
        off_write = raw->write(8, 8);
        good = raw->write(0, 8);
    });
    EXPECT_EQ(short_write, tlm::TLM_ADDRESS_ERROR_RESPONSE);
    EXPECT_EQ(off_write, tlm::TLM_ADDRESS_ERROR_RESPONSE);
    EXPECT_EQ(good, tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(d->queued(), 1u);
}

TEST_F(SignalTest, RegisterAccessRights) {
    build();
    BusMaster::Result rd_send, wr_word, wr_self;
    run([&] {
        rd_send = ma->read(reg(S2_SIGNAL_SEND));
        wr_word = ma->write(reg(S2_SIGNAL_RX_WORD), 1);
        wr_self = ma->write(reg(S2_SIGNAL_SELF), 1);
    });
    EXPECT_FALSE(rd_send.ok);
    EXPECT_FALSE(wr_word.ok);
    EXPECT_FALSE(wr_self.ok);
}

}  // namespace
}  // namespace nmsim::spinnaker2
