"""The snn workload end to end through the CLI (issue 13): the serial paradigm on the simulated
chip, checked by the run itself against the integer reference, and here against its own tables:
the recorded spikes, the per-tick load, the per-PE counters and the router agree with each other
and with the metrics. Networks that cannot be placed fail with exit 2 naming what does not fit.

NMSIM_BINARY comes from ctest; a missing variable fails the tests.
"""

import subprocess

import pytest

from scenario_runs import SOURCE_DIR, metrics, run


def test_serial_scenario_matches_the_reference_and_its_tables(nmsim_binary, tmp_path):
    t = run(nmsim_binary, tmp_path, "s2_snn_serial.yaml", "workload.snn.ticks=200")
    m = metrics(t)
    assert m["ok"] == 1 and m["snn.ticks"] == 200 and m["snn.spike_mismatches"] == 0
    spikes = t.table("snn/spikes")
    assert m["snn.spikes"] == len(spikes) > 0
    assert spikes["tick"].max() < 200
    pes = t.table("snn/pes")
    assert m["snn.pes"] == len(pes) == 4
    # Every synapse word a PE processed is counted once in the per-tick load (the last tick's
    # load is in the record of the tick after it, which a 200-tick run does not write).
    load = t.table("snn/tick_load")
    for pe, n in zip(pes["pe"], pes["synaptic_events"]):
        per_tick = load[load["pe"] == pe]["synaptic_events"].sum()
        assert per_tick <= n
    assert m["snn.synaptic_events"] == pes["synaptic_events"].sum()
    assert m["snn.overruns"] == 0 and m["snn.router_dropped"] == 0
    # Spikes of the LIF populations reach the router as packets (hidden -> output) unless their
    # vertex has no targets (output): sent = recorded spikes of the hidden layer.
    pops = t.table("snn/populations")
    hidden = int(pops[(pops["name"] == "hidden") & (pops["is_source"] == 0)]["index"].iloc[0])
    sent = pes[(pes["is_source"] == 0) & (pes["element"] == hidden)]["spikes_sent"].sum()
    assert sent == (spikes["population"] == hidden).sum()
    # Each PE's DTCM fits its budget.
    assert (pes["dtcm_bytes"] <= pes["dtcm_budget_bytes"]).all()
    assert m["snn.dynamic_energy_uJ"] > 0


def test_gesture_scenario_reports_the_pe_counts(nmsim_binary, tmp_path):
    args = [nmsim_binary, "run", str(SOURCE_DIR / "scenarios" / "s2_snn_gesture_serial.yaml"),
            "-o", str(tmp_path / "g.h5"), "--set", "workload.snn.ticks=100"]
    p = subprocess.run(args, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert "published: 9" in p.stdout
    assert "here 11 with the sources on their own PEs, 2 without them" in p.stdout
    assert "PASS" in p.stdout


def write(path, text):
    path.write_text(text)
    return path


def test_an_oversized_population_is_an_error_naming_it(nmsim_binary, tmp_path):
    net = write(tmp_path / "big.yaml", """
sources:
  - {name: in, size: 4000, rate: 5}
populations:
  - {name: dense, size: 1000}
projections:
  - {name: all, pre: in, post: dense, connector: all_to_all, weight: 1}
""")
    sc = write(tmp_path / "s.yaml", f"""
platform: {{kind: spinnaker2_chip}}
workload:
  snn: {{network: {net}, ticks: 10}}
""")
    p = subprocess.run([nmsim_binary, "run", str(sc), "-o", str(tmp_path / "x.h5")],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2, p.stdout + p.stderr
    assert "workload.snn.network" in p.stderr
    assert "population 'dense'" in p.stderr and "synaptic matrix" in p.stderr


@pytest.mark.parametrize("key,value,words", [
    ("workload.snn.ticks", "0", "tick count >= 1"),
    ("workload.snn.first_pe", "152", "global pe index"),
    ("workload.snn.max_neurons_per_pe", "256", "neuron count"),
    ("workload.snn.ticks", "5000", "platform.sim.max_time"),
])
def test_bad_keys_are_named(nmsim_binary, tmp_path, key, value, words):
    sc = SOURCE_DIR / "scenarios" / "s2_snn_serial.yaml"
    p = subprocess.run([nmsim_binary, "run", str(sc), "-o", str(tmp_path / "x.h5"),
                        "--set", f"{key}={value}"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 2, p.stdout + p.stderr
    assert words in p.stderr
