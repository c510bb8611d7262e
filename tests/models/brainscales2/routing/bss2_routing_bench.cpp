// Speed check (not a test): synaptic events per wall second through SynapseDrivers +
// SynapseArray with every synapse of a hemisphere matching. All 128 drivers accept every event
// of their bus and both their rows are excitatory; all 256 x 256 synapses carry label 0 and a
// non-zero weight, so one PADI event on a bus produces 32 drivers x 2 rows x 256 columns =
// 16384 synaptic events. Usage: bss2_routing_bench [events per bus]
#include <systemc>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>

#include "models/brainscales2/routing/synapse_array.h"
#include "models/brainscales2/routing/synapse_drivers.h"
#include "nmsim/hw/brainscales2/bss2_map.h"

int sc_main(int argc, char** argv) {
    using namespace nmsim::bss2;
    sc_core::sc_set_time_resolution(1, sc_core::SC_PS);
    const long events_per_bus = argc > 1 ? std::atol(argv[1]) : 2000;
    SynapseDrivers drv("drv", 0);
    SynapseArray syn("syn", 0);
    std::string err;
    for (uint32_t d = 0; d < BSS2_DRIVERS; ++d) {
        const uint32_t cfg =
            1u << 8 | BSS2_ROW_EXCITATORY << 12 | BSS2_ROW_EXCITATORY << 14 | 1u << 17;
        if (!drv.write_config(d * 4, cfg, &err)) {
            std::fprintf(stderr, "%s\n", err.c_str());
            return 1;
        }
    }
    for (uint32_t i = 0; i < BSS2_ROWS * BSS2_COLUMNS; ++i) {
        if (!syn.write_config(i, 1 + i % 63, &err)) {
            std::fprintf(stderr, "%s\n", err.c_str());
            return 1;
        }
    }
    // The neuron side's minimum work: accumulate the charge per column.
    double acc[BSS2_COLUMNS] = {};
    drv.bind_rows([&syn](uint32_t row, uint32_t label, double eff, bool inh, uint64_t t) {
        syn.row_event(row, label, eff, inh, t);
    });
    syn.bind_synapse([&acc](const SynapticInput* in, size_t n, bool, uint64_t) {
        for (size_t k = 0; k < n; ++k) acc[in[k].column] += in[k].amount;
    });
    const auto t0 = std::chrono::steady_clock::now();
    const std::clock_t c0 = std::clock();
    uint64_t t_ps = 0;
    for (long k = 0; k < events_per_bus; ++k) {
        for (uint32_t bus = 0; bus < BSS2_PADI_PER_HEMI; ++bus) {
            drv.input(bus, 0, t_ps);
            t_ps += 8000;
        }
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    // CPU time as well: on a loaded machine the wall figure mostly measures the load.
    const double cpu = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
    double sum = 0;
    for (double a : acc) sum += a;
    const double n = static_cast<double>(syn.synaptic_events());
    std::printf("padi events: %lu, row events: %lu, synaptic events: %.0f in %.3f s\n",
                static_cast<unsigned long>(drv.driver_events() / 32u),
                static_cast<unsigned long>(syn.row_events()), n, s);
    std::printf("synaptic events per wall second: %.3g (per CPU second: %.3g; checksum %.6g)\n",
                n / s, cpu > 0 ? n / cpu : 0.0, sum);
    return n == static_cast<double>(events_per_bus) * 4.0 * 16384.0 ? 0 : 1;
}
