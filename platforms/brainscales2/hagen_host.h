// The host computer's share of a hagen-mode product (issue 15 item 3; seed 002 Fig. 2, seed 004
// sec. 5.2 and 5.5): converting tensors to the chip's formats, encoding playback programs into
// UT messages, decoding the responses and converting the results back. Rates measured in seed
// 004 on an AMD Epyc 7402P; each stage's time is its item count over its rate. The executor
// adds these times to its host threads so they appear in simulated time and overlap with other
// chips' execution. docs/bss2_hagen.md, "The host".
#pragma once

#include <cstdint>
#include <vector>

#include "models/common/param.h"

namespace nmsim::bss2 {

struct HagenHostParams {
    NMSIM_PARAMSET(HagenHostParams);
    NMSIM_PARAM(double, encode_write_hz, 38.1e6, "1/s", nmsim::range(1, 1e12),
                "Omnibus-write and spike instructions encoded into UT messages per second",
                "seed 004 sec. 5.2.1: lola encodes 38.1 MHz of write messages");
    NMSIM_PARAM(double, encode_read_hz, 19.8e6, "1/s", nmsim::range(1, 1e12),
                "read instructions encoded per second",
                "seed 004 sec. 5.2.1: lola encodes 19.8 MHz of read messages");
    NMSIM_PARAM(double, decode_hz, 20.9e6, "1/s", nmsim::range(1, 1e12),
                "response messages decoded per second",
                "seed 004 sec. 5.2.2: lola decodes 20.9 MHz (167.2 MB/s)");
    NMSIM_PARAM(double, input_convert_hz, 162e6, "1/s", nmsim::range(1, 1e12),
                "input values converted from float to the 5-bit activation format per second",
                "seed 004 sec. 5.5.1: float -> UInt5 at a median 162 MHz");
    NMSIM_PARAM(double, weight_convert_hz, 155e6, "1/s", nmsim::range(1, 1e12),
                "weights converted from float to the 6-bit signed format per second",
                "seed 004 sec. 5.5.1: float -> weight at a median 155 MHz");
    NMSIM_PARAM(double, output_convert_hz, 276e6, "1/s", nmsim::range(1, 1e12),
                "results converted from int8 to float per second",
                "seed 004 sec. 5.5.1: int8 -> float at a median 276 MHz");
    NMSIM_PARAM(double, graph_vertex_s, 41e-6, "s", nmsim::range(0, 1),
                "graph construction per vertex of the product's signal-flow graph",
                "calibrated on one number: seed 004 Fig. 5.20 spends 35 us per recording on "
                "conversion and graph construction in minibatches of 1000 (35 ms per minibatch "
                "of a three-operator model, about 11.7 ms per operator graph); nmsim's graph of a "
                "full-chip product has 285 vertices -> 41 us per vertex (seed 004 Fig. 5.8: "
                "constant per vertex up to 1e4 vertices; its absolute times are not in the text)");
    NMSIM_PARAM(uint32_t, threads, 16, "1", nmsim::range(1, 1024),
                "host worker threads shared by the chips' encoding and decoding stages",
                "seed 004 sec. 5.3.2: the real-hardware JIT runs used an AMD Ryzen 3800X "
                "(16 threads)");
};

// What a product made the host do.
struct HagenHostWork {
    uint64_t inputs = 0, weights = 0, outputs = 0;  // tensor elements converted
    uint64_t writes = 0, reads = 0, spikes = 0;     // instructions encoded (spike packs count
                                                    // as writes: one message each)
    uint64_t responses = 0;                         // response words decoded
    uint64_t vertices = 0;                          // signal-flow graph vertices built
};

// Seconds per stage (seed 002 Fig. 2's categories, host side).
struct HagenHostTime {
    double graph_s = 0;        // building the product's signal-flow graph
    double preprocess_s = 0;   // tensor conversion to the chip's formats
    double encode_s = 0;       // building the playback programs' messages
    double decode_s = 0;       // parsing the responses
    double postprocess_s = 0;  // results to float
    double total() const { return graph_s + preprocess_s + encode_s + decode_s + postprocess_s; }
};

HagenHostTime host_time(const HagenHostWork& w, const HagenHostParams& p);

// Counts a playback program's instructions by kind into `w` (WRITE and SPIKES as writes, READ as
// reads) and its responses.
void count_program(const std::vector<uint64_t>& program, HagenHostWork& w);
void count_responses(const std::vector<uint64_t>& responses, HagenHostWork& w);

}  // namespace nmsim::bss2
