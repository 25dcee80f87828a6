"""An edit inside one string, number or name (issue 16.3): the parse tree made from the last one
(`cardc.literal_edit`) is the tree the parser makes of the new text, positions, warnings and pickled bytes alike;
every other edit is left to the parser. `cardc check` after such an edit reports, byte for byte, what a run with
the cache off reports."""

from __future__ import annotations

import pickle
import random
from pathlib import Path
from typing import Any

import pytest
from cardc import syntax as s
from cardc.diagnostics import Diagnostic, DiagnosticSink
from cardc.literal_edit import MAX_TOKENS, patch
from cardc.parser import _parser, parse_text
from hypothesis import given
from hypothesis import strategies as st

from tests.test_check_after_edit import _cold, _project, _run, _same_as_cold, cache  # noqa: F401 - the fixture

ROOT = Path(__file__).resolve().parent.parent
FILES = ["content/prophecy/base/stand_ins.cardc", "content/prophecy/base/professions.cardc",
         "content/karak/base/items.cardc", "content/prophecy/ancient_races/races.cardc"]


def _parsed(text: str) -> tuple[s.FileS | None, list[Diagnostic], bool]:
    sink = DiagnosticSink()
    tree = parse_text(text, "f.cardc", sink)
    return tree, sink.items, sink.has_errors


def _literals(text: str) -> list[tuple[int, int, str]]:
    """(start, end, type) of every string, whole-number and name token, as Lark's lexer finds them."""
    lark, _ = _parser()
    return [(t.start_pos or 0, t.end_pos or 0, t.type) for t in lark.lex(text) if t.type in ("STRING", "INT", "NAME")]


def _agrees(old: str, tree: s.FileS, warnings: list[Diagnostic], new: str) -> bool:
    """Whether `patch` made a tree for `new`; if it did, it is the parser's, to the pickled byte."""
    got = patch(old, tree, warnings, new)
    if got is None:
        return False
    want_tree, want_warnings, errors = _parsed(new)
    assert not errors and got == (want_tree, want_warnings), repr(new)
    assert pickle.dumps(got, protocol=pickle.HIGHEST_PROTOCOL) == pickle.dumps(
        (want_tree, want_warnings), protocol=pickle.HIGHEST_PROTOCOL)  # the same bytes: the same tree digest
    return True


NEW_NAMES = ("x", "renamed", "_under_score", "name2", "Capital")
NEW_STRINGS = ('""', '"x"', '"a longer text, with # and // inside"', '"é \\" ok"', '"tab\\tbed"')


@pytest.mark.parametrize("name", FILES)
def test_a_new_value_in_any_literal_gives_the_parsers_tree(name: str) -> None:
    """Each string, number or name of a real file replaced by another of its type: the tree is made, and is right."""
    text = (ROOT / name).read_text(encoding="utf-8-sig")
    tree, warnings, errors = _parsed(text)
    assert tree is not None and not errors
    rng = random.Random(name)
    literals = _literals(text)
    made = 0
    for start, end, kind in rng.sample(literals, min(60, len(literals))):
        value = (rng.choice(NEW_STRINGS) if kind == "STRING" else str(rng.randrange(0, 10 ** rng.randint(1, 6)))
                 if kind == "INT" else rng.choice(NEW_NAMES))
        made += _agrees(text, tree, warnings, text[:start] + value + text[end:])
    # Strings after a list or a call (a provisional value's note), import paths and dotted or `extends` names are
    # left to the parser.
    assert made >= 0.6 * min(60, len(literals)), made
    several = 0
    for _ in range(20):  # two to five literals changed at once, anywhere in the file
        new = text
        for start, end, kind in sorted(rng.sample(literals, rng.randint(2, 5)), reverse=True):
            value = rng.choice(NEW_STRINGS) if kind == "STRING" else "42" if kind == "INT" else rng.choice(NEW_NAMES)
            new = new[:start] + value + new[end:]
        several += _agrees(text, tree, warnings, new)
    assert several >= 4, several


def test_more_tokens_than_the_limit_are_parsed() -> None:
    text = "module m\n" + "".join(f'thing t{i} {{ words: "w{i}" }}\n' for i in range(MAX_TOKENS + 1))
    tree, warnings, errors = _parsed(text)
    assert tree is not None and not errors
    under = text.replace('"w', '"v', MAX_TOKENS)
    assert _agrees(text, tree, warnings, under)
    assert patch(text, tree, warnings, text.replace('"w', '"v')) is None


# Pieces an edit puts in or near a literal: most keep it one token, some end it, split it, or make it another.
TRICKY = st.sampled_from(['"', "\\", '\\"', "\\n", "\n", "x", "7", "0", " ", "é", "\x07", "\u2028", "\u202e", "#",
                          "//", "d", "d6", ".", "..", "_", "+", ":a:", "a" * 70, "on", "true", "if"])


@given(which=st.integers(min_value=0), cut=st.integers(0, 3), at=st.integers(0, 40),
       pieces=st.lists(TRICKY, max_size=3))
def test_any_edit_near_a_literal_gives_the_parsers_tree_or_none(which: int, cut: int, at: int,
                                                                pieces: list[str]) -> None:
    text = (ROOT / FILES[0]).read_text(encoding="utf-8-sig")
    tree, warnings, _ = _parsed(text)
    assert tree is not None
    start, end, _ = _literals(text)[which % len(_literals(text))]
    where = start + at % (end - start + 2)  # inside the literal, or just after it
    new = text[:where] + "".join(pieces) + text[where + cut:]
    got = patch(text, tree, warnings, new)
    if got is not None:
        assert _agrees(text, tree, warnings, new)


SOURCE = """module m
game m { name: { en "M" } languages: [en] }
import "other.cardc"
kind thing {
  name: { en "Thing" }
  attr power { type: int  default: 1 }
  attr words { type: string  default: "" }
  attr tags { type: list(ident)  default: [] }
}
thing a { name: { en "A" } power: 3 words: "plain" }
thing b { name: { en "B" } power: provisional 2 "maybe three" words: unknown "ask the designer" }
thing c { name: { en "C" } tags: provisional [x, y] "a list's note" }
"""


@pytest.mark.parametrize(("old", "new", "made"), [
    ('power: 3 words: "plain"', 'power: 3 words: "plainer"', True),  # a string value
    ('power: 3 words: "plain"', 'power: 345 words: "plain"', True),  # a number
    ('{ en "A" }', '{ en "Aa" }', True),  # a localized text
    ('unknown "ask the designer"', 'unknown "ask"', True),  # the note of an unknown value
    ('provisional 2 "maybe three"', 'provisional 2 "maybe four"', True),  # a provisional value's note
    ('provisional 2 "maybe', 'provisional 21 "maybe', True),  # and its value
    ('"a list\'s note"', '"the note"', False),  # after a list: left to the parser
    ('import "other.cardc"', 'import "another.cardc"', False),  # an import: left to the parser
    ('words: "plain"', 'words: "pl\x07ain"', False),  # W105: the parser removes it and warns
    ('words: "plain"', 'words: "' + "p" * 10_001 + '"', False),  # E105: past the limit
    ('power: 3', 'power: 3333333333333', False),  # E105: past the digits' limit
    ('power: 3', 'power: 3d6', False),  # another token type
    ('power: 3', 'power: 3.5', False),
    ('words: "plain"', 'words: "pl"ain"', False),  # the string ends early
    ('words: "plain"', 'words: "pl\nain"', False),  # a line break
    ('power: 3 words', 'power: 4 wordz', True),  # two tokens: one after the other
    ('words: "plain" }\nthing b {', 'words: "plainer" }\nthing bee {', True),  # on two lines
    ('thing a { name: { en "A" } power: 3', 'thing a1 { name: { fr "Ab" } power: 4', True),  # four tokens
    ('power: 3 words: "plain"', 'power: 34words: "plain"', False),  # two tokens made one
    ('power: 3 words: "plain"', 'power: 4 words: "pl\x07ain"', False),  # the second left to the parser
    ('power: 3 words: "plain"', 'power: 4 words: "pl"ain"', False),  # the second string ends early
    ('power: 3 words: "plain"', 'power: 4 words  "plain"', False),  # a token removed
    ("thing a {", "thing a1 {", True),  # an id
    ("thing b {", "thingy b {", True),  # a declaration's kind
    ("attr power {", "attr force {", True),  # a declaration's id again
    ('power: 3 words: "plain"', 'strength: 3 words: "plain"', True),  # an attribute's name
    ("[x, y]", "[x, why]", True),  # a reference
    ('{ en "A" }', '{ fr "A" }', True),  # a language
    ("module m", "module mod", True),
    ("thing a {", "thing d6 {", False),  # dice, not a name
    ("thing a {", "thing true {", False),  # a keyword
    ("thing a {", "thing " + "a" * 65 + " {", False),  # E105: past the names' limit
    ("thing a {", "thing a.b {", False),
    ("type: int  default: 1", "type: int_  default: 1", True),
])
def test_which_edits_are_made_without_the_parser(old: str, new: str, made: bool) -> None:
    tree, warnings, errors = _parsed(SOURCE)
    assert tree is not None and not errors and SOURCE.count(old) == 1
    edited = SOURCE.replace(old, new)
    assert (patch(SOURCE, tree, warnings, edited) is not None) == made
    if made:
        assert _agrees(SOURCE, tree, warnings, edited)


def test_warnings_after_the_edit_move_with_their_line() -> None:
    text = 'module m\nthing a { x: "a" y: "b\x07c" }\n'
    tree, warnings, errors = _parsed(text)
    assert tree is not None and not errors and [w.code for w in warnings] == ["W105"]
    assert _agrees(text, tree, warnings, text.replace('"a"', '"abc"'))  # W105 two columns further
    assert patch(text, tree, warnings, text.replace("x:", "x :")) is None  # spacing: `checkcache.lookup_moved`


# `cardc check` through the cache after value edits: a run with the cache off reports the same, and the parser
# is not called for a one-literal edit.

def _no_parse(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("parsed: this edit should be made from the stored tree")

    monkeypatch.setattr("cardc.parser.parse_text", refuse)


EDITS = {  # (file, old, new, parsed?)
    "a changed text": ("heroes.cardc", 'unknown "four or five?"', 'unknown "five"', False),
    "a changed number": ("items.cardc", "bonus: 1 }", "bonus: 7 }", False),
    "a changed name": ("items.cardc", '{ en "Hat" }', '{ en "Top hat" }', False),
    "a changed provisional value": ("heroes.cardc", "provisional 3", "provisional 4", False),
    "a missing image named": ("items.cardc", 'art: "cup.png"', 'art: "cupp.png"', False),
    "an id renamed, referenced from another file": ("heroes.cardc", "hero ann", "hero anna", False),
    "a reference changed": ("items.cardc", "owner: ann", "owner: bob", False),
    "a reference to nothing": ("items.cardc", "owner: ann", "owner: nobody", False),
    "an entity moved to another game": ("items.cardc", "module duel\nimport", "module duet\nimport", False),
    "an import changed": ("items.cardc", 'import "heroes.cardc"', 'import "heroez.cardc"', True),
    "three values on two lines": ("items.cardc", 'owner: ann\n  art: "cup.png"\n  bonus: provisional 2',
                                  'owner: bob\n  art: "cupp.png"\n  bonus: provisional 5', False),
    "a value and a name to nothing": ("items.cardc", '{ en "Hat" } owner: bob', '{ en "Cap" } owner: carl', False),
}


def _project_with_art(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Any]:
    """The small project with an image attribute and a picture, and its clean cold check."""
    folder = _project(tmp_path)
    (folder / "cup.png").write_bytes(_png())
    items = (folder / "items.cardc").read_text(encoding="utf-8")
    (folder / "items.cardc").write_text(items.replace("bonus: provisional 2", 'art: "cup.png"\n  bonus: provisional 2'),
                                        encoding="utf-8")
    (folder / "game.cardc").write_text((folder / "game.cardc").read_text(encoding="utf-8").replace(
        "attr bonus {", "attr art { type: path  default: \"cup.png\" }\n  attr bonus {"), encoding="utf-8")
    clean = _same_as_cold(folder, monkeypatch)
    assert clean[0][0] == 0, clean[0][2]
    return folder, clean


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_check_after_a_value_edit_is_a_cold_check(tmp_path: Path, cache: Path,  # noqa: F811 - the fixture
                                                  monkeypatch: pytest.MonkeyPatch, edit: str) -> None:
    folder, clean = _project_with_art(tmp_path, monkeypatch)
    name, old, new, parsed = EDITS[edit]
    path = folder / name
    before = path.read_text(encoding="utf-8")
    assert before.count(old) == 1
    path.write_text(before.replace(old, new), encoding="utf-8")
    with monkeypatch.context() as m:
        if not parsed:
            _no_parse(m)
        warm = _run(folder, "check", "--show-provisional", ".")
    assert warm == _cold(folder, monkeypatch, "check", "--show-provisional", ".")
    after = _same_as_cold(folder, monkeypatch)
    assert (after[0][0] == 1) == (edit in ("a missing image named", "an id renamed, referenced from another file",
                                           "an import changed", "a reference to nothing",
                                           "an entity moved to another game", "three values on two lines",
                                           "a value and a name to nothing")), after[0][2]
    path.write_text(before, encoding="utf-8")  # and back
    assert _same_as_cold(folder, monkeypatch) == clean


def _png() -> bytes:
    """A 1x1 PNG."""
    from io import BytesIO

    from PIL import Image

    out = BytesIO()
    Image.new("RGB", (1, 1)).save(out, format="PNG")
    return out.getvalue()


PARTS = """module m
import "a.cardc"
thing a { name: { en "A" } } thing b { name: { en "B" } power: 1 }
errata
thing c { name: { en "C" } }
procedure p { x(1) }
end when
  x(2) and y(3)
  or z(4)
thing d {
  name: { en "D" }
  power: 7 } thing e { name: { en "E" } }
"""


@pytest.mark.parametrize(("old", "new"), [
    ('{ en "A" }', '{ en "A longer A" }'),  # a declaration after it on its line moves
    ('{ en "B" }', '{ en "Bb" }'),
    ("power: 1", "power: 12345"),
    ('{ en "C" }', '{ en "" }'),  # after `errata` on the line before
    ("x(1)", "x(9)"),
    ("x(2)", "x(20)"),  # an `end when` whose span is not its first token
    ("z(4)", "zz(4)"),
    ('{ en "D" }', '{ en "Dd" }'),  # the second line of a declaration
    ("power: 7", "power: 777"),  # and its last, shared with the next one
    ('{ en "E" }', '{ en "" }'),
    ('import "a.cardc"', 'import "b.cardc"'),
])
def test_an_edit_among_declarations_on_shared_lines_gives_the_parsers_tree(old: str, new: str) -> None:
    """Only the parts of the file on the edited line are walked and rebuilt (`_far_parts`): the others are
    kept, and the tree is still the parser's."""
    tree, warnings, errors = _parsed(PARTS)
    assert tree is not None and not errors and PARTS.count(old) == 1
    edited = PARTS.replace(old, new)
    if old.startswith("import"):
        assert patch(PARTS, tree, warnings, edited) is None  # an import's path is left to the parser
    else:
        assert _agrees(PARTS, tree, warnings, edited)


@given(st.lists(st.sampled_from(["a", "é", "\\", "\\n", "\\t", '\\"', "\\\\", "\\x", "\u2028", "\u2029", "\n", " "]),
                max_size=12).map("".join))
def test_a_string_s_text_is_read_as_every_escape_and_separator_says(body: str) -> None:
    import re

    from cardc.lexemes import string_text, unescape

    escapes = {"n": "\n", "t": "\t", '"': '"', "\\": "\\"}
    read = re.sub(r"\\(.)", lambda m: escapes.get(m.group(1), m.group(1)), body)  # the reading, written out
    assert unescape(f'"{body}"') == read
    assert string_text(f'"{body}"') == read.replace("\u2028", "\n").replace("\u2029", "\n")
