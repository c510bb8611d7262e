/* SpiNNaker2 processing element: memory map and interrupt lines.
 * Base addresses of SRAM, DRAM, EXP, timers, comms and MLA follow the public SpiNNaker2 firmware
 * runtime (spinnaker_2_tools include/constants.h, see docs/hardware_facts.md F).
 * PRNG, DMA, signal, comms, mailbox and console offsets inside those blocks are not public: nmsim places them
 * (marked "assumed") inside the blocks they belong to. */
#ifndef NMSIM_HW_S2_PE_MAP_H
#define NMSIM_HW_S2_PE_MAP_H
#include <stdint.h>

#define S2_SRAM_BASE 0x00000000u     /* local SRAM (public map) */
#define S2_SRAM_SIZE 0x00020000u     /* 128 kB default; platform parameter pe.sram.size */
#define S2_QPE_SRAM_BASE 0x00080000u /* QPE-shared SRAM (public map; not modelled yet) */
#define S2_EXT_BASE 0x20000000u      /* DRAM window (public map); host-visible memory on the PE platform */
#define S2_EXP_BASE 0xE0100100u      /* NMU exp accelerator (public map) */
#define S2_PRNG_BASE 0xE0100200u     /* PRNG, NMU block (assumed offset) */
#define S2_TIMER_BASE 0xE1000000u    /* timers (public map) */
#define S2_TIMER_STRIDE 0x20u        /* timer 1 at S2_TIMER_BASE + 0x20 (assumed) */
#define S2_DMA_BASE 0xE2000000u      /* DMA, comms block (public map base, assumed offset) */
#define S2_SIGNAL_BASE 0xE2000100u   /* PE-to-PE signal unit, comms block (assumed offset) */
#define S2_COMMS_BASE 0xE2000200u    /* multicast communication controller, comms block (assumed offset) */
#define S2_MLA_BASE 0xE3000000u      /* ML accelerator / MAC array (public map) */
#define S2_MAILBOX_BASE 0xF2000100u  /* host mailbox, QPE register file (assumed offset) */
#define S2_CONSOLE_BASE 0xF2000F00u  /* debug console, QPE register file (simulator debug aid) */
#define S2_PERIPH_WINDOW 0x100u      /* every peripheral decodes a 256-byte window */

/* NVIC external interrupt numbers (exception number = 16 + irq). */
#define S2_IRQ_TIMER0 0u
#define S2_IRQ_TIMER1 1u
#define S2_IRQ_DMA 2u
#define S2_IRQ_MLA 3u
#define S2_IRQ_MAILBOX 4u
#define S2_IRQ_SIGNAL 5u
#define S2_IRQ_COMMS_RX 6u /* level: high while the comms RX FIFO holds a packet */
#define S2_IRQ_COUNT 32u /* NVIC lines implemented */

/* Argument block: the host writes up to S2_ARGS_WORDS 32-bit words here before the core starts
 * (scenario `args`); the stack grows down from S2_ARGS_BASE. */
#define S2_ARGS_BASE 0x0001FF00u
#define S2_ARGS_WORDS 64u
#endif
