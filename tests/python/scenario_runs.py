"""Running a scenario with the built nmsim for the Python tests, and reading its metrics."""

import pathlib
import subprocess

import nmsim_trace

SOURCE_DIR = pathlib.Path(__file__).resolve().parents[2]


def run(binary, tmp_path, scenario, *sets, name="run.h5"):
    """Runs scenarios/<scenario> quietly with --set overrides in tmp_path (trace `name`); the run
    must succeed. Returns the loaded trace."""
    trace = tmp_path / name
    args = [binary, "run", str(SOURCE_DIR / "scenarios" / scenario), "-q", "-o", str(trace)]
    for s in sets:
        args += ["--set", s]
    p = subprocess.run(args, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return nmsim_trace.load(str(trace))


def metrics(t):
    """The run's metrics (summary counters of the component "metrics") as a dict."""
    s = t.summary()
    m = s[s["component"] == "metrics"]
    return dict(zip(m["counter"], m["value"]))
