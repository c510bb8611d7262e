// Trace tables of the hagen workload (traces/README.md, "Hagen tables"): the plan's tiles and,
// per output column, how the chip's results deviate from the integer reference (the fixed
// pattern shows as a per-column mean, the trial-to-trial noise as the spread).
#pragma once

#include <cstdint>

#include "nmsim/trace/sink.h"

namespace nmsim::workloads::hagen {

struct TileRecord {
    uint32_t chip, half, pass;
    uint32_t row0, rows, col0, cols;
};
NMSIM_TRACE_TABLE(TileRecord, "hagen/tiles",
                  "the product's tiles: weight block and where it ran (chip, half, pass)",
                  NMSIM_COL(TileRecord, chip, "1", "chip index"),
                  NMSIM_COL(TileRecord, half, "1", "chip half (synapse array, hemisphere)"),
                  NMSIM_COL(TileRecord, pass, "1", "configuration pass of that half"),
                  NMSIM_COL(TileRecord, row0, "1", "first weight row (input)"),
                  NMSIM_COL(TileRecord, rows, "1", "weight rows (signed inputs, <= 128)"),
                  NMSIM_COL(TileRecord, col0, "1", "first weight column (output)"),
                  NMSIM_COL(TileRecord, cols, "1", "weight columns (outputs, <= 256)"));

struct ColumnRecord {
    double mean_error_lsb;  // mean over the batch of y - reference
    double std_error_lsb;   // standard deviation over the batch
    uint32_t column;
    uint32_t max_abs_error_lsb;
};
NMSIM_TRACE_TABLE(ColumnRecord, "hagen/columns",
                  "per output column: the chip's results against the integer reference",
                  NMSIM_COL(ColumnRecord, mean_error_lsb, "LSB", "mean of y - reference"),
                  NMSIM_COL(ColumnRecord, std_error_lsb, "LSB",
                            "standard deviation of y - reference"),
                  NMSIM_COL(ColumnRecord, column, "1", "output column"),
                  NMSIM_COL(ColumnRecord, max_abs_error_lsb, "LSB", "largest |y - reference|"));

}  // namespace nmsim::workloads::hagen
