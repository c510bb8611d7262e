"""The hagen workload end to end through the CLI (issue 15): a matrix product on the simulated
BrainScaleS-2 chips in hagen mode. In the ideal setting (mismatch and noise off) every value must
equal the integer reference, which the run checks itself; here the tables and metrics are checked
against each other and against the analog setting's expected deviations, and bad keys must fail
with exit 2 naming file, line and key.

NMSIM_BINARY comes from ctest; a missing variable fails the tests.
"""

import subprocess

from scenario_runs import SOURCE_DIR, metrics, run

DEFAULT_MISMATCH = ["platform.params.neuron.mismatch_%s=%s" % kv for kv in
                    [("tau_rel", 0.02), ("c_rel", 0.02), ("w_rel", 0.05), ("v_mV", 2.0)]]


def test_vmm_scenario_is_exact_and_splits_its_time(nmsim_binary, tmp_path):
    t = run(nmsim_binary, tmp_path, "bss2_vmm.yaml")
    m = metrics(t)
    assert m["ok"] == 1 and m["hagen.differ"] == 0 and m["hagen.mean_abs_error_lsb"] == 0
    assert m["hagen.macs"] == 100 * 128 * 256 and m["hagen.vectors"] == 100
    assert m["hagen.tiles"] == 1 and m["hagen.executions"] == 2  # configuration, vectors
    # Seed 004 eq. 3.1 for one full synapse array: 4 and 32 Gop/s.
    assert abs(m["hagen.bound_1g_gops"] - 4.0) < 1e-9
    assert abs(m["hagen.bound_8g_gops"] - 32.0) < 1e-9
    # The categories are the product's time; the chip part is sequential on one chip, the host
    # encodes and decodes alongside the FPGA.
    fpga = sum(m["hagen." + k] for k in ["transfer_us", "config_us", "realtime_us", "other_us"])
    host = sum(m["hagen.host_%s_us" % k] for k in ["graph", "preprocess", "encode", "decode",
                                                    "postprocess"])
    assert fpga < m["hagen.wall_us"] <= fpga + host + 1e-6
    assert abs(m["hagen.gops"] - m["hagen.macs"] / m["hagen.wall_us"] * 1e-3) < 1e-9
    assert m["hagen.gops"] < m["hagen.bound_1g_gops"]
    tiles = t.table("hagen/tiles")
    assert list(tiles["rows"]) == [128] and list(tiles["cols"]) == [256]
    cols = t.table("hagen/columns")
    assert len(cols) == 256 and (cols["max_abs_error_lsb"] == 0).all()


def test_analog_setting_deviates_but_correlates(nmsim_binary, tmp_path):
    t = run(nmsim_binary, tmp_path, "bss2_vmm.yaml", "workload.hagen.batch=30",
            "platform.params.cadc.noise_lsb=1.4", *DEFAULT_MISMATCH)
    m = metrics(t)
    assert m["ok"] == 1  # deviations are reported, not failures, outside the ideal setting
    assert m["hagen.differ"] > 0
    assert 0.3 < m["hagen.rms_error_lsb"] < 10
    assert m["hagen.correlation"] > 0.95
    # The fixed pattern: columns have different mean errors; the noise: a spread within columns.
    cols = t.table("hagen/columns")
    assert cols["mean_error_lsb"].std() > 0.1
    assert cols["std_error_lsb"].mean() > 0.5


def test_large_product_on_two_chips_is_exact(nmsim_binary, tmp_path):
    t = run(nmsim_binary, tmp_path, "bss2_vmm.yaml", "workload.hagen.in=300",
            "workload.hagen.out=600", "workload.hagen.batch=6", "workload.hagen.chips=2",
            "workload.hagen.input_density=0.7")
    m = metrics(t)
    assert m["ok"] == 1 and m["hagen.differ"] == 0
    tiles = t.table("hagen/tiles")
    assert len(tiles) == m["hagen.tiles"] == 9
    assert sorted(set(tiles["chip"])) == [0, 1]
    # Every weight in exactly one tile: rows split 128 + 128 + 44, columns 256 + 256 + 88.
    assert (tiles["rows"] * tiles["cols"]).sum() == 300 * 600
    assert sorted(set(tiles["rows"])) == [44, 128] and sorted(set(tiles["cols"])) == [88, 256]
    assert m["hagen.vectors"] == 9 * 6


def test_sends_and_workarounds_cost_time_not_values(nmsim_binary, tmp_path):
    base = metrics(run(nmsim_binary, tmp_path, "bss2_vmm.yaml", "workload.hagen.batch=10",
                       name="a.h5"))
    slow = metrics(run(nmsim_binary, tmp_path, "bss2_vmm.yaml", "workload.hagen.batch=10",
                       "workload.hagen.wait_between_events=100", "workload.hagen.num_sends=2",
                       "workload.hagen.rewrite_synapses=true", name="b.h5"))
    assert base["ok"] == slow["ok"] == 1 and slow["hagen.differ"] == 0
    assert slow["hagen.realtime_us"] > 10 * base["hagen.realtime_us"]
    # The rewrite sends the half's 2 x 128 x 256 synapse words with every vector, about 100 times
    # the vector program's own words (seed 002 sec. 4.1: "a factor of ≈ 100").
    assert slow["hagen.vector_words"] > 50 * base["hagen.vector_words"]
    assert slow["hagen.transfer_us"] > 5 * base["hagen.transfer_us"]
    assert slow["hagen.config_words"] == base["hagen.config_words"]


def test_design_goal_program_is_exact_and_faster(nmsim_binary, tmp_path):
    """Back-to-back events (one FPGA cycle apart, no wait instructions), no baseline read, small
    programs pipelined with the host: the v2 design-goal settings of the Fig. 8 sweeps."""
    sets = ["workload.hagen.in=256", "workload.hagen.out=256", "workload.hagen.batch=200"]
    v1 = metrics(run(nmsim_binary, tmp_path, "bss2_vmm.yaml", *sets, name="v1.h5"))
    goal = metrics(run(nmsim_binary, tmp_path, "bss2_vmm.yaml", *sets,
                       "workload.hagen.baseline=false", "workload.hagen.wait_between_events=1",
                       "workload.hagen.max_program_words=16384", name="goal.h5"))
    assert v1["hagen.differ"] == goal["hagen.differ"] == 0
    assert goal["hagen.executions"] > 4  # the batch in several programs
    assert goal["hagen.vector_words"] < 0.7 * v1["hagen.vector_words"]
    # At batch 200 the configuration over the 1 GbE link still takes a third of the time.
    assert goal["hagen.gops"] > 1.4 * v1["hagen.gops"]
    assert goal["hagen.other_us"] < 0.1 * v1["hagen.other_us"]


def bad(nmsim_binary, tmp_path, text):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    p = subprocess.run([nmsim_binary, "run", str(path), "-q", "-o", str(tmp_path / "b.h5")],
                       cwd=tmp_path, capture_output=True, text=True, timeout=60)
    return p.returncode, p.stderr


HEAD = "name: bad\nplatform: {kind: brainscales2}\nworkload:\n  hagen:\n"


def test_bad_keys_name_file_line_and_key(nmsim_binary, tmp_path):
    code, err = bad(nmsim_binary, tmp_path, HEAD + "    in: 0\n")
    assert code == 2 and "bad.yaml:5:" in err and "workload.hagen.in" in err and ">= 1" in err
    code, err = bad(nmsim_binary, tmp_path, HEAD + "    input_max: 32\n")
    assert code == 2 and "workload.hagen.input_max" in err
    code, err = bad(nmsim_binary, tmp_path, HEAD + "    in: 16384\n    out: 16384\n")
    assert code == 2 and "workload.hagen.out" in err and "exceed" in err
    code, err = bad(nmsim_binary, tmp_path, HEAD + "    batsh: 3\n")
    assert code == 2 and "batsh" in err and "batch" in err
    code, err = bad(nmsim_binary, tmp_path,
                    "name: bad\nplatform: {kind: spinnaker2_chip}\nworkload:\n  hagen: {}\n")
    assert code == 2 and "brainscales2" in err
