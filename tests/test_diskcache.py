"""The on-disk cache behind a fast `cardc check` (issue 16.3) never gives a stale result: an edited source,
catalogue, image or configuration is picked up, a damaged entry is ignored, and a cached run reports what an
uncached run reports, byte for byte."""

from __future__ import annotations

import io
import os
import shutil
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from cardc import catalogue as cat
from cardc import cli, diskcache
from cardc.catalogue import default_catalogue, load_catalogue

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ROOT / "dsl" / "catalogue.yaml"

GAME = """module g
game g {
  name: { en "Game" }
  languages: [en]
}
kind monster {
  attr strength { type: int  required: true }
}
monster bat { name: { en "Bat" } strength: 2 }
"""


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("CARDC_CACHE_DIR", str(folder))
    monkeypatch.delenv("CARDC_CACHE", raising=False)
    return folder


def _check(cwd: Path, *argv: str) -> tuple[int, str]:
    err = io.StringIO()
    old = Path.cwd()
    os.chdir(cwd)
    try:
        with redirect_stdout(io.StringIO()), redirect_stderr(err):
            code = cli.main(["check", *argv])
    finally:
        os.chdir(old)
    return code, err.getvalue()


def _entries(cache: Path, namespace: str) -> list[Path]:
    return sorted((cache / namespace).glob("*.pickle")) if (cache / namespace).is_dir() else []


def _content(tmp_path: Path) -> Path:
    folder = tmp_path / "content"
    folder.mkdir()
    (folder / "cardc.toml").write_text("", encoding="utf-8")
    (folder / "g.cardc").write_text(GAME, encoding="utf-8")
    return folder


def test_an_edited_catalogue_is_picked_up(tmp_path: Path, cache: Path) -> None:
    path = tmp_path / "catalogue.yaml"
    text = SHIPPED.read_text(encoding="utf-8")
    path.write_text(text, encoding="utf-8")
    first = load_catalogue(path)
    assert len(_entries(cache, "catalogue")) == 1
    assert load_catalogue(path) == first  # from the cache: the same verbs, spans and docs
    old = "  move:\n    doc: Move up to a number of steps."
    assert text.count(old) == 1
    path.write_text(text.replace(old, "  move:\n    doc: Walk up to a number of steps."), encoding="utf-8")
    assert load_catalogue(path).verbs["move"].doc == "Walk up to a number of steps."
    assert first.verbs["move"].doc == "Move up to a number of steps."


def test_an_edited_catalogue_is_picked_up_by_check(tmp_path: Path, cache: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A catalogue edit that breaks the content after a cached clean run: the error, not the cached ok."""
    folder = _content(tmp_path)
    path = tmp_path / "catalogue.yaml"
    text = SHIPPED.read_text(encoding="utf-8")
    path.write_text(text, encoding="utf-8")
    monkeypatch.setattr(cat, "CATALOGUE_PATH", path)
    default_catalogue.cache_clear()
    try:
        assert _check(folder, ".")[0] == 0
        assert _check(folder, ".")[0] == 0 and _entries(cache, "check")
        old = "      - {name: steps, type: int}\n    text:\n      en: \"move up to"
        assert text.count(old) == 1
        path.write_text(text.replace(old, old.replace("type: int", "type: itn")), encoding="utf-8")
        default_catalogue.cache_clear()
        code, err = _check(folder, ".")
        assert code == 1 and "error[E150]" in err and "unknown type `itn`" in err, err
    finally:
        default_catalogue.cache_clear()


def test_a_cached_check_reports_what_a_fresh_one_does(tmp_path: Path, cache: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "bundled"
    shutil.copytree(ROOT / "content", folder)
    for argv in ([".", "--show-provisional"], ["."], [".", "--format", "json"]):
        first = _check(folder, *argv)
        assert first[0] == 0
        assert _check(folder, *argv) == first, argv  # from the cache
        monkeypatch.setenv("CARDC_CACHE", "off")
        assert _check(folder, *argv) == first, argv  # computed without any cache
        monkeypatch.delenv("CARDC_CACHE")
    assert _entries(cache, "check") and _entries(cache, "parse")


@pytest.mark.parametrize("edit", ["source", "new file", "config", "image"])
def test_every_input_edit_is_picked_up(tmp_path: Path, cache: Path, edit: str) -> None:
    from PIL import Image

    folder = _content(tmp_path)
    Image.new("RGB", (4, 4)).save(folder / "bat.png")
    (folder / "g.cardc").write_text(GAME.replace("strength: 2 }", 'strength: 2 image: "bat.png" }'),
                                    encoding="utf-8")
    code, before = _check(folder, ".")
    assert code == 0, before
    assert _check(folder, ".") == (code, before)
    assert _entries(cache, "check")
    if edit == "source":
        (folder / "g.cardc").write_text(GAME.replace("strength: 2", 'strength: "x"'), encoding="utf-8")
    elif edit == "new file":
        (folder / "h.cardc").write_text("module h\nmonstr x {}\n", encoding="utf-8")
    elif edit == "config":
        (folder / "cardc.toml").write_text("[limits]\ncopies = 0\n", encoding="utf-8")
    else:
        (folder / "bat.png").write_bytes(b"not an image at all")
    code, after = _check(folder, ".")
    assert code == 1 and "error[" in after, after


def test_a_damaged_entry_is_a_miss(tmp_path: Path, cache: Path) -> None:
    folder = _content(tmp_path)
    first = _check(folder, ".")
    for namespace in ("check", "parse", "catalogue"):
        for entry in _entries(cache, namespace):
            entry.write_bytes(entry.read_bytes()[:40])  # truncated
    default_catalogue.cache_clear()
    try:
        assert _check(folder, ".") == first
    finally:
        default_catalogue.cache_clear()
    for entry in _entries(cache, "check"):
        entry.write_bytes(b"garbage")
    assert _check(folder, ".") == first


def test_off_writes_nothing(tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CARDC_CACHE", "off")
    folder = _content(tmp_path)
    assert _check(folder, ".")[0] == 0
    assert not cache.exists()


def test_an_unwritable_cache_is_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("a file where the cache folder would be", encoding="utf-8")
    monkeypatch.setenv("CARDC_CACHE_DIR", str(blocker / "cache"))
    folder = _content(tmp_path)
    assert _check(folder, ".")[0] == 0
    assert _check(folder, ".")[0] == 0


def test_an_error_is_never_stored(tmp_path: Path, cache: Path) -> None:
    folder = _content(tmp_path)
    (folder / "g.cardc").write_text(GAME + "monstr x {}\n", encoding="utf-8")
    assert _check(folder, ".")[0] == 1
    assert not _entries(cache, "check")


def test_the_key_hashes_every_part() -> None:
    assert diskcache.digest("ab", "c") != diskcache.digest("a", "bc")
    assert len(diskcache.code_fingerprint()) == 40


def test_a_long_part_is_hashed_once_and_still_told_apart() -> None:
    import hashlib

    text = "card x { text: \"é\" }\n" * 1000  # longer than LONG_PART: keyed by its remembered hash
    assert len(text) >= diskcache.LONG_PART
    key = diskcache.digest("fp", "a.cardc", text)
    assert diskcache.digest("fp", "a.cardc", "".join(list(text))) == key  # an equal text read again
    assert diskcache.digest("fp", "a.cardc", text[:-1] + "!") != key
    assert diskcache.digest("fp", "a.cardc", text, "") != key
    assert diskcache.digest("fp", "a.cardc", text.encode()) == key  # a text and its UTF-8 bytes, as before
    digest = diskcache._part_hash(text)
    assert diskcache.digest("fp", "a.cardc", digest) != key  # its hash given whole is another part
    assert diskcache.plain_digest("fp", "a.cardc", text) != key  # frozen files' hashes do not remember parts
    data = text.encode()
    assert diskcache.content_hash(data) == hashlib.blake2b(data, digest_size=20).hexdigest()
    assert diskcache.content_hash(b"short") == hashlib.blake2b(b"short", digest_size=20).hexdigest()


def test_sources_are_read_as_the_text_layer_reads_them_and_hashed_once(tmp_path: Path) -> None:
    import hashlib

    body = "card x { text: \"é \u2028\" }\n" * 400  # longer than LONG_PART
    cases = [body, body.replace("\n", "\r\n"), body.replace("\n", "\r"), "a\r\n\r\rb\n\r", "", "x"]
    for i, text in enumerate(cases):
        for raw in (text.encode(), b"\xef\xbb\xbf" + text.encode(), text.encode() + b"\xff",
                    b"\xef\xbb" + text.encode(), text.encode()[:-1] if text else b"\xc3"):
            path = tmp_path / f"{i}-{len(raw)}.cardc"
            path.write_bytes(raw)
            diskcache.content_hash(raw)  # as a check hashes every file first
            try:
                expected: object = path.read_text(encoding="utf-8-sig")
            except UnicodeDecodeError as err:
                expected = (type(err), str(err))
            try:
                got: object = diskcache.read_text(path)
            except UnicodeDecodeError as err:
                got = (type(err), str(err))
            assert got == expected
            if isinstance(got, str) and len(got) >= diskcache.LONG_PART:  # the hash of its UTF-8, whatever memo
                assert diskcache._part_hash(got) == hashlib.blake2b(got.encode(), digest_size=20).digest()
    with pytest.raises(FileNotFoundError):
        diskcache.read_text(tmp_path / "missing.cardc")


def test_the_cache_folder_follows_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CARDC_CACHE", raising=False)
    monkeypatch.setenv("CARDC_CACHE_DIR", str(tmp_path / "one"))
    assert diskcache.cache_root() == tmp_path / "one"
    monkeypatch.setenv("CARDC_CACHE_DIR", str(tmp_path / "two"))
    assert diskcache.cache_root() == tmp_path / "two"
    monkeypatch.setenv("CARDC_CACHE", "off")
    assert diskcache.cache_root() is None
    monkeypatch.delenv("CARDC_CACHE")
    monkeypatch.delenv("CARDC_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    if os.name != "nt":
        assert diskcache.cache_root() == tmp_path / "xdg" / "cardc"


def test_a_schema_pass_is_reused_only_for_the_same_ir(cache: Path, monkeypatch: pytest.MonkeyPatch,
                                                       bundled) -> None:  # type: ignore[no-untyped-def]
    import dataclasses

    from cardc import checkcache, schema
    from cardc.diagnostics import Diagnostic, Severity, Span

    assert checkcache.schema_diagnostics(bundled.project) == []  # validated, and the pass stored
    assert _entries(cache, "schema")
    sentinel = Diagnostic(Severity.ERROR, "E402", "rejected", Span("x.cardc", 1, 1))
    monkeypatch.setattr(schema, "validate_project", lambda project, catalogue=None, data=None: [sentinel])
    assert checkcache.schema_diagnostics(bundled.project) == []  # the same IR: the stored pass
    fewer = dataclasses.replace(bundled.project, entities=bundled.project.entities[:-1])
    assert checkcache.schema_diagnostics(fewer) == [sentinel]  # another IR: validated again
    monkeypatch.setenv("CARDC_CACHE", "off")
    assert checkcache.schema_diagnostics(bundled.project) == [sentinel]  # no cache: always validated


MINI_GAME = """module mini
game mini {
  name: { en "Mini" }
  languages: [en]
}
kind hero {
  name: { en "Hero" }
  attr lives { type: int  default: 5 }
}
kind item {
  name: { en "Item" }
  attr owner { type: ref(hero) }
}
"""
MINI_B = 'module mini\nimport "game.cardc"\n\nhero ann { name: { en "Ann" } }\n'
MINI_A = 'module mini\nimport "game.cardc"\nimport "b.cardc"\n\nitem cup {\n  name: { en "Cup" }\n  owner: ann\n}\n'


def _mini(tmp_path: Path) -> Path:
    folder = tmp_path / "mini"
    folder.mkdir()
    (folder / "cardc.toml").write_text("", encoding="utf-8")
    for name, text in (("game.cardc", MINI_GAME), ("a.cardc", MINI_A), ("b.cardc", MINI_B)):
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def _fresh(folder: Path, monkeypatch: pytest.MonkeyPatch, *argv: str) -> tuple[int, str]:
    monkeypatch.setenv("CARDC_CACHE", "off")
    try:
        return _check(folder, *argv)
    finally:
        monkeypatch.delenv("CARDC_CACHE")


def test_edits_after_a_cached_run_report_every_error(tmp_path: Path, cache: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """An edit that breaks file A itself, and an edit of B that breaks a reference from the unchanged A, are
    both reported through the cached path (the other files' parse trees from the cache), as a run without
    any cache reports them."""
    folder = _mini(tmp_path)
    clean = _check(folder, ".")
    assert clean[0] == 0 and _check(folder, ".") == clean and _entries(cache, "check-trees")
    a, b = folder / "a.cardc", folder / "b.cardc"
    a.write_text(MINI_A.replace("owner: ann", "owner: ann\n  lives: 3"), encoding="utf-8")
    code, err = _check(folder, ".")
    assert code == 1 and "error[E201]" in err and "a.cardc:8:3" in err, err
    assert (code, err) == _fresh(folder, monkeypatch, ".")
    a.write_text(MINI_A, encoding="utf-8")
    assert _check(folder, ".") == clean  # back to the stored clean result
    b.write_text(MINI_B.replace("hero ann", "hero anna"), encoding="utf-8")
    code, err = _check(folder, ".")
    assert code == 1 and "error[E206]" in err and "a.cardc:7:10" in err and "unknown hero `ann`" in err, err
    assert (code, err) == _fresh(folder, monkeypatch, ".")
    b.write_text(MINI_B.replace("hero ann {", "// Ann\nhero ann {"), encoding="utf-8")  # B's spans move
    assert _check(folder, ".") == _fresh(folder, monkeypatch, ".") == (0, clean[1])


def test_the_same_parse_trees_reuse_the_result_with_the_new_text(tmp_path: Path, cache: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A comment edit leaves every parse tree as it was: the stored result is used without lowering or
    checking again, and a diagnostic shows its source line as the file now reads. (Since the tokens are the
    same, `checkcache.lookup_moved` answers first; tests/test_check_after_edit.py has an edit that only the
    parse-tree entry recognises.)"""
    folder = _mini(tmp_path)
    b = folder / "b.cardc"
    warned = MINI_B.replace('} }', '}\n  lives: unknown "not decided"\n}')
    b.write_text(warned, encoding="utf-8")
    first = _check(folder, ".", "--show-provisional")
    assert first[0] == 0 and "b.cardc:5:10: warning[W500]" in first[1], first
    b.write_text(warned.replace('"not decided"\n', '"not decided"  // ask the designer\n') + "// more\n",
                 encoding="utf-8")

    def no_front(paths: list[Path]) -> None:
        raise AssertionError("the front end ran although the parse trees are the same")

    with monkeypatch.context() as m:
        m.setattr(cli, "_front", no_front)
        cached = _check(folder, ".", "--show-provisional")
    assert "// ask the designer" in cached[1] and cached[1].replace("  // ask the designer", "") == first[1]
    assert cached == _fresh(folder, monkeypatch, ".", "--show-provisional")


def test_a_first_check_pickles_each_tree_once_and_reads_none_back(tmp_path: Path, cache: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """With an empty cache, a check hashes every file's tree (to look for a result stored by trees) and then
    loads the same files: the trees it stored are hashed as stored, not pickled again nor read back; the
    result is written once. A second process then finds everything by the stored parses."""
    import pickle

    from cardc import loader, records, syntax

    folder = tmp_path / "bundled"
    shutil.copytree(ROOT / "content", folder)
    files = len(list(folder.rglob("*.cardc")))
    monkeypatch.setattr(loader, "_memo", {})
    real_dumps, real_records_dumps, real_load = pickle.dumps, records.dumps, diskcache.load
    trees: list[object] = []
    hits: list[str] = []

    def seen(value: object) -> None:
        if isinstance(value, tuple) and value and isinstance(value[0], syntax.FileS):
            trees.append(value[0])

    def dumps(value: object, *args: object, **kwargs: object) -> bytes:
        seen(value)
        return real_dumps(value, *args, **kwargs)  # type: ignore[arg-type]

    def records_dumps(value: object) -> bytes:  # pickle.dumps by the records' dispatch table
        seen(value)
        return real_records_dumps(value)

    def load(namespace: str, key: str) -> object:
        value = real_load(namespace, key)
        if value is not None:
            hits.append(namespace)
        return value

    monkeypatch.setattr(pickle, "dumps", dumps)
    monkeypatch.setattr(records, "dumps", records_dumps)
    monkeypatch.setattr(diskcache, "load", load)
    assert _check(folder, ".")[0] == 0
    assert len(trees) == files and len({id(t) for t in trees}) == files  # each tree pickled once
    assert "parse" not in hits
    assert len(_entries(cache, "parse")) == files and not _entries(cache, "tree")
    assert len(_entries(cache, "check-trees")) == 1 and len(_entries(cache, "check")) == 1
    assert _entries(cache, "check")[0].stat().st_size < 10_000  # the result is in check-trees, not twice

    # Another process (an empty memo) with one file edited: the others' trees are hashed from the stored
    # parses without unpickling them, and the result is what a check without the cache reports.
    monkeypatch.setattr(loader, "_memo", {})
    trees.clear()
    edited = next(iter(sorted(folder.rglob("*.cardc"))))
    edited.write_text(edited.read_text(encoding="utf-8") + "\nmonster late_bat { name: { en \"Late\" } }\n",
                      encoding="utf-8")
    cached = _check(folder, ".")
    assert len(trees) == 1  # only the edited file was parsed (and its tree pickled)
    monkeypatch.setenv("CARDC_CACHE", "off")
    assert cached == _check(folder, ".")


def test_records_are_pickled_to_the_same_bytes_as_pickle_dumps(monkeypatch: pytest.MonkeyPatch) -> None:
    import pickle

    from cardc import records
    from cardc.diagnostics import DiagnosticSink
    from cardc.frontend import compile_paths
    from cardc.parser import parse_text

    monkeypatch.setenv("CARDC_CACHE", "off")
    text = (ROOT / "content" / "karak" / "base" / "heroes.cardc").read_text(encoding="utf-8")
    sink = DiagnosticSink()
    tree = parse_text(text, "heroes.cardc", sink)
    result = compile_paths([ROOT / "content"])
    for value in ((tree, sink.items), default_catalogue(), result.diagnostics, ("key", result.project.entities[:50])):
        assert records.dumps(value) == pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)


def _stored(cache: Path) -> dict[str, bytes]:
    """Every entry of the cache folder (but the code fingerprint's memo) by its path, with its bytes."""
    return {str(p.relative_to(cache)): p.read_bytes() for p in sorted(cache.rglob("*.pickle"))
            if p.parent.name != "fingerprint"}


def test_deferred_writes_store_what_immediate_ones_do(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The `cardc check` command keeps its cache writes for after its report (`diskcache.defer`): nothing is
    written before `run_later`, each tree is still pickled once, and the entries are byte for byte those of a
    check that writes at once; the next check finds its result."""
    from cardc import loader, records, syntax

    folder = tmp_path / "bundled"
    shutil.copytree(ROOT / "content", folder)
    files = len(list(folder.rglob("*.cardc")))
    now, deferred = tmp_path / "now", tmp_path / "deferred"
    monkeypatch.delenv("CARDC_CACHE", raising=False)
    monkeypatch.setenv("CARDC_CACHE_DIR", str(now))
    monkeypatch.setattr(loader, "_memo", {})
    first = _check(folder, ".")
    assert first[0] == 0

    monkeypatch.setenv("CARDC_CACHE_DIR", str(deferred))
    monkeypatch.setattr(loader, "_memo", {})
    real_dumps = records.dumps
    trees: list[object] = []

    def dumps(value: object) -> bytes:
        if isinstance(value, tuple) and value and isinstance(value[0], syntax.FileS):
            trees.append(value[0])
        return real_dumps(value)

    monkeypatch.setattr(records, "dumps", dumps)
    diskcache.defer()
    cwd = Path.cwd()
    try:
        assert _check(folder, ".") == first
        assert not trees and not _entries(deferred, "parse") and not _entries(deferred, "check")
        os.chdir(folder)  # as in the command, where they run in its folder (paths are shown relative to it)
    finally:
        diskcache.run_later()
        os.chdir(cwd)
    assert not diskcache.deferring()
    assert len(trees) == files and len({id(t) for t in trees}) == files  # each tree pickled once
    assert _stored(deferred) == _stored(now)

    monkeypatch.setattr(loader, "_memo", {})
    trees.clear()
    assert _check(folder, ".") == first
    assert not trees


def test_the_check_command_writes_its_entries_before_the_next_check_looks(tmp_path: Path) -> None:
    """The command's writes are done by a process of its own after the report; the next check waits for it
    (`diskcache.wait_for_writer`), even when nothing reads the command's output to its end: it finds the
    result, and the entries are the ones an in-process check stores."""
    import subprocess
    import sys

    folder = tmp_path / "bundled"
    shutil.copytree(ROOT / "content", folder)
    env = {**os.environ, "CARDC_CACHE_DIR": str(tmp_path / "command")}
    env.pop("CARDC_CACHE", None)
    done = subprocess.run([sys.executable, "-m", "cardc", "check", "."], env=env, cwd=folder, check=False,
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    assert done.returncode == 0
    from cardc import checkcache

    old = os.environ.get("CARDC_CACHE_DIR")
    os.environ["CARDC_CACHE_DIR"] = str(tmp_path / "command")
    cwd = Path.cwd()
    os.chdir(folder)
    try:
        found, _ = checkcache.lookup([Path(".")], False)
    finally:
        os.chdir(cwd)
        if old is None:
            del os.environ["CARDC_CACHE_DIR"]
        else:
            os.environ["CARDC_CACHE_DIR"] = old
    assert found is not None
    assert not (tmp_path / "command" / diskcache.WRITER_LOCK).exists()
    command = _stored(tmp_path / "command")
    env["CARDC_CACHE_DIR"] = str(tmp_path / "in-process")
    subprocess.run([sys.executable, "-c", "import sys; from cardc.cli import main; sys.exit(main(['check', '.']))"],
                   env=env, cwd=folder, check=True, capture_output=True)
    assert command == _stored(tmp_path / "in-process")


def test_a_check_waits_for_the_writer_of_the_last_one(tmp_path: Path, cache: Path) -> None:
    import threading
    import time

    lock = diskcache._lock_for_writing(cache)  # noqa: SLF001 - as `write_behind` takes it
    assert lock is not None
    waited = threading.Event()
    waiter = threading.Thread(target=lambda: (diskcache.wait_for_writer(), waited.set()))
    waiter.start()
    time.sleep(0.2)
    assert not waited.is_set()
    os.close(lock)
    waiter.join(10)
    assert waited.is_set()
    diskcache.wait_for_writer()  # a lock file left by a writer that ended does not hold anyone up


def test_a_stuck_writer_holds_a_check_up_only_so_long(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    lock = diskcache._lock_for_writing(cache)  # noqa: SLF001 - as `write_behind` takes it
    assert lock is not None
    monkeypatch.setattr(diskcache, "WRITER_WAIT", 0.1)
    try:
        started = time.monotonic()
        diskcache.wait_for_writer()
        assert 0.1 <= time.monotonic() - started < 5
    finally:
        os.close(lock)


def test_a_stuck_writer_holds_the_next_writer_up_only_so_long(tmp_path: Path, cache: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A command whose writes find another writer's lock held past `WRITER_WAIT` makes them itself."""
    import time

    lock = diskcache._lock_for_writing(cache)  # noqa: SLF001 - as `write_behind` takes it
    assert lock is not None
    monkeypatch.setattr(diskcache, "WRITER_WAIT", 0.1)
    written: list[int] = []
    try:
        started = time.monotonic()
        assert diskcache._lock_for_writing(cache) is None  # noqa: SLF001
        assert 0.1 <= time.monotonic() - started < 5
        diskcache.defer()
        diskcache.later(lambda: written.append(os.getpid()))
        diskcache.write_behind()  # no fork without the lock: written here
        assert written == [os.getpid()] and not diskcache.deferring()
    finally:
        os.close(lock)
        diskcache.run_later()
