"""Source text -> parse tree (`compiler.syntax`): the grammar `dsl/cardc.lark`, parsed LALR(1).

A text is parsed first by `cardc.fastparse` (the grammar's tables read ahead, no Lark import); a text it leaves
(a syntax error, or tables that are not current) is parsed by Lark with the same tree-building callbacks
(`cardc.astbuild`), and Lark's syntax errors become diagnostics; nothing from Lark escapes as a traceback.
"""

from __future__ import annotations

import gc
import re
from collections.abc import Iterator
from dataclasses import replace
from functools import lru_cache
from typing import TYPE_CHECKING, Any, cast

from cardc import syntax as s
from cardc.astbuild import AstBuilder, literal_limits
from cardc.diagnostics import SYNTAX_CODES, DiagnosticSink, Span
from cardc.resources import DSL_DIR

if TYPE_CHECKING:  # Lark is imported only for a text the fast parser leaves to it
    from lark import Lark, Token
    from lark.exceptions import UnexpectedInput, UnexpectedToken

GRAMMAR_PATH = DSL_DIR / "cardc.lark"


@lru_cache(maxsize=1)
def _parser() -> tuple[Lark, AstBuilder]:
    from lark import Lark, Transformer

    class _ToAst(AstBuilder, Transformer):  # type: ignore[type-arg]
        """The tree-building callbacks as Lark's inline transformer."""

    transformer = _ToAst()
    lark = Lark(
        GRAMMAR_PATH.read_text(encoding="utf-8"),
        parser="lalr",
        lexer="contextual",
        transformer=transformer,
        maybe_placeholders=True,
        lexer_callbacks=literal_limits(transformer),
        cache=True,  # Lark keeps the LALR tables in the temp folder: start-up 0.16 s instead of 0.8 s under load
    )
    return lark, transformer


def bare_parser() -> Lark:
    """The same grammar with no transformer: the baseline the benchmark compares against."""
    from lark import Lark

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


def _code(text: str) -> Iterator[tuple[str, int, int, int]]:
    """The braces of `text` outside strings and comments, and the start of each line, in order: (`{`, `}` or
    `\n`, line, column, offset); a line's start has column 1 and the offset of its first character. A string ends
    on its line, closed or not; a block comment never closed runs to the end."""
    line, line_at, i, n = 1, 0, 0, len(text)
    yield "\n", 1, 1, 0
    while i < n:
        ch = text[i]
        if ch == "\n":
            line, line_at = line + 1, i + 1
            yield "\n", line, 1, i + 1
        elif ch == '"':
            i += 1
            while i < n and text[i] not in '"\n':
                i += 2 if text[i] == "\\" else 1
            if i < n and text[i] == '"':
                i += 1
            continue
        elif ch == "#" or text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
            continue
        elif text.startswith("/*", i):
            close = text.find("*/", i + 2)
            close = n if close < 0 else close + 2
            for j in range(i, close):
                if text[j] == "\n":
                    line, line_at = line + 1, j + 1
            i = close
            continue
        elif ch in "{}":
            yield ch, line, i - line_at + 1, i
        i += 1


def _unclosed_brace(text: str) -> tuple[int, int] | None:
    """The line and column of the last `{` that is never closed, ignoring strings and comments."""
    stack: list[tuple[int, int]] = []
    for what, line, col, _ in _code(text):
        if what == "{":
            stack.append((line, col))
        elif what == "}" and stack:
            stack.pop()
    return stack[-1] if stack else None


def _acceptable(err: UnexpectedToken) -> set[str]:
    """The terminals that could really come next. `err.expected` is the LALR state's set, which
    (states being merged) also lists tokens valid only in other contexts, such as `)` after an
    attribute's value; the interactive parser tries each one through the pending reductions."""
    from lark.exceptions import LarkError

    try:
        parser: Any = err.interactive_parser  # lark's interactive parser is untyped
        accepted = set(parser.accepts()) if parser is not None else set()
    except LarkError:  # pragma: no cover - defensive: fall back to the state's set
        accepted = set()
    return accepted or set(err.expected)


def _token_text(tok: Token) -> str:
    return "end of file" if tok.type == "$END" else f"`{tok}`"


def parse_text(text: str, file: str, sink: DiagnosticSink) -> s.FileS | None:
    """Parse one source text; on a syntax error, report it, and the first syntax error of each later top-level
    item that has one (`_later_syntax_errors`), and return None."""
    from cardc import fastparse

    reported = len(sink.items)
    gc_was_enabled = gc.isenabled()
    gc.disable()  # the parse allocates many small objects; the cyclic GC only slows it
    try:
        parsed = fastparse.parse(text, file, sink)
        if parsed is None:
            parsed = _parse_with_lark(text, file, sink)
            if parsed is None:
                lines = [d.span.line for d in sink.items[reported:] if d.is_error]
                _later_syntax_errors(text, file, sink, max(lines, default=1))
    finally:
        if gc_was_enabled:
            gc.enable()
    if parsed is None:
        return None
    items, too_deep = parsed
    if too_deep:
        return None  # reported (E106); later steps walk the tree recursively and must never see one this deep
    module = next((i for i in items if isinstance(i, s.ModuleS)), None)
    return s.FileS(
        path=file,
        module=module,
        imports=tuple(i for i in items if isinstance(i, s.ImportS)),
        decls=tuple(i for i in items if isinstance(i, s.DeclS)),
        procedures=tuple(i for i in items if isinstance(i, s.ProcedureS | s.EndS | s.WinnerS)),
    )


# At most this many syntax errors are reported per file (the first, then one per later broken item).
MAX_SYNTAX_ERRORS = 50
# The start of a top-level item, at a line's first column: a declaration (`card a {`, `errata card a {`,
# `expansion e extends g {`), a procedure or a module, import, end or winner statement.
_ITEM_START = re.compile(r"(?:errata[ \t]+)?[A-Za-z_]\w*[ \t]+[A-Za-z_]\w*(?:[ \t]+extends[ \t]+[\w.]+)?[ \t]*\{"
                         r"|(?:procedure|module|import|end|winner)\b")


def _item_starts(text: str) -> list[tuple[int, int]]:
    """The (line, offset) of each line that starts a top-level item (`_ITEM_START`) outside every brace, string
    and comment of the lines before it."""
    found: list[tuple[int, int]] = []
    depth = 0
    for what, line, _, offset in _code(text):
        if what == "\n":
            if depth == 0 and _ITEM_START.match(text, offset):
                found.append((line, offset))
        elif what == "{":
            depth += 1
        elif depth:
            depth -= 1
    return found


def _later_syntax_errors(text: str, file: str, sink: DiagnosticSink, after: int) -> None:
    """After the file's syntax error at line `after`: the first syntax error of each top-level item that starts
    after it (`_item_starts`), each item parsed alone (so a designer sees every broken card of a file at once,
    not one per run, in time linear in the file). Only syntax errors are kept: a file with one is not checked
    further."""
    from cardc import fastparse

    starts = [st for st in _item_starts(text) if st[0] > after]
    count = 1
    for k, (line, offset) in enumerate(starts):
        if count >= MAX_SYNTAX_ERRORS:
            break
        chunk = text[offset:starts[k + 1][1] if k + 1 < len(starts) else len(text)]
        own = DiagnosticSink()
        if fastparse.parse(chunk, file, own) is not None or _parse_with_lark(chunk, file, own, line - 1) is not None:
            continue
        first = next((d for d in own.items if d.is_error and d.code in SYNTAX_CODES), None)
        if first is not None:
            sink.items.append(first)
            count += 1



def _parse_with_lark(text: str, file: str, sink: DiagnosticSink, base: int = 0) -> tuple[list[Any], bool] | None:
    """The file's items (and whether they nest too deep) by Lark's tables; None after a syntax error (reported).
    `base`: the lines of the file before `text` (a part of it), added to the lines reported."""
    from lark.exceptions import LarkError, UnexpectedInput

    lark, transformer = _parser()
    try:
        items = _driven(lark, transformer, text, file, sink)
        if items is None:  # Lark parses it, and reports what is wrong
            transformer.reset(file, sink)
            items = cast("list[Any]", lark.parse(text))  # the transformer returns the file's items
    except UnexpectedInput as err:
        _report_syntax_error(err, text, file, lark, sink, base)
        return None
    except LarkError as err:  # pragma: no cover - defensive: any other Lark failure
        sink.error("E100", f"cannot parse this file: {err}", Span(file, 1, 1))
        return None
    return items, transformer.too_deep


def _driven(lark: Lark, transformer: AstBuilder, text: str, file: str, sink: DiagnosticSink) -> list[Any] | None:
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


def _report_syntax_error(err: UnexpectedInput, text: str, file: str, lark: Lark, sink: DiagnosticSink,
                         base: int = 0) -> None:
    """The diagnostic of Lark's `err` in `text`, its lines counted from `base` lines before `text`."""
    if not base:
        _report_error_at(err, text, file, lark, sink, 0)
        return
    own = DiagnosticSink()
    _report_error_at(err, text, file, lark, own, base)
    for d in own.items:
        span = d.span
        sink.items.append(replace(d, span=replace(span, line=span.line + base,
                                                  end_line=span.end_line + base if span.end_line else 0)))


def _report_error_at(err: UnexpectedInput, text: str, file: str, lark: Lark, sink: DiagnosticSink,
                     base: int) -> None:
    from lark.exceptions import UnexpectedCharacters, UnexpectedToken

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
                           f"the `{{` opened at line {where[0] + base}, column {where[1]} is never closed")
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
