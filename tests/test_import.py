"""`cardc import`: source from an engine-neutral export. Export, import, export gives the same JSON for every
bundled game (but for where each entity was written), the imported source checks clean, and a bad export gives
diagnostics with JSON pointers, never a traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cardc.backends.export import dumps
from cardc.backends.export.document import export_document
from cardc.frontend import FrontEndResult, compile_paths
from cardc.importer import import_export, write_files


def _without_places(doc: dict[str, Any]) -> dict[str, Any]:
    doc = json.loads(json.dumps(doc))
    for e in doc["entities"]:
        e["source"].pop("file")
        e["source"].pop("line")
    return doc


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cardc", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300)


@pytest.mark.parametrize("game", ["karak", "prophecy"])
def test_export_import_export_is_the_same(bundled: FrontEndResult, game: str, tmp_path: Path) -> None:
    first = export_document(bundled.project, game)
    exported = tmp_path / f"{game}.json"
    exported.write_text(dumps(first), encoding="utf-8")
    written = write_files(import_export(exported), tmp_path / "src")
    assert any(p.suffix == ".cardc" for p in written)
    again = compile_paths([tmp_path / "src"])
    assert again.ok, [d.render() for d in again.diagnostics if d.is_error]
    second = export_document(again.project, game)
    assert _without_places(second) == _without_places(first)
    # every entity really was written somewhere in the imported source
    src = (tmp_path / "src").resolve()  # outputs name sources relative to the content folder
    assert {e["source"]["file"] for e in second["entities"]} <= {p.resolve().relative_to(src).as_posix()
                                                                 for p in written}


def test_cli_imports_and_the_source_checks_clean(bundled: FrontEndResult, tmp_path: Path) -> None:
    exported = tmp_path / "karak.json"
    exported.write_text(dumps(export_document(bundled.project, "karak")), encoding="utf-8")
    proc = _cli("import", str(exported), "--out", "src", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "wrote" in proc.stderr
    check = _cli("check", "src", cwd=tmp_path)
    assert check.returncode == 0, check.stderr
    assert "ok: " in check.stderr and "error[" not in check.stderr
    again = _cli("import", str(exported), "--out", "src", cwd=tmp_path)  # never overwrites
    assert again.returncode == 2 and "already exists" in again.stderr and "Traceback" not in again.stderr


@pytest.mark.parametrize(("text", "expect"), [
    ('{"format": "cardc-export", ', "not a JSON document"),
    ("[1, 2]", "at (the whole document)"),
    ('{"format": 3}', "at /format"),
])
def test_bad_exports_are_diagnostics(text: str, expect: str, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(text, encoding="utf-8")
    proc = _cli("import", str(bad), "--out", "src", cwd=tmp_path)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert "error[E130]" in proc.stderr and expect in proc.stderr
    assert proc.stderr.startswith(str(bad) + ":")
    assert not (tmp_path / "src").exists()


def test_a_broken_entity_is_pointed_at(bundled: FrontEndResult, tmp_path: Path) -> None:
    doc = export_document(bundled.project, "karak")
    doc["entities"][3]["attrs"]["lives"] = {"type": "int", "value": "five"}
    bad = tmp_path / "karak.json"
    bad.write_text(dumps(doc), encoding="utf-8")
    proc = _cli("import", str(bad), "--out", "src", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert "/entities/3/attrs/lives" in proc.stderr
