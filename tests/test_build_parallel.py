"""`cardc build --jobs N`: backends run in processes of their own, and the output is the serial build's.

Fake backends (in place of `cardc.backends.BACKENDS`) show the scheduling: a backend that reads another's files
waits for it and sees them, each backend's files are recorded as its own, notes and diagnostics come in the
order of the list, and a crash in a child process leaves the previous output untouched.
"""

from __future__ import annotations

import io
import json
import sys
import tempfile
import time
from pathlib import Path

import pytest
from cardc import backends, crash
from cardc import build as build_module
from cardc.backends import BuildOptions
from cardc.build import MARKER, BackendCrashed, build
from cardc.diagnostics import Diagnostic, Severity, Span
from cardc.frontend import FrontEndResult
from cardc.model import Project

from tests.test_build import leftovers, tree_hashes


def _slow_source(project: Project, out: Path, options: BuildOptions) -> list[Diagnostic]:
    time.sleep(0.3)  # the reader must wait for this, not race it
    (out / "source").mkdir()
    (out / "source" / "data.txt").write_text("written by source\n")
    options.notes.append("source: one file")
    return [Diagnostic(Severity.WARNING, "W999", "from source", Span("<test>", 1, 1))]


def _reader(project: Project, out: Path, options: BuildOptions) -> list[Diagnostic]:
    (out / "reader").mkdir()
    seen = (out / "source" / "data.txt").read_text()
    others = sorted(p.name for p in out.iterdir() if p.name != "reader" and not p.name.startswith("."))
    (out / "reader" / "copy.txt").write_text(seen + json.dumps(others) + "\n")
    options.notes.append("reader: one file")
    return [Diagnostic(Severity.WARNING, "W998", "from reader", Span("<test>", 1, 1))]


def _alone(project: Project, out: Path, options: BuildOptions) -> list[Diagnostic]:
    (out / "alone" / "deep").mkdir(parents=True)
    (out / "alone" / "deep" / "x.txt").write_text("independent\n")
    options.notes.append("alone: one file")
    return []


def _crash(project: Project, out: Path, options: BuildOptions) -> list[Diagnostic]:
    (out / "crash").mkdir()
    (out / "crash" / "half.txt").write_text("half")
    raise ValueError("broken backend")


@pytest.fixture()
def fakes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(backends, "BACKENDS", [("source", _slow_source), ("reader", _reader), ("alone", _alone)])
    monkeypatch.setattr(build_module, "READS", {"reader": ("source",)})


def _marker(out: Path) -> dict[str, list[str]]:
    files: dict[str, list[str]] = json.loads((out / MARKER).read_text())["files"]
    return files


@pytest.mark.usefixtures("fakes")
def test_parallel_output_equals_serial(tmp_path: Path, bundled: FrontEndResult) -> None:
    outputs = {}
    for jobs in (1, 2, 3):
        out = tmp_path / f"jobs{jobs}"
        options = BuildOptions(jobs=jobs)
        diags = build(bundled.project, out, options)
        assert [d.code for d in diags] == ["W999", "W998"]  # in the order of the list, whichever ended first
        assert options.notes == ["source: one file", "reader: one file", "alone: one file"]
        outputs[jobs] = (tree_hashes(out), _marker(out))
        assert leftovers(out) == []
    assert outputs[1] == outputs[2] == outputs[3]
    out = tmp_path / "jobs2"
    # the reader waited for the source, saw its files and only those of what it reads
    assert (out / "reader" / "copy.txt").read_text() == 'written by source\n["source"]\n'
    assert _marker(out) == {"source": ["source/data.txt"], "reader": ["reader/copy.txt"],
                            "alone": ["alone/deep/x.txt"]}


@pytest.mark.usefixtures("fakes")
def test_parallel_only_reader_sees_the_kept_source(tmp_path: Path, bundled: FrontEndResult) -> None:
    """`--only reader`: the source's files of the previous build are kept, and the reader reads them."""
    out = tmp_path / "out"
    build(bundled.project, out, BuildOptions(jobs=2, only=frozenset({"source", "alone"})))
    build(bundled.project, out, BuildOptions(jobs=2, only=frozenset({"reader"})))
    assert (out / "reader" / "copy.txt").read_text() == 'written by source\n["source"]\n'
    assert (out / "alone" / "deep" / "x.txt").is_file()
    assert _marker(out) == {"source": ["source/data.txt"], "reader": ["reader/copy.txt"],
                            "alone": ["alone/deep/x.txt"]}


def test_crash_in_a_child_changes_nothing(tmp_path: Path, bundled: FrontEndResult,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "out"
    monkeypatch.setattr(backends, "BACKENDS", [("alone", _alone)])
    build(bundled.project, out, BuildOptions(jobs=2))
    before = tree_hashes(out)
    monkeypatch.setattr(backends, "BACKENDS", [("alone", _alone), ("crash", _crash)])
    with pytest.raises(BackendCrashed, match="backend crash: ValueError: broken backend") as raised:
        build(bundled.project, out, BuildOptions(jobs=2))
    assert tree_hashes(out) == before
    assert leftovers(out) == []
    # the user's line is one line without the child's traceback; the report file carries the traceback
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    assert crash.handle(raised.value, ["build"]) == crash.INTERNAL_ERROR
    line = err.getvalue()
    assert line.count("\n") == 1 and "Traceback" not in line and "ValueError: broken backend" in line
    report = next(tmp_path.glob("cardc-internal-error-*.txt")).read_text(encoding="utf-8")
    assert "in the child process:" in report and "_crash" in report


def test_real_backends_in_parallel_match_serial(tmp_path: Path, bundled: FrontEndResult) -> None:
    """The IR, the rule modules and the reference (which reads the print and balance outputs when they are
    built) give the same files whether built one after another or at once."""
    only = frozenset({"ir", "python", "reference"})
    a, b = tmp_path / "serial", tmp_path / "parallel"
    build(bundled.project, a, BuildOptions(only=only, jobs=1))
    build(bundled.project, b, BuildOptions(only=only, jobs=2))
    ha, hb = tree_hashes(a), tree_hashes(b)
    assert ha and ha == hb
    assert _marker(a) == _marker(b)
