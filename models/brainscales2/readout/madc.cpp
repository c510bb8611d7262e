#include "models/brainscales2/readout/madc.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "nmsim/hw/brainscales2/bss2_map.h"

namespace nmsim::bss2 {

namespace {

constexpr uint32_t kNeuron = BSS2_MADC_NEURON - BSS2_MADC_BASE;
constexpr uint32_t kCtrl = BSS2_MADC_CTRL - BSS2_MADC_BASE;

bool refuse(std::string* error, const std::string& why) {
    if (error) *error = why;
    return false;
}

}  // namespace

Madc::Madc(sc_core::sc_module_name name, const MadcParams& p)
    : sc_module(name),
      m_p(p),
      m_period(static_cast<uint64_t>(p.clock.period_ps()) * p.cycles_per_sample),
      m_rng(p.seed) {
    if (!(p.v_max > p.v_min))
        throw std::invalid_argument(std::string(this->name()) + ": v_max must exceed v_min");
    if (m_period == 0)
        throw std::invalid_argument(std::string(this->name()) + ": sample period is 0");
    SC_THREAD(run);
}

uint32_t Madc::quantise(double v_mv) {
    const double top = std::ldexp(1.0, static_cast<int>(m_p.bits));
    double x = (v_mv - m_p.v_min) / (m_p.v_max - m_p.v_min) * top;
    if (m_p.noise_lsb > 0) x += m_p.noise_lsb * m_noise(m_rng);
    if (!(x >= 0)) return 0;  // also NaN
    return static_cast<uint32_t>(std::min(std::floor(x), top - 1));
}

bool Madc::write_config(uint32_t offset, uint32_t data, std::string* error) {
    if (offset == kNeuron) {
        if (data >= BSS2_NEURONS)
            return refuse(error, "MADC NEURON: " + std::to_string(data) +
                                     " is not a neuron (bits 8:0, < 512)");
        m_neuron = data;
        return true;
    }
    if (offset == kCtrl) {
        if (data > 1u)
            return refuse(error, "MADC CTRL: value " + std::to_string(data) + " (1 start, 0 stop)");
        const uint64_t now = sc_core::sc_time_stamp().value();
        if (data == 1u && !m_recording) {
            m_recording = true;
            m_next = now + m_period;
            ++m_starts;
        } else if (data == 0u) {
            m_recording = false;
        }
        ++m_generation;
        m_ctrl.notify(sc_core::SC_ZERO_TIME);
        return true;
    }
    return refuse(error, "MADC: no register at offset " + std::to_string(offset));
}

bool Madc::read_config(uint32_t offset, uint32_t* data, std::string* error) {
    if (offset == kNeuron) {
        *data = m_neuron;
        return true;
    }
    if (offset == kCtrl) return refuse(error, "MADC CTRL is write-only");
    return refuse(error, "MADC: no register at offset " + std::to_string(offset));
}

void Madc::run() {
    for (;;) {
        if (!m_recording) {
            sc_core::wait(m_ctrl);
            continue;
        }
        const uint64_t gen = m_generation;
        const uint64_t now = sc_core::sc_time_stamp().value();
        if (m_next > now) {
            sc_core::wait(sc_core::sc_time::from_value(m_next - now), m_ctrl);
            if (gen != m_generation) continue;  // CTRL written meanwhile: re-evaluate
            if (sc_core::sc_time_stamp().value() < m_next) continue;
        }
        if (!m_recording) continue;
        const uint32_t code = quantise(m_probe ? m_probe(m_neuron) : m_p.v_min);
        if (!m_probe) ++m_unbound;
        ++m_samples;
        if (m_out) m_out(code);
        m_next += m_period;
    }
}

void Madc::write_summary(nmsim::trace::Sink& sink, nmsim::trace::ComponentId c) const {
    sink.counter(c, "samples", "1", static_cast<double>(m_samples));
    sink.counter(c, "starts", "1", static_cast<double>(m_starts));
    sink.counter(c, "samples_without_probe", "1", static_cast<double>(m_unbound));
}

}  // namespace nmsim::bss2
