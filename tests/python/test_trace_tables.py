"""The run-output tables of issue 11 (dnn/layers, dnn/inferences, dnn/outputs, bss2/populations,
bss2/runs, bss2/rates) through nmsim_trace.analysis, and the fall-backs for traces written
before them; layer names and the DNN "Total" the same everywhere.

The tables are written into copies of real traces with h5py after their specification (the
layout of the C++ writer, tests/python/trace_fixtures.py); traces that already hold them are
stripped first, so the tests hold before and after the simulator writes them.
"""

import json

import numpy as np
import pandas as pd
import pytest

import nmsim_trace
from nmsim_trace import analysis
from nmsim_trace.cli import main as cli_main
from trace_fixtures import (NEW_BSS2_TABLES, NEW_DNN_TABLES, add_bss2_tables, add_dnn_tables,
                            copy_trace, counters, report_layers, run_nmsim, table)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    return tmp_path_factory.mktemp("tables")


@pytest.fixture(scope="module")
def mlp_run(nmsim_binary, workdir):
    return run_nmsim(nmsim_binary, workdir, "s2_mlp_fmnist.yaml", workdir / "mlp_raw.h5",
                     "workload.dnn.count=3")


@pytest.fixture(scope="module")
def mlp_old(mlp_run, workdir):
    """The MLP trace as written before the issue-11 tables."""
    return copy_trace(mlp_run[0], workdir / "mlp_old.h5", NEW_DNN_TABLES)


def _dnn_rows(mlp, report):
    """Contents for the new DNN tables, derived from the run: the report's layer names and
    kinds, the entries' totals, made-up but consistent outputs."""
    rows, _ = report_layers(report)
    e = table(mlp, "dnn/entries")
    clock = counters(mlp)[("s2.pe0.core", "clock_hz")][0]
    n = int(e["inference"].max()) + 1
    layers = {"entry": list(range(len(rows))), "name": [r[0] for r in rows],
              "kind": ["" if r[0] in ("setup", "cleanup") else r[1] for r in rows],
              "workers": [r[3] for r in rows]}
    totals = []
    for _, g in e.groupby("inference"):
        g = g.sort_values("entry")
        cycles = (int(g["end_cycles"].iloc[-1]) - int(g["start_cycles"].iloc[0])) % (1 << 32)
        totals.append(int(cycles / clock * 1e12))
    rng = np.random.default_rng(11)
    chip = rng.integers(-128, 128, size=(n, 16))
    reference = chip.copy()
    reference[1, 3] += 1 if reference[1, 3] < 127 else -1  # inference 1: one mismatch
    onnx = chip.copy()
    onnx[0, 5] += 1 if onnx[0, 5] < 127 else -1
    onnx[2, 7] += 1 if onnx[2, 7] < 127 else -1
    predicted = chip.argmax(axis=1)
    inferences = {"inference": list(range(n)), "input": [10 + i for i in range(n)],
                  "label": [int(predicted[0]), (int(predicted[1]) + 1) % 16, -1],
                  "predicted": predicted.tolist(),
                  "reference_predicted": reference.argmax(axis=1).tolist(),
                  "float_predicted": predicted.tolist(), "check": [1, 0, 2],
                  "mismatches": [0, 1, 0], "onnx_mismatches": [1, 0, 1],
                  "onnx_max_lsb": [1, 0, 1], "total_ps": totals,
                  "host_ps": [800_000_000 + i for i in range(n)]}
    outputs = {"inference": np.repeat(np.arange(n), 16), "element": np.tile(np.arange(16), n),
               "chip": chip.ravel(), "reference": reference.ravel(), "onnx": onnx.ravel()}
    return layers, inferences, outputs


@pytest.fixture(scope="module")
def mlp_new(mlp_run, workdir):
    """The MLP trace with the issue-11 DNN tables."""
    path = copy_trace(mlp_run[0], workdir / "mlp_new.h5", NEW_DNN_TABLES)
    add_dnn_tables(path, *_dnn_rows(*mlp_run))
    return path


@pytest.fixture(scope="module")
def ff_run(nmsim_binary, workdir):
    return run_nmsim(nmsim_binary, workdir, "bss2_feedforward.yaml", workdir / "ff_raw.h5",
                     "workload.bss2.runtime_us=200",
                     "workload.bss2.input_sweep.rates_hz=[20000,80000,40000]")


@pytest.fixture(scope="module")
def ff_old(ff_run, workdir):
    return copy_trace(ff_run[0], workdir / "ff_old.h5", NEW_BSS2_TABLES)


def _bss2_rows(ff):
    m = counters(ff)
    pops = {"population": [0, 1], "name": ["in_renamed", "exc_renamed"],
            "kind": ["external", "internal"], "size": [64, 32]}
    runs = {"run": [0, 1, 2], "input_rate_hz": [20000.0, 80000.0, 40000.0],
            "runtime_us": [200.0] * 3}
    rates = {"run": [], "population": [], "rate_hz": [], "spikes": []}
    for r in range(3):
        for p, name, size in ((0, "inputs", 64), (1, "exc", 32)):
            hz = m[("metrics", f"bss2.rate.{name}.run{r}")][0]
            rates["run"].append(r)
            rates["population"].append(p)
            rates["rate_hz"].append(hz + 0.25)  # marks the table's values
            rates["spikes"].append(int(round(hz * size * 200e-6)))
    return pops, runs, rates


@pytest.fixture(scope="module")
def ff_new(ff_run, workdir):
    path = copy_trace(ff_run[0], workdir / "ff_new.h5", NEW_BSS2_TABLES)
    add_bss2_tables(path, *_bss2_rows(ff_run[0]))
    return path


def cli(capsys, *args):
    rc = cli_main([str(a) for a in args])
    out, err = capsys.readouterr()
    return rc, out, err


# ---- layer names ------------------------------------------------------------------------------


def test_layer_names_from_dnn_layers(mlp_new, mlp_run):
    rows, _ = report_layers(mlp_run[1])
    with nmsim_trace.load(mlp_new) as t:
        d = analysis.dnn_layers(t)
        assert d.attrs["source"] == "dnn/layers"
        assert list(d["name"]) == [r[0] for r in rows]
        assert list(d["kind"][1:-1]) == [r[1] for r in rows[1:-1]]
        assert d["kind"][1].startswith("linear+relu [1, 784]")
        assert list(d["layer"]) == [-1, 0, 1, 2, 3, -1]
        assert list(d["workers"]) == [r[3] for r in rows]
        b = analysis.dnn_breakdown(t)
        assert list(b["kind"][1:-2]) == [r[1] for r in rows[1:-1]]


def test_layer_names_fall_back_to_energy_phases_then_index(mlp_old, mlp_run, workdir):
    rows, _ = report_layers(mlp_run[1])
    with nmsim_trace.load(mlp_old) as t:
        d = analysis.dnn_layers(t)
        assert d.attrs["source"] == "energy/breakdown"
        assert list(d["name"]) == [r[0] for r in rows]  # the report's names
        assert set(d["kind"]) == {""}
    older = copy_trace(mlp_old, workdir / "mlp_older.h5", ["energy/breakdown"])
    with nmsim_trace.load(older) as t:
        d = analysis.dnn_layers(t)
        assert d.attrs["source"] == "index"
        assert list(d["name"]) == ["setup", "layer 0", "layer 1", "layer 2", "layer 3",
                                   "cleanup"]
        assert list(analysis.worker_times(t)["name"].unique()) == ["layer 0", "layer 1",
                                                                   "layer 2", "layer 3"]


def test_table_names_win_over_energy_phases(mlp_run, workdir, capsys):
    """Names come from dnn/layers wherever a layer is named: breakdown, timeline, Chrome."""
    path = copy_trace(mlp_run[0], workdir / "mlp_names.h5", NEW_DNN_TABLES)
    layers, inferences, outputs = _dnn_rows(*mlp_run)
    layers["name"] = ["setup", "fc1", "fc2", "fc3", "softmax", "cleanup"]
    add_dnn_tables(path, layers, inferences, outputs)
    csv = workdir / "names.csv"
    rc, _, err = cli(capsys, "breakdown", path, "-o", csv)
    assert rc == 0, err
    assert list(pd.read_csv(csv)["name"]) == layers["name"] + ["between entries"]
    rc, _, err = cli(capsys, "timeline", path, "-o", csv)
    assert rc == 0, err
    tl = pd.read_csv(csv)
    assert set(tl.loc[tl["kind"] == "layer", "name"]) == set(layers["name"])
    out = workdir / "names.json"
    rc, _, err = cli(capsys, "export-chrome", path, "-o", out)
    assert rc == 0, err
    events = json.loads(out.read_text())["traceEvents"]
    names = {e["name"] for e in events if e.get("cat") == "dnn"}
    assert names == set(layers["name"])


def test_layer_names_the_same_everywhere(mlp_old, mlp_run, workdir, capsys):
    """Report, energy phases, breakdown, timeline and Chrome export use the ONNX node names."""
    rows, _ = report_layers(mlp_run[1])
    report = [r[0] for r in rows]
    with nmsim_trace.load(mlp_old) as t:
        phases = [p for p in analysis.energy(t)["phase"].unique()
                  if p not in ("image load", "host")]
        entries = list(analysis.dnn_entries(t)["name"].unique())
        workers = list(analysis.worker_times(t)["name"].unique())
    assert phases == report and entries == report and workers == report[1:-1]
    csv = workdir / "same.csv"
    rc, _, err = cli(capsys, "timeline", mlp_old, "--all", "-o", csv)
    assert rc == 0, err
    tl = pd.read_csv(csv)
    assert set(tl.loc[tl["kind"] == "layer", "name"]) == set(report)
    out = workdir / "same.json"
    rc, _, err = cli(capsys, "export-chrome", mlp_old, "-o", out)
    assert rc == 0, err
    events = json.loads(out.read_text())["traceEvents"]
    assert {e["name"] for e in events if e.get("cat") == "dnn"} == set(report)
    rc, out_text, err = cli(capsys, "energy", mlp_old, "--by", "phase")
    assert rc == 0, err
    shown = [ln.split()[0] for ln in out_text.splitlines()[2:]]
    assert [p for p in shown if p.startswith("/")] == report[1:-1]


# ---- one Total --------------------------------------------------------------------------------


def test_total_is_the_reports(mlp_old, mlp_new, mlp_run):
    _, report_total = report_layers(mlp_run[1])
    metric = counters(mlp_old)[("metrics", "dnn.total_us")][0]
    for path in (mlp_old, mlp_new):
        with nmsim_trace.load(path) as t:
            tot = analysis.dnn_totals(t)
            b = analysis.dnn_breakdown(t)
        assert len(tot) == 3
        np.testing.assert_allclose(tot["total_us"].mean(), metric, rtol=1e-9)
        assert abs(tot["total_us"].mean() - report_total) <= 0.05 + 1e-9
        np.testing.assert_allclose(b.attrs["total_us"], tot["total_us"].mean(), rtol=1e-12)
        np.testing.assert_allclose(b["mean_us"].sum(), b.attrs["total_us"], rtol=1e-12)
        np.testing.assert_allclose(tot["entries_us"] + tot["between_us"], tot["total_us"])
        assert (tot["between_us"] > 0).all()
        assert b["name"].iloc[-1] == "between entries"
        np.testing.assert_allclose(b["mean_us"].iloc[-1], tot["between_us"].mean())


def test_total_from_dnn_inferences(mlp_run, workdir):
    """dnn/inferences.total_ps is the Total per inference when the trace has it."""
    path = copy_trace(mlp_run[0], workdir / "mlp_total.h5", NEW_DNN_TABLES)
    layers, inferences, outputs = _dnn_rows(*mlp_run)
    inferences["total_ps"] = [v + 1_000_000 * (i + 1) for i, v in
                              enumerate(inferences["total_ps"])]
    add_dnn_tables(path, layers, inferences, outputs)
    with nmsim_trace.load(path) as t:
        tot = analysis.dnn_totals(t)
    np.testing.assert_allclose(tot["total_us"], np.array(inferences["total_ps"]) / 1e6)


# ---- dnn/inferences and dnn/outputs -----------------------------------------------------------


def test_dnn_inferences(mlp_new, mlp_run):
    _, inf, _ = _dnn_rows(*mlp_run)
    with nmsim_trace.load(mlp_new) as t:
        d = analysis.dnn_inferences(t)
    assert list(d["inference"]) == [0, 1, 2]
    assert list(d["input"]) == inf["input"]
    assert list(d["check_name"]) == ["bit-exact", "mismatch", "not checked"]
    np.testing.assert_allclose(d["total_us"], np.array(inf["total_ps"]) / 1e6)
    np.testing.assert_allclose(d["host_us"], np.array(inf["host_ps"]) / 1e6)
    assert d["correct"].tolist()[:2] == [1.0, 0.0] and np.isnan(d["correct"].iloc[2])
    assert list(d["mismatches"]) == [0, 1, 0] and list(d["onnx_max_lsb"]) == [1, 0, 1]


def test_dnn_outputs(mlp_new, mlp_run):
    _, _, out = _dnn_rows(*mlp_run)
    with nmsim_trace.load(mlp_new) as t:
        d = analysis.dnn_outputs(t)
        one = analysis.dnn_outputs(t, inference=1)
        m = analysis.dnn_output_matrix(t)
        ref = analysis.dnn_output_matrix(t, "reference")
        inf = analysis.dnn_inferences(t)
    assert len(d) == 3 * 16 and len(one) == 16 and (one["inference"] == 1).all()
    np.testing.assert_array_equal(m.ravel(), out["chip"])
    np.testing.assert_array_equal(ref.ravel(), out["reference"])
    assert m.shape == (3, 16)
    # The differences are the ones put in, and agree with the per-inference counts.
    bad = d[d["diff_reference"] != 0]
    assert list(zip(bad["inference"], bad["element"])) == [(1, 3)]
    assert abs(int(bad["diff_reference"].iloc[0])) == 1
    per_inf = d.groupby("inference")["diff_reference"].apply(lambda s: int((s != 0).sum()))
    assert list(per_inf) == list(inf["mismatches"])
    per_inf = d.groupby("inference")["diff_onnx"].apply(lambda s: int((s != 0).sum()))
    assert list(per_inf) == list(inf["onnx_mismatches"])
    np.testing.assert_array_equal(m.argmax(axis=1), inf["predicted"])


def test_old_traces_name_the_missing_table(mlp_old, ff_old):
    with nmsim_trace.load(mlp_old) as t:
        for f, table_name in ((analysis.dnn_inferences, "dnn/inferences"),
                              (analysis.dnn_outputs, "dnn/outputs")):
            with pytest.raises(nmsim_trace.TraceError, match=f"no {table_name} table.*since "
                                                             "issue 11"):
                f(t)
    with nmsim_trace.load(ff_old) as t:
        with pytest.raises(nmsim_trace.TraceError, match="SpiNNaker2 chip DNN runs"):
            analysis.dnn_outputs(t)


# ---- BrainScaleS-2 tables ---------------------------------------------------------------------


def test_bss2_tables(ff_new, ff_run):
    pops, runs, rates = _bss2_rows(ff_run[0])
    with nmsim_trace.load(ff_new) as t:
        p = analysis.populations(t)
        r = analysis.bss2_runs(t)
        rt = analysis.bss2_rates(t)
    assert list(p["name"]) == pops["name"] and list(p["offset"]) == [0, 64]
    assert r.attrs["source"] == "bss2/runs"
    np.testing.assert_array_equal(r["input_rate_hz"], runs["input_rate_hz"])
    assert rt.attrs["source"] == "bss2/rates"
    np.testing.assert_allclose(rt["rate_hz"], rates["rate_hz"])
    assert list(rt["population_name"]) == ["in_renamed", "exc_renamed"] * 3
    assert list(rt["kind"]) == ["external", "internal"] * 3
    np.testing.assert_array_equal(rt["input_rate_hz"], np.repeat(runs["input_rate_hz"], 2))


def test_bss2_fallbacks_match_the_report(ff_old):
    m = counters(ff_old)
    with nmsim_trace.load(ff_old) as t:
        p = analysis.populations(t)
        r = analysis.bss2_runs(t)
        rt = analysis.bss2_rates(t)
    assert list(p["name"]) == ["inputs", "exc"]  # from the network file
    assert r.attrs["source"] == "config"
    np.testing.assert_array_equal(r["input_rate_hz"], [20000, 80000, 40000])
    np.testing.assert_array_equal(r["runtime_us"], [200.0] * 3)
    assert rt.attrs["source"] == "spikes"
    for row in rt.itertuples(index=False):
        want = m[("metrics", f"bss2.rate.{row.population_name}.run{row.run}")][0]
        assert row.rate_hz == pytest.approx(want, rel=1e-12)


def test_bss2_runs_without_one_rate(ff_run, workdir):
    """Runs whose inputs do not share one rate get NaN (the config of the recurrent WTA)."""
    path = copy_trace(ff_run[0], workdir / "ff_mixed.h5", NEW_BSS2_TABLES)
    import h5py
    import yaml

    with h5py.File(path, "a") as f:
        doc = yaml.safe_load(f["config/resolved"][()].decode())
        runs = doc["workload"]["bss2"]["runs"]
        runs[1]["inputs"].append({"population": "inputs", "kind": "poisson", "rate_hz": 1.0,
                                  "start_us": 0})
        runs[2]["inputs"][0]["kind"] = "spikes"
        del f["config/resolved"]
        f["config/resolved"] = yaml.safe_dump(doc)
    with nmsim_trace.load(path) as t:
        r = analysis.bss2_runs(t)
    assert r["input_rate_hz"].iloc[0] == 20000
    assert np.isnan(r["input_rate_hz"].iloc[1]) and np.isnan(r["input_rate_hz"].iloc[2])
