"""The engine-neutral export of one game: `export/<game>.json`, shaped by dsl/schemas/export.schema.json.

It is read from the checked IR only. Unlike `ir/<game>.json` (the compiler's own view, spans and all)
it is flattened for consumers: every name and text in every published language with the fallback
applied and flagged, typed values, conditions as n-ary trees, effect parameters by name, and the
generated rules text next to the structured effects.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cardc import model as m
from cardc.backends.export.values import Localizer, ValueEncoder, type_tree
from cardc.catalogue import Catalogue, default_catalogue
from cardc.irvisit import Visitor, operands
from cardc.lower import default_value

EXPORT_FORMAT = "cardc-export"
EXPORT_VERSION = 2  # 2: the game's procedures, end and winner rules (and the verbs they use) travel as data
SCHEMA_ID = "https://cardc.invalid/schemas/export.schema.json"

RulesText = Callable[[m.Project, m.Entity, str], list[str]]


def _rules_text_function() -> RulesText | None:
    """`compiler.textgen.entity_rules_text` when present: the export then carries readable rules text."""
    try:
        from cardc.textgen import entity_rules_text
    except ImportError:  # pragma: no cover - textgen is part of the compiler today
        return None
    return entity_rules_text


def export_languages(game: m.Game) -> tuple[str, ...]:
    return game.publish or game.languages


class GameExport(Visitor[dict[str, Any]]):
    """Builds the export document of one game."""

    def __init__(self, project: m.Project, game: str, catalogue: Catalogue | None = None,
                 rules_text: RulesText | None = None) -> None:
        self.project = project
        self.game = project.games[game]
        self.langs = export_languages(self.game)
        self.catalogue = catalogue or default_catalogue()
        self.rules_text = rules_text if rules_text is not None else _rules_text_function()
        self.entities = project.entities_of(game)
        self.by_id = {e.id: e for e in self.entities if not e.errata}
        self.loc = Localizer(self.langs, self.game.fallback)
        self.enc = ValueEncoder(self.by_id, self.loc)
        self.replaced_by: dict[str, list[str]] = {}
        self.used_verbs: set[str] = set()  # every catalogue verb a call of this game names (see `verbs`)
        for e in self.entities:
            if e.errata:
                self.replaced_by.setdefault(e.id, []).append(e.key)

    # ---- top level ---------------------------------------------------------

    def document(self) -> dict[str, Any]:
        g = self.game
        return {
            "$schema": SCHEMA_ID,
            "format": EXPORT_FORMAT,
            "format_version": EXPORT_VERSION,
            "game": {"id": g.id, "name": self.loc.localized(g.name), "languages": list(g.languages),
                     "publish": list(self.langs), "fallback": g.fallback},
            "modules": [self.module(x) for x in sorted(self.project.modules_of(g.id),
                                                       key=lambda x: (x.id != "base", x.id))],
            "kinds": self.kinds(),
            "entities": [self.entity(e) for e in self.entities],
            "procedures": [self.procedure(p) for p in self.project.procedures_of(g.id)],
            "verbs": self.verbs(),  # last: the calls above collect the verbs used
        }

    def verbs(self) -> dict[str, dict[str, Any]]:
        """The catalogue entry of every verb the game's effects and procedures use: what another engine must
        implement, with the parameters in their order (a call's `args` are keyed by name)."""
        out: dict[str, dict[str, Any]] = {}
        for name in sorted(self.used_verbs):
            verb = self.catalogue.verbs.get(name)
            if verb is None:  # pragma: no cover - the checker rejects unknown verbs before any backend runs
                continue
            out[name] = {"role": verb.role, "doc": verb.doc.strip(), "params": [
                {"name": p.name, "type": str(p.type), "type_tree": type_tree(p.type), "required": p.required,
                 "default": None if p.required else self.enc.encode(default_value(p.default), p.type),
                 "doc": p.doc} for p in verb.params]}
        return out

    def procedure(self, p: m.Procedure | m.EndRule | m.WinnerRule) -> dict[str, Any]:
        """How the game is played, as data: a procedure's statements, an end condition or the winner rule."""
        head: dict[str, Any] = {"module": p.module,
                                "provisional": [{"path": path, "note": note} for path, note in p.provisional],
                                "source": {"file": self.project.source_name(p.span.file), "line": p.span.line}}
        if isinstance(p, m.Procedure):
            return {"type": "procedure", "name": p.name, "body": [self.statement(st) for st in p.body], **head}
        if isinstance(p, m.EndRule):
            return {"type": "end", "condition": self.condition(p.cond), **head}
        return {"type": "winner", "call": self.call(p.call), **head}

    def module(self, mod: m.Module) -> dict[str, Any]:
        return {"id": mod.id, "key": mod.key, "base": mod.id == "base", "name": self.loc.localized(mod.name),
                "text": self.loc.localized(mod.text), "languages": list(mod.languages),
                "requires": list(mod.requires), "source": mod.source}

    def kinds(self) -> list[dict[str, Any]]:
        out = {k.id: self.kind(k) for k in self.project.kinds_of(self.game.id)}
        for e in self.entities:  # built-in kinds (variant) have no declaration of their own
            for kind in e.kinds:
                if kind not in out:
                    out[kind] = {"id": kind, "builtin": True, "extends": None, "ancestors": [], "module": "base",
                                 "name": None, "physical": False, "copies": 0, "size": None, "attrs": {}}
        return [out[k] for k in sorted(out)]

    def kind(self, k: m.KindDef) -> dict[str, Any]:
        return {
            "id": k.id, "builtin": False, "extends": k.parent, "ancestors": self._ancestors(k.id)[1:],
            "module": k.module, "name": self.loc.localized(k.name), "physical": k.physical,
            "copies": k.copies, "size": k.size,
            "attrs": {a.name: {"type": str(a.type), "type_tree": type_tree(a.type), "required": a.required,
                               "default": self.enc.encode(a.default, a.type) if a.default is not None else None,
                               "doc": a.doc,
                               **({"label": self.loc.localized(a.label)} if a.label is not None else {}),
                               **({"icon": a.icon} if a.icon else {})} for a in k.attrs.values()},
        }

    def _ancestors(self, kind: str) -> list[str]:
        chain: list[str] = []
        cur: str | None = kind
        while cur is not None and cur not in chain:
            chain.append(cur)
            kd = self.project.kinds.get((self.game.id, cur))
            cur = kd.parent if kd is not None else None
        return chain

    def _attr_type(self, e: m.Entity, name: str) -> m.TypeExpr | None:
        for kind in e.kinds:
            kd = self.project.kinds.get((e.game, kind))
            if kd is not None and name in kd.attrs:
                return kd.attrs[name].type
        return None

    # ---- entities ----------------------------------------------------------

    def entity(self, e: m.Entity) -> dict[str, Any]:
        notes = dict(e.provisional)
        kd = self.project.kinds.get((e.game, e.kind))
        replaced = None
        if e.errata:
            base = self.by_id.get(e.id)
            replaced = {"id": e.id, "key": base.key if base else e.id, "module": base.module if base else None}
        return {
            "key": e.key,
            "id": e.id,
            "kind": e.kind,
            "kinds": list(e.kinds),
            "ancestors": list(e.kinds[1:]),
            "module": e.module,
            "physical": bool(kd is not None and kd.physical),
            "name": self.loc.localized(e.name),
            "name_provisional": notes.get("name"),
            "text": self.loc.localized(e.text),
            "text_provisional": notes.get("text"),
            "rules_text": self.rules(e),
            "copies": e.copies,
            "copies_provisional": notes.get("copies"),
            "tags": list(e.tags),
            "variant": e.variant,
            "parent": e.parent,
            "errata": e.errata,
            "replaces": replaced,
            "replaced_by": sorted(self.replaced_by.get(e.id, [])) if not e.errata else [],
            "attrs": {k: self.enc.encode(v, self._attr_type(e, k)) for k, v in e.attrs.items()},
            "effects": [self.effect(x) for x in e.effects],
            "provisional": [{"path": path, "note": note} for path, note in e.provisional],
            "source": {"ref": e.source, "file": self.project.source_name(e.span.file), "line": e.span.line},
        }

    def rules(self, e: m.Entity) -> dict[str, list[str]] | None:
        if self.rules_text is None:
            return None
        return {lang: [t for t in self.rules_text(self.project, e, lang) if t] for lang in self.langs}

    # ---- effects -----------------------------------------------------------

    def effect(self, x: m.Effect) -> dict[str, Any]:
        return {"index": x.index, "trigger": self.call(x.trigger),
                "condition": self.condition(x.condition) if x.condition is not None else None,
                "body": [self.statement(st) for st in x.body]}

    def call(self, inv: m.Invocation) -> dict[str, Any]:
        verb = self.catalogue.verbs.get(inv.verb)
        self.used_verbs.add(inv.verb)
        args = {}
        for name, value in inv.args:
            param = verb.param(name) if verb is not None else None
            args[name] = self.enc.encode(value, param.type if param is not None else None)
        return {"type": "call", "verb": inv.verb, "role": inv.role, "args": args}

    def visit_invocation(self, c: m.Invocation) -> dict[str, Any]:
        return self.call(c)

    def visit_not(self, c: m.NotCond) -> dict[str, Any]:
        return {"type": "not", "operand": self.condition(c.cond)}

    def visit_and(self, c: m.AndCond) -> dict[str, Any]:
        # `a and (b and c)` as three operands: the same meaning, easier to read for a consumer
        return {"type": "and", "operands": [self.condition(x) for x in operands(c)]}

    def visit_or(self, c: m.OrCond) -> dict[str, Any]:
        return {"type": "or", "operands": [self.condition(x) for x in operands(c)]}

    def visit_do(self, st: m.Do) -> dict[str, Any]:
        return {"type": "do", "call": self.call(st.call)}

    def visit_may(self, st: m.May) -> dict[str, Any]:
        return {"type": "may", "call": self.call(st.call)}

    def visit_choose(self, st: m.Choose) -> dict[str, Any]:
        return {"type": "choose", "options": [
            {"name": o.name, "body": self.body(o.body),
             **({"if": self.condition(o.guard)} if o.guard is not None else {})} for o in st.options]}

    def visit_fire(self, st: m.Fire) -> dict[str, Any]:
        return {"type": "fire", "call": self.call(st.trigger)}

    def visit_run(self, st: m.Run) -> dict[str, Any]:
        return {"type": "run", "procedure": st.procedure}

    def visit_repeat(self, st: m.Repeat) -> dict[str, Any]:
        return {"type": "repeat", "count": st.count, "body": self.body(st.body)}

    def visit_while(self, st: m.While) -> dict[str, Any]:
        return {"type": "while", "condition": self.condition(st.cond), "body": self.body(st.body)}

    def visit_for_each(self, st: m.ForEach) -> dict[str, Any]:
        return {"type": "for_each", "what": st.what, "body": self.body(st.body)}

    def visit_if(self, st: m.If) -> dict[str, Any]:
        return {"type": "if", "condition": self.condition(st.cond), "then": self.body(st.then),
                "else": self.body(st.orelse)}


def export_document(project: m.Project, game: str, rules_text: RulesText | None = None) -> dict[str, Any]:
    return GameExport(project, game, rules_text=rules_text).document()
