"""Shared output handling of the analysis commands: `-o` decides what is written.

    no -o       the table as aligned text on stdout
    -o x.csv    the table as CSV (exact values)
    -o x.png    the figure (also .svg and .pdf); the table still goes to stdout unless --quiet
"""

import math
import os
import sys

import numpy as np

from ..reader import TraceError

FIGURE_EXTENSIONS = (".png", ".svg", ".pdf")


def add_output_args(parser, figure=True):
    what = "CSV table (.csv) or figure (.png, .svg, .pdf)" if figure else "CSV table (.csv)"
    parser.add_argument("-o", "--output", metavar="OUT", help=f"write a {what} instead of the "
                        "text table on stdout")
    if figure:
        parser.add_argument("-q", "--quiet", action="store_true",
                            help="with a figure output, do not print the table")


def output_kind(path, figure=True):
    """"text", "csv" or "figure" for the -o value; TraceError for other extensions."""
    if path is None:
        return "text"
    ext = os.path.splitext(path)[1].lower()
    if ext == ".csv":
        return "csv"
    if figure and ext in FIGURE_EXTENSIONS:
        return "figure"
    allowed = ".csv" + ("".join(", " + e for e in FIGURE_EXTENSIONS) if figure else "")
    raise TraceError(f"{path}: unknown output type '{ext or '(none)'}' (use {allowed})")


def _cell(v, digits):
    if isinstance(v, (float, np.floating)):
        if math.isnan(v):
            return "-"
        if float(v).is_integer() and abs(v) < 1e15 and digits == 0:
            return str(int(v))
        if v != 0 and (abs(v) < 10 ** -digits or abs(v) >= 1e9):
            return f"{v:.4g}"
        return f"{v:.{digits}f}"
    return str(v)


def format_table(df, digits=None, default_digits=3):
    """A DataFrame as left/right aligned text columns (numbers right-aligned), two spaces apart.
    digits maps column -> decimals for float columns."""
    digits = digits or {}
    names = [str(c) for c in df.columns]
    cols = []
    for c in df.columns:
        values = df[c].tolist()
        d = digits.get(c, default_digits)
        cols.append([_cell(v, d) for v in values])
    numeric = [np.issubdtype(df[c].dtype, np.number) for c in df.columns]
    widths = [max([len(n)] + [len(x) for x in col]) for n, col in zip(names, cols)]
    lines = []
    header = [n.rjust(w) if num else n.ljust(w) for n, w, num in zip(names, widths, numeric)]
    lines.append("  ".join(header).rstrip())
    for i in range(len(df)):
        cells = [col[i].rjust(w) if num else col[i].ljust(w)
                 for col, w, num in zip(cols, widths, numeric)]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def write_table(df, args, digits=None, title=None, default_digits=3):
    """Writes the table for `args.output`: CSV file, or aligned text on stdout (also when the
    output is a figure, unless --quiet)."""
    kind = output_kind(getattr(args, "output", None), figure=True)
    if kind == "csv":
        try:
            df.to_csv(args.output, index=False, float_format="%.17g")
        except OSError as e:
            raise TraceError(f"{args.output}: cannot write the table: {e}") from e
        return
    if kind == "figure" and getattr(args, "quiet", False):
        return
    text = format_table(df, digits, default_digits)
    sys.stdout.write((title + "\n" if title else "") + text + "\n")


def figure(width=10.0, height=5.0, **kwargs):
    """A new matplotlib figure (Agg backend: no display needed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt.subplots(figsize=(width, height), **kwargs)


def save_figure(fig, path):
    import matplotlib.pyplot as plt

    try:
        fig.savefig(path, dpi=120, bbox_inches="tight")
    except OSError as e:
        raise TraceError(f"{path}: cannot write the figure: {e}") from e
    finally:
        plt.close(fig)
    print(f"wrote {path}", file=sys.stderr)


def wants_figure(args):
    return output_kind(getattr(args, "output", None), figure=True) == "figure"
