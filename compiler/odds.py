"""`cardc odds`: exact fight odds computed through the generated rule modules.

The content is compiled, its Python rule packages generated and imported, and every die face and choice
enumerated (see `cardc_runtime.odds` for the choice policy). Bad names on the command line are reported
with the known ones (exit 2); errors in the content as diagnostics (exit 1).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from pathlib import Path
from typing import Any

from cardc.diagnostics import did_you_mean

POLICY = ("every choice (re-rolls, spells, sacrifices) is made to maximize the chance to win, then to "
          "minimize the chance to lose, then to spend the least (spells discarded, lives given)")


class OddsError(Exception):
    """A name or number on the command line that the content does not know."""


def add_odds_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--game", required=True, help="the game (its content declares what fights: `odds`)")
    p.add_argument("--content", type=Path, default=Path("content"), help="content folder (default: content/)")
    p.add_argument("--hero", help="the fighter whose odds are printed (an entity of the declared `fighter` kind)")
    p.add_argument("--lives", type=int, help="the fighter's lives (default: its maximum)")
    p.add_argument("--items", default="", metavar="ID,...", help="items carried, each in the slot it names")
    p.add_argument("--slot", action="append", default=[], metavar="SLOT=ID,...",
                   help="items put in a given slot (e.g. a weapon in a spell slot, where an ability allows it)")
    p.add_argument("--weapons", default="", metavar="ID,ID", help="shorthand for --slot weapon=ID,ID")
    p.add_argument("--spells", default="", metavar="ID,...", help="shorthand for --slot spell=ID,...")
    p.add_argument("--cursed", action="store_true", help="the fighter is cursed (its abilities do not work)")
    p.add_argument("--first-step", action="store_true", help="the fight happens on the fighter's first step")
    p.add_argument("--vs", metavar="OPPONENT", help="the opponent fought (an entity of the declared `opponent` kind)")
    p.add_argument("--vs-hero", metavar="FIGHTER", help="the fighter challenged to a duel (the --hero attacks)")
    p.add_argument("--vs-lives", type=int, help="lives of --vs-hero")
    p.add_argument("--vs-items", default="", metavar="ID,...", help="items of --vs-hero")
    p.add_argument("--vs-weapons", default="", metavar="ID,ID", help="weapons of --vs-hero")
    p.add_argument("--vs-spells", default="", metavar="ID,...", help="spells of --vs-hero")
    p.add_argument("--vs-cursed", action="store_true", help="--vs-hero is cursed")
    p.add_argument("--by", metavar="SOURCE", help="what started the duel (default: the first declared duel "
                   "whose variants are all on, else the first declared duel without variants)")
    p.add_argument("--cards", default="", metavar="ID,...", help="cards added to a fighter built from cards (a race "
                   "card, abilities, items owned), for a fighter kind whose odds declaration has `stats`")
    p.add_argument("--stat", action="append", default=[], metavar="STAT=N",
                   help="the fighter's current value of a stat (e.g. stones gained in play), within its maximum")
    p.add_argument("--vs-cards", default="", metavar="ID,...", help="cards added to --vs-hero")
    p.add_argument("--vs-stat", action="append", default=[], metavar="STAT=N", help="a stat of --vs-hero")
    p.add_argument("--fight-with", metavar="STAT", help="the stat the fight is fought with (default: the first "
                   "`show` attribute of the odds declaration)")
    p.add_argument("--at", metavar="PLACE", help="the fight happens at a place whose own rules apply")
    p.add_argument("--assume", action="append", default=[], metavar="ATTR=N",
                   help="take N for ATTR wherever the content does not know it (fighters and opponents); "
                   "every result that uses it says so (provisional)")
    p.add_argument("--variant", action="extend", nargs="+", default=[], metavar="ID", help="switch variants on")
    p.add_argument("--table", action="store_true", help="every fighter against every opponent")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")


def _ids(text: str) -> tuple[str, ...]:
    return tuple(x.strip() for x in text.split(",") if x.strip())


def frac(x: Fraction) -> dict[str, Any]:
    return {"fraction": f"{x.numerator}/{x.denominator}", "decimal": round(float(x), 6)}


def run_odds(args: argparse.Namespace, front: Callable[[list[Path]], Any],
             report: Callable[[Sequence[Any], dict[str, str]], int]) -> int:
    result = front([args.content])
    if report([d for d in result.diagnostics if d.is_error], result.sources):
        return 1
    try:
        data = compute(result.project, args)
    except OddsError as e:
        print(f"cardc odds: error: {e}", file=sys.stderr)
        return 2
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n" if args.json else render(data))
    return 0


def _check(kind: str, ident: str, known: list[str]) -> None:
    if ident not in known:
        hint = did_you_mean(ident, known)
        raise OddsError(f"unknown {kind} `{ident}`" + (f"; {hint}" if hint else f"; known: {', '.join(known)}"))


def _slots(rules: Any, items: str, slot_args: list[str], weapons: str, spells: str) -> dict[str, tuple[str, ...]]:
    """The items of a loadout by slot: `--items` go where their `slot` says, `--slot` where it says."""
    from cardc_runtime.fights import place_items

    slots = {k: list(v) for k, v in place_items(rules, _ids(items)).items()}
    pairs = [a.split("=", 1) if "=" in a else [a, ""] for a in slot_args]
    pairs += [["weapon", weapons]] if weapons else []
    pairs += [["spell", spells]] if spells else []
    for slot, ids in pairs:
        if not slot.strip():
            raise OddsError(f"--slot wants SLOT=ID,...; got `{slot}={ids}`")
        slots.setdefault(slot.strip(), []).extend(_ids(ids))
    return {k: tuple(v) for k, v in slots.items()}


def _default_by(decls: list[Any], variants: tuple[str, ...], rules: Any) -> str | None:
    duels = [d for decl in decls for d in decl.duels if d.by and rules.get(d.by) is not None]
    on = next((d for d in duels if d.variants and set(d.variants) <= set(variants)), None)
    plain = next((d for d in duels if not d.variants), None)
    chosen = on or plain
    return chosen.by if chosen else None


def _pairs(args: list[str], option: str) -> dict[str, int]:
    out = {}
    for a in args:
        name, _, value = a.partition("=")
        try:
            out[name.strip()] = int(value)
        except ValueError:
            raise OddsError(f"{option} wants NAME=N (a whole number); got `{a}`") from None
    return out


def _assume(rules: Any, values: dict[str, int], kinds: set[str]) -> list[str]:
    """Give every entity of the kinds the assumed value of each attribute it does not know; the value is
    provisional, so every result built on it says so. Returns what was assumed, for the output."""
    from cardc_runtime.model import Provisional

    done = []
    for attr, value in values.items():
        for e in list(rules.entities.values()):
            if any(e.is_a(k) for k in kinds) and e.attrs.get(attr) is None:
                note = f"{e.id}.{attr} = {value} assumed (--assume): the content does not know it"
                rules.entities[e.id] = replace(e, attrs={**e.attrs, attr: Provisional(value, note)})
                done.append(f"{e.id}.{attr}")
    rules._cache.clear()  # noqa: SLF001 - memoised lookups over the entities just changed
    return done


@dataclass(frozen=True)
class Builder:
    """How fighters of one kind are made: from slots (a hero and its items) or, where the content's odds
    declarations give the kind `stats`, from its card and the cards added to it."""

    stats: tuple[str, ...]
    limits: tuple[str, ...]

    def make(self, rules: Any, ident: str, *, lives: int | None, slots: dict[str, tuple[str, ...]], cursed: bool,
             cards: tuple[str, ...], set_stats: dict[str, int], variants: tuple[str, ...]) -> Any:
        from cardc_runtime.fights import make_fighter

        if not self.stats and (cards or set_stats):
            raise OddsError("--cards and --stat need a fighter built from cards (an odds declaration with `stats`)")
        if self.stats and lives is not None:
            raise OddsError("--lives is for fighters with lives; give --stat for a fighter built from cards")
        for stat in set_stats:
            if stat not in self.stats:
                raise OddsError(f"unknown stat `{stat}`; stats: {', '.join(self.stats)}")
        return make_fighter(rules, ident, lives=lives, slots=slots, cursed=cursed, cards=cards, stats=self.stats,
                            limits=self.limits, set_stats=set_stats, variants=variants)


def builder(decls: list[Any], kind: str) -> Builder:
    stats = tuple(dict.fromkeys(x for d in decls if d.fighter == kind for x in d.stats))
    limits = tuple(dict.fromkeys(x for d in decls if d.fighter == kind for x in d.limits))
    return Builder(stats, limits)


def sheet_notes(rules: Any, who: Any, build: Builder, variants: tuple[str, ...]) -> list[str]:
    """The provisional values a fighter built from cards rests on (its printed stats, its cards' modifiers)."""
    if not build.stats:
        return []
    from cardc_runtime.fights import character

    fighter, *cards = who.cards
    _, got = character(rules, fighter, tuple(cards), stats=build.stats, limits=build.limits, variants=variants)
    return list(got.provisional)


def compute(project: Any, args: argparse.Namespace) -> dict[str, Any]:
    """The odds the arguments ask for, as JSON-ready data."""
    from cardc.backends.python.balance import declarations, duel_row, fight_row, fight_table, fight_variants
    from cardc.backends.python.loader import load_games

    if args.game not in project.games:
        _check("game", args.game, sorted(project.games))
    decls = declarations(project, args.game)
    if not decls:
        raise OddsError(f"`{args.game}` declares no odds: add an `odds` declaration to its content "
                        "(dsl/README.md, Odds and balance tables)")
    rules = load_games(project)[args.game].ruleset()
    from cardc_runtime.fights import LoadoutError

    for v in args.variant:
        _check("variant", v, rules.variant_ids())
    variants = tuple(args.variant)
    fighting = [d for d in decls if d.opponent]
    fighter_kinds = sorted({d.fighter for d in decls})
    kinds = {*fighter_kinds, *(str(d.opponent) for d in fighting), *(d.duel_with for d in decls if d.duel_with)}
    assumed = _assume(rules, _pairs(args.assume, "--assume"), kinds) if args.assume else []
    build = builder(decls, fighter_kinds[0])
    facts: dict[str, Any] = {"first_step": True} if args.first_step else {}
    if args.at is not None:
        if rules.get(args.at) is None:
            _check("place", args.at, sorted(rules.entities))
        facts["place"] = args.at
    shown = next((d.show for d in fighting if d.show), ())
    if args.fight_with is not None:
        if shown and args.fight_with not in shown:
            raise OddsError(f"unknown stat to fight with `{args.fight_with}`; declared: {', '.join(shown)}")
        facts["fight_stat"] = args.fight_with
    elif build.stats and shown:
        facts["fight_stat"] = shown[0]
    cards, set_stats = _ids(args.cards), _pairs(args.stat, "--stat")
    situation = [x for x, on in (("lives: " + str(args.lives), args.lives is not None),
                                 ("cursed", args.cursed), ("first step", args.first_step),
                                 (f"at {args.at}", args.at is not None),
                                 (f"fought with {facts.get('fight_stat')}", "fight_stat" in facts),
                                 ("cards: " + ", ".join(cards), bool(cards)),
                                 ("stats: " + ", ".join(args.stat), bool(args.stat))) if on]
    try:
        slots = _slots(rules, args.items, args.slot, args.weapons, args.spells)
        if args.table:
            if not fighting:
                raise OddsError(f"`{args.game}` declares no opponent to fight (`opponent:` of an odds declaration)")
            decl = fighting[0]
            relevant = fight_variants(project, args.game, decl)
            items = tuple(i for v in slots.values() for i in v)
            if build.stats:
                data = character_table(rules, decls, decl, build, variants, cards, set_stats, facts)
            else:
                data = fight_table(rules, decl, variants, items, relevant, lives=args.lives,
                                   cursed=args.cursed, facts=facts)
            data["situation"] = situation
            return _with_assumed(data, assumed)
        if not args.hero or not (args.vs or args.vs_hero):
            raise OddsError("give --hero and --vs OPPONENT (or --vs-hero FIGHTER), or --table")
        heroes = [e.id for k in fighter_kinds for e in rules.of_kind(k)]
        _check(fighter_kinds[0], args.hero, heroes)
        hero = build.make(rules, args.hero, lives=args.lives, slots=slots, cursed=args.cursed, cards=cards,
                          set_stats=set_stats, variants=variants)
        notes = sheet_notes(rules, hero, build, variants)
        facts = {"first_step": bool(args.first_step), **{k: v for k, v in facts.items() if k != "first_step"}}
        if args.vs_hero:
            duel_kinds = sorted({d.duel_with or d.fighter for d in decls})
            _check(duel_kinds[0], args.vs_hero, [e.id for k in duel_kinds for e in rules.of_kind(k)])
            vs_build = builder(decls, duel_kinds[0])
            other = vs_build.make(rules, args.vs_hero, lives=args.vs_lives, cursed=args.vs_cursed,
                                  slots=_slots(rules, args.vs_items, [], args.vs_weapons, args.vs_spells),
                                  cards=_ids(args.vs_cards), set_stats=_pairs(args.vs_stat, "--vs-stat"),
                                  variants=variants)
            notes += sheet_notes(rules, other, vs_build, variants)
            if args.by is not None and rules.get(args.by) is None:
                starters = {d.by for decl in decls for d in decl.duels if d.by}
                _check("duel source (a variant or a place)", args.by, sorted({*rules.variant_ids(), *starters}))
            by = args.by or _default_by(decls, variants, rules)
            _need_stats(hero, other, facts)
            data = _noted(duel_row(rules, hero, other, variants, by, facts), notes)
            if build.stats:
                data["situation"] = situation
            return _with_assumed(data, assumed)
        if not fighting:
            raise OddsError(f"`{args.game}` declares no opponent to fight (`opponent:` of an odds declaration)")
        opponent_kinds = sorted({str(d.opponent) for d in fighting})
        _check(opponent_kinds[0], args.vs, [e.id for k in opponent_kinds for e in rules.of_kind(k)])
        decl = next(d for d in fighting if rules.entity(args.vs).is_a(str(d.opponent)))
        _need_stats(hero, None, facts)
        data = _noted(fight_row(rules, decl, hero, args.vs, variants, facts), notes)
        if build.stats:
            data["situation"] = situation
        return _with_assumed(data, assumed)
    except LoadoutError as e:
        raise OddsError(str(e)) from None


def _need_stats(hero: Any, other: Any, facts: dict[str, Any]) -> None:
    stat = facts.get("fight_stat")
    for who in (hero, other):
        if who is not None and stat is not None and stat not in who.stats:
            raise OddsError(f"the {stat} of {who.id} is not known to the content; give --stat {stat}=N "
                            f"(or --assume {stat}=N)")


def _noted(data: dict[str, Any], notes: list[str]) -> dict[str, Any]:
    data["provisional"] = sorted({*data.get("provisional", []), *notes})
    return data


def _with_assumed(data: dict[str, Any], assumed: list[str]) -> dict[str, Any]:
    if assumed:
        data["assumed"] = assumed
    return data


def character_table(rules: Any, decls: list[Any], decl: Any, build: Builder, variants: tuple[str, ...],
                    cards: tuple[str, ...], set_stats: dict[str, int], facts: dict[str, Any]) -> dict[str, Any]:
    """Every fighter built from cards (alone and with each card of the `combine` kind, plus `cards`) against
    every opponent of the declaration whose value of the stat fought with is known."""
    from cardc_runtime.fights import LoadoutError, fight_outcome

    stat = str(facts.get("fight_stat", "strength"))
    kinds = dict.fromkeys(str(d.opponent) for d in decls if d.opponent and d.fighter == decl.fighter)
    every = [o for k in kinds for o in rules.of_kind(k)]
    found = sorted((o for o in every if isinstance(o.attr(stat), int)), key=lambda o: (o.attr(stat), o.id))
    provisional = {f"{o.id} is left out: its {stat} is not known (--assume {stat}=N)" for o in every
                   if o not in found}
    combine = next((d.combine for d in decls if d.fighter == decl.fighter and d.combine), None)
    combos: list[tuple[str, ...]] = [()] + [(e.id,) for e in rules.of_kind(combine)] if combine else [()]
    rows = []
    for f in rules.of_kind(decl.fighter):
        for combo in combos:
            label = f.label("en") + "".join(f" + {rules.entity(c).label('en')}" for c in combo)
            try:
                who = build.make(rules, f.id, lives=None, slots={}, cursed=False, cards=(*combo, *cards),
                                 set_stats=set_stats, variants=variants)
            except LoadoutError as e:
                provisional.add(f"{label} is left out: {e}")
                continue
            if stat not in who.stats:
                provisional.add(f"{label} is left out: its {stat} is not known (--stat or --assume)")
                continue
            provisional.update(sheet_notes(rules, who, build, variants))
            cells = {}
            for o in found:
                odds = fight_outcome(rules, who, o.id, variants, dict(facts))
                provisional.update(odds.provisional)
                cells[o.id] = {"win": frac(odds.win), "tie": frac(odds.tie), "loss": frac(odds.loss)}
            rows.append({"fighter": who.id, "name": label, "cells": cells})
    return {"game": rules.game, "variants": list(variants), "items": list(cards), "show": [stat],
            "opponents": [{"id": x.id, "name": x.label("en"), stat: x.attr(stat)} for x in found],
            "rows": rows, "provisional": sorted(provisional), "policy": POLICY}


def render(data: dict[str, Any]) -> str:
    """Text for a terminal: fractions and decimals, extras, provisional notes, the policy."""
    if "rows" in data:
        from cardc.backends.python.balance import table_text

        return table_text(data)
    lines = [data["title"]]
    if data.get("variants"):
        lines.append(f"variants: {', '.join(data['variants'])}")
    for key in ("win", "tie", "loss"):
        lines.append(f"{key:<5} {data[key]['fraction']:>14}  {data[key]['decimal']:.4f}")
    for name, value in data.get("also", {}).items():
        lines.append(f"  {name}: {value['fraction']} ({value['decimal']:.4f})")
    lines += [f"situation: {n}" for n in data.get("situation", [])]
    for note in data.get("provisional", []):
        lines.append(f"provisional: {note}")
    lines.append(f"policy: {data['policy']}")
    return "\n".join(lines) + "\n"
