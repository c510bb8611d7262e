#include "models/spinnaker2/prng/prng.h"

#include <iterator>

#include "models/common/seeding.h"
#include "nmsim/hw/spinnaker2/prng_regs.h"

namespace nmsim::spinnaker2 {

namespace {

const nmsim::RegDesc kRegs[] = {S2_PRNG_REGS(NMSIM_REG_DESC)};
const bool kRegd = nmsim::register_reg_table("s2.prng", kRegs, std::size(kRegs));

constexpr uint64_t kMwcMultiplier = S2_PRNG_MWC_MULTIPLIER;

// splitmix64 (models/common/seeding.h), a bijective mixer with good avalanche, so that
// consecutive scenario seeds give unrelated generator states.
using nmsim::splitmix64_next;

}  // namespace

KissState Prng::state_from_seed(uint64_t seed) {
    uint64_t s = seed;
    const uint64_t a = splitmix64_next(s);
    const uint64_t b = splitmix64_next(s);
    KissState st;
    st.x = static_cast<uint32_t>(a);
    st.y = static_cast<uint32_t>(a >> 32);
    if (st.y == 0) st.y = 1;
    st.z = static_cast<uint32_t>(b);
    st.c = static_cast<uint32_t>((b >> 32) % (kMwcMultiplier - 1) + 1);
    return st;
}

uint32_t Prng::step(KissState& s) {
    s2_kiss_state_t k{s.x, s.y, s.z, s.c};
    const uint32_t out = s2_kiss_step(&k);
    s = {k.x, k.y, k.z, k.c};
    return out;
}

Prng::Prng(sc_core::sc_module_name name, const PrngParams& params, uint64_t seed,
           nmsim::trace::Sink* sink)
    : Peripheral(name, kRegs, std::size(kRegs), sink),
      m_params(params),
      m_state(state_from_seed(seed)) {
    (void)kRegd;
    m_regs.on_write(S2_PRNG_SEED_X, [this](uint32_t v) {
        m_regs.value(S2_PRNG_SEED_X) = m_state.x = v;
        ++m_seed_writes;
    });
    m_regs.on_write(S2_PRNG_SEED_Y, [this](uint32_t v) {
        m_regs.value(S2_PRNG_SEED_Y) = m_state.y = (v == 0 ? 1u : v);
        ++m_seed_writes;
    });
    m_regs.on_write(S2_PRNG_SEED_Z, [this](uint32_t v) {
        m_regs.value(S2_PRNG_SEED_Z) = m_state.z = v;
        ++m_seed_writes;
    });
    m_regs.on_write(S2_PRNG_SEED_C, [this](uint32_t v) {
        m_regs.value(S2_PRNG_SEED_C) = m_state.c = v;
        ++m_seed_writes;
    });
    m_regs.on_read(S2_PRNG_OUT, [this] { return read_out(); });
}

uint32_t Prng::read_out() {
    const uint32_t v = step(m_state);
    // The stored value is the last output, so debug reads show it without advancing the state.
    m_regs.value(S2_PRNG_OUT) = v;
    ++m_reads;
    m_out_read = true;
    return v;
}

void Prng::b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
    m_out_read = false;
    Peripheral::b_transport(p, delay);
    if (m_out_read)
        delay += sc_core::sc_time::from_value(static_cast<sc_dt::uint64>(m_params.t_read.ps));
}

void Prng::write_summary() {
    if (!m_sink) return;
    m_sink->counter(m_component, "reads", "1", static_cast<double>(m_reads));
    m_sink->counter(m_component, "seed_writes", "1", static_cast<double>(m_seed_writes));
}

}  // namespace nmsim::spinnaker2
