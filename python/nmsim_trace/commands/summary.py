"""`nmsim-trace summary TRACE.h5`: run info, outcome, counters per component, rows per table.

Counters are shown in readable units (ps as ns/us/ms, J as uJ/mJ, B as KiB/MiB, Hz as MHz, ...;
the unit column says which), numbers right-aligned with three decimals, counts as integers
aligned on the decimal point. --component and --counter keep the counters whose names match a
glob pattern; --csv writes the (filtered) counters with their exact values and recorded units.
"""

import fnmatch
import math
import sys

from ..reader import INCOMPLETE, TraceError, load
from ..units import human_scale, split_unit

DECIMALS = 3


def register(subparsers):
    p = subparsers.add_parser(
        "summary", help="run info, outcome, counters and table sizes of a trace",
        description="Print the run info, the run outcome, the counters of every component (in "
                    "readable units) and the number of rows of every event table.")
    p.add_argument("trace", metavar="TRACE.h5", help="trace file written by nmsim")
    p.add_argument("--component", action="append", default=[], metavar="PATTERN",
                   help="only components matching this glob pattern (repeatable), e.g. "
                        "'s2.pe0.*' or 'metrics'")
    p.add_argument("--counter", action="append", default=[], metavar="PATTERN",
                   help="only counters matching this glob pattern (repeatable), e.g. '*_ps' or "
                        "'dnn.*'")
    p.add_argument("--csv", nargs="?", const="-", metavar="FILE",
                   help="write only the counter table as CSV (component,counter,unit,value; "
                        "exact values in the recorded units) to FILE, or to stdout if FILE is "
                        "omitted")
    p.set_defaults(func=run)


def format_value(v):
    """Integral counters without a fraction; others with 3 decimals, or 6 significant digits
    when below 1 (so that 1.3e6 ps keeps its ps and 2e-9 J does not print as 0.000).
    (The exact form of one value; the counter table uses human_value.)"""
    if not math.isfinite(v):
        return str(v)
    if float(v).is_integer() and abs(v) < 1e15:
        return str(int(v))
    return f"{v:.3f}" if 1 <= abs(v) < 1e15 else f"{v:.6g}"


def human_value(value, unit):
    """(text, unit) of one counter for the table: values in units the module scales (ps, s, J,
    W, Hz, B, ...) in the prefix that reads best, with DECIMALS decimals (integral values of
    unscaled units without any); "nan"/"inf" as they are."""
    if not math.isfinite(value):
        return str(value), unit
    scale, shown = human_scale([value], unit)
    v = value * scale
    scaled = split_unit(unit) is not None
    if float(v).is_integer() and abs(v) < 1e15 and (not scaled or scale == 1.0):
        return str(int(v)), shown
    if v != 0 and abs(v) < 10 ** -DECIMALS:
        return f"{v:.{DECIMALS}e}", shown
    return f"{v:.{DECIMALS}f}", shown


def _align(cells):
    """Number cells aligned on the decimal point (integers padded as if they had decimals)."""
    frac = max((len(c) - c.index(".") for c in cells if "." in c and "e" not in c), default=0)
    out = []
    for c in cells:
        if "." in c or "e" in c or not c.lstrip("-").isdigit():
            out.append(c)
        else:
            out.append(c + " " * frac)
    width = max((len(c) for c in out), default=0)
    return [c.rjust(width) for c in out]


def _exact(v):
    if math.isfinite(v) and float(v).is_integer() and abs(v) <= 2**53:
        return str(int(v))
    return repr(float(v))


def _table(rows, right=()):
    """Left-aligned text columns (right-aligned for indices in `right`), two spaces apart."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = []
    for r in rows:
        cells = [c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in
                 enumerate(zip(r, widths))]
        lines.append("  " + "  ".join(cells).rstrip())
    return lines


def _us(ps):
    return f"{ps / 1e6:.6f} us"


def _matches(names, patterns):
    if not patterns:
        return [True] * len(names)
    return [any(fnmatch.fnmatchcase(n, p) for p in patterns) for n in names]


def filter_counters(counters, components=(), names=()):
    """The counter rows whose component matches one of `components` and whose counter matches
    one of `names` (glob patterns; an empty list keeps all)."""
    keep = [a and b for a, b in zip(_matches(list(counters["component"]), components),
                                    _matches(list(counters["counter"]), names))]
    return counters[keep].reset_index(drop=True)


def counter_rows(counters):
    """The counter table as text rows: component (shown once per group), counter, value, unit
    (values in readable units, aligned on the decimal point)."""
    values, units = [], []
    for v, u in zip(counters["value"], counters["unit"]):
        text, shown = human_value(float(v), u)
        values.append(text)
        units.append(shown)
    values = _align(values)
    rows = [("component", "counter", "value".rjust(len(values[0]) if values else 5), "unit")]
    previous = None
    for r, v, u in zip(counters.itertuples(index=False), values, units):
        shown = r.component if r.component != previous else ""
        previous = r.component
        rows.append((shown, r.counter, v, u))
    return rows


def run(args):
    with load(args.trace) as t:
        counters = t.summary()
        filtered = bool(args.component or args.counter)
        if filtered:
            counters = filter_counters(counters, args.component, args.counter)
        if args.csv is not None:
            # Exact values: integral counts without ".0", others in shortest round-trip form.
            table = counters.assign(value=[_exact(v) for v in counters["value"]])
            try:
                table.to_csv(sys.stdout if args.csv == "-" else args.csv, index=False)
            except BrokenPipeError:
                raise
            except OSError as e:
                raise TraceError(f"{args.csv}: cannot write the table: {e}") from e
            return 0

        a, outcome = t.attrs, t.run
        out = []
        scenario = a.get("scenario_name", "")
        if a.get("scenario"):
            scenario += f" ({a['scenario']})"
        info = [("trace", t.path), ("scenario", scenario), ("platform", a.get("platform", "")),
                ("seed", str(a.get("seed", ""))),
                ("simulator", a.get("simulator_version", "")),
                ("created", a.get("created_utc", "")), ("status", outcome["status"]),
                ("message", outcome["message"])]
        if outcome["sim_time_ps"] is not None:
            info.append(("sim time", _us(outcome["sim_time_ps"])))
            info.append(("wall time", f"{outcome['wall_seconds']:.3f} s"))
        elif outcome["status"] == INCOMPLETE:
            last = t.last_event_ps()
            info.append(("sim time", "unknown" if last is None else
                         f"unknown (last event at {_us(last)})"))
        width = max(len(k) for k, _ in info)
        out += [f"{k.ljust(width)}  {v}".rstrip() for k, v in info]

        out.append("")
        if counters.empty:
            out.append("counters: none match the filters" if filtered
                       else "counters: none recorded")
        else:
            what = " (filtered: " + ", ".join(
                [f"component {p}" for p in args.component] +
                [f"counter {p}" for p in args.counter]) + ")" if filtered else ""
            out.append(f"counters{what}")
            out += _table(counter_rows(counters), right={2})

        out.append("")
        kinds = t.event_kinds()
        if not kinds:
            out.append("event tables: none")
        else:
            out.append("event tables")
            rows = [("table", "rows")] + [(f"events/{k}", str(t.rows(k))) for k in kinds]
            out += _table(rows, right={1})
    print("\n".join(out))
    return 0
