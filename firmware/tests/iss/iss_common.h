/* Shared helpers for the ISS differential test programs (run unchanged on QEMU mps2-an386 and on
 * nmsim): line-buffered text output through semihosting, hex/decimal formatting, a checksum and a
 * deterministic pseudo-random sequence. No libc. */
#ifndef ISS_COMMON_H
#define ISS_COMMON_H
#include <stdint.h>

/* SYS_WRITE0 through semihosting, provided by firmware/startup/crt0.c. */
void s2_semihost_write0(const char* s);

/* Output: text accumulates in a line buffer and is written when a line ends. */
void out_str(const char* s);
void out_char(char c);
void out_hex(uint32_t v); /* 8 hex digits */
void out_dec(int32_t v);
void out_nl(void);
/* "<name>" at the start of a line, then " key=XXXXXXXX" pairs, then the end of the line. */
void line_begin(const char* name);
void kv(const char* key, uint32_t v);
void kv_dec(const char* key, int32_t v);

/* Multiplicative checksum over 32-bit words (order sensitive, cheap enough to run per result). */
typedef struct {
    uint32_t h;
    uint32_t n;
} Sum;
void sum_init(Sum* s);
void sum_add(Sum* s, uint32_t v);
/* One line: "<name> n=<count> sum=<hash>". */
void sum_print(const char* name, const Sum* s);

/* xorshift32; state must not be 0. */
uint32_t rng_next(uint32_t* state);

/* Integer operands: edge cases first, then pseudo-random values with varied magnitude. */
#define ISS_N_EDGE 24
extern const uint32_t iss_edge[ISS_N_EDGE];
uint32_t operand(uint32_t* rng, uint32_t i);

/* Flags for msr APSR_nzcvq: NZCV combination k (0..15) in bits 31:28. */
static inline uint32_t nzcv(uint32_t k) { return (k & 0xFu) << 28; }

/* Operation tables: each op gets inputs in[0..3] and the APSR to start with (NZCV, Q and GE, set
 * with msr) and returns out = {result, second result or 0, APSR afterwards}. */
typedef void (*OpFn)(const uint32_t* in, uint32_t flags, uint32_t* out);
typedef struct {
    const char* name;
    OpFn fn;
} Op;

/* r = insn(a, b, c) */
#define OP_R(fn, insn)                                                       \
    static void fn(const uint32_t* in, uint32_t f, uint32_t* out) {          \
        uint32_t r;                                                          \
        __asm volatile("msr APSR_nzcvqg, %[f]\n\t" insn "\n\tmrs %[f], APSR" \
                       : [r] "=&r"(r), [f] "+r"(f)                           \
                       : [a] "r"(in[0]), [b] "r"(in[1]), [c] "r"(in[2])      \
                       : "cc");                                              \
        out[0] = r;                                                          \
        out[1] = 0;                                                          \
        out[2] = f;                                                          \
    }

/* {lo, hi} start as {c, d}; insn(lo, hi, a, b) */
#define OP_64(fn, insn)                                                      \
    static void fn(const uint32_t* in, uint32_t f, uint32_t* out) {          \
        uint32_t lo = in[2], hi = in[3];                                     \
        __asm volatile("msr APSR_nzcvqg, %[f]\n\t" insn "\n\tmrs %[f], APSR" \
                       : [lo] "+&r"(lo), [hi] "+&r"(hi), [f] "+r"(f)         \
                       : [a] "r"(in[0]), [b] "r"(in[1])                      \
                       : "cc");                                              \
        out[0] = lo;                                                         \
        out[1] = hi;                                                         \
        out[2] = f;                                                          \
    }

/* Runs every op over ISS_N_EDGE^2 edge-case pairs plus pseudo-random operands (ISS_N_PAIRS in
 * all) with varying input flags. Prints one line per op: "<prefix><name> n= sum=" followed by
 * the results of the sample pairs (1, 0), (0x7FFFFFFF, 1), (0x80000000, 0xFFFFFFFF) and one
 * pseudo-random pair, each as "result[:second]/APSR". */
#define ISS_N_PAIRS 1000u
void run_op_table(const char* prefix, const Op* ops, uint32_t n_ops);

#endif
