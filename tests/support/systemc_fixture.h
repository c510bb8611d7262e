// Each test gets a fresh SystemC kernel, so that several simulations can run in one process
// (SystemC 2.3 cannot restart a finished simulation context).
#pragma once

#include <gtest/gtest.h>
#include <systemc>

namespace nmsim::test {

inline void fresh_systemc() {
    sc_core::sc_curr_simcontext = new sc_core::sc_simcontext();
    sc_core::sc_default_global_context = sc_core::sc_curr_simcontext;
}

class SystemCTest : public ::testing::Test {
protected:
    void SetUp() override { fresh_systemc(); }
};

}  // namespace nmsim::test
