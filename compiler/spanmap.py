"""Positions across an edit that moves tokens but changes none: comments, blank lines, spacing.

The lexer (`dsl/cardc.lark`) skips whitespace and comments; every other character belongs to a token, and no
token other than a string holds a space, `#`, `//` or `/*` (a string keeps them as text). So a text is its
*runs*, the stretches between skipped ones, and two texts with the same runs in the same order lex into the
same tokens with the same values, in the same order: their parse trees are the same but for positions. Every
position the parser gives (a token's start, the end of its last character) is on a character of a run, and
`SpanMap` takes it to the same character in the other text. Only for texts that lexed cleanly: a stray `"` or
`/` is a run character here and an error there.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator
from itertools import zip_longest

from cardc.diagnostics import Span

# A string (kept whole: a `#` inside one is text), else a stretch the lexer skips, spelled as the grammar's
# COMMENT, BLOCK_COMMENT and whitespace terminals.
_SCAN = re.compile(r'"(?:[^"\\\n]|\\.)*"|((?://[^\n]*|#[^\n]*|/\*(?:.|\n)*?\*/|[ \t\r\n\f])+)')


def runs(text: str) -> tuple[list[int], list[str]]:
    """Where each run starts, and the runs."""
    starts: list[int] = []
    pieces: list[str] = []
    for start, piece in _runs(text):
        starts.append(start)
        pieces.append(piece)
    return starts, pieces


def _runs(text: str) -> Iterator[tuple[int, str]]:
    pos = 0
    for m in _SCAN.finditer(text):
        if m.group(1) is None:  # a string: part of a run
            continue
        if m.start() > pos:
            yield pos, text[pos:m.start()]
        pos = m.end()
    if pos < len(text):
        yield pos, text[pos:]


def same_runs(old: str, new: str) -> bool:
    """Whether the two texts have the same runs, read only as far as the first difference."""
    return SpanMap(old, new).same_tokens


def line_starts(text: str) -> list[int]:
    """Offsets where each line starts (lines end at `\\n` only, as the lexer counts them)."""
    out = [0]
    at = text.find("\n")
    while at >= 0:
        out.append(at + 1)
        at = text.find("\n", at + 1)
    return out


class SpanMap:
    """Positions in `old` -> the same characters in `new`, for two texts with the same runs (`same_tokens`;
    for other texts it holds nothing, having stopped at their first difference)."""

    def __init__(self, old: str, new: str) -> None:
        self._old_starts: list[int] = []
        self._new_starts: list[int] = []
        self._lengths: list[int] = []
        self.same_tokens = True
        for a, b in zip_longest(_runs(old), _runs(new)):  # up to the first difference (a value edited: a few lines)
            if a is None or b is None or a[1] != b[1]:
                self.same_tokens = False
                break
            self._old_starts.append(a[0])
            self._new_starts.append(b[0])
            self._lengths.append(len(a[1]))
        self._old_lines = line_starts(old) if self.same_tokens else []
        self._new_lines = line_starts(new) if self.same_tokens else []
        self._old_size = len(old)

    def _offset(self, line: int, col: int) -> int | None:
        if not (1 <= line <= len(self._old_lines) and col >= 1):
            return None
        at = self._old_lines[line - 1] + col - 1
        end = self._old_lines[line] if line < len(self._old_lines) else self._old_size + 1
        return at if at < end else None

    def _char(self, at: int) -> int | None:
        """The new offset of the run character at old offset `at`; None if no run character is there."""
        i = bisect_right(self._old_starts, at) - 1
        if i < 0 or at - self._old_starts[i] >= self._lengths[i]:
            return None
        return self._new_starts[i] + at - self._old_starts[i]

    def _position(self, at: int) -> tuple[int, int]:
        line = bisect_right(self._new_lines, at)
        return line, at - self._new_lines[line - 1] + 1

    def span(self, sp: Span) -> Span | None:
        """`sp` in the new text, or None if its start or end is not on (just after) a run character."""
        start = self._offset(sp.line, sp.col)
        new_start = None if start is None else self._char(start)
        if new_start is None:
            return None
        line, col = self._position(new_start)
        if sp.end_line == 0 and sp.end_col == 0:  # no end given
            return Span(sp.file, line, col)
        end = self._offset(sp.end_line, sp.end_col)
        last = None if end is None or end == 0 else self._char(end - 1)
        if last is None:
            return None
        end_line, end_col = self._position(last + 1)
        return Span(sp.file, line, col, end_line, end_col)
