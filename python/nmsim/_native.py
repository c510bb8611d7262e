"""Finding and loading the compiled extension ``nmsim._hagen`` (tools/pyext, docs/torch.md).

The extension is built by CMake into ``<build>/python/nmsim/`` (target ``nmsim_pyext_hagen``)
and installed next to this file. ``load()`` looks, in order, in

1. ``$NMSIM_BUILD_DIR/python/nmsim`` (the build directory named by the environment),
2. this package's own directory (an installed nmsim),
3. the source tree's ``build/python/nmsim`` (python/nmsim/ -> <source>/build),
4. the build directory of ``$NMSIM_BINARY`` (``<build>/bin/nmsim`` -> ``<build>/python/nmsim``),

and loads the first ``_hagen<suffix>`` whose suffix this interpreter accepts.
"""

import importlib.machinery
import importlib.util
import os
import pathlib
import sys

_PACKAGE_DIR = pathlib.Path(__file__).resolve().parent
_NAME = "nmsim._hagen"
BUILD_COMMAND = ("cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release && "
                 "ninja -C build nmsim_pyext_hagen")


def module_dirs():
    """Where ``load()`` looks, in order, as (origin, directory) pairs."""
    out = []
    build = os.environ.get("NMSIM_BUILD_DIR")
    if build:
        out.append(("$NMSIM_BUILD_DIR", pathlib.Path(build) / "python" / "nmsim"))
    out.append(("package", _PACKAGE_DIR))
    out.append(("source tree", _PACKAGE_DIR.parents[1] / "build" / "python" / "nmsim"))
    binary = os.environ.get("NMSIM_BINARY")
    if binary:
        out.append(("$NMSIM_BINARY", pathlib.Path(binary).resolve().parents[1] / "python" / "nmsim"))
    return out


def find():
    """The path of the extension file, or None."""
    for _, d in module_dirs():
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            path = d / ("_hagen" + suffix)
            if path.is_file():
                return path
    return None


def load():
    """The extension module; ImportError naming where it looked and how to build it."""
    if _NAME in sys.modules:
        return sys.modules[_NAME]
    path = find()
    if path is None:
        tried = ", ".join(f"{origin} ({d})" for origin, d in module_dirs())
        raise ImportError(
            f"nmsim.torch needs the compiled module nmsim._hagen (for {sys.executable}); looked "
            f"in {tried}. Build it from the source tree with `{BUILD_COMMAND}`, or set "
            "NMSIM_BUILD_DIR to the build directory that has it")
    spec = importlib.util.spec_from_file_location(_NAME, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.modules[_NAME] = module
    return module
