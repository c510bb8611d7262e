/* ISS differential test, DSP extension: saturating arithmetic and the sticky Q flag, signed and
 * unsigned saturation, parallel (SIMD) add/subtract with GE flags and SEL, halving and
 * saturating SIMD variants, halfword multiplies and multiply-accumulates (32 and 64-bit),
 * most-significant-word multiplies, dual multiplies, packing, SIMD extends and sum of absolute
 * differences. One checksum line per op plus individual results (see run_op_table). */
#include "iss_common.h"

/* saturating arithmetic */
OP_R(op_qadd, "qadd %[r], %[a], %[b]")
OP_R(op_qsub, "qsub %[r], %[a], %[b]")
OP_R(op_qdadd, "qdadd %[r], %[a], %[b]")
OP_R(op_qdsub, "qdsub %[r], %[a], %[b]")
OP_R(op_qadd8, "qadd8 %[r], %[a], %[b]")
OP_R(op_qadd16, "qadd16 %[r], %[a], %[b]")
OP_R(op_qsub8, "qsub8 %[r], %[a], %[b]")
OP_R(op_qsub16, "qsub16 %[r], %[a], %[b]")
OP_R(op_qasx, "qasx %[r], %[a], %[b]")
OP_R(op_qsax, "qsax %[r], %[a], %[b]")
OP_R(op_uqadd8, "uqadd8 %[r], %[a], %[b]")
OP_R(op_uqadd16, "uqadd16 %[r], %[a], %[b]")
OP_R(op_uqsub8, "uqsub8 %[r], %[a], %[b]")
OP_R(op_uqsub16, "uqsub16 %[r], %[a], %[b]")
OP_R(op_uqasx, "uqasx %[r], %[a], %[b]")
OP_R(op_uqsax, "uqsax %[r], %[a], %[b]")
/* halving */
OP_R(op_shadd8, "shadd8 %[r], %[a], %[b]")
OP_R(op_shadd16, "shadd16 %[r], %[a], %[b]")
OP_R(op_shsub8, "shsub8 %[r], %[a], %[b]")
OP_R(op_shsub16, "shsub16 %[r], %[a], %[b]")
OP_R(op_shasx, "shasx %[r], %[a], %[b]")
OP_R(op_shsax, "shsax %[r], %[a], %[b]")
OP_R(op_uhadd8, "uhadd8 %[r], %[a], %[b]")
OP_R(op_uhadd16, "uhadd16 %[r], %[a], %[b]")
OP_R(op_uhsub8, "uhsub8 %[r], %[a], %[b]")
OP_R(op_uhsub16, "uhsub16 %[r], %[a], %[b]")
OP_R(op_uhasx, "uhasx %[r], %[a], %[b]")
OP_R(op_uhsax, "uhsax %[r], %[a], %[b]")
/* parallel add/subtract setting GE */
OP_R(op_sadd8, "sadd8 %[r], %[a], %[b]")
OP_R(op_sadd16, "sadd16 %[r], %[a], %[b]")
OP_R(op_ssub8, "ssub8 %[r], %[a], %[b]")
OP_R(op_ssub16, "ssub16 %[r], %[a], %[b]")
OP_R(op_sasx, "sasx %[r], %[a], %[b]")
OP_R(op_ssax, "ssax %[r], %[a], %[b]")
OP_R(op_uadd8, "uadd8 %[r], %[a], %[b]")
OP_R(op_uadd16, "uadd16 %[r], %[a], %[b]")
OP_R(op_usub8, "usub8 %[r], %[a], %[b]")
OP_R(op_usub16, "usub16 %[r], %[a], %[b]")
OP_R(op_uasx, "uasx %[r], %[a], %[b]")
OP_R(op_usax, "usax %[r], %[a], %[b]")
OP_R(op_sel, "sel %[r], %[a], %[b]")
OP_R(op_uadd8_sel, "uadd8 %[r], %[a], %[b]\n\tsel %[r], %[a], %[b]")
OP_R(op_ssub8_sel, "ssub8 %[r], %[a], %[b]\n\tsel %[r], %[c], %[b]")
OP_R(op_usub16_sel, "usub16 %[r], %[a], %[b]\n\tsel %[r], %[a], %[c]")
/* saturation */
OP_R(op_ssat_8, "ssat %[r], #8, %[a]")
OP_R(op_ssat_1, "ssat %[r], #1, %[a]")
OP_R(op_ssat_32, "ssat %[r], #32, %[a]")
OP_R(op_ssat_16_lsl4, "ssat %[r], #16, %[a], lsl #4")
OP_R(op_ssat_12_asr7, "ssat %[r], #12, %[a], asr #7")
OP_R(op_ssat_24_asr31, "ssat %[r], #24, %[a], asr #31")
OP_R(op_usat_8, "usat %[r], #8, %[a]")
OP_R(op_usat_0, "usat %[r], #0, %[a]")
OP_R(op_usat_31, "usat %[r], #31, %[a]")
OP_R(op_usat_16_lsl3, "usat %[r], #16, %[a], lsl #3")
OP_R(op_usat_10_asr2, "usat %[r], #10, %[a], asr #2")
OP_R(op_ssat16_8, "ssat16 %[r], #8, %[a]")
OP_R(op_ssat16_1, "ssat16 %[r], #1, %[a]")
OP_R(op_ssat16_16, "ssat16 %[r], #16, %[a]")
OP_R(op_usat16_4, "usat16 %[r], #4, %[a]")
OP_R(op_usat16_15, "usat16 %[r], #15, %[a]")
OP_R(op_usat16_0, "usat16 %[r], #0, %[a]")
/* halfword multiplies (Q on accumulate overflow) */
OP_R(op_smulbb, "smulbb %[r], %[a], %[b]")
OP_R(op_smulbt, "smulbt %[r], %[a], %[b]")
OP_R(op_smultb, "smultb %[r], %[a], %[b]")
OP_R(op_smultt, "smultt %[r], %[a], %[b]")
OP_R(op_smulwb, "smulwb %[r], %[a], %[b]")
OP_R(op_smulwt, "smulwt %[r], %[a], %[b]")
OP_R(op_smlabb, "smlabb %[r], %[a], %[b], %[c]")
OP_R(op_smlabt, "smlabt %[r], %[a], %[b], %[c]")
OP_R(op_smlatb, "smlatb %[r], %[a], %[b], %[c]")
OP_R(op_smlatt, "smlatt %[r], %[a], %[b], %[c]")
OP_R(op_smlawb, "smlawb %[r], %[a], %[b], %[c]")
OP_R(op_smlawt, "smlawt %[r], %[a], %[b], %[c]")
/* the accumulator as the product of two sample operands, so that overflow (Q) happens */
OP_R(op_smlabb_ovf, "mul %[r], %[a], %[a]\n\tsmlabb %[r], %[b], %[b], %[r]")
/* dual multiplies */
OP_R(op_smuad, "smuad %[r], %[a], %[b]")
OP_R(op_smuadx, "smuadx %[r], %[a], %[b]")
OP_R(op_smusd, "smusd %[r], %[a], %[b]")
OP_R(op_smusdx, "smusdx %[r], %[a], %[b]")
OP_R(op_smlad, "smlad %[r], %[a], %[b], %[c]")
OP_R(op_smladx, "smladx %[r], %[a], %[b], %[c]")
OP_R(op_smlsd, "smlsd %[r], %[a], %[b], %[c]")
OP_R(op_smlsdx, "smlsdx %[r], %[a], %[b], %[c]")
OP_64(op_smlald, "smlald %[lo], %[hi], %[a], %[b]")
OP_64(op_smlaldx, "smlaldx %[lo], %[hi], %[a], %[b]")
OP_64(op_smlsld, "smlsld %[lo], %[hi], %[a], %[b]")
OP_64(op_smlsldx, "smlsldx %[lo], %[hi], %[a], %[b]")
OP_64(op_smlalbb, "smlalbb %[lo], %[hi], %[a], %[b]")
OP_64(op_smlalbt, "smlalbt %[lo], %[hi], %[a], %[b]")
OP_64(op_smlaltb, "smlaltb %[lo], %[hi], %[a], %[b]")
OP_64(op_smlaltt, "smlaltt %[lo], %[hi], %[a], %[b]")
/* most-significant-word multiplies */
OP_R(op_smmul, "smmul %[r], %[a], %[b]")
OP_R(op_smmulr, "smmulr %[r], %[a], %[b]")
OP_R(op_smmla, "smmla %[r], %[a], %[b], %[c]")
OP_R(op_smmlar, "smmlar %[r], %[a], %[b], %[c]")
OP_R(op_smmls, "smmls %[r], %[a], %[b], %[c]")
OP_R(op_smmlsr, "smmlsr %[r], %[a], %[b], %[c]")
/* packing, SIMD extends, sum of absolute differences */
OP_R(op_pkhbt, "pkhbt %[r], %[a], %[b]")
OP_R(op_pkhbt_lsl8, "pkhbt %[r], %[a], %[b], lsl #8")
OP_R(op_pkhbt_lsl31, "pkhbt %[r], %[a], %[b], lsl #31")
OP_R(op_pkhtb_asr12, "pkhtb %[r], %[a], %[b], asr #12")
OP_R(op_pkhtb_asr1, "pkhtb %[r], %[a], %[b], asr #1")
OP_R(op_sxtb16, "sxtb16 %[r], %[a]")
OP_R(op_sxtb16_ror8, "sxtb16 %[r], %[a], ror #8")
OP_R(op_uxtb16_ror24, "uxtb16 %[r], %[a], ror #24")
OP_R(op_sxtab16, "sxtab16 %[r], %[b], %[a], ror #16")
OP_R(op_uxtab16, "uxtab16 %[r], %[b], %[a]")
OP_R(op_usad8, "usad8 %[r], %[a], %[b]")
OP_R(op_usada8, "usada8 %[r], %[a], %[b], %[c]")
/* Q is sticky: a saturating op that does not saturate keeps an input Q */
OP_R(op_qadd_sticky, "qadd %[r], %[a], %[b]\n\tqadd %[r], %[r], %[c]")

#define OP(x) \
    { #x, op_##x }
static const Op kOps[] = {
    OP(qadd),       OP(qsub),      OP(qdadd),        OP(qdsub),        OP(qadd8),
    OP(qadd16),     OP(qsub8),     OP(qsub16),       OP(qasx),         OP(qsax),
    OP(uqadd8),     OP(uqadd16),   OP(uqsub8),       OP(uqsub16),      OP(uqasx),
    OP(uqsax),      OP(shadd8),    OP(shadd16),      OP(shsub8),       OP(shsub16),
    OP(shasx),      OP(shsax),     OP(uhadd8),       OP(uhadd16),      OP(uhsub8),
    OP(uhsub16),    OP(uhasx),     OP(uhsax),        OP(sadd8),        OP(sadd16),
    OP(ssub8),      OP(ssub16),    OP(sasx),         OP(ssax),         OP(uadd8),
    OP(uadd16),     OP(usub8),     OP(usub16),       OP(uasx),         OP(usax),
    OP(sel),        OP(uadd8_sel), OP(ssub8_sel),    OP(usub16_sel),   OP(ssat_8),
    OP(ssat_1),     OP(ssat_32),   OP(ssat_16_lsl4), OP(ssat_12_asr7), OP(ssat_24_asr31),
    OP(usat_8),     OP(usat_0),    OP(usat_31),      OP(usat_16_lsl3), OP(usat_10_asr2),
    OP(ssat16_8),   OP(ssat16_1),  OP(ssat16_16),    OP(usat16_4),     OP(usat16_15),
    OP(usat16_0),   OP(smulbb),    OP(smulbt),       OP(smultb),       OP(smultt),
    OP(smulwb),     OP(smulwt),    OP(smlabb),       OP(smlabt),       OP(smlatb),
    OP(smlatt),     OP(smlawb),    OP(smlawt),       OP(smlabb_ovf),   OP(smuad),
    OP(smuadx),     OP(smusd),     OP(smusdx),       OP(smlad),        OP(smladx),
    OP(smlsd),      OP(smlsdx),    OP(smlald),       OP(smlaldx),      OP(smlsld),
    OP(smlsldx),    OP(smlalbb),   OP(smlalbt),      OP(smlaltb),      OP(smlaltt),
    OP(smmul),      OP(smmulr),    OP(smmla),        OP(smmlar),       OP(smmls),
    OP(smmlsr),     OP(pkhbt),     OP(pkhbt_lsl8),   OP(pkhbt_lsl31),  OP(pkhtb_asr12),
    OP(pkhtb_asr1), OP(sxtb16),    OP(sxtb16_ror8),  OP(uxtb16_ror24), OP(sxtab16),
    OP(uxtab16),    OP(usad8),     OP(usada8),       OP(qadd_sticky),
};

/* Hand-picked cases with results worked out from the architecture manual. */
static void run_known(void) {
    uint32_t r, f;
    line_begin("dsp.known");
    __asm volatile("msr APSR_nzcvqg, %[z]\n\tqadd %[r], %[a], %[b]\n\tmrs %[f], APSR"
                   : [r] "=&r"(r), [f] "=&r"(f)
                   : [z] "r"(0u), [a] "r"(0x7FFFFFF0u), [b] "r"(0x20u)
                   : "cc");
    kv("qadd", r);
    kv("q", f);
    __asm volatile("msr APSR_nzcvqg, %[z]\n\tssat %[r], #8, %[a]\n\tmrs %[f], APSR"
                   : [r] "=&r"(r), [f] "=&r"(f)
                   : [z] "r"(0u), [a] "r"(0xFFFFFF00u)
                   : "cc");
    kv("ssat8", r);
    kv("q", f);
    __asm volatile("msr APSR_nzcvqg, %[z]\n\tusat %[r], #8, %[a]\n\tmrs %[f], APSR"
                   : [r] "=&r"(r), [f] "=&r"(f)
                   : [z] "r"(0u), [a] "r"(0x000000FFu)
                   : "cc");
    kv("usat8", r);
    kv("q", f);
    __asm volatile("msr APSR_nzcvqg, %[z]\n\tuadd8 %[r], %[a], %[b]\n\tmrs %[f], APSR"
                   : [r] "=&r"(r), [f] "=&r"(f)
                   : [z] "r"(0u), [a] "r"(0x80FF0102u), [b] "r"(0x8001FF03u)
                   : "cc");
    kv("uadd8", r);
    kv("ge", f);
    __asm volatile("msr APSR_nzcvqg, %[z]\n\tsmlad %[r], %[a], %[b], %[c]\n\tmrs %[f], APSR"
                   : [r] "=&r"(r), [f] "=&r"(f)
                   : [z] "r"(0u), [a] "r"(0x80008000u), [b] "r"(0x80008000u), [c] "r"(0u)
                   : "cc");
    kv("smlad", r);
    kv("q", f);
    __asm volatile("usad8 %[r], %[a], %[b]"
                   : [r] "=r"(r)
                   : [a] "r"(0x00FF1080u), [b] "r"(0xFF002070u));
    kv("usad8", r);
    out_nl();
}

int main(void) {
    out_str("iss_dsp start\n");
    run_known();
    run_op_table("dsp.", kOps, sizeof kOps / sizeof kOps[0]);
    out_str("iss_dsp end\n");
    return 0;
}
