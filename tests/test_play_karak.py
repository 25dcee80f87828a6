"""Karak played through the generic engine and the content's procedures: the seeds' worked examples step by
step on a real table, whole games with bots (same seed, same game), and a game that cannot end."""

from __future__ import annotations

import dataclasses
from typing import Any

from cardc.backends.python.loader import load_games
from cardc.backends.python.runtime.cardc_runtime import Scripted
from cardc.backends.python.runtime.cardc_runtime.engine import new_game, play_game, play_turn
from cardc.backends.python.runtime.cardc_runtime.state import SHAPES, Placed
from test_rules_support import bundled_project, rules


def _table(r: Any, heroes: list[str], script: Scripted, variants: tuple[str, ...] = (),
           tiles: dict[tuple[int, int], str] | None = None, bag: list[str] | None = None,
           stack: list[str] | None = None, **kits: dict[str, Any]) -> Any:
    """A table laid out by hand: the start tile at 0,0, `tiles` around it (entered already), every hero on
    the start tile with its kit, the bag and the stack in the given order (the last is drawn first)."""
    ctx = new_game(r, heroes, variants, script)
    play = ctx.play
    for pos, tile in {(0, 0): "start_tile", **(tiles or {})}.items():
        shape = r.entity(tile).attr("shape")
        play.board[pos] = Placed(tile, pos, SHAPES[shape], entered=True, order=len(play.board))
        play.revealed[r.entity(tile).kind] += 1
    play.zones["bag"] = list(bag or [])
    play.zones["stack"] = list(stack or [])
    for h in heroes:
        play.position[h] = (0, 0)
        for slot, items in kits.get(h, {}).items():
            setattr(ctx.characters[h], slot, items if isinstance(items, int) else list(items))
    return ctx


def _events(ctx: Any, *verbs: str) -> list[tuple[Any, ...]]:
    return [e for e in ctx.log if e[1] in verbs]


# ---- Lord of Karak, example 3 (Regent rulebook) -------------------------------------------------------


def test_lord_of_karak_example_3_every_step() -> None:
    """The barbarian, possessed, draws two tokens twice (the oracle's skill), sneaks past the first monster
    (the thief's), fights the skeleton with the key, re-rolls a double 1 (the warrior's), ties at 8 and wins
    the tie (the thief's again), takes the key, and his turn is over."""
    r = rules("karak", ("regent",))
    script = Scripted(dice=[1, 1, 1, 1, 3, 5], choices={
        "valduk:step": ["explore", "explore"], "valduk:explore_side": ["north", "north"],
        "valduk:return_token": ["giant_rat", "chest"], "valduk:sneak#1": ["sneak_past", "fight"],
        "valduk:double_attack#1": True, "valduk:fight.may.take_item": True})
    ctx = _table(r, ["taia", "aderyn", "horan", "valduk"], script, ("lord_of_karak",),
                 bag=["chest", "skeleton_turnkey", "giant_rat", "mummy"], stack=["room_t", "room_crossing"],
                 taia={"treasures": ["treasure"]}, aderyn={"treasures": ["treasure"]},
                 horan={"treasures": ["treasure"], "weapons": ["sword"]})
    ctx.fire("chambers_revealed", None, None, count=5)  # the fifth chamber: the weakest is possessed
    assert ("table", "possessed", "valduk", "fewest treasures") in ctx.log
    play_turn(ctx, "valduk")
    valduk = ctx.characters["valduk"]
    draws = _events(ctx, "draw_token")
    assert draws == [("valduk", "draw_token", ("mummy",)), ("valduk", "draw_token", ("skeleton_turnkey",))]
    assert ctx.play.zones["bag"][-2:] != [] and set(ctx.play.zones["bag"]) == {"giant_rat", "chest"}
    assert ("valduk", "prevent", "sneak") in ctx.log  # walked past the mummy
    [fight] = _events(ctx, "fight")
    assert fight == ("valduk", "fight", "skeleton_turnkey", (1, 1), (3, 5), 8, 8, "win")  # re-roll, tie won
    assert valduk.keys == ["key"] and valduk.lives == 5
    assert ctx.play.turn_over and ctx.play.steps_left == 2  # the fight ended the turn after two steps
    assert "berserk" not in (valduk.abilities or ())


# ---- the fifth chamber is a battle arena ---------------------------------------------------------------


def test_fifth_chamber_arena_possesses_first_then_duels() -> None:
    r = rules("karak", ("regent",))
    script = Scripted(dice=[3, 3, 2, 2], choices={"horan:step": ["explore", "stop"], "horan:explore_side": "north"})
    chambers = {(1, 0): "battle_arena", (-1, 0): "battle_arena", (0, 1): "cursed_chamber", (1, 1): "cursed_chamber"}
    ctx = _table(r, ["horan", "aderyn"], script, ("lord_of_karak",), tiles=chambers, stack=["battle_arena"],
                 horan={"treasures": ["treasure"], "weapons": ["sword"]}, aderyn={"weapons": ["daggers"]})
    play_turn(ctx, "horan")
    order = [e[1] for e in ctx.log if e[1] in ("possessed", "duel", "fight")]
    assert order[:2] == ["possessed", "duel"]  # the Lord first, then the arena's duel
    assert any(e[1:] == ("possessed", "aderyn", "fewest treasures") for e in ctx.log)
    assert ctx.characters["aderyn"].possessed and ctx.play.position["aderyn"] == (0, -1)  # summoned
    fights = _events(ctx, "fight")
    assert fights[0][:3] == ("horan", "fight", "aderyn") and fights[0][5] == 6 + 2  # 3+3 and a sword
    assert ctx.play.board[(0, -1)].corridor  # the arena is an ordinary corridor afterwards


# ---- pushed back onto a cursed chamber -----------------------------------------------------------------


def test_hero_pushed_back_onto_a_cursed_chamber_rolls_again() -> None:
    r = rules("karak", ("regent",))
    # step 1 onto the chamber: the die shows 5 (no curse); step 2 onto the rat: 1+1 loses, back onto the
    # chamber: the die shows 2 (cursed).
    script = Scripted(dice=[5, 1, 1, 2], choices={"argentus:step": ["walk", "walk", "stop"],
                                                  "argentus:walk_to": ["room_straight@2,0"]})
    ctx = _table(r, ["argentus"], script, tiles={(1, 0): "cursed_chamber", (2, 0): "room_straight"})
    ctx.play.board[(1, 0)].exits = frozenset({1, 3})
    ctx.play.board[(2, 0)].exits = frozenset({1, 3})
    ctx.play.board[(1, 0)].entered = ctx.play.board[(2, 0)].entered = False
    ctx.play.board[(2, 0)].tokens.append("giant_rat")
    play_turn(ctx, "argentus")
    rolls = [e for e in ctx.log if e[1] == "roll"]
    assert rolls == [("argentus", "roll", 5), ("argentus", "roll", 2)]
    assert ("argentus", "retreat", "came_from") in ctx.log and ctx.play.position["argentus"] == (1, 0)
    assert ctx.characters["argentus"].cursed and ctx.characters["argentus"].lives == 4


# ---- the house rules' duel, with the healing portal handed over, and a treasure under the dragon ----------


def test_house_rule_duel_example_on_the_table() -> None:
    """Victorius ends a step on Horan's tile; Horan attacks (1-2 re-rolled to a double 4, a critical hit, two
    magic shots after the roll: 16); Victorius re-rolls his 1 (3+4, two swords, one shot: 12); Horan wins by
    4, so Victorius picks what to give: the healing portal. Victorius loses a life, flees exactly 5 tiles
    and his turn is over."""
    r = rules("karak", ("house_rules",))
    corridor = {(x, 0): "corridor_straight" for x in range(1, 8)}
    script = Scripted(dice=[1, 2, 4, 4, 1, 3, 4], choices={
        "victorius:step": "walk", "victorius:walk_to": "corridor_straight@1,0",
        "victorius:hero_duel#1": False, "horan:hero_duel#1": True,
        "horan:double_attack#1": True, "horan:spell_after_roll:magic_missile": 2,
        "victorius:combat_training#1": True, "victorius:spell_after_roll:magic_missile": 1,
        "victorius:give_which": "healing_portal", "horan:hero_duel#5": True,
        "victorius:flee_to": ["corridor_straight@2,0"]})
    ctx = _table(r, ["victorius", "horan"], script, ("hero_duel", "critical_hits"), tiles=corridor,
                 horan={"weapons": ["sword", "battle_axe"], "spells": ["magic_missile", "magic_missile"]},
                 victorius={"weapons": ["sword", "sword"], "spells": ["magic_missile", "healing_portal"]})
    for pos in corridor:
        ctx.play.board[pos].exits = frozenset({1, 3})
    ctx.play.position["horan"] = (1, 0)
    play_turn(ctx, "victorius")
    horan, victorius = ctx.characters["horan"], ctx.characters["victorius"]
    fights = _events(ctx, "fight")
    assert fights[0] == ("horan", "fight", "victorius", (1, 2), (4, 4), 16, 12, "win")
    assert fights[1] == ("victorius", "fight", "horan", (1, 3), (3, 4), 12, 16, "loss")
    assert horan.spells == ["healing_portal"] and victorius.spells == []
    assert victorius.lives == 4 and horan.lives == 5
    assert ("victorius", "flee", 5) in ctx.log and ctx.play.position["victorius"] == (6, 0)
    assert ctx.play.turn_over


def test_stronger_dragon_double_one_puts_a_treasure_under_it_for_the_slayer() -> None:
    r = rules("karak", ("house_rules",))
    script = Scripted(dice=[1, 1, 6, 6], choices={"argentus:step": "walk", "horan:step": "walk",
                                                  "horan:fight.may.take_item": True})
    ctx = _table(r, ["argentus", "horan"], script, ("stronger_dragon",), tiles={(1, 0): "room_crossing"},
                 argentus={"treasures": ["treasure"], "lives": 5},
                 horan={"weapons": ["sword", "battle_axe"]})
    ctx.play.board[(1, 0)].tokens.append("dragon")
    play_turn(ctx, "argentus")
    argentus = ctx.characters["argentus"]
    assert ("argentus", "stake_treasure") in ctx.log and argentus.treasures == []
    assert ("argentus", "lose_life", 3) in ctx.log  # a loss to the stronger dragon costs 3
    assert argentus.lives == 5 and ctx.log[-1] == ("argentus", "heal_full")  # back on the start tile's fountain
    assert ctx.play.board[(1, 0)].staked == ["treasure"]
    play_turn(ctx, "horan")  # 6+6, a sword and an axe: 17 beats 15
    assert ctx.play.game_over
    assert sorted(ctx.characters["horan"].treasures) == ["dragon_treasure", "treasure"]


# ---- whole games ------------------------------------------------------------------------------------------


def test_same_seed_same_game_and_every_game_ends() -> None:
    r = rules("karak", ())
    a = play_game(r, ["horan", "taia", "xanros"], seed=11, keep_log=True)
    b = play_game(r, ["horan", "taia", "xanros"], seed=11, keep_log=True)
    c = play_game(r, ["horan", "taia", "xanros"], seed=12, keep_log=True)
    assert a.log == b.log and a.winners == b.winners and a.turns == b.turns
    assert a.log != c.log
    assert not a.capped and a.winners and ("the game ended" in a.reason)
    assert any(e[1] == "fight" and e[2] == "dragon" and e[7] == "win" for e in a.log)


def test_a_game_that_cannot_end_stops_at_the_turn_cap_with_a_clear_message() -> None:
    project = bundled_project()
    entities = tuple(dataclasses.replace(e, copies=0) if e.id == "dragon" and e.game == "karak" else e
                     for e in project.entities)
    r = load_games(dataclasses.replace(project, entities=entities))["karak"].ruleset(())
    result = play_game(r, ["horan", "aderyn"], seed=3, turn_cap=150)
    assert result.capped and result.turns == 150 and result.winners == []
    assert "did not end" in result.message and "dragon" in result.message


def test_ending_the_turn_on_a_fountain_heals_fully_and_lifts_the_curse() -> None:
    r = rules("karak", ())
    ctx = _table(r, ["horan", "taia"], Scripted(choices={"horan:step": "stop"}), horan={"lives": 2})
    ctx.characters["horan"].cursed = True
    play_turn(ctx, "horan")
    assert ctx.characters["horan"].lives == 5 and not ctx.characters["horan"].cursed
    assert ("horan", "heal_full") in ctx.log and ("horan", "curse_removed") in ctx.log
