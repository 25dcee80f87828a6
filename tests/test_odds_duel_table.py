"""A duel table enumerates each fighter's roll once for all its opponents when the roll never reads them
(opponent_blind.py): every cell is exactly what the duel's own enumeration gives.

The oracle is `duel_outcome_odds`, one pair at a time (itself checked against the full duel in
test_odds_shared.py). A roll that reads its opponent (its side, its character, who is at the table) is
enumerated per pair, with the same odds as before."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from cardc.backends.python.runtime.cardc_runtime import opponent_blind
from cardc.backends.python.runtime.cardc_runtime.context import Context
from cardc.backends.python.runtime.cardc_runtime.fight_odds import duel_outcome_odds
from cardc.backends.python.runtime.cardc_runtime.fights import duel_outcomes, make_fighter, place_items
from cardc.backends.python.runtime.cardc_runtime.model import EffectDef, Ruleset
from test_rules_support import rules

DUELS = [((), (), {}), (("sword",), ("hero_duel",), {"fight_by": "hero_duel"}),
         (("battle_axe", "magic_missile"), ("critical_hits",), {})]


def _fighters(r: Ruleset, items: tuple[str, ...]) -> list[Any]:
    slots = place_items(r, items)
    return [make_fighter(r, h.id, slots=slots) for h in r.of_kind("hero")]


def _agree(r: Ruleset, items: tuple[str, ...], variants: tuple[str, ...], facts: dict[str, Any]) -> None:
    fighters = _fighters(r, items)
    got = duel_outcomes(r, fighters, variants, facts)
    assert len(got) == len(fighters) * (len(fighters) - 1)
    for a in fighters:
        for d in fighters:
            if a.id == d.id:
                continue
            own = duel_outcome_odds(r, a, d, variants, dict(facts))
            cell = got[(a.id, d.id)]
            assert (cell.win, cell.tie, cell.loss, cell.provisional) == (own.win, own.tie, own.loss,
                                                                          own.provisional), (a.id, d.id)


@pytest.mark.parametrize(("items", "variants", "facts"), DUELS)
def test_every_cell_is_the_duels_own(items: tuple[str, ...], variants: tuple[str, ...],
                                     facts: dict[str, Any]) -> None:
    _agree(rules(), items, variants, facts)


def test_the_bundled_heroes_never_read_their_opponent_while_rolling() -> None:
    """So each hero's roll, attacking and defending, is enumerated once for the whole table."""
    r = rules()
    fighters = _fighters(r, ("sword",))
    for who in fighters:
        stand_in = next(f for f in fighters if f.id != who.id)
        for attacking in (True, False):
            got = opponent_blind._blind_roll(r, who, stand_in, attacking, frozenset({"hero_duel"}),  # noqa: SLF001
                                             {"fight_by": "hero_duel"})
            assert got is not None, (who.id, attacking)


def _with_rule(run: Callable[[Context], None], trigger: str = "fight_total") -> Ruleset:
    """The bundled rules with one more effect of a rule of play (it applies to every fight)."""
    r = rules()
    owner = r.of_kind("rule")[0].id
    fx = EffectDef(owner, 999, trigger, (), run, "test")
    return Ruleset(r.game, dict(r.entities), [*r.effects, fx], r.modules, r.procedures, r.end_rules, r.winner)


def _armed_opponent_rule(ctx: Context) -> None:
    """+2 against an opponent who holds a battle axe (reads the other side)."""
    fight, side = ctx.fight, ctx.side
    other = fight.other(side) if fight is not None and side is not None else None
    if side is not None and other is not None and "battle_axe" in other.who.weapons:
        side.attack += 2


def _crowded_table_rule(ctx: Context) -> None:
    """+1 for the alphabetically first fighter at the table (reads who else is there)."""
    side = ctx.side
    if side is not None and sorted(ctx.characters)[0] == side.who.id:
        side.attack += 1


@pytest.mark.parametrize("rule", [_armed_opponent_rule, _crowded_table_rule])
def test_a_roll_that_reads_its_opponent_is_enumerated_per_pair(rule: Callable[[Context], None]) -> None:
    r = _with_rule(rule)
    fighters = _fighters(r, ())
    fighters[1].weapons.append("battle_axe")  # one opponent differs: the rule must see whom it fights
    first = fighters[0]
    assert opponent_blind._blind_roll(r, first, fighters[1], True, frozenset(), {}) is None  # noqa: SLF001
    got = duel_outcomes(r, fighters)
    for a in fighters:
        for d in fighters:
            if a.id != d.id:
                own = duel_outcome_odds(r, a, d)
                assert (got[(a.id, d.id)].win, got[(a.id, d.id)].provisional) == (own.win, own.provisional)
    # the rule matters: the same attacker's odds differ between opponents that only the rule tells apart
    plain = duel_outcomes(rules(), fighters)
    assert any(got[k].win != plain[k].win for k in got)


def test_the_watched_table_lets_a_side_look_up_only_itself() -> None:
    me, other = make_fighter(rules(), "horan"), make_fighter(rules(), "argentus")
    table = opponent_blind._WatchedTable({"horan": me, "argentus": other}, "horan")  # noqa: SLF001
    assert table["horan"] is me and table.get("horan") is me and "horan" in table
    for read in (lambda: table["argentus"], lambda: "argentus" in table, lambda: len(table), lambda: list(table),
                 lambda: sorted(table), lambda: dict(table), lambda: table.items(), lambda: table.copy()):
        with pytest.raises(opponent_blind.ReadsOpponent):
            read()
