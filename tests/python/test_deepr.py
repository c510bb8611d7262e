"""The deepr workload end to end through the CLI (issue 16): DEEP R training on the prototype
variant, checked bit for bit by the run itself against tools/reference/deepr_ref, and here across
setups: 1P and 1PA train identically (only the generator and the exponential differ in speed),
the seed's in-place rewiring and the linear one give the same connections, four cores are faster
than one, the check notices a single changed amplitude, and bad workloads fail with exit 2 naming
the key.

NMSIM_BINARY comes from ctest; a missing variable fails the tests.
"""

import pathlib
import subprocess

import pytest

from scenario_runs import SOURCE_DIR, metrics, run

SHORT = ("workload.deepr.iterations=12", "workload.deepr.rewiring_period=3",
         "workload.deepr.test_count=5", "workload.deepr.train_count=200")


def records(t):
    r = t.table("deepr/iterations")
    return r.sort_values(["iteration", "cell"]).reset_index(drop=True)


def test_setups_train_identically_and_in_the_expected_order(nmsim_binary, tmp_path):
    one_p = run(nmsim_binary, tmp_path, "s2_proto_deepr_1p.yaml", *SHORT, name="1p.h5")
    one_pa = run(nmsim_binary, tmp_path, "s2_proto_deepr_1pa.yaml", *SHORT, name="1pa.h5")
    linear = run(nmsim_binary, tmp_path, "s2_proto_deepr_1pa.yaml", *SHORT,
                 "workload.deepr.rewiring=linear", name="lin.h5")
    four = run(nmsim_binary, tmp_path, "s2_proto_deepr_4pa.yaml", *SHORT, name="4pa.h5")
    m1p, m1pa, mlin, m4 = (metrics(t) for t in (one_p, one_pa, linear, four))
    for m in (m1p, m1pa, mlin, m4):
        assert m["ok"] == 1 and m["deepr.mismatches"] == 0 and m["deepr.iterations"] == 12
        assert m["deepr.rewiring_steps"] == 4
    # the same stream and the same exponential function: the same training, slower in software
    cols = ["iteration", "label", "pred", "deleted", "inserted"]
    assert records(one_p)[cols].equals(records(one_pa)[cols])
    assert records(linear)[cols].equals(records(one_pa)[cols])
    assert m1p["deepr.prng_draws"] == m1pa["deepr.prng_draws"]
    assert m1p["deepr.time_per_iteration_us"] > 1.3 * m1pa["deepr.time_per_iteration_us"]
    # the linear rewiring is faster per step than the seed's in-place one, the rest is the same
    assert mlin["deepr.rewiring_step_us"] < m1pa["deepr.rewiring_step_us"]
    assert mlin["deepr.forward_us"] == pytest.approx(m1pa["deepr.forward_us"], rel=1e-6)
    # four PEs: each holds a quarter of the weights, and the iteration is at least 2x faster
    assert m4["deepr.weight_bytes"] < 0.3 * m1pa["deepr.weight_bytes"]
    assert m4["deepr.time_per_iteration_us"] < 0.5 * m1pa["deepr.time_per_iteration_us"]
    assert m4["deepr.messages"] > 0 and m1pa["deepr.messages"] == 0
    # the phase split covers the iteration
    for m in (m1pa, m4):
        total = sum(m[f"deepr.{p}_pct"] for p in ("import", "forward", "backward", "rewiring"))
        assert total == pytest.approx(100.0, abs=1e-6)
    # the seed's footprint (36.63 KB in KiB) is the one-core network's order of magnitude
    assert 30 < m1pa["deepr.footprint_kib"] < 40
    # one record per iteration and PE
    assert len(records(four)) == 4 * 12 and len(records(one_pa)) == 12


def test_the_check_notices_one_changed_amplitude(nmsim_binary, tmp_path):
    fw = pathlib.Path(nmsim_binary).resolve().parents[1] / "firmware" / "deepr_perturbed.elf"
    assert fw.exists(), fw
    args = [nmsim_binary, "run", str(SOURCE_DIR / "scenarios" / "s2_proto_deepr_1pa.yaml"), "-q",
            "-o", str(tmp_path / "p.h5"), "--set", f"workload.deepr.firmware={fw}"]
    for s in SHORT:
        args += ["--set", s]
    p = subprocess.run(args, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert p.returncode == 1, p.stderr
    assert "differs from the bit-exact reference" in p.stderr
    assert "iteration 4" in p.stderr or "iteration 3" in p.stderr or "final weights" in p.stderr


@pytest.mark.parametrize("sets,key,words", [
    (["workload.deepr.cores=3"], "workload.deepr.cores", "expected 1"),
    (["workload.deepr.layers=[784, 301, 100, 10]", "workload.deepr.cores=4"],
     "workload.deepr.layers", "even"),
    (["workload.deepr.connections=[20000, 900, 300]"], "workload.deepr.connections",
     "data memory"),
    (["workload.deepr.train_images=/nonexistent/train.gz"], "workload.deepr.train_images",
     "not found"),
    (["workload.deepr.check=true", "workload.deepr.record=false"], "workload.deepr.check",
     "record"),
    (["workload.deepr.train_count=70000"], "workload.deepr.train_count", "has 60000"),
])
def test_bad_workloads_name_the_key(nmsim_binary, tmp_path, sets, key, words):
    args = [nmsim_binary, "run", str(SOURCE_DIR / "scenarios" / "s2_proto_deepr_1pa.yaml"), "-q",
            "-o", str(tmp_path / "bad.h5")]
    for s in sets:
        args += ["--set", s]
    p = subprocess.run(args, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert p.returncode == 2, p.stderr
    assert key in p.stderr and words in p.stderr, p.stderr
