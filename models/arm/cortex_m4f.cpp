#include "models/arm/cortex_m4f.h"

#include <capstone/capstone.h>
#include <dlfcn.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unicorn/unicorn.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "models/common/hex.h"
#include "models/common/peripheral.h"
#include "models/common/sim_error.h"
#include "models/common/trace_records.h"

namespace nmsim::arm {
namespace {

constexpr uint64_t kUntil = 0xDFFFFFFEu;  // never reached: a real `until` re-translates code
constexpr size_t kCacheEntries = 4096;    // direct-mapped block-cost cache
constexpr uint64_t kStepsPerFlush = 4096;  // runs to an instruction between buffer flushes
constexpr uint32_t kNoPc = 0xFFFFFFFFu;    // no PC (Thumb code is at even addresses)

// CacheEntry::flags: the block has alignment, UNALIGN_TRP, divide or FP checks, an LDREX, an IT
// instruction
constexpr uint8_t kBlockAlign = 1, kBlockAlignTrp = 2, kBlockDiv = 4, kBlockFp = 8;
constexpr uint8_t kBlockChecks = kBlockAlign | kBlockAlignTrp | kBlockDiv | kBlockFp;
constexpr uint8_t kBlockExclusive = 16, kBlockIt = 32;

// The core's CLREX stub (clear_exclusive_monitor): CLREX; SVC #0, in an execute-only page of its
// own, at the top of the code region of the default memory map (not execute-never).
constexpr uint32_t kStubBase = 0x1FFFF000u;
constexpr uint8_t kStub[] = {0xBF, 0xF3, 0x2F, 0x8F, 0x00, 0xDF};

// xPSR, CFSR, HFSR and FPCCR bits (ARMv7-M B1.4.2, B3.2.15, B3.2.16, B3.2.23)
constexpr uint32_t kXpsrT = 1u << 24;
constexpr uint32_t kIaccViol = 1u << 0;
constexpr uint32_t kIbusErr = 1u << 8, kPreciseErr = 1u << 9, kBfarValid = 1u << 15;
constexpr uint32_t kUndefInstr = 1u << 16, kInvState = 1u << 17, kInvPc = 1u << 18,
                   kNoCp = 1u << 19, kUnaligned = 1u << 24, kDivByZero = 1u << 25;
constexpr uint32_t kHfsrForced = 1u << 30;
constexpr uint32_t kFpccrLspact = 1u << 0, kFpccrLspen = 1u << 30;
constexpr uint32_t kFpccrState = 0x17Bu;  // LSPACT, USER, THREAD, HFRDY, MMRDY, BFRDY, MONRDY

std::string hex32(uint32_t v) { return nmsim::hex(v, 8); }

void check(uc_err e, const char* what) {
    if (e != UC_ERR_OK) throw std::runtime_error(std::string("unicorn: ") + what + ": " + uc_strerror(e));
}

// --- stores to RAM (docs/iss.md, "Stores") -------------------------------------------------------
// Unicorn 2.0.1 keeps no dirty-memory bitmap, so every guest store to RAM takes the slow path
// that checks for translated code in the page; that path first builds a "page collection" (a
// GLib tree, allocated and freed per store) to lock the pages for multi-threaded TCG, which a
// Unicorn engine never is. The library calls the two functions through its PLT, so nmsim's
// definitions below take their place: the collection becomes a token that locks nothing, and
// the check for translated code itself (tb_invalidate_phys_page_fast) is the library's own.
// With any library other than 2.0 they pass the calls on unchanged.
char g_unlocked_pages;

bool skip_page_locks() {
    static const bool skip = [] {
        unsigned major = 0, minor = 0;
        uc_version(&major, &minor);
        return major == 2 && minor == 0 && std::getenv("NMSIM_UC_PAGE_LOCKS") == nullptr;
    }();
    return skip;
}

template <class Fn>
Fn next_definition(const char* symbol) {
    return reinterpret_cast<Fn>(dlsym(RTLD_NEXT, symbol));
}

// --- translation buffer (docs/iss.md, "Translation buffer") ---------------------------------
// Unicorn 2.0.1 reserves its buffer for translated code when the engine initialises (at the
// first memory mapping): machine_initialize() calls the engine's init_arch (arm_uc_init, which
// fills in the engine's function pointers) and then its tcg_exec_init(uc, 0), and size 0 means
// 1 GiB. No API sets the size (uc_ctl gains one only in later versions). So the init_arch pointer
// that uc_open() stores in the (opaque) engine is redirected to a wrapper that runs the library's
// arm_uc_init and then redirects the tcg_exec_init pointer it has just stored to a wrapper that
// passes the size. Each pointer is found by value: the one word of the engine that holds the
// address of the library's exported function. Without exactly one such word (another Unicorn
// build) nothing is changed and the engine keeps the library's default size.
using InitArch = void (*)(uc_struct*);
using TcgExecInit = void (*)(uc_struct*, unsigned long);
constexpr size_t kEngineWordsScanned = 128;  // 2.0.1: init_arch at word 27, tcg_exec_init 30
constexpr uint64_t kUnicornDefaultBuffer = uint64_t{1} << 30;
uintptr_t g_unicorn_init_arch = 0, g_unicorn_tcg_exec_init = 0;
unsigned long g_translation_buffer = 0;
bool g_translation_buffer_set = false;

uintptr_t library_function(const char* symbol) {
    return reinterpret_cast<uintptr_t>(dlsym(RTLD_DEFAULT, symbol));
}

// Replaces the one word of `engine` equal to `from` by `to`; false if there is not exactly one.
bool replace_engine_word(uc_struct* engine, uintptr_t from, uintptr_t to) {
    auto* bytes = reinterpret_cast<unsigned char*>(engine);
    size_t found = kEngineWordsScanned;
    for (size_t i = 0; i < kEngineWordsScanned; ++i) {
        uintptr_t w = 0;
        std::memcpy(&w, bytes + i * sizeof w, sizeof w);
        if (w != from) continue;
        if (found != kEngineWordsScanned) return false;
        found = i;
    }
    if (found == kEngineWordsScanned) return false;
    std::memcpy(bytes + found * sizeof to, &to, sizeof to);
    return true;
}

// The library asks for transparent huge pages on the buffer and writes its prologue at the
// start, so each engine would fault in (and zero) a 2 MiB page at once: 300 MiB and a third of
// the start-up of a 152-PE run (perf). Huge pages are off for the process while the buffer is
// set up, and the buffer then grows in 4 KiB pages as code is translated.
void tcg_exec_init_sized(uc_struct* uc, unsigned long) {
    const int thp_was_disabled = prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0);
    if (thp_was_disabled == 0) prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
    reinterpret_cast<TcgExecInit>(g_unicorn_tcg_exec_init)(uc, g_translation_buffer);
    if (thp_was_disabled == 0) prctl(PR_SET_THP_DISABLE, 0, 0, 0, 0);
}

void init_arch_sized(uc_struct* uc) {
    reinterpret_cast<InitArch>(g_unicorn_init_arch)(uc);
    g_translation_buffer_set = replace_engine_word(
        uc, g_unicorn_tcg_exec_init, reinterpret_cast<uintptr_t>(&tcg_exec_init_sized));
}

// Arranges for a freshly opened engine to reserve `bytes`; returns the size it will reserve
// (`bytes`, or the library default if the redirection is not possible with this library).
uint64_t set_translation_buffer(uc_engine* uc, uint64_t bytes) {
    if (g_unicorn_init_arch == 0) {
        g_unicorn_init_arch = library_function("arm_uc_init");
        g_unicorn_tcg_exec_init = library_function("tcg_exec_init_arm");
    }
    if (g_unicorn_init_arch == 0 || g_unicorn_tcg_exec_init == 0) return kUnicornDefaultBuffer;
    if (!replace_engine_word(uc, g_unicorn_init_arch,
                             reinterpret_cast<uintptr_t>(&init_arch_sized)))
        return kUnicornDefaultBuffer;
    g_translation_buffer = static_cast<unsigned long>(bytes);
    return bytes;
}

// Unicorn ends the process (exit(1) after "Could not allocate dynamic translator buffer") when
// its buffer cannot be mapped, so the address space is tried first. An address-space limit
// (ulimit -v) counts reservations, so a PROT_NONE mapping of the same size is a faithful test;
// the margin covers the engine's other allocations (TLB, page tables, ~3 MB).
constexpr uint64_t kEngineMargin = 16u << 20;

bool address_space_available(uint64_t bytes, int& err) {
    void* p = mmap(nullptr, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
        err = errno;
        return false;
    }
    munmap(p, bytes);
    return true;
}

std::string mib(uint64_t bytes) {
    char b[32];
    std::snprintf(b, sizeof b, "%.0f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
    return b;
}

}  // namespace

extern "C" {
// Unicorn 2.0.1 (accel/tcg/translate-all.c): struct page_collection *page_collection_lock(struct
// uc_struct *, tb_page_addr_t start, tb_page_addr_t end) and page_collection_unlock(set).
void* page_collection_lock_arm(uc_struct* uc, uint64_t start, uint64_t end) {
    using Lock = void* (*)(uc_struct*, uint64_t, uint64_t);
    if (skip_page_locks()) return &g_unlocked_pages;
    static const Lock real = next_definition<Lock>("page_collection_lock_arm");
    return real(uc, start, end);
}

void page_collection_unlock_arm(void* set) {
    using Unlock = void (*)(void*);
    if (set == &g_unlocked_pages) return;
    static const Unlock real = next_definition<Unlock>("page_collection_unlock_arm");
    real(set);
}
}

const char* fault_cause_name(FaultCause c) {
    switch (c) {
        case FaultCause::bus_error: return "bus error";
        case FaultCause::unmapped: return "access to unmapped address";
        case FaultCause::undefined_instruction: return "undefined instruction";
        case FaultCause::hard_fault: return "hard fault";
        case FaultCause::lockup: return "lockup";
        case FaultCause::invalid_state: return "invalid state";
        case FaultCause::breakpoint: return "breakpoint";
        case FaultCause::unaligned:
            return "unaligned access";
        case FaultCause::divide_by_zero:
            return "division by zero";
        case FaultCause::no_coprocessor:
            return "coprocessor access";
        case FaultCause::invalid_exc_return:
            return "invalid exception return";
        case FaultCause::execute_never:
            return "instruction fetch from an execute-never region";
    }
    return "fault";
}

// Unicorn callbacks: thin trampolines into the core.
struct UcHooks {
    // Called before a translated block runs. A stop requested here prevents the block from
    // running (measured on Unicorn 2.0.1), so its cost is counted only when it will run, and the
    // first block after a start always runs (otherwise a pending stop would livelock).
    static void block(uc_engine*, uint64_t addr, uint32_t size, void* user) {
        auto* c = static_cast<CortexM4F*>(user);
        // a stop is taking effect (MMIO or interrupt), or the core runs its CLREX stub
        if (c->m_stop_requested) return;
        const uint32_t a = static_cast<uint32_t>(addr);
        if (a != c->m_next_pc || c->m_last_transfer) {  // the previous block branched
            c->m_ticks += c->m_p.branch_refill_cycles;
            c->m_next_pc = a;
            c->m_last_transfer = false;
            c->m_exit_it = 0;
        }
        // m_exit_it is now the IT state this block starts with. When a block ends inside an IT
        // block, the ISS passes the state to the next block in its translation, not in its CPU
        // state; so the core follows it from block to block (docs/iss.md).
        if (!c->m_first_block && c->m_ticks >= c->m_stop_at && !c->sync_inside_run()) {
            c->stop_before_block(a, c->m_exit_it);
            return;
        }
        const CortexM4F::CacheEntry& e = c->block_info(a, size);
        if (__builtin_expect((e.flags | c->m_exit_it) != 0, 0)) {
            if (!c->block_flags(e, a, c->m_exit_it)) {
                c->stop_before_block(a, c->m_exit_it);  // a check stops the block before it runs
                return;
            }
        } else {
            c->m_last_it = 0;
        }
        c->m_first_block = false;
        c->m_ticks += e.cost.cycles;
        c->m_instructions += e.cost.instructions;
        c->m_next_pc = a + size;
        c->m_last_block = a;
        c->m_last_size = size;
        c->m_last_transfer = e.cost.ends_in_transfer;
    }
    static void intr(uc_engine* uc, uint32_t intno, void* user) {
        auto* c = static_cast<CortexM4F*>(user);
        if (c->m_in_stub) {  // the stub's SVC
            uc_emu_stop(uc);
            return;
        }
        c->m_stop = CortexM4F::Stop::intr;
        c->m_intno = intno;
        c->m_stop_requested = true;
        uc_emu_stop(uc);
    }
    static bool invalid(uc_engine*, uc_mem_type type, uint64_t addr, int, int64_t, void* user) {
        auto* c = static_cast<CortexM4F*>(user);
        c->m_fault_pending = true;
        c->m_fault_addr = static_cast<uint32_t>(addr);
        const bool fetch = type == UC_MEM_FETCH_UNMAPPED || type == UC_MEM_FETCH_PROT;
        c->m_fault_cause = fetch ? FaultCause::unmapped : FaultCause::unmapped;
        c->m_fault_detail = fetch ? "instruction fetch" : (type == UC_MEM_WRITE_UNMAPPED || type == UC_MEM_WRITE_PROT)
                                                              ? "data write"
                                                              : "data read";
        return false;
    }
    static uint64_t mmio_read(uc_engine*, uint64_t off, unsigned size, void* user) {
        auto* w = static_cast<CortexM4F::Window*>(user);
        return w->core->mmio(w->base + static_cast<uint32_t>(off), size, false, 0);
    }
    static void mmio_write(uc_engine*, uint64_t off, unsigned size, uint64_t v, void* user) {
        auto* w = static_cast<CortexM4F::Window*>(user);
        w->core->mmio(w->base + static_cast<uint32_t>(off), size, true, v);
    }
    static uint64_t scs_read(uc_engine* uc, uint64_t off, unsigned size, void* user) {
        auto* w = static_cast<CortexM4F::Window*>(user);
        CortexM4F* c = w->core;
        uint32_t v = 0;
        std::string why;
        const uint32_t addr = w->base + static_cast<uint32_t>(off);
        if (!c->m_scs->read(addr, size, v, why)) c->bus_fault(addr, why);
        return v;
    }
    static void scs_write(uc_engine* uc, uint64_t off, unsigned size, uint64_t v, void* user) {
        auto* w = static_cast<CortexM4F::Window*>(user);
        CortexM4F* c = w->core;
        std::string why;
        const uint32_t addr = w->base + static_cast<uint32_t>(off);
        if (!c->m_scs->write(addr, size, static_cast<uint32_t>(v), why)) {
            c->bus_fault(addr, why);
        } else if (c->m_scs->changed()) {
            c->stop_at_next_block();  // re-evaluate exceptions
        }
    }
};

CortexM4F::CortexM4F(sc_core::sc_module_name name, const CoreParams& p, Frequency clock,
                     Memory& sram, trace::Sink* sink)
    : sc_module(name), bus("bus"), m_p(p), m_clock(clock), m_sram(sram), m_sink(sink) {
    if (sc_core::sc_get_time_resolution() != sc_core::sc_time(1, sc_core::SC_PS))
        throw std::logic_error(std::string(this->name()) +
                               ": SystemC time resolution must be 1 ps");
    m_scs = std::make_unique<Scs>(p.priority_bits, 32, [this] { return m_ticks; });
    m_quantum_ticks = std::max<uint64_t>(
        1, static_cast<uint64_t>(static_cast<double>(p.quantum.ps) * clock.hz / 1e12));

    if (sram.size() % 4096 != 0)
        throw std::invalid_argument(std::string(this->name()) + ": SRAM size must be a multiple of 4 KiB");
    for (uint32_t base : {Scs::kScsBase, Scs::kDwtBase})
        m_windows.push_back(std::make_unique<Window>(Window{base, 0x1000, this, true}));

    if (m_sink) {
        m_component = m_sink->component(this->name());
        m_tbl_irq = m_sink->declare_table(IrqRecord_schema());
        m_tbl_sleep = m_sink->declare_table(SleepRecord_schema());
        m_tbl_fault = m_sink->declare_table(FaultRecord_schema());
    }
    SC_HAS_PROCESS(CortexM4F);
    SC_THREAD(run);
#ifdef NMSIM_SANITIZE
    set_stack_size(1024 * 1024);  // sanitizer frames are larger
#else
    set_stack_size(256 * 1024);
#endif
}

CortexM4F::~CortexM4F() {
    if (m_uc) uc_close(m_uc);
}

void CortexM4F::map_bus_window(uint32_t base, uint32_t size) {
    m_windows.push_back(std::make_unique<Window>(Window{base, size, this, false}));
    if (m_uc) map_window(*m_windows.back());
}

void CortexM4F::map_window(Window& w) {
    if (w.scs)
        check(uc_mmio_map(m_uc, w.base, w.size, UcHooks::scs_read, &w, UcHooks::scs_write, &w),
              "map system control space");
    else
        check(uc_mmio_map(m_uc, w.base, w.size, UcHooks::mmio_read, &w, UcHooks::mmio_write, &w),
              "map bus window");
}

// The ISS exists only for cores that run: an engine costs ~3 MB resident, its translation buffer
// in virtual memory and a few ms to create (docs/iss.md), which a 152-PE chip with idle PEs must
// not pay; the disassembler and the block-cost cache are created with it. Returns false (with
// the simulation error raised, naming this core) when the engine cannot be created.
bool CortexM4F::create_iss() {
    m_cycles = std::make_unique<CycleModel>(m_p.div_cycles);
    m_analyzer = std::make_unique<BlockAnalyzer>();
    m_cache = std::vector<CacheEntry>(kCacheEntries);
    const uc_err open_err = uc_open(UC_ARCH_ARM, UC_MODE_THUMB, &m_uc);
    if (open_err != UC_ERR_OK) {
        m_uc = nullptr;
        raise_sim_error(name(),
                        std::string("cannot create the instruction-set simulator: uc_open: ") +
                            uc_strerror(open_err));
        return false;
    }
    const uint64_t buffer = set_translation_buffer(m_uc, m_p.translation_buffer.n);
    int err = 0;
    if (!address_space_available(buffer + kEngineMargin, err)) {
        uc_close(m_uc);
        m_uc = nullptr;
        raise_sim_error(name(),
                        "cannot create the instruction-set simulator: its translation buffer (" +
                            mib(buffer) +
                            ", pe.core.translation_buffer) does not fit in the "
                            "address space: " +
                            std::strerror(err) + " (an address-space limit such as ulimit -v?)");
        return false;
    }
    // The CPU model must be set before the first mapping (docs/iss.md).
    check(uc_ctl_set_cpu_model(m_uc, UC_CPU_ARM_CORTEX_M4), "set cpu model");
    g_translation_buffer_set = false;
    check(uc_mem_map_ptr(m_uc, 0, m_sram.size(), UC_PROT_ALL, m_sram.data()), "map SRAM");
    if (buffer != kUnicornDefaultBuffer && !g_translation_buffer_set)  // cannot happen in 2.0.1
        std::fprintf(stderr, "%s: warning: ISS translation buffer left at the library default\n",
                     name());
    for (auto& w : m_windows) {
        if (w->base < kStubBase + 0x1000u && kStubBase < w->base + w->size)
            throw std::logic_error(std::string(name()) + ": bus window at " + hex32(w->base) +
                                   " overlaps the core's CLREX stub page");
        map_window(*w);
    }
    m_stub_page.assign(0x1000, 0);
    std::memcpy(m_stub_page.data(), kStub, sizeof kStub);
    check(uc_mem_map_ptr(m_uc, kStubBase, 0x1000, UC_PROT_EXEC, m_stub_page.data()),
          "map CLREX stub");
    m_until = kUntil;
    uc_hook h;
    check(uc_hook_add(m_uc, &h, UC_HOOK_BLOCK, reinterpret_cast<void*>(UcHooks::block), this, 1, 0), "block hook");
    check(uc_hook_add(m_uc, &h, UC_HOOK_INTR, reinterpret_cast<void*>(UcHooks::intr), this, 1, 0), "intr hook");
    check(uc_hook_add(m_uc, &h, UC_HOOK_MEM_INVALID, reinterpret_cast<void*>(UcHooks::invalid), this, 1, 0),
          "invalid-access hook");
    return true;
}

void CortexM4F::start() {
    m_started = true;
    m_start_event.notify(sc_core::SC_ZERO_TIME);
}

void CortexM4F::halt() {
    m_halted = true;
    m_wake_event.notify(sc_core::SC_ZERO_TIME);
}

void CortexM4F::irq_level(unsigned line, bool level) {
    m_scs->irq_level(line, level);
    if (level) {
        trace_irq(kIrq0 + static_cast<int>(line), 0);
        m_wake_event.notify(sc_core::SC_ZERO_TIME);
    }
}

uint32_t CortexM4F::reg(int r) const {
    uint32_t v = 0;
    if (m_uc) uc_reg_read(m_uc, r, &v);
    return v;
}

void CortexM4F::set_reg(int r, uint32_t v) { uc_reg_write(m_uc, r, &v); }

uint32_t CortexM4F::pc() const { return reg(UC_ARM_REG_PC); }

// Writing APSR back is the only way found to rebuild the translator's cached flags after a
// mode change (docs/iss.md).
void CortexM4F::rebuild_flags() { set_reg(UC_ARM_REG_APSR_NZCV, reg(UC_ARM_REG_APSR_NZCV)); }

bool CortexM4F::mem_read32(uint32_t addr, uint32_t& v) {
    if (!m_sram.contains(addr, 4)) return false;
    std::memcpy(&v, m_sram.data() + addr, 4);
    return true;
}

bool CortexM4F::mem_write32(uint32_t addr, uint32_t v) {
    if (!m_sram.contains(addr, 4)) return false;
    std::memcpy(m_sram.data() + addr, &v, 4);
    return true;
}

std::string CortexM4F::where(uint32_t pc) const {
    std::string s = hex32(pc);
    if (m_image) {
        const std::string sym = m_image->symbolize(pc);
        if (!sym.empty()) s += " <" + sym + ">";
    }
    return s;
}

// --- time ----------------------------------------------------------------------------------

// Called at every sync and peripheral access: the time is built from its integer picosecond value
// (the resolution is 1 ps, checked at construction), not through sc_time's double constructor.
sc_core::sc_time CortexM4F::time_of(uint64_t ticks) const {
    const double ps = std::round(static_cast<double>(ticks) * 1e12 / m_clock.hz);
    return m_t0 + sc_core::sc_time::from_value(static_cast<sc_dt::uint64>(ps));
}

uint64_t CortexM4F::ticks_at(const sc_core::sc_time& t) const {
    const double ps = (t - m_t0).to_seconds() * 1e12;
    return static_cast<uint64_t>(std::ceil(ps * m_clock.hz / 1e12 - 1e-6));
}

void CortexM4F::sync() {
    const sc_core::sc_time target = time_of(m_ticks);
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    if (target > now) wait(target - now);
    m_sync_ticks = m_ticks;
}

// A quantum boundary reached inside a run: the core syncs with SystemC from the block hook (the
// wait switches coroutines inside the ISS, as a coupled MMIO access does) and the run goes on,
// unless the run loop has work now: an exception to take or re-evaluate, SysTick, a requested
// stop or halt. A stop and restart of the ISS costs several times a coroutine switch, and most
// quantum boundaries have nothing for the run loop (docs/iss.md).
bool CortexM4F::sync_inside_run() {
    const auto loop_has_work = [this] {
        return m_halted || m_stop != Stop::none || m_scs->changed() ||
               m_scs->highest_pending() != Scs::kNoException || m_scs->systick_next() <= m_ticks;
    };
    if (m_ticks - m_sync_ticks < m_quantum_ticks || loop_has_work()) return false;
    sync();
    if (loop_has_work()) return false;
    m_stop_at = std::min(m_sync_ticks + m_quantum_ticks, m_scs->systick_next());
    return true;
}

// --- memory-mapped I/O -----------------------------------------------------------------------

uint64_t CortexM4F::mmio(uint32_t addr, unsigned size, bool is_write, uint64_t value) {
    bool decoupled = false;
    for (const Range& r : m_decoupled) decoupled |= addr - r.base < r.size;
    if (!decoupled) sync();
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    const sc_core::sc_time local =
        decoupled ? std::max(time_of(m_ticks), now) - now : sc_core::SC_ZERO_TIME;
    uint8_t data[8] = {};
    std::memcpy(data, &value, sizeof data);
    tlm::tlm_generic_payload& p = m_payload;
    BusErrorExt ext;
    p.set_extension(&ext);
    p.set_command(is_write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    p.set_address(addr);
    p.set_data_ptr(data);
    p.set_data_length(size);
    p.set_streaming_width(size);
    p.set_byte_enable_ptr(nullptr);
    p.set_dmi_allowed(false);
    p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_core::sc_time delay = local;
    bus->b_transport(p, delay);
    p.clear_extension(&ext);
    if (p.is_response_error()) {
        bus_fault(addr, std::string(is_write ? "write" : "read") + ": " +
                            (ext.why.empty() ? p.get_response_string() : ext.why));
        return 0;
    }
    // A target may wait inside b_transport (a full comms TX FIFO holds the access until a slot
    // is free); the returned delay then counts from the later time. Both stall the core.
    delay += sc_core::sc_time_stamp() - now;
    if (delay > local) {  // the access stalled the core
        const sc_core::sc_time stall = delay - local;
        m_ticks += static_cast<uint64_t>(std::ceil(stall.to_seconds() * m_clock.hz - 1e-6));
    }
    if (m_scs->changed() || m_halted) stop_at_next_block();
    uint64_t out = 0;
    std::memcpy(&out, data, std::min<size_t>(size, sizeof out));
    return out;
}

// A rejected access stops the ISS at once (the run ends or vectors to HardFault); the faulting
// instruction is located after the ISS has returned.
void CortexM4F::bus_fault(uint32_t addr, const std::string& why) {
    m_fault_pending = true;
    m_fault_cause = FaultCause::bus_error;
    m_fault_addr = addr;
    m_fault_detail = why;
    m_stop_requested = true;
    uc_emu_stop(m_uc);
}

// uc_emu_stop() from a memory callback aborts the block after the access but leaves the ISS's PC
// at the block start (measured on Unicorn 2.0.1): resuming would repeat the block's first
// instructions. So non-fault stops requested during an access take effect at the next block
// boundary, through the block hook, where the PC is exact.
void CortexM4F::stop_at_next_block() {
    m_stop = Stop::mmio;
    m_stop_at = 0;
}

const CortexM4F::CacheEntry& CortexM4F::block_info(uint32_t addr, uint32_t size) {
    CacheEntry& e = m_cache[(addr >> 1) & (kCacheEntries - 1)];
    if (e.tag == addr && e.size == size) return e;
    std::vector<uint8_t> code(size);
    if (m_sram.contains(addr, size))
        std::memcpy(code.data(), m_sram.data() + addr, size);
    else
        uc_mem_read(m_uc, addr, code.data(), size);
    e.tag = addr;
    e.size = size;
    e.cost = m_cycles->cost(code.data(), size, addr);
    e.ends_wfi = m_cycles->ends_with_wfi(code.data(), size, addr);
    BlockAnalysis b = m_analyzer->analyze(code.data(), size, addr);
    e.flags = static_cast<uint8_t>(
        (b.has_align ? kBlockAlign : 0) | (b.has_align_trp ? kBlockAlignTrp : 0) |
        (b.has_div ? kBlockDiv : 0) | (b.has_fp ? kBlockFp : 0) |
        (b.exclusive_load ? kBlockExclusive : 0) | (b.first_it != 0xFFFF ? kBlockIt : 0));
    e.exit_it = b.exit_it;
    e.analysis = (e.flags & kBlockChecks) ? std::make_unique<BlockAnalysis>(std::move(b)) : nullptr;
    return e;
}

BlockAnalysis CortexM4F::analyze_block(uint32_t addr, uint32_t size) {
    std::vector<uint8_t> code(size);
    if (m_sram.contains(addr, size))
        std::memcpy(code.data(), m_sram.data() + addr, size);
    else
        uc_mem_read(m_uc, addr, code.data(), size);
    return m_analyzer->analyze(code.data(), size, addr);
}

// --- main loop -----------------------------------------------------------------------------

void CortexM4F::reset_core() {
    uint32_t sp = 0, entry = 0;
    if (!mem_read32(0, sp) || !mem_read32(4, entry)) {
        raise_sim_error(name(), "no vector table at address 0");
        m_halted = true;
        return;
    }
    set_reg(UC_ARM_REG_MSP, sp);
    set_reg(UC_ARM_REG_SP, sp);
    set_reg(UC_ARM_REG_PC, entry | 1u);
    m_t0 = sc_core::sc_time_stamp();
    m_ticks = m_sync_ticks = 0;
}

void CortexM4F::run() {
    if (!m_started) wait(m_start_event);
    if (m_halted) return;
    if (!create_iss()) {
        m_halted = true;
        return;
    }
    reset_core();
    while (!m_halted) {
        if (m_scs->systick_next() <= m_ticks) m_scs->systick_expired(m_ticks);
        if (m_scs->reset_requested()) {
            raise_sim_error(name(), "firmware requested a system reset (AIRCR.SYSRESETREQ) at pc " + where(pc()));
            m_halted = true;
            break;
        }
        take_pending_exceptions();
        if (m_halted) break;
        if (m_sleeping) {
            sleep();
            continue;
        }
        if (m_ticks - m_sync_ticks >= m_quantum_ticks) sync();
        if (m_halted) break;
        m_stop_at = std::min(m_sync_ticks + m_quantum_ticks, m_scs->systick_next());
        // A pending but masked exception: stop after every block so that an unmasking CPSIE,
        // MSR BASEPRI or exception return is noticed promptly.
        if (m_scs->highest_pending() != Scs::kNoException) m_stop_at = m_ticks + 1;
        m_stop = Stop::none;
        m_stop_requested = false;
        m_first_block = true;
        const uint32_t start_pc = pc();
        // The IT state the run starts with: known without a register read when the last run
        // stopped before the block at this PC (the common quantum stop), else the CPU state's.
        m_start_it = start_pc == m_known_it_pc ? m_known_it : it_of_xpsr(reg(UC_ARM_REG_XPSR));
        m_known_it_pc = kNoPc;
        m_run_it = m_start_it;
        m_exit_it = m_start_it;  // what the first block starts with (it is "sequential")
        m_next_pc = start_pc;
        m_last_block = start_pc;
        m_last_size = 0;
        m_last_transfer = false;
        // A run up to an instruction whose check needs the exact state (prepare_block). Each
        // re-translates a block and uses ~350 B of the translation buffer, which Unicorn 2.0.1
        // cannot recycle safely when full (docs/iss.md), so the buffer is flushed now and then,
        // here, where no translated code is running.
        const uint64_t until = m_until;
        m_until = kUntil;
        if (until != kUntil && ++m_steps_since_flush >= kStepsPerFlush) {
            uc_ctl_flush_tlb(m_uc);
            m_steps_since_flush = 0;
        }
        const uc_err e = uc_emu_start(m_uc, start_pc | 1u, until, 0, 0);
        if (m_pc_it_valid) {  // stopped before a block: its IT state into the CPU state
            m_pc_it_valid = false;
            if (m_pc_it || m_run_it) {  // else the CPU state holds 0 already
                const uint32_t x = reg(UC_ARM_REG_XPSR);
                if (it_of_xpsr(x) != m_pc_it) set_reg(UC_ARM_REG_XPSR, xpsr_with_it(x, m_pc_it));
            }
            m_known_it = m_pc_it;
            m_known_it_pc = m_pc_it_at;
        }
        if (m_fault_pending) {
            m_fault_pending = false;
            Fault f;
            f.exc = kBusFault;
            f.cause = m_fault_cause;
            f.addr = m_fault_addr;
            f.detail = m_fault_detail;
            if (m_fault_detail == "instruction fetch") {  // IBUSERR: no address to record
                f.cfsr = kIbusErr;
                f.pc = pc();
                f.xpsr = reg(UC_ARM_REG_XPSR) | kXpsrT;
            } else {  // PRECISERR at the instruction that made the access
                const uint32_t precise = locate_access(m_last_block, m_fault_addr);
                f.cfsr = kPreciseErr | kBfarValid;
                f.bfar = m_fault_addr;
                f.pc = precise ? precise : m_last_block;
                f.xpsr = xpsr_at(f.pc);
            }
            take_fault(f);
            continue;
        }
        if (e != UC_ERR_OK) {
            const uint32_t at = pc();
            switch (e) {
                case UC_ERR_INSN_INVALID:
                    undefined_instruction(at);
                    break;
                default:
                    fault(FaultCause::hard_fault, at, 0, std::string("ISS error: ") + uc_strerror(e));
                    break;
            }
            continue;
        }
        if (m_stop == Stop::check) {
            if (m_check_fault_pending) {
                m_check_fault_pending = false;
                take_fault(m_check_fault);
            } else {
                m_until = m_step_to;
                ++m_steps;
            }
            continue;
        }
        if (m_stop == Stop::intr) {
            handle_intr(m_intno);
            continue;
        }
        if (m_last_size) {
            const CacheEntry& last = block_info(m_last_block, m_last_size);
            if (last.ends_wfi && pc() == m_last_block + m_last_size) m_sleeping = true;
        }
    }
    sync();
}

// --- checks the ISS does not make (block_checks.h) ---------------------------------------------

uint32_t CortexM4F::gpr(int r) const {
    if (r >= 0 && r <= 12) return reg(UC_ARM_REG_R0 + r);
    if (r == 13) return reg(UC_ARM_REG_SP);
    if (r == 14) return reg(UC_ARM_REG_LR);
    return reg(UC_ARM_REG_PC);
}

// The rare part of the block hook, for blocks with flags or inside an IT block: the checks (false:
// the block must not run now), the local monitor, and the IT state at the block's end.
bool CortexM4F::block_flags(const CacheEntry& e, uint32_t addr, uint8_t entry_it) {
    if ((e.flags & kBlockChecks) && needs_checks(e.flags) && !prepare_block(e, addr, entry_it))
        return false;
    if (e.flags & kBlockExclusive) m_monitor_open = true;
    uint8_t it = e.exit_it;
    if (!(e.flags & kBlockIt)) {  // at most four instructions are left in an IT block
        it = entry_it;
        for (uint32_t k = 0; k < e.cost.instructions && it; ++k) it = it_advance(it);
    }
    m_last_it = entry_it;
    m_exit_it = it;
    m_run_it |= entry_it | it;
    return true;
}

// Whether a check of the block may matter now: alignment always, the others while a CCR trap,
// a CPACR restriction or a lazily stacked FP context make them.
bool CortexM4F::needs_checks(uint8_t flags) const {
    if (flags & kBlockAlign) return true;
    const uint32_t ccr = m_scs->ccr();
    return ((flags & kBlockAlignTrp) && (ccr & Scs::kCcrUnalignTrp)) ||
           ((flags & kBlockDiv) && (ccr & Scs::kCcrDiv0Trp)) ||
           ((flags & kBlockFp) &&
            (((m_scs->cpacr() >> 20) & 3u) != 3u || (m_scs->fpccr() & kFpccrLspact)));
}

// CPACR.CP10 (CP11 must equal it): 0b11 full access, 0b01 privileged only, else denied.
bool CortexM4F::fp_access_allowed() const {
    switch ((m_scs->cpacr() >> 20) & 3u) {
        case 3:
            return true;
        case 1:
            return (reg(UC_ARM_REG_IPSR) & 0x1FFu) != 0 || !(reg(UC_ARM_REG_CONTROL) & 1u);
        default:
            return false;
    }
}

// Settles the block's checks before it runs, with the register values at the block start.
// Returns false when the block must not run now: a check fails on its first instruction
// (m_check_fault is the fault), or a check can only be settled at a later instruction (its
// operands or its condition come from the block): then the core runs up to that instruction
// first (m_step_to), where the check sees the exact state. Also preserves the FP state of a
// lazily stacked frame when the block uses the FPU (ARMv7-M B1.5.7, lazy context save).
bool CortexM4F::prepare_block(const CacheEntry& e, uint32_t addr, uint8_t entry_it) {
    const BlockAnalysis& b = *e.analysis;
    const uint32_t ccr = m_scs->ccr();
    const bool trp = (ccr & Scs::kCcrUnalignTrp) != 0, div = (ccr & Scs::kCcrDiv0Trp) != 0;
    const bool fp_denied = b.has_fp && !fp_access_allowed();
    if (b.has_align || (b.has_align_trp && trp) || (b.has_div && div) || fp_denied) {
        uint32_t apsr = 0;
        // Register values at a check: those of the block start, read on demand, replayed
        // through the micro-ops of the instructions before it (block_checks.h) when an operand
        // comes from the block; `unknown` where the replay cannot follow.
        uint32_t v[16] = {};
        uint32_t have = 0, unknown = 0;
        size_t next = 0;
        auto get = [&](int r, uint32_t& out) {
            if ((unknown >> r) & 1u) return false;
            if (!((have >> r) & 1u)) {
                v[r] = gpr(r);
                have |= 1u << r;
            }
            out = v[r];
            return true;
        };
        auto put = [&](int r, bool ok, uint32_t x) {
            if (r < 0) return;
            if (!ok) {
                unknown |= 1u << r;
                return;
            }
            v[r] = x;
            have |= 1u << r;
            unknown &= ~(1u << r);
        };
        // Memory the replayed stores wrote: a replayed load that may overlap it is unknown.
        // A 4-byte store of a known register value forwards it to a load of the same word.
        struct Stored {
            uint32_t addr, len, value;
            bool known;
        };
        Stored stores[32];
        size_t n_stores = 0;
        bool store_unknown = false;
        auto note_store = [&](const MicroOp& m) {
            if (m.store == 0) return;
            uint32_t base = 0, index = 0;
            if (m.store == MicroOp::kStoreUnknown || n_stores == 32 || !get(m.st_base, base) ||
                (m.st_index >= 0 && !get(m.st_index, index))) {
                store_unknown = true;
                return;
            }
            Stored& st = stores[n_stores++];
            st.addr = base + static_cast<uint32_t>(m.st_imm) + (index << m.st_shift);
            st.len = m.store;
            st.known = m.st_src >= 0 && get(m.st_src, st.value);
        };
        // 1: not stored to, 0: overlaps a store, 2: the word a known store wrote (in *value)
        auto stored_to = [&](uint32_t addr, uint32_t len, uint32_t* value) {
            if (store_unknown) return 0;
            int result = 1;
            for (size_t i = 0; i < n_stores; ++i) {
                const Stored& st = stores[i];
                if (!(addr < st.addr + st.len && st.addr < addr + len)) continue;
                const bool same = st.known && st.addr == addr && st.len == 4 && len == 4;
                if (same) *value = st.value;
                result = same ? 2 : 0;  // the latest store to the word decides
            }
            return result;
        };
        auto replay_to = [&](size_t index) {
            for (; next < index && next < b.ops.size(); ++next) {
                const MicroOp& m = b.ops[next];
                uint32_t x = 0, y = 0;
                bool ok = true;
                note_store(m);
                switch (m.kind) {
                    case MicroOp::set:
                        put(m.rd, true, m.imm);
                        break;
                    case MicroOp::add:
                        if (m.rn >= 0) ok = get(m.rn, x);
                        x += m.imm;
                        if (ok && m.rm >= 0) {
                            ok = get(m.rm, y);
                            y = m.shift_type == 0 ? y << m.shift
                                : m.shift_type == 1
                                    ? (m.shift >= 32 ? 0u : y >> m.shift)
                                    : static_cast<uint32_t>(static_cast<int32_t>(y) >>
                                                            (m.shift >= 32 ? 31 : m.shift));
                            x = m.subtract ? x - y : x + y;
                        }
                        put(m.rd, ok, x);
                        break;
                    case MicroOp::movt:
                        ok = get(m.rd, x);
                        put(m.rd, ok, (x & 0xFFFFu) | m.imm);
                        break;
                    case MicroOp::literal:
                        ok = mem_read32(m.imm, x);
                        put(m.rd, ok, x);
                        break;
                    case MicroOp::load: {
                        ok = get(m.rn, x);
                        if (ok && m.rm >= 0) {
                            ok = get(m.rm, y);
                            y <<= m.shift;
                            x = m.subtract ? x - y : x + y;
                        }
                        x += m.imm;
                        uint32_t val[2] = {0, 0};
                        const int from = ok ? stored_to(x, m.size, &val[0]) : 0;
                        ok = ok && from != 0 && (from == 2 || m_sram.contains(x, m.size));
                        if (ok && from == 1) {
                            std::memcpy(val, m_sram.data() + x, m.size);
                            if (m.sign && m.size < 4) {
                                const unsigned sh = 32u - 8u * m.size;
                                val[0] =
                                    static_cast<uint32_t>(static_cast<int32_t>(val[0] << sh) >> sh);
                            }
                        }
                        put(m.rd, ok, val[0]);
                        if (m.size == 8) put(m.rd2, ok, val[1]);
                        break;
                    }
                    case MicroOp::other:
                        unknown |= m.writes;
                        break;
                }
                if (m.wb_reg >= 0) {
                    ok = get(m.wb_reg, x);
                    put(m.wb_reg, ok, x + static_cast<uint32_t>(m.wb_delta));
                }
            }
        };
        for (const InsnCheck& c : b.checks) {
            bool active = false;
            switch (c.kind) {
                case InsnCheck::align:
                    active = true;
                    break;
                case InsnCheck::align_trp:
                    active = trp;
                    break;
                case InsnCheck::div0:
                    active = div;
                    break;
                case InsnCheck::fp:
                    active = fp_denied;
                    break;
            }
            if (!active) continue;
            // The replay starts from the block entry: not inside an IT block (conditional).
            bool known = !c.operands_from_block || (!b.ops.empty() && entry_it == 0);
            if (c.operands_from_block && known) replay_to(c.index);
            uint32_t ea = 0;
            if (known) {
                bool faults = true;
                if (c.kind == InsnCheck::align || c.kind == InsnCheck::align_trp) {
                    uint32_t base = 0, index = 0;
                    if (c.base == 15)
                        base = (c.pc + 4) & ~3u;  // literal
                    else if (c.base != 13)        // SP is word-aligned: its low bits are 0
                        known = get(c.base, base);
                    if (known && c.index_reg >= 0) known = get(c.index_reg, index);
                    ea = base + static_cast<uint32_t>(c.disp) + (index << c.shift);
                    faults = (ea & c.align_mask) != 0;
                } else if (c.kind == InsnCheck::div0) {
                    uint32_t d = 0;
                    known = get(c.divisor, d);
                    faults = d == 0;
                }
                if (known && !faults) continue;
            }
            // Whether it executes: its IT condition, with the flags at the block start.
            const uint8_t it = b.it_state(c.index, entry_it);
            int executes = 1;
            if (it != 0) {
                if (c.flags_from_block) {
                    executes = -1;
                } else {
                    if (apsr == 0) apsr = reg(UC_ARM_REG_XPSR) | kXpsrT;  // nonzero once read
                    executes = condition_passed(it >> 4, apsr) ? 1 : 0;
                }
            }
            if (known && executes == 0) continue;
            if (known && executes == 1 && c.index == 0) {
                Fault f;
                f.exc = kUsageFault;
                f.pc = addr;
                f.xpsr = xpsr_with_it(reg(UC_ARM_REG_XPSR) | kXpsrT, entry_it);
                switch (c.kind) {
                    case InsnCheck::align:
                    case InsnCheck::align_trp:
                        f.cfsr = kUnaligned;
                        f.cause = FaultCause::unaligned;
                        f.addr = ea;
                        f.detail = c.kind == InsnCheck::align
                                       ? "the instruction requires an aligned address"
                                       : "CCR.UNALIGN_TRP is set";
                        break;
                    case InsnCheck::div0:
                        f.cfsr = kDivByZero;
                        f.cause = FaultCause::divide_by_zero;
                        f.detail = "CCR.DIV_0_TRP is set";
                        break;
                    case InsnCheck::fp:
                        f.cfsr = kNoCp;
                        f.cause = FaultCause::no_coprocessor;
                        f.detail = "CPACR denies access to the FPU (CP10/CP11)";
                        break;
                }
                m_check_fault = f;
                m_check_fault_pending = true;
                m_stop = Stop::check;
                return false;
            }
            m_check_fault_pending = false;
            m_step_to = c.pc;
            m_stop = Stop::check;
            return false;
        }
    }
    if (b.has_fp && (m_scs->fpccr() & kFpccrLspact)) preserve_fp_state();
    return true;
}

// The FP state of the frame that lazy stacking reserved (FPCCR.LSPACT): S0-S15 and FPSCR are
// written to FPCAR now, before the first FP instruction that needs them runs.
void CortexM4F::preserve_fp_state() {
    const uint32_t a = m_scs->fpcar();
    bool ok = true;
    for (uint32_t i = 0; i < 16; ++i)
        ok = ok && mem_write32(a + 4 * i, reg(UC_ARM_REG_S0 + static_cast<int>(i)));
    ok = ok && mem_write32(a + 0x40, reg(UC_ARM_REG_FPSCR));
    m_scs->set_fpccr(m_scs->fpccr() & ~kFpccrLspact);
    m_ticks += m_p.fp_frame_extra_cycles;
    if (!ok)
        stop_with_error("lockup: lazy FP state preservation to FPCAR " + hex32(a) +
                        " failed: outside SRAM (pc " + where(pc()) + ")");
}

// The local exclusive monitor is cleared on exception entry and return (ARMv7-M B1.5.6, B1.5.8:
// ClearExclusiveLocal). Unicorn keeps it in its CPU state with no register for it, so the core
// runs CLREX: a stub (CLREX; SVC) in a page of its own, stopped by the SVC. Only when an LDREX
// ran since the last clear. The caller sets the PC afterwards; the IT state must be clear.
void CortexM4F::clear_exclusive_monitor() {
    if (!m_monitor_open) return;
    m_monitor_open = false;
    m_in_stub = true;
    m_stop_requested = true;  // the block hook ignores the stub
    uc_emu_start(m_uc, kStubBase | 1u, kUntil, 0, 0);
    m_stop_requested = false;
    m_in_stub = false;
}

// --- exceptions ----------------------------------------------------------------------------

int CortexM4F::execution_priority() const {
    return m_scs->execution_priority(reg(UC_ARM_REG_PRIMASK) & 1u, reg(UC_ARM_REG_BASEPRI),
                                     reg(UC_ARM_REG_FAULTMASK) & 1u);
}

bool CortexM4F::preempting_exception_pending(bool ignore_primask) const {
    const int exc = m_scs->highest_pending();
    if (exc == Scs::kNoException) return false;
    const int prio = m_scs->execution_priority(ignore_primask ? false : reg(UC_ARM_REG_PRIMASK) & 1u,
                                               reg(UC_ARM_REG_BASEPRI), reg(UC_ARM_REG_FAULTMASK) & 1u);
    return m_scs->group_priority(exc) < prio;
}

// Interrupts are taken between blocks, where the state is exact. The stacked EPSR.T is 1 (the
// core cannot be between blocks with it clear: execution with T clear faults at once).
void CortexM4F::take_pending_exceptions() {
    m_scs->clear_changed();
    while (!m_halted && preempting_exception_pending(false)) {
        const int exc = m_scs->highest_pending();
        m_sleeping = false;
        enter_exception(exc, pc(), reg(UC_ARM_REG_XPSR) | kXpsrT);
    }
}

void CortexM4F::trace_irq(int exc, uint8_t kind) {
    if (!m_sink) return;
    IrqRecord r{};
    r.t_ps = static_cast<uint64_t>(time_of(m_ticks).value());
    if (kind == 0) r.t_ps = sc_core::sc_time_stamp().value();  // pended by another process
    r.exception = static_cast<int16_t>(exc);
    r.component = m_component;
    r.kind = kind;
    m_sink->append(m_tbl_irq, &r);
}

// Unicorn applies the architectural privilege rules to register access from the host: an
// unprivileged thread reads MSP/PSP/CONTROL as 0 and ignores writes to them, and CONTROL.SPSEL
// writes are ignored in handler mode. So entry from an unprivileged thread first raises privilege
// (a brief switch to handler mode, which is always privileged, clears nPRIV); then the frame is
// pushed and SPSEL cleared while still in thread mode (the ISS rebanks SP), and only then the
// core enters handler mode, restoring nPRIV in CONTROL.
//
// ARMv7-M B1.5.6 (PushStack, ExceptionTaken): `xpsr` is the xPSR to stack (flags, the IT state
// and T bit of the interrupted or faulting instruction); its IPSR field and bit 9 are set here.
// The frame is aligned to 8 bytes when CCR.STKALIGN is set. With an FP context (CONTROL.FPCA)
// the extended frame is reserved; S0-S15 and FPSCR are written now when FPCCR.LSPEN is 0, else
// lazily (FPCAR, FPCCR.LSPACT and the ready bits are set; prepare_block writes them when the
// handler first uses the FPU). The handler starts with the IT state clear and the local
// exclusive monitor cleared.
void CortexM4F::enter_exception(int exc, uint32_t return_pc, uint32_t xpsr) {
    m_known_it_pc = kNoPc;
    const uint32_t ipsr = reg(UC_ARM_REG_IPSR) & 0x1FFu;
    const bool thread = ipsr == 0;
    const int prio = execution_priority();  // of the interrupted context (FPCCR ready bits)
    uint32_t control = 0;
    if (thread) {
        set_reg(UC_ARM_REG_IPSR, static_cast<uint32_t>(exc));
        control = reg(UC_ARM_REG_CONTROL);
        set_reg(UC_ARM_REG_CONTROL, control & ~1u);
        set_reg(UC_ARM_REG_IPSR, 0);
    } else {
        control = reg(UC_ARM_REG_CONTROL);
    }
    const bool psp_in_use = thread && (control & 2u);
    const bool fp = (control & 4u) != 0;  // FPCA: an FP context is live
    const uint32_t sp = psp_in_use ? reg(UC_ARM_REG_PSP) : reg(UC_ARM_REG_MSP);
    const uint32_t words = fp ? 26 : 8;
    uint32_t frame = sp - 4 * words;
    xpsr = (xpsr & ~0x3FFu) | ipsr;
    if ((frame & 4u) && (m_scs->ccr() & Scs::kCcrStkAlign)) {  // flagged in stacked xPSR bit 9
        frame -= 4;
        xpsr |= 1u << 9;
    }
    const uint32_t regs[8] = {reg(UC_ARM_REG_R0), reg(UC_ARM_REG_R1), reg(UC_ARM_REG_R2),
                              reg(UC_ARM_REG_R3), reg(UC_ARM_REG_R12), reg(UC_ARM_REG_LR),
                              return_pc & ~1u, xpsr};
    bool ok = true;
    for (uint32_t i = 0; i < 8; ++i) ok = ok && mem_write32(frame + 4 * i, regs[i]);
    const uint32_t fpccr = m_scs->fpccr();
    const bool lazy = fp && (fpccr & kFpccrLspen);
    if (fp && !lazy) {
        for (uint32_t i = 0; i < 16; ++i)
            ok = ok && mem_write32(frame + 32 + 4 * i, reg(UC_ARM_REG_S0 + static_cast<int>(i)));
        ok = ok && mem_write32(frame + 96, reg(UC_ARM_REG_FPSCR));
    }
    if (!ok) {
        stop_with_error("lockup: stacking for exception " + std::to_string(exc) +
                        " failed: stack pointer " + hex32(sp) + " outside SRAM (pc " +
                        where(return_pc) + ")");
        return;
    }
    if (lazy) {  // ARMv7-M UpdateFPCCR
        auto ready = [&](int e) {
            return m_scs->fault_enabled(e) && m_scs->group_priority(e) < prio;
        };
        uint32_t v = (fpccr & ~kFpccrState) | kFpccrLspact;
        if (thread && (control & 1u)) v |= 1u << 1;  // USER
        if (thread) v |= 1u << 3;                    // THREAD
        if (prio > -1) v |= 1u << 4;                 // HFRDY
        if (ready(kMemManage)) v |= 1u << 5;         // MMRDY
        if (ready(kBusFault)) v |= 1u << 6;          // BFRDY
        if ((m_scs->demcr() & (1u << 16)) && m_scs->group_priority(kDebugMon) < prio)
            v |= 1u << 8;  // MONRDY
        m_scs->set_fpccr(v);
        m_scs->set_fpcar(frame + 32);
    }
    if (psp_in_use) {
        set_reg(UC_ARM_REG_PSP, frame);
        set_reg(UC_ARM_REG_CONTROL, control & ~3u);  // thread mode: the ISS rebanks SP to MSP
    } else {
        set_reg(UC_ARM_REG_MSP, frame);
    }
    const uint32_t exc_return =
        0xFFFFFFE1u | (fp ? 0u : 0x10u) | (thread ? 0x8u : 0u) | (psp_in_use ? 0x4u : 0u);
    set_reg(UC_ARM_REG_LR, exc_return);
    // IPSR = exc, IT state clear, T set, flags kept
    set_reg(UC_ARM_REG_XPSR,
            (reg(UC_ARM_REG_APSR) & 0xF80F0000u) | kXpsrT | static_cast<uint32_t>(exc));
    set_reg(UC_ARM_REG_CONTROL, control & ~6u);  // handler: SPSEL 0, FPCA 0, nPRIV kept
    rebuild_flags();
    m_ticks += m_p.exception_entry_cycles + (fp && !lazy ? m_p.fp_frame_extra_cycles : 0);
    branch_to_vector(exc);
}

// Activates `exc` (already in handler mode) and continues at its vector. A vector with bit 0
// clear makes the handler's first instruction fault with INVSTATE (EPSR.T = 0).
bool CortexM4F::branch_to_vector(int exc) {
    clear_exclusive_monitor();
    const uint32_t entry = m_scs->vtor() + 4u * static_cast<uint32_t>(exc);
    uint32_t vector = 0;
    if (!mem_read32(entry, vector)) {
        stop_with_error("lockup: vector table entry for exception " + std::to_string(exc) + " at " +
                        hex32(entry) + " is outside SRAM");
        return false;
    }
    m_scs->activate(exc);
    ++m_exceptions;
    trace_irq(exc, 1);
    if (!(vector & 1u)) {
        Fault f;
        f.exc = kUsageFault;
        f.cfsr = kInvState;
        f.cause = FaultCause::invalid_state;
        f.pc = vector;
        f.xpsr = (reg(UC_ARM_REG_XPSR) & ~kXpsrT & ~0x0600FC00u);
        f.detail = "vector for exception " + std::to_string(exc) + " has the Thumb bit clear";
        take_fault(f);
        return false;
    }
    set_reg(UC_ARM_REG_PC, vector | 1u);
    return true;
}

// A fault taken on the existing frame (ARMv7-M ExceptionReturn with an invalid EXC_RETURN): the
// handler starts with LR = `exc_return`, nothing is stacked.
void CortexM4F::tail_chain(int exc, uint32_t exc_return) {
    m_known_it_pc = kNoPc;
    set_reg(UC_ARM_REG_LR, exc_return);
    set_reg(UC_ARM_REG_CONTROL, reg(UC_ARM_REG_CONTROL) & ~4u);  // FPCA clear
    set_reg(UC_ARM_REG_XPSR,
            (reg(UC_ARM_REG_APSR) & 0xF80F0000u) | kXpsrT | static_cast<uint32_t>(exc));
    rebuild_flags();
    m_ticks += m_p.exception_entry_cycles;
    branch_to_vector(exc);
}

// Runs in handler mode (privileged). A return to thread mode passes through privileged thread
// mode so that the final CONTROL write (SPSEL from EXC_RETURN, nPRIV restored) rebanks SP.
//
// ARMv7-M B1.5.8 (ExceptionReturn, PopStack): FAULTMASK clears unless returning from NMI. An
// EXC_RETURN whose low bits are not 0001, 1001 or 1101, or a return to thread mode while other
// exceptions are active and CCR.NONBASETHRDENA is 0, deactivates the exception and takes a
// UsageFault (INVPC) on the existing frame with LR = 0xF:EXC_RETURN. Otherwise the frame is
// popped (bit 9 of the stacked xPSR undoes the alignment when CCR.STKALIGN is set), the FP
// registers are reloaded unless FPCCR.LSPACT says they were never saved, the local exclusive
// monitor is cleared, and the IT state and T bit come back from the stacked xPSR; a stacked T of
// 0 makes the first instruction fault with INVSTATE.
void CortexM4F::exception_return(uint32_t exc_return) {
    m_known_it_pc = kNoPc;
    const int exc = m_scs->current();
    if (exc == 0) {
        fault(FaultCause::invalid_exc_return, m_last_block, 0,
              "exception return value " + hex32(exc_return) + " in thread mode");
        return;
    }
    const uint32_t low = exc_return & 0xFu;
    const bool to_thread = exc_return & 8u;
    bool valid = low == 0x1 || low == 0x9 || low == 0xD;
    if (valid && to_thread && m_scs->nesting() > 1 && !(m_scs->ccr() & Scs::kCcrNonBaseThrdEna))
        valid = false;
    if (exc != kNmi) set_reg(UC_ARM_REG_FAULTMASK, 0);
    if (!valid) {
        m_scs->deactivate(exc);
        trace_irq(exc, 2);
        Fault f;
        f.exc = kUsageFault;
        f.cfsr = kInvPc;
        f.cause = FaultCause::invalid_exc_return;
        f.tail_chain = true;
        f.exc_return = 0xF0000000u | exc_return;
        f.report_pc = m_last_block;
        f.detail = "exception return value " + hex32(exc_return) +
                   (valid ? ""
                    : to_thread && (low == 0x9 || low == 0xD)
                        ? " returns to thread mode while other exceptions are active"
                        : " is not a valid EXC_RETURN");
        take_fault(f);
        return;
    }
    const bool use_psp = exc_return & 4u;
    const bool fp = !(exc_return & 0x10u);
    uint32_t msp = reg(UC_ARM_REG_SP);  // handler mode: SP is the MSP bank
    uint32_t psp = reg(UC_ARM_REG_PSP);
    const uint32_t sp = use_psp ? psp : msp;
    uint32_t f[26] = {};
    const uint32_t words = fp ? 26 : 8;
    for (uint32_t i = 0; i < words; ++i) {
        if (fp && i == 25) break;  // the reserved word is not read
        if (!mem_read32(sp + 4 * i, f[i])) {
            stop_with_error("lockup: unstacking from " + hex32(sp) + " outside SRAM");
            return;
        }
    }
    const uint32_t xpsr = f[7];
    const bool realign = ((xpsr >> 9) & 1u) && (m_scs->ccr() & Scs::kCcrStkAlign);
    (use_psp ? psp : msp) = sp + 4 * words + (realign ? 4u : 0u);
    m_scs->deactivate(exc);
    trace_irq(exc, 2);
    clear_exclusive_monitor();
    set_reg(UC_ARM_REG_R0, f[0]);
    set_reg(UC_ARM_REG_R1, f[1]);
    set_reg(UC_ARM_REG_R2, f[2]);
    set_reg(UC_ARM_REG_R3, f[3]);
    set_reg(UC_ARM_REG_R12, f[4]);
    set_reg(UC_ARM_REG_LR, f[5]);
    if (fp) {
        const uint32_t fpccr = m_scs->fpccr();
        if (fpccr & kFpccrLspact) {  // never saved: the registers still hold the values
            m_scs->set_fpccr(fpccr & ~kFpccrLspact);
        } else {
            for (uint32_t i = 0; i < 16; ++i)
                set_reg(UC_ARM_REG_S0 + static_cast<int>(i), f[8 + i]);
            set_reg(UC_ARM_REG_FPSCR, f[24]);
        }
    }
    const uint32_t control = reg(UC_ARM_REG_CONTROL);
    const uint32_t fpca = fp ? 4u : 0u;
    if (to_thread) {
        const bool q_spsel = control & 2u;  // what the ISS will assume once in thread mode
        set_reg(UC_ARM_REG_CONTROL, (control & ~5u) | fpca);  // privileged for the switch
        set_reg(UC_ARM_REG_SP, q_spsel ? psp : msp);
        set_reg(UC_ARM_REG_PSP, q_spsel ? msp : psp);
        set_reg(UC_ARM_REG_XPSR, (xpsr & ~0x3FFu) | kXpsrT);
        set_reg(UC_ARM_REG_IPSR, 0);
        set_reg(UC_ARM_REG_CONTROL, (control & 1u) | (use_psp ? 2u : 0u) | fpca);
    } else {
        const uint32_t ipsr = xpsr & 0x1FFu;
        set_reg(UC_ARM_REG_SP, msp);
        set_reg(UC_ARM_REG_PSP, psp);
        set_reg(UC_ARM_REG_XPSR, (xpsr & ~0x3FFu & ~kXpsrT) | kXpsrT | ipsr);
        set_reg(UC_ARM_REG_CONTROL, (control & ~4u) | fpca);
    }
    set_reg(UC_ARM_REG_APSR_NZCVQG, xpsr);  // an xPSR write leaves GE as it is
    rebuild_flags();
    set_reg(UC_ARM_REG_PC, f[6] | 1u);
    m_ticks += m_p.exception_return_cycles;
    if (!(xpsr & kXpsrT)) {  // the first instruction after the return faults
        Fault t;
        t.exc = kUsageFault;
        t.cfsr = kInvState;
        t.cause = FaultCause::invalid_state;
        t.pc = f[6] & ~1u;
        t.xpsr = (reg(UC_ARM_REG_XPSR) & ~0x1FFu & ~kXpsrT) | (xpsr & 0x1FFu);
        t.detail = "exception return to a frame whose stacked xPSR has the Thumb bit clear";
        take_fault(t);
        return;
    }
    if (to_thread && m_scs->sleep_on_exit() && !preempting_exception_pending(false)) m_sleeping = true;
}

void CortexM4F::handle_intr(uint32_t intno) {
    const uint32_t at = pc();
    switch (intno) {
        case 2: {  // SVC: PC already points after the instruction, the IT state advanced past it
            const uint32_t xpsr = reg(UC_ARM_REG_XPSR) | kXpsrT;
            if (m_scs->group_priority(kSvcall) < execution_priority()) {
                enter_exception(kSvcall, at, xpsr);
            } else {  // escalates; the return address is still the next instruction
                Fault f;
                f.exc = kHardFault;
                f.hfsr = kHfsrForced;
                f.pc = at;
                f.xpsr = xpsr;
                f.cause = FaultCause::hard_fault;
                f.report_pc = at - 2;
                f.detail = "SVC executed where SVCall cannot preempt (priority escalation)";
                take_fault(f);
            }
            break;
        }
        case 7: {  // BKPT: PC at the instruction
            uint16_t insn = 0;
            uc_mem_read(m_uc, at, &insn, 2);
            if (insn == 0xBEABu) {
                semihosting();
                if (!m_halted) set_reg(UC_ARM_REG_PC, (at + 2) | 1u);
            } else {
                fault(FaultCause::breakpoint, at, 0, "BKPT executed without a debugger");
            }
            break;
        }
        case 8:  // EXCP_EXCEPTION_EXIT: PC holds EXC_RETURN without bit 0, which is in EPSR.T
            exception_return(at | ((reg(UC_ARM_REG_XPSR) & kXpsrT) ? 1u : 0u));
            break;
        case 1:  // EXCP_UDEF
            undefined_instruction(at);
            break;
        case 3: {  // EXCP_PREFETCH_ABORT: instruction fetch from an execute-never region
            Fault f;
            f.exc = kMemManage;
            f.cfsr = kIaccViol;
            f.pc = at;
            f.xpsr = reg(UC_ARM_REG_XPSR) | kXpsrT;
            f.cause = FaultCause::execute_never;
            f.addr = at;
            f.detail = "the default memory map marks the region execute-never";
            take_fault(f);
            break;
        }
        case 4: {  // EXCP_DATA_ABORT: Unicorn's own alignment check (exclusive accesses)
            Fault f;
            f.exc = kUsageFault;
            f.cfsr = kUnaligned;
            f.pc = at;
            f.xpsr = reg(UC_ARM_REG_XPSR) | kXpsrT;
            f.cause = FaultCause::unaligned;
            f.detail = "the instruction requires an aligned address";
            take_fault(f);
            break;
        }
        case 17:  // EXCP_NOCP: a coprocessor instruction
        case 18:  // EXCP_INVSTATE
            undefined_instruction(at);
            break;
        default:
            fault(FaultCause::hard_fault, at, 0, "CPU exception " + std::to_string(intno));
            break;
    }
}

// An instruction the ISS does not execute: with EPSR.T clear (a branch to an even address) an
// INVSTATE UsageFault that stacks T = 0; a coprocessor instruction for other than CP10/CP11 a NOCP
// UsageFault; anything else (UDF, FP instructions the FPU lacks) UNDEFINSTR.
void CortexM4F::undefined_instruction(uint32_t at) {
    Fault f;
    f.exc = kUsageFault;
    f.pc = at;
    f.xpsr = reg(UC_ARM_REG_XPSR);
    if (!(f.xpsr & kXpsrT)) {
        f.cfsr = kInvState;
        f.cause = FaultCause::invalid_state;
        f.detail = "execution with the Thumb bit clear (a branch to an even address)";
        take_fault(f);
        return;
    }
    uint16_t hw[2] = {};
    uc_mem_read(m_uc, at, hw, 4);
    const int cp =
        (hw[0] & 0xE000u) == 0xE000u && (hw[0] & 0x1800u) ? coprocessor_of(hw[0], hw[1]) : -1;
    if (cp >= 0 && cp != 10 && cp != 11) {
        f.cfsr = kNoCp;
        f.cause = FaultCause::no_coprocessor;
        f.detail = "no coprocessor " + std::to_string(cp);
    } else {
        f.cfsr = kUndefInstr;
        f.cause = FaultCause::undefined_instruction;
    }
    take_fault(f);
}

void CortexM4F::semihosting() {
    sync();  // output and exit carry the core's own time
    const uint32_t op = reg(UC_ARM_REG_R0);
    const uint32_t arg = reg(UC_ARM_REG_R1);
    auto read_u32 = [&](uint32_t a) {
        uint32_t v = 0;
        uc_mem_read(m_uc, a, &v, 4);
        return v;
    };
    auto put = [&](char ch) {
        if (semihost_putc) semihost_putc(ch);
    };
    uint32_t result = 0;
    switch (op) {
        case 0x03: {  // SYS_WRITEC
            char ch = 0;
            uc_mem_read(m_uc, arg, &ch, 1);
            put(ch);
            break;
        }
        case 0x04: {  // SYS_WRITE0
            for (uint32_t a = arg; a < arg + 65536; ++a) {
                char ch = 0;
                if (uc_mem_read(m_uc, a, &ch, 1) != UC_ERR_OK || ch == 0) break;
                put(ch);
            }
            break;
        }
        case 0x05: {  // SYS_WRITE {fd, buf, len}: returns bytes NOT written
            const uint32_t fd = read_u32(arg), buf = read_u32(arg + 4), len = read_u32(arg + 8);
            if (fd == 1 || fd == 2) {
                for (uint32_t i = 0; i < len; ++i) {
                    char ch = 0;
                    uc_mem_read(m_uc, buf + i, &ch, 1);
                    put(ch);
                }
                result = 0;
            } else {
                result = len;
            }
            break;
        }
        case 0x10:  // SYS_CLOCK: centiseconds of simulated time
            result = static_cast<uint32_t>(time_of(m_ticks).to_seconds() * 100.0);
            break;
        case 0x11: result = 0; break;  // SYS_TIME: deterministic runs have no wall clock
        case 0x13: result = 0; break;  // SYS_ERRNO
        case 0x16:                      // SYS_HEAPINFO: unknown (zeros)
            for (uint32_t i = 0; i < 4; ++i) {
                const uint32_t a = read_u32(arg) + 4 * i;
                const uint32_t z = 0;
                uc_mem_write(m_uc, a, &z, 4);
            }
            break;
        case 0x18:    // SYS_EXIT: r1 is the reason code
        case 0x20: {  // SYS_EXIT_EXTENDED: r1 -> {reason, code}
            const uint32_t reason = op == 0x18 ? arg : read_u32(arg);
            int code = reason == 0x20026u ? 0 : 1;
            if (op == 0x20 && reason == 0x20026u) code = static_cast<int>(read_u32(arg + 4));
            sync();
            m_halted = true;
            if (on_exit) on_exit(code);
            return;
        }
        default:
            fault(FaultCause::hard_fault, pc(), 0, "unsupported semihosting operation " + hex32(op));
            return;
    }
    set_reg(UC_ARM_REG_R0, result);
}

void CortexM4F::sleep() {
    sync();
    if (m_halted) return;
    if (preempting_exception_pending(true)) {  // WFI wakes even if PRIMASK masks the interrupt
        m_sleeping = false;
        return;
    }
    const sc_core::sc_time start = sc_core::sc_time_stamp();
    m_in_wfi = true;
    m_wfi_since = start;
    if (m_scs->systick_next() != UINT64_MAX) {
        const sc_core::sc_time until = time_of(m_scs->systick_next());
        wait(until > start ? until - start : sc_core::SC_ZERO_TIME, m_wake_event);
    } else {
        wait(m_wake_event);
    }
    const sc_core::sc_time end = sc_core::sc_time_stamp();
    m_in_wfi = false;
    const uint64_t woke = std::max(m_ticks, ticks_at(end));
    m_sleep_ticks += woke - m_ticks;
    m_ticks = m_sync_ticks = woke;
    m_sleep_time += end - start;
    if (m_sink && end > start) {
        SleepRecord r{};
        r.t_start_ps = start.value();
        r.t_end_ps = end.value();
        r.component = m_component;
        m_sink->append(m_tbl_sleep, &r);
    }
    if (m_scs->systick_next() <= m_ticks) m_scs->systick_expired(m_ticks);
    if (m_halted || preempting_exception_pending(true)) m_sleeping = false;
}

// --- faults --------------------------------------------------------------------------------

uint32_t CortexM4F::locate_access(uint32_t block, uint32_t addr) {
    // The faulting block may have been cut short; decode up to the ISS's block-size limit.
    std::vector<uint8_t> code(block == m_last_block && m_last_size ? m_last_size : 64);
    uc_mem_read(m_uc, block, code.data(), code.size());
    return m_cycles->find_access(code.data(), code.size(), block, addr, [this](unsigned r) {
        if (r >= ARM_REG_R0 && r <= ARM_REG_R12) return reg(UC_ARM_REG_R0 + static_cast<int>(r - ARM_REG_R0));
        if (r == ARM_REG_SP) return reg(UC_ARM_REG_SP);
        if (r == ARM_REG_LR) return reg(UC_ARM_REG_LR);
        return 0u;
    });
}

// xPSR for a fault at `pc` inside the last block: flags and registers are exact at the access,
// but the ISS keeps the IT state of the block entry, so the state at `pc` is worked out from the
// block's instructions.
uint32_t CortexM4F::xpsr_at(uint32_t pc) {
    const uint32_t xpsr = reg(UC_ARM_REG_XPSR) | kXpsrT;
    if (!m_last_size) return xpsr;
    const BlockAnalysis b = analyze_block(m_last_block, m_last_size);
    const int i = b.index_of(m_last_block, pc);
    if (i < 0) return xpsr;
    return xpsr_with_it(xpsr, b.it_state(static_cast<size_t>(i), m_last_it));
}

void CortexM4F::stop_before_block(uint32_t addr, uint8_t it) {
    m_stop_requested = true;
    m_pc_it_at = addr;
    m_pc_it = it;
    m_pc_it_valid = true;
    uc_emu_stop(m_uc);
}

void CortexM4F::stop_with_error(const std::string& msg) {
    raise_sim_error(name(), msg);
    m_halted = true;
}

// Without a specific CFSR bit: HardFault, or a report under fault_policy "stop".
void CortexM4F::fault(FaultCause cause, uint32_t at, uint32_t addr, const std::string& detail) {
    Fault f;
    f.cause = cause;
    f.pc = at;
    f.xpsr = reg(UC_ARM_REG_XPSR) | kXpsrT;
    f.addr = addr;
    f.detail = detail;
    if (cause == FaultCause::undefined_instruction) {
        f.exc = kUsageFault;
        f.cfsr = kUndefInstr;
    } else if (cause == FaultCause::invalid_state) {
        f.exc = kUsageFault;
        f.cfsr = kInvState;
    } else if (cause == FaultCause::invalid_exc_return) {
        f.exc = kUsageFault;
        f.cfsr = kInvPc;
    }
    take_fault(f);
}

// Reports the fault (trace row; with fault_policy "stop" a simulation error naming PC, symbol,
// instruction, address and cause) or takes it (ARMv7-M B1.5.5 priority escalation): a
// configurable fault that SHCSR disables or whose priority cannot preempt the current execution
// priority becomes a HardFault with HFSR.FORCED; a HardFault that cannot preempt (in HardFault
// or NMI, or FAULTMASK set) is a lockup, which stops the run.
void CortexM4F::take_fault(const Fault& f) {
    sync();  // the report and the trace row carry the core's own time
    const uint32_t at = f.report_pc ? f.report_pc : f.pc;
    std::string insn;
    uint8_t code[4] = {};
    if (uc_mem_read(m_uc, at, code, 4) == UC_ERR_OK) insn = m_cycles->disassemble(code, 4, at);
    std::string msg = std::string(fault_cause_name(f.cause)) + " at pc " + where(at);
    if (!insn.empty()) msg += " (" + insn + ")";
    if (f.cause == FaultCause::bus_error || f.cause == FaultCause::unmapped ||
        f.cause == FaultCause::unaligned)
        msg += ", address " + hex32(f.addr);
    if (!f.detail.empty()) msg += ": " + f.detail;
    if (m_sink) {
        FaultRecord r{};
        r.t_ps = static_cast<uint64_t>(time_of(m_ticks).value());
        r.pc = at;
        r.address = f.addr;
        r.component = m_component;
        r.cause = static_cast<uint8_t>(f.cause);
        m_sink->append(m_tbl_fault, &r);
    }
    const bool vectorable = f.cause != FaultCause::lockup && f.cause != FaultCause::breakpoint;
    if (m_p.fault_policy != "vector" || !vectorable) {
        stop_with_error(msg);
        return;
    }
    m_scs->record_fault(f.cfsr, 0, f.bfar, f.mmfar);
    int exc = f.exc;
    uint32_t hfsr = f.hfsr;
    const int prio = execution_priority();
    if (exc != kHardFault && (!m_scs->fault_enabled(exc) || m_scs->group_priority(exc) >= prio)) {
        exc = kHardFault;
        hfsr |= kHfsrForced;
    }
    if (exc == kHardFault && prio <= -1) {
        stop_with_error(
            "lockup (a fault where HardFault cannot be taken: in HardFault or NMI, or "
            "FAULTMASK set): " +
            msg);
        return;
    }
    m_scs->record_fault(0, hfsr, 0, 0);
    if (f.tail_chain)
        tail_chain(exc, f.exc_return);
    else
        enter_exception(exc, f.pc, f.xpsr);
}

void CortexM4F::write_summary() {
    if (!m_sink) return;
    const double period_ps = 1e12 / m_clock.hz;
    m_sink->counter(m_component, "instructions", "1", static_cast<double>(m_instructions));
    m_sink->counter(m_component, "cycles", "cycles", static_cast<double>(active_cycles()));
    m_sink->counter(m_component, "busy_ps", "ps", std::round(static_cast<double>(active_cycles()) * period_ps));
    m_sink->counter(m_component, "sleep_ps", "ps", static_cast<double>(m_sleep_time.value()));
    m_sink->counter(m_component, "exceptions", "1", static_cast<double>(m_exceptions));
    // runs up to an instruction whose check needs the exact state (each re-translates a block)
    m_sink->counter(m_component, "check_steps", "1", static_cast<double>(m_steps));
    m_sink->counter(m_component, "cpi", "cycles",
                    m_instructions ? static_cast<double>(active_cycles()) / static_cast<double>(m_instructions) : 0.0);
    m_sink->counter(m_component, "clock_hz", "Hz", m_clock.hz);
}

}  // namespace nmsim::arm
