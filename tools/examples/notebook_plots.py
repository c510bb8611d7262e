#!/usr/bin/python3
"""Example (notebook as a script): the plotting API in one figure, as in a Jupyter notebook.

    build/bin/nmsim run scenarios/s2_mlp_fmnist.yaml --set workload.dnn.count=3 -o mlp.h5
    build/bin/nmsim run scenarios/bss2_feedforward.yaml -o ff.h5
    /usr/bin/python3 tools/examples/notebook_plots.py mlp.h5 out.png [INFERENCE]
    /usr/bin/python3 tools/examples/notebook_plots.py ff.h5 out.png

Every function of nmsim_trace.plots draws into the Axes given as ax= (or a new figure when ax is
None) and returns it, so they combine into one figure; in Jupyter, drop matplotlib.use("Agg") and
the savefig. A SpiNNaker2 DNN trace gives the breakdown, the energy per phase on a log axis and
the timeline of one inference; a BrainScaleS-2 trace the rates over the input rate, the energy
without the system set-up, and the raster of the last run.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "python"))

import matplotlib  # noqa: E402

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

import nmsim_trace  # noqa: E402
from nmsim_trace import analysis, plots  # noqa: E402


def main(trace_path, png, inference=None):
    with nmsim_trace.load(trace_path) as t:
        fig = plt.figure(figsize=(16, 11), layout="constrained")
        top, bottom = fig.subfigures(2, 1, height_ratios=[1, 1.3])
        left, right = top.subplots(1, 2)
        if t.has_table("dnn/entries"):
            plots.breakdown(t, ax=left)
            plots.energy(t, ax=right, by="phase", log=True)
            ax = plots.timeline(t, ax=bottom.subplots(), pes=[0, 1, 2],
                                inference=None if inference is None else int(inference))
            total = analysis.dnn_breakdown(t).attrs["total_us"]
            print(f"Total per inference {total:.1f} us")
        else:
            plots.bss2_rates(t, ax=left)
            plots.energy(t, ax=right, exclude=["setup"])
            runs = analysis.bss2_runs(t)
            ax = plots.raster(t, ax=bottom.subplots(), run=int(runs["run"].max()))
            print(analysis.bss2_rates(t).to_string(index=False))
        ax.set_title(ax.get_title() + " (drawn into a subfigure)")
        fig.savefig(png, dpi=100)
        print(f"wrote {png}")


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    main(*sys.argv[1:])
