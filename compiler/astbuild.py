"""Parse-tree building shared by both parsers: the grammar's rule callbacks and the lexer's literal limits.

Lark's parser (`cardc.parser`) and the Lark-free one (`cardc.fastparse`) call the same methods with the same
children, so both build the same `compiler.syntax` tree and report the same diagnostics. Nothing here imports Lark.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, TypeVar

from cardc import syntax as s
from cardc.diagnostics import DiagnosticSink, Span
from cardc.lexemes import CONTROL, MAX_DIGITS, MAX_NAME, MAX_STRING, string_text

# Limits checked as the source is read (those of single literals are in cardc.lexemes).
MAX_DICE = 6
DICE_SIDES = (2, 20)
MAX_CONDITION_DEPTH = 24  # `a and b and ...`: each term nests one level
MAX_BLOCK_DEPTH = 12  # `if` and `choose` inside each other
MAX_VALUE_DEPTH = 8  # lists in lists, provisional values, calls as arguments
MAX_DECL_DEPTH = 6  # declarations inside declarations


T = TypeVar("T")


def slot_maker(cls: type[T], names: tuple[str, ...]) -> Callable[..., T]:
    """`cls(*fields)` for a frozen, slotted dataclass whose fields are `names`, made without its `__init__`: that
    sets each field by `object.__setattr__` (about 1,300 instructions a field); the slots' own setters take two
    thirds of that, and a parse sets some 75,000 fields (8,000 spans of five). The same object (class, fields,
    equality, pickle); `cls` itself when its fields are not these slots (all given, in this order, by position)
    or it has a `__post_init__`. Called with every field, by position (the parser's nodes here, the IR's in
    `cardc.lower`)."""
    fields = getattr(cls, "__dataclass_fields__", {})
    params = getattr(cls, "__dataclass_params__", None)
    setters: list[Any] = [getattr(cls.__dict__.get(n), "__set__", None) for n in names]
    if tuple(fields) != names or getattr(cls, "__slots__", ()) != names or hasattr(cls, "__post_init__") \
            or params is None or not params.frozen or any(not f.init or f.kw_only for f in fields.values()) \
            or not all(type(cls.__dict__.get(n)).__name__ == "member_descriptor" for n in names) \
            or cls.__new__ is not object.__new__:
        return cls
    new = object.__new__
    if len(names) == 2:
        set0, set1 = setters

        def make2(a: object, b: object) -> T:
            node = new(cls)
            set0(node, a)
            set1(node, b)
            return node
        return make2
    if len(names) == 3:
        set0, set1, set2 = setters

        def make3(a: object, b: object, c: object) -> T:
            node = new(cls)
            set0(node, a)
            set1(node, b)
            set2(node, c)
            return node
        return make3
    if len(names) == 4:
        set0, set1, set2, set3 = setters

        def make4(a: object, b: object, c: object, d: object) -> T:
            node = new(cls)
            set0(node, a)
            set1(node, b)
            set2(node, c)
            set3(node, d)
            return node
        return make4
    if len(names) == 5:
        set0, set1, set2, set3, set4 = setters

        def make5(a: object, b: object, c: object, d: object, e: object) -> T:
            node = new(cls)
            set0(node, a)
            set1(node, b)
            set2(node, c)
            set3(node, d)
            set4(node, e)
            return node
        return make5
    pairs = tuple(zip(range(len(names)), setters, strict=True))

    def make(*values: object) -> T:
        if len(values) != len(pairs):
            raise TypeError(f"{cls.__name__} takes {len(pairs)} fields, not {len(values)}")
        node = new(cls)
        for i, set_field in pairs:
            set_field(node, values[i])
        return node
    return make


_make_span = slot_maker(Span, ("file", "line", "col", "end_line", "end_col"))
# The nodes a parse makes most often (the bundled content: 1,900 text entries, 1,700 attributes, 1,600 calls...)
_TextEntry = slot_maker(s.TextEntry, ("lang", "text", "span"))
_AttrS = slot_maker(s.AttrS, ("name", "value", "span"))
_CallV = slot_maker(s.CallV, ("name", "args", "span"))
_Arg = slot_maker(s.Arg, ("name", "value", "span"))
_LocalizedV = slot_maker(s.LocalizedV, ("entries", "span"))
_StrV = slot_maker(s.StrV, ("value", "span"))
_IntV = slot_maker(s.IntV, ("value", "span"))
_DoS = slot_maker(s.DoS, ("call", "span"))
_ProvisionalV = slot_maker(s.ProvisionalV, ("value", "note", "span"))
_UnknownV = slot_maker(s.UnknownV, ("note", "span"))
_RuleS = slot_maker(s.RuleS, ("trigger", "cond", "body", "span"))
_DeclS = slot_maker(s.DeclS, ("kind", "id", "errata", "extends", "attrs", "decls", "rules", "span", "id_span"))


class AstBuilder:
    """Builds `compiler.syntax` nodes while the text is parsed (no intermediate tree): the callbacks of each
    grammar rule, by the rule's name, for Lark's parser (`cardc.parser`) and for `cardc.fastparse` alike.

    It also measures how deep conditions, blocks, values and declarations nest (`depth`, by node id: the
    nodes live until the parse ends) and reports what goes past the limits, once per construct.
    """

    file = "<input>"
    sink: DiagnosticSink | None = None

    def __init__(self) -> None:
        super().__init__()  # with Lark: its Transformer's
        self.depth: dict[int, int] = {}
        self.too_deep = False

    def reset(self, file: str, sink: DiagnosticSink) -> None:
        self.file, self.sink, self.depth, self.too_deep = file, sink, {}, False

    def _span(self, tok: Any) -> Span:
        return _make_span(self.file, tok.line or 1, tok.column or 1, tok.end_line or 0, tok.end_column or 0)

    def _nest(self, node: Any, children: Any, limit: int, what: str, span: Span) -> None:
        """Record `node`'s depth (one more than its deepest child); report the first step past `limit`."""
        depth, d = self.depth, 0
        for ch in children:  # (a loop, not max() of a generator: 2,500 nodes a check)
            k = depth.get(id(ch), 0)
            if k > d:
                d = k
        d += 1
        depth[id(node)] = d
        if d > limit:
            self.too_deep = True
        if d == limit + 1 and self.sink is not None:
            self.sink.error("E106", f"{what} nest more than {limit} levels deep", span,
                            "split it up: name a part as its own rule, entity or variant")

    def _text(self, tok: Any) -> str:
        """A string literal's text, with control characters removed (W105) and line separators as line breaks."""
        text = string_text(str(tok))
        if text.isprintable():  # every control character is one it does not print: a third of the search's time
            return text
        found = CONTROL.search(text)
        if found is not None:
            if self.sink is not None:
                self.sink.warning("W105", f"control character U+{ord(found.group()):04X} in a string is removed",
                                  self._span(tok), "delete it from the source; write `\\n` for a line break")
            text = CONTROL.sub("", text)
        return text

    # values
    def int_value(self, c: list[Any]) -> s.IntV:
        return _IntV(int(c[0]), self._span(c[0]))

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
        return _StrV(self._text(c[0]), self._span(c[0]))

    def icon_value(self, c: list[Any]) -> s.IconV:
        return s.IconV(str(c[0])[1:-1], self._span(c[0]))

    def true_value(self, c: list[Any]) -> s.BoolV:
        return s.BoolV(True, self._span(c[0]))

    def false_value(self, c: list[Any]) -> s.BoolV:
        return s.BoolV(False, self._span(c[0]))

    def text_entry(self, c: list[Any]) -> s.TextEntry:
        return _TextEntry(str(c[0]), self._text(c[1]), self._span(c[0]))

    def localized_value(self, c: list[Any]) -> s.LocalizedV:
        return _LocalizedV(tuple(c[1:]), self._span(c[0]))

    def list_value(self, c: list[Any]) -> s.ListV:
        node = s.ListV(tuple(v for v in c[1:] if v is not None), self._span(c[0]))
        self._nest(node, node.items, MAX_VALUE_DEPTH, "lists and values", node.span)
        return node

    def unknown_value(self, c: list[Any]) -> s.UnknownV:
        note = self._text(c[1]) if len(c) > 1 and c[1] is not None else None
        return _UnknownV(note, self._span(c[0]))

    def provisional_value(self, c: list[Any]) -> s.ProvisionalV:
        node = _ProvisionalV(c[1], self._text(c[2]), self._span(c[0]))
        self._nest(node, [c[1]], MAX_VALUE_DEPTH, "values", node.span)
        return node

    def call_value(self, c: list[Any]) -> s.CallV:
        return c[0]  # type: ignore[no-any-return]

    def qname(self, c: list[Any]) -> tuple[str, Span]:
        first, last = c[0], c[-1]
        span = _make_span(self.file, first.line, first.column, last.end_line or 0, last.end_column or 0)
        return ".".join(str(t) for t in c), span

    def call(self, c: list[Any]) -> s.CallV:
        (name, span), args = c
        node = _CallV(name, args, span)
        self._nest(node, [a.value for a in args] if args else (), MAX_VALUE_DEPTH, "calls and values", span)
        return node

    def args(self, c: list[Any]) -> tuple[s.Arg, ...]:
        return tuple(a for a in c if a is not None)

    def arg(self, c: list[Any]) -> s.Arg:
        name, value = c
        if name is None:
            return _Arg(None, value, value.span)
        return _Arg(str(name), value, self._span(name))

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
        depth, d = self.depth, 0
        for st in c:
            k = depth.get(id(st), 0)
            if k > d:
                d = k
        depth[id(node)] = d
        return node

    def do_stmt(self, c: list[Any]) -> s.DoS:
        return _DoS(c[0], c[0].span)

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
        return _RuleS(trigger, cond, body, trigger.span)

    # declarations
    def attr(self, c: list[Any]) -> s.AttrS:
        return _AttrS(str(c[0]), c[1], self._span(c[0]))

    def extends(self, c: list[Any]) -> tuple[str, Span]:
        return c[0]  # type: ignore[no-any-return]

    def body(self, c: list[Any]) -> list[Any]:
        return c

    def decl(self, c: list[Any]) -> s.DeclS:
        errata = getattr(c[0], "type", None) == "ERRATA"  # a keyword token, Lark's or `cardc.fastparse`'s
        if errata:
            c = c[1:]
        kind, ident = c[0], c[1]
        extends = c[2][0] if len(c) == 4 else None
        members = c[-1]
        node = _DeclS(
            str(kind),  # kind
            str(ident),  # id
            errata,
            extends,
            tuple(m for m in members if isinstance(m, s.AttrS)),  # attrs
            tuple(m for m in members if isinstance(m, s.DeclS)),  # decls
            tuple(m for m in members if isinstance(m, s.RuleS)),  # rules
            self._span(kind),  # span
            self._span(ident),  # id_span
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


def literal_limits(transformer: AstBuilder) -> dict[str, Callable[[Any], Any]]:
    """Lexer callbacks that report literals past the limits (E105) and shrink them to a harmless stand-in,
    so the parse goes on and no later step (Python's int() refuses 4,301 digits) sees the huge value."""
    def report(tok: Any, message: str, hint: str) -> None:
        if transformer.sink is not None:
            span = Span(transformer.file, tok.line or 1, tok.column or 1, tok.end_line or 0, tok.end_column or 0)
            transformer.sink.error("E105", message, span, hint)

    def number(tok: Any) -> Any:
        digits = max((len(run) for run in re.findall(r"[0-9]+", str(tok))), default=0)
        if digits > MAX_DIGITS:
            report(tok, f"a number of {digits} digits", f"numbers have at most {MAX_DIGITS} digits")
            return tok.update(value=re.sub(r"[0-9]+", "1", str(tok)))
        return tok

    def dice(tok: Any) -> Any:
        tok = number(tok)
        count, sides = str(tok).split("d")
        lo, hi = DICE_SIDES
        if not 1 <= int(count or 1) <= MAX_DICE or not lo <= int(sides) <= hi:
            report(tok, f"dice `{tok}` cannot be rolled", f"use 1 to {MAX_DICE} dice of {lo} to {hi} sides, like 2d6")
            return tok.update(value="1d6")
        return tok

    def string(tok: Any) -> Any:
        if len(tok) - 2 > MAX_STRING:
            report(tok, f"a string of {len(tok) - 2:,} characters", f"strings have at most {MAX_STRING:,} characters")
            return tok.update(value='""')
        return tok

    def name(tok: Any) -> Any:
        if len(tok) > MAX_NAME:
            report(tok, f"a name of {len(tok)} characters", f"names have at most {MAX_NAME} characters")
            return tok.update(value=str(tok)[:MAX_NAME])
        return tok

    return {"INT": number, "SIGNED": number, "DECIMAL": number, "RANGE": number, "DICE": dice, "STRING": string,
            "NAME": name}
