"""Source text -> parse tree (`compiler.syntax`), with Lark LALR and an inline transformer.

Syntax errors become diagnostics; nothing from Lark escapes as a traceback.
"""

from __future__ import annotations

import gc
import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any, cast

from cardc import syntax as s
from cardc.diagnostics import DiagnosticSink, Span
from cardc.lexemes import CONTROL, MAX_DIGITS, MAX_NAME, MAX_STRING, string_text
from cardc.resources import DSL_DIR
from lark import Lark, Token, Transformer
from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedInput, UnexpectedToken

GRAMMAR_PATH = DSL_DIR / "cardc.lark"

# Limits checked as the source is read (those of single literals are in cardc.lexemes).
MAX_DICE = 6
DICE_SIDES = (2, 20)
MAX_CONDITION_DEPTH = 24  # `a and b and ...`: each term nests one level
MAX_BLOCK_DEPTH = 12  # `if` and `choose` inside each other
MAX_VALUE_DEPTH = 8  # lists in lists, provisional values, calls as arguments
MAX_DECL_DEPTH = 6  # declarations inside declarations


class _ToAst(Transformer):  # type: ignore[type-arg]
    """Builds `compiler.syntax` nodes while Lark parses (no intermediate tree).

    It also measures how deep conditions, blocks, values and declarations nest (`depth`, by node id: the
    nodes live until the parse ends) and reports what goes past the limits, once per construct.
    """

    file = "<input>"
    sink: DiagnosticSink | None = None

    def __init__(self) -> None:
        super().__init__()
        self.depth: dict[int, int] = {}
        self.too_deep = False

    def reset(self, file: str, sink: DiagnosticSink) -> None:
        self.file, self.sink, self.depth, self.too_deep = file, sink, {}, False

    def _span(self, tok: Token) -> Span:
        return Span(self.file, tok.line or 1, tok.column or 1, tok.end_line or 0, tok.end_column or 0)

    def _nest(self, node: Any, children: Any, limit: int, what: str, span: Span) -> None:
        """Record `node`'s depth (one more than its deepest child); report the first step past `limit`."""
        d = 1 + max((self.depth.get(id(ch), 0) for ch in children), default=0)
        self.depth[id(node)] = d
        if d > limit:
            self.too_deep = True
        if d == limit + 1 and self.sink is not None:
            self.sink.error("E106", f"{what} nest more than {limit} levels deep", span,
                            "split it up: name a part as its own rule, entity or variant")

    def _text(self, tok: Token) -> str:
        """A string literal's text, with control characters removed (W105) and line separators as line breaks."""
        text = string_text(str(tok))
        found = CONTROL.search(text)
        if found is not None:
            if self.sink is not None:
                self.sink.warning("W105", f"control character U+{ord(found.group()):04X} in a string is removed",
                                  self._span(tok), "delete it from the source; write `\\n` for a line break")
            text = CONTROL.sub("", text)
        return text

    # values
    def int_value(self, c: list[Any]) -> s.IntV:
        return s.IntV(int(c[0]), self._span(c[0]))

    def signed_value(self, c: list[Any]) -> s.SignedV:
        return s.SignedV(int(c[0]), self._span(c[0]))

    def decimal_value(self, c: list[Any]) -> s.DecimalV:
        from fractions import Fraction  # with `decimal`, 5-10 ms to import: only for a file that has a decimal

        return s.DecimalV(Fraction(str(c[0])), str(c[0]), self._span(c[0]))

    def range_value(self, c: list[Any]) -> s.RangeV:
        lo, hi = str(c[0]).split("..")
        return s.RangeV(int(lo), int(hi), self._span(c[0]))

    def dice_value(self, c: list[Any]) -> s.DiceV:
        count, sides = str(c[0]).split("d")
        return s.DiceV(int(count or 1), int(sides), self._span(c[0]))

    def string_value(self, c: list[Any]) -> s.StrV:
        return s.StrV(self._text(c[0]), self._span(c[0]))

    def icon_value(self, c: list[Any]) -> s.IconV:
        return s.IconV(str(c[0])[1:-1], self._span(c[0]))

    def true_value(self, c: list[Any]) -> s.BoolV:
        return s.BoolV(True, self._span(c[0]))

    def false_value(self, c: list[Any]) -> s.BoolV:
        return s.BoolV(False, self._span(c[0]))

    def text_entry(self, c: list[Any]) -> s.TextEntry:
        return s.TextEntry(str(c[0]), self._text(c[1]), self._span(c[0]))

    def localized_value(self, c: list[Any]) -> s.LocalizedV:
        return s.LocalizedV(tuple(c[1:]), self._span(c[0]))

    def list_value(self, c: list[Any]) -> s.ListV:
        node = s.ListV(tuple(v for v in c[1:] if v is not None), self._span(c[0]))
        self._nest(node, node.items, MAX_VALUE_DEPTH, "lists and values", node.span)
        return node

    def unknown_value(self, c: list[Any]) -> s.UnknownV:
        note = self._text(c[1]) if len(c) > 1 and c[1] is not None else None
        return s.UnknownV(note, self._span(c[0]))

    def provisional_value(self, c: list[Any]) -> s.ProvisionalV:
        node = s.ProvisionalV(c[1], self._text(c[2]), self._span(c[0]))
        self._nest(node, [c[1]], MAX_VALUE_DEPTH, "values", node.span)
        return node

    def call_value(self, c: list[Any]) -> s.CallV:
        return c[0]  # type: ignore[no-any-return]

    def qname(self, c: list[Any]) -> tuple[str, Span]:
        first, last = c[0], c[-1]
        span = Span(self.file, first.line, first.column, last.end_line or 0, last.end_column or 0)
        return ".".join(str(t) for t in c), span

    def call(self, c: list[Any]) -> s.CallV:
        (name, span), args = c
        node = s.CallV(name, args, span)
        self._nest(node, [a.value for a in args or ()], MAX_VALUE_DEPTH, "calls and values", span)
        return node

    def args(self, c: list[Any]) -> tuple[s.Arg, ...]:
        return tuple(a for a in c if a is not None)

    def arg(self, c: list[Any]) -> s.Arg:
        name, value = c
        if name is None:
            return s.Arg(None, value, value.span)
        return s.Arg(str(name), value, self._span(name))

    # effects
    def or_cond(self, c: list[Any]) -> s.OrC:
        node = s.OrC(c[0], c[1], c[0].span)
        self._nest(node, c, MAX_CONDITION_DEPTH, "conditions", node.span)
        return node

    def and_cond(self, c: list[Any]) -> s.AndC:
        node = s.AndC(c[0], c[1], c[0].span)
        self._nest(node, c, MAX_CONDITION_DEPTH, "conditions", node.span)
        return node

    def not_cond(self, c: list[Any]) -> s.NotC:
        node = s.NotC(c[0], c[0].span)
        self._nest(node, c, MAX_CONDITION_DEPTH, "conditions", node.span)
        return node

    def block(self, c: list[Any]) -> tuple[Any, ...]:
        node = tuple(c)
        self.depth[id(node)] = max((self.depth.get(id(st), 0) for st in c), default=0)
        return node

    def do_stmt(self, c: list[Any]) -> s.DoS:
        return s.DoS(c[0], c[0].span)

    def may_stmt(self, c: list[Any]) -> s.MayS:
        return s.MayS(c[0], c[0].span)

    def option(self, c: list[Any]) -> s.OptionS:
        node = s.OptionS(str(c[0]), c[2], self._span(c[0]), c[1])
        self.depth[id(node)] = self.depth.get(id(c[2]), 0)
        return node

    def fire_stmt(self, c: list[Any]) -> s.FireS:
        return s.FireS(c[0], c[0].span)

    def repeat_stmt(self, c: list[Any]) -> s.RepeatS:
        return s.RepeatS(int(c[0]), c[1], self._span(c[0]))

    def while_stmt(self, c: list[Any]) -> s.WhileS:
        return s.WhileS(c[0], c[1], c[0].span)

    def for_each_stmt(self, c: list[Any]) -> s.ForEachS:
        return s.ForEachS(str(c[0]), c[1], self._span(c[0]))

    def procedure(self, c: list[Any]) -> s.ProcedureS:
        return s.ProcedureS(str(c[0]), c[1], self._span(c[0]))

    def end_rule(self, c: list[Any]) -> s.EndS:
        return s.EndS(c[0], c[0].span)

    def winner_rule(self, c: list[Any]) -> s.WinnerS:
        return s.WinnerS(c[0], c[0].span)

    def choose_stmt(self, c: list[Any]) -> s.ChooseS:
        node = s.ChooseS(tuple(c), c[0].span)
        self._nest(node, c, MAX_BLOCK_DEPTH, "`if` and `choose` blocks", node.span)
        return node

    def else_block(self, c: list[Any]) -> tuple[Any, ...]:
        return c[0]  # type: ignore[no-any-return]

    def if_stmt(self, c: list[Any]) -> s.IfS:
        orelse = c[2] if len(c) > 2 else ()
        node = s.IfS(c[0], c[1], orelse, c[0].span)
        self._nest(node, [c[1], orelse], MAX_BLOCK_DEPTH, "`if` and `choose` blocks", node.span)
        return node

    def rule(self, c: list[Any]) -> s.RuleS:
        trigger, cond, body = c
        return s.RuleS(trigger, cond, body, trigger.span)

    # declarations
    def attr(self, c: list[Any]) -> s.AttrS:
        return s.AttrS(str(c[0]), c[1], self._span(c[0]))

    def extends(self, c: list[Any]) -> tuple[str, Span]:
        return c[0]  # type: ignore[no-any-return]

    def body(self, c: list[Any]) -> list[Any]:
        return c

    def decl(self, c: list[Any]) -> s.DeclS:
        errata = isinstance(c[0], Token) and c[0].type == "ERRATA"
        if errata:
            c = c[1:]
        kind, ident = c[0], c[1]
        extends = c[2][0] if len(c) == 4 else None
        members = c[-1]
        node = s.DeclS(
            kind=str(kind),
            id=str(ident),
            errata=errata,
            extends=extends,
            attrs=tuple(m for m in members if isinstance(m, s.AttrS)),
            decls=tuple(m for m in members if isinstance(m, s.DeclS)),
            rules=tuple(m for m in members if isinstance(m, s.RuleS)),
            span=self._span(kind),
            id_span=self._span(ident),
        )
        self._nest(node, node.decls, MAX_DECL_DEPTH, "declarations", node.span)
        return node

    def module_stmt(self, c: list[Any]) -> s.ModuleS:
        name, span = c[0]
        return s.ModuleS(name, span)

    def import_stmt(self, c: list[Any]) -> s.ImportS:
        kind = str(c[1]) if len(c) > 1 and c[1] is not None else None
        return s.ImportS(self._text(c[0]), self._span(c[0]), kind)

    def start(self, c: list[Any]) -> list[Any]:
        return c


def _literal_limits(transformer: _ToAst) -> dict[str, Callable[[Token], Token]]:
    """Lexer callbacks that report literals past the limits (E105) and shrink them to a harmless stand-in,
    so the parse goes on and no later step (Python's int() refuses 4,301 digits) sees the huge value."""
    def report(tok: Token, message: str, hint: str) -> None:
        if transformer.sink is not None:
            span = Span(transformer.file, tok.line or 1, tok.column or 1, tok.end_line or 0, tok.end_column or 0)
            transformer.sink.error("E105", message, span, hint)

    def number(tok: Token) -> Token:
        digits = max((len(run) for run in re.findall(r"[0-9]+", str(tok))), default=0)
        if digits > MAX_DIGITS:
            report(tok, f"a number of {digits} digits", f"numbers have at most {MAX_DIGITS} digits")
            return tok.update(value=re.sub(r"[0-9]+", "1", str(tok)))
        return tok

    def dice(tok: Token) -> Token:
        tok = number(tok)
        count, sides = str(tok).split("d")
        lo, hi = DICE_SIDES
        if not 1 <= int(count or 1) <= MAX_DICE or not lo <= int(sides) <= hi:
            report(tok, f"dice `{tok}` cannot be rolled", f"use 1 to {MAX_DICE} dice of {lo} to {hi} sides, like 2d6")
            return tok.update(value="1d6")
        return tok

    def string(tok: Token) -> Token:
        if len(tok) - 2 > MAX_STRING:
            report(tok, f"a string of {len(tok) - 2:,} characters", f"strings have at most {MAX_STRING:,} characters")
            return tok.update(value='""')
        return tok

    def name(tok: Token) -> Token:
        if len(tok) > MAX_NAME:
            report(tok, f"a name of {len(tok)} characters", f"names have at most {MAX_NAME} characters")
            return tok.update(value=str(tok)[:MAX_NAME])
        return tok

    return {"INT": number, "SIGNED": number, "DECIMAL": number, "RANGE": number, "DICE": dice, "STRING": string,
            "NAME": name}


@lru_cache(maxsize=1)
def _parser() -> tuple[Lark, _ToAst]:
    transformer = _ToAst()
    lark = Lark(
        GRAMMAR_PATH.read_text(encoding="utf-8"),
        parser="lalr",
        lexer="contextual",
        transformer=transformer,
        maybe_placeholders=True,
        lexer_callbacks=_literal_limits(transformer),
        cache=True,  # Lark keeps the LALR tables in the temp folder: start-up 0.16 s instead of 0.8 s under load
    )
    return lark, transformer


def bare_parser() -> Lark:
    """The same grammar with no transformer: the baseline the benchmark compares against."""
    return Lark(GRAMMAR_PATH.read_text(encoding="utf-8"), parser="lalr", maybe_placeholders=True)


# Human names for Lark's terminal names in "expected ..." messages.
_TERMINAL_NAMES = {
    "NAME": "a name",
    "STRING": "a string",
    "INT": "a number",
    "SIGNED": "a modifier like +1",
    "RANGE": "a range like 3..4",
    "DICE": "dice like 2d6",
    "DECIMAL": "a decimal number",
    "ICON": "an icon like :sword:",
    "$END": "the end of the file",
}


def _describe_expected(lark: Lark, expected: set[str]) -> str:
    names: list[str] = []
    for term in sorted(expected):
        if term in _TERMINAL_NAMES:
            names.append(_TERMINAL_NAMES[term])
            continue
        try:
            pattern = lark.get_terminal(term).pattern
            names.append(f"`{pattern.value}`" if pattern.type == "str" else term.lower())
        except KeyError:
            names.append(term.lower())
    names = sorted(set(names))
    if len(names) > 6:
        names = names[:6] + ["..."]
    return ", ".join(names)


def _unclosed_brace(text: str) -> tuple[int, int] | None:
    """The line and column of the last `{` that is never closed, ignoring strings and comments."""
    stack: list[tuple[int, int]] = []
    line, col, i, n = 1, 0, 0, len(text)
    while i < n:
        ch = text[i]
        col += 1
        if ch == "\n":
            line, col = line + 1, 0
        elif ch == '"':
            j = i + 1
            while j < n and text[j] not in '"\n':
                j += 2 if text[j] == "\\" else 1
            col += j - i
            i = j
        elif ch == "#" or text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
            continue
        elif ch == "{":
            stack.append((line, col))
        elif ch == "}" and stack:
            stack.pop()
        i += 1
    return stack[-1] if stack else None


def _acceptable(err: UnexpectedToken) -> set[str]:
    """The terminals that could really come next. `err.expected` is the LALR state's set, which
    (states being merged) also lists tokens valid only in other contexts, such as `)` after an
    attribute's value; the interactive parser tries each one through the pending reductions."""
    try:
        parser: Any = err.interactive_parser  # lark's interactive parser is untyped
        accepted = set(parser.accepts()) if parser is not None else set()
    except LarkError:  # pragma: no cover - defensive: fall back to the state's set
        accepted = set()
    return accepted or set(err.expected)


def _token_text(tok: Token) -> str:
    return "end of file" if tok.type == "$END" else f"`{tok}`"


def parse_text(text: str, file: str, sink: DiagnosticSink) -> s.FileS | None:
    """Parse one source text; on a syntax error, report it and return None."""
    lark, transformer = _parser()
    gc_was_enabled = gc.isenabled()
    gc.disable()  # the parse allocates many small objects; the cyclic GC only slows it
    try:
        items = _driven(lark, transformer, text, file, sink)
        if items is None:  # Lark parses it, and reports what is wrong
            transformer.reset(file, sink)
            items = cast("list[Any]", lark.parse(text))  # the transformer returns the file's items
    except UnexpectedInput as err:
        _report_syntax_error(err, text, file, lark, sink)
        return None
    except LarkError as err:  # pragma: no cover - defensive: any other Lark failure
        sink.error("E100", f"cannot parse this file: {err}", Span(file, 1, 1))
        return None
    finally:
        if gc_was_enabled:
            gc.enable()
    if transformer.too_deep:
        return None  # reported (E106); later steps walk the tree recursively and must never see one this deep
    module = next((i for i in items if isinstance(i, s.ModuleS)), None)
    return s.FileS(
        path=file,
        module=module,
        imports=tuple(i for i in items if isinstance(i, s.ImportS)),
        decls=tuple(i for i in items if isinstance(i, s.DeclS)),
        procedures=tuple(i for i in items if isinstance(i, s.ProcedureS | s.EndS | s.WinnerS)),
    )


def _driven(lark: Lark, transformer: _ToAst, text: str, file: str, sink: DiagnosticSink) -> list[Any] | None:
    """The file's items as `lark.parse(text)` gives them, by `cardc.lalrdrive` (the same tables and callbacks, a
    fifth less time); None when the text is left to `lark.parse` (a syntax error: Lark reports it). What the
    callbacks report is kept only when the drive got to the end."""
    from cardc.lalrdrive import Unsupported, drive

    own = DiagnosticSink()
    transformer.reset(file, own)
    try:
        items: list[Any] = drive(lark, text)
    except (Unsupported, AttributeError, TypeError, KeyError, IndexError):
        # `Unsupported`: what the drive leaves to Lark; the others: what Lark internals laid out differently (another
        # Lark version) would raise. Anything else a callback raises, Lark's parse meets again and raises as before.
        return None
    sink.items.extend(own.items)
    transformer.sink = sink  # as `reset(file, sink)` leaves it: later steps see the one sink
    return items


def _report_syntax_error(err: UnexpectedInput, text: str, file: str, lark: Lark, sink: DiagnosticSink) -> None:
    line, col = getattr(err, "line", 1) or 1, getattr(err, "column", 1) or 1
    if isinstance(err, UnexpectedCharacters):
        pos = err.pos_in_stream or 0
        ch = text[pos] if pos < len(text) else ""
        if ch == '"':
            sink.error("E102", "unterminated string", Span(file, line, col, line, col + 1),
                       'close the string with `"` on the same line')
        elif text.startswith("/*", pos):
            sink.error("E104", "unterminated block comment", Span(file, line, col, line, col + 2),
                       "close the comment with `*/`")
        elif ch.isdigit() or ch in "+-" or (ch == "." and pos > 0 and text[pos - 1].isdigit()):
            start = pos
            while start > 0 and (text[start - 1].isalnum() or text[start - 1] in "_.+-"):
                start -= 1
            end = pos + 1
            while end < len(text) and (text[end].isalnum() or text[end] in "_."):
                end += 1
            word = text[start:end]
            start_col = col - (pos - start)
            sink.error("E103", f"malformed number `{word}`", Span(file, line, start_col, line, start_col + len(word)),
                       "numbers are whole (5), decimal (1.5), ranges (3..4), dice (2d6) or modifiers (+1)")
        else:
            sink.error("E101", f"unexpected character `{ch}`", Span(file, line, col, line, col + 1),
                       "names use letters, digits and `_`; text goes in double quotes")
        return
    if isinstance(err, UnexpectedToken):
        tok = err.token
        expected = _describe_expected(lark, _acceptable(err))
        if tok.type == "$END":
            where = _unclosed_brace(text)
            if where:
                sink.error("E104", "unexpected end of file", Span(file, line, col),
                           f"the `{{` opened at line {where[0]}, column {where[1]} is never closed")
            else:
                sink.error("E104", "unexpected end of file", Span(file, line, col), f"expected {expected}")
            return
        span = Span(file, tok.line or line, tok.column or col, tok.end_line or 0, tok.end_column or 0)
        pos = tok.start_pos or 0
        if tok.type == "NAME" and pos > 0 and text[pos - 1].isdigit():
            sink.error("E103", "malformed number", span,
                       "a number runs into letters; put a space between them or fix the number")
            return
        if tok.type == "RBRACE" and _unclosed_brace(text[:pos]) is None:
            sink.error("E100", "unmatched `}`", span, "this `}` closes no `{`; remove it")
            return
        hint = f"expected {expected}"
        if "COLON" in err.expected and tok.type != "COLON":
            hint += "; attributes are written `name: value`"
        sink.error("E100", f"unexpected {_token_text(tok)}", span, hint)
        return
    sink.error("E100", "syntax error", Span(file, line, col))  # pragma: no cover - defensive
