"""`nmsim-trace raster TRACE.h5`: BrainScaleS-2 spike raster (output and input spikes).

The table has one row per spike (direction, run, t_us, population, population_name, neuron,
global_neuron). The figure has one panel per run (plots.raster): y is the global neuron index
(populations stacked in network order, labelled), one colour per population.
"""

import pandas as pd

from .. import analysis, plots
from ..reader import TraceError, load
from . import _output


def register(subparsers):
    p = subparsers.add_parser(
        "raster", help="BrainScaleS-2 spike raster (output and input spikes)",
        description="Spikes of a BrainScaleS-2 trace: one row per spike, or a raster plot with "
                    "one panel per run, y = global neuron index grouped by population.")
    p.add_argument("trace", metavar="TRACE.h5", help="trace file written by nmsim")
    p.add_argument("--run", type=int, metavar="R", help="only run R (default: all runs)")
    p.add_argument("--which", choices=["both", "output", "input"], default="both",
                   help="output spikes (on-chip neurons), input spikes (host), or both "
                        "(default)")
    _output.add_output_args(p)
    p.set_defaults(func=run)


def raster_table(t, which="both", run=None):
    frames = []
    for w in (("output", "input") if which == "both" else (which,)):
        if which == "both" and not t.has_table(f"events/bss2_{w}_spikes"):
            continue
        frames.append(analysis.spikes(t, w, run).assign(direction=w))
    if not frames:
        raise TraceError(f"{t.path}: trace has no BrainScaleS-2 spike tables "
                         "(events/bss2_output_spikes, events/bss2_input_spikes)")
    df = pd.concat(frames, ignore_index=True)
    return df[["direction", "run", "t_us", "population", "population_name", "neuron",
               "global_neuron"]]


def run(args):
    _output.output_kind(args.output)
    with load(args.trace) as t:
        df = raster_table(t, args.which, args.run)
        if args.run is not None and df.empty:
            runs = sorted(set(analysis.spikes(t, "output")["run"]) |
                          set(analysis.spikes(t, "input")["run"]))
            raise TraceError(f"{t.path}: no spikes in run {args.run} (runs with spikes: "
                             f"{', '.join(map(str, runs)) or 'none'})")
        _output.write_table(df, args, digits={"t_us": 3})
        if _output.wants_figure(args):
            _plot(t, df, args)
    return 0


def _plot(t, df, args):
    runs = [args.run] if args.run is not None else sorted(df["run"].unique())
    ncols = min(len(runs), 4)
    nrows = (len(runs) + ncols - 1) // ncols
    fig, axes = _output.figure(3.6 * ncols + 1.5, 3.2 * nrows + 0.6, nrows=nrows, ncols=ncols,
                               squeeze=False, sharey=True)
    for i, r in enumerate(runs):
        ax = axes[i // ncols][i % ncols]
        plots.raster(t, ax=ax, run=r, spikes=df)
        if i % ncols:
            ax.set_ylabel("")
        if i // ncols != nrows - 1:
            ax.set_xlabel("")
    for j in range(len(runs), nrows * ncols):
        axes[j // ncols][j % ncols].axis("off")
    fig.suptitle(f"{t.attrs.get('scenario_name', '')}: spike raster")
    fig.tight_layout()
    _output.save_figure(fig, args.output)
