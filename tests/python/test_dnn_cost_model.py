"""The DNN compiler's cost model against the simulator (issue 17 item 4), on the shipped MLP and
CNN and on generated random MLPs and CNNs of the shapes the ONNX front end takes:

  * per entry of the layer list, the estimate of `nmsim compile --explain --csv` is within 15 %
    of the simulated layer time (the scheduler's interval, mean over the inferences);
  * the compiler's worker count per layer is within 5 % of the fastest simulated one, found by
    running every worker count (workload.dnn.layer_workers pins them; one run per count pins
    every layer that can take it).

The nmsim binary comes from the environment (NMSIM_BINARY, set by ctest).
"""

import csv
import io
import json
import pathlib
import subprocess
import sys

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="python3-onnx is not installed (nmsim.sh installs it)")
from onnx import helper, numpy_helper  # noqa: E402

SOURCE_DIR = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(SOURCE_DIR / "tools" / "model_prep"))
import qdq  # noqa: E402

MAX_WORKERS = 8
INFERENCES = 2
EST_TOLERANCE = 0.15
CHOICE_TOLERANCE = 0.05


def _float_model(nodes, inits, in_shape, out_shape):
    fl = onnx.TensorProto.FLOAT
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("input", fl, list(in_shape))],
        [helper.make_tensor_value_info("logits", fl, list(out_shape))],
        [numpy_helper.from_array(a.astype(np.float32), n) for n, a in inits.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def random_mlp(rng, sizes):
    """Gemm (+ Relu) layers sizes[0] -> sizes[1] -> ..., softmax head."""
    nodes, inits, x = [], {}, "input"
    for i, (k, n) in enumerate(zip(sizes, sizes[1:])):
        inits[f"w{i}"] = rng.normal(0, 1.5 / np.sqrt(k), (n, k))
        inits[f"b{i}"] = rng.normal(0, 0.1, n)
        last = i == len(sizes) - 2
        y = "logits" if last else f"h{i}"
        nodes.append(helper.make_node("Gemm", [x, f"w{i}", f"b{i}"], [y if last else y + "p"],
                                      transB=1, name=f"/{2 * i}/Gemm"))
        if not last:
            nodes.append(helper.make_node("Relu", [y + "p"], [y], name=f"/{2 * i + 1}/Relu"))
        x = y
    calib = rng.uniform(0, 1, (64, sizes[0])).astype(np.float32)
    return _float_model(nodes, inits, (1, sizes[0]), (1, sizes[-1])), calib


def random_cnn(rng, in_c, hw, convs, classes):
    """Conv 3x3 pad 1 (+ Relu) [+ MaxPool] per entry (out_c, pool), Flatten, Gemm, softmax; pool
    is False, True (2x2, stride 2) or (kernel, stride, pad)."""
    nodes, inits, x, c, h, idx = [], {}, "input", in_c, hw, 0
    for i, (oc, pool) in enumerate(convs):
        inits[f"cw{i}"] = rng.normal(0, 1.5 / np.sqrt(9 * c), (oc, c, 3, 3))
        inits[f"cb{i}"] = rng.normal(0, 0.1, oc)
        nodes.append(helper.make_node("Conv", [x, f"cw{i}", f"cb{i}"], [f"c{i}"], pads=[1] * 4,
                                      kernel_shape=[3, 3], strides=[1, 1], name=f"/{idx}/Conv"))
        nodes.append(helper.make_node("Relu", [f"c{i}"], [f"r{i}"], name=f"/{idx + 1}/Relu"))
        x, c, idx = f"r{i}", oc, idx + 2
        if pool:
            k, s, pad = (2, 2, 0) if pool is True else pool
            nodes.append(helper.make_node("MaxPool", [x], [f"p{i}"], kernel_shape=[k, k],
                                          strides=[s, s], pads=[pad] * 4, name=f"/{idx}/MaxPool"))
            x, h, idx = f"p{i}", (h + 2 * pad - k) // s + 1, idx + 1
    nodes.append(helper.make_node("Flatten", [x], ["flat"], axis=1, name=f"/{idx}/Flatten"))
    k = c * h * h
    inits["fw"] = rng.normal(0, 1.5 / np.sqrt(k), (classes, k))
    inits["fb"] = rng.normal(0, 0.1, classes)
    nodes.append(helper.make_node("Gemm", ["flat", "fw", "fb"], ["logits"], transB=1,
                                  name=f"/{idx + 1}/Gemm"))
    calib = rng.uniform(0, 1, (32, in_c, hw, hw)).astype(np.float32)
    return _float_model(nodes, inits, (1, in_c, hw, hw), (1, classes)), calib


def _write_model(dirpath, name, fmodel, calib, rng):
    qmodel, _ = qdq.quantise(fmodel, calib, 7)
    qmodel, _ = qdq.add_softmax_head(qmodel)
    model = dirpath / f"{name}.onnx"
    onnx.save(qmodel, str(model))
    x = rng.uniform(0, 1, (INFERENCES,) + calib.shape[1:])
    inputs = dirpath / f"{name}_inputs.bin"
    np.clip(np.rint(x * 128), -128, 127).astype(np.int8).tofile(inputs)
    return model, inputs


def _scenario(dirpath, name, model, inputs, layer_workers=None):
    lines = [f"name: {name}", "seed: 1", "platform:", "  kind: spinnaker2_chip",
             "workload:", "  dnn:", f"    model: {model}", f"    inputs: {inputs}",
             f"    count: {INFERENCES}", "    scheduler_pe: 0", f"    workers: {MAX_WORKERS}"]
    if layer_workers:
        lines.append(f"    layer_workers: [{', '.join(str(w) for w in layer_workers)}]")
    path = dirpath / (f"{name}.yaml" if layer_workers is None else
                      f"{name}_w{'_'.join(str(w) for w in layer_workers)}.yaml")
    path.write_text("\n".join(lines) + "\n")
    return path


def _explain(nmsim_binary, scenario):
    p = subprocess.run([nmsim_binary, "compile", "--explain", "--csv", str(scenario)],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stdout + p.stderr
    rows = list(csv.DictReader(io.StringIO(p.stdout)))
    for r in rows:
        r["candidates"] = {int(w): float(us) for w, us in
                           (c.split(":") for c in r["candidates_us"].split(";") if c)}
    return rows


def _simulate(nmsim_binary, scenario, run_dir):
    p = subprocess.run([nmsim_binary, "run", str(scenario), "-q", "-d", str(run_dir)],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    metrics = json.loads((run_dir / "stats.json").read_text())["metrics"]
    assert metrics["dnn.bit_exact_fraction"]["value"] == 1.0
    times, i = [], 0
    while f"dnn.layer{i}_us" in metrics:
        times.append(metrics[f"dnn.layer{i}_us"]["value"])
        i += 1
    return times


def _shipped(name):
    scenario = SOURCE_DIR / "scenarios" / f"s2_{name}_fmnist.yaml"
    return (SOURCE_DIR / "scenarios" / "models" / f"{name}_fmnist_int8.onnx",
            SOURCE_DIR / "scenarios" / "models" / "fmnist_test_1000.bin", scenario)


def _models(dirpath):
    """(name, model, inputs): the shipped two and generated ones, fixed seeds."""
    out = []
    for kind in ("mlp", "cnn"):
        model, inputs, _ = _shipped(kind)
        out.append((kind, model, inputs))
    rng = np.random.default_rng(17)
    gen = [("mlp_a", random_mlp(rng, [200, 300, 48, 10])),
           ("mlp_b", random_mlp(rng, [100, 1000, 36])),
           ("cnn_a", random_cnn(rng, 1, 16, [(12, True), (24, True)], 10)),
           ("cnn_b", random_cnn(rng, 2, 12, [(20, False), (6, True)], 12)),
           # odd channel counts (words and single channels), a padded 3x3 window, odd maps
           ("cnn_c", random_cnn(rng, 3, 15, [(7, (3, 2, 1)), (10, True)], 5))]
    for name, (fmodel, calib) in gen:
        model, inputs = _write_model(dirpath, name, fmodel, calib, rng)
        out.append((name, model, inputs))
    return out


def measure(dirpath, nmsim_binary):
    """Per model and layer: the compiler's choice and estimates, and the simulated time of every
    worker count the layer can take."""
    results = {}
    for name, model, inputs in _models(dirpath):
        base = _scenario(dirpath, name, model, inputs)
        chosen = _explain(nmsim_binary, base)
        sim_chosen = _simulate(nmsim_binary, base, dirpath / f"{name}_run")
        assert len(sim_chosen) == len(chosen)
        layers = [{"name": r["layer"], "kind": r["kind"], "workers": int(r["workers"]),
                   "est_us": float(r["est_us"]), "sim_us": sim_chosen[i],
                   "est_by_w": r["candidates"], "sim_by_w": {}}
                  for i, r in enumerate(chosen)]
        for w in range(1, MAX_WORKERS + 1):
            pins = [w if w in L["est_by_w"] else 0 for L in layers]
            if not any(pins):
                continue
            sim = _simulate(nmsim_binary, _scenario(dirpath, name, model, inputs, pins),
                            dirpath / f"{name}_run_w{w}")
            for L, p, t in zip(layers, pins, sim):
                if p:
                    L["sim_by_w"][w] = t
        results[name] = layers
    return results


@pytest.fixture(scope="module")
def measured(tmp_path_factory, nmsim_binary):
    return measure(tmp_path_factory.mktemp("cost"), nmsim_binary)


def test_estimate_within_15_percent_per_layer(measured):
    bad = [f"{m} {L['name']} ({L['kind']}, {L['workers']} workers): estimate "
           f"{L['est_us']:.1f} us, simulated {L['sim_us']:.1f} us"
           for m, layers in measured.items() for L in layers
           if abs(L["est_us"] - L["sim_us"]) > EST_TOLERANCE * L["sim_us"]]
    assert not bad, "\n".join(bad)


def test_worker_choice_within_5_percent_of_best(measured):
    bad = []
    for m, layers in measured.items():
        for L in layers:
            best_w = min(L["sim_by_w"], key=L["sim_by_w"].get)
            best = L["sim_by_w"][best_w]
            got = L["sim_by_w"][L["workers"]]
            if got > (1 + CHOICE_TOLERANCE) * best:
                bad.append(f"{m} {L['name']}: {L['workers']} workers {got:.1f} us, "
                           f"{best_w} workers {best:.1f} us")
    assert not bad, "\n".join(bad)


def test_pinned_runs_keep_the_chosen_time(measured):
    """The run pinned at the compiler's own worker count times that layer like the unpinned
    run (the per-count runs measure what the compiler's choice would get)."""
    for m, layers in measured.items():
        for L in layers:
            assert L["sim_by_w"][L["workers"]] == pytest.approx(L["sim_us"], rel=0.02), \
                (m, L["name"])


def test_pools_and_add_are_bit_exact_at_every_worker_count(tmp_path, nmsim_binary):
    """conv_tiny (conv, maxpool, add, avgpool, Gemm, softmax on a 6 x 6 map): every worker count
    of every layer, each split the compiler picks for it, gives the integer reference's outputs
    (_simulate asserts the bit-exact fraction)."""
    model = SOURCE_DIR / "tests" / "tools" / "compiler" / "data" / "conv_tiny.onnx"
    inputs = tmp_path / "tiny_inputs.bin"
    np.random.default_rng(3).integers(-128, 128, (INFERENCES, 36)).astype(np.int8).tofile(inputs)
    chosen = _explain(nmsim_binary, _scenario(tmp_path, "tiny", model, inputs))
    counts = sorted({w for r in chosen for w in r["candidates"]})
    assert max(counts) > 1
    for w in counts:
        pins = [w if w in r["candidates"] else 0 for r in chosen]
        _simulate(nmsim_binary, _scenario(tmp_path, "tiny", model, inputs, pins),
                  tmp_path / f"tiny_w{w}")


if __name__ == "__main__":
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        res = measure(pathlib.Path(d), sys.argv[1])
    for m, layers in res.items():
        for L in layers:
            sims = " ".join(f"{w}:{t:.0f}/{L['est_by_w'].get(w, 0):.0f}"
                            for w, t in sorted(L["sim_by_w"].items()))
            print(f"{m:6} {L['name']:14} {L['kind']:8} w={L['workers']} est {L['est_us']:8.1f} "
                  f"sim {L['sim_us']:8.1f} ({100 * (L['est_us'] / L['sim_us'] - 1):+6.1f} %)  "
                  f"sim/est by w: {sims}")
