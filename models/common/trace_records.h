// Event records emitted by processing-element models, one table per event kind. Column order is
// the struct's field order; times are integer picoseconds; `component` indexes /lut/components.
#pragma once

#include <cstddef>
#include <cstdint>

#include "nmsim/trace/sink.h"

namespace nmsim {

struct MlaOpRecord {
    uint64_t t_start_ps;
    uint64_t t_end_ps;
    uint64_t macs;    // useful multiply-accumulates (M*N*K)
    uint64_t cycles;  // MLA clock cycles including start-up and write-back
    uint32_t m, k, n;
    uint16_t component;
    uint16_t flags;  // S2_MLA_CTRL bits 4..12 >> 4 (signedness, in16, out prec, relu, acc, bias)
    uint8_t mode;    // 0 matmul, 1 conv2d
    uint8_t pad_[7];
};
NMSIM_TRACE_TABLE(MlaOpRecord, "events/mla_ops", "MAC-array operations (start to completion)",
                  NMSIM_COL(MlaOpRecord, t_start_ps, "ps", "start (START written)"),
                  NMSIM_COL(MlaOpRecord, t_end_ps, "ps", "completion (DONE set)"),
                  NMSIM_COL(MlaOpRecord, macs, "1", "multiply-accumulates M*N*K"),
                  NMSIM_COL(MlaOpRecord, cycles, "cycles", "MLA clock cycles"),
                  NMSIM_COL(MlaOpRecord, m, "1", "output rows (matmul M, conv OH*OW)"),
                  NMSIM_COL(MlaOpRecord, k, "1", "inner dimension"),
                  NMSIM_COL(MlaOpRecord, n, "1", "output columns (matmul N, conv OFM_C)"),
                  NMSIM_COL(MlaOpRecord, component, "1", "component id (/lut/components)"),
                  NMSIM_COL(MlaOpRecord, flags, "1", "CTRL bits 4..12 >> 4 (a/b signed, in16, out prec, relu, acc, bias)"),
                  NMSIM_COL(MlaOpRecord, mode, "1", "0 matmul, 1 conv2d"));

struct DmaRecord {
    uint64_t t_start_ps;
    uint64_t t_end_ps;
    uint32_t src, dst, bytes;
    uint16_t component;
    uint8_t status;  // 0 ok, 1 error
    uint8_t pad_;
};
NMSIM_TRACE_TABLE(DmaRecord, "events/dma", "DMA transfers",
                  NMSIM_COL(DmaRecord, t_start_ps, "ps", "start"),
                  NMSIM_COL(DmaRecord, t_end_ps, "ps", "completion"),
                  NMSIM_COL(DmaRecord, src, "1", "source address"),
                  NMSIM_COL(DmaRecord, dst, "1", "destination address"),
                  NMSIM_COL(DmaRecord, bytes, "B", "bytes moved"),
                  NMSIM_COL(DmaRecord, component, "1", "component id"),
                  NMSIM_COL(DmaRecord, status, "1", "0 ok, 1 error"));

struct IrqRecord {
    uint64_t t_ps;
    int16_t exception;  // exception number (16 + irq for external interrupts)
    uint16_t component;
    uint8_t kind;  // 0 pended, 1 entered, 2 returned
    uint8_t pad_[3];
};
NMSIM_TRACE_TABLE(IrqRecord, "events/irq", "interrupts and exceptions: pended, entered, returned",
                  NMSIM_COL(IrqRecord, t_ps, "ps", "time"),
                  NMSIM_COL(IrqRecord, exception, "1", "exception number (16+irq for IRQs)"),
                  NMSIM_COL(IrqRecord, component, "1", "component id (the core)"),
                  NMSIM_COL(IrqRecord, kind, "1", "0 pended, 1 entered, 2 returned"));

struct SleepRecord {
    uint64_t t_start_ps;  // WFI executed
    uint64_t t_end_ps;    // woken
    uint16_t component;
    uint8_t pad_[6];
};
NMSIM_TRACE_TABLE(SleepRecord, "events/sleep", "core sleep intervals (WFI to wake-up)",
                  NMSIM_COL(SleepRecord, t_start_ps, "ps", "WFI executed"),
                  NMSIM_COL(SleepRecord, t_end_ps, "ps", "woken by an interrupt"),
                  NMSIM_COL(SleepRecord, component, "1", "component id (the core)"));

struct ConsoleRecord {
    uint64_t t_ps;
    uint16_t component;
    uint8_t continued;  // 1 if the line continues in the next row (lines longer than text)
    uint8_t pad_[5];
    char text[112];
};
NMSIM_TRACE_TABLE(ConsoleRecord, "events/console", "debug console lines written by firmware",
                  NMSIM_COL(ConsoleRecord, t_ps, "ps", "time the line ended"),
                  NMSIM_COL(ConsoleRecord, component, "1", "component id"),
                  NMSIM_COL(ConsoleRecord, continued, "1", "1 if the next row continues this line"),
                  NMSIM_STR_COL(ConsoleRecord, text, "line text (UTF-8, NUL padded)"));

struct FaultRecord {
    uint64_t t_ps;
    uint32_t pc;
    uint32_t address;
    uint16_t component;
    uint8_t cause;  // FaultCause
    uint8_t pad_[5];
};
NMSIM_TRACE_TABLE(FaultRecord, "events/faults", "processor faults (the run stops at the first)",
                  NMSIM_COL(FaultRecord, t_ps, "ps", "time"),
                  NMSIM_COL(FaultRecord, pc, "1", "program counter of the faulting instruction"),
                  NMSIM_COL(FaultRecord, address, "1", "faulting data address (0 if none)"),
                  NMSIM_COL(FaultRecord, component, "1", "component id (the core)"),
                  NMSIM_COL(FaultRecord, cause, "1", "1 bus error, 2 unmapped, 3 undefined instr., 4 hard fault, 5 lockup"));

struct RouterDropRecord {
    uint64_t t_ps;
    uint32_t key;
    uint32_t copies;  // copies lost (1 for a packet dropped whole)
    uint16_t source;  // mc_packet.h SOURCE: PE index, 0x100 + link, 0x1FF unknown
    uint16_t component;
    uint8_t reason;  // 1 no route, 2 timeout, 3 input full, 4 no such PE
    uint8_t pad_[3];
};
NMSIM_TRACE_TABLE(RouterDropRecord, "events/router_drops",
                  "multicast packets (or copies of them) the spike router dropped",
                  NMSIM_COL(RouterDropRecord, t_ps, "ps", "time of the drop"),
                  NMSIM_COL(RouterDropRecord, key, "1", "routing key"),
                  NMSIM_COL(RouterDropRecord, copies, "1",
                            "copies lost (PEs and links; 1 for a whole packet)"),
                  NMSIM_COL(RouterDropRecord, source, "1",
                            "where the packet entered: PE index, 0x100 + link, 0x1FF unknown"),
                  NMSIM_COL(RouterDropRecord, component, "1", "component id (the router)"),
                  NMSIM_COL(RouterDropRecord, reason, "1",
                            "1 no route, 2 timeout (wait_time), 3 input queue full, 4 no such PE"));

struct RouterLinkRecord {
    uint64_t t_ps;  // the packet has left (end of serialisation)
    uint32_t key;
    uint32_t payload;
    uint16_t component;
    uint8_t link;
    uint8_t has_payload;
    uint8_t pad_[4];
};
NMSIM_TRACE_TABLE(RouterLinkRecord, "events/router_links",
                  "multicast packets sent on the spike router's chip links",
                  NMSIM_COL(RouterLinkRecord, t_ps, "ps", "the last bit has left the link"),
                  NMSIM_COL(RouterLinkRecord, key, "1", "routing key"),
                  NMSIM_COL(RouterLinkRecord, payload, "1", "payload (0 without one)"),
                  NMSIM_COL(RouterLinkRecord, component, "1", "component id (the router)"),
                  NMSIM_COL(RouterLinkRecord, link, "1", "chip link 0..5 (E, NE, N, W, SW, S)"),
                  NMSIM_COL(RouterLinkRecord, has_payload, "1",
                            "1 if the packet carries a payload"));

struct RouterPacketRecord {
    uint64_t t_arrive_ps;  // joined the input queue
    uint64_t t_start_ps;   // an engine took it
    uint64_t t_done_ps;    // its last copy was issued or dropped
    uint32_t key;
    uint16_t source;
    uint16_t pe_copies;  // copies issued to PEs
    uint16_t component;
    uint8_t links;  // links it was sent on (bit k: link k)
    uint8_t flags;  // bit 0 payload, 1 default routed, 2 no route, 3 copies dropped
    uint8_t pad_[4];
};
NMSIM_TRACE_TABLE(RouterPacketRecord, "events/router_packets",
                  "packets through the spike router (only with router.trace_packets)",
                  NMSIM_COL(RouterPacketRecord, t_arrive_ps, "ps", "joined the input queue"),
                  NMSIM_COL(RouterPacketRecord, t_start_ps, "ps", "an engine took it"),
                  NMSIM_COL(RouterPacketRecord, t_done_ps, "ps",
                            "its last copy was issued or dropped"),
                  NMSIM_COL(RouterPacketRecord, key, "1", "routing key"),
                  NMSIM_COL(RouterPacketRecord, source, "1",
                            "PE index, 0x100 + link, 0x1FF unknown"),
                  NMSIM_COL(RouterPacketRecord, pe_copies, "1", "copies issued to PEs"),
                  NMSIM_COL(RouterPacketRecord, component, "1", "component id (the router)"),
                  NMSIM_COL(RouterPacketRecord, links, "1", "links it was sent on (bit k: link k)"),
                  NMSIM_COL(RouterPacketRecord, flags, "1",
                            "bit 0 payload, 1 default routed, 2 no route, 3 copies dropped"));

}  // namespace nmsim
