"""Reading nmsim traces (HDF5, schema "nmsim-trace" version 1; layout in traces/README.md).

Files of runs that crashed or are still running are read in SWMR mode: they show every row the
writer flushed, and ``Trace.run["status"]`` is ``"incomplete"``.
"""

import functools
import os

import h5py
import numpy as np
import pandas as pd

SCHEMA = "nmsim-trace"
SCHEMA_VERSION = "1"

INCOMPLETE = "incomplete"
_RUN_MISSING = "no run outcome in the file: the run was killed or is still running"
_PARAM_COLUMNS = ["path", "value", "unit", "type", "origin", "source", "doc"]
_SUMMARY_COLUMNS = ["component", "counter", "unit", "value"]


class TraceError(Exception):
    """A trace that cannot be read: missing, not HDF5, not an nmsim trace, or damaged.

    The message starts with the file name.
    """


def _text(value):
    """An HDF5 string (bytes or str, fixed or variable length) as str."""
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    if isinstance(value, np.ndarray) and value.shape == ():
        return _text(value[()])
    return str(value)


def _texts(array):
    """A numpy array of HDF5 strings as a list of str."""
    return [_text(v) for v in array]


def _reading(method):
    """Turns h5py/numpy failures while reading into TraceError naming the file."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except TraceError:
            raise
        except (OSError, KeyError, ValueError, RuntimeError) as e:
            raise TraceError(f"{self.path}: cannot read the trace: {e}") from e

    return wrapper


def _open_hdf5(path):
    if not os.path.exists(path):
        raise TraceError(f"{path}: no such file")
    if os.path.isdir(path):
        raise TraceError(f"{path}: is a directory, not a trace file")
    # SWMR mode reads files whose writer died or still runs; plain mode is the fallback for
    # files in older formats.
    try:
        return h5py.File(path, "r", swmr=True)
    except OSError:
        pass
    try:
        return h5py.File(path, "r")
    except OSError as e:
        if os.path.getsize(path) == 0:
            raise TraceError(f"{path}: empty file") from e
        if not h5py.is_hdf5(path):
            raise TraceError(f"{path}: not an HDF5 file") from e
        if "already open for write" in str(e):
            # The writer enters SWMR mode once the trace starts; before that a killed run
            # leaves a file marked open, with no rows in it.
            raise TraceError(f"{path}: the run stopped before its trace started (no rows were "
                             "recorded; the file is still marked open for writing)") from e
        raise TraceError(f"{path}: damaged or unreadable HDF5 file ({e})") from e


class Trace:
    """One trace file. Use ``load(path)``; close with ``close()`` or a ``with`` block."""

    def __init__(self, path):
        self.path = str(path)
        self._file = _open_hdf5(self.path)
        try:
            self._check_schema()
            self.attrs = self._read_attrs()
            self.components = self._read_components()
        except TraceError:
            self._file.close()
            raise
        except (OSError, KeyError, ValueError, RuntimeError) as e:
            self._file.close()
            raise TraceError(f"{self.path}: cannot read the trace: {e}") from e

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        self._file.close()

    def _check_schema(self):
        schema = self._file.attrs.get("schema")
        if schema is None or _text(schema) != SCHEMA:
            raise TraceError(f"{self.path}: not an nmsim trace (root attribute 'schema' is not "
                             f"'{SCHEMA}')")
        version = _text(self._file.attrs.get("schema_version", ""))
        if version != SCHEMA_VERSION:
            raise TraceError(f"{self.path}: unsupported schema_version '{version}' (this reader "
                             f"reads '{SCHEMA_VERSION}')")

    def _read_attrs(self):
        out = {}
        for key, value in self._file.attrs.items():
            if isinstance(value, (np.integer, int)):
                out[key] = int(value)
            elif isinstance(value, (np.floating, float)):
                out[key] = float(value)
            else:
                out[key] = _text(value)
        return out

    def _read_components(self):
        if "lut/components" not in self._file:
            return []
        return _texts(self._file["lut/components"][()])

    @property
    @_reading
    def run(self):
        """The run outcome: status ("ok", "error", "incomplete"), message, sim_time_ps,
        wall_seconds. A run killed before finishing has no outcome row: status "incomplete",
        times None."""
        ds = self._file.get("run")
        if ds is None or ds.shape[0] == 0:
            return {"status": INCOMPLETE, "message": _RUN_MISSING, "sim_time_ps": None,
                    "wall_seconds": None}
        row = ds[ds.shape[0] - 1]
        return {"status": _text(row["status"]), "message": _text(row["message"]),
                "sim_time_ps": int(row["sim_time_ps"]), "wall_seconds": float(row["wall_seconds"])}

    @property
    @_reading
    def config(self):
        """The resolved scenario (YAML text) the run used; "" if none was recorded."""
        if "config/resolved" not in self._file:
            return ""
        return _text(self._file["config/resolved"][()])

    @property
    @_reading
    def params(self):
        """Effective parameters: path, value, unit, type, origin, source, doc (all str)."""
        if "config/params" not in self._file:
            return pd.DataFrame(columns=_PARAM_COLUMNS)
        data = self._file["config/params"][()]
        return pd.DataFrame({c: _texts(data[c]) for c in _PARAM_COLUMNS})

    @_reading
    def event_kinds(self):
        """Names of the event tables ("mla_ops", "dma", ...), sorted."""
        group = self._file.get("events")
        if group is None:
            return []
        return sorted(k for k, v in group.items() if isinstance(v, h5py.Dataset))

    def _event_dataset(self, kind):
        name = kind[len("events/"):] if kind.startswith("events/") else kind.lstrip("/")
        group = self._file.get("events")
        if group is None or name not in group:
            known = ", ".join(self.event_kinds()) or "none"
            raise TraceError(f"{self.path}: no event table '{name}' (tables: {known})")
        return group[name]

    @_reading
    def has_table(self, path):
        """True if the file holds a table (dataset) at `path`, e.g. "dnn/entries"."""
        obj = self._file.get(path.lstrip("/"))
        return isinstance(obj, h5py.Dataset)

    @_reading
    def table(self, path):
        """Any table of the file by its path ("dnn/entries", "bss2/placement", "events/dma",
        "energy/breakdown") as a DataFrame, decoded like ``events()``. TraceError if missing."""
        name = path.lstrip("/")
        obj = self._file.get(name)
        if not isinstance(obj, h5py.Dataset):
            raise TraceError(f"{self.path}: no table '{name}'")
        return self._frame(obj[()])

    @_reading
    def rows(self, kind):
        """Number of rows of an event table, without reading it."""
        return int(self._event_dataset(kind).shape[0])

    @_reading
    def columns(self, kind):
        """The columns of an event table: name, dtype, unit, doc."""
        ds = self._event_dataset(kind)
        names = list(ds.dtype.names)
        units = _texts(ds.attrs.get("units", [""] * len(names)))
        docs = _texts(ds.attrs.get("docs", [""] * len(names)))
        return pd.DataFrame({"name": names, "dtype": [str(ds.dtype[n]) for n in names],
                             "unit": units, "doc": docs})

    @_reading
    def events(self, kind):
        """An event table as a DataFrame, strings decoded, plus `component_name` resolved
        through /lut/components when the table has a `component` column."""
        return self._frame(self._event_dataset(kind)[()])

    def _frame(self, data):
        """A compound numpy array as a DataFrame: strings decoded, `component_name` added."""
        df = pd.DataFrame(data)
        for name in data.dtype.names:
            if data.dtype[name].kind == "S":
                df[name] = np.array(_texts(data[name]), dtype=object)
        if "component" in df.columns:
            lut = list(self.components)
            ids = df["component"].to_numpy()
            if len(ids) and int(ids.max()) >= len(lut):
                lut += [f"<component {i}>" for i in range(len(lut), int(ids.max()) + 1)]
            df["component_name"] = np.asarray(lut, dtype=object)[ids]
        return df

    @_reading
    def summary(self):
        """Counters in long form: component, counter, unit, value (one row per counter)."""
        if "summary/counters" not in self._file or "lut/counters" not in self._file:
            return pd.DataFrame(columns=_SUMMARY_COLUMNS)
        rows = self._file["summary/counters"][()]
        lut = self._file["lut/counters"][()]
        names, units = _texts(lut["name"]), _texts(lut["unit"])
        comps = self.components

        def comp(i):
            return comps[i] if i < len(comps) else f"<component {i}>"

        return pd.DataFrame({
            "component": [comp(int(c)) for c in rows["component"]],
            "counter": [names[int(c)] for c in rows["counter"]],
            "unit": [units[int(c)] for c in rows["counter"]],
            "value": rows["value"].astype(np.float64),
        }, columns=_SUMMARY_COLUMNS)

    def summary_wide(self):
        """Counters as a component x counter table (NaN where a component lacks a counter)."""
        long = self.summary()
        if long.empty:
            return pd.DataFrame()
        return long.pivot(index="component", columns="counter", values="value")

    @_reading
    def last_event_ps(self):
        """The latest time stamp in any event table (None if there are no rows): how far a
        crashed run got."""
        last = None
        for kind in self.event_kinds():
            ds = self._file["events"][kind]
            if ds.shape[0] == 0:
                continue
            for col in ds.dtype.names:
                if col.endswith("_ps"):
                    m = int(ds.fields(col)[()].max())
                    last = m if last is None else max(last, m)
        return last


def load(path):
    """Opens an nmsim trace; raises TraceError (message starting with the path) if it cannot."""
    return Trace(path)
