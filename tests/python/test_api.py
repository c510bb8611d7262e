"""The Python API (python/nmsim): nmsim.run and nmsim.sweep over the built nmsim binary
(NMSIM_BINARY, see conftest.py). Runs a PE scenario, a 2-inference MLP, dict scenarios, bad input
and a failing simulation; a few seconds in all."""

import os
import pathlib
import sys

import pytest

SOURCE_DIR = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(SOURCE_DIR / "python"))     # also done by conftest.py

import nmsim  # noqa: E402
import nmsim_trace  # noqa: E402

SCENARIOS = SOURCE_DIR / "scenarios"

MLP_TABLE = ["dnn/inferences", "dnn/outputs", "dnn/layers"]


@pytest.fixture(scope="module")
def binary(nmsim_binary):
    return nmsim_binary


@pytest.fixture(scope="module")
def mlp(binary, tmp_path_factory):
    """The MLP for 2 inferences, without event tables (keeps the trace small)."""
    out = tmp_path_factory.mktemp("mlp")
    r = nmsim.run(SCENARIOS / "s2_mlp_fmnist.yaml", binary=binary, out=out,
                  set={"workload.dnn.count": 2, "trace.events": False})
    yield r
    r.close()


def test_pe_run(binary, tmp_path):
    r = nmsim.run(SCENARIOS / "s2_pe_matmul.yaml", binary=binary, out=tmp_path / "run")
    assert r.ok and r.returncode == 0 and r.status == "ok" and r.message == ""
    assert r.dir == tmp_path / "run"
    for name in ("trace.h5", "config.yaml", "params.yaml", "stats.txt", "stats.json",
                 "report.txt"):
        assert (r.dir / name).is_file(), name
    assert r.metrics["checks_passed"] == 1 and r.metrics["checks_failed"] == 0
    assert r.metrics["sim_time_us"] == pytest.approx(r.sim_time_us) and r.sim_time_us > 0
    assert r.units["sim_time_us"] == "us"
    assert r.counters["s2.pe0.mla"]["macs"] == 784 * 64
    assert "check            PASS y = mla_matmul(x, w, b): 64 values bit-exact" in r.report
    assert r.stdout == ""               # quiet by default
    assert r.elapsed >= r.wall_seconds > 0
    assert "s2_pe_matmul.yaml:11:" in r.params["pe.perf_level"]["origin"]
    # the trace, opened lazily; tables as DataFrames
    t = r.trace
    assert t is r.trace and t.run["status"] == "ok"
    ops = t.events("mla_ops")
    assert len(ops) == 1 and set(ops["component_name"]) == {"s2.pe0.mla"}
    r.close()
    assert (tmp_path / "run" / "trace.h5").is_file()        # out= is never removed


def test_mlp_metrics_and_trace(mlp):
    r = mlp
    assert r.ok, r.stderr
    assert r.metrics["dnn.inferences"] == 2
    assert r.metrics["dnn.bit_exact_fraction"] == 1.0
    assert r.units["dnn.total_us"] == "us" and 600 < r.metrics["dnn.total_us"] < 800
    assert "check            PASS 2/2 outputs bit-exact" in r.report
    t = r.trace
    assert all(t.has_table(name) for name in MLP_TABLE)
    inf = nmsim_trace.dnn_inferences(t)
    assert list(inf["inference"]) == [0, 1]
    assert (inf["predicted"] == inf["reference_predicted"]).all()
    out = nmsim_trace.dnn_outputs(t)
    assert len(out) == 2 * 16 and (out["chip"] == out["reference"]).all()
    assert list(nmsim_trace.dnn_layers(t)["name"])[1] == "/0/Gemm"


def test_temporary_directory_lifetime(binary):
    r = nmsim.run(SCENARIOS / "s2_pe_matmul.yaml", binary=binary)
    d = r.dir
    assert r.temporary and d.is_dir()
    t = r.trace
    del r                                # the trace keeps the run and its directory alive
    assert d.is_dir() and t.rows("mla_ops") == 1
    t._nmsim_run.close()
    assert not d.exists()
    with nmsim.run(SCENARIOS / "s2_pe_matmul.yaml", binary=binary) as r:
        d = r.keep()
    assert d.is_dir()
    nmsim.run(d / "config.yaml", binary=binary, out=d).close()   # the resolved scenario reruns


def test_dict_scenario_relative_paths_and_sets(binary, tmp_path, monkeypatch):
    scenario = {
        "name": "api_mlp",
        "platform": {"kind": "spinnaker2_chip", "params": {"pe.perf_level": 1}},
        "workload": {"dnn": {"model": "models/mlp_fmnist_int8.onnx",
                             "inputs": "models/fmnist_test_1000.bin",
                             "labels": "models/fmnist_test_1000_labels.bin",
                             "count": 1, "workers": 8}},
        "trace": {"events": False},
    }
    sets = {"workload.dnn.first": 1, "workload.dnn.layer_workers": [4, 4, 1, 1],
            "pe.perf_level": 0, "trace.events": False}
    r = nmsim.run(scenario, set=sets, binary=binary, base_dir=SCENARIOS, out=tmp_path / "a")
    assert r.ok, r.stderr
    assert (r.dir / "scenario.yaml").is_file() and r.scenario == "api_mlp"
    assert r.metrics["dnn.inferences"] == 1 and r.metrics["dnn.workers"] == 8
    assert r.params["pe.perf_level"]["value"] == 0
    assert r.params["pe.perf_level"]["origin"] == "--set"
    assert "layer_workers: [4, 4, 1, 1]" in r.config and "first: 1" in r.config
    assert nmsim_trace.dnn_inferences(r.trace)["input"].tolist() == [1]
    r.close()
    # without base_dir, relative paths resolve against the current directory
    monkeypatch.chdir(SCENARIOS)
    r = nmsim.run(scenario, binary=binary)
    assert r.ok and r.metrics["dnn.inferences"] == 1
    r.close()


def test_format_value():
    assert nmsim.format_value(True) == "true" and nmsim.format_value(3) == "3"
    assert nmsim.format_value(0.1) == "0.1" and nmsim.format_value(1.6e9) == "1600000000.0"
    assert nmsim.format_value("300MHz") == "300MHz"
    assert nmsim.format_value([8, 4, 1, 1]) == "[8, 4, 1, 1]"
    assert nmsim.format_value(((5000,), (10000,))) == "[[5000], [10000]]"
    assert nmsim.format_value({"random": [-1, 1]}) == "{random: [-1, 1]}"


def test_bad_input_raises_with_the_cli_message(binary, tmp_path):
    with pytest.raises(nmsim.ScenarioError) as e:
        nmsim.run(SCENARIOS / "s2_pe_matmul.yaml", binary=binary, set={"pe.perf_level": 7})
    assert str(e.value) == "--set: error: pe.perf_level: value 7 out of range [0, 1]"
    assert e.value.returncode == 2 and e.value.errors[0]["key"] == "pe.perf_level"
    # a dict scenario: the message names the written file, line, column and key
    bad = {"name": "bad", "platform": {"kind": "spinnaker2_pe"},
           "workload": {"pe": {"cores": [{"pe": 0, "firmware": "mla_fc"}], "bogus": 1}}}
    with pytest.raises(nmsim.InputError) as e:
        nmsim.run(bad, binary=binary, out=tmp_path / "bad")
    path = str(tmp_path / "bad" / "scenario.yaml")
    msg = str(e.value)
    assert msg.startswith(path + ":") and ": error: workload.pe.bogus: unknown key" in msg
    err = e.value.errors[0]
    assert err["file"] == path and err["line"] == 7 and err["key"] == "workload.pe.bogus"
    assert e.value.scenario_yaml.splitlines()[err["line"] - 1].strip().startswith("bogus:")
    with pytest.raises(nmsim.InputError, match="no_such.yaml"):
        nmsim.run(tmp_path / "no_such.yaml", binary=binary)
    with pytest.raises(nmsim.BinaryNotFoundError):
        nmsim.run(SCENARIOS / "s2_pe_matmul.yaml", binary=tmp_path / "nmsim")


def test_failing_simulation(binary):
    r = nmsim.run(SCENARIOS / "s2_pe_fault.yaml", binary=binary)
    assert not r.ok and r.returncode == 1 and r.status == "error"
    assert "bus error" in r.message and "result           FAILED" in r.report
    assert r.trace.run["status"] == "error"
    assert len(r.trace.events("faults")) == 1
    r.close()
    with pytest.raises(nmsim.SimulationError, match="bus error") as e:
        nmsim.run(SCENARIOS / "s2_pe_fault.yaml", binary=binary, check=True)
    assert e.value.result.ok is False
    e.value.result.close()


def test_binary_discovery(binary, monkeypatch, tmp_path):
    monkeypatch.setenv("NMSIM_BINARY", binary)
    assert nmsim.find_binary() == os.path.abspath(binary)
    monkeypatch.setenv("NMSIM_BINARY", str(tmp_path / "missing"))
    with pytest.raises(nmsim.BinaryNotFoundError, match="NMSIM_BINARY="):
        nmsim.find_binary()
    monkeypatch.delenv("NMSIM_BINARY")
    monkeypatch.setenv("PATH", str(pathlib.Path(binary).parent))
    assert nmsim.find_binary() == os.path.abspath(binary)


def test_sweep(binary, tmp_path):
    spec = {"name": "api", "base": "s2_pe_matmul.yaml",
            "axes": {"pe.perf_level": [0, 1]},
            "metrics": ["sim_time_us", "checks_passed", "s2.pe0.core/clock_hz"]}
    s = nmsim.sweep(spec, binary=binary, base_dir=SCENARIOS, out=tmp_path / "sw", jobs=2)
    assert s.ok and s.returncode == 0
    df = s.results
    assert list(df["point"]) == [0, 1] and set(df["status"]) == {"ok"}
    assert list(df["metric:s2.pe0.core/clock_hz"]) == [150e6, 300e6]
    assert s.metric("sim_time_us")[0] > s.metric("sim_time_us")[1]
    assert s.failed.empty and list(s.points["param:pe.perf_level"]) == ["0", "1"]
    with s.trace(1) as t:
        assert t.run["status"] == "ok"
    failing = nmsim.sweep({"base": str(SCENARIOS / "s2_pe_fault.yaml"),
                           "axes": {"seed": [1, 2]}}, binary=binary, jobs=2)
    assert not failing.ok and len(failing.failed) == 2
    assert "bus error" in failing.failed["error"].iloc[0]
    d = failing.dir
    failing.close()
    assert not d.exists()
    with pytest.raises(nmsim.InputError, match='did you mean "axes"'):
        nmsim.sweep({"base": "s2_pe_matmul.yaml", "axez": {"seed": [1]}}, binary=binary,
                    base_dir=SCENARIOS)
