#!/usr/bin/python3
"""Regenerate the committed Fashion-MNIST models of scenarios/models/ (see README.md here):
train the 784-512-256-16 MLP and a small CNN (CPU, fixed seed), export both to ONNX, quantise to
int8 power-of-two QDQ, append the softmax head (qdq.add_softmax_head: the logits go through
Softmax -> QuantizeLinear(2^-7) -> DequantizeLinear), and evaluate the float model, the QDQ
graph (ONNX semantics) and the integer reference on the test set.

    /usr/bin/python3 tools/model_prep/prepare.py [--out scenarios/models] [--seed 0]
"""

import argparse
import hashlib
import json
import pathlib
import sys
import tempfile
import time

import numpy as np
import onnx
import torch
from torch import nn

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import fmnist  # noqa: E402
import int_reference  # noqa: E402
import onnx_eval  # noqa: E402
import qdq  # noqa: E402

REPO = pathlib.Path(__file__).resolve().parents[2]
INPUT_EXP = 7          # input scale 2^-7: pixels p/256 in [0, 1) -> int8 0..127
N_CLASSES = 10
N_OUT = 16             # logits padded to 16 (seed 000 sec. V-A); outputs 10..15 are never a target
N_CALIB = 1000         # calibration images, drawn from the training set
N_SUBSET = 1000        # committed test subset
ACC_BITS = 29          # nmsim's default pe.mla.acc_bits; the reference checks |acc| fits
LOGITS = "logits"      # the exported logits tensor (the softmax head's input)
OUTPUT_NAME = "probabilities"  # graph output after the softmax head
SOFTMAX_EXP = qdq.SOFTMAX_OUT_EXP  # probabilities at 2^-7


def _mm(a, b):
    """a [M, K] @ b [K, N] through oneDNN: Debian's torch links the reference (netlib) BLAS, whose
    GEMM makes training ~10x slower than oneDNN's."""
    return torch._C._nn.mkldnn_linear(a.contiguous().to_mkldnn(), b.t().contiguous(),
                                      None).to_dense()


class _OneDnnLinearFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w, b):
        ctx.save_for_backward(x, w)
        return _mm(x, w.t()) + b

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        gx = _mm(g, w) if ctx.needs_input_grad[0] else None
        return gx, _mm(g.t(), x), g.sum(0)


class Linear(nn.Linear):
    """nn.Linear that trains through oneDNN (_mm); in eval mode (inference, ONNX export) it is
    exactly nn.Linear, so the export is the usual Gemm(transB=1)."""

    def forward(self, x):
        if self.training and torch.is_grad_enabled():
            return _OneDnnLinearFn.apply(x, self.weight, self.bias)
        return super().forward(x)


def make_mlp():
    return nn.Sequential(Linear(784, 512), nn.ReLU(), Linear(512, 256), nn.ReLU(),
                         Linear(256, N_OUT))


def make_cnn():
    # padding 1 keeps 28x28 -> pool 14x14 -> pool 7x7; 16*7*7 = 784 features
    return nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), Linear(16 * 7 * 7, N_OUT))


def train(model, x, y, epochs, lr, seed, batch=128):
    gen = torch.Generator().manual_seed(seed)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    steps = epochs * ((len(x) + batch - 1) // batch)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, steps)
    loss_fn = nn.CrossEntropyLoss()
    xt, yt = torch.from_numpy(x), torch.from_numpy(y.astype(np.int64))
    model.train()
    for ep in range(epochs):
        perm = torch.randperm(len(x), generator=gen)
        total = 0.0
        for i in range(0, len(x), batch):
            idx = perm[i:i + batch]
            opt.zero_grad()
            loss = loss_fn(model(xt[idx]), yt[idx])
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss) * len(idx)
        print(f"  epoch {ep + 1}/{epochs}: loss {total / len(x):.4f}", flush=True)
    model.eval()


def torch_logits(model, x):
    with torch.no_grad():
        return np.concatenate([model(torch.from_numpy(x[i:i + 2000])).numpy()
                               for i in range(0, len(x), 2000)])


def accuracy(pred, labels):
    return float(np.mean(pred == labels))


def export(model, example, path):
    torch.onnx.export(model, torch.from_numpy(example), str(path), input_names=["input"],
                      output_names=["logits"], opset_version=13, do_constant_folding=True)
    m = onnx.load(str(path))
    onnx.checker.check_model(m, full_check=True)
    return m


def batched(fn, x, n=1000):
    return np.concatenate([fn(x[i:i + n]) for i in range(0, len(x), n)])


def prepare_model(kind, model, data, args, out_dir, tmp_dir):
    (x_tr, y_tr), (x_te, y_te), calib_idx = data
    shape = (-1, 784) if kind == "mlp" else (-1, 1, 28, 28)
    xf_tr = fmnist.to_float(x_tr).reshape(shape)
    xf_te = fmnist.to_float(x_te).reshape(shape)
    xq_te = fmnist.to_int8(x_te).reshape(shape)
    epochs, lr = (args.mlp_epochs, 1e-3) if kind == "mlp" else (args.cnn_epochs, 2e-3)

    t0 = time.time()
    print(f"[{kind}] training {epochs} epochs", flush=True)
    train(model, xf_tr, y_tr, epochs, lr, args.seed)
    t_train = time.time() - t0
    logits = torch_logits(model, xf_te)
    acc_float = accuracy(logits.argmax(1), y_te)
    print(f"[{kind}] float test accuracy {acc_float:.4f} ({t_train:.0f} s)", flush=True)

    float_onnx = export(model, xf_te[:1], tmp_dir / f"{kind}_fmnist_float.onnx")
    name_in = float_onnx.graph.input[0].name
    onnx_logits = batched(lambda b: onnx_eval.run(float_onnx, {name_in: b})["logits"], xf_te[:1000])
    export_err = float(np.abs(onnx_logits - logits[:1000]).max())
    print(f"[{kind}] float ONNX vs PyTorch: max |diff| {export_err:.2e}", flush=True)
    if export_err > 1e-3:
        raise RuntimeError(f"{kind}: the exported ONNX graph disagrees with PyTorch")

    qmodel, info = qdq.quantise(float_onnx, xf_tr[calib_idx], INPUT_EXP)
    # The softmax head comes after quantisation: the weights and the logits stay as they are.
    qmodel, head = qdq.add_softmax_head(qmodel, OUTPUT_NAME, SOFTMAX_EXP)
    info["tensor_exponents"][head["tensor"]] = head["k_y"]
    info["layers"].append({k: head[k] for k in ("name", "op", "k_x", "k_y")})
    onnx_path = out_dir / f"{kind}_fmnist_int8.onnx"
    onnx.save(qmodel, str(onnx_path))
    qmodel = onnx.load(str(onnx_path))
    onnx.checker.check_model(qmodel, full_check=True)

    # integer reference, read back from the saved file; the logits (bit-exact) and, in double
    # precision, the softmax head (within 1 LSB of the chip's EXP-based integer softmax)
    k_in, all_layers = int_reference.lower(qmodel)
    assert k_in == INPUT_EXP and all_layers[-1].op == "Softmax"
    layers = int_reference.without_softmax_head(all_layers)
    ref_logits = batched(lambda b: int_reference.run(layers, b), xq_te)
    ref_probs = int_reference.softmax_q(ref_logits, all_layers[-1].k_x, all_layers[-1].k_y)
    ref_pred = int_reference.predict(ref_logits)
    acc_ref = accuracy(ref_pred, y_te)
    # the QDQ graph with ONNX semantics (round half to even, float input quantised by the graph)
    qdq_env = [onnx_eval.run(qmodel, {name_in: xf_te[i:i + 1000]}, keep_all=True)
               for i in range(0, len(xf_te), 1000)]
    qdq_out = np.concatenate([e[LOGITS] for e in qdq_env])
    qdq_probs = np.concatenate([e[OUTPUT_NAME] for e in qdq_env])
    del qdq_env
    acc_qdq = accuracy(qdq_out.argmax(1), y_te)
    agree = float(np.mean(qdq_out.argmax(1) == ref_pred))
    # the same graph with the accelerator's rounding must reproduce the reference bit-exactly
    # (fed the dequantised int8 input, so the input QuantizeLinear does not round)
    x_dq = xq_te[:N_SUBSET].astype(np.float64) * 2.0**-INPUT_EXP
    hu_env = onnx_eval.run(qmodel, {name_in: x_dq}, rounding="half_up", keep_all=True)
    if not np.array_equal(np.rint(hu_env[LOGITS] * 2.0**layers[-1].k_y).astype(np.int8),
                          ref_logits[:N_SUBSET]):
        raise RuntimeError(f"{kind}: integer reference != QDQ graph evaluated with half-up "
                           "rounding")
    if not np.array_equal(np.rint(hu_env[OUTPUT_NAME] * 2.0**SOFTMAX_EXP).astype(np.int8),
                          ref_probs[:N_SUBSET]):
        raise RuntimeError(f"{kind}: softmax head != QDQ graph evaluated with half-up rounding")
    # the QDQ graph with ONNX semantics (half to even everywhere, float input) against the
    # reference's probabilities: they differ where the logits do
    probs_diff = int(np.abs(np.rint(qdq_probs * 2.0**SOFTMAX_EXP).astype(np.int64)
                            - ref_probs.astype(np.int64)).max())
    max_acc = max(getattr(L, "max_abs_acc", 0) for L in layers)
    if max_acc >= 2**(ACC_BITS - 1):
        raise OverflowError(f"{kind}: |acc| {max_acc} does not fit {ACC_BITS} bits")
    print(f"[{kind}] int8 reference accuracy {acc_ref:.4f}, QDQ (ONNX semantics) {acc_qdq:.4f}, "
          f"prediction agreement {agree:.4f}, max |acc| {max_acc}", flush=True)

    ref_path = out_dir / f"{kind}_fmnist_int8_ref_logits_1000.bin"
    ref_logits[:N_SUBSET].reshape(N_SUBSET, N_OUT).astype(np.int8).tofile(ref_path)
    float_pred_path = out_dir / f"{kind}_fmnist_float_pred_1000.bin"
    logits[:N_SUBSET].argmax(1).astype(np.uint8).tofile(float_pred_path)
    int8_pred_probs = int_reference.predict(ref_probs)

    for L, d in zip(layers, info["layers"]):
        assert L.name == d["name"]
        if hasattr(L, "max_abs_acc"):
            d["max_abs_acc_test"] = L.max_abs_acc
            d["acc_bits_needed"] = int(L.max_abs_acc).bit_length() + 1
    return {
        "onnx": onnx_path.name,
        "onnx_bytes": onnx_path.stat().st_size,
        "onnx_sha256": hashlib.sha256(onnx_path.read_bytes()).hexdigest(),
        "input_shape": [1] + list(shape[1:]),
        "output_shape": [1, N_OUT],
        "output": OUTPUT_NAME,
        "output_exponent": SOFTMAX_EXP,
        "logits_tensor": LOGITS,
        "logits_exponent": layers[-1].k_y,
        "softmax_head": {"node": head["name"], "axis": head["axis"], "k_x": head["k_x"],
                         "k_y": head["k_y"],
                         "onnx": "DequantizeLinear(logits) -> Softmax(axis=-1) -> "
                                 f"QuantizeLinear(2^-{SOFTMAX_EXP}, int8 0) -> "
                                 f"DequantizeLinear -> {OUTPUT_NAME}",
                         "int8_semantics": "firmware/include/nmsim/hw/spinnaker2/dnn_image.h "
                                           "(Softmax); bit-exact host reference "
                                           "tools/compiler/graph_reference.h",
                         "max_lsb_qdq_onnx_semantics_vs_reference_test_10000": probs_diff,
                         "argmax_probabilities_equals_argmax_logits_test_10000":
                             float(np.mean(int8_pred_probs == ref_pred))},
        "epochs": epochs,
        "train_seconds": round(t_train, 1),
        "accuracy_test_10000": {"float_pytorch": acc_float, "qdq_onnx_semantics": acc_qdq,
                                "int8_reference": acc_ref,
                                "reference_vs_qdq_prediction_agreement": agree},
        "reference_correct_first_100": int(np.sum(ref_pred[:100] == y_te[:100])),
        "reference_correct_first_1000": int(np.sum(ref_pred[:1000] == y_te[:1000])),
        "padded_output_predicted_test_10000": int(np.sum(ref_pred >= N_CLASSES)),
        "reference_logits": ref_path.name,
        "reference_logits_note": "int8 logits (the softmax layer's input, exponent "
                                 "logits_exponent), not the softmax output",
        "float_predictions": float_pred_path.name,
        "float_predictions_note": "uint8 argmax of the float PyTorch model's logits for the "
                                  "1000 committed test images (float input p/256)",
        "float_correct_first_1000": int(np.sum(logits[:N_SUBSET].argmax(1) == y_te[:N_SUBSET])),
        "tensor_exponents": info["tensor_exponents"],
        "layers": info["layers"],
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=pathlib.Path, default=REPO / "scenarios" / "models")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--mlp-epochs", type=int, default=12)
    ap.add_argument("--cnn-epochs", type=int, default=8)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    t_start = time.time()
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    torch.use_deterministic_algorithms(True)
    args.out.mkdir(parents=True, exist_ok=True)

    x_tr, y_tr = fmnist.load("train")
    x_te, y_te = fmnist.load("t10k")
    calib_idx = np.sort(np.random.default_rng(args.seed).choice(len(x_tr), N_CALIB, replace=False))
    data = ((x_tr, y_tr), (x_te, y_te), calib_idx)

    fmnist.to_int8(x_te[:N_SUBSET]).reshape(N_SUBSET, 784).tofile(args.out / "fmnist_test_1000.bin")
    y_te[:N_SUBSET].astype(np.uint8).tofile(args.out / "fmnist_test_1000_labels.bin")

    summary = {
        "generator": "tools/model_prep/prepare.py",
        "seed": args.seed,
        "torch": torch.__version__, "onnx": onnx.__version__, "numpy": np.__version__,
        "dataset": str(fmnist.DATA_DIR),
        "calibration": {"images": N_CALIB, "from": "training set, seeded random choice",
                        "activation_exponent": "MSE-optimal int8 power-of-two over k",
                        "weight_exponent": "MSE-optimal int8 power-of-two over k (symmetric)"},
        "test_subset": {"images": "fmnist_test_1000.bin", "labels": "fmnist_test_1000_labels.bin",
                        "count": N_SUBSET, "image_dtype": "int8", "image_shape": [28, 28],
                        "image_exponent": INPUT_EXP, "label_dtype": "uint8",
                        "quantisation": "clip(round_half_even(p / 2), -128, 127) of pixel p, "
                                        "i.e. QuantizeLinear(p / 256, 2^-7, 0)"},
        "prediction": "argmax over the 16 int8 logits (the softmax input), lowest index on ties",
        "mla_acc_bits_checked": ACC_BITS,
        "models": {},
    }
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        torch.manual_seed(args.seed)
        summary["models"]["mlp"] = prepare_model("mlp", make_mlp(), data, args, args.out, tmp)
        torch.manual_seed(args.seed)
        summary["models"]["cnn"] = prepare_model("cnn", make_cnn(), data, args, args.out, tmp)
    summary["regeneration_seconds"] = round(time.time() - t_start, 1)
    with open(args.out / "fmnist_models.json", "w") as f:
        json.dump(summary, f, indent=2)
        f.write("\n")
    print(f"done in {summary['regeneration_seconds']:.0f} s; wrote {args.out}")


if __name__ == "__main__":
    main()
