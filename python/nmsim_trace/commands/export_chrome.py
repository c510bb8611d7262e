"""`nmsim-trace export-chrome TRACE.h5 -o trace.json`: Chrome Trace Event Format JSON.

Opens in speedscope (https://www.speedscope.app or the npm package, offline), Perfetto UI and
chrome://tracing. See analysis.chrome_trace for the mapping of tables to processes and threads.
"""

import json
import sys

from .. import analysis
from ..reader import TraceError, load
from .timeline import add_window_args, check_window


def register(subparsers):
    p = subparsers.add_parser(
        "export-chrome", help="Chrome Trace Event JSON (speedscope, Perfetto, chrome://tracing)",
        description="Write the trace as Chrome Trace Event Format JSON: complete events (ph X) "
                    "for DMA, MLA, sleep, DNN layers and BSS-2 FPGA phases, one thread per "
                    "component; faults (and optionally spikes) as instant events. The whole run "
                    "unless --start/--end or --inference N.")
    p.add_argument("trace", metavar="TRACE.h5", help="trace file written by nmsim")
    add_window_args(p, inference_default="all of them")
    p.add_argument("--spikes", action="store_true",
                   help="BrainScaleS-2: add spikes as instant events (one process per run)")
    p.add_argument("-o", "--output", metavar="OUT.json",
                   help="output file (default: stdout)")
    p.set_defaults(func=run)


def run(args):
    check_window(args)
    if args.output and not args.output.lower().endswith(".json"):
        raise TraceError(f"{args.output}: export-chrome writes JSON (use a .json file name)")
    pes = analysis.parse_pes(args.pes)
    with load(args.trace) as t:
        start, end = args.start, args.end
        if args.inference is not None or args.everything:
            start, end, _ = analysis.timeline_window(t, start, end, args.inference,
                                                     args.everything)
        doc = analysis.chrome_trace(t, start, end, pes, args.spikes)
    text = json.dumps(doc, separators=(",", ":"))
    if args.output:
        try:
            with open(args.output, "w") as f:
                f.write(text)
        except OSError as e:
            raise TraceError(f"{args.output}: cannot write: {e}") from e
        n = sum(1 for e in doc["traceEvents"] if e["ph"] != "M")
        print(f"wrote {args.output} ({n} events)", file=sys.stderr)
    else:
        sys.stdout.write(text + "\n")
    return 0
