"""Interpreting the export: typed values, calls, conditions and statements, and the ruleset built from them.

Nothing here is compiled from the game: each effect and procedure of the export becomes a closure that walks
its JSON when it runs. The conventions followed (argument order, choice point names, who an effect belongs
to, which entities a variant gates) are the ones the export schema documents.
"""

from __future__ import annotations

import json
import keyword
import random
from collections.abc import Callable, Iterator, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

from cardc_runtime import Context, EffectDef, EntityData, ProcedureDef, Provisional, Ruleset
from cardc_runtime import verbs as engine_verbs
from cardc_runtime.engine import Bot

from .turns import play

Json = dict[str, Any]
FALLBACK = {"condition": "fallback_condition", "action": "fallback_action", "modifier": "fallback_modifier"}


def _py_name(param: str) -> str:
    """The engine API's keyword for a parameter: the same name, with `_` after a Python keyword."""
    return f"{param}_" if keyword.iskeyword(param) else param


def _engine_function(verb: str) -> Callable[..., Any] | None:
    """The engine's function for a verb, if it implements it (else the call falls back, as documented)."""
    if verb.startswith("_") or keyword.iskeyword(verb):
        return None
    fn = getattr(engine_verbs, verb, None)
    return fn if callable(fn) else None


class Values:
    """Typed export values as the plain data the engine API takes."""

    def plain(self, v: Json, notes: list[str] | None) -> Any:
        """The value; a provisional one gives its best-known value and adds its note to `notes` (or, with
        `notes` None, stays wrapped as `Provisional`, as entity attributes are)."""
        t = v["type"]
        if t in ("int", "modifier", "bool", "string"):
            return v["value"]
        if t == "number":
            return Fraction(v["text"])
        if t == "range":
            return (v["min"], v["max"])
        if t == "dice":
            return (v["count"], v["sides"])
        if t == "icon":
            return f":{v['name']}:"
        if t == "text":
            return {lang: x["text"] for lang, x in v["value"].items() if not x["fallback"]}
        if t == "list":
            return tuple(self.plain(i, notes) for i in v["items"])
        if t == "ref":
            return v["id"]
        if t in ("enum", "name"):
            return v["value"]
        if t == "call":
            return {"call": v["verb"], "args": tuple((a["name"], self.plain(a["value"], notes)) for a in v["args"])}
        if t == "unknown":
            return None
        if t == "provisional":
            if notes is None:
                return Provisional(self.plain(v["value"], None), v["note"])
            notes.append(v["note"])
            return self.plain(v["value"], notes)
        raise ValueError(f"the export has a value of unknown type {t!r}")


class Interpreter:
    """Runs calls, conditions and statements of the export against the engine's context."""

    def __init__(self, verbs: dict[str, Json]) -> None:
        self.verbs = verbs
        self.values = Values()

    def ordered_args(self, call: Json) -> list[tuple[str, Json]]:
        """A call's arguments in the order of the verb's parameters (`verbs` in the export)."""
        params = [p["name"] for p in self.verbs.get(call["verb"], {}).get("params", [])]
        args: dict[str, Json] = call["args"]
        return [(n, args[n]) for n in params if n in args] + sorted((n, a) for n, a in args.items()
                                                                    if n not in params)

    def _param_type(self, verb: str, name: str) -> str:
        for p in self.verbs.get(verb, {}).get("params", []):
            if p["name"] == name:
                return str(p["type_tree"]["name"])
        return ""

    def arg(self, verb: str, name: str, v: Json, notes: list[str]) -> Any:
        """An argument as the engine takes it: a single number where the verb wants a range is that range."""
        x = self.values.plain(v, notes)
        if self._param_type(verb, name) == "range" and isinstance(x, int) and not isinstance(x, bool):
            return (x, x)
        return x

    def call(self, ctx: Context, call: Json, notes: list[str]) -> Any:
        verb = call["verb"]
        args = [(name, self.arg(verb, name, v, notes)) for name, v in self.ordered_args(call)]
        fn = _engine_function(verb)
        if fn is not None:
            return fn(ctx, **{_py_name(name): x for name, x in args})
        fallback = getattr(engine_verbs, FALLBACK.get(call["role"], "fallback_action"))
        return fallback(ctx, verb, *(x for _, x in args))

    def cond(self, ctx: Context, c: Json, notes: list[str]) -> Any:
        t = c["type"]
        if t == "call":
            return self.call(ctx, c, notes)
        if t == "not":
            return not self.cond(ctx, c["operand"], notes)
        result: Any = t == "and"
        for operand in c["operands"]:  # short-circuit, as `and` / `or` read
            result = self.cond(ctx, operand, notes)
            if bool(result) != (t == "and"):
                return result
        return result

    def run(self, ctx: Context, body: list[Json], points: dict[int, str], notes: list[str]) -> None:
        for st in body:
            self.statement(ctx, st, points, notes)

    def statement(self, ctx: Context, st: Json, points: dict[int, str], notes: list[str]) -> None:
        t = st["type"]
        if t == "do":
            self.call(ctx, st["call"], notes)
        elif t == "may":
            call = st["call"]
            offer = [self.values.plain(v, []) for _, v in self.ordered_args(call)]
            if ctx.may(points[id(st)], call["verb"], *offer):
                self.call(ctx, call, notes)
        elif t == "choose":
            options = st["options"]
            if any("if" in o for o in options):
                offered = [(o["name"], True if "if" not in o else self.cond(ctx, o["if"], notes)) for o in options]
                names = tuple(name for name, ok in offered if ok)
            else:
                names = tuple(o["name"] for o in options)
            chosen = ctx.choose(points[id(st)], names)
            for o in options:
                if chosen == o["name"]:
                    self.run(ctx, o["body"], points, notes)
                    break
        elif t == "fire":
            call = st["call"]
            event = {name: self.values.plain(v, notes) for name, v in self.ordered_args(call)}
            ctx.fire_here(call["verb"], event)
        elif t == "run":
            ctx.run_procedure(st["procedure"])
        elif t == "repeat":
            for _ in range(st["count"]):
                self.run(ctx, st["body"], points, notes)
        elif t == "while":
            while ctx.loop(points[id(st)]) and self.cond(ctx, st["condition"], notes):
                self.run(ctx, st["body"], points, notes)
        elif t == "for_each":
            for _ in ctx.each(st["what"]):
                self.run(ctx, st["body"], points, notes)
        elif t == "if":
            branch = st["then"] if self.cond(ctx, st["condition"], notes) else st["else"]
            self.run(ctx, branch, points, notes)
        else:
            raise ValueError(f"the export has a statement of unknown type {t!r}")


def _decisions(body: list[Json]) -> Iterator[Json]:
    """The statements that are choice points (`may`, `choose`, `while`), in reading order (a `choose` before
    the statements of its options)."""
    for st in body:
        if st["type"] in ("may", "choose", "while"):
            yield st
        if st["type"] == "choose":
            for o in st["options"]:
                yield from _decisions(o["body"])
        elif st["type"] == "if":
            yield from _decisions(st["then"])
            yield from _decisions(st["else"])
        elif "body" in st:
            yield from _decisions(st["body"])


def _verbs(node: Any) -> Iterator[str]:
    """Every verb called below `node` of the export (actions and conditions), in document order."""
    stack: list[Any] = [node]
    while stack:
        x = stack.pop()
        if isinstance(x, dict):
            if isinstance(x.get("verb"), str):
                yield x["verb"]
            stack.extend(reversed(list(x.values())))
        elif isinstance(x, list):
            stack.extend(reversed(x))


def effect_choices(body: list[Json], points: dict[int, str]) -> tuple[Any, ...]:
    """Each `choose` and `may` of an effect: its point and, per option, the verbs its branch uses (what the
    generated rules carry as `EffectDef.choices`, which bots read; a `may` offers "False" and "True")."""
    return tuple((points[id(st)], _options(st)) for st in _decisions(body) if st["type"] in ("choose", "may"))


def _options(st: Json) -> tuple[tuple[str, tuple[str, ...]], ...]:
    if st["type"] == "may":
        return ("False", ()), ("True", (st["call"]["verb"],))
    return tuple((o["name"], tuple(dict.fromkeys(_verbs(o["body"])))) for o in st["options"])


def effect_points(owner: str, index: int, body: list[Json]) -> dict[int, str]:
    """Choice points of an effect: `owner#index` for its first, `owner#index.n` for its n-th."""
    base = f"{owner}#{index}"
    return {id(st): base if n == 1 else f"{base}.{n}" for n, st in enumerate(_decisions(body), start=1)}


def procedure_points(name: str, body: list[Json]) -> dict[int, str]:
    """Choice points of a procedure: `name` for a `choose`, `name.may.VERB`, `name.while`."""
    out: dict[int, str] = {}
    for st in _decisions(body):
        t = st["type"]
        out[id(st)] = name if t == "choose" else f"{name}.while" if t == "while" else f"{name}.may.{st['call']['verb']}"
    return out


class ExportGame:
    """One game of an export document: its modules, entities, effects and procedures, as a ruleset."""

    def __init__(self, doc: Json) -> None:
        if doc.get("format") != "cardc-export" or doc.get("format_version") != 2:
            raise ValueError("not a cardc export of format version 2")
        self.doc = doc
        self.game: str = doc["game"]["id"]
        self.interp = Interpreter(doc.get("verbs", {}))
        self.first: dict[str, Json] = {}  # id -> the entity first declared with it (not an errata)
        for e in doc["entities"]:
            self.first.setdefault(e["id"], e)

    @classmethod
    def load(cls, path: Path) -> ExportGame:
        return cls(json.loads(path.read_text(encoding="utf-8")))

    # ---- entities ---------------------------------------------------------------------

    def variant_of(self, e: Json) -> str | None:
        """The variant that gates an entity: itself if it is one, its own `variant`, else its parent's."""
        seen: set[str] = set()
        cur: Json | None = e
        while cur is not None and cur["id"] not in seen:
            if cur["kind"] == "variant":
                return str(cur["id"])
            if cur["variant"]:
                return str(cur["variant"])
            seen.add(cur["id"])
            cur = self.first.get(cur["parent"]) if cur["parent"] else None
        return None

    def entity_data(self, e: Json) -> EntityData:
        values = self.interp.values
        return EntityData(
            id=e["id"], kind=e["kind"], kinds=tuple(e["kinds"]), module=e["module"],
            name={lang: x["text"] for lang, x in (e["name"] or {}).items() if not x["fallback"]},
            attrs={k: values.plain(v, None) for k, v in sorted(e["attrs"].items())},
            parent=e["parent"], variant=e["variant"], tags=tuple(e["tags"]), source=e["source"]["ref"],
            copies=e["copies"])

    def effect_defs(self, e: Json, module_key: str) -> list[EffectDef]:
        out = []
        for fx in e["effects"]:
            notes: list[str] = []
            _collect_notes(fx, notes)
            points = effect_points(e["id"], fx["index"], fx["body"])
            trigger_args = tuple((name, self.interp.values.plain(v, notes))
                                 for name, v in self.interp.ordered_args(fx["trigger"]))
            out.append(EffectDef(owner=e["id"], index=fx["index"], trigger=fx["trigger"]["verb"],
                                 trigger_args=trigger_args, run=self._effect_runner(fx, points),
                                 module=module_key, variant=self.variant_of(e),
                                 provisional=tuple(dict.fromkeys(notes)),
                                 choices=effect_choices(fx["body"], points)))
        return out

    def _effect_runner(self, fx: Json, points: dict[int, str]) -> Callable[[Context], None]:
        interp = self.interp

        def run(ctx: Context) -> None:
            notes: list[str] = []
            if fx["condition"] is not None and not interp.cond(ctx, fx["condition"], notes):
                return
            interp.run(ctx, fx["body"], points, notes)
        return run

    # ---- procedures -------------------------------------------------------------------

    def procedure_defs(self, module_id: str, module_key: str) -> list[ProcedureDef]:
        interp = self.interp
        out = []
        ends = 0
        for p in self.doc["procedures"]:
            if p["module"] != module_id:
                continue
            if p["type"] == "procedure":
                out.append(ProcedureDef(p["name"], self._procedure_runner(p), "procedure", module_key))
            elif p["type"] == "end":
                ends += 1
                out.append(ProcedureDef(f"end#{ends}", _end_runner(interp, p["condition"]), "end", module_key))
            else:
                out.append(ProcedureDef("winner", _winner_runner(interp, p["call"]), "winner", module_key))
        return out

    def _procedure_runner(self, p: Json) -> Callable[[Context], None]:
        interp, points = self.interp, procedure_points(p["name"], p["body"])
        notes = _notes_in(p["body"])

        def run(ctx: Context) -> None:
            if notes:  # a provisional value in a procedure: every run says so, as an effect's does
                ctx.provisional.update(notes)
            interp.run(ctx, p["body"], points, [])
        return run

    # ---- the ruleset ------------------------------------------------------------------

    def module_ids(self) -> list[str]:
        return [m["id"] for m in self.doc["modules"]]  # base first, then the expansions by id

    def ruleset(self, expansions: Sequence[str] | None = None) -> Ruleset:
        """The base game and the listed expansions (None: every one); in each module its errata replace the
        entities they correct, its procedures replace those of the same name, and each variant's entities
        come right after their module."""
        rules = Ruleset(self.game)
        order = {id(e): i for i, e in enumerate(self.doc["entities"])}
        entities = sorted(self.doc["entities"], key=lambda e: (e["source"]["file"], e["source"]["line"], order[id(e)]))
        for mod in self.doc["modules"]:
            if expansions is not None and not mod["base"] and mod["id"] not in expansions:
                continue
            mine = [e for e in entities if e["module"] == mod["id"]]
            plain = [e for e in mine if self.variant_of(e) is None]
            self._add(rules, plain, mod["key"], self.procedure_defs(mod["id"], mod["key"]))
            for var in sorted({v for e in mine if (v := self.variant_of(e)) is not None}):
                self._add(rules, [e for e in mine if self.variant_of(e) == var], mod["key"], [])
        return rules

    def _add(self, rules: Ruleset, entities: list[Json], module_key: str, procedures: list[ProcedureDef]) -> None:
        effects = [fx for e in entities for fx in self.effect_defs(e, module_key)]
        rules.add([self.entity_data(e) for e in entities], effects, module_key, procedures)


def _collect_notes(fx: Json, notes: list[str]) -> None:
    """The notes of every provisional value an effect uses (its results rest on them)."""
    notes.extend(_notes_in(fx["condition"]) + _notes_in(fx["body"]))


def _notes_in(x: Any) -> list[str]:
    """The notes of every provisional value in a piece of the export, in order, each once."""
    found: list[str] = []

    def walk(x: Any) -> None:
        if isinstance(x, dict):
            if x.get("type") == "provisional":
                found.append(x["note"])
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)
    walk(x)
    return list(dict.fromkeys(found))


def _end_runner(interp: Interpreter, cond: Json) -> Callable[[Context], bool]:
    return lambda ctx: bool(interp.cond(ctx, cond, []))


def _winner_runner(interp: Interpreter, call: Json) -> Callable[[Context], None]:
    notes = _notes_in(call)

    def run(ctx: Context) -> None:
        if notes:
            ctx.provisional.update(notes)
        interp.call(ctx, call, [])
    return run


def play_from_export(doc: Json, *, players: int = 2, seed: int = 1, expansions: Sequence[str] = (),
                     variants: Sequence[str] = (), heroes: Sequence[str] | None = None,
                     turn_cap: int = 400, default_bot: Bot | None = None) -> Json:
    """One seeded game, told as `cardc play --json` tells it: the heroes are drawn with the seed from the
    heroes in play, a variant brings its expansion along, and the log lists every event (the engine's bots
    decide unless `default_bot` is given)."""
    game = ExportGame(doc)
    chosen = list(dict.fromkeys(expansions))
    by_id = {e["id"]: e for e in doc["entities"]}
    for v in dict.fromkeys(variants):
        module = by_id[v]["module"]
        if module != "base" and module not in chosen:
            chosen.append(module)
    rules = game.ruleset(tuple(chosen))
    if heroes is None:
        pool = [e.id for e in rules.of_kind("hero") if e.parent is None]
        # without heroes the set-up deals each player (seat p1, p2, ...) its character
        heroes = random.Random(seed).sample(pool, players) if pool else [f"p{i}" for i in range(1, players + 1)]
    result = play(rules, list(heroes), variants=tuple(dict.fromkeys(variants)), seed=seed, turn_cap=turn_cap,
                  bot=default_bot)
    return {"game": game.game, "seed": seed, "heroes": list(heroes), "variants": list(dict.fromkeys(variants)),
            "expansions": list(rules.modules), **result,
            "log": [[list(x) if isinstance(x, tuple) else x for x in event] for event in result["log"]]}
