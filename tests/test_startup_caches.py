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
from cardc.resources import DSL_DIR

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

    saved = _saved_tables()
    try:
        first = make("cardc._test_points")
        known = dict(dataclass_code._code["cardc._test_points"])
        assert any("def __init__(self,x:" in text for text in known)
        assert dataclass_code._changed == saved[3] | {"cardc._test_points"}
        second = make("cardc._test_points")  # from the remembered code: no new text
        assert dataclass_code._code["cardc._test_points"] == known
        assert first(1) == first(1, 2) and repr(second(1)) == "Point(x=1, y=2)"
        assert hash(second(1)) == hash(second(1, 2))
        with pytest.raises(FrozenInstanceError):
            second(1).x = 3
        other = make("not_cardc_points")  # another package's class: made as dataclasses makes it, not kept
        assert "not_cardc_points" not in dataclass_code._code
        assert other(1) == other(1, 2) and repr(other(1)) == "Point(x=1, y=2)"
    finally:  # the test's texts are not written into the package's table
        _restore_tables(saved)


def _saved_tables() -> tuple[dict[str, bytes], dict[str, dict[str, types.CodeType]], dict[str, set[str]], set[str]]:
    d = dataclass_code
    return dict(d._sections), {m: dict(c) for m, c in d._code.items()}, {m: set(u) for m, u in d._used.items()}, \
        set(d._changed)


def _restore_tables(saved: tuple[dict[str, bytes], dict[str, dict[str, types.CodeType]], dict[str, set[str]],
                                 set[str]]) -> None:
    d = dataclass_code
    for now, then in zip((d._sections, d._code, d._used, d._changed), saved, strict=True):
        now.clear()
        now.update(then)  # type: ignore[attr-defined]


_RUN = ("import cardc.syntax, cardc.model; from cardc import dataclass_code as d; "
        "print('compiled' if d._changed else 'remembered')")


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
    import marshal

    saved = _saved_tables()
    d = dataclass_code
    try:
        for table in (d._sections, d._code, d._used, d._changed):
            table.clear()
        code = compile("pass", "<string>", "exec")
        d._sections["cardc.untouched"] = b"as read"
        d._sections["cardc.read"] = b"also as read"
        d._code["cardc.read"] = {"r": code}
        d._used["cardc.read"] = {"r"}
        d._code["cardc.edited"] = {f"text {i}": code for i in range(d.MIN_KEPT + 10)}
        d._used["cardc.edited"] = {"text 70", "text 3"}
        d._changed.add("cardc.edited")
        table = d._table()
        assert list(table) == ["cardc.edited", "cardc.read", "cardc.untouched"]  # those used first
        assert table["cardc.untouched"] == b"as read" and table["cardc.read"] == b"also as read"
        kept = marshal.loads(table["cardc.edited"])
        assert len(kept) == d.MIN_KEPT + 2 and list(kept)[:2] == ["text 3", "text 70"]
    finally:
        _restore_tables(saved)


def test_a_section_is_read_only_for_a_module_that_makes_a_dataclass(tmp_path: Path) -> None:
    prefix = tmp_path / "pyc"
    assert _child(tmp_path, PYTHONPYCACHEPREFIX=str(prefix)) == "compiled"
    env = {**os.environ, "CARDC_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPYCACHEPREFIX": str(prefix)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    run = ("import cardc.diagnostics; from cardc import dataclass_code as d; "
           "print(sorted(d._code) == ['cardc.diagnostics'], 'cardc.syntax' in d._sections, not d._changed)")
    done = subprocess.run([sys.executable, "-c", run], env=env, check=True, cwd=tmp_path, capture_output=True,
                          text=True)
    assert done.stdout.split() == ["True", "True", "True"]


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


def test_patterns_from_the_regex_table_are_the_patterns_re_makes() -> None:
    import marshal
    import re

    from cardc import regex_code

    if regex_code._real_compile is None:
        pytest.skip("another Python version: re compiles as usual")
    saved = dict(regex_code._table), set(regex_code._used), regex_code._unsaved
    try:
        for pattern, flags in ((r"(?P<word>[A-Za-z_]\w*)|(\d+)(?:\.(\d+))?", 0), (r"é+|\u2028", int(re.I | re.M)),
                               (rb"(?P<b>\x00+)|[^\x00]", 0), (r"(?x) a  b # comment", 0), (r"(?s:.*\.py)\Z", 0)):
            made = regex_code._real_compile(pattern, flags)  # as re compiles it
            regex_code._table[(pattern, flags)] = regex_code._table.get((pattern, flags)) or _entry(pattern, flags)
            again = regex_code._compile(pattern, flags)  # from the table
            assert again == made  # the engine's code, flags and pattern the same
            assert (again.groups, dict(again.groupindex), again.flags) == (made.groups, dict(made.groupindex),
                                                                            made.flags)
        with pytest.raises(re.error):
            regex_code._compile("(unclosed", 0)
        made = regex_code._real_compile("ab+c", 0)
        for damaged in ([1, 2, 3], ["x"]):  # the engine refuses the code: compiled afresh
            regex_code._table[("ab+c", 0)] = (0, damaged, 0, {}, (None,))
            assert regex_code._compile("ab+c", 0) == made and ("ab+c", 0) not in regex_code._table
        for raw in (b"garbage", marshal.dumps((0, [1, 2, 3], 0, {}, (None,))), marshal.dumps([1])):  # as read
            regex_code._table[("ab+c", 0)] = raw
            assert regex_code._compile("ab+c", 0) == made and ("ab+c", 0) not in regex_code._table
        regex_code._table[("ab+c", 0)] = marshal.dumps(_entry("ab+c", 0))  # a good one, as read
        assert regex_code._compile("ab+c", 0) == made
    finally:
        regex_code._table.clear()
        regex_code._table.update(saved[0])
        regex_code._used.clear()
        regex_code._used.update(saved[1])
        regex_code._unsaved = saved[2]


def _entry(pattern: str | bytes, flags: int) -> tuple[int, list[int], int, dict[str, int], tuple[str | None, ...]]:
    """What the table keeps for a pattern, made by compiling it as this package's code does."""
    import marshal

    from cardc import regex_code

    regex_code._table.pop((pattern, flags), None)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(regex_code, "_ours", lambda: True)
        regex_code._compile(pattern, flags)
    entry = regex_code._table[(pattern, flags)]
    assert marshal.loads(marshal.dumps(entry)) == entry  # plain data: it can be written
    return entry


_RUN_RE = ("import sys; sys.argv[1:] = [sys.argv[1]]; import cardc.textcheck; from cardc import regex_code as r; "
           "print('compiled' if r._unsaved else 'remembered', len(r._table))")


def _child_re(tmp_path: Path, command: str, **extra: str) -> list[str]:
    env = {**os.environ, "CARDC_CACHE_DIR": str(tmp_path / "cache"), **extra}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    done = subprocess.run([sys.executable, "-c", _RUN_RE, command], env=env, check=True, cwd=tmp_path,
                          capture_output=True, text=True)
    return done.stdout.split()


def test_the_regex_table_is_kept_beside_the_bytecode_by_command(tmp_path: Path) -> None:
    prefix = str(tmp_path / "pyc")
    first = _child_re(tmp_path, "check", PYTHONPYCACHEPREFIX=prefix)
    assert first[0] == "compiled" and int(first[1]) > 0
    (table,) = sorted((tmp_path / "pyc").rglob("regex-code.*"))
    assert table.parent.name == DSL_DIR.name  # beside cardc.dsl's bytecode
    before = table.stat().st_mtime_ns
    assert _child_re(tmp_path, "check", PYTHONPYCACHEPREFIX=prefix) == ["remembered", first[1]]
    assert table.stat().st_mtime_ns == before  # nothing new: not written
    assert _child_re(tmp_path, "build", PYTHONPYCACHEPREFIX=prefix)[0] == "compiled"  # another command's section
    assert _child_re(tmp_path, "build", PYTHONPYCACHEPREFIX=prefix)[0] == "remembered"
    assert _child_re(tmp_path, "check", PYTHONPYCACHEPREFIX=prefix) == ["remembered", first[1]]
    data = table.read_bytes()
    table.write_bytes(data.replace(sys.version.encode(), b"3.99.0 (another build)", 1))
    assert _child_re(tmp_path, "check", PYTHONPYCACHEPREFIX=prefix)[0] == "compiled"  # another Python's: not used
    table.write_bytes(data[: len(data) // 2])
    assert _child_re(tmp_path, "check", PYTHONPYCACHEPREFIX=prefix)[0] == "compiled"  # cut off: not used
    blocked = tmp_path / "file"
    blocked.write_text("not a folder", encoding="utf-8")
    for _ in range(2):  # nowhere to write it: compiled each time, without a word
        done = _child_re(tmp_path, "check", PYTHONPYCACHEPREFIX=str(blocked / "pyc"))
        assert done[0] == "compiled"


def test_the_bundled_catalogue_and_words_are_kept_beside_the_bytecode(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from cardc import catalogue as cat
    from cardc import lexicon, pycache

    beside = tmp_path / "pyc"
    monkeypatch.setattr(pycache, "path", lambda name: str(beside / f"{name}.tag"))
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    monkeypatch.setenv("CARDC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("CARDC_CACHE", raising=False)
    first = cat.load_catalogue()
    lexicon.default_lexicon.cache_clear()
    words = lexicon.default_lexicon()
    assert (beside / "cache-catalogue.tag").is_file() and (beside / "cache-lexicon.tag").is_file()
    assert not (tmp_path / "cache" / "catalogue").exists() and not (tmp_path / "cache" / "lexicon").exists()
    monkeypatch.setenv("CARDC_CACHE_DIR", str(tmp_path / "empty"))  # an empty cache folder finds them
    with monkeypatch.context() as m:
        m.setattr(cat, "_frozen", lambda *_: pytest.fail("made again"))
        m.setattr(lexicon, "_lexicon_from_text", lambda *_: pytest.fail("made again"))
        assert cat.load_catalogue() == first
        lexicon.default_lexicon.cache_clear()
        assert lexicon.default_lexicon().words == words.words
        edited = tmp_path / "catalogue.yaml"  # another catalogue: neither read from nor written beside the code
        edited.write_text(cat.CATALOGUE_PATH.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
        m.setattr(cat, "_frozen", lambda *_: None)
        before = (beside / "cache-catalogue.tag").read_bytes()
        assert cat.load_catalogue(edited).verbs.keys() == first.verbs.keys()
        assert (beside / "cache-catalogue.tag").read_bytes() == before
        assert len(list((tmp_path / "empty" / "catalogue").glob("*.pickle"))) == 1
    # for other code (another key) the kept one is not used; where it cannot be kept, the cache folder has it
    assert diskcache.load_beside_code("catalogue", "0" * 40) is None
    monkeypatch.setattr(pycache, "path", lambda name: str(tmp_path / "file" / f"{name}.tag"))
    (tmp_path / "file").write_text("not a folder", encoding="utf-8")
    monkeypatch.setenv("CARDC_CACHE_DIR", str(tmp_path / "third"))
    assert cat.load_catalogue() == first
    assert len(list((tmp_path / "third" / "catalogue").glob("*.pickle"))) == 1
    monkeypatch.setenv("CARDC_CACHE", "off")  # the keys name no code then: nothing read or kept beside it
    monkeypatch.setattr(pycache, "path", lambda name: str(beside / f"{name}.tag"))
    assert diskcache.load_beside_code("catalogue", "x") is None
    diskcache.store_beside_code("other", "x", 1)
    assert not (beside / "cache-other.tag").exists()
    lexicon.default_lexicon.cache_clear()


def test_dataclasses_get_the_docstrings_inspect_gives_without_importing_it(tmp_path: Path) -> None:
    prefix = str(tmp_path / "pyc")
    env = {**os.environ, "CARDC_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPYCACHEPREFIX": prefix}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    run = ("import sys\n"
           "import cardc.syntax, cardc.model, cardc.lower, cardc.frontend\n"
           "imported = 'inspect' in sys.modules\n"
           "import json, dataclasses\n"
           "docs = {f'{m.__name__}.{k}': v.__doc__ for m in (cardc.syntax, cardc.model, cardc.lower, cardc.frontend)\n"
           "        for k, v in vars(m).items() if dataclasses.is_dataclass(v) and v.__module__ == m.__name__}\n"
           "print(json.dumps([imported, docs]))\n")
    outputs = [subprocess.run([sys.executable, "-c", run], env=env, check=True, capture_output=True, text=True,
                              cwd=tmp_path).stdout for _ in range(2)]
    import json

    first, second = (json.loads(o) for o in outputs)
    assert second[0] is False  # remembered: inspect not imported
    assert first[1] == second[1] and len(first[1]) > 40
    # what inspect itself makes of them, in this process (which imported it)
    import dataclasses
    import importlib

    for name, doc in second[1].items():
        module, _, cls = name.rpartition(".")
        klass = getattr(importlib.import_module(module), cls)
        own = klass.__dict__.get("__doc__")
        if own and not own.startswith(cls + "("):
            continue  # a docstring of its own
        assert dataclasses.is_dataclass(klass)
        import inspect

        assert doc == cls + str(inspect.signature(klass)).replace(" -> None", "")


def test_the_signature_key_follows_what_inspect_reads() -> None:
    import inspect

    namespace = types.ModuleType("cardc._test_signatures")
    sys.modules[namespace.__name__] = namespace
    saved = _saved_tables()
    try:
        source = ("from dataclasses import dataclass, field\n"
                  "@dataclass(frozen=True)\n"
                  "class A:\n    x: int\n    y: str = 'a'\n    z: list = field(default_factory=list)\n"
                  "@dataclass\n"
                  "class B:\n    x: int\n    f: object = print\n"
                  "@dataclass\n"
                  "class C:\n    x: int\n    y: str = 'b'\n    z: list = field(default_factory=list)\n"
                  "@dataclass\n"
                  "class Addr:\n    f: object = object()\n"
                  "@dataclass\n"
                  "class Kw:\n    x: int\n    _: dataclasses.KW_ONLY = None\n    y: int = 2\n")
        exec("import dataclasses\n" + source, namespace.__dict__)  # noqa: S102 - classes defined in that module
        a, b, c, addr, kw = (namespace.__dict__[n] for n in ("A", "B", "C", "Addr", "Kw"))
        keys = [dataclass_code._doc_key(k) for k in (a, b, c, addr, kw)]
        assert keys[0] is not None and keys[1] is not None and keys[2] is not None and keys[4] is not None
        assert keys[3] is None  # a default whose repr names a place in memory: inspect's own, every time
        assert keys[0] != keys[2]  # another default
        for k in (a, b, c, kw):
            assert k.__doc__ == k.__name__ + str(inspect.signature(k)).replace(" -> None", "")
            assert dataclass_code._Inspect.signature(k) == str(inspect.signature(k))  # remembered as inspect made it
        assert dataclass_code._doc_key(int) is None and dataclass_code._doc_key(FrozenInstanceError) is None
        assert dataclass_code._Inspect().isclass is inspect.isclass  # anything else: inspect's own
    finally:
        del sys.modules[namespace.__name__]
        _restore_tables(saved)
