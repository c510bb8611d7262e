"""`nmsim-trace sweep RESULTS.h5 --x PARAM --y METRIC [--hue PARAM]`: plot a sweep's results.

RESULTS is the sweep's /results table (HDF5) or its CSV twin. Parameters are converted to
numbers where possible (analysis.parse_quantity: "300MHz" -> 3e8 Hz); otherwise they are
categories. Points whose status is not "ok" are left out and counted.
"""

import sys

import numpy as np

from .. import analysis
from ..reader import TraceError
from . import _output


def register(subparsers):
    p = subparsers.add_parser(
        "sweep", help="plot a sweep results table (metric over a parameter)",
        description="Plot (or tabulate) one metric of a sweep over one parameter, one line per "
                    "value of an optional second parameter.")
    p.add_argument("results", metavar="RESULTS.h5", help="sweep results (HDF5 or CSV)")
    p.add_argument("--x", required=True, metavar="PARAM", help="parameter on the x axis")
    p.add_argument("--y", required=True, metavar="METRIC", help="metric on the y axis")
    p.add_argument("--hue", metavar="PARAM", help="one line per value of this parameter")
    p.add_argument("--logx", action="store_true", help="logarithmic x axis")
    p.add_argument("--logy", action="store_true", help="logarithmic y axis")
    _output.add_output_args(p)
    p.set_defaults(func=run)


def sweep_table(df, x, y, hue=None):
    """The rows of an x/y(/hue) view of a sweep: point, x (as written), x_value, [hue,
    hue_value], y; only "ok" points, sorted by hue and x."""
    xc = analysis.sweep_column(df, x, "param:")
    yc = analysis.sweep_column(df, y, "metric:")
    cols = {"point": df["point"], x: df[xc], f"{x} (value)": df["value:" + xc[6:]]}
    if hue:
        hc = analysis.sweep_column(df, hue, "param:")
        cols[hue] = df[hc]
        cols[f"{hue} (value)"] = df["value:" + hc[6:]]
    cols[y] = df[yc]
    import pandas as pd

    out = pd.DataFrame(cols)[df["status"] == "ok"]
    keys = ([f"{hue} (value)", hue] if hue else []) + [f"{x} (value)", x]
    return out.sort_values(keys, kind="stable").reset_index(drop=True)


def run(args):
    _output.output_kind(args.output)
    df = analysis.load_sweep(args.results)
    table = sweep_table(df, args.x, args.y, args.hue)
    skipped = int((df["status"] != "ok").sum())
    if skipped:
        print(f"{skipped} of {len(df)} points not ok (status error/pending): left out",
              file=sys.stderr)
    if table.empty:
        raise TraceError(f"{args.results}: no point with status ok")
    _output.write_table(table, args, default_digits=6)
    if _output.wants_figure(args):
        _plot(table, args)
    return 0


def _plot(table, args):
    x, y, hue = args.x, args.y, args.hue
    numeric = table[f"{x} (value)"].notna().all()
    fig, ax = _output.figure(8, 5)
    groups = table.groupby(hue, sort=False) if hue else [(None, table)]
    categories = list(dict.fromkeys(table[x]))
    for key, g in groups:
        if numeric:
            xs = g[f"{x} (value)"].to_numpy()
        else:
            xs = np.array([categories.index(v) for v in g[x]])
        ax.plot(xs, g[y].to_numpy(), marker="o", label=None if key is None else f"{hue}={key}")
    if numeric:
        ticks = np.unique(table[f"{x} (value)"].to_numpy())
        # Label every swept value only where they are spread evenly enough not to overlap.
        span = ticks[-1] - ticks[0] if len(ticks) > 1 else 0.0
        min_gap = np.min(np.diff(ticks)) if len(ticks) > 1 else 0.0
        readable = len(ticks) <= 12 and (len(ticks) < 2 or min_gap >= span / 15)
        if readable and not args.logx:
            ax.set_xticks(ticks, list(dict.fromkeys(table.sort_values(f"{x} (value)")[x])))
        ax.set_xlabel(f"{x} ({_base_unit(table[x])})" if _base_unit(table[x]) else x)
    else:
        ax.set_xticks(range(len(categories)), categories)
        ax.set_xlabel(x)
    if args.logx:
        ax.set_xscale("log")
    if args.logy:
        ax.set_yscale("log")
    y_name = y[len("metric:"):] if y.startswith("metric:") else y
    ax.set_ylabel(y_name)
    ax.set_title(f"{y_name} over {x}" + (f" by {hue}" if hue else ""))
    ax.grid(alpha=0.3)
    if hue:
        ax.legend(fontsize=9)
    _output.save_figure(fig, args.output)


def _base_unit(values):
    """The base unit parse_quantity converted to, from the units the values were written in."""
    import re

    units = {re.sub(r"^[-+.\deE\s]*", "", str(v)) for v in values}
    for base, names in (("Hz", ("Hz", "kHz", "MHz", "GHz")), ("s", ("s", "ms", "us", "ns")),
                        ("B", ("B", "KiB", "MiB", "GiB", "kB", "MB", "GB"))):
        if units and units <= set(names):
            return base
    return ""
