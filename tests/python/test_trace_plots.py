"""Plots and tables users can read (issue 11, item 7): the plotting API (nmsim_trace.plots, every
function takes ax= and returns the Axes), the timeline's inference window, core lane and faults,
faults in the Chrome export, energy --exclude/--log, the BrainScaleS-2 breakdown over the input
rate, sweep axes with units and real values, and the number formatting of the text tables.

Traces come from the built nmsim (NMSIM_BINARY); expected values are recomputed from the HDF5
tables with h5py/numpy.
"""

import json
import shutil
import subprocess

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

import nmsim_trace  # noqa: E402
from nmsim_trace import analysis, plots  # noqa: E402
from nmsim_trace.cli import main as cli_main  # noqa: E402
from nmsim_trace.commands._output import format_table  # noqa: E402
from trace_fixtures import (SCENARIOS, components, counters, params, run_nmsim,  # noqa: E402
                            table)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    return tmp_path_factory.mktemp("plots")


@pytest.fixture(scope="module")
def mlp(nmsim_binary, workdir):
    return run_nmsim(nmsim_binary, workdir, "s2_mlp_fmnist.yaml", workdir / "mlp.h5",
                     "workload.dnn.count=3")[0]


@pytest.fixture(scope="module")
def ff(nmsim_binary, workdir):
    return run_nmsim(nmsim_binary, workdir, "bss2_feedforward.yaml", workdir / "ff.h5",
                     "workload.bss2.runtime_us=200",
                     "workload.bss2.input_sweep.rates_hz=[80000,20000,40000]")[0]


@pytest.fixture(scope="module")
def fault(nmsim_binary, workdir):
    """A run that stops at a processor fault (the scenario writes to a read-only register)."""
    return run_nmsim(nmsim_binary, workdir, "s2_pe_fault.yaml", workdir / "fault.h5",
                     expect_ok=False)[0]


@pytest.fixture(scope="module")
def sweep_dir(nmsim_binary, workdir):
    """A 3-point sweep over performance levels: level 0 ignores pl1_freq and runs at pl0_freq."""
    spec = workdir / "perf.yaml"
    spec.write_text(
        "name: perf\n"
        f"base: {SCENARIOS / 's2_mlp_fmnist.yaml'}\n"
        "set:\n  workload.dnn.count: 1\n  trace.events: false\n"
        "zip:\n  pe.perf_level: [0, 1, 1]\n  pe.pl1_freq: [300MHz, 200MHz, 400MHz]\n"
        "metrics: [dnn.total_us, energy.total_uJ, s2.pe1.core/clock_hz]\n"
        "output: perf\n")
    out = workdir / "perf"
    p = subprocess.run([nmsim_binary, "sweep", str(spec), "-o", str(out), "-j", "2"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    return out


def cli(capsys, *args):
    rc = cli_main([str(a) for a in args])
    out, err = capsys.readouterr()
    return rc, out, err


def inference_bounds(path, inference):
    """(start_cycles, end_cycles) of an inference in the scheduler's cycle counter."""
    e = table(path, "dnn/entries")
    g = e[e["inference"] == inference].sort_values("entry")
    return int(g["start_cycles"].iloc[0]), int(g["end_cycles"].iloc[-1])


# ---- the plotting API: ax= in, Axes out -----------------------------------------------------


def _calls(mlp, ff, fault, sweep_dir):
    return [
        (mlp, lambda t, ax: plots.breakdown(t, ax=ax)),
        (mlp, lambda t, ax: plots.timeline(t, ax=ax, inference=1)),
        (fault, lambda t, ax: plots.timeline(t, ax=ax)),
        (mlp, lambda t, ax: plots.energy(t, ax=ax, log=True)),
        (ff, lambda t, ax: plots.energy(t, ax=ax, exclude=["setup"])),
        (ff, lambda t, ax: plots.timeline(t, ax=ax)),
        (ff, lambda t, ax: plots.bss2_time_split(t, ax=ax)),
        (ff, lambda t, ax: plots.bss2_rates(t, ax=ax)),
        (ff, lambda t, ax: plots.raster(t, ax=ax)),
        (ff, lambda t, ax: plots.raster(t, ax=ax, run=1, which="output")),
        (ff, lambda t, ax: plots.membrane(t, ax=ax)),
        (ff, lambda t, ax: plots.membrane(t, ax=ax, run=0)),
        (None, lambda t, ax: plots.sweep(sweep_dir / "results.h5", "pe.perf_level",
                                         "dnn.total_us", ax=ax)),
    ]


def test_every_plot_takes_ax_and_returns_it(mlp, ff, fault, sweep_dir):
    for path, call in _calls(mlp, ff, fault, sweep_dir):
        fig, (left, right) = plt.subplots(1, 2)
        t = nmsim_trace.load(path) if path else None
        try:
            got = call(t, right)
            assert got is right, call
            assert right.has_data() or right.patches or right.collections, call
            assert not left.has_data() and not left.patches  # nothing drawn elsewhere
            made = call(t, None)  # a new figure of its own
            assert made is not right and made.figure is not fig
            assert made.has_data() or made.patches or made.collections
            plt.close(made.figure)
        finally:
            plt.close(fig)
            if t is not None:
                t.close()


def test_plot_functions_are_documented_in_the_readme():
    import inspect

    from trace_fixtures import SOURCE_DIR

    readme = (SOURCE_DIR / "traces" / "README.md").read_text()
    for name, f in inspect.getmembers(plots, inspect.isfunction):
        if f.__module__ != plots.__name__ or name.startswith("_") or name == "energy_unit":
            continue
        assert "ax" in inspect.signature(f).parameters, name
        assert f"plots.{name}(" in readme, f"traces/README.md does not document plots.{name}"


# ---- timeline -------------------------------------------------------------------------------


def test_timeline_shows_one_inference_by_default(mlp, workdir, capsys):
    csv = workdir / "tl0.csv"
    rc, _, err = cli(capsys, "timeline", mlp, "-o", csv)
    assert rc == 0, err
    got = pd.read_csv(csv)
    layers = got[got["kind"] == "layer"]
    assert set(layers["inference"]) == {0}
    workers = table(mlp, "dnn/workers")
    entries = table(mlp, "dnn/entries")
    assert len(layers) == (entries["inference"] == 0).sum() + (workers["inference"] == 0).sum()
    # The window is setup start .. cleanup end of inference 0 on the scheduler's clock.
    clock = counters(mlp)[("s2.pe0.core", "clock_hz")][0]
    a, b = inference_bounds(mlp, 0)
    sched = layers[layers["pe"] == 0]
    np.testing.assert_allclose(sched["end_us"].max() - sched["start_us"].min(),
                               (b - a) / clock * 1e6, rtol=1e-9)
    lo, hi = sched["start_us"].min(), sched["end_us"].max()
    assert ((got["end_us"] >= lo - 1e-9) & (got["start_us"] <= hi + 1e-9)).all()
    # --inference 2 and --all
    rc, _, err = cli(capsys, "timeline", mlp, "--inference", 2, "-o", csv)
    assert rc == 0, err
    assert set(pd.read_csv(csv).query("kind == 'layer'")["inference"]) == {2}
    rc, _, err = cli(capsys, "timeline", mlp, "--all", "-o", csv)
    assert rc == 0, err
    every = pd.read_csv(csv)
    assert set(every.query("kind == 'layer'")["inference"]) == {0, 1, 2}
    assert (every["kind"] == "dma").sum() == len(table(mlp, "events/dma"))  # image load too
    rc, _, err = cli(capsys, "timeline", mlp, "--inference", 7)
    assert rc == 2 and "no inference 7 (the trace has 0, 1, 2)" in err


def test_timeline_core_lane(mlp, workdir, capsys):
    """Per core: active and asleep alternate without gaps from 0 to the end of the run, the
    sleeps are events/sleep and add up to the sleep_ps counter."""
    csv = workdir / "tl_all.csv"
    rc, _, err = cli(capsys, "timeline", mlp, "--all", "-o", csv)
    assert rc == 0, err
    got = pd.read_csv(csv)
    comp = components(mlp)
    sleep = table(mlp, "events/sleep")
    sleep["name"] = [comp[c] for c in sleep["component"]]
    c = counters(mlp)
    sim_us = table(mlp, "run")["sim_time_ps"].iloc[0] / 1e6
    cores = sorted(set(got.loc[got["kind"].isin(["active", "sleep"]), "component"]))
    assert cores == sorted(set(sleep["name"]))  # the cores that ran: pe0 (scheduler) .. pe8
    for core in cores:
        lane = got[(got["component"] == core) & got["kind"].isin(["active", "sleep"])] \
            .sort_values("start_us")
        np.testing.assert_allclose(lane["start_us"].to_numpy()[1:], lane["end_us"].to_numpy()[:-1])
        assert lane["start_us"].iloc[0] == 0 and lane["end_us"].iloc[-1] == pytest.approx(sim_us)
        mine = sleep[sleep["name"] == core]
        np.testing.assert_allclose(lane.loc[lane["kind"] == "sleep", "start_us"],
                                   np.sort(mine["t_start_ps"]) / 1e6)
        # Asleep: the core's sleep_ps counter; active (awake): the rest of the run, which is the
        # cycles it executed (busy_ps) to within a wake-up latency or two.
        asleep = lane.loc[lane["kind"] == "sleep", "duration_us"].sum()
        assert asleep == pytest.approx(c[(core, "sleep_ps")][0] / 1e6, rel=1e-9)
        awake = lane.loc[lane["kind"] == "active", "duration_us"].sum()
        assert awake == pytest.approx(sim_us - asleep, rel=1e-9)
        assert 0 <= awake - c[(core, "busy_ps")][0] / 1e6 < 2.0


def test_timeline_without_event_rows(nmsim_binary, workdir, capsys):
    """A run with trace.events=false has no sleep rows: its cores are not drawn always active,
    but the DNN layers still are."""
    path, _ = run_nmsim(nmsim_binary, workdir, "s2_mlp_fmnist.yaml", workdir / "noev.h5",
                        "workload.dnn.count=1", "trace.events=false")
    assert len(table(path, "events/sleep")) == 0
    csv = workdir / "noev.csv"
    rc, _, err = cli(capsys, "timeline", path, "-o", csv)
    assert rc == 0, err
    got = pd.read_csv(csv)
    assert set(got["kind"]) == {"layer"}
    # the scheduler's entries and the workers' layers
    assert len(got) == len(table(path, "dnn/entries")) + len(table(path, "dnn/workers"))
    with nmsim_trace.load(path) as t:
        assert "s2.pe0.core" in analysis.core_activity(t).attrs["unknown"]


def test_timeline_and_chrome_show_faults(fault, workdir, capsys):
    f = table(fault, "events/faults")
    assert len(f) == 1
    t_us = int(f["t_ps"].iloc[0]) / 1e6
    pc = int(f["pc"].iloc[0])
    csv = workdir / "fault.csv"
    rc, _, err = cli(capsys, "timeline", fault, "-o", csv)
    assert rc == 0, err
    got = pd.read_csv(csv)
    row = got[got["kind"] == "fault"]
    assert len(row) == 1
    assert row["start_us"].iloc[0] == pytest.approx(t_us) == row["end_us"].iloc[0]
    assert row["name"].iloc[0] == f"fault: bus error at pc 0x{pc:08x}"  # cause 1
    assert int(f["cause"].iloc[0]) == 1
    assert row["component"].iloc[0] == components(fault)[int(f["component"].iloc[0])]
    # The core was active from 0 until the fault stopped the run.
    act = got[got["kind"] == "active"]
    assert act["start_us"].min() == 0 and act["end_us"].max() == pytest.approx(t_us)
    rc, _, err = cli(capsys, "timeline", fault, "-o", workdir / "fault.png", "-q")
    assert rc == 0, err
    out = workdir / "fault.json"
    rc, _, err = cli(capsys, "export-chrome", fault, "-o", out)
    assert rc == 0, err
    events = json.loads(out.read_text())["traceEvents"]
    threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in events
               if e["ph"] == "M" and e["name"] == "thread_name"}
    inst = [e for e in events if e["ph"] == "i"]
    assert len(inst) == 1
    e = inst[0]
    assert e["name"] == "fault: bus error" and e["s"] == "t" and e["cat"] == "fault"
    assert e["ts"] == pytest.approx(t_us, abs=1e-6)
    assert int(e["args"]["pc"], 16) == pc
    assert threads[(e["pid"], e["tid"])] == row["component"].iloc[0]
    # Outside the window or the PE selection: no fault event.
    rc, _, err = cli(capsys, "export-chrome", fault, "--end", t_us / 2, "-o", out)
    assert rc == 0, err
    assert not [e for e in json.loads(out.read_text())["traceEvents"] if e["ph"] == "i"]


def test_export_chrome_inference_window(mlp, workdir, capsys):
    out = workdir / "inf1.json"
    rc, _, err = cli(capsys, "export-chrome", mlp, "--inference", 1, "-o", out)
    assert rc == 0, err
    events = json.loads(out.read_text())["traceEvents"]
    infs = {e["args"]["inference"] for e in events if e.get("cat") == "dnn"}
    assert infs == {1}


# ---- energy -----------------------------------------------------------------------------------


def test_energy_exclude_and_log(ff, mlp, workdir, capsys):
    raw = table(ff, "energy/breakdown")
    names = components(ff)
    raw["name"] = [names[c] for c in raw["component"]]
    assert "setup" in set(raw["name"])
    csv = workdir / "energy_ex.csv"
    rc, _, err = cli(capsys, "energy", ff, "--exclude", "setup", "--exclude", "bss2.fpga*",
                     "--exclude", "nothing*", "-o", csv)
    assert rc == 0, err
    assert "--exclude 'nothing*' matches no component" in err
    got = pd.read_csv(csv).set_index("component")
    keep = raw[~raw["name"].isin(["setup", "bss2.fpga"])]
    want = keep.groupby("name")["energy_j"].sum()
    assert set(got.index) == set(want.index)
    np.testing.assert_allclose(got.loc[want.index, "total_j"], want, rtol=1e-12)
    # The chip's components, invisible beside the 4.7 W set-up on a linear axis, are drawn on a
    # log axis that reaches below the smallest one.
    with nmsim_trace.load(ff) as t:
        ax = plots.energy(t, log=True)
        assert ax.get_xscale() == "log"
        scale = 1e3  # mJ: the set-up's 138 mJ is the largest total
        assert ax.get_xlim()[0] < want.min() * scale
        assert "setup" in [tick.get_text() for tick in ax.get_yticklabels()]
        plt.close(ax.figure)
        ax = plots.energy(t, exclude=["setup"])
        assert "setup" not in [tick.get_text() for tick in ax.get_yticklabels()]
        assert "without setup" in ax.get_title()
        plt.close(ax.figure)
    rc, _, err = cli(capsys, "energy", ff, "--log", "--exclude", "setup", "-o",
                     workdir / "energy_log.png", "-q")
    assert rc == 0, err
    # Per phase, the excluded components drop out of the columns and the totals.
    rc, _, err = cli(capsys, "energy", mlp, "--by", "phase", "--exclude", "s2.dram*", "-o", csv)
    assert rc == 0, err
    got = pd.read_csv(csv)
    assert not [c for c in got.columns if c.startswith("s2.dram")]
    raw = table(mlp, "energy/breakdown")
    names = components(mlp)
    dram = np.array([names[c].startswith("s2.dram") for c in raw["component"]])
    np.testing.assert_allclose(got["total_j"].sum(), raw["energy_j"][~dram].sum(), rtol=1e-12)
    # Text: every energy with a unit and 3 decimals.
    rc, out, err = cli(capsys, "energy", ff)
    assert rc == 0, err
    cells = [c for ln in out.splitlines()[2:] for c in ln.split("  ") if c.strip()]
    values = [c.strip() for c in cells if c.strip().endswith("J")]
    assert values and all(len(v.split()[0].split(".")[1]) == 3 for v in values)


# ---- BrainScaleS-2 breakdown against the input rate -------------------------------------------


def test_bss2_breakdown_over_input_rate(ff, workdir, capsys):
    rc, out, err = cli(capsys, "breakdown", ff)
    assert rc == 0, err
    assert "by input rate" in out
    csv = workdir / "bd_ff.csv"
    rc, _, err = cli(capsys, "breakdown", ff, "-o", csv)
    assert rc == 0, err
    rates = pd.read_csv(csv).query("section == 'rates'")
    assert list(rates["input_rate_hz"]) == [20000, 20000, 40000, 40000, 80000, 80000]
    assert list(rates["run"]) == [1, 1, 2, 2, 0, 0]
    with nmsim_trace.load(ff) as t:
        ax = plots.bss2_rates(t)
        assert "input rate" in ax.get_xlabel() and "kHz" in ax.get_xlabel()
        exc = [ln for ln in ax.lines if ln.get_label().startswith("exc")][0]
        np.testing.assert_allclose(exc.get_xdata(), [20, 40, 80])
        out = table(ff, "events/bss2_output_spikes")
        counts = out.groupby("run").size().reindex([1, 2, 0], fill_value=0).to_numpy()
        np.testing.assert_allclose(exc.get_ydata(), counts / (32 * 200e-6) / 1e3)
        plt.close(ax.figure)
        ax = plots.bss2_rates(t, x="run")
        assert ax.get_xlabel() == "run"
        exc = [ln for ln in ax.lines if ln.get_label().startswith("exc")][0]
        np.testing.assert_allclose(exc.get_xdata(), [0, 1, 2])
        plt.close(ax.figure)
    rc, _, err = cli(capsys, "breakdown", ff, "-o", workdir / "bd_ff.png", "-q")
    assert rc == 0, err


def test_bss2_breakdown_falls_back_to_the_run(ff, workdir, capsys):
    import h5py
    import yaml

    path = workdir / "ff_mixed.h5"
    shutil.copy(ff, path)
    with h5py.File(path, "a") as f:
        for name in ("bss2/runs", "bss2/rates", "bss2/populations"):
            if name in f:
                del f[name]
        doc = yaml.safe_load(f["config/resolved"][()].decode())
        doc["workload"]["bss2"]["runs"][1]["inputs"][0]["kind"] = "spikes"
        del f["config/resolved"]
        f["config/resolved"] = yaml.safe_dump(doc)
    rc, out, err = cli(capsys, "breakdown", path)
    assert rc == 0, err
    assert "by run (the runs have no single input rate)" in out
    with nmsim_trace.load(path) as t:
        ax = plots.bss2_rates(t)
        assert ax.get_xlabel() == "run"
        plt.close(ax.figure)


# ---- sweeps -----------------------------------------------------------------------------------


def test_sweep_real_values_and_units(sweep_dir, workdir, capsys):
    # What each point ran at, read independently from the point traces.
    clocks = []
    for point in range(3):
        p = params(sweep_dir / "points" / f"{point}.h5")
        level = int(p["pe.perf_level"][0])
        clocks.append(p[f"pe.pl{level}_freq"][0])
    assert clocks == ["150MHz", "200MHz", "400MHz"]
    csv = workdir / "sweep.csv"
    for x in ("pe.perf_level", "pe.pl1_freq"):
        rc, _, err = cli(capsys, "sweep", sweep_dir / "results.h5", "--x", x, "--y",
                         "dnn.total_us", "-o", csv)
        assert rc == 0, err
        got = pd.read_csv(csv)
        assert list(got.columns) == ["point", x, f"{x} -> PE clock (MHz)", "dnn.total_us (us)"]
        np.testing.assert_allclose(got[f"{x} -> PE clock (MHz)"], [150, 200, 400])
        want = pd.read_csv(sweep_dir / "results.csv").set_index("point")["metric:dnn.total_us"]
        np.testing.assert_allclose(got["dnn.total_us (us)"], want.loc[got["point"]])
    # The written values stay in the table: level 0 was written with pl1_freq 300MHz.
    assert list(got["pe.pl1_freq"]) == ["300MHz", "200MHz", "400MHz"]
    ax = plots.sweep(sweep_dir / "results.h5", "pe.perf_level", "energy.total_uJ")
    assert ax.get_xlabel() == "pe.perf_level -> PE clock (MHz)"
    assert ax.get_ylabel() == "energy.total_uJ (uJ)"  # the metric's unit, from results.h5
    ticks = [tick.get_text() for tick in ax.get_xticklabels()]
    assert ticks == ["150 MHz\nPL0", "200 MHz\nPL1", "400 MHz\nPL1"]
    np.testing.assert_allclose(ax.lines[0].get_xdata(), [150, 200, 400])
    plt.close(ax.figure)
    # A metric on the x axis (the measured clock), in MHz.
    rc, out, err = cli(capsys, "sweep", sweep_dir / "results.h5", "--x", "s2.pe1.core/clock_hz",
                       "--y", "dnn.total_us")
    assert rc == 0, err
    assert "s2.pe1.core/clock_hz (MHz)" in out.splitlines()[0]
    rc, _, err = cli(capsys, "sweep", sweep_dir / "results.h5", "--x", "pe.perf_level",
                     "--y", "dnn.total_us", "-o", workdir / "sweep.png")
    assert rc == 0, err


def test_sweep_without_point_traces(sweep_dir, workdir, capsys):
    """Without the point traces the PE clock is unknown: values as written, and a note."""
    alone = workdir / "alone"
    alone.mkdir()
    shutil.copy(sweep_dir / "results.h5", alone / "results.h5")
    csv = workdir / "alone.csv"
    rc, _, err = cli(capsys, "sweep", alone / "results.h5", "--x", "pe.perf_level", "--y",
                     "dnn.total_us", "-o", csv)
    assert rc == 0, err
    assert "the PE clock of each point is unknown" in err
    got = pd.read_csv(csv)
    np.testing.assert_allclose(got["pe.perf_level (value)"], [0, 1, 1])
    rc, _, err = cli(capsys, "sweep", alone / "results.h5", "--x", "pe.nothing", "--y",
                     "dnn.total_us")
    assert rc == 2 and "no parameter or metric 'pe.nothing'" in err


# ---- number formatting ------------------------------------------------------------------------


def test_format_table_same_decimals_per_column():
    df = pd.DataFrame({"name": ["a", "b", "c"], "x": [1.5, 0.0001, 22.25],
                       "n": [1.0, 2.0, 30.0], "big": [1e13, 2.0, 3.5], "i": [1, 22, 333],
                       "share": [45.25, 0.5, 54.25]})
    lines = format_table(df, digits={"share": 1}).splitlines()
    cells = [ln.split() for ln in lines[1:]]
    assert [c[1] for c in cells] == ["1.50000", "0.00010", "22.25000"]  # 2 digits of 0.0001
    assert [c[2] for c in cells] == ["1", "2", "30"]  # integral: no decimals
    assert [c[3] for c in cells] == ["1.000e+13", "2.000e+00", "3.500e+00"]
    assert [c[5] for c in cells] == ["45.2", "0.5", "54.2"]
    # Right-aligned: every number ends where its header ends.
    import re

    for name in ("x", "n", "big", "i", "share"):
        end = re.search(rf"(?<!\S){name}(?!\S)", lines[0]).end()
        assert all(ln[:end].endswith(c[list(df.columns).index(name)])
                   for ln, c in zip(lines[1:], cells))


def test_units():
    from nmsim_trace.units import display_scale, human, human_scale, split_unit

    assert split_unit("us") == (1e-6, "s") and split_unit("MiB") == (1024.0 ** 2, "B")
    assert split_unit("cycles") is None and split_unit("1") is None
    assert human_scale(2.2e8, "ps") == (pytest.approx(1e-6), "us")
    assert human(220733333, "ps") == "220.733 us"
    assert human(8000, "ps") == "8.000 ns"
    assert human_scale([3 * 2 ** 20], "B") == (pytest.approx(2.0 ** -20), "MiB")
    assert human_scale([1.5e8, 4e8], "Hz") == (pytest.approx(1e-6), "MHz")
    assert human_scale([4991.0], "us") == (pytest.approx(1e-3), "ms")
    assert human_scale([1.5e-3], "J") == (pytest.approx(1e3), "mJ")
    assert human_scale([0.0], "ps") == (1.0, "ps") and human_scale([5], "cycles") == (1.0, "cycles")
    assert human(1.6e9, "B/s", None) == "1.6 GB/s" and human(1.5e8, "Hz", None) == "150 MHz"
    assert display_scale([700.0, 900.0], "us") == (1.0, "us")  # metric units stay
    assert display_scale([5e3, 7e4, 1e6], "Hz") == (pytest.approx(1e-3), "kHz")  # the median
