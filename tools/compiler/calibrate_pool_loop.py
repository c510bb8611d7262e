"""Calibration of the DNN cost model's pool-loop constants (docs/compiler.md, "Cost model").

Runs the maxpool of generated one-conv CNNs on one worker and reads the worker's core-loop
cycles (dnn.layer<i>_compute_us at 300 MHz), then fits the five pool_cycles_* constants of
tools/compiler/tiling.h by least squares on the cases named by --fit and prints the error on all.

  /usr/bin/python3 tools/compiler/calibrate_pool_loop.py build/bin/nmsim [--fit A,B,C,E,G]
"""

import argparse
import json
import pathlib
import subprocess
import sys
import tempfile

import numpy as np

SOURCE_DIR = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(SOURCE_DIR / "tests" / "python"))
import test_dnn_cost_model as gen  # noqa: E402  (the generated models of the cost-model test)

# name: (input channels, map size, conv output channels, maxpool (kernel, stride, pad))
CASES = {"A": (1, 28, 8, (2, 2, 0)), "B": (2, 15, 6, (3, 2, 1)), "C": (1, 12, 3, (2, 2, 0)),
         "D": (2, 8, 16, (2, 2, 0)), "E": (1, 9, 12, (3, 3, 0)), "F": (1, 16, 5, (3, 1, 1)),
         "G": (1, 10, 4, (2, 1, 0))}
CLOCK_MHZ = 300


def measure(nmsim, workdir):
    """Per case: the loop's counts (pixels, words, word taps, single channels, their taps) and the
    measured cycles."""
    rng = np.random.default_rng(5)
    out = {}
    for name, (ic, hw, c, pool) in CASES.items():
        fmodel, calib = gen.random_cnn(rng, ic, hw, [(c, pool)], 4)
        model, inputs = gen._write_model(workdir, name, fmodel, calib, rng)
        layers = gen._explain(nmsim, gen._scenario(workdir, name, model, inputs))
        scenario = gen._scenario(workdir, name, model, inputs, [1] * len(layers))
        run = workdir / f"{name}_run"
        p = subprocess.run([nmsim, "run", str(scenario), "-q", "-d", str(run)],
                           capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit(p.stdout + p.stderr)
        metrics = json.loads((run / "stats.json").read_text())["metrics"]
        i = next(i for i, r in enumerate(layers) if r["kind"] == "maxpool")
        k, s, pad = pool
        px = ((hw + 2 * pad - k) // s + 1) ** 2
        words, single = c // 4, c % 4
        counts = [px, px * words, px * k * k * words, px * single, px * k * k * single]
        out[name] = (counts, metrics[f"dnn.layer{i}_compute_us"]["value"] * CLOCK_MHZ)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("nmsim")
    ap.add_argument("--fit", default="A,B,C,E,G", help="cases to fit on (the rest is the check)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        data = measure(args.nmsim, pathlib.Path(d))
    fit = args.fit.split(",")
    a = np.array([data[n][0] for n in fit], float)
    x, *_ = np.linalg.lstsq(a, np.array([data[n][1] for n in fit]), rcond=None)
    names = ["pixel", "word", "word_tap", "channel", "tap"]
    print("pool_cycles_per_" + ", per_".join(f"{n} {v:.2f}" for n, v in zip(names, x)))
    for n, (counts, cycles) in data.items():
        est = float(np.dot(counts, x))
        print(f"{n} {'fit  ' if n in fit else 'check'} measured {cycles:8.0f} cycles, "
              f"model {est:8.0f} ({100 * (est / cycles - 1):+.1f} %)")


if __name__ == "__main__":
    main()
