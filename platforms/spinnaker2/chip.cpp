#include "platforms/spinnaker2/chip.h"

#include <cstdlib>
#include <stdexcept>
#include <string>

#include "nmsim/hw/spinnaker2/comms_regs.h"
#include "nmsim/hw/spinnaker2/noc_map.h"
#include "nmsim/hw/spinnaker2/pe_map.h"
#include "nmsim/hw/spinnaker2/signal_regs.h"

namespace nmsim::spinnaker2 {

namespace {

constexpr uint64_t kExtEnd = 0xE0000000u;  // the off-PE window ends where the peripherals begin
constexpr uint64_t kExtSize = kExtEnd - S2_EXT_BASE;
constexpr uint64_t kPeWindow = uint64_t{1} << S2_PE_GLOBAL_OFFSET_BITS;
constexpr uint64_t kPage = 0x1000;

const ChipParams& checked(const ChipParams& p) {
    if (p.qpe_count < 1 || p.qpe_count > S2_NOC_N_QPES)
        throw std::invalid_argument("chip: qpe_count must be in 1..38, got " +
                                    std::to_string(p.qpe_count));
    static_assert(S2_COMMS_RX_OFFSET + S2_COMMS_RX_WINDOW <= S2_SIGNAL_RX_OFFSET,
                  "the comms RX window lies below the signal window");
    if (p.pe.sram_size.n > S2_COMMS_RX_OFFSET)
        throw std::invalid_argument("chip: pe.sram_size " + std::to_string(p.pe.sram_size.n) +
                                    " B overlaps the comms RX window at offset " +
                                    std::to_string(S2_COMMS_RX_OFFSET) + " of the PE window");
    if (p.dram.channels < 1 || p.dram.channels > S2_DRAM_IF_COUNT || p.dram.interleave.n != 0)
        throw std::invalid_argument(
            "chip: dram.channels must be 1 or 2 and dram.interleave 0 (one controller per NoC "
            "DRAM interface, split by address)");
    const uint64_t n = p.dram.channels;
    if (p.dram.size.n % (n * kPage) != 0 || p.dram.size.n / n > S2_DRAM_IF_SIZE)
        throw std::invalid_argument("chip: dram.size must be a multiple of " +
                                    std::to_string(4 * n) + " KiB and at most " +
                                    std::to_string(n) + " x the 1 GiB interface window, got " +
                                    std::to_string(p.dram.size.n) + " B");
    if (p.host.buffer_size.n % kPage != 0 || p.host.buffer_size.n > S2_HOST_GLOBAL_SIZE)
        throw std::invalid_argument("chip: host.buffer_size must be a multiple of 4 KiB");
    return p;
}

}  // namespace

uint64_t dram_if_size(const ChipParams& p) { return p.dram.size.n / p.dram.channels; }

NocParams Chip::noc_params(const ChipParams& p) {
    NocParams n = p.noc;
    n.n_qpes = p.qpe_count;
    n.pe_sram_size = Bytes{kPeWindow};  // the per-PE port decodes the window itself
    return n;
}

DramParams Chip::dram_params(const ChipParams& p) {
    DramParams d = p.dram;
    d.channels = 1;
    d.size = Bytes{dram_if_size(p)};
    return d;
}

std::vector<uint32_t> parse_perf_levels(const std::string& spec, size_t pe_count, uint32_t defaults) {
    std::vector<uint32_t> levels(pe_count, defaults);
    size_t pos = 0;
    while (pos < spec.size()) {
        const size_t comma = spec.find(',', pos);
        const std::string item = spec.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
        pos = comma == std::string::npos ? spec.size() : comma + 1;
        auto fail = [&](const std::string& why) {
            throw std::invalid_argument("perf_levels: entry \"" + item + "\": " + why);
        };
        unsigned long first = 0, last = 0, level = 0;
        char* end = nullptr;
        first = std::strtoul(item.c_str(), &end, 10);
        if (end == item.c_str()) fail("expected PE:level or FIRST-LAST:level");
        last = first;
        if (*end == '-') {
            const char* b = end + 1;
            last = std::strtoul(b, &end, 10);
            if (end == b) fail("expected a last PE after '-'");
        }
        if (*end != ':') fail("expected ':' and a level");
        const char* l = end + 1;
        level = std::strtoul(l, &end, 10);
        if (end == l || *end) fail("expected a level (0 or 1) after ':'");
        if (level > 1) fail("level " + std::to_string(level) + " does not exist (0: pl0_freq, 1: pl1_freq)");
        if (first > last || last >= pe_count)
            fail("PE range outside 0.." + std::to_string(pe_count - 1) + " of this chip");
        for (unsigned long i = first; i <= last; ++i) levels[i] = static_cast<uint32_t>(level);
    }
    return levels;
}

Chip::Chip(sc_core::sc_module_name name, const ChipParams& p, uint64_t seed, trace::Sink* sink,
           bool console_stdout)
    : sc_module(name),
      m_p(checked(p)),
      m_noc("noc", noc_params(p), sink),
      m_host("host", p.host, sink),
      m_router("router", p.router, sink) {
    for (uint32_t k = 0; k < p.dram.channels; ++k) {
        m_dram.push_back(
            std::make_unique<DramCtrl>(("dram" + std::to_string(k)).c_str(), dram_params(p), sink));
        m_noc.out[m_noc.dram_endpoint(k).value].bind(m_dram.back()->tgt);
    }
    m_noc.out[m_noc.host_endpoint().value].bind(m_host.tgt);
    m_host.init.bind(m_noc.in[m_noc.host_endpoint().value]);  // global addresses: no offset
    m_noc.out[m_noc.router_endpoint().value].bind(m_router.noc_in);
    m_router.noc_out.bind(m_noc.in[m_noc.router_endpoint().value]);  // global addresses

    const uint32_t n_pes = p.qpe_count * S2_NOC_PES_PER_QPE;
    const std::vector<uint32_t> levels = parse_perf_levels(p.perf_levels, n_pes, p.pe.perf_level);
    for (uint32_t i = 0; i < n_pes; ++i) {
        uint32_t qx = 0, qy = 0;
        s2_qpe_coord(i / S2_NOC_PES_PER_QPE, &qx, &qy);
        const EndpointOnNoc ep = m_noc.pe_endpoint(qx, qy, i % S2_NOC_PES_PER_QPE);
        const std::string pname = "pe" + std::to_string(i);
        PeParams pp = p.pe;
        pp.perf_level = levels[i];
        auto pe = std::make_unique<Pe>(pname.c_str(), pp, pe_seed(seed, i), sink, console_stdout);
        auto ext = std::make_unique<Router>((pname + "_ext").c_str());
        auto port = std::make_unique<Router>((pname + "_noc_port").c_str());

        auto core_ext = std::make_unique<Router>(
            (pname + "_core_ext").c_str(),
            sc_core::sc_time(static_cast<double>(p.core_ext_latency.ps), sc_core::SC_PS));
        pe->bus.map(core_ext->in, S2_EXT_BASE, kExtSize, "noc");
        core_ext->map(ext->in, 0, kExtSize, "noc");
        pe->core.map_bus_window(S2_EXT_BASE, static_cast<uint32_t>(kExtSize));
        pe->dma.ext.bind(ext->in);
        pe->signal.tx.bind(ext->in);
        pe->signal.set_index(ep.value);
        pe->comms.tx.bind(ext->in);
        pe->comms.set_index(ep.value);
        pe->comms.set_router(&m_router);
        m_router.attach_pe(ep.value, p.pe.comms.rx_fifo_depth);
        ext->map(m_noc.in[ep.value], 0, kExtSize, "noc");
        m_noc.set_in_address_offset(ep, S2_EXT_BASE);

        m_noc.out[ep.value].bind(port->in);
        port->map(pe->sram.tgt, 0, p.pe.sram_size.n, "sram");
        port->map(pe->comms.rx, S2_COMMS_RX_OFFSET, S2_COMMS_RX_WINDOW, "comms");
        port->map(pe->signal.rx, S2_SIGNAL_RX_OFFSET, S2_SIGNAL_RX_WINDOW, "signal");

        m_pes.add(std::move(pe));
        m_ext.push_back(std::move(ext));
        m_core_ext.push_back(std::move(core_ext));
        m_noc_port.push_back(std::move(port));
    }
}

Chip::~Chip() = default;

void Chip::write_summaries() {
    m_pes.write_summaries();
    m_noc.write_summary();
    for (auto& d : m_dram) d->write_summary();
    m_host.write_summary();
    m_router.write_summary();
}

}  // namespace nmsim::spinnaker2
