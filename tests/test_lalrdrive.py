"""`cardc.lalrdrive` runs Lark's own tables, lexers and callbacks in one loop, and `cardc.fastparse` runs the same
tables read ahead without Lark: every text either parses gives what `Lark.parse` gives (the tree, the diagnostics,
the pickled bytes); every text with a syntax error is left to Lark, which reports it as before."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest
from cardc import fastparse
from cardc import parser as p
from cardc.diagnostics import SYNTAX_CODES, DiagnosticSink
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
    if items is None:  # Lark's error first, then one per later broken item (`parser._later_syntax_errors`)
        assert sink.items[:len(reported)] == reported and reported
        assert all(d.code in SYNTAX_CODES and d.span.line > reported[-1].span.line  # type: ignore[attr-defined]
                   for d in sink.items[len(reported):])
        assert tree is None
        return
    assert sink.items == reported
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


# ---- programs drawn from the grammar: every rule, nested at random, with odd spacing and comments ----------------

_names = st.sampled_from(["a", "b_1", "x", "each", "extends", "when", "on", "by", "d6x", "errata", "kind", "_z",
                          "if", "true", "unknown", "provisional", "end", "winner", "may", "fire"])
_plain_names = st.sampled_from(["a", "b_1", "x", "hero", "monster", "thing", "gain", "lose_life", "_z", "en", "cs"])
_gaps = st.sampled_from([" ", "  ", "\n", "\r\n", "\t", " // c\n", " # c\n", " /* c\n c */ ", "/**/"])
_string_chars = st.text(st.characters(blacklist_characters='"\\\n', blacklist_categories=("Cs",)), max_size=12)
_strings = st.builds(lambda body, esc: '"' + body + esc + '"', _string_chars,
                     st.sampled_from(["", "\\n", '\\"', "\\\\", "\\t", "\\q", "\u2028", "\x07", "\u202e"]))
_atoms = st.one_of(
    st.integers(0, 10**13).map(str), st.integers(-99, 99).map(lambda n: f"{n:+d}"),
    st.sampled_from(["1.5", "0.25", "3..4", "2d6", "d20", "9d99", ":sword:", "true", "false", "unknown",
                     "007", "1..1"]),
    _strings, st.builds(lambda s: "unknown " + s, _strings))


def _join(draw: st.DrawFn, parts: list[str]) -> str:
    return "".join(p + draw(_gaps) for p in parts)


@st.composite
def _call(draw: st.DrawFn, depth: int) -> str:
    name = ".".join(draw(st.lists(_plain_names, min_size=1, max_size=3)))
    if not draw(st.booleans()):
        return name
    args = []
    for _ in range(draw(st.integers(0, 3))):
        value = draw(_value(depth - 1))
        args.append(f"{draw(_plain_names)}: {value}" if draw(st.booleans()) else value)
    trailing = "," if args and draw(st.booleans()) else ""
    return name + "(" + ", ".join(args) + trailing + ")"


@st.composite
def _value(draw: st.DrawFn, depth: int) -> str:
    kind = draw(st.integers(0, 5 if depth > 0 else 1))
    if kind == 0:
        return draw(_atoms)
    if kind == 1:
        return draw(_call(0))
    if kind == 2:
        items = [draw(_value(depth - 1)) for _ in range(draw(st.integers(0, 3)))]
        return "[" + ", ".join(items) + ("," if items and draw(st.booleans()) else "") + "]"
    if kind == 3:
        return "{" + " ".join(f"{draw(_plain_names)} {draw(_strings)}" for _ in range(draw(st.integers(0, 3)))) + "}"
    if kind == 4:
        return f"provisional {draw(_value(depth - 1))} {draw(_strings)}"
    return draw(_call(depth))


@st.composite
def _cond(draw: st.DrawFn, depth: int) -> str:
    kind = draw(st.integers(0, 4 if depth > 0 else 0))
    if kind == 0:
        return draw(_call(1))
    if kind == 1:
        return f"not {draw(_cond(depth - 1))}"
    if kind == 2:
        return f"({draw(_cond(depth - 1))})"
    return f"{draw(_cond(depth - 1))} {'or' if kind == 3 else 'and'} {draw(_cond(depth - 1))}"


@st.composite
def _block(draw: st.DrawFn, depth: int) -> str:
    stmts = []
    for _ in range(draw(st.integers(0, 3))):
        kind = draw(st.integers(0, 7 if depth > 0 else 2))
        if kind == 0:
            stmts.append(draw(_call(2)))
        elif kind == 1:
            stmts.append("may " + draw(_call(2)))
        elif kind == 2:
            stmts.append("fire " + draw(_call(2)))
        elif kind == 3:
            els = " else " + draw(_block(depth - 1)) if draw(st.booleans()) else ""
            stmts.append(f"if {draw(_cond(2))} {draw(_block(depth - 1))}{els}")
        elif kind == 4:
            options = [f"{draw(_plain_names)} {'if ' + draw(_cond(1)) + ' ' if draw(st.booleans()) else ''}"
                       f"{draw(_block(depth - 1))}" for _ in range(draw(st.integers(1, 2)))]
            stmts.append("choose { " + " ".join(options) + " }")
        elif kind == 5:
            stmts.append(f"repeat {draw(st.integers(0, 9))} {draw(_block(depth - 1))}")
        elif kind == 6:
            stmts.append(f"while {draw(_cond(1))} {draw(_block(depth - 1))}")
        else:
            stmts.append(f"for each {draw(_plain_names)} {draw(_block(depth - 1))}")
    return "{" + draw(_gaps) + _join(draw, stmts) + "}"


@st.composite
def _decl(draw: st.DrawFn, depth: int) -> str:
    head = ("errata " if draw(st.booleans()) else "") + f"{draw(_plain_names)} {draw(_names)}"
    if draw(st.booleans()):
        head += " extends " + ".".join(draw(st.lists(_plain_names, min_size=1, max_size=2)))
    members = []
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.integers(0, 2 if depth > 0 else 1))
        if kind == 0:
            members.append(f"{draw(_names)}: {draw(_value(3))}")
        elif kind == 1:
            cond = f" if {draw(_cond(2))}" if draw(st.booleans()) else ""
            members.append(f"on {draw(_call(1))}{cond} {draw(_block(2))}")
        else:
            members.append(draw(_decl(depth - 1)))
    return head + " {" + draw(_gaps) + _join(draw, members) + "}"


@st.composite
def _program(draw: st.DrawFn) -> str:
    items = []
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.integers(0, 5))
        if kind == 0:
            items.append("module " + ".".join(draw(st.lists(_plain_names, min_size=1, max_size=2))))
        elif kind == 1:
            items.append(f"import {draw(_strings)}" + (f" as {draw(_plain_names)}" if draw(st.booleans()) else ""))
        elif kind == 2:
            items.append(f"procedure {draw(_plain_names)} {draw(_block(3))}")
        elif kind == 3:
            items.append(f"end when {draw(_cond(3))}")
        elif kind == 4:
            items.append(f"winner by {draw(_call(2))}")
        else:
            items.append(draw(_decl(2)))
    return draw(_gaps) + _join(draw, items)


@settings(max_examples=300, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(text=_program())
def test_programs_drawn_from_the_grammar_give_what_lark_gives(text: str) -> None:
    """Every rule of the grammar, nested at random (inlined lists of members, statements, values and arguments,
    optional parts absent and present, `?rule`s of one symbol), keywords where names may stand, line breaks and
    comments anywhere, strings with escapes and control characters: the fast parser's tree, diagnostics and pickled
    bytes are Lark's, and it leaves nothing Lark parses cleanly to Lark."""
    items, reported = _by_lark(text)
    fast = _fast(text)
    if items is None:
        assert fast is None
        return
    assert fast is not None
    _same(fast, (items, reported))


@given(body=_string_chars, extra=st.text(max_size=6))
@settings(max_examples=300, deadline=None, derandomize=True, database=None)
def test_a_strings_text_is_read_as_before(body: str, extra: str) -> None:
    """`AstBuilder._text` (which skips the search for control characters in a printable text) gives the text and
    the W105 warning the plain reading gives: the string's text without its control characters."""
    from cardc.astbuild import AstBuilder
    from cardc.lexemes import CONTROL, string_text

    raw = '"' + (body + extra).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
    builder = AstBuilder()
    sink = DiagnosticSink()
    builder.reset("f.cardc", sink)

    class Tok(str):
        line, column, end_line, end_column = 1, 1, 1, len(raw) + 1

    read = builder._text(Tok(raw))
    plain = string_text(raw)
    assert read == CONTROL.sub("", plain)
    found = CONTROL.search(plain)
    assert [d.code for d in sink.items] == ([] if found is None else ["W105"])


@given(file=st.text(max_size=8), numbers=st.lists(st.integers(0, 10**6), min_size=4, max_size=4))
@settings(max_examples=100, deadline=None, derandomize=True, database=None)
def test_spans_made_without_init_are_spans(file: str, numbers: list[int]) -> None:
    """The parser's spans, made by the slots' setters, are the objects `Span(...)` makes: class, fields, equality,
    hash, pickled bytes; and they stay frozen."""
    import dataclasses

    from cardc.astbuild import _make_span
    from cardc.diagnostics import Span

    assert _make_span is not Span  # the fast path is taken for today's Span
    made, plain = _make_span(file, *numbers), Span(file, *numbers)
    assert type(made) is Span and made == plain and hash(made) == hash(plain) and repr(made) == repr(plain)
    assert dataclasses.astuple(made) == (file, *numbers)
    _same(made, plain)
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.line = 2  # type: ignore[misc]


def test_nodes_made_without_init_are_the_nodes() -> None:
    """Every node class the parser and lowering make by the slots' setters (`astbuild.slot_maker`) gives what the
    class itself makes from the same fields: class, equality, hash, repr, pickled bytes; still frozen. A class
    whose fields are not the ones named is made by the class itself, and a maker takes every field."""
    import dataclasses

    from cardc import astbuild, lower
    from cardc import model as m
    from cardc import syntax as s
    from cardc.diagnostics import Span

    span = Span("a.cardc", 1, 2, 3, 4)
    makers = [(value, getattr(s, name[1:])) for name, value in vars(astbuild).items()
              if name.startswith("_") and name[1:2].isupper() and isinstance(getattr(s, name[1:], None), type)]
    assert len(makers) >= 12
    makers += [(value, getattr(m, name[1:])) for name, value in vars(lower).items()
               if name.startswith("_") and name[1:2].isupper() and isinstance(getattr(m, name[1:], None), type)]
    assert len(makers) >= 16
    for make, cls in makers:
        assert make is not cls  # the fast path is taken for today's classes
        values = [f"v{i}" if i < len(dataclasses.fields(cls)) - 1 else span
                  for i in range(len(dataclasses.fields(cls)))]
        made, plain = make(*values), cls(*values)
        assert type(made) is cls and made == plain and hash(made) == hash(plain) and repr(made) == repr(plain)
        _same(made, plain)
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(made, dataclasses.fields(cls)[0].name, "x")
        with pytest.raises(TypeError):
            make(*values[:-1])

    @dataclasses.dataclass(frozen=True, slots=True)
    class Other:
        a: int
        b: int = 0

    assert astbuild.slot_maker(Other, ("b", "a")) is Other  # noqa: SLF001 - fields named in another order
    assert astbuild.slot_maker(Other, ("a",)) is Other  # noqa: SLF001 - a field left out
