"""Analysis of nmsim traces as pandas DataFrames (the API the `nmsim-trace` commands use).

Every function takes an open ``Trace`` (``nmsim_trace.load(path)``) and returns a DataFrame with
times in microseconds (float, columns ending in ``_us``) next to the file's integer picoseconds.
A trace that lacks what a function needs raises ``TraceError`` naming the file and the table.

SpiNNaker2 DNN runs:   dnn_layers, dnn_entries, dnn_totals, dnn_breakdown, dnn_inferences,
                       dnn_outputs, worker_times
SpiNNaker2 events:     intervals, core_activity, faults, timeline_intervals
BrainScaleS-2 runs:    populations, bss2_runs, bss2_rates, spikes, spike_rates, membrane,
                       fpga_phases, bss2_time_split
Both (when written):   energy, energy_table
Export:                chrome_trace (Chrome Trace Event Format, opens in speedscope/Perfetto)
Sweeps:                load_sweep, sweep_points, sweep_axis, sweep_view, parse_quantity

Plots of the same live in nmsim_trace.plots. Definitions (the DNN "Total", layer names, core
activity, where each value comes from in older traces) are in traces/README.md.
"""

import math
import os
import re

import numpy as np
import pandas as pd

from .reader import TraceError

PS_PER_US = 1e6
_CYCLE_WRAP = 1 << 32  # DWT CYCCNT is a 32-bit counter
_PE_RE = re.compile(r"(?:^|\.)pe(\d+)(?:\.|$)")


def _us(ps):
    return np.asarray(ps, dtype=np.float64) / PS_PER_US


def scenario(trace):
    """The resolved scenario of the run as a dict ({} if none was recorded)."""
    import yaml

    try:
        doc = yaml.safe_load(trace.config or "")
    except yaml.YAMLError as e:
        raise TraceError(f"{trace.path}: /config/resolved is not valid YAML: {e}") from e
    return doc if isinstance(doc, dict) else {}


def _require(trace, path, what):
    if not trace.has_table(path):
        raise TraceError(f"{trace.path}: trace has no {path} table ({what}; platform "
                         f"'{trace.attrs.get('platform', '?')}')")
    return trace.table(path)


def pe_of(component_name):
    """The PE index in an instance path ("s2.pe12.dma" -> 12), or -1 if the path names none."""
    m = _PE_RE.search(component_name)
    return int(m.group(1)) if m else -1


def parse_pes(text):
    """A PE filter "1-3,8" as a sorted list of ints; None for None/"" (all PEs)."""
    if not text:
        return None
    out = set()
    for part in str(text).split(","):
        part = part.strip()
        m = re.fullmatch(r"(\d+)(?:-(\d+))?", part)
        if not m:
            raise TraceError(f"--pes: expected a list like '1-3,8', got '{text}'")
        lo, hi = int(m.group(1)), int(m.group(2) or m.group(1))
        if hi < lo:
            raise TraceError(f"--pes: empty range '{part}'")
        out.update(range(lo, hi + 1))
    return sorted(out)


# ------------------------------------------------------------------------------------------------
# SpiNNaker2 DNN runs


def _unwrap_cycles(values):
    """32-bit cycle counts in time order as monotone int64 (adds 2^32 at every wrap)."""
    v = np.asarray(values, dtype=np.int64)
    steps = np.diff(v, prepend=v[:1])
    return v + _CYCLE_WRAP * np.cumsum(steps < 0)


def _sleep_times(trace, column):
    """{component name: sorted numpy array of a sleep column (ps)} from events/sleep."""
    if "sleep" not in trace.event_kinds() or trace.rows("sleep") == 0:
        return {}
    s = trace.events("sleep")
    return {name: np.sort(g[column].to_numpy(np.int64))
            for name, g in s.groupby("component_name")}


_NOT_LAYER_PHASES = ("image load", "host", "setup", "cleanup")


def _counter(trace, component, counter):
    """One summary counter's value (None if the trace lacks it)."""
    s = trace.summary()
    hit = s[(s["component"] == component) & (s["counter"] == counter)]
    return float(hit["value"].iloc[-1]) if len(hit) else None


def scheduler_pe(trace):
    """The PE that runs the DNN scheduler (workload.dnn.scheduler_pe, default 0)."""
    return int(scenario(trace).get("workload", {}).get("dnn", {}).get("scheduler_pe", 0) or 0)


def dnn_layers(trace):
    """The scheduler's list of entries, one row each: entry (0 setup, 1..L the layers in list
    order, L+1 cleanup; the index of dnn/entries.entry), layer (entry - 1; -1 for setup and
    cleanup), name, kind, workers.

    Names are the ONNX node names ("/0/Gemm", "/5/Softmax"), as the report and the energy phases
    use them, and "setup"/"cleanup". They come from the table dnn/layers; traces written before
    it existed get them from the phases of energy/breakdown (one phase per layer, in list order),
    and traces without either get "layer <i>" (i = entry - 1). ``df.attrs["source"]`` says which
    ("dnn/layers", "energy/breakdown" or "index"). kind ("linear+relu [1, 784]->[1, 512]") is ""
    when the trace has no dnn/layers.
    """
    if trace.has_table("dnn/layers") and len(trace.table("dnn/layers")):
        d = trace.table("dnn/layers").sort_values("entry", kind="stable").reset_index(drop=True)
        last = int(d["entry"].max())
        out = pd.DataFrame({"entry": d["entry"].astype(np.int64),
                            "name": d["name"].astype(str),
                            "kind": d["kind"].astype(str) if "kind" in d else "",
                            "workers": d["workers"].astype(np.int64) if "workers" in d else 0})
        source = "dnn/layers"
    else:
        e = _require(trace, "dnn/entries", "written by SpiNNaker2 chip DNN runs")
        if e.empty:
            raise TraceError(f"{trace.path}: dnn/entries has no rows (no inference finished)")
        g = e.groupby("entry", sort=True)["workers"].max()
        last = int(g.index.max())
        names = [f"layer {k - 1}" for k in range(1, last)]
        source = "index"
        if trace.has_table("energy/breakdown"):
            phases = [p for p in dict.fromkeys(trace.table("energy/breakdown")["phase"])
                      if p not in _NOT_LAYER_PHASES]
            if len(phases) == last - 1:
                names, source = phases, "energy/breakdown"
        out = pd.DataFrame({"entry": np.arange(last + 1, dtype=np.int64),
                            "name": ["setup"] + names + ["cleanup"], "kind": "",
                            "workers": g.reindex(range(last + 1), fill_value=0)
                            .to_numpy(np.int64)})
    out["layer"] = np.where((out["entry"] == 0) | (out["entry"] == last), -1, out["entry"] - 1)
    out = out[["entry", "layer", "name", "kind", "workers"]]
    out.attrs["source"] = source
    return out


def layer_names(trace):
    """{layer index: name} of a DNN run (the layers of dnn_layers, without setup and cleanup)."""
    d = dnn_layers(trace)
    d = d[d["layer"] >= 0]
    return dict(zip(d["layer"].astype(int), d["name"]))


def dnn_entries(trace):
    """The scheduler's intervals (dnn/entries): one row per inference and entry (setup, each
    layer, cleanup).

    Columns: inference, entry, name (see dnn_layers: "setup", "/0/Gemm", ..., "cleanup"), layer
    (-1 for setup and cleanup), workers, start_cycles, end_cycles, duration_ps, duration_us,
    start_us, end_us.

    The table holds the scheduler's cycle counter, which its firmware zeroes when it starts, not
    simulated time. start_us/end_us place the entries in simulated time: the clock period is the
    scheduler core's (its clock_hz counter; without it duration_ps / cycles), the counter's origin
    the scheduler core waking up (events/sleep) for the first setup; this is exact to within the
    wake-up latency (well under 1 us). ``df.attrs["anchored"]`` is False when the trace has no
    sleep events (origin taken as 0); ``df.attrs["period_ps"]`` is the clock period.
    """
    e = _require(trace, "dnn/entries", "written by SpiNNaker2 chip DNN runs")
    e = e.sort_values(["inference", "entry"], kind="stable").reset_index(drop=True)
    if e.empty:
        raise TraceError(f"{trace.path}: dnn/entries has no rows (no inference finished)")
    layers = dnn_layers(trace).set_index("entry")
    last = int(e["entry"].max())
    e["layer"] = np.where((e["entry"] == 0) | (e["entry"] == last), -1, e["entry"] - 1)
    e["name"] = [layers["name"].get(int(k), f"layer {int(k) - 1}") for k in e["entry"]]
    both = np.empty(2 * len(e), dtype=np.int64)
    both[0::2], both[1::2] = e["start_cycles"], e["end_cycles"]
    both = _unwrap_cycles(both)
    start_c, end_c = both[0::2], both[1::2]
    sched = scheduler_pe(trace)
    clock = _counter(trace, f"s2.pe{sched}.core", "clock_hz")
    if clock:
        period_ps = 1e12 / clock
    else:
        cycles = float((end_c - start_c).sum())
        period_ps = float(e["duration_ps"].sum()) / cycles if cycles > 0 else 0.0
    origin_ps, anchored = 0.0, False
    ends = _sleep_times(trace, "t_end_ps").get(f"s2.pe{sched}.core")
    if ends is not None and len(ends):
        first = start_c[0] * period_ps
        i = np.searchsorted(ends, first)
        if i < len(ends):
            origin_ps, anchored = float(ends[i]) - first, True
    e["start_us"] = (origin_ps + start_c * period_ps) / PS_PER_US
    e["end_us"] = (origin_ps + end_c * period_ps) / PS_PER_US
    e["duration_us"] = _us(e["duration_ps"])
    e.attrs["anchored"] = anchored
    e.attrs["period_ps"] = period_ps
    cols = ["inference", "entry", "name", "layer", "workers", "start_cycles", "end_cycles",
            "duration_ps", "duration_us", "start_us", "end_us"]
    return e[cols]


def dnn_totals(trace):
    """Per inference the report's "Total" and how it splits: inference, total_us (setup start to
    cleanup end on the scheduler's clock), entries_us (sum of the entries' durations),
    between_us (total_us - entries_us: the scheduler's own work between its timed entries),
    start_us, end_us (simulated time, see dnn_entries).

    total_us comes from dnn/inferences.total_ps when the trace has it, else from dnn/entries
    (cleanup end_cycles - setup start_cycles, times the clock period); the two agree to the ps.
    The mean of total_us over inferences is the report's "Total" and the metric dnn.total_us.
    """
    e = dnn_entries(trace)
    g = e.groupby("inference", sort=True)
    first = g.first()
    lastrow = g.last()
    out = pd.DataFrame({"inference": first.index.astype(np.int64)})
    start_c = first["start_cycles"].to_numpy(np.int64)
    end_c = lastrow["end_cycles"].to_numpy(np.int64)
    cycles = (end_c - start_c) % _CYCLE_WRAP
    out["total_us"] = cycles * e.attrs["period_ps"] / PS_PER_US
    if trace.has_table("dnn/inferences"):
        inf = trace.table("dnn/inferences").set_index("inference")
        tot = inf["total_ps"].reindex(out["inference"].to_numpy())
        have = tot.notna().to_numpy()
        out.loc[have, "total_us"] = tot.to_numpy(np.float64)[have] / PS_PER_US
    out["entries_us"] = g["duration_us"].sum().to_numpy()
    out["between_us"] = out["total_us"] - out["entries_us"]
    out["start_us"] = first["start_us"].to_numpy()
    out["end_us"] = out["start_us"] + out["total_us"]
    return out


def worker_times(trace):
    """The workers' records (dnn/workers): one row per inference, layer and worker.

    Columns: inference, layer, name (the layer's, see dnn_layers), worker, pe, duration_us,
    load_us (waiting for DMA), compute_us, other_us (the rest: signalling, address set-up),
    start_us, end_us.

    The table has durations only. A worker answers the scheduler when it finishes and then sleeps
    (WFI) until the next signal, which comes after the scheduler's interval of the layer ends. So
    end_us is the worker core's last sleep start (events/sleep) inside that interval, else the
    interval's end, and start_us = end_us - duration_us.
    """
    w = _require(trace, "dnn/workers", "written by SpiNNaker2 chip DNN runs")
    w = w.sort_values(["inference", "layer", "worker"], kind="stable").reset_index(drop=True)
    for c in ("duration", "load", "compute"):
        w[f"{c}_us"] = _us(w[f"{c}_ps"])
    w["other_us"] = w["duration_us"] - w["load_us"] - w["compute_us"]
    entries = dnn_entries(trace)
    names = layer_names(trace)
    w["name"] = [names.get(int(k), f"layer {int(k)}") for k in w["layer"]]
    layers = entries[entries["layer"] >= 0].set_index(["inference", "layer"])
    key = pd.MultiIndex.from_arrays([w["inference"], w["layer"]])
    lo = layers["start_us"].reindex(key).to_numpy()
    hi = layers["end_us"].reindex(key).to_numpy()
    end = hi.copy()
    starts = _sleep_times(trace, "t_start_ps")
    for pe, idx in w.groupby("pe").groups.items():
        pe_starts = starts.get(f"s2.pe{int(pe)}.core")
        if pe_starts is None:
            continue
        pe_us = pe_starts / PS_PER_US
        idx = np.asarray(idx)
        pos = np.searchsorted(pe_us, hi[idx], side="right") - 1
        ok = pos >= 0
        cand = np.where(ok, pe_us[np.maximum(pos, 0)], np.nan)
        inside = ok & (cand >= lo[idx])
        end[idx[inside]] = cand[inside]
    w["end_us"] = end
    w["start_us"] = end - w["duration_us"].to_numpy()
    return w[["inference", "layer", "name", "worker", "pe", "duration_us", "load_us",
              "compute_us", "other_us", "start_us", "end_us"]]


BETWEEN_ENTRIES = "between entries"


def dnn_breakdown(trace):
    """Per-entry runtime of a DNN run, averaged over inferences (the Table II view).

    One row per entry (setup, layers, cleanup) and a last row "between entries": entry (-1 for
    the last row), name, kind, workers, inferences, mean_us, min_us, max_us, share (of the
    total), and per worker (mean over workers and inferences) load_us, compute_us, other_us; NaN
    for setup, cleanup and "between entries", whose workers keep no record.

    The rows' mean_us sum to the report's "Total" (mean over inferences of setup start to cleanup
    end, see dnn_totals): "between entries" is the scheduler's time between its timed entries
    (signalling the next layer, bookkeeping). ``df.attrs["total_us"]`` holds that total.
    """
    e = dnn_entries(trace)
    totals = dnn_totals(trace)
    layers = dnn_layers(trace).set_index("entry")
    g = e.groupby("entry", sort=True)
    out = pd.DataFrame({
        "name": g["name"].first(),
        "kind": [layers["kind"].get(int(k), "") for k in g.groups],
        "workers": g["workers"].max(),
        "inferences": g["inference"].nunique(), "mean_us": g["duration_us"].mean(),
        "min_us": g["duration_us"].min(), "max_us": g["duration_us"].max()})
    layer = g["layer"].first()
    w = worker_times(trace) if trace.has_table("dnn/workers") else None
    for c in ("load_us", "compute_us", "other_us"):
        if w is None or w.empty:
            out[c] = np.nan
        else:
            out[c] = layer.map(w.groupby("layer")[c].mean()).astype(float)
    out = out.reset_index()
    gap = totals["between_us"]
    out.loc[len(out)] = {"entry": -1, "name": BETWEEN_ENTRIES, "kind": "", "workers": np.nan,
                         "inferences": len(totals), "mean_us": gap.mean(),
                         "min_us": gap.min(), "max_us": gap.max(), "load_us": np.nan,
                         "compute_us": np.nan, "other_us": np.nan}
    total = float(totals["total_us"].mean())
    out["share"] = out["mean_us"] / total
    out = out[["entry", "name", "kind", "workers", "inferences", "mean_us", "min_us", "max_us",
               "share", "load_us", "compute_us", "other_us"]]
    for c in ("entry", "inferences"):
        out[c] = out[c].astype(np.int64)
    out["workers"] = out["workers"].astype("Int64")  # <NA> for "between entries"
    out.attrs["total_us"] = total
    out.attrs["inferences"] = int(len(totals))
    return out


def dnn_inference_window(trace, inference=None):
    """(start_us, end_us) of one inference (setup start to cleanup end in simulated time); the
    first inference when None. TraceError naming the inferences if there is no such one."""
    t = dnn_totals(trace)
    if inference is None:
        inference = int(t["inference"].min())
    row = t[t["inference"] == int(inference)]
    if row.empty:
        have = t["inference"].tolist()
        shown = f"{have[0]}..{have[-1]}" if len(have) > 3 else ", ".join(map(str, have))
        raise TraceError(f"{trace.path}: no inference {inference} (the trace has {shown})")
    return float(row["start_us"].iloc[0]), float(row["end_us"].iloc[0])


def _dnn_table(trace, path, what):
    if not trace.has_table(path):
        platform = trace.attrs.get("platform", "?")
        if trace.has_table("dnn/entries"):
            why = (f"written by nmsim builds since issue 11; this trace comes from nmsim "
                   f"{trace.attrs.get('simulator_version', '?')}")
        else:
            why = f"written by SpiNNaker2 chip DNN runs; platform '{platform}'"
        raise TraceError(f"{trace.path}: trace has no {path} table ({what}; {why})")
    return trace.table(path)


def dnn_inferences(trace):
    """One row per completed inference (dnn/inferences): inference, input (index into the inputs
    file), label (-1: none), predicted (argmax of the chip's output), reference_predicted,
    float_predicted (-1: none), check (1 bit-exact, 0 mismatch, 2 not checked), check_name
    ("bit-exact", "mismatch", "not checked"), mismatches, onnx_mismatches, onnx_max_lsb,
    total_ps, total_us (the report's Total for this inference), host_ps, host_us (host link:
    RUN sent to results back), correct (predicted == label; NaN without a label).
    TraceError for traces written before the table existed."""
    d = _dnn_table(trace, "dnn/inferences", "per-inference outputs and checks")
    d = d.sort_values("inference", kind="stable").reset_index(drop=True)
    d["check_name"] = d["check"].map({1: "bit-exact", 0: "mismatch", 2: "not checked"}) \
        .fillna("?")
    d["total_us"] = _us(d["total_ps"])
    d["host_us"] = _us(d["host_ps"])
    label = d["label"].astype(np.int64)
    d["correct"] = np.where(label >= 0, (d["predicted"].astype(np.int64) == label)
                            .astype(float), np.nan)
    return d


def dnn_outputs(trace, inference=None):
    """The int8 output tensor of every inference (dnn/outputs), one row per inference and element:
    inference, element, chip (read back from the chip), reference (bit-exact integer reference,
    round half up as the hardware), onnx (ONNX semantics, round half to even), diff_reference
    (chip - reference), diff_onnx (chip - onnx). TraceError for older traces."""
    d = _dnn_table(trace, "dnn/outputs", "the output tensor of every inference")
    if inference is not None:
        d = d[d["inference"] == int(inference)]
    d = d.sort_values(["inference", "element"], kind="stable").reset_index(drop=True)
    for c in ("chip", "reference", "onnx"):
        d[c] = d[c].astype(np.int64)
    d["diff_reference"] = d["chip"] - d["reference"]
    d["diff_onnx"] = d["chip"] - d["onnx"]
    return d


def dnn_output_matrix(trace, which="chip"):
    """The outputs as a numpy array [inference, element] (which: "chip", "reference", "onnx")."""
    d = dnn_outputs(trace)
    return d.pivot(index="inference", columns="element", values=which).to_numpy()


def intervals(trace, kinds=("dma", "mla_ops", "sleep")):
    """Interval events (t_start_ps/t_end_ps) of the given event tables in one DataFrame:
    kind, component_name, pe, start_us, end_us, plus the table's own columns (NaN elsewhere)."""
    frames = []
    have = set(trace.event_kinds())
    for kind in kinds:
        if kind not in have or trace.rows(kind) == 0:
            continue
        df = trace.events(kind)
        if "t_start_ps" not in df or "t_end_ps" not in df:
            continue
        df.insert(0, "kind", kind)
        df["pe"] = [pe_of(c) for c in df["component_name"]]
        df["start_us"] = _us(df["t_start_ps"])
        df["end_us"] = _us(df["t_end_ps"])
        frames.append(df)
    if not frames:
        return pd.DataFrame(columns=["kind", "component_name", "pe", "start_us", "end_us"])
    return pd.concat(frames, ignore_index=True, sort=False)


def in_window(df, start_us=None, end_us=None, start="start_us", end="end_us"):
    """Rows whose interval [start, end] overlaps the window (open ends: no limit)."""
    keep = np.ones(len(df), dtype=bool)
    if start_us is not None:
        keep &= df[end].to_numpy() >= start_us
    if end_us is not None:
        keep &= df[start].to_numpy() <= end_us
    return df[keep]


FAULT_CAUSES = {1: "bus error", 2: "access to unmapped address", 3: "undefined instruction",
                4: "hard fault", 5: "lockup", 6: "invalid state", 7: "breakpoint",
                8: "unaligned access", 9: "division by zero", 10: "coprocessor access",
                11: "invalid exception return",
                12: "instruction fetch from an execute-never region"}


def faults(trace):
    """Processor faults (events/faults; a run stops at the first): t_us, component_name, pe, pc,
    address, cause, cause_name (as the simulator's message names it), t_ps. Empty when the trace
    has no fault (or no faults table)."""
    cols = ["t_us", "component_name", "pe", "pc", "address", "cause", "cause_name", "t_ps"]
    if "faults" not in trace.event_kinds() or trace.rows("faults") == 0:
        return pd.DataFrame(columns=cols)
    f = trace.events("faults").sort_values("t_ps", kind="stable").reset_index(drop=True)
    f["t_us"] = _us(f["t_ps"])
    f["pe"] = [pe_of(c) for c in f["component_name"]]
    f["cause_name"] = [FAULT_CAUSES.get(int(c), f"fault {int(c)}") for c in f["cause"]]
    return f[cols]


def end_ps(trace):
    """Where the run's simulated time ends: /run sim_time_ps, else (killed run) the last event."""
    t = trace.run.get("sim_time_ps")
    if t is None:
        t = trace.last_event_ps()
    return int(t or 0)


def core_activity(trace):
    """When each core that ran was busy and when it slept: kind ("active" or "sleep"),
    component_name, pe, start_us, end_us.

    A core counts from time 0 to the end of the run (simulated time; its busy_ps + sleep_ps
    counters add up to that), sleeping in its events/sleep intervals and active in between. Cores
    that ran are those with sleep rows, a fault, or a busy_ps counter above 0; idle cores of a
    large chip are left out, and so are cores that slept (sleep_ps counter) in a run without
    event rows (``df.attrs["unknown"]``)."""
    cols = ["kind", "component_name", "pe", "start_us", "end_us"]
    sleeps = {}
    if "sleep" in trace.event_kinds() and trace.rows("sleep"):
        s = trace.events("sleep")
        for name, g in s.groupby("component_name"):
            sleeps[name] = g.sort_values("t_start_ps")[["t_start_ps", "t_end_ps"]] \
                .to_numpy(np.int64)
    cores = set(sleeps)
    cores |= set(faults(trace)["component_name"])
    summ = trace.summary()
    busy = summ[(summ["counter"] == "busy_ps") & (summ["value"] > 0)]
    cores |= {c for c in busy["component"] if c.endswith(".core")}
    # A core that slept (sleep_ps counter) without sleep rows: the run had its event tables
    # disabled, so when it slept is unknown; leave it out rather than draw it always active.
    slept = summ[(summ["counter"] == "sleep_ps") & (summ["value"] > 0)]
    unknown = {c for c in slept["component"] if c not in sleeps}
    cores -= unknown
    stop = end_ps(trace)
    rows = []
    for name in sorted(cores, key=lambda c: (pe_of(c), c)):
        pe = pe_of(name)
        t = 0
        for a, b in sleeps.get(name, np.empty((0, 2), dtype=np.int64)):
            if a > t:
                rows.append(("active", name, pe, t, a))
            rows.append(("sleep", name, pe, a, b))
            t = max(t, b)
        if stop > t:
            rows.append(("active", name, pe, t, stop))
    df = pd.DataFrame(rows, columns=["kind", "component_name", "pe", "start_ps", "end_ps"])
    df["start_us"] = _us(df["start_ps"])
    df["end_us"] = _us(df["end_ps"])
    df = df[cols]
    df.attrs["unknown"] = sorted(unknown)
    return df


# ------------------------------------------------------------------------------------------------
# BrainScaleS-2 runs


def populations(trace):
    """The network's populations: id (index in the network file), name, kind (external, internal,
    background), size, offset (first global neuron index: populations stacked in id order).

    They come from the table bss2/populations; traces written before it existed read the network
    file named in /config/resolved (workload.bss2.network). If that file cannot be read either,
    names are "pop<id>" and sizes the largest neuron index seen + 1.
    """
    if trace.has_table("bss2/populations") and len(trace.table("bss2/populations")):
        t = trace.table("bss2/populations").sort_values("population", kind="stable")
        df = pd.DataFrame({"id": t["population"].astype(np.int64).to_numpy(),
                           "name": t["name"].astype(str).to_numpy(),
                           "kind": t["kind"].astype(str).to_numpy(),
                           "size": t["size"].astype(np.int64).to_numpy()})
        df["offset"] = np.concatenate([[0], np.cumsum(df["size"].to_numpy())[:-1]]) \
            .astype(np.int64)
        return df
    import yaml

    bss2 = scenario(trace).get("workload", {}).get("bss2", {})
    net_path = bss2.get("network")
    pops = None
    if net_path:
        if not os.path.isabs(net_path):
            base = os.path.dirname(os.path.abspath(trace.attrs.get("scenario", "")))
            net_path = os.path.join(base, net_path)
        try:
            with open(net_path) as f:
                net = yaml.safe_load(f) or {}
            pops = [(i, str(p.get("name", f"pop{i}")), str(p.get("kind", "")),
                     int(p.get("size", 0))) for i, p in enumerate(net.get("populations", []))]
        except (OSError, yaml.YAMLError, AttributeError, TypeError, ValueError):
            pops = None
    if pops is None:
        sizes = {}
        for which in ("input", "output"):
            path = f"events/bss2_{which}_spikes"
            if trace.has_table(path):
                df = trace.table(path)
                for p, g in df.groupby("population"):
                    sizes[int(p)] = max(sizes.get(int(p), 0), int(g["neuron"].max()) + 1)
        if trace.has_table("bss2/placement"):
            pl = trace.table("bss2/placement")
            for p, g in pl.groupby("population"):
                sizes[int(p)] = max(sizes.get(int(p), 0), int(g["neuron"].max()) + 1)
        pops = [(i, f"pop{i}", "", sizes.get(i, 0)) for i in range(max(sizes, default=-1) + 1)]
    df = pd.DataFrame(pops, columns=["id", "name", "kind", "size"])
    df["offset"] = np.concatenate([[0], np.cumsum(df["size"].to_numpy())[:-1]]).astype(np.int64)
    return df


def runtime_us(trace):
    """Duration of every BSS-2 realtime run (workload.bss2.runtime_us, default 1000 us)."""
    value = scenario(trace).get("workload", {}).get("bss2", {}).get("runtime_us", 1000)
    return float(value)


def spikes(trace, which="output", run=None):
    """BSS-2 spikes: which="output" (recorded by the FPGA, on-chip neurons) or "input" (sent by
    the host, external populations). Columns: run, t_us (since the run's start), population,
    population_name, neuron, global_neuron (population offset + neuron), t_ps, event."""
    if which not in ("output", "input"):
        raise TraceError(f"spikes: which must be 'output' or 'input', not '{which}'")
    df = _require(trace, f"events/bss2_{which}_spikes", "written by BrainScaleS-2 runs")
    if run is not None:
        df = df[df["run"] == int(run)]
    pops = populations(trace).set_index("id")
    names = pops["name"].to_dict()
    offsets = pops["offset"].to_dict()
    df = df.sort_values(["run", "t_ps", "population", "neuron"], kind="stable")
    df = df.reset_index(drop=True)
    df["t_us"] = _us(df["t_ps"])
    df["population_name"] = [names.get(int(p), f"pop{int(p)}") for p in df["population"]]
    df["global_neuron"] = (df["population"].map(offsets).fillna(0).astype(np.int64)
                           + df["neuron"].astype(np.int64))
    return df[["run", "t_us", "population", "population_name", "neuron", "global_neuron",
               "t_ps", "event"]]


def spike_rates(trace):
    """Mean firing rate per run and population (both directions): run, direction
    ("input"/"output"), population, population_name, neurons, spikes, rate_hz (per neuron, in
    hardware time)."""
    pops = populations(trace).set_index("id")
    runtime_s = runtime_us(trace) * 1e-6
    runs = scenario(trace).get("workload", {}).get("bss2", {}).get("runs")
    rows = []
    for which, kind in (("input", "external"), ("output", "internal")):
        if not trace.has_table(f"events/bss2_{which}_spikes"):
            continue
        counts = spikes(trace, which).groupby(["run", "population"]).size()
        # Runs and populations without a spike count as 0 Hz, not as missing.
        run_ids = set(range(len(runs))) if isinstance(runs, list) else set()
        run_ids |= {int(r) for r, _ in counts.index}
        pop_ids = {int(p) for p in pops.index if pops.loc[p, "kind"] == kind}
        pop_ids |= {int(p) for _, p in counts.index}
        for r in sorted(run_ids):
            for p in sorted(pop_ids):
                n = int(counts.get((r, p), 0))
                size = int(pops["size"].get(p, 0)) or 1
                rows.append((r, which, p, pops["name"].get(p, f"pop{p}"), size, n,
                             n / (size * runtime_s)))
    return pd.DataFrame(rows, columns=["run", "direction", "population", "population_name",
                                       "neurons", "spikes", "rate_hz"])


def _run_rate(inputs):
    """The one rate of a run's inputs (Hz), or NaN if they do not share one."""
    rates = set()
    for i in inputs or []:
        if not isinstance(i, dict) or str(i.get("kind", "")) not in ("poisson", "regular") \
                or "rate_hz" not in i:
            return math.nan
        rates.add(float(i["rate_hz"]))
    return rates.pop() if len(rates) == 1 else math.nan


def bss2_runs(trace):
    """The realtime runs of a BrainScaleS-2 run: run, input_rate_hz (the configured rate of the
    run's Poisson/regular inputs when they all share one rate; NaN otherwise), runtime_us.

    From the table bss2/runs; older traces: from the runs in /config/resolved."""
    if trace.has_table("bss2/runs") and len(trace.table("bss2/runs")):
        r = trace.table("bss2/runs").sort_values("run", kind="stable").reset_index(drop=True)
        out = pd.DataFrame({"run": r["run"].astype(np.int64),
                            "input_rate_hz": r["input_rate_hz"].astype(float),
                            "runtime_us": r["runtime_us"].astype(float)})
        out.attrs["source"] = "bss2/runs"
        return out
    bss2 = scenario(trace).get("workload", {}).get("bss2", {})
    runs = bss2.get("runs")
    if not isinstance(runs, list):
        runs = []
    n = len(runs)
    if n == 0 and trace.has_table("events/bss2_fpga_exec"):
        n = int(trace.table("events/bss2_fpga_exec")["runs"].sum())
    out = pd.DataFrame({"run": np.arange(n, dtype=np.int64),
                        "input_rate_hz": [_run_rate(r.get("inputs") if isinstance(r, dict)
                                                    else None) if i < len(runs) else math.nan
                                          for i, r in enumerate(runs + [None] * (n - len(runs)))],
                        "runtime_us": runtime_us(trace)})
    out.attrs["source"] = "config"
    return out


def bss2_rates(trace):
    """The rate table the report prints, one row per run and population: run, population,
    population_name, kind, neurons, spikes, rate_hz (mean per neuron over the run's hardware
    time; injected spikes for external populations, recorded ones for internal), input_rate_hz
    (the run's configured input rate, see bss2_runs).

    From the table bss2/rates; older traces: counted from the spike tables (spike_rates)."""
    pops = populations(trace).set_index("id")
    if trace.has_table("bss2/rates") and len(trace.table("bss2/rates")):
        r = trace.table("bss2/rates")
        out = pd.DataFrame({"run": r["run"].astype(np.int64),
                            "population": r["population"].astype(np.int64),
                            "spikes": r["spikes"].astype(np.int64),
                            "rate_hz": r["rate_hz"].astype(float)})
        source = "bss2/rates"
    else:
        sr = spike_rates(trace)
        sr = sr[((sr["direction"] == "input") &
                 (sr["population"].map(pops["kind"]).fillna("external") != "internal")) |
                ((sr["direction"] == "output") &
                 (sr["population"].map(pops["kind"]).fillna("internal") != "external"))]
        out = sr[["run", "population", "spikes", "rate_hz"]].copy()
        out["run"] = out["run"].astype(np.int64)
        out["population"] = out["population"].astype(np.int64)
        source = "spikes"
    out["population_name"] = [pops["name"].get(int(p), f"pop{int(p)}")
                              for p in out["population"]]
    out["kind"] = [pops["kind"].get(int(p), "") for p in out["population"]]
    out["neurons"] = [int(pops["size"].get(int(p), 0)) for p in out["population"]]
    runs = bss2_runs(trace).set_index("run")["input_rate_hz"]
    out["input_rate_hz"] = out["run"].map(runs).astype(float)
    out = out.sort_values(["run", "population"], kind="stable").reset_index(drop=True)
    out = out[["run", "population", "population_name", "kind", "neurons", "spikes", "rate_hz",
               "input_rate_hz"]]
    out.attrs["source"] = source
    return out


def membrane(trace, run=None):
    """MADC samples (events/bss2_madc): run, neuron, t_us (since the run's start), v_mV, code."""
    df = _require(trace, "events/bss2_madc", "written by BrainScaleS-2 runs with madc")
    if run is not None:
        df = df[df["run"] == int(run)]
    df = df.sort_values(["run", "t_ps"], kind="stable").reset_index(drop=True)
    df["t_us"] = _us(df["t_ps"])
    return df[["run", "neuron", "t_us", "v_mV", "code", "t_ps"]]


def fpga_phases(trace):
    """The FPGA playback phases of every execution (events/bss2_fpga_exec): execution, phase,
    start_us, end_us, duration_us. Phases: "program transfer" (host link, t_call..t_program),
    "configuration and runs" (t_program..t_exec_end; realtime_us of it are the realtime runs),
    "read-back" (t_exec_end..t_host). Extra columns: realtime_us, runs, instructions, dropped."""
    x = _require(trace, "events/bss2_fpga_exec", "written by BrainScaleS-2 runs")
    rows = []
    for i, r in enumerate(x.itertuples(index=False)):
        bounds = [("program transfer", r.t_call_ps, r.t_program_ps),
                  ("configuration and runs", r.t_program_ps, r.t_exec_end_ps),
                  ("read-back", r.t_exec_end_ps, r.t_host_ps)]
        for phase, a, b in bounds:
            rows.append((i, phase, a / PS_PER_US, b / PS_PER_US, (b - a) / PS_PER_US,
                         r.realtime_ps / PS_PER_US, int(r.runs), int(r.instructions),
                         int(r.dropped), r.component_name))
    return pd.DataFrame(rows, columns=["execution", "phase", "start_us", "end_us", "duration_us",
                                       "realtime_us", "runs", "instructions", "dropped",
                                       "component_name"])


def bss2_time_split(trace):
    """The time split of all executions: phase, duration_us, share. "configuration and runs" is
    split into "realtime runs" and "configuration writes" (the rest of that phase)."""
    ph = fpga_phases(trace)
    tot = ph.groupby("phase", sort=False)["duration_us"].sum()
    realtime = float(ph.drop_duplicates("execution")["realtime_us"].sum())
    rows = [("program transfer", tot.get("program transfer", 0.0)),
            ("configuration writes", tot.get("configuration and runs", 0.0) - realtime),
            ("realtime runs", realtime),
            ("read-back", tot.get("read-back", 0.0))]
    df = pd.DataFrame(rows, columns=["phase", "duration_us"])
    df["share"] = df["duration_us"] / df["duration_us"].sum()
    return df


# ------------------------------------------------------------------------------------------------
# Timeline


def _has_dnn(trace):
    return trace.has_table("dnn/entries") and len(trace.table("dnn/entries")) > 0


def timeline_window(trace, start_us=None, end_us=None, inference=None, everything=False):
    """The window a timeline shows: (start_us, end_us, what); None = open end.

    start_us/end_us if either is given; else everything=True: the whole run; else a DNN run's
    inference (default: the first; setup start to cleanup end); else the whole run."""
    if start_us is not None or end_us is not None:
        if inference is not None or everything:
            raise TraceError("give either a window (--start/--end), an inference (--inference) "
                             "or --all, not several")
        if start_us is not None and end_us is not None and end_us <= start_us:
            raise TraceError(f"--end ({end_us}) must be after --start ({start_us})")
        return start_us, end_us, ""
    if everything:
        if inference is not None:
            raise TraceError("give either an inference (--inference) or --all, not both")
        return None, None, "whole run"
    if _has_dnn(trace):
        if inference is None:
            inference = int(trace.table("dnn/entries")["inference"].min())
        lo, hi = dnn_inference_window(trace, inference)
        return lo, hi, f"inference {int(inference)}"
    if inference is not None:
        raise TraceError(f"{trace.path}: --inference: the trace has no DNN inferences "
                         "(dnn/entries)")
    return None, None, "whole run"


def timeline_intervals(trace, start_us=None, end_us=None, pes=None, inference=None,
                       everything=False):
    """Everything a timeline shows, one row per interval or instant: kind, pe, component, name,
    inference (-1 where none), start_us, end_us, duration_us; window and PE filter applied
    (intervals overlapping the window are kept whole).

    kinds: "layer" (the scheduler's entries on its PE, the workers' layers on theirs, named like
    the report), "dma", "mla_ops", "active" and "sleep" (core_activity), "fault" (an instant:
    start_us == end_us; name "fault: <cause> at pc 0x..."), "fpga" (BrainScaleS-2 phases).
    The window is timeline_window(...); ``df.attrs["window"]`` holds it with open ends closed
    by the data, ``df.attrs["what"]`` says what it is ("inference 0", "whole run", "")."""
    lo, hi, what = timeline_window(trace, start_us, end_us, inference, everything)
    frames = []
    iv = intervals(trace, ("dma", "mla_ops"))
    if not iv.empty:
        names = {"dma": "DMA", "mla_ops": "MLA"}
        frames.append(pd.DataFrame({"kind": iv["kind"], "pe": iv["pe"],
                                    "component": iv["component_name"],
                                    "name": iv["kind"].map(names), "inference": -1,
                                    "start_us": iv["start_us"], "end_us": iv["end_us"]}))
    core = core_activity(trace)
    if not core.empty:
        frames.append(pd.DataFrame({"kind": core["kind"], "pe": core["pe"],
                                    "component": core["component_name"], "name": core["kind"],
                                    "inference": -1, "start_us": core["start_us"],
                                    "end_us": core["end_us"]}))
    f = faults(trace)
    if not f.empty:
        frames.append(pd.DataFrame({"kind": "fault", "pe": f["pe"],
                                    "component": f["component_name"],
                                    "name": [f"fault: {c} at pc 0x{int(pc):08x}" for c, pc in
                                             zip(f["cause_name"], f["pc"])],
                                    "inference": -1, "start_us": f["t_us"],
                                    "end_us": f["t_us"]}))
    if _has_dnn(trace):
        e = dnn_entries(trace)
        sched = scheduler_pe(trace)
        frames.append(pd.DataFrame({"kind": "layer", "pe": sched,
                                    "component": f"s2.pe{sched}.core", "name": e["name"],
                                    "inference": e["inference"], "start_us": e["start_us"],
                                    "end_us": e["end_us"]}))
        if trace.has_table("dnn/workers"):
            w = worker_times(trace)
            frames.append(pd.DataFrame({"kind": "layer", "pe": w["pe"],
                                        "component": [f"s2.pe{p}.core" for p in w["pe"]],
                                        "name": w["name"], "inference": w["inference"],
                                        "start_us": w["start_us"], "end_us": w["end_us"]}))
    if trace.has_table("events/bss2_fpga_exec"):
        ph = fpga_phases(trace)
        frames.append(pd.DataFrame({"kind": "fpga", "pe": -1, "component": ph["component_name"],
                                    "name": ph["phase"], "inference": -1,
                                    "start_us": ph["start_us"], "end_us": ph["end_us"]}))
    frames = [fr for fr in frames if len(fr)]
    if not frames:
        raise TraceError(f"{trace.path}: no intervals to show (no dma, mla_ops, sleep, core, "
                         "fault, dnn or bss2_fpga_exec rows)")
    df = pd.concat(frames, ignore_index=True)
    df["pe"] = df["pe"].astype(np.int64)
    df["inference"] = df["inference"].astype(np.int64)
    df = in_window(df, lo, hi)
    if pes is not None:
        df = df[df["pe"].isin(pes)]
    df = df.assign(duration_us=df["end_us"] - df["start_us"])
    df = df.sort_values(["pe", "kind", "start_us"], kind="stable").reset_index(drop=True)
    if len(df):
        df.attrs["window"] = (lo if lo is not None else float(df["start_us"].min()),
                              hi if hi is not None else float(df["end_us"].max()))
    else:
        df.attrs["window"] = (lo, hi)
    df.attrs["what"] = what
    return df


# ------------------------------------------------------------------------------------------------
# Energy


def energy(trace):
    """The energy breakdown (energy/breakdown): component_name, phase, kind ("dynamic"/"static"),
    quantity, count, energy_j; one row per component, phase, kind and quantity."""
    if not trace.has_table("energy/breakdown"):
        raise TraceError(
            f"{trace.path}: trace has no energy/breakdown table (written only by nmsim builds "
            f"with the energy model, issue 5; this trace comes from nmsim "
            f"{trace.attrs.get('simulator_version', '?')})")
    df = trace.table("energy/breakdown")
    if "component_name" not in df:
        df["component_name"] = ""
    return df[["component_name", "phase", "kind", "quantity", "count", "energy_j"]]


def component_family(name):
    """An instance path with PE indices folded: "s2.pe12.mla" -> "s2.pe*.mla"."""
    return re.sub(r"(^|\.)pe\d+(?=\.|$)", r"\1pe*", name)


def excluded_components(names, patterns):
    """The subset of component names that match any of the glob patterns (fnmatch, e.g.
    "s2.dram*", "setup"); a pattern also matches a name's family ("s2.pe*.mla")."""
    import fnmatch

    patterns = list(patterns or [])
    return {n for n in names
            if any(fnmatch.fnmatchcase(n, p) or fnmatch.fnmatchcase(component_family(n), p)
                   for p in patterns)}


def energy_table(trace, by="component", family=False, exclude=()):
    """Energy in joules as a table: rows = components (or families with family=True, or phases
    with by="phase"), one column per phase (or per component), plus dynamic_j, static_j, total_j.
    Components are sorted by total, largest first; phases keep the file's order.

    exclude: glob patterns of components to leave out (e.g. ["setup"], the BrainScaleS-2 system
    set-up, or ["s2.dram*"]); ``df.attrs["excluded"]`` lists the components left out and
    ``df.attrs["unmatched"]`` the patterns that matched none."""
    e = energy(trace)
    names = list(dict.fromkeys(e["component_name"]))
    dropped = excluded_components(names, exclude)
    unmatched = [p for p in (exclude or []) if not excluded_components(names, [p])]
    if dropped:
        e = e[~e["component_name"].isin(dropped)]
        if e.empty:
            raise TraceError(f"{trace.path}: exclude {list(exclude)} left no energy rows (excluded "
                             f"{', '.join(sorted(dropped))})")
    e = e.assign(group=[component_family(c) for c in e["component_name"]] if family
                 else e["component_name"])
    rows, cols = ("group", "phase") if by == "component" else ("phase", "group")
    table = e.pivot_table(index=rows, columns=cols, values="energy_j", aggfunc="sum",
                          fill_value=0.0)
    table = table[list(dict.fromkeys(e[cols]))]  # phases (components) in the file's order
    kinds = e.pivot_table(index=rows, columns="kind", values="energy_j", aggfunc="sum",
                          fill_value=0.0)
    table["dynamic_j"] = kinds.get("dynamic", 0.0)
    table["static_j"] = kinds.get("static", 0.0)
    table["total_j"] = e.groupby(rows)["energy_j"].sum()
    if by == "component":
        table = table.sort_values("total_j", ascending=False)
    else:
        table = table.loc[list(dict.fromkeys(e["phase"]))]  # phases in the run's order
    table.index.name = "component" if by == "component" else "phase"
    table.columns.name = None
    table = table.reset_index()
    table.attrs["excluded"] = sorted(dropped)
    table.attrs["unmatched"] = unmatched
    return table


# ------------------------------------------------------------------------------------------------
# Chrome Trace Event export


def _meta(pid, tid, name, value, key="name"):
    return {"ph": "M", "pid": pid, "tid": tid, "name": name, "args": {key: value}}


def chrome_trace(trace, start_us=None, end_us=None, pes=None, spikes_as_instants=False):
    """The trace as a Chrome Trace Event Format object (dict with "traceEvents"), for
    speedscope, Perfetto or chrome://tracing.

    Complete events (ph "X", ts/dur in us with sub-us precision): SpiNNaker2 DMA transfers, MLA
    operations and core sleep on one thread per component (tid = component id + 1, grouped by
    PE), DNN layer entries on the scheduler's thread "dnn scheduler" and worker layers on "dnn
    worker pe<N>" (named like the report: "setup", "/0/Gemm", ..., "cleanup"); BrainScaleS-2
    FPGA phases on thread "fpga". Processor faults are instant events (ph "i", scope thread,
    name "fault: <cause>", args pc, address, cause) on the faulting core's thread. pid 1 is the
    platform (chip). With
    spikes_as_instants, BSS-2 spikes become instant events (ph "i") in pid 2+run, one thread per
    population (run-relative times). Events overlapping [start_us, end_us] are kept unclipped;
    pes keeps only components of those PEs.
    """
    platform = trace.attrs.get("platform", "platform")
    pid = 1
    events = [_meta(pid, 0, "process_name", f"{platform} ({trace.attrs.get('scenario_name', '')})")]
    threads = {}

    def thread(tid, name, sort):
        if tid not in threads:
            threads[tid] = name
            events.append(_meta(pid, tid, "thread_name", name))
            events.append(_meta(pid, tid, "thread_sort_index", sort, key="sort_index"))
        return tid

    def x(tid, name, cat, ts, dur, args):
        events.append({"ph": "X", "pid": pid, "tid": tid, "name": name, "cat": cat,
                       "ts": round(float(ts), 6), "dur": round(max(float(dur), 0.0), 6),
                       "args": args})

    ncomp = max(len(trace.components), 1)
    iv = intervals(trace)
    if pes is not None:
        iv = iv[iv["pe"].isin(pes)]
    iv = in_window(iv, start_us, end_us)
    labels = {"dma": "DMA", "mla_ops": "MLA", "sleep": "sleep"}
    for r in iv.itertuples(index=False):
        comp = int(r.component)
        tid = thread(comp + 1, r.component_name, (r.pe if r.pe >= 0 else 0) * 10 + 3)
        if r.kind == "dma":
            args = {"bytes": int(r.bytes), "src": hex(int(r.src)), "dst": hex(int(r.dst)),
                    "status": int(r.status)}
        elif r.kind == "mla_ops":
            args = {"m": int(r.m), "k": int(r.k), "n": int(r.n), "macs": int(r.macs),
                    "mode": int(r.mode)}
        else:
            args = {}
        x(tid, labels[r.kind], r.kind, r.start_us, r.end_us - r.start_us, args)

    # Faults: instant events on the faulting core's thread.
    f = faults(trace)
    if pes is not None:
        f = f[f["pe"].isin(pes)]
    if start_us is not None:
        f = f[f["t_us"] >= start_us]
    if end_us is not None:
        f = f[f["t_us"] <= end_us]
    comp_ids = {c: i for i, c in enumerate(trace.components)}
    for r in f.itertuples(index=False):
        comp = comp_ids.get(r.component_name, ncomp)
        tid = thread(comp + 1, r.component_name, (r.pe if r.pe >= 0 else 0) * 10 + 3)
        events.append({"ph": "i", "s": "t", "pid": pid, "tid": tid,
                       "name": f"fault: {r.cause_name}", "cat": "fault",
                       "ts": round(float(r.t_us), 6),
                       "args": {"pc": f"0x{int(r.pc):08x}", "address": f"0x{int(r.address):08x}",
                                "cause": int(r.cause)}})

    if trace.has_table("dnn/entries") and len(trace.table("dnn/entries")):
        entries = in_window(dnn_entries(trace), start_us, end_us)
        sched = int(scenario(trace).get("workload", {}).get("dnn", {}).get("scheduler_pe", 0))
        if pes is None or sched in pes:
            tid = thread(ncomp + 1, f"dnn scheduler pe{sched}", sched * 10)
            for r in entries.itertuples(index=False):
                x(tid, r.name, "dnn", r.start_us, r.end_us - r.start_us,
                  {"inference": int(r.inference), "workers": int(r.workers)})
        if trace.has_table("dnn/workers"):
            workers = in_window(worker_times(trace), start_us, end_us)
            if pes is not None:
                workers = workers[workers["pe"].isin(pes)]
            for r in workers.itertuples(index=False):
                tid = thread(ncomp + 2 + int(r.pe), f"dnn worker pe{int(r.pe)}",
                             int(r.pe) * 10 + 1)
                x(tid, r.name, "dnn", r.start_us, r.duration_us,
                  {"inference": int(r.inference), "layer": int(r.layer),
                   "load_us": float(r.load_us), "compute_us": float(r.compute_us)})

    if trace.has_table("events/bss2_fpga_exec"):
        ph = in_window(fpga_phases(trace), start_us, end_us)
        tid = thread(ncomp + 1, "fpga", 0)
        for r in ph.itertuples(index=False):
            args = {"execution": int(r.execution)}
            if r.phase == "configuration and runs":
                args.update(realtime_us=float(r.realtime_us), runs=int(r.runs))
            x(tid, r.phase, "bss2", r.start_us, r.duration_us, args)
        if spikes_as_instants:
            pops = populations(trace)
            for which in ("input", "output"):
                if not trace.has_table(f"events/bss2_{which}_spikes"):
                    continue
                sp = spikes(trace, which)
                for run, g in sp.groupby("run"):
                    rpid = 2 + int(run)
                    events.append(_meta(rpid, 0, "process_name", f"bss2 run {int(run)} spikes "
                                        "(us since the run's start)"))
                    for p in g["population"].unique():
                        name = pops["name"].get(int(p), f"pop{int(p)}") if int(p) < len(pops) \
                            else f"pop{int(p)}"
                        events.append(_meta(rpid, int(p) + 1, "thread_name", f"{which} {name}"))
                    for r in g.itertuples(index=False):
                        events.append({"ph": "i", "s": "t", "pid": rpid,
                                       "tid": int(r.population) + 1, "name": "spike",
                                       "cat": which, "ts": round(float(r.t_us), 6),
                                       "args": {"neuron": int(r.neuron)}})
    return {"traceEvents": events, "displayTimeUnit": "ns",
            "otherData": {"trace": os.path.basename(trace.path),
                          "scenario": trace.attrs.get("scenario_name", ""),
                          "simulator": trace.attrs.get("simulator_version", "")}}


# ------------------------------------------------------------------------------------------------
# Sweep results

_UNITS = {
    "": 1.0, "k": 1e3, "M": 1e6, "G": 1e9,
    "Hz": 1.0, "kHz": 1e3, "MHz": 1e6, "GHz": 1e9,
    "s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9, "ps": 1e-12,
    "B": 1.0, "KiB": 1024.0, "MiB": 1024.0 ** 2, "GiB": 1024.0 ** 3,
    "kB": 1e3, "MB": 1e6, "GB": 1e9,
    "B/s": 1.0, "kB/s": 1e3, "MB/s": 1e6, "GB/s": 1e9, "TB/s": 1e12,
    "KiB/s": 1024.0, "MiB/s": 1024.0 ** 2, "GiB/s": 1024.0 ** 3,
    "bit/s": 1 / 8, "kbit/s": 1e3 / 8, "Mbit/s": 1e6 / 8, "Gbit/s": 1e9 / 8, "Tbit/s": 1e12 / 8,
}
_QUANTITY_RE = re.compile(
    r"\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*([A-Za-z]*(?:/s)?)\s*")


def parse_quantity(text):
    """A parameter value as a float in base units (Hz, s, B, B/s), or NaN if it is not a number:
    "300MHz" -> 3e8, "1.6e9" -> 1.6e9, "8" -> 8, "5 ns" -> 5e-9, "64 KiB" -> 65536, "2k" -> 2000,
    "3.2GB/s" -> 3.2e9, "1Gbit/s" -> 1.25e8."""
    if isinstance(text, (int, float, np.integer, np.floating)):
        return float(text)
    m = _QUANTITY_RE.fullmatch(str(text))
    if not m or m.group(2) not in _UNITS:
        return math.nan
    return float(m.group(1)) * _UNITS[m.group(2)]


def _decode(col):
    return [v.decode("utf-8", "replace").rstrip("\0") if isinstance(v, bytes) else str(v)
            for v in col]


def load_sweep(path):
    """A sweep results file (HDF5 /results, or its CSV twin) as a DataFrame: point, status, error,
    the `param:<path>` columns as written (str), the `metric:<name>` columns (float, NaN if
    missing), and for every parameter a numeric twin `value:<path>` (parse_quantity; NaN if the
    value is not a number). ``df.attrs["sweep"]`` holds the sweep YAML (HDF5 only)."""
    path = str(path)
    if not os.path.exists(path):
        raise TraceError(f"{path}: no such file")
    attrs = {}
    if path.lower().endswith(".csv"):
        try:
            df = pd.read_csv(path, dtype=str, keep_default_na=False)
        except (OSError, ValueError, pd.errors.ParserError) as e:
            raise TraceError(f"{path}: cannot read the sweep CSV: {e}") from e
    else:
        import h5py

        try:
            with h5py.File(path, "r") as f:
                if "results" not in f:
                    raise TraceError(f"{path}: not a sweep results file (no /results table)")
                data = f["results"][()]
                if data.dtype.names is None:
                    raise TraceError(f"{path}: /results is not a table")
                df = pd.DataFrame({n: (_decode(data[n]) if data.dtype[n].kind in "SOU"
                                       else data[n]) for n in data.dtype.names})
                if "sweep" in f["results"].attrs:
                    s = f["results"].attrs["sweep"]
                    attrs["sweep"] = s.decode() if isinstance(s, bytes) else str(s)
        except OSError as e:
            raise TraceError(f"{path}: cannot read the sweep results: {e}") from e
    missing = [c for c in ("point", "status") if c not in df.columns]
    if missing:
        raise TraceError(f"{path}: not a sweep results table (no column {', '.join(missing)})")
    df["point"] = pd.to_numeric(df["point"]).astype(np.int64)
    if "error" not in df:
        df["error"] = ""
    for c in list(df.columns):
        if c.startswith("metric:"):
            df[c] = pd.to_numeric(df[c].replace("", np.nan), errors="coerce").astype(float)
        elif c.startswith("param:"):
            df[c] = df[c].astype(str)
            df["value:" + c[len("param:"):]] = [parse_quantity(v) for v in df[c]]
    df.attrs.update(attrs)
    df.attrs["path"] = path
    return df


def sweep_column(df, name, prefix):
    """The column of a sweep table for a parameter or metric given with or without its prefix
    ("pe.perf_level" or "param:pe.perf_level"). TraceError listing the choices if unknown."""
    full = name if name.startswith(prefix) else prefix + name
    if full not in df.columns:
        known = ", ".join(c[len(prefix):] for c in df.columns if c.startswith(prefix)) or "none"
        kind = "parameter" if prefix == "param:" else "metric"
        raise TraceError(f"no {kind} '{name}' in the sweep (has: {known})")
    return full


def _results_units(path):
    """{column: unit} from the `units` attribute of /results (HDF5; for a CSV twin, of the
    results.h5 next to it); {} if there is none."""
    import h5py

    h5 = path if not path.lower().endswith(".csv") else os.path.splitext(path)[0] + ".h5"
    if not os.path.exists(h5):
        return {}
    try:
        with h5py.File(h5, "r") as f:
            ds = f.get("results")
            if ds is None or "units" not in ds.attrs or ds.dtype.names is None:
                return {}
            units = [v.decode() if isinstance(v, bytes) else str(v) for v in ds.attrs["units"]]
            return {n: u for n, u in zip(ds.dtype.names, units) if u}
    except OSError:
        return {}


# Swept parameters whose value as written is not the quantity the point ran at: the PE clock is
# pe.pl<level>_freq of the point's pe.perf_level, so pl1_freq is ignored at level 0.
PE_CLOCK_PARAMS = ("pe.perf_level", "pe.pl0_freq", "pe.pl1_freq")


def _pe_clock(trace, params):
    """The clock the PEs of a point ran at (Hz) and its performance level, from /config/params
    (pe.pl<pe.perf_level>_freq); when PEs run at different levels (perf_levels), the clock_hz
    counter the cores that ran share, else NaN."""
    level = params.get("pe.perf_level", (None, ""))[0]
    per_pe = params.get("perf_levels", ("", ""))[0]
    clock = math.nan
    if level is not None and not str(per_pe).strip():
        try:
            level = int(float(level))
            clock = parse_quantity(params.get(f"pe.pl{level}_freq", ("", ""))[0])
        except ValueError:
            level = None
    if math.isnan(clock):
        s = trace.summary()
        busy = set(s[(s["counter"] == "busy_ps") & (s["value"] > 0)]["component"])
        c = s[(s["counter"] == "clock_hz") & s["component"].isin(busy)]["value"].unique()
        if len(c) == 1:
            clock = float(c[0])
    return clock, level


def sweep_points(df):
    """What the point traces of a sweep say (a load_sweep frame; traces in <results dir>/points/
    <point>.h5): one row per point with point, trace (path, "" if missing), pe_clock_hz (the PE
    clock the point ran at, see PE_CLOCK_PARAMS; NaN if unknown), perf_level, and per swept
    parameter `resolved:<path>` (the value in the point's /config/params, "" if not a platform
    parameter). ``attrs["param_units"]`` maps swept parameters to their unit (from
    /config/params, e.g. "Hz", "B/s")."""
    base = os.path.dirname(os.path.abspath(df.attrs.get("path", ".")))
    swept = [c[len("param:"):] for c in df.columns if c.startswith("param:")]
    rows, units = [], {}
    from .reader import load

    for point in df["point"]:
        trace_path = os.path.join(base, "points", f"{int(point)}.h5")
        row = {"point": int(point), "trace": "", "pe_clock_hz": math.nan, "perf_level": None}
        row.update({f"resolved:{p}": "" for p in swept})
        if os.path.exists(trace_path):
            try:
                with load(trace_path) as t:
                    par = t.params
                    params = {r.path: (r.value, r.unit) for r in par.itertuples(index=False)}
                    row["trace"] = trace_path
                    row["pe_clock_hz"], row["perf_level"] = _pe_clock(t, params)
                    for p in swept:
                        if p in params:
                            row[f"resolved:{p}"] = params[p][0]
                            if params[p][1] and params[p][1] != "1":
                                units.setdefault(p, params[p][1])
            except TraceError:
                pass
        rows.append(row)
    out = pd.DataFrame(rows)
    out.attrs["param_units"] = units
    return out


def _written_unit(values):
    """The base unit parse_quantity converts the written values to ("Hz", "s", "B"), or ""."""
    units = {re.sub(r"^[-+.\deE\s]*", "", str(v)) for v in values}
    units.discard("")
    for base, names in (("Hz", ("Hz", "kHz", "MHz", "GHz")),
                        ("s", ("s", "ms", "us", "ns", "ps")),
                        ("B", ("B", "KiB", "MiB", "GiB", "kB", "MB", "GB"))):
        if units and units <= set(names):
            return base
    return ""


_NAME_UNITS = {"hz": "Hz", "us": "us", "ns": "ns", "ms": "ms", "ps": "ps", "uj": "uJ",
               "mj": "mJ", "mw": "mW", "bytes": "B"}


def _name_unit(path):
    """A unit a parameter's name states ("workload.bss2.runtime_us" -> "us",
    "input_sweep.rates_hz" -> "Hz"), or ""."""
    m = re.search(r"_([A-Za-z]+)$", path)
    return _NAME_UNITS.get(m.group(1).lower(), "") if m else ""


def sweep_axis(df, name, points=None, metric=False):
    """One axis of a sweep plot: a parameter (or, if no parameter has that name, a metric) of a
    load_sweep frame, as a dict:

        column    the results column ("param:pe.perf_level")
        written   the values as written, per row of df (str)
        values    the real value per row, in `unit` (float; NaN if not a number)
        label     what the values are ("pe.perf_level -> PE clock", "dram.bandwidth")
        unit      the base unit of values ("Hz", "B/s", "us", "" if unknown)
        ticks     per row, a tick label naming the real value and what was written
        note      why the real value could not be found ("" if it was)

    The PE clock parameters (PE_CLOCK_PARAMS) are replaced by the clock each point ran at
    (points: sweep_points(df); read from the point traces when None); metric=True takes `name`
    as a metric even if a parameter has that name. Other parameters keep
    their written value as a number with the unit of /config/params (or of the written text);
    metrics take the unit of the results' `units` attribute.
    """
    is_param = ("param:" + name.removeprefix("param:")) in df.columns and \
        not name.startswith("metric:") and not metric
    if is_param:
        col = sweep_column(df, name, "param:")
        path = col[len("param:"):]
        written = df[col].astype(str).tolist()
        values = np.array([parse_quantity(v) for v in written], dtype=float)
        ax = {"column": col, "written": written, "values": values, "label": path,
              "unit": _written_unit(written) or _name_unit(path), "ticks": written,
              "note": ""}
        if points is None:
            points = sweep_points(df)
        by_point = points.set_index("point")
        unit = points.attrs.get("param_units", {}).get(path)
        if unit and unit not in ("1", "string"):
            ax["unit"] = unit
            from .units import human

            # Plain numbers get the parameter's unit: "1.6e9" -> "1.6 GB/s".
            ax["ticks"] = [human(v, unit, None) if re.fullmatch(r"[-+.\deE]+", w.strip())
                           and np.isfinite(v) else w for w, v in zip(written, values)]
        if path in PE_CLOCK_PARAMS:
            clocks = by_point["pe_clock_hz"].reindex(df["point"]).to_numpy(dtype=float)
            levels = by_point["perf_level"].reindex(df["point"]).tolist()
            if np.isfinite(clocks).all():
                from .units import human

                ax.update(values=clocks, unit="Hz", label=f"{path} -> PE clock")
                ax["ticks"] = [human(c, "Hz", None) + (f"\nPL{int(lv)}" if lv is not None
                                                          and lv == lv else "")
                               for c, lv in zip(clocks, levels)]
            else:
                where = os.path.join(os.path.dirname(df.attrs.get("path", ".")), "points")
                ax["note"] = (f"{path}: the PE clock of each point is unknown (no point traces "
                              f"in {where}); plotted as written")
        return ax
    if not metric and not name.startswith("metric:") and "metric:" + name not in df.columns:
        params = ", ".join(c[6:] for c in df.columns if c.startswith("param:")) or "none"
        metrics = ", ".join(c[7:] for c in df.columns if c.startswith("metric:")) or "none"
        raise TraceError(f"no parameter or metric '{name}' in the sweep (parameters: {params}; "
                         f"metrics: {metrics})")
    col = sweep_column(df, name, "metric:")
    units = _results_units(df.attrs.get("path", ""))
    values = df[col].to_numpy(dtype=float)
    return {"column": col, "written": [f"{v:g}" for v in values], "values": values,
            "label": col[len("metric:"):], "unit": units.get(col, ""),
            "ticks": [f"{v:g}" for v in values], "note": ""}


def sweep_view(df, x, y, hue=None, points=None):
    """An x/y(/hue) view of a sweep (load_sweep frame) for tables and plots: a dict with
    "x", "y", "hue" (sweep_axis dicts; hue None), "notes" (why real values are missing),
    "skipped" (points not ok) and "table": the ok points sorted by hue and x, with columns
    point, the x column as written, its real value (header "<label> (<unit>)"), the same for
    hue, and y; plus helper columns _x, _xtick, _hue, _huetick, _y used by plots.sweep."""
    needs_points = any(name is not None and
                       (name.removeprefix("param:") in PE_CLOCK_PARAMS)
                       for name in (x, hue))
    if points is None and needs_points:
        points = sweep_points(df)
    elif points is None:
        points = sweep_points(df) if any(c.startswith("param:") for c in df.columns) else None
    xa = sweep_axis(df, x, points)
    ya = sweep_axis(df, y, points, metric=True)
    ha = sweep_axis(df, hue, points) if hue else None
    ok = (df["status"] == "ok").to_numpy()

    from .units import display_scale

    def real(axis):
        """(header, values) of an axis' real values in a readable unit."""
        scale, unit = display_scale(axis["values"][ok], axis["unit"])
        head = f"{axis['label']} ({unit})" if unit else f"{axis['label']} (value)"
        return head, np.asarray(axis["values"], dtype=float) * scale

    cols = {"point": df["point"].to_numpy()}
    names = {"x": x.removeprefix("param:").removeprefix("metric:")}
    cols[names["x"]] = xa["written"]
    head, vals = real(xa)
    cols[head] = vals
    if ha:
        names["hue"] = hue.removeprefix("param:").removeprefix("metric:")
        cols[names["hue"]] = ha["written"]
        head, vals = real(ha)
        cols[head] = vals
    head, vals = real(ya)
    cols[head if ya["unit"] else ya["label"]] = vals
    table = pd.DataFrame(cols)
    table["_x"], table["_xtick"], table["_y"] = xa["values"], xa["ticks"], ya["values"]
    table["_hue"] = ha["written"] if ha else ""
    table["_huetick"] = [v.replace("\n", " ") for v in ha["ticks"]] if ha else ""
    table["_hv"] = ha["values"] if ha else 0.0
    table = table[ok]
    table = table.sort_values(["_hv", "_hue", "_x", "_xtick"], kind="stable") \
        .reset_index(drop=True).drop(columns=["_hv"])
    notes = [a["note"] for a in (xa, ya, ha) if a and a["note"]]
    return {"table": table, "x": xa, "y": ya, "hue": ha, "notes": notes,
            "skipped": int((~ok).sum())}
