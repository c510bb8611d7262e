"""Shared fixtures for the Python tests: the nmsim_trace package from the source tree and the
built tools, passed in by ctest through the environment:

    NMSIM_TRACE_DEMO  path of the trace_demo executable (tests/traces)
    NMSIM_TRACE_CLI   path of the nmsim-trace launcher (build/bin/nmsim-trace)
    NMSIM_BINARY      path of the nmsim executable (build/bin/nmsim)

A missing variable fails the tests that need it (never a silent skip).
"""

import os
import pathlib
import sys

import pytest

SOURCE_DIR = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(SOURCE_DIR / "python"))


def _tool(var):
    path = os.environ.get(var)
    if not path:
        pytest.fail(f"environment variable {var} is not set (run through ctest, or set it to the "
                    "built tool)")
    if not os.access(path, os.X_OK):
        pytest.fail(f"{var}={path} is not an executable file (build it first)")
    return path


@pytest.fixture(scope="session")
def trace_demo():
    return _tool("NMSIM_TRACE_DEMO")


@pytest.fixture(scope="session")
def nmsim_trace_cli():
    return _tool("NMSIM_TRACE_CLI")


@pytest.fixture(scope="session")
def nmsim_binary():
    return _tool("NMSIM_BINARY")


@pytest.fixture(scope="session")
def hagen():
    """The compiled module nmsim._hagen (docs/torch.md); fails naming the build command if it is
    missing."""
    from nmsim import _native

    try:
        return _native.load()
    except ImportError as e:
        pytest.fail(str(e))


@pytest.fixture
def torch_defaults():
    """nmsim.torch's module-wide settings restored and its statistics zeroed around a test."""
    import nmsim.torch as hx

    saved = hx.Config(**vars(hx.config))
    hx.reset_stats()
    yield
    hx.configure(**vars(saved))
