"""`nmsim-trace breakdown TRACE.h5`: where the time goes.

SpiNNaker2 DNN runs: per-entry runtime (setup, each layer by its ONNX name, cleanup) averaged
over inferences, with the per-worker split into DMA load, compute and the rest, and a row for the
time between entries, so that the rows add up to the report's "Total"; bar plot.
BrainScaleS-2 runs: the time split of the FPGA executions and the spike rate per population over
the runs' input rate (or the run index when runs have no single input rate); bar and line plots.
"""

import pandas as pd

from .. import analysis, plots
from ..reader import TraceError, load
from . import _output


def register(subparsers):
    p = subparsers.add_parser(
        "breakdown", help="per-layer runtime (DNN) or time split and rates (BSS-2)",
        description="SpiNNaker2 DNN trace: per-layer runtime averaged over inferences, per "
                    "worker split into DMA load / compute / other; the rows (with 'between "
                    "entries') add up to the report's Total. BrainScaleS-2 trace: FPGA time "
                    "split and spike rate per population over the runs' input rate.")
    p.add_argument("trace", metavar="TRACE.h5", help="trace file written by nmsim")
    p.add_argument("--by-run", action="store_true",
                   help="BrainScaleS-2: plot the rates over the run index even when every run "
                        "has one input rate")
    _output.add_output_args(p)
    p.set_defaults(func=run)


def run(args):
    _output.output_kind(args.output)
    with load(args.trace) as t:
        if t.has_table("dnn/entries"):
            return _dnn(t, args)
        if t.has_table("events/bss2_fpga_exec"):
            return _bss2(t, args)
        raise TraceError(f"{t.path}: nothing to break down: the trace has neither dnn/entries "
                         "(SpiNNaker2 chip DNN run) nor events/bss2_fpga_exec (BrainScaleS-2 run)")


def dnn_table(t):
    """The breakdown as the command shows it: share in %, no entry column, kind only when the
    trace names the layers' operations (dnn/layers)."""
    table = analysis.dnn_breakdown(t)
    shown = table.drop(columns=["entry"])
    if not shown["kind"].astype(bool).any():
        shown = shown.drop(columns=["kind"])
    shown["share"] = 100.0 * shown["share"]
    shown = shown.rename(columns={"share": "share_%"})
    shown.attrs.update(table.attrs)
    return table, shown


def _dnn(t, args):
    table, shown = dnn_table(t)
    total = table.attrs["total_us"]
    _output.write_table(shown, args, digits={"share_%": 1},
                        title=f"runtime per inference (mean of {table.attrs['inferences']} "
                              f"inferences); rows add up to the Total {total:.3f} us (setup "
                              "start to cleanup end, as the report)")
    if _output.wants_figure(args):
        _output.use_agg()
        ax = plots.breakdown(t, table=table)
        _output.save_figure(ax.figure, args.output)
    return 0


def _bss2(t, args):
    split = analysis.bss2_time_split(t)
    rates = analysis.bss2_rates(t)
    by_rate = not args.by_run and len(rates) and rates["input_rate_hz"].notna().all()
    rates_t = rates.copy()
    rates_t = rates_t.sort_values(["input_rate_hz", "run", "population"] if by_rate else
                                  ["run", "population"], kind="stable")
    split_t = split.assign(share=100.0 * split["share"]).rename(columns={"share": "share_%"})
    kind = _output.output_kind(args.output)
    if kind == "csv":
        # One CSV: the time split rows, then the rate rows (section column tells them apart).
        a = split_t.assign(section="time split")
        b = rates_t.assign(section="rates")
        try:
            pd.concat([a, b], ignore_index=True, sort=False).to_csv(
                args.output, index=False, float_format="%.17g")
        except OSError as e:
            raise TraceError(f"{args.output}: cannot write the table: {e}") from e
        return 0
    if not (kind == "figure" and args.quiet):
        total = split["duration_us"].sum()
        print(f"time split of the FPGA executions, total {total:.3f} us")
        print(_output.format_table(split_t, {"share_%": 1}))
        print()
        order = "by input rate" if by_rate else "by run (the runs have no single input rate)" \
            if not args.by_run else "by run"
        print(f"spike rates per run and population (Hz per neuron, runs of "
              f"{analysis.runtime_us(t):g} us; {order})")
        print(_output.format_table(rates_t, {"rate_hz": 1, "input_rate_hz": 0}))
    if kind == "figure":
        _output.use_agg()
        fig, (ax0, ax1) = _output.figure(12, 4.5, ncols=2, gridspec_kw={"width_ratios": [1, 1.6]})
        plots.bss2_time_split(t, ax=ax0)
        plots.bss2_rates(t, ax=ax1, x="run" if args.by_run else "auto", rates=rates)
        _output.save_figure(fig, args.output)
    return 0
