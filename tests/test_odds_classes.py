"""Opponents that the rules tell apart only by the value fought against share one enumeration
(fight_classes.py): each gets exactly what its own enumeration gives.

The oracle is `monster_outcome_odds`, one opponent at a time (itself checked against the full enumeration
in test_odds_shared.py). Where a run uses the stand-in beyond comparing its value (a reward, the margin), the
opponents are fought one by one; an opponent named by the rules, or with effects of its own, is a class
alone."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import pytest
from cardc.backends.python.runtime.cardc_runtime import fight_classes
from cardc.backends.python.runtime.cardc_runtime.context import Context
from cardc.backends.python.runtime.cardc_runtime.fight import LoadoutError, make_hero
from cardc.backends.python.runtime.cardc_runtime.fight_classes import classes, outcomes
from cardc.backends.python.runtime.cardc_runtime.fight_odds import monster_odds, monster_outcome_odds
from cardc.backends.python.runtime.cardc_runtime.inputs import Replay
from cardc.backends.python.runtime.cardc_runtime.model import EffectDef, Ruleset
from cardc.backends.python.runtime.cardc_runtime.unknowns import NeedsOpponent, Opaque, Target, Unknown
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from test_rules_support import rules

PLAIN = ("fallen", "giant_bat", "giant_rat", "giant_spider", "ice_mage", "skeleton_king", "skeleton_turnkey",
         "skeleton_warrior")


def _ids(kind: str) -> list[str]:
    return [e.id for e in rules().of_kind(kind)]


def _agree(r: Ruleset, who: Any, variants: tuple[str, ...] = (), facts: dict[str, Any] | None = None) -> None:
    monsters = _ids("monster")
    shared = outcomes(r, who, monsters, variants, facts)
    assert list(shared) == monsters
    for m in monsters:
        alone = monster_outcome_odds(r, who, m, variants, facts)
        got = shared[m]
        assert (got.win, got.tie, got.loss, got.provisional) == (alone.win, alone.tie, alone.loss,
                                                                 alone.provisional), m
        assert got.win + got.tie + got.loss == Fraction(1)


def test_the_bundled_monsters_without_effects_form_one_class() -> None:
    """The dragon and the mummy have effects of their own (when defeated): each is a class alone; the other
    eight differ only in strength, reward and notes."""
    got = classes(rules(), _ids("monster"), "strength")
    assert sorted(got) == sorted([("dragon",), PLAIN, ("mummy",)])


@settings(max_examples=25, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(hero=st.sampled_from(_ids("hero")),
       weapons=st.lists(st.sampled_from(_ids("weapon")), max_size=2),
       spells=st.lists(st.sampled_from(_ids("spell")), max_size=3),
       variants=st.sets(st.sampled_from(rules().variant_ids())), cursed=st.booleans(),
       lives=st.integers(min_value=1, max_value=5), first_step=st.booleans())
def test_shared_odds_are_each_opponents_own(hero: str, weapons: list[str], spells: list[str], variants: set[str],
                                            cursed: bool, lives: int, first_step: bool) -> None:
    r = rules()
    try:
        who = make_hero(r, hero, lives=lives, weapons=tuple(weapons), spells=tuple(spells), cursed=cursed)
    except LoadoutError:
        assume(False)
        return
    _agree(r, who, tuple(sorted(variants)), {"first_step": first_step})


def test_the_class_is_computed_in_one_enumeration() -> None:
    """Without a fallback: the stand-in's tree gives the eight plain monsters (the full fight's odds too)."""
    r = rules()
    who = make_hero(r, "horan", weapons=("sword",), spells=("magic_missile",))
    got = fight_classes._class_odds(r, who, PLAIN, (), None, "strength")  # noqa: SLF001
    for m in PLAIN:
        full = monster_odds(r, who, m)
        assert (got[m].win, got[m].tie, got[m].loss) == (full.win, full.tie, full.loss), m
    assert len({odds.win for odds in got.values()}) > 4  # the strengths differ, so do the odds


def _with_rule(run: Callable[[Context], None], trigger: str = "fight_result") -> Ruleset:
    """The bundled rules with one more effect of a rule of play (it applies to every fight)."""
    r = rules()
    owner = r.of_kind("rule")[0].id
    fx = EffectDef(owner, 999, trigger, (), run, "test")
    return Ruleset(r.game, dict(r.entities), [*r.effects, fx], r.modules, r.procedures, r.end_rules, r.winner)


def _reward_rule(ctx: Context) -> None:
    """A fight won against an opponent whose reward is the sword costs a life."""
    fight, side = ctx.fight, ctx.side
    if fight is not None and side is not None and fight.monster is not None and side.outcome == "win" \
            and fight.monster.attr("reward") == "sword":
        side.lives_spent += 1


def _margin_rule(ctx: Context) -> None:
    """A fight won by more than 3 keeps its spells."""
    side = ctx.side
    if side is not None and side.outcome == "win" and side.margin > 3:
        side.keep.update(side.spells_used)


@pytest.mark.parametrize("rule", [_reward_rule, _margin_rule])
def test_a_run_that_reads_the_opponent_falls_back_to_one_by_one(rule: Callable[[Context], None]) -> None:
    """An effect reads the reward of the monster fought, or the margin: the shared enumeration stops
    (NeedsOpponent) and each monster is fought alone, with the same odds as without classes."""
    r = _with_rule(rule)
    who = make_hero(r, "argentus", weapons=("sword",), spells=("magic_missile",))
    with pytest.raises(NeedsOpponent):
        fight_classes._class_odds(r, who, PLAIN, (), None, "strength")  # noqa: SLF001
    _agree(r, who)


def test_an_opponent_named_by_the_rules_is_a_class_alone() -> None:
    """A rule that compares the monster fought with `giant_rat` (its id is a constant of the effect's code)
    takes the giant rat out of the class; the others still share."""
    namespace: dict[str, Any] = {"__name__": "rat_rules"}  # a module of its own: only this code names the rat
    exec(compile(  # noqa: S102 - a rule written for this test
        "def rat_rule(ctx):\n"
        "    fight, side = ctx.fight, ctx.side\n"
        "    if fight is not None and side is not None and fight.monster is not None"
        " and fight.monster.id == 'giant_rat':\n"
        "        side.attack += 2\n", "rat_rules", "exec"), namespace)
    r = _with_rule(namespace["rat_rule"], "fight_total")
    got = classes(r, _ids("monster"), "strength")
    assert ("giant_rat",) in got and tuple(m for m in PLAIN if m != "giant_rat") in got
    _agree(r, make_hero(r, "aderyn"))


def test_an_unknown_value_asks_only_where_the_candidates_disagree() -> None:
    """Compared with a number, the unknown answers alone where every candidate left agrees; elsewhere the
    answer comes from the inputs and narrows the candidates. Other uses stop the run."""
    inputs = Replay([True, False])
    target = Target(Unknown(frozenset({5, 6, 9}), inputs)) + 1  # 6, 7 or 10
    assert (target < 20) is True and (target > 20) is False and inputs.position == 0
    assert (target > 6) is True and inputs.position == 1  # asked: 7 or 10 are left
    assert target.base.candidates == {6, 9}
    assert (target >= 7) is True and inputs.position == 1
    assert (target == 10) is False and inputs.position == 2 and target.base.candidates == {6}
    for use in (bool, int, str, hash, lambda t: t * 2):
        with pytest.raises(NeedsOpponent):
            use(target)
    margin = abs(12 - target)
    assert isinstance(margin, Opaque)
    with pytest.raises(NeedsOpponent):
        _ = margin > 3


def test_the_stand_in_keeps_what_the_class_shares() -> None:
    """The stand-in entity has the kinds and tags of its class; its name and the attributes that differ
    (reward, strength) stop a run that reads them."""
    r = rules()
    cls = fight_classes._class(r, PLAIN, "strength")  # noqa: SLF001
    stand_in = cls.stand_in
    assert stand_in.kinds == r.entity("giant_rat").kinds and cls.rules.get(stand_in.id) is stand_in
    assert cls.values == {m: r.entity(m).attr("strength") for m in PLAIN}
    for read in (lambda: stand_in.label(), lambda: bool(stand_in.attr("reward")),
                 lambda: stand_in.provisional("strength"), lambda: stand_in.name.get("en")):
        with pytest.raises(NeedsOpponent):
            read()
    assert dataclasses.is_dataclass(stand_in)
    # found by its id, listed nowhere: a rule that goes through the monsters sees the game's own
    assert stand_in.id in cls.rules.entities and stand_in.id not in list(cls.rules.entities)
    assert [e.id for e in cls.rules.of_kind("monster")] == [e.id for e in r.of_kind("monster")]
    assert len(cls.rules.entities) == len(r.entities) and sorted(cls.rules.entities) == sorted(r.entities)


@settings(max_examples=12, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(hero=st.sampled_from(_ids("hero")), weapons=st.lists(st.sampled_from(_ids("weapon")), max_size=2),
       spells=st.lists(st.sampled_from(_ids("spell")), max_size=2), cursed=st.booleans(),
       variants=st.sets(st.sampled_from(rules().variant_ids())), lives=st.integers(min_value=1, max_value=5))
def test_greedy_win_chance_from_the_shared_enumeration_is_each_monsters_own(
        hero: str, weapons: list[str], spells: list[str], cursed: bool, variants: set[str], lives: int) -> None:
    """The greedy bot's `win_chance` takes the plain monsters' figures from one shared enumeration, made at the
    first ask: each is the figure `monster_win` gives that monster alone (the bot's probe: spells left out,
    full lives), and the other seven are then answered without enumerating again."""
    from cardc.backends.python.runtime.cardc_runtime import greedy
    from cardc.backends.python.runtime.cardc_runtime.fight_odds import monster_win

    r, alone = rules(), rules()
    try:
        who = make_hero(r, hero, lives=lives, weapons=tuple(weapons), spells=tuple(spells), cursed=cursed)
    except LoadoutError:
        assume(False)
        return
    on = frozenset(variants)
    got = {m: greedy.win_chance(r, who, m, on) for m in reversed(PLAIN)}
    shared = r._cache[greedy._CLASS_WINS][on]  # noqa: SLF001
    assert len(shared) == 1 and None not in shared.values()  # one enumeration for the eight
    probe = dataclasses.replace(who, spells=[], lives=who.max_lives)
    for m in PLAIN:
        assert got[m] == float(monster_win(alone, probe, m, on)), m


def test_greedy_shared_figures_are_kept_by_what_the_hero_holds() -> None:
    """A hero that holds an item with effects is a different probe: a shared figure made for the hero
    without it is not used for it (its own enumeration runs), though `win_chance`'s loadout key (hero,
    weapons, curse) is the same."""
    from cardc.backends.python.runtime.cardc_runtime import greedy

    r = rules()
    carried = sorted(e.id for e in r.of_kind("item") if e.id in {fx.owner for fx in r.effects})[0]
    plain = make_hero(r, "horan", weapons=("sword",))
    holding = dataclasses.replace(plain, items=[carried])
    greedy.win_chance(r, plain, PLAIN[0], frozenset())
    greedy.win_chance(r, holding, PLAIN[1], frozenset())  # a new key: the second probe's own enumeration
    assert len(r._cache[greedy._CLASS_WINS][frozenset()]) == 2  # noqa: SLF001
    other = dataclasses.replace(plain, treasures=["_no_such_card_"])  # owns no effect: same figures
    greedy.win_chance(r, other, PLAIN[2], frozenset())
    assert len(r._cache[greedy._CLASS_WINS][frozenset()]) == 2  # noqa: SLF001
