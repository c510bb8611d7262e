// The analog AdEx neuron array of a BrainScaleS-2 chip (512 neurons, seed 004 section 3.1.1):
// membrane, adaptation and exponential synaptic currents integrated in fixed steps, with the
// per-neuron fixed-pattern residual after calibration and optional temporal noise.
// Plain C++ (no SystemC): the chip assembly drives it with advance_to() and add_input().
// Equations, units, numerical method and its error: docs/bss2_neuron.md.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "models/brainscales2/neuron/synaptic_input.h"
#include "models/common/param.h"

namespace nmsim::bss2 {

// One neuron's configuration in physical units (the calibrated targets).
struct NeuronConfig {
    bool enable = false, fire = false, exponential = false, adaptation = false;
    // Hagen mode (BSS2_NRN_CFG_INTEGRATOR): no leak, no spikes; the membrane integrates the
    // synaptic charge from v_reset (docs/bss2_hagen.md).
    bool integrator = false;
    uint32_t addr = 0;  // 8-bit event address (not used by the dynamics)
    double v_leak = 0, v_reset = 0, v_threshold = 0, v_exp = 0, delta_t = 1;        // mV
    double c_mem = 2.2;                                                             // pF
    double tau_mem = 10, tau_syn_exc = 5, tau_syn_inh = 5, tau_w = 100, t_ref = 2;  // us
    double a = 0;                                                                   // uS
    double b = 0, i_offset = 0;                                                     // nA
    double w_exc = 0.3, w_inh = 0.3;  // nA per weight LSB

    // Decode from / encode to the 32 configuration words at BSS2_NEURON(h, c) (bss2_map.h units:
    // uV, fF, ps, pS, fA). Words 18..31 are ignored by decode and written 0 by encode. Encoding
    // rounds to the nearest LSB and saturates at the word's range.
    static NeuronConfig from_words(const uint32_t* words32);
    void to_words(uint32_t* words32) const;

    // True if the dynamics are well defined: c_mem, tau_mem, tau_syn_* > 0, t_ref >= 0, and
    // delta_t > 0 if exponential, tau_w > 0 if adaptation. Otherwise names the field in *error.
    bool valid(std::string* error) const;
    bool operator==(const NeuronConfig& o) const;
};

struct AdexParams {
    NMSIM_PARAMSET(AdexParams);
    NMSIM_PARAM(nmsim::Time, dt, nmsim::Time::from_ns(10), "", nmsim::range(1, 1e6),
                "integration step of the membrane, adaptation and synaptic currents",
                "assumed: 10 ns = 1/1000 of the default tau_mem and 1/30 of the shortest "
                "calibratable tau_syn (hardware_facts.md B1); spike times agree with "
                "Brian2 rk4 within one step (docs/bss2_neuron.md)");
    NMSIM_PARAM(double, mismatch_tau_rel, 0.02, "1", nmsim::range(0, 0.5),
                "fixed-pattern residual after calibration: relative std of tau_mem and tau_syn",
                "assumed: calibration residual of a few percent (the seeds and "
                "hardware_facts.md give no post-calibration spread)");
    NMSIM_PARAM(double, mismatch_c_rel, 0.02, "1", nmsim::range(0, 0.5),
                "fixed-pattern residual: relative std of the membrane capacitance",
                "assumed: MOM capacitor matching of a few percent; not calibrated on the chip");
    NMSIM_PARAM(double, mismatch_w_rel, 0.05, "1", nmsim::range(0, 0.5),
                "fixed-pattern residual: relative std of the synaptic input strength w_exc/w_inh",
                "assumed: synaptic input is calibrated only per quadrant/bias (i_synin_gm), so "
                "a larger residual than the time constants");
    NMSIM_PARAM(double, mismatch_v_mV, 2.0, "mV", nmsim::range(0, 100),
                "fixed-pattern residual: absolute std of v_leak, v_reset and v_threshold",
                "assumed: about half a CADC LSB (1.2 V / 256 = 4.7 mV, calix targets in CADC "
                "LSB, hardware_facts.md B1)");
    NMSIM_PARAM(double, noise_mV, 0.0, "mV", nmsim::range(0, 100),
                "temporal noise: stationary std of the resting membrane (white current noise "
                "filtered by tau_mem); 0 = off",
                "assumed: off by default so runs are reproducible without noise; analog "
                "membrane noise of BSS-2 is not in the public sources (hardware_facts.md S-U)");
    NMSIM_PARAM(double, hagen_mV_per_unit, 1200.0 / 256.0 / 512.0, "mV", nmsim::range(0, 1e3),
                "hagen mode: membrane change per unit of weight x activation (one weight LSB "
                "driven for one pulse step), at the nominal synaptic input strength",
                "assumed: 1/512 CADC LSB (LSB = 1200 mV / 256) per unit: hxtorch's mock gain "
                "of 0.002 LSB per unit (hardware_facts.md, hxtorch MAC tile) rounded to a power "
                "of two so that the ideal setting is exact; the calibrated gain is not public");
    NMSIM_PARAM(double, v_min_mV, 0.0, "mV", nmsim::range(-2000, 2000),
                "lower supply rail the membrane is clamped to", "assumed: 0 V analog ground");
    NMSIM_PARAM(double, v_max_mV, 1200.0, "mV", nmsim::range(-2000, 5000),
                "upper supply rail the membrane is clamped to",
                "assumed: 1.2 V analog supply of the 65 nm process (CADC range 0..1.2 V as in "
                "tools/compiler/bss2/network.h)");
};

class AdexArray {
public:
    AdexArray(size_t n, const AdexParams& p, uint64_t seed);
    size_t size() const { return m_cfg.size(); }

    // Applies `cfg` to neuron i plus its fixed-pattern mismatch, drawn deterministically from
    // (seed, i) only. Resets the neuron's state (reset(i)). Throws std::invalid_argument if an
    // enabled cfg is not valid() or i is out of range.
    void configure(size_t i, const NeuronConfig& cfg);
    const NeuronConfig& config(size_t i) const { return m_cfg.at(i); }  // without mismatch
    NeuronConfig effective(size_t i) const;                             // with mismatch
    void reset(size_t i);  // V = v_leak, w = 0, synaptic currents 0, not refractory

    // A synaptic event: `amount` = weight (0..63) x efficacy. The current jump (amount * w_exc
    // or w_inh, nA) is applied at the first step boundary >= t_ps (events in the past at the
    // next step to integrate). O(1) amortised. Inputs to disabled neurons are dropped.
    void add_input(size_t i, bool inhibitory, double amount, uint64_t t_ps);
    // The inputs of one row event: add_input(first + in[k].column, inhibitory, in[k].amount,
    // t_ps) for k < n, with one time conversion and one queue slot for all of them.
    void add_inputs(size_t first, const SynapticInput* in, size_t n, bool inhibitory,
                    uint64_t t_ps);

    // Integrates all enabled neurons from now_ps() to t_ps (rounded down to whole steps) and
    // calls on_spike(neuron, t_spike_ps) for every threshold crossing of a neuron with
    // fire==true, in time order (within a step: neuron index order). The callback may call
    // add_input (times before the end of the current step land on the next step).
    void advance_to(uint64_t t_ps, const std::function<void(uint32_t, uint64_t)>& on_spike);
    // Steps (1..max) the array can be integrated from now_ps() with the inputs queued so far
    // without any neuron spiking or reaching a rail: when every neuron is linear, up to the next
    // queued input or the leap horizon, the fewest steps in which a neuron could reach its
    // threshold (docs/bss2_neuron.md, "Leaps"), whichever is first; 1 otherwise. A caller that
    // integrates that far ahead in one go must bring the array up to date (advance_to) before it
    // adds an input, reconfigures or reads a neuron.
    uint64_t quiet_steps(uint64_t max);
    uint64_t now_ps() const { return m_step * m_dt_ps; }
    bool in_advance() const { return m_in_advance; }  // inside advance_to (a spike callback)

    // Membrane, mV. An integrator (hagen) neuron: v_reset + its integrated charge, clamped to
    // the rails; the charge of events up to now_ps() is included.
    double v(size_t i) const;
    double w(size_t i) const;                                     // adaptation current, nA
    uint64_t steps() const { return m_steps; }                    // integration steps done
    uint64_t neuron_updates() const { return m_neuron_updates; }  // enabled neuron x steps
    uint64_t leaps() const { return m_leaps; }  // multi-step updates (docs/bss2_neuron.md)
    uint64_t leap_steps() const { return m_leap_steps; }  // steps done by them
    uint64_t spikes() const { return m_spikes; }          // threshold crossings
    uint64_t inputs() const { return m_inputs; }          // add_input calls

private:
    struct Event {
        uint32_t neuron;
        uint32_t inhibitory;
        double current;  // nA
        uint64_t step;
    };
    // Per-neuron step coefficients (from the effective config), see docs/bss2_neuron.md.
    struct Coeffs {
        double pu[5] = {0, 0, 0, 0, 0};  // u(t+h) from (u, w, I_exc, I_inh, constant current)
        double pw[5] = {0, 1, 0, 0, 0};  // w(t+h)
        double hu[5] = {0, 0, 0, 0, 0};  // u(t+h/2)
        double de = 0, di = 0;           // synaptic current decay over one step
        double rw_w = 1, rw_c = 0;       // refractory: w(t+h) = rw_w * w + rw_c
        double u_reset = 0, u_th = 0, u_exp = 0;  // relative to v_leak
        double inv_dt = 0, gl_dt = 0;  // exponential current J = gl_dt * exp((u - u_exp) * inv_dt)
        // exp((u - u_exp) * inv_dt) at reset and at rest (1 without the exponential term)
        double e_reset = 1, e_rest = 1;
        double i_offset = 0, u_min = 0, u_max = 0;
        double g_l = 0, inv_c = 0;  // leak conductance (uS), 1 / C (1/pF): spike interpolation
        double b = 0, noise = 0;    // adaptation jump (nA), noise increment std per step (mV)
        uint32_t ref_steps = 0;
        bool fire = false;
    };
    double* field(size_t f) { return m_pk.data() + f * m_stride; }
    const double* field(size_t f) const { return m_pk.data() + f * m_stride; }
    void pack(size_t k, const Coeffs& c);
    void repack();
    void reset_packed(size_t k);
    void apply_events(uint64_t step);
    void finish_step(uint64_t step);
    // Leaps: steps in which no input arrives and no neuron can reach its threshold or a rail are
    // taken as one update with the exact K-step propagator (docs/bss2_neuron.md, "Leaps").
    static constexpr uint32_t kMaxLeap = 32;
    void leap_coefficients(size_t k, const std::array<double, 25>& one_step);
    bool leaps_possible();
    void update_leap_coefficients();
    double horizon(bool hold_counts, double* held_min) const;
    uint64_t free_steps(uint64_t step, uint64_t limit) const;
    uint64_t try_leap(uint64_t k);

    AdexParams m_p;
    uint64_t m_seed;
    uint64_t m_dt_ps;
    double m_h;  // step, us
    std::vector<NeuronConfig> m_cfg;
    std::vector<NeuronConfig> m_eff;
    // Integrator (hagen) neurons: not in the packed ODE state; their membrane change in mV, and
    // the mV per unit of excitatory and inhibitory input with the neuron's mismatch (w / C).
    std::vector<double> m_integ, m_integ_gain_exc, m_integ_gain_inh;
    std::vector<Coeffs> m_co;
    // add_input's per-neuron view of the effective config: the gain per unit of input
    // (excitatory, inhibitory; signed mV for integrators, nA otherwise) and whether enabled.
    std::vector<double> m_input_gain;
    std::vector<uint8_t> m_input_on;
    uint64_t m_last_input_ps = UINT64_MAX, m_last_input_step = 0;  // add_input's last time
    uint64_t input_step(uint64_t t_ps);             // the step an input at t_ps is applied at
    std::vector<Event>& input_slot(uint64_t step);  // where inputs for that step are queued
    std::vector<Event>& ring_slot(uint64_t step);

    // Enabled neurons are packed (ascending index order) into a structure of arrays: field f of
    // packed neuron k at m_pk[f * m_stride + k], m_stride a multiple of 8 plus 8 (padding lanes
    // are inert). Disabled neurons have no state: they rest at v_leak.
    std::vector<uint32_t> m_enabled;  // packed index -> neuron
    std::vector<uint32_t> m_pos;      // neuron -> packed index (or kNone)
    std::vector<double> m_pk;
    // Leaps: each neuron's one-step propagator (row-major 5 x 5) and whether its packed leap
    // coefficients (m_lk, by lane: for K = 2..kMaxLeap the u row of the K-step propagator and
    // the synaptic decays over K steps) are out of date.
    static constexpr size_t kLeapFields = 7;
    std::vector<std::array<double, 25>> m_step_matrix;
    std::vector<uint8_t> m_leap_stale;
    std::vector<double> m_lk;
    int m_leaps_possible = -1;              // cached leaps_possible(); -1 = to be recomputed
    bool m_leap_coefficients_stale = true;  // some m_leap_stale entry is set
    // After a failed bound check the next check waits m_leap_backoff steps (doubling up to 64):
    // a neuron held near threshold would otherwise cost a check at every step.
    uint64_t m_leap_retry_step = 0, m_leap_backoff = 1;
    bool leap_check_due() const { return m_step >= m_leap_retry_step; }
    void leap_check_failed() {
        m_leap_retry_step = m_step + m_leap_backoff;
        m_leap_backoff = std::min<uint64_t>(64, 2 * m_leap_backoff);
    }
    // The step kernel for this CPU (see the .cpp): (fields, flags, stride, lanes, exp cap).
    double (*m_kernel)(double*, double*, size_t, size_t, double) = nullptr;
    // The same for an array of linear neurons only (leaps_possible()): no exponential current.
    double (*m_linear_kernel)(double*, double*, size_t, size_t, double) = nullptr;
    // The leap horizon (fields, stride, lanes, skip held, held min) and the leap (fields, the
    // level's coefficients, stride, lanes, steps), of the same width.
    double (*m_horizon)(const double*, size_t, size_t, bool, double*) = nullptr;
    void (*m_leap)(double*, const double*, size_t, size_t, double) = nullptr;
    // Kernel output per packed lane k: [k] >= 0 recompute exactly, [stride + k] >= 0 spike,
    // [2 stride + k / 8] the largest of both over a block of 8 lanes.
    std::vector<double> m_flags;
    size_t m_stride = 0;

    // Input ring indexed by step (horizon kRing steps) plus an unsorted overflow for later events;
    // a bit per ring slot says whether it holds events (free_steps finds the next one by words).
    static constexpr uint64_t kRing = 4096;
    std::vector<std::vector<Event>> m_ring;
    std::array<uint64_t, kRing / 64> m_ring_busy{};
    std::vector<Event> m_far;
    uint64_t m_far_min = UINT64_MAX;

    std::vector<std::pair<uint32_t, uint64_t>> m_step_spikes;
    bool m_in_advance = false;
    uint64_t m_step = 0;
    uint64_t m_steps = 0, m_neuron_updates = 0, m_spikes = 0, m_inputs = 0;
    uint64_t m_leaps = 0, m_leap_steps = 0;
};

}  // namespace nmsim::bss2
