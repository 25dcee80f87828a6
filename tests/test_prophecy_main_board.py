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

import pytest
from cardc import cli
from cardc.backends.python.runtime.cardc_runtime import Scripted, verbs
from cardc.backends.python.runtime.cardc_runtime.context import Context
from cardc.backends.python.runtime.cardc_runtime.engine import play_game
from test_rules_support import prophecy_table, rules
from test_rules_support import table_marks as _marks
from test_rules_support import table_zones as _zones

RING = "main_ring"
ENTRANCES = (2, 3, 6, 7, 10, 11, 14, 15, 18, 19)  # the content's stand-in, two per sphere place
PORTS = (1, 9, 17)  # the content's stand-ins: the cities are ports
GATES = (5, 11, 18)  # three magic gates (base-game-facts.md#2.1), where they lie a stand-in


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


def _with_attr(ctx: Context, entity: str, attr: str, value: Any) -> None:
    e = ctx.rules.entities[entity]
    ctx.rules.entities[entity] = dataclasses.replace(e, attrs={**e.attrs, attr: value})


def test_a_ship_sails_for_a_gold_from_a_port_to_the_adjacent_port_either_way() -> None:
    for start, there in ((1, (9, 17)), (9, (17, 1)), (17, (1, 9))):
        ctx = prophecy_table()
        _at(ctx, "p1", start)
        ctx.inputs = Scripted(choices={"main_board_move": "sail", "move_to": f"{RING}#{there[1]}"})
        ctx.run_procedure("main_board_move")
        assert "sail" in _options(ctx, "main_board_move")
        assert _options(ctx, "move_to") == tuple(f"{RING}#{n}" for n in there)
        assert ctx.characters["p1"].stats["gold"] == 2 and _marks(ctx)["space:p1"] == f"{RING}#{there[1]}"
        assert any("main_ring.ports" in n for n in ctx.provisional)
    ctx = prophecy_table()
    _with_attr(ctx, RING, "ports", [1, 5, 9, 17])  # a fourth port: only the nearest either way is adjacent
    ctx.inputs = Scripted(choices={"main_board_move": "sail", "move_to": f"{RING}#5"})
    ctx.run_procedure("main_board_move")
    assert _options(ctx, "move_to") == (f"{RING}#5", f"{RING}#17")
    for n, gold in ((2, 3), (4, 3), (1, 0)):  # not a port, not a port, a port without gold
        ctx = prophecy_table()
        _at(ctx, "p1", n)
        ctx.characters["p1"].stats["gold"] = gold
        ctx.inputs = Scripted(choices={"main_board_move": "stay"})
        ctx.run_procedure("main_board_move")
        assert "sail" not in _options(ctx, "main_board_move"), n
    ctx = prophecy_table()
    _without_attr(ctx, RING, "ports")  # a board without ports: no ship
    ctx.inputs = Scripted(choices={"main_board_move": "stay"})
    ctx.run_procedure("main_board_move")
    assert "sail" not in _options(ctx, "main_board_move")


def test_a_magic_gate_leads_to_either_other_gate_for_two_gold() -> None:
    for start in GATES:
        others = tuple(f"{RING}#{g}" for g in GATES if g != start)
        ctx = prophecy_table()
        _at(ctx, "p1", start)
        ctx.inputs = Scripted(choices={"main_board_move": "magic_gate", "move_to": others[0]})
        ctx.run_procedure("main_board_move")
        assert _options(ctx, "move_to") == others  # any other gate, however far
        assert ctx.characters["p1"].stats["gold"] == 1 and _marks(ctx)["space:p1"] == others[0]
        assert ("p1", "travel", "gates", _shade(ctx, int(others[0].rpartition("#")[2])), others[0]) in ctx.log
    for n, gold in ((6, 3), (5, 1)):  # not a gate; a gate with one gold only
        ctx = prophecy_table()
        _at(ctx, "p1", n)
        ctx.characters["p1"].stats["gold"] = gold
        ctx.inputs = Scripted(choices={"main_board_move": "stay"})
        ctx.run_procedure("main_board_move")
        assert "magic_gate" not in _options(ctx, "main_board_move"), n
    ctx = prophecy_table()
    _at(ctx, "p1", 2)  # off the listed spaces the verb itself does nothing
    verbs.travel(ctx, via="gates")
    assert ctx.prevented and _marks(ctx)["space:p1"] == f"{RING}#2"


def test_seeded_games_sail_and_pass_through_gates_and_list_the_stand_ins() -> None:
    used: dict[str, int] = {"ports": 0, "gates": 0}
    for seed in range(3):
        result = play_game(rules("prophecy", ()), ["p1", "p2", "p3"], seed=seed, keep_log=True)
        for e in result.log:
            if e[1] == "travel":
                used[e[2]] += 1
                n = int(e[4].rpartition("#")[2])
                assert n in (PORTS if e[2] == "ports" else GATES)
        assert any(p.startswith("main_ring.ports") for p in result.provisional)
        assert any(p.startswith("main_ring.gates") for p in result.provisional)
    assert used["ports"] > 0 and used["gates"] > 0, used


COLOURED = ("plains", "forest", "mountains")


def _lay(ctx: Context, n: int, card: str) -> None:
    """The card (taken from wherever it lies) is the only one on space n, face up."""
    for zone in _zones(ctx).values():
        while card in zone:
            zone.remove(card)
    _zones(ctx)[f"{RING}#{n}"] = [card]
    _zones(ctx)["face_up"].append(card)


def test_an_adventure_lies_face_up_on_every_coloured_space_from_the_setup() -> None:
    ctx = prophecy_table(expansions=())
    shades = list(ctx.rules.entity(RING).attr("shades"))
    for n, shade in enumerate(shades, 1):
        lying = _zones(ctx).get(f"{RING}#{n}", [])
        assert len(lying) == (1 if shade in COLOURED else 0), (n, shade)
        assert all(ctx.rules.entity(c).is_a("adventure") and c in _zones(ctx)["face_up"] for c in lying)
    laid = sum(1 for s in shades if s in COLOURED)
    assert laid == 11 and sum(1 for e in ctx.log if e[1] == "lay_on_space") == laid
    deck = _zones(ctx)["adventure_cards"]
    assert len(deck) + laid == sum(max(1, int(getattr(e, "copies", None) or 1)) for e in ctx.rules.entities.values()
                                   if e.attr("deck") == "adventure_cards")


def test_ending_the_move_on_a_coloured_space_meets_the_adventure_lying_there() -> None:
    # p1 walks from the city onto plains where a weak monster (strength 3) lies: 6 + strength beats 1 + 3
    ctx = prophecy_table(expansions=())
    _lay(ctx, 2, "weak_monster")
    nxt = _zones(ctx)["adventure_cards"][-1]
    ctx.inputs = Scripted(dice=[6, 1], choices={"main_board_move": "walk", "move_to": f"{RING}#2",
                                                "chance_cards*": False})
    ctx.run_procedure("turn")
    assert ("p1", "meet", "weak_monster", f"{RING}#2") in ctx.log
    assert ("p1", "gain", "gold", 2) in ctx.log and ("p1", "gain", "experience", 1) in ctx.log
    assert "weak_monster" in _zones(ctx)["adventure_cards:discard"]
    assert _zones(ctx)[f"{RING}#2"] == [nxt]  # the emptied space got the deck's next card
    # beaten by it, the monster stays where it lies and nothing new is laid
    ctx = prophecy_table(expansions=())
    p1 = ctx.characters["p1"]
    _lay(ctx, 2, "strong_monster")
    lives = p1.lives
    _marks(ctx)["space:p1"] = f"{RING}#2"
    ctx.inputs = Scripted(dice=[1, 6])
    verbs.meet_here(ctx, deck="adventure_cards")
    assert _zones(ctx)[f"{RING}#2"] == ["strong_monster"] and p1.lives == lives - 1


def test_another_adventure_is_used_and_discarded_and_only_a_coloured_space_holds_one() -> None:
    for refill in (True, False):
        ctx = prophecy_table(expansions=())
        _lay(ctx, 3, "hermit")  # the least experienced character gains 2 experience (a stand-in)
        _marks(ctx)["space:p1"] = f"{RING}#3"
        ctx.characters["p2"].stats["experience"] = 9
        xp = ctx.characters["p1"].stats["experience"]
        assert verbs.card_here(ctx)
        ctx.inputs = Scripted()
        verbs.meet_here(ctx, deck="adventure_cards", refill=refill)
        assert ctx.characters["p1"].stats["experience"] == xp + 2
        assert "hermit" in _zones(ctx)["adventure_cards:discard"] and "hermit" not in _zones(ctx)["face_up"]
        assert len(_zones(ctx)[f"{RING}#3"]) == (1 if refill else 0)
    ctx = prophecy_table(expansions=())
    for n in (1, 4):  # a city, Gilda's space: nothing lies there, nothing is met
        _marks(ctx)["space:p1"] = f"{RING}#{n}"
        assert not verbs.card_here(ctx)
        ctx.inputs = Scripted(choices={"main_board_move": "stay", "chance_cards*": False})
        ctx.run_procedure("turn")
        assert not any(e[1] == "meet" for e in ctx.log)


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
    moved = met = 0
    for seed in range(3):
        result = play_game(rules("prophecy", ("dragon_realm",)), ["p1", "p2", "p3", "p4"], seed=seed, keep_log=True,
                           turn_cap=600)  # four players, and the Banner of Doom's wounds make games longer
        moved += sum(1 for e in result.log if e[1] == "move_along")
        met += sum(1 for e in result.log if e[1] == "meet")
        assert not any(e[1] == "draw_adventure" for e in result.log)  # adventures lie on the spaces
        assert any("how adventures come onto the spaces" in p for p in result.provisional)
        assert result.winners and not result.capped, (seed, result.reason)
    assert moved > 0 and met > 0


def test_the_turn_log_tells_the_journeys_and_the_adventures_met(capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main(["play", "--game", "prophecy", "--players", "3", "--seed", "4"])
    out = capsys.readouterr().out
    assert code == 0 and "Weak monster is laid face up on The ring 2." in out
    assert "p3 meets Weak monster, lying on The ring 2." in out and "p2 travels to City (The ring 9)." in out
    code = cli.main(["play", "--game", "prophecy", "--players", "3", "--seed", "4", "--lang", "cs"])
    assert code == 0 and "Na Okruh 2 se lícem nahoru položí Slabá nestvůra." in capsys.readouterr().out
