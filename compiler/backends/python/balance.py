"""Backend `balance`: `generated/balance/<game>.md` and `.json`, exact odds and stat tables for designers.

Karak: every hero against every monster, with no items and with typical loadouts, without variants and with
each variant that can change such a fight; and every hero against every other in a duel (arena, house
rule). Prophecy: the stones and limits of every profession with every race card. All figures come from the
generated rule modules.
"""

from __future__ import annotations

import json
from fractions import Fraction
from itertools import product
from pathlib import Path
from typing import Any

from cardc import model as m
from cardc import syntax as s
from cardc.backends import BuildOptions
from cardc.diagnostics import Diagnostic
from cardc.model import Project
from cardc.odds import POLICY, frac

FIGHT_TRIGGERS = frozenset({"fight_start", "fight_roll", "fight_total", "fight_result", "always"})
# Typical loadouts: (label, weapons, spells); a loadout whose items the content lacks is left out.
LOADOUTS: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("no items", (), ()),
    ("sword", ("sword",), ()),
    ("sword, battle axe, magic missile", ("sword", "battle_axe"), ("magic_missile",)),
)


def _label(rules: Any, ident: str) -> str:
    return str(rules.entity(ident).label("en"))


def _hero_json(who: Any) -> dict[str, Any]:
    return {"id": who.id, "lives": who.lives, "weapons": list(who.weapons), "spells": list(who.spells),
            "cursed": who.cursed}


def _odds_json(odds: Any) -> dict[str, Any]:
    return {"win": frac(odds.win), "tie": frac(odds.tie), "loss": frac(odds.loss),
            "also": {k: frac(v) for k, v in odds.extra.items()}, "provisional": list(odds.provisional)}


def _loadout_text(who: Any) -> str:
    parts = [f"{who.lives} lives"]
    if who.weapons:
        parts.append("weapons: " + ", ".join(who.weapons))
    if who.spells:
        parts.append("spells: " + ", ".join(who.spells))
    if who.cursed:
        parts.append("cursed")
    return "; ".join(parts)


def fight_row(rules: Any, hero: Any, monster: str, variants: tuple[str, ...],
              facts: dict[str, Any] | None = None) -> dict[str, Any]:
    from cardc_runtime.fight_odds import monster_odds

    odds = monster_odds(rules, hero, monster, variants, facts)
    strength = rules.entity(monster).attr("strength")
    title = (f"{_label(rules, hero.id)} ({_loadout_text(hero)}) against {_label(rules, monster)} "
             f"(strength {strength})")
    return {"game": rules.game, "title": title, "hero": _hero_json(hero), "vs": {"monster": monster,
            "strength": strength}, "variants": list(variants), **_odds_json(odds), "policy": POLICY}


def duel_row(rules: Any, attacker: Any, defender: Any, variants: tuple[str, ...], by: str | None,
             facts: dict[str, Any] | None = None) -> dict[str, Any]:
    from cardc_runtime import Context, Scripted
    from cardc_runtime.fight import LoadoutError, can_challenge
    from cardc_runtime.fight_odds import duel_odds

    if by is None:
        by = "hero_duel" if "hero_duel" in variants else ("battle_arena" if rules.get("battle_arena") else None)
    all_facts = {**(facts or {}), **({"fight_by": by} if by else {})}
    source = rules.get(by) if by else None
    if source is not None and source.is_a("tile"):
        all_facts["place"] = by  # the arena's own rules apply to the fight on it
    if source is not None and source.is_a("variant"):
        if by not in variants:
            raise LoadoutError(f"a fight started by `{by}` needs --variant {by}")
        if not can_challenge(Context(rules, Scripted(), frozenset(variants), dict(all_facts)), attacker, defender):
            raise LoadoutError(f"no rule of `{by}` lets {attacker.id} challenge {defender.id} here "
                               "(the hero duel needs both heroes armed)")
    odds = duel_odds(rules, attacker, defender, variants, all_facts)
    title = (f"{_label(rules, attacker.id)} ({_loadout_text(attacker)}) attacks {_label(rules, defender.id)} "
             f"({_loadout_text(defender)})" + (f", a fight started by {by}" if by else ""))
    return {"game": rules.game, "title": title, "hero": _hero_json(attacker), "vs": {"hero": _hero_json(defender)},
            "by": by, "variants": list(variants), **_odds_json(odds), "policy": POLICY}


Relevance = dict[str, frozenset[str] | None]


def effective_variants(variants: tuple[str, ...], monster: Any, relevant: Relevance | None) -> tuple[str, ...]:
    """The variants that can change a fight against `monster` (all of them without a relevance map)."""
    if relevant is None:
        return variants
    return tuple(v for v in variants if v in relevant and (relevant[v] is None or any(
        monster.is_a(x) or x in monster.tags or x == monster.id for x in relevant[v])))  # type: ignore[union-attr]


def karak_table(rules: Any, variants: tuple[str, ...], weapons: tuple[str, ...] = (),
                spells: tuple[str, ...] = (), relevant: Relevance | None = None,
                cache: dict[Any, Any] | None = None, heroes: tuple[str, ...] | None = None) -> dict[str, Any]:
    """Every hero against every monster (strongest last) with one loadout and set of variants. With
    `relevant` (see `monster_fight_variants`), a fight is computed only with the variants that can change
    it, and `cache` shares equal fights between tables."""
    from cardc_runtime.fight import make_hero
    from cardc_runtime.fight_odds import monster_odds

    known = [x for x in rules.of_kind("monster") if isinstance(x.attr("strength"), int)]
    monsters = sorted(known, key=lambda x: (x.attr("strength"), x.id))
    rows = []
    provisional: set[str] = {f"{x.id} is left out: its strength is not known"
                             for x in rules.of_kind("monster") if x not in known}
    memo: dict[Any, Any] = {} if cache is None else cache
    for hero in rules.of_kind("hero"):
        if heroes is not None and hero.id not in heroes:
            continue
        who = make_hero(rules, hero.id, weapons=weapons, spells=spells)
        cells = {}
        for mon in monsters:
            key = (hero.id, weapons, spells, mon.id, effective_variants(variants, mon, relevant))
            if key not in memo:
                memo[key] = monster_odds(rules, who, mon.id, key[-1])
            odds = memo[key]
            provisional.update(odds.provisional)
            cells[mon.id] = {"win": frac(odds.win), "tie": frac(odds.tie), "loss": frac(odds.loss)}
        rows.append({"hero": hero.id, "name": hero.label("en"), "cells": cells})
    return {"game": rules.game, "variants": list(variants), "weapons": list(weapons), "spells": list(spells),
            "monsters": [{"id": x.id, "name": x.label("en"), "strength": x.attr("strength")} for x in monsters],
            "rows": rows, "provisional": sorted(provisional), "policy": POLICY}


def table_text(data: dict[str, Any], markdown: bool = False) -> str:
    """The chance to win of each hero (rows) against each monster (columns), in per cent."""
    heads = [f"{m['name']} ({m['strength']})" for m in data["monsters"]]
    lines = []
    if not markdown:
        loadout = ", ".join(data["weapons"] + data["spells"]) or "no items"
        lines.append(f"chance to win, {loadout}; variants: {', '.join(data['variants']) or 'none'}")
    lines.append("| hero | " + " | ".join(heads) + " |")
    lines.append("|" + "---|" * (len(heads) + 1))
    for row in data["rows"]:
        cells = [f"{100 * row['cells'][m['id']]['win']['decimal']:.1f}%" for m in data["monsters"]]
        lines.append(f"| {row['name']} | " + " | ".join(cells) + " |")
    if not markdown:
        lines += [f"provisional: {n}" for n in data["provisional"]] + [f"policy: {data['policy']}"]
    return "\n".join(lines) + "\n"


def _opponents(c: m.Condition | None) -> frozenset[str] | None:
    """The opponent sorts a condition requires (`against(dragon) and ...`), None if any will do."""
    if isinstance(c, m.Invocation) and c.verb == "against":
        opponent = c.arg("opponent")
        return frozenset({opponent.name}) if isinstance(opponent, s.CallV) and opponent.name != "monster" else None
    if isinstance(c, m.AndCond):
        left, right = _opponents(c.left), _opponents(c.right)
        return left if right is None else right if left is None else left & right
    if isinstance(c, m.OrCond):
        left, right = _opponents(c.left), _opponents(c.right)
        return None if left is None or right is None else left | right
    return None


def _needs_started_fight(c: m.Condition | None) -> bool:
    """The condition can only hold in a fight started by something (fight_by) or against a hero."""
    if isinstance(c, m.Invocation):
        opponent = c.arg("opponent")
        return c.verb in ("fight_by", "defending") or (
            c.verb == "against" and isinstance(opponent, s.CallV) and opponent.name in ("hero", "character"))
    if isinstance(c, m.AndCond):
        return _needs_started_fight(c.left) or _needs_started_fight(c.right)
    return False


def monster_fight_variants(project: Project, game: str) -> dict[str, frozenset[str] | None]:
    """Variants with an effect that can change a fight against a monster entered by a step (the ones the
    balance tables compare; a duel-only variant such as the hero duel cannot change them), each with the
    opponents its effects are limited to (None: any monster)."""
    from cardc.backends.python.generate import entity_variant

    found: dict[str, frozenset[str] | None] = {}
    for e in project.entities_of(game):
        variant = entity_variant(project, e)
        for fx in e.effects if variant else ():
            if fx.trigger.verb in FIGHT_TRIGGERS and not _needs_started_fight(fx.condition):
                scope = _opponents(fx.condition)
                old = found.get(variant, frozenset())
                found[variant] = None if scope is None or old is None else old | scope
    return dict(sorted(found.items()))


# Duels in the balance tables: (label, the variants on, what started the fight); each hero carries a sword.
DUELS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("battle arena (Regent)", (), "battle_arena"),
    ("hero duel (house rules)", ("hero_duel",), "hero_duel"),
)


def duel_table(rules: Any, variants: tuple[str, ...], by: str, weapons: tuple[str, ...] = ("sword",)) -> dict[
        str, Any]:
    """Every hero attacking every other hero: the attacker's chances (win, tie, loss; no consequences)."""
    from cardc_runtime.fight import make_hero
    from cardc_runtime.fight_odds import duel_outcome_odds

    facts: dict[str, Any] = {"fight_by": by}
    if rules.get(by) is not None and rules.entity(by).is_a("tile"):
        facts["place"] = by
    heroes = rules.of_kind("hero")
    armed = {h.id: make_hero(rules, h.id, weapons=weapons) for h in heroes}
    rows, provisional = [], set()
    for a in heroes:
        cells = {}
        for d in heroes:
            if d.id != a.id:
                odds = duel_outcome_odds(rules, armed[a.id], armed[d.id], variants, facts)
                provisional.update(odds.provisional)
                cells[d.id] = {"win": frac(odds.win), "tie": frac(odds.tie), "loss": frac(odds.loss)}
        rows.append({"hero": a.id, "name": a.label("en"), "cells": cells})
    return {"game": rules.game, "by": by, "variants": list(variants), "weapons": list(weapons),
            "heroes": [{"id": h.id, "name": h.label("en")} for h in heroes], "rows": rows,
            "provisional": sorted(provisional), "policy": POLICY}


def duel_text(data: dict[str, Any]) -> str:
    heads = [h["name"] for h in data["heroes"]]
    lines = ["| attacker \\ defender | " + " | ".join(heads) + " |", "|" + "---|" * (len(heads) + 1)]
    for row in data["rows"]:
        cells = [f"{100 * row['cells'][h['id']]['win']['decimal']:.1f}%" if h["id"] in row["cells"] else "-"
                 for h in data["heroes"]]
        lines.append(f"| {row['name']} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def karak_balance(rules: Any, variants: Relevance) -> dict[str, Any]:
    """Per loadout: the table without variants, then with each variant that can change a monster fight."""
    tables = []
    cache: dict[Any, Any] = {}
    for label, weapons, spells in LOADOUTS:
        if not all(rules.get(i) is not None for i in (*weapons, *spells)):
            continue
        for on in [(), *((v,) for v in variants)]:
            tables.append({"loadout": label, **karak_table(rules, on, weapons, spells, variants, cache)})
    others = [v for v in rules.variant_ids() if v not in variants]
    duels: list[dict[str, Any]] = []
    for label, on, by in DUELS:
        if rules.get(by) is None or not all(rules.get(v) is not None for v in on) or rules.get("sword") is None:
            continue
        table = {"label": label, **duel_table(rules, on, by)}
        same = next((d for d in duels if d["rows"] == table["rows"]), None)
        if same is not None:  # the same numbers under another rule: one table, both names
            same["label"] += f" and {label} (the same numbers)"
            same.setdefault("also_by", []).append(by)
        else:
            duels.append(table)
    return {"game": rules.game, "fight_variants": list(variants), "other_variants": others, "tables": tables,
            "duels": duels, "policy": POLICY}


def karak_markdown(data: dict[str, Any]) -> str:
    out = ["# Karak balance: every hero against every monster", "",
           "Exact chances to win (per cent, rounded; the JSON file beside this one has the fractions), "
           "computed by enumerating every die face through the generated rule modules.",
           "", f"Choices: {data['policy']}.", ""]
    if data.get("other_variants"):
        out += [f"Variants that cannot change a fight against a monster entered by a step, so they have no "
                f"table here: {', '.join(data['other_variants'])} (for a duel, see `cardc odds --vs-hero`).", ""]
    notes: set[str] = set()
    for t in data["tables"]:
        out += [f"## {t['loadout']}; variants: {', '.join(t['variants']) or 'none'}", "",
                table_text(t, markdown=True)]
        notes.update(t["provisional"])
    for d in data.get("duels", []):
        out += [f"## Duel: {d['label']}, a sword each", "",
                "Chance that the hero of the row, attacking, beats the hero of the column (the attacker chooses "
                "first; the defender knows the attacker's total).", "", duel_text(d)]
        notes.update(d["provisional"])
    if notes:
        out += ["## Provisional", "", "These figures rest on rules or values that are not confirmed:", ""]
        out += [f"- {n}" for n in sorted(notes)] + [""]
    return "\n".join(out)


def prophecy_balance(game: Any) -> dict[str, Any]:
    """Stones at the start and at most, and the ability and item limits, per profession and race card."""
    from cardc_runtime import Context, Scripted
    from cardc_runtime.prophecy import make_character

    full = game.ruleset()
    expansions = tuple(m.EXPANSION for m in game.MODULES if m.EXPANSION != "base")
    without_realm = game.ruleset(tuple(e for e in expansions if e != "dragon_realm"))
    races = [None, *(e.id for e in full.of_kind("race_card"))]
    rows = []
    for prof, race in product((e.id for e in full.of_kind("profession")), races):
        row: dict[str, Any] = {"profession": prof, "race_card": race}
        for label, rules, variants in (("standard", without_realm, ()), ("longer", without_realm, ("longer_game",)),
                                       ("dragon_realm", full, ()), ("dragon_realm_longer", full, ("longer_game",))):
            if race is not None and rules.get(race) is None:
                continue
            ctx = Context(rules, Scripted(), frozenset(variants))
            _, sheet = make_character(ctx, prof, race)
            row.setdefault("start", sheet.start)
            row.setdefault("maximum", sheet.maximum)
            row.setdefault("provisional", sheet.provisional)
            row[f"limits_{label}"] = sheet.limits
        rows.append(row)
    return {"game": "prophecy", "rows": rows}


def _n(x: int | None) -> str:
    return "?" if x is None else str(x)


def prophecy_markdown(data: dict[str, Any], names: dict[str, str]) -> str:
    out = ["# Prophecy: stones and limits by profession and race", "",
           "Start and maximum stones (strength / will) after the race card's modifiers; how many abilities "
           "and items a character may own (ability / item) in the standard and the longer game, without and "
           "with the Dragon Realm. `?` marks a value the content does not know; `*` one that is provisional.", "",
           "| profession | race card | start S/W | max S/W | standard | longer | Dragon Realm | DR longer |",
           "|---|---|---|---|---|---|---|---|"]
    for r in data["rows"]:
        star = "*" if r["provisional"] else ""
        lim = [r.get(f"limits_{k}") for k in ("standard", "longer", "dragon_realm", "dragon_realm_longer")]
        cells = ["-" if x is None else f"{_n(x['ability'])} / {_n(x['item'])}" for x in lim]
        out.append(f"| {names.get(r['profession'], r['profession'])} | "
                   f"{names.get(r['race_card'], r['race_card']) if r['race_card'] else '(none)'} | "
                   f"{_n(r['start']['strength'])} / {_n(r['start']['will'])}{star} | "
                   f"{_n(r['maximum']['strength'])} / {_n(r['maximum']['will'])}{star} | " + " | ".join(cells) + " |")
    notes = sorted({n for r in data["rows"] for n in r["provisional"]})
    if notes:
        out += ["", "## Provisional", ""] + [f"- {n}" for n in notes]
    return "\n".join(out) + "\n"


def _json_default(x: Any) -> Any:
    if isinstance(x, Fraction):
        return f"{x.numerator}/{x.denominator}"
    raise TypeError(type(x).__name__)


def write_balance(project: Project, out: Path, options: BuildOptions) -> list[Diagnostic]:
    from cardc.backends.python.loader import load_games

    games = load_games(project)
    folder = out / "balance"
    folder.mkdir(parents=True, exist_ok=True)
    if "karak" in games:
        data = karak_balance(games["karak"].ruleset(), monster_fight_variants(project, "karak"))
        (folder / "karak.json").write_text(json.dumps(data, indent=1, ensure_ascii=False, default=_json_default)
                                           + "\n", encoding="utf-8")
        (folder / "karak.md").write_text(karak_markdown(data), encoding="utf-8")
    if "prophecy" in games:
        pdata = prophecy_balance(games["prophecy"])
        rules = games["prophecy"].ruleset()
        names = {e.id: e.label("en") for e in rules.entities.values()}
        (folder / "prophecy.json").write_text(json.dumps(pdata, indent=1, ensure_ascii=False) + "\n",
                                              encoding="utf-8")
        (folder / "prophecy.md").write_text(prophecy_markdown(pdata, names), encoding="utf-8")
    from cardc.backends.python.winrates import write_winrates

    write_winrates(project, out)  # win rates from whole games (cached on the content's digest)
    return []
