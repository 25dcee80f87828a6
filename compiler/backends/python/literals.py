"""Python source for IR values: every piece of user data becomes a literal via repr(), never code.

Long literals are split over lines (strings by implicit concatenation) so the output stays within the
line length the generated code is checked against.
"""

from __future__ import annotations

import keyword
import re
from typing import Any

from cardc import syntax as s
from cardc.irvisit import ValueVisitor

WIDTH = 116


class Raw:
    """Source text already made safe by the generator (a call, a name)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def identifier(text: str, prefix: str = "") -> str:
    """A Python identifier for `text`: anything outside [A-Za-z0-9_] becomes `_`; never a keyword."""
    ident = prefix + re.sub(r"[^A-Za-z0-9_]", "_", text)
    if not ident or ident[0].isdigit() or keyword.iskeyword(ident) or keyword.issoftkeyword(ident):
        ident = "_" + ident
    return ident


def value(v: s.Value | None, notes: list[str] | None = None) -> Any:
    """The IR value as plain Python data (Raw for provisional wrappers); provisional notes go to `notes`."""
    return None if v is None else _Plain(notes).value(v)


class _Plain(ValueVisitor[Any]):
    """A value as plain Python data; with `notes`, a provisional value is its best-known value and its note
    goes to `notes`, else it stays wrapped (Prov)."""

    def __init__(self, notes: list[str] | None) -> None:
        self.notes = notes

    def visit_unknown(self, v: s.UnknownV) -> Any:
        return None

    def visit_int(self, v: s.IntV) -> Any:
        return v.value

    def visit_signed(self, v: s.SignedV) -> Any:
        return v.value

    def visit_bool(self, v: s.BoolV) -> Any:
        return v.value

    def visit_decimal(self, v: s.DecimalV) -> Any:
        return Raw(f"Fraction({v.value.numerator}, {v.value.denominator})")

    def visit_str(self, v: s.StrV) -> Any:
        return v.value

    def visit_icon(self, v: s.IconV) -> Any:
        return f":{v.name}:"

    def visit_range(self, v: s.RangeV) -> Any:
        return (v.lo, v.hi)

    def visit_dice(self, v: s.DiceV) -> Any:
        return (v.count, v.sides)

    def visit_localized(self, v: s.LocalizedV) -> Any:
        return v.as_dict()

    def visit_list(self, v: s.ListV) -> Any:
        return tuple(self.value(i) for i in v.items)

    def visit_call(self, v: s.CallV) -> Any:
        if v.args is None:
            return v.name
        return {"call": v.name, "args": tuple((a.name, self.value(a.value)) for a in v.args)}

    def visit_provisional(self, v: s.ProvisionalV) -> Any:
        if self.notes is not None:
            self.notes.append(v.note)
            return self.value(v.value)
        return Prov(_Plain(None).value(v.value), v.note)


class Prov:
    """A provisional value: written as `Provisional(value, note)`."""

    def __init__(self, value: Any, note: str) -> None:
        self.value, self.note = value, note


def _one_line(x: Any) -> str:
    if isinstance(x, Raw):
        return x.text
    if isinstance(x, Prov):
        return f"Provisional({_one_line(x.value)}, {_one_line(x.note)})"
    if isinstance(x, dict):
        return "{" + ", ".join(f"{_one_line(k)}: {_one_line(v)}" for k, v in x.items()) + "}"
    if isinstance(x, tuple):
        inner = ", ".join(_one_line(i) for i in x)
        return f"({inner},)" if len(x) == 1 else f"({inner})"
    return repr(x)


def _split_string(text: str, indent: int) -> str:
    """A long string as adjacent literals that each fit the line: one pass over the text (a 1 MB name once
    took minutes when each piece re-measured the rest of the text)."""
    room = max(20, WIDTH - indent - 4)
    chunks: list[str] = []
    start = 0
    while start < len(text):
        end = _cut(text, start, room)
        chunks.append(text[start:end])
        start = end
    pad = " " * (indent + 4)
    return "(\n" + "\n".join(pad + repr(c) for c in chunks) + "\n" + " " * indent + ")"


def _cut(text: str, start: int, room: int) -> int:
    """Where the piece starting at `start` ends: as many characters as fit `room` columns once escaped
    (quotes counted as escaped, so `repr` never overflows), cut after a space in its second half if any."""
    used, n = 2, start
    while n < len(text):
        ch = text[n]
        width = 2 if ch in "'\"" else len(repr(ch)) - 2
        if used + width > room and n > start:
            break
        used += width
        n += 1
    if n == len(text):
        return n
    space = text.rfind(" ", start, n)
    return space + 1 if space - start > (n - start) // 2 else n


def lit(x: Any, indent: int, used: int = 0) -> str:
    """`x` as a literal that fits in WIDTH when it starts at column `indent + used`."""
    flat = _one_line(x)
    if indent + used + len(flat) <= WIDTH - 1:
        return flat
    pad = " " * (indent + 4)
    if isinstance(x, str):
        return _split_string(x, indent)
    if isinstance(x, Prov):
        return f"Provisional(\n{pad}{lit(x.value, indent + 4)},\n{pad}{lit(x.note, indent + 4)},\n{' ' * indent})"
    if isinstance(x, dict):
        items = [f"{pad}{_one_line(k)}: {lit(v, indent + 4, len(_one_line(k)) + 2)}," for k, v in x.items()]
        return "{\n" + "\n".join(items) + "\n" + " " * indent + "}"
    if isinstance(x, tuple):
        items = [f"{pad}{lit(i, indent + 4)}," for i in x]
        return "(\n" + "\n".join(items) + "\n" + " " * indent + ")"
    return flat


def docstring(text: str, indent: int) -> str:
    """A triple-quoted docstring whose content cannot end the string or run code."""
    if "\\" not in text and '"' not in text and text.replace("\n", "").isprintable():
        return _docstring_lines(text.strip("\n"), indent)  # nothing to escape (most texts): no loop per character
    safe = []
    for ch in text:
        if ch == "\\":
            safe.append("\\\\")
        elif ch == '"':
            safe.append('\\"')
        elif ch == "\n" or ch.isprintable():
            safe.append(ch)
        else:
            safe.append(ch.encode("unicode_escape").decode("ascii"))
    return _docstring_lines("".join(safe).strip("\n"), indent)


def _docstring_lines(body: str, indent: int) -> str:
    pad = " " * indent
    lines = body.split("\n")
    if len(lines) == 1:
        return f'{pad}"""{lines[0]}"""'
    out = [f'{pad}"""{lines[0]}']
    out += [f"{pad}{line}" if line else "" for line in lines[1:]]
    out.append(f'{pad}"""')
    return "\n".join(out)
