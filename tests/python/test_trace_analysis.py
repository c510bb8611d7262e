"""Trace analysis (nmsim_trace.analysis and the nmsim-trace subcommands) on real traces.

The built nmsim (NMSIM_BINARY) writes small traces of the SpiNNaker2 MLP (2 inferences) and the
BrainScaleS-2 feed-forward network (2 runs of 200 us); the energy and sweep formats, which other
tools write, are built here with h5py following their specification. Every figure the commands
print is recomputed from the HDF5 tables with h5py/numpy, not with the package under test.
"""

import json
import pathlib
import shutil
import subprocess

import h5py
import numpy as np
import pandas as pd
import pytest
import yaml

import nmsim_trace
from nmsim_trace import analysis
from nmsim_trace.cli import main as cli_main
from trace_fixtures import counters, report_layers, run_nmsim

SOURCE_DIR = pathlib.Path(__file__).resolve().parents[2]
SCENARIOS = SOURCE_DIR / "scenarios"


def _nmsim(binary, workdir, scenario, out, *sets):
    cmd = [binary, "run", str(SCENARIOS / scenario), "-o", str(out),
           "--set", "trace.console_stdout=false"]
    for s in sets:
        cmd += ["--set", s]
    p = subprocess.run(cmd, cwd=workdir, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, f"{' '.join(cmd)} exited {p.returncode}\n{p.stdout}\n{p.stderr}"
    return out


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    return tmp_path_factory.mktemp("analysis")


@pytest.fixture(scope="module")
def mlp_run(nmsim_binary, workdir):
    """The MLP trace (2 inferences) and the run's report."""
    return run_nmsim(nmsim_binary, workdir, "s2_mlp_fmnist.yaml", workdir / "mlp.h5",
                     "workload.dnn.count=2")


@pytest.fixture(scope="module")
def mlp(mlp_run):
    return mlp_run[0]


@pytest.fixture(scope="module")
def ff(nmsim_binary, workdir):
    return _nmsim(nmsim_binary, workdir, "bss2_feedforward.yaml", workdir / "ff.h5",
                  "workload.bss2.runtime_us=200",
                  "workload.bss2.input_sweep.rates_hz=[20000,80000]")


def cli(*args, capsys=None):
    """Runs nmsim-trace in this process; returns (status, stdout, stderr)."""
    rc = cli_main([str(a) for a in args])
    out, err = capsys.readouterr()
    return rc, out, err


def run_cli(launcher, *args):
    return subprocess.run([launcher, *map(str, args)], capture_output=True, text=True,
                          timeout=60)


def table(path, name):
    with h5py.File(path, "r", swmr=True) as f:
        return pd.DataFrame(f[name][()])


def components(path):
    with h5py.File(path, "r", swmr=True) as f:
        return [c.decode() for c in f["lut/components"][()]]


def check_png(path, min_w=500, min_h=250):
    assert path.stat().st_size > 5000, f"{path}: only {path.stat().st_size} bytes"
    from PIL import Image

    with Image.open(path) as im:
        assert im.format == "PNG"
        w, h = im.size
        assert w >= min_w and h >= min_h, (w, h)
        # Not a blank canvas: more than a handful of colours.
        assert len(im.convert("RGB").getcolors(maxcolors=1 << 20) or []) > 20


# ---- breakdown -----------------------------------------------------------------------------


def test_breakdown_dnn_table_matches_hdf5(mlp_run, workdir, capsys):
    mlp, report = mlp_run
    with open(SCENARIOS / "s2_mlp_fmnist.yaml") as f:
        layer_workers = yaml.safe_load(f)["workload"]["dnn"]["layer_workers"]
    rows, report_total = report_layers(report)
    assert len(rows) == len(layer_workers) + 2 and report_total is not None, report
    csv = workdir / "breakdown.csv"
    rc, _, err = cli("breakdown", mlp, "-o", csv, capsys=capsys)
    assert rc == 0, err
    got = pd.read_csv(csv)
    # One row per entry, named as the report names them (the ONNX nodes), then the time
    # between entries.
    assert list(got["name"]) == [r[0] for r in rows] + ["between entries"]
    assert list(got["name"][1:5]) == ["/0/Gemm", "/2/Gemm", "/4/Gemm", "/5/Softmax"]
    assert list(got["workers"][1:-2]) == layer_workers
    assert got["workers"].iloc[-1] != got["workers"].iloc[-1]  # NaN: no workers between entries
    entries = table(mlp, "dnn/entries")
    assert set(entries["inference"]) == {0, 1}
    want = entries.groupby("entry")["duration_ps"].mean().to_numpy() / 1e6
    np.testing.assert_allclose(got["mean_us"][:-1], want, rtol=1e-12)
    # The rows add up to the report's Total: setup start to cleanup end on the scheduler's
    # clock, mean over inferences (the metric dnn.total_us; the report rounds to 0.1 us).
    clock = counters(mlp)[("s2.pe0.core", "clock_hz")][0]
    per_inf = []
    for _, g in entries.groupby("inference"):
        g = g.sort_values("entry")
        cycles = (int(g["end_cycles"].iloc[-1]) - int(g["start_cycles"].iloc[0])) % (1 << 32)
        per_inf.append(cycles / clock * 1e6)
    total = float(np.mean(per_inf))
    # dnn/inferences holds each Total in whole ps.
    np.testing.assert_allclose(got["mean_us"].sum(), total, rtol=0, atol=1e-6)
    np.testing.assert_allclose(total, counters(mlp)[("metrics", "dnn.total_us")][0], rtol=1e-12)
    assert abs(total - report_total) <= 0.05 + 1e-9
    gaps = [t - g["duration_ps"].sum() / 1e6 for t, (_, g) in zip(per_inf,
                                                                   entries.groupby("inference"))]
    np.testing.assert_allclose(got["mean_us"].iloc[-1], np.mean(gaps), rtol=0, atol=1e-6)
    assert got["mean_us"].iloc[-1] > 0
    np.testing.assert_allclose(got["share_%"].sum(), 100.0)
    # Each entry's mean is the report's row (rounded to 0.1 us).
    for (name, _, mean, workers), r in zip(rows, got.itertuples(index=False)):
        assert abs(r.mean_us - mean) <= 0.05 + 1e-9, name
        assert r.workers == workers, name
    workers = table(mlp, "dnn/workers")
    np.testing.assert_allclose(got["load_us"][1:-2],
                               workers.groupby("layer")["load_ps"].mean() / 1e6, rtol=1e-12)
    np.testing.assert_allclose(got["compute_us"][1:-2],
                               workers.groupby("layer")["compute_ps"].mean() / 1e6, rtol=1e-12)
    assert got["load_us"].isna().tolist() == [True] + [False] * len(layer_workers) + [True, True]


def test_breakdown_text_and_png(mlp, ff, workdir, nmsim_trace_cli):
    p = run_cli(nmsim_trace_cli, "breakdown", mlp, "-o", workdir / "breakdown.png")
    assert p.returncode == 0, p.stderr
    assert "/5/Softmax" in p.stdout and "cleanup" in p.stdout  # the table also goes to stdout
    assert "between entries" in p.stdout
    check_png(workdir / "breakdown.png")
    p = run_cli(nmsim_trace_cli, "breakdown", ff, "-o", workdir / "breakdown_ff.png", "-q")
    assert p.returncode == 0, p.stderr
    assert p.stdout == ""
    check_png(workdir / "breakdown_ff.png")


def test_breakdown_bss2_time_split_and_rates(ff, workdir, capsys):
    csv = workdir / "breakdown_ff.csv"
    rc, _, err = cli("breakdown", ff, "-o", csv, capsys=capsys)
    assert rc == 0, err
    got = pd.read_csv(csv)
    split = got[got["section"] == "time split"]
    x = table(ff, "events/bss2_fpga_exec").iloc[0]
    total_us = (int(x["t_host_ps"]) - int(x["t_call_ps"])) / 1e6
    np.testing.assert_allclose(split["duration_us"].sum(), total_us, rtol=1e-12)
    realtime = split.set_index("phase")["duration_us"]["realtime runs"]
    np.testing.assert_allclose(realtime, 2 * 200.0)  # 2 runs of 200 us
    rates = got[got["section"] == "rates"]
    out = table(ff, "events/bss2_output_spikes")
    inp = table(ff, "events/bss2_input_spikes")
    # External populations count the injected spikes, internal ones the recorded spikes.
    for kind, name, df, size in (("internal", "exc", out, 32), ("external", "inputs", inp, 64)):
        r = rates[rates["kind"] == kind].set_index("run")
        assert set(r["population_name"]) == {name}
        counts = df.groupby("run").size().reindex([0, 1], fill_value=0)
        np.testing.assert_array_equal(r["spikes"].astype(int), counts.to_numpy())
        np.testing.assert_allclose(r["rate_hz"], counts.to_numpy() / (size * 200e-6))
        # The same numbers as the report's metrics bss2.rate.<population>.run<r>.
        m = counters(ff)
        np.testing.assert_allclose(r["rate_hz"], [m[("metrics", f"bss2.rate.{name}.run{i}")][0]
                                                  for i in (0, 1)], rtol=1e-12)
    # Every run is tabulated against its configured input rate.
    np.testing.assert_array_equal(rates.groupby("run")["input_rate_hz"].first(), [20000, 80000])
    # The input rates are the scenario's, within Poisson noise.
    r = rates[rates["kind"] == "external"]["rate_hz"].to_numpy()
    assert abs(r[0] / 20000 - 1) < 0.15 and abs(r[1] / 80000 - 1) < 0.1, r


# ---- timeline and export-chrome --------------------------------------------------------------


def _dma_rows_of_pe(path, pe, lo_us, hi_us):
    dma = table(path, "events/dma")
    comp = components(path)
    dma = dma[[comp[c] == f"s2.pe{pe}.dma" for c in dma["component"]]]
    keep = (dma["t_end_ps"] >= lo_us * 1e6) & (dma["t_start_ps"] <= hi_us * 1e6)
    return dma[keep]


def test_timeline_window_and_pe_filter(mlp, workdir, capsys):
    entries = table(mlp, "dnn/entries")
    assert len(entries) > 0
    lo, hi = 4500.0, 4900.0
    csv = workdir / "timeline.csv"
    rc, _, err = cli("timeline", mlp, "--pes", "2", "--start", lo, "--end", hi, "-o", csv,
                     capsys=capsys)
    assert rc == 0, err
    got = pd.read_csv(csv)
    assert set(got["pe"]) == {2}
    assert ((got["end_us"] >= lo) & (got["start_us"] <= hi)).all()
    want = _dma_rows_of_pe(mlp, 2, lo, hi)
    assert len(want) > 0
    dma = got[got["kind"] == "dma"]
    assert len(dma) == len(want)
    np.testing.assert_allclose(np.sort(dma["start_us"]), np.sort(want["t_start_ps"]) / 1e6)
    # Worker layers sit inside the scheduler's interval of the same layer.
    e = analysis.dnn_entries(nmsim_trace.load(mlp))
    w = analysis.worker_times(nmsim_trace.load(mlp))
    m = w.merge(e[e["layer"] >= 0], on=["inference", "layer"], suffixes=("", "_sched"))
    assert (m["start_us"] >= m["start_us_sched"] - 1.0).all()
    assert (m["end_us"] <= m["end_us_sched"] + 1e-9).all()


def test_timeline_png(mlp, ff, workdir, capsys):
    rc, _, err = cli("timeline", mlp, "-o", workdir / "timeline.png", "-q", capsys=capsys)
    assert rc == 0, err
    check_png(workdir / "timeline.png", min_w=1000, min_h=600)
    rc, _, err = cli("timeline", ff, "-o", workdir / "timeline_ff.svg", "-q", capsys=capsys)
    assert rc == 0, err
    assert (workdir / "timeline_ff.svg").read_text().lstrip().startswith("<?xml")


def test_export_chrome_one_event_per_dma_row(mlp, workdir, capsys):
    lo, hi = 4400.0, 5000.0
    out = workdir / "chrome.json"
    rc, _, err = cli("export-chrome", mlp, "--start", lo, "--end", hi, "-o", out, capsys=capsys)
    assert rc == 0, err
    doc = json.loads(out.read_text())
    events = doc["traceEvents"]
    for e in events:  # Trace Event Format: required keys per phase
        assert {"ph", "pid", "tid", "name"} <= e.keys(), e
        if e["ph"] == "X":
            assert isinstance(e["ts"], (int, float)) and e["dur"] >= 0, e
    threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in events
               if e["ph"] == "M" and e["name"] == "thread_name"}
    for pe in (0, 1, 5):
        want = _dma_rows_of_pe(mlp, pe, lo, hi)
        got = [e for e in events if e["ph"] == "X" and
               threads.get((e["pid"], e["tid"])) == f"s2.pe{pe}.dma"]
        assert len(got) == len(want), pe
        np.testing.assert_allclose(sorted(e["ts"] for e in got),
                                   np.sort(want["t_start_ps"]) / 1e6, atol=1e-6)
        np.testing.assert_allclose(sorted(e["ts"] + e["dur"] for e in got),
                                   np.sort(want["t_end_ps"]) / 1e6, atol=2e-6)
        assert all(e["args"]["bytes"] in set(want["bytes"]) for e in got)
    # The API gives the same document.
    with nmsim_trace.load(mlp) as t:
        assert analysis.chrome_trace(t, lo, hi) == doc


def test_export_chrome_bss2_spikes_as_instants(ff, workdir, capsys):
    out = workdir / "chrome_ff.json"
    rc, _, err = cli("export-chrome", ff, "--spikes", "-o", out, capsys=capsys)
    assert rc == 0, err
    events = json.loads(out.read_text())["traceEvents"]
    n_spikes = len(table(ff, "events/bss2_output_spikes")) + \
        len(table(ff, "events/bss2_input_spikes"))
    assert sum(e["ph"] == "i" for e in events) == n_spikes
    phases = [e["name"] for e in events if e["ph"] == "X"]
    assert phases == ["program transfer", "configuration and runs", "read-back"]


# ---- raster and membrane ---------------------------------------------------------------------


def test_raster_rows_are_the_spikes(ff, workdir, capsys):
    with open(SCENARIOS / "bss2" / "feedforward.yaml") as f:
        pops = yaml.safe_load(f)["populations"]
    out, inp = table(ff, "events/bss2_output_spikes"), table(ff, "events/bss2_input_spikes")
    csv = workdir / "raster.csv"
    rc, _, err = cli("raster", ff, "-o", csv, capsys=capsys)
    assert rc == 0, err
    got = pd.read_csv(csv)
    assert len(got) == len(out) + len(inp)
    rc, _, err = cli("raster", ff, "--run", 1, "-o", csv, capsys=capsys)
    assert rc == 0, err
    got = pd.read_csv(csv)
    assert len(got) == (out["run"] == 1).sum() + (inp["run"] == 1).sum()
    assert (got["run"] == 1).all()
    # Names and the global index follow the network file (populations stacked in file order).
    offset = 0
    for i, p in enumerate(pops):
        g = got[got["population"] == i]
        assert set(g["population_name"]) <= {p["name"]}
        assert ((g["global_neuron"] >= offset) & (g["global_neuron"] < offset + p["size"])).all()
        assert (g["global_neuron"] - g["neuron"] == offset).all()
        offset += p["size"]
    with nmsim_trace.load(ff) as t:
        api = analysis.spikes(t, "output", run=1)
    assert len(api) == (out["run"] == 1).sum()
    np.testing.assert_allclose(np.sort(api["t_us"]),
                               np.sort(out.loc[out["run"] == 1, "t_ps"]) / 1e6)


def test_raster_png(ff, workdir, capsys):
    rc, _, err = cli("raster", ff, "-o", workdir / "raster.png", "-q", capsys=capsys)
    assert rc == 0, err
    check_png(workdir / "raster.png")


def test_membrane_table_and_png(ff, workdir, capsys):
    madc = table(ff, "events/bss2_madc")
    csv = workdir / "membrane.csv"
    rc, _, err = cli("membrane", ff, "--run", 0, "-o", csv, capsys=capsys)
    assert rc == 0, err
    got = pd.read_csv(csv)
    want = madc[madc["run"] == 0]
    assert len(got) == len(want) > 0
    np.testing.assert_allclose(got["v_mV"], want.sort_values("t_ps")["v_mV"])
    rc, _, err = cli("membrane", ff, "-o", workdir / "membrane.png", "-q", capsys=capsys)
    assert rc == 0, err
    check_png(workdir / "membrane.png")


# ---- energy ----------------------------------------------------------------------------------


def test_energy_missing_table_exits_2(mlp, nmsim_trace_cli):
    with h5py.File(mlp, "r", swmr=True) as f:
        if "energy/breakdown" in f:
            pytest.skip("this nmsim writes energy/breakdown already (covered below)")
    p = run_cli(nmsim_trace_cli, "energy", mlp)
    assert p.returncode == 2
    assert p.stderr.count("\n") == 1
    assert "trace has no energy/breakdown table" in p.stderr


ENERGY_DTYPE = np.dtype([("component", "<u2"), ("phase", "S32"), ("kind", "S8"),
                         ("quantity", "S32"), ("count", "<f8"), ("energy_j", "<f8")])


@pytest.fixture(scope="module")
def energy_trace(mlp, workdir):
    """The MLP trace plus an energy/breakdown table in the specified layout."""
    path = workdir / "mlp_energy.h5"
    shutil.copy(mlp, path)
    comp = components(path)
    rng = np.random.default_rng(5)
    rows = []
    for name in ("s2.pe1.core", "s2.pe1.mla", "s2.pe2.mla", "s2.pe1.dma", "s2.dram0"):
        for phase in ("setup", "layer 0", "layer 1"):
            rows.append((comp.index(name), phase, "dynamic", "macs", 1000.0,
                         rng.uniform(1e-9, 1e-6)))
            rows.append((comp.index(name), phase, "static", "active_s", 1e-4,
                         rng.uniform(1e-9, 1e-6)))
    with h5py.File(path, "a") as f:
        if "energy/breakdown" in f:
            del f["energy/breakdown"]
        f.create_dataset("energy/breakdown", data=np.array(rows, dtype=ENERGY_DTYPE))
    return path


def test_energy_table_by_component_and_phase(energy_trace, workdir, capsys):
    raw = table(energy_trace, "energy/breakdown")
    names = components(energy_trace)
    raw["name"] = [names[c] for c in raw["component"]]
    raw["phase"] = [p.decode() for p in raw["phase"]]
    raw["kind"] = [k.decode() for k in raw["kind"]]
    csv = workdir / "energy.csv"
    rc, _, err = cli("energy", energy_trace, "-o", csv, capsys=capsys)
    assert rc == 0, err
    got = pd.read_csv(csv).set_index("component")
    want = raw.groupby("name")["energy_j"].sum()
    assert set(got.index) == set(want.index)
    np.testing.assert_allclose(got.loc[want.index, "total_j"], want, rtol=1e-12)
    np.testing.assert_allclose(got.loc[want.index, "layer 0"],
                               raw[raw["phase"] == "layer 0"].groupby("name")["energy_j"].sum()
                               .reindex(want.index), rtol=1e-12)
    stat = raw[raw["kind"] == "static"].groupby("name")["energy_j"].sum()
    np.testing.assert_allclose(got.loc[stat.index, "static_j"], stat, rtol=1e-12)
    assert list(got["total_j"]) == sorted(got["total_j"], reverse=True)
    rc, _, err = cli("energy", energy_trace, "--by", "phase", "--family", "-o", csv,
                     capsys=capsys)
    assert rc == 0, err
    got = pd.read_csv(csv).set_index("phase")
    np.testing.assert_allclose(got["s2.pe*.mla"].sum(),
                               raw[raw["name"].str.endswith(".mla")]["energy_j"].sum())
    rc, _, err = cli("energy", energy_trace, "-o", workdir / "energy.png", "-q", capsys=capsys)
    assert rc == 0, err
    check_png(workdir / "energy.png")


# ---- sweep -----------------------------------------------------------------------------------


def _sweep_rows():
    rows, point = [], 0
    for clock in ("150MHz", "300MHz", "0.6GHz"):
        for workers in ("1", "2", "4"):
            hz = {"150MHz": 150e6, "300MHz": 300e6, "0.6GHz": 600e6}[clock]
            latency = 1e9 / hz * 100 / int(workers) + 7
            status, error = ("error", "worker PE out of memory") if point == 4 else ("ok", "")
            rows.append((point, status, error, clock, workers,
                         latency if status == "ok" else np.nan, np.nan))
            point += 1
    return rows


@pytest.fixture(scope="module")
def sweep_file(workdir):
    dtype = np.dtype([("point", "<u4"), ("status", "S16"), ("error", "S256"),
                      ("param:pe.clock", "S32"), ("param:workload.dnn.workers", "S32"),
                      ("metric:latency_us", "<f8"), ("metric:energy_j", "<f8")])
    rows = _sweep_rows()
    path = workdir / "results.h5"
    with h5py.File(path, "w") as f:
        ds = f.create_dataset("results", data=np.array(rows, dtype=dtype))
        ds.attrs["sweep"] = "base: scenarios/s2_mlp_fmnist.yaml\n"
    pd.DataFrame(rows, columns=list(dtype.names)).to_csv(workdir / "results.csv", index=False)
    return path


def test_parse_quantity():
    q = analysis.parse_quantity
    assert q("300MHz") == 300e6 and q("1.6e9") == 1.6e9 and q("8") == 8.0
    assert q("5 ns") == pytest.approx(5e-9) and q("64 KiB") == 65536.0 and q("2k") == 2000.0
    assert q("1 GHz") == 1e9 and q("3 MiB") == 3 * 2 ** 20 and q("12 us") == pytest.approx(12e-6)
    assert np.isnan(q("auto")) and np.isnan(q("8 furlongs")) and np.isnan(q(""))


def test_load_sweep_hdf5_and_csv(sweep_file, workdir):
    h = analysis.load_sweep(sweep_file)
    c = analysis.load_sweep(workdir / "results.csv")
    assert len(h) == len(c) == 9
    assert h.attrs["sweep"].startswith("base:")
    for df in (h, c):
        assert list(df["status"]).count("error") == 1
        assert df.loc[df["status"] == "error", "error"].iloc[0] == "worker PE out of memory"
        assert sorted(set(df["value:pe.clock"])) == [150e6, 300e6, 600e6]
        assert df["metric:energy_j"].isna().all()
    pd.testing.assert_series_equal(h["metric:latency_us"], c["metric:latency_us"])


def test_sweep_command_table_and_png(sweep_file, workdir, nmsim_trace_cli):
    csv = workdir / "sweep.csv"
    p = run_cli(nmsim_trace_cli, "sweep", sweep_file, "--x", "pe.clock", "--y", "latency_us",
                "--hue", "workload.dnn.workers", "-o", csv)
    assert p.returncode == 0, p.stderr
    assert "1 of 9 points not ok" in p.stderr
    got = pd.read_csv(csv)
    assert len(got) == 8
    want = {(r[3], r[4]): r[5] for r in _sweep_rows() if r[1] == "ok"}
    for r in got.itertuples(index=False):
        assert r[5] == pytest.approx(want[(r[1], str(r[3]))])
    p = run_cli(nmsim_trace_cli, "sweep", sweep_file, "--x", "workload.dnn.workers", "--y",
                "metric:latency_us", "--hue", "pe.clock", "-o", workdir / "sweep.png")
    assert p.returncode == 0, p.stderr
    check_png(workdir / "sweep.png")


# ---- errors ----------------------------------------------------------------------------------


@pytest.mark.parametrize("args, message", [
    (["raster", "{mlp}"], "no BrainScaleS-2 spike tables"),
    (["breakdown", "{ff}", "-o", "x.txt"], "unknown output type"),
    (["timeline", "{mlp}", "--pes", "one"], "--pes"),
    (["timeline", "{mlp}", "--start", "10", "--end", "5"], "--end"),
    (["membrane", "{ff}", "--run", "9"], "no MADC samples in run 9"),
    (["raster", "{workdir}/missing.h5"], "no such file"),
    (["sweep", "{sweep}", "--x", "pe.clock", "--y", "watts"], "no metric 'watts'"),
    (["sweep", "{mlp}", "--x", "a", "--y", "b"], "not a sweep results file"),
])
def test_errors_exit_2_with_one_line(args, message, mlp, ff, sweep_file, workdir,
                                     nmsim_trace_cli):
    args = [a.format(mlp=mlp, ff=ff, workdir=workdir, sweep=sweep_file) for a in args]
    p = run_cli(nmsim_trace_cli, *args)
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert p.stderr.startswith("nmsim-trace: error: ") and p.stderr.count("\n") == 1, p.stderr
    assert message in p.stderr


def test_api_frames(mlp, ff):
    with nmsim_trace.load(mlp) as t:
        e = analysis.dnn_entries(t)
        assert len(e) == len(table(mlp, "dnn/entries"))
        assert e.attrs["anchored"]
        # Entries follow each other in simulated time, and the clock period is the core's.
        assert (np.diff(e["start_us"]) > 0).all()
        np.testing.assert_allclose(e.attrs["period_ps"], 1e12 / 300e6, rtol=1e-6)
        assert len(analysis.worker_times(t)) == len(table(mlp, "dnn/workers"))
        assert t.has_table("dnn/entries") and not t.has_table("events/nothing")
        # Every run writes its energy breakdown; the pivot keeps the total.
        e = analysis.energy(t)
        assert e["energy_j"].sum() > 0
        assert analysis.energy_table(t)["total_j"].sum() == pytest.approx(e["energy_j"].sum())
    with nmsim_trace.load(ff) as t:
        assert list(analysis.populations(t)["name"]) == ["inputs", "exc"]
        assert len(analysis.spikes(t, "input")) == len(table(ff, "events/bss2_input_spikes"))
        assert len(analysis.membrane(t)) == len(table(ff, "events/bss2_madc"))
        with pytest.raises(nmsim_trace.TraceError, match="dnn/entries"):
            analysis.dnn_entries(t)
