#!/usr/bin/python3
"""What full event tracing costs: bytes per recorded event and slowdown versus summary-only.

Runs each scenario twice per repetition with the built nmsim: once with every event table
(`trace.events=true`) and once with summary counters only (`--set trace.events=false`, see
scenarios/README.md, `trace`). Then

    bytes per event = (file size with events - file size without) / event rows
    slowdown        = wall time with events / wall time without (best of --repeat runs)

where event rows counts every row of the tables under /events (the tables that summary-only
runs leave empty). Wall time is the run's own `wall_seconds` (/run; simulation and trace
writing, without process start-up) and, for reference, the whole process. Targets (issue 5):
below 32 B per event and below 1.5x.

    /usr/bin/python3 tools/examples/trace_cost.py --nmsim build/bin/nmsim
"""

import argparse
import os
import pathlib
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

import nmsim_trace  # noqa: E402

SCENARIOS = {
    "mlp": ("s2_mlp_fmnist.yaml", ["--set", "workload.dnn.count={count}"]),
    "feedforward": ("bss2_feedforward.yaml", []),
}
TARGET_BYTES, TARGET_SLOWDOWN = 32.0, 1.5


def run_once(nmsim, scenario, sets, events, out):
    cmd = [nmsim, "run", str(ROOT / "scenarios" / scenario), "-o", str(out),
           "--set", f"trace.events={'true' if events else 'false'}",
           "--set", "trace.console_stdout=false"] + sets
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    process_s = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit(f"trace_cost: {' '.join(cmd)} exited {p.returncode}:\n{p.stderr or p.stdout}")
    with nmsim_trace.load(out) as t:
        rows = sum(t.rows(k) for k in t.event_kinds())
        wall = t.run["wall_seconds"]
    return os.path.getsize(out), rows, wall, process_s


def measure(nmsim, name, repeat, count, workdir):
    scenario, sets = SCENARIOS[name]
    sets = [s.format(count=count) for s in sets]
    best = {}
    for events in (True, False):
        results = [run_once(nmsim, scenario, sets, events, workdir / f"{name}_{events}_{i}.h5")
                   for i in range(repeat)]
        size, rows = results[0][0], results[0][1]
        best[events] = (size, rows, min(r[2] for r in results), min(r[3] for r in results))
    (size_on, rows_on, wall_on, proc_on), (size_off, rows_off, wall_off, proc_off) = \
        best[True], best[False]
    if rows_off:
        sys.exit(f"trace_cost: {name}: trace.events=false still wrote {rows_off} event rows")
    return {"scenario": name, "event_rows": rows_on, "size_events_B": size_on,
            "size_summary_B": size_off, "bytes_per_event": (size_on - size_off) / max(rows_on, 1),
            "wall_events_s": wall_on, "wall_summary_s": wall_off,
            "slowdown": wall_on / wall_off if wall_off > 0 else float("nan"),
            "process_slowdown": proc_on / proc_off if proc_off > 0 else float("nan")}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nmsim", default=os.environ.get("NMSIM_BINARY",
                                                      str(ROOT / "build" / "bin" / "nmsim")),
                    help="nmsim binary (default: $NMSIM_BINARY or build/bin/nmsim)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per setting; best time counts")
    ap.add_argument("--count", type=int, default=20, help="MLP inferences per run")
    ap.add_argument("--scenarios", default="mlp,feedforward", help="comma-separated subset")
    args = ap.parse_args()
    if not os.access(args.nmsim, os.X_OK):
        sys.exit(f"trace_cost: {args.nmsim} is not an executable nmsim (use --nmsim)")
    rows = []
    with tempfile.TemporaryDirectory(prefix="trace_cost_") as tmp:
        for name in args.scenarios.split(","):
            rows.append(measure(args.nmsim, name.strip(), args.repeat, args.count,
                                pathlib.Path(tmp)))
    print(f"{'scenario':<12} {'event rows':>10} {'with events':>12} {'summary only':>12} "
          f"{'B/event':>8} {'wall ev':>8} {'wall sum':>8} {'slowdown':>8} {'(process)':>9}")
    ok = True
    for r in rows:
        print(f"{r['scenario']:<12} {r['event_rows']:>10} {r['size_events_B']:>10} B "
              f"{r['size_summary_B']:>10} B {r['bytes_per_event']:>8.2f} "
              f"{r['wall_events_s']:>7.3f}s {r['wall_summary_s']:>7.3f}s "
              f"{r['slowdown']:>7.3f}x {r['process_slowdown']:>8.3f}x")
        ok &= r["bytes_per_event"] < TARGET_BYTES and r["slowdown"] < TARGET_SLOWDOWN
    print(f"targets: < {TARGET_BYTES:g} B/event, < {TARGET_SLOWDOWN:g}x slowdown: "
          f"{'met' if ok else 'NOT met'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
