/* Helpers shared by the ISS differential test programs (see iss_common.h). */
#include "iss_common.h"

static char g_line[200];
static uint32_t g_len;

static void flush(void) {
    g_line[g_len] = '\0';
    s2_semihost_write0(g_line);
    g_len = 0;
}

void out_char(char c) {
    if (g_len + 2 >= sizeof g_line) flush();
    g_line[g_len++] = c;
    if (c == '\n') flush();
}

void out_str(const char* s) {
    while (*s) out_char(*s++);
}

void out_hex(uint32_t v) {
    for (int i = 7; i >= 0; --i) out_char("0123456789abcdef"[(v >> (4 * i)) & 0xFu]);
}

void out_dec(int32_t v) {
    char buf[12];
    uint32_t u = v < 0 ? 0u - (uint32_t)v : (uint32_t)v;
    int n = 0;
    do {
        buf[n++] = (char)('0' + u % 10u);
        u /= 10u;
    } while (u);
    if (v < 0) out_char('-');
    while (n) out_char(buf[--n]);
}

void out_nl(void) { out_char('\n'); }

void line_begin(const char* name) { out_str(name); }

void kv(const char* key, uint32_t v) {
    out_char(' ');
    out_str(key);
    out_char('=');
    out_hex(v);
}

void kv_dec(const char* key, int32_t v) {
    out_char(' ');
    out_str(key);
    out_char('=');
    out_dec(v);
}

void sum_init(Sum* s) {
    s->h = 0x811C9DC5u;
    s->n = 0;
}

void sum_add(Sum* s, uint32_t v) {
    uint32_t h = (s->h ^ v) * 0x9E3779B1u;
    s->h = h ^ (h >> 15);
    s->n++;
}

void sum_print(const char* name, const Sum* s) {
    line_begin(name);
    kv_dec("n", (int32_t)s->n);
    kv("sum", s->h);
    out_nl();
}

uint32_t rng_next(uint32_t* state) {
    uint32_t x = *state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *state = x;
    return x;
}

const uint32_t iss_edge[ISS_N_EDGE] = {
    0x00000000u, 0x00000001u, 0x00000002u, 0x7FFFFFFFu, 0x80000000u, 0xFFFFFFFFu,
    0x80000001u, 0xFFFFFFFEu, 0x0000FFFFu, 0x00010000u, 0x00007FFFu, 0x00008000u,
    0x000000FFu, 0x00000080u, 0x0000007Fu, 0x12345678u, 0xFFFF8000u, 0x7FFF8000u,
    0x80007FFFu, 0x00000003u, 0x7F7F7F7Fu, 0x80808080u, 0xFF00FF00u, 0x807F01FFu,
};

uint32_t operand(uint32_t* rng, uint32_t i) {
    if (i < ISS_N_EDGE) return iss_edge[i];
    uint32_t r = rng_next(rng);
    /* a quarter full-width, the rest shifted right by a random amount (small magnitudes) */
    uint32_t sel = rng_next(rng);
    if ((sel & 3u) == 0) return r;
    uint32_t v = r >> ((sel >> 2) & 31u);
    return (sel & 0x80u) ? 0u - v : v;
}

#define SAMPLE(ai, bi) ((ai)*ISS_N_EDGE + (bi))

void run_op_table(const char* prefix, const Op* ops, uint32_t n_ops) {
    static const uint32_t samples_at[4] = {SAMPLE(1u, 0u), SAMPLE(3u, 1u), SAMPLE(4u, 5u), 777u};
    for (uint32_t k = 0; k < n_ops; ++k) {
        uint32_t rng = 0x2545F491u + k;
        Sum s;
        sum_init(&s);
        uint32_t samples[4][3];
        uint32_t si = 0;
        for (uint32_t i = 0; i < ISS_N_PAIRS; ++i) {
            uint32_t in[4];
            if (i < ISS_N_EDGE * ISS_N_EDGE) {
                in[0] = iss_edge[i / ISS_N_EDGE];
                in[1] = iss_edge[i % ISS_N_EDGE];
            } else {
                in[0] = operand(&rng, ISS_N_EDGE);
                in[1] = operand(&rng, ISS_N_EDGE);
            }
            in[2] = rng_next(&rng);
            in[3] = operand(&rng, ISS_N_EDGE);
            /* NZCV cycles, Q set on every 8th, GE varies */
            uint32_t flags =
                nzcv(i * 7u) | ((i & 7u) == 3u ? 1u << 27 : 0u) | ((i * 5u) & 0xFu) << 16;
            uint32_t out[3];
            ops[k].fn(in, flags, out);
            sum_add(&s, out[0]);
            sum_add(&s, out[1]);
            sum_add(&s, out[2]);
            if (si < 4 && i == samples_at[si]) {
                samples[si][0] = out[0];
                samples[si][1] = out[1];
                samples[si][2] = out[2];
                ++si;
            }
        }
        line_begin(prefix);
        out_str(ops[k].name);
        kv_dec("n", (int32_t)s.n);
        kv("sum", s.h);
        for (uint32_t j = 0; j < 4; ++j) {
            out_char(' ');
            out_hex(samples[j][0]);
            if (samples[j][1]) {
                out_char(':');
                out_hex(samples[j][1]);
            }
            out_char('/');
            out_hex(samples[j][2]);
        }
        out_nl();
    }
}
