"""``nmsim.run``: one scenario through the ``nmsim run`` command, and its ``Run`` result."""

import json
import os
import pathlib
import shutil
import tempfile
import weakref

from . import _cli
from .errors import CrashError, InputError, NmsimError, SimulationError

# What `nmsim run -d DIR` writes.
RUN_FILES = ("trace.h5", "config.yaml", "params.yaml", "stats.txt", "stats.json", "report.txt")
# Removed from DIR before a run, so that a run that dies is never read from a stale stats.json
# (the others are rewritten by every run that gets that far; config.yaml may be the scenario).
STALE_FILES = ("stats.json", "stats.txt", "report.txt")
# The file a dict scenario is written to, in the run directory.
SCENARIO_FILE = "scenario.yaml"


def _cleanup(state):
    """Closes the run's trace and removes its temporary directory (if it owns one)."""
    ref = state.get("trace")
    trace = ref() if ref is not None else None
    state["trace"] = None
    if trace is not None:
        try:
            trace.close()
        except Exception:       # noqa: BLE001 - best effort at garbage collection / exit
            pass
    tmp = state.get("tmp")
    if tmp:
        state["tmp"] = None
        shutil.rmtree(tmp, ignore_errors=True)


class _Owned:
    """A run or sweep directory and the resources tied to it: an open trace, and the directory
    itself if the API created it as a temporary directory. Released by ``close()``, a ``with``
    block, or when the object is garbage collected (or at interpreter exit). The finalizer
    holds the trace weakly: a trace handed out keeps its owner alive, not the reverse."""

    def _own(self, directory, temporary):
        self.dir = pathlib.Path(directory)
        self.temporary = temporary
        self._trace = None
        self._state = {"trace": None, "tmp": str(directory) if temporary else None}
        self._finalizer = weakref.finalize(self, _cleanup, self._state)

    def keep(self):
        """Keeps a temporary directory after this object is closed or collected (it is never
        removed then). Returns the directory."""
        self._state["tmp"] = None
        self.temporary = False
        return self.dir

    def close(self):
        """Closes the trace opened through this object and removes the directory if it is a
        temporary one (not ``out=``, not ``keep()``). Idempotent."""
        self._finalizer()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Run(_Owned):
    """The outcome of one ``nmsim run``.

    Attributes:
        ok           True if the simulation and its checks passed (exit status 0)
        returncode   exit status of ``nmsim run`` (0 or 1; other statuses raise)
        status       "ok" or "error" (stats.json; "error" also for a failed check)
        message      the error message of a failed run ("" if none)
        metrics      {name: float}: the run's metrics (stats.json), e.g. "dnn.total_us"
        units        {name: unit} of the metrics
        counters     {component: {counter: float}}: every component counter
        counter_units {component: {counter: unit}}
        report       the report text (report.txt; written also with quiet=True)
        stats        stats.json as parsed (dict)
        sim_time_us, wall_seconds   simulated time, and the simulator's own wall time
        elapsed      seconds the call spent in the ``nmsim`` process (start to exit)
        dir          the run directory (pathlib.Path): trace.h5, config.yaml, params.yaml,
                     stats.txt, stats.json, report.txt (docs/python.md)
        temporary    True if ``dir`` is a temporary directory removed by ``close()``
        trace_path   the trace file
        trace        the trace as ``nmsim_trace.Trace``, opened on first use and closed by
                     ``close()`` (it keeps this Run alive while you hold it)
        stdout, stderr, command   of the ``nmsim`` process
    """

    def __init__(self, directory, done, *, temporary=False, scenario_yaml=None):
        self._own(directory, temporary)
        self.command, self.returncode = done.command, done.returncode
        self.stdout, self.stderr, self.elapsed = done.stdout, done.stderr, done.elapsed
        self.scenario_yaml = scenario_yaml
        self.ok = done.returncode == 0
        stats_path = self.dir / "stats.json"
        try:
            with open(stats_path, encoding="utf-8") as f:
                self.stats = json.load(f)
        except (OSError, ValueError) as e:
            raise CrashError(f"{stats_path}: nmsim exited with status {done.returncode} but "
                             f"left no readable stats.json ({e})" + _last_line(done.stderr),
                             returncode=done.returncode, stderr=done.stderr,
                             command=done.command, dir=self.dir) from e
        s = self.stats
        self.status = s.get("status", "")
        self.message = s.get("message", "") or ("" if self.ok else _last_error(done.stderr))
        self.metrics = {k: float(v["value"]) for k, v in s.get("metrics", {}).items()}
        self.units = {k: v.get("unit", "") for k, v in s.get("metrics", {}).items()}
        self.counters = {c: {k: float(v["value"]) for k, v in d.items()}
                         for c, d in s.get("counters", {}).items()}
        self.counter_units = {c: {k: v.get("unit", "") for k, v in d.items()}
                              for c, d in s.get("counters", {}).items()}
        self.sim_time_us = s.get("sim_time_us")
        self.wall_seconds = s.get("wall_seconds")
        self.scenario = s.get("scenario", "")
        trace = s.get("trace") or "trace.h5"
        self.trace_path = self.dir / trace if not os.path.isabs(trace) else pathlib.Path(trace)
        try:
            self.report = (self.dir / "report.txt").read_text(encoding="utf-8")
        except OSError:
            self.report = ""

    @property
    def trace(self):
        """The run's trace (``nmsim_trace.Trace``: DataFrames of every table), opened once."""
        if self._trace is None:
            import nmsim_trace

            t = nmsim_trace.load(str(self.trace_path))
            t._nmsim_run = self         # the Run (and its directory) lives while t is held
            self._trace = t
            self._state["trace"] = weakref.ref(t)
        return self._trace

    @property
    def config(self):
        """The resolved scenario (config.yaml) as text; ``nmsim.run(r.dir / "config.yaml")``
        runs it again."""
        return (self.dir / "config.yaml").read_text(encoding="utf-8")

    @property
    def params(self):
        """Every effective platform parameter (params.yaml): {path: {value, unit, type,
        origin, source}}."""
        import yaml

        with open(self.dir / "params.yaml", encoding="utf-8") as f:
            return yaml.safe_load(f) or {}

    @property
    def overhead_seconds(self):
        """``elapsed`` minus the simulator's own ``wall_seconds``: process start, loading,
        trace and run-directory writing."""
        return None if self.wall_seconds is None else self.elapsed - self.wall_seconds

    def __repr__(self):
        state = "ok" if self.ok else f"FAILED ({self.message})" if self.message else "FAILED"
        sim = f" sim {self.sim_time_us:.3f} us" if self.sim_time_us is not None else ""
        return f"<nmsim.Run {self.scenario} {state}{sim} dir={self.dir}>"


def _last_line(stderr):
    lines = (stderr or "").strip().splitlines()
    return f"; last stderr line: {lines[-1]}" if lines else ""


def _last_error(stderr):
    for line in reversed((stderr or "").strip().splitlines()):
        if ": error: " in line:
            return line.split(": error: ", 1)[1]
    lines = (stderr or "").strip().splitlines()
    return lines[-1] if lines else ""


def _prepare_dir(out, prefix):
    """(directory, temporary): ``out`` created if missing, or a new temporary directory."""
    if out is None:
        return pathlib.Path(tempfile.mkdtemp(prefix=prefix)), True
    d = pathlib.Path(out).expanduser().absolute()
    d.mkdir(parents=True, exist_ok=True)
    return d, False


def _write_yaml(data, path):
    import yaml

    text = yaml.safe_dump(_cli._plain(data), sort_keys=False, default_flow_style=None,
                          width=100)
    path.write_text(text, encoding="utf-8")
    return text


def run(scenario, set=None, out=None, *, quiet=True, timeout=None, binary=None, base_dir=None,
        check=False, env=None):
    """Runs a scenario with ``nmsim run`` and returns its ``Run``.

    scenario  a scenario file (str or path-like), or a dict with the YAML's structure
              ({"name": ..., "platform": {...}, "workload": {...}, ...}); a dict is written to
              <out>/scenario.yaml.
    set       overrides {key: value} as ``--set key=value``: platform parameters
              ("pe.perf_level": 0, "pe.core.quantum": "500ns") and scenario keys
              ("workload.dnn.count": 10, "seed": 3, "workload.dnn.layer_workers": [8, 4, 1, 1]).
              bool -> true/false, numbers in full precision, lists/dicts -> YAML flow; a str
              goes through as written (the CLI's rules).
    out       the run directory (created if missing; earlier run outputs in it are replaced).
              Default: a new temporary directory, removed by ``Run.close()``, a ``with`` block,
              or when the Run is garbage collected; ``Run.keep()`` keeps it.
    quiet     True: nothing is printed (the report is still in ``Run.report``). False: the
              report, console lines and progress are shown as they come (also in Jupyter).
    timeout   seconds; the process is killed after that and ``RunTimeout`` raised.
    binary    the ``nmsim`` executable (default: see ``find_binary``).
    base_dir  where relative paths in the scenario resolve (``--base-dir``). Default: the
              scenario file's directory for a file, the current directory for a dict.
    check     True: a failed simulation or check raises ``SimulationError`` instead of
              returning a Run with ``ok`` False.
    env       extra environment variables for the process (e.g. NMSIM_FIRMWARE_DIR).

    Raises ``InputError`` (alias ``ScenarioError``) with the CLI's message for bad input (exit
    status 2), ``CrashError`` if the process dies, ``RunTimeout``, ``BinaryNotFoundError``.
    """
    exe = _cli.find_binary(binary)
    is_dict = isinstance(scenario, dict)
    if not is_dict and not isinstance(scenario, (str, os.PathLike)):
        raise TypeError(f"scenario must be a file path or a dict, not {type(scenario).__name__}")
    sets = _cli.set_args(set)
    directory, temporary = _prepare_dir(out, "nmsim-run-")
    try:
        for name in STALE_FILES:
            (directory / name).unlink(missing_ok=True)
        scenario_yaml = None
        if is_dict:
            path = directory / SCENARIO_FILE
            scenario_yaml = _write_yaml(scenario, path)
            base = os.path.abspath(base_dir if base_dir is not None else os.getcwd())
        else:
            path = pathlib.Path(scenario).expanduser().absolute()
            base = os.path.abspath(base_dir) if base_dir is not None else None
        command = [exe, "run", str(path), "-d", str(directory)]
        if quiet:
            command.append("-q")
        if base is not None:
            command += ["--base-dir", base]
        command += sets
        done = _cli.execute(command, cwd=str(directory), timeout=timeout, echo=not quiet,
                            env=env, run_dir=directory)
        _cli.raise_for_status(done, run_dir=directory, scenario_yaml=scenario_yaml,
                              what="nmsim run")
        result = Run(directory, done, temporary=temporary, scenario_yaml=scenario_yaml)
    except InputError as e:
        if temporary:
            shutil.rmtree(directory, ignore_errors=True)
            e.dir = None
        raise
    except NmsimError:
        raise                       # a crash or timeout keeps its directory for inspection
    except BaseException:
        if temporary:
            shutil.rmtree(directory, ignore_errors=True)
        raise
    if check and not result.ok:
        raise SimulationError(f"{result.scenario}: {result.message or 'the run failed'}",
                              result=result, returncode=result.returncode,
                              stderr=result.stderr, command=result.command, dir=result.dir)
    return result
