"""`nmsim run` of the CNN scenario with a mutated model (issue 12 item 4): an int64 window
attribute that used to be truncated to int (a MaxPool stride of 2^32 + 2 became 2, the model
loaded and the run said PASS) is now bad input, exit status 2, with the node (name and op type)
and the attribute named. The same for a weight dimension whose product overflows int64.

The nmsim binary comes from the environment (NMSIM_BINARY, set by ctest).
"""

import pathlib
import subprocess

import onnx
import yaml

SOURCE_DIR = pathlib.Path(__file__).resolve().parents[2]
SCENARIO = SOURCE_DIR / "scenarios" / "s2_cnn_fmnist.yaml"


def _run_with_model(nmsim_binary, tmp_path, change):
    model = onnx.load(str(SOURCE_DIR / "scenarios" / "models" / "cnn_fmnist_int8.onnx"))
    change(model.graph)
    onnx.save(model, str(tmp_path / "cnn.onnx"))
    with open(SCENARIO) as f:
        scenario = yaml.safe_load(f)
    dnn = scenario["workload"]["dnn"]
    for key in ("inputs", "labels", "float_predictions"):
        dnn[key] = str(SOURCE_DIR / "scenarios" / dnn[key])
    dnn["model"] = str(tmp_path / "cnn.onnx")
    scenario["trace"] = {"file": "run.h5"}
    with open(tmp_path / "sc.yaml", "w") as f:
        yaml.safe_dump(scenario, f)
    return subprocess.run([nmsim_binary, "run", "sc.yaml", "-q"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)


def _node(graph, name):
    return next(n for n in graph.node if n.name == name)


def test_truncating_stride_is_bad_input(nmsim_binary, tmp_path):
    def change(graph):
        for a in _node(graph, "/2/MaxPool").attribute:
            if a.name == "strides":
                a.ints[0] = 2**32 + 2

    p = _run_with_model(nmsim_binary, tmp_path, change)
    assert p.returncode == 2, p.stdout + p.stderr
    assert ("cnn.onnx: node '/2/MaxPool' (MaxPool): attribute strides[0] = 4294967298 outside "
            "1..65535") in p.stderr, p.stderr
    assert not (tmp_path / "run.h5").exists()


def test_overflowing_weight_dimensions_are_bad_input(nmsim_binary, tmp_path):
    def change(graph):
        w = next(t for t in graph.initializer if t.name == "0.weight_q")
        del w.dims[:]
        w.dims.extend([2**32, 2**32, 2**32, 1])

    p = _run_with_model(nmsim_binary, tmp_path, change)
    assert p.returncode == 2, p.stdout + p.stderr
    assert ("cnn.onnx: node '0.weight_DQ' (DequantizeLinear): tensor '0.weight_q': shape "
            "[4294967296, 4294967296, 4294967296, 1] needs more than 2147483648 B") in p.stderr, \
        p.stderr
