"""The canonical layout of `.cardc` source, printed from the full parse tree (every token kept).

The printer knows no construct by name: any `{ ... }` group of any rule is laid out alike, so syntax added
to the grammar formats without changes here. The rules:

- a `{ ... }` group written on one line (and holding no comment) stays on one line; otherwise each member
  goes on its own line, two spaces deeper than the line that opens the group, and `}` on a line of its own;
- members on one line are separated by one space, or by two when they are `name: value` pairs;
- inside a member, tokens are separated by one space (none around `.`, after `(` `[`, before `)` `]` `,` `:`,
  nor before a call's `(`); a line break the designer put inside a member is kept, indented four deeper;
- blank lines between members and top-level items are kept, at most one; comments are kept verbatim,
  on their own line or after the code they followed.

Formatting never changes the tokens of the file: `format_text` checks that the result lexes to the same
tokens and comments as the input, and refuses otherwise.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from cardc.parser import GRAMMAR_PATH
from lark import Lark, Token, Tree
from lark.exceptions import LarkError

_NO_SPACE_BEFORE = frozenset({"RPAR", "RSQB", "COMMA", "COLON", "DOT"})
_NO_SPACE_AFTER = frozenset({"LPAR", "LSQB", "DOT"})
_BLANK_LINE = re.compile(r"\n[ \t\r\f]*\n")
CONTINUATION = 4
STEP = 2


class FormatError(Exception):
    """The text cannot be formatted (a syntax error) or formatting would change it (an internal error)."""


@dataclass
class _Parsed:
    tree: Tree[Token]
    comments: list[Token]


@dataclass
class _Collector:
    comments: list[Token] = field(default_factory=list)

    def __call__(self, tok: Token) -> Token:
        self.comments.append(tok)
        return tok


@lru_cache(maxsize=1)
def _lark() -> tuple[Lark, _Collector]:
    collector = _Collector()
    lark = Lark(GRAMMAR_PATH.read_text(encoding="utf-8"), parser="lalr", lexer="contextual",
                keep_all_tokens=True, maybe_placeholders=False,
                lexer_callbacks={"COMMENT": collector, "BLOCK_COMMENT": collector})
    return lark, collector


def _parse(text: str) -> _Parsed:
    lark, collector = _lark()
    collector.comments = []
    try:
        tree = lark.parse(text)
    except LarkError as err:  # any Lark failure: the caller reports the real diagnostic
        raise FormatError(f"syntax error: {err}") from None
    return _Parsed(tree, sorted(collector.comments, key=lambda t: t.start_pos or 0))


def _tokens(tree: Tree[Token]) -> list[tuple[str, str]]:
    return [(t.type, str(t)) for t in tree.scan_values(lambda v: isinstance(v, Token))]


class _Printer:
    def __init__(self, text: str, comments: list[Token]) -> None:
        self.text = text
        self.comments = comments
        self.ci = 0
        self.lines: list[str] = []
        self.cur = ""  # the output line being built, indentation included
        self.prev: Token | None = None  # the last token or comment printed
        self.prev_type = ""  # the type of the last token printed on the current line ("" at line start)
        self.pending: int | None = None  # a line break is due before the next token, at this indent
        self.comment_indent: int | None = None  # where own-line comments before the next token go
        self.blank_ok = False  # the due line break may keep a blank line of the source
        self.space: str | None = None  # the separator before the next token, when a group decides it
        self.glue = False  # the next token stays on this line whatever the source did

    # ---- lines
    def _flush(self) -> None:
        if self.cur.strip():
            self.lines.append(self.cur.rstrip())
        self.cur = ""
        self.prev_type = ""

    def _blank_between(self, start: int) -> bool:
        end = (self.prev.end_pos or 0) if self.prev is not None else 0
        return self.prev is not None and bool(_BLANK_LINE.search(self.text, end, start))

    def _new_line(self, indent: int, start: int, blank_ok: bool) -> None:
        self._flush()
        if blank_ok and self.lines and self._blank_between(start):
            self.lines.append("")
        self.cur = " " * indent

    # ---- tokens
    def _comments_before(self, pos: int, base: int) -> None:
        while self.ci < len(self.comments) and (self.comments[self.ci].start_pos or 0) < pos:
            c = self.comments[self.ci]
            self.ci += 1
            text = str(c).rstrip()
            trailing = self.prev is not None and self.cur.strip() and (self.prev.end_line or 0) == c.line
            if trailing:
                self.cur += "  " + text
                if self.pending is None:
                    self.pending, self.blank_ok = base + CONTINUATION, False
            else:
                indent = self.comment_indent if self.comment_indent is not None else (
                    self.pending if self.pending is not None else
                    (base + CONTINUATION if self.cur.strip() else len(self.cur)))
                self._new_line(indent, c.start_pos or 0, blank_ok=True)
                self.cur += text
                if self.pending is None:
                    self.pending, self.blank_ok = indent, False
            self.prev = c
            self.prev_type = "COMMENT"

    def token(self, tok: Token, base: int) -> None:
        self._comments_before(tok.start_pos or 0, base)
        self.comment_indent = None
        if (self.pending is None and not self.glue and self.prev is not None
                and (tok.line or 0) > (self.prev.end_line or 0) and self.cur.strip()):
            self.pending, self.blank_ok = base + CONTINUATION, False  # the designer's line break
        if self.pending is not None:
            self._new_line(self.pending, tok.start_pos or 0, self.blank_ok)
            self.pending = None
            self.blank_ok = False
        elif self.cur.strip():
            if self.space is not None:
                self.cur += self.space
            elif not (tok.type in _NO_SPACE_BEFORE or self.prev_type in _NO_SPACE_AFTER
                      or (tok.type == "LPAR" and self.prev_type == "NAME")):
                self.cur += " "
        self.space = None
        self.glue = False
        self.cur += str(tok)
        self.prev = tok
        self.prev_type = tok.type

    def break_before_next(self, indent: int, blank_ok: bool = True) -> None:
        self.pending, self.blank_ok = indent, blank_ok

    # ---- trees
    def node(self, item: Tree[Token] | Token, base: int) -> None:
        if isinstance(item, Token):
            self.token(item, base)
            return
        kids = item.children
        opens = [i for i, k in enumerate(kids) if isinstance(k, Token) and k.type == "LBRACE"]
        closes = [i for i, k in enumerate(kids) if isinstance(k, Token) and k.type == "RBRACE"]
        if not opens or not closes or closes[-1] < opens[0]:
            for k in kids:
                self.node(k, base)
            return
        i, j = opens[0], closes[-1]
        for k in kids[:i]:
            self.node(k, base)
        self.group(kids[i], kids[i + 1:j], kids[j], base)  # type: ignore[arg-type]
        for k in kids[j + 1:]:
            self.node(k, base)

    def _has_comment(self, start: int, end: int) -> bool:
        return any(start < (c.start_pos or 0) < end for c in self.comments[self.ci:])

    def group(self, open_: Token, members: list[Tree[Token] | Token], close: Token, base: int) -> None:
        commented = self._has_comment(open_.start_pos or 0, close.start_pos or 0)
        if not commented and (open_.line == close.line or not members):
            self.token(open_, base)
            pairs = any(_is_pair(m) for m in members)
            for n, m in enumerate(members):
                self.space = ("  " if pairs else " ") if n else " "
                self.node(m, base)
            self.space = " " if members else ""
            self.token(close, base)
            return
        self.token(open_, base)
        outer, inner = base, base + STEP
        for m in members:
            self.break_before_next(inner, blank_ok=m is not members[0])
            self.node(m, inner)
        self.break_before_next(outer, blank_ok=False)
        self.comment_indent = inner
        self.token(close, base)
        self.glue = True  # `} else {`: what follows a closed block stays on its line

    def finish(self) -> str:
        self._comments_before(len(self.text) + 1, 0)
        self._flush()
        return "\n".join(self.lines) + "\n" if self.lines else ""


def _is_pair(member: Tree[Token] | Token) -> bool:
    return isinstance(member, Tree) and any(isinstance(k, Token) and k.type == "COLON" for k in member.children)


def format_text(text: str) -> str:
    """The canonical layout of one source text; raises FormatError on a syntax error."""
    text = text.removeprefix("\ufeff")
    parsed = _parse(text)
    printer = _Printer(text, parsed.comments)
    for n, item in enumerate(parsed.tree.children):
        if n:
            printer.break_before_next(0)
        printer.node(item, 0)
    out = printer.finish()
    again = _parse(out)
    if _tokens(again.tree) != _tokens(parsed.tree) or \
            [str(c).rstrip() for c in again.comments] != [str(c).rstrip() for c in parsed.comments]:
        raise FormatError("internal error: formatting would change the tokens of this file")  # pragma: no cover
    return out


def comments_of(text: str) -> list[str]:
    """The comments of a source text, in order, as the lexer sees them (never inside strings)."""
    return [str(c).rstrip() for c in _parse(text.removeprefix("\ufeff")).comments]
