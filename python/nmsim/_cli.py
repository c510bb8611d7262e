"""Finding the ``nmsim`` executable, building its command lines and running it."""

import numbers
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import threading

from .errors import BinaryNotFoundError, CrashError, InputError, Interrupted, RunTimeout

_PACKAGE_DIR = pathlib.Path(__file__).resolve().parent


def _executable(path):
    return path is not None and os.path.isfile(path) and os.access(path, os.X_OK)


def binary_candidates():
    """Where ``find_binary()`` looks, in order, as (origin, path) pairs; path None if the origin
    gives none."""
    out = [("$NMSIM_BINARY", os.environ.get("NMSIM_BINARY") or None),
           ("PATH", shutil.which("nmsim"))]
    # The source tree: python/nmsim/ -> <source>/build/bin/nmsim.
    out.append(("source tree", str(_PACKAGE_DIR.parents[1] / "build" / "bin" / "nmsim")))
    # An installed prefix: <prefix>/lib/python3*/<dist|site>-packages/nmsim -> <prefix>/bin/nmsim.
    if len(_PACKAGE_DIR.parents) > 3 and _PACKAGE_DIR.parents[2].name.startswith("lib"):
        out.append(("install prefix", str(_PACKAGE_DIR.parents[3] / "bin" / "nmsim")))
    return out


def find_binary(binary=None):
    """The ``nmsim`` executable to run: ``binary`` if given, else $NMSIM_BINARY, else ``nmsim``
    on PATH, else the source tree's build/bin/nmsim (relative to this package), else
    <prefix>/bin/nmsim of the prefix the package is installed in. BinaryNotFoundError if none."""
    if binary is not None:
        path = shutil.which(str(binary)) if os.sep not in str(binary) else str(binary)
        if not _executable(path):
            raise BinaryNotFoundError(f"nmsim binary {binary}: not an executable file")
        return os.path.abspath(path)
    env = os.environ.get("NMSIM_BINARY")
    if env:
        if not _executable(env):
            raise BinaryNotFoundError(f"NMSIM_BINARY={env} is not an executable file")
        return os.path.abspath(env)
    tried = []
    for origin, path in binary_candidates()[1:]:
        if _executable(path):
            return os.path.abspath(path)
        tried.append(f"{origin} ({path})" if path else origin)
    raise BinaryNotFoundError(
        "cannot find the nmsim executable; looked in " + ", ".join(tried) + ". Build it "
        "(cmake --build build), install it (cmake --install), or pass binary= or set "
        "NMSIM_BINARY to its path")


def format_value(value):
    """A Python value as the text of one ``--set key=value``: str as written (the CLI's rules:
    a text starting with [ { " ' is YAML), bool as true/false, numbers in full precision,
    lists, tuples, dicts and numpy arrays as YAML flow text, pathlib paths as str."""
    import yaml

    if hasattr(value, "tolist") and not isinstance(value, (str, bytes)):
        value = value.tolist()          # numpy scalars and arrays
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        return repr(float(value))
    if value is None:
        return "null"
    if isinstance(value, (list, tuple, dict)):
        text = yaml.safe_dump(_plain(value), default_flow_style=True, width=1 << 30)
        return text.strip().removesuffix("...").strip()
    raise TypeError(f"cannot pass a {type(value).__name__} as a --set value: {value!r}")


def _plain(value):
    """Containers with numpy scalars, tuples and paths as plain YAML-dumpable values."""
    if hasattr(value, "tolist") and not isinstance(value, (str, bytes)):
        value = value.tolist()
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    return value


def set_args(overrides):
    """``--set`` arguments from a dict {key: value} (or an iterable of "key=value" strings)."""
    if overrides is None:
        return []
    if isinstance(overrides, str):
        raise TypeError("set= takes a dict {key: value} or a list of 'key=value' strings, "
                        "not a str")
    items = (overrides.items() if hasattr(overrides, "items")
             else (tuple(s.split("=", 1)) if "=" in s else (s, None) for s in overrides))
    out = []
    for key, value in items:
        if value is None and not hasattr(overrides, "items"):
            raise ValueError(f"set item {key!r} has no '=value'")
        out += ["--set", f"{key}={format_value(value)}"]
    return out


def _describe_status(rc):
    if rc < 0:
        try:
            name = signal.Signals(-rc).name
        except ValueError:
            name = "unknown signal"
        return f"killed by signal {-rc} ({name})"
    return f"exit status {rc}"


class Completed:
    """The outcome of one ``nmsim`` process: command, returncode, stdout, stderr, elapsed."""

    def __init__(self, command, returncode, stdout, stderr, elapsed):
        self.command, self.returncode = command, returncode
        self.stdout, self.stderr, self.elapsed = stdout, stderr, elapsed


def _pump(stream, sink, parts):
    for line in iter(stream.readline, ""):
        parts.append(line)
        if sink is not None:
            sink.write(line)
            sink.flush()
    stream.close()


def execute(command, *, cwd, timeout=None, echo=False, env=None, run_dir=None):
    """Runs ``command`` and waits. echo=True copies its stdout and stderr line by line to
    sys.stdout/sys.stderr while it runs (shows in Jupyter too). Raises RunTimeout (after
    killing the process) if it runs longer than ``timeout`` seconds."""
    import time

    full_env = dict(os.environ)
    full_env.setdefault("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1")
    if env:
        full_env.update({k: str(v) for k, v in env.items()})
    start = time.perf_counter()
    proc = subprocess.Popen(command, cwd=cwd, env=full_env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            errors="replace")
    try:
        if echo:
            out, err = [], []
            threads = [threading.Thread(target=_pump, args=(proc.stdout, sys.stdout, out)),
                       threading.Thread(target=_pump, args=(proc.stderr, sys.stderr, err))]
            for t in threads:
                t.daemon = True
                t.start()
            proc.wait(timeout=timeout)
            for t in threads:
                t.join()
            stdout, stderr = "".join(out), "".join(err)
        else:
            stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        stdout, stderr = proc.communicate()
        raise RunTimeout(f"nmsim did not finish within {timeout} s and was killed"
                         + (f"; its outputs so far are in {run_dir}" if run_dir else ""),
                         returncode=proc.returncode, stderr=stderr, command=command,
                         dir=run_dir) from None
    except BaseException:
        # KeyboardInterrupt (Jupyter's stop button) and the like: do not leave the child.
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        raise
    return Completed(command, proc.returncode, stdout, stderr, time.perf_counter() - start)


def raise_for_status(done, *, run_dir=None, scenario_yaml=None, what="nmsim"):
    """Raises InputError for exit status 2, Interrupted for 130 and 143 (SIGINT, SIGTERM: the
    run stopped cleanly and kept its outputs) and CrashError for anything else but 0 and 1."""
    rc = done.returncode
    if rc in (0, 1):
        return
    kw = {"returncode": rc, "stderr": done.stderr, "command": done.command, "dir": run_dir}
    text = done.stderr.strip()
    if rc == 2:
        raise InputError(text or f"{what}: bad input (exit status 2)",
                         scenario_yaml=scenario_yaml, **kw)
    last = text.splitlines()[-1] if text else ""
    if rc in (130, 143):
        raise Interrupted(f"{what}: " + (last or f"interrupted (exit status {rc})"), **kw)
    raise CrashError(f"{what} {_describe_status(rc)}" + (f": {last}" if last else ""), **kw)
