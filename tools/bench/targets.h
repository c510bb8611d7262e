// The speed targets of `nmsim bench` (issue 17): each benchmark that measures one records its
// figure here, and the bench ends with a table of all of them next to their targets. Measured on
// one host core with every check on; a target not met is printed with its distance, not hidden.
#pragma once

#include <ostream>

namespace nmsim::bench {

struct SpeedFigures {
    // < 0: not measured in this invocation (another platform, or the benchmark failed).
    double mlp_ms_per_inference = -1;     // seed 000 MLP, wall per inference, start-up apart
    double cnn_ms_per_inference = -1;     // the CNN scenario, likewise
    double bss2_s_per_ms = -1;            // BSS-2 512 neurons, 1 ms at 30 kHz inputs, wall seconds
    double snn_serial_events_per_s = -1;  // SpiNNaker2 serial paradigm, synaptic events/wall s
};

void print_targets(const SpeedFigures& f, std::ostream& out);

}  // namespace nmsim::bench
