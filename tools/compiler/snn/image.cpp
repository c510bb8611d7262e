// Per-PE images: layout, writer and checking reader (snn_image.h, docs/snn_compiler.md).
#include "tools/compiler/snn/image.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

namespace nmsim::compiler::snn {
namespace {

uint32_t align_up(uint32_t v) { return (v + S2_SNN_ALIGN - 1u) & ~(S2_SNN_ALIGN - 1u); }

// Appends regions one after the other on S2_SNN_ALIGN boundaries.
class Packer {
public:
    explicit Packer(PeLayout& l) : m_l(l) { m_end = sizeof(s2_snn_image_t); }
    // Places `bytes` (0: absent, offset 0) and returns its offset.
    uint32_t place(uint64_t bytes) {
        if (bytes == 0) return 0;
        const uint32_t at = align_up(m_end);
        m_l.padding += at - m_end;
        const uint64_t end = static_cast<uint64_t>(at) + bytes;
        m_end = end > 0xFFFFFFFFull ? 0xFFFFFFFFu : static_cast<uint32_t>(end);
        return at;
    }
    void finish() { m_l.size = m_end; }

private:
    PeLayout& m_l;
    uint32_t m_end;
};

void put32(std::vector<uint8_t>& b, uint32_t offset, uint32_t v) {
    std::memcpy(b.data() + offset, &v, sizeof v);
}
template <typename T>
void put(std::vector<uint8_t>& b, uint32_t offset, const T& v) {
    std::memcpy(b.data() + offset, &v, sizeof v);
}

uint32_t addr(uint32_t offset) { return offset == 0 ? 0u : S2_SNN_IMAGE_BASE + offset; }

s2_snn_image_t common_header(uint32_t kind, uint32_t vertex, uint32_t pe, uint32_t n_neurons,
                             uint32_t n_ticks, uint32_t tick_cycles, uint32_t timestep_ns,
                             const PeLayout& l) {
    s2_snn_image_t h{};
    h.magic = S2_SNN_IMAGE_MAGIC;
    h.version = S2_SNN_IMAGE_VERSION;
    h.kind = kind;
    h.image_size = l.size;
    h.pe = pe;
    h.vertex = vertex;
    h.key_base = vertex << S2_SNN_KEY_VERTEX_SHIFT;
    h.n_neurons = n_neurons;
    h.n_ticks = n_ticks;
    h.tick_cycles = tick_cycles;
    h.timestep_ns = timestep_ns;
    h.counters = addr(l.counters);
    return h;
}

}  // namespace

PeLayout neuron_layout(const NeuronCounts& c) {
    PeLayout l;
    Packer p(l);
    l.counters = p.place(sizeof(s2_snn_counters_t));
    l.params = p.place(sizeof(s2_snn_lif_params_t));
    l.state = p.place(uint64_t{sizeof(s2_snn_neuron_state_t)} * c.n_neurons);
    l.record_v_index = p.place(4ull * c.n_record_v);
    l.record_stage = p.place(4ull * c.record_words);
    l.spike_buffer = p.place(4ull * c.spike_buffer_entries);
    l.mpt = p.place(uint64_t{sizeof(s2_snn_mpt_entry_t)} * c.mpt_count);
    l.addr_list = p.place(4ull * c.addr_list_count);
    l.input = p.place(2ull * c.n_delay_slots * 2u * input_stride(c.n_neurons));
    l.syn_matrix = p.place(4ull * c.syn_matrix_words);
    p.finish();
    return l;
}

PeLayout source_layout(uint32_t n_ticks, uint32_t n_spikes, bool in_sram) {
    PeLayout l;
    Packer p(l);
    l.counters = p.place(sizeof(s2_snn_counters_t));
    if (in_sram) {
        l.spike_tick_index = p.place(4ull * (uint64_t{n_ticks} + 1));
        l.spike_keys = p.place(4ull * n_spikes);
    }
    p.finish();
    return l;
}

uint32_t SynBlock::stride() const {
    size_t longest = 0;
    for (const auto& r : rows) longest = std::max(longest, r.size());
    return static_cast<uint32_t>(1 + longest);
}

// Every neuron PE records its per-tick load (the record header), whatever else it records.
uint32_t record_words(uint32_t n_neurons, bool record_spikes, uint32_t n_record_v) {
    return S2_SNN_RECORD_HEADER_WORDS + (record_spikes ? (n_neurons + 31u) / 32u : 0u) + n_record_v;
}

NeuronCounts neuron_counts(const NeuronPeSpec& s) {
    NeuronCounts c;
    c.n_neurons = s.n_neurons;
    c.n_record_v = static_cast<uint32_t>(s.record_v.size());
    c.record_words = record_words(s.n_neurons, s.record_spikes, c.n_record_v);
    c.spike_buffer_entries = s.spike_buffer_entries;
    c.n_delay_slots = s.n_delay_slots;
    c.addr_list_count = static_cast<uint32_t>(s.blocks.size());
    uint64_t words = 0;
    for (size_t b = 0; b < s.blocks.size(); ++b) {
        if (b == 0 || s.blocks[b].src_vertex != s.blocks[b - 1].src_vertex) ++c.mpt_count;
        words += uint64_t{s.blocks[b].stride()} * s.blocks[b].rows.size();
    }
    c.syn_matrix_words = static_cast<uint32_t>(std::min<uint64_t>(words, 0xFFFFFFFFu));
    return c;
}

PeImage build_neuron_image(const NeuronPeSpec& s) {
    const NeuronCounts c = neuron_counts(s);
    const PeLayout l = neuron_layout(c);
    if (l.size > S2_SNN_MAX_IMAGE_BYTES)
        throw std::invalid_argument("build_neuron_image: image of " + std::to_string(l.size) +
                                    " B exceeds " + std::to_string(S2_SNN_MAX_IMAGE_BYTES) + " B");
    PeImage img;
    img.vertex = s.vertex;
    img.pe = s.pe;
    img.bytes.assign(l.size, 0);
    s2_snn_image_t h = common_header(S2_SNN_KIND_NEURON, s.vertex, s.pe, s.n_neurons, s.n_ticks,
                                     s.tick_cycles, s.timestep_ns, l);
    h.flags = (s.record_spikes ? S2_SNN_FLAG_RECORD_SPIKES : 0u) |
              (s.has_targets ? 0u : S2_SNN_FLAG_NO_TARGETS);
    h.mpt = addr(l.mpt);
    h.mpt_count = c.mpt_count;
    h.addr_list = addr(l.addr_list);
    h.addr_list_count = c.addr_list_count;
    h.syn_matrix = addr(l.syn_matrix);
    h.syn_matrix_words = c.syn_matrix_words;
    h.input = addr(l.input);
    h.n_delay_slots = c.n_delay_slots;
    h.input_stride = input_stride(s.n_neurons);
    h.spike_buffer = addr(l.spike_buffer);
    h.spike_buffer_entries = c.spike_buffer_entries;
    h.params = addr(l.params);
    h.state = addr(l.state);
    h.record_words = c.record_words;
    h.record_stage = addr(l.record_stage);
    h.record_dram = c.record_words != 0 ? s.record_dram : 0u;
    h.n_record_v = c.n_record_v;
    h.record_v_index = addr(l.record_v_index);
    put(img.bytes, 0, h);

    s2_snn_lif_params_t p{};
    p.alpha = s.lif.alpha;
    p.v_th = static_cast<uint32_t>(s.lif.v_th);
    p.v_reset = static_cast<uint32_t>(s.lif.v_reset);
    p.i_offset = static_cast<uint32_t>(s.lif.i_offset);
    p.t_ref = s.lif.t_ref;
    p.reset_mode = s.lif.subtract ? S2_SNN_RESET_SUBTRACT : S2_SNN_RESET_TO_V_RESET;
    put(img.bytes, l.params, p);
    for (uint32_t j = 0; j < s.n_neurons; ++j) {
        s2_snn_neuron_state_t st{};
        st.v = static_cast<uint32_t>(s.lif.v_init);
        put(img.bytes, l.state + j * sizeof(st), st);
    }
    for (size_t k = 0; k < s.record_v.size(); ++k)
        put32(img.bytes, l.record_v_index + 4 * static_cast<uint32_t>(k), s.record_v[k]);

    uint32_t offset = 0, mpt = 0;
    for (size_t b = 0; b < s.blocks.size(); ++b) {
        const SynBlock& blk = s.blocks[b];
        const uint32_t stride = blk.stride();
        if (stride >= (1u << S2_SNN_ADDR_STRIDE_WIDTH) ||
            offset >= (1u << S2_SNN_ADDR_OFFSET_WIDTH))
            throw std::invalid_argument("build_neuron_image: a block outgrows the address word");
        if (b == 0 || blk.src_vertex != s.blocks[b - 1].src_vertex) {
            uint32_t count = 0;
            for (size_t k = b; k < s.blocks.size() && s.blocks[k].src_vertex == blk.src_vertex; ++k)
                ++count;
            s2_snn_mpt_entry_t e{};
            e.key = blk.src_vertex << S2_SNN_KEY_VERTEX_SHIFT;
            e.mask = S2_SNN_KEY_VERTEX_MASK;
            e.target = s2_snn_mpt_target(static_cast<uint32_t>(b), count);
            put(img.bytes, l.mpt + mpt++ * sizeof(e), e);
        }
        put32(img.bytes, l.addr_list + 4 * static_cast<uint32_t>(b),
              s2_snn_addr_word(offset, stride));
        for (const auto& row : blk.rows) {
            const uint32_t at = l.syn_matrix + 4 * offset;
            put32(img.bytes, at, static_cast<uint32_t>(row.size()));
            for (size_t k = 0; k < row.size(); ++k)
                put32(img.bytes, at + 4 * static_cast<uint32_t>(1 + k), row[k]);
            offset += stride;
        }
    }
    return img;
}

std::vector<uint8_t> source_spike_list(const SourcePeSpec& s) {
    std::vector<uint8_t> b(4 * (s.tick_index.size() + s.keys.size()));
    if (!s.tick_index.empty()) std::memcpy(b.data(), s.tick_index.data(), 4 * s.tick_index.size());
    if (!s.keys.empty())
        std::memcpy(b.data() + 4 * s.tick_index.size(), s.keys.data(), 4 * s.keys.size());
    return b;
}

PeImage build_source_image(const SourcePeSpec& s) {
    if (s.tick_index.size() != uint64_t{s.n_ticks} + 1 || s.tick_index.back() != s.keys.size())
        throw std::invalid_argument("build_source_image: tick_index does not span the keys");
    const uint32_t n_spikes = static_cast<uint32_t>(s.keys.size());
    const bool in_sram = s.dram_addr == 0;
    const PeLayout l = source_layout(s.n_ticks, n_spikes, in_sram);
    if (l.size > S2_SNN_MAX_IMAGE_BYTES)
        throw std::invalid_argument("build_source_image: the spike list does not fit SRAM");
    PeImage img;
    img.vertex = s.vertex;
    img.pe = s.pe;
    img.bytes.assign(l.size, 0);
    s2_snn_image_t h = common_header(S2_SNN_KIND_SOURCE, s.vertex, s.pe, s.n_neurons, s.n_ticks,
                                     s.tick_cycles, s.timestep_ns, l);
    h.n_spikes = n_spikes;
    if (in_sram) {
        h.spike_tick_index = addr(l.spike_tick_index);
        h.spike_keys = addr(l.spike_keys);
        std::memcpy(img.bytes.data() + l.spike_tick_index, s.tick_index.data(),
                    4 * s.tick_index.size());
        if (n_spikes != 0)
            std::memcpy(img.bytes.data() + l.spike_keys, s.keys.data(), 4 * s.keys.size());
    } else {
        h.flags = S2_SNN_FLAG_SPIKES_IN_DRAM;
        h.spike_tick_index = s.dram_addr;
        h.spike_keys = s.dram_addr + 4 * (s.n_ticks + 1);
    }
    put(img.bytes, 0, h);
    return img;
}

// ---- Reader ----

namespace {

class Reader {
public:
    Reader(const PeImage& img, const std::vector<DramRegion>& dram) : m_img(img), m_dram(dram) {}

    [[noreturn]] void fail(const std::string& msg) const {
        throw ImageError("PE " + std::to_string(m_img.pe) + " (vertex " +
                         std::to_string(m_img.vertex) + ") image: " + msg);
    }

    // Registers region [a, a + bytes) of the image (SRAM address a) and checks it.
    uint32_t region(const char* name, uint32_t a, uint64_t bytes) {
        if (bytes == 0) {
            if (a != 0) fail(std::string(name) + ": address set for an empty region");
            return 0;
        }
        if (a % S2_SNN_ALIGN != 0) fail(std::string(name) + ": address not aligned");
        const uint64_t lo = static_cast<uint64_t>(a) - m_img.base;
        if (a < m_img.base + sizeof(s2_snn_image_t) || lo + bytes > m_img.bytes.size())
            fail(std::string(name) + ": outside the image");
        m_regions.push_back({lo, lo + bytes, name});
        return static_cast<uint32_t>(lo);
    }
    void check_disjoint() {
        std::sort(m_regions.begin(), m_regions.end());
        for (size_t i = 1; i < m_regions.size(); ++i)
            if (m_regions[i].lo < m_regions[i - 1].hi)
                fail(std::string(m_regions[i].name) + " overlaps " + m_regions[i - 1].name);
    }

    template <typename T>
    T get(uint64_t offset) const {
        T v;
        std::memcpy(&v, m_img.bytes.data() + offset, sizeof v);
        return v;
    }
    std::vector<uint32_t> words(uint32_t offset, uint32_t n) const {
        std::vector<uint32_t> w(n);
        if (n != 0) std::memcpy(w.data(), m_img.bytes.data() + offset, 4ull * n);
        return w;
    }
    // n words at global DRAM address a, from the compiler's regions.
    std::vector<uint32_t> dram_words(uint32_t a, uint64_t n) const {
        for (const DramRegion& r : m_dram)
            if (a >= r.addr && a - r.addr + 4 * n <= r.bytes.size()) {
                std::vector<uint32_t> w(n);
                if (n != 0) std::memcpy(w.data(), r.bytes.data() + (a - r.addr), 4 * n);
                return w;
            }
        fail("spike list at DRAM address " + std::to_string(a) + " is in no DRAM region");
    }

private:
    struct Region {
        uint64_t lo, hi;
        const char* name;
        bool operator<(const Region& o) const { return lo < o.lo; }
    };
    const PeImage& m_img;
    const std::vector<DramRegion>& m_dram;
    std::vector<Region> m_regions;
};

bool pow2(uint32_t v) { return v != 0 && (v & (v - 1)) == 0; }

}  // namespace

DecodedPe decode_pe_image(const PeImage& img, const std::vector<DramRegion>& dram) {
    Reader r(img, dram);
    DecodedPe d;
    if (img.base != S2_SNN_IMAGE_BASE) r.fail("base is not S2_SNN_IMAGE_BASE");
    if (img.bytes.size() < sizeof(s2_snn_image_t)) r.fail("shorter than the header");
    const s2_snn_image_t& h = d.header = r.get<s2_snn_image_t>(0);
    if (h.magic != S2_SNN_IMAGE_MAGIC || h.version != S2_SNN_IMAGE_VERSION)
        r.fail("bad magic or version");
    if (h.image_size != img.bytes.size() || h.image_size > S2_SNN_MAX_IMAGE_BYTES)
        r.fail("image_size " + std::to_string(h.image_size) + " disagrees or exceeds the limit");
    if (h.kind != S2_SNN_KIND_NEURON && h.kind != S2_SNN_KIND_SOURCE) r.fail("unknown kind");
    if (h.n_neurons < 1 || h.n_neurons > S2_SNN_MAX_NEURONS_PER_PE)
        r.fail("n_neurons outside 1..256");
    if (h.key_base != h.vertex << S2_SNN_KEY_VERTEX_SHIFT) r.fail("key_base is not vertex << 8");
    if (h.tick_cycles == 0) r.fail("tick_cycles 0");
    for (uint32_t w : h.reserved)
        if (w != 0) r.fail("reserved header word set");
    d.counters = r.get<s2_snn_counters_t>(r.region("counters", h.counters, sizeof(d.counters)));
    if (h.kind == S2_SNN_KIND_SOURCE) {
        const uint64_t n_index = uint64_t{h.n_ticks} + 1;
        if ((h.flags & ~S2_SNN_FLAG_SPIKES_IN_DRAM) != 0) r.fail("flags of a source PE");
        if ((h.flags & S2_SNN_FLAG_SPIKES_IN_DRAM) != 0) {
            if (h.spike_tick_index % S2_SNN_ALIGN != 0 ||
                h.spike_keys != h.spike_tick_index + 4 * n_index)
                r.fail("spike list in DRAM misplaced");
            d.spike_tick_index = r.dram_words(h.spike_tick_index, n_index);
            d.spike_keys = r.dram_words(h.spike_keys, h.n_spikes);
        } else {
            d.spike_tick_index =
                r.words(r.region("spike_tick_index", h.spike_tick_index, 4 * n_index),
                        static_cast<uint32_t>(n_index));
            d.spike_keys =
                r.words(r.region("spike_keys", h.spike_keys, 4ull * h.n_spikes), h.n_spikes);
        }
        r.check_disjoint();
        if (d.spike_tick_index.front() != 0 || d.spike_tick_index.back() != h.n_spikes)
            r.fail("spike tick index does not span the keys");
        for (uint32_t t = 0; t < h.n_ticks; ++t) {
            const uint32_t a = d.spike_tick_index[t], b = d.spike_tick_index[t + 1];
            if (b < a) r.fail("spike tick index decreases at tick " + std::to_string(t));
            for (uint32_t k = a; k < b; ++k) {
                const uint32_t key = d.spike_keys[k];
                if ((key & S2_SNN_KEY_VERTEX_MASK) != h.key_base ||
                    (key & S2_SNN_KEY_INDEX_MASK) >= h.n_neurons ||
                    (k > a && key <= d.spike_keys[k - 1]))
                    r.fail("spike key " + std::to_string(key) + " at tick " + std::to_string(t) +
                           " is not an increasing key of this vertex");
            }
        }
        return d;
    }

    // Neuron PE.
    if ((h.flags & ~(S2_SNN_FLAG_RECORD_SPIKES | S2_SNN_FLAG_NO_TARGETS)) != 0)
        r.fail("flags of a neuron PE");
    if (h.spike_tick_index != 0 || h.spike_keys != 0 || h.n_spikes != 0)
        r.fail("spike list fields set on a neuron PE");
    if (!pow2(h.n_delay_slots) || h.n_delay_slots > S2_SNN_MAX_DELAY)
        r.fail("n_delay_slots not a power of two <= 16");
    if (!pow2(h.spike_buffer_entries)) r.fail("spike_buffer_entries not a power of two");
    if (h.input_stride != input_stride(h.n_neurons)) r.fail("input_stride");
    const uint32_t n = h.n_neurons;
    d.params = r.get<s2_snn_lif_params_t>(r.region("params", h.params, sizeof(d.params)));
    const uint32_t st = r.region("state", h.state, uint64_t{sizeof(s2_snn_neuron_state_t)} * n);
    for (uint32_t j = 0; j < n; ++j)
        d.state.push_back(r.get<s2_snn_neuron_state_t>(st + j * sizeof(s2_snn_neuron_state_t)));
    d.record_v_index =
        r.words(r.region("record_v_index", h.record_v_index, 4ull * h.n_record_v), h.n_record_v);
    if (h.record_words != record_words(n, (h.flags & S2_SNN_FLAG_RECORD_SPIKES) != 0, h.n_record_v))
        r.fail("record_words disagrees with the flags and n_record_v");
    r.region("record_stage", h.record_stage, 4ull * h.record_words);
    if ((h.record_words != 0) != (h.record_dram != 0) || h.record_dram % S2_SNN_ALIGN != 0)
        r.fail("record_dram missing, misaligned or set without records");
    r.region("spike_buffer", h.spike_buffer, 4ull * h.spike_buffer_entries);
    const uint32_t mpt = r.region("mpt", h.mpt, uint64_t{sizeof(s2_snn_mpt_entry_t)} * h.mpt_count);
    for (uint32_t k = 0; k < h.mpt_count; ++k)
        d.mpt.push_back(r.get<s2_snn_mpt_entry_t>(mpt + k * sizeof(s2_snn_mpt_entry_t)));
    d.addr_list =
        r.words(r.region("addr_list", h.addr_list, 4ull * h.addr_list_count), h.addr_list_count);
    r.region("input", h.input, 2ull * h.n_delay_slots * 2 * h.input_stride);
    for (size_t b = 0; b < 2ull * h.n_delay_slots * h.input_stride; ++b)
        if (r.get<int16_t>(h.input - img.base + 2 * b) != 0) r.fail("input buffers not zero");
    d.syn_matrix = r.words(r.region("syn_matrix", h.syn_matrix, 4ull * h.syn_matrix_words),
                           h.syn_matrix_words);
    r.check_disjoint();

    const s2_snn_lif_params_t& p = d.params;
    if (p.alpha > 65536u || static_cast<int32_t>(p.v_th) <= 0 || p.t_ref > 65535u ||
        p.reset_mode > S2_SNN_RESET_TO_V_RESET || p.reserved[0] != 0 || p.reserved[1] != 0)
        r.fail("LIF parameters out of range");
    for (uint32_t j = 0; j < n; ++j)
        if (d.state[j].flags != 0) r.fail("initial neuron state flags set");
    for (uint32_t k = 0; k < h.n_record_v; ++k)
        if (d.record_v_index[k] >= n) r.fail("record_v_index out of range");

    // Master population table: sorted, disjoint, contiguous masks, address-list ranges that
    // follow each other through the whole list.
    uint32_t next_start = 0;
    for (uint32_t k = 0; k < h.mpt_count; ++k) {
        const s2_snn_mpt_entry_t& e = d.mpt[k];
        const uint32_t inv = ~e.mask;
        if ((inv & (inv + 1)) != 0 || (e.key & inv) != 0)
            r.fail("master population table entry " + std::to_string(k) + ": bad key/mask");
        if (k > 0 && e.key <= d.mpt[k - 1].key) r.fail("master population table not sorted");
        for (uint32_t q = 0; q < k; ++q) {
            const uint32_t m = e.mask & d.mpt[q].mask;
            if ((e.key & m) == (d.mpt[q].key & m)) r.fail("master population entries overlap");
        }
        const uint32_t start = s2_snn_mpt_start(e.target), count = s2_snn_mpt_count(e.target);
        if (start != next_start || count == 0) r.fail("address-list ranges not contiguous");
        next_start = start + count;
    }
    if (next_start != h.addr_list_count) r.fail("address list not covered by the table");
    // Blocks contiguous in address-list order; rows from the distance to the next block.
    uint32_t mpt_of = 0;
    for (uint32_t a = 0; a < h.addr_list_count; ++a) {
        while (a >= s2_snn_mpt_start(d.mpt[mpt_of].target) + s2_snn_mpt_count(d.mpt[mpt_of].target))
            ++mpt_of;
        const uint32_t off = s2_snn_addr_offset(d.addr_list[a]);
        const uint32_t stride = s2_snn_addr_stride(d.addr_list[a]);
        const uint32_t end =
            a + 1 < h.addr_list_count ? s2_snn_addr_offset(d.addr_list[a + 1]) : h.syn_matrix_words;
        if (a == 0 && off != 0) r.fail("first block does not start the matrix");
        if (stride == 0 || end <= off || (end - off) % stride != 0)
            r.fail("block " + std::to_string(a) + " is not a whole number of rows");
        const uint32_t rows = (end - off) / stride;
        if (rows > (~d.mpt[mpt_of].mask) + 1u) r.fail("block has more rows than keys");
        d.block_rows.push_back(rows);
        for (uint32_t i = 0; i < rows; ++i) {
            const uint32_t row = off + i * stride;
            const uint32_t count = d.syn_matrix[row];
            if (count >= stride) r.fail("row count does not fit its stride");
            for (uint32_t k = 1; k <= count; ++k) {
                const uint32_t w = d.syn_matrix[row + k];
                if (s2_snn_syn_index(w) >= n || s2_snn_syn_delay(w) > h.n_delay_slots ||
                    s2_snn_syn_weight(w) > S2_SNN_WEIGHT_MAX || (w & 0x0000E000u) != 0)
                    r.fail("synapse word " + std::to_string(w) + " out of range");
            }
            for (uint32_t k = count + 1; k < stride; ++k)
                if (d.syn_matrix[row + k] != 0) r.fail("row padding not zero");
        }
    }
    return d;
}

int DecodedPe::mpt_index(uint32_t key) const {
    for (size_t k = 0; k < mpt.size(); ++k)
        if ((key & mpt[k].mask) == mpt[k].key) return static_cast<int>(k);
    return -1;
}

std::vector<uint32_t> DecodedPe::synapses_for_key(uint32_t key) const {
    std::vector<uint32_t> out;
    const int k = mpt_index(key);
    if (k < 0) return out;
    const uint32_t i = key & ~mpt[k].mask;
    const uint32_t start = s2_snn_mpt_start(mpt[k].target);
    for (uint32_t a = start; a < start + s2_snn_mpt_count(mpt[k].target); ++a) {
        if (i >= block_rows[a]) continue;
        const uint32_t row =
            s2_snn_addr_offset(addr_list[a]) + i * s2_snn_addr_stride(addr_list[a]);
        for (uint32_t s = 1; s <= syn_matrix[row]; ++s) out.push_back(syn_matrix[row + s]);
    }
    return out;
}

}  // namespace nmsim::compiler::snn
