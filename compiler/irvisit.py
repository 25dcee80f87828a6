"""The one walk over trees: conditions and statements of effects and procedures (in the IR and in the parse
tree) and values (lists, calls with arguments, provisional values).

Code that goes through such a tree does it here, in one of three ways:
- `Visitor` (IR) or `SyntaxVisitor` (parse tree): one method per kind of node, for turning a tree into
  something else (JSON, Python source, rules text, the IR). `condition`, `statement` and `body` dispatch;
  a method that needs the parts of its node calls them again. `ValueVisitor` does the same for values.
- `walk`: every IR node below (and including) a node, in source order, for finding things in a tree.
- `operands`: `a and (b and c)` as `[a, b, c]`, for writers that print a chain without its grouping.

Recursion here is bounded: the parser limits how deep conditions and blocks nest (MAX_CONDITION_DEPTH,
MAX_BLOCK_DEPTH), and `walk`/`operands` do not recurse at all. `tests/test_one_visitor.py` keeps other
modules from growing their own walks.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Generic, TypeVar

from cardc import model as m
from cardc import syntax as s
from cardc.diagnostics import Span

R = TypeVar("R")

Node = (m.Effect | m.Procedure | m.EndRule | m.WinnerRule | m.Statement | m.Option | m.Condition)


class Visitor(Generic[R]):
    """Turns IR conditions and statements into an R. A subclass implements the methods for the nodes it can
    meet (an effect holds no `fire`, `repeat`, `while`, `for each` or `run`: E305); the others say so."""

    # ---- dispatch ---------------------------------------------------------------

    def condition(self, c: m.Condition) -> R:
        if isinstance(c, m.Invocation):
            return self.visit_invocation(c)
        if isinstance(c, m.NotCond):
            return self.visit_not(c)
        if isinstance(c, m.AndCond):
            return self.visit_and(c)
        return self.visit_or(c)

    def statement(self, st: m.Statement) -> R:
        if isinstance(st, m.Do):
            return self.visit_do(st)
        if isinstance(st, m.May):
            return self.visit_may(st)
        if isinstance(st, m.Choose):
            return self.visit_choose(st)
        if isinstance(st, m.If):
            return self.visit_if(st)
        if isinstance(st, m.Fire):
            return self.visit_fire(st)
        if isinstance(st, m.Run):
            return self.visit_run(st)
        if isinstance(st, m.Repeat):
            return self.visit_repeat(st)
        if isinstance(st, m.While):
            return self.visit_while(st)
        return self.visit_for_each(st)

    def body(self, body: tuple[m.Statement, ...]) -> list[R]:
        return [self.statement(st) for st in body]

    # ---- one method per node ----------------------------------------------------

    def missing(self, node: object) -> R:
        """A node this visitor was not written for: a bug in cardc (the checks keep it out), not bad input."""
        raise NotImplementedError(f"{type(self).__name__} has no case for {type(node).__name__}")

    def visit_invocation(self, c: m.Invocation) -> R:
        return self.missing(c)

    def visit_not(self, c: m.NotCond) -> R:
        return self.missing(c)

    def visit_and(self, c: m.AndCond) -> R:
        return self.missing(c)

    def visit_or(self, c: m.OrCond) -> R:
        return self.missing(c)

    def visit_do(self, st: m.Do) -> R:
        return self.missing(st)

    def visit_may(self, st: m.May) -> R:
        return self.missing(st)

    def visit_choose(self, st: m.Choose) -> R:
        return self.missing(st)

    def visit_if(self, st: m.If) -> R:
        return self.missing(st)

    def visit_fire(self, st: m.Fire) -> R:
        return self.missing(st)

    def visit_run(self, st: m.Run) -> R:
        return self.missing(st)

    def visit_repeat(self, st: m.Repeat) -> R:
        return self.missing(st)

    def visit_while(self, st: m.While) -> R:
        return self.missing(st)

    def visit_for_each(self, st: m.ForEach) -> R:
        return self.missing(st)


class SyntaxVisitor(Generic[R]):
    """The same dispatch over the parse tree's conditions and statements (what lowering turns into the IR)."""

    def condition(self, c: s.Cond) -> R:
        if isinstance(c, s.CallV):
            return self.visit_invocation(c)
        if isinstance(c, s.NotC):
            return self.visit_not(c)
        if isinstance(c, s.AndC):
            return self.visit_and(c)
        return self.visit_or(c)

    def statement(self, st: s.Stmt) -> R:
        if isinstance(st, s.DoS):
            return self.visit_do(st)
        if isinstance(st, s.MayS):
            return self.visit_may(st)
        if isinstance(st, s.ChooseS):
            return self.visit_choose(st)
        if isinstance(st, s.IfS):
            return self.visit_if(st)
        if isinstance(st, s.FireS):
            return self.visit_fire(st)
        if isinstance(st, s.RepeatS):
            return self.visit_repeat(st)
        if isinstance(st, s.WhileS):
            return self.visit_while(st)
        return self.visit_for_each(st)

    def missing(self, node: object) -> R:
        raise NotImplementedError(f"{type(self).__name__} has no case for {type(node).__name__}")

    def visit_invocation(self, c: s.CallV) -> R:
        return self.missing(c)

    def visit_not(self, c: s.NotC) -> R:
        return self.missing(c)

    def visit_and(self, c: s.AndC) -> R:
        return self.missing(c)

    def visit_or(self, c: s.OrC) -> R:
        return self.missing(c)

    def visit_do(self, st: s.DoS) -> R:
        return self.missing(st)

    def visit_may(self, st: s.MayS) -> R:
        return self.missing(st)

    def visit_choose(self, st: s.ChooseS) -> R:
        return self.missing(st)

    def visit_if(self, st: s.IfS) -> R:
        return self.missing(st)

    def visit_fire(self, st: s.FireS) -> R:
        return self.missing(st)

    def visit_repeat(self, st: s.RepeatS) -> R:
        return self.missing(st)

    def visit_while(self, st: s.WhileS) -> R:
        return self.missing(st)

    def visit_for_each(self, st: s.ForEachS) -> R:
        return self.missing(st)


class ValueVisitor(Generic[R]):
    """Turns a value into an R, one method per form; `value` dispatches. The forms a subclass does not
    distinguish go to `other` (by default: not handled, a bug in cardc)."""

    def value(self, v: s.Value) -> R:
        if isinstance(v, s.IntV):
            return self.visit_int(v)
        if isinstance(v, s.CallV):
            return self.visit_call(v)
        if isinstance(v, s.ListV):
            return self.visit_list(v)
        if isinstance(v, s.StrV):
            return self.visit_str(v)
        if isinstance(v, s.LocalizedV):
            return self.visit_localized(v)
        if isinstance(v, s.SignedV):
            return self.visit_signed(v)
        if isinstance(v, s.RangeV):
            return self.visit_range(v)
        if isinstance(v, s.DiceV):
            return self.visit_dice(v)
        if isinstance(v, s.BoolV):
            return self.visit_bool(v)
        if isinstance(v, s.DecimalV):
            return self.visit_decimal(v)
        if isinstance(v, s.IconV):
            return self.visit_icon(v)
        if isinstance(v, s.ProvisionalV):
            return self.visit_provisional(v)
        return self.visit_unknown(v)

    def other(self, v: s.Value) -> R:
        raise NotImplementedError(f"{type(self).__name__} has no case for {type(v).__name__}")

    def visit_int(self, v: s.IntV) -> R:
        return self.other(v)

    def visit_signed(self, v: s.SignedV) -> R:
        return self.other(v)

    def visit_decimal(self, v: s.DecimalV) -> R:
        return self.other(v)

    def visit_range(self, v: s.RangeV) -> R:
        return self.other(v)

    def visit_dice(self, v: s.DiceV) -> R:
        return self.other(v)

    def visit_str(self, v: s.StrV) -> R:
        return self.other(v)

    def visit_icon(self, v: s.IconV) -> R:
        return self.other(v)

    def visit_bool(self, v: s.BoolV) -> R:
        return self.other(v)

    def visit_localized(self, v: s.LocalizedV) -> R:
        return self.other(v)

    def visit_list(self, v: s.ListV) -> R:
        return self.other(v)

    def visit_call(self, v: s.CallV) -> R:
        return self.other(v)

    def visit_unknown(self, v: s.UnknownV) -> R:
        return self.other(v)

    def visit_provisional(self, v: s.ProvisionalV) -> R:
        return self.other(v)


def children(node: Node) -> tuple[Node, ...]:
    """The IR nodes directly below `node`, in source order (an invocation's arguments are values, not nodes)."""
    if isinstance(node, m.Invocation | m.Run):
        return ()
    if isinstance(node, m.NotCond):
        return (node.cond,)
    if isinstance(node, m.AndCond | m.OrCond):
        return (node.left, node.right)
    if isinstance(node, m.Do | m.May):
        return (node.call,)
    if isinstance(node, m.Choose):
        return node.options
    if isinstance(node, m.Option):
        return (node.guard, *node.body) if node.guard is not None else node.body
    if isinstance(node, m.If):
        return (node.cond, *node.then, *node.orelse)
    if isinstance(node, m.Fire):
        return (node.trigger,)
    if isinstance(node, m.While):
        return (node.cond, *node.body)
    if isinstance(node, m.Repeat | m.ForEach | m.Procedure):
        return node.body
    if isinstance(node, m.Effect):
        return (node.trigger, node.condition, *node.body) if node.condition is not None \
            else (node.trigger, *node.body)
    if isinstance(node, m.EndRule):
        return (node.cond,)
    return (node.call,)  # WinnerRule


def walk(node: Node | None) -> Iterator[Node]:
    """`node` and every node below it, parents before children, in source order (without recursion)."""
    stack: list[Node] = [node] if node is not None else []
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(children(n)))


def syntax_calls(node: object) -> Iterator[s.CallV]:
    """Every verb call in a parse-tree rule (triggers, conditions, statements), in source order, without
    recursion. Generic over the parse tree's fields, so new statement forms need no change here; a call's
    arguments are values (typed by the catalogue), not further calls."""
    stack: list[object] = [node]
    while stack:
        x = stack.pop()
        if isinstance(x, s.CallV):
            yield x
        elif isinstance(x, tuple):
            stack.extend(reversed(x))
        elif dataclasses.is_dataclass(x) and not isinstance(x, Span | type):
            stack.extend(reversed([getattr(x, f.name) for f in dataclasses.fields(x)]))


def invocations(node: Node | None) -> Iterator[m.Invocation]:
    """Every verb used below `node` (triggers, conditions, actions), in source order."""
    return (n for n in walk(node) if isinstance(n, m.Invocation))


def operands(c: m.Condition) -> list[m.Condition]:
    """The operands of a chain of one operator: `a and (b and c)` as `[a, b, c]` (the meaning is the same);
    a condition that is not an `and`/`or` is its own single operand."""
    op = type(c)
    if op is not m.AndCond and op is not m.OrCond:
        return [c]
    out: list[m.Condition] = []
    stack: list[m.Condition] = [c]
    while stack:
        x = stack.pop()
        if type(x) is op:
            assert isinstance(x, m.AndCond | m.OrCond)
            stack.extend((x.right, x.left))
        else:
            out.append(x)
    return out
