"""`nmsim-trace summary TRACE.h5`: run info, outcome, counters per component, rows per table."""

import math
import sys

from ..reader import INCOMPLETE, load


def register(subparsers):
    p = subparsers.add_parser(
        "summary", help="run info, outcome, counters and table sizes of a trace",
        description="Print the run info, the run outcome, the counters of every component and "
                    "the number of rows of every event table.")
    p.add_argument("trace", metavar="TRACE.h5", help="trace file written by nmsim")
    p.add_argument("--csv", nargs="?", const="-", metavar="FILE",
                   help="write only the counter table as CSV (component,counter,unit,value) to "
                        "FILE, or to stdout if FILE is omitted")
    p.set_defaults(func=run)


def format_value(v):
    """Integral counters without a fraction; others with 3 decimals, or 6 significant digits
    when below 1 (so that 1.3e6 ps keeps its ps and 2e-9 J does not print as 0.000)."""
    if not math.isfinite(v):
        return str(v)
    if float(v).is_integer() and abs(v) < 1e15:
        return str(int(v))
    return f"{v:.3f}" if 1 <= abs(v) < 1e15 else f"{v:.6g}"


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


def run(args):
    with load(args.trace) as t:
        counters = t.summary()
        if args.csv is not None:
            # Exact values: integral counts without ".0", others in shortest round-trip form.
            table = counters.assign(value=[_exact(v) for v in counters["value"]])
            table.to_csv(sys.stdout if args.csv == "-" else args.csv, index=False)
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
            out.append("counters: none recorded")
        else:
            out.append("counters")
            rows = [("component", "counter", "value", "unit")]
            previous = None
            for r in counters.itertuples(index=False):
                shown = r.component if r.component != previous else ""
                previous = r.component
                rows.append((shown, r.counter, format_value(r.value), r.unit))
            out += _table(rows, right={2})

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
