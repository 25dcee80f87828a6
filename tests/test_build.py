"""`cardc build`: deterministic output, and a failed or interrupted build changes nothing.

A backend is made to fail midway by replacing `cardc.backends.BACKENDS` with a list holding the
real IR backend followed by one that writes half a file and then raises.
"""

from __future__ import annotations

import hashlib
import io
import os
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from cardc import backends, cli
from cardc import build as build_module
from cardc.backends import BuildOptions
from cardc.build import BuildFailed, build
from cardc.buildcache import CACHE_DIR
from cardc.diagnostics import Diagnostic, Severity, Span
from cardc.frontend import FrontEndResult
from cardc.model import Project

ROOT = Path(__file__).resolve().parent.parent
IR_ONLY = BuildOptions(only=frozenset({"ir"}))


def tree_hashes(folder: Path) -> dict[str, str]:
    """Every file below `folder` (relative path -> sha256), and every folder (-> "dir"). The build's cache is
    not an output (its index records file times); tests/test_build_cache.py checks it."""
    out: dict[str, str] = {}
    for p in sorted(folder.rglob("*")):
        rel = p.relative_to(folder).as_posix()
        if rel.split("/")[0] == CACHE_DIR:
            continue
        out[rel] = "dir" if p.is_dir() else hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def leftovers(out: Path) -> list[str]:
    """Temporary build or swap folders left next to the output folder."""
    return sorted(p.name for p in out.parent.iterdir() if p.name.startswith(f".{out.name}."))


def _ir_backend() -> tuple[str, backends.Writer]:
    return next(b for b in backends.BACKENDS if b[0] == "ir")


def _half_then(exc: BaseException) -> backends.Writer:
    def write(project: Project, out: Path, options: BuildOptions) -> list[Diagnostic]:
        (out / "ir").mkdir(parents=True, exist_ok=True)
        (out / "ir" / "half-written.json").write_text('{"entities": [')
        for existing in (out / "ir").glob("*.json"):
            existing.write_text("clobbered")  # overwrite what the IR backend wrote in this build
        raise exc
    return write


@pytest.fixture()
def previous(tmp_path: Path, bundled: FrontEndResult) -> tuple[Path, dict[str, str]]:
    """A successful earlier build and the hash of every file in it."""
    out = tmp_path / "generated"
    build(bundled.project, out, IR_ONLY)
    (out / "keep.txt").write_text("a file the next build does not write\n")
    before = tree_hashes(out)
    assert any(k.startswith("ir/") and k.endswith(".json") for k in before)
    return out, before


def test_two_builds_are_byte_identical(tmp_path: Path, bundled: FrontEndResult) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    build(bundled.project, a, IR_ONLY)
    build(bundled.project, b, IR_ONLY)
    ha, hb = tree_hashes(a), tree_hashes(b)
    assert ha and ha == hb


def test_cli_builds_are_byte_identical(tmp_path: Path) -> None:
    """Through the command line, from a fresh front-end run each time."""
    hashes = []
    for name in ("one", "two"):
        out = tmp_path / name
        code = _cli(["build", "content", "--only", "ir", "--out", str(out)])
        assert code == 0
        hashes.append(tree_hashes(out))
    assert hashes[0] and hashes[0] == hashes[1]


def test_rebuild_replaces_its_own_files_and_keeps_others(
        previous: tuple[Path, dict[str, str]], bundled: FrontEndResult) -> None:
    out, before = previous
    (out / "ir" / "karak.json").write_text("edited by hand")  # the build's own file: rewritten
    build(bundled.project, out, IR_ONLY)
    after = tree_hashes(out)
    assert after == before  # keep.txt, which the build did not write, is still there
    assert leftovers(out) == []


@pytest.mark.parametrize("exc", [RuntimeError("backend crashed"), KeyboardInterrupt(), OSError(28, "No space left")])
def test_failing_backend_leaves_previous_output_untouched(
        previous: tuple[Path, dict[str, str]], bundled: FrontEndResult, monkeypatch: pytest.MonkeyPatch,
        exc: BaseException) -> None:
    out, before = previous
    monkeypatch.setattr(backends, "BACKENDS", [_ir_backend(), ("boom", _half_then(exc))])
    with pytest.raises(type(exc)):
        build(bundled.project, out, BuildOptions())
    assert tree_hashes(out) == before
    assert leftovers(out) == []


def test_backend_reporting_errors_fails_the_build(
        previous: tuple[Path, dict[str, str]], bundled: FrontEndResult, monkeypatch: pytest.MonkeyPatch) -> None:
    out, before = previous

    def reports_error(project: Project, folder: Path, options: BuildOptions) -> list[Diagnostic]:
        (folder / "partial.txt").write_text("partial")
        return [Diagnostic(Severity.ERROR, "E402", "a backend found a problem", Span("x.cardc", 1, 1))]

    monkeypatch.setattr(backends, "BACKENDS", [_ir_backend(), ("bad", reports_error)])
    with pytest.raises(BuildFailed):
        build(bundled.project, out, BuildOptions())
    assert tree_hashes(out) == before
    assert leftovers(out) == []


def test_failure_while_swapping_restores_previous_output(
        previous: tuple[Path, dict[str, str]], bundled: FrontEndResult, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the folders cannot be exchanged atomically, a failed second rename puts the old one back."""
    out, before = previous
    monkeypatch.setattr(build_module, "_exchange", lambda a, b: False)
    real_rename = Path.rename
    calls: list[Path] = []

    def flaky_rename(self: Path, target: Path) -> Path:  # type: ignore[override]
        calls.append(self)
        if len(calls) == 2:  # the first moves the old output aside, the second moves the new one in
            raise OSError("disk went away")
        return real_rename(self, target)

    monkeypatch.setattr(Path, "rename", flaky_rename)
    with pytest.raises(OSError):
        build(bundled.project, out, IR_ONLY)
    monkeypatch.undo()
    assert tree_hashes(out) == before
    assert leftovers(out) == []


def test_interrupted_cli_build_exits_130_and_keeps_output(
        previous: tuple[Path, dict[str, str]], monkeypatch: pytest.MonkeyPatch) -> None:
    out, before = previous
    monkeypatch.setattr(backends, "BACKENDS", [_ir_backend(), ("boom", _half_then(KeyboardInterrupt()))])
    assert _cli(["build", "content", "--out", str(out)]) == 130
    assert tree_hashes(out) == before
    assert leftovers(out) == []


def test_build_with_content_errors_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / "cardc.toml").write_text("")
    (tmp_path / "g.cardc").write_text("module g\ngame g { languages: [en] }\nmonster bat { }\n")
    out = tmp_path.parent / f"{tmp_path.name}-out"
    assert _cli(["build", str(tmp_path), "--out", str(out)]) == 1
    assert not out.exists()
    assert leftovers(out) == []


def _cli(argv: list[str]) -> int:
    old = Path.cwd()
    os.chdir(ROOT)
    try:
        with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
            return cli.main(argv)
    finally:
        os.chdir(old)


def test_quiet_build_prints_errors_only(tmp_path: Path) -> None:
    # `-q` means errors only, for `build` as for `check`: no progress, no summary, no notes, also when up to date
    content = tmp_path / "content"
    with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
        assert cli.main(["new", "game", "moonfall", "--content", str(content)]) == 0
    cards = content / "moonfall" / "base" / "cards.cardc"
    out = tmp_path / "out"
    for _ in range(2):  # a first build, then one with nothing changed
        err = io.StringIO()
        with redirect_stdout(io.StringIO()), redirect_stderr(err):
            assert cli.main(["build", str(content), "--out", str(out), "-q"]) == 0
        assert err.getvalue() == ""
    err = io.StringIO()
    with redirect_stdout(io.StringIO()), redirect_stderr(err):
        assert cli.main(["build", str(content), "--out", str(out)]) == 0
    assert "up to date" in err.getvalue()
    cards.write_text(cards.read_text(encoding="utf-8") + "\nmonster { }\n", encoding="utf-8")  # a syntax error
    err = io.StringIO()
    with redirect_stdout(io.StringIO()), redirect_stderr(err):
        assert cli.main(["build", str(content), "--out", str(out), "-q"]) == 1
    assert "error" in err.getvalue()
