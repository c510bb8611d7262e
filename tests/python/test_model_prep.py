"""The committed Fashion-MNIST models (scenarios/models/, made by tools/model_prep/prepare.py):
QDQ conventions, summary consistency, and the integer reference re-run on committed test images
against the committed results and against an independent float evaluation of the ONNX graph.
No training here (prepare.py takes minutes); everything runs in a few seconds."""

import copy
import hashlib
import json
import pathlib
import sys

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="python3-onnx is not installed (nmsim.sh installs it)")
from onnx import helper, numpy_helper  # noqa: E402

SOURCE_DIR = pathlib.Path(__file__).resolve().parents[2]
MODELS = SOURCE_DIR / "scenarios" / "models"
sys.path.insert(0, str(SOURCE_DIR / "tools" / "model_prep"))
import int_reference  # noqa: E402
import onnx_eval  # noqa: E402
import qdq  # noqa: E402

N_CHECK = 100
COMPUTE_SEQ = {
    "mlp": ["Gemm", "Relu", "Gemm", "Relu", "Gemm", "Softmax"],
    "cnn": ["Conv", "Relu", "MaxPool", "Conv", "Relu", "MaxPool", "Flatten", "Gemm", "Softmax"],
}
WEIGHT_SHAPES = {
    "mlp": [[512, 784], [256, 512], [16, 256]],
    "cnn": [[8, 1, 3, 3], [16, 8, 3, 3], [16, 784]],
}
INPUT_SHAPE = {"mlp": (-1, 784), "cnn": (-1, 1, 28, 28)}


@pytest.fixture(scope="module")
def summary():
    with open(MODELS / "fmnist_models.json") as f:
        return json.load(f)


@pytest.fixture(scope="module")
def test_images():
    x = np.fromfile(MODELS / "fmnist_test_1000.bin", dtype=np.int8)
    y = np.fromfile(MODELS / "fmnist_test_1000_labels.bin", dtype=np.uint8)
    return x, y


def _load(kind):
    return onnx.load(str(MODELS / f"{kind}_fmnist_int8.onnx"))


def _is_pow2(s):
    m, _ = np.frexp(np.float64(s))
    return s > 0 and m == 0.5


def test_test_subset_files(test_images):
    x, y = test_images
    assert x.size == 1000 * 784 and y.size == 1000
    assert x.min() >= 0 and x.max() <= 127  # pixels in [0, 1) at scale 2^-7
    assert x.max() == 127 and y.max() == 9 and y.min() == 0
    assert len(np.unique(y)) == 10


@pytest.mark.parametrize("kind", ["mlp", "cnn"])
def test_qdq_structure(kind, summary):
    model = _load(kind)
    onnx.checker.check_model(model, full_check=True)
    g = model.graph
    inits = {t.name: numpy_helper.to_array(t) for t in g.initializer}
    producer = {o: n for n in g.node for o in n.output}
    consumers = {}
    for n in g.node:
        for i in n.input:
            consumers.setdefault(i, []).append(n)

    ops = [n.op_type for n in g.node if n.op_type not in ("QuantizeLinear", "DequantizeLinear")]
    assert ops == COMPUTE_SEQ[kind]
    # every Q/DQ: per-tensor power-of-two scale, zero point 0 of the quantised type
    for n in g.node:
        if n.op_type in ("QuantizeLinear", "DequantizeLinear"):
            scale, zp = inits[n.input[1]], inits[n.input[2]]
            assert scale.shape == () and _is_pow2(float(scale)), n.name
            assert int(zp) == 0, n.name
            if n.op_type == "QuantizeLinear":
                assert zp.dtype == np.int8, n.name
    # Gemm/Conv: activation, int8 weight and int32 bias all through DequantizeLinear
    shapes = []
    for n in g.node:
        if n.op_type not in ("Gemm", "Conv"):
            continue
        x_dq, w_dq, b_dq = (producer[i] for i in n.input)
        assert {x_dq.op_type, w_dq.op_type, b_dq.op_type} == {"DequantizeLinear"}
        assert x_dq.input[0] not in inits
        w, b = inits[w_dq.input[0]], inits[b_dq.input[0]]
        assert w.dtype == np.int8 and b.dtype == np.int32
        k_x = int(-np.log2(inits[x_dq.input[1]]))
        k_w = int(-np.log2(inits[w_dq.input[1]]))
        assert float(inits[b_dq.input[1]]) == 2.0 ** -(k_x + k_w)
        shapes.append(list(w.shape))
        if n.op_type == "Gemm":
            attrs = {a.name: helper.get_attribute_value(a) for a in n.attribute}
            assert attrs.get("transB") == 1
        nxt = consumers[n.output[0]]
        assert len(nxt) == 1 and nxt[0].op_type in ("Relu", "QuantizeLinear")
        if nxt[0].op_type == "Relu":
            assert [c.op_type for c in consumers[nxt[0].output[0]]] == ["QuantizeLinear"]
    assert shapes == WEIGHT_SHAPES[kind]
    # the softmax head: DQ(logits) -> Softmax(axis=-1) -> Q(2^-7, int8 0) -> DQ -> probabilities
    m = summary["models"][kind]
    out = g.output[0].name
    assert out == m["output"] == "probabilities"
    assert producer["logits"].op_type == "DequantizeLinear"
    sm = consumers["logits"]
    assert [n.op_type for n in sm] == ["Softmax"] and sm[0].name == m["softmax_head"]["node"]
    assert helper.get_attribute_value(sm[0].attribute[0]) == -1
    q = consumers[sm[0].output[0]]
    assert [n.op_type for n in q] == ["QuantizeLinear"]
    assert float(inits[q[0].input[1]]) == 2.0**-7 == 2.0**-m["output_exponent"]
    assert producer[out].op_type == "DequantizeLinear" and producer[out].input[0] == q[0].output[0]
    assert [d.dim_value for d in g.output[0].type.tensor_type.shape.dim] == m["output_shape"]


@pytest.mark.parametrize("kind", ["mlp", "cnn"])
def test_summary_matches_files(kind, summary):
    m = summary["models"][kind]
    path = MODELS / m["onnx"]
    assert hashlib.sha256(path.read_bytes()).hexdigest() == m["onnx_sha256"]
    assert path.stat().st_size == m["onnx_bytes"]
    k_in, layers = int_reference.lower(_load(kind))
    assert k_in == summary["test_subset"]["image_exponent"] == 7
    assert [L.name for L in layers] == [d["name"] for d in m["layers"]]
    assert layers[-1].op == "Softmax" and layers[-1].k_y == m["output_exponent"] == 7
    assert layers[-1].k_x == m["logits_exponent"] == m["tensor_exponents"]["logits"]
    for key in ("reference_logits", "float_predictions"):
        assert (MODELS / m[key]).stat().st_size == 1000 * (16 if key == "reference_logits" else 1)
    for L, d in zip(layers, m["layers"]):
        assert (L.k_x, L.k_y) == (d["k_x"], d["k_y"])
        if L.op in ("Gemm", "Conv"):
            assert (L.k_w, L.shift) == (d["k_w"], d["shift"])
            assert 0 < L.shift <= 31
    acc = m["accuracy_test_10000"]
    assert abs(acc["int8_reference"] - acc["float_pytorch"]) <= 0.01  # within 1 pp of float


@pytest.mark.parametrize("kind", ["mlp", "cnn"])
def test_integer_reference_reproduces_summary(kind, summary, test_images):
    m = summary["models"][kind]
    x, y = test_images
    x = x[:N_CHECK * 784].reshape(INPUT_SHAPE[kind])
    _, all_layers = int_reference.lower(_load(kind))
    layers = int_reference.without_softmax_head(all_layers)
    assert len(layers) == len(all_layers) - 1
    logits = int_reference.run(layers, x)
    assert logits.dtype == np.int8 and logits.shape == (N_CHECK, 16)
    pred = int_reference.predict(logits)
    assert int(np.sum(pred == y[:N_CHECK])) == m["reference_correct_first_100"]
    committed = np.fromfile(MODELS / m["reference_logits"], dtype=np.int8).reshape(-1, 16)
    np.testing.assert_array_equal(logits, committed[:N_CHECK])
    for L in layers:
        if L.op in ("Gemm", "Conv"):
            assert L.max_abs_acc < 2 ** (summary["mla_acc_bits_checked"] - 1)


@pytest.mark.parametrize("kind", ["mlp", "cnn"])
def test_integer_reference_matches_float_graph_evaluation(kind, test_images):
    """The ONNX graph evaluated in float64 (exact for power-of-two scales) with the accelerator's
    rounding equals the shift-based integer reference bit for bit; with ONNX's own rounding (half
    to even) the predictions still agree on almost every image."""
    model = _load(kind)
    x, _ = test_images
    x_q = x[:N_CHECK * 784].reshape(INPUT_SHAPE[kind])
    x_f = x_q.astype(np.float64) * 2.0**-7
    _, all_layers = int_reference.lower(model)
    layers = int_reference.without_softmax_head(all_layers)
    ref = int_reference.run(layers, x_q)
    k_out = layers[-1].k_y
    env_up = onnx_eval.run(model, {"input": x_f}, rounding="half_up", keep_all=True)
    half_up = env_up["logits"]
    np.testing.assert_array_equal(np.rint(half_up * 2.0**k_out).astype(np.int8), ref)
    # the softmax head in double precision, with the same rounding: bit-exact too
    probs = int_reference.run(all_layers, x_q)
    np.testing.assert_array_equal(np.rint(env_up["probabilities"] * 128).astype(np.int8), probs)
    assert (probs >= 0).all() and (np.abs(probs.astype(int).sum(1) - 128) <= 8).all()
    half_even = onnx_eval.run(model, {"input": x_f}, keep_all=True)["logits"]
    assert np.abs(half_even * 2.0**k_out - ref).max() <= 2
    assert np.mean(np.argmax(half_even, 1) == int_reference.predict(ref)) >= 0.97


def test_requantise_rounds_half_up():
    acc = np.arange(-600, 600, dtype=np.int64)
    for shift in (1, 2, 5):
        got = int_reference.requantise(acc, shift, relu=False)
        want = [max(-128, min(127, int(np.floor(a / 2**shift + 0.5)))) for a in acc]
        np.testing.assert_array_equal(got, want)
        assert (int_reference.requantise(acc, shift, relu=True) >= 0).all()
    assert int_reference.requantise(np.array([-3]), 1, False)[0] == -1  # -1.5 -> -1
    assert int_reference.requantise(np.array([3]), 1, False)[0] == 2  # 1.5 -> 2


def test_scale_exponent():
    assert int_reference.scale_exponent(2.0**-7, "s") == 7
    assert int_reference.scale_exponent(4.0, "s") == -2
    for bad in (0.1, 3.0, 0.0, -0.5):
        with pytest.raises(ValueError):
            int_reference.scale_exponent(bad, "s")


def _mutated(kind, fn):
    model = copy.deepcopy(_load(kind))
    fn(model)
    return model


def test_lower_rejects_convention_violations():
    def nonzero_zp(model):
        for i, t in enumerate(model.graph.initializer):
            if t.name.endswith("_zero_point") and numpy_helper.to_array(t).dtype == np.int8:
                model.graph.initializer[i].CopyFrom(
                    numpy_helper.from_array(np.array(3, np.int8), t.name))
                return

    def non_pow2_scale(model):
        for i, t in enumerate(model.graph.initializer):
            if t.name.endswith(".weight_scale"):
                model.graph.initializer[i].CopyFrom(
                    numpy_helper.from_array(np.array(0.003, np.float32), t.name))
                return

    def bad_bias_scale(model):
        for i, t in enumerate(model.graph.initializer):
            if t.name.endswith(".bias_scale"):
                s = float(numpy_helper.to_array(t)) * 2
                model.graph.initializer[i].CopyFrom(
                    numpy_helper.from_array(np.array(s, np.float32), t.name))
                return

    for fn in (nonzero_zp, non_pow2_scale, bad_bias_scale):
        with pytest.raises(ValueError):
            int_reference.lower(_mutated("mlp", fn))


def test_choose_exp():
    rng = np.random.default_rng(1)
    assert qdq.choose_exp(rng.uniform(-1, 1, 10000)) == 7  # 127/128 covers [-1, 1) unclipped
    assert qdq.choose_exp(rng.uniform(-8, 8, 10000)) == 4
    # a rare outlier is clipped rather than halving the resolution of everything else (range
    # +-2 at k = 6 would hold it) ...
    v = np.concatenate([rng.uniform(-1, 1, 200000), [1.5]])
    assert qdq.choose_exp(v) == 7
    # ... but not a far one: MSE then prefers the coarser scale that holds it
    v = np.concatenate([rng.uniform(-1, 1, 200000), [100.0]])
    assert qdq.choose_exp(v) < 7


def test_quantise_small_graph():
    """quantise() on a random float Gemm-Relu-Gemm graph: valid QDQ that the integer reference
    lowers, and outputs close to the float graph's."""
    rng = np.random.default_rng(2)
    w1, b1 = rng.normal(0, 0.3, (32, 20)), rng.normal(0, 0.1, 32)
    w2, b2 = rng.normal(0, 0.3, (16, 32)), rng.normal(0, 0.1, 16)
    inits = [numpy_helper.from_array(a.astype(np.float32), n)
             for a, n in ((w1, "w1"), (b1, "b1"), (w2, "w2"), (b2, "b2"))]
    nodes = [helper.make_node("Gemm", ["input", "w1", "b1"], ["h"], transB=1, name="g1"),
             helper.make_node("Relu", ["h"], ["hr"], name="r1"),
             helper.make_node("Gemm", ["hr", "w2", "b2"], ["logits"], transB=1, name="g2")]
    fl = onnx.TensorProto.FLOAT
    graph = helper.make_graph(nodes, "t", [helper.make_tensor_value_info("input", fl, [1, 20])],
                              [helper.make_tensor_value_info("logits", fl, [1, 16])], inits)
    fmodel = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    x = rng.uniform(0, 1, (200, 20)).astype(np.float32)
    qmodel, info = qdq.quantise(fmodel, x, 7)
    onnx.checker.check_model(qmodel, full_check=True)
    k_in, layers = int_reference.lower(qmodel)
    assert k_in == 7 and [L.op for L in layers] == ["Gemm", "Gemm"]
    assert layers[0].relu and not layers[1].relu
    x_q = np.clip(np.rint(x * 128.0), -128, 127).astype(np.int8)
    out = int_reference.run(layers, x_q).astype(np.float64) * 2.0**-layers[-1].k_y
    want = onnx_eval.run(fmodel, {"input": x})["logits"]
    assert np.abs(out - want).max() < 0.1 * np.abs(want).max()
    assert np.mean(out.argmax(1) == want.argmax(1)) > 0.9


def test_softmax_q_and_head_helpers():
    """softmax_q against a direct computation; add_softmax_head on a small QDQ graph keeps the
    logits and appends the documented head; the head is rejected twice."""
    x = np.array([[0, 0], [10, -10], [3, 2]], np.int8)
    got = int_reference.softmax_q(x, 2, 7)
    p = np.exp(x / 4.0) / np.exp(x / 4.0).sum(1, keepdims=True)
    np.testing.assert_array_equal(got, np.minimum(np.floor(p * 128 + 0.5), 127))
    assert got[0].tolist() == [64, 64] and got[1, 0] == 127
    rng = np.random.default_rng(4)
    w = rng.normal(0, 0.3, (16, 20))
    inits = [numpy_helper.from_array(w.astype(np.float32), "w"),
             numpy_helper.from_array(np.zeros(16, np.float32), "b")]
    nodes = [helper.make_node("Gemm", ["input", "w", "b"], ["logits"], transB=1, name="/0/Gemm")]
    fl = onnx.TensorProto.FLOAT
    graph = helper.make_graph(nodes, "t", [helper.make_tensor_value_info("input", fl, [1, 20])],
                              [helper.make_tensor_value_info("logits", fl, [1, 16])], inits)
    fmodel = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    xin = rng.uniform(0, 1, (50, 20)).astype(np.float32)
    qmodel, _ = qdq.quantise(fmodel, xin, 7)
    head_model, head = qdq.add_softmax_head(qmodel)
    assert head["name"] == "/1/Softmax" and head["k_y"] == 7 and head["output"] == "probabilities"
    assert [n.op_type for n in head_model.graph.node][-3:] == \
        ["Softmax", "QuantizeLinear", "DequantizeLinear"]
    a = onnx_eval.run(qmodel, {"input": xin})["logits"]
    env = onnx_eval.run(head_model, {"input": xin}, keep_all=True)
    np.testing.assert_array_equal(env["logits"], a)
    k_in, layers = int_reference.lower(head_model)
    assert [L.op for L in layers] == ["Gemm", "Softmax"] and layers[1].k_x == head["k_x"]
    with pytest.raises(ValueError):
        qdq.add_softmax_head(head_model)
