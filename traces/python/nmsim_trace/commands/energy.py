"""`nmsim-trace energy TRACE.h5`: energy by component and by phase (table energy/breakdown).

The table has one row per component (or component family with PE indices folded, --family, or
per phase with --by phase) and one column per phase (per component) in joules, plus dynamic_j,
static_j and total_j. The figure is a stacked bar chart of the same.
"""

from .. import analysis
from ..reader import load
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
    p.add_argument("--top", type=int, default=15, metavar="N",
                   help="figure: the N largest rows, the rest summed as 'other' (default 15)")
    _output.add_output_args(p)
    p.set_defaults(func=run)


def run(args):
    _output.output_kind(args.output)
    with load(args.trace) as t:
        # Per phase, the columns are components: PE indices are always folded there (a full
        # chip has hundreds of PE components).
        table = analysis.energy_table(t, args.by, args.family or args.by == "phase")
        total = table["total_j"].sum()
        if _output.output_kind(args.output) == "csv":
            _output.write_table(table, args)
        else:
            # Text in a readable unit (the CSV keeps joules).
            scale, unit = _unit(table["total_j"].max())
            shown = table.copy()
            num = shown.columns[1:]
            shown[num] = shown[num] * scale
            shown.columns = [shown.columns[0]] + [c[:-2] if c.endswith("_j") else c
                                                  for c in num]
            _output.write_table(shown, args, default_digits=3,
                                title=f"energy in {unit} (total {total * scale:.6g} {unit})")
        if _output.wants_figure(args):
            _plot(t, table, args)
    return 0


def _plot(t, table, args):
    import numpy as np

    key = table.columns[0]
    stacks = [c for c in table.columns[1:] if c not in ("dynamic_j", "static_j", "total_j")]
    shown = table.head(args.top).copy()
    if len(table) > args.top:
        rest = table.iloc[args.top:]
        other = {c: rest[c].sum() for c in table.columns[1:]}
        other[key] = f"other ({len(rest)})"
        shown = shown._append(other, ignore_index=True) if hasattr(shown, "_append") else \
            shown.append(other, ignore_index=True)
    fig, ax = _output.figure(10, 0.42 * len(shown) + 2.0)
    y = np.arange(len(shown))[::-1]
    left = np.zeros(len(shown))
    scale, unit = _unit(shown["total_j"].max())
    import matplotlib

    palette = matplotlib.colormaps["tab20"].colors
    for i, s in enumerate(stacks):
        v = shown[s].to_numpy(dtype=float) * scale
        ax.barh(y, v, left=left, color=palette[i % len(palette)], label=str(s))
        left += v
    ax.set_yticks(y, shown[key], fontsize=8)
    ax.set_xlabel(f"energy ({unit})")
    ax.set_title(f"{t.attrs.get('scenario_name', '')}: energy by {args.by} "
                 f"(total {table['total_j'].sum() * scale:.4g} {unit})")
    if len(stacks) <= 25:
        ax.legend(title="phase" if args.by == "component" else "component",
                  loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)
    ax.grid(axis="x", alpha=0.3)
    _output.save_figure(fig, args.output)


def _unit(max_j):
    for scale, unit in ((1.0, "J"), (1e3, "mJ"), (1e6, "uJ"), (1e9, "nJ")):
        if max_j * scale >= 1.0:
            return scale, unit
    return 1e12, "pJ"
