"""Analysis of nmsim traces as pandas DataFrames (the API the `nmsim-trace` commands use).

Every function takes an open ``Trace`` (``nmsim_trace.load(path)``) and returns a DataFrame with
times in microseconds (float, columns ending in ``_us``) next to the file's integer picoseconds.
A trace that lacks what a function needs raises ``TraceError`` naming the file and the table.

SpiNNaker2 DNN runs:   dnn_entries, dnn_breakdown, worker_times, intervals
BrainScaleS-2 runs:    populations, spikes, spike_rates, membrane, fpga_phases
Both (when written):   energy, energy_table
Export:                chrome_trace (Chrome Trace Event Format, opens in speedscope/Perfetto)
Sweeps:                load_sweep, parse_quantity
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


def dnn_entries(trace):
    """The scheduler's intervals (dnn/entries): one row per inference and entry (setup, each
    layer, cleanup).

    Columns: inference, entry, name ("setup", "layer 0", ..., "cleanup"), layer (-1 for setup and
    cleanup), workers, start_cycles, end_cycles, duration_ps, duration_us, start_us, end_us.

    The table holds the scheduler's cycle counter, which its firmware zeroes when it starts, not
    simulated time. start_us/end_us place the entries in simulated time: the clock period comes
    from duration_ps / cycles, the counter's origin from the scheduler core waking up (events/sleep)
    for the first setup; this is exact to within the wake-up latency (well under 1 us).
    ``df.attrs["anchored"]`` is False when the trace has no sleep events (origin taken as 0).
    """
    e = _require(trace, "dnn/entries", "written by SpiNNaker2 chip DNN runs")
    e = e.sort_values(["inference", "entry"], kind="stable").reset_index(drop=True)
    if e.empty:
        raise TraceError(f"{trace.path}: dnn/entries has no rows (no inference finished)")
    last = int(e["entry"].max())
    e["layer"] = np.where((e["entry"] == 0) | (e["entry"] == last), -1, e["entry"] - 1)
    e["name"] = ["setup" if k == 0 else "cleanup" if k == last else f"layer {k - 1}"
                 for k in e["entry"]]
    both = np.empty(2 * len(e), dtype=np.int64)
    both[0::2], both[1::2] = e["start_cycles"], e["end_cycles"]
    both = _unwrap_cycles(both)
    start_c, end_c = both[0::2], both[1::2]
    cycles = float((end_c - start_c).sum())
    period_ps = float(e["duration_ps"].sum()) / cycles if cycles > 0 else 0.0
    origin_ps, anchored = 0.0, False
    sched = scenario(trace).get("workload", {}).get("dnn", {}).get("scheduler_pe", 0)
    ends = _sleep_times(trace, "t_end_ps").get(f"s2.pe{int(sched)}.core")
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


def worker_times(trace):
    """The workers' records (dnn/workers): one row per inference, layer and worker.

    Columns: inference, layer, worker, pe, duration_us, load_us (waiting for DMA), compute_us,
    other_us (the rest: signalling, address set-up), start_us, end_us.

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
    return w[["inference", "layer", "worker", "pe", "duration_us", "load_us", "compute_us",
              "other_us", "start_us", "end_us"]]


def dnn_breakdown(trace):
    """Per-entry runtime of a DNN run, averaged over inferences (the Table II view).

    One row per entry (setup, layers, cleanup): name, workers, inferences, mean_us, min_us,
    max_us, share (of the mean total), and per worker (mean over workers and inferences)
    load_us, compute_us, other_us; NaN for setup and cleanup, whose workers keep no record.
    """
    e = dnn_entries(trace)
    g = e.groupby("entry", sort=True)
    out = pd.DataFrame({
        "name": g["name"].first(), "workers": g["workers"].max(),
        "inferences": g["inference"].nunique(), "mean_us": g["duration_us"].mean(),
        "min_us": g["duration_us"].min(), "max_us": g["duration_us"].max()})
    out["share"] = out["mean_us"] / out["mean_us"].sum()
    layer = g["layer"].first()
    w = worker_times(trace) if trace.has_table("dnn/workers") else None
    for c in ("load_us", "compute_us", "other_us"):
        if w is None or w.empty:
            out[c] = np.nan
        else:
            out[c] = layer.map(w.groupby("layer")[c].mean()).astype(float)
    return out.reset_index()


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


# ------------------------------------------------------------------------------------------------
# BrainScaleS-2 runs


def populations(trace):
    """The network's populations: id (index in the network file), name, kind, size, offset
    (first global neuron index: populations stacked in id order).

    Names come from the network file named in /config/resolved (workload.bss2.network). If that
    file cannot be read, names are "pop<id>" and sizes the largest neuron index seen + 1.
    """
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


def energy_table(trace, by="component", family=False):
    """Energy in joules as a table: rows = components (or families with family=True, or phases
    with by="phase"), one column per phase (or per component), plus dynamic_j, static_j, total_j.
    Components are sorted by total, largest first; phases keep the file's order."""
    e = energy(trace)
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
    return table.reset_index()


# ------------------------------------------------------------------------------------------------
# Chrome Trace Event export


def _meta(pid, tid, name, value, key="name"):
    return {"ph": "M", "pid": pid, "tid": tid, "name": name, "args": {key: value}}


def chrome_trace(trace, start_us=None, end_us=None, pes=None, spikes_as_instants=False):
    """The trace as a Chrome Trace Event Format object (dict with "traceEvents"), for
    speedscope, Perfetto or chrome://tracing.

    Complete events (ph "X", ts/dur in us with sub-us precision): SpiNNaker2 DMA transfers, MLA
    operations and core sleep on one thread per component (tid = component id, grouped by PE),
    DNN layer entries on the scheduler's thread "dnn scheduler" and worker layers on "dnn worker
    pe<N>"; BrainScaleS-2 FPGA phases on thread "fpga". pid 1 is the platform (chip). With
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
                x(tid, f"layer {int(r.layer)}", "dnn", r.start_us, r.duration_us,
                  {"inference": int(r.inference), "load_us": float(r.load_us),
                   "compute_us": float(r.compute_us)})

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
}
_QUANTITY_RE = re.compile(r"\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*([A-Za-z]*)\s*")


def parse_quantity(text):
    """A parameter value as a float in base units (Hz, s, B), or NaN if it is not a number:
    "300MHz" -> 3e8, "1.6e9" -> 1.6e9, "8" -> 8, "5 ns" -> 5e-9, "64 KiB" -> 65536, "2k" -> 2000."""
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
