"""`nmsim-trace breakdown TRACE.h5`: where the time goes.

SpiNNaker2 DNN runs: per-entry runtime (setup, each layer, cleanup) averaged over inferences,
with the per-worker split into DMA load, compute and the rest; bar plot.
BrainScaleS-2 runs: the time split of the FPGA executions and the spike rate per population and
run; bar plots.
"""

import numpy as np

from .. import analysis
from ..reader import TraceError, load
from . import _output


def register(subparsers):
    p = subparsers.add_parser(
        "breakdown", help="per-layer runtime (DNN) or time split and rates (BSS-2)",
        description="SpiNNaker2 DNN trace: per-layer runtime averaged over inferences, per "
                    "worker split into DMA load / compute / other. BrainScaleS-2 trace: FPGA "
                    "time split and spike rate per population and run.")
    p.add_argument("trace", metavar="TRACE.h5", help="trace file written by nmsim")
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


def _dnn(t, args):
    table = analysis.dnn_breakdown(t)
    table = table.drop(columns=["entry"])
    table["share"] = 100.0 * table["share"]
    table = table.rename(columns={"share": "share_%"})
    total = table["mean_us"].sum()
    _output.write_table(table, args, digits={"share_%": 1},
                        title=f"runtime per inference (mean of {int(table['inferences'].max())} "
                              f"inferences), total {total:.3f} us")
    if _output.wants_figure(args):
        fig, ax = _output.figure(9, 0.55 * len(table) + 1.8)
        y = np.arange(len(table))[::-1]
        load = table["load_us"].fillna(0).to_numpy()
        comp = table["compute_us"].fillna(0).to_numpy()
        rest = table["mean_us"].to_numpy() - load - comp
        ax.barh(y, load, color="#4c72b0", label="DMA load (per worker)")
        ax.barh(y, comp, left=load, color="#dd8452", label="compute (per worker)")
        ax.barh(y, rest, left=load + comp, color="#c7c7c7",
                label="rest of the interval (signalling, waits, setup)")
        for yi, m, w in zip(y, table["mean_us"], table["workers"]):
            ax.text(m, yi, f" {m:.1f} us ({int(w)} w)", va="center", fontsize=9)
        ax.set_yticks(y, table["name"])
        ax.set_xlabel("mean time per inference (us)")
        ax.set_xlim(0, table["mean_us"].max() * 1.25)
        ax.set_title(f"{t.attrs.get('scenario_name', '')}: runtime per layer, "
                     f"total {total:.1f} us")
        ax.legend(loc="lower right", fontsize=9)
        ax.grid(axis="x", alpha=0.3)
        _output.save_figure(fig, args.output)
    return 0


def _bss2(t, args):
    split = analysis.bss2_time_split(t)
    rates = analysis.spike_rates(t)
    split_t = split.assign(share=100.0 * split["share"]).rename(columns={"share": "share_%"})
    kind = _output.output_kind(args.output)
    if kind == "csv":
        # One CSV: the time split rows, then the rate rows (section column tells them apart).
        import pandas as pd

        a = split_t.assign(section="time split")
        b = rates.assign(section="rates")
        pd.concat([a, b], ignore_index=True, sort=False).to_csv(args.output, index=False,
                                                                float_format="%.17g")
        return 0
    if not (kind == "figure" and args.quiet):
        total = split["duration_us"].sum()
        print(f"time split of the FPGA executions, total {total:.3f} us")
        print(_output.format_table(split_t, {"share_%": 1}))
        print()
        print(f"spike rates per run and population (Hz per neuron, runs of "
              f"{analysis.runtime_us(t):g} us)")
        print(_output.format_table(rates, {"rate_hz": 1}))
    if kind == "figure":
        fig, (ax0, ax1) = _output.figure(11, 4.5, ncols=2,
                                         gridspec_kw={"width_ratios": [1, 1.6]})
        colors = ["#8172b3", "#937860", "#55a868", "#c44e52"]
        left = 0.0
        for (phase, dur), c in zip(split[["phase", "duration_us"]].itertuples(index=False),
                                   colors):
            ax0.barh([0], [dur], left=left, color=c, label=f"{phase} ({dur:.0f} us)")
            left += dur
        ax0.set_yticks([])
        ax0.set_xlabel("simulated time (us)")
        ax0.set_title("FPGA execution time split")
        ax0.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), fontsize=9)
        for (direction, name), g in rates.groupby(["direction", "population_name"]):
            ax1.plot(g["run"], g["rate_hz"] / 1e3, marker="o",
                     linestyle="--" if direction == "input" else "-",
                     label=f"{direction}: {name}")
        ax1.set_xlabel("run")
        ax1.set_ylabel("rate per neuron (kHz, hardware time)")
        ax1.set_title("spike rates per population")
        ax1.grid(alpha=0.3)
        ax1.legend(fontsize=9)
        if not rates.empty:
            ax1.set_xticks(sorted(rates["run"].unique()))
        fig.suptitle(t.attrs.get("scenario_name", ""))
        _output.save_figure(fig, args.output)
    return 0
