// Tiling: partitions each layer's outputs into equal tiles over worker PEs so that one part of a
// tile fits the usable PE SRAM, and picks the worker count with a documented cost model (seed 000
// sec. II: "equally sized tiles ... with an automated design space exploration"). Plain C++: no
// SystemC, no models (docs/architecture.md, principle 6); the MLA cycle formula of
// models/spinnaker2/mla/mla.h is re-derived here from its documentation. See docs/compiler.md,
// "Tiling".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tools/compiler/graph.h"

namespace nmsim::compiler {

// What the layers are tiled for. The cost-model constants are first guesses, to be calibrated
// (issue 3 calibration).
struct TilingTarget {
    uint32_t max_workers = 1;              // worker PEs available to one layer
    uint64_t sram_budget_bytes = 0;        // usable SRAM per worker for one part's regions
    uint32_t mla_rows = 4, mla_cols = 16;  // MLA array: output rows x columns per MLA tile
    uint32_t align = 16;                   // every SRAM region starts and ends on this (DMA rule)
    uint32_t max_parts = 64;               // sequential parts per worker at most
    // Cost model (est_cost in seconds):
    //   dram  = bytes moved between DRAM and all workers / dram_bytes_per_s  (one shared DRAM)
    //   mla   = MLA cycles of one worker (all its parts) / clock_hz          (workers in parallel)
    //   cost  = dram + mla + workers * worker_overhead_s + parts * part_overhead_s
    // (the scheduler triggers and collects workers one by one; parts run in parallel)
    double clock_hz = 150e6;          // PE clock: facts A2, 150 MHz at 0.5 V; to be calibrated
    double dram_bytes_per_s = 1.6e9;  // "DRAM BW 16 B * 100 MHz" [SW] (facts A4); to be calibrated
    uint32_t mla_fetch_bytes_per_cycle = 6;       // as MlaParams::fetch_bytes_per_cycle
    uint32_t mla_writeback_bytes_per_cycle = 16;  // as MlaParams::writeback_bytes_per_cycle
    uint32_t mla_startup_cycles = 16;             // as MlaParams::startup_cycles
    double worker_overhead_s = 1e-6;  // assumed: trigger + completion signal per worker; calibrate
    double part_overhead_s = 2e-6;    // assumed: DMA set-up and MLA start per part; calibrate
};

// The tiling of one layer. Worker i owns outputs [i*tile_n, min(N, (i+1)*tile_n)); the last
// tiles are padded (zero weights) up to tile_n so all tiles are equal. A worker runs its tile in
// `parts` sequential parts of at most `part_n` outputs each.
struct LayerTiling {
    std::string layer;
    uint32_t workers = 0;         // 0 for graph input/output layers (no computation)
    uint64_t outputs = 0;         // N: linear columns, conv2d output channels, or the unit count of
                                  // a weightless layer (see docs)
    uint32_t tile_n = 0;          // outputs per worker
    uint32_t parts = 0;           // sequential parts per worker
    uint32_t part_n = 0;          // outputs per part (the last part may be smaller)
    uint64_t padded_outputs = 0;  // workers * tile_n - outputs
    uint64_t bytes_per_worker = 0;  // SRAM of the largest part: weights+bias+input+output, aligned
    uint64_t mla_cycles = 0;        // per worker, all parts
    uint64_t dram_bytes = 0;        // all workers
    double est_cost = 0;            // seconds, see TilingTarget
    std::string why;
};

// MLA cycles of one GEMM (M rows, K depth, N columns; int8 operands and output, with bias), as
// documented in models/spinnaker2/mla/mla.h.
uint64_t mla_gemm_cycles(uint64_t m, uint64_t k, uint64_t n, const TilingTarget& t);

// Tiles one layer. Throws CompileError naming the layer and the resource when no candidate fits.
LayerTiling tile_layer(const Layer& layer, const TilingTarget& target);

// Tiles every layer, in graph order; errors are prefixed with graph.source.
std::vector<LayerTiling> tile_graph(const Graph& graph, const TilingTarget& target);

std::ostream& operator<<(std::ostream& os, const LayerTiling& t);

}  // namespace nmsim::compiler
