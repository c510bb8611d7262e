// A TLM bus master for unit tests of memory-mapped models: it stands in for the core.
//
// Use: bind `sock` to the model's target socket, set `body` to the test code and call
// sc_core::sc_start(). The body runs in this module's SC_THREAD, so it may wait() between
// accesses; the simulation ends when no process has anything left to do (a model that keeps
// scheduling events, like a running timer, needs the body to call sc_core::sc_stop()).
//
// Every access is one 4-byte transaction (the register banks accept no other size, and no test
// uses another) with a BusErrorExt attached, so that a rejected access returns the model's
// reason in Result::why.
//
// Timing follows the core (models/arm/cortex_m4f.cpp, CortexM4F::mmio):
//  - `delay` passed in is how far the initiator's local time is ahead of sc_time_stamp(): the
//    access happens at sc_time_stamp() + delay (a model may sync to it, or add to it).
//  - read() and write() wait out the delay that b_transport returns (the one passed in plus any
//    stall the target added), so that afterwards sc_time_stamp() is the time at which the core
//    would continue. A zero delay costs nothing: like the core, no wait and so no delta cycle.
//  - transport() makes the same access but leaves the returned delay to the caller, for tests
//    that look at the delay before (or instead of) consuming it.
#pragma once

#include <tlm_utils/simple_initiator_socket.h>

#include <cstdint>
#include <functional>
#include <string>
#include <systemc>
#include <tlm>

namespace nmsim::test {

class BusMaster : public sc_core::sc_module {
public:
    // What a read starts from: a target that answers OK without writing the data shows up.
    static constexpr uint32_t kPoison = 0xDEADBEEFu;

    struct Result {
        bool ok = false;  // status == TLM_OK_RESPONSE
        tlm::tlm_response_status status = tlm::TLM_INCOMPLETE_RESPONSE;
        // A read: the data returned (kPoison if the target wrote none); a write: the value sent.
        uint32_t value = 0;
        // The model's reason for an error response (BusErrorExt), else empty.
        std::string why;
        // After b_transport: the delay passed in plus what the target added (its stall).
        sc_core::sc_time delay;
    };

    tlm_utils::simple_initiator_socket<BusMaster> sock;
    std::function<void()> body;  // the test code, run once in this module's SC_THREAD

    explicit BusMaster(sc_core::sc_module_name name);

    // One b_transport access at sc_time_stamp() + delay; does not wait.
    Result transport(tlm::tlm_command cmd, uint64_t addr, uint32_t value,
                     sc_core::sc_time delay = sc_core::SC_ZERO_TIME);
    // transport(), then waits out the returned delay (if any), as the core does.
    Result read(uint64_t addr, sc_core::sc_time delay = sc_core::SC_ZERO_TIME);
    Result write(uint64_t addr, uint32_t value, sc_core::sc_time delay = sc_core::SC_ZERO_TIME);

    // read()/write() that expect TLM_OK_RESPONSE (a gtest failure otherwise, naming the address).
    uint32_t rd(uint64_t addr);
    void wr(uint64_t addr, uint32_t value);

    // A 4-byte debug read (transport_dbg: no side effects, no time); expects 4 bytes transferred.
    uint32_t dbg_read(uint64_t addr);

    // Waits until the absolute time t_ps (in ps: the time resolution must be 1 ps). Fails the
    // test (ASSERT_GE, which returns from at() only) if t_ps is already past.
    void at(uint64_t t_ps);

private:
    void run();
};

}  // namespace nmsim::test
