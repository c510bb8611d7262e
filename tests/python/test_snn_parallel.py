"""The parallel (MLA) paradigm and the switch end to end through the CLI (issue 14): every
paradigm gives the integer reference's spikes on the simulated chip, a network may mix both
paradigms, the trace tells the PEs' roles apart, and what cannot be compiled is an error naming
the population or the key.

NMSIM_BINARY comes from ctest; a missing variable fails the tests.
"""

import subprocess

import pytest

from scenario_runs import SOURCE_DIR, metrics, run

ROLE_SERIAL, ROLE_SOURCE, ROLE_DOMINANT, ROLE_SUBORDINATE = 0, 1, 2, 3


def spikes_of(t):
    s = t.table("snn/spikes")
    return sorted(zip(s["tick"], s["population"], s["neuron"]))


def test_serial_and_parallel_give_the_same_spikes(nmsim_binary, tmp_path):
    ser = run(nmsim_binary, tmp_path, "s2_snn_serial.yaml", "workload.snn.ticks=150", name="s.h5")
    par = run(nmsim_binary, tmp_path, "s2_snn_serial.yaml", "workload.snn.ticks=150",
              "workload.snn.paradigm=parallel", name="p.h5")
    ms, mp = metrics(ser), metrics(par)
    assert ms["snn.spike_mismatches"] == 0 and mp["snn.spike_mismatches"] == 0
    assert ms["snn.spikes"] > 100
    assert spikes_of(ser) == spikes_of(par)
    # Both layers on a dominant and at least one subordinate; no serial LIF PE left.
    assert mp["snn.dominant_pes"] == 2 and mp["snn.subordinate_pes"] >= 2
    pes = par.table("snn/pes")
    roles = list(pes["role"])
    assert roles.count(ROLE_SERIAL) == 0 and roles.count(ROLE_DOMINANT) == 2
    # The dominants count the synaptic events the serial PEs count (spikes x fan-out).
    assert mp["snn.synaptic_events"] == ms["snn.synaptic_events"] > 0
    # Subordinates hold the map and fit the DTCM budget; their DTCM differs from the model.
    subs = pes[pes["role"] == ROLE_SUBORDINATE]
    assert (subs["dtcm_bytes"] <= subs["dtcm_budget_bytes"]).all()
    assert mp["snn.overruns"] == 0 and mp["snn.router_dropped"] == 0
    assert mp["snn.tick_work_us"] > 0 and mp["snn.energy_per_tick_uJ"] > 0


def write(path, text):
    path.write_text(text)
    return path


def test_a_mixed_network_runs_both_programs_side_by_side(nmsim_binary, tmp_path):
    net = write(tmp_path / "mixed.yaml", """
timestep: 1.0
seed: 3
sources:
  - {name: in, size: 120, rate: 40}
populations:
  - {name: a, size: 40, tau_m: 10, v_th: 30, paradigm: parallel, record_v: [3]}
  - {name: b, size: 30, tau_m: 15, v_th: 20, paradigm: serial}
  - {name: c, size: 10, tau_m: 15, v_th: 20}
projections:
  - {name: in_a, pre: in, post: a, connector: fixed_probability, p: 0.3, weight: 5, delay: 2}
  - {name: in_a_inh, pre: in, post: a, connector: fixed_probability, p: 0.1, weight: -7, delay: 5}
  - {name: a_b, pre: a, post: b, connector: fixed_probability, p: 0.4, weight: 9, delay: 1}
  - {name: b_a, pre: b, post: a, connector: fixed_probability, p: 0.2, weight: -6, delay: 3}
  - {name: a_c, pre: a, post: c, connector: all_to_all, weight: 3, delay: 4}
""")
    sc = write(tmp_path / "s.yaml", f"""
platform: {{kind: spinnaker2_chip, params: {{sim.max_time: 2s}}}}
workload:
  snn: {{network: {net}, ticks: 200, paradigm: parallel}}
""")
    p = subprocess.run([nmsim_binary, "run", str(sc), "-o", str(tmp_path / "m.h5")],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "PASS" in p.stdout
    # a: its own key; b: its own key (serial); c: the workload's default (parallel).
    assert "a              parallel" in p.stdout
    assert "b              serial" in p.stdout
    assert "c              parallel" in p.stdout
    assert "2 dominant" in p.stdout and "1 LIF serial" in p.stdout


def test_gesture_scenario_switches_per_layer(nmsim_binary, tmp_path):
    for paradigm, sub in [("serial", False), ("parallel", True), ("auto", None), ("ideal", None)]:
        args = [nmsim_binary, "run", str(SOURCE_DIR / "scenarios" / "s2_snn_gesture.yaml"),
                "-o", str(tmp_path / f"g_{paradigm}.h5"), "--set", "workload.snn.ticks=60",
                "--set", f"workload.snn.paradigm={paradigm}"]
        p = subprocess.run(args, cwd=tmp_path, capture_output=True, text=True, timeout=300)
        assert p.returncode == 0, p.stderr
        assert "PASS" in p.stdout, p.stdout
        assert "published: 4 (seed 001 sec. IV-C: serial 9, parallel 5, switching 4)" in p.stdout
        assert "per tick         work" in p.stdout
        if sub is True:
            assert "dominant +" in p.stdout
        if paradigm in ("auto", "ideal"):
            assert f"({paradigm}:" in p.stdout
        if paradigm != "serial":  # the whole network's count in each paradigm, one run
            assert ("PE counts        every population in one paradigm: serial 11 (2 without "
                    "sources), parallel 13 (4 without sources), auto 11 (2 without sources)"
                    in p.stdout), p.stdout


def test_parallel_without_synapses_falls_back_to_serial(nmsim_binary, tmp_path):
    # Nothing projects onto `lonely`: there is nothing to multiply; it runs serial and says so.
    net = write(tmp_path / "n.yaml", """
sources:
  - {name: in, size: 10, rate: 50}
populations:
  - {name: lonely, size: 5, paradigm: parallel, i_offset: 3}
  - {name: fed, size: 5, paradigm: parallel}
projections:
  - {name: p, pre: in, post: fed, connector: all_to_all, weight: 20}
""")
    sc = write(tmp_path / "s.yaml", f"""
platform: {{kind: spinnaker2_chip}}
workload:
  snn: {{network: {net}, ticks: 50}}
""")
    p = subprocess.run([nmsim_binary, "run", str(sc), "-o", str(tmp_path / "x.h5")],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "lonely         serial (asked parallel; no synapses onto it" in p.stdout
    assert "fed            parallel" in p.stdout and "PASS" in p.stdout


@pytest.mark.parametrize("where,words", [
    ("--set", "expected one of serial, parallel, auto, ideal"),
    ("network", "paradigm"),
])
def test_a_bad_paradigm_is_named(nmsim_binary, tmp_path, where, words):
    if where == "--set":
        sc = SOURCE_DIR / "scenarios" / "s2_snn_serial.yaml"
        extra = ["--set", "workload.snn.paradigm=fastest"]
    else:
        net = write(tmp_path / "n.yaml", """
sources:
  - {name: in, size: 10, rate: 5}
populations:
  - {name: x, size: 5, paradigm: mla}
projections:
  - {name: p, pre: in, post: x, connector: all_to_all, weight: 1}
""")
        sc = write(tmp_path / "s.yaml", f"""
platform: {{kind: spinnaker2_chip}}
workload:
  snn: {{network: {net}, ticks: 10}}
""")
        extra = []
    p = subprocess.run([nmsim_binary, "run", str(sc), "-o", str(tmp_path / "x.h5")] + extra,
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2, p.stdout + p.stderr
    assert words in p.stderr
    if where == "network":
        assert "n.yaml:5:" in p.stderr and "populations[0].paradigm" in p.stderr
