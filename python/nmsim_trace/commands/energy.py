"""`nmsim-trace energy TRACE.h5`: energy by component and by phase (table energy/breakdown).

The table has one row per component (or component family with PE indices folded, --family, or
per phase with --by phase) and one column per phase (per component) in joules, plus dynamic_j,
static_j and total_j. The figure is a stacked bar chart of the same. --exclude leaves components
out (glob patterns), --log draws the energy axis logarithmic: both make small components visible
next to large ones (the BrainScaleS-2 system set-up draws 4.7 W).
"""

import sys

from .. import analysis, plots
from ..reader import load
from ..units import human
from . import _output


def register(subparsers):
    p = subparsers.add_parser(
        "energy", help="energy by component and phase (table energy/breakdown)",
        description="Energy of the run by component and phase from the table energy/breakdown "
                    "(dynamic: events x energy per event; static: power x time).")
    p.add_argument("trace", metavar="TRACE.h5", help="trace file written by nmsim")
    p.add_argument("--by", choices=["component", "phase"], default="component",
                   help="rows (and bars) per component (default) or per phase")
    p.add_argument("--family", action="store_true",
                   help="fold PE indices: s2.pe1.mla, s2.pe2.mla, ... count as s2.pe*.mla "
                        "(always done for the component columns of --by phase)")
    p.add_argument("--exclude", action="append", default=[], metavar="COMPONENT",
                   help="leave out components matching this glob pattern (repeatable), e.g. "
                        "'setup' (BrainScaleS-2 system set-up) or 's2.dram*'")
    p.add_argument("--log", action="store_true",
                   help="figure: logarithmic energy axis (components of very different size "
                        "stay visible)")
    p.add_argument("--top", type=int, default=15, metavar="N",
                   help="figure: the N largest rows, the rest summed as 'other' (default 15)")
    _output.add_output_args(p)
    p.set_defaults(func=run)


def energy_text(joules):
    """An energy with a readable prefix and 3 decimals ("41.457 uJ"); 0 as "0"."""
    return "0" if joules == 0 else human(joules, "J", 3)


def run(args):
    _output.output_kind(args.output)
    with load(args.trace) as t:
        # Per phase, the columns are components: PE indices are always folded there (a full
        # chip has hundreds of PE components).
        table = analysis.energy_table(t, args.by, args.family or args.by == "phase",
                                      args.exclude)
        for pattern in table.attrs.get("unmatched", []):
            print(f"nmsim-trace: warning: --exclude '{pattern}' matches no component",
                  file=sys.stderr)
        total = table["total_j"].sum()
        excluded = table.attrs.get("excluded", [])
        without = f", without {', '.join(excluded)}" if excluded else ""
        # Text: every energy in a readable unit with 3 decimals, as the run's report prints
        # them ("41.457 uJ"); the CSV keeps joules.
        text = table.copy()
        num = list(table.columns[1:])
        for c in num:
            text[c] = [energy_text(v) for v in table[c]]
        text.columns = [table.columns[0]] + [c[:-2] if c.endswith("_j") else c for c in num]
        _output.write_table(table, args, text=text, right=set(text.columns[1:]),
                            title=f"energy by {args.by} (total {energy_text(total)}{without})")
        if _output.wants_figure(args):
            _output.use_agg()
            ax = plots.energy(t, by=args.by, top=args.top, log=args.log, table=table)
            _output.save_figure(ax.figure, args.output)
    return 0
