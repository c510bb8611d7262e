"""What a run leaves behind, as the simulator writes it (real runs, no augmented traces): the DNN
tables per inference and output element agree with each other and with the metrics and the
report; the BrainScaleS-2 rates table is the report's; `nmsim run -d DIR` writes the trace, the
resolved configuration (which runs again to the same results), the parameters, stats.txt/json
with every counter and the report."""

import json
import re
import subprocess

import numpy as np
import pytest
import yaml

from scenario_runs import SOURCE_DIR, metrics, run


@pytest.fixture(scope="module")
def mlp(nmsim_binary, tmp_path_factory):
    return run(nmsim_binary, tmp_path_factory.mktemp("mlp"), "s2_mlp_fmnist.yaml",
               "workload.dnn.count=4", "workload.dnn.first=10")


def test_dnn_tables_per_inference(mlp):
    m = metrics(mlp)
    inf = mlp.table("dnn/inferences")
    out = mlp.table("dnn/outputs")
    layers = mlp.table("dnn/layers")
    assert list(inf["inference"]) == [0, 1, 2, 3]
    assert list(inf["input"]) == [10, 11, 12, 13]
    assert (inf["check"] == 1).all() and (inf["mismatches"] == 0).all()
    # 16 logits per inference, the chip equal to the reference (the check passed).
    assert len(out) == 4 * 16
    assert (out["chip"] == out["reference"]).all()
    for i, g in out.groupby("inference"):
        chip = g.sort_values("element")["chip"].to_numpy()
        row = inf[inf["inference"] == i].iloc[0]
        assert row["predicted"] == int(np.argmax(chip))
        assert row["onnx_mismatches"] == int((g["chip"] != g["onnx"]).sum())
    labels = np.fromfile(SOURCE_DIR / "scenarios/models/fmnist_test_1000_labels.bin",
                         dtype=np.uint8)
    assert list(inf["label"]) == list(labels[10:14])
    # The Total per inference averages to the metric the report prints.
    assert inf["total_ps"].mean() / 1e6 == pytest.approx(m["dnn.total_us"], abs=1e-6)
    assert m["dnn.onnx_mismatches"] == inf["onnx_mismatches"].sum()
    # The layer list names every entry as the report and the energy phases do.
    assert list(layers["name"]) == ["setup", "/0/Gemm", "/2/Gemm", "/4/Gemm", "/5/Softmax",
                                    "cleanup"]
    phases = set(mlp.table("energy/breakdown")["phase"])
    assert set(layers["name"]) <= phases


def test_bss2_rates_table_is_the_reports(nmsim_binary, tmp_path):
    t = run(nmsim_binary, tmp_path, "bss2_feedforward.yaml", "workload.bss2.runtime_us=200",
            "workload.bss2.dot=~")
    m = metrics(t)
    pops = t.table("bss2/populations")
    rates = t.table("bss2/rates")
    runs = t.table("bss2/runs")
    assert list(pops["name"]) == ["inputs", "exc"]
    assert list(runs["input_rate_hz"]) == [5e3, 10e3, 20e3, 30e3, 40e3, 60e3, 80e3, 100e3]
    names = dict(zip(pops["population"], pops["name"]))
    for _, r in rates.iterrows():
        assert r["rate_hz"] == pytest.approx(
            m[f"bss2.rate.{names[r['population']]}.run{int(r['run'])}"])
        size = int(pops[pops["population"] == r["population"]]["size"].iloc[0])
        assert r["rate_hz"] == pytest.approx(r["spikes"] / size / 200e-6)
    inputs = rates[rates["population"] == 0]["spikes"].sum()
    assert inputs == m["bss2.input_spikes"]


def test_run_directory(nmsim_binary, tmp_path):
    d = tmp_path / "out"
    scenario = SOURCE_DIR / "scenarios" / "s2_pe_matmul.yaml"
    p = subprocess.run([nmsim_binary, "run", str(scenario), "-d", str(d), "-q"],
                       cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert sorted(x.name for x in d.iterdir()) == ["config.yaml", "params.yaml", "report.txt",
                                                  "stats.json", "stats.txt", "trace.h5"]
    stats = json.loads((d / "stats.json").read_text())
    assert stats["status"] == "ok" and stats["workload"] == "pe"
    assert stats["metrics"]["checks_passed"] == {"value": 1.0, "unit": "1"}
    assert stats["trace"] == str(d / "trace.h5")
    mla = stats["counters"]["s2.pe0.mla"]
    assert mla["macs"]["value"] == 784 * 64
    txt = (d / "stats.txt").read_text()
    assert re.search(r"^metrics\.ok\s+1\s+1$", txt, re.M), txt
    assert re.search(r"^s2\.pe0\.mla\.macs\s+50176\s+", txt, re.M), txt
    params = yaml.safe_load((d / "params.yaml").read_text())
    assert params["pe.mla.acc_bits"]["origin"] == "default"
    assert params["pe.perf_level"]["origin"].endswith("s2_pe_matmul.yaml:11:20")
    report = (d / "report.txt").read_text()
    assert "check            PASS" in report and "result           OK" in report
    # The resolved configuration runs again, from anywhere, to the same metrics.
    again = tmp_path / "again"
    p = subprocess.run([nmsim_binary, "run", str(d / "config.yaml"), "-d", str(again), "-q"],
                       cwd="/", capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert p.stderr == ""  # the current form: no warnings
    again_stats = json.loads((again / "stats.json").read_text())
    assert again_stats["metrics"] == stats["metrics"]


def test_failed_run_still_leaves_its_directory(nmsim_binary, tmp_path):
    d = tmp_path / "fault"
    p = subprocess.run([nmsim_binary, "run", str(SOURCE_DIR / "scenarios" / "s2_pe_fault.yaml"),
                        "-d", str(d), "-q"], cwd=tmp_path, capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 1
    stats = json.loads((d / "stats.json").read_text())
    assert stats["status"] == "error" and "STATUS" in stats["message"]
    assert "result           FAILED" in (d / "report.txt").read_text()


def test_output_and_run_directory_exclude_each_other(nmsim_binary, tmp_path):
    p = subprocess.run([nmsim_binary, "run", str(SOURCE_DIR / "scenarios" / "s2_pe_dma.yaml"),
                        "-d", str(tmp_path / "d"), "-o", str(tmp_path / "t.h5")],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2
    assert "give -o (a trace file) or -d (a run directory), not both" in p.stderr


def test_progress_lines_in_logs(nmsim_binary, tmp_path):
    base = [nmsim_binary, "run", str(SOURCE_DIR / "scenarios" / "s2_mlp_fmnist.yaml"),
            "--set", "workload.dnn.count=40", "-o", str(tmp_path / "t.h5")]
    p = subprocess.run(base + ["--progress-interval", "0.05"], cwd=tmp_path, capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    lines = [l for l in p.stderr.splitlines() if l.startswith("nmsim run s2_mlp_fmnist")]
    assert lines, p.stderr  # stderr is a pipe here: plain log lines, no carriage returns
    assert "\r" not in p.stderr
    done = [int(re.search(r"\] (\d+)/40 inferences", l).group(1)) for l in lines]
    assert done == sorted(done) and done[-1] <= 40
    assert all("sim " in l for l in lines)
    assert "result           OK" in p.stdout  # the report is on stdout, unmixed
    q = subprocess.run(base + ["--progress-interval", "0.05", "-q"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=120)
    assert q.returncode == 0 and q.stderr == "" and q.stdout == ""


def _long_mlp(nmsim_binary, tmp_path, *extra):
    return [nmsim_binary, "run", str(SOURCE_DIR / "scenarios" / "s2_mlp_fmnist.yaml"),
            "--set", "workload.dnn.count=1000", "-o", str(tmp_path / "t.h5"),
            "--progress-interval", "0.2", *extra]


@pytest.mark.parametrize("sig,code", [("SIGINT", 130), ("SIGTERM", 143)])
def test_signal_stops_the_run_and_keeps_its_trace(nmsim_binary, nmsim_trace_cli, tmp_path, sig,
                                                  code):
    import signal

    p = subprocess.Popen(_long_mlp(nmsim_binary, tmp_path), cwd=tmp_path, text=True,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    # Wait until inferences are running (the first progress line), then signal.
    line = p.stderr.readline()
    assert "inferences" in line, line
    p.send_signal(getattr(signal, sig))
    out, err = p.communicate(timeout=120)
    assert p.returncode == code, err
    m = re.search(rf"interrupted by {sig} at .* of simulated time \((\d+) of 1000 inferences",
                  err)
    assert m, err
    done = int(m.group(1))
    assert 0 < done < 1000
    assert "result           INTERRUPTED: interrupted by " + sig in out
    import nmsim_trace

    t = nmsim_trace.load(str(tmp_path / "t.h5"))
    assert t.run["status"] == "interrupted"
    assert len(t.table("dnn/inferences")) == done
    assert metrics(t)["dnn.inferences"] == done
    b = subprocess.run([nmsim_trace_cli, "breakdown", str(tmp_path / "t.h5")],
                       capture_output=True, text=True, timeout=60)
    assert b.returncode == 0, b.stderr
    assert f"mean of {done} inferences" in b.stdout
    s = subprocess.run([nmsim_trace_cli, "summary", str(tmp_path / "t.h5")],
                       capture_output=True, text=True, timeout=60)
    assert s.returncode == 0 and "interrupted" in s.stdout


def test_wall_time_limit_stops_the_run_as_timeout(nmsim_binary, tmp_path):
    # 1 s: 1000 inferences take over 3 s (3.3 ms each on the development machine); how many
    # finish before the limit depends on the machine and its load, so only "some, not all" is
    # checked (the SIGINT test checks the tables).
    p = subprocess.run(_long_mlp(nmsim_binary, tmp_path, "--max-wall", "1"), cwd=tmp_path,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 1, p.stderr
    assert "timeout: the wall-time limit of 1.0 s was reached at" in p.stderr
    import nmsim_trace

    t = nmsim_trace.load(str(tmp_path / "t.h5"))
    assert t.run["status"] == "timeout"
    assert len(t.table("dnn/inferences")) < 1000
