// Unit tests of nmsim::Memory: several initiators on one target socket (a PE's bus and its NoC
// port share the SRAM), the annotated latency and bandwidth, address errors, zero-initialised
// contents, and a memory that nothing binds.
#include <gtest/gtest.h>

#include <cstring>

#include "models/common/memory.h"
#include "tests/support/bus_master.h"
#include "tests/support/systemc_fixture.h"

namespace nmsim {
namespace {

using nmsim::test::BusMaster;
using sc_core::SC_NS;
using sc_core::SC_PS;
using sc_core::sc_time;

class MemoryTest : public nmsim::test::SystemCTest {
protected:
    void SetUp() override {
        SystemCTest::SetUp();
        sc_core::sc_set_time_resolution(1, SC_PS);
    }
};

TEST_F(MemoryTest, TwoInitiatorsSeeOneStore) {
    Memory mem("mem", 1 << 20, sc_time(5, SC_NS), 1e9);  // 1 GB/s: 4 B take 4 ns
    BusMaster a("a"), b("b");
    a.sock.bind(mem.tgt);
    b.sock.bind(mem.tgt);
    BusMaster::Result wa, rb, wb, ra, bad;
    a.body = [&] {
        wa = a.transport(tlm::TLM_WRITE_COMMAND, 0x100, 0x01020304u);
        rb = b.transport(tlm::TLM_READ_COMMAND, 0x100, 0);
        wb = b.transport(tlm::TLM_WRITE_COMMAND, (1 << 20) - 4, 0xAABBCCDDu);
        ra = a.transport(tlm::TLM_READ_COMMAND, (1 << 20) - 4, 0);
        bad = a.transport(tlm::TLM_READ_COMMAND, (1 << 20) - 2, 0);
    };
    sc_core::sc_start();
    ASSERT_TRUE(wa.ok);
    ASSERT_TRUE(rb.ok);
    EXPECT_EQ(rb.value, 0x01020304u);
    EXPECT_EQ(ra.value, 0xAABBCCDDu);
    EXPECT_EQ(wa.delay, sc_time(9, SC_NS));
    EXPECT_EQ(rb.delay, sc_time(9, SC_NS));
    EXPECT_FALSE(bad.ok);
    EXPECT_EQ(bad.status, tlm::TLM_ADDRESS_ERROR_RESPONSE);
    uint32_t v = 0;
    std::memcpy(&v, mem.data() + 0x100, 4);
    EXPECT_EQ(v, 0x01020304u);
}

TEST_F(MemoryTest, StartsZeroedAndMayStayUnbound) {
    Memory mem("mem", 3 << 20, sc_core::SC_ZERO_TIME);
    EXPECT_EQ(mem.size(), uint64_t{3} << 20);
    for (uint64_t i = 0; i < mem.size(); i += 4093) ASSERT_EQ(mem.data()[i], 0) << i;
    EXPECT_EQ(mem.data()[mem.size() - 1], 0);
    EXPECT_TRUE(mem.contains(0, mem.size()));
    EXPECT_FALSE(mem.contains(1, mem.size()));
    sc_core::sc_start(sc_time(1, SC_NS));  // elaboration accepts the unbound socket
}

}  // namespace
}  // namespace nmsim
