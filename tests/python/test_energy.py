"""Energy model (docs/energy.md): energy/breakdown recomputed from the run's own counters and
parameters, not from golden values. Every dynamic row must be (counter delta) x (parameter), the
phases must add up to the counters' totals, static rows must cover the simulated time, and the
metrics must equal the table.

NMSIM_BINARY comes from ctest; a missing variable fails the tests.
"""

import re

import pytest

from nmsim_trace import analysis
from scenario_runs import metrics, run

UNITS = {"f": 1e-15, "p": 1e-12, "n": 1e-9, "u": 1e-6, "m": 1e-3, "": 1.0}


def param(t, path):
    """A parameter in SI units ("14.98pJ" -> 1.498e-11, "0.8V" -> 0.8, "0.5" -> 0.5)."""
    p = t.params
    v = p[p["path"] == path]["value"].iloc[0]
    m = re.fullmatch(r"([-+0-9.eE]+)\s*([fpnum]?)(J|W|V)?", v)
    assert m, v
    return float(m.group(1)) * UNITS[m.group(2)]


def counter(t, component, name):
    s = t.summary()
    return float(s[(s["component"] == component) & (s["counter"] == name)]["value"].iloc[0])


def rows(e, component, quantity):
    return e[(e["component_name"] == component) & (e["quantity"] == quantity)]


def test_pe_run_matches_counters_and_parameters(nmsim_binary, tmp_path):
    t = run(nmsim_binary, tmp_path, "s2_pe_matmul.yaml")
    e = analysis.energy(t)
    m = metrics(t)
    cycles = rows(e, "s2.pe0.core", "cycles@PL1")
    assert cycles["count"].sum() == pytest.approx(counter(t, "s2.pe0.core", "cycles"), rel=1e-9)
    assert cycles["energy_j"].sum() == pytest.approx(
        cycles["count"].sum() * param(t, "pe.energy.cycle_energy_pl1"), rel=1e-9)
    macs = rows(e, "s2.pe0.mla", "macs@PL1")
    assert macs["count"].sum() == counter(t, "s2.pe0.mla", "macs")
    assert macs["energy_j"].sum() == pytest.approx(
        macs["count"].sum() * param(t, "pe.energy.mac_energy_pl1"), rel=1e-9)
    # The core's states cover the run from its start: active + asleep + gated = simulated time.
    states = e[(e["component_name"] == "s2.pe0.core") & (e["kind"] == "static")]
    assert states["count"].sum() == pytest.approx(m["sim_time_us"] * 1e-6, rel=1e-6)
    sleep = rows(e, "s2.pe0.core", "sleep@PL1")["count"].sum()
    assert sleep == pytest.approx(counter(t, "s2.pe0.core", "sleep_ps") * 1e-12, rel=1e-9)
    assert rows(e, "s2.pe0.core", "sleep@PL1")["energy_j"].sum() == pytest.approx(
        sleep * param(t, "pe.energy.sleep_power_pl1"), rel=1e-9)
    assert m["energy.total_uJ"] == pytest.approx(e["energy_j"].sum() * 1e6, rel=1e-9)
    # The other PEs never started: off, no rows.
    assert set(e["component_name"]) <= {"s2", "s2.pe0.core", "s2.pe0.mla", "s2.pe0.dma", "s2.ext"}


def test_supply_voltage_scales_pe_energy_by_v_squared(nmsim_binary, tmp_path):
    a = analysis.energy(run(nmsim_binary, tmp_path, "s2_pe_matmul.yaml", name="a.h5"))
    b = analysis.energy(run(nmsim_binary, tmp_path, "s2_pe_matmul.yaml",
                            "platform.params.pe.pl1_voltage=1.0 V", name="b.h5"))
    for comp, q in [("s2.pe0.mla", "macs@PL1"), ("s2.pe0.core", "cycles@PL1")]:
        assert rows(b, comp, q)["energy_j"].sum() == pytest.approx(
            rows(a, comp, q)["energy_j"].sum() * (1.0 / 0.8) ** 2, rel=1e-9)


def test_dnn_phases_are_the_layers_and_add_up(nmsim_binary, tmp_path):
    t = run(nmsim_binary, tmp_path, "s2_mlp_fmnist.yaml", "workload.dnn.count=3")
    e = analysis.energy(t)
    m = metrics(t)
    phases = list(dict.fromkeys(e["phase"]))
    assert phases[:2] == ["image load", "host"]
    assert {"setup", "/0/Gemm", "/2/Gemm", "/4/Gemm", "/5/Softmax", "cleanup"} <= set(phases)
    # Per phase, DRAM bytes add up to the controllers' counters.
    for d in ("s2.dram0", "s2.dram1"):
        total = sum(counter(t, d, f"ch0_{k}") for k in ("bytes_read", "bytes_written"))
        assert rows(e, d, "bytes")["count"].sum() == pytest.approx(total, rel=1e-12)
        # An interface is open from its first request on; one that is never used draws nothing.
        open_s = rows(e, d, "open")["count"].sum()
        assert (open_s > 0) == (counter(t, d, "requests") > 0)
    # The chip baseline is on for the whole run: its seconds over all phases = simulated time.
    assert rows(e, "s2", "on")["count"].sum() == pytest.approx(m["sim_time_us"] * 1e-6, rel=1e-9)
    # The first layer streams the most weights from DRAM: its DRAM energy is the largest.
    dram = e[e["component_name"].str.startswith("s2.dram") & (e["kind"] == "dynamic")]
    by_phase = dram.groupby("phase")["energy_j"].sum()
    assert by_phase.idxmax() == "/0/Gemm"
    # MACs happen only in the layers, never in the host phases.
    mla = e[e["quantity"].str.startswith("macs")]
    assert set(mla["phase"]) <= {"/0/Gemm", "/2/Gemm", "/4/Gemm"}
    assert mla["count"].sum() == sum(counter(t, c, "macs") for c in set(mla["component_name"]))
    inference = e[~e["phase"].isin(["image load", "host"])]["energy_j"].sum()
    assert m["energy.per_inference_uJ"] == pytest.approx(inference / 3 * 1e6, rel=1e-9)


def test_bss2_runs_are_phases_with_chip_power(nmsim_binary, tmp_path):
    t = run(nmsim_binary, tmp_path, "bss2_feedforward.yaml", "workload.bss2.runtime_us=200",
            "workload.bss2.input_sweep.rates_hz=[20000, 60000]")
    e = analysis.energy(t)
    m = metrics(t)
    for r in ("run0", "run1"):
        on = e[(e["component_name"] == "bss2") & (e["phase"] == r)]
        assert on["count"].sum() == pytest.approx(200e-6, rel=1e-6)  # each run lasts runtime_us
        assert on["energy_j"].sum() == pytest.approx(200e-6 * param(t, "energy.chip_power"), rel=1e-6)
    syn = e[e["quantity"] == "synaptic_events"]
    total = sum(counter(t, c, "synaptic_events") for c in set(syn["component_name"]))
    assert syn["count"].sum() == total > 0
    assert set(syn["phase"]) <= {"run0", "run1", "configuration"}
    # More input, more synaptic events in the second run.
    per_run = syn.groupby("phase")["count"].sum()
    assert per_run["run1"] > per_run["run0"]
    chip = e[~e["component_name"].isin(["setup", "bss2.fpga"])]["energy_j"].sum()
    assert m["energy.chip_uJ"] == pytest.approx(chip * 1e6, rel=1e-9)


def test_prototype_power_against_seed_003(nmsim_binary, tmp_path):
    """The prototype variant's baseline (its one fitted number) is fitted on seed 003's one-core
    training point (87.9 mW, DEEP R 1PA); the software setup (1P) must then land on the same power
    (the seed measured 87.9 mW for 1P and 1PA), four cores must draw more than one and less than
    four times one core's share, and the sparse-MLP inference on one core (not fitted) within a few
    mW of it. The four-core error itself is reported in docs/energy.md, not asserted."""
    t1 = run(nmsim_binary, tmp_path, "s2_proto_deepr_1pa.yaml", name="d1.h5")
    one = metrics(t1)["deepr.power_mW"]
    sw = metrics(run(nmsim_binary, tmp_path, "s2_proto_deepr_1p.yaml", name="d1p.h5"))
    four = metrics(run(nmsim_binary, tmp_path, "s2_proto_deepr_4pa.yaml", name="d4.h5"))
    inference = metrics(run(nmsim_binary, tmp_path, "s2_proto_sparse_1core.yaml", name="p1.h5"))
    assert one == pytest.approx(87.9, abs=0.3)
    assert sw["deepr.power_mW"] == pytest.approx(one, rel=0.01)
    base = param(t1, "energy.baseline_power") * 1e3
    assert t1.params[t1.params["path"] == "energy.baseline_power"]["origin"].iloc[0].startswith(
        "variant prototype: FITTED")
    pe_share = one - base
    assert one < four["deepr.power_mW"] < base + 4 * pe_share * 1.05
    assert inference["energy.average_power_mW"] == pytest.approx(one, abs=3.0)
