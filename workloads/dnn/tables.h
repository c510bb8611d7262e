// Trace tables of the dnn workload (traces/README.md, "DNN tables"): the scheduler's entries and
// the workers' records per inference (the time area), the layer list, and every inference's
// outputs with their references and check results, so a run can be reused without re-running.
#pragma once

#include <cstdint>

#include "nmsim/trace/sink.h"

namespace nmsim::workloads::dnn {

// One row per inference and list entry (setup, each layer, cleanup), from the time area.
struct EntryRecord {
    uint64_t duration_ps;
    uint32_t inference;
    uint32_t entry;  // 0 setup, 1..L layer entry-1, L+1 cleanup
    uint32_t start_cycles, end_cycles;
    uint32_t workers;
    uint32_t pad_;
};
NMSIM_TRACE_TABLE(EntryRecord, "dnn/entries",
                  "scheduler intervals per inference: setup, each layer, cleanup (time area)",
                  NMSIM_COL(EntryRecord, duration_ps, "ps", "end - start at the scheduler's clock"),
                  NMSIM_COL(EntryRecord, inference, "1", "inference index in this run"),
                  NMSIM_COL(EntryRecord, entry, "1",
                            "0 setup, 1..L layer entry-1, L+1 cleanup (dnn/layers)"),
                  NMSIM_COL(EntryRecord, start_cycles, "cycles", "scheduler CYCCNT at the start"),
                  NMSIM_COL(EntryRecord, end_cycles, "cycles", "scheduler CYCCNT at the end"),
                  NMSIM_COL(EntryRecord, workers, "1",
                            "workers of the layer (all for setup/cleanup)"));

// One row per inference, layer and worker, from the workers' time records.
struct WorkerRecord {
    uint64_t duration_ps;
    uint64_t load_ps;
    uint64_t compute_ps;
    uint32_t inference;
    uint32_t layer;
    uint32_t worker;
    uint32_t pe;
};
NMSIM_TRACE_TABLE(
    WorkerRecord, "dnn/workers",
    "worker records per inference and layer: interval, DMA-in wait, compute",
    NMSIM_COL(WorkerRecord, duration_ps, "ps", "the worker's interval for the layer"),
    NMSIM_COL(WorkerRecord, load_ps, "ps",
              "waiting for DMA of weights and biases (layers without: of the inputs)"),
    NMSIM_COL(WorkerRecord, compute_ps, "ps", "MLA operations or the core's compute loops"),
    NMSIM_COL(WorkerRecord, inference, "1", "inference index in this run"),
    NMSIM_COL(WorkerRecord, layer, "1", "layer list index"),
    NMSIM_COL(WorkerRecord, worker, "1", "index in the worker list"),
    NMSIM_COL(WorkerRecord, pe, "1", "global PE index"));

// The scheduler's list: the names every report, energy phase and plot uses.
struct LayerRecord {
    uint32_t entry;
    uint32_t workers;
    char name[64];
    char kind[64];
};
NMSIM_TRACE_TABLE(LayerRecord, "dnn/layers",
                  "the scheduler's list: setup, the layers in list order, cleanup",
                  NMSIM_COL(LayerRecord, entry, "1",
                            "0 setup, 1..L the layers, L+1 cleanup (as dnn/entries.entry)"),
                  NMSIM_COL(LayerRecord, workers, "1", "worker PEs of the entry"),
                  NMSIM_STR_COL(LayerRecord, name, "ONNX node name, \"setup\" or \"cleanup\""),
                  NMSIM_STR_COL(LayerRecord, kind,
                                "operation and shapes, e.g. \"linear+relu [1, 784]->[1, 512]\""));

// One row per completed inference.
struct InferenceRecord {
    uint64_t total_ps;  // setup start .. cleanup end (the report's Total for this inference)
    uint64_t host_ps;   // host link: RUN sent .. output and time area read back
    uint32_t inference;
    uint32_t input;
    uint32_t mismatches;
    uint32_t onnx_mismatches;
    uint32_t onnx_max_lsb;
    int16_t label;
    int16_t predicted;
    int16_t reference_predicted;
    int16_t float_predicted;
    uint8_t check;
    uint8_t pad_[7];
};
NMSIM_TRACE_TABLE(
    InferenceRecord, "dnn/inferences", "one row per completed inference: outcome and time",
    NMSIM_COL(InferenceRecord, total_ps, "ps",
              "setup start .. cleanup end on the scheduler's clock (the report's Total)"),
    NMSIM_COL(InferenceRecord, host_ps, "ps",
              "host link: RUN signal sent .. output and time area read back"),
    NMSIM_COL(InferenceRecord, inference, "1", "inference index in this run"),
    NMSIM_COL(InferenceRecord, input, "1", "index of the input in the inputs file"),
    NMSIM_COL(InferenceRecord, mismatches, "1",
              "output elements that differ from the integer reference (the check)"),
    NMSIM_COL(InferenceRecord, onnx_mismatches, "1",
              "output elements that differ from ONNX semantics (round half to even)"),
    NMSIM_COL(InferenceRecord, onnx_max_lsb, "1", "largest |chip - ONNX| over the outputs, LSB"),
    NMSIM_COL(InferenceRecord, label, "1", "the input's label (-1: no labels)"),
    NMSIM_COL(InferenceRecord, predicted, "1", "argmax of the chip's output"),
    NMSIM_COL(InferenceRecord, reference_predicted, "1", "argmax of the integer reference"),
    NMSIM_COL(InferenceRecord, float_predicted, "1",
              "class of the float model (-1: no float predictions)"),
    NMSIM_COL(InferenceRecord, check, "1", "1 bit-exact, 0 mismatch, 2 not checked"));

// One row per inference and output element (the model's output in NCHW / row-major order).
struct OutputRecord {
    uint32_t inference;
    uint32_t element;
    int8_t chip;
    int8_t reference;
    int8_t onnx;
    uint8_t pad_[5];
};
NMSIM_TRACE_TABLE(
    OutputRecord, "dnn/outputs", "every inference's int8 output with its references",
    NMSIM_COL(OutputRecord, inference, "1", "inference index in this run"),
    NMSIM_COL(OutputRecord, element, "1", "element index in the output tensor (row-major)"),
    NMSIM_COL(OutputRecord, chip, "1", "value read back from the chip"),
    NMSIM_COL(OutputRecord, reference, "1", "integer reference (the chip's arithmetic)"),
    NMSIM_COL(OutputRecord, onnx, "1",
              "ONNX semantics: round half to even, int32 accumulation, float softmax"));

}  // namespace nmsim::workloads::dnn
