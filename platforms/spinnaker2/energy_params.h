// Energy parameters of the SpiNNaker2 platforms. Derivations: docs/energy.md. The PE figures come
// in pairs, one per performance level, each valid at that level's reference supply; a run at
// another supply (pe.pl1_voltage = 1.0 V) scales them by (V / V_ref)^2 (CV^2).
#pragma once

#include "models/common/param.h"

namespace nmsim::spinnaker2 {

struct PeEnergyParams {
    NMSIM_PARAMSET(PeEnergyParams);
    NMSIM_PARAM(Voltage, ref_voltage_pl0, Voltage{0.5}, "", range(0.3, 1.5),
                "supply at which the PL0 figures below hold",
                "hardware_facts.md A6: chip power states measured at 0.5 V [2nd]");
    NMSIM_PARAM(Voltage, ref_voltage_pl1, Voltage{0.8}, "", range(0.3, 1.5),
                "supply at which the PL1 figures below hold",
                "hardware_facts.md A6: chip power states measured at 0.8 V [2nd]");
    NMSIM_PARAM(Power, sleep_power_pl0, Power{1.054e-3}, "", range(0, 1),
                "power of a PE whose core sleeps (WFI/WFE) at PL0; also drawn while it is active",
                "derived: (235.4 mW all PEs sleeping - 75.2 mW PEs off) / 152 at 0.5 V, "
                "hardware_facts.md A6 [2nd]");
    NMSIM_PARAM(Power, sleep_power_pl1, Power{3.220e-3}, "", range(0, 1),
                "power of a PE whose core sleeps (WFI/WFE) at PL1; also drawn while it is active",
                "derived: (564.7 - 75.2 mW) / 152 at 0.8 V, hardware_facts.md A6 [2nd]");
    NMSIM_PARAM(Energy, cycle_energy_pl0, Energy{8.298e-12}, "", range(0, 1e-9),
                "energy per active core cycle at PL0 above the sleep power (core, SRAM, bus)",
                "derived: (424.6 mW CoreMark on all PEs - 235.4 mW sleeping) / 152 / 150 MHz, "
                "hardware_facts.md A6 [2nd]");
    NMSIM_PARAM(Energy, cycle_energy_pl1, Energy{14.98e-12}, "", range(0, 1e-9),
                "energy per active core cycle at PL1 above the sleep power",
                "derived: (1247.9 - 564.7 mW) / 152 / 300 MHz, hardware_facts.md A6 [2nd]");
    NMSIM_PARAM(double, gated_ratio, 0.5, "1", range(0, 1),
                "power of a clock-gated PE (core halted after its program, or before it starts "
                "within a run) as a fraction of its sleep power",
                "assumed: clock gating stops the PE's clock tree and peripherals, leakage stays; "
                "no public split of the sleep power");
    NMSIM_PARAM(Energy, mac_energy_pl0, Energy{0.517e-12}, "", range(0, 1e-9),
                "MLA energy per 8-bit multiply-accumulate at PL0, operand SRAM traffic included",
                "derived: (825 mW at 2.281 TOPS - 235.4 mW sleeping) / 1.1405e12 MAC/s at "
                "0.5 V/150 MHz, hardware_facts.md A4/A6 [2nd]");
    NMSIM_PARAM(Energy, mac_energy_pl1, Energy{0.725e-12}, "", range(0, 1e-9),
                "MLA energy per 8-bit multiply-accumulate at PL1",
                "derived: (2219 mW at 4.563 TOPS - 564.7 mW) / 2.2815e12 MAC/s at 0.8 V/300 MHz, "
                "hardware_facts.md A4/A6 [2nd]");
    NMSIM_PARAM(Energy, exp_energy, Energy{0.44e-9}, "", range(0, 1e-6),
                "EXP accelerator energy per exponential at exp_ref_voltage",
                "Partzsch et al. ISCAS 2017, 28 nm prototype: 0.44 nJ/exp at 1.0 V (0.21 nJ at "
                "0.7 V, consistent with CV^2), hardware_facts.md A4 [SI]");
    NMSIM_PARAM(Voltage, exp_ref_voltage, Voltage{1.0}, "", range(0.3, 1.5),
                "supply at which exp_energy holds", "Partzsch et al. ISCAS 2017 [SI]");
    NMSIM_PARAM(Energy, prng_energy, Energy{2e-12}, "", range(0, 1e-9),
                "PRNG energy per 32-bit number read, at the PL1 reference supply",
                "assumed: one KISS64 step is a few 64-bit adders, shifters and registers, well "
                "below one core cycle (cycle_energy_pl1); no public figure");
    NMSIM_PARAM(Energy, dma_byte_energy, Energy{0.5e-12}, "", range(0, 1e-9),
                "DMA engine and local SRAM energy per byte moved, at the PL1 reference supply",
                "assumed: 22 nm SRAM macro access of about 8 pJ per 128-bit word; no public "
                "figure");
};

// Energy of the parts outside the PEs: the chip's infrastructure, NoC, DRAM interfaces and host
// link (SpiNNaker2 chip), or the external memory interface (PE platform).
struct ChipEnergyParams {
    NMSIM_PARAMSET(ChipEnergyParams);
    NMSIM_PARAM(Power, baseline_power, Power{75.2e-3}, "", range(0, 100),
                "power of everything that is on independently of the PEs (clock generation, "
                "router, NoC idle, periphery, leakage of the PEs' power-off state)",
                "hardware_facts.md A6: 75.2 mW with all PEs off [2nd]");
    NMSIM_PARAM(Energy, flit_hop_energy, Energy{9.6e-12}, "", range(0, 1e-9),
                "NoC energy per 192-bit flit per router hop (router and link)",
                "assumed: 0.05 pJ per bit and hop, the order of 22 nm router/link estimates "
                "(DSENT/ORION class); no public figure");
    NMSIM_PARAM(Energy, router_packet_energy, Energy{0.3e-9}, "", range(0, 1e-6),
                "spike router energy per packet routed (one search of the 16,384-entry table, "
                "priority encoding and route read-out)",
                "assumed: no public figure per packet. Basis: a ternary CAM search compares "
                "every entry in parallel, 16,384 x 32 bits here; at about 0.5 fJ per bit and "
                "search (order of low-power TCAM macros) that is 0.26 nJ, rounded to 0.3 nJ");
    NMSIM_PARAM(Energy, router_delivery_energy, Energy{4.8e-12}, "", range(0, 1e-6),
                "energy per multicast copy delivered to a PE (router output and the write into "
                "the receiver's RX FIFO; the NoC hops are charged as flit_hop_energy)",
                "assumed: no public figure. One 96-bit packet moved and stored once at the 0.05 "
                "pJ per bit of flit_hop_energy");
    NMSIM_PARAM(Energy, router_link_packet_energy, Energy{96e-12}, "", range(0, 1e-6),
                "energy per packet sent on a chip link (96 bits, transmitter side)",
                "assumed: no public figure. About 1 pJ per bit for a short-reach low-swing "
                "serial link (hardware_facts.md G: 0.5 V low-swing on-board links [2nd])");
    NMSIM_PARAM(Power, dram_open_power, Power{46.4e-3}, "", range(0, 10),
                "static power of one DRAM interface while it is open: from its first access to "
                "the end of the run, or only while accesses are in flight (dram_close_when_idle)",
                "seed 003 sec. 3.3: closing the prototype's LPDDR2 interface saves 46.4 mW; used "
                "for each LPDDR4 interface (no public LPDDR4 PHY figure)");
    NMSIM_PARAM(bool, dram_close_when_idle, false, "", any(),
                "the software closes each DRAM interface whenever no access is in flight: it "
                "draws dram_open_power only from a request's arrival to its completion",
                "seed 003 sec. 2.2: 'After each image importation ... the DRAM interface is "
                "turned-off'; false keeps it open from its first access on");
    NMSIM_PARAM(Energy, dram_byte_energy, Energy{40e-12}, "", range(0, 1e-6),
                "DRAM energy per byte read or written (device I/O, array and PHY)",
                "assumed: about 5 pJ/bit for LPDDR4 device and interface, the usual literature "
                "order; Horowitz ISSCC 2014 (cited by seed 003 sec. 4.3) gives 1.3-2.6 nJ per "
                "64-bit DDR3 access as an upper bound");
    NMSIM_PARAM(Energy, dram_activation_energy, Energy{1.5e-9}, "", range(0, 1e-6),
                "DRAM energy per row activation (activate and precharge)",
                "assumed: order of (IDD0 - IDD3N) x tRC x VDD of LPDDR4 datasheets; no "
                "SpiNNaker2 figure");
    NMSIM_PARAM(Energy, host_byte_energy, Energy{80e-12}, "", range(0, 1e-6),
                "host link energy per byte in either direction (SGMII SerDes and Ethernet bridge "
                "on the chip side)",
                "assumed: about 10 pJ/bit for a 1 Gbit/s SGMII SerDes; no public figure");
};

// The PE platform (PEs around a plain external memory, no NoC): its infrastructure power and the
// external memory interface.
struct PePlatformEnergyParams {
    NMSIM_PARAMSET(PePlatformEnergyParams);
    NMSIM_PARAM(Power, baseline_power, Power{0.0}, "", range(0, 100),
                "power of the platform's infrastructure outside the PEs",
                "nmsim choice: the PE platform models PEs only (0 W); a scenario that stands for "
                "a chip sets its value (scenarios/s2_proto_sparse_*.yaml: the seed 003 prototype)");
    NMSIM_PARAM(Power, ext_open_power, Power{46.4e-3}, "", range(0, 10),
                "static power of the external memory interface from its first access on",
                "seed 003 sec. 3.3: closing the prototype's LPDDR2 interface saves 46.4 mW");
    NMSIM_PARAM(bool, ext_close_when_idle, false, "", any(),
                "the firmware closes the external memory interface whenever no access is in "
                "flight: it draws ext_open_power only while accesses are served",
                "seed 003 sec. 2.2: 'After each image importation the DRAM interface is "
                "turned-off'; false keeps it open from its first access on");
    NMSIM_PARAM(Energy, ext_byte_energy, Energy{40e-12}, "", range(0, 1e-6),
                "external memory energy per byte read or written",
                "assumed: about 5 pJ/bit for a low-power DRAM and its interface (as "
                "energy.dram_byte_energy of the chip)");
};

}  // namespace nmsim::spinnaker2
