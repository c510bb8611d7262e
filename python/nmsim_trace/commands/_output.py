"""Shared output handling of the analysis commands: `-o` decides what is written.

    no -o       the table as aligned text on stdout
    -o x.csv    the table as CSV (exact values)
    -o x.png    the figure (also .svg and .pdf); the table still goes to stdout unless --quiet
"""

import math
import os
import sys

import numpy as np
import pandas as pd

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


def _missing(v):
    return v is None or v is pd.NA or (isinstance(v, (float, np.floating)) and math.isnan(v))


def column_decimals(values, digits, max_digits=6):
    """Decimals for a float column: `digits`, more (up to max_digits) when the smallest non-zero
    |value| would show fewer than 2 significant digits; None if even that is not enough or the
    values are too large for fixed point (the column is then printed in scientific notation)."""
    v = np.abs(np.array([x for x in values if not _missing(x)], dtype=np.float64))
    v = v[np.isfinite(v)]
    if v.size == 0:
        return digits
    if v.max() >= 1e12:
        return None
    nonzero = v[v > 0]
    if nonzero.size == 0:
        return digits
    smallest = float(nonzero.min())
    if smallest >= 10 ** -digits:
        return digits
    need = int(math.ceil(-math.log10(smallest))) + 1  # two significant digits of the smallest
    return need if need <= max_digits else None


def format_column(values, digits):
    """The cells of one column: ints as they are; a float column whose values are all integral
    as ints; other floats with the same decimals for the whole column (column_decimals), or all
    in scientific notation; missing values as "-"."""
    floats = [v for v in values if isinstance(v, (float, np.floating)) and not _missing(v)]
    if not floats:
        return ["-" if _missing(v) else str(v) for v in values]
    if all(float(v).is_integer() and abs(v) < 1e15 for v in floats):
        return ["-" if _missing(v) else str(int(v)) if isinstance(v, (float, np.floating))
                else str(v) for v in values]
    d = column_decimals(floats, digits)
    out = []
    for v in values:
        if _missing(v):
            out.append("-")
        elif isinstance(v, (float, np.floating)):
            out.append(f"{v:.3e}" if d is None else f"{v:.{d}f}")
        else:
            out.append(str(v))
    return out


def format_table(df, digits=None, default_digits=3, right=()):
    """A DataFrame as aligned text columns two spaces apart: numbers right-aligned with the
    same decimals in a column (format_column), text left-aligned (right-aligned for the columns
    in `right`: preformatted numbers). digits maps column -> decimals for float columns."""
    digits = digits or {}
    names = [str(c) for c in df.columns]
    cols = [format_column(df[c].tolist(), digits.get(c, default_digits)) for c in df.columns]
    numeric = [(pd.api.types.is_numeric_dtype(df[c].dtype) and
                not pd.api.types.is_bool_dtype(df[c].dtype)) or c in right for c in df.columns]
    widths = [max([len(n)] + [len(x) for x in col]) for n, col in zip(names, cols)]
    lines = []
    header = [n.rjust(w) if num else n.ljust(w) for n, w, num in zip(names, widths, numeric)]
    lines.append("  ".join(header).rstrip())
    for i in range(len(df)):
        cells = [col[i].rjust(w) if num else col[i].ljust(w)
                 for col, w, num in zip(cols, widths, numeric)]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def write_table(df, args, digits=None, title=None, default_digits=3, text=None, right=()):
    """Writes the table for `args.output`: CSV file, or aligned text on stdout (also when the
    output is a figure, unless --quiet). text: another frame to print instead of df (e.g. with
    values formatted in readable units; the CSV keeps df's exact values)."""
    kind = output_kind(getattr(args, "output", None), figure=True)
    if kind == "csv":
        try:
            df.to_csv(args.output, index=False, float_format="%.17g")
        except OSError as e:
            raise TraceError(f"{args.output}: cannot write the table: {e}") from e
        return
    if kind == "figure" and getattr(args, "quiet", False):
        return
    shown = format_table(df if text is None else text, digits, default_digits, right)
    sys.stdout.write((title + "\n" if title else "") + shown + "\n")


def figure(width=10.0, height=5.0, **kwargs):
    """A new matplotlib figure (Agg backend: no display needed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt.subplots(figsize=(width, height), **kwargs)


def use_agg():
    """Selects matplotlib's Agg backend (files only, no display) before pyplot is imported."""
    import matplotlib

    matplotlib.use("Agg")


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
