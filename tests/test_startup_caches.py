"""What makes `cardc check` start fast (issue 16.3) changes no result: parse trees pickled by their
constructor come back equal, dataclasses built from remembered code behave as freshly compiled ones, and the
code fingerprint remembered under file stats is the fingerprint of the files' contents."""

from __future__ import annotations

import os
import pickle
import shutil
import subprocess
import sys
import textwrap
import types
from dataclasses import FrozenInstanceError
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

    def make(module: str) -> type:
        namespace = types.ModuleType(module)
        sys.modules[module] = namespace  # dataclasses runs the methods' texts with the module's globals
        try:
            exec(textwrap.dedent("""
                from dataclasses import dataclass

                @dataclass(frozen=True, slots=True)
                class Point:
                    x: int
                    y: int = 2
                """), namespace.__dict__)  # noqa: S102 - a class defined in a module of the given name
        finally:
            del sys.modules[module]
        point: type = namespace.Point
        return point

    saved = dict(dataclass_code._code), set(dataclass_code._used), dataclass_code._unsaved
    try:
        first = make("cardc._test_points")
        known = len(dataclass_code._code)
        second = make("cardc._test_points")  # from the remembered code: no new text
        assert len(dataclass_code._code) == known
        assert first(1) == first(1, 2) and repr(second(1)) == "Point(x=1, y=2)"
        assert hash(second(1)) == hash(second(1, 2))
        with pytest.raises(FrozenInstanceError):
            second(1).x = 3
        assert any("def __init__(self,x:" in text for text in dataclass_code._code)
        other = make("not_cardc_points")  # another package's class: made as dataclasses makes it, not kept
        assert len(dataclass_code._code) == known and other(1) == other(1, 2) and repr(other(1)) == "Point(x=1, y=2)"
    finally:  # the test's texts are not written into the package's table
        dataclass_code._code.clear()
        dataclass_code._code.update(saved[0])
        dataclass_code._used.clear()
        dataclass_code._used.update(saved[1])
        dataclass_code._unsaved = saved[2]


_RUN = ("import cardc.syntax, cardc.model; from cardc import dataclass_code as d; "
        "print('compiled' if d._unsaved else 'remembered')")


def _child(tmp_path: Path, **extra: str) -> str:
    """Import modules with dataclasses in a new process: whether it compiled any text or found them all."""
    env = {**os.environ, "CARDC_CACHE_DIR": str(tmp_path / "cache"), **extra}
    for name in ("CARDC_CACHE", "PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX"):
        if name not in extra:
            env.pop(name, None)
    done = subprocess.run([sys.executable, "-c", _RUN], env=env, check=True, cwd=tmp_path, capture_output=True,
                          text=True)
    return done.stdout.strip()


def _tables(folder: Path) -> list[Path]:
    return sorted(folder.rglob(f"{dataclass_code.TABLE}.*")) if folder.exists() else []


def test_the_code_table_is_kept_beside_the_bytecode(tmp_path: Path) -> None:
    prefix = tmp_path / "pyc"  # PYTHONPYCACHEPREFIX: where the bytecode and the table go
    assert _child(tmp_path, PYTHONPYCACHEPREFIX=str(prefix)) == "compiled"
    (table,) = _tables(prefix)
    assert any(table.parent.glob("dataclass_code.*.pyc"))  # beside the module's own bytecode
    assert not (tmp_path / "cache" / "dataclass-code").exists()  # not in the cache folder
    before = table.stat().st_mtime_ns
    assert _child(tmp_path, PYTHONPYCACHEPREFIX=str(prefix)) == "remembered"
    assert table.stat().st_mtime_ns == before  # every text known: nothing new to write
    # an empty cache folder, and the cache off, still find it
    assert _child(tmp_path, PYTHONPYCACHEPREFIX=str(prefix), CARDC_CACHE_DIR=str(tmp_path / "other")) \
        == "remembered"
    assert _child(tmp_path, PYTHONPYCACHEPREFIX=str(prefix), CARDC_CACHE="off") == "remembered"


def test_a_table_for_another_python_is_not_used(tmp_path: Path) -> None:
    prefix = tmp_path / "pyc"
    _child(tmp_path, PYTHONPYCACHEPREFIX=str(prefix))
    (table,) = _tables(prefix)
    data = table.read_bytes()
    table.write_bytes(data.replace(sys.version.encode(), b"3.99.0 (another build)", 1))
    assert _child(tmp_path, PYTHONPYCACHEPREFIX=str(prefix)) == "compiled"
    assert table.read_bytes() == data  # written again for this Python
    table.write_bytes(data[:len(data) // 2])  # cut off: unreadable, so empty
    assert _child(tmp_path, PYTHONPYCACHEPREFIX=str(prefix)) == "compiled"
    assert _child(tmp_path, PYTHONPYCACHEPREFIX=str(prefix)) == "remembered"


def test_without_bytecode_the_table_goes_to_the_cache_folder(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a folder", encoding="utf-8")  # a bytecode folder that cannot be made: read-only
    for extra in ({"PYTHONDONTWRITEBYTECODE": "1", "PYTHONPYCACHEPREFIX": str(tmp_path / "pyc")},
                  {"PYTHONPYCACHEPREFIX": str(blocked / "pyc")}):
        cache = tmp_path / "cache"
        assert _child(tmp_path, **extra) == "compiled"
        assert _tables(tmp_path / "pyc") == []
        assert len(list((cache / "dataclass-code").glob("*.pickle"))) == 1
        assert _child(tmp_path, **extra) == "remembered"
        shutil.rmtree(cache)
    assert _child(tmp_path, PYTHONDONTWRITEBYTECODE="1", PYTHONPYCACHEPREFIX=str(tmp_path / "pyc"),
                  CARDC_CACHE="off") == "compiled"  # nowhere to keep it: compiled each time, no error
    # a table in the cache folder (an older version's, or a process without bytecode) moves beside the bytecode
    assert _child(tmp_path, PYTHONDONTWRITEBYTECODE="1", PYTHONPYCACHEPREFIX=str(tmp_path / "pyc")) == "compiled"
    assert _child(tmp_path, PYTHONPYCACHEPREFIX=str(tmp_path / "pyc")) == "remembered"
    assert len(_tables(tmp_path / "pyc")) == 1
    shutil.rmtree(tmp_path / "cache")
    assert _child(tmp_path, PYTHONPYCACHEPREFIX=str(tmp_path / "pyc")) == "remembered"


def test_the_table_keeps_the_texts_a_process_ran_first() -> None:
    saved = dict(dataclass_code._code), set(dataclass_code._used)
    try:
        dataclass_code._code.clear()
        dataclass_code._used.clear()
        for i in range(dataclass_code.MAX_ENTRIES + 10):
            dataclass_code._code[f"text {i}"] = compile("pass", "<string>", "exec")
        dataclass_code._used.update({"text 7", f"text {dataclass_code.MAX_ENTRIES + 5}"})
        table = dataclass_code._table()
        assert len(table) == dataclass_code.MAX_ENTRIES
        assert "text 7" in table and f"text {dataclass_code.MAX_ENTRIES + 5}" in table
    finally:
        dataclass_code._code.clear()
        dataclass_code._code.update(saved[0])
        dataclass_code._used.clear()
        dataclass_code._used.update(saved[1])


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
        assert diskcache._code_fingerprint() == stored  # not from the cache folder: its memo or the contents
        assert diskcache.code_fingerprint() != stored  # no key is used with the cache off: none is computed
    finally:
        diskcache._code_fingerprint.cache_clear()


def test_the_fingerprint_is_also_remembered_beside_the_bytecode(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    from cardc import pycache

    monkeypatch.setattr(pycache, "path", lambda name: str(tmp_path / "pyc" / f"{name}.tag"))
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    monkeypatch.setenv("CARDC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("CARDC_CACHE", raising=False)
    computed: list[str] = []
    content = diskcache._content_fingerprint

    def counted(head: str, files: list[tuple[str, str]]) -> str:
        computed.append(head)
        return content(head, files)

    monkeypatch.setattr(diskcache, "_content_fingerprint", counted)
    diskcache._code_fingerprint.cache_clear()
    try:
        value = diskcache.code_fingerprint()
        assert len(computed) == 1 and (tmp_path / "pyc" / "fingerprint.tag").is_file()
        shutil.rmtree(tmp_path / "cache")  # an empty cache folder: the memo beside the bytecode is used
        diskcache._code_fingerprint.cache_clear()
        assert diskcache.code_fingerprint() == value and len(computed) == 1
        memo = tmp_path / "pyc" / "fingerprint.tag"
        data = memo.read_bytes()
        key_at = len(diskcache.FINGERPRINT_HEADER)
        other = b"0" if data[key_at:key_at + 1] != b"0" else b"1"
        memo.write_bytes(data[:key_at] + other + data[key_at + 1:])  # other files' stats: not used
        diskcache._code_fingerprint.cache_clear()
        assert diskcache.code_fingerprint() == value and len(computed) == 2
        assert memo.read_bytes() == data  # written again for these files
        # the memo holds the content fingerprint: the same value with nothing remembered anywhere
        monkeypatch.setattr(pycache, "path", lambda name: None)
        monkeypatch.setenv("CARDC_CACHE", "off")
        diskcache._code_fingerprint.cache_clear()
        assert diskcache._code_fingerprint() == value and len(computed) == 3
    finally:
        diskcache._code_fingerprint.cache_clear()
