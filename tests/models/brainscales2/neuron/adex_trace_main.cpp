// adex_trace: runs one BSS-2 AdEx neuron (nmsim::bss2::AdexArray) from a key=value description and
// prints its spike times, for the Brian2 comparison (tests/python/test_bss2_brian2.py).
//
//   adex_trace [file]          description from the file, or stdin if none is given
//   adex_trace --bench N T_US  benchmark: N enabled AdEx neurons (exp + adaptation) for T_US us
//
// Description lines ('#' starts a comment):
//   <NeuronConfig field>=<value>   enable, fire, exponential, adaptation (0/1), v_leak, ..., w_inh
//                                  in the units of NeuronConfig (mV, pF, us, uS, nA)
//   param.<AdexParams key>=<value> e.g. param.dt=10ns, param.noise_mV=0 (mismatch and noise
//                                  default to 0 here, unlike AdexParams)
//   seed=<u64>
//   duration_us=<double>
//   sample_us=<double>             optional: print V every sample_us (from t = 0)
//   input=<t_us> <exc|inh> <amount>  one synaptic event (amount = weight x efficacy)
// Output lines: "spike <t_ps>", "v <t_ps> <mV>", and a final "stats steps=... spikes=...".
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "models/brainscales2/neuron/adex_array.h"

namespace {

using nmsim::bss2::AdexArray;
using nmsim::bss2::AdexParams;
using nmsim::bss2::NeuronConfig;

[[noreturn]] void die(const std::string& msg) {
    std::cerr << "adex_trace: " << msg << "\n";
    std::exit(2);
}

double to_double(const std::string& key, const std::string& v) {
    try {
        size_t pos = 0;
        const double d = std::stod(v, &pos);
        if (pos != v.size()) throw std::invalid_argument(v);
        return d;
    } catch (const std::exception&) {
        die("bad number for " + key + ": '" + v + "'");
    }
}

bool set_config(NeuronConfig& c, const std::string& k, const std::string& v) {
    const std::map<std::string, bool*> flags = {{"enable", &c.enable},
                                                {"fire", &c.fire},
                                                {"exponential", &c.exponential},
                                                {"adaptation", &c.adaptation}};
    const std::map<std::string, double*> values = {{"v_leak", &c.v_leak},
                                                   {"v_reset", &c.v_reset},
                                                   {"v_threshold", &c.v_threshold},
                                                   {"v_exp", &c.v_exp},
                                                   {"delta_t", &c.delta_t},
                                                   {"c_mem", &c.c_mem},
                                                   {"tau_mem", &c.tau_mem},
                                                   {"tau_syn_exc", &c.tau_syn_exc},
                                                   {"tau_syn_inh", &c.tau_syn_inh},
                                                   {"tau_w", &c.tau_w},
                                                   {"t_ref", &c.t_ref},
                                                   {"a", &c.a},
                                                   {"b", &c.b},
                                                   {"i_offset", &c.i_offset},
                                                   {"w_exc", &c.w_exc},
                                                   {"w_inh", &c.w_inh}};
    if (auto f = flags.find(k); f != flags.end()) {
        *f->second = to_double(k, v) != 0.0;
        return true;
    }
    if (auto d = values.find(k); d != values.end()) {
        *d->second = to_double(k, v);
        return true;
    }
    if (k == "addr") {
        c.addr = static_cast<uint32_t>(to_double(k, v));
        return true;
    }
    return false;
}

AdexParams quiet_params() {
    AdexParams p;
    p.mismatch_tau_rel = p.mismatch_c_rel = p.mismatch_w_rel = p.mismatch_v_mV = 0.0;
    p.noise_mV = 0.0;
    return p;
}

int bench(size_t n, double t_us) {
    AdexParams p;  // defaults: mismatch on, noise off
    AdexArray arr(n, p, 1);
    NeuronConfig c;
    c.enable = c.fire = c.exponential = c.adaptation = true;
    if (std::getenv("ADEX_BENCH_LIF")) c.exponential = c.adaptation = false;
    c.v_leak = 375;
    c.v_reset = 328;
    c.v_threshold = 620;
    c.v_exp = 560;
    c.delta_t = 10;
    c.a = 0.02;
    c.b = 0.05;
    c.tau_w = 100;
    for (size_t i = 0; i < n; ++i) {
        c.i_offset = 40.0 + 0.04 * static_cast<double>(i);  // a spread of firing rates
        arr.configure(i, c);
    }
    // Poisson-like input: one excitatory event per neuron every ~2 us.
    const uint64_t end_ps = static_cast<uint64_t>(t_us * 1e6);
    uint64_t spikes = 0;
    const auto t0 = std::chrono::steady_clock::now();
    const std::clock_t c0 = std::clock();
    for (uint64_t t = 0; t < end_ps; t += 2'000'000) {
        for (size_t i = 0; i < n; ++i)
            arr.add_input(i, (i % 4) == 3, 10, t + (i * 3907) % 2'000'000);
        arr.advance_to(t + 2'000'000, [&spikes](uint32_t, uint64_t) { ++spikes; });
    }
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double cpu = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
    std::printf(
        "bench neurons=%zu hw_time_us=%g steps=%llu neuron_updates=%llu spikes=%llu "
        "inputs=%llu wall_s=%.4f cpu_s=%.4f updates_per_cpu_s=%.4g\n",
        n, t_us, static_cast<unsigned long long>(arr.steps()),
        static_cast<unsigned long long>(arr.neuron_updates()),
        static_cast<unsigned long long>(spikes), static_cast<unsigned long long>(arr.inputs()),
        wall, cpu, static_cast<double>(arr.neuron_updates()) / cpu);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc == 4 && std::string(argv[1]) == "--bench") {
        return bench(static_cast<size_t>(std::stoul(argv[2])), std::stod(argv[3]));
    }
    std::ifstream file;
    if (argc == 2) {
        file.open(argv[1]);
        if (!file) die(std::string("cannot open ") + argv[1]);
    } else if (argc != 1) {
        die("usage: adex_trace [file] | adex_trace --bench N T_US");
    }
    std::istream& in = argc == 2 ? static_cast<std::istream&>(file) : std::cin;

    NeuronConfig cfg;
    AdexParams params = quiet_params();
    const auto flat = nmsim::flatten(params);
    uint64_t seed = 1;
    double duration_us = -1, sample_us = 0;
    struct Input {
        double t_us;
        bool inh;
        double amount;
    };
    std::vector<Input> inputs;
    std::string line;
    int lineno = 0;
    while (std::getline(in, line)) {
        ++lineno;
        if (auto h = line.find('#'); h != std::string::npos) line.erase(h);
        const auto eq = line.find('=');
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        if (eq == std::string::npos) die("line " + std::to_string(lineno) + ": expected key=value");
        auto trim = [](std::string s) {
            s.erase(0, s.find_first_not_of(" \t\r"));
            s.erase(s.find_last_not_of(" \t\r") + 1);
            return s;
        };
        const std::string k = trim(line.substr(0, eq)), v = trim(line.substr(eq + 1));
        if (k.rfind("param.", 0) == 0) {
            bool found = false;
            for (const auto& f : flat) {
                if (f.path != k.substr(6)) continue;
                std::string err;
                if (!f.set(v, err)) die("line " + std::to_string(lineno) + ": " + k + ": " + err);
                found = true;
            }
            if (!found) die("line " + std::to_string(lineno) + ": unknown parameter " + k);
        } else if (k == "seed") {
            seed = static_cast<uint64_t>(std::stoull(v));
        } else if (k == "duration_us") {
            duration_us = to_double(k, v);
        } else if (k == "sample_us") {
            sample_us = to_double(k, v);
        } else if (k == "input") {
            std::istringstream is(v);
            Input e{};
            std::string rec;
            if (!(is >> e.t_us >> rec >> e.amount) || (rec != "exc" && rec != "inh"))
                die("line " + std::to_string(lineno) + ": input=<t_us> <exc|inh> <amount>");
            e.inh = rec == "inh";
            inputs.push_back(e);
        } else if (!set_config(cfg, k, v)) {
            die("line " + std::to_string(lineno) + ": unknown key " + k);
        }
    }
    if (duration_us < 0) die("duration_us missing");

    AdexArray arr(1, params, seed);
    try {
        arr.configure(0, cfg);
    } catch (const std::exception& e) {
        die(e.what());
    }
    for (const Input& e : inputs)
        arr.add_input(0, e.inh, e.amount, static_cast<uint64_t>(std::llround(e.t_us * 1e6)));
    auto on_spike = [](uint32_t, uint64_t t) {
        std::printf("spike %llu\n", static_cast<unsigned long long>(t));
    };
    const uint64_t end_ps = static_cast<uint64_t>(std::llround(duration_us * 1e6));
    if (sample_us > 0) {
        const uint64_t every = static_cast<uint64_t>(std::llround(sample_us * 1e6));
        for (uint64_t t = 0; t <= end_ps; t += every) {
            arr.advance_to(t, on_spike);
            std::printf("v %llu %.9g\n", static_cast<unsigned long long>(arr.now_ps()), arr.v(0));
        }
    }
    arr.advance_to(end_ps, on_spike);
    std::printf("stats steps=%llu spikes=%llu inputs=%llu\n",
                static_cast<unsigned long long>(arr.steps()),
                static_cast<unsigned long long>(arr.spikes()),
                static_cast<unsigned long long>(arr.inputs()));
    return 0;
}

// libsystemc.so (linked through nmsim_models) has its own main() that references sc_main; ours
// above is the one that runs.
extern "C" int sc_main(int, char**) { return 1; }
