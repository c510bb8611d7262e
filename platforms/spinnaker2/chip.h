// The SpiNNaker2 chip: 4 * qpe_count PEs on the data NoC, two LPDDR4 interfaces, a host endpoint
// and the multicast spike router. Wiring and address maps only: behaviour lives in the models.
//
// Per PE with global index i = 4 * qpe_index + pe (its NoC endpoint, noc_map.h):
//  - outbound: the core's bus window [S2_EXT_BASE, 0xE0000000) (the whole off-PE range: DRAM,
//    other PEs' SRAM, the router, host), the DMA's `ext`, the signal unit's `tx` and the comms
//    unit's `tx` all reach the NoC through a per-PE router `pe<i>_ext`, with addresses minus
//    S2_EXT_BASE (the DMA's convention); the NoC port adds S2_EXT_BASE back
//    (Noc::set_in_address_offset).
//  - inbound: NoC out[i] feeds a per-PE router `pe<i>_noc_port` that decodes the PE's 512 KiB
//    global window: SRAM at offset 0, the comms RX window at S2_COMMS_RX_OFFSET, the signal
//    unit's receive window at S2_SIGNAL_RX_OFFSET; anything else is an address error naming the
//    gap. So the NoC is built with pe_sram_size = the whole window and n_qpes = qpe_count (the
//    chip sets both; noc.pe_sram_size and noc.n_qpes from the parameters are not used).
//  - flow control: the comms unit and the spike router see each other through McRouterIf
//    (docs/router.md); the router knows every PE's RX FIFO depth.
// DRAM: one DramCtrl per interface, each a single channel (dram.channels is 2, the two NoC DRAM
// endpoints, or 1, interface 0 only, as on the prototype; interleave 0: the NoC splits the
// interfaces by address). Each controller serves dram.size / dram.channels bytes at the offsets
// the NoC delivers (offset inside its interface); with one interface, an access to the second
// interface's window is an address error.
// Host: a HostLink on the host endpoint, both ways: its `init` drives noc.in[host] with global
// addresses (no address offset), noc.out[host] reaches its host-side buffer (window
// S2_HOST_GLOBAL_BASE). The host program uses host().write/read/signal.
// Spike router: a SpikeRouter on the router endpoint (mesh node (4, 3)), both ways:
// noc.out[router] reaches its window (S2_ROUTER_GLOBAL_BASE: registers, multicast input port,
// table), its `noc_out` drives noc.in[router] with global addresses. router() gives it.
#pragma once

#include <systemc>

#include <memory>
#include <string>
#include <vector>

#include "models/common/param.h"
#include "models/common/router.h"
#include "models/spinnaker2/dram/dram_ctrl.h"
#include "models/spinnaker2/hostlink/host_link.h"
#include "models/spinnaker2/noc/noc.h"
#include "models/spinnaker2/router/spike_router.h"
#include "platforms/spinnaker2/pe_platform.h"

namespace nmsim::spinnaker2 {

struct ChipParams {
    NMSIM_PARAMSET(ChipParams);
    NMSIM_PARAM(uint32_t, qpe_count, 38, "1", range(1, 38),
                "QPEs built: the first qpe_count of the QUAD_MAP order (fewer for small runs)",
                "hardware_facts.md A1: QUAD_MAP, 38 QPEs = 152 PEs [SW]");
    NMSIM_GROUP(PeParams, pe, "processing element (all PEs; perf_levels overrides the level per PE)");
    NMSIM_PARAM(Time, core_ext_latency, Time::from_ns(275), "", range(0, 1e8),
                "extra latency of each core load/store to the off-PE window (DRAM, other PEs' "
                "SRAM, host): the core's path into the NoC, not taken by the DMA",
                "calibrated against seed 000 Table II (setup row, 12 us with 8 workers) together "
                "with pe.dma.setup_cycles (softmax row), docs/calibration.md; not public");
    NMSIM_PARAM(std::string, perf_levels, "", "", any(),
                "per-PE performance levels over pe.perf_level: 'PE:level' or 'FIRST-LAST:level', "
                "comma separated, e.g. '0:1,8-15:0'",
                "hardware_facts.md A2: each PE has its own power domain and performance "
                "level [2nd]; nmsim offers the two public levels (pl0/pl1)");
    NMSIM_GROUP(NocParams, noc, "data NoC (n_qpes and pe_sram_size are set by the chip)");
    NMSIM_GROUP(DramParams, dram, "DRAM: one controller per interface, dram.size split evenly");
    NMSIM_GROUP(HostLinkParams, host, "host link (Ethernet bridge)");
    NMSIM_GROUP(SpikeRouterParams, router, "multicast spike router (docs/router.md)");
    NMSIM_GROUP(ChipEnergyParams, energy,
                "infrastructure, NoC, DRAM and host-link energy (docs/energy.md)");
    NMSIM_GROUP(SimParams, sim, "simulation control");
};

// Bytes of one DRAM interface: dram.size split evenly over dram.channels interfaces.
uint64_t dram_if_size(const ChipParams& p);

// Performance level of every PE: `defaults` everywhere, then the overrides of `spec`
// ("0:1,8-15:0"). Throws std::invalid_argument naming the bad entry.
std::vector<uint32_t> parse_perf_levels(const std::string& spec, size_t pe_count, uint32_t defaults);

class Chip : public sc_core::sc_module {
public:
    // Throws std::invalid_argument for parameters the chip cannot wire (see above).
    Chip(sc_core::sc_module_name name, const ChipParams& p, uint64_t seed, trace::Sink* sink,
         bool console_stdout);
    ~Chip() override;

    const ChipParams& params() const { return m_p; }
    size_t pe_count() const { return m_pes.size(); }
    Pe& pe(size_t global_index) { return m_pes.at(global_index); }
    Noc& noc() { return m_noc; }
    DramCtrl& dram(unsigned dram_if) { return *m_dram.at(dram_if); }
    size_t dram_count() const { return m_dram.size(); }
    HostLink& host() { return m_host; }
    SpikeRouter& router() { return m_router; }

    // Starts the cores of the given PEs (loaded before); the simulation stops when all of them
    // have exited.
    void start(const std::vector<size_t>& pes) { m_pes.start(pes); }
    bool all_exited() const { return m_pes.all_exited(); }
    // Cores that have created an ISS (started cores only: idle PEs cost no ISS memory).
    size_t iss_count() const { return m_pes.iss_count(); }
    void write_summaries();

private:
    static NocParams noc_params(const ChipParams& p);
    static DramParams dram_params(const ChipParams& p);

    ChipParams m_p;
    Noc m_noc;
    std::vector<std::unique_ptr<DramCtrl>> m_dram;
    HostLink m_host;
    SpikeRouter m_router;
    PeSet m_pes;
    std::vector<std::unique_ptr<Router>> m_ext;       // per PE: outbound to the NoC
    std::vector<std::unique_ptr<Router>> m_core_ext;  // per PE: the core's path into m_ext
    std::vector<std::unique_ptr<Router>> m_noc_port;  // per PE: inbound from the NoC
};

}  // namespace nmsim::spinnaker2
