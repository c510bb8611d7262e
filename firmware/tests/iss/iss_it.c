/* ISS differential test: exceptions inside IT blocks (ARMv7-M B1.5.6, B1.5.8). Exception entry
 * must clear the IT state, so the handler's first instructions run unconditionally, and stack the
 * IT state of the interrupted (or faulting) instruction, so that after the return the rest of the
 * block runs under its own conditions: an SVC inside a block, PendSV and an NVIC interrupt pended
 * by a store inside a block and taken at the ISB that follows it in the block (both QEMU and the
 * ISS end a translation block after an ISB and take a pending interrupt there), and faults raised
 * by an instruction inside a block (BusFault, UNALIGNED and DIVBYZERO UsageFaults) that the handler
 * repairs (stacked r0) so that the instruction runs again. Each case prints which of the block's
 * instructions ran (r4-r7 counters), the markers the handler's first four instructions wrote, and
 * the stacked PC (relative to the instruction that was interrupted) and xPSR. */
#include "iss_trap.h"

/* ---- handlers whose first instructions are markers ---- */

/* Written by the first four instructions of the SVC, PendSV and IRQ0 handlers: 0x11..0x44 when
 * they ran, 0 when the interrupted block's IT state skipped them. */
volatile uint32_t g_marks[4];
/* Stacked PC and xPSR seen by those handlers, and how often they ran. */
static volatile uint32_t g_stk_pc, g_stk_xpsr, g_handled;

#define MARKERS             \
    "mov.w r0, #0x11\n\t"   \
    "mov.w r1, #0x22\n\t"   \
    "mov.w r2, #0x33\n\t"   \
    "mov.w r3, #0x44\n\t"   \
    "ldr r12, =g_marks\n\t" \
    "stm r12, {r0-r3}\n\t"  \
    "tst lr, #4\n\t"        \
    "ite eq\n\t"            \
    "mrseq r0, msp\n\t"     \
    "mrsne r0, psp\n\t"     \
    "mov r1, lr\n\t"

void record_frame(uint32_t* frame) {
    g_stk_pc = frame[6];
    g_stk_xpsr = frame[7];
    g_handled++;
}

void svc_hook(uint32_t imm, uint32_t* frame, uint32_t exc_return) {
    (void)imm;
    (void)exc_return;
    record_frame(frame);
}

__attribute__((naked)) void SVC_Handler(void) { __asm volatile(MARKERS "b svc_main\n\t"); }
__attribute__((naked)) void PendSV_Handler(void) { __asm volatile(MARKERS "b record_frame\n\t"); }
__attribute__((naked)) void TIMER0_IRQHandler(void) {
    __asm volatile(MARKERS "b record_frame\n\t");
}

static void clear_marks(void) {
    for (int i = 0; i < 4; ++i) g_marks[i] = 0;
    g_stk_pc = g_stk_xpsr = g_handled = 0;
}

/* "<name> r4= r5= r6= r7= marks=<4 bytes> n= pc= xpsr=", PC relative to `at`. */
static void print_case(const char* name, const uint32_t* r, uint32_t at) {
    line_begin("it.");
    out_str(name);
    kv("r4", r[0]);
    kv("r5", r[1]);
    kv("r6", r[2]);
    kv("r7", r[3]);
    kv("marks", (g_marks[0] & 0xFFu) << 24 | (g_marks[1] & 0xFFu) << 16 |
                    (g_marks[2] & 0xFFu) << 8 | (g_marks[3] & 0xFFu));
    kv("n", g_handled);
    kv("pc", g_stk_pc - at);
    kv("xpsr", g_stk_xpsr);
    out_nl();
    clear_marks();
}

/* r4..r7 start at 0 and the body's block counts into them; then r[0..3] = r4..r7 and
 * r[4] = the address of label 2. The code is aligned so that it never crosses a 1 KiB page: QEMU
 * ends a translation block before an instruction on another page, which would move the point
 * where a pending interrupt is taken. */
#define IT_CASE(body, ...)                                                                \
    __asm volatile(                                                                       \
        ".balign 64\n\tmovs r4, #0\n\tmovs r5, #0\n\tmovs r6, #0\n\tmovs r7, #0\n\t" body \
        "\n\tstm %[out], {r4-r7}\n\tadr r0, 2b\n\tstr r0, [%[out], #16]\n\t"              \
        :                                                                                 \
        : [out] "r"(r), __VA_ARGS__                                                       \
        : "r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "cc", "memory")

static void test_svc(void) {
    uint32_t r[5];
    /* SVC in the middle: T E T E, the SVC third; the last (E) must not run after the return */
    IT_CASE(
        "cmp r4, r4\n\t"
        "itete eq\n\t"
        "addeq r4, r4, #1\n\t"
        "addne r5, r5, #1\n\t"
        "svceq #0x21\n\t"
        "2: addne r6, r6, #1\n\t"
        "adds r7, r7, #1",
        "i"(0));
    print_case("svc.mid", r, r[4]);

    /* SVC last in its block */
    IT_CASE(
        "cmp r4, r4\n\t"
        "itt eq\n\t"
        "addeq r4, r4, #1\n\t"
        "svceq #0x22\n\t"
        "2: adds r7, r7, #1",
        "i"(0));
    print_case("svc.last", r, r[4]);

    /* SVC first, under NE, then T E E */
    IT_CASE(
        "movs r0, #1\n\t"
        "cmp r4, r0\n\t"
        "ittee ne\n\t"
        "svcne #0x23\n\t"
        "2: addne r4, r4, #1\n\t"
        "addeq r5, r5, #1\n\t"
        "addeq r6, r6, #1\n\t"
        "adds r7, r7, #1",
        "i"(0));
    print_case("svc.first", r, r[4]);

    /* a condition-failed SVC is not taken */
    IT_CASE(
        "cmp r4, r4\n\t"
        "ite ne\n\t"
        "svcne #0x24\n\t"
        "2: addeq r4, r4, #1\n\t"
        "adds r7, r7, #1",
        "i"(0));
    print_case("svc.failed", r, r[4]);
}

static void test_async(void) {
    uint32_t r[5];
    SHPR_PENDSV = 0x80u;
    /* PendSV pended by the block's first instruction, taken after the ISB (third) */
    IT_CASE(
        "cmp r4, r4\n\t"
        "itete eq\n\t"
        "streq %[set], [%[icsr]]\n\t"
        "addne r5, r5, #1\n\t"
        "isbeq\n\t"
        "2: addne r6, r6, #1\n\t"
        "adds r7, r7, #1",
        [set] "r"(ICSR_PENDSVSET), [icsr] "r"(&ICSR));
    print_case("pendsv.mid", r, r[4]);

    /* ... with three instructions of the block left after the ISB */
    IT_CASE(
        "movs r0, #1\n\t"
        "cmp r4, r0\n\t"
        "itttt ne\n\t"
        "strne %[set], [%[icsr]]\n\t"
        "isbne\n\t"
        "2: addne r4, r4, #1\n\t"
        "addne r5, r5, #1\n\t"
        "adds r6, r6, #2\n\t"
        "adds r7, r7, #1",
        [set] "r"(ICSR_PENDSVSET), [icsr] "r"(&ICSR));
    print_case("pendsv.ne", r, r[4]);

    /* NVIC interrupt 0 pended through ISPR inside the block */
    NVIC_IPR(0) = 0x40u;
    NVIC_ICPR0 = 1u;
    NVIC_ISER0 = 1u;
    IT_CASE(
        "cmp r4, r4\n\t"
        "ittee eq\n\t"
        "streq %[one], [%[ispr]]\n\t"
        "isbeq\n\t"
        "2: addne r5, r5, #1\n\t"
        "addne r6, r6, #1\n\t"
        "adds r7, r7, #1",
        [one] "r"(1u), [ispr] "r"(&NVIC_ISPR0));
    print_case("irq.mid", r, r[4]);
    NVIC_ICER0 = 1u;

    /* a condition-failed pending store: nothing is pended */
    IT_CASE(
        "cmp r4, r4\n\t"
        "itt ne\n\t"
        "strne %[set], [%[icsr]]\n\t"
        "isbne\n\t"
        "2: adds r7, r7, #1",
        [set] "r"(ICSR_PENDSVSET), [icsr] "r"(&ICSR));
    print_case("pendsv.failed", r, r[4]);
}

static volatile uint32_t g_word = 0x5A5A1234u;
static uint32_t g_pair[4] = {0x01020304u, 0x05060708u, 0x090A0B0Cu, 0x0D0E0F10u};

static void test_faults(void) {
    uint32_t r[5];
    /* BusFault: the load (third of T T T E) faults; the handler points r0 at g_word and returns
     * to the load, which runs again inside the block */
    g_fix_r0 = (uint32_t)&g_word;
    IT_CASE(
        "mov r0, %[bad]\n\t"
        "cmp r4, r4\n\t"
        "ittte eq\n\t"
        "addeq r4, r4, #1\n\t"
        "addeq r5, r5, #1\n\t"
        "2: ldreq r7, [r0]\n\t"
        "addne r6, r6, #1",
        [bad] "r"(UNMAPPED));
    line_begin("it.busfault");
    kv("r4", r[0]);
    kv("r5", r[1]);
    kv("r6", r[2]);
    kv("r7", r[3]);
    out_nl();
    trap_print("it.busfault.trap", r[4]);

    /* UsageFault UNALIGNED: LDRD (second of T T E E), retried with an aligned address */
    g_fix_r0 = (uint32_t)&g_pair[0];
    IT_CASE(
        "mov r0, %[odd]\n\t"
        "movs r2, #0\n\t"
        "movs r3, #0\n\t"
        "cmp r4, r4\n\t"
        "ittee eq\n\t"
        "addeq r4, r4, #1\n\t"
        "2: ldrdeq r2, r3, [r0]\n\t"
        "addne r5, r5, #1\n\t"
        "addne r6, r6, #1\n\t"
        "add r7, r2, r3",
        [odd] "r"((uint32_t)&g_pair[0] + 2u));
    line_begin("it.unaligned");
    kv("r4", r[0]);
    kv("r5", r[1]);
    kv("r6", r[2]);
    kv("r7", r[3]);
    out_nl();
    trap_print("it.unaligned.trap", r[4]);

    /* UsageFault DIVBYZERO (CCR.DIV_0_TRP): UDIV first of E T, retried with divisor 7 */
    CCR |= CCR_DIV_0_TRP;
    barrier();
    g_fix_r0 = 7u;
    IT_CASE(
        "movs r0, #0\n\t"
        "movs r1, #100\n\t"
        "cmp r4, r0\n\t"
        "ite eq\n\t"
        "2: udiveq r7, r1, r0\n\t"
        "addne r6, r6, #1",
        "i"(0));
    CCR &= ~CCR_DIV_0_TRP;
    barrier();
    line_begin("it.div0");
    kv("r6", r[2]);
    kv("r7", r[3]);
    out_nl();
    trap_print("it.div0.trap", r[4]);

    /* a condition-failed load from an unmapped address does not fault */
    IT_CASE(
        "mov r0, %[bad]\n\t"
        "cmp r4, r4\n\t"
        "ite ne\n\t"
        "2: ldrne r7, [r0]\n\t"
        "addeq r4, r4, #1",
        [bad] "r"(UNMAPPED));
    line_begin("it.failed_load");
    kv("r4", r[0]);
    kv("r7", r[3]);
    out_nl();
    trap_print("it.failed_load.trap", r[4]);
}

int main(void) {
    out_str("iss_it start\n");
    SHCSR = SHCSR_ENABLES;
    SHPR_SVC = 0x80u;
    clear_marks();
    test_svc();
    test_async();
    test_faults();
    SHCSR = 0;
    out_str("iss_it end\n");
    return 0;
}
