"""``nmsim.sweep``: a parameter sweep through the ``nmsim sweep`` command (docs/sweeps.md)."""

import os
import pathlib
import shutil

from . import _cli
from .errors import InputError, NmsimError, SimulationError
from .run import _Owned, _prepare_dir, _write_yaml

# The file a dict sweep is written to, in the output directory (the CLI copies the sweep file
# it runs to <out>/sweep.yaml).
SWEEP_FILE = "sweep.input.yaml"


class SweepResult(_Owned):
    """The outcome of one ``nmsim sweep``.

    Attributes:
        ok          True if every point ran and is "ok" (exit status 0)
        returncode  exit status of ``nmsim sweep`` (0 or 1)
        results     the results table as a DataFrame (``nmsim_trace.load_sweep`` of
                    results.h5): point, status, error, ``param:<key>`` (as written),
                    ``value:<key>`` (numeric), ``metric:<name>``
        failed      the rows of ``results`` whose status is not "ok"
        points      the manifest points.csv as a DataFrame (point and varied values)
        dir         the output directory (points/<id>.h5 and .log, results.h5/.csv, ...)
        sweep_path  the sweep file that ran
        stdout, stderr, command, elapsed   of the ``nmsim`` process
    """

    def __init__(self, directory, done, sweep_path, *, temporary=False, binary=None, env=None):
        self._own(directory, temporary)
        self.command, self.returncode = done.command, done.returncode
        self.stdout, self.stderr, self.elapsed = done.stdout, done.stderr, done.elapsed
        self.ok = done.returncode == 0
        self.sweep_path = pathlib.Path(sweep_path)
        self._binary, self._env = binary, env
        self._results = None

    @property
    def results(self):
        """The results table (read once; ``collect()`` re-reads it)."""
        if self._results is None:
            from nmsim_trace.analysis import load_sweep

            h5, csv = self.dir / "results.h5", self.dir / "results.csv"
            self._results = load_sweep(str(h5 if h5.exists() or not csv.exists() else csv))
        return self._results

    @property
    def failed(self):
        df = self.results
        return df[df["status"] != "ok"]

    @property
    def points(self):
        import pandas as pd

        return pd.read_csv(self.dir / "points.csv", dtype=str, keep_default_na=False)

    def metric(self, name):
        """One metric over the points as a Series indexed by point ("dnn.total_us" or
        "metric:dnn.total_us")."""
        col = name if name.startswith("metric:") else "metric:" + name
        return self.results.set_index("point")[col]

    def trace_path(self, point):
        return self.dir / "points" / f"{int(point)}.h5"

    def trace(self, point):
        """The trace of one point (``nmsim_trace.Trace``); close it when done."""
        import nmsim_trace

        return nmsim_trace.load(str(self.trace_path(point)))

    def collect(self, timeout=None):
        """Runs ``nmsim sweep --collect`` (after a Slurm array finished) and re-reads the
        results. Returns self."""
        command = [_cli.find_binary(self._binary), "sweep", str(self.sweep_path), "--collect",
                   "-o", str(self.dir)]
        done = _cli.execute(command, cwd=str(self.dir), timeout=timeout, env=self._env,
                            run_dir=self.dir)
        _cli.raise_for_status(done, run_dir=self.dir, what="nmsim sweep --collect")
        self.returncode, self.ok = done.returncode, done.returncode == 0
        self._results = None
        return self

    def __repr__(self):
        state = "ok" if self.ok else "some points failed"
        return f"<nmsim.SweepResult {state} dir={self.dir}>"


def _output_of(data, base):
    """The `output` key of a sweep (a path relative to `base` unless absolute), or None."""
    out = data.get("output") if isinstance(data, dict) else None
    if out is None:
        return None
    return pathlib.Path(base, os.path.expanduser(str(out)))


def sweep(sweep, out=None, jobs=None, backend="local", *, retry_failed=False, quiet=True,
          timeout=None, binary=None, base_dir=None, check=False, env=None):
    """Runs a sweep with ``nmsim sweep`` and returns its ``SweepResult``.

    sweep     a sweep file (str or path-like), or a dict with its structure ({"base": ...,
              "set": {...}, "axes": {...}, "zip": {...}, "random": {...}, "metrics": [...]});
              a dict is written to <out>/sweep.input.yaml, its relative ``base`` resolved
              against ``base_dir`` (default: the current directory). ``base`` is a scenario
              file.
    out       the output directory. Default: the sweep's ``output`` key (relative to the
              sweep file, or to ``base_dir`` for a dict); without one, a new temporary
              directory removed by ``close()`` or garbage collection (``keep()`` keeps it).
              Points finished in an earlier sweep into the same directory are skipped.
    jobs      parallel points (``-j``; default: the number of cores).
    backend   "local" or "slurm" (submits a job array and returns; ``collect()`` later).
    retry_failed  run points recorded as failed again.
    quiet, timeout, binary, env, check   as for ``nmsim.run`` (check=True raises
              ``SimulationError`` if some point failed).

    Raises ``InputError`` (bad sweep file or options, exit status 2), ``CrashError``,
    ``RunTimeout``, ``BinaryNotFoundError``.
    """
    import yaml

    exe = _cli.find_binary(binary)
    if isinstance(sweep, dict):
        base = os.path.abspath(base_dir if base_dir is not None else os.getcwd())
        data = dict(sweep)
        data.setdefault("name", "sweep")    # else the CLI names it after sweep.input.yaml
        if "base" in data:
            if isinstance(data["base"], dict):
                raise TypeError("sweep: 'base' must be a scenario file (path); write a dict "
                                "scenario to a file first")
            data["base"] = os.path.join(base, os.path.expanduser(str(data["base"])))
        default_out = _output_of(data, base)
        data.pop("output", None)
        path = None
    elif isinstance(sweep, (str, os.PathLike)):
        path = pathlib.Path(sweep).expanduser().absolute()
        try:
            with open(path, encoding="utf-8") as f:
                loaded = yaml.safe_load(f)
        except (OSError, yaml.YAMLError):
            loaded = None           # the CLI reports the problem with file:line:col
        default_out = _output_of(loaded, path.parent)
    else:
        raise TypeError(f"sweep must be a file path or a dict, not {type(sweep).__name__}")
    if backend not in ("local", "slurm"):
        raise ValueError(f"backend must be 'local' or 'slurm', not {backend!r}")
    directory, temporary = _prepare_dir(out if out is not None else default_out, "nmsim-sweep-")
    try:
        if path is None:
            path = directory / SWEEP_FILE
            _write_yaml(data, path)
        command = [exe, "sweep", str(path), "-o", str(directory), "--backend", backend]
        if jobs is not None:
            command += ["-j", str(int(jobs))]
        if retry_failed:
            command.append("--retry-failed")
        done = _cli.execute(command, cwd=str(directory), timeout=timeout, echo=not quiet,
                            env=env, run_dir=directory)
        _cli.raise_for_status(done, run_dir=directory, what="nmsim sweep")
    except InputError as e:
        if temporary:
            shutil.rmtree(directory, ignore_errors=True)
            e.dir = None
        raise
    except NmsimError:
        raise
    except BaseException:
        if temporary:
            shutil.rmtree(directory, ignore_errors=True)
        raise
    result = SweepResult(directory, done, path, temporary=temporary, binary=binary, env=env)
    if check and not result.ok:
        lines = done.stderr.strip().splitlines()
        raise SimulationError("nmsim sweep: some points failed" + (f": {lines[-1]}" if lines
                                                                   else ""),
                              result=result, returncode=done.returncode, stderr=done.stderr,
                              command=command, dir=directory)
    return result
