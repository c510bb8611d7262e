"""Plots of nmsim traces (matplotlib), the figures of the `nmsim-trace` commands.

Every function draws into ``ax`` (a matplotlib Axes) or, when ax is None, into a new figure sized
for the content, and returns the Axes; so they work in Jupyter and inside a figure of your own:

    import matplotlib.pyplot as plt
    import nmsim_trace
    from nmsim_trace import plots

    t = nmsim_trace.load("mlp.h5")
    fig, (a, b) = plt.subplots(1, 2, figsize=(14, 4))
    plots.breakdown(t, ax=a)
    plots.energy(t, ax=b, by="phase", log=True)
    plots.timeline(t, inference=3).figure.savefig("inference3.png")

SpiNNaker2 DNN runs: breakdown, timeline
BrainScaleS-2 runs:  bss2_time_split, bss2_rates, timeline (FPGA phases), raster, membrane
Both:                energy
Sweeps:              sweep
"""

import numpy as np
import pandas as pd

from . import analysis
from .reader import TraceError
from .units import display_scale, human

_C_LOAD, _C_COMPUTE, _C_REST = "#4c72b0", "#dd8452", "#c7c7c7"
_C_ACTIVE, _C_SLEEP, _C_FAULT = "#55a868", "#e4e4e4", "#d62728"
_LANES = [("layer", "layers"), ("dma", "DMA"), ("mla_ops", "MLA"), ("core", "core")]
_KIND_COLORS = {"dma": _C_LOAD, "mla_ops": _C_COMPUTE, "active": _C_ACTIVE, "sleep": _C_SLEEP}
_FPGA_COLORS = {"program transfer": "#8172b3", "configuration and runs": "#55a868",
                "read-back": "#c44e52"}


def _axes(ax, width, height):
    """ax, or the Axes of a new figure of width x height inches."""
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(figsize=(width, height))
    return ax


def _title(trace, text):
    name = trace.attrs.get("scenario_name", "")
    return f"{name}: {text}" if name else text


def _label(name, unit):
    return f"{name} ({unit})" if unit else name


# ------------------------------------------------------------------------------------------------
# SpiNNaker2 DNN


def breakdown(trace, ax=None, table=None):
    """DNN runtime per entry (mean per inference): horizontal bars split into the workers' DMA
    load, compute and the rest of the interval, one bar per entry (setup, layers by their ONNX
    names, cleanup) and one for the time between entries; the bars add up to the report's
    Total. table: a precomputed analysis.dnn_breakdown(trace)."""
    table = analysis.dnn_breakdown(trace) if table is None else table
    ax = _axes(ax, 9, 0.55 * len(table) + 1.8)
    y = np.arange(len(table))[::-1]
    load = table["load_us"].fillna(0).to_numpy()
    comp = table["compute_us"].fillna(0).to_numpy()
    rest = table["mean_us"].to_numpy() - load - comp
    ax.barh(y, load, color=_C_LOAD, label="DMA load (per worker)")
    ax.barh(y, comp, left=load, color=_C_COMPUTE, label="compute (per worker)")
    ax.barh(y, rest, left=load + comp, color=_C_REST,
            label="rest of the interval (signalling, waits, setup)")
    for yi, m, w, name in zip(y, table["mean_us"], table["workers"], table["name"]):
        who = f" ({int(w)} w)" if name != analysis.BETWEEN_ENTRIES else ""
        ax.text(m, yi, f" {m:.1f} us{who}", va="center", fontsize=9)
    ax.set_yticks(y, table["name"])
    ax.set_xlabel("mean time per inference (us)")
    ax.set_xlim(0, table["mean_us"].max() * 1.3)
    total = table.attrs.get("total_us", float(table["mean_us"].sum()))
    n = table.attrs.get("inferences", int(table["inferences"].max()))
    ax.set_title(_title(trace, f"runtime per entry, mean of {n} inferences, Total {total:.1f} us"))
    ax.legend(loc="lower right", fontsize=9)
    ax.grid(axis="x", alpha=0.3)
    return ax


def _layer_colors(names):
    import matplotlib

    names = list(dict.fromkeys(names))
    # tab10 without blue, orange, green, red and grey (DMA, MLA, active, fault, asleep), then
    # the light variants of the same hues from tab20: 10 colours.
    t10, t20 = matplotlib.colormaps["tab10"].colors, matplotlib.colormaps["tab20"].colors
    colors = [t10[i] for i in (4, 5, 6, 8, 9)] + [t20[i] for i in (9, 11, 13, 17, 19)]
    return {n: colors[i % len(colors)] for i, n in enumerate(names)}


def timeline(trace, ax=None, start_us=None, end_us=None, pes=None, inference=None,
             everything=False, table=None):
    """Gantt chart of a trace. SpiNNaker2: one group of lanes per PE: the DNN entries and worker
    layers (named), DMA transfers, MLA operations, and the core (green while active, grey while
    asleep); processor faults as red markers on the core lane. BrainScaleS-2: the FPGA phases.

    The window: start_us/end_us if given; else one inference of a DNN run (inference, default
    the first); everything=True shows the whole run. table: a precomputed
    analysis.timeline_intervals(...) (the arguments above are then ignored)."""
    if table is None:
        table = analysis.timeline_intervals(trace, start_us, end_us, pes, inference, everything)
    if table.empty:
        raise TraceError(f"{trace.path}: no intervals in the window/PE selection")
    if (table["kind"] == "fpga").all():
        return _fpga_timeline(trace, table, ax)
    df = table[table["kind"] != "fpga"]
    lo, hi = table.attrs["window"]
    pes_shown = sorted(df["pe"].unique())
    ax = _axes(ax, 12, 0.9 * len(pes_shown) + 1.8)
    layer_names = [n for n in df.loc[df["kind"] == "layer", "name"]]
    cmap = _layer_colors(layer_names)
    lane_h = 0.8
    width = max(hi - lo, 1e-9)
    yticks, ylabels = [], []
    for row, pe in enumerate(reversed(pes_shown)):
        base = row * (len(_LANES) + 0.6)
        g = df[df["pe"] == pe]
        for lane, (kind, label) in enumerate(_LANES):
            y = base + (len(_LANES) - 1 - lane)
            kinds = ("active", "sleep") if kind == "core" else (kind,)
            sel = g[g["kind"].isin(kinds)]
            if not sel.empty:
                s = np.clip(sel["start_us"].to_numpy(float), lo, hi)
                e = np.clip(sel["end_us"].to_numpy(float), lo, hi)
                spans = list(zip(s, np.maximum(e - s, width * 2e-4)))
                if kind == "layer":
                    colors = [cmap[n] for n in sel["name"]]
                else:
                    colors = [_KIND_COLORS[k] for k in sel["kind"]]
                ax.broken_barh(spans, (y - lane_h / 2, lane_h), facecolors=colors,
                               edgecolor="none")
                if kind == "layer":
                    for a, b, n in zip(s, e, sel["name"]):
                        if b - a > width * 0.06:
                            ax.text((a + b) / 2, y, n, ha="center", va="center", fontsize=7,
                                    clip_on=True)
            if kind == "core":
                f = g[g["kind"] == "fault"]
                for t_us, n in zip(f["start_us"], f["name"]):
                    ax.plot([t_us], [y], marker="X", markersize=11, color=_C_FAULT,
                            markeredgecolor="k", zorder=5, clip_on=False)
                    right = t_us > lo + 0.6 * width
                    ax.annotate(n, (t_us, y), xytext=(-6 if right else 6, 9),
                                textcoords="offset points", ha="right" if right else "left",
                                fontsize=8, color=_C_FAULT)
            yticks.append(y)
            ylabels.append(f"pe{pe} {label}" if lane == 0 else label)
    ax.set_yticks(yticks, ylabels, fontsize=7)
    ax.set_xlim(lo, hi)
    ax.set_xlabel("simulated time (us)")
    what = table.attrs.get("what", "")
    ax.set_title(_title(trace, f"timeline {lo:.1f}..{hi:.1f} us" + (f" ({what})" if what
                                                                      else "")))
    import matplotlib.lines as mlines
    import matplotlib.patches as mpatches

    handles = [mpatches.Patch(color=c, label=n) for n, c in cmap.items()]
    handles += [mpatches.Patch(color=_KIND_COLORS[k], label=lbl) for k, lbl in
                (("dma", "DMA transfer"), ("mla_ops", "MLA operation"),
                 ("active", "core active"), ("sleep", "core asleep"))]
    if (df["kind"] == "fault").any():
        handles.append(mlines.Line2D([], [], color=_C_FAULT, marker="X", linestyle="none",
                                     markeredgecolor="k", label="fault"))
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)
    ax.grid(axis="x", alpha=0.3)
    return ax


def _fpga_timeline(trace, df, ax):
    ax = _axes(ax, 11, 2.6)
    for r in df.itertuples(index=False):
        ax.broken_barh([(r.start_us, r.duration_us)], (0.6, 0.8),
                       facecolors=_FPGA_COLORS.get(r.name, "#999999"))
        ax.text(r.start_us + r.duration_us / 2, 1.0, f"{r.name}\n{r.duration_us:.0f} us",
                ha="center", va="center", fontsize=9)
    ph = analysis.fpga_phases(trace)
    realtime = ph.drop_duplicates("execution")["realtime_us"].sum()
    runs = ph.drop_duplicates("execution")["runs"].sum()
    ax.set_yticks([1.0], ["FPGA"])
    ax.set_xlabel("simulated time (us)")
    ax.set_title(_title(trace, f"FPGA phases ({int(runs)} realtime runs, {realtime:.0f} us of "
                               "realtime inside 'configuration and runs')"))
    ax.set_xlim(df["start_us"].min(), df["end_us"].max())
    ax.grid(axis="x", alpha=0.3)
    return ax


# ------------------------------------------------------------------------------------------------
# BrainScaleS-2


def bss2_time_split(trace, ax=None):
    """The time split of the FPGA executions as one stacked bar: program transfer,
    configuration writes, realtime runs, read-back."""
    split = analysis.bss2_time_split(trace)
    ax = _axes(ax, 6, 2.8)
    colors = ["#8172b3", "#937860", "#55a868", "#c44e52"]
    left = 0.0
    for (phase, dur), c in zip(split[["phase", "duration_us"]].itertuples(index=False), colors):
        ax.barh([0], [dur], left=left, color=c, label=f"{phase} ({dur:.0f} us)")
        left += dur
    ax.set_yticks([])
    ax.set_xlabel("simulated time (us)")
    ax.set_title("FPGA execution time split")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.25), fontsize=9)
    return ax


def bss2_rates(trace, ax=None, x="auto", logx=False, rates=None):
    """Mean rate per neuron of every population (dashed: external inputs, solid: on-chip
    neurons) over the runs' configured input rate; x="run" (or "auto" when the runs do not each
    have one input rate) plots over the run index instead. rates: a precomputed
    analysis.bss2_rates(trace)."""
    rates = analysis.bss2_rates(trace) if rates is None else rates
    ax = _axes(ax, 7, 4.5)
    by_rate = x == "rate" or (x == "auto" and len(rates) and
                              np.isfinite(rates["input_rate_hz"].to_numpy(float)).all())
    if x == "rate" and not np.isfinite(rates["input_rate_hz"].to_numpy(float)).all():
        raise TraceError(f"{trace.path}: not every run has one input rate (plot over the run)")
    for (kind, name), g in rates.groupby(["kind", "population_name"], sort=False):
        g = g.sort_values("input_rate_hz" if by_rate else "run")
        xs = g["input_rate_hz"].to_numpy(float) / 1e3 if by_rate else g["run"].to_numpy()
        ax.plot(xs, g["rate_hz"] / 1e3, marker="o", linestyle="--" if kind == "external" else "-",
                label=f"{name} ({kind})" if kind else name)
    if by_rate:
        ax.set_xlabel("configured input rate per source (kHz, hardware time)")
        if logx:
            ax.set_xscale("log")
    else:
        ax.set_xlabel("run")
        if len(rates):
            ax.set_xticks(sorted(rates["run"].unique()))
    ax.set_ylabel("rate per neuron (kHz, hardware time)")
    ax.set_title(_title(trace, "spike rates per population"))
    ax.grid(alpha=0.3)
    ax.legend(fontsize=9)
    return ax


def _run_layout(trace, runs, run):
    """(runs shown, {run: x offset}) for plots that put several runs on one axis."""
    runs = [int(run)] if run is not None else sorted(int(r) for r in runs)
    span = analysis.runtime_us(trace)
    return runs, {r: i * span * 1.05 for i, r in enumerate(runs)}, span


def _mark_runs(ax, runs, offsets, span):
    if len(runs) < 2:
        ax.set_xlim(offsets[runs[0]], offsets[runs[0]] + span)
        return
    for r in runs:
        ax.axvspan(offsets[r] + span, offsets[r] + span * 1.05, color="#f0f0f0", zorder=0)
        ax.text(offsets[r] + span / 2, 1.0, f"run {r}", transform=ax.get_xaxis_transform(),
                ha="center", va="bottom", fontsize=8)
    ax.set_xlim(offsets[runs[0]], offsets[runs[-1]] + span)


def raster(trace, ax=None, run=None, which="both", spikes=None):
    """Spike raster: x time since the run's start, y the global neuron index (populations stacked
    in network order, labelled), one colour per population. run=None puts all runs side by side
    on one axis; which: "both", "output" or "input". spikes: a precomputed table with the
    columns of analysis.spikes (plus direction)."""
    import matplotlib

    if spikes is None:
        frames = []
        for w in (("output", "input") if which == "both" else (which,)):
            if which == "both" and not trace.has_table(f"events/bss2_{w}_spikes"):
                continue
            frames.append(analysis.spikes(trace, w, run).assign(direction=w))
        if not frames:
            raise TraceError(f"{trace.path}: trace has no BrainScaleS-2 spike tables")
        spikes = pd.concat(frames, ignore_index=True)
    elif run is not None:
        spikes = spikes[spikes["run"] == int(run)]
    pops = analysis.populations(trace)
    ax = _axes(ax, 8, 4)
    runs, offsets, span = _run_layout(trace, spikes["run"].unique() if len(spikes) else [0], run)
    palette = matplotlib.colormaps["tab10"].colors
    color = {int(p): palette[i % len(palette)] for i, p in enumerate(pops["id"])}
    marker = 2.0 if len(spikes) / max(len(runs), 1) < 3000 else 0.8
    for p, gp in spikes.groupby("population"):
        xs = gp["t_us"].to_numpy() + gp["run"].map(offsets).fillna(0).to_numpy()
        ax.scatter(xs, gp["global_neuron"], s=marker, marker="|", color=color.get(int(p), "k"),
                   linewidths=0.8, rasterized=True)
    total = int(pops["size"].sum()) or (int(spikes["global_neuron"].max()) + 1 if len(spikes)
                                        else 1)
    ax.set_ylim(-0.5, total - 0.5)
    for off in pops["offset"].iloc[1:]:
        ax.axhline(off - 0.5, color="k", linewidth=0.4, alpha=0.5)
    centers = pops["offset"] + pops["size"] / 2 - 0.5
    labels = [f"{n} ({k})" if k else n for n, k in zip(pops["name"], pops["kind"])]
    ax.set_yticks(centers, labels, fontsize=8)
    ax.set_ylabel("neuron (by population)")
    _mark_runs(ax, runs, offsets, span)
    ax.set_xlabel("time since the run's start (us)" if len(runs) == 1 else
                  "time since each run's start (us), runs side by side")
    if len(runs) == 1:
        n_out = int((spikes["direction"] == "output").sum()) if "direction" in spikes else 0
        n_in = int((spikes["direction"] == "input").sum()) if "direction" in spikes else 0
        ax.set_title(f"run {runs[0]}: {n_out} out, {n_in} in", fontsize=9)
    return ax


def membrane(trace, ax=None, run=None):
    """The MADC membrane voltage (mV) over time since the run's start; recorded spikes of the
    sampled neuron marked. run=None puts all runs side by side on one axis."""
    df = analysis.membrane(trace, run)
    if df.empty:
        raise TraceError(f"{trace.path}: no MADC samples" + (f" in run {run}" if run is not None
                                                             else ""))
    ax = _axes(ax, 11, 2.5)
    runs, offsets, span = _run_layout(trace, df["run"].unique(), run)
    madc = analysis.scenario(trace).get("workload", {}).get("bss2", {}).get("madc", {})
    out = analysis.spikes(trace, "output") if trace.has_table("events/bss2_output_spikes") \
        else None
    for r in runs:
        g = df[df["run"] == r]
        ax.plot(g["t_us"] + offsets[r], g["v_mV"], linewidth=0.6, color="#4c72b0")
        if out is not None and madc and len(g):
            s = out[(out["run"] == r) & (out["population_name"] == madc.get("population")) &
                    (out["neuron"] == int(madc.get("neuron", -1)))]
            if len(s):
                ax.plot(s["t_us"] + offsets[r], [g["v_mV"].max()] * len(s), "|",
                        color="#c44e52", markersize=6,
                        label="recorded spikes" if r == runs[0] else None)
    _mark_runs(ax, runs, offsets, span)
    ax.set_ylabel("membrane (mV)")
    ax.set_xlabel("time since the run's start (us)")
    who = f"{madc.get('population', '?')}[{madc.get('neuron', '?')}]" if madc else "MADC"
    ax.set_title(_title(trace, f"membrane of {who} (MADC)" +
                        (f", run {runs[0]}" if len(runs) == 1 else "")), fontsize=9)
    ax.grid(alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(loc="upper right", fontsize=7)
    return ax


# ------------------------------------------------------------------------------------------------
# Energy


def energy_unit(max_j):
    """(scale, unit) for joules: the largest prefix at which max_j is at least 1."""
    for scale, unit in ((1.0, "J"), (1e3, "mJ"), (1e6, "uJ"), (1e9, "nJ")):
        if max_j * scale >= 1.0:
            return scale, unit
    return 1e12, "pJ"


def energy(trace, ax=None, by="component", family=False, top=15, exclude=(), log=False,
           table=None):
    """Energy as stacked horizontal bars, one bar per component (or family with family=True,
    or phase with by="phase"), stacked by phase (by component); the `top` largest bars, the rest
    summed as "other". exclude: glob patterns of components to leave out (e.g. "setup", the
    BrainScaleS-2 system set-up at 4.7 W, or "s2.dram*"); log=True: logarithmic energy axis,
    so that components orders of magnitude apart are all visible (the bar ends are the totals;
    on a log axis the stacked segments' widths are not proportional to their energy). table: a
    precomputed analysis.energy_table(...)."""
    if table is None:
        table = analysis.energy_table(trace, by, family or by == "phase", exclude)
    key = table.columns[0]
    stacks = [c for c in table.columns[1:] if c not in ("dynamic_j", "static_j", "total_j")]
    shown = table.head(top).copy()
    if len(table) > top:
        rest = table.iloc[top:]
        other = {c: rest[c].sum() for c in table.columns[1:]}
        other[key] = f"other ({len(rest)})"
        shown = pd.concat([shown, pd.DataFrame([other])], ignore_index=True)
    ax = _axes(ax, 10, 0.42 * len(shown) + 2.0)
    y = np.arange(len(shown))[::-1]
    left = np.zeros(len(shown))
    scale, unit = energy_unit(shown["total_j"].max())
    import matplotlib

    palette = matplotlib.colormaps["tab20"].colors
    for i, s in enumerate(stacks):
        v = shown[s].to_numpy(dtype=float) * scale
        ax.barh(y, v, left=left, color=palette[i % len(palette)], label=str(s))
        left += v
    ax.set_yticks(y, shown[key], fontsize=8)
    ax.set_xlabel(f"energy ({unit})" + (", log scale" if log else ""))
    totals = shown["total_j"].to_numpy(float) * scale
    positive = totals[totals > 0]
    if log:
        ax.set_xscale("log")
        if positive.size:
            ax.set_xlim(positive.min() / 10, positive.max() * 3)
    elif positive.size:
        ax.set_xlim(0, positive.max() * 1.15)
    for yi, v in zip(y, totals):
        if v > 0:
            ax.text(v, yi, " " + human(v / scale, "J", None), va="center", fontsize=7)
    excluded = table.attrs.get("excluded", [])
    what = f"energy by {by} (total {table['total_j'].sum() * scale:.4g} {unit}"
    what += f", without {', '.join(excluded)})" if excluded else ")"
    ax.set_title(_title(trace, what))
    if len(stacks) <= 25:
        ax.legend(title="phase" if by == "component" else "component",
                  loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)
    ax.grid(axis="x", alpha=0.3)
    return ax


# ------------------------------------------------------------------------------------------------
# Sweeps


def sweep(results, x, y, hue=None, ax=None, logx=False, logy=False, view=None):
    """A metric of a sweep over a parameter (or a metric), one line per value of `hue`.

    results: the results file (path) or an analysis.load_sweep frame. Axes carry units; swept
    PE clock parameters (pe.perf_level, pe.pl0_freq, pe.pl1_freq) are plotted at the clock each
    point ran at, read from the point traces (analysis.sweep_axis). Points whose status is not
    "ok" are left out. view: a precomputed analysis.sweep_view(...)."""
    if view is None:
        df = analysis.load_sweep(results) if isinstance(results, (str, bytes)) or \
            hasattr(results, "__fspath__") else results
        view = analysis.sweep_view(df, x, y, hue)
    table, xa, ya, ha = view["table"], view["x"], view["y"], view["hue"]
    ax = _axes(ax, 8, 5)
    xv = table["_x"].to_numpy(float)
    numeric = np.isfinite(xv).all()
    xs_scale, x_unit = display_scale(xv, xa["unit"]) if numeric else (1.0, "")
    ys_scale, y_unit = display_scale(table["_y"].to_numpy(float), ya["unit"])
    categories = list(dict.fromkeys(table["_xtick"]))
    groups = table.groupby("_hue", sort=False) if ha else [(None, table)]
    for key, g in groups:
        g = g.sort_values("_x") if numeric else g
        xs = g["_x"].to_numpy(float) * xs_scale if numeric else \
            np.array([categories.index(v) for v in g["_xtick"]])
        label = None if key is None else f"{ha['label']} = {g['_huetick'].iloc[0]}"
        ax.plot(xs, g["_y"].to_numpy(float) * ys_scale, marker="o", label=label)
    if numeric:
        ticks = table.drop_duplicates("_x").sort_values("_x")
        tv = ticks["_x"].to_numpy(float) * xs_scale
        span = tv[-1] - tv[0] if len(tv) > 1 else 0.0
        min_gap = np.min(np.diff(tv)) if len(tv) > 1 else 0.0
        readable = len(tv) <= 12 and (len(tv) < 2 or min_gap >= span / 15)
        if readable and not logx:
            ax.set_xticks(tv, ticks["_xtick"].tolist())
        ax.set_xlabel(_label(xa["label"], x_unit))
    else:
        ax.set_xticks(range(len(categories)), categories)
        ax.set_xlabel(xa["label"])
    if logx:
        ax.set_xscale("log")
    if logy:
        ax.set_yscale("log")
    ax.set_ylabel(_label(ya["label"], y_unit))
    ax.set_title(f"{ya['label']} over {xa['label']}" + (f" by {ha['label']}" if ha else ""))
    ax.grid(alpha=0.3)
    if ha:
        ax.legend(fontsize=9)
    return ax

