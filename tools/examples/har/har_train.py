#!/usr/bin/python3
"""Seed 002's human activity recognition example (sec. 4.2, Table 1) on the simulated
BrainScaleS-2 chip through nmsim.torch (docs/bss2_har.md).

    NMSIM_BUILD_DIR=build /usr/bin/python3 tools/examples/har/har_train.py            # default
    NMSIM_BUILD_DIR=build /usr/bin/python3 tools/examples/har/har_train.py \\
        --epochs 50 --test-samples 0 --hil-samples 0                                   # full run
    ... har_train.py --data "/path/to/UCI HAR Dataset"                                 # real data

Steps, as the seed's: (1) training in software, here nmsim.torch's ``mock`` mode (hxtorch's
formula: inputs and weights quantised to the chip's ranges, gain, Gaussian noise of 2 LSB on
each layer's output; the chip's gain 1/512 unless --mock-gain); (2) the same weights on the
simulated chip (``simulate`` mode: default chip parameters with fixed-pattern mismatch, CADC
noise 1.4 LSB per conversion) "without retraining", and on the ideal chip (``ideal``) for
reference; (3) one epoch of hardware-in-the-loop training (forward pass on the simulated chip,
backward pass straight-through in software) and the simulated chip again. Accuracy, confusion
matrix (rows: true class, columns: predicted; recall per class as seed 002 Fig. 9), simulated
time per window and wall time of the simulation per window are printed.

Without --data the data are a synthetic substitute for UCI HAR (har_data.synthetic_har):
the same shapes and classes, but not the real recordings, so the accuracies are not comparable
to the seed's 92.7 % (software) and 82.3 % (on chip).
"""

import argparse
import pathlib
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
SOURCE_DIR = HERE.parents[2]
sys.path.insert(0, str(SOURCE_DIR / "python"))
sys.path.insert(0, str(HERE))

import numpy as np  # noqa: E402
import torch  # noqa: E402

import nmsim.torch as hx  # noqa: E402

import har_data  # noqa: E402
from har_model import HARModel  # noqa: E402

# The simulated chip of the evaluation: the platform's defaults (neuron mismatch on) plus CADC
# noise of 1.4 LSB per conversion (2 LSB per result, hxtorch's mock noise; docs/torch.md).
CHIP_PARAMS = {"cadc.noise_lsb": 1.4}


def load_data(data=None, seed=0, windows_per_activity=56):
    """((x_train, y_train), (x_test, y_test), description): inputs already scaled to 0..31 as
    float32 tensors (offset and scale from the training set), labels int64 tensors."""
    if data:
        (xt, yt, _), (xe, ye, _) = har_data.load_uci_har(data)
        what = f"UCI HAR from {data}"
    else:
        (xt, yt, _), (xe, ye, _) = har_data.synthetic_har(seed, windows_per_activity)
        what = ("SYNTHETIC substitute for UCI HAR (har_data.synthetic_har, seed "
                f"{seed}): not the real data, accuracies not comparable to seed 002's")
    scaler = har_data.InputScaler(xt)
    return ((torch.from_numpy(scaler(xt)), torch.from_numpy(yt)),
            (torch.from_numpy(scaler(xe)), torch.from_numpy(ye)), what)


def subset(n_total, n, seed):
    """The first n of a fixed permutation of range(n_total) (all if n <= 0 or n >= n_total)."""
    g = torch.Generator().manual_seed(seed)
    perm = torch.randperm(n_total, generator=g)
    return perm if n <= 0 or n >= n_total else perm[:n]


def clamp_weights(model):
    with torch.no_grad():
        for p in model.parameters():
            p.clamp_(-hx.WEIGHT_MAX, hx.WEIGHT_MAX)


def run_epoch(model, opt, x, y, batch, logit_scale, generator):
    """One pass over (x, y) in shuffled batches in the current mode; the mean loss."""
    model.train()
    perm = torch.randperm(len(x), generator=generator)
    total = 0.0
    for i in range(0, len(x), batch):
        idx = perm[i:i + batch]
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x[idx]) * logit_scale, y[idx])
        loss.backward()
        opt.step()
        clamp_weights(model)
        total += loss.item() * len(idx)
    return total / len(x)


def predict(model, x, batch):
    """Class predictions in the current mode, ``batch`` windows per product call."""
    model.eval()
    out = []
    with torch.no_grad():
        for i in range(0, len(x), batch):
            out.append(model(x[i:i + batch]).argmax(1))
    return torch.cat(out)


def confusion(y, pred, classes=len(har_data.CLASSES)):
    m = torch.zeros(classes, classes, dtype=torch.int64)
    for t, p in zip(y.tolist(), pred.tolist()):
        m[t, p] += 1
    return m


def format_confusion(m):
    names = [c[:8] for c in har_data.CLASSES]
    lines = ["true \\ predicted " + " ".join(f"{n:>8s}" for n in names) + "   recall"]
    for i, row in enumerate(m.tolist()):
        recall = row[i] / max(1, sum(row))
        lines.append(f"{names[i]:>16s} " + " ".join(f"{v:8d}" for v in row)
                     + f"   {recall:6.1%}")
    return "\n".join(lines)


def evaluate(model, x, y, mode, batch):
    """Accuracy, confusion matrix, wall seconds and (simulate) the simulated-time statistics."""
    hx.configure(mode=mode)
    hx.reset_stats()
    t0 = time.perf_counter()
    pred = predict(model, x, batch)
    wall = time.perf_counter() - t0
    acc = (pred == y).float().mean().item()
    return {"acc": acc, "confusion": confusion(y, pred), "wall_s": wall, "stats": hx.stats(),
            "n": len(y)}


def format_times(r):
    """Simulated time per window (the products' wall time and its categories, summed over the
    chips' executions) and the simulation's wall time per window."""
    s, n = r["stats"], r["n"]
    host = sum(s[k] for k in s if k.startswith("host_"))
    return (f"simulated per window: {s['wall'] / n:.1f} us (transfer {s['transfer'] / n:.1f}, "
            f"configuration {s['config'] / n:.1f}, realtime {s['realtime'] / n:.1f}, other "
            f"{s['other'] / n:.1f}, host {host / n:.1f} us; {s['calls']} products, "
            f"{s['vectors'] / n:.0f} vectors and {s['macs'] / n:.0f} MAC per window); "
            f"simulation wall time per window {r['wall_s'] / n * 1e3:.1f} ms "
            f"({r['wall_s'] * 1e6 / max(s['wall'], 1e-9):.1f} wall s per simulated s)")


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", help="the 'UCI HAR Dataset' folder (default: synthetic substitute)")
    ap.add_argument("--seed", type=int, default=0, help="data, initialisation, noise, chip")
    ap.add_argument("--windows", type=int, default=56,
                    help="synthetic data: windows per subject and activity")
    ap.add_argument("--epochs", type=int, default=20, help="mock-mode epochs (seed: 50)")
    ap.add_argument("--batch", type=int, default=64, help="training batch (windows)")
    ap.add_argument("--lr", type=float, default=0.3, help="Adam, weights in units of -63..63")
    ap.add_argument("--hil-lr", type=float, default=0.1, help="Adam in the hardware-in-the-loop epoch")
    ap.add_argument("--logit-scale", type=float, default=0.125,
                    help="cross-entropy on logits (LSB) times this")
    ap.add_argument("--mock-gain", type=float, default=hx.IDEAL_GAIN,
                    help="mock gain (LSB per unit of x*w): the chip's 1/512; hxtorch's 0.002")
    ap.add_argument("--test-samples", type=int, default=600,
                    help="test windows on the simulated chip (0: all)")
    ap.add_argument("--hil-samples", type=int, default=1024,
                    help="training windows of the hardware-in-the-loop epoch (0: all)")
    ap.add_argument("--sim-batch", type=int, default=200,
                    help="windows per product call in simulate mode")
    ap.add_argument("--chips", type=int, default=1, help="simulated chips")
    return ap.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    torch.manual_seed(args.seed)
    (x_train, y_train), (x_test, y_test), what = load_data(args.data, args.seed, args.windows)
    print(f"data: {what}")
    print(f"      {len(x_train)} training and {len(x_test)} test windows, 9 x 128, inputs 0..31")
    hx.configure(mode="mock", mock_gain=args.mock_gain, mock_noise_std=2.0, chips=args.chips,
                 params=CHIP_PARAMS, seed=args.seed, fresh_noise=True)

    model = HARModel()
    gen = torch.Generator().manual_seed(args.seed)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    t0 = time.perf_counter()
    for epoch in range(args.epochs):
        loss = run_epoch(model, opt, x_train, y_train, args.batch, args.logit_scale, gen)
        if epoch in (0, args.epochs - 1) or (epoch + 1) % 10 == 0:
            acc = evaluate(model, x_test, y_test, "mock", 1024)["acc"]
            print(f"epoch {epoch + 1:3d} (mock): loss {loss:.3f}, test accuracy {acc:.3f}")
            hx.configure(mode="mock")
    print(f"training: {args.epochs} epochs in mock mode, {time.perf_counter() - t0:.1f} s")

    test_idx = subset(len(x_test), args.test_samples, args.seed + 1)
    xs, ys = x_test[test_idx], y_test[test_idx]
    print(f"\nall test windows ({len(x_test)}):")
    for mode in ("mock", "ideal"):
        r = evaluate(model, x_test, y_test, mode, 1024)
        print(f"  accuracy {mode:8s}: {r['acc']:.3f}")
    print(f"\ntest subset of {len(xs)} windows (--test-samples), seed 002 Fig. 9 (a)/(b):")
    results = {}
    for mode in ("mock", "ideal", "simulate"):
        r = evaluate(model, xs, ys, mode, args.sim_batch)
        results[mode] = r
        print(f"  accuracy {mode:8s}: {r['acc']:.3f}")
    print("\nconfusion, mock (software):\n" + format_confusion(results["mock"]["confusion"]))
    print("\nconfusion, simulate (chip, without retraining):\n"
          + format_confusion(results["simulate"]["confusion"]))
    print("\n" + format_times(results["simulate"]))

    hil_idx = subset(len(x_train), args.hil_samples, args.seed + 2)
    hx.configure(mode="simulate")
    hx.reset_stats()
    opt = torch.optim.Adam(model.parameters(), lr=args.hil_lr)
    t0 = time.perf_counter()
    loss = run_epoch(model, opt, x_train[hil_idx], y_train[hil_idx], args.batch,
                     args.logit_scale, gen)
    hil_wall = time.perf_counter() - t0
    s = hx.stats()
    print(f"\nhardware-in-the-loop epoch: {len(hil_idx)} training windows (--hil-samples), "
          f"loss {loss:.3f}, wall {hil_wall:.1f} s, simulated {s['wall'] / 1e6:.3f} s")

    r = evaluate(model, xs, ys, "simulate", args.sim_batch)
    print(f"\nafter one hardware-in-the-loop epoch, seed 002 Fig. 9 (c):")
    print(f"  accuracy simulate: {r['acc']:.3f}")
    for mode in ("mock", "ideal"):
        print(f"  accuracy {mode:8s}: {evaluate(model, xs, ys, mode, args.sim_batch)['acc']:.3f}")
    print("\nconfusion, simulate after hardware-in-the-loop:\n" + format_confusion(r["confusion"]))
    print("\n" + format_times(r))
    if not args.data:
        print("\nnote: synthetic substitute data; seed 002 reports 92.7 % (software) and 82.3 % "
              "(on chip) on UCI HAR, not comparable")


if __name__ == "__main__":
    main()
