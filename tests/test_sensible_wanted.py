"""The sensible bot's kept answers against answers from scratch, over whole Karak games: the tiles with an item
worth taking (`SensibleBot._wanted`, kept until an item moves: `Play.item_moves`) must be the tiles a scan of
the whole board finds, and `Play.item_places` must hold every tile that holds an item."""

from __future__ import annotations

from typing import Any

import pytest
from cardc.backends.python.runtime.cardc_runtime.engine import SensibleBot, play_game
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_rules_support import rules

SETUPS = [((), ()), (("regent",), ()), (("regent", "house_rules"), ("lord_of_karak", "stronger_dragon"))]


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), players=st.integers(2, 5), setup=st.sampled_from(SETUPS))
def test_kept_wanted_tiles_match_a_whole_board_scan(seed: int, players: int,
                                                     setup: tuple[tuple[str, ...], tuple[str, ...]]) -> None:
    expansions, variants = setup
    r = rules("karak", expansions)
    heroes = sorted(e.id for e in r.of_kind("hero") if e.parent is None)[:players]
    kept = SensibleBot._wanted
    asked = [0, 0]  # questions, answers with a tile

    def checked(self: SensibleBot, ctx: Any, me: Any, play: Any) -> list[Any]:
        found = kept(self, ctx, me, play)
        fresh = self._wanted_now(ctx, me, list(play.board.values()), {})  # (every tile, nothing remembered)
        assert sorted(found) == sorted(fresh)
        asked[0] += 1
        asked[1] += bool(found)
        return found

    def check(ctx: Any, who: str) -> None:
        places = {id(p) for p in ctx.play.item_places()}
        assert all(id(p) in places for p in ctx.play.board.values() if p.items), "a tile with items not listed"

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(SensibleBot, "_wanted", checked)
        play_game(r, heroes, variants=variants, seed=seed, turn_cap=600, on_turn=check)
    assert asked[0] > 0

