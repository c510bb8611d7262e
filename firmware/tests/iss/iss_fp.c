/* ISS differential test, single-precision FPU (fpv4-sp-d16): arithmetic, fused and chained
 * multiply-accumulate, square root, comparisons, float<->integer, float<->fixed-point and
 * float<->half conversions. Every op runs over edge cases (zeros, denormals, extremes,
 * infinities, quiet and signalling NaNs with payloads, rounding ties, integer limits) and
 * pseudo-random values, in all 16 combinations of FPSCR rounding mode, flush-to-zero and default
 * NaN. Per op: one checksum line per (FZ, DN) pair with a checksum per rounding mode, then
 * individual sample results. FPSCR (NZCV and cumulative exception flags) is part of every
 * result. Also: FPSCR read/write, sticky flag accumulation, VMOV/VLDM/VSTM/VPUSH/VPOP. */
#include "iss_common.h"

#define FPSCR_AHP (1u << 26)
#define FPSCR_DN (1u << 25)
#define FPSCR_FZ (1u << 24)
#define FPSCR_RMODE_SHIFT 22

typedef uint32_t (*FpFn)(uint32_t a, uint32_t b, uint32_t c, uint32_t* fpscr);

/* s0 = a, s1 = b, s2 = c, then insn computes s2; returns s2 and FPSCR afterwards. */
#define FOP(fn, insn)                                                                       \
    static uint32_t fn(uint32_t a, uint32_t b, uint32_t c, uint32_t* fpscr) {               \
        uint32_t r, st = *fpscr;                                                            \
        __asm volatile(                                                                     \
            "vmsr fpscr, %[st]\n\tvmov s0, %[a]\n\tvmov s1, %[b]\n\tvmov s2, %[c]\n\t" insn \
            "\n\tvmov %[r], s2\n\tvmrs %[st], fpscr"                                        \
            : [r] "=&r"(r), [st] "+r"(st)                                                   \
            : [a] "r"(a), [b] "r"(b), [c] "r"(c)                                            \
            : "s0", "s1", "s2", "cc");                                                      \
        *fpscr = st;                                                                        \
        return r;                                                                           \
    }

/* Same, but insn leaves its result in the core register %[r]. */
#define FOPC(fn, insn)                                                                      \
    static uint32_t fn(uint32_t a, uint32_t b, uint32_t c, uint32_t* fpscr) {               \
        uint32_t r, st = *fpscr;                                                            \
        __asm volatile(                                                                     \
            "vmsr fpscr, %[st]\n\tvmov s0, %[a]\n\tvmov s1, %[b]\n\tvmov s2, %[c]\n\t" insn \
            "\n\tvmrs %[st], fpscr"                                                         \
            : [r] "=&r"(r), [st] "+r"(st)                                                   \
            : [a] "r"(a), [b] "r"(b), [c] "r"(c)                                            \
            : "s0", "s1", "s2", "cc");                                                      \
        *fpscr = st;                                                                        \
        return r;                                                                           \
    }

/* all 14 conditions after VMRS APSR_nzcv, as a bit mask */
#define COND_BITS                                                              \
    "vmrs APSR_nzcv, fpscr\n\tmov %[r], #0\n\t"                                \
    "it eq\n\torreq %[r], %[r], #1\n\tit ne\n\torrne %[r], %[r], #2\n\t"       \
    "it cs\n\torrcs %[r], %[r], #4\n\tit cc\n\torrcc %[r], %[r], #8\n\t"       \
    "it mi\n\torrmi %[r], %[r], #16\n\tit pl\n\torrpl %[r], %[r], #32\n\t"     \
    "it vs\n\torrvs %[r], %[r], #64\n\tit vc\n\torrvc %[r], %[r], #128\n\t"    \
    "it hi\n\torrhi %[r], %[r], #256\n\tit ls\n\torrls %[r], %[r], #512\n\t"   \
    "it ge\n\torrge %[r], %[r], #1024\n\tit lt\n\torrlt %[r], %[r], #2048\n\t" \
    "it gt\n\torrgt %[r], %[r], #4096\n\tit le\n\torrle %[r], %[r], #8192"

/* binary */
FOP(f_add, "vadd.f32 s2, s0, s1")
FOP(f_sub, "vsub.f32 s2, s0, s1")
FOP(f_mul, "vmul.f32 s2, s0, s1")
FOP(f_div, "vdiv.f32 s2, s0, s1")
FOP(f_nmul, "vnmul.f32 s2, s0, s1")
FOP(f_cmp, "vcmp.f32 s0, s1")
FOP(f_cmpe, "vcmpe.f32 s0, s1")
FOPC(f_cmp_cond, "vcmp.f32 s0, s1\n\t" COND_BITS)
FOP(f_cmp_sel,
    "vcmpe.f32 s0, s1\n\tvmrs APSR_nzcv, fpscr\n\tite gt\n\tvmovgt.f32 s2, s0\n\tvmovle.f32 s2, s1")
/* ternary: s2 is the accumulator */
FOP(f_fma, "vfma.f32 s2, s0, s1")
FOP(f_fms, "vfms.f32 s2, s0, s1")
FOP(f_fnma, "vfnma.f32 s2, s0, s1")
FOP(f_fnms, "vfnms.f32 s2, s0, s1")
FOP(f_mla, "vmla.f32 s2, s0, s1")
FOP(f_mls, "vmls.f32 s2, s0, s1")
FOP(f_nmla, "vnmla.f32 s2, s0, s1")
FOP(f_nmls, "vnmls.f32 s2, s0, s1")
/* unary */
FOP(f_sqrt, "vsqrt.f32 s2, s0")
FOP(f_abs, "vabs.f32 s2, s0")
FOP(f_neg, "vneg.f32 s2, s0")
FOP(f_cmp_zero, "vcmp.f32 s0, #0.0")
FOP(f_cmpe_zero, "vcmpe.f32 s0, #0.0")
FOPC(f_cmpe_zero_cond, "vcmpe.f32 s0, #0.0\n\t" COND_BITS)
FOP(f_cvt_s32, "vcvt.s32.f32 s2, s0")
FOP(f_cvtr_s32, "vcvtr.s32.f32 s2, s0")
FOP(f_cvt_u32, "vcvt.u32.f32 s2, s0")
FOP(f_cvtr_u32, "vcvtr.u32.f32 s2, s0")
FOP(f_cvt_f32_s32, "vcvt.f32.s32 s2, s0")
FOP(f_cvt_f32_u32, "vcvt.f32.u32 s2, s0")
FOP(f_cvt_s32_fx16, "vmov.f32 s2, s0\n\tvcvt.s32.f32 s2, s2, #16")
FOP(f_cvt_u32_fx1, "vmov.f32 s2, s0\n\tvcvt.u32.f32 s2, s2, #1")
FOP(f_cvt_s32_fx32, "vmov.f32 s2, s0\n\tvcvt.s32.f32 s2, s2, #32")
FOP(f_cvt_s16_fx8, "vmov.f32 s2, s0\n\tvcvt.s16.f32 s2, s2, #8")
FOP(f_cvt_u16_fx16, "vmov.f32 s2, s0\n\tvcvt.u16.f32 s2, s2, #16")
FOP(f_cvt_u16_fx0, "vmov.f32 s2, s0\n\tvcvt.u16.f32 s2, s2, #0")
FOP(f_cvt_f32_s32_fx16, "vmov.f32 s2, s0\n\tvcvt.f32.s32 s2, s2, #16")
FOP(f_cvt_f32_u32_fx32, "vmov.f32 s2, s0\n\tvcvt.f32.u32 s2, s2, #32")
FOP(f_cvt_f32_s16_fx8, "vmov.f32 s2, s0\n\tvcvt.f32.s16 s2, s2, #8")
FOP(f_cvt_f32_u16_fx16, "vmov.f32 s2, s0\n\tvcvt.f32.u16 s2, s2, #16")
FOP(f_cvtb_f16_f32, "vcvtb.f16.f32 s2, s0")
FOP(f_cvtt_f16_f32, "vcvtt.f16.f32 s2, s0")
FOP(f_cvtb_f32_f16, "vcvtb.f32.f16 s2, s0")
FOP(f_cvtt_f32_f16, "vcvtt.f32.f16 s2, s0")

typedef struct {
    const char* name;
    FpFn fn;
    uint32_t arity;
    uint32_t extra_fpscr; /* ORed into every mode (AHP) */
} FpOp;

#define FO(x, n) \
    { #x, f_##x, n, 0 }
static const FpOp kOps[] = {
    FO(add, 2),
    FO(sub, 2),
    FO(mul, 2),
    FO(div, 2),
    FO(nmul, 2),
    FO(cmp, 2),
    FO(cmpe, 2),
    FO(cmp_cond, 2),
    FO(cmp_sel, 2),
    FO(fma, 3),
    FO(fms, 3),
    FO(fnma, 3),
    FO(fnms, 3),
    FO(mla, 3),
    FO(mls, 3),
    FO(nmla, 3),
    FO(nmls, 3),
    FO(sqrt, 1),
    FO(abs, 1),
    FO(neg, 1),
    FO(cmp_zero, 1),
    FO(cmpe_zero, 1),
    FO(cmpe_zero_cond, 1),
    FO(cvt_s32, 1),
    FO(cvtr_s32, 1),
    FO(cvt_u32, 1),
    FO(cvtr_u32, 1),
    FO(cvt_f32_s32, 1),
    FO(cvt_f32_u32, 1),
    FO(cvt_s32_fx16, 1),
    FO(cvt_u32_fx1, 1),
    FO(cvt_s32_fx32, 1),
    FO(cvt_s16_fx8, 1),
    FO(cvt_u16_fx16, 1),
    FO(cvt_u16_fx0, 1),
    FO(cvt_f32_s32_fx16, 1),
    FO(cvt_f32_u32_fx32, 1),
    FO(cvt_f32_s16_fx8, 1),
    FO(cvt_f32_u16_fx16, 1),
    FO(cvtb_f16_f32, 1),
    FO(cvtt_f16_f32, 1),
    FO(cvtb_f32_f16, 1),
    FO(cvtt_f32_f16, 1),
    {"cvtb_f16_f32_ahp", f_cvtb_f16_f32, 1, FPSCR_AHP},
    {"cvtb_f32_f16_ahp", f_cvtb_f32_f16, 1, FPSCR_AHP},
};

#define NE 42
static const uint32_t kEdge[NE] = {
    0x00000000u, /*  0 +0 */
    0x80000000u, /*  1 -0 */
    0x3F800000u, /*  2 1.0 */
    0xBF800000u, /*  3 -1.0 */
    0x3FC00000u, /*  4 1.5 */
    0x40200000u, /*  5 2.5 */
    0xC0200000u, /*  6 -2.5 */
    0x3F000000u, /*  7 0.5 */
    0x00800000u, /*  8 smallest normal */
    0x007FFFFFu, /*  9 largest denormal */
    0x00000001u, /* 10 smallest denormal */
    0x80400000u, /* 11 negative denormal */
    0x7F7FFFFFu, /* 12 largest finite */
    0xFF7FFFFFu, /* 13 most negative finite */
    0x7F800000u, /* 14 +inf */
    0xFF800000u, /* 15 -inf */
    0x7FC00000u, /* 16 default qNaN */
    0x7FC12345u, /* 17 qNaN with payload */
    0xFFC00001u, /* 18 negative qNaN */
    0x7F800001u, /* 19 sNaN */
    0x7FA00005u, /* 20 sNaN with payload */
    0xFF811111u, /* 21 negative sNaN */
    0x40400000u, /* 22 3.0 */
    0x3DCCCCCDu, /* 23 0.1 */
    0x3EAAAAABu, /* 24 1/3 */
    0x4B800000u, /* 25 2^24 */
    0x4F000000u, /* 26 2^31 */
    0xCF000000u, /* 27 -2^31 */
    0x4F800000u, /* 28 2^32 */
    0x3F800001u, /* 29 1 + ulp */
    0x477FE000u, /* 30 65504 (largest half) */
    0x477FF000u, /* 31 65520 (half overflow tie) */
    0x38800000u, /* 32 2^-14 (smallest normal half) */
    0x33800000u, /* 33 2^-24 */
    0x33000000u, /* 34 2^-25 */
    0x4EFFFFFFu, /* 35 largest float below 2^31 */
    0xCF000001u, /* 36 just below -2^31 */
    0x4F7FFFFFu, /* 37 largest float below 2^32 */
    0x34000000u, /* 38 2^-23 */
    0x00FFFFFFu, /* 39 normal, 2^-125 - ulp */
    0x3F7FFFFFu, /* 40 1 - ulp/2 */
    0xC0400000u, /* 41 -3.0 */
};

/* Pseudo-random float bit patterns: raw bits, moderate exponents, integer-conversion range,
 * tiny values, huge values and edge cases. */
static uint32_t fp_random(uint32_t* rng) {
    uint32_t r = rng_next(rng);
    uint32_t sel = rng_next(rng);
    switch (sel & 7u) {
        case 0:
        case 1:
            return r;
        case 2:
        case 3:
            return (r & 0x807FFFFFu) | ((103u + (sel >> 8) % 49u) << 23);
        case 4:
            return (r & 0x807FFFFFu) | ((148u + (sel >> 8) % 13u) << 23);
        case 5:
            return r & 0x80FFFFFFu; /* exponent field 0 or 1 */
        case 6:
            return (r & 0x807FFFFFu) | ((250u + (sel >> 8) % 5u) << 23);
        default:
            return kEdge[(sel >> 8) % NE];
    }
}

#define N_RANDOM 300u

static uint32_t mode_fpscr(uint32_t m, const FpOp* op) {
    return ((m & 3u) << FPSCR_RMODE_SHIFT) | ((m & 4u) ? FPSCR_FZ : 0u) |
           ((m & 8u) ? FPSCR_DN : 0u) | op->extra_fpscr;
}

static void run_mode(const FpOp* op, uint32_t m, Sum* s) {
    uint32_t rng = 0x9E3779B9u ^ (m * 0x01000193u);
    const uint32_t mode = mode_fpscr(m, op);
#define CALL(a, b, c)                            \
    do {                                         \
        uint32_t st = mode;                      \
        uint32_t r = op->fn((a), (b), (c), &st); \
        sum_add(s, r);                           \
        sum_add(s, st);                          \
    } while (0)
    if (op->arity == 1) {
        for (uint32_t i = 0; i < NE; ++i) CALL(kEdge[i], 0u, 0x5555AAAAu);
        for (uint32_t i = 0; i < 4u * N_RANDOM; ++i) {
            uint32_t a = fp_random(&rng);
            CALL(a, 0u, rng_next(&rng));
        }
    } else {
        for (uint32_t i = 0; i < NE; ++i)
            for (uint32_t j = 0; j < NE; ++j)
                CALL(kEdge[i], kEdge[j], kEdge[(i + 2u * j + 1u) % NE]);
        for (uint32_t i = 0; i < N_RANDOM; ++i) {
            uint32_t a = fp_random(&rng);
            uint32_t b = fp_random(&rng);
            uint32_t c = fp_random(&rng);
            uint32_t sel = rng_next(&rng);
            /* near-cancellation: b close to +-a, c close to -a*b is not attempted */
            if ((sel & 3u) == 0) b = (a ^ (sel & 0x80000000u)) + ((sel >> 4) & 0xFFu) - 0x80u;
            CALL(a, b, c);
        }
    }
#undef CALL
}

/* Sample inputs (edge indices) printed individually. */
static const uint8_t kSample1[][1] = {{10}, {1}, {5}, {6}, {26}, {36}, {19}, {17}, {31}, {40}};
static const uint8_t kSample2[][2] = {{2, 33},  {14, 15}, {19, 17}, {17, 19}, {10, 7},
                                      {12, 12}, {0, 1},   {18, 2},  {9, 8},   {14, 0}};
static const uint8_t kSample3[][3] = {{2, 33, 29}, {14, 0, 16}, {17, 2, 19}, {12, 12, 13},
                                      {8, 7, 11},  {1, 0, 0},   {24, 22, 3}, {23, 23, 10}};

static void print_sample(const FpOp* op, const uint8_t* idx) {
    static const uint32_t modes[2] = {0u, 4u | 8u | 1u}; /* RN; FZ+DN+RP */
    uint32_t in[3] = {0u, 0u, 0x5555AAAAu};
    line_begin("fp.");
    out_str(op->name);
    out_str(".s");
    for (uint32_t k = 0; k < op->arity; ++k) {
        in[k] = kEdge[idx[k]];
        kv("x", in[k]);
    }
    for (uint32_t k = 0; k < 2; ++k) {
        uint32_t st = mode_fpscr(modes[k], op);
        uint32_t r = op->fn(in[0], in[1], in[2], &st);
        kv("r", r);
        kv("f", st);
    }
    out_nl();
}

static void run_ops(void) {
    for (uint32_t k = 0; k < sizeof kOps / sizeof kOps[0]; ++k) {
        const FpOp* op = &kOps[k];
        for (uint32_t fzdn = 0; fzdn < 4; ++fzdn) {
            line_begin("fp.");
            out_str(op->name);
            kv_dec("fz", (int32_t)(fzdn & 1u));
            kv_dec("dn", (int32_t)(fzdn >> 1));
            static const char* const kRm[4] = {"rn", "rp", "rm", "rz"};
            uint32_t n = 0;
            for (uint32_t rm = 0; rm < 4; ++rm) {
                Sum s;
                sum_init(&s);
                run_mode(op, rm | fzdn << 2, &s);
                kv(kRm[rm], s.h);
                n = s.n;
            }
            kv_dec("n", (int32_t)n);
            out_nl();
        }
        if (op->arity == 1)
            for (uint32_t i = 0; i < sizeof kSample1 / sizeof kSample1[0]; ++i)
                print_sample(op, kSample1[i]);
        else if (op->arity == 2)
            for (uint32_t i = 0; i < sizeof kSample2 / sizeof kSample2[0]; ++i)
                print_sample(op, kSample2[i]);
        else
            for (uint32_t i = 0; i < sizeof kSample3 / sizeof kSample3[0]; ++i)
                print_sample(op, kSample3[i]);
    }
}

static inline uint32_t get_fpscr(void) {
    uint32_t v;
    __asm volatile("vmrs %0, fpscr" : "=r"(v));
    return v;
}
static inline void set_fpscr(uint32_t v) { __asm volatile("vmsr fpscr, %0" ::"r"(v)); }

/* FPSCR bits that read back, and cumulative flags that stay set across operations. */
static void run_fpscr(void) {
    line_begin("fp.fpscr");
    set_fpscr(0xFFFFFFFFu);
    kv("ones", get_fpscr());
    set_fpscr(0u);
    kv("zero", get_fpscr());
    uint32_t st = 0;
    f_div(0x3F800000u, 0x00000000u, 0x0u, &st); /* 1/0: DZC */
    kv("dz", st);
    f_add(0x3F800000u, 0x33000000u, 0x0u, &st); /* 1 + 2^-25: IXC joins */
    kv("ix", st);
    f_mul(0x7F7FFFFFu, 0x40000000u, 0x0u, &st); /* overflow: OFC */
    kv("of", st);
    f_mul(0x00800000u, 0x3F000001u, 0x0u, &st); /* tiny and inexact: UFC */
    kv("uf", st);
    f_sqrt(0xBF800000u, 0x0u, 0x0u, &st); /* sqrt(-1): IOC */
    kv("io", st);
    st |= FPSCR_FZ;
    f_add(0x00000001u, 0x3F800000u, 0x0u, &st); /* flushed denormal input: IDC */
    kv("id", st);
    out_nl();
}

/* Register moves and FP loads/stores. */
static void run_moves(void) {
    static uint32_t mem[16] __attribute__((aligned(8)));
    uint32_t out[12];
    for (uint32_t i = 0; i < 16; ++i) mem[i] = 0x3F800000u + i * 0x00100001u;
    __asm volatile(
        "vmov.f32 s4, #-1.25\n\t"
        "vmov.f32 s5, #31.0\n\t"
        "vmov %[o0], s4\n\t"
        "vmov r4, s5\n\t"
        "str r4, [%[o], #4]\n\t"
        "vldmia %[m], {s8-s11}\n\t"
        "vmov r4, r5, d5\n\t" /* s10, s11 */
        "str r4, [%[o], #8]\n\t"
        "str r5, [%[o], #12]\n\t"
        "vmov d6, r5, r4\n\t" /* s12 = r5, s13 = r4 */
        "vmov s0, s1, r4, r5\n\t"
        "vadd.f32 s14, s12, s0\n\t"
        "vmov r4, s14\n\t"
        "str r4, [%[o], #16]\n\t"
        "add r4, %[m], #64\n\t"
        "vstmdb r4!, {s8-s9, s10}\n\t" /* mem[13..15] */
        "sub r4, r4, %[m]\n\t"
        "str r4, [%[o], #20]\n\t"
        "vpush {s12-s13}\n\t"
        "vpop {s20-s21}\n\t"
        "vmov r4, r5, s20, s21\n\t"
        "str r4, [%[o], #24]\n\t"
        "str r5, [%[o], #28]\n\t"
        "vldr s22, [%[m], #20]\n\t"
        "vstr s22, [%[m], #4]\n\t"
        "vldr d8, [%[m], #8]\n\t"
        "vstr d8, [%[m], #40]\n\t"
        "vmov r4, r5, d8\n\t"
        "str r4, [%[o], #32]\n\t"
        "str r5, [%[o], #36]\n\t"
        "add r4, %[m], #32\n\t"
        "vldmia r4!, {d0-d1}\n\t"
        "sub r4, r4, %[m]\n\t"
        "str r4, [%[o], #40]\n\t"
        "vmov r4, s3\n\t"
        "str r4, [%[o], #44]\n\t"
        : [o0] "=&r"(out[0])
        : [m] "r"(mem), [o] "r"(out)
        : "r4", "r5", "s0", "s1", "s2", "s3", "s4", "s5", "s8", "s9", "s10", "s11", "s12", "s13",
          "s14", "s16", "s17", "s20", "s21", "s22", "memory");
    line_begin("fp.mov");
    for (uint32_t i = 0; i < 12; ++i) kv("v", out[i]);
    out_nl();
    Sum s;
    sum_init(&s);
    for (uint32_t i = 0; i < 16; ++i) sum_add(&s, mem[i]);
    sum_print("fp.mem", &s);
}

int main(void) {
    out_str("iss_fp start\n");
    run_fpscr();
    run_moves();
    run_ops();
    set_fpscr(0u);
    out_str("iss_fp end\n");
    return 0;
}
