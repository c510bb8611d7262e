"""`nmsim-trace timeline TRACE.h5`: per-PE Gantt chart (SpiNNaker2) or FPGA phases (BSS-2).

SpiNNaker2: for every PE one row with four lanes: DNN layer intervals (the scheduler's entries on
its PE, the workers' layers on theirs), DMA transfers, MLA operations and core sleep.
The table lists the same intervals (kind, pe, component, name, start_us, end_us, duration_us).
"""

import numpy as np
import pandas as pd

from .. import analysis
from ..reader import TraceError, load
from . import _output

_LANES = [("layer", "layers"), ("dma", "DMA"), ("mla_ops", "MLA"), ("sleep", "sleep")]
_COLORS = {"dma": "#4c72b0", "mla_ops": "#dd8452", "sleep": "#d0d0d0"}


def add_window_args(p):
    p.add_argument("--start", type=float, metavar="US", help="window start (us of simulated time)")
    p.add_argument("--end", type=float, metavar="US", help="window end (us of simulated time)")
    p.add_argument("--pes", metavar="LIST", help="only these PEs, e.g. '0-3,8'")


def check_window(args):
    if args.start is not None and args.end is not None and args.end <= args.start:
        raise TraceError(f"--end ({args.end}) must be after --start ({args.start})")


def register(subparsers):
    p = subparsers.add_parser(
        "timeline", help="per-PE Gantt chart of layers, DMA, MLA and sleep (or BSS-2 FPGA phases)",
        description="SpiNNaker2: one row per PE with lanes for DNN layers, DMA transfers, MLA "
                    "operations and sleep. BrainScaleS-2: the FPGA execution phases. Without "
                    "--start/--end a DNN trace shows its inferences (first entry to last), other "
                    "traces all their events.")
    p.add_argument("trace", metavar="TRACE.h5", help="trace file written by nmsim")
    add_window_args(p)
    _output.add_output_args(p)
    p.set_defaults(func=run)


def timeline_table(t, start=None, end=None, pes=None):
    """All intervals shown by the timeline, as one DataFrame (kind, pe, component, name,
    start_us, end_us, duration_us), filtered to the window and PEs."""
    frames = []
    iv = analysis.intervals(t)
    if not iv.empty:
        names = {"dma": "DMA", "mla_ops": "MLA", "sleep": "sleep"}
        frames.append(pd.DataFrame({"kind": iv["kind"], "pe": iv["pe"],
                                    "component": iv["component_name"],
                                    "name": iv["kind"].map(names),
                                    "start_us": iv["start_us"], "end_us": iv["end_us"]}))
    has_dnn = t.has_table("dnn/entries") and len(t.table("dnn/entries")) > 0
    if has_dnn:
        e = analysis.dnn_entries(t)
        sched = int(analysis.scenario(t).get("workload", {}).get("dnn", {})
                    .get("scheduler_pe", 0))
        frames.append(pd.DataFrame({"kind": "layer", "pe": sched,
                                    "component": f"s2.pe{sched}.core",
                                    "name": [f"{n} (inf {i})" for n, i in
                                             zip(e["name"], e["inference"])],
                                    "start_us": e["start_us"], "end_us": e["end_us"]}))
        if t.has_table("dnn/workers"):
            w = analysis.worker_times(t)
            frames.append(pd.DataFrame({"kind": "layer", "pe": w["pe"],
                                        "component": [f"s2.pe{p}.core" for p in w["pe"]],
                                        "name": [f"layer {l} (inf {i})" for l, i in
                                                 zip(w["layer"], w["inference"])],
                                        "start_us": w["start_us"], "end_us": w["end_us"]}))
    if t.has_table("events/bss2_fpga_exec"):
        ph = analysis.fpga_phases(t)
        frames.append(pd.DataFrame({"kind": "fpga", "pe": -1, "component": ph["component_name"],
                                    "name": ph["phase"], "start_us": ph["start_us"],
                                    "end_us": ph["end_us"]}))
    if not frames:
        raise TraceError(f"{t.path}: no intervals to show (no dma, mla_ops, sleep, dnn or "
                         "bss2_fpga_exec rows)")
    df = pd.concat(frames, ignore_index=True)
    if start is None and end is None and has_dnn:
        e = analysis.dnn_entries(t)
        start, end = float(e["start_us"].min()), float(e["end_us"].max())
    df = analysis.in_window(df, start, end)
    if pes is not None:
        df = df[df["pe"].isin(pes)]
    df = df.assign(duration_us=df["end_us"] - df["start_us"])
    df = df.sort_values(["pe", "kind", "start_us"], kind="stable").reset_index(drop=True)
    df.attrs["window"] = (start if start is not None else float(df["start_us"].min()),
                          end if end is not None else float(df["end_us"].max()))
    return df


def run(args):
    _output.output_kind(args.output)
    check_window(args)
    pes = analysis.parse_pes(args.pes)
    with load(args.trace) as t:
        df = timeline_table(t, args.start, args.end, pes)
        if df.empty:
            raise TraceError(f"{t.path}: no intervals in the window/PE selection")
        _output.write_table(df, args, digits={"start_us": 3, "end_us": 3, "duration_us": 3})
        if _output.wants_figure(args):
            lo, hi = df.attrs["window"]
            if (df["kind"] == "fpga").all():
                _plot_fpga(t, df, args.output)
            else:
                _plot_pes(t, df[df["kind"] != "fpga"], lo, hi, args.output)
    return 0


def _plot_pes(t, df, lo, hi, path):
    pes = sorted(df["pe"].unique())
    lane_h = 0.8
    fig, ax = _output.figure(12, 0.9 * len(pes) + 1.8)
    cmap = _layer_colors(df)
    yticks, ylabels = [], []
    for row, pe in enumerate(reversed(pes)):
        base = row * (len(_LANES) + 0.6)
        g = df[df["pe"] == pe]
        for lane, (kind, label) in enumerate(_LANES):
            y = base + (len(_LANES) - 1 - lane)
            sel = g[g["kind"] == kind]
            if not sel.empty:
                s = np.clip(sel["start_us"].to_numpy(), lo, hi)
                e = np.clip(sel["end_us"].to_numpy(), lo, hi)
                spans = list(zip(s, np.maximum(e - s, (hi - lo) * 2e-4)))
                if kind == "layer":
                    colors = [cmap[n.split(" (")[0]] for n in sel["name"]]
                else:
                    colors = _COLORS[kind]
                ax.broken_barh(spans, (y - lane_h / 2, lane_h), facecolors=colors,
                               edgecolor="none")
            yticks.append(y)
            ylabels.append(f"pe{pe} {label}" if lane == 0 else label)
    ax.set_yticks(yticks, ylabels, fontsize=7)
    ax.set_xlim(lo, hi)
    ax.set_xlabel("simulated time (us)")
    ax.set_title(f"{t.attrs.get('scenario_name', '')}: timeline {lo:.1f}..{hi:.1f} us")
    import matplotlib.patches as mpatches

    handles = [mpatches.Patch(color=c, label=n) for n, c in cmap.items()]
    handles += [mpatches.Patch(color=_COLORS[k], label=lbl) for k, lbl in
                (("dma", "DMA transfer"), ("mla_ops", "MLA operation"), ("sleep", "core sleep"))]
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)
    ax.grid(axis="x", alpha=0.3)
    _output.save_figure(fig, path)


def _layer_colors(df):
    import matplotlib

    names = sorted({n.split(" (")[0] for n in df.loc[df["kind"] == "layer", "name"]},
                   key=lambda n: (n != "setup", n == "cleanup", n))
    palette = matplotlib.colormaps["tab10"].colors
    skip = {0, 1, 7}  # blue, orange and grey are DMA, MLA and sleep
    colors = [c for i, c in enumerate(palette) if i not in skip]
    return {n: colors[i % len(colors)] for i, n in enumerate(names)}


def _plot_fpga(t, df, path):
    fig, ax = _output.figure(11, 2.6)
    colors = {"program transfer": "#8172b3", "configuration and runs": "#55a868",
              "read-back": "#c44e52"}
    for r in df.itertuples(index=False):
        ax.broken_barh([(r.start_us, r.duration_us)], (0.6, 0.8),
                       facecolors=colors.get(r.name, "#999999"))
        ax.text(r.start_us + r.duration_us / 2, 1.0, f"{r.name}\n{r.duration_us:.0f} us",
                ha="center", va="center", fontsize=9)
    ph = analysis.fpga_phases(t)
    realtime = ph.drop_duplicates("execution")["realtime_us"].sum()
    runs = ph.drop_duplicates("execution")["runs"].sum()
    ax.set_yticks([1.0], ["FPGA"])
    ax.set_xlabel("simulated time (us)")
    ax.set_title(f"{t.attrs.get('scenario_name', '')}: FPGA phases ({int(runs)} realtime runs, "
                 f"{realtime:.0f} us of realtime inside 'configuration and runs')")
    ax.set_xlim(df["start_us"].min(), df["end_us"].max())
    ax.grid(axis="x", alpha=0.3)
    _output.save_figure(fig, path)
