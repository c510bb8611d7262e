// Network description: validation on insertion (seed 004 section 4.1.4, Listing 16: the network
// graph object checks a projection when it is added).
#include "tools/compiler/bss2/network.h"

#include <cmath>

#include "nmsim/hw/brainscales2/bss2_map.h"

namespace nmsim::compiler::bss2 {

const char* to_string(PopulationKind k) {
    switch (k) {
        case PopulationKind::external:
            return "external";
        case PopulationKind::internal:
            return "internal";
        case PopulationKind::background:
            return "background";
    }
    return "?";
}

const char* to_string(Receptor r) {
    return r == Receptor::excitatory ? "excitatory" : "inhibitory";
}

// Ranges of the neuron parameters (docs/bss2_compiler.md, "Parameter ranges"). Where calix has a
// calibratable range (hardware_facts.md B1) it is the range; voltages in CADC LSB are converted
// with 1.2 V / 256 codes = 4.6875 mV (as the defaults in network.h). Parameters without a public
// range are bounded by their configuration word (bss2_map.h: int32/uint32 in uV, fF, ps, pS, fA;
// tools/compiler/bss2/lowering.cpp) and, for those the chip model needs positive
// (models/brainscales2/neuron: NeuronConfig::valid), by one word LSB.
const std::vector<NeuronParameter>& neuron_parameters() {
    constexpr double kCadcLsb = 1200.0 / 256.0;  // mV
    constexpr double kI32 = 2147483647.0 / 1e6;  // int32 word of 1e-6 units: uS in pS, nA in fA
    constexpr double kI32Min = -2147483648.0 / 1e6;
    constexpr double kU32 = 4294967295.0 / 1e6;  // uint32 word: us in ps, nA in fA
    constexpr const char* kCalix = "calix's calibratable range, hardware_facts.md B1";
    using P = NeuronProperties;
    static const std::vector<NeuronParameter> table = {
        {"v_leak",
         &P::v_leak,
         {50 * kCadcLsb, 160 * kCadcLsb, "mV", "calix's leak range 50..160 CADC LSB of 4.6875 mV"}},
        {"v_reset",
         &P::v_reset,
         {50 * kCadcLsb, 160 * kCadcLsb, "mV",
          "calix's reset range 50..160 CADC LSB of 4.6875 mV"}},
        {"v_threshold",
         &P::v_threshold,
         {50 * kCadcLsb, 220 * kCadcLsb, "mV",
          "calix's threshold range 50..220 CADC LSB of 4.6875 mV"}},
        {"c_mem",
         &P::c_mem,
         {2.2 / 63, 2.2, "pF", "the membrane capacitor's 1..63 LSB, 63 LSB = 2.2 pF"}},
        {"tau_mem", &P::tau_mem, {0.5, 60.0, "us", kCalix}},
        {"tau_syn_exc", &P::tau_syn_exc, {0.3, 30.0, "us", kCalix}},
        {"tau_syn_inh", &P::tau_syn_inh, {0.3, 30.0, "us", kCalix}},
        {"t_ref", &P::t_ref, {0.04, 32.0, "us", kCalix}},
        {"i_offset",
         &P::i_offset,
         {kI32Min, kI32, "nA", "its configuration word, int32 fA; no calibration range"}},
        {"w_exc",
         &P::w_exc,
         {0.0, kU32, "nA", "its configuration word, uint32 fA; no calibration range in nA"}},
        {"w_inh",
         &P::w_inh,
         {0.0, kU32, "nA", "its configuration word, uint32 fA; no calibration range in nA"}},
        {"v_exp", &P::v_exp, {0.0, 1200.0, "mV", "the membrane's 0..1.2 V range"}},
        {"delta_t",
         &P::delta_t,
         {0.001, 1200.0, "mV", "one LSB of its uV word (> 0) up to the membrane's 1.2 V range"}},
        {"tau_w",
         &P::tau_w,
         {1e-6, kU32, "us", "one LSB of its uint32 ps word (> 0) up to the word's limit"}},
        {"a", &P::a, {kI32Min, kI32, "uS", "its configuration word, int32 pS"}},
        {"b", &P::b, {kI32Min, kI32, "nA", "its configuration word, int32 fA"}},
    };
    return table;
}

Range population_size_range(PopulationKind kind) {
    switch (kind) {
        case PopulationKind::internal:
            return {1, BSS2_NEURONS, "", "the chip's 512 neuron circuits"};
        case PopulationKind::background:
            return {1, 256, "",
                    "the generator randomises the low log2(size) label bits, hardware_facts.md "
                    "B4"};
        case PopulationKind::external:
            break;
    }
    return {1, 16384, "",
            "the sources the chip can tell apart: 2 hemispheres x 4 PADI buses x 2048 events"};
}

Range stp_u_range() {
    return {1.0 / 256, 1.0, "", "the driver's 8-bit U word in 1/256 (1 saturates at 255/256)"};
}

Range stp_tau_rec_range() {
    return {0.001, 4294967.295, "us",
            "one LSB of the driver's uint32 ns word (> 0) up to its limit"};
}

std::string background_setting(double rate_hz, size_t size, bool poisson, uint32_t* period_out,
                               uint32_t* rate_out) {
    constexpr double kClockHz = 125e6;  // background generator clock (assumed: FPGA/chip 125 MHz)
    const double total = rate_hz * static_cast<double>(size);
    if (!(std::isfinite(total) && total > 0))
        return "background rate " + format_number(rate_hz) + " Hz must be > 0";
    if (!poisson) {
        const double period = std::round(kClockHz / total);
        if (!(period >= 1 && period <= 65535))
            return "regular rate " + format_number(rate_hz) + " Hz per neuron (" +
                   format_number(total) +
                   " Hz total) is outside the generator range (125 MHz / 1..65535)";
        if (std::abs(kClockHz / period / total - 1.0) > 0.01)
            return "regular rate " + format_number(rate_hz) +
                   " Hz per neuron cannot be matched within 1% by an integer period of the 125 "
                   "MHz clock";
        *period_out = static_cast<uint32_t>(period);
        *rate_out = 0;
        return "";
    }
    // Poisson: emit with p = rate / 256 every period cycles. The smallest p within 0.1% of the
    // target is preferred (closest to a Poisson process), else the best match.
    double best_err = 1e300;
    uint32_t best_r = 0, best_p = 0;
    for (uint32_t r = 1; r <= 255; ++r) {
        const double per = std::round(kClockHz * r / 256.0 / total);
        if (!(per >= 1 && per <= 65535)) continue;
        const double err = std::abs(kClockHz * r / 256.0 / per / total - 1.0);
        if (err < best_err - 1e-12) {
            best_err = err;
            best_r = r;
            best_p = static_cast<uint32_t>(per);
        }
        if (best_err <= 1e-3) break;
    }
    if (best_r == 0 || best_err > 0.01)
        return "Poisson rate " + format_number(rate_hz) + " Hz per neuron (" +
               format_number(total) +
               " Hz total) is not reachable within 1% (125 MHz clock, period 1..65535, p = "
               "1..255 / 256)";
    *period_out = best_p;
    *rate_out = best_r;
    return "";
}

namespace {

[[noreturn]] void fail(const SourceRef& where, const std::string& what, const std::string& msg) {
    const std::string w = where.str();
    throw NetworkError((w.empty() ? "" : w + ": ") + what + ": " + msg);
}

bool finite_positive(double v) { return std::isfinite(v) && v > 0.0; }

void check_neuron(const SourceRef& where, const std::string& what, size_t i,
                  const NeuronProperties& n) {
    for (const NeuronParameter& np : neuron_parameters()) {
        const double v = n.*np.field;
        if (!np.range.contains(v))
            fail(where, what,
                 "neuron " + std::to_string(i) + ": " + np.key + " " + format_number(v) + " " +
                     np.range.outside());
    }
}

}  // namespace

size_t Network::add(Population p) {
    const std::string what = "population '" + p.name + "'";
    if (p.name.empty()) fail(p.where, "population", "empty name");
    if (find(p.name)) fail(p.where, what, "name already used by another population");
    if (p.size == 0) fail(p.where, what, "size must be > 0");
    if (p.kind != PopulationKind::internal) {
        if (p.hemisphere || p.first_column)
            fail(p.where, what,
                 "placement hints (hemisphere, first_column) apply to internal populations only");
        if (!p.neurons.empty())
            fail(p.where, what, "neuron properties apply to internal populations only");
    }
    if (p.kind == PopulationKind::internal) {
        if (p.neurons.empty()) p.neurons.resize(p.size);
        if (p.neurons.size() != p.size)
            fail(p.where, what,
                 std::to_string(p.neurons.size()) + " neuron property entries for size " +
                     std::to_string(p.size));
        for (size_t i = 0; i < p.neurons.size(); ++i) check_neuron(p.where, what, i, p.neurons[i]);
        if (p.hemisphere && *p.hemisphere >= 2) fail(p.where, what, "hemisphere must be 0 or 1");
        if (p.first_column && *p.first_column + p.size > 256)
            fail(p.where, what,
                 "first_column " + std::to_string(*p.first_column) + " + size " +
                     std::to_string(p.size) + " exceeds the 256 columns of a hemisphere");
    }
    if (p.kind == PopulationKind::background) {
        if (p.size > 256 || (p.size & (p.size - 1)) != 0)
            fail(p.where, what,
                 "background size " + std::to_string(p.size) +
                     " must be a power of two <= 256 (the generator randomises low label bits)");
        if (!finite_positive(p.rate_hz)) fail(p.where, what, "background rate must be > 0 Hz");
    }
    populations.push_back(std::move(p));
    return populations.size() - 1;
}

size_t Network::add(Projection p) {
    const std::string what = "projection '" + p.name + "'";
    if (p.name.empty()) fail(p.where, "projection", "empty name");
    for (const auto& q : projections)
        if (q.name == p.name) fail(p.where, what, "name already used by another projection");
    if (p.source >= populations.size())
        fail(p.where, what,
             "source population index " + std::to_string(p.source) + " out of range");
    if (p.target >= populations.size())
        fail(p.where, what,
             "target population index " + std::to_string(p.target) + " out of range");
    const Population& src = populations[p.source];
    const Population& tgt = populations[p.target];
    if (tgt.kind != PopulationKind::internal)
        fail(p.where, what,
             "target population '" + tgt.name + "' is " + to_string(tgt.kind) +
                 "; only on-chip (internal) neurons can receive events");
    for (size_t i = 0; i < p.connections.size(); ++i) {
        const Connection& c = p.connections[i];
        if (c.source < src.size && c.target < tgt.size && c.weight <= 63) continue;
        const std::string ci = "connection " + std::to_string(i) + " (" + std::to_string(c.source) +
                               " -> " + std::to_string(c.target) + ")";
        if (c.source >= src.size)
            fail(p.where, what,
                 ci + ": source index out of range of '" + src.name + "' (size " +
                     std::to_string(src.size) + ")");
        if (c.target >= tgt.size)
            fail(p.where, what,
                 ci + ": target index out of range of '" + tgt.name + "' (size " +
                     std::to_string(tgt.size) + ")");
        if (c.weight > 63)
            fail(p.where, what,
                 ci + ": weight " + std::to_string(c.weight) + " > 63 (6-bit synapse)");
    }
    if (p.stp) {
        if (!stp_u_range().contains(p.stp->u))
            fail(p.where, what, "stp.u " + format_number(p.stp->u) + " " + stp_u_range().outside());
        if (!stp_tau_rec_range().contains(p.stp->tau_rec))
            fail(p.where, what,
                 "stp.tau_rec " + format_number(p.stp->tau_rec) + " " +
                     stp_tau_rec_range().outside());
    }
    projections.push_back(std::move(p));
    return projections.size() - 1;
}

const Population* Network::find(const std::string& name) const {
    for (const auto& p : populations)
        if (p.name == name) return &p;
    return nullptr;
}

}  // namespace nmsim::compiler::bss2
