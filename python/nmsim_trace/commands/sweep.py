"""`nmsim-trace sweep RESULTS.h5 --x PARAM --y METRIC [--hue PARAM]`: plot a sweep's results.

RESULTS is the sweep's /results table (HDF5) or its CSV twin. x and hue name parameters (or
metrics, e.g. a measured clock); values become numbers where possible (analysis.parse_quantity:
"300MHz" -> 3e8 Hz) and carry their unit (from the point traces' /config/params, the written
value, or the results' `units` attribute for metrics); otherwise they are categories. Swept PE
clock parameters (pe.perf_level, pe.pl0_freq, pe.pl1_freq) are shown at the clock each point ran
at, read from the point traces (<results dir>/points/<point>.h5). Points whose status is not "ok"
are left out and counted.
"""

import sys

from .. import analysis, plots
from ..reader import TraceError
from . import _output


def register(subparsers):
    p = subparsers.add_parser(
        "sweep", help="plot a sweep results table (metric over a parameter)",
        description="Plot (or tabulate) one metric of a sweep over one parameter (or metric), "
                    "one line per value of an optional second parameter. Axes carry units; "
                    "PE clock parameters are shown at the clock each point ran at.")
    p.add_argument("results", metavar="RESULTS.h5", help="sweep results (HDF5 or CSV)")
    p.add_argument("--x", required=True, metavar="PARAM",
                   help="parameter on the x axis (or a metric, if no parameter has that name)")
    p.add_argument("--y", required=True, metavar="METRIC", help="metric on the y axis")
    p.add_argument("--hue", metavar="PARAM", help="one line per value of this parameter")
    p.add_argument("--logx", action="store_true", help="logarithmic x axis")
    p.add_argument("--logy", action="store_true", help="logarithmic y axis")
    _output.add_output_args(p)
    p.set_defaults(func=run)


def sweep_table(df, x, y, hue=None):
    """The rows of an x/y(/hue) view of a sweep (analysis.sweep_view, without its helper
    columns): point, x as written, x's real value, [hue, hue's real value], y."""
    view = analysis.sweep_view(df, x, y, hue)
    return view["table"][[c for c in view["table"].columns if not c.startswith("_")]]


def run(args):
    _output.output_kind(args.output)
    df = analysis.load_sweep(args.results)
    view = analysis.sweep_view(df, args.x, args.y, args.hue)
    table = view["table"]
    if view["skipped"]:
        print(f"{view['skipped']} of {len(df)} points not ok (status error/pending): left out",
              file=sys.stderr)
    for note in view["notes"]:
        print(f"nmsim-trace: note: {note}", file=sys.stderr)
    if table.empty:
        raise TraceError(f"{args.results}: no point with status ok")
    shown = table[[c for c in table.columns if not c.startswith("_")]]
    _output.write_table(shown, args, default_digits=3)
    if _output.wants_figure(args):
        _output.use_agg()
        ax = plots.sweep(df, args.x, args.y, args.hue, logx=args.logx, logy=args.logy,
                         view=view)
        _output.save_figure(ax.figure, args.output)
    return 0
