#include "platforms/spinnaker2/variants.h"

namespace nmsim::spinnaker2 {

// The energy figures: docs/energy.md "Prototype check" derives each one. The PE figures are the
// final chip's PL1 figures (22FDX, 0.8 V, energy_params.h) divided by 0.3 (the 28 nm prior);
// energy.baseline_power is the one number fitted on a measurement.
const scenario::PlatformVariant& prototype_variant() {
    static const scenario::PlatformVariant v{
        "spinnaker2_chip",
        "prototype",
        "the 28 nm SpiNNaker2 prototype of seed 003: 4 PEs at 500 MHz and 1.0 V, one LPDDR2 "
        "interface to 128 MB DRAM",
        {
            {"qpe_count", "1", "seed 003 sec. 2.1: four PEs (one QPE of this model)"},
            {"pe.perf_level", "1",
             "seed 003 sec. 3.2: one operating point, 500 MHz; modelled as PL1 with the clock "
             "and supply below"},
            {"pe.pl1_freq", "500 MHz", "seed 003 sec. 3.2: the prototype runs at 500 MHz"},
            {"pe.pl1_voltage", "1.0 V",
             "Hoeppner et al., TCAS-I 2019 (arXiv:1903.08941): the 28 nm test chip's PEs reach "
             "500 MHz at 1.0 V, its highest level; Partzsch et al., ISCAS 2017: 250 Mexp/s at "
             "1.0 V (hardware_facts.md A2, A4)"},
            {"pe.sram_size", "128 KiB",
             "seed 003 sec. 2.1: 128 KB SRAM per PE (64 KB instruction + 64 KB data), unified "
             "in this model"},
            {"dram.size", "128 MiB",
             "seed 003 sec. 2.1: an LPDDR2 interface to 128 MB off-chip DRAM (one 1 Gb x32 "
             "LPDDR2 device holds 128 MiB)"},
            {"dram.channels", "1", "seed 003 sec. 2.1: one LPDDR2 interface"},
            {"dram.bandwidth", "3.2 GB/s",
             "assumed LPDDR2-800 x32 (JEDEC JESD209-2 class): 800 MT/s x 4 B; the seed gives "
             "no DRAM speed or width"},
            {"dram.burst_bytes", "32", "assumed LPDDR2 BL8 x 32 bit = 32 B (JESD209-2)"},
            {"dram.banks", "8", "assumed LPDDR2-S4 1 Gb device: 8 banks (JESD209-2)"},
            {"dram.row_bytes", "2 KiB",
             "assumed LPDDR2-S4 1 Gb x32 device: 512 columns x 32 bit (JESD209-2)"},
            {"dram.t_rcd", "18 ns", "assumed LPDDR2 tRCD 18 ns, a common JESD209-2 speed bin"},
            {"dram.t_rp", "18 ns", "assumed LPDDR2 tRPpb 18 ns, a common JESD209-2 speed bin"},
            {"dram.t_rl", "15 ns", "assumed LPDDR2-800: RL 6 tCK x 2.5 ns (JESD209-2)"},
            {"dram.t_wl", "7.5 ns", "assumed LPDDR2-800: WL 3 tCK x 2.5 ns (JESD209-2)"},
            {"pe.energy.ref_voltage_pl1", "1.0 V",
             "the PL1 figures below hold at the prototype's own supply (no CV^2 step)"},
            {"pe.energy.sleep_power_pl1", "10.73 mW",
             "prior: 3.220 mW (final chip, 0.8 V) / 0.3; GLOBALFOUNDRIES 22FDX launch (2015): "
             "'70 % lower power than 28 nm HKMG' at equal performance, docs/energy.md"},
            {"pe.energy.cycle_energy_pl1", "49.93 pJ",
             "prior: 14.98 pJ (final chip, 0.8 V) / 0.3, as sleep_power_pl1; docs/energy.md"},
            {"pe.energy.mac_energy_pl1", "2.417 pJ",
             "prior: 0.725 pJ (final chip, 0.8 V) / 0.3, as sleep_power_pl1 (the prototype has "
             "no MLA; kept consistent)"},
            {"pe.energy.prng_energy", "6.667 pJ",
             "prior: 2 pJ (assumed for the final chip at 0.8 V) / 0.3, as sleep_power_pl1"},
            {"pe.energy.dma_byte_energy", "1.667 pJ",
             "prior: 0.5 pJ (assumed for the final chip at 0.8 V) / 0.3, as sleep_power_pl1"},
            {"energy.dram_open_power", "46.4 mW",
             "seed 003 sec. 3.3: closing the prototype's LPDDR2 interface saves 46.4 mW"},
            {"energy.dram_close_when_idle", "true",
             "seed 003 sec. 2.2: 'After each image importation ... the DRAM interface is "
             "turned-off'"},
            {"energy.baseline_power", "52.03 mW",
             "FITTED (the variant's one fitted number): seed 003 sec. 3.3's 87.9 mW while "
             "training on one core with the accelerators (1PA) minus the model's 35.87 mW for "
             "scenarios/s2_proto_deepr_1pa.yaml's PE, DRAM and NoC; docs/energy.md"},
        }};
    return v;
}

}  // namespace nmsim::spinnaker2
