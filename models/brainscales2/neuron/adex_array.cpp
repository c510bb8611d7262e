#include "models/brainscales2/neuron/adex_array.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "firmware/include/nmsim/hw/brainscales2/bss2_map.h"
#include "models/common/seeding.h"

namespace nmsim::bss2 {

namespace {

// ---- fixed-point conversion of the configuration words --------------------------------------

uint32_t enc_i32(double v, double scale) {
    const double x = std::nearbyint(v * scale);
    const double lo = std::numeric_limits<int32_t>::min(), hi = std::numeric_limits<int32_t>::max();
    return static_cast<uint32_t>(static_cast<int32_t>(std::clamp(x, lo, hi)));
}
uint32_t enc_u32(double v, double scale) {
    const double x = std::nearbyint(v * scale);
    return static_cast<uint32_t>(std::clamp(x, 0.0, 4294967295.0));
}
double dec_i32(uint32_t w, double scale) { return static_cast<int32_t>(w) / scale; }
double dec_u32(uint32_t w, double scale) { return w / scale; }

constexpr double kUv = 1e3;   // mV -> uV
constexpr double kFf = 1e3;   // pF -> fF
constexpr double kPs = 1e6;   // us -> ps
constexpr double kPsS = 1e6;  // uS -> pS
constexpr double kFa = 1e6;   // nA -> fA

// ---- deterministic random numbers -----------------------------------------------------------

using nmsim::splitmix64;

// Standard normal numbers from a counter-based stream (Box-Muller), so the mismatch of neuron i
// depends on (seed, i) only.
class NormalStream {
public:
    explicit NormalStream(uint64_t key) : m_key(key) {}
    double next() {
        const double u1 = ((splitmix64(m_key + m_n++) >> 11) + 1.0) * 0x1.0p-53;  // (0, 1]
        const double u2 = (splitmix64(m_key + m_n++) >> 11) * 0x1.0p-53;
        return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
    }

private:
    uint64_t m_key;
    uint64_t m_n = 0;
};

// Approximately normal, unit variance, from one 64-bit hash: the sum of four 16-bit uniforms
// (Irwin-Hall). The membrane sums ~tau_mem/dt such increments, so its noise is Gaussian.
inline double fast_normal(uint64_t r) {
    const double s = static_cast<double>(r & 0xFFFF) + static_cast<double>((r >> 16) & 0xFFFF) +
                     static_cast<double>((r >> 32) & 0xFFFF) + static_cast<double>(r >> 48);
    constexpr double kMean = 2.0 * 65535.0, kScale = 1.7320508075688772 / 65536.0;
    return (s - kMean) * kScale;
}

// ---- matrix exponential of the 5x5 linear system ---------------------------------------------

using Mat = double[5][5];

void mat_mul(const Mat a, const Mat b, Mat out) {
    for (int i = 0; i < 5; ++i)
        for (int j = 0; j < 5; ++j) {
            double s = 0;
            for (int k = 0; k < 5; ++k) s += a[i][k] * b[k][j];
            out[i][j] = s;
        }
}

// exp(A t) by scaling and squaring with an order-14 Taylor series (|A t| / 2^s <= 1/8: the
// truncation error is below 1e-20, round-off dominates at ~1e-15).
void expm(const Mat a, double t, Mat out) {
    double norm = 0;
    for (int i = 0; i < 5; ++i) {
        double row = 0;
        for (int j = 0; j < 5; ++j) row += std::fabs(a[i][j] * t);
        norm = std::max(norm, row);
    }
    int s = 0;
    while (norm > 0.125 && s < 60) {
        norm *= 0.5;
        ++s;
    }
    const double scale = t / std::ldexp(1.0, s);
    Mat x, term, tmp;
    for (int i = 0; i < 5; ++i)
        for (int j = 0; j < 5; ++j) {
            x[i][j] = a[i][j] * scale;
            out[i][j] = (i == j) ? 1.0 : 0.0;
            term[i][j] = out[i][j];
        }
    for (int k = 1; k <= 14; ++k) {
        mat_mul(term, x, tmp);
        for (int i = 0; i < 5; ++i)
            for (int j = 0; j < 5; ++j) {
                term[i][j] = tmp[i][j] / k;
                out[i][j] += term[i][j];
            }
    }
    for (int q = 0; q < s; ++q) {
        mat_mul(out, out, tmp);
        for (int i = 0; i < 5; ++i)
            for (int j = 0; j < 5; ++j) out[i][j] = tmp[i][j];
    }
}

constexpr double kMaxExpArg = 50.0;   // caps the exponential term (far above any threshold)
constexpr double kExpFloor = 1e-250;  // smallest carried exponential factor (see step_kernel_body)

}  // namespace

// ---- NeuronConfig ---------------------------------------------------------------------------

NeuronConfig NeuronConfig::from_words(const uint32_t* w) {
    NeuronConfig c;
    const uint32_t f = w[BSS2_NRN_CFG];
    c.enable = (f & BSS2_NRN_CFG_ENABLE) != 0;
    c.fire = (f & BSS2_NRN_CFG_FIRE) != 0;
    c.exponential = (f & BSS2_NRN_CFG_EXP) != 0;
    c.adaptation = (f & BSS2_NRN_CFG_ADAPT) != 0;
    c.integrator = (f & BSS2_NRN_CFG_INTEGRATOR) != 0;
    c.addr = w[BSS2_NRN_ADDR_OUT] & 0xFFu;
    c.v_leak = dec_i32(w[BSS2_NRN_V_LEAK], kUv);
    c.v_reset = dec_i32(w[BSS2_NRN_V_RESET], kUv);
    c.v_threshold = dec_i32(w[BSS2_NRN_V_THRESHOLD], kUv);
    c.v_exp = dec_i32(w[BSS2_NRN_V_EXP], kUv);
    c.delta_t = dec_i32(w[BSS2_NRN_DELTA_T], kUv);
    c.c_mem = dec_u32(w[BSS2_NRN_C_MEM], kFf);
    c.tau_mem = dec_u32(w[BSS2_NRN_TAU_MEM], kPs);
    c.tau_syn_exc = dec_u32(w[BSS2_NRN_TAU_SYN_EXC], kPs);
    c.tau_syn_inh = dec_u32(w[BSS2_NRN_TAU_SYN_INH], kPs);
    c.tau_w = dec_u32(w[BSS2_NRN_TAU_W], kPs);
    c.a = dec_i32(w[BSS2_NRN_A], kPsS);
    c.b = dec_i32(w[BSS2_NRN_B], kFa);
    c.t_ref = dec_u32(w[BSS2_NRN_T_REF], kPs);
    c.i_offset = dec_i32(w[BSS2_NRN_I_OFFSET], kFa);
    c.w_exc = dec_u32(w[BSS2_NRN_W_EXC], kFa);
    c.w_inh = dec_u32(w[BSS2_NRN_W_INH], kFa);
    return c;
}

void NeuronConfig::to_words(uint32_t* w) const {
    for (int k = 0; k < 32; ++k) w[k] = 0;
    w[BSS2_NRN_CFG] = (enable ? BSS2_NRN_CFG_ENABLE : 0u) | (fire ? BSS2_NRN_CFG_FIRE : 0u) |
                      (exponential ? BSS2_NRN_CFG_EXP : 0u) |
                      (adaptation ? BSS2_NRN_CFG_ADAPT : 0u) |
                      (integrator ? BSS2_NRN_CFG_INTEGRATOR : 0u);
    w[BSS2_NRN_ADDR_OUT] = addr & 0xFFu;
    w[BSS2_NRN_V_LEAK] = enc_i32(v_leak, kUv);
    w[BSS2_NRN_V_RESET] = enc_i32(v_reset, kUv);
    w[BSS2_NRN_V_THRESHOLD] = enc_i32(v_threshold, kUv);
    w[BSS2_NRN_V_EXP] = enc_i32(v_exp, kUv);
    w[BSS2_NRN_DELTA_T] = enc_i32(delta_t, kUv);
    w[BSS2_NRN_C_MEM] = enc_u32(c_mem, kFf);
    w[BSS2_NRN_TAU_MEM] = enc_u32(tau_mem, kPs);
    w[BSS2_NRN_TAU_SYN_EXC] = enc_u32(tau_syn_exc, kPs);
    w[BSS2_NRN_TAU_SYN_INH] = enc_u32(tau_syn_inh, kPs);
    w[BSS2_NRN_TAU_W] = enc_u32(tau_w, kPs);
    w[BSS2_NRN_A] = enc_i32(a, kPsS);
    w[BSS2_NRN_B] = enc_i32(b, kFa);
    w[BSS2_NRN_T_REF] = enc_u32(t_ref, kPs);
    w[BSS2_NRN_I_OFFSET] = enc_i32(i_offset, kFa);
    w[BSS2_NRN_W_EXC] = enc_u32(w_exc, kFa);
    w[BSS2_NRN_W_INH] = enc_u32(w_inh, kFa);
}

bool NeuronConfig::valid(std::string* error) const {
    auto fail = [error](const char* field, const char* why) {
        if (error) *error = std::string("neuron ") + field + ": " + why;
        return false;
    };
    if (!(c_mem > 0)) return fail("c_mem", "must be > 0");
    if (!(tau_mem > 0)) return fail("tau_mem", "must be > 0");
    if (!(tau_syn_exc > 0)) return fail("tau_syn_exc", "must be > 0");
    if (!(tau_syn_inh > 0)) return fail("tau_syn_inh", "must be > 0");
    if (!(t_ref >= 0)) return fail("t_ref", "must be >= 0");
    if (exponential && !(delta_t > 0))
        return fail("delta_t", "must be > 0 with the exponential term on");
    if (adaptation && !(tau_w > 0)) return fail("tau_w", "must be > 0 with adaptation on");
    return true;
}

bool NeuronConfig::operator==(const NeuronConfig& o) const {
    return enable == o.enable && fire == o.fire && exponential == o.exponential &&
           adaptation == o.adaptation && integrator == o.integrator && addr == o.addr &&
           v_leak == o.v_leak && v_reset == o.v_reset && v_threshold == o.v_threshold &&
           v_exp == o.v_exp && delta_t == o.delta_t && c_mem == o.c_mem && tau_mem == o.tau_mem &&
           tau_syn_exc == o.tau_syn_exc && tau_syn_inh == o.tau_syn_inh && tau_w == o.tau_w &&
           t_ref == o.t_ref && a == o.a && b == o.b && i_offset == o.i_offset && w_exc == o.w_exc &&
           w_inh == o.w_inh;
}

// ---- AdexArray ------------------------------------------------------------------------------

namespace {

// Packed fields (see AdexArray::m_pk).
enum Field : size_t {
    // state
    kU,
    kW,
    kIe,
    kIi,
    kEx,
    kRef,
    kNoise,
    // state at the start of the step (spike interpolation, exact recomputation), kernel flags
    kU0,
    kW0,
    kIe0,
    kIi0,
    kEx0,
    // coefficients
    kPu,
    kPw = kPu + 5,
    kHu = kPw + 5,
    kDe = kHu + 5,
    kDi,
    kRwW,
    kRwC,
    kUReset,
    kUTh,
    kGlDt,
    kInvDt,
    kIOff,
    kUMin,
    kUMax,
    kR,         // 1 / leak conductance (MOhm; 0 in padding lanes): the leap horizon
    kTauSteps,  // membrane time constant in steps (0 in padding lanes): the leap horizon
    kFields
};

constexpr uint32_t kNone = UINT32_MAX;
constexpr double kPolyMax = 0.0625;  // exp_poly is used for |d| below this

// The step kernel uses GCC vector extensions rather than auto-vectorisation (GCC does not
// if-convert the refractory selects under -ftrapping-math). It is compiled for 2 (SSE2), 4 (AVX2)
// and 8 (AVX-512F) lanes and chosen at run time. Floating-point contraction into FMA is off for the
// AVX-512 kernel (the only target here with FMA) and GCC does not reassociate, so every lane
// computes exactly what the SSE2 code does: results do not depend on the width.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define NMSIM_ADEX_X86 1
#pragma GCC diagnostic ignored "-Wpsabi"  // wide vectors only passed between inlined helpers
#else
#define NMSIM_ADEX_X86 0
#endif
#define NMSIM_INLINE inline __attribute__((always_inline))

// Non-dependent vector typedefs (GCC drops vector_size on dependent alias templates).
// One vector = one hardware register (wider vectors are split by GCC, and partly into scalars).
typedef double V2d __attribute__((vector_size(16)));
typedef double V4d __attribute__((vector_size(32)));
typedef double V8d __attribute__((vector_size(64)));
typedef long M2l __attribute__((vector_size(16)));  // lane masks: 0 or -1 (LP64 long)
typedef long M4l __attribute__((vector_size(32)));
typedef long M8l __attribute__((vector_size(64)));
template <int N>
struct Vec;
template <>
struct Vec<2> {
    using V = V2d;
    using M = M2l;
};
template <>
struct Vec<4> {
    using V = V4d;
    using M = M4l;
};
template <>
struct Vec<8> {
    using V = V8d;
    using M = M8l;
};

template <class V>
NMSIM_INLINE V ld(const double* p) {
    V v;
    std::memcpy(&v, p, sizeof v);
    return v;
}
template <class V>
NMSIM_INLINE void st(double* p, V v) {
    std::memcpy(p, &v, sizeof v);
}
template <class V>
NMSIM_INLINE V vmin(V a, V b) {
    return b < a ? b : a;
}
template <class V>
NMSIM_INLINE V vmax(V a, V b) {
    return a < b ? b : a;
}
template <class V>
NMSIM_INLINE V vabs(V a) {
    return a < 0.0 ? -a : a;
}
// Taylor polynomial of exp(d), degree 5: relative error < (1/16)^6 / 6! = 2.1e-10 at the edge of
// its range |d| < 1/16, and < 2e-15 for the |d| < 0.01 of a subthreshold step. Estrin's scheme
// keeps the dependency chain short (the kernel is latency-bound: three polynomials follow each
// other).
template <class V>
NMSIM_INLINE V exp_poly(V d) {
    const V d2 = d * d;
    return (1.0 + d) + d2 * ((0.5 + d * (1.0 / 6)) + d2 * (1.0 / 24 + d * (1.0 / 120)));
}

// The membrane and adaptation update of one step (docs/bss2_neuron.md, "Method"), shared by the
// vector kernel (V = vector, exp_poly) and the exact scalar recomputation (V = double, std::exp).
// The linear part is propagated exactly (coefficients hu: half step, pu/pw: full step, column 4 =
// response to a constant current); the exponential current J(t) = j0 * exp((u(t) - u0) / delta_t)
// enters as its step average, by Simpson's rule on predicted values:
//   J_m  at u(h/2) predicted with J = j0,        J_1 at u(h) predicted with J = J_m,
//   J_m' at u(h/2) corrected with the first-half average (5 j0 + 8 J_m - J_1) / 12 of the
//        quadratic through (j0, J_m, J_1),       average (j0 + 4 J_m' + J_1) / 6.
// Local error O(h^4) in the exponential current (the linear part is exact). `dmax` returns the
// largest |argument| of the exponentials. Vectors are only passed to always-inline functions: a
// call into a function compiled for another target would pass wide vectors with a different ABI.
template <class V>
NMSIM_INLINE V step_exp(V d) {
    return exp_poly(d);
}
template <>
NMSIM_INLINE double step_exp<double>(double d) {
    return std::exp(std::min(d, kMaxExpArg));
}

template <class V>
NMSIM_INLINE void adex_step(V uo, V wo, V eo, V io, V j0, V nz, V i_off, V inv_dt, const V (&hu)[5],
                            const V (&pu)[5], const V (&pw)[5], V& un, V& wn, V& dmax) {
    const V h_lin = hu[0] * uo + hu[1] * wo + hu[2] * eo + hu[3] * io;
    const V u_lin = pu[0] * uo + pu[1] * wo + pu[2] * eo + pu[3] * io + nz;
    const V w_lin = pw[0] * uo + pw[1] * wo + pw[2] * eo + pw[3] * io;
    const V dh = (h_lin + hu[4] * (i_off + j0) - uo) * inv_dt;
    const V jm = j0 * step_exp<V>(dh);
    const V d1 = (u_lin + pu[4] * (i_off + jm) - uo) * inv_dt;
    const V j1 = j0 * step_exp<V>(d1);
    const V first_half = (5.0 * j0 + 8.0 * jm - j1) * (1.0 / 12);
    const V dh2 = (h_lin + hu[4] * (i_off + first_half) - uo) * inv_dt;
    const V jm2 = j0 * step_exp<V>(dh2);
    const V cur = i_off + (j0 + 4.0 * jm2 + j1) * (1.0 / 6);
    un = u_lin + pu[4] * cur;
    wn = w_lin + pw[4] * cur;
    dmax = vmax(vmax(vabs(dh), vabs(d1)), vabs(dh2));
}

// The largest (smallest) of `start` and a vector's N lanes, lane by lane in order.
template <int N, class V>
NMSIM_INLINE double lane_max(V v, double start) {
    for (int l = 0; l < N; ++l) start = std::max(start, v[l]);
    return start;
}
template <int N, class V>
NMSIM_INLINE double lane_min(V v, double start) {
    for (int l = 0; l < N; ++l) start = std::min(start, v[l]);
    return start;
}

// Stores a block of N lanes' flag scores (>= 0: set): [k] recompute exactly, [s + k] spike, and
// the largest of both per block of 8 lanes at [2 s + k / 8] (the scalar pass skips quiet blocks);
// `any` collects the largest score of the whole pass.
template <int N, class V>
NMSIM_INLINE void store_flags(double* flag, size_t s, size_t k, V sx, V ss, V& any) {
    st(flag + k, sx);
    st(flag + s + k, ss);
    const V sm = vmax(sx, ss);
    const double bm = lane_max<N>(sm, sm[0]);
    double& blk = flag[2 * s + k / 8];
    blk = k % 8 == 0 ? bm : std::max(blk, bm);
    any = vmax(any, sm);
}

// One step of all packed neurons (n a multiple of 8). Returns >= 0 if some lane crossed its
// threshold (flag[s + k] >= 0) or needs exact recomputation by the caller (flag[k] >= 0).
// Refractory lanes keep u (== u_reset) and the exponential factor, and relax w towards a * u_reset.
template <int N>
NMSIM_INLINE double step_kernel_body(double* pk, double* flag, size_t s, size_t n, double exp_cap) {
    using V = typename Vec<N>::V;
    using M = typename Vec<N>::M;
    auto f = [pk, s](size_t i) { return pk + i * s; };
    double* const u = f(kU);
    double* const w = f(kW);
    double* const ie = f(kIe);
    double* const ii = f(kIi);
    double* const ex = f(kEx);
    double* const ref = f(kRef);
    const double* const nz = f(kNoise);
    double* const u0a = f(kU0);
    double* const w0a = f(kW0);
    double* const ie0a = f(kIe0);
    double* const ii0a = f(kIi0);
    double* const ex0a = f(kEx0);
    const double *const pu = f(kPu), *const pw = f(kPw), *const hu = f(kHu);
    const double *const de = f(kDe), *const di = f(kDi), *const rww = f(kRwW), *const rwc = f(kRwC),
                        *const uth = f(kUTh), *const gl = f(kGlDt), *const inv = f(kInvDt),
                        *const ioff = f(kIOff), *const umin = f(kUMin), *const umax = f(kUMax);
    const V cap = V{} + exp_cap;
    V any = V{} - 1.0;
    for (size_t k = 0; k < n; k += N) {
        const V uo = ld<V>(u + k), wo = ld<V>(w + k), eo = ld<V>(ie + k), io = ld<V>(ii + k),
                xo = ld<V>(ex + k), r = ld<V>(ref + k);
        st(u0a + k, uo);
        st(w0a + k, wo);
        st(ie0a + k, eo);
        st(ii0a + k, io);
        st(ex0a + k, xo);
        const V i_off = ld<V>(ioff + k), inv_dt = ld<V>(inv + k);
        const V hc[5] = {ld<V>(hu + k), ld<V>(hu + s + k), ld<V>(hu + 2 * s + k),
                         ld<V>(hu + 3 * s + k), ld<V>(hu + 4 * s + k)};
        const V pc[5] = {ld<V>(pu + k), ld<V>(pu + s + k), ld<V>(pu + 2 * s + k),
                         ld<V>(pu + 3 * s + k), ld<V>(pu + 4 * s + k)};
        const V wc[5] = {ld<V>(pw + k), ld<V>(pw + s + k), ld<V>(pw + 2 * s + k),
                         ld<V>(pw + 3 * s + k), ld<V>(pw + 4 * s + k)};
        V un, wn, dmax;
        adex_step<V>(uo, wo, eo, io, ld<V>(gl + k) * xo, ld<V>(nz + k), i_off, inv_dt, hc, pc, wc,
                     un, wn, dmax);
        un = vmin(vmax(un, ld<V>(umin + k)), ld<V>(umax + k));
        const V df = (un - uo) * inv_dt;
        const V xn = vmin(xo * exp_poly(df), cap);
        const M held = 0.0 < r;
        st(u + k, held ? uo : un);
        st(w + k, held ? ld<V>(rww + k) * wo + ld<V>(rwc + k) : wn);
        st(ie + k, eo * ld<V>(de + k));
        st(ii + k, io * ld<V>(di + k));
        st(ex + k, held ? xo : xn);
        st(ref + k, held ? r - 1.0 : r);
        // Flags as scores, >= 0 meaning set, built without comparisons: selecting between constants
        // makes GCC 12 materialise the mask as an integer vector, which AVX-512F cannot do (it
        // would need AVX-512DQ) and which it then scalarises. Exact recomputation is needed if an
        // exp_poly argument reached kPolyMax or the carried factor fell below kExpFloor (membrane
        // hundreds of delta_t below v_exp: it would lose precision or underflow). Lanes without the
        // exponential term carry the factor 1 (and inv_dt = 0), so they are never flagged.
        const V minus_one = V{} - 1.0;
        const V sx_free = vmax(vmax(dmax, vabs(df)) - kPolyMax, kExpFloor - xo);
        const V ss_free = un - ld<V>(uth + k);
        const V sx = held ? minus_one : sx_free, ss = held ? minus_one : ss_free;
        store_flags<N>(flag, s, k, sx, ss, any);
    }
    return lane_max<N>(any, -1.0);
}

// The step of an array whose neurons are all linear (no exponential term, no adaptation; what
// leaps also need): the general kernel's arithmetic for such a lane, in the same order, without
// the exponential current's three polynomial evaluations: u(t+h) = pu . (u, w, I_exc, I_inh) +
// noise + pu[4] I_offset, w unchanged. Bit-identical to the general kernel on these lanes (test
// LinearKernelEqualsTheGeneralOne); only threshold crossings are flagged.
template <int N>
NMSIM_INLINE double linear_kernel_body(double* pk, double* flag, size_t s, size_t n, double) {
    using V = typename Vec<N>::V;
    using M = typename Vec<N>::M;
    auto f = [pk, s](size_t i) { return pk + i * s; };
    double* const u = f(kU);
    double* const ie = f(kIe);
    double* const ii = f(kIi);
    double* const ref = f(kRef);
    const double *const w = f(kW), *const nz = f(kNoise), *const ex = f(kEx);
    double *const u0a = f(kU0), *const w0a = f(kW0), *const ie0a = f(kIe0), *const ii0a = f(kIi0),
                  *const ex0a = f(kEx0);
    const double *const pu = f(kPu), *const de = f(kDe), *const di = f(kDi), *const uth = f(kUTh),
                        *const ioff = f(kIOff), *const umin = f(kUMin), *const umax = f(kUMax);
    V any = V{} - 1.0;
    for (size_t k = 0; k < n; k += N) {
        const V uo = ld<V>(u + k), wo = ld<V>(w + k), eo = ld<V>(ie + k), io = ld<V>(ii + k),
                r = ld<V>(ref + k);
        st(u0a + k, uo);
        st(w0a + k, wo);
        st(ie0a + k, eo);
        st(ii0a + k, io);
        st(ex0a + k, ld<V>(ex + k));
        const V u_lin = ld<V>(pu + k) * uo + ld<V>(pu + s + k) * wo + ld<V>(pu + 2 * s + k) * eo +
                        ld<V>(pu + 3 * s + k) * io + ld<V>(nz + k);
        V un = u_lin + ld<V>(pu + 4 * s + k) * (ld<V>(ioff + k) + 0.0);
        un = vmin(vmax(un, ld<V>(umin + k)), ld<V>(umax + k));
        const M held = 0.0 < r;
        st(u + k, held ? uo : un);
        st(ie + k, eo * ld<V>(de + k));
        st(ii + k, io * ld<V>(di + k));
        st(ref + k, held ? r - 1.0 : r);
        const V minus_one = V{} - 1.0;
        const V ss_free = un - ld<V>(uth + k);
        const V ss = held ? minus_one : ss_free;
        store_flags<N>(flag, s, k, minus_one, ss, any);
    }
    return lane_max<N>(any, -1.0);
}

// The leap horizon (AdexArray::horizon) over all lanes, vectorised: the fewest steps any lane
// can be integrated before its membrane could reach its threshold (less 1e-9 mV) or a rail, +inf
// if none can. Without inputs a linear neuron's synaptic currents only decay, so tau du/dt lies
// between D_lo - u and D_hi - u with D_hi = R (I_exc + I_offset) and D_lo = R (I_offset - I_inh):
// u stays below D_hi + (u0 - D_hi) exp(-t / tau) and cannot reach a ceiling c > u0 before
// tau ln((D_hi - u0) / (D_hi - c)) >= tau (c - u0) / (D_hi - u0) (ln x >= 1 - 1/x), nor at all when
// D_hi < c; the same for the lower rail. Held lanes are left out when `skip_held` (their smallest
// hold in *held_min), else bounded from their held value (which also bounds them after release).
template <int N>
NMSIM_INLINE double horizon_body(const double* pk, size_t s, size_t n, bool skip_held,
                                 double* held_min) {
    using V = typename Vec<N>::V;
    using M = typename Vec<N>::M;
    auto f = [pk, s](size_t i) { return pk + i * s; };
    const double *const u = f(kU), *const ie = f(kIe), *const ii = f(kIi), *const ref = f(kRef),
                        *const r = f(kR), *const ioff = f(kIOff), *const uth = f(kUTh),
                        *const umin = f(kUMin), *const umax = f(kUMax), *const tau = f(kTauSteps);
    const V zero = V{}, inf = V{} + std::numeric_limits<double>::infinity();
    V fewest = inf, hold = inf;
    for (size_t k = 0; k < n; k += N) {
        const V uu = ld<V>(u + k), rr = ld<V>(r + k), off = ld<V>(ioff + k), ts = ld<V>(tau + k);
        const V up = vmin(ld<V>(uth + k), ld<V>(umax + k)) - 1e-9 - uu;
        const V rise = rr * (ld<V>(ie + k) + off) - uu;
        const V down = uu - (ld<V>(umin + k) + 1e-9);
        const V fall = uu - rr * (off - ld<V>(ii + k));
        const V k_up = up <= zero ? zero : (rise > up ? ts * up / rise : inf);
        const V k_down = down <= zero ? zero : (fall > down ? ts * down / fall : inf);
        const V steps = vmin(k_up, k_down);
        const V rf = ld<V>(ref + k);
        const M held = 0.0 < rf;
        fewest = vmin(fewest, skip_held ? (held ? inf : steps) : steps);
        hold = vmin(hold, held ? rf : inf);
    }
    const double none = std::numeric_limits<double>::infinity();
    if (skip_held) *held_min = std::min(*held_min, lane_min<N>(hold, none));
    return lane_min<N>(fewest, none);
}

// One leap of k steps for all lanes (AdexArray::try_leap): `co` is the level's coefficients.
template <int N>
NMSIM_INLINE void leap_body(double* pk, const double* co, size_t s, size_t n, double kd) {
    using V = typename Vec<N>::V;
    using M = typename Vec<N>::M;
    auto f = [pk, s](size_t i) { return pk + i * s; };
    double *const u = f(kU), *const ie = f(kIe), *const ii = f(kIi), *const ref = f(kRef);
    const double *const w = f(kW), *const ioff = f(kIOff);
    for (size_t k = 0; k < n; k += N) {
        const V uo = ld<V>(u + k), eo = ld<V>(ie + k), io = ld<V>(ii + k), r = ld<V>(ref + k);
        const V un = ld<V>(co + k) * uo + ld<V>(co + s + k) * ld<V>(w + k) +
                     ld<V>(co + 2 * s + k) * eo + ld<V>(co + 3 * s + k) * io +
                     ld<V>(co + 4 * s + k) * ld<V>(ioff + k);
        const M held = 0.0 < r;
        st(u + k, held ? uo : un);
        st(ref + k, held ? r - kd : r);
        st(ie + k, eo * ld<V>(co + 5 * s + k));
        st(ii + k, io * ld<V>(co + 6 * s + k));
    }
}

using LeapFn = void (*)(double*, const double*, size_t, size_t, double);
void leap_2(double* pk, const double* co, size_t s, size_t n, double kd) {
    leap_body<2>(pk, co, s, n, kd);
}
#if NMSIM_ADEX_X86
__attribute__((target("avx2"))) void leap_4(double* pk, const double* co, size_t s, size_t n,
                                            double kd) {
    leap_body<4>(pk, co, s, n, kd);
}
__attribute__((target("avx512f"), optimize("fp-contract=off"))) void leap_8(double* pk,
                                                                            const double* co,
                                                                            size_t s, size_t n,
                                                                            double kd) {
    leap_body<8>(pk, co, s, n, kd);
}
#endif

using HorizonFn = double (*)(const double*, size_t, size_t, bool, double*);
double horizon_2(const double* pk, size_t s, size_t n, bool skip, double* held) {
    return horizon_body<2>(pk, s, n, skip, held);
}
#if NMSIM_ADEX_X86
__attribute__((target("avx2"))) double horizon_4(const double* pk, size_t s, size_t n, bool skip,
                                                 double* held) {
    return horizon_body<4>(pk, s, n, skip, held);
}
__attribute__((target("avx512f"))) double horizon_8(const double* pk, size_t s, size_t n, bool skip,
                                                    double* held) {
    return horizon_body<8>(pk, s, n, skip, held);
}
#endif

using KernelFn = double (*)(double*, double*, size_t, size_t, double);

double step_kernel_2(double* pk, double* flag, size_t s, size_t n, double cap) {
    return step_kernel_body<2>(pk, flag, s, n, cap);
}
double linear_kernel_2(double* pk, double* flag, size_t s, size_t n, double cap) {
    return linear_kernel_body<2>(pk, flag, s, n, cap);
}
#if NMSIM_ADEX_X86
__attribute__((target("avx2"))) double step_kernel_4(double* pk, double* flag, size_t s, size_t n,
                                                     double cap) {
    return step_kernel_body<4>(pk, flag, s, n, cap);
}
__attribute__((target("avx512f"), optimize("fp-contract=off"))) double step_kernel_8(
    double* pk, double* flag, size_t s, size_t n, double cap) {
    return step_kernel_body<8>(pk, flag, s, n, cap);
}
__attribute__((target("avx2"))) double linear_kernel_4(double* pk, double* flag, size_t s, size_t n,
                                                       double cap) {
    return linear_kernel_body<4>(pk, flag, s, n, cap);
}
__attribute__((target("avx512f"), optimize("fp-contract=off"))) double linear_kernel_8(
    double* pk, double* flag, size_t s, size_t n, double cap) {
    return linear_kernel_body<8>(pk, flag, s, n, cap);
}
#endif

// The widest vectors the CPU supports (hardware lanes per register: SSE2 2, AVX2 4, AVX-512F 8);
// NMSIM_ADEX_LANES=2|4|8 limits them (the tests compare the widths). All the array's kernels
// (step, linear step, leap bound, leap) use the same width.
#if NMSIM_ADEX_X86
#define NMSIM_ADEX_WIDTHS(name) name##_2, name##_4, name##_8
#else
#define NMSIM_ADEX_WIDTHS(name) name##_2, name##_2, name##_2
#endif
template <class Fn>
Fn widest(Fn f2, [[maybe_unused]] Fn f4, [[maybe_unused]] Fn f8) {
    int lanes = 8;
    if (const char* e = std::getenv("NMSIM_ADEX_LANES")) lanes = std::atoi(e);
#if NMSIM_ADEX_X86
    if (lanes >= 8 && __builtin_cpu_supports("avx512f")) return f8;
    if (lanes >= 4 && __builtin_cpu_supports("avx2")) return f4;
#endif
    return f2;
}

}  // namespace

AdexArray::AdexArray(size_t n, const AdexParams& p, uint64_t seed)
    : m_p(p),
      m_seed(seed),
      m_cfg(n),
      m_eff(n),
      m_integ(n, 0.0),
      m_integ_gain_exc(n, 0.0),
      m_integ_gain_inh(n, 0.0),
      m_co(n),
      m_input_gain(2 * n, 0.0),
      m_input_on(n, 0),
      m_pos(n, kNone),
      m_step_matrix(n),
      m_leap_stale(n, 1),
      m_ring(kRing) {
    if (p.dt.ps <= 0) throw std::invalid_argument("AdexParams.dt must be > 0");
    m_dt_ps = static_cast<uint64_t>(p.dt.ps);
    m_h = static_cast<double>(m_dt_ps) * 1e-6;
    m_kernel = widest<KernelFn>(NMSIM_ADEX_WIDTHS(step_kernel));
    m_linear_kernel = widest<KernelFn>(NMSIM_ADEX_WIDTHS(linear_kernel));
    m_horizon = widest<HorizonFn>(NMSIM_ADEX_WIDTHS(horizon));
    m_leap = widest<LeapFn>(NMSIM_ADEX_WIDTHS(leap));
    m_step_spikes.reserve(n);
    m_enabled.reserve(n);
    for (size_t i = 0; i < n; ++i) configure(i, NeuronConfig{});
}

NeuronConfig AdexArray::effective(size_t i) const { return m_eff.at(i); }

void AdexArray::configure(size_t i, const NeuronConfig& cfg) {
    if (i >= m_cfg.size())
        throw std::invalid_argument("AdexArray::configure: neuron index out of range");
    std::string err;
    if (cfg.enable && !cfg.valid(&err)) throw std::invalid_argument(err);
    const bool was_enabled = m_cfg[i].enable;
    const bool was_integrator = m_cfg[i].integrator;
    m_cfg[i] = cfg;

    // Fixed-pattern residual: always drawn in the same order from the stream of (seed, i), so a
    // neuron's deviations do not depend on which parameters are switched on or on the order of
    // configure calls. Relative factors are kept >= 0.1 (a deviation of -90 % is outside any
    // plausible calibration residual, and the dynamics need positive time constants).
    NormalStream rng(splitmix64(m_seed ^ splitmix64(0x6E6575726F6E0000ull + i)));
    auto rel = [&rng](double sigma) { return std::max(0.1, 1.0 + sigma * rng.next()); };
    NeuronConfig e = cfg;
    e.tau_mem *= rel(m_p.mismatch_tau_rel);
    e.tau_syn_exc *= rel(m_p.mismatch_tau_rel);
    e.tau_syn_inh *= rel(m_p.mismatch_tau_rel);
    e.c_mem *= rel(m_p.mismatch_c_rel);
    e.w_exc *= rel(m_p.mismatch_w_rel);
    e.w_inh *= rel(m_p.mismatch_w_rel);
    e.v_leak += m_p.mismatch_v_mV * rng.next();
    e.v_reset += m_p.mismatch_v_mV * rng.next();
    e.v_threshold += m_p.mismatch_v_mV * rng.next();
    m_eff[i] = e;
    // Integrator gain: charge per unit scales with the synaptic input strength, the voltage
    // with 1 / C, so the neuron's w and C mismatch give its (exc and inh) gain residual.
    m_integ_gain_exc[i] =
        cfg.w_exc > 0 ? m_p.hagen_mV_per_unit * (e.w_exc / cfg.w_exc) * (cfg.c_mem / e.c_mem) : 0.0;
    m_integ_gain_inh[i] =
        cfg.w_inh > 0 ? m_p.hagen_mV_per_unit * (e.w_inh / cfg.w_inh) * (cfg.c_mem / e.c_mem) : 0.0;
    // What an input of amount 1 adds (add_input): mV for an integrator, nA otherwise.
    m_input_gain[2 * i] = e.integrator ? m_integ_gain_exc[i] : e.w_exc;
    m_input_gain[2 * i + 1] = e.integrator ? -m_integ_gain_inh[i] : e.w_inh;
    m_input_on[i] = e.enable ? 1 : 0;

    Coeffs c;
    if (e.enable && !e.integrator) {
        const double h = m_h;
        // Linear system for (u, w, I_exc, I_inh, c) with u = V - v_leak, see docs/bss2_neuron.md.
        Mat a{};
        a[0][0] = -1.0 / e.tau_mem;
        a[0][2] = 1.0 / e.c_mem;
        a[0][3] = -1.0 / e.c_mem;
        a[0][4] = 1.0 / e.c_mem;
        if (e.adaptation) {
            a[0][1] = -1.0 / e.c_mem;
            a[1][0] = e.a / e.tau_w;
            a[1][1] = -1.0 / e.tau_w;
        }
        a[2][2] = -1.0 / e.tau_syn_exc;
        a[3][3] = -1.0 / e.tau_syn_inh;
        Mat full, half;
        expm(a, h, full);
        expm(a, 0.5 * h, half);
        for (int k = 0; k < 5; ++k) {
            c.pu[k] = full[0][k];
            c.pw[k] = full[1][k];
            c.hu[k] = half[0][k];
        }
        c.de = std::exp(-h / e.tau_syn_exc);
        c.di = std::exp(-h / e.tau_syn_inh);
        std::memcpy(m_step_matrix[i].data(), full, sizeof full);
        c.u_reset = e.v_reset - e.v_leak;
        c.u_th = e.v_threshold - e.v_leak;
        if (e.adaptation) {
            c.rw_w = std::exp(-h / e.tau_w);
            c.rw_c = e.a * c.u_reset * (1.0 - c.rw_w);
            c.b = e.b;
        }
        if (e.exponential) {
            const double u_exp = e.v_exp - e.v_leak;
            c.u_exp = u_exp;
            c.inv_dt = 1.0 / e.delta_t;
            c.gl_dt = e.c_mem / e.tau_mem * e.delta_t;
            c.e_reset = std::exp(std::min((c.u_reset - u_exp) * c.inv_dt, kMaxExpArg));
            c.e_rest = std::exp(std::min(-u_exp * c.inv_dt, kMaxExpArg));
        }
        c.i_offset = e.i_offset;
        c.g_l = e.c_mem / e.tau_mem;
        c.inv_c = 1.0 / e.c_mem;
        c.u_min = m_p.v_min_mV - e.v_leak;
        c.u_max = m_p.v_max_mV - e.v_leak;
        // White current noise: the increment that keeps the resting membrane's stationary std
        // at noise_mV with relaxation time tau_mem (exact for the linear membrane).
        c.noise = m_p.noise_mV * std::sqrt(std::max(0.0, 1.0 - std::exp(-2.0 * h / e.tau_mem)));
        c.ref_steps = static_cast<uint32_t>(
            std::min(std::llround(e.t_ref * 1e6 / static_cast<double>(m_dt_ps)), 0xFFFFFFFFll));
        c.fire = e.fire;
    }
    m_co[i] = c;
    m_leap_stale[i] = 1;
    m_leap_coefficients_stale = true;
    m_leaps_possible = -1;
    if (was_enabled != cfg.enable || was_integrator != cfg.integrator) {
        repack();
    } else if (cfg.enable && !cfg.integrator) {
        pack(m_pos[i], c);
    }
    reset(i);
}

// The K-step propagator is the K-th power of the one-step propagator (exact for the linear
// system up to round-off); its u row and the synaptic decays over K steps, for K = 2..kMaxLeap,
// into lane k of the packed leap coefficients.
void AdexArray::leap_coefficients(size_t k, const std::array<double, 25>& one) {
    double step[5][5], power[5][5], next[5][5];
    std::memcpy(step, one.data(), sizeof step);
    std::memcpy(power, step, sizeof power);
    for (uint32_t n = 2; n <= kMaxLeap; ++n) {
        mat_mul(power, step, next);
        std::memcpy(power, next, sizeof power);
        double* const level = m_lk.data() + n * kLeapFields * m_stride + k;
        for (size_t j = 0; j < 5; ++j) level[j * m_stride] = power[0][j];
        level[5 * m_stride] = power[2][2];
        level[6 * m_stride] = power[3][3];
    }
}

void AdexArray::pack(size_t k, const Coeffs& c) {
    for (int j = 0; j < 5; ++j) {
        field(kPu + j)[k] = c.pu[j];
        field(kPw + j)[k] = c.pw[j];
        field(kHu + j)[k] = c.hu[j];
    }
    field(kDe)[k] = c.de;
    field(kDi)[k] = c.di;
    field(kRwW)[k] = c.rw_w;
    field(kRwC)[k] = c.rw_c;
    field(kUReset)[k] = c.u_reset;
    field(kUTh)[k] = c.u_th;
    field(kGlDt)[k] = c.gl_dt;
    field(kInvDt)[k] = c.inv_dt;
    field(kIOff)[k] = c.i_offset;
    field(kUMin)[k] = c.u_min;
    field(kUMax)[k] = c.u_max;
    field(kR)[k] = c.g_l > 0 ? 1.0 / c.g_l : 0.0;
    field(kTauSteps)[k] = c.g_l > 0 ? 1.0 / (c.g_l * c.inv_c * m_h) : 0.0;
}

void AdexArray::repack() {
    // Keeps the state of neurons that stay enabled; the padding lanes never cross a threshold.
    static constexpr size_t kState[] = {kU, kW, kIe, kIi, kEx, kRef};
    std::vector<uint32_t> enabled;
    for (size_t i = 0; i < m_cfg.size(); ++i)
        if (m_cfg[i].enable && !m_cfg[i].integrator) enabled.push_back(static_cast<uint32_t>(i));
    // A multiple of 8 lanes plus one cache line, so that the fields of a lane do not all map to
    // the same L1 set (a stride of 512 doubles = 4 KiB would: set conflicts and 4K aliasing).
    const size_t stride = (enabled.size() + 7) / 8 * 8 + 8;
    std::vector<double> pk(kFields * stride, 0.0);
    for (size_t k = 0; k < enabled.size(); ++k) {
        const uint32_t i = enabled[k];
        if (m_pos[i] != kNone)
            for (size_t f : kState) pk[f * stride + k] = field(f)[m_pos[i]];
    }
    m_pk.swap(pk);
    m_flags.assign(2 * stride + stride / 8, -1.0);
    m_lk.assign((kMaxLeap + 1) * kLeapFields * stride, 0.0);
    std::fill(m_leap_stale.begin(), m_leap_stale.end(), 1);
    m_leap_coefficients_stale = true;
    m_leaps_possible = -1;
    m_stride = stride;
    m_enabled.swap(enabled);
    std::fill(m_pos.begin(), m_pos.end(), kNone);
    for (size_t k = 0; k < m_enabled.size(); ++k) {
        m_pos[m_enabled[k]] = static_cast<uint32_t>(k);
        pack(k, m_co[m_enabled[k]]);
    }
    Coeffs inert;
    inert.u_th = inert.u_max = std::numeric_limits<double>::infinity();
    inert.u_min = -std::numeric_limits<double>::infinity();
    for (size_t k = m_enabled.size(); k < m_stride; ++k) {
        pack(k, inert);
        field(kEx)[k] = 1.0;
    }
}

void AdexArray::reset(size_t i) {
    if (i >= m_cfg.size())
        throw std::invalid_argument("AdexArray::reset: neuron index out of range");
    if (m_pos[i] != kNone) reset_packed(m_pos[i]);
    m_integ[i] = 0.0;
}

void AdexArray::reset_packed(size_t k) {
    const Coeffs& c = m_co[m_enabled[k]];
    field(kU)[k] = 0.0;
    field(kW)[k] = 0.0;
    field(kIe)[k] = 0.0;
    field(kIi)[k] = 0.0;
    field(kEx)[k] = c.e_rest;
    field(kRef)[k] = 0.0;
    field(kNoise)[k] = 0.0;
}

double AdexArray::v(size_t i) const {
    const NeuronConfig& e = m_eff.at(i);
    if (e.enable && e.integrator)
        return std::clamp(e.v_reset + m_integ[i], m_p.v_min_mV, m_p.v_max_mV);
    return m_pos[i] == kNone ? e.v_leak : field(kU)[m_pos[i]] + e.v_leak;
}

double AdexArray::w(size_t i) const {
    if (i >= m_cfg.size()) throw std::invalid_argument("AdexArray::w: neuron index out of range");
    return m_pos[i] == kNone ? 0.0 : field(kW)[m_pos[i]];
}

// Inputs at one time come in rows of events: one division per time, not per input.
uint64_t AdexArray::input_step(uint64_t t_ps) {
    if (t_ps != m_last_input_ps) {
        m_last_input_ps = t_ps;
        m_last_input_step = t_ps / m_dt_ps + (t_ps % m_dt_ps != 0 ? 1 : 0);
    }
    return std::max(m_last_input_step, m_step);
}

// The ring slot of `step` (< m_step + kRing), marked as holding events for free_steps.
std::vector<AdexArray::Event>& AdexArray::ring_slot(uint64_t step) {
    const uint64_t slot = step % kRing;
    m_ring_busy[slot / 64] |= uint64_t{1} << (slot % 64);
    return m_ring[slot];
}

std::vector<AdexArray::Event>& AdexArray::input_slot(uint64_t step) {
    if (step - m_step < kRing) return ring_slot(step);
    m_far_min = std::min(m_far_min, step);
    return m_far;
}

void AdexArray::add_input(size_t i, bool inhibitory, double amount, uint64_t t_ps) {
    if (i >= m_cfg.size())
        throw std::invalid_argument("AdexArray::add_input: neuron index out of range");
    ++m_inputs;
    if (!m_input_on[i]) return;
    const uint64_t step = input_step(t_ps);
    // Integrator neurons take the signed membrane change (mV), others the current jump (nA).
    const double value = amount * m_input_gain[2 * i + (inhibitory ? 1 : 0)];
    input_slot(step).push_back({static_cast<uint32_t>(i), inhibitory ? 1u : 0u, value, step});
}

void AdexArray::add_inputs(size_t first, const SynapticInput* in, size_t n, bool inhibitory,
                           uint64_t t_ps) {
    if (n == 0) return;
    m_inputs += n;
    const uint64_t step = input_step(t_ps);
    std::vector<Event>& slot = input_slot(step);
    const uint32_t inh = inhibitory ? 1u : 0u;
    for (size_t k = 0; k < n; ++k) {
        const size_t i = first + in[k].column;
        if (i >= m_cfg.size())
            throw std::invalid_argument("AdexArray::add_inputs: neuron index out of range");
        if (!m_input_on[i]) continue;
        slot.push_back(
            {static_cast<uint32_t>(i), inh, in[k].amount * m_input_gain[2 * i + inh], step});
    }
}

void AdexArray::apply_events(uint64_t step) {
    if (m_far_min < step + kRing) {  // move overflow events that entered the ring horizon
        uint64_t next_min = UINT64_MAX;
        size_t keep = 0;
        for (size_t k = 0; k < m_far.size(); ++k) {
            const Event& ev = m_far[k];
            if (ev.step < step + kRing) {
                ring_slot(std::max(ev.step, step)).push_back(ev);
            } else {
                next_min = std::min(next_min, ev.step);
                m_far[keep++] = ev;
            }
        }
        m_far.resize(keep);
        m_far_min = next_min;
    }
    std::vector<Event>& slot = m_ring[step % kRing];
    double* const ie = field(kIe);
    double* const ii = field(kIi);
    for (const Event& ev : slot) {
        const uint32_t k = m_pos[ev.neuron];
        if (k == kNone) {  // an integrator, or disabled after the event was queued
            const NeuronConfig& e = m_eff[ev.neuron];
            if (e.enable && e.integrator) m_integ[ev.neuron] += ev.current;
            continue;
        }
        (ev.inhibitory ? ii : ie)[k] += ev.current;
    }
    slot.clear();
    m_ring_busy[(step % kRing) / 64] &= ~(uint64_t{1} << (step % 64));
}

// Exact recomputation of flagged lanes, then the threshold crossings: reset, adaptation jump,
// refractory hold and the interpolated spike time.
void AdexArray::finish_step(uint64_t step) {
    double* const flag = m_flags.data();
    double* const u = field(kU);
    double* const w = field(kW);
    double* const ex = field(kEx);
    double* const ref = field(kRef);
    const double* const u0 = field(kU0);
    const double* const block = flag + 2 * m_stride;
    for (size_t k = 0; k < m_enabled.size(); ++k) {
        if (k % 8 == 0 && block[k / 8] < 0.0) {
            k += 7;
            continue;
        }
        const bool exact = flag[k] >= 0.0;
        bool spike = flag[m_stride + k] >= 0.0;
        if (!exact && !spike) continue;
        const Coeffs& c = m_co[m_enabled[k]];
        if (exact) {
            const double uo = u0[k], wo = field(kW0)[k], eo = field(kIe0)[k], io = field(kIi0)[k],
                         xo = field(kEx0)[k];
            double un, wn, dmax;
            adex_step<double>(uo, wo, eo, io, c.gl_dt * xo, field(kNoise)[k], c.i_offset, c.inv_dt,
                              c.hu, c.pu, c.pw, un, wn, dmax);
            un = std::min(std::max(un, c.u_min), c.u_max);
            u[k] = un;
            w[k] = wn;
            ex[k] = c.inv_dt > 0 ? std::exp(std::min((un - c.u_exp) * c.inv_dt, kMaxExpArg)) : 1.0;
            spike = un >= c.u_th;
        }
        if (spike) {
            // Crossing time: cubic Hermite interpolation of u over the step from the values and
            // derivatives at both ends (the membrane is strongly convex in the exponential upswing,
            // where a chord would be up to ~0.5 ns early at 10 ns steps).
            const double uo = u0[k], un = u[k];
            auto du = [&c](double uu, double ww, double ee, double ii_, double xx) {
                return (-c.g_l * uu + c.gl_dt * xx + ee - ii_ + c.i_offset - ww) * c.inv_c;
            };
            const double h = m_h;
            const double m0 =
                h * du(uo, field(kW0)[k], field(kIe0)[k], field(kIi0)[k], field(kEx0)[k]);
            const double m1 = h * du(un, w[k], field(kIe)[k], field(kIi)[k], ex[k]);
            double frac = un > uo ? std::clamp((c.u_th - uo) / (un - uo), 0.0, 1.0) : 1.0;
            if (un < c.u_max) {  // not clamped: the cubic is meaningful
                double x = frac;
                bool ok = true;
                for (int it = 0; it < 8 && ok; ++it) {
                    const double x2 = x * x, x3 = x2 * x;
                    const double val = (2 * x3 - 3 * x2 + 1) * uo + (x3 - 2 * x2 + x) * m0 +
                                       (-2 * x3 + 3 * x2) * un + (x3 - x2) * m1 - c.u_th;
                    const double der = (6 * x2 - 6 * x) * uo + (3 * x2 - 4 * x + 1) * m0 +
                                       (-6 * x2 + 6 * x) * un + (3 * x2 - 2 * x) * m1;
                    if (!(der > 0)) {
                        ok = false;
                        break;
                    }
                    const double nx = x - val / der;
                    if (std::fabs(nx - x) < 1e-12) {
                        x = nx;
                        break;
                    }
                    x = nx;
                }
                if (ok && x >= 0.0 && x <= 1.0) frac = x;
            }
            u[k] = c.u_reset;
            w[k] += c.b;
            ex[k] = c.e_reset;
            ref[k] = c.ref_steps > 0 ? static_cast<double>(c.ref_steps - 1) : 0.0;
            ++m_spikes;
            if (c.fire) {
                const uint64_t t0 = step * m_dt_ps;
                const uint64_t t =
                    t0 + static_cast<uint64_t>(std::llround(frac * static_cast<double>(m_dt_ps)));
                m_step_spikes.emplace_back(m_enabled[k], std::max(t, t0 + 1));
            }
        }
    }
}

// Leaps need every enabled neuron linear (no exponential term, no adaptation) and no noise, so
// that the K-step propagator is exact and the bounds below hold.
bool AdexArray::leaps_possible() {
    if (m_leaps_possible < 0) {
        bool ok = m_p.noise_mV <= 0;
        for (const uint32_t i : m_enabled) ok = ok && !m_eff[i].exponential && !m_eff[i].adaptation;
        m_leaps_possible = ok ? 1 : 0;
    }
    return m_leaps_possible == 1;
}

// The leap coefficients of reconfigured neurons are made when a leap is first taken after the
// change, not at every configure (a neuron is configured word by word, before the run).
void AdexArray::update_leap_coefficients() {
    if (!m_leap_coefficients_stale) return;
    for (size_t k = 0; k < m_enabled.size(); ++k) {
        if (!m_leap_stale[m_enabled[k]]) continue;
        leap_coefficients(k, m_step_matrix[m_enabled[k]]);
        m_leap_stale[m_enabled[k]] = 0;
    }
    m_leap_coefficients_stale = false;
}

// Steps from `step` (its inputs applied) before the next step with inputs, at most `limit`
// (<= kRing, the ring's horizon).
uint64_t AdexArray::free_steps(uint64_t step, uint64_t limit) const {
    if (m_far_min != UINT64_MAX) limit = std::min(limit, m_far_min - step);
    // The first busy ring slot after `step`, a word of slots at a time (the ring wraps).
    uint64_t j = 1;
    while (j < limit) {
        const uint64_t slot = (step + j) % kRing;
        const uint64_t bits = m_ring_busy[slot / 64] >> (slot % 64);
        if (bits != 0)
            return std::min<uint64_t>(limit, j + static_cast<uint64_t>(__builtin_ctzll(bits)));
        j += 64 - slot % 64;
    }
    return limit;
}

// The steps every neuron can be integrated without inputs before one could reach its threshold
// or a rail (horizon_body), at least 0. Refractory neurons are left out when `hold_counts` is false
// (their smallest remaining hold in *held_min), else bounded from their held value.
double AdexArray::horizon(bool hold_counts, double* held_min) const {
    double held = std::numeric_limits<double>::infinity();
    const double steps = m_horizon(m_pk.data(), m_stride, m_stride, !hold_counts, &held);
    if (!hold_counts) *held_min = std::min(*held_min, held);
    return steps;
}

uint64_t AdexArray::quiet_steps(uint64_t max) {
    if (max < 2 || !leaps_possible() || !m_ring[m_step % kRing].empty() || m_far_min <= m_step ||
        !leap_check_due())
        return 1;
    const double safe = std::min(horizon(true, nullptr), static_cast<double>(max));
    if (safe < 2.0) {
        leap_check_failed();
        return 1;
    }
    m_leap_backoff = 1;
    return free_steps(m_step, std::min<uint64_t>(static_cast<uint64_t>(safe), kRing));
}

// Tries to take the next `k` steps (no inputs among them) as one update: as many of them as the
// horizon allows, so that no step of them could have spiked or clamped and the K-step propagator
// gives what K single steps give (to round-off). Refractory neurons must stay held through all K
// steps. Returns the steps taken (0: none).
uint64_t AdexArray::try_leap(uint64_t k) {
    double held_min = static_cast<double>(k);
    const double safe = std::min(horizon(false, &held_min), held_min);
    if (safe < 2.0) return 0;
    k = static_cast<uint64_t>(safe);
    update_leap_coefficients();
    m_leap(m_pk.data(), m_lk.data() + k * kLeapFields * m_stride, m_stride, m_stride,
           static_cast<double>(k));
    return k;
}

void AdexArray::advance_to(uint64_t t_ps, const std::function<void(uint32_t, uint64_t)>& on_spike) {
    if (m_in_advance)
        throw std::logic_error("AdexArray::advance_to called from its own spike callback");
    const uint64_t target = t_ps / m_dt_ps;
    if (target <= m_step) return;
    m_in_advance = true;
    struct Guard {
        bool& flag;
        ~Guard() { flag = false; }
    } guard{m_in_advance};
    const uint64_t seed_noise = splitmix64(m_seed ^ 0x6E6F697365000000ull);
    const bool noise = m_p.noise_mV > 0;
    const double exp_cap = std::exp(kMaxExpArg);
    while (m_step < target) {
        const uint64_t step = m_step;
        apply_events(step);
        if (noise) {
            // Counter-based: the noise of neuron i at a step depends on (seed, i, step) only.
            double* const nz = field(kNoise);
            for (size_t k = 0; k < m_enabled.size(); ++k) {
                const uint64_t i = m_enabled[k];
                const uint64_t r = splitmix64(seed_noise + splitmix64(step ^ (i << 40)));
                nz[k] = m_co[i].noise * fast_normal(r);
            }
        }
        if (leaps_possible() && leap_check_due()) {
            const uint64_t free = free_steps(step, std::min<uint64_t>(target - step, kMaxLeap));
            if (free >= 2) {
                if (const uint64_t k = try_leap(free)) {
                    m_leap_backoff = 1;
                    m_neuron_updates += k * m_enabled.size();
                    m_steps += k;
                    ++m_leaps;
                    m_leap_steps += k;
                    m_step = step + k;
                    continue;
                }
                leap_check_failed();
            }
        }
        m_step_spikes.clear();
        if (!m_enabled.empty() &&
            (leaps_possible() ? m_linear_kernel : m_kernel)(m_pk.data(), m_flags.data(), m_stride,
                                                            m_stride, exp_cap) >= 0.0)
            finish_step(step);
        m_neuron_updates += m_enabled.size();
        ++m_steps;
        m_step = step + 1;
        if (on_spike) {
            for (const auto& s : m_step_spikes) on_spike(s.first, s.second);
        }
    }
}

}  // namespace nmsim::bss2
