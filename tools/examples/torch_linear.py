#!/usr/bin/python3
"""Trains a small two-layer model with nmsim.torch in mock mode and evaluates it on the
simulated BrainScaleS-2 chip and on the ideal chip (docs/torch.md, "Example").

    NMSIM_BUILD_DIR=build /usr/bin/python3 tools/examples/torch_linear.py [--epochs 15]

The task is synthetic (no downloads): four classes, each a random prototype pattern of 32
activations in 0..31, samples are the prototype with Gaussian noise, rounded and clamped. The
model is Linear(32, 48) -> ReLU -> rescaling of the first layer's output (0..127 LSB) into the
input range 0..31 (divide by 4) -> Linear(48, 4); all values in hardware units, no biases on the
chip. Training uses hxtorch's mock formula (gain 0.002, noise 2 LSB) and the straight-through
backward; evaluation runs the same weights in "simulate" (the chip with its default mismatch
and 1.4 LSB of noise per CADC conversion, i.e. 2 LSB on a result, the difference of two
conversions, as hxtorch's mock) and "ideal" (the integer reference) modes, and prints the
accuracy of each and the simulated time of the simulate calls.
"""

import argparse
import pathlib
import sys
import time

SOURCE_DIR = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(SOURCE_DIR / "python"))

import torch  # noqa: E402

import nmsim.torch as hx  # noqa: E402

CLASSES, FEATURES, HIDDEN = 4, 32, 48


def dataset(n, generator, prototypes):
    labels = torch.randint(0, CLASSES, (n,), generator=generator)
    x = prototypes[labels] + 10.0 * torch.randn(n, FEATURES, generator=generator)
    return torch.round(x).clamp(0, hx.INPUT_MAX), labels


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = hx.Linear(FEATURES, HIDDEN, bias=False)
        self.fc2 = hx.Linear(HIDDEN, CLASSES, bias=False)
        with torch.no_grad():  # a start that keeps the first layer's output in range
            self.fc1.weight.mul_(0.5)
            self.fc2.weight.mul_(0.5)

    def forward(self, x):
        h = torch.relu(self.fc1(x)) / 4  # 0..127 LSB -> 0..31 activations
        return self.fc2(h)


def accuracy(model, x, labels):
    with torch.no_grad():
        return (model(x).argmax(1) == labels).float().mean().item()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--epochs", type=int, default=15)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    torch.manual_seed(args.seed)
    g = torch.Generator().manual_seed(args.seed)
    prototypes = torch.randint(0, 32, (CLASSES, FEATURES), generator=g).float()
    x_train, y_train = dataset(1000, g, prototypes)
    x_test, y_test = dataset(200, g, prototypes)

    model = Model()
    opt = torch.optim.Adam(model.parameters(), lr=0.3)
    hx.configure(mode="mock")
    t0 = time.perf_counter()
    for epoch in range(args.epochs):
        for i in range(0, len(x_train), 100):
            opt.zero_grad()
            # Logits in LSB; a tenth of them keeps the softmax away from saturation.
            loss = torch.nn.functional.cross_entropy(model(x_train[i:i + 100]) / 10,
                                                     y_train[i:i + 100])
            loss.backward()
            opt.step()
        if epoch in (0, args.epochs - 1):
            print(f"epoch {epoch + 1:2d}: loss {loss.item():.3f}, mock accuracy "
                  f"{accuracy(model, x_test, y_test):.3f}")
    print(f"training ({args.epochs} epochs, mock): {time.perf_counter() - t0:.1f} s")

    for mode, params in [("mock", None), ("ideal", None),
                         ("simulate", {"cadc.noise_lsb": 1.4})]:
        hx.configure(mode=mode)
        if params is not None:
            hx.configure(params=params, seed=args.seed)
        hx.reset_stats()
        t0 = time.perf_counter()
        acc = accuracy(model, x_test, y_test)
        print(f"test accuracy {mode:8s}: {acc:.3f}  ({time.perf_counter() - t0:.2f} s wall)")
    s = hx.stats()
    host = sum(s[k] for k in s if k.startswith("host_"))
    print(f"simulated: {s['calls']} products, {s['vectors']} vectors, {s['wall'] / 1e3:.2f} ms "
          f"(transfer {s['transfer'] / 1e3:.2f} ms, configuration {s['config'] / 1e3:.2f} ms, "
          f"realtime {s['realtime'] / 1e3:.2f} ms, other {s['other'] / 1e3:.2f} ms, host "
          f"{host / 1e3:.2f} ms)")


if __name__ == "__main__":
    main()
