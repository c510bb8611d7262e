#!/usr/bin/python3
"""Example (notebook as a script): spikes and membrane of a BrainScaleS-2 run.

    build/bin/nmsim run scenarios/bss2_feedforward.yaml -o ff.h5
    /usr/bin/python3 tools/examples/bss2_raster.py ff.h5 [raster.png]

Prints the populations (names from the network file), the rate per population and run, the
first-spike latency per run, and the membrane statistics of the MADC neuron; optionally draws a
custom raster (output spikes only, each run's configured input rate on the left) with
matplotlib.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "python"))

import nmsim_trace  # noqa: E402
from nmsim_trace import analysis  # noqa: E402


def main(trace_path, png=None):
    with nmsim_trace.load(trace_path) as t:
        print(analysis.populations(t).to_string(index=False))
        # The report's rate table, with each run's configured input rate (NaN where the run's
        # inputs do not share one rate).
        rates = analysis.bss2_rates(t)
        wide = rates.pivot_table(index="run", columns=["kind", "population_name"],
                                 values="rate_hz")
        wide.insert(0, ("configured", "input rate"),
                    rates.groupby("run")["input_rate_hz"].first())
        print("\nrate per neuron (Hz, hardware time):\n" + wide.round(1).to_string())

        out = analysis.spikes(t, "output")
        first = out.groupby("run")["t_us"].min()
        print("\nfirst output spike per run (us):\n" + first.round(3).to_string())

        if t.has_table("events/bss2_madc"):
            m = analysis.membrane(t)
            stats = m.groupby("run")["v_mV"].agg(["min", "mean", "max"])
            print("\nMADC membrane (mV):\n" + stats.round(1).to_string())

        if png:
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt

            inputs = analysis.bss2_runs(t).set_index("run")["input_rate_hz"]
            runs = sorted(out["run"].unique())
            fig, axes = plt.subplots(len(runs), 1, figsize=(9, 1.2 * len(runs) + 1),
                                     sharex=True, squeeze=False)
            for ax, r in zip(axes[:, 0], runs):
                g = out[out["run"] == r]
                ax.plot(g["t_us"], g["global_neuron"], "|", markersize=3)
                ax.set_ylabel(f"run {r}\n{inputs.get(r, float('nan')) / 1e3:.0f} kHz in",
                              fontsize=8)
            axes[-1, 0].set_xlabel("time since run start (us)")
            fig.suptitle("output spikes per run (input rate per neuron on the left)")
            fig.savefig(png, dpi=110, bbox_inches="tight")
            print(f"\nwrote {png}")


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    main(*sys.argv[1:])
