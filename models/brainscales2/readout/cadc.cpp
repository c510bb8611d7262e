#include "models/brainscales2/readout/cadc.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace nmsim::bss2 {

namespace {

constexpr uint32_t kTrigger = BSS2_CADC_TRIGGER - BSS2_CADC_BASE;

bool refuse(std::string* error, const std::string& why) {
    if (error) *error = why;
    return false;
}

}  // namespace

Cadc::Cadc(sc_core::sc_module_name name, const CadcParams& p)
    : sc_module(name), m_p(p), m_conv_ps(static_cast<uint64_t>(p.t_conversion.ps)), m_rng(p.seed) {
    if (!(p.v_max > p.v_min))
        throw std::invalid_argument(std::string(this->name()) + ": v_max must exceed v_min");
    if (p.bits < 1 || p.bits > 8)
        throw std::invalid_argument(std::string(this->name()) +
                                    ": bits must be 1..8 (8-bit result field)");
}

uint32_t Cadc::quantise(double v_mv) {
    const double top = std::ldexp(1.0, static_cast<int>(m_p.bits));
    double x = (v_mv - m_p.v_min) / (m_p.v_max - m_p.v_min) * top;
    if (m_p.noise_lsb > 0) x += m_p.noise_lsb * m_noise(m_rng);
    if (!(x >= 0)) return 0;
    return static_cast<uint32_t>(std::min(std::floor(x), top - 1));
}

void Cadc::settle(uint64_t now_ps) {
    if (m_busy && now_ps >= m_ready_ps) {
        m_result = m_pending;
        m_busy = false;
    }
}

bool Cadc::write_config(uint32_t offset, uint32_t data, std::string* error) {
    (void)data;  // any value triggers
    const uint64_t now = sc_core::sc_time_stamp().value();
    settle(now);
    if (offset == kTrigger) {
        if (m_busy) {
            ++m_refused_triggers;
            return refuse(error, "CADC TRIGGER: conversion still running until " +
                                     std::to_string(m_ready_ps) + " ps");
        }
        for (uint32_t n = 0; n < BSS2_NEURONS; ++n)
            m_pending[n] = static_cast<uint8_t>(quantise(m_probe ? m_probe(n) : m_p.v_min));
        m_busy = true;
        m_ready_ps = now + m_conv_ps;
        ++m_conversions;
        return true;
    }
    if (offset >= kResultOffset && offset < kQuadOffset + kQuads)
        return refuse(error, "CADC RESULT/QUAD offset " + std::to_string(offset) + " is read-only");
    return refuse(error, "CADC: no register at offset " + std::to_string(offset));
}

bool Cadc::read_config(uint32_t offset, uint32_t* data, std::string* error) {
    settle(sc_core::sc_time_stamp().value());
    if (offset >= kResultOffset && offset < kResultOffset + BSS2_NEURONS) {
        *data = m_result[offset - kResultOffset];
        ++m_reads;
        return true;
    }
    if (offset >= kQuadOffset && offset < kQuadOffset + kQuads) {
        const uint32_t first = (offset - kQuadOffset) * 4u;
        *data = 0;
        for (uint32_t k = 0; k < 4u; ++k) *data |= uint32_t{m_result[first + k]} << (8u * k);
        ++m_reads;
        return true;
    }
    if (offset == kTrigger) return refuse(error, "CADC TRIGGER is write-only");
    return refuse(error, "CADC: no register at offset " + std::to_string(offset));
}

void Cadc::write_summary(nmsim::trace::Sink& sink, nmsim::trace::ComponentId c) const {
    sink.counter(c, "conversions", "1", static_cast<double>(m_conversions));
    sink.counter(c, "result_reads", "1", static_cast<double>(m_reads));
    sink.counter(c, "refused_triggers", "1", static_cast<double>(m_refused_triggers));
}

}  // namespace nmsim::bss2
