// Host-side cost of a hagen-mode product (hagen_host.h).
#include "platforms/brainscales2/hagen_host.h"

#include "nmsim/hw/brainscales2/playback.h"

namespace nmsim::bss2 {

HagenHostTime host_time(const HagenHostWork& w, const HagenHostParams& p) {
    HagenHostTime t;
    t.graph_s = double(w.vertices) * p.graph_vertex_s;
    t.preprocess_s =
        double(w.inputs) / p.input_convert_hz + double(w.weights) / p.weight_convert_hz;
    t.encode_s =
        double(w.writes + w.spikes) / p.encode_write_hz + double(w.reads) / p.encode_read_hz;
    t.decode_s = double(w.responses) / p.decode_hz;
    t.postprocess_s = double(w.outputs) / p.output_convert_hz;
    return t;
}

void count_program(const std::vector<uint64_t>& program, HagenHostWork& w) {
    for (uint64_t word : program) switch (bss2_pb_opcode(word)) {
            case BSS2_PB_WRITE:
                ++w.writes;
                break;
            case BSS2_PB_READ:
                ++w.reads;
                break;
            case BSS2_PB_SPIKES:
                ++w.spikes;
                break;
            default:
                break;
        }
}

void count_responses(const std::vector<uint64_t>& responses, HagenHostWork& w) {
    w.responses += responses.size();
}

}  // namespace nmsim::bss2
