// Runs a hagen-mode matrix product (tools/compiler/bss2/hagen_ops.h) on simulated BrainScaleS-2
// chips (each with its FPGA): each chip runs its tiles pass by pass, a static configuration
// program and then playback programs with the batch's input vectors, both halves' tiles of a
// pass in one program (tools/compiler/bss2/hagen_program.h). The host's own work (conversions,
// encoding, decoding; hagen_host.h) takes simulated time on a pool of host threads, pipelined
// with the FPGA's execution per chip; the chips work concurrently. The host sums the row splits
// and concatenates the column splits. Call from an SC_THREAD. docs/bss2_hagen.md, "Several tiles
// and chips".
#pragma once

#include <cstdint>
#include <vector>

#include "platforms/brainscales2/chip.h"
#include "platforms/brainscales2/hagen_host.h"
#include "tools/compiler/bss2/hagen_graph.h"
#include "tools/compiler/bss2/hagen_ops.h"
#include "tools/compiler/bss2/hagen_program.h"

namespace nmsim::bss2 {

// Where the simulated time of a product went (sums over the FPGA executions; ExecutionTiming).
struct HagenTimes {
    uint64_t transfer_ps = 0;  // programs to the FPGAs and responses back (host link)
    uint64_t config_ps = 0;    // static configuration programs executed (chip link writes)
    uint64_t realtime_ps = 0;  // the vectors' realtime sections (events, integration, CADC)
    uint64_t other_ps = 0;     // the rest of the vector programs (resets, baselines, reads)
    uint64_t total_ps = 0;     // the sum of the executions (all chips)
    uint64_t wall_ps = 0;      // simulated time from the call to the result (chips overlap)
    uint64_t executions = 0;
    // The host's stages (hagen_host.h), simulated as time of the host threads.
    uint64_t host_graph_ps = 0, host_preprocess_ps = 0, host_encode_ps = 0, host_decode_ps = 0;
    uint64_t host_postprocess_ps = 0;
    uint64_t vectors = 0;  // input vectors run on tiles (batch x tiles)
    // Program words sent (8 B each): static configurations, vector programs; response words.
    uint64_t config_words = 0, vector_words = 0, response_words = 0;

    HagenTimes& operator+=(const HagenTimes& o);
    uint64_t macs = 0;  // batch x in x out (the operator's multiply-accumulates)
};

class HagenExecutor {
public:
    // The chips the plans may use (plan.chips <= chips.size()).
    explicit HagenExecutor(std::vector<Chip*> chips, const HagenHostParams& host = {})
        : m_chips(std::move(chips)), m_host(host) {}

    // y (batch x out) for x (batch x in) and w (in x out) on the plan's tiles. Throws
    // compiler::bss2::hagen::OperatorError for bad operands or a plan needing more chips.
    compiler::bss2::hagen::IntMatrix matmul(const compiler::bss2::hagen::IntMatrix& x,
                                            const compiler::bss2::hagen::IntMatrix& w,
                                            const compiler::bss2::hagen::MatmulPlan& plan,
                                            const compiler::bss2::hagen::VectorTiming& timing,
                                            HagenTimes* times = nullptr);

    // Instructions per playback program (default 8 Mi words = 64 MiB, the sequence size of seed
    // 004 sec. 5.2.4's FPGA throughput measurement): larger batches run as several programs.
    void set_max_program_words(uint64_t words) { m_max_program_words = words ? words : 1; }

    // Tile vectors whose results the host has decoded, over all products so far (progress).
    uint64_t vectors_decoded() const { return m_vectors_decoded; }

private:
    std::vector<Chip*> m_chips;
    HagenHostParams m_host;
    uint64_t m_max_program_words = uint64_t{8} << 20;
    uint64_t m_vectors_decoded = 0;
};

}  // namespace nmsim::bss2
