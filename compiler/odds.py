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
    from cardc_runtime.fights import LoadoutError, make_fighter

    for v in args.variant:
        _check("variant", v, rules.variant_ids())
    fighting = [d for d in decls if d.opponent]
    fighter_kinds = sorted({d.fighter for d in decls})
    facts = {"first_step": True} if args.first_step else {}
    try:
        slots = _slots(rules, args.items, args.slot, args.weapons, args.spells)
        if args.table:
            if not fighting:
                raise OddsError(f"`{args.game}` declares no opponent to fight (`opponent:` of an odds declaration)")
            decl = fighting[0]
            relevant = fight_variants(project, args.game, decl)
            items = tuple(i for v in slots.values() for i in v)
            data = fight_table(rules, decl, tuple(args.variant), items, relevant, lives=args.lives,
                               cursed=args.cursed, facts=facts)
            data["situation"] = [x for x, on in (("lives: " + str(args.lives), args.lives is not None),
                                                 ("cursed", args.cursed), ("first step", args.first_step)) if on]
            return data
        if not args.hero or not (args.vs or args.vs_hero):
            raise OddsError("give --hero and --vs OPPONENT (or --vs-hero FIGHTER), or --table")
        heroes = [e.id for k in fighter_kinds for e in rules.of_kind(k)]
        _check(fighter_kinds[0], args.hero, heroes)
        hero = make_fighter(rules, args.hero, lives=args.lives, slots=slots, cursed=args.cursed)
        facts = {"first_step": bool(args.first_step)}
        if args.vs_hero:
            duel_kinds = sorted({d.duel_with or d.fighter for d in decls})
            _check(duel_kinds[0], args.vs_hero, [e.id for k in duel_kinds for e in rules.of_kind(k)])
            other = make_fighter(rules, args.vs_hero, lives=args.vs_lives, cursed=args.vs_cursed,
                                 slots=_slots(rules, args.vs_items, [], args.vs_weapons, args.vs_spells))
            if args.by is not None and rules.get(args.by) is None:
                starters = {d.by for decl in decls for d in decl.duels if d.by}
                _check("duel source (a variant or a place)", args.by, sorted({*rules.variant_ids(), *starters}))
            by = args.by or _default_by(decls, tuple(args.variant), rules)
            return duel_row(rules, hero, other, tuple(args.variant), by, facts)
        if not fighting:
            raise OddsError(f"`{args.game}` declares no opponent to fight (`opponent:` of an odds declaration)")
        opponent_kinds = sorted({str(d.opponent) for d in fighting})
        _check(opponent_kinds[0], args.vs, [e.id for k in opponent_kinds for e in rules.of_kind(k)])
        decl = next(d for d in fighting if rules.entity(args.vs).is_a(str(d.opponent)))
        return fight_row(rules, decl, hero, args.vs, tuple(args.variant), facts)
    except LoadoutError as e:
        raise OddsError(str(e)) from None


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
    for note in data.get("provisional", []):
        lines.append(f"provisional: {note}")
    lines.append(f"policy: {data['policy']}")
    return "\n".join(lines) + "\n"
