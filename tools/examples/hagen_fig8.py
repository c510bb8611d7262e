#!/usr/bin/python3
"""Seed 002 Fig. 8 from nmsim's hagen sweeps (docs/bss2_hagen.md, "Seed 002 Fig. 8").

    nmsim sweep scenarios/sweeps/hagen_fig8_size.yaml -j 2
    nmsim sweep scenarios/sweeps/hagen_fig8_batch.yaml -j 2
    /usr/bin/python3 tools/examples/hagen_fig8.py [--size DIR] [--batch DIR] [-o PNG]

Left: multiply-accumulates per second against the square matrix size (n^2 weights) at batch
2000, host link at 1 and 8 Gbit/s, with seed 004's eq. 3.1 transport bounds for the same tiles
and a dotted line at one chip (256 x 256). Right: against the batch size for 256 x 256, with the
break-even batch (configuration data = vector data) dotted. Prints the points as a table too,
and the seeds' figures next to them.
"""

import argparse
import pathlib
import sys

SOURCE_DIR = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(SOURCE_DIR / "python"))

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from nmsim_trace.analysis import load_sweep  # noqa: E402

LINKS = {"1 Gbit/s": ("tab:orange", "o"), "8 Gbit/s": ("tab:gray", "s")}


def ok_rows(path):
    df = load_sweep(path)
    bad = df[df["status"] != "ok"]
    if len(bad):
        print(f"{path}: {len(bad)} points not ok (status {', '.join(sorted(set(bad['status'])))})"
              " -- left out", file=sys.stderr)
    return df[df["status"] == "ok"]


def size_panel(ax, df):
    bw = "param:platform.params.fpga.host_bandwidth"
    print("matrix size sweep (batch 2000): n, link, Gop/s, eq. 3.1 bound at that link")
    for link, (color, marker) in LINKS.items():
        d = df[df[bw] == link].sort_values("value:workload.hagen.in")
        n = d["value:workload.hagen.in"]
        bound = d["metric:hagen.bound_1g_gops" if link.startswith("1 ") else
                  "metric:hagen.bound_8g_gops"]
        ax.plot(n * n, d["metric:hagen.gops"], marker=marker, color=color, label=f"nmsim, {link}")
        ax.plot(n * n, bound, "-", color=color, alpha=0.5, label=f"eq. 3.1 bound, {link}")
        for a, g, b in zip(n, d["metric:hagen.gops"], bound):
            print(f"  {int(a):5d}  {link:8s}  {g:8.3f}  {b:8.2f}")
    ax.axvline(256 * 256, color="k", linestyle=":", linewidth=1)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("matrix size (n x n weights)")
    ax.set_ylabel("Gop/s (multiply-accumulates per second)")
    ax.set_title("square matrices, batch 2000")
    ax.legend(fontsize=7)


def batch_panel(ax, df):
    bw = "param:platform.params.fpga.host_bandwidth"
    print("batch sweep (256 x 256): batch, link, Gop/s")
    for link, (color, marker) in LINKS.items():
        d = df[df[bw] == link].sort_values("value:workload.hagen.batch")
        b = d["value:workload.hagen.batch"]
        ax.plot(b, d["metric:hagen.gops"], marker=marker, color=color, label=f"nmsim, {link}")
        top = d["metric:hagen.gops"].max()
        half = d[d["metric:hagen.gops"] >= top / 2]["value:workload.hagen.batch"].min()
        for x, g in zip(b, d["metric:hagen.gops"]):
            print(f"  {int(x):6d}  {link:8s}  {g:8.3f}")
        print(f"  {link}: 50 % of the largest rate ({top:.3f} Gop/s) from batch {int(half)}")
    even = df["metric:hagen.break_even_batch"].median()
    print(f"break-even batch (configuration data = vector data): {even:.0f} (seed 002: ~200)")
    ax.axvline(even, color="k", linestyle=":", linewidth=1, label=f"break-even batch {even:.0f}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("batch size")
    ax.set_title("256 x 256")
    ax.legend(fontsize=7)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", default="scenarios/sweeps/results/hagen_fig8_size/results.h5")
    ap.add_argument("--batch", default="scenarios/sweeps/results/hagen_fig8_batch/results.h5")
    ap.add_argument("-o", "--out", default="docs/bss2_hagen_fig8.png")
    a = ap.parse_args()
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    size_panel(left, ok_rows(a.size))
    batch_panel(right, ok_rows(a.batch))
    fig.suptitle("BrainScaleS-2 hagen mode on nmsim (seed 002 Fig. 8: 14.7 Gop/s simulated "
                 "accelerator; seed 004: 4 / 32 Gop/s bounds, 0.71 Gop/s measured)", fontsize=9)
    fig.tight_layout()
    fig.savefig(a.out, dpi=110)
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
