/* SpiNNaker2 chip: QPE layout, data-NoC mesh positions and the global address map that DMA
 * initiators use to reach other PEs' SRAM, the DRAM interfaces and the host over the NoC.
 *
 * QPE layout: public host software (SpiNNMachine version_spin2.py QUAD_MAP, see
 * docs/hardware_facts.md A1) places QPEs at qx 1..7, qy 1..6 except (4,3), (4,4),
 * (7,3), (7,4): 38 QPEs of 4 PEs = 152 PEs. nmsim numbers them column by column (qx, then qy).
 *
 * Global address map (nmsim's choice; the real encoding is not public). All windows lie inside
 * the PE's off-PE window [S2_EXT_BASE, 0xE0000000), which the PE DMA sends to the NoC:
 *   DRAM   [0x20000000, 0xA0000000)  2 GiB: interface 0 the lower, interface 1 the upper GiB
 *   PE     [0xA0000000, 0xA8000000)  base | node id << 19 | offset (512 KiB per PE)
 *   router [0xB0000000, 0xB0100000)  the multicast spike router (router_regs.h)
 *   host   [0xC0000000, 0xE0000000)  the host interface (Ethernet bridge)
 * The node id has the fields of the public Spin2 API node id (2-bit PE + 3-bit y + 3-bit x,
 * docs/hardware_facts.md A1), with x in the low bits: id = pe << 6 | qy << 3 | qx.
 *
 * Mesh: an 8 x 8 grid of routers at x, y in 0..7; QPE (qx, qy) sits at mesh node (qx, qy). The
 * grid positions without a QPE forward traffic (assumed). DRAM interface 0 attaches at the west
 * edge (0, 3), DRAM interface 1 and the host interface at the east positions without a QPE,
 * (7, 4) and (7, 3) (assumed: the placement is not public). The spike router sits at the die
 * centre, in the area of the two empty positions (4, 3) and (4, 4) (docs/hardware_facts.md A5);
 * nmsim attaches its one NoC endpoint at (4, 3). */
#ifndef NMSIM_HW_S2_NOC_MAP_H
#define NMSIM_HW_S2_NOC_MAP_H
#include <stdint.h>

#include "nmsim/hw/spinnaker2/pe_map.h"

#define S2_NOC_N_QPES 38u
#define S2_NOC_PES_PER_QPE 4u
#define S2_NOC_N_PES (S2_NOC_N_QPES * S2_NOC_PES_PER_QPE)
#define S2_NOC_QX_MIN 1u
#define S2_NOC_QX_MAX 7u
#define S2_NOC_QY_MIN 1u
#define S2_NOC_QY_MAX 6u
#define S2_NOC_MESH_DIM 8u /* mesh nodes per side: x, y in 0..7 */

/* Mesh positions of the non-PE endpoints (assumed). */
#define S2_NOC_DRAM0_X 0u
#define S2_NOC_DRAM0_Y 3u
#define S2_NOC_DRAM1_X 7u
#define S2_NOC_DRAM1_Y 4u
#define S2_NOC_HOST_X 7u
#define S2_NOC_HOST_Y 3u
#define S2_NOC_ROUTER_X 4u /* the spike router (the centre, where the QPEs (4,3), (4,4) are absent) */
#define S2_NOC_ROUTER_Y 3u

/* Node id fields (public Spin2 API: 2-bit PE + 3-bit y + 3-bit x). */
#define S2_NOC_NODE_QX_SHIFT 0u
#define S2_NOC_NODE_QX_WIDTH 3u
#define S2_NOC_NODE_QY_SHIFT 3u
#define S2_NOC_NODE_QY_WIDTH 3u
#define S2_NOC_NODE_PE_SHIFT 6u
#define S2_NOC_NODE_PE_WIDTH 2u

/* Global windows. */
#define S2_DRAM_GLOBAL_BASE S2_EXT_BASE /* 0x20000000 */
#define S2_DRAM_GLOBAL_SIZE 0x80000000u /* 2 GiB */
#define S2_DRAM_IF_COUNT 2u
#define S2_DRAM_IF_SIZE 0x40000000u /* per interface */
#define S2_PE_GLOBAL_BASE 0xA0000000u
#define S2_PE_GLOBAL_OFFSET_BITS 19u /* 512 KiB per PE: room for a QPE-sized SRAM */
#define S2_PE_GLOBAL_NODE_SHIFT S2_PE_GLOBAL_OFFSET_BITS
#define S2_PE_GLOBAL_NODE_WIDTH 8u
#define S2_PE_GLOBAL_SIZE (1u << (S2_PE_GLOBAL_OFFSET_BITS + S2_PE_GLOBAL_NODE_WIDTH))
#define S2_ROUTER_GLOBAL_BASE 0xB0000000u /* the spike router's window (router_regs.h) */
#define S2_ROUTER_GLOBAL_SIZE 0x00100000u /* 1 MiB */
#define S2_HOST_GLOBAL_BASE 0xC0000000u
#define S2_HOST_GLOBAL_SIZE 0x20000000u

/* 1 if a QPE sits at (qx, qy). */
static inline int s2_qpe_exists(uint32_t qx, uint32_t qy) {
    if (qx < S2_NOC_QX_MIN || qx > S2_NOC_QX_MAX || qy < S2_NOC_QY_MIN || qy > S2_NOC_QY_MAX)
        return 0;
    return !((qx == 4u || qx == 7u) && (qy == 3u || qy == 4u));
}

/* QPE index 0..37 of (qx, qy), column by column; -1 if no QPE sits there. */
static inline int32_t s2_qpe_index(uint32_t qx, uint32_t qy) {
    int32_t idx = 0;
    uint32_t x, y;
    if (!s2_qpe_exists(qx, qy)) return -1;
    for (x = S2_NOC_QX_MIN; x <= S2_NOC_QX_MAX; ++x)
        for (y = S2_NOC_QY_MIN; y <= S2_NOC_QY_MAX; ++y) {
            if (x == qx && y == qy) return idx;
            if (s2_qpe_exists(x, y)) ++idx;
        }
    return -1;
}

/* Position of QPE `index` (0..37); 0 if the index is out of range. */
static inline int s2_qpe_coord(uint32_t index, uint32_t* qx, uint32_t* qy) {
    uint32_t n = 0, x, y;
    for (x = S2_NOC_QX_MIN; x <= S2_NOC_QX_MAX; ++x)
        for (y = S2_NOC_QY_MIN; y <= S2_NOC_QY_MAX; ++y) {
            if (!s2_qpe_exists(x, y)) continue;
            if (n++ == index) {
                *qx = x;
                *qy = y;
                return 1;
            }
        }
    return 0;
}

static inline uint32_t s2_noc_node_id(uint32_t qx, uint32_t qy, uint32_t pe) {
    return ((pe & 3u) << S2_NOC_NODE_PE_SHIFT) | ((qy & 7u) << S2_NOC_NODE_QY_SHIFT) |
           ((qx & 7u) << S2_NOC_NODE_QX_SHIFT);
}

/* Global address of byte `offset` of PE `pe` of QPE (qx, qy). */
static inline uint32_t s2_pe_global_addr(uint32_t qx, uint32_t qy, uint32_t pe, uint32_t offset) {
    return S2_PE_GLOBAL_BASE | (s2_noc_node_id(qx, qy, pe) << S2_PE_GLOBAL_NODE_SHIFT) |
           (offset & ((1u << S2_PE_GLOBAL_OFFSET_BITS) - 1u));
}

/* Splits a PE-window address; 0 if `addr` is outside the PE window. Does not check that a QPE
 * sits at the decoded position (use s2_qpe_exists). */
static inline int s2_pe_global_decode(uint32_t addr, uint32_t* qx, uint32_t* qy, uint32_t* pe,
                                      uint32_t* offset) {
    uint32_t node;
    if (addr - S2_PE_GLOBAL_BASE >= S2_PE_GLOBAL_SIZE) return 0;
    node = (addr >> S2_PE_GLOBAL_NODE_SHIFT) & ((1u << S2_PE_GLOBAL_NODE_WIDTH) - 1u);
    *qx = (node >> S2_NOC_NODE_QX_SHIFT) & 7u;
    *qy = (node >> S2_NOC_NODE_QY_SHIFT) & 7u;
    *pe = (node >> S2_NOC_NODE_PE_SHIFT) & 3u;
    *offset = addr & ((1u << S2_PE_GLOBAL_OFFSET_BITS) - 1u);
    return 1;
}

/* Global address of byte `offset` of DRAM interface `dram_if` (0 or 1). */
static inline uint32_t s2_dram_global_addr(uint32_t dram_if, uint32_t offset) {
    return S2_DRAM_GLOBAL_BASE + dram_if * S2_DRAM_IF_SIZE + offset;
}
#endif
