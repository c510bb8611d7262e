"""Python API of the nmsim simulator: run scenarios and sweeps, read their results.

    import nmsim
    r = nmsim.run("scenarios/s2_mlp_fmnist.yaml", set={"workload.dnn.count": 10})
    r.ok, r.metrics["dnn.total_us"], r.units["dnn.total_us"], print(r.report)
    nmsim_trace.dnn_outputs(r.trace)           # r.trace: the run's trace (nmsim_trace.Trace)

    s = nmsim.sweep("scenarios/sweeps/mlp_perf_level.yaml", out="out/perf", jobs=2)
    s.results                                  # DataFrame: point, status, param:..., metric:...

Every call runs the ``nmsim`` command line tool as a child process (``nmsim run -d DIR``,
``nmsim sweep``) and reads the files it writes; docs/python.md says why and what it costs.

``nmsim.torch`` (imported on its own: it needs PyTorch and the compiled module nmsim._hagen) runs
PyTorch products and layers on BrainScaleS-2's hagen mode in-process; docs/torch.md.
"""

from ._cli import find_binary, format_value
from .errors import (BinaryNotFoundError, CrashError, InputError, Interrupted, NmsimError,
                     RunTimeout, ScenarioError, SimulationError, parse_errors)
from .run import Run, run
from .sweep import SweepResult, sweep

__version__ = "0.1.0"


def version(binary=None):
    """The simulator's version string (``nmsim --version``), e.g. "nmsim 0.1.0+7b324ba"."""
    import subprocess

    return subprocess.run([find_binary(binary), "--version"], capture_output=True, text=True,
                          check=True).stdout.strip()


__all__ = ["run", "sweep", "Run", "SweepResult", "find_binary", "format_value", "version",
           "NmsimError", "BinaryNotFoundError", "InputError", "ScenarioError",
           "SimulationError", "CrashError", "Interrupted", "RunTimeout", "parse_errors", "__version__"]
