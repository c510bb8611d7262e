// One hagen-mode tile on the chip: its static configuration (Omnibus words) and the playback
// program of a batch of input vectors, and the decoding of the FPGA's responses into int8
// results (docs/bss2_hagen.md, "A tile on the chip"). Plain C++: no SystemC, no models.
//
// Routing: the host sends each non-zero input i of a vector as one L2 event on channel 0 whose
// 14-bit label is hemisphere << 13 | PADI bus << 11 | row select << 6 | (32 - x_i): the crossbar
// node (L2 0 -> PADI bus b of the tile's half) forwards labels with that hemisphere and bus bit
// pattern, the PADI bus passes the low 11 bits, synapse driver i (bus i % 4, static index i / 4,
// all five row-select bits compared) takes it in hagen mode and drives row 2i (inhibitory) and
// 2i + 1 (excitatory) with pulse length x_i. The program per vector follows grenade's realtime
// program of the thesis era: neuron reset, settle, baseline CADC conversion and read, reset,
// settle, the events `wait_between_events` FPGA cycles apart (`num_sends` times), settle, CADC
// conversion and read; y = clamp(after - baseline, -128, 127). The section from the events to
// the last read is run b (RUN_BEGIN b .. RUN_END), so the FPGA's timing reports it as realtime.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "tools/compiler/bss2/hagen_ops.h"

namespace nmsim::compiler::bss2::hagen {

// Route bits of an event's 14-bit label: the chip half and the PADI bus (the crossbar nodes of
// the product's graph forward on them; hagen_graph.h).
constexpr uint32_t kLabelHemiBit = 13, kLabelBusShift = 11;

struct VectorTiming {
    uint32_t num_sends = 1;            // repetitions of the vector (seed 002 sec. 3.5)
    uint32_t wait_between_events = 8;  // FPGA cycles (8 ns) between events (seed 004 List. 25)
    uint32_t settle_before_baseline = 3750;  // cycles: 30 us (grenade, v2 era)
    uint32_t settle_before_events = 125;     // 1 us
    uint32_t settle_after_events = 250;      // 2 us
    uint32_t cadc_wait = 68;                 // cycles after TRIGGER: > 540 ns conversion
    bool baseline = true;                    // read the baseline before every vector
    // v1 workaround (seed 002 sec. 4.1): rewrite the tile's synapses before every vector.
    bool rewrite_synapses = false;
};

using ConfigWord = std::pair<uint32_t, uint32_t>;  // Omnibus address, data

// Static configuration of tile `t` (weights w rows [t.row0, +t.rows) x cols [t.col0, +t.cols))
// on its chip half: the lowering of the tile's signal-flow graph (hagen_graph.h): crossbar nodes
// and PADI buses, synapse drivers, synapses, integrator neurons. `w` holds the whole operator's
// weights (range-checked).
std::vector<ConfigWord> tile_config(const Tile& t, const IntMatrix& w);

// The playback program (instruction words, ending in HALT) for the vectors x (batch x operator
// inputs; each tile's rows are used) on one tile or two tiles on different halves of a chip,
// which then share the resets, settle times, events (one message per step with both halves'
// events) and CADC conversions. `w` (the operator's weights) is read only with
// timing.rewrite_synapses. Throws OperatorError for a bad group or operands.
std::vector<uint64_t> tile_program(const std::vector<Tile>& tiles, const IntMatrix& x,
                                   const IntMatrix& w, const VectorTiming& timing);
std::vector<uint64_t> tile_program(const Tile& t, const IntMatrix& x, const IntMatrix& w,
                                   const VectorTiming& timing);

// An upper bound of the instructions tile_program writes per vector for `tiles` (executors size
// their programs with it).
uint64_t vector_program_words(const std::vector<Tile>& tiles, const VectorTiming& timing);

// Each tile's results (batch x cols) from the program's response words, in the order of
// `tiles`. Throws OperatorError if a read is missing.
std::vector<IntMatrix> tile_results(const std::vector<Tile>& tiles, uint32_t batch,
                                    const std::vector<uint64_t>& responses,
                                    const VectorTiming& timing);
IntMatrix tile_results(const Tile& t, uint32_t batch, const std::vector<uint64_t>& responses,
                       const VectorTiming& timing);

}  // namespace nmsim::compiler::bss2::hagen
