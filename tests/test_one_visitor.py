"""One visitor for every tree walk (issue 11 point 8): no module of the compiler recurses over rule-tree or value
nodes by itself; it subclasses `cardc.irvisit.Visitor`/`SyntaxVisitor`/`ValueVisitor` or iterates
`walk`/`invocations`/`syntax_calls`.

The scan finds functions that are recursive (they call themselves, directly or through other functions of
the same module) and test a node's type with `isinstance` against a node class of the rule trees or of values.
Each remaining one is listed below with why it stays.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from cardc import model as m
from cardc.diagnostics import Span
from cardc.irvisit import Visitor, invocations, operands, walk

COMPILER = Path(__file__).resolve().parent.parent / "compiler"

RULE_NODES = {"Invocation", "NotCond", "AndCond", "OrCond", "Do", "May", "Choose", "Option", "If", "Fire", "Run",
              "Repeat", "While", "ForEach", "Effect", "Procedure", "EndRule", "WinnerRule",
              "NotC", "AndC", "OrC", "DoS", "MayS", "ChooseS", "OptionS", "IfS", "FireS", "RepeatS", "WhileS",
              "ForEachS", "RuleS", "ProcedureS"}
VALUE_NODES = {"ListV", "CallV", "ProvisionalV", "Arg"}

# module path (relative to compiler/) : function -> why it is not on the visitor
ALLOWED: dict[str, str] = {
    # Walks of a value together with the type it must have: the type decides where to descend (a list's
    # items against the list's item type), so these walk the type as much as the value.
    "types.py:check_value": "checks a value against its catalogue type, descending by the type",
    "types.py:type_from_value": "reads a type expression written as a value (`list(ref(item))`)",
    "lower.py:_resolve_refs": "resolves references in a default value, descending by its type",
    "editor/analysis.py:_value": "editor hints for a value, descending by its type",
    "editor/analysis.py:_type_refs": "references inside a type expression written as a value",
    "lower.py:_declare_kind": "follows the chain of parent kinds, not a rule tree (isinstance on an attribute)",
}


def _type_names(node: ast.AST) -> set[str]:
    return {n.attr if isinstance(n, ast.Attribute) else n.id
            for n in ast.walk(node) if isinstance(n, ast.Name | ast.Attribute)}


def recursive_node_walks(source: str) -> dict[str, set[str]]:
    """Function name -> the node classes it tests with isinstance, for each recursive function of a module."""
    tree = ast.parse(source)
    funcs: dict[str, list[ast.FunctionDef]] = {}
    for n in ast.walk(tree):
        if isinstance(n, ast.FunctionDef):
            funcs.setdefault(n.name, []).append(n)

    def callees(fn: ast.FunctionDef) -> set[str]:
        out = set()
        for c in ast.walk(fn):
            if isinstance(c, ast.Call):
                if isinstance(c.func, ast.Name):
                    out.add(c.func.id)
                elif isinstance(c.func, ast.Attribute) and isinstance(c.func.value, ast.Name) \
                        and c.func.value.id in ("self", "cls"):
                    out.add(c.func.attr)
        return out & funcs.keys()

    graph = {name: set().union(*(callees(fn) for fn in fns)) for name, fns in funcs.items()}

    def recursive(name: str) -> bool:
        seen: set[str] = set()
        stack = [name]
        while stack:
            for callee in graph.get(stack.pop(), ()):
                if callee == name:
                    return True
                if callee not in seen:
                    seen.add(callee)
                    stack.append(callee)
        return False

    found: dict[str, set[str]] = {}
    for name, fns in funcs.items():
        if not recursive(name):
            continue
        for fn in fns:
            for c in ast.walk(fn):
                if isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id == "isinstance" \
                        and len(c.args) == 2:
                    hits = _type_names(c.args[1]) & (RULE_NODES | VALUE_NODES)
                    if hits:
                        found.setdefault(name, set()).update(hits)
    return found


def _scan() -> dict[str, set[str]]:
    out = {}
    for path in sorted(COMPILER.rglob("*.py")):
        rel = path.relative_to(COMPILER).as_posix()
        if rel == "irvisit.py" or "/runtime/" in f"/{rel}":  # the visitor itself; the runtime has no IR
            continue
        for name, hits in recursive_node_walks(path.read_text(encoding="utf-8")).items():
            out[f"{rel}:{name}"] = hits
    return out


def test_no_hand_written_walk_outside_the_visitor() -> None:
    found = _scan()
    unexpected = {k: sorted(v) for k, v in found.items() if k not in ALLOWED}
    assert not unexpected, f"recursive walks over IR nodes outside cardc.irvisit (use Visitor or walk): {unexpected}"


def test_no_rule_tree_walk_is_allowed() -> None:
    """The allow-list holds type-directed walks only: conditions and statements all go through the visitor."""
    found = _scan()
    assert all(not (found.get(k, set()) & RULE_NODES) for k in ALLOWED), \
        {k: sorted(found[k] & RULE_NODES) for k in ALLOWED if found.get(k, set()) & RULE_NODES}


def test_allow_list_has_no_stale_entries() -> None:
    found = _scan()
    assert sorted(k for k in ALLOWED if k not in found) == []


@pytest.mark.parametrize("source, expected", [
    ("def f(c):\n    if isinstance(c, m.NotCond):\n        return f(c.cond)\n    return c\n", {"f": {"NotCond"}}),
    ("class V:\n    def a(self, c):\n        if isinstance(c, AndCond):\n            return self.b(c.left)\n"
     "    def b(self, c):\n        return self.a(c)\n", {"a": {"AndCond"}}),
    ("def f(c):\n    return isinstance(c, m.NotCond)\n", {}),  # not recursive
])
def test_scan_finds_a_walk(source: str, expected: dict[str, set[str]]) -> None:
    assert recursive_node_walks(source) == expected


# ---- the visitor itself ---------------------------------------------------------------------------------

SP = Span("x.cardc", 1, 1)


def _inv(verb: str) -> m.Invocation:
    return m.Invocation(verb, "condition", (), SP)


def test_walk_is_source_order_and_iterative() -> None:
    a, b, c, d = (_inv(x) for x in "abcd")
    cond: m.Condition = m.AndCond(a, m.NotCond(m.OrCond(b, c, SP), SP), SP)
    effect = m.Effect(1, _inv("trigger"), None, (m.If(cond, (m.Do(d, SP),), (), SP),), SP)
    assert [i.verb for i in invocations(effect)] == ["trigger", "a", "b", "c", "d"]
    deep: m.Condition = a
    for _ in range(5000):  # far deeper than the parser allows: walk and operands never recurse
        deep = m.AndCond(deep, b, SP)
    assert sum(1 for _ in walk(deep)) == 10001
    assert len(operands(deep)) == 5001
    assert operands(m.AndCond(a, m.OrCond(b, c, SP), SP))[1] == m.OrCond(b, c, SP)  # only one operator


def test_visitor_names_what_it_cannot_handle() -> None:
    class Verbs(Visitor[str]):
        def visit_invocation(self, c: m.Invocation) -> str:
            return c.verb

    assert Verbs().condition(_inv("x")) == "x"
    with pytest.raises(NotImplementedError, match="Verbs has no case for NotCond"):
        Verbs().condition(m.NotCond(_inv("x"), SP))
