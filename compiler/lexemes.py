"""What a literal token's text means, and the limits the parser holds literals to.

Shared by the parser (`cardc.parser`, which needs Lark) and by `cardc.literal_edit`, which rebuilds a parse tree
after an edit inside one token without importing Lark: both must read a literal exactly the same way.
"""

from __future__ import annotations

import re

_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\"}
_ESCAPE_RE = re.compile(r"\\(.)")
# Control characters a string may not carry into outputs (terminal escapes, NUL, bidi overrides): removed with
# W105. Line and paragraph separators (Word writes U+2028 for a soft line break) become plain line breaks.
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
SEPARATORS = str.maketrans({"\u2028": "\n", "\u2029": "\n"})

# Limits checked as the source is read, so that every later step (and Python's own int()) stays in bounds.
MAX_DIGITS = 12
MAX_STRING = 10_000
MAX_NAME = 64


def unescape(raw: str) -> str:
    """A string literal's text (`raw` with its quotes) with its escapes read."""
    text = raw[1:-1]
    if "\\" not in text:  # most texts: nothing to read (re.sub with a function costs a call per string)
        return text
    return _ESCAPE_RE.sub(lambda m: _ESCAPES.get(m.group(1), m.group(1)), text)


def string_text(raw: str) -> str:
    """A string literal's text as the parse tree keeps it, before control characters are removed (W105)."""
    text = unescape(raw)
    if "\u2028" in text or "\u2029" in text:  # translate looks every character up in the table: only when needed
        return text.translate(SEPARATORS)
    return text
