/* A SpiNNaker2 multicast packet as nmsim carries it over the data NoC: from a PE's communication
 * controller to the spike router's multicast input port (router_regs.h), and from the router to
 * a receiving PE's comms RX window (comms_regs.h). The real on-chip packet format (a 40-bit
 * multicast packet of 32-bit key plus header, with an optional 32-bit payload, docs/router.md)
 * is not public bit for bit; nmsim writes three little-endian words, which fit one NoC flit
 * (16 bytes of payload per flit, docs/noc.md):
 *   word 0  key
 *   word 1  payload (0 when HAS_PAYLOAD is clear)
 *   word 2  control: HAS_PAYLOAD, CREDIT, SOURCE
 * CREDIT marks a packet whose sender holds a slot of the router's input queue (a comms unit
 * reserves one before it sends; docs/router.md "Flow control"). SOURCE names where the packet
 * entered the router: a PE's global index (0..151), S2_MC_SOURCE_LINK(k) for chip link k, or
 * S2_MC_SOURCE_NONE. The router keeps SOURCE when it delivers a copy. */
#ifndef NMSIM_HW_S2_MC_PACKET_H
#define NMSIM_HW_S2_MC_PACKET_H
#include <stdint.h>

#define S2_MC_PKT_BYTES 12u
#define S2_MC_PKT_KEY_WORD 0u
#define S2_MC_PKT_PAYLOAD_WORD 1u
#define S2_MC_PKT_CTRL_WORD 2u

#define S2_MC_CTRL_HAS_PAYLOAD_SHIFT 0
#define S2_MC_CTRL_HAS_PAYLOAD_WIDTH 1
#define S2_MC_CTRL_CREDIT_SHIFT 1
#define S2_MC_CTRL_CREDIT_WIDTH 1
#define S2_MC_CTRL_SOURCE_SHIFT 8
#define S2_MC_CTRL_SOURCE_WIDTH 9

#define S2_MC_SOURCE_LINK(k) (0x100u + (uint32_t)(k)) /* chip link k (0..5) */
#define S2_MC_SOURCE_NONE 0x1FFu                      /* unknown (e.g. the host) */

static inline uint32_t s2_mc_ctrl(uint32_t has_payload, uint32_t credit, uint32_t source) {
    return ((has_payload & 1u) << S2_MC_CTRL_HAS_PAYLOAD_SHIFT) |
           ((credit & 1u) << S2_MC_CTRL_CREDIT_SHIFT) |
           ((source & 0x1FFu) << S2_MC_CTRL_SOURCE_SHIFT);
}
static inline uint32_t s2_mc_ctrl_has_payload(uint32_t ctrl) {
    return (ctrl >> S2_MC_CTRL_HAS_PAYLOAD_SHIFT) & 1u;
}
static inline uint32_t s2_mc_ctrl_credit(uint32_t ctrl) {
    return (ctrl >> S2_MC_CTRL_CREDIT_SHIFT) & 1u;
}
static inline uint32_t s2_mc_ctrl_source(uint32_t ctrl) {
    return (ctrl >> S2_MC_CTRL_SOURCE_SHIFT) & 0x1FFu;
}
#endif
