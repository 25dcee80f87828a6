"""Exact odds against a seeded simulation that makes the same choices: they agree within sampling error."""

from __future__ import annotations

import math
from collections import Counter

from cardc.backends.python.runtime.cardc_runtime import Seeded
from cardc.backends.python.runtime.cardc_runtime.fight import make_hero
from cardc.backends.python.runtime.cardc_runtime.fight_odds import monster_enumerator
from cardc.backends.python.runtime.cardc_runtime.odds import Odds
from test_rules_support import rules

RUNS = 4000


def _check(hero: str, monster: str, variants: tuple[str, ...] = (), **kit: tuple[str, ...]) -> None:
    r = rules()
    enum, provisional = monster_enumerator(r, make_hero(r, hero, **kit), monster, variants)
    exact = Odds.of(enum.explore(), provisional)
    inputs = Seeded(seed=20261130, policy=enum.policy())
    counts: Counter[str] = Counter()
    for _ in range(RUNS):
        inputs.history.clear()
        counts[enum.process(inputs).outcome] += 1
    for outcome, p in (("win", exact.win), ("tie", exact.tie), ("loss", exact.loss)):
        sigma = math.sqrt(float(p * (1 - p)) / RUNS)
        assert abs(counts[outcome] / RUNS - float(p)) <= 4 * sigma + 1e-12, (outcome, counts, float(p))


def test_simulation_agrees_with_enumeration_for_horan_with_choices() -> None:
    _check("horan", "skeleton_king", ("critical_hits",), weapons=("sword",), spells=("magic_missile",))


def test_simulation_agrees_with_enumeration_for_victorius() -> None:
    _check("victorius", "skeleton_warrior", weapons=("daggers",))
