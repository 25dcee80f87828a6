"""`cardc check` after an edit (issue 16.3): whichever stored result it starts from (the same files, the same
tokens moved, the same parse trees, or nothing), its diagnostics are those of a run with the cache off, and the
IR dumped after the edit is the one a run without the cache dumps.

The edit of comments and spacing alone (`checkcache.lookup_moved`) takes positions from one text to the other
(`cardc.spanmap`): the property tests below edit a real content file at random and check, against the parser,
that whenever the two texts are said to have the same tokens, they parse to the same tree, each position
moved where the map says."""

from __future__ import annotations

import dataclasses
import io
import os
import random
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest
from cardc import checkcache, cli
from cardc.diagnostics import Diagnostic, DiagnosticSink, Severity, Span
from cardc.parser import parse_text
from cardc.spanmap import SpanMap, runs

ROOT = Path(__file__).resolve().parent.parent

GAME = """module duel
game duel {
  name: { en "Duel" }
  languages: [en]
}
kind hero {
  name: { en "Hero" }
  attr lives { type: int  default: 5 }
  attr tags_of { type: list(ident)  default: [] }
}
kind item {
  name: { en "Item" }
  attr owner { type: ref(hero) }
  attr bonus { type: int  required: true }
}
"""
HEROES = """module duel
import "game.cardc"

// the two heroes
hero ann { name: { en "Ann" } lives: unknown "four or five?" }
hero bob {
  name: { en "Bob" }
  lives: provisional 3 "playtest"
  tags_of: [tall, quick]
}
"""
ITEMS = """module duel
import "game.cardc"
import "heroes.cardc"

item cup {
  name: { en "Cup # of gold // shiny" }
  owner: ann
  bonus: provisional 2 "maybe 1"
}
item hat { name: { en "Hat" } owner: bob  bonus: 1 }
"""


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("CARDC_CACHE_DIR", str(folder))
    monkeypatch.delenv("CARDC_CACHE", raising=False)
    return folder


def _project(tmp_path: Path) -> Path:
    folder = tmp_path / "duel"
    folder.mkdir()
    (folder / "cardc.toml").write_text("", encoding="utf-8")
    for name, text in (("game.cardc", GAME), ("heroes.cardc", HEROES), ("items.cardc", ITEMS)):
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def _run(cwd: Path, *argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    old = Path.cwd()
    os.chdir(cwd)
    try:
        with redirect_stdout(out), redirect_stderr(err):
            code = cli.main(list(argv))
    finally:
        os.chdir(old)
    return code, out.getvalue(), err.getvalue()


CHECKS = (("check", "--show-provisional", "."), ("check", "--format", "json", "--show-provisional", "."))


def _cold(folder: Path, monkeypatch: pytest.MonkeyPatch, *argv: str) -> tuple[int, str, str]:
    with monkeypatch.context() as m:
        m.setenv("CARDC_CACHE", "off")
        return _run(folder, *argv)


def _same_as_cold(folder: Path, monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, str, str]]:
    """Every check (text and JSON) and the IR dump give what a run with the cache off gives."""
    got = []
    for argv in (*CHECKS, ("dump", ".")):
        warm = _run(folder, *argv)
        assert warm == _cold(folder, monkeypatch, *argv), argv
        got.append(warm)
    return got


def _forbid(monkeypatch: pytest.MonkeyPatch, *names: str) -> None:
    def refuse(*args: object, **kwargs: object) -> Any:
        raise AssertionError("this step should not run for this edit")

    for name in names:
        module = cli if name == "_front" else checkcache
        monkeypatch.setattr(module, name, refuse)


MOVES = {
    "comment appended": lambda t: t + "// edited\n",
    "lines inserted at the top": lambda t: "\n\n\n" + t,
    "a comment and a block comment in the middle": lambda t: t.replace("hero bob {", "/* b\nob */ hero bob { # x"),
    "spacing inside a line": lambda t: t.replace("lives: provisional 3", "lives:   provisional\t3"),
    "an attribute split over lines": lambda t: t.replace('name: { en "Bob" }', 'name:\n  {\n en\n "Bob" }'),
    "blank lines removed": lambda t: t.replace("\n\n", "\n"),
}


@pytest.mark.parametrize("edit", sorted(MOVES))
def test_a_comment_or_spacing_edit_moves_the_stored_diagnostics(tmp_path: Path, cache: Path,
                                                               monkeypatch: pytest.MonkeyPatch, edit: str) -> None:
    folder = _project(tmp_path)
    before = _same_as_cold(folder, monkeypatch)
    assert before[0][0] == 0 and "heroes.cardc:5:" in before[0][2] and "heroes.cardc:8:" in before[0][2]
    heroes = folder / "heroes.cardc"
    heroes.write_text(MOVES[edit](HEROES), encoding="utf-8")
    with monkeypatch.context() as m:
        _forbid(m, "_front", "lookup_trees")  # neither parsed nor checked again
        moved = [_run(folder, *argv) for argv in CHECKS]
    assert moved == [_cold(folder, monkeypatch, *argv) for argv in CHECKS]
    _same_as_cold(folder, monkeypatch)


@pytest.mark.parametrize("edit", ["changed value", "introduced error", "renamed id", "new token, same tree"])
def test_other_edits_are_checked_as_a_cold_run_checks_them(tmp_path: Path, cache: Path,
                                                          monkeypatch: pytest.MonkeyPatch, edit: str) -> None:
    folder = _project(tmp_path)
    clean = _same_as_cold(folder, monkeypatch)
    heroes, items = folder / "heroes.cardc", folder / "items.cardc"
    if edit == "changed value":
        heroes.write_text(HEROES.replace("provisional 3", "provisional 4"), encoding="utf-8")
        assert _same_as_cold(folder, monkeypatch)[0][0] == 0
    elif edit == "introduced error":
        items.write_text(ITEMS.replace("bonus: 1", "bonus: 1 colour: red"), encoding="utf-8")
        after = _same_as_cold(folder, monkeypatch)
        assert after[0][0] == 1 and "items.cardc:10:" in after[0][2] and "error[E201]" in after[0][2]
        items.write_text("\n" + ITEMS.replace("bonus: 1", "bonus: 1 colour: red"), encoding="utf-8")
        assert _same_as_cold(folder, monkeypatch)[0][0] == 1  # an error is never stored, never moved
        items.write_text(ITEMS, encoding="utf-8")  # fixed
        assert _same_as_cold(folder, monkeypatch) == clean
    elif edit == "renamed id":
        heroes.write_text(HEROES.replace("hero ann", "hero anna"), encoding="utf-8")
        after = _same_as_cold(folder, monkeypatch)
        assert after[0][0] == 1 and "items.cardc:7:10" in after[0][2] and "unknown hero `ann`" in after[0][2]
        items.write_text(ITEMS.replace("owner: ann", "owner: anna"), encoding="utf-8")
        assert _same_as_cold(folder, monkeypatch)[0][0] == 0
    else:  # a trailing comma: other tokens, the same parse tree
        heroes.write_text(HEROES.replace("[tall, quick]", "[tall, quick,]"), encoding="utf-8")
        with monkeypatch.context() as m:
            _forbid(m, "_front")  # the tree entry, not the moved one (the tokens differ)
            warm = _run(folder, *CHECKS[0])
        assert warm == _cold(folder, monkeypatch, *CHECKS[0])
        _same_as_cold(folder, monkeypatch)


def test_a_stored_message_that_names_a_line_is_not_moved(tmp_path: Path) -> None:
    """A message naming a line would be wrong once that line moved: the result is recomputed instead, wherever
    the message is reported."""
    (tmp_path / "a.cardc").write_text("\nx y {}\n", encoding="utf-8")  # the text stored below, a line lower
    shown, other = str(tmp_path / "a.cardc"), str(tmp_path / "b.cardc")

    def moved(message: str, where: str) -> checkcache.CheckResult | None:
        d = Diagnostic(Severity.WARNING, "W999", message, Span(where, 1, 1, 1, 2))
        result = checkcache.CheckResult([d], {shown: "x y {}\n"}, {}, 0, 1)
        return checkcache.lookup_moved(checkcache.Lookup("k", {"a.cardc": "new"}, tmp_path,
                                                         previous=({"a.cardc": "old"}, result)))

    for where in (shown, other):
        assert moved("first given at line 1", where) is None
        assert moved("see a.cardc:1:1", where) is None
        assert moved(f"also declared in {shown}", where) is None
    got = moved("nothing", shown)
    assert got is not None and got.diagnostics[0].span == Span(shown, 2, 1, 2, 2)
    assert got.sources[shown] == "\nx y {}\n"
    unmoved = moved("nothing", other)
    assert unmoved is not None and unmoved.diagnostics[0].span == Span(other, 1, 1, 1, 2)


def test_runs_keep_strings_whole() -> None:
    assert runs('a "b # c // d /* e */" f # g\n h /* i */ j')[1] == ['a', '"b # c // d /* e */"', 'f', 'h', 'j']
    assert SpanMap('x "a b"', 'x  "a b" // c').same_tokens
    assert not SpanMap('x "a b"', 'x "a  b"').same_tokens
    assert not SpanMap("x y", "xy").same_tokens
    assert not SpanMap("x // y", "x y").same_tokens


def _spans_and_shape(value: object, spans: list[Span]) -> object:
    """The tree with every Span taken out (into `spans`, in order)."""
    if isinstance(value, Span):
        spans.append(value)
        return "<span>"
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return (type(value).__name__, *(_spans_and_shape(getattr(value, f.name), spans)
                                        for f in dataclasses.fields(value)))
    if isinstance(value, tuple | list):
        return tuple(_spans_and_shape(v, spans) for v in value)
    if isinstance(value, dict):
        return tuple((k, _spans_and_shape(v, spans)) for k, v in value.items())
    return value


# Pieces a random edit inserts: mostly ones the lexer skips, some that make or change a token.
PIECES = (" ", "\n", "\t", "\n\n", "// note\n", "# note\n", "/* a\nb */", "/**/", '"', "/", "x", "1", ",", "{",
          "//", "#", "*/", ".", ":", "\r")


@pytest.mark.parametrize("name", ["content/karak/base/odds.cardc", "content/prophecy/base/main_board.cardc"])
def test_the_same_runs_parse_to_the_same_tree_with_moved_spans(name: str) -> None:
    text = (ROOT / name).read_text(encoding="utf-8-sig")
    old_sink = DiagnosticSink()
    old = parse_text(text, "f.cardc", old_sink)
    assert old is not None and not old_sink.items
    old_spans: list[Span] = []
    old_shape = _spans_and_shape(old, old_spans)
    rng = random.Random(16)
    same = 0
    for _ in range(400):
        new_text = text
        for _ in range(rng.randint(1, 3)):
            at = rng.randrange(len(new_text) + 1)
            if rng.random() < 0.5:  # at a line's end: mostly between tokens, sometimes in a comment
                at = new_text.find("\n", at) % (len(new_text) + 1)
            if rng.random() < 0.15 and at < len(new_text):
                new_text = new_text[:at] + new_text[at + 1:]  # a character deleted
            else:
                new_text = new_text[:at] + rng.choice(PIECES) + new_text[at:]
        moved = SpanMap(text, new_text)
        if not moved.same_tokens:
            continue
        same += 1
        sink = DiagnosticSink()
        new = parse_text(new_text, "f.cardc", sink)
        assert new is not None and not sink.items, repr(new_text)
        new_spans: list[Span] = []
        assert _spans_and_shape(new, new_spans) == old_shape
        assert [moved.span(sp) for sp in old_spans] == new_spans
    assert same >= 40  # the test saw enough edits that keep the tokens


def test_the_copies_limit_follows_cardc_toml(tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`[limits] copies` is read through the cache (`lower._limits_table`): each edit of cardc.toml counts."""
    folder = _project(tmp_path)
    (folder / "items.cardc").write_text(ITEMS.replace("bonus: 1 }", "bonus: 1 copies: 5 }"), encoding="utf-8")
    for limits, error in (("[limits]\ncopies = 3\n", True), ("[limits]\ncopies = 10\n", False),
                          ("[limits]\ncopies = 4\n", True), ("", False)):
        (folder / "cardc.toml").write_text(limits, encoding="utf-8")
        code, _, err = _same_as_cold(folder, monkeypatch)[0]
        assert (code == 1 and "error[E107]" in err and "5 copies is more than" in err) == error, (limits, err)
