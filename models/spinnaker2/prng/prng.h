// SpiNNaker2 PE pseudo-random number generator, register map
// firmware/include/nmsim/hw/spinnaker2/prng_regs.h.
//
// Generator: Marsaglia's KISS (the 32-bit version given by D. Jones, "Good practice in
// (pseudo) random number generation for bioinformatics applications", 2010) combining
//   x = 69069 x + 12345                                   (32-bit LCG)
//   y ^= y << 13; y ^= y >> 17; y ^= y << 5                (32-bit xorshift, y != 0)
//   t = 698769069 z + c; c = t >> 32; z = (uint32) t       (multiply-with-carry)
// and returning x + y + z (mod 2^32) on every read of OUT. The chip's generator is a KISS
// variant producing 32 bit per cycle (docs/hardware_facts.md A4), so a value is always ready.
//
// Seeding: at construction the state comes from the scenario seed through splitmix64 (two
// outputs a, b): x = lo(a), y = hi(a) (0 -> 1), z = lo(b), c = hi(b) mod 698769068 + 1, so that
// every seed gives a proper MWC state (0 < c < 698769069) and nearby seeds give unrelated
// streams. SEED_X/Y/Z/C writes set one state word each as written (SEED_Y = 0 stores 1); the
// firmware must keep c below 698769069 and (z, c) != (0, 0) for a full-period MWC, as on chip.
#pragma once

#include <cstdint>

#include "models/common/param.h"
#include "models/common/peripheral.h"
#include "models/common/units.h"

namespace nmsim::spinnaker2 {

struct PrngParams {
    NMSIM_PARAMSET(PrngParams);
    NMSIM_PARAM(nmsim::Time, t_read, nmsim::Time::from_ps(0), "", nmsim::range(0, 1e6),
                "extra bus wait of an OUT read beyond the core's own access time",
                "[2nd] chip paper via hardware_facts.md A4: the per-PE PRNG delivers 32 bit "
                "per cycle, so a value is always ready and a read waits 0 ps");
};

struct KissState {
    uint32_t x, y, z, c;
};

class Prng : public nmsim::Peripheral {
public:
    Prng(sc_core::sc_module_name name, const PrngParams& params, uint64_t seed,
         nmsim::trace::Sink* sink);

    // The state derived from a seed (splitmix64 mixing, see above).
    static KissState state_from_seed(uint64_t seed);
    // Advances `s` by one step and returns the output x + y + z.
    static uint32_t step(KissState& s);

    const KissState& state() const { return m_state; }
    uint64_t reads() const { return m_reads; }

    void write_summary() override;

protected:
    void b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay) override;

private:
    uint32_t read_out();

    PrngParams m_params;
    KissState m_state;
    bool m_out_read = false;  // the access being served read OUT
    uint64_t m_reads = 0;
    uint64_t m_seed_writes = 0;
};

}  // namespace nmsim::spinnaker2
