/* ISS differential test: the local exclusive monitor across exceptions (ARMv7-M A3.4, B1.5.6,
 * B1.5.8: exception entry and return clear it, ClearExclusiveLocal). LDREX then an SVC, a PendSV
 * pended inside the sequence, a fault, or a handler that itself uses LDREX: the STREX that
 * follows in the interrupted code must fail (status 1), as on silicon. Also the plain cases
 * (LDREX/STREX succeeds, CLREX, byte and halfword forms, a handler's own LDREX/STREX pair) and a
 * counter incremented with LDREX/STREX loops by thread code while SysTick interrupts increment it
 * too: no increment may be lost. Each case prints the STREX status words and the memory after. */
#include "iss_trap.h"

static volatile uint32_t g_word = 5u;
static volatile uint16_t g_half = 7u;
static volatile uint8_t g_byte = 9u;
static volatile uint32_t g_handler_status;
static volatile uint32_t g_mode;

/* LDREX/STREX inside handlers, selected by g_mode (svc_hook and PendSV). */
static void handler_body(void) {
    uint32_t st = 0xEE, v;
    switch (g_mode) {
        case 1: /* a complete pair on the same word: succeeds */
            __asm volatile("ldrex %[v], [%[a]]\n\tadd %[v], %[v], #100\n\tstrex %[s], %[v], [%[a]]"
                           : [v] "=&r"(v), [s] "=&r"(st)
                           : [a] "r"(&g_word)
                           : "memory");
            break;
        case 2: /* LDREX only: the monitor is left open when the handler returns */
            __asm volatile("ldrex %[v], [%[a]]" : [v] "=r"(v) : [a] "r"(&g_word) : "memory");
            st = 0;
            break;
        default:
            break;
    }
    g_handler_status = st;
}

void svc_hook(uint32_t imm, uint32_t* frame, uint32_t exc_return) {
    (void)imm;
    (void)frame;
    (void)exc_return;
    handler_body();
}

ISS_SVC_HANDLER
void PendSV_Handler(void) { handler_body(); }

static void print_case(const char* name, uint32_t s1, uint32_t s2) {
    line_begin("excl.");
    out_str(name);
    kv("st1", s1);
    kv("st2", s2);
    kv("word", g_word);
    kv("hst", g_handler_status);
    out_nl();
    g_word = 5u;
    g_handler_status = 0;
    g_mode = 0;
}

static void test_plain(void) {
    uint32_t s1, s2, v;
    /* LDREX; STREX succeeds; a second STREX without LDREX fails */
    __asm volatile(
        "ldrex %[v], [%[a]]\n\t"
        "add %[v], %[v], #1\n\t"
        "strex %[s1], %[v], [%[a]]\n\t"
        "strex %[s2], %[v], [%[a]]"
        : [v] "=&r"(v), [s1] "=&r"(s1), [s2] "=&r"(s2)
        : [a] "r"(&g_word)
        : "memory");
    print_case("pair", s1, s2);

    /* CLREX between them */
    __asm volatile(
        "ldrex %[v], [%[a]]\n\t"
        "clrex\n\t"
        "strex %[s1], %[v], [%[a]]\n\t"
        "movs %[s2], #0"
        : [v] "=&r"(v), [s1] "=&r"(s1), [s2] "=&r"(s2)
        : [a] "r"(&g_word)
        : "memory", "cc");
    print_case("clrex", s1, s2);

    /* byte and halfword forms */
    __asm volatile(
        "ldrexb %[v], [%[b]]\n\t"
        "add %[v], %[v], #1\n\t"
        "strexb %[s1], %[v], [%[b]]\n\t"
        "ldrexh %[v], [%[h]]\n\t"
        "add %[v], %[v], #1\n\t"
        "strexh %[s2], %[v], [%[h]]"
        : [v] "=&r"(v), [s1] "=&r"(s1), [s2] "=&r"(s2)
        : [b] "r"(&g_byte), [h] "r"(&g_half)
        : "memory");
    print_case("byte_half", s1 | (uint32_t)g_byte << 8, s2 | (uint32_t)g_half << 8);
}

static void test_exceptions(void) {
    uint32_t s1, s2, v;
    /* LDREX; SVC (entry and return); STREX fails; then a fresh pair succeeds */
    g_mode = 0;
    __asm volatile(
        "ldrex %[v], [%[a]]\n\t"
        "svc #1\n\t"
        "add %[v], %[v], #1\n\t"
        "strex %[s1], %[v], [%[a]]\n\t"
        "ldrex %[v], [%[a]]\n\t"
        "add %[v], %[v], #2\n\t"
        "strex %[s2], %[v], [%[a]]"
        : [v] "=&r"(v), [s1] "=&r"(s1), [s2] "=&r"(s2)
        : [a] "r"(&g_word)
        : "r0", "r1", "r2", "r3", "r12", "lr", "memory", "cc");
    print_case("svc", s1, s2);

    /* the handler's own pair succeeds; the thread's STREX after it fails */
    g_mode = 1;
    __asm volatile(
        "ldrex %[v], [%[a]]\n\t"
        "svc #1\n\t"
        "strex %[s1], %[v], [%[a]]\n\t"
        "movs %[s2], #0"
        : [v] "=&r"(v), [s1] "=&r"(s1), [s2] "=&r"(s2)
        : [a] "r"(&g_word)
        : "r0", "r1", "r2", "r3", "r12", "lr", "memory", "cc");
    print_case("svc_handler_pair", s1, s2);

    /* exception return clears too: the handler leaves its LDREX open, the thread's STREX (with
     * no LDREX of its own since) fails */
    g_mode = 2;
    __asm volatile(
        "clrex\n\t"
        "mov %[v], #77\n\t"
        "svc #1\n\t"
        "strex %[s1], %[v], [%[a]]\n\t"
        "movs %[s2], #0"
        : [v] "=&r"(v), [s1] "=&r"(s1), [s2] "=&r"(s2)
        : [a] "r"(&g_word)
        : "r0", "r1", "r2", "r3", "r12", "lr", "memory", "cc");
    print_case("return_clears", s1, s2);

    /* an asynchronous exception (PendSV pended and taken between LDREX and STREX) */
    SHPR_PENDSV = 0x80u;
    g_mode = 0;
    __asm volatile(
        "ldrex %[v], [%[a]]\n\t"
        "str %[set], [%[icsr]]\n\t"
        "dsb\n\t"
        "isb\n\t"
        "add %[v], %[v], #1\n\t"
        "strex %[s1], %[v], [%[a]]\n\t"
        "movs %[s2], #0"
        : [v] "=&r"(v), [s1] "=&r"(s1), [s2] "=&r"(s2)
        : [a] "r"(&g_word), [set] "r"(ICSR_PENDSVSET), [icsr] "r"(&ICSR)
        : "memory", "cc");
    print_case("pendsv", s1, s2);

    /* a fault between LDREX and STREX (BusFault, resumed after the load) */
    SHCSR = SHCSR_ENABLES;
    __asm volatile(
        "ldrex %[v], [%[a]]\n\t"
        "adr r1, 1f+1\n\t"
        "str r1, [%[res]]\n\t"
        "ldr r1, [%[bad]]\n\t"
        "1: add %[v], %[v], #1\n\t"
        "strex %[s1], %[v], [%[a]]\n\t"
        "movs %[s2], #0"
        : [v] "=&r"(v), [s1] "=&r"(s1), [s2] "=&r"(s2)
        : [a] "r"(&g_word), [res] "r"(&g_resume), [bad] "r"(UNMAPPED)
        : "r1", "memory", "cc");
    print_case("fault", s1, s2);
    trap_print("excl.fault.trap", 0);
    SHCSR = 0;
}

/* ---- LDREX/STREX increments racing SysTick handlers that increment the same word ---- */
static volatile uint32_t g_counter, g_ticks;

static void atomic_add(volatile uint32_t* p, uint32_t n) {
    uint32_t v, st;
    do {
        __asm volatile("ldrex %[v], [%[p]]\n\tadd %[v], %[v], %[n]\n\tstrex %[st], %[v], [%[p]]"
                       : [v] "=&r"(v), [st] "=&r"(st)
                       : [p] "r"(p), [n] "r"(n)
                       : "memory");
    } while (st);
}

void SysTick_Handler(void) {
    atomic_add(&g_counter, 1000u);
    g_ticks++;
}

static void test_race(void) {
    SHPR_SYSTICK = 0x40u;
    g_counter = 0;
    g_ticks = 0;
    SYST_RVR = 97u; /* an interrupt every 98 cycles: many land inside the loop below */
    SYST_CVR = 0;
    SYST_CSR = 7u;
    uint32_t n = 0;
    while (g_ticks < 3u && n < 40000000u) {
        atomic_add(&g_counter, 1u);
        ++n;
    }
    SYST_CSR = 0;
    barrier();
    const uint32_t ticks = g_ticks, counter = g_counter;
    line_begin("excl.race");
    kv("consistent", counter == n + 1000u * ticks);
    kv("interrupted", ticks >= 3u);
    out_nl();
}

int main(void) {
    out_str("iss_excl start\n");
    SHPR_SVC = 0x80u;
    test_plain();
    test_exceptions();
    test_race();
    out_str("iss_excl end\n");
    return 0;
}
