#!/usr/bin/python3
"""Seed 003's measurements next to nmsim's (docs/deepr.md, "What the seed measured").

    /usr/bin/python3 tools/examples/deepr/seed_table.py [--nmsim build/bin/nmsim]
        [--iterations 100] [--out DIR]

Runs the three DEEP R scenarios (1P, 1PA, 4PA) at rewiring period 10 and 1, reads their metrics
and prints a markdown table: time per iteration and the 1P/1PA, 1PA/4PA and 1P/4PA ratios, the
phase splits, the speed-up from period 1 to 10, memory per PE, power, energy, inference time,
with the seed's values. Every run checks itself bit for bit against the reference.
"""

import argparse
import pathlib
import subprocess
import sys

SOURCE_DIR = pathlib.Path(__file__).resolve().parents[3]
sys.path.insert(0, str(SOURCE_DIR / "python"))

import nmsim_trace  # noqa: E402

SEED_ITERATIONS = 450e3  # the assumption that turns the seed's training times into per-iteration


def run(nmsim, out, setup, period, iterations):
    trace = out / f"{setup}_p{period}.h5"
    args = [nmsim, "run", str(SOURCE_DIR / "scenarios" / f"s2_proto_deepr_{setup}.yaml"), "-q",
            "-o", str(trace), "--set", f"workload.deepr.rewiring_period={period}",
            "--set", f"workload.deepr.iterations={iterations}"]
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{' '.join(args)} failed:\n{p.stderr}")
    s = nmsim_trace.load(str(trace)).summary()
    m = s[s["component"] == "metrics"]
    return dict(zip(m["counter"], m["value"]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nmsim", default=str(SOURCE_DIR / "build" / "bin" / "nmsim"))
    ap.add_argument("--iterations", type=int, default=100)
    ap.add_argument("--out", default="/tmp/nmsim_deepr_table")
    a = ap.parse_args()
    out = pathlib.Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    m = {(s, p): run(a.nmsim, out, s, p, a.iterations)
         for s in ("1p", "1pa", "4pa") for p in (10, 1)}
    t = {k: v["deepr.time_per_iteration_us"] for k, v in m.items()}

    def split(k):
        v = m[k]
        return " / ".join(f"{v[f'deepr.{p}_pct']:.1f}" for p in
                          ("import", "forward", "backward", "rewiring")) + " %"

    rows = [
        ("time per iteration 1P / 1PA / 4PA (period 10)",
         " / ".join(f"{SEED_ITERATIONS and s / SEED_ITERATIONS * 1e3:.2f}"
                    for s in (1755, 1082, 228)) + " ms (if 450 k iterations)",
         f"{t['1p', 10] / 1e3:.2f} / {t['1pa', 10] / 1e3:.2f} / {t['4pa', 10] / 1e3:.2f} ms"),
        ("1P / 1PA", "1.62x", f"{t['1p', 10] / t['1pa', 10]:.2f}x"),
        ("1PA / 4PA", "4.75x", f"{t['1pa', 10] / t['4pa', 10]:.2f}x"),
        ("1P / 4PA", "7.7x", f"{t['1p', 10] / t['4pa', 10]:.2f}x"),
        ("phase split, period 1 (import / fwd / bwd / rewiring)", "0.2 / 2.5 / 7.2 / 90.1 %",
         f"1PA {split(('1pa', 1))}; 1P {split(('1p', 1))}"),
        ("phase split, period 10", "1.0 / 13.4 / 38.0 / 47.6 %",
         f"1PA {split(('1pa', 10))}; 1P {split(('1p', 10))}"),
        ("speed-up period 1 -> 10 (1PA)", "'almost 4' (5.3 from its splits)",
         f"{t['1pa', 1] / t['1pa', 10]:.2f}x"),
        ("memory per PE, 1 PE", "36.63 KB (28.21 / 6.28 / 2.14)",
         f"{m['1pa', 10]['deepr.footprint_kib']:.2f} KB ("
         f"{m['1pa', 10]['deepr.weight_bytes'] / 1024:.2f} / "
         f"{m['1pa', 10]['deepr.vector_bytes'] / 1024:.2f} / "
         f"{m['1pa', 10]['deepr.temporary_bytes'] / 1024:.2f})"),
        ("memory per PE, 4 PEs", "12.99 KB", f"{m['4pa', 10]['deepr.footprint_kib']:.2f} KB"),
        ("power 1P / 1PA / 4PA", "87.9 / 87.9 / 227.0 mW",
         " / ".join(f"{m[s, 10]['deepr.power_mW']:.1f}" for s in ("1p", "1pa", "4pa")) + " mW"),
        ("energy per iteration 1P / 1PA / 4PA",
         " / ".join(f"{e / SEED_ITERATIONS * 1e6:.0f}" for e in (159, 95, 52)) +
         " uJ (if 450 k iterations)",
         " / ".join(f"{m[s, 10]['deepr.energy_per_iteration_uJ']:.0f}"
                    for s in ("1p", "1pa", "4pa")) + " uJ"),
    ]
    print("| quantity | seed 003 | nmsim |\n|---|---|---|")
    for r in rows:
        print(f"| {r[0]} | {r[1]} | {r[2]} |")
    print(f"\n{a.iterations} iterations per run; every run bit-exact with the reference "
          f"(mismatches: {sum(v['deepr.mismatches'] for v in m.values()):.0f}).")


if __name__ == "__main__":
    main()
