"""Invariants of whole Karak games played by bots, over many seeds, hero choices, expansions and variants:
lives stay within bounds, slot limits hold, every tile and token is in exactly one place, every item that
came into play is somewhere, and every game ends."""

from __future__ import annotations

from collections import Counter
from typing import Any

from cardc.backends.python.runtime.cardc_runtime.engine import place_counts, play_game
from cardc.backends.python.runtime.cardc_runtime.fight import slot_limits
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_rules_support import rules

SETUPS = [((), ()), (("regent",), ()), (("regent",), ("lord_of_karak",)),
          (("house_rules",), ("hero_duel", "critical_hits", "stronger_dragon")),
          (("regent", "house_rules"), ("lord_of_karak", "hero_duel", "critical_hits", "stronger_dragon"))]


def _items_in_play(ctx: Any) -> Counter[str]:
    play = ctx.play
    out: Counter[str] = Counter()
    for c in ctx.characters.values():
        out.update(c.held())
    for placed in play.board.values():
        out.update(placed.items)
        out.update(placed.staked)
    for zone in ("discard", "removed"):
        out.update(play.zones.get(zone, []))
    return out


def _items_produced(ctx: Any, start: Counter[str]) -> Counter[str]:
    """Items the game brought into play: the heroes' starting kits, rewards of turned-over tokens."""
    out = Counter(start)
    for placed in ctx.play.board.values():
        for token in placed.defeated:
            e = ctx.rules.entity(token)
            item = e.attr("reward") or e.attr("contents")
            if item:
                out[str(item)] += 1
    return out


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), players=st.integers(2, 5), setup=st.sampled_from(SETUPS))
def test_invariants_hold_in_random_games(seed: int, players: int, setup: tuple[tuple[str, ...], tuple[str, ...]]
                                         ) -> None:
    expansions, variants = setup
    r = rules("karak", expansions)
    heroes = sorted(e.id for e in r.of_kind("hero") if e.parent is None)[:players]
    limits = slot_limits(r, frozenset(variants))
    seen: dict[str, Any] = {}

    def check(ctx: Any, who: str) -> None:
        counts = place_counts(ctx)
        if "counts" not in seen:
            seen["counts"] = counts
            seen["start"] = Counter()
        assert counts == seen["counts"], "a tile or token appeared or vanished"
        for c in ctx.characters.values():
            assert 0 <= c.lives <= c.max_lives, (c.id, c.lives)
            assert len(c.weapons) <= limits["weapon"] and len(c.spells) <= limits["spell"]
            assert len(c.keys) <= limits["key"]
            assert ctx.play.position[c.id] in ctx.play.board
        assert _items_in_play(ctx) == _items_produced(ctx, seen["start"]), "an item appeared or vanished"

    result = play_game(r, heroes, variants=variants, seed=seed, turn_cap=1500, on_turn=check)
    assert not result.capped, result.message
    assert result.winners and set(result.winners) <= set(heroes)
    assert result.turns >= 1 and result.fights >= 1
