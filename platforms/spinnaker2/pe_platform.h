// The SpiNNaker2 processing-element platform: one or more PEs (Cortex-M4F core, local SRAM, MLA,
// EXP, PRNG, two timers, DMA, host mailbox, debug console, PE-to-PE signal unit, multicast comms
// controller on a PE-local bus) sharing a host-visible external memory at S2_EXT_BASE (the DRAM
// window; the full chip, platforms/spinnaker2/chip.h, puts the NoC and DRAM there instead). The
// signal unit has no NoC here and the comms unit no spike router: their sends are bus errors.
// Wiring and address maps only: behaviour lives in the models.
#pragma once

#include <systemc>

#include <memory>
#include <string>
#include <vector>

#include "models/arm/cortex_m4f.h"
#include "models/common/memory.h"
#include "models/common/param.h"
#include "models/common/router.h"
#include "models/spinnaker2/comms/comms.h"
#include "models/spinnaker2/console/console.h"
#include "models/spinnaker2/dma/dma.h"
#include "models/spinnaker2/exp/exp_accel.h"
#include "models/spinnaker2/mailbox/mailbox.h"
#include "models/spinnaker2/mla/mla.h"
#include "models/spinnaker2/prng/prng.h"
#include "models/spinnaker2/signal/signal.h"
#include "models/spinnaker2/timer/timer.h"
#include "platforms/spinnaker2/energy_params.h"

namespace nmsim::spinnaker2 {

struct PeParams {
    NMSIM_PARAMSET(PeParams);
    NMSIM_PARAM(uint32_t, perf_level, 1, "1", range(0, 1),
                "performance level: 0 runs at pl0_freq/pl0_voltage, 1 at pl1_freq/pl1_voltage",
                "hardware_facts.md A2: two clock speeds in SpiNNMachine version_spin2.py [SW]");
    NMSIM_PARAM(Frequency, pl0_freq, Frequency::from_mhz(150), "", range(1e6, 2e9),
                "PE clock at performance level 0",
                "SpiNNMachine version_spin2.py clock_speeds_hz[0] [SW]; 150 MHz at 0.5 V [2nd]");
    NMSIM_PARAM(Voltage, pl0_voltage, Voltage{0.5}, "", range(0.3, 1.2),
                "PE supply at performance level 0", "hardware_facts.md A2: 0.5 V rail [2nd]");
    NMSIM_PARAM(Frequency, pl1_freq, Frequency::from_mhz(300), "", range(1e6, 2e9),
                "PE clock at performance level 1",
                "SpiNNMachine version_spin2.py clock_speeds_hz[1] [SW]; 300 MHz at 0.8 V [2nd]");
    NMSIM_PARAM(Voltage, pl1_voltage, Voltage{0.8}, "", range(0.3, 1.2),
                "PE supply at performance level 1", "hardware_facts.md A2: 0.8 V rail [2nd]");
    NMSIM_PARAM(Bytes, sram_size, Bytes{128 * 1024}, "", range(16 * 1024, 16 * 1024 * 1024),
                "local SRAM per PE (multiple of 4 KiB)", "seed 000 sec. I: 'a local 128 kB SRAM'");
    NMSIM_GROUP(arm::CoreParams, core, "Cortex-M4F core");
    NMSIM_GROUP(MlaParams, mla, "MLA: 4x16 MAC array");
    NMSIM_GROUP(ExpParams, exp, "EXP accelerator");
    NMSIM_GROUP(PrngParams, prng, "pseudo-random number generator");
    NMSIM_GROUP(DmaParams, dma, "DMA engine");
    NMSIM_GROUP(TimerParams, timer, "timers (both instances)");
    NMSIM_GROUP(CommsParams, comms, "multicast communication controller (docs/router.md)");
    NMSIM_GROUP(PeEnergyParams, energy, "energy per event and power per state (docs/energy.md)");

    Frequency clock() const { return perf_level == 0 ? pl0_freq : pl1_freq; }
    Voltage voltage() const { return perf_level == 0 ? pl0_voltage : pl1_voltage; }
};

struct ExtMemParams {
    NMSIM_PARAMSET(ExtMemParams);
    NMSIM_PARAM(Bytes, size, Bytes{16 * 1024 * 1024}, "", range(4096, 2147483648.0),
                "host-visible external memory mapped at S2_EXT_BASE (multiple of 4 KiB)",
                "assumed: a 16 MiB slice of the 2 GB DRAM (seed 000 sec. I) keeps runs light");
    NMSIM_PARAM(Time, latency, Time::from_ns(100), "", range(0, 1e8),
                "latency per access to the external memory",
                "assumed: typical LPDDR4 random-access latency; replaced by the DRAM model later");
    NMSIM_PARAM(Bandwidth, bandwidth, Bandwidth{6.4e9}, "", range(1e6, 1e12),
                "external memory bandwidth per access stream",
                "SpiNNaker2 datasheet v0.03: up to 6.4 GB/s sustained DRAM transfer [DS]");
};

struct SimParams {
    NMSIM_PARAMSET(SimParams);
    NMSIM_PARAM(Time, max_time, Time::from_us(1e6), "", range(1e3, 1e15),
                "simulated-time limit: a run that has not finished by then fails as a timeout",
                "nmsim choice: 1 s of simulated time");
};

struct PePlatformParams {
    NMSIM_PARAMSET(PePlatformParams);
    NMSIM_PARAM(uint32_t, pe_count, 1, "1", range(1, 152),
                "processing elements on the platform (each runs its own firmware)",
                "seed 000 sec. I: 152 PEs per chip (upper bound)");
    NMSIM_GROUP(PeParams, pe, "processing element (all PEs)");
    NMSIM_GROUP(ExtMemParams, ext, "host-visible external memory");
    NMSIM_GROUP(PePlatformEnergyParams, energy, "platform and external memory energy");
    NMSIM_GROUP(SimParams, sim, "simulation control");
};

// One PE: the core with its SRAM and peripherals on a PE-local bus.
class Pe : public sc_core::sc_module {
public:
    Pe(sc_core::sc_module_name name, const PeParams& p, uint64_t seed, trace::Sink* sink,
       bool console_stdout);

    Memory sram;
    Router bus;
    arm::CortexM4F core;
    Mla mla;
    ExpAccel exp;
    Prng prng;
    Timer timer0, timer1;
    Dma dma;
    Mailbox mailbox;
    Console console;
    Signal signal;  // PE-to-PE signals; its NoC sockets are bound by the chip only
    Comms comms;    // multicast packets; its NoC sockets and router are set by the chip only

    // Peripherals that report summary counters.
    std::vector<Peripheral*> peripherals();

    // Copies the image's segments into SRAM (throws naming the file if one does not fit) and
    // gives the core its symbols.
    void load(const arm::ElfImage& image);
    // Writes the host argument block (S2_ARGS_BASE) the firmware reads with s2_arg(i); throws
    // std::invalid_argument beyond S2_ARGS_WORDS words.
    void set_args(const std::vector<uint32_t>& words);

    // How the program ended: set by the host mailbox doorbell or semihosting exit.
    bool exited = false;
    int exit_code = -1;
    sc_core::sc_time exit_time;
    std::function<void()> on_exit;  // the platform's "all cores done?" check

    const PeParams& params() const { return m_p; }

private:
    PeParams m_p;
};

// The PEs of a platform and the bookkeeping every platform shares: which cores were started, and
// stopping the simulation once all of them have exited.
class PeSet {
public:
    Pe& add(std::unique_ptr<Pe> pe);  // takes ownership and hooks its exit
    Pe& at(size_t i) { return *m_pes.at(i); }
    size_t size() const { return m_pes.size(); }
    // Starts the cores of the given PEs (loaded before); the simulation stops when all of them
    // have exited.
    void start(const std::vector<size_t>& pes);
    bool all_exited() const;
    size_t iss_count() const;  // cores that created an ISS (started ones only)
    void write_summaries();    // console flush, core and peripheral counters of every PE

private:
    std::vector<std::unique_ptr<Pe>> m_pes;
    std::vector<size_t> m_running;
};

class PePlatform : public sc_core::sc_module {
public:
    PePlatform(sc_core::sc_module_name name, const PePlatformParams& p, uint64_t seed,
               trace::Sink* sink, bool console_stdout);

    const PePlatformParams& params() const { return m_p; }
    Pe& pe(size_t i) { return m_pes.at(i); }
    size_t pe_count() const { return m_pes.size(); }
    Memory& ext() { return m_ext; }
    Router& ext_bus() { return m_ext_bus; }
    void write_summaries() { m_pes.write_summaries(); }
    // Starts the cores that have firmware; the simulation stops when all of them have exited.
    void start(const std::vector<size_t>& pes) { m_pes.start(pes); }
    bool all_exited() const { return m_pes.all_exited(); }

private:
    PePlatformParams m_p;
    Memory m_ext;
    Router m_ext_bus;
    PeSet m_pes;
};

// Seed of PE `index` from the run's seed (each PE's PRNG gets its own stream).
uint64_t pe_seed(uint64_t seed, size_t index);

}  // namespace nmsim::spinnaker2
