/* ISS differential test, integer instructions: arithmetic and logic with flags, shifts and
 * rotates, multiplies (32/64-bit, accumulate), divides (incl. by zero), bit manipulation,
 * bitfields, extends, load/store multiple, push/pop, exclusives, unaligned accesses, table
 * branches and IT blocks. Each op runs over edge-case and pseudo-random operands with varied
 * input flags; one line per op prints a checksum and a few individual results. */
#include "iss_common.h"

/* arithmetic / logic with flags */
OP_R(op_adds, "adds %[r], %[a], %[b]")
OP_R(op_adcs, "adcs %[r], %[a], %[b]")
OP_R(op_subs, "subs %[r], %[a], %[b]")
OP_R(op_sbcs, "sbcs %[r], %[a], %[b]")
OP_R(op_rsbs, "rsbs %[r], %[a], %[b]")
OP_R(op_rsbs_imm, "rsbs %[r], %[a], #0")
OP_R(op_cmp, "mov %[r], %[c]\n\tcmp %[a], %[b]")
OP_R(op_cmn, "mov %[r], %[c]\n\tcmn %[a], %[b]")
OP_R(op_tst, "mov %[r], %[c]\n\ttst %[a], %[b], lsl #1")
OP_R(op_teq, "mov %[r], %[c]\n\tteq %[a], %[b], asr #3")
OP_R(op_adds_imm, "adds %[r], %[a], #0xFF00FF00")
OP_R(op_subw, "subw %[r], %[a], #4095")
OP_R(op_adds_asr5, "adds %[r], %[a], %[b], asr #5")
OP_R(op_subs_ror9, "subs %[r], %[a], %[b], ror #9")
OP_R(op_ands_lsl3, "ands %[r], %[a], %[b], lsl #3")
OP_R(op_orrs_lsr1, "orrs %[r], %[a], %[b], lsr #1")
OP_R(op_eors_asr31, "eors %[r], %[a], %[b], asr #31")
OP_R(op_bics_ror7, "bics %[r], %[a], %[b], ror #7")
OP_R(op_orns_lsl1, "orns %[r], %[a], %[b], lsl #1")
OP_R(op_mvns_ror16, "mvns %[r], %[a], ror #16")
OP_R(op_ands_imm, "ands %[r], %[a], #0x80000000")
OP_R(op_eors_rrx, "eors %[r], %[a], %[b], rrx")
/* shifts and rotates */
OP_R(op_lsls_r, "lsls %[r], %[a], %[b]")
OP_R(op_lsrs_r, "lsrs %[r], %[a], %[b]")
OP_R(op_asrs_r, "asrs %[r], %[a], %[b]")
OP_R(op_rors_r, "rors %[r], %[a], %[b]")
OP_R(op_lsls_r63, "and %[r], %[b], #63\n\tlsls %[r], %[a], %[r]")
OP_R(op_lsrs_r63, "and %[r], %[b], #63\n\tlsrs %[r], %[a], %[r]")
OP_R(op_asrs_r63, "and %[r], %[b], #63\n\tasrs %[r], %[a], %[r]")
OP_R(op_rors_r63, "and %[r], %[b], #63\n\trors %[r], %[a], %[r]")
OP_R(op_lsls_1, "lsls %[r], %[a], #1")
OP_R(op_lsls_31, "lsls %[r], %[a], #31")
OP_R(op_lsrs_1, "lsrs %[r], %[a], #1")
OP_R(op_lsrs_32, "lsrs %[r], %[a], #32")
OP_R(op_asrs_1, "asrs %[r], %[a], #1")
OP_R(op_asrs_32, "asrs %[r], %[a], #32")
OP_R(op_rors_1, "rors %[r], %[a], #1")
OP_R(op_rors_31, "rors %[r], %[a], #31")
OP_R(op_rrxs, "rrxs %[r], %[a]")
OP_R(op_movs_reg, "movs %[r], %[a]")
/* multiplies and divides */
OP_R(op_mul, "mul %[r], %[a], %[b]")
OP_R(op_mla, "mla %[r], %[a], %[b], %[c]")
OP_R(op_mls, "mls %[r], %[a], %[b], %[c]")
OP_64(op_umull, "umull %[lo], %[hi], %[a], %[b]")
OP_64(op_smull, "smull %[lo], %[hi], %[a], %[b]")
OP_64(op_umlal, "umlal %[lo], %[hi], %[a], %[b]")
OP_64(op_smlal, "smlal %[lo], %[hi], %[a], %[b]")
OP_64(op_umaal, "umaal %[lo], %[hi], %[a], %[b]")
OP_R(op_sdiv, "sdiv %[r], %[a], %[b]")
OP_R(op_udiv, "udiv %[r], %[a], %[b]")
OP_R(op_sdiv_small, "asr %[r], %[b], #24\n\tsdiv %[r], %[a], %[r]")
OP_R(op_udiv_small, "lsr %[r], %[b], #26\n\tudiv %[r], %[a], %[r]")
/* bit manipulation, bitfields, extends */
OP_R(op_clz, "clz %[r], %[a]")
OP_R(op_rbit, "rbit %[r], %[a]")
OP_R(op_rev, "rev %[r], %[a]")
OP_R(op_rev16, "rev16 %[r], %[a]")
OP_R(op_revsh, "revsh %[r], %[a]")
OP_R(op_ubfx_3_5, "ubfx %[r], %[a], #3, #5")
OP_R(op_ubfx_0_32, "ubfx %[r], %[a], #0, #32")
OP_R(op_ubfx_31_1, "ubfx %[r], %[a], #31, #1")
OP_R(op_ubfx_8_24, "ubfx %[r], %[a], #8, #24")
OP_R(op_sbfx_4_12, "sbfx %[r], %[a], #4, #12")
OP_R(op_sbfx_0_1, "sbfx %[r], %[a], #0, #1")
OP_R(op_sbfx_16_16, "sbfx %[r], %[a], #16, #16")
OP_R(op_sbfx_1_31, "sbfx %[r], %[a], #1, #31")
OP_R(op_bfi_8_12, "mov %[r], %[c]\n\tbfi %[r], %[a], #8, #12")
OP_R(op_bfi_0_32, "mov %[r], %[c]\n\tbfi %[r], %[a], #0, #32")
OP_R(op_bfi_31_1, "mov %[r], %[c]\n\tbfi %[r], %[a], #31, #1")
OP_R(op_bfc_5_10, "mov %[r], %[c]\n\tbfc %[r], #5, #10")
OP_R(op_bfc_0_32, "mov %[r], %[c]\n\tbfc %[r], #0, #32")
OP_R(op_sxtb_ror8, "sxtb %[r], %[a], ror #8")
OP_R(op_uxth_ror24, "uxth %[r], %[a], ror #24")
OP_R(op_sxtah_ror16, "sxtah %[r], %[b], %[a], ror #16")
OP_R(op_uxtab, "uxtab %[r], %[b], %[a]")

#define OP(x) \
    { #x, op_##x }
static const Op kOps[] = {
    OP(adds),        OP(adcs),       OP(subs),       OP(sbcs),       OP(rsbs),       OP(rsbs_imm),
    OP(cmp),         OP(cmn),        OP(tst),        OP(teq),        OP(adds_imm),   OP(subw),
    OP(adds_asr5),   OP(subs_ror9),  OP(ands_lsl3),  OP(orrs_lsr1),  OP(eors_asr31), OP(bics_ror7),
    OP(orns_lsl1),   OP(mvns_ror16), OP(ands_imm),   OP(eors_rrx),   OP(lsls_r),     OP(lsrs_r),
    OP(asrs_r),      OP(rors_r),     OP(lsls_r63),   OP(lsrs_r63),   OP(asrs_r63),   OP(rors_r63),
    OP(lsls_1),      OP(lsls_31),    OP(lsrs_1),     OP(lsrs_32),    OP(asrs_1),     OP(asrs_32),
    OP(rors_1),      OP(rors_31),    OP(rrxs),       OP(movs_reg),   OP(mul),        OP(mla),
    OP(mls),         OP(umull),      OP(smull),      OP(umlal),      OP(smlal),      OP(umaal),
    OP(sdiv),        OP(udiv),       OP(sdiv_small), OP(udiv_small), OP(clz),        OP(rbit),
    OP(rev),         OP(rev16),      OP(revsh),      OP(ubfx_3_5),   OP(ubfx_0_32),  OP(ubfx_31_1),
    OP(ubfx_8_24),   OP(sbfx_4_12),  OP(sbfx_0_1),   OP(sbfx_16_16), OP(sbfx_1_31),  OP(bfi_8_12),
    OP(bfi_0_32),    OP(bfi_31_1),   OP(bfc_5_10),   OP(bfc_0_32),   OP(sxtb_ror8),  OP(uxth_ror24),
    OP(sxtah_ror16), OP(uxtab),
};

/* Known operand pairs whose exact results are checked on the host as well. */
static void run_divides(void) {
    static const uint32_t pairs[][2] = {
        {100u, 7u},        {0xFFFFFF9Cu, 7u}, {100u, 0u},        {0x80000000u, 0xFFFFFFFFu},
        {0xFFFFFFFFu, 0u}, {0xFFFFFFFFu, 2u}, {7u, 0xFFFFFFF9u},
    };
    for (uint32_t i = 0; i < sizeof pairs / sizeof pairs[0]; ++i) {
        uint32_t q, u;
        __asm volatile("sdiv %0, %1, %2" : "=r"(q) : "r"(pairs[i][0]), "r"(pairs[i][1]));
        __asm volatile("udiv %0, %1, %2" : "=r"(u) : "r"(pairs[i][0]), "r"(pairs[i][1]));
        line_begin("div");
        kv("a", pairs[i][0]);
        kv("b", pairs[i][1]);
        kv("sdiv", q);
        kv("udiv", u);
        out_nl();
    }
}

/* The 14 conditions over all 16 NZCV combinations: bit k of the mask = condition true. */
#define COND_MASK(cc)                                                                    \
    ({                                                                                   \
        uint32_t m = 0;                                                                  \
        for (uint32_t k = 0; k < 16; ++k) {                                              \
            uint32_t r;                                                                  \
            __asm volatile("mov %[r], #0\n\tmsr APSR_nzcvq, %[f]\n\tit " cc "\n\tmov" cc \
                           " %[r], #1"                                                   \
                           : [r] "=&r"(r)                                                \
                           : [f] "r"(nzcv(k))                                            \
                           : "cc");                                                      \
            m |= r << k;                                                                 \
        }                                                                                \
        m;                                                                               \
    })

static void run_conditions(void) {
    line_begin("it.cond");
    kv("eq", COND_MASK("eq"));
    kv("ne", COND_MASK("ne"));
    kv("cs", COND_MASK("cs"));
    kv("cc", COND_MASK("cc"));
    kv("mi", COND_MASK("mi"));
    kv("pl", COND_MASK("pl"));
    kv("vs", COND_MASK("vs"));
    out_nl();
    line_begin("it.cond");
    kv("vc", COND_MASK("vc"));
    kv("hi", COND_MASK("hi"));
    kv("ls", COND_MASK("ls"));
    kv("ge", COND_MASK("ge"));
    kv("lt", COND_MASK("lt"));
    kv("gt", COND_MASK("gt"));
    kv("le", COND_MASK("le"));
    out_nl();
}

/* IT blocks mixing then/else slots, flag-setting instructions inside the block (which change
 * the outcome of later slots), a condition-failed store and a condition-failed branch. */
static void run_it_blocks(void) {
    uint32_t rng = 0xC0FFEE11u;
    Sum s;
    sum_init(&s);
    for (uint32_t i = 0; i < 64; ++i) {
        uint32_t a = operand(&rng, i < ISS_N_EDGE ? i : ISS_N_EDGE);
        uint32_t b = operand(&rng, (i * 3u) % ISS_N_EDGE);
        volatile uint32_t mem = 0x5A5A5A5Au;
        uint32_t r0 = 0, r1 = 0, r2 = 0, f = nzcv(i);
        __asm volatile(
            "msr APSR_nzcvq, %[f]\n\t"
            "cmp %[a], %[b]\n\t"
            "itete gt\n\t"
            "addgt %[r0], %[a], %[b]\n\t"
            "suble %[r0], %[a], %[b]\n\t"
            "eorgt %[r1], %[a], #0xFF\n\t"
            "orrle %[r1], %[b], #0xF0\n\t"
            /* cmp inside the block changes the flags seen by the next slots */
            "ittt ne\n\t"
            "cmpne %[r0], %[r1]\n\t"
            "movne %[r2], #1\n\t"
            "strne %[a], [%[p]]\n\t"
            "itet cs\n\t"
            "addscs.w %[r2], %[r1], %[r0]\n\t"
            "movcc %[r2], #2\n\t"
            "addcs %[r2], %[r2], %[r2]\n\t"
            "mrs %[f], APSR\n\t"
            "cmp %[a], #0\n\t"
            "it ne\n\t"
            "bne 1f\n\t"
            "orr %[r2], %[r2], #0x100\n"
            "1:\n\t"
            : [r0] "+&r"(r0), [r1] "+&r"(r1), [r2] "+&r"(r2), [f] "+&r"(f)
            : [a] "r"(a), [b] "r"(b), [p] "r"(&mem)
            : "cc", "memory");
        sum_add(&s, r0);
        sum_add(&s, r1);
        sum_add(&s, r2);
        sum_add(&s, f);
        sum_add(&s, mem);
        if (i == 1 || i == 3 || i == 4 || i == 63) {
            line_begin("it.block");
            kv("a", a);
            kv("b", b);
            kv("r0", r0);
            kv("r1", r1);
            kv("r2", r2);
            kv("f", f);
            kv("mem", mem);
            out_nl();
        }
    }
    sum_print("it.block", &s);
}

/* APSR write/read including the Q and GE bits. */
static void run_apsr(void) {
    static const uint32_t vals[] = {0xF80F0000u, 0x00000000u, 0x500A0000u, 0x08050000u};
    line_begin("apsr");
    for (uint32_t i = 0; i < 4; ++i) {
        uint32_t r;
        __asm volatile("msr APSR_nzcvqg, %1\n\tmrs %0, APSR" : "=r"(r) : "r"(vals[i]) : "cc");
        kv("rd", r);
    }
    out_nl();
}

static void run_ldm_stm(void) {
    uint32_t mem[24];
    for (uint32_t i = 0; i < 24; ++i) mem[i] = 0xA0000000u + i;
    uint32_t wb[4], v[8];
    __asm volatile(
        "ldr r4, =0x11111111\n\t"
        "ldr r5, =0x22222222\n\t"
        "ldr r6, =0x33333333\n\t"
        "ldr r8, =0x44444444\n\t"
        "add r9, %[m], #16\n\t"
        "stmia r9!, {r4-r6, r8}\n\t" /* mem[4..7] */
        "str r9, [%[wb], #0]\n\t"
        "add r9, %[m], #64\n\t"
        "stmdb r9!, {r5, r6, r8}\n\t" /* mem[13..15] */
        "str r9, [%[wb], #4]\n\t"
        "add r9, %[m], #20\n\t"
        "ldmia r9, {r4, r5, r6}\n\t" /* mem[5..7], no write-back */
        "str r4, [%[v], #0]\n\t"
        "str r5, [%[v], #4]\n\t"
        "str r6, [%[v], #8]\n\t"
        "add r9, %[m], #60\n\t"
        "ldmdb r9!, {r4, r5}\n\t" /* mem[13..14] */
        "str r9, [%[wb], #8]\n\t"
        "str r4, [%[v], #12]\n\t"
        "str r5, [%[v], #16]\n\t"
        "mov r4, #0xAB\n\t"
        "mov r5, #0xCD\n\t"
        "push {r4, r5}\n\t"
        "pop {r5, r6}\n\t" /* r5 = old r4, r6 = old r5 */
        "str r5, [%[v], #20]\n\t"
        "str r6, [%[v], #24]\n\t"
        "add r9, %[m], #80\n\t"
        "ldrd r4, r5, [r9, #-8]!\n\t" /* mem[18..19], pre-indexed write-back */
        "strd r4, r5, [r9], #8\n\t"   /* to mem[18..19], post-indexed */
        "strd r5, r4, [r9, #4]\n\t"   /* mem[21..22] swapped */
        "str r9, [%[wb], #12]\n\t"
        "ldr r4, [r9, #-4]!\n\t"
        "ldrsb r5, [r9, #-7]\n\t"
        "add r4, r4, r5\n\t"
        "str r4, [%[v], #28]\n\t"
        :
        : [m] "r"(mem), [wb] "r"(wb), [v] "r"(v)
        : "r4", "r5", "r6", "r8", "r9", "memory");
    line_begin("ldm.wb");
    for (uint32_t i = 0; i < 4; ++i) kv("wb", wb[i] - (uint32_t)mem);
    out_nl();
    line_begin("ldm.v");
    for (uint32_t i = 0; i < 8; ++i) kv("v", v[i]);
    out_nl();
    Sum s;
    sum_init(&s);
    for (uint32_t i = 0; i < 24; ++i) sum_add(&s, mem[i]);
    sum_print("ldm.mem", &s);
    line_begin("ldm.mem");
    kv("m4", mem[4]);
    kv("m7", mem[7]);
    kv("m13", mem[13]);
    kv("m15", mem[15]);
    kv("m21", mem[21]);
    kv("m22", mem[22]);
    out_nl();
}

static void run_exclusive(void) {
    volatile uint32_t word = 0x1000u;
    volatile uint16_t half = 0x20u;
    volatile uint8_t byte = 0x30u;
    uint32_t st[6], v[3];
    __asm volatile(
        /* successful read-modify-write */
        "ldrex r4, [%[w]]\n\t"
        "add r4, r4, #1\n\t"
        "strex r5, r4, [%[w]]\n\t"
        "str r5, [%[st], #0]\n\t"
        /* a second strex without ldrex fails (the monitor was cleared by the first) */
        "mov r4, #0x77\n\t"
        "strex r5, r4, [%[w]]\n\t"
        "str r5, [%[st], #4]\n\t"
        /* clrex cancels a reservation */
        "ldrex r4, [%[w]]\n\t"
        "clrex\n\t"
        "strex r5, r4, [%[w]]\n\t"
        "str r5, [%[st], #8]\n\t"
        /* halfword and byte exclusives */
        "ldrexh r4, [%[h]]\n\t"
        "add r4, r4, #0x10000\n\t" /* bits above 15 are not stored */
        "add r4, r4, #2\n\t"
        "strexh r5, r4, [%[h]]\n\t"
        "str r5, [%[st], #12]\n\t"
        "ldrexb r4, [%[b]]\n\t"
        "add r4, r4, #0x103\n\t"
        "strexb r5, r4, [%[b]]\n\t"
        "str r5, [%[st], #16]\n\t"
        /* ldrex with an offset */
        "sub r6, %[w], #8\n\t"
        "ldrex r4, [r6, #8]\n\t"
        "add r4, r4, #0x100\n\t"
        "strex r5, r4, [r6, #8]\n\t"
        "str r5, [%[st], #20]\n\t"
        :
        : [w] "r"(&word), [h] "r"(&half), [b] "r"(&byte), [st] "r"(st)
        : "r4", "r5", "r6", "memory");
    v[0] = word;
    v[1] = half;
    v[2] = byte;
    line_begin("excl");
    for (uint32_t i = 0; i < 6; ++i) kv_dec("st", (int32_t)st[i]);
    kv("w", v[0]);
    kv("h", v[1]);
    kv("b", v[2]);
    out_nl();
}

static void run_unaligned(void) {
    static uint8_t buf[32] __attribute__((aligned(8)));
    for (uint32_t i = 0; i < 32; ++i) buf[i] = (uint8_t)(0x11u * i + 0x0Fu);
    Sum s;
    sum_init(&s);
    for (uint32_t off = 0; off < 4; ++off) {
        uint32_t w, h, sh;
        uint8_t* p = buf + 4 + off;
        __asm volatile(
            "ldr %[w], [%[p]]\n\t"
            "ldrh %[h], [%[p], #1]\n\t"
            "ldrsh %[sh], [%[p], #3]\n\t"
            : [w] "=&r"(w), [h] "=&r"(h), [sh] "=&r"(sh)
            : [p] "r"(p)
            : "memory");
        line_begin("unaligned.ld");
        kv_dec("off", (int32_t)off);
        kv("ldr", w);
        kv("ldrh", h);
        kv("ldrsh", sh);
        out_nl();
        uint32_t val = 0xC0DE0000u + off * 0x1111u;
        uint8_t* q = buf + 16 + off;
        __asm volatile(
            "str %[v], [%[q]]\n\t"
            "strh %[v], [%[q], #5]\n\t"
            "str %[v], [%[q], #9]\n\t"
            :
            : [v] "r"(val), [q] "r"(q)
            : "memory");
        for (uint32_t i = 0; i < 32; ++i) sum_add(&s, buf[i]);
    }
    sum_print("unaligned.st", &s);
    line_begin("unaligned.st");
    for (uint32_t i = 16; i < 32; i += 4) {
        uint32_t w = (uint32_t)buf[i] | (uint32_t)buf[i + 1] << 8 | (uint32_t)buf[i + 2] << 16 |
                     (uint32_t)buf[i + 3] << 24;
        kv("w", w);
    }
    out_nl();
}

static void run_table_branch(void) {
    line_begin("tbb");
    for (uint32_t i = 0; i < 4; ++i) {
        uint32_t r;
        __asm volatile(
            "tbb [pc, %[i]]\n"
            "0:\n\t"
            ".byte (1f-0b)/2, (2f-0b)/2, (3f-0b)/2, (4f-0b)/2\n"
            "1:\n\tmov %[r], #10\n\tb 5f\n"
            "2:\n\tmov %[r], #21\n\tb 5f\n"
            "3:\n\tmov %[r], #32\n\tb 5f\n"
            "4:\n\tmov %[r], #43\n"
            "5:\n\t"
            : [r] "=&r"(r)
            : [i] "r"(i));
        kv_dec("r", (int32_t)r);
    }
    for (uint32_t i = 0; i < 3; ++i) {
        uint32_t r;
        __asm volatile(
            "tbh [pc, %[i], lsl #1]\n"
            "0:\n\t"
            ".hword (1f-0b)/2, (2f-0b)/2, (3f-0b)/2\n\t"
            ".align 1\n"
            "1:\n\tmov %[r], #100\n\tb 5f\n"
            "2:\n\tmov %[r], #200\n\tb 5f\n"
            "3:\n\tmov %[r], #300\n"
            "5:\n\t"
            : [r] "=&r"(r)
            : [i] "r"(i));
        kv_dec("h", (int32_t)r);
    }
    out_nl();
}

/* Self-modifying code: a two-instruction function in RAM (movs r0, #imm; bx lr) is called,
 * its immediate rewritten (halfword and byte stores, then DSB and ISB as the architecture asks),
 * and called again: the ISS must drop its translation of the old code. Data written next to the
 * code exercises the stores into a page that holds translated code. */
static volatile uint16_t g_smc_code[8] __attribute__((aligned(8)));
static volatile uint32_t g_smc_data[4];

static void run_self_modifying(void) {
    line_begin("smc");
    g_smc_code[1] = 0x4770u; /* bx lr */
    typedef uint32_t (*Fn)(void);
    const Fn f = (Fn)((uintptr_t)g_smc_code | 1u);
    for (uint32_t i = 0; i < 6; ++i) {
        if (i % 2 == 0)
            g_smc_code[0] = (uint16_t)(0x2000u | (i * 37u)); /* movs r0, #(i * 37) */
        else
            ((volatile uint8_t*)g_smc_code)[0] = (uint8_t)(i * 37u);
        __asm volatile("dsb\n\tisb" ::: "memory");
        const uint32_t r = f();
        for (uint32_t k = 0; k < 4; ++k) g_smc_data[k] = r + k;
        kv_dec("r", (int32_t)(r + g_smc_data[3]));
    }
    out_nl();
}

int main(void) {
    out_str("iss_int start\n");
    run_op_table("int.", kOps, sizeof kOps / sizeof kOps[0]);
    run_divides();
    run_conditions();
    run_it_blocks();
    run_apsr();
    run_ldm_stm();
    run_exclusive();
    run_unaligned();
    run_table_branch();
    run_self_modifying();
    out_str("iss_int end\n");
    return 0;
}
