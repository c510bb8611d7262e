"""`nmsim-trace membrane TRACE.h5`: BrainScaleS-2 MADC membrane traces (mV over us) per run."""

from .. import analysis, plots
from ..reader import TraceError, load
from . import _output


def register(subparsers):
    p = subparsers.add_parser(
        "membrane", help="BrainScaleS-2 MADC membrane traces per run",
        description="The MADC samples of a BrainScaleS-2 trace (run, neuron, t_us, v_mV, code) "
                    "or a plot of membrane voltage over time, one panel per run.")
    p.add_argument("trace", metavar="TRACE.h5", help="trace file written by nmsim")
    p.add_argument("--run", type=int, metavar="R", help="only run R (default: all runs)")
    _output.add_output_args(p)
    p.set_defaults(func=run)


def run(args):
    _output.output_kind(args.output)
    with load(args.trace) as t:
        df = analysis.membrane(t, args.run)
        if df.empty:
            runs = sorted(analysis.membrane(t)["run"].unique())
            what = f"run {args.run}" if args.run is not None else "the trace"
            raise TraceError(f"{t.path}: no MADC samples in {what} (runs with samples: "
                             f"{', '.join(map(str, runs)) or 'none'})")
        _output.write_table(df.drop(columns=["t_ps"]), args, digits={"t_us": 3, "v_mV": 3})
        if _output.wants_figure(args):
            _plot(t, df, args.output)
    return 0


def _plot(t, df, path):
    runs = sorted(df["run"].unique())
    fig, axes = _output.figure(11, min(1.6 * len(runs) + 1.2, 14), nrows=len(runs),
                               squeeze=False, sharex=True, sharey=True)
    for ax, r in zip(axes[:, 0], runs):
        plots.membrane(t, ax=ax, run=r)
        ax.set_title("")
        ax.set_ylabel(f"run {r}\nmV", fontsize=8)
        ax.set_xlabel("")
    axes[-1, 0].set_xlabel("time since run start (us)")
    madc = analysis.scenario(t).get("workload", {}).get("bss2", {}).get("madc", {})
    who = f"{madc.get('population', '?')}[{madc.get('neuron', '?')}]" if madc else "MADC"
    fig.suptitle(f"{t.attrs.get('scenario_name', '')}: membrane of {who} (MADC)")
    fig.tight_layout()
    _output.save_figure(fig, path)
