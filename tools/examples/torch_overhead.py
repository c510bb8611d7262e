#!/usr/bin/python3
"""Measures the wall time per call of nmsim.torch.matmul in each mode (docs/torch.md, "Cost per
call").

    NMSIM_BUILD_DIR=build /usr/bin/python3 tools/examples/torch_overhead.py [-n 20] [--markdown]

Two products: a small one (batch 1, 16 x 16: the time is the per-call overhead) and a 256 x 256
one with a batch of 100 (two tiles on one chip, seed 002's Fig. 8 size). For each it times n
calls of

  torch      torch.matmul of the same float tensors (the software baseline)
  ideal      nmsim.torch.matmul(mode="ideal"): the integer reference in C++
  mock       nmsim.torch.matmul(mode="mock"): hxtorch's formula in C++
  simulate   nmsim.torch.matmul(mode="simulate"): the whole chip simulation

and prints the median wall time per call; for simulate also the simulated time of the product
(wall, the `wall` of stats()) and the slowdown (wall seconds per simulated second). The module
level (nmsim._hagen on numpy arrays, without torch's tensors and autograd) is timed too, to
separate the Python wrapper's share.
"""

import argparse
import pathlib
import statistics
import sys
import time

SOURCE_DIR = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(SOURCE_DIR / "python"))

import numpy as np  # noqa: E402
import torch  # noqa: E402

import nmsim.torch as hx  # noqa: E402
from nmsim import _native  # noqa: E402

PRODUCTS = [("1 x 16 x 16", 1, 16, 16), ("100 x 256 x 256", 100, 256, 256)]


def median_seconds(fn, n):
    fn()  # warm-up: first-use costs (module load, allocations) are not per call
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def fmt(seconds):
    return f"{seconds * 1e3:.3f} ms" if seconds >= 1e-3 else f"{seconds * 1e6:.1f} us"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-n", type=int, default=20, help="calls per variant (median)")
    ap.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = ap.parse_args()

    hagen = _native.load()
    g = torch.Generator().manual_seed(0)
    rows = []
    for name, batch, n_in, n_out in PRODUCTS:
        x = torch.randint(0, 32, (batch, n_in), generator=g).float()
        w = torch.randint(-20, 21, (n_in, n_out), generator=g).float()
        xi, wi = x.long().numpy(), w.long().numpy()
        n = args.n if batch == 1 else max(3, args.n // 4)
        res = {"torch": median_seconds(lambda: torch.matmul(x, w), n)}
        for mode in ("ideal", "mock", "simulate"):
            res[mode] = median_seconds(lambda: hx.matmul(x, w, mode=mode), n)
        res["module ideal"] = median_seconds(lambda: hagen.reference(xi, wi, 1), n)
        res["module mock"] = median_seconds(lambda: hagen.mock(xi, wi, 1, 0.002, 2.0, 1), n)
        res["module simulate"] = median_seconds(lambda: hagen.simulate(xi, wi), n)
        hx.reset_stats()
        hx.matmul(x, w, mode="simulate")
        simulated = hx.stats()["wall"] * 1e-6
        rows.append((name, n, res, simulated))

    cols = ["torch", "ideal", "mock", "simulate", "module ideal", "module mock",
            "module simulate"]
    if args.markdown:
        print("| product (batch x in x out) | calls | " + " | ".join(cols) +
              " | simulated | slowdown |")
        print("|---" * (len(cols) + 4) + "|")
    for name, n, res, simulated in rows:
        slowdown = res["simulate"] / simulated
        if args.markdown:
            print(f"| {name} | {n} | " + " | ".join(fmt(res[c]) for c in cols) +
                  f" | {fmt(simulated)} | {slowdown:.1f} |")
        else:
            print(f"{name} ({n} calls, median wall time per call):")
            for c in cols:
                print(f"  {c:16s} {fmt(res[c]):>12s}")
            print(f"  simulated time of the product {fmt(simulated)}, slowdown "
                  f"{slowdown:.1f} wall s per simulated s")


if __name__ == "__main__":
    main()
