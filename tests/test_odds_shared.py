"""Shared subtrees (run_state.py), pruned choices and runs that go on past a node give exactly what the full
enumeration gives.

The oracle is `monster_odds`, which shares nothing; it is itself checked against the enumeration as first
written, which re-runs the process from the start for every node of the tree (`_replayed`). The fast
paths (`monster_outcome_odds` for the balance tables, `monster_win` for the greedy bot) must give the same
win, tie and loss fractions and the same provisional notes on any loadout, monster, variants and lives.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from cardc.backends.python.runtime.cardc_runtime import Seeded
from cardc.backends.python.runtime.cardc_runtime.fight import LoadoutError, make_hero
from cardc.backends.python.runtime.cardc_runtime.fight_odds import (
    duel_odds,
    duel_outcome_odds,
    monster_enumerator,
    monster_odds,
    monster_outcome_odds,
    monster_win,
)
from cardc.backends.python.runtime.cardc_runtime.inputs import Choice, Dice, NeedInput, Replay
from cardc.backends.python.runtime.cardc_runtime.odds import Dist, best_of, mix, throws
from cardc.backends.python.runtime.cardc_runtime.verbs import SEEN_ASKED
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from test_rules_support import rules


def _ids(kind: str) -> list[str]:
    return [e.id for e in rules().of_kind(kind)]


def _replayed(process: Callable[[Replay], Any], value: Callable[[Any], Dist], me: str) -> tuple[Dist, int]:
    """The enumeration as first written: each node of the tree re-runs the process from the start and stops
    where the answers run out (NeedInput). Returns the distribution and the number of runs."""
    runs = 0

    def explore(prefix: tuple[Any, ...]) -> Dist:
        nonlocal runs
        runs += 1
        try:
            result = process(Replay(prefix))
        except NeedInput as need:
            what = need.what
            if isinstance(what, Choice):
                dists = [explore((*prefix, option)) for option in what.options]
                return dists[best_of(dists, what.chooser == me)]
            if isinstance(what, Dice):
                return mix([(w, explore((*prefix, faces))) for faces, w in throws(what.count, what.sides)])
            return mix([(1, explore((*prefix, face))) for face in range(1, int(what) + 1)])
        return value(result)

    return explore(()), runs


# a random fight: a hero with up to 2 weapons and 3 spells against a monster, some variants switched on
_FIGHT = dict(hero=st.sampled_from(_ids("hero")), monster=st.sampled_from(_ids("monster")),
              weapons=st.lists(st.sampled_from(_ids("weapon")), max_size=2),
              spells=st.lists(st.sampled_from(_ids("spell")), max_size=3),
              variants=st.sets(st.sampled_from(rules().variant_ids())))


def _loadout(r: Any, hero: str, **loadout: Any) -> Any:
    """`make_hero`, or the example is dropped when the loadout breaks a slot limit."""
    try:
        return make_hero(r, hero, **loadout)
    except LoadoutError:
        assume(False)
        raise  # (not reached: `assume(False)` ends the example)


def _same(hero: object, monster: str, variants: tuple[str, ...] = ()) -> tuple[int, int]:
    """Asserts the fast paths agree with the oracle; returns (oracle runs, shared runs)."""
    r = rules()
    old = monster_odds(r, hero, monster, variants)  # type: ignore[arg-type]
    new = monster_outcome_odds(r, hero, monster, variants)  # type: ignore[arg-type]
    assert (new.win, new.tie, new.loss, new.provisional) == (old.win, old.tie, old.loss, old.provisional)
    assert new.win + new.tie + new.loss == Fraction(1)
    assert monster_win(r, hero, monster, variants) == old.win  # type: ignore[arg-type]
    return old.runs, new.runs


@settings(max_examples=40, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(**_FIGHT, cursed=st.booleans(), lives=st.integers(min_value=1, max_value=5))
def test_fast_paths_agree_with_the_full_enumeration(hero: str, monster: str, weapons: list[str], spells: list[str],
                                                    variants: set[str], cursed: bool, lives: int) -> None:
    r = rules()
    who = _loadout(r, hero, lives=lives, weapons=tuple(weapons), spells=tuple(spells), cursed=cursed)
    _same(who, monster, tuple(sorted(variants)))


@settings(max_examples=25, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(**_FIGHT)
def test_runs_that_go_on_past_a_node_give_what_rerunning_from_the_start_gives(
        hero: str, monster: str, weapons: list[str], spells: list[str], variants: set[str]) -> None:
    """A run of the enumeration goes on past the nodes it reaches along their first answers (only leaves cost
    a run): the distribution, with its lives and flags, and every decision are those of re-running the
    fight from its start for every node."""
    r = rules()
    who = _loadout(r, hero, weapons=tuple(weapons), spells=tuple(spells))
    enum, _ = monster_enumerator(r, who, monster, tuple(sorted(variants)))
    dist = enum.explore()
    old, runs = _replayed(enum.process, enum.value, who.id)
    assert dist == old and dist.w.keys() == old.w.keys()
    assert enum.runs < runs


def test_a_duel_shares_the_subtrees_of_a_reroll_on_both_sides() -> None:
    """In a duel, Horan's re-roll of both dice leads to one subtree whatever he rolled first, attacking (the
    attacker's enumeration) or defending (the defender's tree): the same odds and notes as the full duel,
    which shares nothing, in far fewer runs (`runs` counts both sides' runs)."""
    r = rules()
    facts = {"fight_by": "hero_duel"}
    for a, d in (("horan", "aderyn"), ("aderyn", "horan")):
        attacker, defender = make_hero(r, a, weapons=("sword",)), make_hero(r, d, weapons=("sword",))
        fast = duel_outcome_odds(r, attacker, defender, ("hero_duel",), facts)
        full = duel_odds(r, attacker, defender, ("hero_duel",), facts)
        assert (fast.win, fast.tie, fast.loss) == (full.win, full.tie, full.loss) and 0 < fast.win < 1
        assert set(fast.provisional) <= set(full.provisional)
        # Horan alone has 21 x 21 paths through his re-roll; shared, both sides together take fewer than 150 runs
        assert fast.runs < 150 and fast.runs * 5 < full.runs, (a, fast.runs, full.runs)


def test_a_reroll_of_every_die_is_computed_once_whatever_the_first_roll() -> None:
    """Horan re-rolls both dice: after the re-roll his fight is the same whatever he rolled first, so the
    subtree of the second roll is computed once instead of once per first roll (21 times)."""
    r = rules()
    old, new = _same(make_hero(r, "horan"), "skeleton_king")
    assert old >= 21 * 21 and new * 4 < old, (old, new)


def test_faces_seen_before_a_reroll_keep_their_subtrees_apart() -> None:
    """Horan's re-roll of both dice with Victorius's Unstoppable (which asks whether a 6 was among every face
    rolled in the fight, re-rolled ones too): after the re-roll, the paths whose first roll showed a 6 and
    those whose did not go on differently, so they share only among themselves: fewer runs than the oracle,
    more than without the question, and the same fractions."""
    r = rules()
    plain = make_hero(r, "horan")
    plain.abilities = ["double_attack"]
    asking = make_hero(r, "horan")
    asking.abilities = ["double_attack", "unstoppable"]
    _, alone = _same(plain, "skeleton_king")
    old, new = _same(asking, "skeleton_king")
    assert alone < new < old, (alone, new, old)
    assert SEEN_ASKED[0] is None  # tracking ends with the enumeration


def test_the_policy_of_a_shared_enumeration_is_the_full_one() -> None:
    """The decisions a seeded simulation asks for (`policy`) come out the same with sharing on."""
    r = rules()
    hero = make_hero(r, "horan", weapons=("sword",), spells=("magic_missile",))
    full, _ = monster_enumerator(r, hero, "skeleton_king")
    lean, _ = monster_enumerator(r, hero, "skeleton_king", lean=True)
    full.explore()
    lean.explore()
    seen = []
    for enum in (full, lean):
        inputs = Seeded(seed=7, policy=enum.policy())
        outcomes = []
        for _ in range(200):
            inputs.history.clear()
            report = enum.process(inputs)
            outcomes.append((report.outcome, tuple(report.spells_used)))
        seen.append(outcomes)
    assert seen[0] == seen[1]
    assert len({o for o, _ in seen[0]}) > 1  # the fight is not decided in advance


@settings(max_examples=60, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(**_FIGHT, cursed=st.booleans(), lives=st.integers(min_value=1, max_value=5))
def test_the_win_by_sums_is_the_win_of_the_enumeration(hero: str, monster: str, weapons: list[str],
                                                       spells: list[str], variants: set[str], cursed: bool,
                                                       lives: int) -> None:
    """`win_odds.monster_win` (the compiled runtime's `monster_win`: sums per node, no shared states) gives the
    win of the full enumeration and of the keyed `monster_win`, and makes exactly the runs of the pruned
    enumeration without shared states (the same paths, the same choices stopped early)."""
    from cardc.backends.python.runtime.cardc_runtime import win_odds

    r = rules()
    who = _loadout(r, hero, lives=lives, weapons=tuple(weapons), spells=tuple(spells), cursed=cursed)
    on = tuple(sorted(variants))
    full = monster_odds(r, who, monster, on)
    walk = win_odds._Walk(r, who, monster, frozenset(on), {}, who.id)
    sums = walk.explore([])
    assert Fraction(sums[1], sums[0]) == full.win == monster_win(r, who, monster, on)
    assert win_odds.monster_win(r, who, monster, on) == full.win
    assert Fraction(sums[2], sums[0]) == full.loss
    unshared, _ = monster_enumerator(r, who, monster, on, lean=True)
    unshared.notes, unshared.prune = None, True  # (no notes: no paused state keyed)
    unshared.explore()
    assert walk.runs == unshared.runs


def test_the_win_by_sums_follows_the_policy_of_a_reroll() -> None:
    """Horan's re-roll: the sums choose as the distributions do (a re-roll taken only where it helps), so the
    win is the enumeration's, and above the win without the re-roll."""
    from cardc.backends.python.runtime.cardc_runtime import win_odds

    r = rules()
    horan = make_hero(r, "horan")
    for monster in ("giant_rat", "skeleton_king", "dragon"):
        full = monster_odds(r, horan, monster)
        assert win_odds.monster_win(r, horan, monster) == full.win, monster


def _choices_checked(r: Any, who: Any, monster: str, variants: frozenset[str], limit: int) -> tuple[int, int, int]:
    """`win_odds.best_choice` at every choice of the hero's effects (`owner#n`) among the first `limit` nodes of
    the fight's tree (depth first), against the pick of the whole enumeration (each option explored to the
    fight's end, as `_Walk.branch` picks). Returns the choices checked and the runs of the fight each way made."""
    from cardc.backends.python.runtime.cardc_runtime import win_odds
    from cardc.backends.python.runtime.cardc_runtime.context import Context
    from cardc.backends.python.runtime.cardc_runtime.fight import monster_fight

    runs = [0]
    leaf = win_odds._Walk.leaf

    def counted(self: Any, inputs: Any) -> list[int]:
        runs[0] += 1
        return leaf(self, inputs)

    def whole(prefix: list[Any], options: list[Any]) -> int | None:
        walk = win_odds._Walk(r, who, monster, variants, {}, who.id)
        try:
            best = last = walk.explore([*prefix, options[0]])
            index = 0
            for k in range(1, len(options)):
                if win_odds._unbeatable(last, True):
                    break
                last = walk.explore([*prefix, options[k]])
                if win_odds._better(last, best, True):
                    best, index = last, k
        except win_odds._ELSEWHERE:
            return None
        return index

    checked, bounded, full = 0, 0, 0
    stack: list[tuple[Any, ...]] = [()]
    seen = 0
    win_odds._Walk.leaf = counted  # type: ignore[method-assign]
    try:
        while stack and seen < limit:
            prefix = stack.pop()
            seen += 1
            try:
                monster_fight(Context(r, Replay(list(prefix)), variants, {}), who.copy(), monster)
            except NeedInput as need:
                what = need.what
            else:
                continue
            if isinstance(what, Choice):
                if "#" in what.point and what.chooser == who.id:
                    runs[0] = 0
                    got = win_odds.best_choice(r, who, monster, variants, list(prefix), what.chooser, what.point,
                                               list(what.options))
                    bounded += runs[0]
                    runs[0] = 0
                    assert got == whole(list(prefix), list(what.options)), (prefix, what.point)
                    full += runs[0]
                    checked += 1
                stack += [(*prefix, o) for o in what.options]
            elif isinstance(what, Dice):
                stack += [(*prefix, faces) for faces, _ in throws(what.count, what.sides)]
            else:
                stack += [(*prefix, face) for face in range(1, int(what) + 1)]
    finally:
        win_odds._Walk.leaf = leaf  # type: ignore[method-assign]
    return checked, bounded, full


@settings(max_examples=30, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(hero=st.sampled_from(["horan", "xanros", "victorius"]), monster=_FIGHT["monster"],
       weapons=_FIGHT["weapons"], spells=_FIGHT["spells"], variants=_FIGHT["variants"])
def test_a_fight_choice_weighed_with_bounds_is_the_whole_enumerations_pick(hero: str, monster: str,
                                                                        weapons: list[str], spells: list[str],
                                                                        variants: set[str]) -> None:
    """`win_odds.best_choice` (the greedy bot's answers inside fights) goes on from the replay of the answers so
    far as the first option's first run, and weighs the last option's throws only until its verdict is known:
    at every choice of a re-roll (Horan, Victorius) or a sacrifice (Lord Xanros) in the first nodes of random
    fights, its pick is that of each option explored to the fight's end."""
    r = rules()
    who = _loadout(r, hero, weapons=tuple(weapons), spells=tuple(spells))
    _choices_checked(r, who, monster, frozenset(variants), limit=120)


def test_a_reroll_weighed_with_bounds_makes_fewer_runs() -> None:
    """The bounds are used: Horan's re-roll choices against the skeleton king (after each first throw) take
    under half the fight's runs of the whole enumeration, with the same picks."""
    r = rules()
    checked, bounded, full = _choices_checked(r, make_hero(r, "horan"), "skeleton_king", frozenset(), limit=400)
    assert checked >= 15
    assert bounded * 2 < full, (bounded, full)
