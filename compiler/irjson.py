"""The typed IR as JSON: what `cardc dump` prints and `generated/ir/<game>.json` holds.

Its shape is published as JSON Schema in `dsl/schemas/`.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator, Mapping
from typing import Any

from cardc import model as m
from cardc import syntax as s
from cardc.diagnostics import Span
from cardc.irvisit import ValueVisitor, Visitor
from cardc.jsonfast import fast_dumps

IR_FORMAT = 1
_NO_NAMES: Mapping[str, str] = {}


class _ValueJson(ValueVisitor[Any]):
    """A value as the IR's JSON."""

    def visit_int(self, v: s.IntV) -> Any:
        return v.value

    def visit_signed(self, v: s.SignedV) -> Any:
        return v.value

    def visit_bool(self, v: s.BoolV) -> Any:
        return v.value

    def visit_decimal(self, v: s.DecimalV) -> Any:
        return float(v.value)

    def visit_str(self, v: s.StrV) -> Any:
        return v.value

    def visit_range(self, v: s.RangeV) -> Any:
        return {"min": v.lo, "max": v.hi}

    def visit_dice(self, v: s.DiceV) -> Any:
        return {"dice": v.count, "sides": v.sides}

    def visit_icon(self, v: s.IconV) -> Any:
        return {"icon": v.name}

    def visit_localized(self, v: s.LocalizedV) -> Any:
        return v.as_dict()

    def visit_list(self, v: s.ListV) -> Any:
        return [self.value(i) for i in v.items]

    def visit_call(self, v: s.CallV) -> Any:
        if v.args is None:
            return v.name
        return {"call": v.name, "args": [{"name": a.name, "value": self.value(a.value)} for a in v.args]}

    def visit_unknown(self, v: s.UnknownV) -> Any:
        return {"unknown": True, "note": v.note}

    def visit_provisional(self, v: s.ProvisionalV) -> Any:
        return {"provisional": True, "value": self.value(v.value), "note": v.note}


value_json = _ValueJson().value


def span_json(span: Span, names: Mapping[str, str]) -> dict[str, object]:
    """A span with its file named as the project names it (relative to the content folder, not the cwd)."""
    return {"file": names.get(span.file, span.file), "line": span.line, "col": span.col}


def invocation_json(inv: m.Invocation, names: Mapping[str, str] = _NO_NAMES) -> dict[str, Any]:
    return {"verb": inv.verb, "role": inv.role, "args": {k: value_json(v) for k, v in inv.args},
            "span": span_json(inv.span, names)}


class _Json(Visitor[dict[str, Any]]):
    """Conditions and statements as the IR's JSON."""

    def __init__(self, names: Mapping[str, str]) -> None:
        self.names = names

    def visit_invocation(self, c: m.Invocation) -> dict[str, Any]:
        return invocation_json(c, self.names)

    def visit_not(self, c: m.NotCond) -> dict[str, Any]:
        return {"not": self.condition(c.cond)}

    def visit_and(self, c: m.AndCond) -> dict[str, Any]:
        return {"and": [self.condition(c.left), self.condition(c.right)]}

    def visit_or(self, c: m.OrCond) -> dict[str, Any]:
        return {"or": [self.condition(c.left), self.condition(c.right)]}

    def visit_do(self, st: m.Do) -> dict[str, Any]:
        return {"do": invocation_json(st.call, self.names)}

    def visit_may(self, st: m.May) -> dict[str, Any]:
        return {"may": invocation_json(st.call, self.names)}

    def visit_choose(self, st: m.Choose) -> dict[str, Any]:
        return {"choose": [{"option": o.name, "body": self.body(o.body),
                            **({"if": self.condition(o.guard)} if o.guard is not None else {})}
                           for o in st.options]}

    def visit_fire(self, st: m.Fire) -> dict[str, Any]:
        return {"fire": invocation_json(st.trigger, self.names)}

    def visit_run(self, st: m.Run) -> dict[str, Any]:
        return {"run": st.procedure}

    def visit_repeat(self, st: m.Repeat) -> dict[str, Any]:
        return {"repeat": st.count, "body": self.body(st.body)}

    def visit_while(self, st: m.While) -> dict[str, Any]:
        return {"while": self.condition(st.cond), "body": self.body(st.body)}

    def visit_for_each(self, st: m.ForEach) -> dict[str, Any]:
        return {"for_each": st.what, "body": self.body(st.body)}

    def visit_if(self, st: m.If) -> dict[str, Any]:
        return {"if": self.condition(st.cond), "then": self.body(st.then), "else": self.body(st.orelse)}


def condition_json(c: m.Condition, names: Mapping[str, str] = _NO_NAMES) -> dict[str, Any]:
    return _Json(names).condition(c)


def statement_json(st: m.Statement, names: Mapping[str, str] = _NO_NAMES) -> dict[str, Any]:
    return _Json(names).statement(st)


def effect_json(e: m.Effect, names: Mapping[str, str] = _NO_NAMES) -> dict[str, Any]:
    return {
        "index": e.index,
        "trigger": invocation_json(e.trigger, names),
        "condition": condition_json(e.condition, names) if e.condition is not None else None,
        "body": [statement_json(st, names) for st in e.body],
        "span": span_json(e.span, names),
    }


def entity_json(e: m.Entity, names: Mapping[str, str] = _NO_NAMES) -> dict[str, Any]:
    return {
        "kind": e.kind,
        "kinds": list(e.kinds),
        "id": e.id,
        "game": e.game,
        "module": e.module,
        "name": e.name.as_dict(),
        "text": e.text.as_dict() if e.text else None,
        "copies": e.copies,
        "tags": list(e.tags),
        "source": e.source,
        "variant": e.variant,
        "parent": e.parent,
        "errata": e.errata,
        "attrs": {k: value_json(v) for k, v in e.attrs.items()},
        "effects": [effect_json(x, names) for x in e.effects],
        "provisional": [{"attr": a, "note": n} for a, n in e.provisional],
        "span": span_json(e.span, names),
    }


def procedure_json(p: m.Procedure | m.EndRule | m.WinnerRule, names: Mapping[str, str] = _NO_NAMES) -> dict[str, Any]:
    head: dict[str, Any] = {"game": p.game, "module": p.module}
    if isinstance(p, m.Procedure):
        body: dict[str, Any] = {"procedure": p.name, "body": [statement_json(x, names) for x in p.body]}
    elif isinstance(p, m.EndRule):
        body = {"end_when": condition_json(p.cond, names)}
    else:
        body = {"winner_by": invocation_json(p.call, names)}
    return {**head, **body, "provisional": [{"attr": a, "note": n} for a, n in p.provisional],
            "span": span_json(p.span, names)}


def kind_json(k: m.KindDef, names: Mapping[str, str] = _NO_NAMES) -> dict[str, Any]:
    return {
        "id": k.id,
        "game": k.game,
        "module": k.module,
        "name": k.name.as_dict() if k.name else None,
        "extends": k.parent,
        "physical": k.physical,
        "copies": k.copies,
        "size": k.size,
        "attrs": {a.name: {"type": str(a.type), "required": a.required,
                           "default": value_json(a.default) if a.default is not None else None,
                           "doc": a.doc, "label": a.label.as_dict() if a.label else None, "icon": a.icon}
                  for a in k.attrs.values()},
        "span": span_json(k.span, names),
    }


def module_json(mod: m.Module, names: Mapping[str, str] = _NO_NAMES) -> dict[str, Any]:
    return {"game": mod.game, "id": mod.id, "key": mod.key, "name": mod.name.as_dict() if mod.name else None,
            "languages": list(mod.languages), "requires": list(mod.requires),
            "text": mod.text.as_dict() if mod.text else None, "source": mod.source, "span": span_json(mod.span, names)}


def game_json(g: m.Game, names: Mapping[str, str] = _NO_NAMES) -> dict[str, Any]:
    return {"id": g.id, "name": g.name.as_dict() if g.name else None, "languages": list(g.languages),
            "publish": list(g.publish), "fallback": g.fallback, "span": span_json(g.span, names)}


def project_json(p: m.Project, game: str | None = None) -> dict[str, Any]:
    """The whole IR, or one game's part of it."""
    names = p.source_names

    def keep(g: str) -> bool:
        return game is None or g == game

    return {
        "format": IR_FORMAT,
        "games": [game_json(g, names) for g in sorted(p.games.values(), key=lambda g: g.id) if keep(g.id)],
        "modules": [module_json(x, names) for x in sorted(p.modules.values(), key=lambda x: x.key) if keep(x.game)],
        "kinds": [kind_json(k, names) for _, k in sorted(p.kinds.items()) if keep(k.game)],
        "procedures": [procedure_json(x, names) for x in p.procedures if keep(x.game)],
        "entities": [entity_json(e, names) for e in p.entities if keep(e.game)],
    }


def iter_project_json(p: m.Project, game: str | None = None) -> Iterator[str]:
    """The text of `dumps(project_json(p, game))`, in pieces: one entity at a time, so a large
    project never has its whole IR as JSON objects and text in memory at once."""
    def keep(g: str) -> bool:
        return game is None or g == game

    head = project_json(dataclasses.replace(p, entities=()), game)
    del head["entities"]
    text = dumps(head)
    yield text[: text.rindex("\n}")] + ',\n  "entities": ['
    first = True
    for e in p.entities:
        if keep(e.game):
            body = _entity_text(entity_json(e, p.source_names)).replace("\n", "\n    ")
            yield ("\n    " if first else ",\n    ") + body
            first = False
    yield "]\n}\n" if first else "\n  ]\n}\n"


def _entity_text(data: dict[str, Any]) -> str:
    """`json.dumps(data, ensure_ascii=False, indent=2)`: orjson's text where it is json's (`fast_dumps`)."""
    fast = fast_dumps(data, sort_keys=False)
    return fast[:-1].decode("utf-8") if fast is not None else json.dumps(data, ensure_ascii=False, indent=2)


def dumps(data: Any) -> str:
    """Deterministic JSON text: the same IR always gives the same bytes."""
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"
