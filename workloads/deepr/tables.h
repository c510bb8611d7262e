// Trace tables of the deepr workload (traces/README.md, "DEEP R tables"): one row per training
// iteration and PE, as the firmware recorded it, and one row per PE with its memory footprint.
#pragma once

#include <cstdint>

#include "nmsim/trace/sink.h"

namespace nmsim::workloads::deepr {

struct IterationRecord {
    uint32_t iteration;
    uint32_t cell;  // 0 (one PE) or the checkerboard cell 2a + b
    uint32_t label;
    uint32_t pred;      // the PE owning the output (cell 0); 0 elsewhere
    uint32_t cycles;    // the iteration on this PE (PE clock, waiting included)
    uint32_t deleted;   // connections deleted by this iteration's rewiring, all blocks
    uint32_t inserted;  // connections inserted
};
NMSIM_TRACE_TABLE(
    IterationRecord, "deepr/iterations", "per training iteration and PE, as recorded on the chip",
    NMSIM_COL(IterationRecord, iteration, "1", "training iteration (0-based)"),
    NMSIM_COL(IterationRecord, cell, "1", "PE's cell: 0 for one PE, 2a + b in the checkerboard"),
    NMSIM_COL(IterationRecord, label, "1", "the image's label"),
    NMSIM_COL(IterationRecord, pred, "1", "predicted class before the update (cell 0)"),
    NMSIM_COL(IterationRecord, cycles, "cycles", "the iteration's PE clock cycles"),
    NMSIM_COL(IterationRecord, deleted, "1", "connections deleted at this iteration's rewiring"),
    NMSIM_COL(IterationRecord, inserted, "1", "connections inserted at this iteration's rewiring"));

struct PeMemoryRecord {
    uint32_t pe;
    uint32_t cell;
    uint32_t weight_bytes;     // rows, columns, amplitudes, sign bits of the three blocks
    uint32_t vector_bytes;     // activations, errors, receive buffers, image staging
    uint32_t temporary_bytes;  // the rewiring's new entries, the record staging
    uint32_t data_bytes;       // everything in the data memory incl. configuration and stack
};
NMSIM_TRACE_TABLE(PeMemoryRecord, "deepr/memory",
                  "per PE: data memory use by category (seed 003 Fig. 8)",
                  NMSIM_COL(PeMemoryRecord, pe, "1", "global PE index"),
                  NMSIM_COL(PeMemoryRecord, cell, "1", "checkerboard cell (0 for one PE)"),
                  NMSIM_COL(PeMemoryRecord, weight_bytes, "B", "the sparse weight matrices"),
                  NMSIM_COL(PeMemoryRecord, vector_bytes, "B", "activity and error vectors"),
                  NMSIM_COL(PeMemoryRecord, temporary_bytes, "B", "rewiring and record staging"),
                  NMSIM_COL(PeMemoryRecord, data_bytes, "B",
                            "data memory used (configuration, counters and stack included)"));

}  // namespace nmsim::workloads::deepr
