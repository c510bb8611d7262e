#!/usr/bin/python3
"""Measures the per-call overhead of the Python API (nmsim.run), which runs the nmsim binary
as a child process per call (docs/python.md, "Cost per call").

    NMSIM_BINARY=build/bin/nmsim /usr/bin/python3 tools/examples/api_overhead.py [-n 20]
        [--markdown] [--binary PATH]      # binary: --binary, $NMSIM_BINARY, PATH, build/bin

For two workloads, a ~10 ms PE run (scenarios/s2_pe_matmul.yaml) and the MLP with one
inference (scenarios/s2_mlp_fmnist.yaml, workload.dnn.count=1), it times n calls of each of:

  api        nmsim.run(scenario, set=..., out=DIR): the whole call, stats.json and report parsed
  cli -d     the same `nmsim run -q -d DIR` command through subprocess.run, nothing parsed
  cli -o     `nmsim run -q -o DIR/trace.h5`: the trace only, no run directory
  no events  `nmsim run -q -d DIR --set trace.events=false`: summary-only trace
  version    `nmsim --version`: process start, dynamic linking and exit, nothing else

and reads `wall_seconds` from each api call's stats.json: the simulator's own time from the
start of the run (after the scenario file is loaded) to the end of the checks, i.e. model and
DNN compilation, elaboration, simulation and result collection. The overhead of a call is
api - wall_seconds; the table splits it into process start (version), the rest of the
command (cli -d - wall - version: scenario loading, trace closing, report, run directory,
teardown), the run directory (cli -d - cli -o) and the Python side (api - cli -d), as
differences of medians. The variants run interleaved, one call of each per round, so that load
changes on the machine hit all alike. The first use of Run.trace (open, summary) is timed too.
"""

import argparse
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

SOURCE_DIR = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(SOURCE_DIR / "python"))

import nmsim  # noqa: E402

WORKLOADS = [
    ("PE matmul (s2_pe_matmul)", SOURCE_DIR / "scenarios" / "s2_pe_matmul.yaml", {}),
    ("MLP, 1 inference (s2_mlp_fmnist)", SOURCE_DIR / "scenarios" / "s2_mlp_fmnist.yaml",
     {"workload.dnn.count": 1}),
]


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def measure(binary, scenario, sets, n, tmp):
    """n interleaved rounds of every variant; returns {variant: [seconds]}."""
    set_args = []
    for k, v in sets.items():
        set_args += ["--set", f"{k}={nmsim.format_value(v)}"]
    d = pathlib.Path(tmp)
    base = [binary, "run", str(scenario), "-q"] + set_args
    commands = {
        "cli_d": base + ["-d", str(d / "cli_d")],
        "cli_o": base + ["-o", str(d / "cli_o.h5")],
        "cli_d_noev": base + ["-d", str(d / "cli_d_noev"), "--set", "trace.events=false"],
        "version": [binary, "--version"],
    }

    def run_cli(cmd):
        subprocess.run(cmd, check=True, cwd=tmp, capture_output=True)

    def api():
        return nmsim.run(scenario, set=sets, out=d / "api", binary=binary)

    for _ in range(2):                  # warm-up: page cache, firmware and model files
        api().close()
        run_cli(commands["cli_d"])
    rows = {k: [] for k in ["api", "wall", "api_import_trace", *commands]}
    for _ in range(n):
        t, r = timed(api)
        if not r.ok:
            raise SystemExit(f"{scenario}: the run failed: {r.message}")
        rows["api"].append(t)
        rows["wall"].append(r.wall_seconds)
        rows["api_import_trace"].append(timed(lambda: r.trace.summary())[0])
        r.close()
        for name, cmd in commands.items():
            rows[name].append(timed(lambda: run_cli(cmd))[0])
    return rows


def breakdown(rows):
    """Named rows of (values or None, median-derived value) for the table."""
    med = {k: statistics.median(v) for k, v in rows.items()}
    paired = [a - w for a, w in zip(rows["api"], rows["wall"])]
    return [
        ("nmsim.run, the whole call", rows["api"], None),
        ("simulator's own wall_seconds (stats.json)", rows["wall"], None),
        ("overhead per call = nmsim.run - wall_seconds", paired, None),
        ("  process start and exit (nmsim --version)", rows["version"], None),
        ("  scenario loading, trace closing, report, run directory",
         None, med["cli_d"] - med["wall"] - med["version"]),
        ("    of which the run directory files (-d vs -o)", None, med["cli_d"] - med["cli_o"]),
        ("  Python: Popen, reading stats.json and report.txt", None,
         med["api"] - med["cli_d"]),
        ("same command with trace.events=false", rows["cli_d_noev"], None),
        ("first use of Run.trace: open + summary()", rows["api_import_trace"], None),
    ]


def fmt_stats(values):
    ms = [v * 1e3 for v in values]
    sd = statistics.stdev(ms) if len(ms) > 1 else 0.0
    return statistics.mean(ms), sd, statistics.median(ms), min(ms), max(ms)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-n", type=int, default=20, help="calls per variant (default 20)")
    ap.add_argument("--markdown", action="store_true", help="print Markdown tables")
    ap.add_argument("--binary", help="nmsim executable (default: nmsim.find_binary())")
    a = ap.parse_args()
    binary = nmsim.find_binary(a.binary)
    print(f"{nmsim.version(binary)}  ({binary}); {a.n} calls per variant; "
          f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}")
    t_import = subprocess.run([sys.executable, "-c", "import time; t = time.perf_counter(); "
                               "import nmsim; print(time.perf_counter() - t)"],
                              env=dict(os.environ, PYTHONPATH=str(SOURCE_DIR / "python")),
                              capture_output=True, text=True, check=True).stdout
    t_trace = timed(lambda: __import__("nmsim_trace"))[0]
    print(f"import nmsim: {float(t_import) * 1e3:.1f} ms; import nmsim_trace (pandas, h5py, "
          f"on first use of Run.trace): {t_trace * 1e3:.0f} ms; both once per session")
    for title, scenario, sets in WORKLOADS:
        with tempfile.TemporaryDirectory(prefix="nmsim-overhead-") as tmp:
            rows = measure(binary, scenario, sets, a.n, tmp)
        print()
        if a.markdown:
            print(f"**{title}**, ms over {a.n} calls (derived rows: differences of medians)\n")
            print("| | mean | std | median | min | max |\n|---|---:|---:|---:|---:|---:|")
        else:
            print(f"{title}: ms over {a.n} calls (derived rows: differences of medians)")
            print(f"  {'':58s} {'mean':>7s} {'std':>6s} {'median':>7s} {'min':>7s} "
                  f"{'max':>7s}")
        for name, vals, derived in breakdown(rows):
            if a.markdown:
                label = "&nbsp;" * 4 * ((len(name) - len(name.lstrip())) // 2) + name.strip()
                cells = (["%.1f" % x for x in fmt_stats(vals)] if vals is not None
                         else ["", "", "%.1f" % (derived * 1e3), "", ""])
                print(f"| {label} | " + " | ".join(cells) + " |")
            elif vals is not None:
                print(f"  {name:58s} " + " ".join(f"{x:{w}.1f}" for x, w in
                                                    zip(fmt_stats(vals), (7, 6, 7, 7, 7))))
            else:
                print(f"  {name:58s} {'':7s} {'':6s} {derived * 1e3:7.1f}")

if __name__ == "__main__":
    main()
