// ARM Cortex-M4F processor model: Unicorn executes the instructions; this module adds what
// Unicorn lacks and ties it to SystemC time.
//
// - Temporal decoupling: the core runs ahead of SystemC time by up to `quantum`, then syncs.
//   It also syncs before every memory-mapped peripheral access, so peripherals see accesses at
//   the right time (error <= one basic block).
// - Time: cycles from a per-basic-block cost table (cycle_model.h) plus a pipeline-refill
//   penalty for taken branches, exception entry/return costs and bus stall delays, at the clock
//   frequency given by the PE's performance level.
// - Exceptions: NVIC/SCB/SysTick/DWT in the System Control Space (scs.h); entry pushes the basic
//   or the extended (FP) frame, return unstacks it; priorities, nesting, tail-chaining through
//   re-evaluation after every return, BASEPRI/PRIMASK/FAULTMASK masking.
// - WFI sleeps the SystemC thread until an interrupt is pending (or SysTick expires).
// - Faults (unmapped or rejected access, undefined instruction, invalid state, unaligned access,
//   division by zero, coprocessor access, invalid exception return, execute-never, lockup) stop
//   the run with an error naming PC, symbol, instruction, address and cause; with fault_policy
//   "vector" they are taken as the architecture defines (ARMv7-M B1.5): MemManage, BusFault or
//   UsageFault when SHCSR enables it and its priority allows, else HardFault (HFSR.FORCED), with
//   CFSR, BFAR and MMFAR set; the checks Unicorn does not make are made per block
//   (block_checks.h). docs/iss.md lists what remains different from the architecture.
// - Semihosting (BKPT 0xAB): SYS_WRITEC, SYS_WRITE0, SYS_WRITE to stdout/stderr, SYS_EXIT,
//   SYS_EXIT_EXTENDED, SYS_CLOCK, SYS_ERRNO, SYS_HEAPINFO: the same ELF runs on QEMU.
#pragma once

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "models/arm/block_checks.h"
#include "models/arm/cycle_model.h"
#include "models/arm/elf_image.h"
#include "models/arm/scs.h"
#include "models/common/irq.h"
#include "models/common/memory.h"
#include "models/common/param.h"
#include "nmsim/trace/sink.h"

struct uc_struct;

namespace nmsim::arm {

struct CoreParams {
    NMSIM_PARAMSET(CoreParams);
    NMSIM_PARAM(Time, quantum, Time::from_ns(1000), "", range(1e3, 1e9),
                "temporal-decoupling quantum: how far the core may run ahead of SystemC time",
                "assumed: 1 us bounds interrupt-sampling error to 300 cycles at 300 MHz; "
                "quantum stop costs ~0.1 us (docs/iss.md)");
    NMSIM_PARAM(std::string, fault_policy, "stop", "", one_of("stop", "vector"),
                "on a fault: stop the run with an error, or vector to the HardFault handler",
                "nmsim choice: stop gives the clearest report; vector is architectural");
    NMSIM_PARAM(uint32_t, priority_bits, 3, "bits", range(2, 8),
                "implemented NVIC priority bits (8 levels with 3)",
                "assumed: Cortex-M4 implementations use 3..8 bits; SpiNNaker2 value not public");
    NMSIM_PARAM(uint32_t, exception_entry_cycles, 12, "cycles", range(0, 100),
                "exception entry latency (basic frame, zero wait states)",
                "Cortex-M4 TRM (ARM 100166) 3.3: interrupt latency 12 cycles");
    NMSIM_PARAM(uint32_t, fp_frame_extra_cycles, 17, "cycles", range(0, 100),
                "cycles to stack S0-S15 and FPSCR: at exception entry when FPCCR.LSPEN is 0, else "
                "when the handler first uses the FPU (lazy stacking)",
                "assumed: one cycle per stacked word (S0-S15, FPSCR)");
    NMSIM_PARAM(uint32_t, exception_return_cycles, 10, "cycles", range(0, 100),
                "exception return (unstacking) cycles", "assumed: ARM Cortex-M4 interrupt return of ~10 cycles");
    NMSIM_PARAM(uint32_t, branch_refill_cycles, 2, "cycles", range(0, 3),
                "pipeline refill P after a taken branch", "Cortex-M4 TRM Table 3-1: P = 1..3");
    NMSIM_PARAM(uint32_t, div_cycles, 7, "cycles", range(2, 12),
                "SDIV/UDIV cycles (data-dependent 2..12 in hardware)",
                "Cortex-M4 TRM Table 3-1: 2..12; midpoint");
    NMSIM_PARAM(Bytes, translation_buffer, Bytes{32 * 1024 * 1024}, "",
                range(1024.0 * 1024, 1024.0 * 1024 * 1024),
                "ISS buffer for translated code, per running core (reserved address space)",
                "nmsim choice: Unicorn 2.0.1 would reserve 1 GiB per core; size and speed "
                "measured in docs/iss.md");
};

enum class FaultCause : uint8_t {
    bus_error = 1,
    unmapped = 2,
    undefined_instruction = 3,
    hard_fault = 4,
    lockup = 5,
    invalid_state = 6,
    breakpoint = 7,
    unaligned = 8,
    divide_by_zero = 9,
    no_coprocessor = 10,
    invalid_exc_return = 11,
    execute_never = 12
};
const char* fault_cause_name(FaultCause c);

class CortexM4F : public sc_core::sc_module, public IrqSink {
public:
    tlm_utils::simple_initiator_socket<CortexM4F> bus;  // memory-mapped peripherals and ext memory

    CortexM4F(sc_core::sc_module_name name, const CoreParams& p, Frequency clock, Memory& sram,
              trace::Sink* sink);
    ~CortexM4F() override;

    // Forwards [base, base+size) to `bus` as memory-mapped I/O (size: multiple of 4 KiB). The ISS
    // engine itself is created only when the core starts.
    void map_bus_window(uint32_t base, uint32_t size);
    // Accesses to [base, base+size) (inside a bus window) do not synchronise the core with
    // SystemC time first: the transaction carries the core's local time offset as its TLM delay
    // (loosely-timed temporal decoupling). Only for targets that take their time as
    // sc_time_stamp() + delay and never wait (the PRNG, the EXP accelerator): firmware reads them
    // once per random number or exponential, and a context switch per read would dominate the
    // simulation.
    void set_decoupled(uint32_t base, uint32_t size) { m_decoupled.push_back({base, size}); }
    // Symbols for fault messages (the image itself is loaded into SRAM by the platform).
    void set_image(const ElfImage* image) { m_image = image; }
    // Releases the core from reset at the current simulation time.
    void start();
    bool started() const { return m_started; }
    // Stops the core (the host has what it needs); it counts as halted, not failed.
    void halt();
    bool halted() const { return m_halted; }
    bool sleeping() const { return m_sleeping; }
    bool iss_created() const { return m_uc != nullptr; }
    Frequency clock() const { return m_clock; }

    std::function<void(char)> semihost_putc;      // semihosting console output
    std::function<void(int code)> on_exit;        // semihosting SYS_EXIT(_EXTENDED)

    void irq_level(unsigned line, bool level) override;

    uint64_t instructions() const { return m_instructions; }
    uint64_t active_cycles() const { return m_ticks - m_sleep_ticks; }
    uint64_t ticks() const { return m_ticks; }
    sc_core::sc_time sleep_time() const { return m_sleep_time; }
    // Time the core was started (zero before), and its sleep time up to `now` including a WFI
    // in progress: the energy model reads these at phase boundaries.
    sc_core::sc_time start_time() const { return m_t0; }
    sc_core::sc_time sleep_time_at(const sc_core::sc_time& now) const {
        return m_in_wfi && now > m_wfi_since ? m_sleep_time + (now - m_wfi_since) : m_sleep_time;
    }
    uint64_t exceptions_taken() const { return m_exceptions; }
    uint32_t pc() const;
    std::string where(uint32_t pc) const;  // "0x000001a4 <main+0x20>"
    void write_summary();

private:
    struct CacheEntry {
        uint32_t tag = 0xFFFFFFFFu;  // block address
        uint32_t size = 0;
        BlockCost cost;
        bool ends_wfi = false;
        uint8_t flags = 0;    // kBlock* (cortex_m4f.cpp): what the block hook must look at
        uint8_t exit_it = 0;  // ITSTATE after the block when it has an IT instruction
        std::unique_ptr<BlockAnalysis> analysis;  // only when the block has checks
    };
    // stop reasons: an interrupt-hook event, an MMIO access that needs a re-evaluation, a block
    // check (a fault to take now, or a run up to a later instruction first)
    enum class Stop { none, intr, mmio, check };
    // A fault as the architecture defines it: the handler it targets, the status it records, the
    // state it stacks, and what the report says.
    struct Fault {
        int exc = kHardFault;  // kMemManage, kBusFault, kUsageFault or kHardFault
        uint32_t cfsr = 0, hfsr = 0;
        uint32_t bfar = 0, mmfar = 0;  // written when cfsr has BFARVALID / MMARVALID
        uint32_t pc = 0;               // stacked return address
        uint32_t xpsr = 0;             // stacked xPSR (flags, IT state, T bit)
        bool tail_chain = false;       // taken on the existing frame (invalid exception return)
        uint32_t exc_return = 0;       // LR for a tail-chained fault
        FaultCause cause = FaultCause::hard_fault;
        uint32_t report_pc = 0;  // the instruction the report names (pc if 0)
        uint32_t addr = 0;       // shown for bus errors and unmapped accesses
        std::string detail;
    };

    void run();
    void reset_core();
    void sync();
    __attribute__((noinline)) bool sync_inside_run();
    sc_core::sc_time time_of(uint64_t ticks) const;
    uint64_t ticks_at(const sc_core::sc_time& t) const;
    void take_pending_exceptions();
    bool preempting_exception_pending(bool ignore_primask) const;
    int execution_priority() const;
    void enter_exception(int exc, uint32_t return_pc, uint32_t xpsr);
    void tail_chain(int exc, uint32_t exc_return);
    bool branch_to_vector(int exc);
    void exception_return(uint32_t exc_return);
    void handle_intr(uint32_t intno);
    void undefined_instruction(uint32_t at);
    void semihosting();
    void sleep();
    void take_fault(const Fault& f);
    void fault(FaultCause cause, uint32_t pc, uint32_t addr, const std::string& detail);
    void stop_with_error(const std::string& msg);
    uint32_t locate_access(uint32_t block, uint32_t addr);
    uint32_t xpsr_at(uint32_t pc);
    BlockAnalysis analyze_block(uint32_t addr, uint32_t size);
    bool needs_checks(uint8_t flags) const;
    __attribute__((noinline)) bool block_flags(const CacheEntry& e, uint32_t addr,
                                               uint8_t entry_it);
    bool prepare_block(const CacheEntry& e, uint32_t addr, uint8_t entry_it);
    __attribute__((noinline)) void stop_before_block(uint32_t addr, uint8_t it);
    bool fp_access_allowed() const;
    void preserve_fp_state();
    void clear_exclusive_monitor();
    uint32_t gpr(int r) const;
    const CacheEntry& block_info(uint32_t addr, uint32_t size);
    uint32_t reg(int r) const;
    void set_reg(int r, uint32_t v);
    void rebuild_flags();
    bool mem_read32(uint32_t addr, uint32_t& v);
    bool mem_write32(uint32_t addr, uint32_t v);
    void trace_irq(int exc, uint8_t kind);
    uint64_t mmio(uint32_t addr, unsigned size, bool is_write, uint64_t value);
    void stop_at_next_block();
    void bus_fault(uint32_t addr, const std::string& why);

    friend struct UcHooks;  // Unicorn callbacks (cortex_m4f.cpp)

    CoreParams m_p;
    Frequency m_clock;
    Memory& m_sram;
    trace::Sink* m_sink;
    trace::ComponentId m_component = 0;
    trace::TableId m_tbl_irq = -1, m_tbl_sleep = -1, m_tbl_fault = -1;
    uc_struct* m_uc = nullptr;
    std::unique_ptr<CycleModel> m_cycles;
    std::unique_ptr<BlockAnalyzer> m_analyzer;
    std::unique_ptr<Scs> m_scs;
    const ElfImage* m_image = nullptr;
    std::vector<CacheEntry> m_cache;
    struct Window {
        uint32_t base, size;
        CortexM4F* core;
        bool scs;  // the core's own System Control Space (not forwarded to `bus`)
    };
    bool create_iss();
    void map_window(Window& w);
    std::vector<std::unique_ptr<Window>> m_windows;
    struct Range {
        uint32_t base, size;
    };
    std::vector<Range> m_decoupled;
    tlm::tlm_generic_payload m_payload;  // reused by mmio(): a payload allocates its extensions

    sc_core::sc_event m_start_event, m_wake_event;
    bool m_started = false, m_halted = false, m_sleeping = false;

    // time: m_ticks processor clock ticks since start (incl. sleep); SystemC time at tick t is
    // m_t0 + t * period.
    sc_core::sc_time m_t0;
    uint64_t m_ticks = 0, m_sync_ticks = 0, m_stop_at = 0, m_quantum_ticks = 1;
    uint64_t m_instructions = 0, m_sleep_ticks = 0, m_exceptions = 0;
    sc_core::sc_time m_sleep_time, m_wfi_since;
    bool m_in_wfi = false;
    uint32_t m_next_pc = 0, m_last_block = 0, m_last_size = 0;
    Stop m_stop = Stop::none;
    bool m_stop_requested = false, m_first_block = false, m_last_transfer = false;
    // IT state: at the entry of the last block that ran, at its end, and of the block the core
    // stopped before (written into the CPU state when the run returns)
    uint8_t m_last_it = 0, m_exit_it = 0, m_pc_it = 0;
    bool m_pc_it_valid = false;
    // ... at the start of the run, ORed over the run's blocks (nonzero: the CPU state may hold
    // an IT state), and the one the CPU state holds at m_known_it_pc (after a stop before a block)
    uint8_t m_start_it = 0, m_run_it = 0, m_known_it = 0;
    uint32_t m_known_it_pc = 0xFFFFFFFFu, m_pc_it_at = 0;
    uint32_t m_intno = 0;
    // block checks: the fault a check found at a block start, or the instruction to run up to
    uint64_t m_until = 0;
    Fault m_check_fault;
    bool m_check_fault_pending = false;
    uint32_t m_step_to = 0;
    uint64_t m_steps = 0, m_steps_since_flush = 0;
    // the local exclusive monitor may be open (an LDREX ran since it was last cleared); the
    // core is running its CLREX stub
    bool m_monitor_open = false, m_in_stub = false;
    std::vector<uint8_t> m_stub_page;
    bool m_fault_pending = false;
    FaultCause m_fault_cause = FaultCause::bus_error;
    uint32_t m_fault_addr = 0;
    std::string m_fault_detail;
};

}  // namespace nmsim::arm
