// The BrainScaleS-2 columnar ADCs (CADC): one 8-bit conversion of all 512 membranes in parallel
// (docs/bss2_fpga.md, "CADC").
//
// Registers (offsets relative to BSS2_CADC_BASE, bss2_map.h):
//   0x000 TRIGGER (WO): any value samples all 512 membranes at the write time t; the codes become
//                 readable at t + t_conversion. A trigger while a conversion is still running is
//                 refused (the converters are busy).
//   0x100 + n RESULT (RO, n = hemi * 256 + column): bits 7:0 the code of the newest conversion
//                 that has completed at the read time; before that, the previous conversion's
//                 code (0 before the first). Writes are refused.
//   0x300 + q QUAD (RO, q = hemi * 64 + quad): columns 4 quad .. 4 quad + 3 of the hemisphere,
//                 column 4 quad + k in bits 8k+7:8k (haldls CADCSampleQuad): one read per four.
// Quantisation as the MADC with bits = 8: code = clamp(floor((v - v_min) / LSB + noise), 0, 255).
#pragma once

#include <systemc>

#include <array>
#include <cstdint>
#include <random>
#include <string>

#include "models/brainscales2/readout/madc.h"
#include "models/common/param.h"
#include "nmsim/hw/brainscales2/bss2_map.h"
#include "nmsim/trace/sink.h"

namespace nmsim::bss2 {

struct CadcParams {
    NMSIM_PARAMSET(CadcParams);
    NMSIM_PARAM(uint32_t, bits, 8, "bits", nmsim::range(1, 8), "ADC resolution",
                "hardware_facts.md B2: CADC 8-bit; seed 004 Table 3.2: 8 bit samples");
    NMSIM_PARAM(nmsim::Time, t_conversion, nmsim::Time::from_ns(540), "", nmsim::range(1, 1e12),
                "from TRIGGER to valid results (one parallel conversion)",
                "assumed: 1 / (1.85 MSa/s per channel max, hardware_facts.md B2) = 540 ns");
    NMSIM_PARAM(double, v_min, 0.0, "mV", nmsim::range(-2000, 2000),
                "membrane voltage of code 0 (lower end of the input range)",
                "assumed: as the MADC, the analog core's supply range 0..1.2 V; not public");
    NMSIM_PARAM(double, v_max, 1200.0, "mV", nmsim::range(-2000, 3000),
                "membrane voltage one LSB above the top code (upper end of the input range)",
                "assumed: as the MADC, the analog core's supply range 0..1.2 V; not public");
    NMSIM_PARAM(double, noise_lsb, 0.0, "LSB", nmsim::range(0, 64),
                "standard deviation of Gaussian noise added per channel before quantisation",
                "assumed: off by default; the CADC noise is not public");
    NMSIM_PARAM(uint64_t, seed, 1, "1", nmsim::any(), "noise generator seed",
                "assumed: simulator choice");
};

class Cadc : public sc_core::sc_module {
public:
    static constexpr uint32_t kResultOffset = 0x100u;
    static constexpr uint32_t kQuadOffset = 0x300u;
    static constexpr uint32_t kQuads = BSS2_NEURONS / 4u;

    // Throws std::invalid_argument for an empty input range.
    Cadc(sc_core::sc_module_name name, const CadcParams& p);

    bool write_config(uint32_t offset, uint32_t data, std::string* error);
    bool read_config(uint32_t offset, uint32_t* data, std::string* error);
    void bind_probe(MembraneProbe probe) { m_probe = std::move(probe); }

    uint32_t quantise(double v_mv);
    uint64_t conversions() const { return m_conversions; }
    uint64_t result_reads() const { return m_reads; }
    void write_summary(nmsim::trace::Sink& sink, nmsim::trace::ComponentId c) const;

private:
    void settle(uint64_t now_ps);  // makes a completed conversion visible

    CadcParams m_p;
    uint64_t m_conv_ps;
    MembraneProbe m_probe;
    std::array<uint8_t, BSS2_NEURONS> m_result{}, m_pending{};
    bool m_busy = false;
    uint64_t m_ready_ps = 0;
    std::mt19937_64 m_rng;
    std::normal_distribution<double> m_noise{0.0, 1.0};
    uint64_t m_conversions = 0, m_reads = 0, m_refused_triggers = 0;
};

}  // namespace nmsim::bss2
