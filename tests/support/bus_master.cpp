#include "tests/support/bus_master.h"

#include <gtest/gtest.h>

#include <ios>

#include "models/common/peripheral.h"

namespace nmsim::test {

BusMaster::BusMaster(sc_core::sc_module_name name) : sc_module(name), sock("sock") {
    SC_HAS_PROCESS(BusMaster);
    SC_THREAD(run);
}

void BusMaster::run() {
    if (body) body();
}

BusMaster::Result BusMaster::transport(tlm::tlm_command cmd, uint64_t addr, uint32_t value,
                                       sc_core::sc_time delay) {
    uint32_t data = cmd == tlm::TLM_READ_COMMAND ? kPoison : value;
    BusErrorExt ext;
    tlm::tlm_generic_payload p;
    p.set_command(cmd);
    p.set_address(addr);
    p.set_data_ptr(reinterpret_cast<unsigned char*>(&data));
    p.set_data_length(4);
    p.set_streaming_width(4);
    p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    p.set_extension(&ext);
    sock->b_transport(p, delay);
    p.clear_extension(&ext);  // the extension lives on this stack frame, not in the payload
    return Result{p.is_response_ok(), p.get_response_status(), data, ext.why, delay};
}

BusMaster::Result BusMaster::read(uint64_t addr, sc_core::sc_time delay) {
    Result r = transport(tlm::TLM_READ_COMMAND, addr, 0, delay);
    if (r.delay != sc_core::SC_ZERO_TIME) wait(r.delay);
    return r;
}

BusMaster::Result BusMaster::write(uint64_t addr, uint32_t value, sc_core::sc_time delay) {
    Result r = transport(tlm::TLM_WRITE_COMMAND, addr, value, delay);
    if (r.delay != sc_core::SC_ZERO_TIME) wait(r.delay);
    return r;
}

uint32_t BusMaster::rd(uint64_t addr) {
    const Result r = read(addr);
    EXPECT_EQ(r.status, tlm::TLM_OK_RESPONSE) << "read of 0x" << std::hex << addr << ": " << r.why;
    return r.value;
}

void BusMaster::wr(uint64_t addr, uint32_t value) {
    const Result r = write(addr, value);
    EXPECT_EQ(r.status, tlm::TLM_OK_RESPONSE) << "write of 0x" << std::hex << addr << ": " << r.why;
}

uint32_t BusMaster::dbg_read(uint64_t addr) {
    uint32_t data = kPoison;
    tlm::tlm_generic_payload p;
    p.set_command(tlm::TLM_READ_COMMAND);
    p.set_address(addr);
    p.set_data_ptr(reinterpret_cast<unsigned char*>(&data));
    p.set_data_length(4);
    p.set_streaming_width(4);
    EXPECT_EQ(sock->transport_dbg(p), 4u) << "debug read of 0x" << std::hex << addr;
    return data;
}

void BusMaster::at(uint64_t t_ps) {
    const uint64_t now = sc_core::sc_time_stamp().value();
    ASSERT_GE(t_ps, now);
    if (t_ps > now) wait(sc_core::sc_time::from_value(t_ps - now));
}

}  // namespace nmsim::test
