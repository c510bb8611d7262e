/* Start-up code for the simulated Cortex-M4F: vector table, BSS clearing, FPU enable, main(),
 * then _exit(). The default _exit uses semihosting (BKPT 0xAB), which both nmsim and QEMU
 * (-semihosting) implement; the HAL overrides it with the host mailbox doorbell. */
#include <stdint.h>

#include "nmsim/hw/spinnaker2/pe_map.h"

extern uint32_t _bss_start, _bss_end, _stack_top;
int main(void);
void _exit(int status) __attribute__((noreturn));

void Reset_Handler(void) __attribute__((noreturn));
void Default_Handler(void);
#define WEAK_ALIAS __attribute__((weak, alias("Default_Handler")))
void NMI_Handler(void) WEAK_ALIAS;
void HardFault_Handler(void) WEAK_ALIAS;
void MemManage_Handler(void) WEAK_ALIAS;
void BusFault_Handler(void) WEAK_ALIAS;
void UsageFault_Handler(void) WEAK_ALIAS;
void SVC_Handler(void) WEAK_ALIAS;
void DebugMon_Handler(void) WEAK_ALIAS;
void PendSV_Handler(void) WEAK_ALIAS;
void SysTick_Handler(void) WEAK_ALIAS;
void TIMER0_IRQHandler(void) WEAK_ALIAS;
void TIMER1_IRQHandler(void) WEAK_ALIAS;
void DMA_IRQHandler(void) WEAK_ALIAS;
void MLA_IRQHandler(void) WEAK_ALIAS;
void MAILBOX_IRQHandler(void) WEAK_ALIAS;
void SIGNAL_IRQHandler(void) WEAK_ALIAS;
void COMMS_IRQHandler(void) WEAK_ALIAS;

typedef void (*vector_t)(void);
__attribute__((section(".vectors"), used)) const vector_t s2_vectors[16 + S2_IRQ_COUNT] = {
    (vector_t)(uintptr_t)&_stack_top,
    Reset_Handler,
    NMI_Handler,
    HardFault_Handler,
    MemManage_Handler,
    BusFault_Handler,
    UsageFault_Handler,
    0, 0, 0, 0,
    SVC_Handler,
    DebugMon_Handler,
    0,
    PendSV_Handler,
    SysTick_Handler,
    [16 + S2_IRQ_TIMER0] = TIMER0_IRQHandler,
    [16 + S2_IRQ_TIMER1] = TIMER1_IRQHandler,
    [16 + S2_IRQ_DMA] = DMA_IRQHandler,
    [16 + S2_IRQ_MLA] = MLA_IRQHandler,
    [16 + S2_IRQ_MAILBOX] = MAILBOX_IRQHandler,
    [16 + S2_IRQ_SIGNAL] = SIGNAL_IRQHandler,
    [16 + S2_IRQ_COMMS_RX] = COMMS_IRQHandler,
};

void Reset_Handler(void) {
    for (uint32_t* p = &_bss_start; p < &_bss_end; ++p) *p = 0;
    /* CPACR: full access to CP10/CP11 (the FPU) */
    *(volatile uint32_t*)0xE000ED88u |= (0xFu << 20);
    __asm volatile("dsb\n isb" ::: "memory");
    _exit(main());
}

/* An exception without a handler ends the program with status 0x100 + exception number. */
void Default_Handler(void) {
    uint32_t ipsr;
    __asm volatile("mrs %0, ipsr" : "=r"(ipsr));
    _exit((int)(0x100u + (ipsr & 0x1FFu)));
}

/* Semihosting (ARM DUI0471): r0 = operation, r1 = argument block. */
static inline uint32_t s2_semihost(uint32_t op, const void* arg) {
    register uint32_t r0 __asm("r0") = op;
    register const void* r1 __asm("r1") = arg;
    __asm volatile("bkpt 0xAB" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

__attribute__((weak, noreturn)) void _exit(int status) {
    /* SYS_EXIT_EXTENDED (0x20): {ADP_Stopped_ApplicationExit, status} */
    uint32_t block[2] = {0x20026u, (uint32_t)status};
    for (;;) s2_semihost(0x20u, block);
}

__attribute__((weak)) void s2_semihost_write0(const char* s) { s2_semihost(0x04u, s); }
