#include "platforms/spinnaker2/pe_platform.h"

#include <cstring>
#include <stdexcept>

#include "models/common/seeding.h"
#include "models/common/sim_error.h"
#include "nmsim/hw/spinnaker2/pe_map.h"

namespace nmsim::spinnaker2 {

namespace {
sc_core::sc_time to_sc(Time t) { return sc_core::sc_time(static_cast<double>(t.ps), sc_core::SC_PS); }
constexpr uint32_t kPage = 0x1000;
}  // namespace

uint64_t pe_seed(uint64_t seed, size_t index) {
    // distinct, well-mixed streams per PE from one run seed
    return derive_seed(seed, index);
}

Pe::Pe(sc_core::sc_module_name name, const PeParams& p, uint64_t seed, trace::Sink* sink,
       bool console_stdout)
    : sc_module(name),
      sram("sram", p.sram_size.n, sc_core::SC_ZERO_TIME),
      bus("bus"),
      core("core", p.core, p.clock(), sram, sink),
      mla("mla", p.mla, p.clock(), sram, sink),
      exp("exp", p.exp, p.clock(), sink),
      prng("prng", p.prng, seed, sink),
      timer0("timer0", p.timer, p.clock(), sink),
      timer1("timer1", p.timer, p.clock(), sink),
      dma("dma", p.dma, p.clock(), sram, sink),
      mailbox("mailbox", sink),
      console("console", sink, std::string(this->name()), console_stdout),
      signal("signal", sink),
      comms("comms", p.comms, sink),
      m_p(p) {
    if (p.sram_size.n % kPage != 0)
        throw std::invalid_argument("pe.sram_size must be a multiple of 4 KiB, got " +
                                    std::to_string(p.sram_size.n) + " B");
    core.bus.bind(bus.in);
    bus.map(sram.tgt, S2_SRAM_BASE, p.sram_size.n, "sram");  // for bus initiators; the core maps it directly
    bus.map(exp.cfg, S2_EXP_BASE, S2_PERIPH_WINDOW, "exp");
    bus.map(prng.cfg, S2_PRNG_BASE, S2_PERIPH_WINDOW, "prng");
    bus.map(timer0.cfg, S2_TIMER_BASE, S2_TIMER_STRIDE, "timer0");
    bus.map(timer1.cfg, S2_TIMER_BASE + S2_TIMER_STRIDE, S2_TIMER_STRIDE, "timer1");
    bus.map(dma.cfg, S2_DMA_BASE, S2_PERIPH_WINDOW, "dma");
    bus.map(mla.cfg, S2_MLA_BASE, S2_PERIPH_WINDOW, "mla");
    bus.map(mailbox.cfg, S2_MAILBOX_BASE, S2_PERIPH_WINDOW, "mailbox");
    bus.map(console.cfg, S2_CONSOLE_BASE, S2_PERIPH_WINDOW, "console");
    bus.map(signal.cfg, S2_SIGNAL_BASE, S2_PERIPH_WINDOW, "signal");
    bus.map(comms.cfg, S2_COMMS_BASE, S2_PERIPH_WINDOW, "comms");
    static_assert((S2_SIGNAL_BASE & ~(kPage - 1)) == S2_DMA_BASE, "signal shares the DMA page");
    static_assert((S2_COMMS_BASE & ~(kPage - 1)) == S2_DMA_BASE, "comms shares the DMA page");
    core.set_decoupled(S2_EXP_BASE, S2_PERIPH_WINDOW);
    core.set_decoupled(S2_PRNG_BASE, S2_PERIPH_WINDOW);
    for (uint32_t page : {S2_EXP_BASE, S2_TIMER_BASE, S2_DMA_BASE, S2_MLA_BASE, S2_MAILBOX_BASE})
        core.map_bus_window(page & ~(kPage - 1), kPage);
    timer0.irq.bind(core, S2_IRQ_TIMER0);
    timer1.irq.bind(core, S2_IRQ_TIMER1);
    dma.irq.bind(core, S2_IRQ_DMA);
    mla.irq.bind(core, S2_IRQ_MLA);
    mailbox.irq.bind(core, S2_IRQ_MAILBOX);
    signal.irq.bind(core, S2_IRQ_SIGNAL);
    comms.irq.bind(core, S2_IRQ_COMMS_RX);

    auto finish = [this](int code) {
        if (exited) return;
        exited = true;
        exit_code = code;
        exit_time = sc_core::sc_time_stamp();
        core.halt();
        if (on_exit) on_exit();
    };
    mailbox.on_doorbell = [finish](uint32_t code) { finish(static_cast<int>(code)); };
    core.on_exit = finish;
    core.semihost_putc = [this](char c) { console.putc(c); };
}

std::vector<Peripheral*> Pe::peripherals() {
    return {&mla, &exp, &prng, &timer0, &timer1, &dma, &mailbox, &console, &signal, &comms};
}

void Pe::load(const arm::ElfImage& image) {
    for (const auto& seg : image.segments()) {
        if (!sram.contains(seg.addr, seg.memsz))
            throw std::runtime_error(image.path() + ": segment at " + std::to_string(seg.addr) + " (" +
                                     std::to_string(seg.memsz) + " B) does not fit the " +
                                     std::to_string(sram.size()) + " B SRAM of " + name());
        std::copy(seg.bytes.begin(), seg.bytes.end(), sram.data() + seg.addr);
        std::fill(sram.data() + seg.addr + seg.bytes.size(), sram.data() + seg.addr + seg.memsz, 0);
    }
    core.set_image(&image);
}

void Pe::set_args(const std::vector<uint32_t>& words) {
    if (words.size() > S2_ARGS_WORDS)
        throw std::invalid_argument(std::string(name()) + ": " + std::to_string(words.size()) +
                                    " argument words, the argument block holds " + std::to_string(S2_ARGS_WORDS));
    if (!words.empty()) std::memcpy(sram.data() + S2_ARGS_BASE, words.data(), 4 * words.size());
}

PePlatform::PePlatform(sc_core::sc_module_name name, const PePlatformParams& p, uint64_t seed,
                       trace::Sink* sink, bool console_stdout)
    : sc_module(name),
      m_p(p),
      m_ext("ext", p.ext.size.n, to_sc(p.ext.latency), p.ext.bandwidth.bytes_per_s),
      m_ext_bus("ext_bus") {
    if (p.ext.size.n % kPage != 0 || p.ext.size.n > 0xC0000000ull)
        throw std::invalid_argument("ext.size must be a multiple of 4 KiB and at most 3 GiB");
    m_ext_bus.map(m_ext.tgt, 0, p.ext.size.n, "ext memory");
    for (uint32_t i = 0; i < p.pe_count; ++i) {
        auto pe = std::make_unique<Pe>(("pe" + std::to_string(i)).c_str(), p.pe, pe_seed(seed, i),
                                       sink, console_stdout);
        pe->bus.map(m_ext_bus.in, S2_EXT_BASE, p.ext.size.n, "ext");
        pe->dma.ext.bind(m_ext_bus.in);
        pe->core.map_bus_window(S2_EXT_BASE, static_cast<uint32_t>(p.ext.size.n));
        pe->signal.set_index(i);  // SELF; its sends fail: this platform has no NoC
        pe->comms.set_index(i);   // SELF; its sends fail: this platform has no spike router
        m_pes.add(std::move(pe));
    }
}

Pe& PeSet::add(std::unique_ptr<Pe> pe) {
    pe->on_exit = [this] {
        if (all_exited()) sc_core::sc_stop();
    };
    m_pes.push_back(std::move(pe));
    return *m_pes.back();
}

void PeSet::start(const std::vector<size_t>& pes) {
    m_running = pes;
    for (size_t i : pes) m_pes.at(i)->core.start();
}

bool PeSet::all_exited() const {
    for (size_t i : m_running)
        if (!m_pes[i]->exited) return false;
    return !m_running.empty();
}

size_t PeSet::iss_count() const {
    size_t n = 0;
    for (const auto& pe : m_pes) n += pe->core.iss_created() ? 1 : 0;
    return n;
}

void PeSet::write_summaries() {
    for (auto& pe : m_pes) {
        pe->console.flush();
        pe->core.write_summary();
        for (Peripheral* per : pe->peripherals()) per->write_summary();
    }
}

}  // namespace nmsim::spinnaker2
