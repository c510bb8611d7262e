// Energy accounting: energy = events x energy per event + power x time in a power state, per
// component and per phase of a run.
//
// Models only count (cumulative counters they keep anyway for their summaries) and know their
// power state; a platform's energy description (platforms/<chip>/energy.*) registers, for each
// component, which counters cost how many joules per unit and which power states draw how many
// watts. The host program marks phase boundaries (a DNN layer, a BrainScaleS-2 run); at each
// boundary the meter reads every counter and state clock once, so a phase is charged exactly
// the events and state time between its two boundaries. Reading happens only at boundaries:
// the models' hot paths stay untouched (the Accelergy/McPAT split of action counts and
// per-action energies, done at phase granularity like gem5's stats dumps).
//
// Phases that recur (the same layer in every inference) accumulate into one phase of that name.
// Cores run ahead of the kernel by up to their quantum (temporal decoupling), so a core's counts
// at a boundary may include up to one quantum of the next phase; the totals are exact.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "nmsim/trace/sink.h"

namespace nmsim::energy {

// One line of a breakdown: a component's dynamic events or its time in a power state, in a phase.
struct Row {
    std::string component;
    std::string phase;
    bool is_static = false;  // static: `count` is seconds in a power state
    std::string quantity;    // "macs", "dram_bytes", "time:active@PL1", ...
    double count = 0.0;
    double energy_j = 0.0;
};

class Meter {
public:
    using Counter = std::function<double()>;  // cumulative count since the run began
    using StateClock = std::function<double(uint64_t t_ps)>;  // cumulative seconds in a state at t

    // A dynamic quantity: the phase's energy is delta(counter) * joules_per_unit.
    void add_events(const std::string& component, const std::string& quantity, Counter counter,
                    double joules_per_unit);
    // A dynamic quantity whose cumulative count depends on the boundary time.
    void add_events_at(const std::string& component, const std::string& quantity,
                       StateClock counter, double joules_per_unit);
    // A power state: the phase's energy is delta(clock) * watts.
    void add_state(const std::string& component, const std::string& quantity, StateClock clock,
                   double watts);

    // Starts the run's first phase at t_ps (reads every counter as the zero point).
    void start(const std::string& phase, uint64_t t_ps);
    // Ends the current phase at t_ps and starts `phase` (a no-op phase change is allowed).
    void mark(const std::string& phase, uint64_t t_ps);
    // Ends the current phase at t_ps; no phase is open afterwards.
    void finish(uint64_t t_ps);

    bool started() const { return m_open; }
    // Rows in phase order (first appearance), then registration order; zero-count rows omitted.
    std::vector<Row> rows() const;
    double total_j() const;
    // Seconds covered by all closed phases.
    double duration_s() const { return m_duration_s; }
    std::vector<std::string> phases() const { return m_phase_order; }

    // Declares the trace table energy/breakdown (traces/README.md) on `sink`; call before the
    // sink starts (SWMR). write() then appends the rows.
    void attach(trace::Sink& sink);
    void write() const;

private:
    struct Account {
        std::string component, quantity;
        bool is_static;
        StateClock read;  // cumulative count or seconds at a time
        double scale;     // J per unit, or W
        double last = 0.0;
    };
    void close(uint64_t t_ps);

    std::vector<Account> m_accounts;
    std::vector<std::string> m_phase_order;
    std::map<std::string, std::vector<double>> m_counts;  // phase -> count per account
    std::string m_phase;
    uint64_t m_phase_start = 0;
    double m_duration_s = 0.0;
    bool m_open = false;
    trace::Sink* m_sink = nullptr;
    trace::TableId m_tbl = -1;
};

// The trace record of energy/breakdown.
struct EnergyRecord {
    double count;
    double energy_j;
    uint16_t component;
    char phase[40];
    char kind[8];  // "dynamic" | "static"
    char quantity[32];
    uint8_t pad_[6];
};
NMSIM_TRACE_TABLE(EnergyRecord, "energy/breakdown",
                  "energy per component, phase and quantity: dynamic events x J/event, static "
                  "seconds in a power state x W",
                  NMSIM_COL(EnergyRecord, count, "1", "events, or seconds for static rows"),
                  NMSIM_COL(EnergyRecord, energy_j, "J", "energy"),
                  NMSIM_COL(EnergyRecord, component, "1", "component id (/lut/components)"),
                  NMSIM_STR_COL(EnergyRecord, phase, "phase of the run (layer, BSS-2 run, ...)"),
                  NMSIM_STR_COL(EnergyRecord, kind, "dynamic or static"),
                  NMSIM_STR_COL(EnergyRecord, quantity, "counted quantity or power state"));

// Energy per event / power at supply `v` of figures given at `v_ref`: first-order CV^2 scaling.
inline double scale_v2(double value, double v, double v_ref) {
    return value * (v / v_ref) * (v / v_ref);
}

// Text breakdown for a run report: per component family (a component path without indices and
// PE numbers, e.g. "chip.pe*.mla"), then per phase; energies in a scaled unit.
void print_breakdown(const Meter& m, std::ostream& out, size_t max_phases = 12);

}  // namespace nmsim::energy
