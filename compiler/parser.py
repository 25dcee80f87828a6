"""Source text -> parse tree (`compiler.syntax`), with Lark LALR and an inline transformer.

Syntax errors become diagnostics; nothing from Lark escapes as a traceback.
"""

from __future__ import annotations

import gc
import re
from fractions import Fraction
from functools import lru_cache
from typing import Any

from cardc import syntax as s
from cardc.diagnostics import DiagnosticSink, Span
from cardc.resources import DSL_DIR
from lark import Lark, Token, Transformer
from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedInput, UnexpectedToken

GRAMMAR_PATH = DSL_DIR / "cardc.lark"

_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\"}
_ESCAPE_RE = re.compile(r"\\(.)")


def _unescape(raw: str) -> str:
    return _ESCAPE_RE.sub(lambda m: _ESCAPES.get(m.group(1), m.group(1)), raw[1:-1])


class _ToAst(Transformer):  # type: ignore[type-arg]
    """Builds `compiler.syntax` nodes while Lark parses (no intermediate tree)."""

    file = "<input>"

    def _span(self, tok: Token) -> Span:
        return Span(self.file, tok.line or 1, tok.column or 1, tok.end_line or 0, tok.end_column or 0)

    # values
    def int_value(self, c: list[Any]) -> s.IntV:
        return s.IntV(int(c[0]), self._span(c[0]))

    def signed_value(self, c: list[Any]) -> s.SignedV:
        return s.SignedV(int(c[0]), self._span(c[0]))

    def decimal_value(self, c: list[Any]) -> s.DecimalV:
        return s.DecimalV(Fraction(str(c[0])), str(c[0]), self._span(c[0]))

    def range_value(self, c: list[Any]) -> s.RangeV:
        lo, hi = str(c[0]).split("..")
        return s.RangeV(int(lo), int(hi), self._span(c[0]))

    def dice_value(self, c: list[Any]) -> s.DiceV:
        count, sides = str(c[0]).split("d")
        return s.DiceV(int(count or 1), int(sides), self._span(c[0]))

    def string_value(self, c: list[Any]) -> s.StrV:
        return s.StrV(_unescape(str(c[0])), self._span(c[0]))

    def icon_value(self, c: list[Any]) -> s.IconV:
        return s.IconV(str(c[0])[1:-1], self._span(c[0]))

    def true_value(self, c: list[Any]) -> s.BoolV:
        return s.BoolV(True, self._span(c[0]))

    def false_value(self, c: list[Any]) -> s.BoolV:
        return s.BoolV(False, self._span(c[0]))

    def text_entry(self, c: list[Any]) -> s.TextEntry:
        return s.TextEntry(str(c[0]), _unescape(str(c[1])), self._span(c[0]))

    def localized_value(self, c: list[Any]) -> s.LocalizedV:
        return s.LocalizedV(tuple(c[1:]), self._span(c[0]))

    def list_value(self, c: list[Any]) -> s.ListV:
        return s.ListV(tuple(v for v in c[1:] if v is not None), self._span(c[0]))

    def unknown_value(self, c: list[Any]) -> s.UnknownV:
        note = _unescape(str(c[1])) if len(c) > 1 and c[1] is not None else None
        return s.UnknownV(note, self._span(c[0]))

    def provisional_value(self, c: list[Any]) -> s.ProvisionalV:
        return s.ProvisionalV(c[1], _unescape(str(c[2])), self._span(c[0]))

    def call_value(self, c: list[Any]) -> s.CallV:
        return c[0]  # type: ignore[no-any-return]

    def qname(self, c: list[Any]) -> tuple[str, Span]:
        first, last = c[0], c[-1]
        span = Span(self.file, first.line, first.column, last.end_line or 0, last.end_column or 0)
        return ".".join(str(t) for t in c), span

    def call(self, c: list[Any]) -> s.CallV:
        (name, span), args = c
        return s.CallV(name, args, span)

    def args(self, c: list[Any]) -> tuple[s.Arg, ...]:
        return tuple(a for a in c if a is not None)

    def arg(self, c: list[Any]) -> s.Arg:
        name, value = c
        if name is None:
            return s.Arg(None, value, value.span)
        return s.Arg(str(name), value, self._span(name))

    # effects
    def or_cond(self, c: list[Any]) -> s.OrC:
        return s.OrC(c[0], c[1], c[0].span)

    def and_cond(self, c: list[Any]) -> s.AndC:
        return s.AndC(c[0], c[1], c[0].span)

    def not_cond(self, c: list[Any]) -> s.NotC:
        return s.NotC(c[0], c[0].span)

    def block(self, c: list[Any]) -> tuple[Any, ...]:
        return tuple(c)

    def do_stmt(self, c: list[Any]) -> s.DoS:
        return s.DoS(c[0], c[0].span)

    def may_stmt(self, c: list[Any]) -> s.MayS:
        return s.MayS(c[0], c[0].span)

    def option(self, c: list[Any]) -> s.OptionS:
        return s.OptionS(str(c[0]), c[2], self._span(c[0]), c[1])

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
        return s.ChooseS(tuple(c), c[0].span)

    def else_block(self, c: list[Any]) -> tuple[Any, ...]:
        return c[0]  # type: ignore[no-any-return]

    def if_stmt(self, c: list[Any]) -> s.IfS:
        orelse = c[2] if len(c) > 2 else ()
        return s.IfS(c[0], c[1], orelse, c[0].span)

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
        return s.DeclS(
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

    def module_stmt(self, c: list[Any]) -> s.ModuleS:
        name, span = c[0]
        return s.ModuleS(name, span)

    def import_stmt(self, c: list[Any]) -> s.ImportS:
        return s.ImportS(_unescape(str(c[0])), self._span(c[0]))

    def start(self, c: list[Any]) -> list[Any]:
        return c


@lru_cache(maxsize=1)
def _parser() -> tuple[Lark, _ToAst]:
    transformer = _ToAst()
    lark = Lark(
        GRAMMAR_PATH.read_text(encoding="utf-8"),
        parser="lalr",
        lexer="contextual",
        transformer=transformer,
        maybe_placeholders=True,
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
        accepted = set(err.interactive_parser.accepts()) if err.interactive_parser is not None else set()
    except Exception:  # pragma: no cover - defensive: fall back to the state's set
        accepted = set()
    return accepted or set(err.expected)


def _token_text(tok: Token) -> str:
    return "end of file" if tok.type == "$END" else f"`{tok}`"


def parse_text(text: str, file: str, sink: DiagnosticSink) -> s.FileS | None:
    """Parse one source text; on a syntax error, report it and return None."""
    lark, transformer = _parser()
    transformer.file = file
    gc_was_enabled = gc.isenabled()
    gc.disable()  # the parse allocates many small objects; the cyclic GC only slows it
    try:
        items = lark.parse(text)
    except UnexpectedInput as err:
        _report_syntax_error(err, text, file, lark, sink)
        return None
    except LarkError as err:  # pragma: no cover - defensive: any other Lark failure
        sink.error("E100", f"cannot parse this file: {err}", Span(file, 1, 1))
        return None
    finally:
        if gc_was_enabled:
            gc.enable()
    module = next((i for i in items if isinstance(i, s.ModuleS)), None)
    return s.FileS(
        path=file,
        module=module,
        imports=tuple(i for i in items if isinstance(i, s.ImportS)),
        decls=tuple(i for i in items if isinstance(i, s.DeclS)),
        procedures=tuple(i for i in items if isinstance(i, s.ProcedureS | s.EndS | s.WinnerS)),
    )


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
