"""`nmsim-trace timeline TRACE.h5`: per-PE Gantt chart (SpiNNaker2) or FPGA phases (BSS-2).

SpiNNaker2: for every PE one group of four lanes: DNN layers (the scheduler's entries on its PE,
the workers' layers on theirs, named like the report), DMA transfers, MLA operations and the core
(active or asleep), with processor faults marked on the core lane. A DNN trace shows one
inference by default (--inference N picks it, --all shows the whole run). The table lists the same
intervals (kind, pe, component, name, inference, start_us, end_us, duration_us).
"""

from .. import analysis, plots
from ..reader import TraceError, load
from . import _output


def add_window_args(p, inference_default="the first"):
    p.add_argument("--start", type=float, metavar="US", help="window start (us of simulated time)")
    p.add_argument("--end", type=float, metavar="US", help="window end (us of simulated time)")
    p.add_argument("--inference", type=int, metavar="N",
                   help=f"DNN traces: only inference N (default: {inference_default})")
    p.add_argument("--all", action="store_true", dest="everything",
                   help="the whole run (every event)")
    p.add_argument("--pes", metavar="LIST", help="only these PEs, e.g. '0-3,8'")


def check_window(args):
    if args.start is not None and args.end is not None and args.end <= args.start:
        raise TraceError(f"--end ({args.end}) must be after --start ({args.start})")


def register(subparsers):
    p = subparsers.add_parser(
        "timeline", help="per-PE Gantt chart of layers, DMA, MLA and core activity (or BSS-2 "
                         "FPGA phases)",
        description="SpiNNaker2: one group of lanes per PE for DNN layers, DMA transfers, MLA "
                    "operations and the core (active/asleep), faults marked. BrainScaleS-2: the "
                    "FPGA execution phases. A DNN trace shows one inference (the first unless "
                    "--inference N), --all the whole run, --start/--end any window; other traces "
                    "show the whole run.")
    p.add_argument("trace", metavar="TRACE.h5", help="trace file written by nmsim")
    add_window_args(p)
    _output.add_output_args(p)
    p.set_defaults(func=run)


def timeline_table(t, start=None, end=None, pes=None, inference=None, everything=False):
    """All intervals shown by the timeline (analysis.timeline_intervals)."""
    return analysis.timeline_intervals(t, start, end, pes, inference, everything)


def run(args):
    _output.output_kind(args.output)
    check_window(args)
    pes = analysis.parse_pes(args.pes)
    with load(args.trace) as t:
        df = timeline_table(t, args.start, args.end, pes, args.inference, args.everything)
        if df.empty:
            raise TraceError(f"{t.path}: no intervals in the window/PE selection")
        lo, hi = df.attrs["window"]
        what = df.attrs.get("what")
        _output.write_table(df, args, digits={"start_us": 3, "end_us": 3, "duration_us": 3},
                            title=f"timeline {lo:.3f}..{hi:.3f} us" +
                                  (f" ({what})" if what else ""))
        if _output.wants_figure(args):
            _output.use_agg()
            ax = plots.timeline(t, table=df)
            _output.save_figure(ax.figure, args.output)
    return 0
