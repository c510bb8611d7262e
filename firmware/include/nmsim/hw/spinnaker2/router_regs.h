/* SpiNNaker2 multicast spike router (one per chip, at the die centre): the layout of its global
 * window, nmsim's choice (the real register map is not public). Model, timing and parameters:
 * docs/router.md. The window [S2_ROUTER_GLOBAL_BASE, + S2_ROUTER_GLOBAL_SIZE) (noc_map.h) is a
 * NoC endpoint of its own; the host reaches it over the host link, a PE with loads and stores:
 *
 *   0x00000  registers (S2_ROUTER_REGS below, 256 B): table size, counters, CLEAR
 *   0x01000  multicast input port: the comms units write their packets here (mc_packet.h)
 *   0x80000  routing table: entry i at S2_ROUTER_TABLE_OFFSET + i * S2_ROUTER_ENTRY_BYTES,
 *            N_ENTRIES entries (parameter router.n_entries, 16,384 by default)
 *
 * Routing-table entry: 8 words, readable and writable in any order and in bursts (the host link
 * may write the whole table in one call):
 *   word 0      KEY
 *   word 1      MASK: a packet with key k matches iff (k & MASK) == KEY (an entry whose KEY has
 *               bits outside MASK never matches)
 *   words 2..6  ROUTE0..4: destination PEs, bit j of ROUTE<w> = global PE index 32 w + j
 *               (4 * qpe_index + pe; ROUTE4 bits 24..31 are unused)
 *   word 7      CTRL: LINKS (bit k: chip link k) and VALID
 * The first valid entry in table order that matches decides the route (a TCAM's priority
 * encoder). A packet from a PE without a match is dropped and counted; a packet from chip link
 * k without a match leaves on the opposite link (default routing). */
#ifndef NMSIM_HW_S2_ROUTER_REGS_H
#define NMSIM_HW_S2_ROUTER_REGS_H
#include "nmsim/hw/regdef.h"
#include "nmsim/hw/spinnaker2/noc_map.h"

#define S2_ROUTER_REGS(X)                                                                        \
    X(N_ENTRIES, 0x00u, NM_RO, 16384u, "routing-table entries (the table window holds as many)") \
    X(CLEAR, 0x04u, NM_WO, 0x0u, "TABLE invalidates every entry, COUNTERS zeroes the counters")  \
    X(VALID_ENTRIES, 0x08u, NM_RO, 0x0u, "entries whose VALID bit is set")                       \
    X(RECEIVED, 0x10u, NM_RO, 0x0u, "packets taken into the input queue (from PEs and links)")   \
    X(ROUTED, 0x14u, NM_RO, 0x0u, "packets that matched a table entry")                          \
    X(DEFAULT_ROUTED, 0x18u, NM_RO, 0x0u,                                                        \
      "packets from a link without a match, sent on to the opposite link")                       \
    X(DELIVERED, 0x1Cu, NM_RO, 0x0u, "copies delivered to PEs (one per destination PE)")         \
    X(DROPPED_NO_ROUTE, 0x20u, NM_RO, 0x0u, "packets from PEs that matched no entry (dropped)")  \
    X(DROPPED_TIMEOUT, 0x24u, NM_RO, 0x0u,                                                       \
      "packets of which copies were dropped after the wait time")                                \
    X(DROPPED_COPIES, 0x28u, NM_RO, 0x0u,                                                        \
      "copies (to a PE or a link) dropped after the wait time")                                  \
    X(DROPPED_INPUT, 0x2Cu, NM_RO, 0x0u,                                                         \
      "packets without a reserved slot that found the input queue full (dropped)")               \
    X(MAX_QUEUE, 0x30u, NM_RO, 0x0u, "largest input-queue occupancy seen (packets)")             \
    X(LAST_DROP_KEY, 0x34u, NM_RO, 0x0u, "key of the last dropped packet")                       \
    X(LINK_SENT0, 0x40u, NM_RO, 0x0u, "packets sent on chip link 0 (east)")                      \
    X(LINK_SENT1, 0x44u, NM_RO, 0x0u, "packets sent on chip link 1 (north-east)")                \
    X(LINK_SENT2, 0x48u, NM_RO, 0x0u, "packets sent on chip link 2 (north)")                     \
    X(LINK_SENT3, 0x4Cu, NM_RO, 0x0u, "packets sent on chip link 3 (west)")                      \
    X(LINK_SENT4, 0x50u, NM_RO, 0x0u, "packets sent on chip link 4 (south-west)")                \
    X(LINK_SENT5, 0x54u, NM_RO, 0x0u, "packets sent on chip link 5 (south)")

#define S2_ROUTER_CLEAR_TABLE_SHIFT 0
#define S2_ROUTER_CLEAR_TABLE_WIDTH 1
#define S2_ROUTER_CLEAR_COUNTERS_SHIFT 1
#define S2_ROUTER_CLEAR_COUNTERS_WIDTH 1

#define S2_ROUTER_REGS_WINDOW 0x100u
#define S2_ROUTER_MC_IN_OFFSET 0x1000u /* one S2_MC_PKT_BYTES write per packet */
#define S2_ROUTER_MC_IN_WINDOW 0x10u
#define S2_ROUTER_TABLE_OFFSET 0x80000u
#define S2_ROUTER_MAX_ENTRIES 16384u /* the table window's size */

#define S2_ROUTER_ENTRY_BYTES 32u
#define S2_ROUTER_ENTRY_WORDS 8u
#define S2_ROUTER_ENTRY_KEY 0u /* word indices inside an entry */
#define S2_ROUTER_ENTRY_MASK 1u
#define S2_ROUTER_ENTRY_ROUTE0 2u
#define S2_ROUTER_ENTRY_ROUTE_WORDS 5u
#define S2_ROUTER_ENTRY_CTRL 7u
#define S2_ROUTER_ENTRY_CTRL_LINKS_SHIFT 0
#define S2_ROUTER_ENTRY_CTRL_LINKS_WIDTH 6
#define S2_ROUTER_ENTRY_CTRL_VALID_SHIFT 31
#define S2_ROUTER_ENTRY_CTRL_VALID_WIDTH 1

/* Chip links, numbered as on SpiNNaker (a hexagonal grid of chips). */
#define S2_ROUTER_N_LINKS 6u
#define S2_ROUTER_LINK_E 0u
#define S2_ROUTER_LINK_NE 1u
#define S2_ROUTER_LINK_N 2u
#define S2_ROUTER_LINK_W 3u
#define S2_ROUTER_LINK_SW 4u
#define S2_ROUTER_LINK_S 5u

/* The link a packet from link `k` leaves on under default routing (straight through). */
static inline uint32_t s2_router_opposite_link(uint32_t k) { return (k + 3u) % S2_ROUTER_N_LINKS; }

/* Global address of word 0 of routing-table entry `index`. */
static inline uint32_t s2_router_entry_addr(uint32_t index) {
    return S2_ROUTER_GLOBAL_BASE + S2_ROUTER_TABLE_OFFSET + index * S2_ROUTER_ENTRY_BYTES;
}

/* register offsets: S2_ROUTER_<REG> */
#define S2_ROUTER_OFFSET_(name, off, acc, rst, doc) S2_ROUTER_##name = off,
enum { S2_ROUTER_REGS(S2_ROUTER_OFFSET_) };

#endif
