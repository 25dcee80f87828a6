"""What makes `cardc check` start fast (issue 16.3) changes no result: parse trees pickled by their
constructor come back equal, dataclasses built from remembered code behave as freshly compiled ones, and the
code fingerprint remembered under file stats is the fingerprint of the files' contents."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from dataclasses import FrozenInstanceError, dataclass
from pathlib import Path

import pytest
from cardc import dataclass_code, diskcache
from cardc.diagnostics import Diagnostic, DiagnosticSink, Severity, Span
from cardc.parser import parse_text

ROOT = Path(__file__).resolve().parent.parent


def test_parse_trees_pickle_by_constructor_and_come_back_equal() -> None:
    path = sorted((ROOT / "content").rglob("*.cardc"))[0]
    tree = parse_text(path.read_text(encoding="utf-8"), "x.cardc", DiagnosticSink())
    assert tree is not None
    back = pickle.loads(pickle.dumps(tree, protocol=pickle.HIGHEST_PROTOCOL))  # noqa: S301 - our own bytes
    assert back == tree and hash(back) == hash(tree)
    span = Span("a.cardc", 3, 4, 3, 9)
    assert span.__reduce__() == (Span, ("a.cardc", 3, 4, 3, 9))
    diag = Diagnostic(Severity.WARNING, "W500", "m", span, "h")
    assert pickle.loads(pickle.dumps(diag)) == diag  # noqa: S301


def test_dataclasses_from_remembered_code_behave_the_same() -> None:
    import dataclasses

    assert getattr(dataclasses, "exec", None) is dataclass_code._exec  # installed by `import cardc`

    def make() -> type:
        @dataclass(frozen=True, slots=True)
        class Point:
            x: int
            y: int = 2

        return Point

    first = make()
    known = len(dataclass_code._code)
    second = make()  # from the remembered code: no new text
    assert len(dataclass_code._code) == known
    assert first(1) == first(1, 2) and repr(second(1)) == "test_dataclasses_from_remembered_code_behave_the_same." \
        "<locals>.make.<locals>.Point(x=1, y=2)" and hash(second(1)) == hash(second(1, 2))
    with pytest.raises(FrozenInstanceError):
        second(1).x = 3  # type: ignore[misc]
    assert any("def __init__(self,x:" in text for text in dataclass_code._code)


def test_the_code_table_is_written_once_and_read_back(tmp_path: Path) -> None:
    env = {**os.environ, "CARDC_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("CARDC_CACHE", None)
    run = [sys.executable, "-c", "import cardc.syntax, cardc.model"]
    subprocess.run(run, env=env, check=True, cwd=tmp_path)
    tables = list((tmp_path / "cache" / "dataclass-code").glob("*.pickle"))
    assert len(tables) == 1
    before = tables[0].stat().st_mtime_ns
    subprocess.run(run, env=env, check=True, cwd=tmp_path)
    assert tables[0].stat().st_mtime_ns == before  # every text known: nothing new to write
    subprocess.run(run, env={**env, "CARDC_CACHE": "off"}, check=True, cwd=tmp_path)


def test_the_remembered_fingerprint_is_the_content_fingerprint(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CARDC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("CARDC_CACHE", raising=False)
    diskcache._code_fingerprint.cache_clear()
    try:
        stored = diskcache.code_fingerprint()  # computed from the contents, and stored under the stats
        diskcache._code_fingerprint.cache_clear()
        assert diskcache.code_fingerprint() == stored  # from the cache
        monkeypatch.setenv("CARDC_CACHE", "off")
        diskcache._code_fingerprint.cache_clear()
        assert diskcache._code_fingerprint() == stored  # from the contents again
        assert diskcache.code_fingerprint() != stored  # no key is used with the cache off: none is computed
    finally:
        diskcache._code_fingerprint.cache_clear()
