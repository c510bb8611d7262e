#include "models/spinnaker2/mla/mla.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>
#include <limits>

#include "nmsim/hw/spinnaker2/mla_regs.h"
#include "nmsim/hw/spinnaker2/pe_map.h"

namespace nmsim::spinnaker2 {

namespace {

const RegDesc kRegs[] = {S2_MLA_REGS(NMSIM_REG_DESC)};
const bool kRegd = nmsim::register_reg_table("s2.mla", kRegs, std::size(kRegs));

constexpr uint32_t kStart = NM_FIELD_SET(1u, S2_MLA_CTRL_START);
constexpr uint32_t kBusy = NM_FIELD_SET(1u, S2_MLA_STATUS_BUSY);
constexpr uint32_t kDone = NM_FIELD_SET(1u, S2_MLA_STATUS_DONE);
constexpr uint32_t kError = NM_FIELD_SET(1u, S2_MLA_STATUS_ERROR);
constexpr uint32_t kErrcode = NM_FIELD_SET(0xFFu, S2_MLA_STATUS_ERRCODE);

// int8 products are at most 255*255 < 2^16 in magnitude, so 2^15 of them fit an int32 exactly;
// the int32 partial sums are flushed into int64 after each chunk of K.
constexpr uint64_t kChunk8 = 1u << 15;

uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// a*b, or UINT64_MAX if it overflows (sizes of absurd register settings).
uint64_t mul_sat(uint64_t a, uint64_t b) {
    uint64_t r = 0;
    return __builtin_mul_overflow(a, b, &r) ? std::numeric_limits<uint64_t>::max() : r;
}

uint64_t to_ps(const sc_core::sc_time& t) {
    return static_cast<uint64_t>(std::llround(t.to_seconds() * 1e12));
}

// Operand element i from SRAM bytes as signed or unsigned 8/16-bit (little-endian) value.
template <class T>
void widen(const uint8_t* src, uint64_t count, bool is_signed, bool in16, T* dst) {
    if (!in16) {
        if (is_signed)
            for (uint64_t i = 0; i < count; ++i)
                dst[i] = static_cast<T>(static_cast<int8_t>(src[i]));
        else
            for (uint64_t i = 0; i < count; ++i) dst[i] = static_cast<T>(src[i]);
        return;
    }
    for (uint64_t i = 0; i < count; ++i) {
        const uint16_t u = static_cast<uint16_t>(src[2 * i] | (src[2 * i + 1] << 8));
        dst[i] = is_signed ? static_cast<T>(static_cast<int16_t>(u)) : static_cast<T>(u);
    }
}

int64_t load_out(const uint8_t* p, unsigned bytes) {
    switch (bytes) {
        case 1:
            return static_cast<int8_t>(p[0]);
        case 2:
            return static_cast<int16_t>(static_cast<uint16_t>(p[0] | (p[1] << 8)));
        default: {
            const uint32_t u = static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) |
                               (static_cast<uint32_t>(p[2]) << 16) |
                               (static_cast<uint32_t>(p[3]) << 24);
            return static_cast<int32_t>(u);
        }
    }
}

void store_out(uint8_t* p, int64_t v, unsigned bytes) {
    const auto u = static_cast<uint32_t>(v);
    for (unsigned i = 0; i < bytes; ++i) p[i] = static_cast<uint8_t>(u >> (8 * i));
}

// acc[j] += a * row[j]: int8 operands widened to int16, products and sums in int32.
void axpy8(int32_t* __restrict acc, const int16_t* __restrict row, int32_t a, uint64_t n) {
    for (uint64_t j = 0; j < n; ++j) acc[j] += a * static_cast<int32_t>(row[j]);
}

// Two K steps at once halve the accumulator traffic.
void axpy8x2(int32_t* __restrict acc, const int16_t* __restrict r0, const int16_t* __restrict r1,
             int32_t a0, int32_t a1, uint64_t n) {
    for (uint64_t j = 0; j < n; ++j)
        acc[j] += a0 * static_cast<int32_t>(r0[j]) + a1 * static_cast<int32_t>(r1[j]);
}

// int16 operands: products need up to 32 bits unsigned, so accumulate in int64.
void axpy16(int64_t* __restrict acc, const int32_t* __restrict row, int64_t a, uint64_t n) {
    for (uint64_t j = 0; j < n; ++j) acc[j] += a * static_cast<int64_t>(row[j]);
}

}  // namespace

uint64_t mla_cycles(const MlaParams& p, const MlaShape& s) {
    const uint64_t rows = p.n_rows;
    const uint64_t cols = s.in16 ? std::max<uint64_t>(1, p.n_cols / 4) : p.n_cols;
    const uint64_t elem = s.in16 ? 2 : 1;
    const uint64_t fetch = p.fetch_bytes_per_cycle;
    auto tile = [&](uint64_t r, uint64_t c) {
        const uint64_t step_bytes = r * elem + c * elem;
        uint64_t cyc = std::max(s.k, ceil_div(s.k * step_bytes, fetch));
        const uint64_t out_bytes = r * c * s.out_bytes;
        if (s.bias) cyc += ceil_div(c * 4, fetch);
        if (s.accumulate) cyc += ceil_div(out_bytes, fetch);
        return cyc + ceil_div(out_bytes, p.writeback_bytes_per_cycle);
    };
    const uint64_t full_m = s.m / rows, rem_m = s.m % rows;
    const uint64_t full_n = s.n / cols, rem_n = s.n % cols;
    uint64_t total = p.startup_cycles + full_m * full_n * tile(rows, cols);
    if (rem_m) total += full_n * tile(rem_m, cols);
    if (rem_n) total += full_m * tile(rows, rem_n);
    if (rem_m && rem_n) total += tile(rem_m, rem_n);
    return total;
}

Mla::Mla(sc_core::sc_module_name name, const MlaParams& p, nmsim::Frequency clock,
         nmsim::Memory& sram, nmsim::trace::Sink* sink)
    : Peripheral(name, kRegs, std::size(kRegs), sink), m_p(p), m_clock(clock), m_sram(sram) {
    (void)kRegd;
    m_regs.on_write(S2_MLA_CTRL, [this](uint32_t v) { write_ctrl(v); });
    m_regs.on_write(S2_MLA_ACK, [this](uint32_t v) { write_ack(v); });
    if (m_sink) m_tbl = m_sink->declare_table(MlaOpRecord_schema());
    SC_THREAD(run);
}

void Mla::update_irq() {
    const uint32_t ctrl = m_regs.value(S2_MLA_CTRL);
    const uint32_t status = m_regs.value(S2_MLA_STATUS);
    irq.set(NM_FIELD_GET(ctrl, S2_MLA_CTRL_IRQ_EN) && (status & (kDone | kError)));
}

void Mla::set_error(uint32_t code) {
    uint32_t& status = m_regs.value(S2_MLA_STATUS);
    status = (status & ~kErrcode) | kError | NM_FIELD_SET(code, S2_MLA_STATUS_ERRCODE);
    ++m_errors;
    update_irq();
}

void Mla::write_ack(uint32_t v) {
    if (!(v & 1u)) return;
    m_regs.value(S2_MLA_STATUS) &= ~(kDone | kError | kErrcode);
    update_irq();
}

void Mla::write_ctrl(uint32_t v) {
    uint32_t& status = m_regs.value(S2_MLA_STATUS);
    const bool start = (v & kStart) != 0;
    if (start && (status & kBusy)) {
        set_error(S2_MLA_ERR_BUSY);
        return;
    }
    m_regs.value(S2_MLA_CTRL) = v & ~kStart;  // START reads back as 0
    if (!start) {
        update_irq();
        return;
    }
    status &= ~(kDone | kError | kErrcode);
    Op op;
    op.ctrl = v & ~kStart;
    if (const uint32_t err = validate(op)) {
        set_error(err);
        return;
    }
    m_op = op;
    MlaShape shape;
    shape.m = op.m;
    shape.k = op.k;
    shape.n = op.n;
    shape.in16 = op.in16;
    shape.out_bytes = 1u << op.out_prec;
    shape.bias = op.bias_en;
    shape.accumulate = op.accumulate;
    m_op_cycles = mla_cycles(m_p, shape);
    m_t_start = sc_core::sc_time_stamp();
    status |= kBusy;
    update_irq();
    m_start_ev.notify(sc_core::SC_ZERO_TIME);
}

bool Mla::in_sram(uint32_t addr, uint64_t count, uint64_t elem_bytes) const {
    const int64_t rel = static_cast<int64_t>(addr) - static_cast<int64_t>(S2_SRAM_BASE);
    if (rel < 0) return false;
    const auto off = static_cast<uint64_t>(rel);
    const uint64_t len = mul_sat(count, elem_bytes);
    return off <= m_sram.size() && len <= m_sram.size() - off;
}

uint32_t Mla::validate(Op& op) {
    RegisterBank& r = m_regs;
    const uint32_t ctrl = op.ctrl;
    const uint32_t mode = NM_FIELD_GET(ctrl, S2_MLA_CTRL_MODE);
    op.conv = mode == S2_MLA_MODE_CONV2D;
    op.a_signed = NM_FIELD_GET(ctrl, S2_MLA_CTRL_A_SIGNED);
    op.b_signed = NM_FIELD_GET(ctrl, S2_MLA_CTRL_B_SIGNED);
    op.in16 = NM_FIELD_GET(ctrl, S2_MLA_CTRL_IN16);
    op.out_prec = NM_FIELD_GET(ctrl, S2_MLA_CTRL_OUT_PREC);
    op.relu = NM_FIELD_GET(ctrl, S2_MLA_CTRL_RELU);
    op.accumulate = NM_FIELD_GET(ctrl, S2_MLA_CTRL_ACCUMULATE);
    op.bias_en = NM_FIELD_GET(ctrl, S2_MLA_CTRL_BIAS_EN);
    op.a = r.value(S2_MLA_A_ADDR);
    op.b = r.value(S2_MLA_B_ADDR);
    op.c = r.value(S2_MLA_C_ADDR);
    op.bias = r.value(S2_MLA_BIAS_ADDR);
    op.shift = r.value(S2_MLA_SHIFT);
    if ((mode != S2_MLA_MODE_MATMUL && mode != S2_MLA_MODE_CONV2D) ||
        op.out_prec > S2_MLA_OUT_INT32 || op.shift > 31)
        return S2_MLA_ERR_MODE;

    uint64_t a_count = 0, b_count = 0;
    if (!op.conv) {
        op.m = r.value(S2_MLA_M);
        op.k = r.value(S2_MLA_K);
        op.n = r.value(S2_MLA_N);
        if (!op.m || !op.k || !op.n) return S2_MLA_ERR_SHAPE;
        a_count = mul_sat(op.m, op.k);
    } else {
        op.ifm_h = r.value(S2_MLA_IFM_H);
        op.ifm_w = r.value(S2_MLA_IFM_W);
        op.ifm_c = r.value(S2_MLA_IFM_C);
        op.ker_h = r.value(S2_MLA_KER_H);
        op.ker_w = r.value(S2_MLA_KER_W);
        op.stride = r.value(S2_MLA_STRIDE);
        op.pad = r.value(S2_MLA_PAD);
        op.n = r.value(S2_MLA_OFM_C);
        if (!op.ifm_h || !op.ifm_w || !op.ifm_c || !op.ker_h || !op.ker_w || !op.stride || !op.n)
            return S2_MLA_ERR_SHAPE;
        const uint64_t span_h = op.ifm_h + 2 * op.pad, span_w = op.ifm_w + 2 * op.pad;
        if (span_h < op.ker_h || span_w < op.ker_w) return S2_MLA_ERR_SHAPE;
        op.out_h = (span_h - op.ker_h) / op.stride + 1;
        op.out_w = (span_w - op.ker_w) / op.stride + 1;
        op.m = mul_sat(op.out_h, op.out_w);
        op.k = mul_sat(mul_sat(op.ker_h, op.ker_w), op.ifm_c);
        a_count = mul_sat(mul_sat(op.ifm_h, op.ifm_w), op.ifm_c);
    }
    b_count = mul_sat(op.k, op.n);
    op.a_bytes = mul_sat(a_count, op.in16 ? 2 : 1);

    if (op.a % 4 || op.b % 4 || op.c % 4 || (op.bias_en && op.bias % 4)) return S2_MLA_ERR_ALIGN;

    const uint64_t elem = op.in16 ? 2 : 1;
    if (!in_sram(op.a, a_count, elem) || !in_sram(op.b, b_count, elem) ||
        !in_sram(op.c, mul_sat(op.m, op.n), 1u << op.out_prec) ||
        (op.bias_en && !in_sram(op.bias, op.n, 4)))
        return S2_MLA_ERR_RANGE;
    return S2_MLA_ERR_NONE;
}

void Mla::run() {
    for (;;) {
        sc_core::wait(m_start_ev);
        const sc_core::sc_time dur(
            static_cast<double>(m_op_cycles * static_cast<uint64_t>(m_clock.period_ps())),
            sc_core::SC_PS);
        const sc_core::sc_time end = m_t_start + dur;
        if (end > sc_core::sc_time_stamp()) sc_core::wait(end - sc_core::sc_time_stamp());

        execute(m_op);

        const uint64_t macs = m_op.m * m_op.k * m_op.n;
        ++m_ops;
        m_macs += macs;
        m_cycles += m_op_cycles;
        m_busy_ps += to_ps(dur);
        uint32_t& status = m_regs.value(S2_MLA_STATUS);
        status = (status & ~kBusy) | kDone;
        m_regs.value(S2_MLA_CYCLES) = static_cast<uint32_t>(
            std::min<uint64_t>(m_op_cycles, std::numeric_limits<uint32_t>::max()));
        update_irq();
        if (m_sink) {
            MlaOpRecord rec{};
            rec.t_start_ps = to_ps(m_t_start);
            rec.t_end_ps = to_ps(end);
            rec.macs = macs;
            rec.cycles = m_op_cycles;
            rec.m = static_cast<uint32_t>(m_op.m);
            rec.k = static_cast<uint32_t>(m_op.k);
            rec.n = static_cast<uint32_t>(m_op.n);
            rec.component = m_component;
            rec.mode = m_op.conv ? 1 : 0;
            rec.flags = static_cast<uint16_t>((m_op.ctrl >> 4) & 0x1FFu);  // CTRL bits 4..12
            m_sink->append(m_tbl, &rec);
        }
    }
}

void Mla::load_a_row(const Op& op, uint64_t i) {
    const uint8_t* src = m_a_raw.data();
    const uint64_t elem = op.in16 ? 2 : 1;
    if (!op.conv) {
        if (op.in16)
            widen(src + i * op.k * elem, op.k, op.a_signed, true, m_a32.data());
        else
            widen(src + i * op.k * elem, op.k, op.a_signed, false, m_a16.data());
        return;
    }
    // im2col row of output position i = (oy, ox): the receptive field in (ky, kx, c) order, zeros
    // in the padding. One row at a time keeps host memory bounded by K.
    const uint64_t oy = i / op.out_w, ox = i % op.out_w;
    const uint64_t run = op.ifm_c;
    uint64_t col = 0;
    for (uint64_t ky = 0; ky < op.ker_h; ++ky) {
        const int64_t iy = static_cast<int64_t>(oy * op.stride + ky) - static_cast<int64_t>(op.pad);
        for (uint64_t kx = 0; kx < op.ker_w; ++kx, col += run) {
            const int64_t ix =
                static_cast<int64_t>(ox * op.stride + kx) - static_cast<int64_t>(op.pad);
            const bool inside = iy >= 0 && ix >= 0 && static_cast<uint64_t>(iy) < op.ifm_h &&
                                static_cast<uint64_t>(ix) < op.ifm_w;
            if (!inside) {
                if (op.in16)
                    std::fill_n(m_a32.data() + col, run, 0);
                else
                    std::fill_n(m_a16.data() + col, run, 0);
                continue;
            }
            const uint8_t* p =
                src +
                ((static_cast<uint64_t>(iy) * op.ifm_w + static_cast<uint64_t>(ix)) * run) * elem;
            if (op.in16)
                widen(p, run, op.a_signed, true, m_a32.data() + col);
            else
                widen(p, run, op.a_signed, false, m_a16.data() + col);
        }
    }
}

void Mla::load_b(const Op& op) {
    const uint8_t* src = m_sram.data() + (op.b - S2_SRAM_BASE);
    const uint64_t count = op.k * op.n;
    if (op.in16) {
        m_b32.resize(count);
        widen(src, count, op.b_signed, true, m_b32.data());
    } else {
        m_b16.resize(count);
        widen(src, count, op.b_signed, false, m_b16.data());
    }
}

void Mla::execute(const Op& op) {
    const uint64_t m = op.m, k = op.k, n = op.n;
    // Snapshot A so that a result region overlapping A still sees the operands of this op.
    const uint8_t* a_src = m_sram.data() + (op.a - S2_SRAM_BASE);
    m_a_raw.assign(a_src, a_src + op.a_bytes);
    if (op.in16)
        m_a32.resize(k);
    else
        m_a16.resize(k);
    load_b(op);
    m_bias.assign(n, 0);
    if (op.bias_en) {
        const uint8_t* p = m_sram.data() + (op.bias - S2_SRAM_BASE);
        for (uint64_t j = 0; j < n; ++j) m_bias[j] = static_cast<int32_t>(load_out(p + 4 * j, 4));
    }
    m_acc64.resize(n);
    m_acc32.resize(n);

    const unsigned out_bytes = 1u << op.out_prec;
    const int64_t out_max = (int64_t{1} << (8 * out_bytes - 1)) - 1;
    const int64_t out_min = -out_max - 1;
    const unsigned wrap_shift = 64 - m_p.acc_bits;
    const int64_t half = op.shift ? int64_t{1} << (op.shift - 1) : 0;
    uint8_t* c_base = m_sram.data() + (op.c - S2_SRAM_BASE);

    for (uint64_t i = 0; i < m; ++i) {
        int64_t* acc64 = m_acc64.data();
        std::fill_n(acc64, n, 0);
        load_a_row(op, i);
        if (op.in16) {
            const int32_t* a_row = m_a32.data();
            for (uint64_t kk = 0; kk < k; ++kk)
                if (a_row[kk]) axpy16(acc64, m_b32.data() + kk * n, a_row[kk], n);
        } else {
            const int16_t* a_row = m_a16.data();
            int32_t* acc32 = m_acc32.data();
            for (uint64_t k0 = 0; k0 < k; k0 += kChunk8) {
                const uint64_t k1 = std::min(k, k0 + kChunk8);
                std::fill_n(acc32, n, 0);
                uint64_t kk = k0;
                for (; kk + 1 < k1; kk += 2)
                    axpy8x2(acc32, m_b16.data() + kk * n, m_b16.data() + (kk + 1) * n, a_row[kk],
                            a_row[kk + 1], n);
                if (kk < k1) axpy8(acc32, m_b16.data() + kk * n, a_row[kk], n);
                for (uint64_t j = 0; j < n; ++j) acc64[j] += acc32[j];
            }
        }
        uint8_t* c_row = c_base + i * n * out_bytes;
        for (uint64_t j = 0; j < n; ++j) {
            // Sign-extend the low acc_bits bits: the two's complement wrap of the accumulator.
            const auto raw = static_cast<uint64_t>(acc64[j] + m_bias[j]);
            const int64_t acc = static_cast<int64_t>(raw << wrap_shift) >> wrap_shift;
            int64_t r = (acc + half) >> op.shift;
            if (op.relu) r = std::max<int64_t>(r, 0);
            if (op.accumulate) r += load_out(c_row + j * out_bytes, out_bytes);
            store_out(c_row + j * out_bytes, std::clamp(r, out_min, out_max), out_bytes);
        }
    }
}

void Mla::write_summary() {
    if (!m_sink) return;
    const double peak = static_cast<double>(m_p.n_rows) * m_p.n_cols;
    const double util =
        m_cycles ? static_cast<double>(m_macs) / (static_cast<double>(m_cycles) * peak) : 0.0;
    m_sink->counter(m_component, "ops", "1", static_cast<double>(m_ops));
    m_sink->counter(m_component, "macs", "1", static_cast<double>(m_macs));
    m_sink->counter(m_component, "busy_ps", "ps", static_cast<double>(m_busy_ps));
    m_sink->counter(m_component, "cycles", "cycles", static_cast<double>(m_cycles));
    m_sink->counter(m_component, "utilisation", "1", util);
    m_sink->counter(m_component, "errors", "1", static_cast<double>(m_errors));
}

}  // namespace nmsim::spinnaker2
