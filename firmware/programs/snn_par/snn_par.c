/* Parallel-paradigm SNN firmware (seed 001 sec. III-B): one program for the dominant and the
 * subordinate PEs of a layer; the image at S2_SNN_IMAGE_BASE (nmsim/hw/spinnaker2/snn_par_image.h,
 * written by tools/compiler/snn/parallel.h) says which. The per-tick steps are the header's.
 *
 * Dominant events:
 *  - packet received (S2_IRQ_COMMS_RX, priority 0): the key goes into the input spike buffer; the
 *    start key starts the tick timer.
 *  - timer (S2_IRQ_TIMER0, priority 1): notes which keys arrived before this tick's event.
 *  - signal (S2_IRQ_SIGNAL, priority 1): a subordinate's wake-up; the words are dropped, the
 *    stamps in the partial areas say who is done.
 *  The main loop per tick: the keys of the previous tick still waiting, X, GO to every
 *  subordinate, the keys of this tick while the subordinates work, the sum of their partial
 *  inputs, the neuron update (spikes sent, record to DRAM), the keys of this tick until the next
 *  timer event.
 * Subordinate: sleeps until GO of tick t, fetches its slice of X by DMA, gathers, multiplies on
 * the MLA, expands the columns to its targets and DMAs them with the stamp t + 1 back, then
 * signals DONE. After the last tick both set counters.done and exit with 0; a bad image, a
 * failed DMA or MLA operation exits with 1 after setting counters.status. */
#include <stdint.h>

#include "nmsim/hw/spinnaker2/snn_par_image.h"
#include "s2_comms.h"
#include "s2_dma.h"
#include "s2_hal.h"
#include "s2_mla.h"
#include "s2_signal.h"
#include "s2_timer.h"

#define TICK_TIMER 0u
#define PRIO_PACKET 0u
#define PRIO_TIMER 1u
#define PRIO_SIGNAL 1u
#define EVENT_RING 8u /* timer events remembered: ticks the main loop may lag behind */

extern char _end[]; /* first byte past the firmware (link.ld) */

static const uint32_t *const g_magic = (const uint32_t *)(uintptr_t)S2_SNN_IMAGE_BASE;
static const s2_snnp_dominant_t *const g_dom =
    (const s2_snnp_dominant_t *)(uintptr_t)S2_SNN_IMAGE_BASE;
static const s2_snnp_subordinate_t *const g_sub =
    (const s2_snnp_subordinate_t *)(uintptr_t)S2_SNN_IMAGE_BASE;
static s2_snn_counters_t *volatile g_ctr;

static uint32_t *g_buf;
static uint32_t g_buf_mask;
static volatile uint32_t g_rx_seq;   /* keys stored */
static volatile uint32_t g_read_seq; /* keys processed */

static volatile uint32_t g_started;
static volatile uint32_t g_events; /* timer events so far */
static volatile uint32_t g_event_seq[EVENT_RING];
static volatile uint32_t g_signals;   /* signal words received (dominant: wake-ups) */
static volatile uint32_t g_go_ticks;  /* subordinate: GO words received (tick t's is the t+1-th) */
static volatile uint32_t g_bad_words; /* signal words of the wrong kind */

static uint32_t g_busy_cycles, g_tick_syn_events;

static uint32_t kind(void) { return g_magic[2]; }

static int image_ok(void) {
    if (g_magic[0] != S2_SNNP_IMAGE_MAGIC || g_magic[1] != S2_SNNP_IMAGE_VERSION) return 0;
    if ((uintptr_t)_end > S2_SNN_IMAGE_BASE) return 0;
    if (kind() == S2_SNNP_KIND_SUBORDINATE) return g_sub->n_ticks > 0u;
    if (kind() != S2_SNNP_KIND_DOMINANT) return 0;
    const s2_snnp_dominant_t *h = g_dom;
    const uint32_t slots = h->hist_slots, entries = h->spike_buffer_entries;
    return h->tick_cycles >= 2u && h->n_targets > 0u && h->n_targets <= S2_SNNP_MAX_TARGETS &&
           h->n_delays > 0u && slots && (slots & (slots - 1u)) == 0u && slots > h->max_delay &&
           entries && (entries & (entries - 1u)) == 0u &&
           h->n_subordinates <= S2_SNNP_MAX_SUBORDINATES &&
           (h->record_words == 0u || h->record_words >= S2_SNN_RECORD_HEADER_WORDS);
}

/* The host has written the image by now: take the buffers; the dominant starts the timer. */
static void start(void) {
    g_started = 1u;
    if (!image_ok()) return;
    if (kind() == S2_SNNP_KIND_DOMINANT) {
        g_ctr = (s2_snn_counters_t *)(uintptr_t)g_dom->counters;
        g_buf = (uint32_t *)(uintptr_t)g_dom->spike_buffer;
        g_buf_mask = g_dom->spike_buffer_entries - 1u;
        s2_timer_start_periodic(TICK_TIMER, g_dom->tick_cycles - 1u, S2_TIMER_DIV1, 1);
    } else {
        g_ctr = (s2_snn_counters_t *)(uintptr_t)g_sub->counters;
    }
}

void COMMS_IRQHandler(void) {
    uint32_t key, payload;
    while (s2_mc_rx_pending()) {
        (void)s2_mc_receive(&key, &payload);
        if (key == S2_SNN_START_KEY) {
            if (!g_started) start();
            continue;
        }
        if (!g_ctr) continue;
        g_ctr->packets++;
        const uint32_t seq = g_rx_seq;
        if (g_buf_mask == 0u || seq - g_read_seq > g_buf_mask) {
            g_ctr->buffer_overflows++;
            continue;
        }
        g_buf[seq & g_buf_mask] = key;
        g_rx_seq = seq + 1u;
    }
}

void TIMER0_IRQHandler(void) {
    s2_timer_clear(TICK_TIMER);
    const uint32_t k = g_events;
    g_event_seq[k % EVENT_RING] = g_rx_seq;
    g_events = k + 1u;
}

void SIGNAL_IRQHandler(void) {
    while (s2_signal_pending()) {
        const uint32_t w = s2_signal_word();
        s2_signal_pop();
        const uint32_t k = w & ~S2_SNNP_SIGNAL_ARG_MASK;
        if (k == S2_SNNP_SIGNAL_GO)
            g_go_ticks = g_go_ticks + 1u;
        else if (k != S2_SNNP_SIGNAL_DONE)
            g_bad_words = g_bad_words + 1u;
        g_signals = g_signals + 1u;
    }
    /* a lost word is harmless for DONE (stamps) and impossible for GO (one per tick) */
    if (s2_signal_overflowed()) s2_signal_clear_overflow();
}

static void fail(uint32_t status) {
    g_ctr->status = status;
    g_ctr->done = 1u;
    s2_timer_stop(TICK_TIMER);
    s2_exit(1);
}

static void wait_dma(void) {
    if (!s2_dma_busy(s2_dma_status()) && !s2_dma_finished(s2_dma_status())) return;
    const uint32_t st = s2_dma_wait_poll();
    if (!s2_dma_ok(st)) fail(S2_SNN_ERR_DMA);
}

/* --- dominant: spike history and stacked input -------------------------------------------- */

/* The source index of `key`, or -1: the last source table entry whose key is <= `key`. */
static int32_t source_of(uint32_t key) {
    const s2_snnp_src_entry_t *t = (const s2_snnp_src_entry_t *)(uintptr_t)g_dom->src_table;
    uint32_t lo = 0u, hi = g_dom->src_count;
    while (lo < hi) {
        const uint32_t mid = (lo + hi) / 2u;
        if (t[mid].key <= key)
            lo = mid + 1u;
        else
            hi = mid;
    }
    if (lo == 0u) return -1;
    const s2_snnp_src_entry_t *e = &t[lo - 1u];
    if ((key & e->mask) != e->key) return -1;
    const uint32_t i = e->first + (key & ~e->mask);
    return i < g_dom->n_sources ? (int32_t)i : -1;
}

static uint32_t *hist_slot(uint32_t tick) {
    return (uint32_t *)(uintptr_t)g_dom->hist +
           (tick & (g_dom->hist_slots - 1u)) * g_dom->hist_words;
}

/* Records the waiting keys with sequence numbers below `until` as spikes of `tick`. */
static void process_keys_until(uint32_t until, uint32_t tick) {
    uint32_t *h = hist_slot(tick);
    const uint32_t *fanout = (const uint32_t *)(uintptr_t)g_dom->fanout;
    while ((int32_t)(until - g_read_seq) > 0) {
        const uint32_t seq = g_read_seq;
        const int32_t i = source_of(g_buf[seq & g_buf_mask]);
        if (i < 0) {
            g_ctr->mpt_misses++;
        } else {
            h[(uint32_t)i / 32u] |= 1u << ((uint32_t)i % 32u);
            g_ctr->synaptic_events += fanout[i];
            g_tick_syn_events += fanout[i];
        }
        g_read_seq = seq + 1u;
    }
}

/* Step 1: X of tick t from the spikes of ticks t - delay. Returns the (delay, source) pairs. */
static uint32_t build_stacked(uint32_t t) {
    uint8_t *x = (uint8_t *)(uintptr_t)g_dom->stacked;
    const uint32_t *delays = (const uint32_t *)(uintptr_t)g_dom->delays;
    const uint16_t *row_of = (const uint16_t *)(uintptr_t)g_dom->row_of;
    const uint32_t words = g_dom->hist_words, stride = g_dom->row_of_stride;
    uint32_t *own = hist_slot(t);
    for (uint32_t w = 0; w < words; ++w) own[w] = 0u;
    for (uint32_t r = 0; r < g_dom->stacked_bytes / 4u; ++r) ((uint32_t *)x)[r] = 0u;
    uint32_t pairs = 0u;
    for (uint32_t k = 0; k < g_dom->n_delays; ++k) {
        if (delays[k] > t) continue;
        const uint32_t *h = hist_slot(t - delays[k]);
        const uint16_t *rows = row_of + k * stride;
        for (uint32_t w = 0; w < words; ++w) {
            uint32_t bits = h[w];
            while (bits) {
                const uint32_t b = (uint32_t)__builtin_ctz(bits);
                bits &= bits - 1u;
                const uint16_t r = rows[w * 32u + b];
                if (r != S2_SNNP_NO_ROW) x[r]++;
                ++pairs;
            }
        }
    }
    return pairs;
}

/* --- dominant: partial inputs and neuron update ------------------------------------------- */

static int all_stamped(uint32_t t) {
    const s2_snnp_sub_entry_t *subs = (const s2_snnp_sub_entry_t *)(uintptr_t)g_dom->subs;
    for (uint32_t s = 0; s < g_dom->n_subordinates; ++s) {
        const volatile uint32_t *stamp =
            (const volatile uint32_t *)(uintptr_t)(subs[s].partial +
                                                   4u * ((subs[s].target_count + 1u) & ~1u));
        if (*stamp != t + 1u) return 0;
    }
    return 1;
}

static int32_t sat32(int64_t x) {
    if (x > INT32_MAX) return INT32_MAX;
    if (x < INT32_MIN) return INT32_MIN;
    return (int32_t)x;
}

static int32_t clamp_input(int32_t x) { return x > S2_SNN_INPUT_MAX ? S2_SNN_INPUT_MAX : x; }

#define CHUNK 64u /* neurons whose inputs are summed at a time (on the stack) */

/* Inputs of neurons [j0, j0 + n): the sums over the subordinates covering them (one per delay
 * range of their target group). */
static void sum_inputs(uint32_t j0, uint32_t n, int32_t *exc, int32_t *inh) {
    const s2_snnp_sub_entry_t *subs = (const s2_snnp_sub_entry_t *)(uintptr_t)g_dom->subs;
    for (uint32_t j = 0; j < n; ++j) exc[j] = inh[j] = 0;
    for (uint32_t s = 0; s < g_dom->n_subordinates; ++s) {
        const uint32_t lo = subs[s].target_lo, hi = lo + subs[s].target_count;
        const uint32_t a = lo > j0 ? lo : j0, b = hi < j0 + n ? hi : j0 + n;
        if (a >= b) continue;
        const int16_t *p = (const int16_t *)(uintptr_t)subs[s].partial;
        const uint32_t stride = (subs[s].target_count + 1u) & ~1u;
        for (uint32_t j = a; j < b; ++j) {
            exc[j - j0] += p[j - lo];
            inh[j - j0] += p[stride + j - lo];
        }
    }
}

/* The serial paradigm's LIF (snn_image.h) with this tick's input. */
static void update_neurons(uint32_t *spike_bits) {
    const s2_snn_lif_params_t *p = (const s2_snn_lif_params_t *)(uintptr_t)g_dom->params;
    s2_snn_neuron_state_t *state = (s2_snn_neuron_state_t *)(uintptr_t)g_dom->state;
    const uint32_t *keys = (const uint32_t *)(uintptr_t)g_dom->keys;
    const int64_t alpha = (int64_t)p->alpha;
    const int32_t v_th = (int32_t)p->v_th;
    const int64_t i_offset = (int32_t)p->i_offset;
    const int subtract = p->reset_mode == S2_SNN_RESET_SUBTRACT;
    const int send = (g_dom->flags & S2_SNN_FLAG_NO_TARGETS) == 0u;
    uint32_t sent = 0u;
    int32_t exc[CHUNK], inh[CHUNK];
    for (uint32_t j = 0; j < g_dom->n_targets; ++j) {
        if (j % CHUNK == 0u) {
            const uint32_t left = g_dom->n_targets - j;
            sum_inputs(j, left < CHUNK ? left : CHUNK, exc, inh);
        }
        const int64_t input =
            (int64_t)clamp_input(exc[j % CHUNK]) - (int64_t)clamp_input(inh[j % CHUNK]);
        const uint32_t flags = state[j].flags;
        const int64_t reset = subtract && (flags & S2_SNN_STATE_PENDING) ? v_th : 0;
        uint32_t refractory = flags & ((1u << S2_SNN_STATE_REFRACTORY_WIDTH) - 1u);
        int32_t v = (int32_t)state[j].v;
        int spiked = 0;
        if (refractory > 0u) {
            --refractory;
            v = sat32((int64_t)v - reset);
        } else {
            v = sat32(((alpha * v + (1 << 15)) >> 16) + input * 65536 + i_offset - reset);
            if (v >= v_th) {
                spiked = 1;
                if (send) {
                    s2_mc_send(keys[j]);
                    ++sent;
                }
                refractory = p->t_ref;
                if (!subtract) v = (int32_t)p->v_reset;
                if (spike_bits) spike_bits[j / 32u] |= 1u << (j % 32u);
            }
        }
        state[j].v = (uint32_t)v;
        state[j].flags = refractory | (spiked ? S2_SNN_STATE_PENDING : 0u);
    }
    g_ctr->spikes_sent += sent;
}

static void neuron_tick(uint32_t tick, uint32_t prev_busy, uint32_t prev_events) {
    const uint32_t words = g_dom->record_words;
    uint32_t *stage = (uint32_t *)(uintptr_t)g_dom->record_stage;
    uint32_t *bits = 0;
    if (words) {
        wait_dma();
        for (uint32_t w = 0; w < words; ++w) stage[w] = 0u;
        stage[0] = tick;
        stage[1] = prev_busy;
        stage[2] = prev_events;
        if (g_dom->flags & S2_SNN_FLAG_RECORD_SPIKES) bits = stage + S2_SNN_RECORD_HEADER_WORDS;
    }
    update_neurons(bits);
    if (!words || g_dom->record_dram == 0u) return;
    const uint32_t n_bits =
        (g_dom->flags & S2_SNN_FLAG_RECORD_SPIKES) ? (g_dom->n_targets + 31u) / 32u : 0u;
    uint32_t *v_out = stage + S2_SNN_RECORD_HEADER_WORDS + n_bits;
    const uint32_t *v_index = (const uint32_t *)(uintptr_t)g_dom->record_v_index;
    const s2_snn_neuron_state_t *state = (const s2_snn_neuron_state_t *)(uintptr_t)g_dom->state;
    for (uint32_t k = 0; k < g_dom->n_record_v; ++k) v_out[k] = state[v_index[k]].v;
    s2_dma_start((uint32_t)(uintptr_t)stage, g_dom->record_dram + tick * words * 4u, words * 4u, 0);
}

/* Processes keys of `tick` as they arrive until `stop` returns non-zero (checked with interrupts
 * masked, so an interrupt between the check and WFI still wakes the core). Keys that arrived
 * after the timer event of tick + 1 (the tick's work overran) are left for that tick.
 * `count_busy`: add the processing cycles to the tick's busy time. */
static void serve_keys(uint32_t tick, int (*stop)(uint32_t), uint32_t arg, int count_busy) {
    for (;;) {
        s2_disable_interrupts();
        if (stop(arg)) {
            s2_enable_interrupts();
            return;
        }
        const uint32_t limit =
            g_events > tick + 1u ? g_event_seq[(tick + 1u) % EVENT_RING] : g_rx_seq;
        if ((int32_t)(limit - g_read_seq) > 0) {
            s2_enable_interrupts();
            const uint32_t t1 = s2_cycles();
            process_keys_until(g_read_seq + 1u, tick);
            if (count_busy) g_busy_cycles += s2_cycles() - t1;
            continue;
        }
        s2_wfi();
        s2_enable_interrupts();
        __asm volatile("isb" ::: "memory");
    }
}

static int next_event(uint32_t t) { return g_events > t + 1u; }

static void dominant_main(void) {
    const uint32_t n_ticks = g_dom->n_ticks;
    const s2_snnp_sub_entry_t *subs = (const s2_snnp_sub_entry_t *)(uintptr_t)g_dom->subs;
    uint32_t prev_busy = 0u, prev_events = 0u;
    int late = 0;
    for (uint32_t t = 0; t < n_ticks; ++t) {
        (void)s2_sleep_until(&g_events, t + 1u);
        const uint32_t event_seq = g_event_seq[t % EVENT_RING];
        /* 0: keys of tick t - 1 still waiting */
        uint32_t t0 = s2_cycles();
        if (t > 0u) {
            if (late || g_read_seq != event_seq) g_ctr->overruns++;
            process_keys_until(event_seq, t - 1u);
            prev_busy += s2_cycles() - t0;
            prev_events = g_tick_syn_events;
            if (prev_busy > g_ctr->max_tick_cycles) g_ctr->max_tick_cycles = prev_busy;
        }
        g_tick_syn_events = 0u;
        /* 1, 2: X, then GO */
        t0 = s2_cycles();
        const uint32_t pairs = build_stacked(t);
        g_ctr->rows += pairs;
        for (uint32_t s = 0; s < g_dom->n_subordinates; ++s)
            s2_signal_send(subs[s].pe, S2_SNNP_SIGNAL_GO | (t & S2_SNNP_SIGNAL_ARG_MASK));
        /* keys of tick t while the subordinates work; then their inputs and the update. The
         * wait counts as busy: the tick's work is not done before the subordinates are. */
        serve_keys(t, all_stamped, t, 0);
        neuron_tick(t, prev_busy, prev_events);
        g_busy_cycles = s2_cycles() - t0;
        late = g_events > t + 1u;
        /* 6: keys of tick t until the next timer event */
        serve_keys(t, next_event, t, 1);
        prev_busy = g_busy_cycles;
        g_ctr->ticks = t + 1u;
    }
    (void)s2_sleep_until(&g_events, n_ticks + 1u);
    process_keys_until(g_event_seq[n_ticks % EVENT_RING], n_ticks - 1u);
    if (g_dom->record_words) wait_dma();
    s2_timer_stop(TICK_TIMER);
}

/* --- subordinate ---------------------------------------------------------------------------- */

/* A DMA transfer waited for in WFI (the core sleeps instead of polling the engine). */
static void dma_sleep(uint32_t src, uint32_t dst, uint32_t len) {
    s2_dma_start(src, dst, len, 1);
    if (!s2_dma_ok(s2_dma_wait_wfi())) fail(S2_SNN_ERR_DMA);
}

static void subordinate_tick(uint32_t t) {
    const s2_snnp_subordinate_t *h = g_sub;
    if (h->row_count) dma_sleep(h->stacked_src, h->raw, (h->row_count + 3u) & ~3u);
    const uint8_t *raw = (const uint8_t *)(uintptr_t)h->raw;
    const uint16_t *gs = (const uint16_t *)(uintptr_t)h->gather_start;
    const uint16_t *gi = (const uint16_t *)(uintptr_t)h->gather;
    uint8_t *x = (uint8_t *)(uintptr_t)h->x;
    uint32_t active = 0u;
    for (uint32_t k = 0; k < h->k_rows; ++k) {
        uint32_t sum = 0u;
        for (uint32_t j = gs[k]; j < gs[k + 1u]; ++j) sum += raw[gi[j]];
        x[k] = (uint8_t)sum;
        active |= sum;
    }
    int16_t *c = (int16_t *)(uintptr_t)h->c;
    if (h->k_rows && h->n_cols && active) {
        const s2_mla_matmul_t mm = {h->x, h->map, h->c, 0u, 1u, h->k_rows, h->n_cols, 0u};
        s2_mla_matmul(&mm);
        s2_mla_start(h->mla_ctrl | S2_MLA_IRQ_EN);
        const uint32_t st = s2_mla_wait_wfi();
        if (s2_mla_failed(st)) fail(S2_SNNP_ERR_MLA);
        g_ctr->rows++;
    } else {
        for (uint32_t n = 0; n < h->n_cols; ++n) c[n] = 0;
    }
    const uint16_t *col_of = (const uint16_t *)(uintptr_t)h->col_of;
    int16_t *out = (int16_t *)(uintptr_t)h->out;
    const uint32_t stride = h->col_of_stride;
    for (uint32_t k = 0; k < 2u * stride; ++k) {
        const uint16_t col = col_of[k];
        out[k] = col == S2_SNNP_NO_COL ? 0 : c[col];
    }
    *(uint32_t *)(void *)(out + 2u * stride) = t + 1u;
    dma_sleep(h->out, h->partial_dst, 4u * stride + 4u);
    s2_signal_send(h->dominant_pe, S2_SNNP_SIGNAL_DONE | h->index);
}

static void subordinate_main(void) {
    for (uint32_t t = 0; t < g_sub->n_ticks; ++t) {
        (void)s2_sleep_until(&g_go_ticks, t + 1u);
        const uint32_t t0 = s2_cycles();
        subordinate_tick(t);
        const uint32_t busy = s2_cycles() - t0;
        if (busy > g_ctr->max_tick_cycles) g_ctr->max_tick_cycles = busy;
        g_ctr->ticks = t + 1u;
    }
}

int main(void) {
    s2_cycles_start();
    s2_irq_priority(S2_IRQ_COMMS_RX, PRIO_PACKET);
    s2_irq_priority(S2_IRQ_TIMER0 + TICK_TIMER, PRIO_TIMER);
    s2_irq_priority(S2_IRQ_SIGNAL, PRIO_SIGNAL);
    s2_irq_enable(S2_IRQ_COMMS_RX);
    s2_irq_enable(S2_IRQ_TIMER0 + TICK_TIMER);
    s2_irq_enable(S2_IRQ_SIGNAL);
    s2_enable_interrupts();
    (void)s2_sleep_until(&g_started, 1u);
    if (!g_ctr) {
        const uint32_t counters =
            kind() == S2_SNNP_KIND_SUBORDINATE ? g_sub->counters : g_dom->counters;
        if (g_magic[0] == S2_SNNP_IMAGE_MAGIC && counters >= S2_SNN_IMAGE_BASE &&
            counters < S2_SNN_IMAGE_LIMIT) {
            g_ctr = (s2_snn_counters_t *)(uintptr_t)counters;
            fail(S2_SNN_ERR_IMAGE);
        }
        s2_exit(1);
    }
    if (kind() == S2_SNNP_KIND_DOMINANT)
        dominant_main();
    else
        subordinate_main();
    if (g_bad_words) fail(S2_SNN_ERR_IMAGE);
    g_ctr->done = 1u;
    s2_exit(0);
}
