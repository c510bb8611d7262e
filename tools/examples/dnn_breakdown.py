#!/usr/bin/python3
"""Example (notebook as a script): where does a SpiNNaker2 DNN inference spend its time?

    build/bin/nmsim run scenarios/s2_mlp_fmnist.yaml --set workload.dnn.count=3 -o mlp.h5
    /usr/bin/python3 tools/examples/dnn_breakdown.py mlp.h5 [out.png]

Reads the trace with the nmsim_trace API, prints the per-layer table (mean over inferences),
the per-worker load/compute split and the DMA traffic per PE, and plots the layer breakdown.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "traces" / "python"))

import pandas as pd  # noqa: E402

import nmsim_trace  # noqa: E402
from nmsim_trace import analysis  # noqa: E402


def main(trace_path, png=None):
    pd.set_option("display.width", 160)
    with nmsim_trace.load(trace_path) as t:
        # 1. The scheduler's view: one row per entry, averaged over the inferences.
        table = analysis.dnn_breakdown(t)
        print(table[["name", "workers", "mean_us", "share", "load_us", "compute_us"]]
              .to_string(index=False, float_format=lambda v: f"{v:.3f}"))
        print(f"total per inference: {table['mean_us'].sum():.1f} us")

        # 2. The workers' view: how even is the work spread within a layer?
        w = analysis.worker_times(t)
        spread = w.groupby("layer")["duration_us"].agg(["min", "max", "count"])
        print("\nworker interval per layer (us):\n" + spread.to_string())

        # 3. Raw events: bytes moved by DMA per PE (the weight loads dominate layer 0).
        iv = analysis.intervals(t, ("dma",))
        if not iv.empty:
            per_pe = iv.groupby("pe").agg(transfers=("bytes", "size"), bytes=("bytes", "sum"),
                                          busy_us=("end_us", "sum"))
            per_pe["busy_us"] -= iv.groupby("pe")["start_us"].sum()
            print("\nDMA per PE:\n" + per_pe.to_string(float_format=lambda v: f"{v:.1f}"))

        if png:
            # The same figure as `nmsim-trace breakdown TRACE -o out.png`.
            from nmsim_trace.cli import main as cli

            cli(["breakdown", trace_path, "-o", png, "-q"])


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    main(*sys.argv[1:])
