#!/usr/bin/python3
"""Accuracy of DEEP R training over epochs (docs/deepr.md, "Long runs").

    build/bin/nmsim-deepr-ref --epochs 10 --eval-every 5000 --precision both > one.csv
    build/bin/nmsim-deepr-ref --epochs 10 --eval-every 5000 --precision both --cores 4 > four.csv
    /usr/bin/python3 tools/examples/deepr/accuracy_curve.py one.csv four.csv -o docs/deepr_accuracy.png

Held-out accuracy (10,000 test images) against epochs for one PE and four PEs (the checkerboard's
own rounding and random streams), float32 (the chip's arithmetic: a chip run with the same seed
gives the same curve, bit for bit) and double; the connections deleted per rewiring step on a
second axis. Prints the accuracy after each epoch.
"""

import argparse
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def load(path):
    rows = list(csv.DictReader(open(path)))
    if not rows:
        sys.exit(f"{path}: no rows")
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("one", help="CSV of nmsim-deepr-ref --cores 1")
    ap.add_argument("four", help="CSV of nmsim-deepr-ref --cores 4")
    ap.add_argument("-o", "--out", default="deepr_accuracy.png")
    a = ap.parse_args()
    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    ax2 = ax.twinx()
    styles = {("1", "float"): ("tab:blue", "-"), ("1", "double"): ("tab:blue", ":"),
              ("4", "float"): ("tab:red", "-"), ("4", "double"): ("tab:red", ":")}
    print("cores precision " + " ".join(f"ep{e}" for e in range(1, 11)))
    for cores, path in (("1", a.one), ("4", a.four)):
        rows = load(path)
        for prec in ("float", "double"):
            r = [x for x in rows if x["precision"] == prec]
            if not r:
                continue
            ep = [float(x["epoch"]) for x in r]
            acc = [100 * float(x["test_accuracy"]) for x in r]
            color, ls = styles[cores, prec]
            ax.plot(ep, acc, color=color, linestyle=ls,
                    label=f"{cores} PE{'s' if cores == '4' else ''}, {prec}")
            per_epoch = [100 * float(x["test_accuracy"]) for x in r
                         if float(x["epoch"]).is_integer() and float(x["epoch"]) > 0]
            print(f"{cores} {prec} " + " ".join(f"{v:.1f}" for v in per_epoch))
            if prec == "float" and "deleted_per_step" in r[0]:
                ax2.plot(ep[1:], [float(x["deleted_per_step"]) for x in r[1:]], color=color,
                         alpha=0.35, linewidth=1)
    ax.set_xlabel("epochs (50,000 iterations, batch 1)")
    ax.set_ylabel("held-out accuracy (%)")
    ax.set_ylim(70, 90)
    ax2.set_ylabel("connections deleted per rewiring step (faint)")
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right")
    ax.set_title("DEEP R on Fashion-MNIST, 784-300-100-10 at 1.3 % connectivity (seed 003 settings)",
                 fontsize=9)
    fig.tight_layout()
    fig.savefig(a.out, dpi=110)
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
