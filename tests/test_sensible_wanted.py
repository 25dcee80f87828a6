"""Answers kept during a game against answers from scratch, over whole Karak games: the tiles with an item worth
taking (`SensibleBot._wanted`, kept until an item moves: `Play.item_moves`) must be the tiles a scan of the whole
board finds, `Play.item_places` must hold every tile that holds an item, and the portals (kept all game, caught
up tile by tile: `Play.laid_since`) must be those a scan of the board finds."""

from __future__ import annotations

from typing import Any

import pytest
from cardc.backends.python.runtime.cardc_runtime.engine import SensibleBot, play_game
from cardc.backends.python.runtime.cardc_runtime.play_verbs import _portals, _tile_has
from cardc.backends.python.runtime.cardc_runtime.state import Placed, Play
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
    asked = [0, 0, 0]  # questions, answers with a tile, turns with a portal laid

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
        board = ctx.play.board
        portals = [p for p, t in board.items() if _tile_has(ctx, t.tile, "portal_link")]
        assert _portals(ctx, ctx.play) == portals
        asked[2] += bool(portals)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(SensibleBot, "_wanted", checked)
        play_game(r, heroes, variants=variants, seed=seed, turn_cap=600, on_turn=check)
    assert asked[0] > 0



def test_each_reader_of_the_laid_tiles_keeps_its_own_place() -> None:
    play = Play(order=["a"])
    for x in range(3):
        play.board[(x, 0)] = Placed("t", (x, 0), frozenset({1, 3}))
    assert play.laid_since("one") == [(0, 0), (1, 0), (2, 0)]
    assert play.laid_since("one") == []
    play.board[(3, 0)] = Placed("t", (3, 0), frozenset({3}))
    assert play.laid_since("two") == [(0, 0), (1, 0), (2, 0), (3, 0)]
    assert play.laid_since("one") == [(3, 0)]
