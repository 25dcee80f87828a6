"""Shared subtrees (run_state.py) and pruned choices give exactly what the full enumeration gives.

The oracle is `monster_odds`, which re-runs every path of the tree from the start and shares nothing. The fast
paths (`monster_outcome_odds` for the balance tables, `monster_win` for the greedy bot) must give the same
win, tie and loss fractions and the same provisional notes on any loadout, monster, variants and lives.
"""

from __future__ import annotations

from fractions import Fraction

from cardc.backends.python.runtime.cardc_runtime import Seeded
from cardc.backends.python.runtime.cardc_runtime.fight import LoadoutError, make_hero
from cardc.backends.python.runtime.cardc_runtime.fight_odds import (
    monster_enumerator,
    monster_odds,
    monster_outcome_odds,
    monster_win,
)
from cardc.backends.python.runtime.cardc_runtime.verbs import SEEN_ASKED
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from test_rules_support import rules


def _ids(kind: str) -> list[str]:
    return [e.id for e in rules().of_kind(kind)]


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
@given(hero=st.sampled_from(_ids("hero")), monster=st.sampled_from(_ids("monster")),
       weapons=st.lists(st.sampled_from(_ids("weapon")), max_size=2),
       spells=st.lists(st.sampled_from(_ids("spell")), max_size=3),
       variants=st.sets(st.sampled_from(rules().variant_ids())), cursed=st.booleans(),
       lives=st.integers(min_value=1, max_value=5))
def test_fast_paths_agree_with_the_full_enumeration(hero: str, monster: str, weapons: list[str], spells: list[str],
                                                    variants: set[str], cursed: bool, lives: int) -> None:
    r = rules()
    try:
        who = make_hero(r, hero, lives=lives, weapons=tuple(weapons), spells=tuple(spells), cursed=cursed)
    except LoadoutError:
        assume(False)
        return
    _same(who, monster, tuple(sorted(variants)))


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
