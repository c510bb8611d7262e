// The compile stage of the deepr workload: the data (IDX files), each PE's data memory layout
// (configuration, the three weight blocks in the seed's format, vectors, temporary buffers), the
// DRAM layout (samples, records) and the reference's configuration. No simulation.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "models/common/units.h"
#include "nmsim/hw/spinnaker2/exp_regs.h"
#include "nmsim/hw/spinnaker2/noc_map.h"
#include "nmsim/hw/spinnaker2/prng_regs.h"
#include "workloads/deepr/host.h"

namespace nmsim::workloads::deepr {

using scenario::ConfigError;
using scenario::ScenarioError;

namespace {

uint32_t round_up(uint32_t v, uint32_t a) { return (v + a - 1) / a * a; }

// Samples as the firmware reads them: the label (uint32), then the pixels, padded to 4 bytes.
std::vector<uint8_t> sample_blob(const dataset::LabelledImages& d, uint32_t count,
                                 uint32_t stride) {
    std::vector<uint8_t> blob(size_t(count) * stride, 0);
    for (uint32_t i = 0; i < count; ++i) {
        uint8_t* s = blob.data() + size_t(i) * stride;
        const uint32_t label = d.labels[i];
        std::memcpy(s, &label, 4);
        std::memcpy(s + 4, d.images.data() + size_t(i) * d.item, d.item);
    }
    return blob;
}

// Bump allocation in the data memory, 4-byte aligned, by category.
class Arena {
public:
    explicit Arena(uint32_t base) : m_at(base) {}
    uint32_t take(uint32_t bytes, uint32_t& category) {
        const uint32_t a = m_at;
        const uint32_t n = round_up(bytes, 4);
        m_at += n;
        category += n;
        return a;
    }
    uint32_t end() const { return m_at; }

private:
    uint32_t m_at;
};

CellLayout layout_cell(const reference::DeeprSpec& spec, const DeeprWorkload& w, uint32_t cell,
                       uint32_t pe) {
    CellLayout L;
    L.pe = pe;
    s2_deepr_config_t& c = L.cfg;
    c.magic = S2_DEEPR_MAGIC;
    c.version = S2_DEEPR_VERSION;
    c.role = spec.four_cores ? cell : S2_DEEPR_ROLE_SINGLE;
    c.flags = (w.accelerators ? S2_DEEPR_FLAG_ACCEL : 0u) | (w.record ? S2_DEEPR_FLAG_RECORD : 0u) |
              (w.rewiring == "linear" ? S2_DEEPR_FLAG_LINEAR_REWIRING : 0u);
    for (unsigned i = 0; i < 4; ++i) c.n[i] = spec.n[i];
    Footprint& fp = L.fp;
    uint32_t other = 0;
    Arena a(S2_DEEPR_DATA_BASE);
    a.take(sizeof(s2_deepr_config_t) + sizeof(s2_deepr_counters_t), other);
    for (unsigned l = 0; l < 3; ++l) {
        s2_deepr_layer_t& b = c.layer[l];
        b.n_in = spec.block_in(l);
        b.n_out = spec.block_out(l);
        b.capacity = spec.block_capacity(l);
        b.rows = a.take(2 * b.capacity, fp.weights);
        b.cols = a.take(2 * b.capacity, fp.weights);
        b.theta = a.take(4 * b.capacity, fp.weights);
        b.signs = a.take(4 * ((b.capacity + 31) / 32), fp.weights);
        b.init_scale = float_bits(spec.init_scale[l]);
    }
    // Vectors: the input half, the hidden layers' inputs (two buffers each with four cores: the
    // next iteration's may arrive while this one's update still reads them), errors, partials.
    const bool four = spec.four_cores;
    for (unsigned l = 0; l < 3; ++l) {
        s2_deepr_layer_t& b = c.layer[l];
        b.in_vec = a.take(4 * b.n_in * (four && l > 0 ? 2 : 1), fp.vectors);
        b.delta_out = a.take(4 * b.n_out, fp.vectors);
        if (four) {  // partial sums: forward n_out, backward (hidden layers only) n_in
            const uint32_t partial = l > 0 ? std::max(b.n_in, b.n_out) : b.n_out;
            b.out_vec = a.take(4 * partial, fp.vectors);
            b.rx_partial = a.take(4 * partial, fp.vectors);
        }
    }
    for (unsigned l = 0; l < 3; ++l) c.layer[l].delta_in = l > 0 ? c.layer[l - 1].delta_out : 0;
    c.logits = a.take(4 * spec.n[3], fp.vectors);
    c.image_buf = a.take(round_up(c.layer[0].n_in, 4) + 4, fp.vectors);
    c.tmp = a.take(8 * w.max_new, fp.temporary);
    c.record_buf = a.take(sizeof(s2_deepr_record_t), fp.temporary);
    fp.data = a.end() - S2_DEEPR_DATA_BASE + S2_DEEPR_STACK_BYTES;
    if (four) {
        const unsigned ca = cell / 2, cb = cell % 2;
        c.rx_vec[S2_DEEPR_MSG_LOGITS] = c.logits + 4 * (1 - cb) * c.layer[2].n_out;
        c.rx_vec[S2_DEEPR_MSG_DELTA_OUT] = c.layer[2].delta_out;
        for (unsigned l = 0; l < 3; ++l) {
            c.rx_vec[S2_DEEPR_MSG_FWD_PARTIAL(l)] = c.layer[l].rx_partial;
            if (l < 2) c.rx_vec[S2_DEEPR_MSG_FWD_HALF(l)] = c.layer[l + 1].in_vec;
            if (l > 0) {
                c.rx_vec[S2_DEEPR_MSG_BWD_PARTIAL(l)] = c.layer[l].rx_partial;
                c.rx_vec[S2_DEEPR_MSG_BWD_HALF(l)] = c.layer[l - 1].delta_out;
            }
        }
        c.in_first = ca * c.layer[0].n_in;
        (void)cb;
    }
    c.iterations = static_cast<uint32_t>(w.iterations);
    c.epoch_size = static_cast<uint32_t>(spec.epoch_size);
    c.lr_halving_epochs = spec.lr_halving_epochs;
    c.learning_rate = float_bits(spec.learning_rate);
    c.l1 = float_bits(spec.l1);
    c.noise = float_bits(spec.noise);
    c.rewiring_period = spec.rewiring_period;
    c.max_new = spec.max_new;
    c.exp_iterations = spec.exp_iterations;
    const s2_kiss_state_t& k = spec.seeds[cell];
    c.seed[0] = k.x;
    c.seed[1] = k.y;
    c.seed[2] = k.z;
    c.seed[3] = k.c;
    return L;
}

}  // namespace

Compiled compile(const DeeprWorkload& w, const spinnaker2::ChipParams& p, uint64_t seed) {
    std::vector<ConfigError> errors;
    auto err = [&](const std::string& field, const std::string& msg) {
        errors.push_back(ConfigError{w.origin_of(field), "workload.deepr." + field, msg});
    };
    Compiled C;
    C.spec = reference::deepr_spec(w.layers, w.connections, w.cores == 4, seed);
    reference::DeeprSpec& s = C.spec;
    s.lr_halving_epochs = w.lr_halving_epochs;
    s.learning_rate = static_cast<float>(w.learning_rate);
    s.l1 = static_cast<float>(w.l1);
    s.noise = static_cast<float>(w.noise);
    s.rewiring_period = w.rewiring_period;
    s.max_new = w.max_new;
    s.exp_iterations = w.exp_iterations;
    for (unsigned l = 0; l < 3; ++l) {
        if (s.four_cores && (w.layers[l] % 2 || w.layers[l + 1] % 2))
            err("layers", "four cores split every layer in halves: sizes must be even");
        if (s.four_cores && w.connections[l] % 4)
            err("connections",
                "four cores split every matrix in quarters: connection counts "
                "must be multiples of 4");
        if (uint64_t(s.block_capacity(l)) * 2 > uint64_t(s.block_in(l)) * s.block_out(l))
            err("connections", "matrix " + std::to_string(l + 1) + ": " +
                                   std::to_string(w.connections[l]) + " connections in " +
                                   std::to_string(w.layers[l]) + " x " +
                                   std::to_string(w.layers[l + 1]) +
                                   ": at most half of each block may be connected (rewiring "
                                   "draws new coordinates until it finds a free one)");
    }
    const uint32_t n_pes = p.qpe_count * S2_NOC_PES_PER_QPE;
    if (w.first_pe + w.cores > n_pes)
        err("first_pe", "PEs " + std::to_string(w.first_pe) + ".." +
                            std::to_string(w.first_pe + w.cores - 1) +
                            " do not exist: the chip has " + std::to_string(n_pes) +
                            " PEs (qpe_count " + std::to_string(p.qpe_count) + ")");
    if (p.pe.sram_size.n < S2_ARGS_BASE + 4 * S2_ARGS_WORDS)
        errors.push_back(ConfigError{scenario::Origin{"platform", 0, 0}, "pe.sram_size",
                                     "the deepr layout needs 128 KiB of PE SRAM (64 KiB "
                                     "instruction + 64 KiB data memory, seed 003 sec. 2.1)"});
    if (!errors.empty()) throw ScenarioError(std::move(errors));

    // Errors name the key of the file the reader names (images or labels of either set).
    auto read = [&](const std::string& images, const std::string& labels, uint64_t count,
                    const std::string& set, dataset::LabelledImages& out) {
        try {
            out = dataset::read_labelled(images, labels, count);
        } catch (const dataset::IdxError& e) {
            const std::string what = e.what();
            err(set + (what.rfind(labels, 0) == 0 ? "_labels" : "_images"), what);
        }
    };
    read(w.train_images, w.train_labels, w.train_count, "train", C.train);
    read(w.test_images, w.test_labels, std::max<uint64_t>(w.test_count, 1), "test", C.test);
    if (!errors.empty()) throw ScenarioError(std::move(errors));
    if (C.train.item != w.layers[0] || (w.test_count && C.test.item != w.layers[0]))
        err("layers", "the images have " + std::to_string(C.train.item) + " pixels, layers.0 is " +
                          std::to_string(w.layers[0]));
    if (C.train.count < w.train_count)
        err("train_count", std::to_string(w.train_count) + " training images asked for, " +
                               w.train_images + " has " + std::to_string(C.train.count));
    if (C.test.count < w.test_count)
        err("test_count", std::to_string(w.test_count) + " test images asked for, " +
                              w.test_images + " has " + std::to_string(C.test.count));
    for (uint32_t i = 0; i < C.train.count; ++i)
        if (C.train.labels[i] >= w.layers[3]) {
            err("train_labels", "label " + std::to_string(C.train.labels[i]) + " of image " +
                                    std::to_string(i) +
                                    " is not below layers.3 = " + std::to_string(w.layers[3]));
            break;
        }
    s.epoch_size = static_cast<uint32_t>(w.epoch_size ? w.epoch_size : w.train_count);

    for (uint32_t cell = 0; cell < s.cells(); ++cell) {
        C.cells.push_back(layout_cell(s, w, cell, w.first_pe + cell));
        const Footprint& fp = C.cells.back().fp;
        if (S2_DEEPR_DATA_BASE + fp.data > S2_ARGS_BASE)
            err("connections",
                "PE " + std::to_string(w.first_pe + cell) + " needs " +
                    format_bytes(Bytes{fp.data}) + " of data memory, the prototype has " +
                    format_bytes(Bytes{S2_ARGS_BASE - S2_DEEPR_DATA_BASE}) +
                    " (64 KiB less the host argument block): fewer connections or neurons, "
                    "or four cores");
    }
    // DRAM (interface 0): training samples, test samples, the records of every PE.
    const uint32_t stride = 4 + round_up(w.layers[0], 4);
    const uint64_t records =
        uint64_t(w.record ? w.iterations : 0) * s.cells() * sizeof(s2_deepr_record_t);
    const uint64_t need = uint64_t(w.train_count + w.test_count) * stride + records;
    if (need > spinnaker2::dram_if_size(p))
        err("iterations", "the samples and records need " + format_bytes(Bytes{need}) +
                              " of DRAM, the first interface has " +
                              format_bytes(Bytes{spinnaker2::dram_if_size(p)}) +
                              " (fewer train_count or iterations, or record: false)");
    if (!errors.empty()) throw ScenarioError(std::move(errors));
    C.train_blob = sample_blob(C.train, static_cast<uint32_t>(w.train_count), stride);
    C.test_blob = sample_blob(C.test, static_cast<uint32_t>(w.test_count), stride);
    C.train_addr = S2_DRAM_GLOBAL_BASE;
    C.test_addr = C.train_addr + static_cast<uint32_t>(C.train_blob.size());
    C.records_addr = round_up(C.test_addr + static_cast<uint32_t>(C.test_blob.size()), 64);
    C.dram_end = C.records_addr + static_cast<uint32_t>(records);
    for (uint32_t cell = 0; cell < s.cells(); ++cell) {
        s2_deepr_config_t& c = C.cells[cell].cfg;
        c.train_data = C.train_addr;
        c.train_count = static_cast<uint32_t>(w.train_count);
        c.test_data = C.test_addr;
        c.test_count = static_cast<uint32_t>(w.test_count);
        c.sample_stride = stride;
        c.records =
            C.records_addr + static_cast<uint32_t>(cell * w.iterations * sizeof(s2_deepr_record_t));
        for (uint32_t q = 0; q < s.cells(); ++q) c.peer_pe[q] = w.first_pe + q;
    }
    C.elf = std::make_unique<arm::ElfImage>(arm::ElfImage::load(w.firmware_path));
    for (const auto& seg : C.elf->segments())
        if (uint64_t(seg.addr) + seg.memsz > S2_DEEPR_DATA_BASE)
            throw ScenarioError(
                {ConfigError{w.origin_of("firmware"), "workload.deepr.firmware",
                             w.firmware_path + ": a segment at " + std::to_string(seg.addr) +
                                 " reaches into the data memory at 64 KiB"}});
    C.clock_hz = p.pe.clock().hz;
    return C;
}

}  // namespace nmsim::workloads::deepr
