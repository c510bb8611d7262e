// Event connections between the BrainScaleS-2 routing models. Events pass by plain synchronous
// calls carrying their time in integer picoseconds (docs/bss2_routing.md); a model's downstream
// connections are std::function sinks bound at elaboration.
#pragma once

#include <cstdint>
#include <functional>

namespace nmsim::bss2 {

// A crossbar-level event: a 14-bit label (or a 16-bit L2 event) at time t_ps.
using EventSink = std::function<void(uint32_t label, uint64_t t_ps)>;

}  // namespace nmsim::bss2
