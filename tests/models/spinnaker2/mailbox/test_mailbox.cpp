// Unit tests of the host mailbox: register reset values and access rights, the doorbell callback
// (value, time, words left by the core), host messages with the interrupt line set and cleared
// by ACK, overwrite of a pending message and counters.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <vector>

#include "models/spinnaker2/mailbox/mailbox.h"
#include "nmsim/hw/spinnaker2/mailbox_regs.h"
#include "nmsim/hw/spinnaker2/pe_map.h"
#include "tests/support/bus_master.h"
#include "tests/support/memory_sink.h"
#include "tests/support/systemc_fixture.h"

namespace nmsim::spinnaker2 {
namespace {

using sc_core::SC_NS;
using sc_core::SC_PS;
using sc_core::sc_time;

using nmsim::test::BusMaster;

// Records level changes of interrupt lines with their times.
struct IrqProbe : nmsim::IrqSink {
    struct Edge {
        unsigned line;
        bool level;
        uint64_t t_ps;
    };
    std::vector<Edge> edges;
    void irq_level(unsigned line, bool level) override {
        edges.push_back(Edge{line, level, sc_core::sc_time_stamp().value()});
    }
};

class MailboxTest : public nmsim::test::SystemCTest {
protected:
    void build() {
        sc_core::sc_set_time_resolution(1, SC_PS);
        mbox = std::make_unique<Mailbox>("mbox", &sink);
        mbox->irq.bind(probe, S2_IRQ_MAILBOX);
        master = std::make_unique<BusMaster>("master");
        master->sock.bind(mbox->cfg);
    }
    void run(std::function<void()> body) {
        master->body = std::move(body);
        sc_core::sc_start();
    }
    static uint64_t now_ps() { return sc_core::sc_time_stamp().value(); }

    nmsim::test::MemorySink sink;
    IrqProbe probe;
    std::unique_ptr<Mailbox> mbox;
    std::unique_ptr<BusMaster> master;
};

TEST_F(MailboxTest, ResetValuesAndAccessRights) {
    build();
    const RegDesc table[] = {S2_MAILBOX_REGS(NMSIM_REG_DESC)};
    run([&] {
        for (const RegDesc& d : table) {
            BusMaster::Result r = master->read(d.offset);
            if (d.access == NM_WO) {
                EXPECT_FALSE(r.ok) << d.name;
                EXPECT_NE(r.why.find(std::string("read of write-only ") + d.name),
                          std::string::npos)
                    << r.why;
            } else {
                EXPECT_TRUE(r.ok) << d.name << ": " << r.why;
                EXPECT_EQ(r.value, d.reset) << d.name;
            }
            if (d.access == NM_RO) {
                BusMaster::Result w = master->write(d.offset, 1);
                EXPECT_FALSE(w.ok) << d.name;
                EXPECT_NE(w.why.find(std::string("write to read-only ") + d.name),
                          std::string::npos)
                    << w.why;
            }
        }
    });
    EXPECT_FALSE(mbox->rang());
    EXPECT_FALSE(mbox->pending());
    EXPECT_FALSE(mbox->irq.level());
    EXPECT_TRUE(probe.edges.empty());
}

TEST_F(MailboxTest, DoorbellCallbackSeesWordsAtWriteTime) {
    build();
    std::vector<std::pair<uint32_t, uint64_t>> rings;
    std::vector<uint32_t> seen_words;
    mbox->on_doorbell = [&](uint32_t code) {
        rings.emplace_back(code, now_ps());
        for (unsigned i = 0; i < 4; ++i) seen_words.push_back(mbox->to_host(i));
    };
    run([&] {
        sc_core::wait(123, SC_NS);
        const uint32_t words[4] = {0x11u, 0x2222u, 0x333333u, 0x44444444u};
        const uint32_t offs[4] = {S2_MAILBOX_TO_HOST0, S2_MAILBOX_TO_HOST1, S2_MAILBOX_TO_HOST2,
                                  S2_MAILBOX_TO_HOST3};
        for (unsigned i = 0; i < 4; ++i) ASSERT_TRUE(master->write(offs[i], words[i]).ok);
        for (unsigned i = 0; i < 4; ++i) EXPECT_EQ(master->read(offs[i]).value, words[i]);
        EXPECT_TRUE(rings.empty());
        ASSERT_TRUE(master->write(S2_MAILBOX_DOORBELL, 7).ok);
        // With an annotated delay the ring happens at the access time (the mailbox syncs).
        sc_core::wait(10, SC_NS);
        BusMaster::Result r = master->write(S2_MAILBOX_DOORBELL, 0, sc_time(5, SC_NS));
        EXPECT_TRUE(r.ok);
        EXPECT_EQ(r.delay, sc_core::SC_ZERO_TIME);
    });
    ASSERT_EQ(rings.size(), 2u);
    EXPECT_EQ(rings[0].first, 7u);
    EXPECT_EQ(rings[0].second, 123000u);
    EXPECT_EQ(rings[1].first, 0u);
    EXPECT_EQ(rings[1].second, 138000u);
    ASSERT_EQ(seen_words.size(), 8u);
    EXPECT_EQ(seen_words[0], 0x11u);
    EXPECT_EQ(seen_words[3], 0x44444444u);
    EXPECT_TRUE(mbox->rang());
    EXPECT_EQ(mbox->last_doorbell(), 0u);
    EXPECT_FALSE(mbox->pending());  // doorbells never touch the host->core direction
    EXPECT_THROW(mbox->to_host(4), std::out_of_range);
    mbox->write_summary();
    EXPECT_EQ(sink.counter_value("mbox", "doorbells"), 2.0);
}

// The host side, as an SC_THREAD of its own.
struct Host : sc_core::sc_module {
    std::function<void()> body;
    SC_HAS_PROCESS(Host);
    explicit Host(sc_core::sc_module_name n) : sc_module(n) { SC_THREAD(run); }
    void run() { body(); }
};

TEST_F(MailboxTest, HostMessageRaisesIrqUntilAck) {
    build();
    Host host("host");
    host.body = [&] {
        sc_core::wait(50, SC_NS);
        mbox->host_send({1u, 2u, 3u, 4u});
        sc_core::wait(200, SC_NS);  // t = 250 ns
        mbox->host_send({5u, 6u, 7u, 8u});
        sc_core::wait(10, SC_NS);  // t = 260 ns: overwrites the pending message
        mbox->host_send({9u, 10u, 11u, 12u});
    };
    run([&] {
        sc_core::wait(100, SC_NS);
        EXPECT_EQ(master->read(S2_MAILBOX_STATUS).value, 1u);
        EXPECT_TRUE(mbox->irq.level());
        EXPECT_EQ(master->read(S2_MAILBOX_FROM_HOST0).value, 1u);
        EXPECT_EQ(master->read(S2_MAILBOX_FROM_HOST3).value, 4u);
        // ACK without bit 0 does nothing.
        ASSERT_TRUE(master->write(S2_MAILBOX_ACK, 2).ok);
        EXPECT_TRUE(mbox->irq.level());
        sc_core::wait(20, SC_NS);  // t = 120 ns
        ASSERT_TRUE(master->write(S2_MAILBOX_ACK, 1).ok);
        EXPECT_FALSE(mbox->irq.level());
        EXPECT_EQ(master->read(S2_MAILBOX_STATUS).value, 0u);
        EXPECT_EQ(master->read(S2_MAILBOX_FROM_HOST1).value, 2u);  // words stay readable
        sc_core::wait(200, SC_NS);  // t = 320 ns: two messages arrived, the second overwrote
        EXPECT_EQ(master->read(S2_MAILBOX_STATUS).value, 1u);
        EXPECT_EQ(master->read(S2_MAILBOX_FROM_HOST0).value, 9u);
        EXPECT_EQ(master->read(S2_MAILBOX_FROM_HOST3).value, 12u);
        ASSERT_TRUE(master->write(S2_MAILBOX_ACK, 1).ok);
        EXPECT_FALSE(mbox->pending());
    });
    // Level line: rise at 50, fall at 120, one rise at 250 (the overwrite keeps it high), fall
    // at 320.
    ASSERT_EQ(probe.edges.size(), 4u);
    const bool levels[4] = {true, false, true, false};
    const uint64_t times[4] = {50000, 120000, 250000, 320000};
    for (size_t i = 0; i < 4; ++i) {
        EXPECT_EQ(probe.edges[i].line, S2_IRQ_MAILBOX);
        EXPECT_EQ(probe.edges[i].level, levels[i]) << i;
        EXPECT_EQ(probe.edges[i].t_ps, times[i]) << i;
    }
    mbox->write_summary();
    EXPECT_EQ(sink.counter_value("mbox", "host_messages"), 3.0);
    EXPECT_EQ(sink.counter_value("mbox", "host_overwrites"), 1.0);
    EXPECT_EQ(sink.counter_value("mbox", "doorbells"), 0.0);
}

}  // namespace
}  // namespace nmsim::spinnaker2
