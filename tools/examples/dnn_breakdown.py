#!/usr/bin/python3
"""Example (notebook as a script): where does a SpiNNaker2 DNN inference spend its time?

    build/bin/nmsim run scenarios/s2_mlp_fmnist.yaml --set workload.dnn.count=3 -o mlp.h5
    /usr/bin/python3 tools/examples/dnn_breakdown.py mlp.h5 [out.png]

Reads the trace with the nmsim_trace API, prints the per-layer table (mean over inferences),
the per-worker load/compute split and the DMA traffic per PE, and plots the layer breakdown.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "python"))

import pandas as pd  # noqa: E402

import nmsim_trace  # noqa: E402
from nmsim_trace import analysis  # noqa: E402


def main(trace_path, png=None):
    pd.set_option("display.width", 160)
    with nmsim_trace.load(trace_path) as t:
        # 1. The scheduler's view: one row per entry (named like the report: setup, /0/Gemm,
        #    ..., cleanup), averaged over the inferences, and the time between entries; the rows
        #    add up to the report's Total.
        table = analysis.dnn_breakdown(t)
        print(table[["name", "workers", "mean_us", "share", "load_us", "compute_us"]]
              .to_string(index=False, float_format=lambda v: f"{v:.3f}"))
        print(f"Total per inference: {table.attrs['total_us']:.1f} us (setup start to cleanup "
              "end, as the report)")

        # 2. The workers' view: how even is the work spread within a layer?
        w = analysis.worker_times(t)
        spread = w.groupby("name", sort=False)["duration_us"].agg(["min", "max", "count"])
        print("\nworker interval per layer (us):\n" + spread.to_string())

        # 3. Raw events: bytes moved by DMA per PE (the weight loads dominate the first layer).
        iv = analysis.intervals(t, ("dma",))
        if not iv.empty:
            per_pe = iv.groupby("pe").agg(transfers=("bytes", "size"), bytes=("bytes", "sum"),
                                          busy_us=("end_us", "sum"))
            per_pe["busy_us"] -= iv.groupby("pe")["start_us"].sum()
            print("\nDMA per PE:\n" + per_pe.to_string(float_format=lambda v: f"{v:.1f}"))

        # 4. Per inference (traces since issue 11): prediction, check and Total.
        if t.has_table("dnn/inferences"):
            inf = analysis.dnn_inferences(t)
            print("\nper inference:\n" + inf[["inference", "label", "predicted", "check_name",
                                              "total_us"]].to_string(index=False))

        if png:
            # The same figure as `nmsim-trace breakdown TRACE -o out.png`, drawn with the
            # plotting API (every plot takes ax= and returns the Axes).
            import matplotlib

            matplotlib.use("Agg")
            from nmsim_trace import plots

            ax = plots.breakdown(t, table=table)
            ax.figure.savefig(png, dpi=120, bbox_inches="tight")
            print(f"\nwrote {png}")


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    main(*sys.argv[1:])
