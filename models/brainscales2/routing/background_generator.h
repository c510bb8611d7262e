// One of the eight BrainScaleS-2 on-chip background event generators (seed 004 Fig. 3.2 and
// Table 3.2: "regular or Poisson spike source (configurable)"; docs/hardware_facts.md B4).
// Generator i feeds crossbar input BSS2_XIN_BG(i).
//
// Timing: the generator runs on its own clock (125 MHz: 8 x 125 MEvent/s in B4). Enabling it
// (CFG written with the enable bit) at time t_w starts it at the first clock edge strictly after
// t_w, E = (floor(t_w / P) + 1) P with P the clock period; from there time is divided into bins
// of `period` cycles and events leave at the bin ends E + k * period * P (k = 1, 2, ...):
//   - regular: at every bin end;
//   - Poisson (binned, as haldls describes it): at each bin end with probability rate / 256. The
//     model draws the geometric number of bins to the next event directly instead of testing
//     every bin, so a sparse generator costs one SystemC wake-up per event.
// Each event's label is (LABEL & ~mask) | (random8 & mask): the 8-bit mask randomises low label
// bits. Writing CFG without enable stops the generator at once; writing any word while it runs
// restarts it with the new settings at the next clock edge. The random stream is seeded from
// (seed, index) and continues across restarts, so a run is reproducible.
//
// Configuration (offsets relative to BSS2_BG(i)): BSS2_BG_CFG (bit 0 enable, bit 1 Poisson),
// BSS2_BG_PERIOD (bits 15:0, >= 1 when enabled), BSS2_BG_RATE (bits 7:0 rate, 15:8 label mask),
// BSS2_BG_LABEL (bits 13:0).
#pragma once

#include <systemc>

#include <cstdint>
#include <random>
#include <string>

#include "models/brainscales2/routing/event_sink.h"
#include "models/common/param.h"
#include "nmsim/trace/sink.h"

namespace nmsim::bss2 {

struct BackgroundParams {
    NMSIM_PARAMSET(BackgroundParams);
    NMSIM_PARAM(nmsim::Frequency, clock, nmsim::Frequency::from_mhz(125), "",
                nmsim::range(1e3, 1e10), "background generator clock (one period count per cycle)",
                "hardware_facts.md B4: total bandwidth 8 x 125 MEvent/s (bss2-demos, haldls)");
};

class BackgroundGenerator : public sc_core::sc_module {
public:
    SC_HAS_PROCESS(BackgroundGenerator);
    BackgroundGenerator(sc_core::sc_module_name name, uint32_t index,
                        const BackgroundParams& params = BackgroundParams{}, uint64_t seed = 1);

    bool write_config(uint32_t offset, uint32_t data, std::string* error);
    bool read_config(uint32_t offset, uint32_t* data, std::string* error) const;

    // Receives (label14, t_ps); bind Crossbar::input_sink(BSS2_XIN_BG(index)).
    void bind_output(EventSink sink) { m_sink = std::move(sink); }

    uint32_t index() const { return m_index; }
    bool running() const { return m_running; }
    uint64_t events() const { return m_events; }
    void write_summary(nmsim::trace::Sink& sink, nmsim::trace::ComponentId c) const;

private:
    void run();
    void restart();
    uint64_t draw_gap();  // bins to the next event (>= 1); 0 = never

    BackgroundParams m_params;
    uint32_t m_index;
    uint64_t m_clock_ps;
    std::mt19937_64 m_rng;
    uint32_t m_cfg = 0, m_period = 0, m_rate = 0, m_label = 0;
    EventSink m_sink;
    sc_core::sc_event m_wake;
    bool m_running = false;
    uint64_t m_generation = 0;  // bumped by every configuration change
    uint64_t m_start_ps = 0;    // the clock edge the generator started at
    uint64_t m_next_bin = 0;    // bin index of the next event (0 = none)
    uint64_t m_events = 0, m_unbound = 0;
};

}  // namespace nmsim::bss2
