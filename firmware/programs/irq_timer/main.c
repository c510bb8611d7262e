/* Interrupt check: exception entry and return, priorities, nesting, WFI, SysTick and SVC.
 *   arg 0: number of timer0 ticks N (1..16), arg 1: timer0 LOAD value (2000..2^24; period
 *   LOAD + 1 PE cycles)
 * - SVC #42 from thread mode: the handler reads the immediate from the instruction and returns
 *   r0 * 3 + 42 through the stacked r0.
 * - timer0: periodic at NVIC priority 2; main sleeps in WFI between its ticks until N have come.
 * - timer1: one-shot at priority 1, started by the timer0 handler at tick min(2, N); that handler
 *   busy-waits until timer1's handler has run, so timer1 preempts it. timer1's handler records
 *   the nesting depth (2 expected) and its EXC_RETURN (bit 3 clear: returning to handler mode).
 * - SysTick at priority 3 with period (LOAD + 1) / 3 cycles, counted until the Nth timer0 tick.
 * - The handlers log entries and exits; the log must read "S", then "Aa" per timer0 tick with
 *   "ABba" at the nesting tick.
 * Prints one line per check and returns 0 only if all pass. */
#include "s2_hal.h"
#include "s2_timer.h"

#define SVC_IMM 42u
#define LOG_MAX 80u
#define MAX_TICKS 16u
#define MIN_LOAD 2000u
/* MAX_LOAD keeps the SysTick reload within 24 bits and n * (load + 1) within 32 bits */
#define MAX_LOAD 0x01000000u

static volatile uint32_t g_depth; /* handlers of this program currently active */
static volatile uint32_t g_t0_ticks;
static volatile uint32_t g_t1_count;
static volatile uint32_t g_t1_depth_seen;
static volatile uint32_t g_t1_exc_return;
static volatile uint32_t g_systicks;
static volatile uint32_t g_svc_count;
static volatile uint32_t g_spins;
static volatile char g_log[LOG_MAX];
static volatile uint32_t g_log_n;

static uint32_t g_n_ticks, g_nest_tick, g_t1_load, g_spin_limit;

static void log_event(char c) {
    const uint32_t n = g_log_n;
    if (n < LOG_MAX) g_log[n] = c;
    g_log_n = n + 1u;
}

/* --- SVC: the handler finds the stacked frame (MSP or PSP, from EXC_RETURN bit 2) ---------- */
void svc_dispatch(uint32_t *frame);
__attribute__((used)) void svc_dispatch(uint32_t *frame) {
    const uint8_t imm = ((const uint8_t *)(uintptr_t)frame[6])[-2]; /* SVC is 0xDFxx, PC after it */
    g_svc_count = g_svc_count + 1u;
    log_event('S');
    frame[0] = frame[0] * 3u + imm;
}

__attribute__((naked)) void SVC_Handler(void) {
    __asm volatile(
        "tst lr, #4\n"
        "ite eq\n"
        "mrseq r0, msp\n"
        "mrsne r0, psp\n"
        "b svc_dispatch\n");
}

static inline uint32_t svc_call(uint32_t x) {
    register uint32_t r0 __asm("r0") = x;
    __asm volatile("svc %[imm]" : "+r"(r0) : [imm] "i"(SVC_IMM) : "memory");
    return r0;
}

/* --- SysTick -------------------------------------------------------------------------------- */
void SysTick_Handler(void) { g_systicks = g_systicks + 1u; }

static void systick_start(uint32_t reload) {
    S2_SYST_CSR = 0u;
    S2_SYST_RVR = reload;
    S2_SYST_CVR = 0u;
    S2_SYST_CSR = 7u; /* ENABLE | TICKINT | CLKSOURCE = processor clock */
}

static void systick_stop(void) { S2_SYST_CSR = 0u; }

/* --- timers ------------------------------------------------------------------------------------
 */
void TIMER0_IRQHandler(void) {
    g_depth = g_depth + 1u;
    log_event('A');
    s2_timer_clear(0);
    const uint32_t tick = g_t0_ticks + 1u;
    g_t0_ticks = tick;
    if (tick == g_nest_tick) {
        s2_timer_start_oneshot(1, g_t1_load, S2_TIMER_DIV1, 1);
        uint32_t i = 0;
        while (g_t1_count == 0u && i < g_spin_limit) ++i; /* timer1 preempts this loop */
        g_spins = i;
    }
    if (tick == g_n_ticks) {
        s2_timer_stop(0);
        systick_stop();
    }
    log_event('a');
    g_depth = g_depth - 1u;
}

/* The entry stub passes EXC_RETURN (lr at entry) to the C body, which returns through it. */
void timer1_body(uint32_t exc_return);
__attribute__((used)) void timer1_body(uint32_t exc_return) {
    g_depth = g_depth + 1u;
    log_event('B');
    g_t1_depth_seen = g_depth;
    g_t1_exc_return = exc_return;
    g_t1_count = g_t1_count + 1u;
    s2_timer_clear(1);
    log_event('b');
    g_depth = g_depth - 1u;
}

__attribute__((naked)) void TIMER1_IRQHandler(void) {
    __asm volatile(
        "mov r0, lr\n"
        "b timer1_body\n");
}

/* Sleeps until timer0 has ticked `n` times; returns the number of wake-ups. */
static uint32_t sleep_until_ticks(uint32_t n) { return s2_sleep_until(&g_t0_ticks, n); }

/* Ends a check's line with its verdict. */
static int report(int ok) {
    s2_printf(" %s\n", ok ? "ok" : "FAIL");
    return ok;
}

int main(void) {
    const uint32_t n = s2_arg(0), load = s2_arg(1);
    if (n < 1u || n > MAX_TICKS || load < MIN_LOAD || load > MAX_LOAD) {
        s2_printf("irq_timer: bad arguments: ticks=%u (1..%u) load=%u (%u..%u)\n", (unsigned)n,
                  (unsigned)MAX_TICKS, (unsigned)load, (unsigned)MIN_LOAD, (unsigned)MAX_LOAD);
        return 3;
    }
    g_n_ticks = n;
    g_nest_tick = n >= 2u ? 2u : 1u;
    g_t1_load = (load + 1u) / 8u;
    g_spin_limit = 4u * load;
    const uint32_t systick_period = (load + 1u) / 3u;

    /* priorities: SVC 0 (reset value), timer1 1, timer0 2, SysTick 3 (SHPR3 bits 31:24) */
    s2_irq_priority(S2_IRQ_TIMER1, 1);
    s2_irq_priority(S2_IRQ_TIMER0, 2);
    S2_SCB_SHPR3 = (S2_SCB_SHPR3 & 0x00FFFFFFu) | ((3u << 5) << 24);

    int all = 1;
    const uint32_t x = 1000u;
    const uint32_t r = svc_call(x);
    s2_printf("irq_timer: svc #%u returned %u (expected %u), handler calls %u", (unsigned)SVC_IMM,
              (unsigned)r, (unsigned)(x * 3u + SVC_IMM), (unsigned)g_svc_count);
    all &= report(r == x * 3u + SVC_IMM && g_svc_count == 1u);

    s2_irq_enable(S2_IRQ_TIMER0);
    s2_irq_enable(S2_IRQ_TIMER1);
    s2_timer_start_periodic(0, load, S2_TIMER_DIV1, 1);
    systick_start(systick_period - 1u);
    const uint32_t wakeups = sleep_until_ticks(n);
    s2_irq_disable(S2_IRQ_TIMER0);
    s2_irq_disable(S2_IRQ_TIMER1);

    s2_printf("irq_timer: timer0 ticks %u (expected %u), WFI wake-ups %u (at least %u)",
              (unsigned)g_t0_ticks, (unsigned)n, (unsigned)wakeups, (unsigned)n);
    all &= report(g_t0_ticks == n && wakeups >= n);

    const uint32_t t1_value = s2_timer_value(1);
    s2_printf(
        "irq_timer: timer1 one-shot irqs %u (expected 1), nesting depth %u (expected 2), "
        "exc_return 0x%08x (0xFFFFFFF1 or 0xFFFFFFE1: to handler mode), value %u, spins %u",
        (unsigned)g_t1_count, (unsigned)g_t1_depth_seen, (unsigned)g_t1_exc_return,
        (unsigned)t1_value, (unsigned)g_spins);
    all &= report(g_t1_count == 1u && g_t1_depth_seen == 2u &&
                  (g_t1_exc_return | 0x10u) == 0xFFFFFFF1u && t1_value == 0u);

    /* SysTick ran from (about) the start of timer0 to its Nth tick: n * (load + 1) cycles */
    const uint32_t expect_systicks = n * (load + 1u) / systick_period;
    const uint32_t st = g_systicks;
    s2_printf("irq_timer: systick irqs %u (expected %u +-1)", (unsigned)st,
              (unsigned)expect_systicks);
    all &= report(st + 1u >= expect_systicks && st <= expect_systicks + 1u);

    char want[LOG_MAX + 1];
    uint32_t w = 0;
    want[w++] = 'S';
    for (uint32_t k = 1; k <= n; ++k) {
        want[w++] = 'A';
        if (k == g_nest_tick) {
            want[w++] = 'B';
            want[w++] = 'b';
        }
        want[w++] = 'a';
    }
    want[w] = '\0';
    char got[LOG_MAX + 1];
    const uint32_t got_n = g_log_n < LOG_MAX ? g_log_n : LOG_MAX;
    int same = g_log_n == w;
    for (uint32_t i = 0; i < got_n; ++i) {
        got[i] = g_log[i];
        if (i < w && got[i] != want[i]) same = 0;
    }
    got[got_n] = '\0';
    s2_printf("irq_timer: order %s (expected %s)", got, want);
    all &= report(same);

    s2_printf("irq_timer: %s\n", all ? "PASS" : "FAIL");
    return all ? 0 : 1;
}
