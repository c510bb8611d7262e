// AdexArray against closed-form solutions, an independent fine-step RK4 integration, and its own
// contracts (mismatch, noise, configuration words, input timing, counters).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>
#include <vector>

#include "firmware/include/nmsim/hw/brainscales2/bss2_map.h"
#include "models/brainscales2/neuron/adex_array.h"

namespace {

using nmsim::bss2::AdexArray;
using nmsim::bss2::AdexParams;
using nmsim::bss2::NeuronConfig;
using nmsim::bss2::SynapticInput;

constexpr uint64_t kUs = 1000000;  // ps per us
constexpr uint64_t kDt = 10000;    // default step, ps

AdexParams quiet() {
    AdexParams p;
    p.mismatch_tau_rel = p.mismatch_c_rel = p.mismatch_w_rel = p.mismatch_v_mV = 0;
    p.noise_mV = 0;
    return p;
}

NeuronConfig lif() {
    NeuronConfig c;
    c.enable = c.fire = true;
    c.v_leak = 300;
    c.v_reset = 280;
    c.v_threshold = 400;
    c.c_mem = 2.2;
    c.tau_mem = 10;
    c.tau_syn_exc = 5;
    c.tau_syn_inh = 3;
    c.t_ref = 2;
    c.w_exc = c.w_inh = 0.3;
    return c;
}

std::vector<uint64_t> run_spikes(AdexArray& a, uint64_t t_end, uint32_t neuron = 0) {
    std::vector<uint64_t> out;
    a.advance_to(t_end, [&](uint32_t i, uint64_t t) {
        if (i == neuron) out.push_back(t);
    });
    return out;
}

// Independent reference: classic RK4 on (V, w, I_exc, I_inh) with a much finer step, spike by
// linear interpolation, reset without refractory time (t_ref = 0 in the compared config).
std::vector<double> rk4_reference_spikes(const NeuronConfig& c, double t_end_us, double h_us,
                                         double* v_at, double t_sample_us) {
    auto f = [&c](double v, double w, double ie, double ii, double* dv, double* dw) {
        const double gl = c.c_mem / c.tau_mem;
        double i = -gl * (v - c.v_leak) + ie - ii + c.i_offset;
        // The model caps the exponent at 50 (far above any threshold); so must the reference.
        if (c.exponential)
            i += gl * c.delta_t * std::exp(std::min((v - c.v_exp) / c.delta_t, 50.0));
        if (c.adaptation) i -= w;
        *dv = i / c.c_mem;
        *dw = c.adaptation ? (c.a * (v - c.v_leak) - w) / c.tau_w : 0.0;
    };
    std::vector<double> spikes;
    double v = c.v_leak, w = 0, ie = 0, ii = 0;
    const long n = std::lround(t_end_us / h_us);
    const long n_sample = std::lround(t_sample_us / h_us);
    for (long s = 0; s < n; ++s) {
        if (s == n_sample && v_at) *v_at = v;
        const double t = s * h_us;
        auto syn = [&](double dt) {
            return std::make_pair(ie * std::exp(-dt / c.tau_syn_exc),
                                  ii * std::exp(-dt / c.tau_syn_inh));
        };
        double k1v, k1w, k2v, k2w, k3v, k3w, k4v, k4w;
        auto [e1, i1] = syn(0);
        f(v, w, e1, i1, &k1v, &k1w);
        auto [e2, i2] = syn(h_us / 2);
        f(v + h_us / 2 * k1v, w + h_us / 2 * k1w, e2, i2, &k2v, &k2w);
        f(v + h_us / 2 * k2v, w + h_us / 2 * k2w, e2, i2, &k3v, &k3w);
        auto [e4, i4] = syn(h_us);
        f(v + h_us * k3v, w + h_us * k3w, e4, i4, &k4v, &k4w);
        const double vn = v + h_us / 6 * (k1v + 2 * k2v + 2 * k3v + k4v);
        w += h_us / 6 * (k1w + 2 * k2w + 2 * k3w + k4w);
        ie = e4;
        ii = i4;
        if (vn >= c.v_threshold) {
            spikes.push_back(t + h_us * (c.v_threshold - v) / (vn - v));
            v = c.v_reset;
            w += c.adaptation ? c.b : 0.0;
        } else {
            v = vn;
        }
    }
    return spikes;
}

TEST(AdexArray, PspMatchesClosedFormAndDecaysToLeak) {
    AdexArray a(1, quiet(), 1);
    NeuronConfig c = lif();
    c.v_threshold = 1000;  // never fires
    a.configure(0, c);
    const double amount = 20;  // weight 20, efficacy 1
    a.add_input(0, false, amount, 0);
    const double i0 = amount * c.w_exc, tm = c.tau_mem, ts = c.tau_syn_exc;
    auto closed = [&](double t) {
        return c.v_leak +
               i0 / c.c_mem * tm * ts / (tm - ts) * (std::exp(-t / tm) - std::exp(-t / ts));
    };
    double max_err = 0, max_v = 0;
    for (uint64_t t = kDt; t <= 100 * kUs; t += kDt) {
        a.advance_to(t, nullptr);
        max_err = std::max(max_err, std::fabs(a.v(0) - closed(static_cast<double>(t) / kUs)));
        max_v = std::max(max_v, a.v(0));
    }
    EXPECT_LT(max_err, 1e-9);  // exact propagator: round-off only
    const double t_peak = tm * ts / (tm - ts) * std::log(tm / ts);
    EXPECT_NEAR(max_v, closed(t_peak), 1e-6);  // the peak lies between samples 10 ns apart
    EXPECT_LE(max_v, closed(t_peak) + 1e-12);

    // Once the (short) synaptic current has vanished the membrane relaxes with tau_mem only.
    AdexArray b(1, quiet(), 1);
    c.tau_syn_exc = 0.1;
    b.configure(0, c);
    b.add_input(0, false, 63, 0);
    b.advance_to(5 * kUs, nullptr);
    const double u1 = b.v(0) - c.v_leak;
    b.advance_to(25 * kUs, nullptr);
    const double u2 = b.v(0) - c.v_leak;
    EXPECT_GT(u1, 0.3);
    EXPECT_NEAR(u2 / u1, std::exp(-20.0 / c.tau_mem), 1e-12);
    b.advance_to(400 * kUs, nullptr);
    EXPECT_NEAR(b.v(0), c.v_leak, 1e-12);
}

TEST(AdexArray, LifConstantCurrentFiresAtClosedFormTimes) {
    AdexArray a(1, quiet(), 1);
    NeuronConfig c = lif();
    c.i_offset = 30;  // I R = 136.4 mV > 100 mV to threshold
    a.configure(0, c);
    const auto sp = run_spikes(a, 1000 * kUs);
    const double ir = c.i_offset * c.tau_mem / c.c_mem;
    const double t_first = -c.tau_mem * std::log(1 - (c.v_threshold - c.v_leak) / ir);
    const double t_from_reset =
        -c.tau_mem * std::log((ir - (c.v_threshold - c.v_leak)) / (ir - (c.v_reset - c.v_leak)));
    ASSERT_GT(sp.size(), 50u);
    EXPECT_NEAR(static_cast<double>(sp[0]) / kUs, t_first, 1e-5);  // 10 ps
    // The refractory time counts whole steps from the start of the crossing step, so every ISI
    // lies in [t_ref + T - dt, t_ref + T] (docs/bss2_neuron.md).
    const double isi_max = c.t_ref + t_from_reset, h = static_cast<double>(kDt) / kUs;
    double sum = 0;
    for (size_t k = 1; k < sp.size(); ++k) {
        const double isi = static_cast<double>(sp[k] - sp[k - 1]) / kUs;
        EXPECT_LE(isi, isi_max + 1e-5) << k;
        EXPECT_GE(isi, isi_max - h - 1e-5) << k;
        sum += isi;
    }
    const double rate = (sp.size() - 1) / sum;  // per us
    EXPECT_NEAR(rate, 1.0 / (isi_max - h / 2), 1.0 / isi_max * (h / isi_max));
    EXPECT_EQ(a.spikes(), sp.size());
}

TEST(AdexArray, RefractoryHoldsMembraneAtResetForWholeSteps) {
    AdexArray a(1, quiet(), 1);
    NeuronConfig c = lif();
    c.i_offset = 60;
    c.t_ref = 1.5;  // 150 steps
    a.configure(0, c);
    uint64_t spike_t = 0;
    while (spike_t == 0) a.advance_to(a.now_ps() + kDt, [&](uint32_t, uint64_t t) { spike_t = t; });
    const uint64_t crossing_step_start = (spike_t - 1) / kDt * kDt;
    EXPECT_EQ(a.now_ps(), crossing_step_start + kDt);
    // Held at v_reset up to the start of step crossing + 150, even with strong input arriving.
    a.add_input(0, false, 63, a.now_ps() + 50 * kDt);
    const uint64_t release = crossing_step_start + 150 * kDt;
    std::vector<uint64_t> during;
    while (a.now_ps() < release) {
        EXPECT_EQ(a.v(0), c.v_reset) << a.now_ps();
        a.advance_to(a.now_ps() + kDt, [&](uint32_t, uint64_t t) { during.push_back(t); });
    }
    EXPECT_TRUE(during.empty());
    EXPECT_EQ(a.v(0), c.v_reset);
    a.advance_to(a.now_ps() + kDt, nullptr);
    // Free again: i_offset and the synaptic current that kept decaying during the hold (applied at
    // step crossing + 51, decayed over 99 steps) charge the membrane from v_reset.
    const double gl = c.c_mem / c.tau_mem, h = static_cast<double>(kDt) / kUs;
    const double i_syn = 63 * c.w_exc * std::exp(-99 * h / c.tau_syn_exc);
    const double rise = (c.i_offset + i_syn - gl * (c.v_reset - c.v_leak)) / c.c_mem * h;
    EXPECT_NEAR(a.v(0) - c.v_reset, rise, 0.01 * rise);
}

TEST(AdexArray, AdExMatchesFineRk4Reference) {
    NeuronConfig c = lif();
    c.exponential = c.adaptation = true;
    c.v_leak = 375;
    c.v_reset = 330;
    c.v_threshold = 620;
    c.v_exp = 560;
    c.delta_t = 10;
    c.a = 0.01;
    c.b = 0.3;
    c.tau_w = 50;
    c.t_ref = 0;
    c.i_offset = 60;
    double v_ref = 0;
    const auto ref = rk4_reference_spikes(c, 300, 0.0005, &v_ref, 4.0);
    AdexArray a(1, quiet(), 1);
    a.configure(0, c);
    a.advance_to(4 * kUs, nullptr);
    EXPECT_NEAR(a.v(0), v_ref, 1e-6);  // subthreshold: second-order method at 10 ns
    const auto sp = run_spikes(a, 300 * kUs);
    ASSERT_GE(ref.size(), 5u);
    ASSERT_EQ(sp.size(), ref.size());
    // First spike: integration error only. Later spikes: each reset happens at the end of the
    // crossing step (at most one step late), so allow one step per spike.
    EXPECT_NEAR(static_cast<double>(sp[0]) / kUs, ref[0], 1e-4);  // 100 ps
    for (size_t k = 1; k < sp.size(); ++k)
        EXPECT_NEAR(static_cast<double>(sp[k]) / kUs, ref[k], 0.01 * static_cast<double>(k + 1))
            << k;
}

// v_exp 1000 and 800 delta_t above rest: exp((V - v_exp)/delta_t) underflows to 0 at rest and must
// still come back when the membrane approaches v_exp (also for 1/delta_t < 1).
TEST(AdexArray, ExponentialTermRecoversFromUnderflow) {
    struct Case {
        double v_leak, v_exp, delta_t, above, tau_mem, t_end;  // above: V_inf - v_exp without exp
    };
    // The second case rises slowly (steps of the exponent below kPolyMax from the start), so only
    // the underflow check can restore the factor.
    for (const Case& k : {Case{100, 600, 0.5, 10, 10, 150}, Case{0, 1000, 1.25, 3, 200, 1300}}) {
        NeuronConfig c = lif();
        c.exponential = true;
        c.v_leak = k.v_leak;
        c.v_reset = k.v_leak + 180;
        c.v_exp = k.v_exp;
        c.delta_t = k.delta_t;
        c.tau_mem = k.tau_mem;
        c.v_threshold = 1199;  // unreachable without the exponential term
        c.t_ref = 0;
        c.i_offset = (k.v_exp + k.above - k.v_leak) * c.c_mem / c.tau_mem;
        const auto ref = rk4_reference_spikes(c, k.t_end, 0.002, nullptr, 0);
        AdexArray a(1, quiet(), 1);
        a.configure(0, c);
        const auto sp = run_spikes(a, static_cast<uint64_t>(k.t_end) * kUs);
        ASSERT_GE(ref.size(), 1u) << k.v_exp;
        ASSERT_EQ(sp.size(), ref.size()) << k.v_exp;
        // With delta_t of 0.5..1.25 mV the final upswing takes a few ns or less: the membrane goes
        // from near v_exp to the threshold within one or two steps, so the crossing is resolved to
        // about a step.
        for (size_t n = 0; n < sp.size(); ++n)
            EXPECT_NEAR(static_cast<double>(sp[n]) / kUs, ref[n], 0.02 * (n + 1))
                << k.v_exp << " " << n;
    }
}

TEST(AdexArray, SpikeFrequencyAdaptationAndBJump) {
    AdexArray a(1, quiet(), 1);
    NeuronConfig c = lif();
    c.adaptation = true;
    c.a = 0;
    c.b = 2.0;
    c.tau_w = 100;
    c.i_offset = 40;
    c.t_ref = 0.5;
    a.configure(0, c);
    std::vector<uint64_t> sp;
    std::vector<double> w_before, w_after;
    while (sp.size() < 8) {
        const double wb = a.w(0);
        bool fired = false;
        a.advance_to(a.now_ps() + kDt, [&](uint32_t, uint64_t t) {
            sp.push_back(t);
            fired = true;
        });
        if (fired) {
            w_before.push_back(wb);
            w_after.push_back(a.w(0));
        }
        ASSERT_LT(a.now_ps(), 2000 * kUs);
    }
    const double decay = std::exp(-static_cast<double>(kDt) / kUs / c.tau_w);
    for (size_t k = 0; k < w_before.size(); ++k)
        EXPECT_NEAR(w_after[k], w_before[k] * decay + c.b, 1e-12);
    for (size_t k = 2; k < sp.size(); ++k) EXPECT_GT(sp[k] - sp[k - 1], sp[k - 1] - sp[k - 2]) << k;
}

TEST(AdexArray, MismatchIsDeterministicPerSeedAndNeuronAndSpreadAsParametrised) {
    AdexParams p;  // defaults: mismatch on
    const size_t n = 512;
    AdexArray a(n, p, 42), b(n, p, 42), other(n, p, 43);
    NeuronConfig c = lif();
    for (size_t i = 0; i < n; ++i) a.configure(i, c);
    for (size_t i = n; i-- > 0;) b.configure(i, c);  // reverse order
    other.configure(7, c);
    std::vector<double> tau, vl, w;
    for (size_t i = 0; i < n; ++i) {
        const NeuronConfig ea = a.effective(i), eb = b.effective(i);
        EXPECT_TRUE(ea == eb) << i;
        EXPECT_TRUE(a.config(i) == c);
        tau.push_back(ea.tau_mem / c.tau_mem - 1);
        vl.push_back(ea.v_leak - c.v_leak);
        w.push_back(ea.w_exc / c.w_exc - 1);
        EXPECT_EQ(ea.tau_w, c.tau_w);  // not part of the residual
    }
    EXPECT_NE(a.effective(7).tau_mem, other.effective(7).tau_mem);
    auto stddev = [](const std::vector<double>& x) {
        double m = 0, s = 0;
        for (double v : x) m += v;
        m /= x.size();
        for (double v : x) s += (v - m) * (v - m);
        return std::sqrt(s / (x.size() - 1));
    };
    EXPECT_NEAR(stddev(tau), p.mismatch_tau_rel, 0.15 * p.mismatch_tau_rel);
    EXPECT_NEAR(stddev(vl), p.mismatch_v_mV, 0.15 * p.mismatch_v_mV);
    EXPECT_NEAR(stddev(w), p.mismatch_w_rel, 0.15 * p.mismatch_w_rel);

    AdexArray q(4, quiet(), 42);
    q.configure(2, c);
    EXPECT_TRUE(q.effective(2) == c);
}

TEST(AdexArray, NoiseHasTheParametrisedStdAndIsDeterministic) {
    AdexParams p = quiet();
    p.noise_mV = 2.0;
    const size_t n = 64;
    AdexArray a(n, p, 5), b(n, p, 5), d(n, p, 6);
    NeuronConfig c = lif();
    c.tau_mem = 1;
    c.v_threshold = 1000;
    for (size_t i = 0; i < n; ++i) {
        a.configure(i, c);
        b.configure(i, c);
        d.configure(i, c);
    }
    double s1 = 0, s2 = 0;
    size_t cnt = 0;
    bool differs = false;
    for (uint64_t t = 20 * kUs; t <= 520 * kUs; t += 2 * kUs) {
        a.advance_to(t, nullptr);
        b.advance_to(t, nullptr);
        d.advance_to(t, nullptr);
        for (size_t i = 0; i < n; ++i) {
            const double u = a.v(i) - c.v_leak;
            s1 += u;
            s2 += u * u;
            ++cnt;
            ASSERT_EQ(a.v(i), b.v(i));
            differs |= a.v(i) != d.v(i);
        }
    }
    const double mean = s1 / cnt, sd = std::sqrt(s2 / cnt - mean * mean);
    EXPECT_NEAR(sd, p.noise_mV, 0.05 * p.noise_mV);
    EXPECT_NEAR(mean, 0.0, 0.05 * p.noise_mV);
    EXPECT_TRUE(differs);
}

TEST(AdexArray, ConfigWordsRoundTrip) {
    std::mt19937_64 rng(3);
    std::uniform_real_distribution<double> v(0, 1200), pos(0.1, 100), cur(-5, 5), g(0, 0.5);
    for (int rep = 0; rep < 200; ++rep) {
        NeuronConfig c;
        c.enable = rng() & 1;
        c.fire = rng() & 1;
        c.exponential = rng() & 1;
        c.adaptation = rng() & 1;
        c.addr = rng() & 0xFF;
        c.v_leak = v(rng);
        c.v_reset = v(rng);
        c.v_threshold = v(rng);
        c.v_exp = v(rng);
        c.delta_t = pos(rng) / 10;
        c.c_mem = pos(rng) / 40;
        c.tau_mem = pos(rng);
        c.tau_syn_exc = pos(rng);
        c.tau_syn_inh = pos(rng);
        c.tau_w = pos(rng) * 10;
        c.t_ref = pos(rng) / 3;
        c.a = g(rng);
        c.b = cur(rng);
        c.i_offset = cur(rng);
        c.w_exc = g(rng);
        c.w_inh = g(rng);
        uint32_t words[32];
        std::fill(std::begin(words), std::end(words), 0xDEADBEEFu);
        c.to_words(words);
        for (int k = 18; k < 32; ++k) EXPECT_EQ(words[k], 0u);
        words[20] = words[BSS2_NRN_RESET] = words[BSS2_NRN_V_MEM] =
            0x12345678u;  // ignored by decode
        const NeuronConfig d = NeuronConfig::from_words(words);
        EXPECT_EQ(d.enable, c.enable);
        EXPECT_EQ(d.fire, c.fire);
        EXPECT_EQ(d.exponential, c.exponential);
        EXPECT_EQ(d.adaptation, c.adaptation);
        EXPECT_EQ(d.addr, c.addr);
        for (auto [x, y] : {std::pair{d.v_leak, c.v_leak},
                            {d.v_reset, c.v_reset},
                            {d.v_threshold, c.v_threshold},
                            {d.v_exp, c.v_exp},
                            {d.delta_t, c.delta_t}})
            EXPECT_NEAR(x, y, 0.5e-3);          // uV
        EXPECT_NEAR(d.c_mem, c.c_mem, 0.5e-3);  // fF
        for (auto [x, y] : {std::pair{d.tau_mem, c.tau_mem},
                            {d.tau_syn_exc, c.tau_syn_exc},
                            {d.tau_syn_inh, c.tau_syn_inh},
                            {d.tau_w, c.tau_w},
                            {d.t_ref, c.t_ref}})
            EXPECT_NEAR(x, y, 0.5e-6);  // ps
        EXPECT_NEAR(d.a, c.a, 0.5e-6);  // pS
        for (auto [x, y] : {std::pair{d.b, c.b},
                            {d.i_offset, c.i_offset},
                            {d.w_exc, c.w_exc},
                            {d.w_inh, c.w_inh}})
            EXPECT_NEAR(x, y, 0.5e-6);  // fA
        // Decoded values encode to the same words (the fixed-point grid is a fixed point).
        uint32_t again[32];
        d.to_words(again);
        c.to_words(words);
        for (int k = 0; k < 32; ++k) EXPECT_EQ(again[k], words[k]) << k;
    }
    // Negative membrane voltages and currents survive the signed words.
    NeuronConfig n;
    n.v_leak = -12.345;
    n.i_offset = -3.25;
    uint32_t words[32];
    n.to_words(words);
    EXPECT_NEAR(NeuronConfig::from_words(words).v_leak, -12.345, 1e-9);
    EXPECT_NEAR(NeuronConfig::from_words(words).i_offset, -3.25, 1e-9);
    EXPECT_EQ(words[BSS2_NRN_V_LEAK], static_cast<uint32_t>(-12345));
}

TEST(AdexArray, InputsInThePastLandOnTheNextStepAndFutureOnesOnTheNextBoundary) {
    NeuronConfig c = lif();
    c.v_threshold = 1000;
    AdexArray late(1, quiet(), 1), now(1, quiet(), 1), mid(1, quiet(), 1), ceil_ref(1, quiet(), 1);
    for (AdexArray* x : {&late, &now, &mid, &ceil_ref}) {
        x->configure(0, c);
        x->advance_to(100 * kDt, nullptr);
    }
    late.add_input(0, false, 10, 50 * kDt);      // in the past: at the next step (100)
    now.add_input(0, false, 10, 100 * kDt);      // exactly now
    mid.add_input(0, false, 10, 120 * kDt + 1);  // inside step 120: at boundary 121
    ceil_ref.add_input(0, false, 10, 121 * kDt);
    for (AdexArray* x : {&late, &now, &mid, &ceil_ref}) x->advance_to(300 * kDt, nullptr);
    EXPECT_EQ(late.v(0), now.v(0));
    EXPECT_EQ(mid.v(0), ceil_ref.v(0));
    EXPECT_GT(now.v(0), mid.v(0));
    // Inhibition lowers the membrane by the mirrored amount (same tau for the check).
    AdexArray inh(1, quiet(), 1);
    NeuronConfig ci = c;
    ci.tau_syn_inh = ci.tau_syn_exc;
    inh.configure(0, ci);
    inh.add_input(0, true, 10, 100 * kDt);
    inh.advance_to(300 * kDt, nullptr);
    EXPECT_NEAR(inh.v(0) - c.v_leak, -(now.v(0) - c.v_leak), 1e-12);
}

TEST(AdexArray, EventsBeyondTheRingHorizonAreApplied) {
    NeuronConfig c = lif();
    c.v_threshold = 1000;
    AdexArray early(1, quiet(), 1), direct(1, quiet(), 1);
    early.configure(0, c);
    direct.configure(0, c);
    const uint64_t t_in = 5000 * kDt + 3;  // > 4096 steps ahead
    early.add_input(0, false, 7, t_in);
    early.add_input(0, false, 5, 9000 * kDt);
    early.advance_to(4999 * kDt, nullptr);
    direct.advance_to(4999 * kDt, nullptr);
    direct.add_input(0, false, 7, t_in);
    direct.add_input(0, false, 5, 9000 * kDt);
    EXPECT_EQ(early.v(0), c.v_leak);
    for (uint64_t t : {5002 * kDt, 9500 * kDt}) {
        early.advance_to(t, nullptr);
        direct.advance_to(t, nullptr);
        EXPECT_EQ(early.v(0), direct.v(0));
    }
    EXPECT_GT(early.v(0), c.v_leak);
}

TEST(AdexArray, DisabledNeuronsRestAndCountersAddUp) {
    AdexArray a(8, quiet(), 1);
    NeuronConfig c = lif();
    c.i_offset = 50;
    for (size_t i : {1u, 4u, 6u}) a.configure(i, c);
    NeuronConfig off = c;
    off.enable = false;
    off.v_leak = 123;
    a.configure(5, off);
    a.add_input(5, false, 63, 0);  // dropped, but counted
    a.add_input(1, false, 63, 0);
    uint64_t cb = 0;
    std::vector<uint32_t> order;
    a.advance_to(200 * kUs + 5, [&](uint32_t i, uint64_t t) {
        ++cb;
        order.push_back(i);
        EXPECT_TRUE(i == 1 || i == 4 || i == 6);
        EXPECT_LE(t, a.now_ps());
    });
    EXPECT_EQ(a.now_ps(), 200 * kUs);  // rounded down to whole steps
    EXPECT_EQ(a.steps(), 20000u);
    EXPECT_EQ(a.neuron_updates(), 3u * 20000u);
    EXPECT_EQ(a.inputs(), 2u);
    EXPECT_EQ(a.spikes(), cb);
    EXPECT_GT(cb, 30u);
    EXPECT_EQ(a.v(5), 123.0);
    EXPECT_EQ(a.v(0), 0.0);
    EXPECT_EQ(a.w(5), 0.0);
    // fire == false: the neuron still resets (same spike count) but emits nothing.
    NeuronConfig silent = c;
    silent.fire = false;
    a.configure(4, silent);
    const uint64_t before = a.spikes();
    uint64_t emitted = 0;
    a.advance_to(400 * kUs, [&](uint32_t i, uint64_t) { emitted += i == 4; });
    EXPECT_EQ(emitted, 0u);
    EXPECT_GT(a.spikes() - before, cb / 3 * 2);
    a.reset(1);
    EXPECT_EQ(a.v(1), c.v_leak);
    EXPECT_EQ(a.w(1), 0.0);
}

TEST(AdexArray, SpikesAreReportedInTimeOrderAndCallbacksMayAddInput) {
    AdexArray a(3, quiet(), 1);
    NeuronConfig c = lif();
    c.i_offset = 35;
    a.configure(0, c);
    c.i_offset = 50;
    a.configure(2, c);
    NeuronConfig target = lif();
    target.w_exc = 1.0;
    a.configure(1, target);
    uint64_t last = 0;
    size_t n_driven = 0, n_target = 0;
    a.advance_to(300 * kUs, [&](uint32_t i, uint64_t t) {
        EXPECT_GE(t, last);
        last = t;
        if (i == 1) {
            ++n_target;
            return;
        }
        ++n_driven;
        a.add_input(1, false, 63, t);  // recurrent: lands on the next step
        EXPECT_THROW(a.advance_to(t + kUs, nullptr), std::logic_error);
    });
    EXPECT_GT(n_driven, 20u);
    EXPECT_GT(n_target, 0u);  // neuron 1 is driven over threshold by the recurrent input only
    EXPECT_EQ(a.spikes(), n_driven + n_target);
    EXPECT_EQ(a.inputs(), n_driven);
}

TEST(AdexArray, MembraneIsClampedToTheRails) {
    AdexArray a(1, quiet(), 1);
    NeuronConfig c = lif();
    c.v_threshold = 5000;  // above the rail: never reached
    c.i_offset = 1000;
    a.configure(0, c);
    a.advance_to(100 * kUs, nullptr);
    EXPECT_EQ(a.v(0), 1200.0);
    c.i_offset = -1000;
    a.configure(0, c);
    a.advance_to(200 * kUs, nullptr);
    EXPECT_EQ(a.v(0), 0.0);
}

TEST(AdexArray, InvalidConfigIsRejected) {
    AdexArray a(2, quiet(), 1);
    NeuronConfig c = lif();
    c.tau_mem = 0;
    std::string err;
    EXPECT_FALSE(c.valid(&err));
    EXPECT_NE(err.find("tau_mem"), std::string::npos);
    EXPECT_THROW(a.configure(0, c), std::invalid_argument);
    c.enable = false;  // a disabled neuron may hold anything
    EXPECT_NO_THROW(a.configure(0, c));
    EXPECT_THROW(a.configure(2, lif()), std::invalid_argument);
}

TEST(AdexArray, ParametersAreDocumented) {
    const auto problems = nmsim::check_registry(nmsim::registry_of<AdexParams>());
    for (const auto& p : problems) ADD_FAILURE() << p;
    AdexParams p;
    EXPECT_EQ(nmsim::flatten(p).size(), 9u);  // with hagen_mV_per_unit
}

// The step kernel exists for 2, 4 and 8 lanes; all widths must give bit-identical results.
TEST(AdexArray, ResultsDoNotDependOnTheVectorWidth) {
    auto run = [](const char* lanes) {
        setenv("NMSIM_ADEX_LANES", lanes, 1);
        AdexParams p;
        p.noise_mV = 1.0;
        AdexArray a(13, p, 9);
        unsetenv("NMSIM_ADEX_LANES");
        NeuronConfig c = lif();
        c.exponential = c.adaptation = true;
        c.v_exp = 380;
        c.delta_t = 5;
        c.a = 0.02;
        c.b = 0.3;
        for (size_t i = 0; i < 13; ++i) {
            c.i_offset = 10 + 2.0 * i;
            a.configure(i, c);
            a.add_input(i, i % 2, 30, i * kUs);
        }
        std::vector<double> trace;
        for (uint64_t t = kUs; t <= 200 * kUs; t += kUs) {
            a.advance_to(t, [&](uint32_t i, uint64_t ts) { trace.push_back(i * 1e9 + ts); });
            for (size_t i = 0; i < 13; ++i) trace.push_back(a.v(i));
        }
        return trace;
    };
    const auto t2 = run("2"), t4 = run("4"), t8 = run("8");
    EXPECT_TRUE(t2 == t4);
    EXPECT_TRUE(t2 == t8);
}

}  // namespace

namespace {

// Quiet stretches are integrated as leaps (one update with the exact K-step propagator) when the
// array is advanced by more than a step. A run advanced step by step (no leaps possible) must give
// the same spikes and, to round-off, the same membranes: LIF neurons with excitatory and
// inhibitory inputs, offsets, a refractory time, some firing and some quiet, with mismatch.
TEST(AdexArray, LeapsGiveWhatSingleStepsGive) {
    auto run = [](bool in_one_go, std::vector<double>* v_end, uint64_t* leap_steps) {
        AdexParams p;
        p.noise_mV = 0;
        AdexArray a(24, p, 17);
        std::vector<std::pair<uint32_t, uint64_t>> spikes;
        std::mt19937_64 rng(5);
        for (size_t i = 0; i < 24; ++i) {
            NeuronConfig c = lif();
            c.i_offset = i % 3 == 0 ? 5.0 : -2.0;
            if (i % 8 == 1) c.i_offset = 30.0;  // fires on its own (leaps up to the crossings)
            c.t_ref = i % 2 ? 2.0 : 0.0;
            a.configure(i, c);
        }
        for (int e = 0; e < 1500; ++e) {  // busy for 150 us (spikes), then quiet
            const uint64_t t = rng() % (150 * kUs);
            a.add_input(rng() % 24, rng() % 5 == 0, 30.0 + static_cast<double>(rng() % 33), t);
        }
        auto on_spike = [&](uint32_t i, uint64_t t) { spikes.emplace_back(i, t); };
        if (in_one_go) {
            a.advance_to(300 * kUs, on_spike);
        } else {
            for (uint64_t t = kDt; t <= 300 * kUs; t += kDt) a.advance_to(t, on_spike);
        }
        for (size_t i = 0; i < 24; ++i) v_end->push_back(a.v(i));
        *leap_steps = a.leap_steps();
        EXPECT_EQ(a.steps(), 300 * kUs / kDt);
        return spikes;
    };
    std::vector<double> v_leap, v_step;
    uint64_t leaps = 0, step_leaps = 0;
    const auto s_leap = run(true, &v_leap, &leaps);
    const auto s_step = run(false, &v_step, &step_leaps);
    EXPECT_GT(leaps, 300 * kUs / kDt / 4);  // steps taken in leaps
    EXPECT_EQ(step_leaps, 0u);
    EXPECT_GT(s_step.size(), 20u);
    EXPECT_EQ(s_leap, s_step);
    for (size_t i = 0; i < v_step.size(); ++i) EXPECT_NEAR(v_leap[i], v_step[i], 1e-9) << i;
}

// The same on random arrays: per seed 16 LIF neurons with random time constants, thresholds
// (some above the upper rail), offsets (some driving the neuron above threshold or into a rail),
// refractory times and input trains, advanced 0.5 us at a time (leaps within) and step by step,
// membranes compared at every 0.5 us.
TEST(AdexArray, LeapsMatchSingleStepsOnRandomArrays) {
    for (uint64_t seed = 1; seed <= 6; ++seed) {
        auto run = [seed](bool in_one_go, std::vector<double>* v_end, uint64_t* leap_steps) {
            AdexParams p;
            p.noise_mV = 0;
            AdexArray a(16, p, seed);
            std::mt19937_64 rng(seed);
            auto uni = [&rng](double lo, double hi) {
                return lo + (hi - lo) * static_cast<double>(rng() >> 11) * 0x1.0p-53;
            };
            for (size_t i = 0; i < 16; ++i) {
                NeuronConfig c = lif();
                c.tau_mem = uni(1, 30);
                c.tau_syn_exc = uni(0.5, 10);
                c.tau_syn_inh = uni(0.5, 10);
                c.v_leak = uni(100, 900);
                c.v_reset = c.v_leak - uni(0, 50);
                c.v_threshold = c.v_leak + (i % 5 == 0 ? 2000.0 : uni(5, 150));
                c.i_offset = uni(-60, 60);
                c.t_ref = i % 3 == 0 ? 0.0 : uni(0, 5);
                a.configure(i, c);
            }
            for (int e = 0; e < 400; ++e)
                a.add_input(rng() % 16, rng() % 3 == 0, uni(1, 63), rng() % (60 * kUs));
            std::vector<std::pair<uint32_t, uint64_t>> spikes;
            auto on_spike = [&](uint32_t i, uint64_t t) { spikes.emplace_back(i, t); };
            for (uint64_t t = kDt; t <= 80 * kUs; t += kDt) {
                if (!in_one_go || t % (kUs / 2) == 0) a.advance_to(t, on_spike);
                if (t % (kUs / 2) == 0)
                    for (size_t i = 0; i < 16; ++i) v_end->push_back(a.v(i));
            }
            *leap_steps = a.leap_steps();
            return spikes;
        };
        std::vector<double> v_leap, v_step;
        uint64_t leaps = 0, none = 0;
        const auto s_leap = run(true, &v_leap, &leaps);
        const auto s_step = run(false, &v_step, &none);
        EXPECT_GT(leaps, 0u) << seed;
        EXPECT_EQ(none, 0u);
        EXPECT_EQ(s_leap, s_step) << seed;
        ASSERT_EQ(v_leap.size(), v_step.size());
        for (size_t i = 0; i < v_step.size(); ++i)
            ASSERT_NEAR(v_leap[i], v_step[i], 1e-9) << seed << " sample " << i;
    }
}

// quiet_steps: up to the next queued input while every neuron is bounded below its threshold;
// one step when an input is due now, when a neuron could cross, or with the exponential term.
TEST(AdexArray, QuietStepsReachTheNextInputOnlyWhileNoNeuronCanSpike) {
    AdexArray a(2, quiet(), 1);
    a.configure(0, lif());
    a.configure(1, lif());
    EXPECT_EQ(a.quiet_steps(1000), 1000u);
    a.add_input(1, false, 30, 50 * kDt);
    EXPECT_EQ(a.quiet_steps(1000), 50u);
    a.advance_to(50 * kDt, nullptr);
    EXPECT_EQ(a.quiet_steps(1000), 1u);  // the input is due at this step
    a.advance_to(51 * kDt, nullptr);
    // 30 x 0.3 nA into R = 10 us / 2.2 pF = 4.5 MOhm could lift it 41 mV: below 100 mV to
    // threshold.
    EXPECT_EQ(a.quiet_steps(1000), 1000u);
    // The next input found across words of the ring's occupancy bits and across its wrap-around
    // (4096 steps).
    a.advance_to(4000 * kDt, nullptr);
    a.add_input(0, false, 1, 4130 * kDt);
    a.add_input(1, true, 1, 4200 * kDt);
    EXPECT_EQ(a.quiet_steps(1000), 130u);
    a.advance_to(4131 * kDt, nullptr);
    EXPECT_EQ(a.quiet_steps(1000), 69u);
    a.add_input(1, true, 1, 9000 * kDt);  // beyond the ring
    a.advance_to(4201 * kDt, nullptr);
    EXPECT_EQ(a.quiet_steps(10000), 4096u);  // the ring's horizon
    NeuronConfig adex = lif();
    adex.exponential = true;
    adex.v_exp = 380;
    a.configure(0, adex);
    EXPECT_EQ(a.quiet_steps(1000), 1u);
}

// add_inputs (a row event's inputs) queues what add_input would, one by one: the same membranes
// afterwards, inputs to disabled neurons dropped, and an index beyond the array rejected.
TEST(AdexArray, RowInputsEqualSingleInputs) {
    auto run = [](bool rows) {
        AdexArray a(8, AdexParams{}, 4);
        for (size_t i = 0; i < 8; ++i)
            if (i != 5) a.configure(i, lif());
        const SynapticInput row[] = {{1, 10.0}, {2, 20.0}, {5, 30.0}, {6, 40.0}};
        for (uint64_t t : {3 * kDt + 1, 40 * kDt, 40 * kDt, 700 * kDt}) {
            if (rows) {
                a.add_inputs(1, row, 4, t == 40 * kDt, t);
            } else {
                for (const SynapticInput& s : row)
                    a.add_input(1 + s.column, t == 40 * kDt, s.amount, t);
            }
        }
        a.advance_to(1000 * kDt, nullptr);
        std::vector<double> v;
        for (size_t i = 0; i < 8; ++i) v.push_back(a.v(i));
        EXPECT_EQ(a.inputs(), 16u);
        return v;
    };
    EXPECT_EQ(run(true), run(false));
    AdexArray a(8, AdexParams{}, 4);
    const SynapticInput beyond[] = {{0, 1.0}, {7, 1.0}};
    EXPECT_THROW(a.add_inputs(1, beyond, 2, false, 0), std::invalid_argument);
}

// A neuron driven above its threshold limits quiet_steps to its horizon, a lower bound of the
// time it needs to reach the threshold: long while it is far, shrinking on the way, single steps
// at the end. Whoever sleeps that long never misses the crossing.
TEST(AdexArray, QuietStepsShrinkTowardsACrossing) {
    AdexArray a(2, quiet(), 1);
    a.configure(1, lif());
    NeuronConfig strong = lif();
    strong.i_offset = 30;    // R I = 136.4 mV from v_leak, threshold 100 mV above it: crosses at
    a.configure(0, strong);  // tau ln(136.4 / 36.4) = 1321.8 steps
    const uint64_t first = a.quiet_steps(5000);
    EXPECT_GE(first, 700u);  // tau * 100 / 136.4 = 733
    EXPECT_LT(first, 1322u);
    std::vector<uint64_t> spikes;
    uint64_t wakeups = 0, single = 0;
    while (spikes.empty() && a.now_ps() < 2000 * kDt) {
        const uint64_t q = a.quiet_steps(5000);
        ++wakeups;
        single += q == 1;
        a.advance_to(a.now_ps() + q * kDt, [&](uint32_t, uint64_t t) {
            EXPECT_EQ(q, 1u);  // a crossing only where single steps were asked for
            spikes.push_back(t);
        });
    }
    ASSERT_EQ(spikes.size(), 1u);
    EXPECT_NEAR(static_cast<double>(spikes[0]), 1321.8 * kDt, kDt);
    EXPECT_LT(wakeups, 60u);
    EXPECT_GE(single, 1u);
}

}  // namespace

namespace {

// An array of linear neurons only is stepped by a kernel without the exponential current. On the
// same LIF neurons it must give bit for bit what the general kernel gives; the general one runs
// when one more neuron (without inputs, far below threshold) has the exponential term on. Both
// arrays are advanced step by step (no leaps), with inputs, offsets and refractory times.
TEST(AdexArray, LinearKernelEqualsTheGeneralOne) {
    auto run = [](bool with_exponential_neuron) {
        AdexParams p;
        p.noise_mV = 0;
        AdexArray a(17, p, 23);
        std::mt19937_64 rng(8);
        for (size_t i = 0; i < 16; ++i) {
            NeuronConfig c = lif();
            c.i_offset = i % 4 == 0 ? 18.0 : 1.0;
            c.t_ref = i % 2 ? 1.5 : 0.0;
            a.configure(i, c);
        }
        NeuronConfig extra = lif();
        extra.exponential = with_exponential_neuron;
        extra.v_exp = 900;
        a.configure(16, extra);
        for (int e = 0; e < 600; ++e)
            a.add_input(rng() % 16, rng() % 4 == 0, 20.0 + static_cast<double>(rng() % 40),
                        rng() % (100 * kUs));
        std::vector<double> trace;
        for (uint64_t t = kDt; t <= 100 * kUs; t += kDt) {
            a.advance_to(t, [&](uint32_t i, uint64_t ts) { trace.push_back(i * 1e12 + ts); });
            if (t % kUs == 0)
                for (size_t i = 0; i < 16; ++i) trace.push_back(a.v(i));
        }
        return trace;
    };
    const auto general = run(true), linear = run(false);
    ASSERT_EQ(general.size(), linear.size());
    EXPECT_GT(general.size(), 100u * 16u + 10u);  // some spikes
    EXPECT_TRUE(general == linear);
}

}  // namespace
