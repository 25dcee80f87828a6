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
    p.add_argument("--game", required=True, help="the game (karak)")
    p.add_argument("--content", type=Path, default=Path("content"), help="content folder (default: content/)")
    p.add_argument("--hero", help="the hero whose odds are printed")
    p.add_argument("--lives", type=int, help="the hero's lives (default: its maximum)")
    p.add_argument("--weapons", default="", metavar="ID,ID", help="weapons carried (at most two)")
    p.add_argument("--spells", default="", metavar="ID,...", help="spell slots (at most three)")
    p.add_argument("--cursed", action="store_true", help="the hero is cursed (its abilities do not work)")
    p.add_argument("--first-step", action="store_true", help="the fight happens on the hero's first step")
    p.add_argument("--vs", metavar="MONSTER", help="the monster fought")
    p.add_argument("--vs-hero", metavar="HERO", help="the hero challenged to a duel (the --hero attacks)")
    p.add_argument("--vs-lives", type=int, help="lives of --vs-hero")
    p.add_argument("--vs-weapons", default="", metavar="ID,ID", help="weapons of --vs-hero")
    p.add_argument("--vs-spells", default="", metavar="ID,...", help="spells of --vs-hero")
    p.add_argument("--vs-cursed", action="store_true", help="--vs-hero is cursed")
    p.add_argument("--by", metavar="SOURCE", help="what started the duel (default: the hero_duel variant if on, "
                   "else the battle arena)")
    p.add_argument("--variant", action="extend", nargs="+", default=[], metavar="ID", help="switch variants on")
    p.add_argument("--table", action="store_true", help="every hero against every monster")
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


def compute(project: Any, args: argparse.Namespace) -> dict[str, Any]:
    """The odds the arguments ask for, as JSON-ready data."""
    from cardc.backends.python.loader import load_games

    if args.game not in project.games:
        _check("game", args.game, sorted(project.games))
    if args.game != "karak":
        raise OddsError(f"odds are computed for karak fights; `{args.game}` has no fight table yet")
    rules = load_games(project)[args.game].ruleset()
    from cardc_runtime.fight import LoadoutError, make_hero

    for v in args.variant:
        _check("variant", v, rules.variant_ids())
    heroes = [e.id for e in rules.of_kind("hero")]
    monsters = [e.id for e in rules.of_kind("monster")]
    if args.table:
        from cardc.backends.python.balance import karak_table, monster_fight_variants

        try:
            return karak_table(rules, tuple(args.variant), _ids(args.weapons), _ids(args.spells),
                               monster_fight_variants(project, args.game))
        except LoadoutError as e:
            raise OddsError(str(e)) from None
    if not args.hero or not (args.vs or args.vs_hero):
        raise OddsError("give --hero and --vs MONSTER (or --vs-hero HERO), or --table")
    _check("hero", args.hero, heroes)
    try:
        hero = make_hero(rules, args.hero, lives=args.lives, weapons=_ids(args.weapons), spells=_ids(args.spells),
                         cursed=args.cursed)
        facts = {"first_step": bool(args.first_step)}
        if args.vs_hero:
            _check("hero", args.vs_hero, heroes)
            if args.by is not None and rules.get(args.by) is None:
                _check("duel source (a variant or a tile)", args.by,
                       sorted({*rules.variant_ids(), *(e.id for e in rules.of_kind("tile"))}))
            other = make_hero(rules, args.vs_hero, lives=args.vs_lives, weapons=_ids(args.vs_weapons),
                              spells=_ids(args.vs_spells), cursed=args.vs_cursed)
            from cardc.backends.python.balance import duel_row

            return duel_row(rules, hero, other, tuple(args.variant), args.by, facts)
        _check("monster", args.vs, monsters)
        from cardc.backends.python.balance import fight_row

        return fight_row(rules, hero, args.vs, tuple(args.variant), facts)
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
