// A hagen-mode tile on the chip: configuration, playback program, results (hagen_program.h).
#include "tools/compiler/bss2/hagen_program.h"

#include <algorithm>
#include <string>

#include "nmsim/hw/brainscales2/bss2_map.h"
#include "nmsim/hw/brainscales2/playback.h"

namespace nmsim::compiler::bss2::hagen {

namespace {

constexpr uint32_t kL2Channel = 0;
constexpr uint32_t kHemiBit = 13, kBusShift = 11;
constexpr uint32_t kRouteMask = (1u << kHemiBit) | (3u << kBusShift);

uint32_t label14(uint32_t hemi, uint32_t row, uint32_t x) {
    const uint32_t bus = row % BSS2_PADI_PER_HEMI, rowsel = row / BSS2_PADI_PER_HEMI;
    return hemi << kHemiBit | bus << kBusShift | rowsel << BSS2_PADI_ROWSEL_SHIFT |
           ((32u - x) & 0x1Fu);
}

// Integrator neuron words (bss2_map.h units): reset potential 600 mV = CADC code 128; the
// time constants only have to be valid (the integrator has no leak and no synaptic kernel).
std::vector<ConfigWord> neuron_words(uint32_t hemi, uint32_t col) {
    const uint32_t base = BSS2_NEURON(hemi, col);
    return {
        {base + BSS2_NRN_CFG, BSS2_NRN_CFG_ENABLE | BSS2_NRN_CFG_INTEGRATOR},
        {base + BSS2_NRN_ADDR_OUT, 0},
        {base + BSS2_NRN_V_LEAK, 600000},
        {base + BSS2_NRN_V_RESET, 600000},
        {base + BSS2_NRN_V_THRESHOLD, 1200000},
        {base + BSS2_NRN_V_EXP, 1200000},
        {base + BSS2_NRN_DELTA_T, 1000},
        {base + BSS2_NRN_C_MEM, 2200},
        {base + BSS2_NRN_TAU_MEM, 10000000},
        {base + BSS2_NRN_TAU_SYN_EXC, 320000},
        {base + BSS2_NRN_TAU_SYN_INH, 320000},
        {base + BSS2_NRN_TAU_W, 100000000},
        {base + BSS2_NRN_A, 0},
        {base + BSS2_NRN_B, 0},
        {base + BSS2_NRN_T_REF, 0},
        {base + BSS2_NRN_I_OFFSET, 0},
        {base + BSS2_NRN_W_EXC, 1000000},
        {base + BSS2_NRN_W_INH, 1000000},
    };
}

void emit_reset(std::vector<uint64_t>& p, const Tile& t) {
    for (uint32_t c = 0; c < t.cols; ++c)
        p.push_back(bss2_pb_write(BSS2_NEURON(t.half, c) + BSS2_NRN_RESET, 1));
}

// Trigger at `at` (timer cycles), read every column after the conversion.
void emit_cadc(std::vector<uint64_t>& p, const Tile& t, uint32_t at, uint32_t wait) {
    p.push_back(bss2_pb_wait_until(at));
    p.push_back(bss2_pb_write(BSS2_CADC_TRIGGER, 1));
    p.push_back(bss2_pb_wait_until(at + wait));
    for (uint32_t c = 0; c < t.cols; ++c) p.push_back(bss2_pb_read(BSS2_CADC_RESULT(t.half, c)));
}

}  // namespace

std::vector<ConfigWord> tile_config(const Tile& t, const IntMatrix& w) {
    check_weights(w, "tile");
    std::vector<ConfigWord> cfg;
    const uint32_t h = t.half;
    // Routing: L2 channel 0 -> the four PADI buses of the half, enabled.
    for (uint32_t b = 0; b < BSS2_PADI_PER_HEMI; ++b) {
        const uint32_t node = BSS2_XBAR_NODE(BSS2_XIN_L2(kL2Channel), BSS2_XOUT_PADI(h, b));
        cfg.push_back({node + BSS2_XBAR_MASK, kRouteMask | (1u << BSS2_XBAR_MASK_ENABLE_SHIFT)});
        cfg.push_back({node + BSS2_XBAR_TARGET, h << kHemiBit | b << kBusShift});
        cfg.push_back({BSS2_PADI(h, b), 1});
    }
    // Drivers: one per signed input, hagen mode, rows {inhibitory, excitatory}; the rest off.
    for (uint32_t d = 0; d < BSS2_DRIVERS; ++d) {
        const uint32_t on = (0x1Fu << BSS2_SYNDRV_CFG_ROWMASK_SHIFT) |
                            (BSS2_ROW_INHIBITORY << BSS2_SYNDRV_CFG_MODE0_SHIFT) |
                            (BSS2_ROW_EXCITATORY << BSS2_SYNDRV_CFG_MODE1_SHIFT) |
                            (1u << BSS2_SYNDRV_CFG_ENABLE_SHIFT) |
                            (1u << BSS2_SYNDRV_CFG_HAGEN_SHIFT);
        cfg.push_back({BSS2_SYNDRV(h, d) + BSS2_SYNDRV_CFG, d < t.rows ? on : 0u});
    }
    // Synapses: the signed weight on its row pair, label 0.
    for (uint32_t i = 0; i < t.rows; ++i)
        for (uint32_t c = 0; c < t.cols; ++c) {
            const int32_t v = w.at(t.row0 + i, t.col0 + c);
            cfg.push_back({BSS2_SYNAPSE(h, 2 * i, c), static_cast<uint32_t>(v < 0 ? -v : 0)});
            cfg.push_back({BSS2_SYNAPSE(h, 2 * i + 1, c), static_cast<uint32_t>(v > 0 ? v : 0)});
        }
    for (uint32_t c = 0; c < t.cols; ++c)
        for (const ConfigWord& nw : neuron_words(h, c)) cfg.push_back(nw);
    return cfg;
}

std::vector<uint64_t> tile_program(const Tile& t, const IntMatrix& x, const VectorTiming& timing) {
    check_inputs(x, "tile");
    if (x.cols < t.row0 + t.rows)
        throw OperatorError("tile: input vectors have " + std::to_string(x.cols) +
                            " entries, the tile needs " + std::to_string(t.row0 + t.rows));
    if (timing.num_sends == 0 || timing.wait_between_events == 0)
        throw OperatorError("tile: num_sends and wait_between_events must be >= 1");
    std::vector<uint64_t> p;
    for (uint32_t b = 0; b < x.rows; ++b) {
        if (timing.baseline) {
            emit_reset(p, t);
            p.push_back(bss2_pb_make(BSS2_PB_TIMER_RESET, 0));
            emit_cadc(p, t, timing.settle_before_baseline, timing.cadc_wait);
        }
        emit_reset(p, t);
        p.push_back(bss2_pb_make(BSS2_PB_RUN_BEGIN, b));  // the realtime section of vector b
        p.push_back(bss2_pb_make(BSS2_PB_TIMER_RESET, 0));
        uint32_t at = timing.settle_before_events;
        for (uint32_t s = 0; s < timing.num_sends; ++s)
            for (uint32_t i = 0; i < t.rows; ++i) {
                const int32_t v = x.at(b, t.row0 + i);
                if (v == 0) continue;  // no event for a zero input
                p.push_back(bss2_pb_wait_until(at));
                p.push_back(bss2_pb_spikes(
                    1, bss2_l2_event(kL2Channel, label14(t.half, i, static_cast<uint32_t>(v))), 0,
                    0));
                at += timing.wait_between_events;
            }
        emit_cadc(p, t, at + timing.settle_after_events, timing.cadc_wait);
        p.push_back(bss2_pb_make(BSS2_PB_RUN_END, 0));
    }
    p.push_back(bss2_pb_make(BSS2_PB_HALT, 0));
    return p;
}

IntMatrix tile_results(const Tile& t, uint32_t batch, const std::vector<uint64_t>& responses,
                       const VectorTiming& timing) {
    std::vector<uint32_t> codes;
    for (uint64_t r : responses)
        if (bss2_pb_opcode(r) == BSS2_PB_RSP_READ) codes.push_back(bss2_pb_data(r) & 0xFFu);
    const size_t per_vector = size_t{t.cols} * (timing.baseline ? 2 : 1);
    if (codes.size() != per_vector * batch)
        throw OperatorError("tile: " + std::to_string(codes.size()) + " CADC reads returned, " +
                            std::to_string(per_vector * batch) + " expected");
    IntMatrix y(batch, t.cols);
    for (uint32_t b = 0; b < batch; ++b) {
        const uint32_t* base = codes.data() + b * per_vector;
        const uint32_t* after = base + (timing.baseline ? t.cols : 0);
        for (uint32_t c = 0; c < t.cols; ++c) {
            // Without a baseline read the resting level is taken as code 128 (grenade).
            const int32_t b0 = timing.baseline ? static_cast<int32_t>(base[c]) : 128;
            y.at(b, c) = std::clamp(static_cast<int32_t>(after[c]) - b0, kOutMin, kOutMax);
        }
    }
    return y;
}

}  // namespace nmsim::compiler::bss2::hagen
