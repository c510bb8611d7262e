// The PE DMA engine: one channel copying LEN bytes from SRC to DST. Register map:
// firmware/include/nmsim/hw/spinnaker2/dma_regs.h.
//
// Address windows: [S2_SRAM_BASE, S2_SRAM_BASE + sram.size()) is the local SRAM, accessed
// directly through sram.data(); [S2_EXT_BASE, 0xE0000000) is off-PE memory, reached through the
// `ext` initiator socket with transaction addresses relative to S2_EXT_BASE. Any pairing of the two
// works (SRAM<->SRAM, SRAM<->ext, ext<->ext).
//
// A transfer is split into bursts of burst_bytes from its start (the last one may be shorter).
// Timing: setup_cycles, then per burst max(local SRAM time, external time), where
//  - local SRAM time = PE cycles for the sram_bytes_per_cycle-aligned SRAM words the burst touches,
//    counted for the source and again for the destination when both are SRAM (one SRAM port);
//  - external time = the delay annotated by ext b_transport calls of the burst (read, then write;
//    both add up for ext<->ext).
// Data: a burst reads its source at the start of its time slot (the ext read and write are issued
// there, with LT delay annotation); SRAM destinations are written at the end of the slot, so
// firmware never sees bytes earlier than the hardware would. Overlapping source and destination
// ranges behave like memmove: when DST > SRC in the same window, bursts run from the last to
// the first.
//
// Status: an accepted START clears DONE and ERROR and sets BUSY; completion clears BUSY and sets
// DONE. Errors set ERROR and ERR_ADDR and never stop the simulation:
//  - LEN 0: ERR_ADDR = SRC; no transfer;
//  - a source or destination range not inside one window: ERR_ADDR = first byte outside it;
//    detected at START, no bytes move;
//  - an ext error response: the transfer stops at that burst, ERR_ADDR = that burst's address
//    (SRC side for a read, DST side for a write); earlier bursts have moved;
//  - START while BUSY: ignored (the running transfer goes on), ERR_ADDR = the SRC register.
// The irq line is high while CTRL.IRQ_EN and (DONE or ERROR); ACK bit 0 clears DONE and ERROR.
// Each transfer that was accepted or failed at START gives one DmaRecord (events/dma); a START
// while BUSY only counts as an error (a row for it would break the time order of the table).
#pragma once

#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include <cstdint>
#include <vector>

#include "models/common/irq.h"
#include "models/common/memory.h"
#include "models/common/param.h"
#include "models/common/peripheral.h"
#include "nmsim/trace/sink.h"

namespace nmsim::spinnaker2 {

struct DmaParams {
    NMSIM_PARAMSET(DmaParams);
    NMSIM_PARAM(
        uint32_t, setup_cycles, 3500, "cycles", nmsim::range(0, 100000),
        "PE clock cycles from START to the first data access: the per-transfer cost of a DMA "
        "as the seed's firmware sees it (descriptor set-up, bus request, driver overhead)",
        "calibrated against seed 000 Table II (softmax row, 50 us) together with the chip's "
        "core_ext_latency (setup row), docs/calibration.md; not public");
    NMSIM_PARAM(uint32_t, sram_bytes_per_cycle, 16, "B/cycle", nmsim::range(1, 4096),
                "local SRAM width seen by the DMA: aligned words of this size per PE clock cycle",
                "public SpiNNaker2 DNN-mapping simulator, 'PE_SRAM (16 Bytes * 250 MHz)' "
                "(hardware_facts.md A4) [SW] low confidence");
    NMSIM_PARAM(uint32_t, burst_bytes, 64, "B", nmsim::range(1, 65536),
                "bytes per burst: one ext transaction, and the unit a transfer is split into",
                "assumed: 4 beats of 16 B; the DMA API requires 16-byte alignment "
                "(hardware_facts.md A3) [2nd]");
};

class Dma : public nmsim::Peripheral {
public:
    Dma(sc_core::sc_module_name name, const DmaParams& params, nmsim::Frequency clock,
        nmsim::Memory& sram, nmsim::trace::Sink* sink);

    tlm_utils::simple_initiator_socket<Dma> ext;  // off-PE memory: addresses - S2_EXT_BASE
    nmsim::IrqLine irq;

    void write_summary() override;  // counters: transfers, bytes, busy_ps, errors

    uint64_t transfers() const { return m_transfers; }
    uint64_t bytes_moved() const { return m_bytes; }
    uint64_t busy_ps() const { return m_busy_ps; }
    uint64_t errors() const { return m_errors; }

private:
    SC_HAS_PROCESS(Dma);

    enum class Space { sram, ext };
    struct Job {
        uint32_t src = 0, dst = 0, len = 0;
        Space src_space = Space::sram, dst_space = Space::sram;
        uint64_t t_start_ps = 0;
    };

    // Window of [addr, addr + len); false with the first byte outside a window in `bad`.
    bool classify(uint32_t addr, uint32_t len, Space& space, uint32_t& bad) const;
    uint64_t sram_words(uint32_t addr, uint32_t len) const;
    bool ext_access(tlm::tlm_command cmd, uint32_t addr, uint8_t* data, uint32_t len,
                    sc_core::sc_time& delay);

    void write_ctrl(uint32_t v);
    void write_ack(uint32_t v);
    uint32_t read_status() const;
    void start();
    void fail(uint32_t err_addr);
    void record(uint64_t t_start_ps, uint64_t t_end_ps, const Job& j, uint32_t bytes, bool error);
    void update_outputs();
    void run();  // SC_THREAD: one transfer per START

    DmaParams m_params;
    uint64_t m_clock_ps;
    nmsim::Memory& m_sram;
    sc_core::sc_event m_start_ev;
    std::vector<uint8_t> m_buf;
    tlm::tlm_generic_payload m_payload;  // reused: a payload allocates its extension array
    trace::TableId m_tbl = -1;

    Job m_job;
    bool m_irq_en = false;
    bool m_busy = false, m_done = false, m_error = false;
    uint32_t m_err_addr = 0;

    uint64_t m_transfers = 0, m_bytes = 0, m_busy_ps = 0, m_errors = 0;
};

}  // namespace nmsim::spinnaker2
