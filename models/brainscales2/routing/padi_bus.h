// One BrainScaleS-2 PADI bus (hemisphere h, bus b = crossbar output BSS2_XOUT_PADI(h, b)): takes
// crossbar events, narrows them to 11 bits (drops the top three label bits; seed 004 section
// 3.1.2) and broadcasts them to the 32 synapse drivers of the bus.
//
// Contention (nmsim's model; the seed disregards congestion): the bus carries at most one event
// per min_interval. An event arriving at t starts at s = max(t, busy_until). Events wait in a
// FIFO of fifo_depth entries: if s - t > fifo_depth * min_interval the FIFO is full and the event
// is DROPPED (counted, optional trace row); otherwise busy_until = s + min_interval and the
// drivers receive the event at s + latency. A burst of N simultaneous events therefore delivers
// min(N, fifo_depth + 1) events spaced by min_interval and drops the rest.
// A disabled bus (the reset state) forwards nothing; its events count as 'disabled'.
//
// Configuration (offset relative to BSS2_PADI(h, b)): +0 bit 0 enable.
#pragma once

#include <systemc>

#include <cstdint>
#include <functional>
#include <string>

#include "models/brainscales2/routing/event_sink.h"
#include "models/common/param.h"
#include "nmsim/trace/sink.h"

namespace nmsim::bss2 {

struct PadiBusParams {
    NMSIM_PARAMSET(PadiBusParams);
    NMSIM_PARAM(nmsim::Time, min_interval, nmsim::Time::from_ns(8), "", nmsim::range(1, 1e9),
                "minimum time between two events on one PADI bus (1 / maximum event rate)",
                "hardware_facts.md B5: input events 'up to 125 MHz' (8 ns)");
    NMSIM_PARAM(uint32_t, fifo_depth, 16, "events", nmsim::range(0, 1 << 20),
                "events that may wait for the bus besides the one being sent; more are dropped",
                "assumed: the public sources give no buffer depth (hardware_facts.md E); "
                "a small hardware FIFO");
    NMSIM_PARAM(nmsim::Time, latency, nmsim::Time::from_ns(4), "", nmsim::range(0, 1e9),
                "delay from the start of an event on the bus to its arrival at the drivers",
                "assumed: one or two digital clock cycles; not public (hardware_facts.md E)");
};

// A PADI event dropped because the bus FIFO was full.
struct PadiDropRecord {
    uint64_t t_ps;  // arrival time at the bus
    uint16_t component;
    uint16_t label;  // 14-bit crossbar label
    uint8_t hemi;
    uint8_t bus;
    uint8_t pad_[2];
};
NMSIM_TRACE_TABLE(PadiDropRecord, "events/bss2_padi_drops",
                  "BrainScaleS-2 events dropped at a full PADI bus FIFO",
                  NMSIM_COL(PadiDropRecord, t_ps, "ps", "arrival time at the bus"),
                  NMSIM_COL(PadiDropRecord, component, "1", "component id (the PADI bus)"),
                  NMSIM_COL(PadiDropRecord, label, "1", "14-bit crossbar label"),
                  NMSIM_COL(PadiDropRecord, hemi, "1", "hemisphere (0 top, 1 bottom)"),
                  NMSIM_COL(PadiDropRecord, bus, "1", "PADI bus in the hemisphere (0..3)"));

class PadiBus : public sc_core::sc_module {
public:
    PadiBus(sc_core::sc_module_name name, uint32_t hemi, uint32_t bus,
            const PadiBusParams& params = PadiBusParams{});

    bool write_config(uint32_t offset, uint32_t data, std::string* error);
    bool read_config(uint32_t offset, uint32_t* data, std::string* error) const;
    bool enabled() const { return m_enabled; }

    // A crossbar event (14-bit label) arriving at t_ps.
    void input(uint32_t label14, uint64_t t_ps);
    // Receives (padi11, t_ps); bind SynapseDrivers::bus_sink(bus).
    void bind_output(EventSink sink) { m_sink = std::move(sink); }
    EventSink input_sink() {
        return [this](uint32_t label, uint64_t t_ps) { input(label, t_ps); };
    }

    // nullptr (the default) = no drop table.
    void attach_trace(nmsim::trace::Sink* sink);

    uint32_t hemi() const { return m_hemi; }
    uint32_t bus() const { return m_bus; }
    uint64_t events() const { return m_events; }  // sent on the bus
    uint64_t drops() const { return m_drops; }
    uint64_t disabled_events() const { return m_disabled; }
    uint64_t max_delay_ps() const { return m_max_delay_ps; }  // queueing delay s - t
    uint64_t sum_delay_ps() const { return m_sum_delay_ps; }
    uint64_t busy_until_ps() const { return m_busy_until; }
    void write_summary(nmsim::trace::Sink& sink, nmsim::trace::ComponentId c) const;

private:
    PadiBusParams m_params;
    uint32_t m_hemi, m_bus;
    bool m_enabled = false;
    EventSink m_sink;
    uint64_t m_busy_until = 0;
    uint64_t m_events = 0, m_drops = 0, m_disabled = 0, m_unbound = 0, m_malformed = 0;
    uint64_t m_max_delay_ps = 0, m_sum_delay_ps = 0;
    nmsim::trace::Sink* m_trace = nullptr;
    nmsim::trace::TableId m_drop_table = -1;
    nmsim::trace::ComponentId m_component = 0;
};

}  // namespace nmsim::bss2
