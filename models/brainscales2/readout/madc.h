// The BrainScaleS-2 membrane ADC (MADC): samples the membrane of one selected neuron at a fixed
// rate and streams the 10-bit codes to the FPGA (docs/bss2_fpga.md, "MADC").
//
// Registers (offsets relative to BSS2_MADC_BASE, bss2_map.h):
//   0 NEURON (RW): bits 8:0 = hemi * 256 + column (< 512); other bits must be 0.
//   1 CTRL   (WO): 1 starts recording, 0 stops; other values are refused.
// Timing: a start written at t0 produces samples at t0 + k * T (k = 1, 2, ...), T = clock period *
// cycles_per_sample, each the membrane of the selected neuron at that instant, quantised and
// emitted on the output at that time; a stop at t1 ends the stream (no sample after t1; a sample
// due exactly at t1 is still emitted if it is processed first). Starting while recording keeps
// the running sample grid; the selected neuron may change at any time (next sample uses it).
// Quantisation (ideal ADC with optional Gaussian input noise in LSB):
//   code = clamp(floor((v - v_min) / LSB + noise), 0, 2^bits - 1), LSB = (v_max - v_min) / 2^bits.
#pragma once

#include <systemc>

#include <cstdint>
#include <functional>
#include <random>
#include <string>

#include "models/common/param.h"
#include "nmsim/trace/sink.h"

namespace nmsim::bss2 {

// Membrane voltage in mV of neuron hemi * 256 + column at sc_time_stamp().
using MembraneProbe = std::function<double(uint32_t neuron)>;

struct MadcParams {
    NMSIM_PARAMSET(MadcParams);
    NMSIM_PARAM(nmsim::Frequency, clock, nmsim::Frequency::from_mhz(500), "",
                nmsim::range(1e6, 1e10), "MADC clock",
                "hardware_facts.md B2: default madc_clk = ADPLL0 DCO output 500 MHz (haldls)");
    NMSIM_PARAM(uint32_t, cycles_per_sample, 17, "cycles", nmsim::range(12, 4096),
                "MADC clock cycles per sample (12 + sample_duration_adjust)",
                "hardware_facts.md B2: haldls minimal 12 cycles + default "
                "SampleDurationAdjust 5 -> 29.4 MSa/s");
    NMSIM_PARAM(uint32_t, bits, 10, "bits", nmsim::range(1, 14), "ADC resolution",
                "hardware_facts.md B2: MADC 10-bit (value range 0-1023)");
    NMSIM_PARAM(double, v_min, 0.0, "mV", nmsim::range(-2000, 2000),
                "membrane voltage of code 0 (lower end of the input range)",
                "assumed: the analog core's supply range 0..1.2 V; the MADC input range is not "
                "public");
    NMSIM_PARAM(double, v_max, 1200.0, "mV", nmsim::range(-2000, 3000),
                "membrane voltage one LSB above the top code (upper end of the input range)",
                "assumed: the analog core's supply range 0..1.2 V; the MADC input range is not "
                "public");
    NMSIM_PARAM(double, noise_lsb, 0.0, "LSB", nmsim::range(0, 64),
                "standard deviation of Gaussian noise added before quantisation",
                "assumed: off by default; the MADC noise is not public");
    NMSIM_PARAM(uint64_t, seed, 1, "1", nmsim::any(), "noise generator seed",
                "assumed: simulator choice");
};

class Madc : public sc_core::sc_module {
public:
    SC_HAS_PROCESS(Madc);
    // Throws std::invalid_argument for an empty input range.
    Madc(sc_core::sc_module_name name, const MadcParams& p);

    bool write_config(uint32_t offset, uint32_t data, std::string* error);
    bool read_config(uint32_t offset, uint32_t* data, std::string* error);
    void bind_probe(MembraneProbe probe) { m_probe = std::move(probe); }
    // Receives each sample (code) at its sample time (sc_time_stamp()).
    void bind_output(std::function<void(uint32_t sample)> out) { m_out = std::move(out); }

    uint64_t sample_period_ps() const { return m_period; }
    uint32_t quantise(double v_mv);  // the transfer function above (draws noise if enabled)
    bool recording() const { return m_recording; }
    uint64_t samples() const { return m_samples; }
    uint64_t starts() const { return m_starts; }
    void write_summary(nmsim::trace::Sink& sink, nmsim::trace::ComponentId c) const;

private:
    void run();

    MadcParams m_p;
    uint64_t m_period;
    MembraneProbe m_probe;
    std::function<void(uint32_t)> m_out;
    uint32_t m_neuron = 0;
    bool m_recording = false;
    uint64_t m_next = 0;  // time of the next sample while recording
    uint64_t m_generation = 0;
    sc_core::sc_event m_ctrl;
    std::mt19937_64 m_rng;
    std::normal_distribution<double> m_noise{0.0, 1.0};
    uint64_t m_samples = 0, m_starts = 0, m_unbound = 0;
};

}  // namespace nmsim::bss2
