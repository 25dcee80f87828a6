"""What the cursor is on, read from the raw text: editors ask while the file is half-typed and does not parse.

A forgiving tokenizer (strings, comments, names, numbers, brackets) and a bracket stack tell, for a cursor
offset, which declaration, rule or call it is inside and what may come next there. The parse tree and the
IR are used where the file parses (see `cardc.editor.analysis`); this module never needs them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum

_TOKEN_RE = re.compile(
    r"""(?P<comment>//[^\n]*|\#[^\n]*|/\*.*?(?:\*/|\Z))
      |(?P<string>"(?:[^"\\\n]|\\.)*"?)
      |(?P<icon>:[a-z][a-z0-9_]*:)
      |(?P<name>[A-Za-z_][A-Za-z0-9_]*)
      |(?P<number>[+-]?[0-9][0-9.d]*)
      |(?P<punct>[{}()\[\],:.])
      |(?P<space>\s+)
      |(?P<other>.)""",
    re.S | re.X,
)


@dataclass(frozen=True, slots=True)
class Token:
    type: str  # comment | string | icon | name | number | punct | other
    text: str
    start: int

    @property
    def end(self) -> int:
        return self.start + len(self.text)


def tokenize(text: str) -> list[Token]:
    """Every token but whitespace; never fails, whatever the text."""
    out: list[Token] = []
    for m in _TOKEN_RE.finditer(text):
        kind = m.lastgroup or "other"
        if kind != "space":
            out.append(Token(kind, m.group(), m.start()))
    return out


def code_tokens(tokens: list[Token]) -> list[Token]:
    return [t for t in tokens if t.type != "comment"]


class Place(StrEnum):
    """What may be written at the cursor."""

    TOP = "top"  # a declaration, `module`, `import`
    MODULE = "module"  # after `module`
    MEMBER = "member"  # in a declaration's body: an attribute, a nested declaration, `on`
    VALUE = "value"  # after `attr:`, inside its list, or as a verb's argument
    TRIGGER = "trigger"  # after `on`
    CONDITION = "condition"  # after `if`, `and`, `or`, `not`
    STATEMENT = "statement"  # in a rule's body
    ACTION = "action"  # after `may`
    ARGUMENT = "argument"  # at the start of a verb's argument: a parameter name or a value
    TEXT = "text"  # in `{ cs "..." en "..." }`: a language
    OTHER = "other"  # a comment, a string, an id being declared: nothing to offer


@dataclass
class Frame:
    """One open bracket and what opened it."""

    bracket: str  # { ( [
    role: str  # decl | rule | block | choose | text | call | group | list | type
    kind: str = ""  # decl: the declaration's kind word (`hero`, `kind`, `attr`, `game`); call: the verb
    ident: str = ""  # decl: the declared id
    attr: str = ""  # list/text: the attribute whose value it is
    args: int = 0  # call: commas seen so far


@dataclass
class CursorContext:
    place: Place
    prefix: str  # the part of the word left of the cursor
    frames: list[Frame] = field(default_factory=list)
    attr: str = ""  # VALUE: the attribute being given
    verb: str = ""  # ARGUMENT/VALUE inside a call: the verb
    param: str | int = ""  # ...its parameter by name, or the index of a positional argument

    def decl(self) -> Frame | None:
        """The innermost declaration around the cursor."""
        return next((f for f in reversed(self.frames) if f.role == "decl"), None)


def _header_role(before: list[Token], outer: Frame | None) -> Frame:
    """The frame a `{` opens, from the tokens before it at its level."""
    words = [t.text for t in before]
    if not words or words[-1] in (":", "provisional"):
        return Frame("{", "text")
    if outer is not None and outer.role in ("rule", "block", "choose"):
        if outer.role == "choose":
            return Frame("{", "block")  # an option
        return Frame("{", "choose" if words[-1] == "choose" else "block")  # `if`, `else`, later `repeat` ...
    if "on" in words:  # `on TRIGGER [if COND] {`
        return Frame("{", "rule")
    if "extends" in words:  # `[errata] KIND ID [extends a.b] {`
        before = before[:len(words) - 1 - words[::-1].index("extends")]
    head = [t.text for t in before if t.type == "name"]
    if len(head) >= 2:
        return Frame("{", "decl", kind=head[-2], ident=head[-1])
    return Frame("{", "decl", kind=head[-1] if head else "")


def cursor_context(text: str, offset: int) -> CursorContext:
    """What may be written at `offset` in `text` (a code-point offset)."""
    tokens = tokenize(text)
    prefix = ""
    for t in tokens:
        if t.start >= offset:
            break
        inside = offset < t.end or (offset == t.end and (
            t.type == "comment" and not t.text.startswith("/*")
            or t.type == "string" and (len(t.text) == 1 or not t.text.endswith('"'))))
        if t.type in ("comment", "string", "number") and inside:
            return CursorContext(Place.OTHER, "")
        if t.type == "name" and offset <= t.end:
            prefix = text[t.start:offset]
    cut = offset - len(prefix)
    frames: list[Frame] = []
    since: list[list[Token]] = [[]]  # per open bracket: the tokens read at its level, closed groups as one
    for t in code_tokens(tokens):
        if t.end > cut:
            break
        level = since[-1]
        if t.type == "punct" and t.text in "{([":
            frames.append(_open(t.text, level, frames[-1] if frames else None))
            since.append([])
        elif t.type == "punct" and t.text in "})]":
            if frames:
                opened = frames.pop().bracket
                since.pop()
                since[-1].append(Token("group", opened + _CLOSE[opened], t.start))
        elif t.text == "," and frames and frames[-1].role == "call":
            frames[-1].args += 1
            level.clear()
        else:
            level.append(t)
    ctx = CursorContext(Place.OTHER, prefix, frames)
    level = since[-1]
    frame = frames[-1] if frames else None
    if frame is None:
        ctx.place = _at_top(level)
    elif frame.role == "text":
        ctx.place = Place.TEXT if not level or level[-1].type == "string" else Place.OTHER
    elif frame.role in ("call", "list", "group", "type"):
        _inside_parens(ctx, frame, frames, level)
    elif frame.role in ("rule", "block"):
        ctx.place = _in_rule_body(level)
    elif frame.role == "decl":
        _in_decl_body(ctx, _since_member(level))
    return ctx


_CLOSE = {"{": "}", "(": ")", "[": "]"}


def _open(bracket: str, level: list[Token], outer: Frame | None) -> Frame:
    """The frame a bracket opens, from the tokens before it at its level."""
    if bracket == "(":
        callee = level[-1].text if level and level[-1].type == "name" else ""
        if callee in ("if", "and", "or", "not"):
            callee = ""  # `if (a or b)`: a group of conditions, not a call
        return Frame("(", "type" if callee in ("list", "ref", "enum") else "call" if callee else "group",
                     kind=callee)
    attr = level[-2].text if len(level) >= 2 and level[-1].text == ":" else ""
    if bracket == "[":
        return Frame("[", "list", attr=attr)
    head = _since_member(level) if outer is not None and outer.role == "decl" else level[-8:]
    frame = _header_role(head, outer)
    frame.attr = attr
    return frame


def _at_top(level: list[Token]) -> Place:
    if not level or level[-1].type in ("group", "string"):
        return Place.TOP
    last = level[-1].text
    if last in ("module", "."):
        return Place.MODULE
    if last == "errata":
        return Place.TOP
    if len(level) >= 2 and level[-2].text in ("module", ".") and level[-1].type == "name":
        return Place.TOP  # after `module karak`
    return Place.OTHER


def _in_decl_body(ctx: CursorContext, member: list[Token]) -> None:
    words = [t.text for t in member]
    if len(member) >= 2 and member[1].text == ":" and member[0].type == "name" and (
            len(member) == 2 or len(member) == 3 and words[2] == "provisional"):
        ctx.place, ctx.attr = Place.VALUE, words[0]
    elif "on" in words:
        ctx.place = _rule_header(words[words.index("on"):])
    elif not member:
        ctx.place = Place.MEMBER
    else:
        ctx.place = Place.OTHER  # e.g. the id of a nested declaration being written


def _since_member(level: list[Token]) -> list[Token]:
    """The tokens of the member being written in a declaration's body (after the last complete member)."""
    start = i = 0
    while i < len(level):
        t = level[i]
        if t.type == "name" and i + 1 < len(level) and level[i + 1].text == ":":
            # `attr: value`: the value is one token, a closed group, a call, `provisional V "note"`, `unknown "n"`
            j = i + 2
            if j < len(level) and level[j].text == "provisional":
                j += 3
            elif j < len(level) and level[j].text == "unknown":
                j += 2 if j + 1 < len(level) and level[j + 1].type == "string" else 1
            elif j < len(level) and level[j].type == "name":
                j += 1
                while j + 1 < len(level) and level[j].text == "." and level[j + 1].type == "name":
                    j += 2
                if j < len(level) and level[j].text == "()":
                    j += 1
            else:
                j += 1
            if j <= len(level):
                start = j
            i = max(j, i + 1)
            continue
        if t.type == "group" and t.text == "{}":  # a nested declaration or a rule, closed
            start = i + 1
        i += 1
    return level[start:]


def _rule_header(words: list[str]) -> Place:
    """`on ...` not yet followed by its `{`."""
    if len(words) == 1:
        return Place.TRIGGER
    if words[-1] in ("if", "and", "or", "not"):
        return Place.CONDITION
    return Place.OTHER


def _in_rule_body(level: list[Token]) -> Place:
    if not level:
        return Place.STATEMENT
    last = level[-1]
    if last.text == "may":
        return Place.ACTION
    if last.text in ("if", "and", "or", "not"):
        return Place.CONDITION
    words = [t.text for t in level]
    if "if" in words and "{}" not in words[len(words) - words[::-1].index("if"):]:
        return Place.OTHER  # a condition written, its block not yet opened: `and`, `or` or `{` come next
    if last.type in ("group", "name") and last.text != "else":
        return Place.STATEMENT
    return Place.OTHER


def _inside_parens(ctx: CursorContext, frame: Frame, frames: list[Frame], level: list[Token]) -> None:
    if frame.role == "group":  # `if (a or b)`: conditions
        if not level or level[-1].text in ("and", "or", "not"):
            ctx.place = Place.CONDITION
    elif frame.role == "list":
        ctx.attr = frame.attr
        call = next((f for f in reversed(frames) if f.role == "call"), None)
        if call is not None and not frame.attr:
            ctx.verb = call.kind
            ctx.param = call.args
        if not level or level[-1].text == ",":
            ctx.place = Place.VALUE
    elif frame.role == "call":
        ctx.verb = frame.kind
        if not level:
            ctx.place, ctx.param = Place.ARGUMENT, frame.args
        elif len(level) == 2 and level[1].text == ":" and level[0].type == "name":
            ctx.place, ctx.param = Place.VALUE, level[0].text
        elif [t.text for t in level] == ["provisional"]:
            ctx.place, ctx.param = Place.VALUE, frame.args


def word_at(text: str, offset: int) -> Token | None:
    """The name token under (or just left of) the cursor."""
    for t in tokenize(text):
        if t.start <= offset <= t.end and t.type == "name":
            return t
        if t.start > offset:
            break
    return None
