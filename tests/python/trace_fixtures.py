"""Helpers shared by the trace-analysis tests: run nmsim for a small trace (keeping its report),
read HDF5 tables with h5py (independently of nmsim_trace), and write the tables of the issue-11
trace schema (dnn/layers, dnn/inferences, dnn/outputs, bss2/populations, bss2/runs, bss2/rates)
into a copy of a real trace, as the C++ writer lays them out: 1-D compound datasets, strings as
fixed-length NUL-padded UTF-8, attributes doc, docs, units and time_unit.
"""

import pathlib
import re
import shutil
import subprocess

import h5py
import numpy as np
import pandas as pd

SOURCE_DIR = pathlib.Path(__file__).resolve().parents[2]
SCENARIOS = SOURCE_DIR / "scenarios"

NEW_DNN_TABLES = ("dnn/layers", "dnn/inferences", "dnn/outputs")
NEW_BSS2_TABLES = ("bss2/populations", "bss2/runs", "bss2/rates")


def run_nmsim(binary, workdir, scenario, out, *sets, expect_ok=True):
    """Runs `nmsim run` on a shipped scenario; returns (trace path, report text)."""
    cmd = [binary, "run", str(SCENARIOS / scenario), "-o", str(out),
           "--set", "trace.console_stdout=false"]
    for s in sets:
        cmd += ["--set", s]
    p = subprocess.run(cmd, cwd=workdir, capture_output=True, text=True, timeout=120)
    if expect_ok:
        assert p.returncode == 0, f"{' '.join(cmd)} exited {p.returncode}\n{p.stdout}\n{p.stderr}"
    else:  # a failing run still leaves its trace
        assert pathlib.Path(out).exists(), \
            f"{' '.join(cmd)} exited {p.returncode} without a trace\n{p.stdout}\n{p.stderr}"
    return pathlib.Path(out), p.stdout


def table(path, name):
    """A table as a DataFrame straight from h5py (bytes left undecoded)."""
    with h5py.File(path, "r", swmr=True) as f:
        return pd.DataFrame(f[name][()])


def components(path):
    with h5py.File(path, "r", swmr=True) as f:
        return [c.decode() for c in f["lut/components"][()]]


def counters(path):
    """{(component, counter): (value, unit)} from /summary/counters with h5py."""
    with h5py.File(path, "r", swmr=True) as f:
        comp = [c.decode() for c in f["lut/components"][()]]
        lut = f["lut/counters"][()]
        names = [n.decode() for n in lut["name"]]
        units = [u.decode() for u in lut["unit"]]
        rows = f["summary/counters"][()]
    return {(comp[int(r["component"])], names[int(r["counter"])]):
            (float(r["value"]), units[int(r["counter"])]) for r in rows}


def params(path):
    """{path: (value, unit)} of /config/params with h5py."""
    with h5py.File(path, "r", swmr=True) as f:
        p = f["config/params"][()]

    def s(v):
        return v.decode() if isinstance(v, bytes) else str(v)

    return {s(r["path"]): (s(r["value"]), s(r["unit"])) for r in p}


_ROW = re.compile(r"^    (\S+)\s+(.*?)\s*([\d.]+) us\s+\((\d+) workers?")
_TOTAL = re.compile(r"^    Total\s+([\d.]+) us")


def report_layers(report):
    """The runtime rows of a DNN run's report: [(name, kind, mean_us, workers)] in list order
    (Setup and Cleanup as "setup"/"cleanup"), and the Total (us)."""
    rows, total = [], None
    for line in report.splitlines():
        m = _TOTAL.match(line)
        if m:
            total = float(m.group(1))
            continue
        m = _ROW.match(line)
        if m and (m.group(1).startswith("/") or m.group(1) in ("Setup", "Cleanup")):
            name = m.group(1).lower() if m.group(1) in ("Setup", "Cleanup") else m.group(1)
            rows.append((name, m.group(2), float(m.group(3)), int(m.group(4))))
    return rows, total


def write_table(f, path, columns, doc):
    """A compound table as the C++ writer lays it out. columns: [(name, numpy dtype or "S<n>",
    values, unit, doc)]."""
    if path in f:
        del f[path]
    dtype = np.dtype([(c[0], c[1]) for c in columns])
    n = len(columns[0][2])
    data = np.zeros(n, dtype=dtype)
    for name, dt, values, _, _ in columns:
        if str(dt).startswith("S"):
            data[name] = [str(v).encode() for v in values]
        else:
            data[name] = values
    ds = f.create_dataset(path, data=data, maxshape=(None,), chunks=True)
    ds.attrs["doc"] = doc
    ds.attrs["time_unit"] = "ps"
    ds.attrs["units"] = [c[3] for c in columns]
    ds.attrs["docs"] = [c[4] for c in columns]
    return ds


def strip_tables(path, names):
    """Deletes tables from a trace (a trace as written before they existed)."""
    with h5py.File(path, "a") as f:
        for name in names:
            if name in f:
                del f[name]


def copy_trace(src, dst, strip=()):
    shutil.copy(src, dst)
    strip_tables(dst, strip)
    return pathlib.Path(dst)


def add_dnn_tables(path, layers, inferences, outputs):
    """Writes dnn/layers, dnn/inferences and dnn/outputs (dicts of column -> values)."""
    with h5py.File(path, "a") as f:
        write_table(f, "dnn/layers", [
            ("entry", "<u4", layers["entry"], "1", "0 setup, 1..L layers, L+1 cleanup"),
            ("name", "S64", layers["name"], "", "ONNX node name, setup, cleanup"),
            ("kind", "S96", layers["kind"], "", "operation and shapes"),
            ("workers", "<u4", layers["workers"], "1", "worker PEs")],
            "the scheduler's list of entries")
        write_table(f, "dnn/inferences", [
            ("inference", "<u4", inferences["inference"], "1", "inference"),
            ("input", "<u4", inferences["input"], "1", "index into the inputs file"),
            ("label", "<i2", inferences["label"], "1", "-1: none"),
            ("predicted", "<i2", inferences["predicted"], "1", "argmax of the chip's output"),
            ("reference_predicted", "<i2", inferences["reference_predicted"], "1", ""),
            ("float_predicted", "<i2", inferences["float_predicted"], "1", "-1: none"),
            ("check", "u1", inferences["check"], "1", "1 bit-exact, 0 mismatch, 2 not checked"),
            ("mismatches", "<u4", inferences["mismatches"], "1", ""),
            ("onnx_mismatches", "<u4", inferences["onnx_mismatches"], "1", ""),
            ("onnx_max_lsb", "<u4", inferences["onnx_max_lsb"], "1", ""),
            ("total_ps", "<u8", inferences["total_ps"], "ps", "setup start .. cleanup end"),
            ("host_ps", "<u8", inferences["host_ps"], "ps", "RUN sent .. results back")],
            "one row per completed inference")
        write_table(f, "dnn/outputs", [
            ("inference", "<u4", outputs["inference"], "1", ""),
            ("element", "<u4", outputs["element"], "1", ""),
            ("chip", "i1", outputs["chip"], "1", "read back from the chip"),
            ("reference", "i1", outputs["reference"], "1", "bit-exact integer reference"),
            ("onnx", "i1", outputs["onnx"], "1", "ONNX round-half-to-even")],
            "one row per inference and output element")


def add_bss2_tables(path, populations, runs, rates):
    with h5py.File(path, "a") as f:
        write_table(f, "bss2/populations", [
            ("population", "<u2", populations["population"], "1", "index in the network"),
            ("name", "S64", populations["name"], "", ""),
            ("kind", "S16", populations["kind"], "", "external/internal/background"),
            ("size", "<u4", populations["size"], "1", "")],
            "the network's populations")
        write_table(f, "bss2/runs", [
            ("run", "<u4", runs["run"], "1", ""),
            ("input_rate_hz", "<f8", runs["input_rate_hz"], "Hz", "NaN: no single rate"),
            ("runtime_us", "<f8", runs["runtime_us"], "us", "")],
            "the realtime runs")
        write_table(f, "bss2/rates", [
            ("run", "<u4", rates["run"], "1", ""),
            ("population", "<u2", rates["population"], "1", ""),
            ("rate_hz", "<f8", rates["rate_hz"], "Hz", "mean per neuron"),
            ("spikes", "<u8", rates["spikes"], "1", "")],
            "rate per run and population, as the report prints it")
