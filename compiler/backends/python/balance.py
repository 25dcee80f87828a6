"""Backend `balance`: `generated/balance/<game>.md` and `.json`, exact odds and stat tables for designers.

What is tabulated comes from the content's `odds` declarations (dsl/README.md, "Odds and balance tables"):
every fighter against every opponent with each declared loadout, without variants and with each variant
that can change such a fight; every fighter against every other in each declared duel; and, for a
declaration with `stats` or `limits`, each fighter's sheet (alone and with each `combine` card) in each
declared setting. All figures come from the generated rule modules.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from cardc import model as m
from cardc import syntax as s
from cardc.backends import BuildOptions
from cardc.diagnostics import Diagnostic
from cardc.irvisit import Visitor, invocations
from cardc.model import Project
from cardc.odds import POLICY, frac

FIGHT_TRIGGERS = frozenset({"fight_start", "fight_roll", "fight_total", "fight_result", "always"})
# The triggers that fire before a fight's outcome is decided: only their effects can change win / tie / loss.
OUTCOME_TRIGGERS = frozenset({"fight_start", "fight_roll", "fight_total", "always"})
ODDS_KIND = "odds"


# ---- the declarations ------------------------------------------------------------------


@dataclass(frozen=True)
class Part:
    """A loadout, duel or setting nested in an `odds` declaration."""

    id: str
    label: str
    items: tuple[str, ...] = ()
    by: str | None = None
    variants: tuple[str, ...] = ()
    without: tuple[str, ...] = ()


@dataclass(frozen=True)
class OddsDecl:
    """One `odds` declaration of the content: who fights whom, and what to tabulate."""

    id: str
    label: str
    fighter: str
    opponent: str | None
    show: tuple[str, ...]
    duel_with: str | None
    combine: str | None
    stats: tuple[str, ...]
    limits: tuple[str, ...]
    loadouts: tuple[Part, ...]
    duels: tuple[Part, ...]
    settings: tuple[Part, ...]


def _name(v: s.Value | None) -> str | None:
    return v.name if isinstance(v, s.CallV) else None


def _names(v: s.Value | None) -> tuple[str, ...]:
    return tuple(x.name for x in v.items if isinstance(x, s.CallV)) if isinstance(v, s.ListV) else ()


def _en(e: m.Entity) -> str:
    d = e.name.as_dict()
    return d.get("en") or next(iter(d.values()), e.id)


def declarations(project: Project, game: str) -> list[OddsDecl]:
    """The game's `odds` declarations, in the order the content gives them."""
    entities = [e for e in project.entities_of(game) if not e.errata]
    out = []
    for e in entities:
        if e.kind != ODDS_KIND:
            continue
        parts: dict[str, list[Part]] = {"loadout": [], "duel": [], "setting": []}
        for c in entities:
            if c.parent == e.id and c.kind in parts:
                parts[c.kind].append(Part(c.id, _en(c), _names(c.attrs.get("items")), _name(c.attrs.get("by")),
                                          _names(c.attrs.get("variants")), _names(c.attrs.get("without"))))
        a = e.attrs
        out.append(OddsDecl(e.id, _en(e), _name(a.get("fighter")) or "", _name(a.get("opponent")),
                            _names(a.get("show")), _name(a.get("duel_with")), _name(a.get("combine")),
                            _names(a.get("stats")), _names(a.get("limits")), tuple(parts["loadout"]),
                            tuple(parts["duel"]), tuple(parts["setting"])))
    return out


# ---- one fight, one duel ------------------------------------------------------------------


def _label(rules: Any, ident: str) -> str:
    entity = rules.get(ident)
    if entity is None:  # a fighter built from cards: named by them
        return " + ".join(_label(rules, x) for x in reversed(ident.split(":")) if rules.get(x) is not None)
    return str(entity.label("en"))


def _fighter_json(who: Any) -> dict[str, Any]:
    if who.stats:  # built from cards: what it owns and its stats
        return {"id": who.id, "cards": list(who.cards), "stats": dict(who.stats), "maximum": dict(who.max_stats)}
    return {"id": who.id, "lives": who.lives, "items": list(who.held()), "cursed": who.cursed}


def _odds_json(odds: Any) -> dict[str, Any]:
    return {"win": frac(odds.win), "tie": frac(odds.tie), "loss": frac(odds.loss),
            "also": {k: frac(v) for k, v in odds.extra.items()}, "provisional": list(odds.provisional)}


def _loadout_text(who: Any) -> str:
    if who.stats:
        return ", ".join(f"{k} {v}" for k, v in who.stats.items())
    parts = [f"{who.lives} lives"]
    if who.held():
        parts.append("items: " + ", ".join(who.held()))
    if who.cursed:
        parts.append("cursed")
    return "; ".join(parts)


def _shown(rules: Any, decl: OddsDecl | None, ident: str) -> str:
    entity = rules.entity(ident)
    shown = [f"{a} {entity.attr(a)}" for a in (decl.show if decl else ()) if entity.attr(a) is not None]
    return f"{entity.label('en')}" + (f" ({', '.join(shown)})" if shown else "")


def fight_row(rules: Any, decl: OddsDecl | None, who: Any, opponent: str, variants: tuple[str, ...],
              facts: dict[str, Any] | None = None) -> dict[str, Any]:
    from cardc_runtime.fights import fight

    odds = fight(rules, who, opponent, variants, facts)
    entity = rules.entity(opponent)
    title = f"{_label(rules, who.id)} ({_loadout_text(who)}) against {_shown(rules, decl, opponent)}"
    vs = {"id": opponent, **{a: entity.attr(a) for a in (decl.show if decl else ())}}
    return {"game": rules.game, "title": title, "fighter": _fighter_json(who), "vs": vs,
            "variants": list(variants), **_odds_json(odds), "policy": POLICY}


def duel_facts(rules: Any, by: str | None, facts: dict[str, Any] | None = None) -> dict[str, Any]:
    """The situation of a duel started by `by`: a variant, or a place whose own rules apply to the fight."""
    out = {**(facts or {}), **({"fight_by": by} if by else {})}
    source = rules.get(by) if by else None
    if source is not None and not source.is_a("variant"):
        out["place"] = by
    return out


def duel_row(rules: Any, attacker: Any, defender: Any, variants: tuple[str, ...], by: str | None,
             facts: dict[str, Any] | None = None) -> dict[str, Any]:
    from cardc_runtime.fights import LoadoutError, challenge_allowed, duel

    all_facts = duel_facts(rules, by, facts)
    source = rules.get(by) if by else None
    if source is not None and source.is_a("variant"):
        if by not in variants:
            raise LoadoutError(f"a fight started by `{by}` needs --variant {by}")
        if not challenge_allowed(rules, attacker, defender, variants, all_facts):
            raise LoadoutError(f"no rule of `{by}` lets {attacker.id} challenge {defender.id} here "
                               "(the hero duel needs both heroes armed)")
    odds = duel(rules, attacker, defender, variants, all_facts)
    title = (f"{_label(rules, attacker.id)} ({_loadout_text(attacker)}) attacks {_label(rules, defender.id)} "
             f"({_loadout_text(defender)})" + (f", a fight started by {by}" if by else ""))
    return {"game": rules.game, "title": title, "fighter": _fighter_json(attacker),
            "vs": {"fighter": _fighter_json(defender)}, "by": by, "variants": list(variants),
            **_odds_json(odds), "policy": POLICY}


# ---- fight tables ---------------------------------------------------------------------


Relevance = dict[str, frozenset[str] | None]


def effective_variants(variants: tuple[str, ...], opponent: Any, relevant: Relevance | None) -> tuple[str, ...]:
    """The variants that can change a fight against `opponent` (all of them without a relevance map)."""
    if relevant is None:
        return variants
    return tuple(v for v in variants if v in relevant and (relevant[v] is None or any(
        opponent.is_a(x) or x in opponent.tags or x == opponent.id for x in relevant[v])))  # type: ignore[union-attr]


def opponents(rules: Any, decl: OddsDecl) -> tuple[list[Any], list[str]]:
    """The opponents of the tables, ordered by the first shown attribute, and notes on those left out."""
    every = rules.of_kind(decl.opponent) if decl.opponent else []
    key = decl.show[0] if decl.show else None
    known = [x for x in every if key is None or isinstance(x.attr(key), int)]
    left = [f"{x.id} is left out: its {key} is not known" for x in every if x not in known]
    return sorted(known, key=lambda x: (x.attr(key) if key else 0, x.id)), left


def fight_table(rules: Any, decl: OddsDecl, variants: tuple[str, ...], items: tuple[str, ...] = (),
                relevant: Relevance | None = None, cache: dict[Any, Any] | None = None,
                fighters: tuple[str, ...] | None = None, lives: int | None = None, cursed: bool = False,
                facts: dict[str, Any] | None = None) -> dict[str, Any]:
    """Every fighter against every opponent with one loadout and set of variants. With `relevant` (see
    `fight_variants`), a fight is computed only with the variants that can change it, and `cache` shares
    equal fights between tables."""
    from cardc_runtime.fights import fight_outcomes, make_fighter, place_items

    found, left = opponents(rules, decl)
    slots = place_items(rules, items)
    provisional: set[str] = set(left)
    memo: dict[Any, Any] = {} if cache is None else cache
    situation = tuple(sorted((facts or {}).items()))
    rows = []
    for f in rules.of_kind(decl.fighter):
        if fighters is not None and f.id not in fighters:
            continue
        who = make_fighter(rules, f.id, lives=lives, slots=slots, cursed=cursed)
        keys = {o.id: (f.id, items, lives, cursed, situation, o.id, effective_variants(variants, o, relevant))
                for o in found}
        pending: dict[tuple[str, ...], list[str]] = {}  # opponents not computed yet, by the variants that count
        for o, key in keys.items():
            if key not in memo:
                pending.setdefault(key[-1], []).append(o)
        for on, ids in pending.items():  # (opponents told apart only by strength share one enumeration)
            for o, odds in fight_outcomes(rules, who, ids, on, dict(facts or {})).items():
                memo[keys[o]] = odds
        cells = {}
        for o in found:
            odds = memo[keys[o.id]]
            provisional.update(odds.provisional)
            cells[o.id] = {"win": frac(odds.win), "tie": frac(odds.tie), "loss": frac(odds.loss)}
        rows.append({"fighter": f.id, "name": f.label("en"), "cells": cells})
    return {"game": rules.game, "variants": list(variants), "items": list(items), "show": list(decl.show),
            "opponents": [{"id": x.id, "name": x.label("en"), **{a: x.attr(a) for a in decl.show}} for x in found],
            "rows": rows, "provisional": sorted(provisional), "policy": POLICY}


def _head(o: dict[str, Any], show: list[str]) -> str:
    shown = [str(o[a]) for a in show if o.get(a) is not None]
    return f"{o['name']} ({', '.join(shown)})" if shown else str(o["name"])


def table_text(data: dict[str, Any], markdown: bool = False) -> str:
    """The chance to win of each fighter (rows) against each opponent (columns), in per cent."""
    heads = [_head(o, data.get("show", [])) for o in data["opponents"]]
    lines = []
    if not markdown:
        loadout = ", ".join(data["items"]) or "no items"
        lines.append(f"chance to win, {loadout}; variants: {', '.join(data['variants']) or 'none'}")
        lines += [f"situation: {n}" for n in data.get("situation", [])]
    lines.append("| fighter | " + " | ".join(heads) + " |")
    lines.append("|" + "---|" * (len(heads) + 1))
    for row in data["rows"]:
        cells = [f"{100 * row['cells'][o['id']]['win']['decimal']:.1f}%" for o in data["opponents"]]
        lines.append(f"| {row['name']} | " + " | ".join(cells) + " |")
    if not markdown:
        lines += [f"provisional: {n}" for n in data["provisional"]] + [f"policy: {data['policy']}"]
    return "\n".join(lines) + "\n"


class _OpponentScope(Visitor[frozenset[str] | None]):
    """The opponent sorts a condition requires (`against(dragon) and ...`), None if any will do."""

    def visit_invocation(self, c: m.Invocation) -> frozenset[str] | None:
        opponent = c.arg("opponent") if c.verb == "against" else None
        return frozenset({opponent.name}) if isinstance(opponent, s.CallV) else None

    def visit_and(self, c: m.AndCond) -> frozenset[str] | None:
        left, right = self.condition(c.left), self.condition(c.right)
        return left if right is None else right if left is None else left & right

    def visit_or(self, c: m.OrCond) -> frozenset[str] | None:
        left, right = self.condition(c.left), self.condition(c.right)
        return None if left is None or right is None else left | right

    def visit_not(self, c: m.NotCond) -> frozenset[str] | None:
        return None


def _opponent_scope(c: m.Condition | None) -> frozenset[str] | None:
    return _OpponentScope().condition(c) if c is not None else None


class _NeedsStartedFight(Visitor[bool]):
    """The condition can only hold in a fight that something started (fight_by) or that one defends."""

    def visit_invocation(self, c: m.Invocation) -> bool:
        return c.verb in ("fight_by", "defending")

    def visit_and(self, c: m.AndCond) -> bool:
        return self.condition(c.left) or self.condition(c.right)

    def visit_or(self, c: m.OrCond) -> bool:
        return False

    def visit_not(self, c: m.NotCond) -> bool:
        return False


def _needs_started_fight(c: m.Condition | None) -> bool:
    return c is not None and _NeedsStartedFight().condition(c)


def fight_variants(project: Project, game: str, decl: OddsDecl) -> Relevance:
    """Variants with an effect that can change a fight of a fighter against an opponent of the declaration
    (the ones the fight tables compare; a duel-only variant cannot change them), each with the opponents
    its effects are limited to (None: any)."""
    from cardc.backends.python.generate import entity_variant

    kinds = {decl.opponent} if decl.opponent else set()
    sorts: set[str] = set(kinds)  # what an opponent can be: its kinds, tags and ids
    for e in project.entities_of(game):
        if decl.opponent in e.kinds:
            sorts.update((*e.kinds, *e.tags, e.id))
    found: dict[str, frozenset[str] | None] = {}
    for e in project.entities_of(game):
        variant = entity_variant(project, e)
        if variant is None:
            continue
        for fx in e.effects:
            if fx.trigger.verb not in FIGHT_TRIGGERS or _needs_started_fight(fx.condition):
                continue
            scope = _opponent_scope(fx.condition)
            if scope is not None and kinds & scope:
                scope = None  # any opponent of the declared kind
            if scope is not None and not scope & sorts:
                continue  # it concerns fights against something else (another fighter)
            old = found.get(variant, frozenset())
            found[variant] = None if scope is None or old is None else old | scope
    return dict(sorted(found.items()))


# ---- duel tables ---------------------------------------------------------------------------


def duel_table(rules: Any, decl: OddsDecl, duel: Part) -> dict[str, Any]:
    """Every fighter attacking every other: the attacker's chances (win, tie, loss; no consequences)."""
    from cardc_runtime.fights import duel_outcomes, make_fighter, place_items

    facts = duel_facts(rules, duel.by)
    kind = decl.duel_with or decl.fighter
    fighters = rules.of_kind(kind)
    slots = place_items(rules, duel.items)
    armed = {h.id: make_fighter(rules, h.id, slots=slots) for h in fighters}
    every = duel_outcomes(rules, list(armed.values()), duel.variants, facts)
    rows: list[dict[str, Any]] = []
    provisional: set[str] = set()
    for a in fighters:
        cells = {}
        for d in fighters:
            if d.id != a.id:
                odds = every[(a.id, d.id)]
                provisional.update(odds.provisional)
                cells[d.id] = {"win": frac(odds.win), "tie": frac(odds.tie), "loss": frac(odds.loss)}
        rows.append({"fighter": a.id, "name": a.label("en"), "cells": cells})
    return {"game": rules.game, "by": duel.by, "variants": list(duel.variants), "items": list(duel.items),
            "fighters": [{"id": h.id, "name": h.label("en")} for h in fighters], "rows": rows,
            "provisional": sorted(provisional), "policy": POLICY}


def _body_calls(effect: m.Effect) -> list[m.Invocation]:
    from cardc.textcheck import effect_invocations

    calls = list(effect_invocations(effect))
    skip = {id(effect.trigger)} | {id(c) for c in _conditions(effect.condition)}
    return [c for c in calls if id(c) not in skip]


def _conditions(c: m.Condition | None) -> list[m.Invocation]:
    return list(invocations(c))


def duel_signature(project: Project, rules: Any, duel: Part) -> tuple[Any, ...]:
    """What can make one duel table differ from another, known before computing either: the loadout and
    the effects that only this duel switches on (by its variants, its place, or a `fight_by` condition)
    among those that fire before the outcome is decided (`fight_result` effects cannot change win, tie or
    loss). An effect whose every action is inert without an item of some slot (catalogue `inert_without`)
    counts only if the loadout has such an item. Two duels with the same signature have the same table."""
    from cardc.backends.python.generate import entity_variant
    from cardc.catalogue import default_catalogue

    verbs = default_catalogue().verbs
    place = duel_facts(rules, duel.by).get("place")
    held = {rules.entity(i).attr("slot") for i in duel.items if rules.get(i) is not None}
    latest = {e.id: e for e in project.entities_of(rules.game)}  # errata (later) replace the original
    own: set[str] = set()
    for e in latest.values():
        variant = entity_variant(project, e)
        for fx in e.effects:
            if fx.trigger.verb not in OUTCOME_TRIGGERS:
                continue
            # conditions that read the duel's situation: which of their names this duel makes true
            named = {_name(c.args[0][1]) for c in _conditions(fx.condition)
                     if c.verb in ("fight_by", "variant_on") and c.args}
            if variant is not None and variant not in duel.variants:
                continue  # switched off in this duel
            if not (variant is not None or e.id == place or named):
                continue
            calls = _body_calls(fx)
            inert = calls and all(verbs[c.verb].extra.get("inert_without") not in (None, *held)
                                  for c in calls if c.verb in verbs)
            if not inert:
                true_here = sorted(str(x) for x in named if x == duel.by or x in duel.variants)
                own.add(f"{e.id}#{fx.index}" + (f":{','.join(true_here)}" if named else ""))
    return (duel.items, frozenset(own))


# ---- sheets: stats and limits ----------------------------------------------------------


def sheet_rows(game: Any, decl: OddsDecl) -> list[dict[str, Any]]:
    """Each fighter's stats at the start and at most, and its limits in each declared setting, alone and
    with each `combine` card."""
    from cardc_runtime.fights import sheet

    expansions = tuple(mod.EXPANSION for mod in game.MODULES if mod.EXPANSION != "base")
    full = game.ruleset()
    settings = decl.settings or (Part("default", "default"),)
    combos = [None, *(e.id for e in full.of_kind(decl.combine))] if decl.combine else [None]
    # one ruleset per setting, shared by every row (a sheet reads the rules, never changes them)
    rulesets = {s.id: game.ruleset(tuple(x for x in expansions if x not in s.without)) for s in settings}
    rows = []
    for fighter in full.of_kind(decl.fighter):
        for card in combos:
            row: dict[str, Any] = {"fighter": fighter.id, "card": card, "limits": {}}
            for setting in settings:
                rules = rulesets[setting.id]
                if card is not None and rules.get(card) is None:
                    continue
                start, most, limits, notes = sheet(rules, fighter.id, card, setting.variants, decl.stats,
                                                   decl.limits)
                row.setdefault("start", start)
                row.setdefault("maximum", most)
                row.setdefault("provisional", notes)
                row["limits"][setting.id] = limits
            rows.append(row)
    return rows


# ---- the whole game ------------------------------------------------------------------------


def game_balance(project: Project, game: Any) -> dict[str, Any]:
    """Every table the game's odds declarations ask for."""
    rules = game.ruleset()
    tables: list[dict[str, Any]] = []
    duels: list[dict[str, Any]] = []
    sheets: list[dict[str, Any]] = []
    compared: set[str] = set()
    cache: dict[Any, Any] = {}
    seen: dict[tuple[Any, ...], dict[str, Any]] = {}
    for decl in declarations(project, rules.game):
        if decl.opponent and decl.loadouts:
            relevant = fight_variants(project, rules.game, decl)
            compared.update(relevant)
            for loadout in decl.loadouts:
                if not all(rules.get(i) is not None for i in loadout.items):
                    continue
                for on in [(), *((v,) for v in relevant)]:
                    tables.append({"odds": decl.id, "loadout": loadout.label,
                                   **fight_table(rules, decl, on, loadout.items, relevant, cache)})
        for d in decl.duels:
            if d.by is None or rules.get(d.by) is None or not all(rules.get(x) is not None
                                                                   for x in (*d.variants, *d.items)):
                continue
            signature = duel_signature(project, rules, d)
            same = seen.get(signature)
            if same is not None:  # the same numbers under another rule: one table, both names
                same["label"] += f" and {d.label} (the same numbers)"
                same.setdefault("also_by", []).append(d.by)
                continue
            table = {"odds": decl.id, "label": d.label, **duel_table(rules, decl, d)}
            seen[signature] = table
            duels.append(table)
        if decl.stats or decl.limits:
            sheets.append({"odds": decl.id, "title": decl.label, "fighter": decl.fighter, "combine": decl.combine,
                           "stats": list(decl.stats), "limits": list(decl.limits),
                           "settings": [{"id": x.id, "name": x.label} for x in decl.settings],
                           "rows": sheet_rows(game, decl)})
    others = [v for v in rules.variant_ids() if v not in compared]
    return {"game": rules.game, "fight_variants": sorted(compared), "other_variants": others, "tables": tables,
            "duels": duels, "sheets": sheets, "policy": POLICY}


def duel_text(data: dict[str, Any]) -> str:
    heads = [h["name"] for h in data["fighters"]]
    lines = ["| attacker \\ defender | " + " | ".join(heads) + " |", "|" + "---|" * (len(heads) + 1)]
    for row in data["rows"]:
        cells = [f"{100 * row['cells'][h['id']]['win']['decimal']:.1f}%" if h["id"] in row["cells"] else "-"
                 for h in data["fighters"]]
        lines.append(f"| {row['name']} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _n(x: int | None) -> str:
    return "?" if x is None else str(x)


def sheet_text(data: dict[str, Any], names: dict[str, str]) -> str:
    stats, limits = data["stats"], data["limits"]
    settings = data["settings"] or [{"id": "default", "name": "limits"}]
    heads = [names.get(data["fighter"], data["fighter"])]
    if data["combine"]:
        heads.append(names.get(data["combine"], data["combine"]))
    slash = " / ".join(names.get(x, x) for x in stats)
    if stats:
        heads += [f"start {slash}", f"max {slash}"]
    heads += [x["name"] for x in settings] if limits else []
    out = ["| " + " | ".join(heads) + " |", "|" + "---|" * len(heads)]
    for r in data["rows"]:
        star = "*" if r.get("provisional") else ""
        cells = [names.get(r["fighter"], r["fighter"])]
        if data["combine"]:
            cells.append(names.get(r["card"], r["card"]) if r["card"] else "(none)")
        if stats:
            cells.append(" / ".join(_n(r.get("start", {}).get(x)) for x in stats) + star)
            cells.append(" / ".join(_n(r.get("maximum", {}).get(x)) for x in stats) + star)
        for x in settings if limits else []:
            got = r["limits"].get(x["id"])
            cells.append("-" if got is None else " / ".join(_n(got.get(slot)) for slot in limits))
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def balance_markdown(data: dict[str, Any], title: str, names: dict[str, str]) -> str:
    out = [f"# {title}: balance tables", ""]
    if data["tables"] or data["duels"]:
        out += ["Exact chances to win (per cent, rounded; the JSON file beside this one has the fractions), "
                "computed by enumerating every die face through the generated rule modules.",
                "", f"Choices: {data['policy']}.", ""]
    if data["tables"] and data.get("other_variants"):
        out += [f"Variants that cannot change a fight in these tables, so they have no table here: "
                f"{', '.join(data['other_variants'])} (for a duel, see `cardc odds --vs-hero`).", ""]
    notes: set[str] = set()
    for t in data["tables"]:
        out += [f"## {t['loadout']}; variants: {', '.join(t['variants']) or 'none'}", "",
                table_text(t, markdown=True)]
        notes.update(t["provisional"])
    for d in data["duels"]:
        items = ", ".join(names.get(i, i) for i in d["items"]) or "no items"
        out += [f"## Duel: {d['label']}; each carries: {items}", "",
                "Chance that the fighter of the row, attacking, beats the fighter of the column (the attacker "
                "chooses first; the defender knows the attacker's total).", "", duel_text(d)]
        notes.update(d["provisional"])
    for sh in data["sheets"]:
        out += [f"## {sh['title']}", "",
                "Stats at the start and at most after the card's modifiers, and how many of each limited slot "
                f"({', '.join(sh['limits']) or '-'}) a fighter may hold in each setting. `?` marks a value the "
                "content does not know; `*` one that is provisional.", "", sheet_text(sh, names)]
        notes.update(n for r in sh["rows"] for n in r.get("provisional", []))
    if notes:
        out += ["## Provisional", "", "These figures rest on rules or values that are not confirmed:", ""]
        out += [f"- {n}" for n in sorted(notes)] + [""]
    return "\n".join(out)


def _json_default(x: Any) -> Any:
    if isinstance(x, Fraction):
        return f"{x.numerator}/{x.denominator}"
    raise TypeError(type(x).__name__)


def write_balance(project: Project, out: Path, options: BuildOptions) -> list[Diagnostic]:
    from cardc.simulation.jobs import Job, package_files
    from cardc.simulation.table import load_package

    folder = out / "balance"
    folder.mkdir(parents=True, exist_ok=True)
    tabulated = [ident for ident in sorted(project.games) if declarations(project, ident)]
    # the rule packages are generated and imported only for games with tables (a large package costs memory);
    # imported as the win rates below import them (once per process, by digest), not a second time
    for ident in tabulated:
        game = load_package(Job(ident, *package_files(project, ident), 2))
        data = game_balance(project, game)
        rules = game.ruleset()
        names = {e.id: e.label("en") for e in rules.entities.values()}
        name = project.games[ident].name
        title = (name.as_dict().get("en") if name is not None else None) or ident
        (folder / f"{ident}.json").write_text(json.dumps(data, indent=1, ensure_ascii=False, default=_json_default)
                                              + "\n", encoding="utf-8")
        (folder / f"{ident}.md").write_text(balance_markdown(data, title, names), encoding="utf-8")
    from cardc.backends.python.winrates import write_winrates

    # win rates from whole games, cached on the content's digest (in this build's previous output, among others)
    write_winrates(project, out, options.destination)
    return []
