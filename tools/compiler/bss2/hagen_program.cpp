// A hagen-mode tile on the chip: configuration, playback program, results (hagen_program.h).
#include "tools/compiler/bss2/hagen_program.h"

#include "tools/compiler/bss2/hagen_graph.h"

#include <algorithm>
#include <string>

#include "nmsim/hw/brainscales2/bss2_map.h"
#include "nmsim/hw/brainscales2/playback.h"

namespace nmsim::compiler::bss2::hagen {

namespace {

constexpr uint32_t kL2Channel = 0;

uint32_t label14(uint32_t hemi, uint32_t row, uint32_t x) {
    const uint32_t bus = row % BSS2_PADI_PER_HEMI, rowsel = row / BSS2_PADI_PER_HEMI;
    return hemi << kLabelHemiBit | bus << kLabelBusShift | rowsel << BSS2_PADI_ROWSEL_SHIFT |
           ((32u - x) & 0x1Fu);
}

// Columns 0 .. cols-1 of a half as (quad, mask of used columns) pairs.
uint32_t quads(uint32_t cols) { return (cols + 3u) / 4u; }
uint32_t quad_mask(uint32_t cols, uint32_t q) {
    const uint32_t used = std::min(4u, cols - 4u * q);
    return (1u << used) - 1u;
}

// Neuron reset by quads (NeuronResetQuad): one write per four columns of each tile.
void emit_reset(std::vector<uint64_t>& p, const std::vector<Tile>& tiles) {
    for (const Tile& t : tiles)
        for (uint32_t q = 0; q < quads(t.cols); ++q)
            p.push_back(bss2_pb_write(BSS2_NRN_RESET_QUAD(t.half, q), quad_mask(t.cols, q)));
}

// Trigger at `at` (timer cycles): the CADC converts every column of both halves at once; then
// one quad read per four columns of each tile after the conversion.
void emit_cadc(std::vector<uint64_t>& p, const std::vector<Tile>& tiles, uint32_t at,
               uint32_t wait) {
    p.push_back(bss2_pb_wait_until(at));
    p.push_back(bss2_pb_write(BSS2_CADC_TRIGGER, 1));
    p.push_back(bss2_pb_wait_until(at + wait));
    for (const Tile& t : tiles)
        for (uint32_t q = 0; q < quads(t.cols); ++q)
            p.push_back(bss2_pb_read(BSS2_CADC_QUAD(t.half, q)));
}

// The v1 workaround rewrites the tiles' synapses before every vector: the synapse words of
// their configuration.
std::vector<uint64_t> synapse_program(const std::vector<Tile>& tiles, const IntMatrix& w) {
    std::vector<uint64_t> p;
    for (const Tile& t : tiles)
        for (const auto& [a, d] : tile_config(t, w))
            if (a >= BSS2_SYNAPSE_BASE) p.push_back(bss2_pb_write(a, d));
    return p;
}

void check_group(const std::vector<Tile>& tiles, const IntMatrix& x, const VectorTiming& timing) {
    if (tiles.empty() || tiles.size() > BSS2_HEMISPHERES ||
        (tiles.size() == 2 && tiles[0].half == tiles[1].half))
        throw OperatorError("tile group: one or two tiles on different halves, got " +
                            std::to_string(tiles.size()));
    check_inputs(x, "tile");
    for (const Tile& t : tiles)
        if (x.cols < t.row0 + t.rows)
            throw OperatorError("tile: input vectors have " + std::to_string(x.cols) +
                                " entries, the tile needs " + std::to_string(t.row0 + t.rows));
    if (timing.num_sends == 0 || timing.wait_between_events == 0)
        throw OperatorError("tile: num_sends and wait_between_events must be >= 1");
}

// The events of vector b: step k carries the k-th non-zero input of every tile (one SPIKES
// message, as grenade packs both hemispheres' events), `wait_between_events` cycles apart,
// `num_sends` times. Returns the time after the last event.
uint32_t emit_events(std::vector<uint64_t>& p, const std::vector<Tile>& tiles, const IntMatrix& x,
                     uint32_t b, const VectorTiming& timing, uint32_t at) {
    std::vector<std::vector<uint32_t>> labels(tiles.size());
    for (size_t k = 0; k < tiles.size(); ++k)
        for (uint32_t i = 0; i < tiles[k].rows; ++i) {
            const int32_t v = x.at(b, tiles[k].row0 + i);
            if (v == 0) continue;  // no event for a zero input
            labels[k].push_back(
                bss2_l2_event(kL2Channel, label14(tiles[k].half, i, static_cast<uint32_t>(v))));
        }
    size_t steps = 0;
    for (const auto& l : labels) steps = std::max(steps, l.size());
    for (uint32_t s = 0; s < timing.num_sends; ++s)
        for (size_t i = 0; i < steps; ++i) {
            uint32_t e[2] = {0, 0}, n = 0;
            for (const auto& l : labels)
                if (i < l.size()) e[n++] = l[i];
            // Back to back (one cycle apart) the FPGA's issue rate spaces the events: no wait.
            if (timing.wait_between_events > 1 || (s == 0 && i == 0))
                p.push_back(bss2_pb_wait_until(at));
            p.push_back(bss2_pb_spikes(n, e[0], e[1], 0));
            at += timing.wait_between_events;
        }
    return at;
}

}  // namespace

std::vector<ConfigWord> tile_config(const Tile& t, const IntMatrix& w) {
    MatmulPlan one;
    one.op = "tile";
    one.in_features = w.rows;
    one.out_features = w.cols;
    one.row_splits = one.col_splits = one.chips = one.passes = 1;
    Tile at = t;
    at.chip = at.pass = 0;
    one.tiles = {at};
    const MacGraph g = build_mac_graph(one, w, VectorTiming{});
    return configuration(g.graph, g.groups.at(0).instance);
}

std::vector<uint64_t> tile_program(const std::vector<Tile>& tiles, const IntMatrix& x,
                                   const IntMatrix& w, const VectorTiming& timing) {
    check_group(tiles, x, timing);
    const std::vector<uint64_t> rewrite =
        timing.rewrite_synapses ? synapse_program(tiles, w) : std::vector<uint64_t>{};
    std::vector<uint64_t> p;
    for (uint32_t b = 0; b < x.rows; ++b) {
        p.insert(p.end(), rewrite.begin(), rewrite.end());
        if (timing.baseline) {
            emit_reset(p, tiles);
            p.push_back(bss2_pb_make(BSS2_PB_TIMER_RESET, 0));
            emit_cadc(p, tiles, timing.settle_before_baseline, timing.cadc_wait);
        }
        emit_reset(p, tiles);
        p.push_back(bss2_pb_make(BSS2_PB_RUN_BEGIN, b));  // the realtime section of vector b
        p.push_back(bss2_pb_make(BSS2_PB_TIMER_RESET, 0));
        const uint32_t at = emit_events(p, tiles, x, b, timing, timing.settle_before_events);
        emit_cadc(p, tiles, at + timing.settle_after_events, timing.cadc_wait);
        p.push_back(bss2_pb_make(BSS2_PB_RUN_END, 0));
    }
    p.push_back(bss2_pb_make(BSS2_PB_HALT, 0));
    return p;
}

std::vector<uint64_t> tile_program(const Tile& t, const IntMatrix& x, const IntMatrix& w,
                                   const VectorTiming& timing) {
    return tile_program(std::vector<Tile>{t}, x, w, timing);
}

uint64_t vector_program_words(const std::vector<Tile>& tiles, const VectorTiming& timing) {
    uint64_t words = 16;  // timer resets, triggers, waits, run markers
    for (const Tile& t : tiles) {
        words += uint64_t{timing.baseline ? 4u : 2u} * quads(t.cols);  // resets and reads
        words += uint64_t{2} * t.rows * timing.num_sends;              // wait + spikes per event
        if (timing.rewrite_synapses) words += uint64_t{2} * t.rows * t.cols;
    }
    return words;
}

std::vector<IntMatrix> tile_results(const std::vector<Tile>& tiles, uint32_t batch,
                                    const std::vector<uint64_t>& responses,
                                    const VectorTiming& timing) {
    std::vector<uint32_t> words;
    for (uint64_t r : responses)
        if (bss2_pb_opcode(r) == BSS2_PB_RSP_READ) words.push_back(bss2_pb_data(r));
    size_t per_read = 0;  // quad words of one CADC read of the group
    for (const Tile& t : tiles) per_read += quads(t.cols);
    const size_t per_vector = per_read * (timing.baseline ? 2 : 1);
    if (words.size() != per_vector * batch)
        throw OperatorError("tile: " + std::to_string(words.size()) +
                            " CADC quad reads returned, " + std::to_string(per_vector * batch) +
                            " expected");
    std::vector<IntMatrix> ys;
    for (const Tile& t : tiles) ys.emplace_back(batch, t.cols);
    for (uint32_t b = 0; b < batch; ++b) {
        const uint32_t* base = words.data() + b * per_vector;
        const uint32_t* after = base + (timing.baseline ? per_read : 0);
        size_t first = 0;  // the tile's first quad within a read
        for (size_t k = 0; k < tiles.size(); ++k) {
            for (uint32_t c = 0; c < tiles[k].cols; ++c) {
                const size_t q = first + c / 4u;
                const uint32_t shift = 8u * (c % 4u);
                const int32_t a = static_cast<int32_t>((after[q] >> shift) & 0xFFu);
                // Without a baseline read the resting level is taken as code 128 (grenade).
                const int32_t b0 =
                    timing.baseline ? static_cast<int32_t>((base[q] >> shift) & 0xFFu) : 128;
                ys[k].at(b, c) = std::clamp(a - b0, kOutMin, kOutMax);
            }
            first += quads(tiles[k].cols);
        }
    }
    return ys;
}

IntMatrix tile_results(const Tile& t, uint32_t batch, const std::vector<uint64_t>& responses,
                       const VectorTiming& timing) {
    return tile_results(std::vector<Tile>{t}, batch, responses, timing)[0];
}

}  // namespace nmsim::compiler::bss2::hagen
