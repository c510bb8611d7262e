"""End to end: `nmsim run` on the default scenario (scenarios/s2_pe_matmul.yaml), then the trace
it wrote is read with nmsim_trace and h5py and checked against invariants that hold on every run
(no golden values): operation sizes from the scenario file itself, monotone timestamps, events
inside the run, non-overlapping sleep, counters equal to the sums over their events, and the
resolved configuration stored in the file.

The nmsim binary comes from the environment (NMSIM_BINARY, set by ctest); a missing variable
fails the tests (never a silent skip).
"""

import pathlib
import subprocess

import h5py
import numpy as np
import pytest
import yaml

import nmsim_trace

SOURCE_DIR = pathlib.Path(__file__).resolve().parents[2]
SCENARIO = SOURCE_DIR / "scenarios" / "s2_pe_matmul.yaml"
MLA_IRQ_EXCEPTION = 16 + 3  # external interrupts start at exception 16; S2_IRQ_MLA is 3 (pe_map.h)


@pytest.fixture(scope="module")
def scenario():
    with open(SCENARIO) as f:
        return yaml.safe_load(f)


@pytest.fixture(scope="module")
def run(nmsim_binary, tmp_path_factory):
    """Runs the default scenario once, in a fresh directory; returns (process, trace path)."""
    workdir = tmp_path_factory.mktemp("e2e")
    trace = workdir / "run.h5"
    p = subprocess.run([nmsim_binary, "run", str(SCENARIO), "-o", str(trace)], cwd=workdir,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, f"nmsim exited {p.returncode}\n{p.stdout}\n{p.stderr}"
    assert "result           OK" in p.stdout, p.stdout
    return p, trace


@pytest.fixture(scope="module")
def trace(run):
    with nmsim_trace.load(run[1]) as t:
        yield t


def test_run_outcome_is_ok(trace):
    assert trace.run["status"] == "ok", trace.run
    assert trace.run["message"] == ""
    assert trace.run["sim_time_ps"] > 0
    assert trace.attrs["scenario_name"] == "s2_pe_matmul"
    assert trace.attrs["seed"] == 1
    assert trace.attrs["time_unit"] == "ps"


def test_mla_op_has_the_scenario_shape(trace, scenario):
    # m, k, n from the scenario's own check, not from the simulator.
    op = scenario["workload"]["pe"]["checks"][0]["op"]
    m, k, n = int(op["m"]), int(op["k"]), int(op["n"])
    ops = trace.events("mla_ops")
    assert len(ops) == 1, ops
    row = ops.iloc[0]
    assert (int(row["m"]), int(row["k"]), int(row["n"])) == (m, k, n)
    assert int(row["macs"]) == m * k * n
    assert (ops["macs"] == ops["m"] * ops["k"] * ops["n"]).all()
    assert row["mode"] == 0  # matmul
    assert row["component_name"].endswith(".mla")


def test_timestamps_are_monotone_within_each_table(trace):
    # One PE: every time column of every table is non-decreasing in row order, and every
    # interval ends no earlier than it starts.
    checked = 0
    for kind in trace.event_kinds():
        df = trace.events(kind)
        for col in (c for c in df.columns if c.endswith("_ps")):
            t = df[col].to_numpy(dtype=np.uint64)
            assert np.all(t[1:] >= t[:-1]), f"{kind}.{col} is not monotone: {t}"
            checked += len(t)
        if "t_start_ps" in df.columns:
            assert (df["t_end_ps"] >= df["t_start_ps"]).all(), kind
    assert checked > 0


def test_events_lie_within_the_run(trace):
    end = trace.run["sim_time_ps"]
    op = trace.events("mla_ops").iloc[0]
    assert 0 < op["t_start_ps"] < op["t_end_ps"] <= end
    assert trace.last_event_ps() <= end


def test_mla_completion_interrupt_follows_the_op(trace):
    # Causality: the MLA's interrupt is pended when the op completes, and the core (in WFI while
    # the MLA works) is not woken before that.
    op = trace.events("mla_ops").iloc[0]
    irq = trace.events("irq")
    pended = irq[(irq["exception"] == MLA_IRQ_EXCEPTION) & (irq["kind"] == 0)]
    assert len(pended) == 1, irq
    assert int(pended["t_ps"].iloc[0]) == int(op["t_end_ps"])
    sleep = trace.events("sleep")
    during = sleep[(sleep["t_start_ps"] >= op["t_start_ps"]) & (sleep["t_start_ps"] < op["t_end_ps"])]
    assert len(during) >= 1, sleep
    assert (during["t_end_ps"] >= op["t_end_ps"]).all()


def test_core_sleep_intervals_do_not_overlap(trace):
    sleep = trace.events("sleep")
    assert len(sleep) >= 1  # the firmware waits for the MLA in WFI (flags bit 1)
    end = trace.run["sim_time_ps"]
    for comp, rows in sleep.groupby("component_name"):
        rows = rows.sort_values("t_start_ps")
        starts = rows["t_start_ps"].to_numpy(dtype=np.uint64)
        ends = rows["t_end_ps"].to_numpy(dtype=np.uint64)
        assert np.all(ends >= starts), comp
        assert np.all(starts[1:] >= ends[:-1]), f"{comp}: overlapping sleep intervals"
        assert ends.max() <= end
    # The core's sleep counter is the total of its intervals.
    summary = trace.summary()
    slept = summary[(summary["component"] == "s2.pe0.core") & (summary["counter"] == "sleep_ps")]
    assert len(slept) == 1
    total = int((sleep["t_end_ps"] - sleep["t_start_ps"]).sum())
    assert slept["value"].iloc[0] == pytest.approx(total, abs=1)


def test_mla_macs_counter_equals_the_sum_over_its_ops(trace):
    summary = trace.summary()
    ops = trace.events("mla_ops")
    mla = summary[summary["component"].str.endswith(".mla")]
    assert len(mla) > 0, summary
    for comp, rows in mla.groupby("component"):
        counters = dict(zip(rows["counter"], rows["value"]))
        mine = ops[ops["component_name"] == comp]
        assert counters["macs"] == int(mine["macs"].sum()), comp
        assert counters["ops"] == len(mine), comp


def test_console_line_is_in_the_trace(trace, run):
    console = trace.events("console")
    lines = list(console["text"])
    assert any(line.startswith("mla_fc: M=1 K=784 N=64") for line in lines), lines
    # The report echoes the same line on stdout (console_stdout: true).
    assert "mla_fc: M=1 K=784 N=64" in run[0].stdout


def test_h5py_reads_the_resolved_config(run):
    # A finished trace is closed properly: plain (non-SWMR) h5py opens it.
    with h5py.File(run[1], "r") as f:
        resolved = f["config/resolved"][()]
        resolved = resolved.decode() if isinstance(resolved, bytes) else str(resolved)
        assert "s2_pe_matmul" in resolved
        # The resolved scenario is YAML again, with the scenario's values.
        doc = yaml.safe_load(resolved)
        assert doc["name"] == "s2_pe_matmul"
        assert doc["seed"] == 1
        params = f["config/params"][()]
        paths = [p.decode() if isinstance(p, bytes) else p for p in params["path"]]
        assert "pe.mla.acc_bits" in paths
