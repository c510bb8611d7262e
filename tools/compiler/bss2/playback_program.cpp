#include "tools/compiler/bss2/playback_program.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace nmsim::compiler::bss2 {

uint32_t us_to_cycles(double us) {
    const double c = std::round(us / kFpgaCycleUs);
    if (!(c >= 0.0 && c <= 4294967295.0))
        throw PlaybackError("time " + std::to_string(us) +
                            " us is outside the 32-bit FPGA timer (0 .. 34.36 s)");
    return static_cast<uint32_t>(c);
}

double cycles_to_us(uint64_t cycles) { return static_cast<double>(cycles) * kFpgaCycleUs; }

void PlaybackProgramBuilder::append(uint64_t w) {
    if (m_halted) throw PlaybackError("playback program: instruction after HALT");
    m_words.push_back(w);
}

void PlaybackProgramBuilder::timer_reset() { append(bss2_pb_make(BSS2_PB_TIMER_RESET, 0)); }

void PlaybackProgramBuilder::wait_until(uint32_t cycles) { append(bss2_pb_wait_until(cycles)); }

void PlaybackProgramBuilder::write(uint32_t addr, uint32_t data) {
    if (addr >> 24)
        throw PlaybackError("playback program: write address " + std::to_string(addr) +
                            " wider than 24 bit");
    append(bss2_pb_write(addr, data));
}

ReadTicket PlaybackProgramBuilder::read(uint32_t addr) {
    if (addr >> 24)
        throw PlaybackError("playback program: read address " + std::to_string(addr) +
                            " wider than 24 bit");
    append(bss2_pb_read(addr));
    return ReadTicket{m_reads++};
}

void PlaybackProgramBuilder::spikes(const std::vector<uint32_t>& labels) {
    for (uint32_t l : labels)
        if (l > 0xFFFFu)
            throw PlaybackError("playback program: spike label " + std::to_string(l) +
                                " wider than 16 bit");
    for (size_t i = 0; i < labels.size(); i += 3) {
        const size_t n = std::min<size_t>(3, labels.size() - i);
        append(bss2_pb_spikes(static_cast<uint32_t>(n), labels[i], n > 1 ? labels[i + 1] : 0u,
                              n > 2 ? labels[i + 2] : 0u));
    }
}

void PlaybackProgramBuilder::run_begin(uint32_t run) {
    if (m_in_run) throw PlaybackError("playback program: RUN_BEGIN inside a run");
    append(bss2_pb_make(BSS2_PB_RUN_BEGIN, run));
    m_in_run = true;
}

void PlaybackProgramBuilder::run_end() {
    if (!m_in_run) throw PlaybackError("playback program: RUN_END without RUN_BEGIN");
    append(bss2_pb_make(BSS2_PB_RUN_END, 0));
    m_in_run = false;
}

void PlaybackProgramBuilder::halt() {
    if (m_in_run) throw PlaybackError("playback program: HALT inside a run");
    append(bss2_pb_make(BSS2_PB_HALT, 0));
    m_halted = true;
}

const ReadResponse& ProgramResponses::read(ReadTicket t) const {
    if (t.index >= reads.size())
        throw PlaybackError("read ticket " + std::to_string(t.index) + " unanswered (" +
                            std::to_string(reads.size()) + " read responses)");
    return reads[t.index];
}

const RunResponses* ProgramResponses::run(uint32_t index) const {
    for (const auto& r : runs)
        if (r.run == index) return &r;
    return nullptr;
}

ProgramResponses decode_responses(const std::vector<uint64_t>& responses) {
    ProgramResponses out;
    RunResponses* current = nullptr;
    for (size_t i = 0; i < responses.size(); ++i) {
        const uint64_t w = responses[i];
        const std::string at = "response word " + std::to_string(i);
        if (out.halted) throw PlaybackError(at + ": data after the HALT response");
        switch (bss2_pb_opcode(w)) {
            case BSS2_PB_RSP_READ:
                out.reads.push_back({bss2_pb_addr(w), bss2_pb_data(w)});
                break;
            case BSS2_PB_RSP_RUN:
                out.runs.push_back(RunResponses{bss2_pb_data(w), {}, {}});
                current = &out.runs.back();
                break;
            case BSS2_PB_RSP_SPIKE:
                if (!current) throw PlaybackError(at + ": spike before any run header");
                current->spikes.push_back({bss2_pb_rsp_label(w), bss2_pb_rsp_time(w)});
                break;
            case BSS2_PB_RSP_MADC:
                if (!current) throw PlaybackError(at + ": MADC sample before any run header");
                current->madc.push_back({bss2_pb_rsp_sample(w), bss2_pb_rsp_time(w)});
                break;
            case BSS2_PB_RSP_HALT:
                out.dropped = bss2_pb_data(w);
                out.halted = true;
                break;
            default:
                throw PlaybackError(at + ": unknown response type " +
                                    std::to_string(bss2_pb_opcode(w)));
        }
    }
    return out;
}

}  // namespace nmsim::compiler::bss2
