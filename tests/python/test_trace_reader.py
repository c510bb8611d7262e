"""nmsim_trace reader and `nmsim-trace summary` on traces written by the C++ writer (trace_demo,
real record schemas): values are checked against independent recomputation from the event rows
(pandas), crashed runs against the prefix of a finished run with the same seed."""

import io
import os
import signal
import subprocess
import time

import h5py
import numpy as np
import pandas as pd
import pytest

import nmsim_trace

MLA_ROWS = 10000
SEED = 3
MLA_PERIOD_PS = 6667  # trace_demo's MLA clock (150 MHz)
FLUSH_ROWS = 4096  # Hdf5Writer::kFlushRows
SWEEP_ROWS = 8 * FLUSH_ROWS  # Hdf5Writer::kSweepRows


def run_demo(demo, path, *args, expect_rc=0):
    p = subprocess.run([demo, str(path), *map(str, args)], capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == expect_rc, p.stderr
    return p


def run_cli(cli, *args):
    return subprocess.run([cli, *map(str, args)], capture_output=True, text=True, timeout=60)


@pytest.fixture(scope="session")
def good(trace_demo, tmp_path_factory):
    path = tmp_path_factory.mktemp("good") / "good.h5"
    run_demo(trace_demo, path, "--mla-rows", MLA_ROWS, "--seed", SEED)
    return path


@pytest.fixture(scope="session")
def good_trace(good):
    with nmsim_trace.load(good) as t:
        yield t


# 40000 MLA rows plus DMA, IRQ and console rows: past several chunk flushes and one sweep.
@pytest.fixture(scope="session")
def long_good(trace_demo, tmp_path_factory):
    path = tmp_path_factory.mktemp("long") / "long.h5"
    run_demo(trace_demo, path, "--mla-rows", 40000, "--seed", SEED)
    return path


@pytest.fixture(scope="session")
def crashed(trace_demo, tmp_path_factory):
    path = tmp_path_factory.mktemp("crashed") / "crashed.h5"
    run_demo(trace_demo, path, "--mla-rows", 40000, "--seed", SEED, "--kill-after", 30000,
             expect_rc=-signal.SIGKILL)
    return path


def time_columns(df):
    return [c for c in df.columns if c.endswith("_ps")]


# --- reader -------------------------------------------------------------------------------------

def test_root_attributes_config_and_params(good_trace):
    t = good_trace
    assert t.attrs["schema"] == "nmsim-trace"
    assert t.attrs["schema_version"] == "1"
    assert t.attrs["seed"] == SEED and isinstance(t.attrs["seed"], int)
    assert t.attrs["platform"] == "spinnaker2"
    assert t.attrs["scenario"] == "scenarios/demo.yaml"
    assert t.attrs["scenario_name"] == "demo"
    assert t.attrs["simulator_version"] == "trace_demo"
    assert t.attrs["time_unit"] == "ps"
    assert t.config == f"platform: spinnaker2\nseed: {SEED}\n"
    p = t.params
    assert list(p.columns) == ["path", "value", "unit", "type", "origin", "source", "doc"]
    assert p["path"].tolist() == ["s2.chip0.qpe0.pe0.mla.clock", "s2.chip0.qpe0.pe0.dma.burst"]
    assert p.loc[1, "origin"] == "scenarios/demo.yaml:3:5"
    assert p.loc[0, "value"] == "150MHz"


def test_components_lookup(good_trace):
    comps = good_trace.components
    expected = [f"s2.chip0.qpe0.pe{p}.{u}" for p in range(4) for u in ("mla", "dma", "core")]
    assert comps == expected + ["s2.host"]  # s2.host was added after start()


def test_event_kinds_and_columns(good_trace):
    t = good_trace
    assert t.event_kinds() == ["console", "dma", "irq", "mla_ops"]
    cols = t.columns("mla_ops").set_index("name")
    assert cols.loc["t_start_ps", "unit"] == "ps"
    assert cols.loc["cycles", "unit"] == "cycles"
    assert cols.loc["m", "dtype"] == "uint32"
    assert "START" in cols.loc["t_start_ps", "doc"]


def test_mla_events(good_trace):
    df = good_trace.events("mla_ops")
    assert len(df) == MLA_ROWS
    assert df["t_start_ps"].dtype == np.uint64 and df["component"].dtype == np.uint16
    m, k, n = (df[c].astype(np.int64) for c in "mkn")
    assert (df["macs"].astype(np.int64) == m * k * n).all()
    assert ((df["t_end_ps"] - df["t_start_ps"]) == df["cycles"] * MLA_PERIOD_PS).all()
    assert df["component_name"].str.fullmatch(r"s2\.chip0\.qpe0\.pe[0-3]\.mla").all()
    assert df["component_name"].nunique() == 4
    # each MAC array's operations do not overlap: starts are after the previous end
    for _, g in df.groupby("component"):
        assert (g["t_start_ps"].to_numpy()[1:] >= g["t_end_ps"].to_numpy()[:-1]).all()
    assert good_trace.events("events/mla_ops").equals(df)


def test_string_column_decoded(good_trace):
    con = good_trace.events("console")
    assert len(con) == MLA_ROWS // 1000
    assert con["text"].map(type).eq(str).all()
    assert con.loc[0, "text"].startswith("op 0: m=")
    assert con["text"].str.endswith("\u00b5s").all()  # UTF-8 survives the fixed-length column
    assert con["component_name"].str.endswith(".core").all()


def test_counters_equal_sums_of_events(good_trace):
    t = good_trace
    s = t.summary()
    assert list(s.columns) == ["component", "counter", "unit", "value"]
    by = s.set_index(["component", "counter"])
    mla = t.events("mla_ops")
    for name, g in mla.groupby("component_name"):
        assert by.loc[(name, "ops"), "value"] == len(g)
        assert by.loc[(name, "macs"), "value"] == g["macs"].sum()
        assert by.loc[(name, "busy_time"), "value"] == (g["t_end_ps"] - g["t_start_ps"]).sum()
        assert by.loc[(name, "busy_time"), "unit"] == "ps"
    dma = t.events("dma")
    for name, g in dma.groupby("component_name"):
        assert by.loc[(name, "transfers"), "value"] == len(g)
        assert by.loc[(name, "bytes"), "value"] == g["bytes"].sum()
        assert by.loc[(name, "bytes"), "unit"] == "B"
    con = t.events("console")
    lines = con.groupby("component_name").size()
    cores = s[s["counter"] == "console_lines"].set_index("component")["value"]
    assert (cores[cores > 0] == lines.reindex(cores[cores > 0].index)).all()
    assert cores.sum() == len(con)
    assert by.loc[("s2.host", "runs"), "value"] == 1


def test_summary_wide(good_trace):
    w = good_trace.summary_wide()
    assert set(w.index) == set(good_trace.components)
    assert set(w.columns) == {"ops", "macs", "busy_time", "transfers", "bytes", "console_lines",
                              "runs"}
    long = good_trace.summary().set_index(["component", "counter"])["value"]
    assert w.loc["s2.chip0.qpe0.pe2.mla", "macs"] == long[("s2.chip0.qpe0.pe2.mla", "macs")]
    assert np.isnan(w.loc["s2.chip0.qpe0.pe2.mla", "bytes"])


def test_run_outcome_ok(good_trace):
    run = good_trace.run
    assert run["status"] == "ok" and run["message"] == ""
    last = max(int(df[c].max()) for k in good_trace.event_kinds()
               for df in [good_trace.events(k)] for c in time_columns(df))
    assert run["sim_time_ps"] == last == good_trace.last_event_ps()
    assert run["wall_seconds"] >= 0


def test_unknown_event_kind(good_trace):
    with pytest.raises(nmsim_trace.TraceError, match="no event table 'spikes'.*mla_ops"):
        good_trace.events("spikes")


def test_events_disabled(trace_demo, tmp_path):
    path = tmp_path / "quiet.h5"
    run_demo(trace_demo, path, "--mla-rows", 5000, "--no-events")
    with nmsim_trace.load(path) as t:
        assert t.event_kinds() == ["console", "dma", "irq", "mla_ops"]  # schema kept
        for k in t.event_kinds():
            assert t.rows(k) == 0
            assert len(t.events(k)) == 0
            assert "component_name" in t.events(k).columns
        assert t.run["status"] == "ok"
        by = t.summary().set_index(["component", "counter"])["value"]
        assert by.groupby(level="counter").sum()["ops"] == 5000  # counters still written


def test_error_and_unfinished_runs(trace_demo, tmp_path):
    err = tmp_path / "err.h5"
    run_demo(trace_demo, err, "--mla-rows", 100, "--error", "s2.chip0.qpe0.pe1: bus error")
    with nmsim_trace.load(err) as t:
        assert t.run["status"] == "error"
        assert t.run["message"] == "s2.chip0.qpe0.pe1: bus error"
    unfinished = tmp_path / "unfinished.h5"
    run_demo(trace_demo, unfinished, "--mla-rows", 5000, "--no-finish")
    with nmsim_trace.load(unfinished) as t:
        assert t.run["status"] == "incomplete"
        assert "without finish" in t.run["message"]
        assert t.rows("mla_ops") == 5000  # the destructor flushed the buffered rows


def test_crashed_run_is_a_prefix_of_the_finished_run(crashed, long_good):
    with nmsim_trace.load(crashed) as t, nmsim_trace.load(long_good) as ref:
        assert t.run["status"] == "incomplete"
        assert t.run["sim_time_ps"] is None
        assert t.summary().empty and list(t.summary().columns) == ["component", "counter",
                                                                    "unit", "value"]
        assert t.summary_wide().empty
        n = t.rows("mla_ops")
        # whole chunks, plus the rows of the sweep after SWEEP_ROWS appends of all tables
        assert 7 * FLUSH_ROWS <= n < 30000
        for k in ref.event_kinds():
            got, want = t.events(k), ref.events(k)
            assert 0 < len(got) <= len(want)
            pd.testing.assert_frame_equal(got, want.iloc[:len(got)].reset_index(drop=True))
        # the sweep brought the rare console rows in
        assert t.rows("console") >= SWEEP_ROWS * 2 // 3 // 1000
        assert t.components == ref.components


def dataset_contents(path, skip=()):
    """Every dataset's values (plain Python objects), by path."""
    out = {}

    def visit(name, obj):
        if isinstance(obj, h5py.Dataset) and name not in skip:
            v = obj[()]
            out[name] = v.tolist() if isinstance(v, np.ndarray) else v

    with h5py.File(path, "r") as f:
        f.visititems(visit)
    return out


def test_same_seed_same_bytes(trace_demo, tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    # killed at the same row: nothing timed is in the file, so the bytes are equal
    for d in (a, b):
        run_demo(trace_demo, d / "t.h5", "--mla-rows", 9000, "--seed", 11, "--kill-after", 9000,
                 expect_rc=-signal.SIGKILL)
    assert (a / "t.h5").read_bytes() == (b / "t.h5").read_bytes()
    # finished: equal except the wall time in /run
    for d in (a, b):
        run_demo(trace_demo, d / "f.h5", "--mla-rows", 9000, "--seed", 11)
    ca, cb = dataset_contents(a / "f.h5", skip={"run"}), dataset_contents(b / "f.h5", skip={"run"})
    assert len(ca["events/mla_ops"]) == 9000 and ca == cb
    run_demo(trace_demo, a / "g.h5", "--mla-rows", 9000, "--seed", 12)
    other = dataset_contents(a / "g.h5", skip={"run"})
    assert other["events/mla_ops"] != ca["events/mla_ops"]


def test_random_kills_leave_consistent_prefixes(trace_demo, long_good, tmp_path):
    """kill -9 at arbitrary moments: every readable file holds a prefix of the finished run; a
    file killed before the trace started is reported as such (TraceError), never misread."""
    with nmsim_trace.load(long_good) as ref:
        want = {k: ref.events(k) for k in ref.event_kinds()}
    readable = 0
    for i, delay in enumerate([0.0, 0.01, 0.03, 0.06, 0.3]):
        path = tmp_path / f"k{i}.h5"
        p = subprocess.Popen([trace_demo, str(path), "--mla-rows", "40000", "--seed", str(SEED)],
                             stdout=subprocess.DEVNULL)
        time.sleep(delay)
        p.send_signal(signal.SIGKILL)
        p.wait()
        try:
            t = nmsim_trace.load(path)
        except nmsim_trace.TraceError as e:
            assert str(e).startswith(str(path))
            continue
        readable += 1
        with t:
            for k, w in want.items():
                got = t.events(k)
                pd.testing.assert_frame_equal(got, w.iloc[:len(got)].reset_index(drop=True))
    assert readable >= 1  # at least the late kill (or a finished run) was read and compared


# --- errors ---------------------------------------------------------------------------------------

def test_load_errors_name_the_file(tmp_path):
    missing = tmp_path / "missing.h5"
    with pytest.raises(nmsim_trace.TraceError, match=f"^{missing}: no such file"):
        nmsim_trace.load(missing)
    text = tmp_path / "text.h5"
    text.write_text("not hdf5\n")
    with pytest.raises(nmsim_trace.TraceError, match="not an HDF5 file"):
        nmsim_trace.load(text)
    other = tmp_path / "other.h5"
    with h5py.File(other, "w") as f:
        f["x"] = np.arange(3)
    with pytest.raises(nmsim_trace.TraceError, match="not an nmsim trace"):
        nmsim_trace.load(other)
    newer = tmp_path / "newer.h5"
    with h5py.File(newer, "w") as f:
        f.attrs["schema"] = "nmsim-trace"
        f.attrs["schema_version"] = "2"
    with pytest.raises(nmsim_trace.TraceError, match="unsupported schema_version '2'"):
        nmsim_trace.load(newer)


# --- CLI ----------------------------------------------------------------------------------------

def assert_clean_error(p, path):
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert p.stdout == ""
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1, p.stderr
    assert str(path) in lines[0]
    assert lines[0].startswith("nmsim-trace: error: ")
    assert "Traceback" not in p.stderr


def test_cli_summary(nmsim_trace_cli, good, good_trace):
    p = run_cli(nmsim_trace_cli, "summary", good)
    assert p.returncode == 0, p.stderr
    assert p.stderr == ""
    out = p.stdout
    lines = out.splitlines()
    field = {ln.split()[0]: ln.split(None, 1)[1] for ln in lines[:8] if len(ln.split()) > 1}
    assert field["scenario"] == "demo (scenarios/demo.yaml)"
    assert field["platform"] == "spinnaker2"
    assert field["seed"] == str(SEED)
    assert field["simulator"] == "trace_demo"
    assert field["status"] == "ok"
    sim_us = good_trace.run["sim_time_ps"] / 1e6
    assert f"sim time   {sim_us:.6f} us" in out
    assert "wall time" in out
    # counters: one line per counter, the component named on its first line only; values in
    # readable units (the unit column says which), 3 decimals, aligned on the decimal point
    start = lines.index("counters") + 2  # after the title and the column header
    end = lines.index("", start)
    parsed, component, points = [], None, set()
    for ln in lines[start:end]:
        cells = ln.split()
        if len(cells) == 4:
            component = cells.pop(0)
        parsed.append((component, cells[0], cells[1], cells[2]))
        value_at = ln.index(cells[1], ln.index(cells[0]) + len(cells[0]))
        # where the decimal point is, or would be after an integer
        points.add(value_at + (cells[1].index(".") if "." in cells[1] else len(cells[1])))
    assert len(points) == 1, "values not aligned on the decimal point"
    s = good_trace.summary()
    assert [(c, n) for c, n, _, _ in parsed] == list(zip(s.component, s.counter))
    for (_, name, text, unit), value, recorded in zip(parsed, s.value, s.unit):
        if "." in text:
            assert len(text.split(".")[1]) == 3, text
        assert to_unit(float(text), unit, recorded) == pytest.approx(value, rel=5e-4, abs=1e-9), \
            (name, text, unit, value, recorded)
        if recorded in ("1", "cycles"):
            assert unit == recorded
    for k in good_trace.event_kinds():
        row = [ln.split() for ln in lines if ln.strip().startswith(f"events/{k} ")]
        assert row == [[f"events/{k}", str(good_trace.rows(k))]]


_PREFIX = {"p": 1e-12, "n": 1e-9, "u": 1e-6, "m": 1e-3, "": 1.0, "k": 1e3, "M": 1e6, "G": 1e9,
           "Ki": 1024.0, "Mi": 1024.0 ** 2, "Gi": 1024.0 ** 3}


def to_unit(value, unit, target):
    """value in `unit` converted to `target` (same base unit, e.g. us -> ps, MiB -> B)."""
    if unit == target:
        return value
    for base in ("Hz", "B", "J", "W", "s"):
        if unit.endswith(base) and target.endswith(base):
            return value * _PREFIX[unit[: -len(base)]] / _PREFIX[target[: -len(base)]]
    raise AssertionError(f"cannot convert {unit} to {target}")


def test_cli_summary_filters_and_units(capsys, good, good_trace):
    s = good_trace.summary()
    p = cli_in_process(capsys, "summary", good, "--component", "*.pe1.*", "--counter", "busy*",
                       "--counter", "bytes")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith("counters (filtered")) + 2
    rows = []
    for ln in lines[start:lines.index("", start)]:
        cells = ln.split()
        rows.append(cells[-3:])
    want = s[s["component"].str.match(r".*\.pe1\..*") &
             (s["counter"].str.startswith("busy") | (s["counter"] == "bytes"))]
    assert len(want) > 0 and len(rows) == len(want)
    for (name, text, unit), r in zip(rows, want.itertuples(index=False)):
        assert name == r.counter
        assert to_unit(float(text), unit, r.unit) == pytest.approx(r.value, rel=5e-4)
    # A time in ps reads in a prefixed unit (not 46712935530 ps).
    assert all(u != "ps" for n, _, u in rows if n.startswith("busy") and float(_) > 0)
    p = cli_in_process(capsys, "summary", good, "--counter", "no_such_*")
    assert "counters: none match the filters" in p.stdout
    p = cli_in_process(capsys, "summary", good, "--component", "*.pe0.mla", "--csv")
    got = pd.read_csv(io.StringIO(p.stdout), keep_default_na=False)
    np.testing.assert_array_equal(got["value"], s[s["component"].str.endswith(".pe0.mla")]["value"])
    assert set(got["component"]) == {"s2.chip0.qpe0.pe0.mla"}


def test_cli_summary_csv(capsys, nmsim_trace_cli, good, good_trace, tmp_path):
    p = run_cli(nmsim_trace_cli, "summary", good, "--csv")
    assert p.returncode == 0, p.stderr
    got = pd.read_csv(io.StringIO(p.stdout), keep_default_na=False)
    want = good_trace.summary()
    assert list(got.columns) == ["component", "counter", "unit", "value"]
    assert got[["component", "counter", "unit"]].equals(want[["component", "counter", "unit"]])
    assert np.array_equal(got["value"].to_numpy(float), want["value"].to_numpy())
    out = tmp_path / "c.csv"
    p = cli_in_process(capsys, "summary", good, "--csv", out)
    assert p.returncode == 0 and p.stdout == ""
    assert pd.read_csv(out, keep_default_na=False).equals(got)


def test_cli_summary_crashed(nmsim_trace_cli, crashed):
    p = run_cli(nmsim_trace_cli, "summary", crashed)
    assert p.returncode == 0, p.stderr
    assert "status     incomplete" in p.stdout
    assert "last event at" in p.stdout
    assert "counters: none recorded" in p.stdout


def test_cli_errors(nmsim_trace_cli, tmp_path):
    missing = tmp_path / "missing.h5"
    assert_clean_error(run_cli(nmsim_trace_cli, "summary", missing), missing)
    text = tmp_path / "text.h5"
    text.write_text("hello\n")
    p = run_cli(nmsim_trace_cli, "summary", text)
    assert_clean_error(p, text)
    assert "not an HDF5 file" in p.stderr


class InProcess:
    """cli.main() run in this process (saves the interpreter start-up of a subprocess)."""

    def __init__(self, returncode, out):
        self.returncode, self.stdout, self.stderr = returncode, out.out, out.err


def cli_in_process(capsys, *args):
    from nmsim_trace import cli
    try:
        rc = cli.main([str(a) for a in args])
    except SystemExit as e:  # argparse usage errors
        rc = e.code
    return InProcess(rc, capsys.readouterr())


def test_cli_more_errors(capsys, good, tmp_path):
    empty = tmp_path / "empty.h5"
    empty.write_bytes(b"")
    assert_clean_error(cli_in_process(capsys, "summary", empty), empty)
    other = tmp_path / "other.h5"
    with h5py.File(other, "w") as f:
        f["x"] = np.arange(3)
    p = cli_in_process(capsys, "summary", other)
    assert_clean_error(p, other)
    assert "not an nmsim trace" in p.stderr
    truncated = tmp_path / "truncated.h5"
    data = good.read_bytes()
    truncated.write_bytes(data[: len(data) // 2])
    assert_clean_error(cli_in_process(capsys, "summary", truncated), truncated)
    assert_clean_error(cli_in_process(capsys, "summary", tmp_path), tmp_path)
    p = cli_in_process(capsys)
    assert p.returncode == 2 and "usage: nmsim-trace" in p.stderr
    p = cli_in_process(capsys, "summary", good, "--bogus")
    assert p.returncode == 2 and "unrecognized arguments: --bogus" in p.stderr


def test_cli_runs_through_a_symlink(nmsim_trace_cli, good, tmp_path):
    link = tmp_path / "nmsim-trace"
    os.symlink(os.path.realpath(nmsim_trace_cli), link)
    p = run_cli(str(link), "summary", good)
    assert p.returncode == 0 and "status     ok" in p.stdout


def test_counter_value_formatting():
    from nmsim_trace.commands.summary import format_value
    assert [format_value(v) for v in [3.0, -4.0, 1306666.6667, 1.2493, 2e-9, 0.5, 1e20]] == \
        ["3", "-4", "1306666.667", "1.249", "2e-09", "0.5", "1e+20"]
