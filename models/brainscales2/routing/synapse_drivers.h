// The 128 synapse drivers of one BrainScaleS-2 hemisphere (seed 004 section 3.1.2, Fig. 3.3;
// docs/hardware_facts.md S-B.4). Driver d listens to PADI bus d % 4 with static index d / 4 and
// drives synapse rows 2d and 2d + 1.
//
// An enabled driver accepts a PADI event iff its row-select bits (10:6) equal the driver's
// static index in every bit of its 5-bit row mask (bss2_driver_accepts). It then sends a 6-bit
// synapse label to both rows: the event's low six bits with 'lower5' on, else only bit 5 (the
// highest bit is always sent). Each row has a mode: disabled (no event), excitatory or inhibitory.
//
// Short-term plasticity (nmsim's model of the STP circuit, per driver): a Tsodyks-Markram
// depressing resource R in [0, 1], R = 1 when recovered. Between events R recovers towards 1
// with tau_rec: R(t) = 1 - (1 - R(t0)) exp(-(t - t0) / tau_rec). At an event the efficacy is
// R (normalised so that a recovered driver gives 1, like a driver without STP), then R -= U R.
// Enabling STP (the STP bit going 0 -> 1) resets R to 1. Without STP the efficacy is 1.
// The efficacy scales the pulse length and thereby the synaptic charge.
//
// Hagen mode (BSS2_SYNDRV_CFG_HAGEN, the non-spiking vector-matrix multiplication of seeds 002
// and 004): the event's low five label bits carry a 5-bit activation x as the pulse length,
// x = (32 - label[4:0]) mod 32 (grenade's MAC spike-train encoding label = 32 - x), so the
// efficacy is x (in pulse steps; x = 0 sends nothing) and the synapses compare only label bit 5.
// STP does not apply. docs/bss2_hagen.md.
//
// Configuration (offsets relative to BSS2_SYNDRV(h, 0)): driver d at d * 4 +
//   BSS2_SYNDRV_CFG (row mask, lower5, row modes, STP, enable), BSS2_SYNDRV_STP_U (bits 7:0,
//   U in 1/256), BSS2_SYNDRV_STP_TAU_REC (ns), BSS2_SYNDRV_STP_PULSE (ns, stored for the pulse
//   length of a full-efficacy event; the synapse/neuron side reads it through pulse_ns()).
#pragma once

#include <systemc>

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "models/brainscales2/routing/event_sink.h"
#include "models/common/param.h"
#include "nmsim/hw/brainscales2/bss2_map.h"
#include "nmsim/trace/sink.h"

namespace nmsim::bss2 {

struct SynapseDriverParams {
    NMSIM_PARAMSET(SynapseDriverParams);
    NMSIM_PARAM(nmsim::Time, latency, nmsim::Time::from_ns(4), "", nmsim::range(0, 1e9),
                "delay from a PADI event at a driver to the synapse rows",
                "assumed: a registered digital filter stage; not public (hardware_facts.md E)");
};

class SynapseDrivers : public sc_core::sc_module {
public:
    using RowSink = std::function<void(uint32_t row, uint32_t label6, double efficacy,
                                       bool inhibitory, uint64_t t_ps)>;

    SynapseDrivers(sc_core::sc_module_name name, uint32_t hemi,
                   const SynapseDriverParams& params = SynapseDriverParams{});

    bool write_config(uint32_t offset, uint32_t data, std::string* error);
    bool read_config(uint32_t offset, uint32_t* data, std::string* error) const;

    // A PADI event (11 bits) arriving from bus `bus` (0..3) at t_ps.
    void input(uint32_t bus, uint32_t padi11, uint64_t t_ps);
    // A sink for PadiBus::bind_output of bus `bus`.
    EventSink bus_sink(uint32_t bus);
    void bind_rows(RowSink sink) { m_rows = std::move(sink); }

    uint32_t hemi() const { return m_hemi; }
    // Pulse length of a full-efficacy event of driver d, ns (BSS2_SYNDRV_STP_PULSE).
    uint32_t pulse_ns(uint32_t driver) const { return m_drivers[driver % BSS2_DRIVERS].pulse_ns; }

    uint64_t events_in(uint32_t bus) const { return m_events_in[bus % BSS2_PADI_PER_HEMI]; }
    uint64_t unmatched() const { return m_unmatched; }          // accepted by no driver
    uint64_t driver_events() const { return m_driver_events; }  // (event, accepting driver)
    uint64_t row_events() const { return m_row_events; }
    uint64_t malformed() const { return m_malformed; }
    uint64_t hagen_pulses() const { return m_hagen_pulses; }  // (event, driver) with x > 0
    uint64_t hagen_zero() const { return m_hagen_zero; }      // hagen events with x = 0
    void write_summary(nmsim::trace::Sink& sink, nmsim::trace::ComponentId c) const;

private:
    struct Driver {
        uint32_t cfg = 0;
        uint32_t stp_u = 0;
        uint32_t tau_rec_ns = 0;
        uint32_t pulse_ns = 0;
        // STP state: R just after the last event, and that event's time.
        double r = 1.0;
        uint64_t t_last_ps = 0;
        bool has_last = false;
    };
    double efficacy(Driver& d, uint64_t t_ps);
    void rebuild_bus(uint32_t bus);
    std::string where(uint32_t driver, const char* reg) const;

    SynapseDriverParams m_params;
    uint32_t m_hemi;
    std::array<Driver, BSS2_DRIVERS> m_drivers{};
    // Per bus and row-select value: the enabled drivers that accept it (rebuilt lazily).
    std::array<std::array<std::vector<uint8_t>, 32>, BSS2_PADI_PER_HEMI> m_accept;
    std::array<bool, BSS2_PADI_PER_HEMI> m_dirty{};
    RowSink m_rows;
    std::array<uint64_t, BSS2_PADI_PER_HEMI> m_events_in{};
    uint64_t m_unmatched = 0, m_driver_events = 0, m_row_events = 0, m_malformed = 0;
    uint64_t m_unbound = 0, m_hagen_pulses = 0, m_hagen_zero = 0;
};

}  // namespace nmsim::bss2
