#!/usr/bin/python3
"""Example (notebook as a script): export a time window of a trace for a timeline viewer.

    /usr/bin/python3 tools/examples/chrome_export.py mlp.h5 out.json [START_US END_US]

Writes Chrome Trace Event JSON (open it in https://www.speedscope.app, `npx speedscope out.json`,
Perfetto UI or chrome://tracing) and prints how many events each thread got (complete events,
and instant events: processor faults, BrainScaleS-2 spikes).
"""

import collections
import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "python"))

import nmsim_trace  # noqa: E402
from nmsim_trace import analysis  # noqa: E402


def main(trace_path, out, start=None, end=None):
    start = float(start) if start is not None else None
    end = float(end) if end is not None else None
    with nmsim_trace.load(trace_path) as t:
        doc = analysis.chrome_trace(t, start, end, spikes_as_instants=True)
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in doc["traceEvents"]
             if e["ph"] == "M" and e["name"] == "thread_name"}
    counts = collections.Counter(names.get((e["pid"], e["tid"]), "?")
                                 for e in doc["traceEvents"] if e["ph"] in ("X", "i"))
    for name, n in sorted(counts.items()):
        print(f"{n:8d}  {name}")
    with open(out, "w") as f:
        json.dump(doc, f)
    print(f"wrote {out}")


if __name__ == "__main__":
    if len(sys.argv) not in (3, 5):
        sys.exit(__doc__)
    main(*sys.argv[1:])
