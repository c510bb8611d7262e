// The BrainScaleS-2 chip and its FPGA: wiring of the models of models/brainscales2 into the
// event path of seed 004 section 3.1.2 and the configuration space of bss2_map.h. Behaviour lives
// in the models; here: who feeds whom, the Omnibus address decoder and the analog core's clock.
//
// Event path (all synchronous calls with the event's time, see docs/bss2.md):
//   FPGA --chip link--> L2 input split -> crossbar inputs 8..11
//   background generator i                -> crossbar input 12 + i
//   neuron spike (back end)               -> crossbar input channel = column / 32
//   crossbar outputs 0..7 -> PADI bus (hemi, bus) -> synapse drivers of that hemisphere
//     -> synapse rows -> synapse array -> neuron synaptic inputs (AdexArray::add_input)
//   crossbar outputs 8..11 -> L2 output merge --chip link--> FPGA (recorded with its timer)
//   MADC samples --chip link--> FPGA
// The analog core: one SC_THREAD advances the AdexArray by its step dt while any neuron is
// enabled (it sleeps otherwise) and hands spikes to the back ends (after backend_latency).
#pragma once

#include <systemc>

#include <array>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "models/brainscales2/backend/neuron_backends.h"
#include "models/brainscales2/fpga/fpga.h"
#include "models/brainscales2/neuron/adex_array.h"
#include "models/brainscales2/readout/cadc.h"
#include "models/brainscales2/readout/madc.h"
#include "models/brainscales2/routing/background_generator.h"
#include "models/brainscales2/routing/crossbar.h"
#include "models/brainscales2/routing/l2_link.h"
#include "models/brainscales2/routing/padi_bus.h"
#include "models/brainscales2/routing/synapse_array.h"
#include "models/brainscales2/routing/synapse_drivers.h"
#include "models/common/param.h"
#include "nmsim/hw/brainscales2/bss2_map.h"
#include "nmsim/trace/sink.h"
#include "platforms/brainscales2/energy_params.h"
#include "platforms/brainscales2/hagen_host.h"

namespace nmsim::bss2 {

struct ChipSimParams {
    NMSIM_PARAMSET(ChipSimParams);
    NMSIM_PARAM(Time, max_time, Time::from_us(10e6), "", range(1e3, 1e15),
                "simulated-time limit of one playback program: a program that has not finished "
                "by then fails as a timeout",
                "nmsim choice: 10 s of simulated time (hours of biological time)");
};

struct ChipParams {
    NMSIM_PARAMSET(ChipParams);
    NMSIM_GROUP(AdexParams, neuron, "analog AdEx neuron circuits (512)");
    NMSIM_GROUP(NeuronBackendParams, backend,
                "neuron back ends (spike detector -> crossbar event)");
    NMSIM_GROUP(L2LinkParams, l2, "layer-2 event split (input) and merge (output)");
    NMSIM_GROUP(CrossbarParams, crossbar, "routing crossbar (20 x 12)");
    NMSIM_GROUP(PadiBusParams, padi, "PADI buses (8)");
    NMSIM_GROUP(SynapseDriverParams, driver, "synapse drivers (2 x 128)");
    NMSIM_GROUP(SynapseArrayParams, synapse, "synapse arrays (2 x 256 x 256)");
    NMSIM_GROUP(BackgroundParams, background, "background spike generators (8)");
    NMSIM_GROUP(MadcParams, madc, "membrane ADC (one selected neuron)");
    NMSIM_GROUP(CadcParams, cadc, "columnar ADC (all neurons in parallel)");
    NMSIM_GROUP(FpgaParams, fpga, "FPGA: playback executor, host link (1 GbE), chip link");
    NMSIM_GROUP(Bss2EnergyParams, energy,
                "chip and setup power, energy per event (docs/energy.md)");
    NMSIM_GROUP(
        HagenHostParams, host,
        "host computer in hagen mode: conversions, encoding, decoding (docs/bss2_hagen.md)");
    NMSIM_GROUP(ChipSimParams, sim, "simulation control");
};

// A neuron spike as the chip emitted it (exact time, before any link): trace table bss2/spikes.
struct ChipSpikeRecord {
    uint64_t t_ps;    // threshold crossing
    uint16_t neuron;  // hemi * 256 + column
    uint8_t pad_[6];
};

class Chip : public sc_core::sc_module, public ChipInterface {
public:
    Chip(sc_core::sc_module_name name, const ChipParams& p, uint64_t seed);

    // ChipInterface (the FPGA's view): Omnibus words and injected L2 events, at sc_time_stamp().
    bool config_write(uint32_t addr, uint32_t data, std::string* error) override;
    bool config_read(uint32_t addr, uint32_t* data, std::string* error) override;
    void inject(uint32_t event16) override;

    Fpga& fpga() { return *m_fpga; }
    const Fpga& fpga() const { return *m_fpga; }
    AdexArray& neurons() { return m_neurons; }
    const AdexArray& neurons() const { return m_neurons; }
    const PadiBus& padi(uint32_t hemi, uint32_t bus) const { return *m_padi[hemi * 4 + bus]; }
    const SynapseArray& synapses(uint32_t hemi) const { return *m_synapses[hemi]; }
    const SynapseDrivers& drivers(uint32_t hemi) const { return *m_drivers[hemi]; }
    const Crossbar& crossbar() const { return *m_crossbar; }
    const Madc& madc() const { return *m_madc; }
    const Cadc& cadc() const { return *m_cadc; }
    const ChipParams& params() const { return m_p; }
    uint64_t chip_spikes() const { return m_chip_spikes; }
    // Neurons enabled by the configuration whose 32-word block is not a valid configuration
    // (named with the reason), "" if none: the host checks this after every program.
    std::string invalid_neurons() const;

    // Observation and stimulation for tests and debugging: `tap` sees every synaptic input
    // (neuron = hemi * 256 + column, weight x efficacy) as the synapse array delivers it; fire()
    // makes neuron n's back end emit its event now, as if the membrane had crossed threshold.
    using SynapseTap =
        std::function<void(uint32_t neuron, bool inhibitory, double amount, uint64_t t_ps)>;
    void set_synapse_tap(SynapseTap tap) { m_tap = std::move(tap); }
    void fire(uint32_t neuron) { on_spike(neuron, sc_core::sc_time_stamp().value()); }

    // Trace: the chip's own spike table and every model's table; summary counters per model.
    void attach_trace(trace::Sink* sink);
    void write_summary(trace::Sink& sink);

private:
    void analog_core();
    void catch_up();
    void on_spike(uint32_t neuron, uint64_t t_ps);
    void neuron_word(uint32_t neuron, uint32_t word, uint32_t data);
    // Decodes an Omnibus address (bss2_map.h) once for reads and writes: calls
    // model(block_model, offset_in_block) or neuron(neuron, word); unmapped and reserved
    // addresses fail with a message naming them.
    template <class ModelFn, class NeuronFn>
    bool route(uint32_t addr, std::string* error, ModelFn&& model, NeuronFn&& neuron);

    ChipParams m_p;
    AdexArray m_neurons;
    std::vector<std::array<uint32_t, 32>> m_neuron_words;
    std::vector<std::string> m_invalid;  // per neuron: why its enabled block is invalid
    uint32_t m_enabled = 0;              // neurons with CFG_ENABLE
    sc_core::sc_event m_wake;
    // An input before m_wake_at_ps arrived, or neurons were reconfigured or reset: the analog
    // core re-plans its wait.
    sc_core::sc_event m_input;
    uint64_t m_wake_at_ps = 0;  // when the analog core wakes next (planned)
    std::unique_ptr<NeuronBackends> m_backends;
    std::unique_ptr<L2Link> m_l2;
    std::unique_ptr<Crossbar> m_crossbar;
    std::vector<std::unique_ptr<PadiBus>> m_padi;
    std::vector<std::unique_ptr<SynapseDrivers>> m_drivers;
    std::vector<std::unique_ptr<SynapseArray>> m_synapses;
    std::vector<std::unique_ptr<BackgroundGenerator>> m_background;
    std::unique_ptr<Madc> m_madc;
    std::unique_ptr<Cadc> m_cadc;
    std::unique_ptr<Fpga> m_fpga;
    trace::Sink* m_sink = nullptr;
    trace::TableId m_spike_table = -1;
    trace::ComponentId m_component = 0;
    uint64_t m_chip_spikes = 0;
    SynapseTap m_tap;
};

}  // namespace nmsim::bss2

namespace nmsim::bss2 {
NMSIM_TRACE_TABLE(ChipSpikeRecord, "bss2/chip_spikes",
                  "spikes of the analog neurons as the chip emitted them (exact threshold "
                  "crossing, before the crossbar and the links)",
                  NMSIM_COL(ChipSpikeRecord, t_ps, "ps", "threshold crossing time"),
                  NMSIM_COL(ChipSpikeRecord, neuron, "1", "neuron: hemisphere * 256 + column"));
}  // namespace nmsim::bss2
