"""A parse tree after an edit inside one token (or a few), made from the tree before it: no parse, no Lark.

The edit a designer makes most changes one value or one name: a text in a `source:` or a card's name, a
strength, an id or the reference to it. When the new text is the old one with a single string, whole-number or
name token replaced by another token of the same type, it lexes into the same tokens but that one:
- the tokens before it are the same (a token looks ahead one character at most, and the token's first
  character keeps its class: a quote stays a quote, a digit a digit, a letter or `_` a letter or `_`);
- the new token lexes whole, as the same type (a string ends at its first unescaped quote, a number at its last
  digit, a name at its last letter, digit or `_`, and the character after it, which ended the old token, is the
  same; a name that the lexer would take for dice or a keyword is refused);
- the tokens after it are the same, on the same lines (none of these tokens holds a line break).
The LALR parser sees the same token types, so it builds the same tree; only the one field made from that token
holds another value, and every position after the token on its line moves by the change in length.

The token's field is found through the node it belongs to: a string value or number (the node's span is the
token), a localized entry (`en "..."`: its language, and the string after it), the note of `unknown "..."`, the
note of a provisional value whose value is a single token, a declaration's kind and id, the name of an
attribute, argument, option, `for each`, procedure, module or reference (an undotted one). Anything else (an
import's path or kind, the note after a list, `extends`, an edit across tokens or lines, a token past the
parser's limits or a string holding a character the parser warns about) gives None, and the file is parsed.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator
from functools import cache
from typing import cast

from cardc import syntax as s
from cardc.diagnostics import Diagnostic, Span
from cardc.lexemes import CONTROL, MAX_DIGITS, MAX_NAME, MAX_STRING, string_text
from cardc.spanmap import line_starts

STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')  # dsl/cardc.lark's STRING
DIGITS = re.compile(r"[0-9]+")  # its INT, which also needs no letter, digit, `_` or `.` after (unchanged here)
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")  # its NAME
# A name the lexer would take for another token: dice (`d6`, DICE has priority over NAME), or a keyword.
_NOT_A_NAME = re.compile(r"d[0-9]+")
# What the lexer skips between tokens: the grammar's COMMENT, BLOCK_COMMENT and whitespace.
_SKIPPED = re.compile(r"(?://[^\n]*|#[^\n]*|/\*(?:.|\n)*?\*/|[ \t\r\n\f])*")

# Values made of one token: a provisional value's note is the string right after it.
_ONE_TOKEN = (s.IntV, s.SignedV, s.DecimalV, s.RangeV, s.DiceV, s.StrV, s.IconV, s.BoolV)
_NODES = frozenset(v for v in vars(s).values() if isinstance(v, type) and v.__module__ == s.__name__)

Node = object


class _Token(str):
    """A name as Lark's lexer gives it: `str()` of it is a new string, where a slice of one character is shared
    (CPython keeps one object per such string), which would change the tree's pickle."""


Slot = tuple[Node, int, re.Pattern[str]]  # the node, the index of the token's field in its constructor, the token


MAX_TOKENS = 16  # an edit of more tokens than this is left to the parser (each costs a walk of the tree)


def patch(old: str, tree: s.FileS, warnings: list[Diagnostic],
          new: str) -> tuple[s.FileS, list[Diagnostic]] | None:
    """The tree and parse warnings of `new`, from those of `old` (a text that parsed without errors), if the
    two differ inside string, number or name tokens whose fields are known (at most MAX_TOKENS); else None.

    An edit of several tokens is made one token at a time, front to back: each step replaces the first token
    that differs by the token of its type at the same place in `new`, and is itself an edit inside one token
    of a text that lexes like the last (so the argument above holds for each step). When a step cannot be
    made, or the steps do not end at `new`, the file is parsed."""
    if old == new:
        return None
    text = old
    for _ in range(MAX_TOKENS):
        step = _one_token(text, tree, warnings, new)
        if step is None:
            return None
        text, tree, warnings = step
        if text == new:
            return tree, warnings
    return None


def _one_token(old: str, tree: s.FileS, warnings: list[Diagnostic],
               new: str) -> tuple[str, s.FileS, list[Diagnostic]] | None:
    """(text, tree, warnings) after the first token that differs between `old` and `new` is replaced by
    the token of its type at the same place in `new`: `new` itself if that is the only difference."""
    start, old_end, new_end = _changed(old, new)
    lines = line_starts(old)
    far = _far_parts(tree, bisect_right(lines, start))
    slots = _slots(tree, old, lines, far)
    starts = sorted(slots)
    i = bisect_right(starts, start) - 1
    for at in starts[max(i - 1, 0):i + 1][::-1]:  # the token the edit starts in, or the one ending where it starts
        step = _step(old, new, at, slots[at], start, old_end, new_end)
        if step is None:
            continue
        found = _replace(old, step, at, slots[at], start, _changed(old, step)[1])
        if found is not None:
            token_end, value = found
            return (step, *_rebuild(tree, warnings, old, lines, slots[at], value, at, token_end,
                                    len(step) - len(old), far))
    return None


def _step(old: str, new: str, at: int, slot: Slot, start: int, old_end: int, new_end: int) -> str | None:
    """The text one token nearer `new`: `new` if the difference lies inside the token at `at` and holds no line
    break, else `old` with that token replaced by the one of its type starting at `at` in `new` (None when
    there is none, or the edit does not start inside the token)."""
    pattern = slot[2]
    token = pattern.match(old, at)
    if token is None or not at <= start <= token.end():
        return None
    if old_end <= token.end() and "\n" not in old[start:old_end] and "\n" not in new[start:new_end]:
        return new
    other = pattern.match(new, at)  # new[at:start] == old[at:start]: the same token start
    if other is None or "\n" in other.group():
        return None
    step = old[:at] + other.group() + old[token.end():]
    return None if step == old else step


@cache
def keywords() -> frozenset[str]:
    """Every word the grammar spells out (`module`, `on`, `true`, ...): as a name, each lexes as another token."""
    from cardc.resources import DSL_DIR

    grammar = (DSL_DIR / "cardc.lark").read_text(encoding="utf-8")
    return frozenset(re.findall(r'"([A-Za-z_][A-Za-z0-9_]*)"', grammar))


def _changed(old: str, new: str) -> tuple[int, int, int]:
    """Where the texts start to differ, and where the difference ends in each (after it they are the same)."""
    lo, hi = 0, min(len(old), len(new))
    while lo < hi:  # the longest common prefix, by halves (slices compare in C)
        mid = (lo + hi + 1) // 2
        if old[lo:mid] == new[lo:mid]:
            lo = mid
        else:
            hi = mid - 1
    prefix = lo
    lo, hi = 0, min(len(old), len(new)) - prefix
    while lo < hi:  # the longest common suffix not overlapping it
        mid = (lo + hi + 1) // 2
        if old[len(old) - mid:len(old) - lo] == new[len(new) - mid:len(new) - lo]:
            lo = mid
        else:
            hi = mid - 1
    return prefix, len(old) - lo, len(new) - lo


def _far_parts(tree: s.FileS, line: int) -> dict[int, object]:
    """The module line, imports and declarations of the file that hold nothing on `line` (by `id`): a token
    there is not theirs and no position of theirs moves. A part runs from the line of its span to that of the
    next part's (a declaration's span is its kind: everything in it comes at or after it; `errata` before it
    has no field). Procedures are never far: an `end when`'s span is its condition's, which may come after
    the first token of it."""
    parts: list[s.ModuleS | s.ImportS | s.DeclS | s.ProcedureS | s.EndS | s.WinnerS] = [
        *((tree.module,) if tree.module is not None else ()), *tree.imports, *tree.decls, *tree.procedures]
    starts = sorted(p.span.line for p in parts)
    far: dict[int, object] = {}
    for p in parts:
        if isinstance(p, s.ProcedureS | s.EndS | s.WinnerS):
            continue
        first = p.span.line
        after = bisect_right(starts, first)  # the first part starting on a later line, if any
        if first > line or (after < len(starts) and starts[after] < line):
            far[id(p)] = p
    return far


def _walk(node: object, far: dict[int, object] | None = None) -> Iterator[object]:
    """Every parse-tree node under `node`, itself included (but none of the `far` parts)."""
    todo = [node]
    while todo:
        here = todo.pop()
        if isinstance(here, tuple):
            todo.extend(here)
        elif type(here) in _NODES and (far is None or id(here) not in far):
            yield here
            todo.extend(_fields(here))


def _fields(node: object) -> tuple[object, ...]:
    """The node's constructor arguments (`cardc.records` gives every parse-tree class this `__reduce__`)."""
    return cast("tuple[object, ...]", node.__reduce__()[1])


def _slots(tree: s.FileS, text: str, lines: list[int], far: dict[int, object] | None = None) -> dict[int, Slot]:
    """Where each string, number and name token whose field is known starts in `text`, with that field (in
    every part of the file but the `far` ones)."""
    def start(sp: Span) -> int:
        return lines[sp.line - 1] + sp.col - 1

    def after(sp: Span) -> int:  # where the next token starts (-1: the span has no end, so no slot)
        if sp.end_line < 1:
            return -1
        skipped = _SKIPPED.match(text, lines[sp.end_line - 1] + sp.end_col - 1)
        return -1 if skipped is None else skipped.end()

    found: list[tuple[int, Slot]] = []
    for node in _walk(tree, far):
        if isinstance(node, s.StrV):
            found.append((start(node.span), (node, 0, STRING)))
        elif isinstance(node, s.IntV):
            found.append((start(node.span), (node, 0, DIGITS)))
        elif isinstance(node, s.TextEntry):
            found += [(start(node.span), (node, 0, NAME)), (after(node.span), (node, 1, STRING))]
        elif isinstance(node, s.UnknownV) and node.note is not None:
            found.append((after(node.span), (node, 0, STRING)))
        elif isinstance(node, s.ProvisionalV) and (isinstance(node.value, _ONE_TOKEN) or (
                isinstance(node.value, s.CallV) and node.value.args is None)):
            found.append((after(node.value.span), (node, 1, STRING)))
        elif isinstance(node, s.DeclS):
            found += [(start(node.span), (node, 0, NAME)), (start(node.id_span), (node, 1, NAME))]
        elif isinstance(node, s.AttrS | s.OptionS | s.ForEachS | s.ProcedureS) or (
                isinstance(node, s.Arg) and node.name is not None):
            found.append((start(node.span), (node, 0, NAME)))  # the name is its first field, its span the token
        elif isinstance(node, s.CallV | s.ModuleS) and "." not in node.name:  # a dotted name spans tokens
            found.append((start(node.span), (node, 0, NAME)))
    out: dict[int, Slot] = {}
    claimed: set[int] = set()
    for at, slot in found:  # a token claimed by two fields is left to the parser (none is, as parsed)
        if at < 0:
            continue
        if at in out and (out[at][0] is not slot[0] or out[at][1] != slot[1]):
            claimed.add(at)
        out[at] = slot
    for at in claimed:
        del out[at]
    return out


def _replace(old: str, new: str, at: int, slot: Slot, start: int, old_end: int) -> tuple[int, object] | None:
    """(end of the old token, the new field value) if the edit lies in the token at `at` and leaves a token of
    its type that the parser takes as it is; None otherwise."""
    node, index, pattern = slot
    token = pattern.match(old, at)
    if token is None or not (at <= start and old_end <= token.end()):
        return None
    raw, value = token.group(), _fields(node)[index]
    new_raw = new[at:token.end() + len(new) - len(old)]
    if pattern.fullmatch(new_raw) is None:
        return None
    if pattern is DIGITS:
        if int(raw) != value or len(new_raw) > MAX_DIGITS:  # past the limit: E105 from the parser
            return None
        return token.end(), int(new_raw)
    if pattern is NAME:
        if raw != value or len(new_raw) > MAX_NAME or _NOT_A_NAME.fullmatch(new_raw) or new_raw in keywords():
            return None
        return token.end(), str(_Token(new_raw))  # a copy, as the parser's `str(token)`: never shared
    text = string_text(new_raw)
    if string_text(raw) != value or len(new_raw) - 2 > MAX_STRING or CONTROL.search(text) is not None:
        return None  # W105 (a control character) or E105 (too long): the parser reports them
    return token.end(), text


def _rebuild(tree: s.FileS, warnings: list[Diagnostic], old: str, lines: list[int], slot: Slot, value: object,
             at: int, token_end: int, delta: int,
             far: dict[int, object] | None = None) -> tuple[s.FileS, list[Diagnostic]]:
    """The tree with the slot's field set to `value` and every position after the token on its line moved by
    `delta`; objects shared in the old tree stay shared (their pickles match a fresh parse's). The `far`
    parts hold nothing on that line: they are kept as they are."""
    line = bisect_right(lines, at)
    end_col = token_end - lines[line - 1] + 1  # the column just after the old token

    def move(sp: Span) -> Span:
        col = sp.col + delta if sp.line == line and sp.col >= end_col else sp.col
        last = sp.end_col + delta if sp.end_line == line and sp.end_col >= end_col else sp.end_col
        return sp if (col, last) == (sp.col, sp.end_col) else Span(sp.file, sp.line, col, sp.end_line, last)

    target, index, _ = slot
    memo: dict[int, object] = dict(far or {})

    def copy(obj: object) -> object:
        known = memo.get(id(obj))
        if known is not None:
            return known
        if isinstance(obj, Span):
            out: object = move(obj)
        elif isinstance(obj, tuple):
            items = tuple(copy(x) for x in obj)
            out = obj if all(a is b for a, b in zip(items, obj, strict=True)) else items
        elif type(obj) in _NODES:
            args = _fields(obj)
            moved = [copy(x) for x in args]
            if obj is target:
                moved[index] = value
            out = obj if all(a is b for a, b in zip(moved, args, strict=True)) else type(obj)(*moved)
        else:  # a str, int, bool, Fraction or None
            return obj
        memo[id(obj)] = out
        return out

    new_tree = copy(tree)
    assert isinstance(new_tree, s.FileS)
    return new_tree, [d if move(d.span) is d.span else Diagnostic(d.severity, d.code, d.message, move(d.span), d.hint)
                      for d in warnings]
