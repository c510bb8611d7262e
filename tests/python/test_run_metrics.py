"""Run metrics: every run writes machine-readable results as summary counters of the component
"metrics" (what `nmsim sweep` collects). Checked against the run's own tables, not golden values:
the DNN breakdown metrics equal the means of dnn/entries, the BrainScaleS-2 rates equal the
recorded spikes per population, neuron and run time.

NMSIM_BINARY comes from ctest; a missing variable fails the tests.
"""

import pytest

from scenario_runs import metrics, run


def test_dnn_metrics_match_the_time_area(nmsim_binary, tmp_path):
    t = run(nmsim_binary, tmp_path, "s2_mlp_fmnist.yaml", "workload.dnn.count=3")
    m = metrics(t)
    assert m["ok"] == 1 and m["dnn.inferences"] == 3 and m["dnn.bit_exact_fraction"] == 1
    assert 0 <= m["dnn.accuracy_chip"] <= 1
    assert m["sim_time_us"] > m["dnn.total_us"] > 0
    layers = sorted(k for k in m if k.startswith("dnn.layer") and k.endswith("_us") and k.count("_") == 1)
    assert len(layers) == 4
    # Setup + layers + cleanup add up to no more than the total (the total spans them).
    parts = m["dnn.setup_us"] + m["dnn.cleanup_us"] + sum(m[k] for k in layers)
    assert parts == pytest.approx(m["dnn.total_us"], rel=0.02)


def test_bss2_metrics_match_the_recorded_spikes(nmsim_binary, tmp_path):
    t = run(nmsim_binary, tmp_path, "bss2_feedforward.yaml", "workload.bss2.runtime_us=200",
            "workload.bss2.input_sweep.rates_hz=60000")
    m = metrics(t)
    out = t.events("bss2_output_spikes")
    n_exc = 32
    assert m["bss2.runs"] == 1
    assert m["bss2.recorded_spikes"] == len(out)
    assert m["bss2.rate.exc"] == pytest.approx(len(out) / n_exc / 200e-6)
    assert m["bss2.realtime_us"] == pytest.approx(200, abs=0.1)
    assert m["bss2.total_us"] > m["bss2.realtime_us"]
    inp = t.events("bss2_input_spikes")
    assert m["bss2.input_spikes"] == len(inp)
    assert m["ok"] == 1 and "wall_s" not in m  # metrics are deterministic
