/* Serial-paradigm SNN firmware (seed 001 sec. III-A, the sPyNNaker way): one program for every
 * PE of a network; the image at S2_SNN_IMAGE_BASE (nmsim/hw/spinnaker2/snn_image.h, written by
 * tools/compiler/snn) says whether this PE holds LIF neurons or spike sources. Generic: nothing
 * here knows a model.
 *
 * Events, as on SpiNNaker:
 *  - packet received (S2_IRQ_COMMS_RX, priority 0): the key goes into the input spike buffer,
 *    nothing else; the start key starts the tick timer instead.
 *  - timer (S2_IRQ_TIMER0, priority 1): notes which keys arrived before this tick's event.
 *  - the main loop does the work of each tick in the order the header describes: the keys of the
 *    previous tick still waiting, the neuron update (spikes sent, record written to DRAM by
 *    DMA), then the keys of this tick as they arrive, until the next timer event.
 * After the last tick the loop keeps processing until one more timer event (the last tick's
 * spikes still arrive), then sets counters.done and exits with 0; a bad image or a failed DMA
 * exits with 1 after setting counters.status. */
#include <stdint.h>

#include "nmsim/hw/spinnaker2/snn_image.h"
#include "s2_comms.h"
#include "s2_dma.h"
#include "s2_hal.h"
#include "s2_timer.h"

#define TICK_TIMER 0u
#define PRIO_PACKET 0u
#define PRIO_TIMER 1u
#define EVENT_RING 8u /* timer events remembered: ticks the main loop may lag behind */

extern char _end[]; /* first byte past the firmware (link.ld) */

static s2_snn_image_t *const g_img = (s2_snn_image_t *)(uintptr_t)S2_SNN_IMAGE_BASE;
static s2_snn_counters_t *volatile g_ctr; /* set at the start key, once the image is valid */

/* Input spike buffer: written by the packet handler, read by the main loop. Sequence numbers
 * count keys from the start; slot = sequence & g_buf_mask. */
static uint32_t *g_buf;
static uint32_t g_buf_mask;
static volatile uint32_t g_rx_seq;   /* keys stored */
static volatile uint32_t g_read_seq; /* keys processed */

static volatile uint32_t g_started;
static volatile uint32_t g_events; /* timer events so far */
static volatile uint32_t g_event_seq[EVENT_RING];
static volatile uint32_t g_event_cycles[EVENT_RING];

/* Busy cycles and synapse words of the tick being worked on (its neuron update and recording,
 * the keys processed as its own, including those left for the next tick's step 0). */
static uint32_t g_busy_cycles, g_tick_syn_events;

static int image_ok(void);

/* The host has written the image by now: take its buffers and start the tick timer. */
static void start(void) {
    g_started = 1u;
    if (!image_ok()) return;
    g_ctr = (s2_snn_counters_t *)(uintptr_t)g_img->counters;
    if (g_img->kind == S2_SNN_KIND_NEURON) {
        g_buf = (uint32_t *)(uintptr_t)g_img->spike_buffer;
        g_buf_mask = g_img->spike_buffer_entries - 1u;
    }
    s2_timer_start_periodic(TICK_TIMER, g_img->tick_cycles - 1u, S2_TIMER_DIV1, 1);
}

void COMMS_IRQHandler(void) {
    uint32_t key, payload;
    while (s2_mc_rx_pending()) {
        (void)s2_mc_receive(&key, &payload);
        if (key == S2_SNN_START_KEY) {
            if (!g_started) start();
            continue;
        }
        if (!g_ctr) continue; /* not started: no image to count in */
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
    g_event_cycles[k % EVENT_RING] = s2_cycles();
    g_events = k + 1u;
}

static void fail(uint32_t status) {
    g_ctr->status = status;
    g_ctr->done = 1u;
    s2_timer_stop(TICK_TIMER);
    s2_exit(1);
}

/* --- synaptic processing ------------------------------------------------------------------ */

/* The master population table entry of `key`, or 0. Entries are sorted by key and their masked
 * ranges do not overlap, so the candidate is the last entry whose key is <= `key`. */
static const s2_snn_mpt_entry_t *mpt_lookup(uint32_t key) {
    const s2_snn_mpt_entry_t *mpt = (const s2_snn_mpt_entry_t *)(uintptr_t)g_img->mpt;
    uint32_t lo = 0u, hi = g_img->mpt_count;
    while (lo < hi) {
        const uint32_t mid = (lo + hi) / 2u;
        if (mpt[mid].key <= key)
            lo = mid + 1u;
        else
            hi = mid;
    }
    if (lo == 0u) return 0;
    const s2_snn_mpt_entry_t *e = &mpt[lo - 1u];
    return (key & e->mask) == e->key ? e : 0;
}

/* Adds every synapse of the rows of `key` into the input buffers, as received during `tick`. */
static void process_key(uint32_t key, uint32_t tick) {
    const s2_snn_mpt_entry_t *e = mpt_lookup(key);
    if (!e) {
        g_ctr->mpt_misses++;
        return;
    }
    const uint32_t index = key & ~e->mask;
    const uint32_t *addr_list = (const uint32_t *)(uintptr_t)g_img->addr_list;
    const uint32_t *matrix = (const uint32_t *)(uintptr_t)g_img->syn_matrix;
    int16_t *input = (int16_t *)(uintptr_t)g_img->input;
    const uint32_t slot_mask = g_img->n_delay_slots - 1u;
    const uint32_t stride = g_img->input_stride;
    const uint32_t start = s2_snn_mpt_start(e->target);
    const uint32_t end = start + s2_snn_mpt_count(e->target);
    uint32_t events = 0u, saturations = 0u;
    for (uint32_t a = start; a < end; ++a) {
        const uint32_t word = addr_list[a];
        const uint32_t *row = matrix + s2_snn_addr_offset(word) + index * s2_snn_addr_stride(word);
        const uint32_t n = row[0];
        for (uint32_t s = 1u; s <= n; ++s) {
            const uint32_t syn = row[s];
            const uint32_t slot = (tick + s2_snn_syn_delay(syn)) & slot_mask;
            int16_t *cell = &input[s2_snn_input_offset(slot, s2_snn_syn_type(syn),
                                                       s2_snn_syn_index(syn), stride)];
            const int32_t sum = (int32_t)*cell + (int32_t)s2_snn_syn_weight(syn);
            if (sum > S2_SNN_INPUT_MAX) {
                *cell = S2_SNN_INPUT_MAX;
                ++saturations;
            } else {
                *cell = (int16_t)sum;
            }
        }
        events += n;
    }
    g_ctr->rows += end - start;
    g_ctr->synaptic_events += events;
    g_ctr->saturations += saturations;
    g_tick_syn_events += events;
}

/* Processes the waiting keys with sequence numbers below `until` as received during `tick`. */
static void process_keys_until(uint32_t until, uint32_t tick) {
    while ((int32_t)(until - g_read_seq) > 0) {
        const uint32_t seq = g_read_seq;
        process_key(g_buf[seq & g_buf_mask], tick);
        g_read_seq = seq + 1u;
    }
}

/* --- neuron update -------------------------------------------------------------------------- */

static int32_t sat32(int64_t x) {
    if (x > INT32_MAX) return INT32_MAX;
    if (x < INT32_MIN) return INT32_MIN;
    return (int32_t)x;
}

/* Updates every neuron with the input of `tick` (snn_image.h), sends its spikes and fills the
 * spike bits of the record. */
static void update_neurons(uint32_t tick, uint32_t *spike_bits) {
    const s2_snn_lif_params_t *p = (const s2_snn_lif_params_t *)(uintptr_t)g_img->params;
    s2_snn_neuron_state_t *state = (s2_snn_neuron_state_t *)(uintptr_t)g_img->state;
    const uint32_t stride = g_img->input_stride;
    const uint32_t slot = tick & (g_img->n_delay_slots - 1u);
    int16_t *exc = (int16_t *)(uintptr_t)g_img->input +
                   s2_snn_input_offset(slot, S2_SNN_TYPE_EXC, 0u, stride);
    int16_t *inh = exc + stride;
    const int64_t alpha = (int64_t)p->alpha;
    const int32_t v_th = (int32_t)p->v_th;
    const int64_t i_offset = (int32_t)p->i_offset;
    const int subtract = p->reset_mode == S2_SNN_RESET_SUBTRACT;
    const int send = (g_img->flags & S2_SNN_FLAG_NO_TARGETS) == 0u;
    uint32_t sent = 0u;
    for (uint32_t j = 0; j < g_img->n_neurons; ++j) {
        const int64_t input = (int64_t)exc[j] - (int64_t)inh[j];
        exc[j] = 0;
        inh[j] = 0;
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
                    s2_mc_send(g_img->key_base | j);
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

/* --- recording ---------------------------------------------------------------------------- */

static void wait_dma(void) {
    if (!s2_dma_busy(s2_dma_status()) && !s2_dma_finished(s2_dma_status())) return;
    const uint32_t st = s2_dma_wait_poll();
    if (!s2_dma_ok(st)) fail(S2_SNN_ERR_DMA);
}

/* Updates the neurons of `tick` and writes its record; `prev_busy` and `prev_events` describe
 * the tick before. */
static void neuron_tick(uint32_t tick, uint32_t prev_busy, uint32_t prev_events) {
    const uint32_t words = g_img->record_words;
    uint32_t *stage = (uint32_t *)(uintptr_t)g_img->record_stage;
    uint32_t *bits = 0;
    if (words) {
        wait_dma(); /* the stage is free again */
        for (uint32_t w = 0; w < words; ++w) stage[w] = 0u;
        stage[0] = tick;
        stage[1] = prev_busy;
        stage[2] = prev_events;
        if (g_img->flags & S2_SNN_FLAG_RECORD_SPIKES) bits = stage + S2_SNN_RECORD_HEADER_WORDS;
    }
    update_neurons(tick, bits);
    if (!words) return;
    const uint32_t n_bits =
        (g_img->flags & S2_SNN_FLAG_RECORD_SPIKES) ? (g_img->n_neurons + 31u) / 32u : 0u;
    uint32_t *v_out = stage + S2_SNN_RECORD_HEADER_WORDS + n_bits;
    const uint32_t *v_index = (const uint32_t *)(uintptr_t)g_img->record_v_index;
    const s2_snn_neuron_state_t *state = (const s2_snn_neuron_state_t *)(uintptr_t)g_img->state;
    for (uint32_t k = 0; k < g_img->n_record_v; ++k) v_out[k] = state[v_index[k]].v;
    s2_dma_start((uint32_t)(uintptr_t)stage, g_img->record_dram + tick * words * 4u, words * 4u, 0);
}

/* --- spike sources ------------------------------------------------------------------------ */

static uint32_t g_src_index[2];
static uint32_t g_src_keys[S2_SNN_MAX_NEURONS_PER_PE];

static void source_tick(uint32_t tick) {
    const uint32_t *keys;
    uint32_t first, count;
    if (g_img->flags & S2_SNN_FLAG_SPIKES_IN_DRAM) {
        s2_dma_start(g_img->spike_tick_index + tick * 4u, (uint32_t)(uintptr_t)g_src_index, 8u, 0);
        wait_dma();
        const uint32_t n = g_src_index[1] - g_src_index[0];
        if (n > S2_SNN_MAX_NEURONS_PER_PE) fail(S2_SNN_ERR_IMAGE);
        if (n) {
            s2_dma_start(g_img->spike_keys + g_src_index[0] * 4u, (uint32_t)(uintptr_t)g_src_keys,
                         n * 4u, 0);
            wait_dma();
        }
        first = 0u;
        count = n;
        keys = g_src_keys;
    } else {
        const uint32_t *index = (const uint32_t *)(uintptr_t)g_img->spike_tick_index + tick;
        first = index[0];
        count = index[1] - index[0];
        keys = (const uint32_t *)(uintptr_t)g_img->spike_keys;
    }
    for (uint32_t s = 0; s < count; ++s) s2_mc_send(keys[first + s]);
    g_ctr->spikes_sent += count;
}

/* --- the tick loop -------------------------------------------------------------------------- */

static int image_ok(void) {
    const s2_snn_image_t *h = g_img;
    if (h->magic != S2_SNN_IMAGE_MAGIC || h->version != S2_SNN_IMAGE_VERSION) return 0;
    if ((uintptr_t)_end > S2_SNN_IMAGE_BASE) return 0;
    if (h->tick_cycles < 2u || h->n_neurons == 0u || h->n_neurons > S2_SNN_MAX_NEURONS_PER_PE)
        return 0;
    if (h->kind == S2_SNN_KIND_SOURCE) return 1;
    if (h->kind != S2_SNN_KIND_NEURON) return 0;
    const uint32_t slots = h->n_delay_slots, entries = h->spike_buffer_entries;
    return slots && (slots & (slots - 1u)) == 0u && entries && (entries & (entries - 1u)) == 0u &&
           (h->record_words == 0u ||
            h->record_words >= S2_SNN_RECORD_HEADER_WORDS);
}

/* Sleeps until timer event `k` has happened (events count from 1). */
static void wait_event(uint32_t k) { (void)s2_sleep_until(&g_events, k); }

int main(void) {
    s2_cycles_start();
    s2_irq_priority(S2_IRQ_COMMS_RX, PRIO_PACKET);
    s2_irq_priority(S2_IRQ_TIMER0 + TICK_TIMER, PRIO_TIMER);
    s2_irq_enable(S2_IRQ_COMMS_RX);
    s2_irq_enable(S2_IRQ_TIMER0 + TICK_TIMER);
    s2_enable_interrupts();
    /* the host loads the image, then multicasts the start key */
    (void)s2_sleep_until(&g_started, 1u);
    if (!g_ctr) {
        if (g_img->magic == S2_SNN_IMAGE_MAGIC && g_img->counters >= S2_SNN_IMAGE_BASE &&
            g_img->counters < S2_SNN_IMAGE_LIMIT) {
            g_ctr = (s2_snn_counters_t *)(uintptr_t)g_img->counters;
            fail(S2_SNN_ERR_IMAGE);
        }
        s2_exit(1);
    }
    const int neuron = g_img->kind == S2_SNN_KIND_NEURON;
    const uint32_t n_ticks = g_img->n_ticks;
    uint32_t prev_busy = 0u, prev_events = 0u;
    int late = 0; /* the previous tick's neuron update ended after this tick's timer event */
    for (uint32_t t = 0; t < n_ticks; ++t) {
        wait_event(t + 1u);
        const uint32_t event_seq = g_event_seq[t % EVENT_RING];
        if (!neuron) {
            source_tick(t);
            g_ctr->ticks = t + 1u;
            continue;
        }
        /* 0: keys of tick t - 1 still waiting: that tick's work ran past this timer event */
        uint32_t t0 = s2_cycles();
        if (t > 0u) {
            if (late || g_read_seq != event_seq) g_ctr->overruns++;
            process_keys_until(event_seq, t - 1u);
            prev_busy += s2_cycles() - t0;
            prev_events = g_tick_syn_events;
            if (prev_busy > g_ctr->max_tick_cycles) g_ctr->max_tick_cycles = prev_busy;
        }
        /* 1: neuron update, spikes, record */
        t0 = s2_cycles();
        g_tick_syn_events = 0u;
        neuron_tick(t, prev_busy, prev_events);
        g_busy_cycles = s2_cycles() - t0;
        late = g_events > t + 1u;
        /* 2: keys of tick t until the next timer event */
        for (;;) {
            s2_disable_interrupts();
            if (g_events > t + 1u) {
                s2_enable_interrupts();
                break;
            }
            if (g_read_seq != g_rx_seq) {
                s2_enable_interrupts();
                const uint32_t t1 = s2_cycles();
                process_keys_until(g_read_seq + 1u, t);
                g_busy_cycles += s2_cycles() - t1;
                continue;
            }
            s2_wfi();
            s2_enable_interrupts();
            __asm volatile("isb" ::: "memory");
        }
        prev_busy = g_busy_cycles;
        g_ctr->ticks = t + 1u;
    }
    if (neuron) {
        wait_event(n_ticks + 1u);
        process_keys_until(g_event_seq[n_ticks % EVENT_RING], n_ticks - 1u);
        if (g_img->record_words) wait_dma();
    } else {
        wait_event(n_ticks + 1u);
    }
    s2_timer_stop(TICK_TIMER);
    g_ctr->done = 1u;
    s2_exit(0);
}
