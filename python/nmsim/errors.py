"""Exceptions of the nmsim Python API.

Every exception is an ``NmsimError``. Those that come from the ``nmsim`` command carry its exit
status (``returncode``), its standard error (``stderr``), the command line (``command``) and the
run or sweep directory (``dir``).
"""

import re

# One error line of the command line tool: "file:line:col: error: key: message" (scenario and
# sweep files), "--set: error: key: message" (an override) or "nmsim: error: message".
_FILE_ERROR = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<col>\d+): error: (?P<rest>.*)$")
_OTHER_ERROR = re.compile(r"^\s*(?P<file>[^:]+?): error: (?P<rest>.*)$")
_KEY = re.compile(r"^(?P<key>[A-Za-z0-9_.\-\[\]/]+): (?P<message>.*)$")


def parse_errors(stderr):
    """The error lines of the CLI's standard error as a list of dicts with the keys file, line,
    col (int or None), key (str or None) and message. Lines that are not errors are skipped."""
    out = []
    for text in (stderr or "").splitlines():
        m = _FILE_ERROR.match(text.strip())
        line = col = None
        if m:
            line, col = int(m["line"]), int(m["col"])
        else:
            m = _OTHER_ERROR.match(text)
            if not m:
                continue
        rest, key = m["rest"], None
        k = _KEY.match(rest)
        if k and not m["file"].startswith("nmsim"):
            key, rest = k["key"], k["message"]
        out.append({"file": m["file"], "line": line, "col": col, "key": key, "message": rest})
    return out


class NmsimError(Exception):
    """Base class of every error of the nmsim package.

    Attributes (None where they do not apply): ``returncode`` (exit status of the ``nmsim``
    command), ``stderr`` (its standard error, complete), ``command`` (argument list), ``dir``
    (the run or sweep directory, a ``pathlib.Path``).
    """

    def __init__(self, message, *, returncode=None, stderr=None, command=None, dir=None):
        super().__init__(message)
        self.message = message
        self.returncode = returncode
        self.stderr = stderr
        self.command = command
        self.dir = dir


class BinaryNotFoundError(NmsimError, FileNotFoundError):
    """No ``nmsim`` executable: not given, not in $NMSIM_BINARY, not on PATH, not built."""


class InputError(NmsimError):
    """Bad input: the ``nmsim`` command exited with status 2 (scenario or sweep file, parameter,
    ``--set`` override, missing file). The message is the command's standard error, e.g.
    ``/tmp/run/scenario.yaml:9:12: error: workload.dnn.count: ...``. ``errors`` holds the
    error lines parsed (``parse_errors``); ``scenario_yaml`` the YAML text written for a dict
    scenario (else None), to which the line numbers of such a scenario refer."""

    def __init__(self, message, *, scenario_yaml=None, **kw):
        super().__init__(message, **kw)
        self.errors = parse_errors(self.stderr if self.stderr is not None else message)
        self.scenario_yaml = scenario_yaml


# The name the issue and the docs use for the common case.
ScenarioError = InputError


class SimulationError(NmsimError):
    """The simulation failed or a check failed (exit status 1). Raised only with ``check=True``;
    otherwise ``run`` returns a ``Run`` whose ``ok`` is False. ``result`` is that ``Run`` (or
    the ``SweepResult`` of a sweep with failed points)."""

    def __init__(self, message, *, result=None, **kw):
        super().__init__(message, **kw)
        self.result = result


class CrashError(NmsimError):
    """The ``nmsim`` process ended abnormally: killed by a signal, an exit status other than
    0, 1 or 2, or a run that left no ``stats.json``. Whatever it wrote is in ``dir``."""


class Interrupted(NmsimError):
    """The run was stopped by SIGINT or SIGTERM (exit status 130 or 143): it kept its trace and
    run directory, with status "interrupted" and the tables of what it completed, in ``dir``."""


class RunTimeout(NmsimError, TimeoutError):
    """The ``nmsim`` process ran longer than ``timeout`` seconds and was killed. A killed run
    leaves a readable prefix of its trace in ``dir`` (traces/README.md, crash safety)."""
