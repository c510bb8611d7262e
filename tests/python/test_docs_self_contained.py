"""The repository's docs, comments and parameter sources stand on their own (issue 11, item 6).

1. No file of the user-facing trees (docs/ models/ platforms/ tools/ traces/ firmware/ python/
   scenarios/ workloads/ and README.md) cites a file outside the repository: the shared
   reference notes (public-hardware-facts.md, hardware.md, iss-notes.md, ecosystem-notes.md), the
   seed copies, any "../shared" path, or a style guide that the repository does not hold. Those
   facts live in docs/hardware_facts.md, docs/references.md, docs/calibration.md and docs/iss.md.
2. Every "seed 00N" cited anywhere in those trees is listed in docs/references.md.
3. Every section a citation names in docs/hardware_facts.md ("hardware_facts.md B4",
   "[facts S-B.4]", "facts A4") exists there.

A failure names file:line and the offending text. Files are the tracked ones plus new files not
yet added (git ls-files --cached --others --exclude-standard); without git, a directory walk.
"""

import pathlib
import re
import subprocess

import pytest

SOURCE_DIR = pathlib.Path(__file__).resolve().parents[2]
TREES = ["docs", "models", "platforms", "tools", "traces", "firmware", "python", "scenarios",
         "workloads", "README.md"]  # a tree that does not exist (yet) is simply empty
SKIP_DIRS = {".git", "__pycache__", "results"}
MAX_BYTES = 2_000_000  # larger files are data (models, images), not text

# Citations of files outside the repository, with what replaces them.
OUTSIDE = [
    (re.compile(r"\.\./shared(?![\w-])"), "a path into ../shared (outside the repository)"),
    (re.compile(r"shared/seeds"), "the seed copies: cite 'seed 00N <section>' (references.md)"),
    (re.compile(r"public-hardware-facts"), "use docs/hardware_facts.md with the same label"),
    (re.compile(r"reference/hardware\.md"), "use docs/hardware_facts.md part S (S-A.1 .. S-U)"),
    (re.compile(r"iss-notes"), "use docs/iss.md ('Unicorn facts the design rests on')"),
    (re.compile(r"ecosystem-notes"), "use docs/references.md or the doc of the tool"),
]
STYLE_GUIDE = re.compile(r"\bSTYLE\.md\b")

SEED_ONE = re.compile(r"\bseed\s+(00\d)\b", re.IGNORECASE)
SEED_LIST = re.compile(r"\bseeds\s+(00\d(?:\s*(?:,|and|or|/)\s*00\d)+)", re.IGNORECASE)
FACTS_LABEL = re.compile(r"(?:hardware_facts\.md|\bfacts)\s+(?:part\s+|section\s+)?"
                         r"(S-[AB]\.\d|S-U|[A-G]\d*)(?![\w-]|\.\d)")


def _files():
    try:
        out = subprocess.run(
            ["git", "-C", str(SOURCE_DIR), "ls-files", "-z", "--cached", "--others",
             "--exclude-standard", "--", *TREES],
            check=True, capture_output=True).stdout
        names = sorted({n for n in out.decode("utf-8").split("\0") if n})
        return [SOURCE_DIR / n for n in names if (SOURCE_DIR / n).is_file()]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for tree in TREES:
            root = SOURCE_DIR / tree
            if root.is_file():
                files.append(root)
                continue
            for p in root.rglob("*"):
                if p.is_file() and not SKIP_DIRS.intersection(p.relative_to(SOURCE_DIR).parts):
                    files.append(p)
        return sorted(files)


def _text_lines(path):
    """The file's lines, or None for binary and data files."""
    try:
        if path.stat().st_size > MAX_BYTES:
            return None
        data = path.read_bytes()
    except OSError:
        return None
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8").splitlines()
    except UnicodeDecodeError:
        return None


def _scan():
    """(path relative to the source dir, line number, line) of every text line in the trees."""
    for path in _files():
        lines = _text_lines(path)
        if lines is None:
            continue
        rel = path.relative_to(SOURCE_DIR).as_posix()
        for i, line in enumerate(lines, 1):
            yield rel, i, line


def _style_guide_in_repo():
    try:
        out = subprocess.run(["git", "-C", str(SOURCE_DIR), "ls-files", "--", "*STYLE.md"],
                             check=True, capture_output=True, text=True).stdout
        return bool(out.strip())
    except (OSError, subprocess.CalledProcessError):
        return any(SOURCE_DIR.rglob("STYLE.md"))


def _fail_if(problems, what):
    if problems:
        lines = [f"{len(problems)} {what}:"] + [f"  {p}" for p in problems]
        pytest.fail("\n".join(lines), pytrace=False)


def test_the_trees_exist():
    files = _files()
    assert files, "no files found under " + ", ".join(TREES)
    assert (SOURCE_DIR / "docs" / "references.md").is_file(), "docs/references.md is missing"
    assert (SOURCE_DIR / "docs" / "hardware_facts.md").is_file(), \
        "docs/hardware_facts.md is missing"


def test_no_citation_points_outside_the_repository():
    check_style = not _style_guide_in_repo()
    problems = []
    for rel, i, line in _scan():
        fixes = [fix for pattern, fix in OUTSIDE if pattern.search(line)]
        if check_style and STYLE_GUIDE.search(line):
            fixes.append("STYLE.md is not in the repository: state the rule, or add the guide")
        if fixes:
            problems.append(f"{rel}:{i}: {line.strip()[:140]}  [{'; '.join(fixes)}]")
    _fail_if(problems, "citations of files outside the repository")


def test_every_cited_seed_is_in_the_bibliography():
    refs = (SOURCE_DIR / "docs" / "references.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"\*\*seed (00\d)\*\*", refs))
    assert listed, "docs/references.md lists no seed as '**seed 00N**'"
    problems = []
    for rel, i, line in _scan():
        cited = set(SEED_ONE.findall(line))
        for group in SEED_LIST.findall(line):
            cited.update(re.findall(r"00\d", group))
        for seed in sorted(cited - listed):
            problems.append(f"{rel}:{i}: seed {seed} is not in docs/references.md: "
                            f"{line.strip()[:120]}")
    _fail_if(problems, "seed citations without a bibliography entry")


def _facts_labels():
    """Section labels of docs/hardware_facts.md and the letters whose items are cited by number
    (a part without numbered subsections, e.g. D, whose list items are D1, D2, ...)."""
    text = (SOURCE_DIR / "docs" / "hardware_facts.md").read_text(encoding="utf-8")
    labels = set(re.findall(r"^#{2,4}\s+(S-[AB]\.\d|S-U|[A-G]\d*)\.?\s", text, re.MULTILINE))
    item_parts = {l for l in labels if len(l) == 1 and not any(
        m.startswith(l) and len(m) > 1 for m in labels)}
    return labels, item_parts


def test_hardware_facts_citations_name_existing_sections():
    labels, item_parts = _facts_labels()
    for expected in ("A1", "A6", "B1", "B5", "C", "D", "E", "F", "G", "S-B.4", "S-U"):
        assert expected in labels, f"docs/hardware_facts.md has no section {expected}"
    problems = []
    for rel, i, line in _scan():
        for label in FACTS_LABEL.findall(line):
            if label in labels or (label[0] in item_parts and label[1:].isdigit()):
                continue
            problems.append(f"{rel}:{i}: no section {label} in docs/hardware_facts.md: "
                            f"{line.strip()[:120]}")
    _fail_if(problems, "citations of missing hardware_facts.md sections")
