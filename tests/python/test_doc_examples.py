"""Example outputs in the README and the docs cannot drift: every code block that follows a
marker

    <!-- example-output: nmsim run scenarios/x.yaml [args...] -->

is compared with a fresh run of that command (from the repository root; `nmsim` and
`nmsim-trace` are the built tools). Each non-empty line of the block must match a line of the
output, in order; `...` in a block line stands for any text (so volatile parts such as the wall
time are written as `...`), and a line that is only `...` stands for any number of lines.
"""

import os
import pathlib
import re
import shlex
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
FILES = ["README.md", "scenarios/README.md", "traces/README.md"] + sorted(
    str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md"))
MARKER = re.compile(r"<!--\s*example-output:\s*(.+?)\s*-->\s*\n```[a-z]*\n(.*?)\n```", re.S)


def examples():
    found = []
    for name in FILES:
        path = ROOT / name
        if not path.exists():
            continue
        text = path.read_text()
        for m in MARKER.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            found.append(pytest.param(m.group(1), m.group(2), id=f"{name}:{line}"))
    return found


EXAMPLES = examples()


def test_the_docs_have_checked_examples():
    # The README's MLP and BrainScaleS-2 reports at least; a renamed marker must not silently
    # turn this test into one that checks nothing.
    assert len(EXAMPLES) >= 3, [e.id for e in EXAMPLES]


def line_pattern(block_line):
    parts = [re.escape(p) for p in block_line.strip().split("...")]
    return re.compile(r".*?".join(parts))


def unmatched(block, output):
    """The first block line (and its number) that does not match the output in order, or None."""
    out = output.splitlines()
    i = 0
    for n, b in enumerate(block.splitlines(), 1):
        if not b.strip() or b.strip() == "...":
            continue
        pat = line_pattern(b)
        while i < len(out) and not pat.search(out[i]):
            i += 1
        if i == len(out):
            return n, b
        i += 1
    return None


def command(cmd, nmsim_binary, nmsim_trace_cli):
    argv = shlex.split(cmd)
    tools = {"nmsim": nmsim_binary, "nmsim-trace": nmsim_trace_cli}
    assert argv[0] in tools, f"example commands start with nmsim or nmsim-trace: {cmd}"
    return [tools[argv[0]]] + argv[1:]


@pytest.mark.parametrize("cmd,block", EXAMPLES)
def test_example_output_matches_a_fresh_run(cmd, block, nmsim_binary, nmsim_trace_cli, tmp_path):
    argv = command(cmd, nmsim_binary, nmsim_trace_cli)
    # Runs write their trace (and BSS-2 graph files) into the working directory: use a scratch
    # one, with the repository's relative paths made absolute.
    argv = [str(ROOT / a) if (ROOT / a).exists() and not os.path.isabs(a) else a for a in argv]
    p = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert p.returncode in (0, 1), p.stderr
    miss = unmatched(block, p.stdout)
    assert miss is None, (f"line {miss[0]} of the example does not match the output:\n"
                          f"  {miss[1]}\n--- output of {cmd} ---\n{p.stdout}")


def test_the_matcher_can_fail():
    assert unmatched("a ... c\nd", "a b c\nd") is None
    assert unmatched("a\n...\nz", "a\nb\nz") is None
    assert unmatched("x 1.0 us", "x 1.1 us") == (1, "x 1.0 us")
    assert unmatched("b\na", "a\nb") == (2, "a")  # order matters
