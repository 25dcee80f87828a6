"""The main board of Prophecy's play (issue 9.5): a ring of spaces declared in the content (`main_ring`: its
sorts, where the spheres are entered from and where the characters start are provisional stand-ins; that it is a
ring of cities, guilds, plains, forests and mountains, one space either way for free or two on horseback for 1
gold, is base-game-facts.md#2.1); what a character may do depends on where it stands: an adventure on a coloured
space, a purchase at the guild it stands on, an attack on a sphere entered from its space; a character thrown out
of the Dragon Realm picks one of the two spaces the Gate's sphere is entered from. Each rule's effect is shown
against the content without it."""

from __future__ import annotations

import dataclasses
from typing import Any

from cardc.backends.python.runtime.cardc_runtime import Scripted, verbs
from cardc.backends.python.runtime.cardc_runtime.context import Context
from cardc.backends.python.runtime.cardc_runtime.engine import play_game
from test_rules_support import prophecy_table, rules
from test_rules_support import table_marks as _marks
from test_rules_support import table_zones as _zones

RING = "main_ring"
ENTRANCES = (2, 3, 6, 7, 10, 11, 14, 15, 18, 19)  # the content's stand-in, two per sphere place


def _at(ctx: Context, who: str, n: int) -> None:
    _marks(ctx)[f"space:{who}"] = f"{RING}#{n}"


def _shade(ctx: Context, n: int) -> str:
    return str(ctx.rules.entity(RING).attr("shades")[n - 1])


def _without_attr(ctx: Context, entity: str, attr: str) -> None:
    e = ctx.rules.entities[entity]
    ctx.rules.entities[entity] = dataclasses.replace(e, attrs={k: v for k, v in e.attrs.items() if k != attr})


def _options(ctx: Context, point: str) -> tuple[Any, ...]:
    assert isinstance(ctx.inputs, Scripted)
    return next(c.options for c in ctx.inputs.asked if c.point.endswith(point))


def test_every_character_starts_on_the_first_space_of_the_ring() -> None:
    ctx = prophecy_table(players=3)
    assert {_marks(ctx)[f"space:p{i}"] for i in (1, 2, 3)} == {f"{RING}#1"}
    assert _shade(ctx, 1) == "city"
    assert any("where the characters start" in n for n in ctx.provisional)


def test_a_character_moves_along_the_ring_either_way_round_its_end() -> None:
    for loop in (True, False):
        ctx = prophecy_table()
        if not loop:
            _without_attr(ctx, RING, "loop")
        ctx.inputs = Scripted(choices={"move_to": f"{RING}#2"})
        verbs.move_along(ctx, steps=1)
        assert _options(ctx, "move_to") == ((f"{RING}#2", f"{RING}#20") if loop else (f"{RING}#2",))
        assert _marks(ctx)["space:p1"] == f"{RING}#2"
        ctx.inputs = Scripted(choices={"move_to": f"{RING}#4"})
        verbs.move_along(ctx, steps=2)
        assert _options(ctx, "move_to") == ((f"{RING}#4", f"{RING}#20") if loop else (f"{RING}#4",))
        assert _marks(ctx)["space:p1"] == f"{RING}#4" and _shade(ctx, 4) == "gilda"


def test_riding_two_spaces_costs_a_gold_and_walking_one_is_free() -> None:
    for how, gold, space in (("walk", 3, 2), ("ride", 2, 3)):
        ctx = prophecy_table()
        ctx.inputs = Scripted(choices={"main_board_move": how, "move_to": [f"{RING}#{space}"]})
        ctx.run_procedure("main_board_move")
        assert ctx.characters["p1"].stats["gold"] == gold and _marks(ctx)["space:p1"] == f"{RING}#{space}"
    ctx = prophecy_table()
    ctx.characters["p1"].stats["gold"] = 0
    ctx.inputs = Scripted()
    ctx.run_procedure("main_board_move")
    assert "ride" not in _options(ctx, "main_board_move")  # no gold, no horse


def test_an_adventure_is_met_only_on_a_plains_forest_or_mountain_space() -> None:
    for n, met in ((1, False), (2, True), (3, True), (4, False), (5, True)):
        ctx = prophecy_table()
        _at(ctx, "p1", n)
        assert verbs.on_space(ctx, shades=("plains", "forest", "mountains")) is met
        ctx.inputs = Scripted(choices={"main_board_turn": "train"})  # (3 experience: a stone, no fight)
        ctx.run_procedure("main_board_turn")
        assert ("adventure" in _options(ctx, "main_board_turn")) is met, _shade(ctx, n)


def test_a_guild_sells_only_to_a_character_standing_on_its_space() -> None:
    ctx = prophecy_table()
    p1 = ctx.characters["p1"]
    p1.stats["experience"] = 3
    offered = _zones(ctx)["gilda"][-1]
    for n, here in ((1, False), (4, True), (5, False), (8, True)):  # a city, Gilda, mountains, guild 2
        _at(ctx, "p1", n)
        assert verbs.can_learn(ctx, pay_with="experience", here=True) is here
        assert verbs.can_learn(ctx, pay_with="experience")  # anywhere, without `here`
    _at(ctx, "p1", 8)  # guild 2's space: only its card is offered
    ctx.inputs = Scripted()
    verbs.learn(ctx, pay_with="experience", here=True)
    assert _options(ctx, "learn") == (ctx.log[-1][2],) and ctx.log[-1][2] != offered
    assert ctx.rules.entity(ctx.log[-1][2]).attr("guild") == "guild_2"


def test_a_sphere_is_attacked_from_one_of_its_two_entrance_spaces() -> None:
    ctx = prophecy_table(expansions=())
    places = list(_marks(ctx)["sphere_places"])
    for k, place in enumerate(places):
        for n in ENTRANCES[2 * k:2 * k + 2]:
            _at(ctx, "p1", n)
            assert verbs.can_attack_sphere(ctx, here=True)
        ctx.inputs = Scripted(dice=[1] * 20)
        verbs.attack_sphere(ctx, here=True)
        assert _options(ctx, "attack_sphere") == (place,)  # only the sphere entered from this space
    _at(ctx, "p1", 4)  # a guild's space borders no sphere
    assert not verbs.can_attack_sphere(ctx, here=True) and verbs.can_attack_sphere(ctx)


def test_thrown_out_of_the_realm_a_character_picks_one_of_the_gates_two_spaces() -> None:
    ctx = prophecy_table(expansions=("dragon_realm",))
    gate = next(p for p in _marks(ctx)["sphere_places"] if "dragon_realm_gate" in _zones(ctx)[p])
    k = list(_marks(ctx)["sphere_places"]).index(gate)
    two = tuple(f"{RING}#{n}" for n in ENTRANCES[2 * k:2 * k + 2])
    p1 = ctx.characters["p1"]
    p1.stats["gold"] = 3
    _at(ctx, "p1", ENTRANCES[2 * k])
    for field in ("middle_path#1", "middle_path#2"):  # an empty first field, a drake on the next
        _zones(ctx)["removed"].extend(_zones(ctx)[field])
        _zones(ctx)[field].clear()
    _zones(ctx)["middle_path#2"].append("realm_drake")
    _zones(ctx)["removed"].remove("realm_drake")
    ctx.inputs = Scripted(choices={"attack_sphere": gate, "dragon_realm_gate#*": "enter", "path": "middle_path"})
    verbs.attack_sphere(ctx, here=True)
    assert verbs.on_board(ctx, board="dragon_realm_board")
    assert not verbs.on_space(ctx, shades=tuple(set(ctx.rules.entity(RING).attr("shades"))))  # off the ring
    ctx.inputs = Scripted(dice=[1, 6], choices={"land_on": two[1]})
    verbs.advance(ctx)  # beaten by the drake: thrown back to the main board
    assert _options(ctx, "land_on") == two
    assert _marks(ctx)["space:p1"] == two[1] and ("p1", "land_on", two[1]) in ctx.log


def test_games_move_on_the_ring_and_finish() -> None:
    moved = 0
    for seed in range(3):
        result = play_game(rules("prophecy", ("dragon_realm",)), ["p1", "p2", "p3", "p4"], seed=seed, keep_log=True)
        moved += sum(1 for e in result.log if e[1] == "move_along")
        assert result.winners and not result.capped, (seed, result.reason)
    assert moved > 0
