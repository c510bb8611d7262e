#include "platforms/brainscales2/chip.h"

#include <cstdio>
#include <string>

#include "models/common/hex.h"
#include "models/common/seeding.h"

namespace nmsim::bss2 {
namespace {

std::string hex(uint32_t v) { return nmsim::hex(v, 6); }

// A seed per model instance from the chip's seed, so that the generators, the mismatch and the
// ADC noise are independent but all follow the scenario seed.
uint64_t derive(uint64_t seed, uint64_t salt) { return derive_seed(seed, salt + 1); }

}  // namespace

Chip::Chip(sc_core::sc_module_name name, const ChipParams& p, uint64_t seed)
    : sc_core::sc_module(name),
      m_p(p),
      m_neurons(BSS2_NEURONS, p.neuron, derive(seed, 1)),
      m_neuron_words(BSS2_NEURONS),
      m_invalid(BSS2_NEURONS) {
    for (auto& w : m_neuron_words) w.fill(0);
    m_backends = std::make_unique<NeuronBackends>("backends", p.backend);
    m_l2 = std::make_unique<L2Link>("l2", p.l2);
    m_crossbar = std::make_unique<Crossbar>("crossbar", p.crossbar);
    for (uint32_t h = 0; h < BSS2_HEMISPHERES; ++h) {
        for (uint32_t b = 0; b < BSS2_PADI_PER_HEMI; ++b)
            m_padi.push_back(std::make_unique<PadiBus>(
                ("padi_" + std::to_string(h) + "_" + std::to_string(b)).c_str(), h, b, p.padi));
        m_drivers.push_back(std::make_unique<SynapseDrivers>(
            ("drivers_" + std::to_string(h)).c_str(), h, p.driver));
        m_synapses.push_back(std::make_unique<SynapseArray>(
            ("synapses_" + std::to_string(h)).c_str(), h, p.synapse));
    }
    for (uint32_t i = 0; i < BSS2_BACKGROUND; ++i)
        m_background.push_back(std::make_unique<BackgroundGenerator>(
            ("background_" + std::to_string(i)).c_str(), i, p.background, derive(seed, 100 + i)));
    // The ADC noise follows the scenario seed too (their own seed parameter only varies it).
    MadcParams mp = p.madc;
    mp.seed = derive(seed ^ p.madc.seed, 200);
    CadcParams cp = p.cadc;
    cp.seed = derive(seed ^ p.cadc.seed, 201);
    m_madc = std::make_unique<Madc>("madc", mp);
    m_cadc = std::make_unique<Cadc>("cadc", cp);
    m_fpga = std::make_unique<Fpga>("fpga", p.fpga);
    m_fpga->bind_chip(this);

    // Wiring, downstream first.
    m_l2->bind_crossbar(
        [this](uint32_t in, uint32_t label, uint64_t t) { m_crossbar->input(in, label, t); });
    m_l2->bind_out([this](uint32_t ev, uint64_t) { m_fpga->chip_event(ev); });
    for (uint32_t h = 0; h < BSS2_HEMISPHERES; ++h) {
        for (uint32_t b = 0; b < BSS2_PADI_PER_HEMI; ++b) {
            PadiBus* bus = m_padi[h * BSS2_PADI_PER_HEMI + b].get();
            SynapseDrivers* drv = m_drivers[h].get();
            m_crossbar->bind_output(BSS2_XOUT_PADI(h, b),
                                    [bus](uint32_t label, uint64_t t) { bus->input(label, t); });
            bus->bind_output([drv, b](uint32_t padi, uint64_t t) { drv->input(b, padi, t); });
        }
        SynapseArray* syn = m_synapses[h].get();
        m_drivers[h]->bind_rows([syn](uint32_t row, uint32_t label, double eff, bool inh,
                                      uint64_t t) { syn->row_event(row, label, eff, inh, t); });
        const uint32_t base = h * BSS2_COLUMNS;
        syn->bind_synapse([this, base](const SynapticInput* in, size_t n, bool inh, uint64_t t) {
            if (m_tap)
                for (size_t k = 0; k < n; ++k) m_tap(base + in[k].column, inh, in[k].amount, t);
            catch_up();
            m_neurons.add_inputs(base, in, n, inh, t);
            if (t < m_wake_at_ps) m_input.notify(sc_core::SC_ZERO_TIME);
        });
    }
    m_backends->bind_output([this](uint32_t ch, uint32_t label, uint64_t t) {
        m_crossbar->input(BSS2_XIN_NEURON(ch), label, t);
    });
    for (uint32_t c = 0; c < BSS2_L2_CHANNELS; ++c)
        m_crossbar->bind_output(BSS2_XOUT_L2(c), [this, c](uint32_t label, uint64_t t) {
            m_l2->crossbar_output(c, label, t);
        });
    for (uint32_t i = 0; i < BSS2_BACKGROUND; ++i)
        m_background[i]->bind_output(
            [this, i](uint32_t label, uint64_t t) { m_crossbar->input(BSS2_XIN_BG(i), label, t); });
    auto probe = [this](uint32_t n) {
        catch_up();
        return m_neurons.v(n);
    };
    m_madc->bind_probe(probe);
    m_cadc->bind_probe(probe);
    m_madc->bind_output([this](uint32_t sample) { m_fpga->chip_madc_sample(sample); });

    SC_HAS_PROCESS(Chip);
    SC_THREAD(analog_core);
}

// The neurons are integrated step by step in SystemC time, so that a spike leaves at the end of
// its step. While the array is quiet (AdexArray::quiet_steps: no neuron can spike before the next
// queued input) the core sleeps up to that input, at most kQuietSteps, and integrates the quiet
// stretch in one go; an input arriving meanwhile, a reconfiguration or a reset wakes it to
// re-plan, and whoever touches the neurons first brings them up to date (catch_up).
void Chip::analog_core() {
    constexpr uint64_t kQuietSteps = 1024;
    const uint64_t step = static_cast<uint64_t>(m_p.neuron.dt.ps);
    for (;;) {
        if (m_enabled == 0) {
            // Nothing integrates: sleep until a neuron is enabled, then continue on the step grid.
            wait(m_wake);
            catch_up();
        }
        const uint64_t now = sc_core::sc_time_stamp().value();
        catch_up();
        const uint64_t next = (now / step + m_neurons.quiet_steps(kQuietSteps)) * step;
        m_wake_at_ps = next;
        wait(sc_core::sc_time::from_value(next - now), m_input);
        catch_up();
    }
}

// Integrates the neurons up to the current step boundary (not from inside a spike callback: an
// input added there lands on the next step, as AdexArray documents).
void Chip::catch_up() {
    if (m_neurons.in_advance()) return;
    const uint64_t step = static_cast<uint64_t>(m_p.neuron.dt.ps);
    const uint64_t now = sc_core::sc_time_stamp().value();
    if (now - now % step > m_neurons.now_ps())
        m_neurons.advance_to(now - now % step, [this](uint32_t n, uint64_t t) { on_spike(n, t); });
}

void Chip::on_spike(uint32_t n, uint64_t t_ps) {
    ++m_chip_spikes;
    if (m_sink) {
        ChipSpikeRecord r{};
        r.t_ps = t_ps;
        r.neuron = static_cast<uint16_t>(n);
        m_sink->append(m_spike_table, &r);
    }
    m_backends->spike(n, t_ps);
}

void Chip::neuron_word(uint32_t n, uint32_t word, uint32_t data) {
    auto& w = m_neuron_words[n];
    const bool was_enabled = (w[BSS2_NRN_CFG] & BSS2_NRN_CFG_ENABLE) && m_invalid[n].empty();
    w[word] = data;
    NeuronConfig cfg = NeuronConfig::from_words(w.data());
    std::string why;
    if (cfg.enable && !cfg.valid(&why)) {
        // Writes of one neuron arrive word by word: an incomplete block is held disabled until a
        // later word completes it; the host reports neurons still invalid after the program.
        m_invalid[n] = why;
        cfg.enable = false;
    } else {
        m_invalid[n].clear();
    }
    catch_up();
    m_neurons.configure(n, cfg);
    m_input.notify(sc_core::SC_ZERO_TIME);
    m_backends->configure(n, w[BSS2_NRN_ADDR_OUT], cfg.enable && cfg.fire);
    const bool now_enabled = cfg.enable;
    if (now_enabled && !was_enabled) {
        if (m_enabled++ == 0) m_wake.notify(sc_core::SC_ZERO_TIME);
    } else if (!now_enabled && was_enabled) {
        --m_enabled;
    }
}

std::string Chip::invalid_neurons() const {
    std::string out;
    for (uint32_t n = 0; n < BSS2_NEURONS; ++n)
        if (!m_invalid[n].empty())
            out += (out.empty() ? "" : "; ") + std::string("neuron ") +
                   std::to_string(n / BSS2_COLUMNS) + "/" + std::to_string(n % BSS2_COLUMNS) +
                   " (" + hex(BSS2_NEURON(n / BSS2_COLUMNS, n % BSS2_COLUMNS)) +
                   "): " + m_invalid[n];
    return out;
}

template <class ModelFn, class NeuronFn>
bool Chip::route(uint32_t addr, std::string* error, ModelFn&& model, NeuronFn&& neuron) {
    constexpr uint32_t kSynapses = BSS2_ROWS * BSS2_COLUMNS;  // per hemisphere
    constexpr uint32_t kDriverWords = BSS2_DRIVERS * 4u;      // per hemisphere
    if (addr >= BSS2_SYNAPSE_BASE && addr < BSS2_SYNAPSE_BASE + BSS2_HEMISPHERES * kSynapses) {
        const uint32_t off = addr - BSS2_SYNAPSE_BASE;
        return model(*m_synapses[off / kSynapses], off % kSynapses);
    }
    if (addr >= BSS2_NEURON_BASE && addr < BSS2_NEURON_BASE + BSS2_NEURONS * 32u) {
        const uint32_t off = addr - BSS2_NEURON_BASE;
        const uint32_t word = off % 32u;
        if (word >= 18u && word != BSS2_NRN_RESET && word != BSS2_NRN_V_MEM) {
            if (error) *error = "neuron word " + std::to_string(word) + " is reserved";
            return false;
        }
        return neuron(off / 32u, word);
    }
    if (addr >= BSS2_XBAR_BASE && addr < BSS2_XBAR_BASE + BSS2_XBAR_INPUTS * BSS2_XBAR_OUTPUTS * 2u)
        return model(*m_crossbar, addr - BSS2_XBAR_BASE);
    if (addr >= BSS2_SYNDRV_BASE && addr < BSS2_SYNDRV_BASE + BSS2_HEMISPHERES * kDriverWords) {
        const uint32_t off = addr - BSS2_SYNDRV_BASE;
        return model(*m_drivers[off / kDriverWords], off % kDriverWords);
    }
    if (addr >= BSS2_BG_BASE && addr < BSS2_BG_BASE + BSS2_BACKGROUND * 4u) {
        const uint32_t off = addr - BSS2_BG_BASE;
        return model(*m_background[off / 4u], off % 4u);
    }
    if (addr >= BSS2_PADI_BASE && addr < BSS2_PADI_BASE + BSS2_HEMISPHERES * BSS2_PADI_PER_HEMI)
        return model(*m_padi[addr - BSS2_PADI_BASE], 0u);
    if (addr == BSS2_MADC_NEURON || addr == BSS2_MADC_CTRL)
        return model(*m_madc, addr - BSS2_MADC_BASE);
    if (addr >= BSS2_CADC_BASE && addr < BSS2_CADC_QUAD(BSS2_HEMISPHERES, 0))
        return model(*m_cadc, addr - BSS2_CADC_BASE);
    if (error) *error = "address " + hex(addr) + " is not mapped";
    return false;
}

bool Chip::config_write(uint32_t addr, uint32_t data, std::string* error) {
    if (addr >= BSS2_NRN_RESET_QUAD_BASE && addr < BSS2_NRN_RESET_QUAD(BSS2_HEMISPHERES, 0)) {
        const uint32_t first = (addr - BSS2_NRN_RESET_QUAD_BASE) * 4u;
        catch_up();
        for (uint32_t k = 0; k < 4u; ++k)
            if (data & (1u << k)) m_neurons.reset(first + k);
        m_input.notify(sc_core::SC_ZERO_TIME);
        return true;
    }
    return route(
        addr, error, [&](auto& m, uint32_t off) { return m.write_config(off, data, error); },
        [&](uint32_t n, uint32_t word) {
            if (word == BSS2_NRN_RESET) {
                catch_up();
                if (data & 1u) m_neurons.reset(n);
                m_input.notify(sc_core::SC_ZERO_TIME);
                return true;
            }
            if (word == BSS2_NRN_V_MEM) {
                if (error) *error = "neuron word V_MEM is read-only";
                return false;
            }
            neuron_word(n, word, data);
            return true;
        });
}

bool Chip::config_read(uint32_t addr, uint32_t* data, std::string* error) {
    if (addr >= BSS2_NRN_RESET_QUAD_BASE && addr < BSS2_NRN_RESET_QUAD(BSS2_HEMISPHERES, 0)) {
        if (error) *error = "neuron reset quad " + hex(addr) + " is write-only";
        return false;
    }
    return route(
        addr, error, [&](auto& m, uint32_t off) { return m.read_config(off, data, error); },
        [&](uint32_t n, uint32_t word) {
            if (word == BSS2_NRN_V_MEM) {
                catch_up();
                *data = static_cast<uint32_t>(static_cast<int32_t>(m_neurons.v(n) * 1000.0));
                return true;
            }
            if (word == BSS2_NRN_RESET) {
                if (error) *error = "neuron word RESET is write-only";
                return false;
            }
            *data = m_neuron_words[n][word];
            return true;
        });
}

void Chip::inject(uint32_t event16) { m_l2->input(event16, sc_core::sc_time_stamp().value()); }

void Chip::attach_trace(trace::Sink* sink) {
    m_sink = sink;
    if (!sink) return;
    m_spike_table = sink->declare_table(ChipSpikeRecord_schema());
    m_component = sink->component(name());
    for (auto& b : m_padi) b->attach_trace(sink);
    m_fpga->attach_trace(sink);
}

void Chip::write_summary(trace::Sink& sink) {
    catch_up();  // a quiet stretch up to the end of the run (no spikes: see analog_core)
    const auto c = sink.component(name());
    sink.counter(c, "neuron_spikes", "1", static_cast<double>(m_chip_spikes));
    sink.counter(c, "neuron_steps", "1", static_cast<double>(m_neurons.steps()));
    sink.counter(c, "neuron_updates", "1", static_cast<double>(m_neurons.neuron_updates()));
    sink.counter(c, "neuron_leaps", "1", static_cast<double>(m_neurons.leaps()));
    sink.counter(c, "neuron_leap_steps", "1", static_cast<double>(m_neurons.leap_steps()));
    sink.counter(c, "synaptic_inputs", "1", static_cast<double>(m_neurons.inputs()));
    m_backends->write_summary(sink, sink.component(m_backends->name()));
    m_l2->write_summary(sink, sink.component(m_l2->name()));
    m_crossbar->write_summary(sink, sink.component(m_crossbar->name()));
    for (auto& b : m_padi) b->write_summary(sink, sink.component(b->name()));
    for (auto& d : m_drivers) d->write_summary(sink, sink.component(d->name()));
    for (auto& s : m_synapses) s->write_summary(sink, sink.component(s->name()));
    for (auto& g : m_background) g->write_summary(sink, sink.component(g->name()));
    m_madc->write_summary(sink, sink.component(m_madc->name()));
    m_cadc->write_summary(sink, sink.component(m_cadc->name()));
    m_fpga->write_summary(sink, sink.component(m_fpga->name()));
}

}  // namespace nmsim::bss2
