/* DNN scheduler (seed 000 sec. III-C): waits for the host's RUN signal, then walks the layer list
 * of the DRAM image: SETUP to every worker, per layer the worker configurations' addresses to the
 * layer's workers and a wait for their completion words, FINISH to every worker (they store their
 * time records), its own intervals into the time area, and the status word for the host.
 * Protocol and layouts: nmsim/hw/spinnaker2/dnn_image.h. Argument 0: the image base. */
#include "dnn_fw.h"
#include "nmsim/hw/spinnaker2/noc_map.h"
#include "s2_hal.h"
#include "s2_signal.h"

#define MAX_LAYERS 64u
#define MAX_WORKERS S2_NOC_N_PES

static s2_dnn_global_t g;
static s2_dnn_layer_t hdr;
static uint32_t pes[MAX_WORKERS];
static volatile uint32_t done[MAX_WORKERS]; /* the completion array the workers write */
static s2_dnn_interval_t times[MAX_LAYERS + 2u];
static s2_dnn_host_status_t status;
static uint32_t self, fail_addr, loaded;

static void dma(uint32_t src, uint32_t dst, uint32_t len) {
    if (dnn_dma(src, dst, len, &fail_addr) == 0xFFFFFFFFu) {
        s2_printf("dnn_scheduler: DMA failed at 0x%08x\n", (unsigned)fail_addr);
        s2_exit((int)S2_DNN_ERR_DMA);
    }
}

static void report(uint32_t code, uint32_t layer, uint32_t pe) {
    status.status = code;
    status.layer = layer;
    status.pe = pe;
    dma((uint32_t)(uintptr_t)&status, S2_HOST_GLOBAL_BASE + S2_DNN_HOST_STATUS_OFFSET,
        sizeof status);
}

static void exit_all(int code) {
    for (uint32_t i = 0; loaded && i < g.num_workers; ++i) s2_signal_send(pes[i], S2_DNN_SIG_EXIT);
    s2_exit(code);
}

static void fail(uint32_t code, uint32_t layer, uint32_t pe, const char *what) {
    s2_printf("dnn_scheduler: layer %u, pe%u: %s (0x%08x)\n", (unsigned)layer, (unsigned)pe, what,
              (unsigned)fail_addr);
    report(S2_DNN_SIG_ERROR_BASE + code, layer, pe);
    exit_all((int)code);
}

/* Sleeps until done[0..n) all hold `want`. Workers finish roughly in the order they were
 * triggered, so a cursor keeps the scan linear in n. Every queued word must be a wake-up. */
static void wait_all(uint32_t n, uint32_t want, uint32_t layer) {
    uint32_t next = 0;
    for (;;) {
        while (next < n) {
            const uint32_t v = done[next];
            if (v == want) {
                ++next;
                continue;
            }
            if ((v & 0xFFFF0000u) == S2_DNN_SIG_ERROR_BASE) {
                fail_addr = v;
                fail(v - S2_DNN_SIG_ERROR_BASE, layer, pes[next], "worker failed");
            }
            break;
        }
        if (next == n) return;
        const uint32_t w = dnn_next_signal(0);
        if (w != S2_DNN_SIG_WAKE) {
            fail_addr = w;
            fail(S2_DNN_ERR_PROTOCOL, layer, self, "unexpected signal while waiting for workers");
        }
    }
}

static void setup(void) {
    const uint32_t base = s2_arg(0);
    dnn_load_words(base, &g, sizeof g / 4u);
    fail_addr = base;
    if (g.magic != S2_DNN_IMAGE_MAGIC || g.version != S2_DNN_IMAGE_VERSION)
        fail(S2_DNN_ERR_IMAGE, 0, self, "bad image magic or version");
    if (g.num_layers > MAX_LAYERS || g.num_workers > MAX_WORKERS || g.scheduler_pe != self)
        fail(S2_DNN_ERR_IMAGE, 0, self, "image exceeds the scheduler's limits or names another PE");
    dnn_load_words(g.worker_pes, pes, g.num_workers);
    loaded = 1;
    const uint32_t word = S2_DNN_SIG_SETUP_BASE + (uint32_t)(uintptr_t)done;
    for (uint32_t i = 0; i < g.num_workers; ++i) {
        done[i] = 0;
        s2_signal_send(pes[i], word);
    }
}

/* Phase markers for the energy accounting: 0 setup, 1 + l layer l, 1 + L cleanup (the time
 * area's entry numbering), S2_CONSOLE_MARK_IDLE once the scheduler is done. */
static void run(void) {
    s2_mark(0u);
    times[0].start = s2_cycles();
    setup();
    times[0].end = s2_cycles();
    uint32_t addr = g.first_layer;
    for (uint32_t l = 0; l < g.num_layers; ++l) {
        s2_mark(1u + l);
        times[1u + l].start = s2_cycles();
        dnn_load_words(addr, &hdr, sizeof hdr / 4u);
        fail_addr = addr;
        if (hdr.type == S2_DNN_LAYER_FINISH || hdr.index != l || hdr.num_workers > g.num_workers)
            fail(S2_DNN_ERR_IMAGE, l, self, "layer list does not match the global configuration");
        for (uint32_t i = 0; i < hdr.num_workers; ++i) {
            done[i] = 0;
            s2_signal_send(pes[i], hdr.workers_addr + i * hdr.worker_size);
        }
        wait_all(hdr.num_workers, S2_DNN_SIG_DONE_BASE + l, l);
        times[1u + l].end = s2_cycles();
        dnn_store_words(&times[1u + l], hdr.time_slot, 2u); /* part of the layer's overhead */
        addr = hdr.next;
    }
    const uint32_t c = 1u + g.num_layers;
    s2_mark(c);
    times[c].start = s2_cycles();
    for (uint32_t i = 0; i < g.num_workers; ++i) {
        done[i] = 0;
        s2_signal_send(pes[i], S2_DNN_SIG_FINISH);
    }
    wait_all(g.num_workers, S2_DNN_SIG_FINISHED, g.num_layers);
    dnn_store_words(&times[0], s2_dnn_time_setup(g.time_addr), 2u);
    times[c].end = s2_cycles();
    dnn_store_words(&times[c], s2_dnn_time_cleanup(g.time_addr, g.num_layers), 2u);
    ++status.runs;
    s2_mark(S2_CONSOLE_MARK_IDLE);
    report(0, 0, 0);
}

int main(void) {
    s2_cycles_start();
    self = s2_signal_self();
    dnn_signals_init();
    for (;;) {
        const uint32_t w = dnn_next_signal(0);
        if (w == S2_DNN_SIG_RUN) {
            run();
        } else if (w == S2_DNN_SIG_EXIT) {
            if (!loaded) setup();
            exit_all(0);
        } else if (w != S2_DNN_SIG_WAKE) { /* late wake-ups of the last wait are harmless */
            fail_addr = w;
            fail(S2_DNN_ERR_PROTOCOL, 0, self, "unexpected signal word");
        }
    }
}
