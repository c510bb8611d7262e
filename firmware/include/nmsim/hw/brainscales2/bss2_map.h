/* BrainScaleS-2 (HICANN-X) chip: geometry, event formats and the configuration address map.
 * The one definition shared by the host compiler (which emits configuration writes and spike
 * labels), the FPGA playback programs and the chip models (which decode them).
 *
 * Geometry and event formats follow seed 004 section 3.1.2 (docs/hardware_facts.md S-B.4):
 *   - crossbar: 20 inputs x 12 outputs, 14-bit events, a node forwards iff (event & mask) == target;
 *     inputs 0..7 neuron output channels (0..3 left, 4..7 right of the analog core), 8..11 the
 *     layer-2 (L2) input channels, 12..19 the background generators; outputs 0..3 the PADI buses
 *     of the top hemisphere, 4..7 those of the bottom hemisphere, 8..11 the L2 output channels.
 *     Nodes exist only where Fig. 3.2 has an X (bss2_xbar_node_exists).
 *   - L2 (chip-external) event: 16 bit; bits 15:14 select the crossbar channel, 13:0 the label.
 *   - PADI event: the crossbar event's low 11 bits; bits 10:6 row select, 5:0 synapse label.
 *   - synapse driver d (0..127 per hemisphere) listens to PADI bus d % 4 with static index d / 4
 *     and drives synapse rows 2d and 2d + 1; it forwards an event iff the row-select bits equal
 *     its static index in every bit set in its 5-bit mask.
 *   - neuron column c (0..255 per hemisphere) emits on output channel c / 32 (both hemispheres);
 *     its event is channel << 8 | its 8-bit configurable address (the "highest six bits carry
 *     the neuron output channel index", seed 004 section 3.1.2, read literally).
 *
 * Configuration address map: nmsim's own (the real Omnibus map is not in the public sources).
 * Word addresses, 24 bits (the playback WRITE instruction carries 24 address bits), 32-bit data.
 * Fixed-point units of the neuron words: uV, fF, ps, pS and fA, chosen so that one int32 covers
 * the calibratable ranges of docs/hardware_facts.md B1 with margin. The neuron words hold
 * calibrated targets; the models add the per-neuron fixed-pattern residual (see the neuron model).
 */
#ifndef NMSIM_HW_BSS2_MAP_H
#define NMSIM_HW_BSS2_MAP_H
#include <stdint.h>

/* ---- geometry -------------------------------------------------------------------------- */
#define BSS2_HEMISPHERES 2u
#define BSS2_COLUMNS 256u /* neurons (= synapse columns) per hemisphere */
#define BSS2_NEURONS (BSS2_HEMISPHERES * BSS2_COLUMNS)
#define BSS2_ROWS 256u           /* synapse rows per hemisphere */
#define BSS2_DRIVERS 128u        /* synapse drivers per hemisphere (2 rows each) */
#define BSS2_PADI_PER_HEMI 4u    /* PADI buses per hemisphere */
#define BSS2_DRIVERS_PER_BUS 32u /* drivers per PADI bus (static index 0..31) */
#define BSS2_NEURON_CHANNELS 8u  /* neuron output channels into the crossbar */
#define BSS2_COLUMNS_PER_CHANNEL 32u
#define BSS2_L2_CHANNELS 4u
#define BSS2_BACKGROUND 8u
#define BSS2_XBAR_INPUTS 20u
#define BSS2_XBAR_OUTPUTS 12u

/* Crossbar input numbering. */
#define BSS2_XIN_NEURON(ch) ((uint32_t)(ch))     /* 0..7 */
#define BSS2_XIN_L2(ch) (8u + (uint32_t)(ch))    /* 8..11 */
#define BSS2_XIN_BG(i) (12u + (uint32_t)(i))     /* 12..19 */
/* Crossbar output numbering. */
#define BSS2_XOUT_PADI(hemi, bus) ((uint32_t)(hemi) * BSS2_PADI_PER_HEMI + (uint32_t)(bus)) /* 0..7 */
#define BSS2_XOUT_L2(ch) (8u + (uint32_t)(ch)) /* 8..11 */

/* ---- event formats --------------------------------------------------------------------- */
#define BSS2_LABEL14_MASK 0x3FFFu
#define BSS2_L2_CHANNEL_SHIFT 14u
#define BSS2_L2_CHANNEL_WIDTH 2u
#define BSS2_PADI_MASK 0x7FFu
#define BSS2_PADI_ROWSEL_SHIFT 6u
#define BSS2_PADI_ROWSEL_WIDTH 5u
#define BSS2_PADI_SYNLABEL_SHIFT 0u
#define BSS2_PADI_SYNLABEL_WIDTH 6u
#define BSS2_NEURON_CHANNEL_SHIFT 8u /* neuron event: channel << 8 | address */
#define BSS2_NEURON_ADDR_WIDTH 8u

static inline uint32_t bss2_l2_event(uint32_t channel, uint32_t label14) {
    return (channel & 3u) << BSS2_L2_CHANNEL_SHIFT | (label14 & BSS2_LABEL14_MASK);
}
static inline uint32_t bss2_neuron_channel(uint32_t column) { return column / BSS2_COLUMNS_PER_CHANNEL; }
static inline uint32_t bss2_neuron_event(uint32_t column, uint32_t addr8) {
    return bss2_neuron_channel(column) << BSS2_NEURON_CHANNEL_SHIFT | (addr8 & 0xFFu);
}
static inline uint32_t bss2_padi_rowsel(uint32_t event) { return (event >> BSS2_PADI_ROWSEL_SHIFT) & 0x1Fu; }
static inline uint32_t bss2_padi_synlabel(uint32_t event) { return event & 0x3Fu; }
static inline uint32_t bss2_driver_bus(uint32_t driver) { return driver % BSS2_PADI_PER_HEMI; }
static inline uint32_t bss2_driver_index(uint32_t driver) { return driver / BSS2_PADI_PER_HEMI; }
/* 1 if driver with static index `index` and 5-bit `mask` accepts row-select `rowsel`. */
static inline int bss2_driver_accepts(uint32_t index, uint32_t mask, uint32_t rowsel) {
    return ((rowsel ^ index) & mask & 0x1Fu) == 0u;
}

/* 1 if the crossbar has a node at (input, output): seed 004 Fig. 3.2 as reconstructed in
 * docs/hardware_facts.md S-B.4; 76 nodes. */
static inline int bss2_xbar_node_exists(uint32_t in, uint32_t out) {
    if (in >= BSS2_XBAR_INPUTS || out >= BSS2_XBAR_OUTPUTS) return 0;
    if (in < 8u) { /* neuron channel in: PADI bus in%4 of both hemispheres and L2 out in%4 */
        const uint32_t k = in % 4u;
        return out == k || out == 4u + k || out == 8u + k;
    }
    if (in < 12u) { /* L2 in j: all 8 PADI buses and L2 out j (loopback) */
        return out < 8u || out == 8u + (in - 8u);
    }
    { /* background i: PADI bus i (i < 4 top, else bottom bus i - 4) and L2 out i % 4 */
        const uint32_t i = in - 12u;
        return out == i || out == 8u + i % 4u;
    }
}

/* ---- configuration address map (word addresses, 24 bit) ---------------------------------- */
#define BSS2_ADDR_BITS 24u

/* Crossbar node (in, out): 2 words. */
#define BSS2_XBAR_BASE 0x001000u
#define BSS2_XBAR_NODE(in, out) (BSS2_XBAR_BASE + ((uint32_t)(in) * BSS2_XBAR_OUTPUTS + (uint32_t)(out)) * 2u)
#define BSS2_XBAR_MASK 0u   /* +0: bits 13:0 mask, bit 16 enable */
#define BSS2_XBAR_TARGET 1u /* +1: bits 13:0 target */
#define BSS2_XBAR_MASK_ENABLE_SHIFT 16u

/* Synapse driver (hemi, d): 4 words. */
#define BSS2_SYNDRV_BASE 0x002000u
#define BSS2_SYNDRV(hemi, d) (BSS2_SYNDRV_BASE + ((uint32_t)(hemi) * BSS2_DRIVERS + (uint32_t)(d)) * 4u)
#define BSS2_SYNDRV_CFG 0u /* +0 */
#define BSS2_SYNDRV_CFG_ROWMASK_SHIFT 0u     /* 5-bit row-select compare mask */
#define BSS2_SYNDRV_CFG_ROWMASK_WIDTH 5u
#define BSS2_SYNDRV_CFG_LOWER5_SHIFT 8u      /* 1: forward the low 5 label bits (else zeros) */
#define BSS2_SYNDRV_CFG_LOWER5_WIDTH 1u
#define BSS2_SYNDRV_CFG_MODE0_SHIFT 12u      /* row 2d mode: BSS2_ROW_* */
#define BSS2_SYNDRV_CFG_MODE0_WIDTH 2u
#define BSS2_SYNDRV_CFG_MODE1_SHIFT 14u      /* row 2d+1 mode */
#define BSS2_SYNDRV_CFG_MODE1_WIDTH 2u
#define BSS2_SYNDRV_CFG_STP_SHIFT 16u        /* 1: short-term plasticity on */
#define BSS2_SYNDRV_CFG_STP_WIDTH 1u
#define BSS2_SYNDRV_CFG_ENABLE_SHIFT 17u     /* 1: driver listens to its PADI bus */
#define BSS2_SYNDRV_CFG_ENABLE_WIDTH 1u
/* 1: hagen (non-spiking, vector-matrix) mode: the event's low five label bits set the pulse
 * length, x = (32 - label[4:0]) mod 32 steps (0: no pulse), instead of being compared by the
 * synapses (they see bit 5 only, as with LOWER5 off); STP is not applied. */
#define BSS2_SYNDRV_CFG_HAGEN_SHIFT 18u
#define BSS2_SYNDRV_CFG_HAGEN_WIDTH 1u
#define BSS2_SYNDRV_STP_U 1u       /* +1: utilisation U in 1/256 (bits 7:0) */
#define BSS2_SYNDRV_STP_TAU_REC 2u /* +2: recovery time constant, ns */
#define BSS2_SYNDRV_STP_PULSE 3u   /* +3: pulse length at full efficacy, ns (scales the charge) */
#define BSS2_ROW_DISABLED 0u
#define BSS2_ROW_EXCITATORY 1u
#define BSS2_ROW_INHIBITORY 2u

/* Neuron (hemi, column): 32 words. */
#define BSS2_NEURON_BASE 0x010000u
#define BSS2_NEURON(hemi, col) (BSS2_NEURON_BASE + ((uint32_t)(hemi) * BSS2_COLUMNS + (uint32_t)(col)) * 32u)
#define BSS2_NRN_CFG 0u          /* flags below */
#define BSS2_NRN_CFG_ENABLE (1u << 0)   /* membrane integrates (else held at v_leak) */
#define BSS2_NRN_CFG_FIRE (1u << 1)     /* spike detector drives the output channel */
#define BSS2_NRN_CFG_EXP (1u << 2)      /* exponential term on */
#define BSS2_NRN_CFG_ADAPT (1u << 3)    /* adaptation on */
#define BSS2_NRN_CFG_INTEGRATOR (1u << 4) /* hagen mode: no leak, no spikes, the membrane
                                           * integrates the synaptic charge from v_reset */
#define BSS2_NRN_ADDR_OUT 1u     /* bits 7:0: the 8-bit event address */
#define BSS2_NRN_V_LEAK 2u       /* int32 uV */
#define BSS2_NRN_V_RESET 3u      /* int32 uV */
#define BSS2_NRN_V_THRESHOLD 4u  /* int32 uV: spike comparator */
#define BSS2_NRN_V_EXP 5u        /* int32 uV: exponential term threshold V_T */
#define BSS2_NRN_DELTA_T 6u      /* int32 uV: exponential slope factor */
#define BSS2_NRN_C_MEM 7u        /* uint32 fF */
#define BSS2_NRN_TAU_MEM 8u      /* uint32 ps */
#define BSS2_NRN_TAU_SYN_EXC 9u  /* uint32 ps */
#define BSS2_NRN_TAU_SYN_INH 10u /* uint32 ps */
#define BSS2_NRN_TAU_W 11u       /* uint32 ps */
#define BSS2_NRN_A 12u           /* int32 pS: subthreshold adaptation */
#define BSS2_NRN_B 13u           /* int32 fA: spike-triggered adaptation increment */
#define BSS2_NRN_T_REF 14u       /* uint32 ps: refractory time */
#define BSS2_NRN_I_OFFSET 15u    /* int32 fA: constant current */
#define BSS2_NRN_W_EXC 16u       /* uint32 fA per weight LSB: excitatory synaptic input strength */
#define BSS2_NRN_W_INH 17u       /* uint32 fA per weight LSB: inhibitory synaptic input strength */
#define BSS2_NRN_RESET 24u       /* WO: write 1: V = v_leak, w = 0, synaptic currents 0 */
#define BSS2_NRN_V_MEM 28u       /* RO: present membrane voltage, int32 uV (debug read) */

/* Background generator i: 4 words. */
#define BSS2_BG_BASE 0x004000u
#define BSS2_BG(i) (BSS2_BG_BASE + (uint32_t)(i) * 4u)
#define BSS2_BG_CFG 0u    /* bit 0 enable, bit 1 Poisson (else regular) */
#define BSS2_BG_CFG_ENABLE (1u << 0)
#define BSS2_BG_CFG_POISSON (1u << 1)
#define BSS2_BG_PERIOD 1u /* bits 15:0: period in generator clock cycles (>= 1) */
#define BSS2_BG_RATE 2u   /* bits 7:0: Poisson rate (emit with p = rate / 256 per period); bits 15:8: label mask */
#define BSS2_BG_LABEL 3u  /* bits 13:0: crossbar label; bits set in the mask are randomised */

/* PADI bus (hemi, bus): 1 word, bit 0 enable. */
#define BSS2_PADI_BASE 0x005000u
#define BSS2_PADI(hemi, bus) (BSS2_PADI_BASE + (uint32_t)(hemi) * BSS2_PADI_PER_HEMI + (uint32_t)(bus))

/* MADC: one selected neuron, samples stream to the FPGA while recording. */
#define BSS2_MADC_BASE 0x006000u
#define BSS2_MADC_NEURON (BSS2_MADC_BASE + 0u) /* bits 8:0: hemi * 256 + column */
#define BSS2_MADC_CTRL (BSS2_MADC_BASE + 1u)   /* WO: 1 start recording, 0 stop */

/* CADC: parallel 8-bit readout of all membranes. */
#define BSS2_CADC_BASE 0x007000u
#define BSS2_CADC_TRIGGER (BSS2_CADC_BASE + 0u)                         /* WO: sample all */
#define BSS2_CADC_RESULT(hemi, col) (BSS2_CADC_BASE + 0x100u + (uint32_t)(hemi) * BSS2_COLUMNS + (uint32_t)(col)) /* RO */
/* Four columns 4q..4q+3 in one read (haldls CADCSampleQuad): column 4q + k in bits 8k+7:8k. One
 * Omnibus read per quad is what seed 004 Table 3.1 counts (16 bit per output, read and trigger). */
#define BSS2_CADC_QUADS_PER_HEMI (BSS2_COLUMNS / 4u)
#define BSS2_CADC_QUAD(hemi, quad) (BSS2_CADC_BASE + 0x300u + (uint32_t)(hemi) * BSS2_CADC_QUADS_PER_HEMI + (uint32_t)(quad)) /* RO */

/* Neuron reset by quads (haldls NeuronResetQuad): a write resets neurons 4q + k of the hemisphere
 * for every set bit k of bits 3:0, as BSS2_NRN_RESET does for one neuron. WO. */
#define BSS2_NRN_RESET_QUAD_BASE 0x008000u
#define BSS2_NRN_RESET_QUAD(hemi, quad) (BSS2_NRN_RESET_QUAD_BASE + (uint32_t)(hemi) * (BSS2_COLUMNS / 4u) + (uint32_t)(quad))

/* Synapse (hemi, row, column): 1 word. */
#define BSS2_SYNAPSE_BASE 0x800000u
#define BSS2_SYNAPSE(hemi, row, col) \
    (BSS2_SYNAPSE_BASE + ((uint32_t)(hemi) * BSS2_ROWS + (uint32_t)(row)) * BSS2_COLUMNS + (uint32_t)(col))
#define BSS2_SYN_WEIGHT_SHIFT 0u
#define BSS2_SYN_WEIGHT_WIDTH 6u
#define BSS2_SYN_LABEL_SHIFT 6u
#define BSS2_SYN_LABEL_WIDTH 6u

#endif
