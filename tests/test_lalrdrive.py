"""`cardc.lalrdrive` runs Lark's own tables, lexers and callbacks in one loop, and `cardc.fastparse` runs the same
tables read ahead without Lark: every text either parses gives what `Lark.parse` gives (the tree, the diagnostics,
the pickled bytes); every text with a syntax error is left to Lark, which reports it as before."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest
from cardc import fastparse
from cardc import parser as p
from cardc.diagnostics import DiagnosticSink
from cardc.lalrdrive import Unsupported, drive
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lark.exceptions import UnexpectedInput

from tests.test_fmt import edit, mutate

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted((ROOT / "content").rglob("*.cardc"))


def _by_lark(text: str) -> tuple[object, list[object]]:
    """What `parse_text` gave before `lalrdrive`: Lark's parse, or its syntax error reported."""
    lark, transformer = p._parser()
    sink = DiagnosticSink()
    transformer.reset("f.cardc", sink)
    try:
        items = lark.parse(text)
    except UnexpectedInput as err:
        p._report_syntax_error(err, text, "f.cardc", lark, sink)
        return None, sink.items
    return items, sink.items


def _driven(text: str) -> tuple[object, list[object]] | None:
    lark, transformer = p._parser()
    sink = DiagnosticSink()
    transformer.reset("f.cardc", sink)
    try:
        return drive(lark, text), sink.items
    except Unsupported:
        return None


def _fast(text: str) -> tuple[object, list[object]] | None:
    sink = DiagnosticSink()
    parsed = fastparse.parse(text, "f.cardc", sink)
    return None if parsed is None else (parsed[0], sink.items)


def _same(a: object, b: object) -> None:
    assert a == b
    assert pickle.dumps(a, protocol=pickle.HIGHEST_PROTOCOL) == pickle.dumps(b, protocol=pickle.HIGHEST_PROTOCOL)


@pytest.mark.parametrize("path", SOURCES, ids=lambda path: path.name)
def test_every_bundled_file_is_driven_to_larks_tree(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    driven = _driven(text)
    assert driven is not None  # clean content never falls back to Lark
    _same(driven, _by_lark(text))
    fast = _fast(text)
    assert fast is not None
    _same(fast, _by_lark(text))


@pytest.mark.parametrize("text", [
    "", "module m\n", "// only a comment", "module m\nthing a { x: 1 } # end", 'module m\nthing a { x: "\x07" }\n',
    "module m\nthing a { x: " + "9" * 5000 + " }\n", 'module m\nthing a { x: "' + "a" * 70000 + '" }\n',
    "module m\nthing a { x: 9d6 y: " + "b" * 80 + " }\n", "module m\n" + "thing a { " * 8 + "}" * 8 + "\n",
    "module m\nend when " + " and ".join(["x()"] * 30) + "\n",
    # keywords where a state takes them and names where it does not; comments and line breaks in odd places
    "module m\nthing on { each: when extends: if by: extends }\n", "module m\nthing a extends b { x: eachx }",
    "module m\nthing/*c\n\n*/a{x:1}#e\r\n// c\n", "module m\r\nthing a {\tx: [1,2,] y: {en \"a\"} }\r\n",
    "module m\nprocedure turn { for each x { if a() or b() and not (c()) { may d(e: 1) } else { fire f() } } }",
    "module m\nend when x()\nwinner by y(z: 1..2, w: +3, v: 1.5, u: d6, t: :sword:, s: unknown \"n\")\n",
])
def test_edge_texts_give_what_lark_gives(text: str) -> None:
    """Empty texts, comments at the end, warnings and errors the callbacks report (control characters, numbers,
    strings, dice and names past the limits, nesting too deep)."""
    driven = _driven(text)
    assert driven is not None
    _same(driven, _by_lark(text))
    fast = _fast(text)
    assert fast is not None
    _same(fast, _by_lark(text))


@pytest.mark.parametrize("text", ["module m\nthing a { x: }\n", "module m\nthing a { x: 1\n", "module m\n@",
                                  'module m\nthing a { x: "open\n}', "module m\nthing a { x: 12ab }", "}"])
def test_a_syntax_error_is_left_to_lark(text: str) -> None:
    assert _driven(text) is None
    assert _fast(text) is None
    sink = DiagnosticSink()
    assert p.parse_text(text, "f.cardc", sink) is None
    _, reported = _by_lark(text)
    assert sink.items == reported and reported


@settings(max_examples=150, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(pick=st.integers(0, 10**6), edits=st.lists(edit, min_size=1, max_size=6))
def test_generated_programs_give_what_lark_gives(pick: int, edits: list[tuple[str, int, str]]) -> None:
    """The bundled sources with tokens dropped, doubled and spaced out: whatever Lark makes of them (a tree, or
    a syntax error), `parse_text` makes the same."""
    text = mutate(SOURCES[pick % len(SOURCES)].read_text(encoding="utf-8"), edits)
    sink = DiagnosticSink()
    tree = p.parse_text(text, "f.cardc", sink)
    items, reported = _by_lark(text)
    assert sink.items == reported
    if items is None:
        assert tree is None
        return
    driven = _driven(text)
    assert driven is not None
    _same(driven, (items, reported))
    fast = _fast(text)
    assert fast is not None
    _same(fast, (items, reported))


def test_tables_not_read_ahead_for_this_grammar_leave_every_text_to_lark(monkeypatch: pytest.MonkeyPatch) -> None:
    """Frozen tables made from another grammar (or other callbacks) are not used: Lark parses, as before."""
    text = SOURCES[0].read_text(encoding="utf-8")
    monkeypatch.setattr(fastparse, "_made_from", lambda: ("another grammar", ""))
    fastparse._tables.cache_clear()
    try:
        assert _fast(text) is None
        sink = DiagnosticSink()
        assert p.parse_text(text, "f.cardc", sink) is not None
    finally:
        monkeypatch.undo()
        fastparse._tables.cache_clear()
    assert _fast(text) is not None
