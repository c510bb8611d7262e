#!/usr/bin/python3
"""Writes the network file of seed 001's gesture network shape (scenarios/snn/gesture_2048_20_4.yaml).

Seed 001 sec. IV-C counts PEs for "the gesture recognition SNN model with 2048-20-4 structure and
3.16 % weight density". The trained weights are not public, so this writes the same shape with
random weights: every synapse of the 2048 -> 20 projection exists with probability 0.0316 (it
holds 99.8 % of the possible synapses, so this is the network's density); the 20 -> 4 projection
is all-to-all (at 3.16 % it would keep about 2.5 of its 80 synapses and leave the output layer
undriven; with it the whole network's density is 3.36 %). Weights are uniform in 1..40 weight
LSB, inhibitory with probability 0.2; delays uniform in 1..4 ticks.
The 2048 inputs stand in for DVS events (a 32 x 32 x 2 polarity grid of the DVS gesture task) as
Poisson sources at 10 Hz; docs/snn.md says how to feed recorded events instead.

Usage: make_gesture_network.py [--seed N] [--out PATH]
"""
import argparse
import random


def synapses(rng, n_pre, n_post, p):
    out = []
    for i in range(n_pre):
        for j in range(n_post):
            if rng.random() < p:
                w = rng.randint(1, 40)
                if rng.random() < 0.2:
                    w = -w
                out.append((i, j, w, rng.randint(1, 4)))
    return out


def projection(name, pre, post, syn):
    rows = ", ".join(f"[{i}, {j}, {w}, {d}]" for i, j, w, d in syn)
    return f"  - name: {name}\n    pre: {pre}\n    post: {post}\n    connector: list\n" \
           f"    connections: [{rows}]\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--out", default="scenarios/snn/gesture_2048_20_4.yaml")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    l1 = synapses(rng, 2048, 20, 0.0316)
    l2 = synapses(rng, 20, 4, 1.0)
    with open(a.out, "w") as f:
        f.write("# Seed 001's gesture network shape 2048-20-4 (3.16 % density in the first projection,\n"
                "# the second all-to-all) with random\n"
                f"# weights; written by tools/snn/make_gesture_network.py --seed {a.seed} (see there).\n"
                f"# {len(l1)} + {len(l2)} synapses.\n")
        f.write("timestep: 1.0\nseed: %d\n" % a.seed)
        f.write("sources:\n  - {name: dvs, size: 2048, rate: 10}\n")
        f.write("populations:\n"
                "  - {name: hidden, size: 20, tau_m: 20, v_th: 64, record_v: [0]}\n"
                "  - {name: output, size: 4, tau_m: 20, v_th: 160}\n")
        f.write("projections:\n")
        f.write(projection("dvs_hidden", "dvs", "hidden", l1))
        f.write(projection("hidden_output", "hidden", "output", l2))


if __name__ == "__main__":
    main()
