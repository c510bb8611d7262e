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

// What the layers are tiled for. The cost model (est_cost) follows the firmware of
// firmware/programs/dnn step by step; workloads/dnn/compile.cpp sets the hardware constants from
// the platform parameters, the firmware constants are calibrated (docs/compiler.md, "Cost model").
struct TilingTarget {
    uint32_t max_workers = 1;              // worker PEs available to one layer
    uint64_t sram_budget_bytes = 0;        // usable SRAM per worker for one part's regions
    uint32_t mla_rows = 4, mla_cols = 16;  // MLA array: output rows x columns per MLA tile
    uint32_t align = 16;                   // every SRAM region starts and ends on this (DMA rule)
    uint32_t max_parts = 64;               // sequential parts per worker at most
    // Hardware (platform parameters; the defaults are the spinnaker2_chip defaults at level 1).
    double clock_hz = 300e6;                      // pe.clock()
    uint32_t mla_fetch_bytes_per_cycle = 6;       // pe.mla.fetch_bytes_per_cycle
    uint32_t mla_writeback_bytes_per_cycle = 16;  // pe.mla.writeback_bytes_per_cycle
    uint32_t mla_startup_cycles = 16;             // pe.mla.startup_cycles
    uint32_t dma_setup_cycles = 3500;             // pe.dma.setup_cycles: per transfer
    uint32_t dma_burst_bytes = 64;                // pe.dma.burst_bytes
    double dma_burst_s = 200e-9;        // one burst of a transfer running alone (DRAM + NoC)
    double dram_conflict_s = 37.5e-9;   // added per burst while other workers stream (row miss)
    double dram_bytes_per_s = 3.2e9;    // dram.bandwidth * dram.efficiency: shared by all workers
    double ext_access_s = 425e-9;       // a core load/store off the PE (core_ext_latency + NoC)
    double noc_hops = 4;                // mean NoC path of a worker's DRAM access (calibrated)
    uint32_t worker_config_words = 35;  // words of s2_dnn_worker_t a worker loads
    uint32_t row_config_words = 4;      // and in addition for a conv2d or pool split by rows
    uint32_t layer_header_words = 8;    // words of s2_dnn_layer_t the scheduler loads
    // Firmware cycles (calibrated, docs/compiler.md "Cost model").
    double layer_cycles = 0;        // scheduler per layer besides its core loads and stores
    double trigger_cycles = 0;      // scheduler per worker: signal, collect its answer
    double worker_cycles = 1000;    // worker per layer besides its configuration loads
    double part_cycles = 0;         // worker per part: MLA set-up, start and interrupt
    double store_word_cycles = 20;  // per output word stored by the core, beyond ext_access_s
    // The core loop of maxpool/avgpool (worker.c pool_window): per output pixel; per word of four
    // channels (maxpool) and per window element of a word; per single channel (avgpool: all of
    // them) and per window element of one.
    double pool_cycles_per_pixel = 78;
    double pool_cycles_per_word = 0;
    double pool_cycles_per_word_tap = 9.7;
    double pool_cycles_per_channel = 22;
    double pool_cycles_per_tap = 7.4;
    double add_cycles_per_element = 20;
    double softmax_cycles_per_element = 62;
    // The workers' SETUP (global configuration loads, the worker list by DMA) still runs when
    // the first entry of the layer list is triggered.
    uint32_t global_config_words = 16;
};

// The estimate of one layer, seconds of the scheduler's layer interval, split by phase. The
// worker phases are those of the slowest (last triggered, fullest) worker.
struct LayerCost {
    double scheduler = 0;        // header, triggering and collecting the workers, time record
    double config = 0;           // the worker's configuration loads and its fixed firmware
    double dma_in = 0;           // input activations
    double dma_weights = 0;      // weights and biases, all parts
    double compute = 0;          // MLA or core loop, all parts
    double dma_out = 0;          // output write-back, all parts
    double parts = 0;            // per-part firmware
    double setup = 0;            // first entry only: the workers' SETUP still running
    uint64_t dma_transfers = 0;  // of the slowest worker
    uint64_t word_stores = 0;    // core word stores of outputs (short strided rows)
    double total() const {
        return scheduler + config + dma_in + dma_weights + compute + dma_out + parts + setup;
    }
};

// The tiling of one layer. Worker i owns outputs [i*tile_n, min(N, (i+1)*tile_n)); the last
// tiles are padded (zero weights) up to tile_n so all tiles are equal. A worker runs its tile in
// `parts` sequential parts of at most `part_n` outputs each.
// conv2d and pool layers may instead be split by output rows (split_rows): every worker computes
// all channels of its rows, so its outputs are one contiguous block of the HWC map; then
// `outputs` is out_h, `tile_n` the rows per worker, `part_n` the rows per part, and every worker
// of a conv2d reads the one copy of the whole kernel.
struct LayerTiling {
    std::string layer;
    bool split_rows = false;
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
    double est_cost = 0;            // seconds: cost.total()
    LayerCost cost;
    // est_cost of every candidate worker count (index w - 1; 0 where no part fits or a worker
    // would hold padding only).
    std::vector<double> candidates;
    std::string why;
};

// One part [y0, y1) of a conv2d or pool split by output rows, as the worker firmware runs it
// (s2_dnn_conv_rows, s2_dnn_pool_rows): input rows [r0, r0 + h); a conv2d computes out_rows rows
// of which [skip, skip + y1 - y0) are the part's, a pool exactly the part's rows. ok is false
// when the layer cannot be split by rows or the part reads no input row.
struct RowPart {
    bool ok = false;
    uint32_t r0 = 0, h = 0, skip = 0, out_rows = 0;
};
RowPart row_part(const Layer& layer, uint64_t y0, uint64_t y1);

// Bytes a channel-split pool worker reads (worker.c run_pool): the strided region from its
// first channel of the first pixel to its last of the last pixel, the other workers' channels in
// between included; 0 for no channels.
uint64_t pool_region_bytes(const Layer& layer, uint64_t channels);

// MLA cycles of one GEMM (M rows, K depth, N columns; int8 operands and output, with bias), as
// documented in models/spinnaker2/mla/mla.h.
uint64_t mla_gemm_cycles(uint64_t m, uint64_t k, uint64_t n, const TilingTarget& t);

// Estimated time of one layer tiled as `t` (workers, tile_n, parts, part_n set).
LayerCost estimate(const Layer& layer, const LayerTiling& t, const TilingTarget& target);

// Tiles one layer. Throws CompileError naming the layer and the resource when no candidate fits.
LayerTiling tile_layer(const Layer& layer, const TilingTarget& target);
// The same with exactly `workers` workers (throws CompileError when that count cannot be used).
LayerTiling tile_layer_with(const Layer& layer, const TilingTarget& target, uint32_t workers);

// Tiles every layer, in graph order; errors are prefixed with graph.source. The first layer that
// computes gets the workers' SETUP in its estimate (add_worker_setup).
std::vector<LayerTiling> tile_graph(const Graph& graph, const TilingTarget& target);

// Adds the workers' SETUP to the estimate of the first tiled layer (again after re-tiling it).
void add_worker_setup(const Graph& graph, std::vector<LayerTiling>& tiling,
                      const TilingTarget& target);

std::ostream& operator<<(std::ostream& os, const LayerTiling& t);

}  // namespace nmsim::compiler
