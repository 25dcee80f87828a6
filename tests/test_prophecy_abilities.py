"""Cards a Prophecy character uses (issue 9): abilities used instead of moving in the Dragon Realm (Armoury,
Meditation, Miracle of Healing; never a terrain-bound one such as Human Hospitality), the Banner of Doom
waved at the other characters (with the base-game additions' errata: less against characters without an
artefact, part of it sent back by the Mirror Shield) and the Apocalypse that ends a final battle whose chance
cards have run out. Each scene is played on a table set up by the content, through the same choice interface
a bot or a person uses; where it matters the same scene without the rule's effect shows that the result comes
from that rule. The effects themselves are provisional stand-ins (the seeds do not give them)."""

from __future__ import annotations

from typing import Any

from cardc.backends.python.runtime.cardc_runtime import Scripted, verbs
from cardc.backends.python.runtime.cardc_runtime.context import Context
from cardc.backends.python.runtime.cardc_runtime.engine import play_game
from cardc.backends.python.runtime.cardc_runtime.table_verbs import _zone
from test_rules_support import bundled_project, prophecy_table, rules, stripped
from test_rules_support import table_marks as _marks
from test_rules_support import table_zones as _zones

REALM = ("dragon_realm",)
BOARD = "dragon_realm_board"


def _table(r: Any = None, expansions: tuple[str, ...] = REALM) -> Context:
    return prophecy_table(r, expansions=expansions)


def _stand(ctx: Context, who: str, path: str = "middle_path", index: int = 1) -> None:
    _marks(ctx)[f"board:{who}"] = BOARD
    _marks(ctx)[f"path:{who}"] = (path, index)
    _marks(ctx)[f"at:{who}"] = f"{path}#{index}"


def _always(entity: str) -> list[int]:
    """The numbers of the entity's `always` effects in the bundled Prophecy content, in order."""
    found = next(e for e in bundled_project().entities if e.id == entity and e.game == "prophecy")
    return [fx.index for fx in found.effects if fx.trigger.verb == "always"]


def _effect(entity: str, trigger: str) -> int:
    """The number of the first effect on `trigger` of the entity (or of its errata) in the bundled content."""
    return next(fx.index for e in bundled_project().entities if e.id == entity and e.game == "prophecy"
                for fx in e.effects if fx.trigger.verb == trigger)


# ---- abilities instead of moving ----------------------------------------------------------------------


def _movement_phase(ctx: Context, pick: str) -> list[Any]:
    """p1's movement phase in the realm, the option `pick` taken when offered; the options it was offered."""
    script = Scripted(choices={"*realm_movement#*": pick})
    ctx.inputs = script
    ctx.fire("movement_phase", ctx.characters["p1"])
    return [tuple(c.options) for c in script.asked if "realm_movement" in c.point]


def _hurt_in_the_realm(r: Any = None, card: str = "miracle_of_healing") -> Context:
    ctx = _table(r)
    p1 = ctx.characters["p1"]
    p1.cards.append(card)
    ctx.lose_lives(p1, 2)
    _stand(ctx, "p1")
    return ctx


def test_an_ability_is_used_instead_of_moving_in_the_realm() -> None:
    ctx = _hurt_in_the_realm()
    p1 = ctx.characters["p1"]
    lives = p1.lives
    offered = _movement_phase(ctx, "instead")
    assert offered == [("forward", "stand", "instead", "go_back")]  # the choice a bot or a person gets
    assert p1.lives == lives + 2  # the Miracle of Healing's (provisional) 2 lives ...
    assert _marks(ctx)["at:p1"] == "middle_path#1"  # ... and the character has not moved
    assert ("p1", "use_instead", "miracle_of_healing") in ctx.log


def test_without_the_rule_no_ability_is_offered_instead_of_moving() -> None:
    first = _always("realm_instead_of_moving")[0]
    ctx = _hurt_in_the_realm(stripped("realm_instead_of_moving", first, "prophecy"))
    p1 = ctx.characters["p1"]
    lives = p1.lives
    assert _movement_phase(ctx, "stand") == [("forward", "stand", "go_back")]
    assert p1.lives == lives and ("p1", "use_instead", "miracle_of_healing") not in ctx.log


def test_meditation_and_armoury_instead_of_moving() -> None:
    ctx = _table()
    p1 = ctx.characters["p1"]
    p1.cards += ["meditation", "armoury"]
    p1.spent["will"] = 3
    gold = p1.stats["gold"]
    _stand(ctx, "p1")
    ctx.inputs = Scripted(choices={"*realm_movement#*": "instead", "use_instead": "meditation"})
    ctx.fire("movement_phase", p1)
    assert p1.spent["will"] == 1  # 2 blue stones back (provisional)
    ctx.inputs = Scripted(choices={"*realm_movement#*": "instead", "use_instead": "armoury"})
    ctx.fire("movement_phase", p1)
    assert p1.stats["gold"] == gold + 1  # the stand-in for repairing a weapon


def test_a_terrain_bound_ability_is_not_offered_in_the_realm() -> None:
    ctx = _hurt_in_the_realm(card="hospitality")  # tagged both `terrain` and `instead_of_movement`
    assert _movement_phase(ctx, "stand") == [("forward", "stand", "go_back")]
    # without the terrain rule it would be offered (and heal) there too
    second = _always("realm_instead_of_moving")[1]
    ctx = _hurt_in_the_realm(stripped("realm_instead_of_moving", second, "prophecy"), card="hospitality")
    lives = ctx.characters["p1"].lives
    assert _movement_phase(ctx, "instead") == [("forward", "stand", "instead", "go_back")]
    assert ctx.characters["p1"].lives == lives + 1


def test_on_the_main_board_owned_abilities_are_a_turns_action() -> None:
    ctx = _table()
    p1 = ctx.characters["p1"]
    p1.cards.append("hospitality")
    ctx.lose_lives(p1, 1)
    assert verbs.can_use_card(ctx) and not verbs.can_use_instead(ctx)  # no instead_of_moving off the realm
    ctx.inputs = Scripted(choices={"use_card": "hospitality"})
    verbs.use_card(ctx)
    assert ("p1", "use_card", "hospitality") in ctx.log and p1.lives == p1.max_lives


# ---- the Banner of Doom ---------------------------------------------------------------------------------


def _wave(ctx: Context) -> None:
    ctx.inputs = Scripted(choices={"use_card": "banner_of_doom"})
    verbs.use_card(ctx)


def test_the_banner_of_doom_wounds_every_other_character() -> None:
    ctx = _table()
    ctx.characters["p1"].cards.append("banner_of_doom")
    p2 = ctx.characters["p2"]
    lives = p2.lives
    _wave(ctx)
    assert p2.lives == lives - 1 and ("p2", "wounded", "banner_of_doom", 1) in ctx.log


def test_the_banner_of_doom_does_not_reach_into_the_realm_nor_work_there() -> None:
    ctx = _table()
    p1, p2 = ctx.characters["p1"], ctx.characters["p2"]
    p1.cards.append("banner_of_doom")
    _stand(ctx, "p2")
    lives = p2.lives
    _wave(ctx)
    assert p2.lives == lives and ("p2", "unaffected", "banner_of_doom") in ctx.log
    _stand(ctx, "p1", "left_path", 1)
    assert not verbs.can_use_card(ctx)  # its holder cannot use it in the realm
    # without the realm's rule the banner reaches a character in the realm
    bare = stripped("realm_chance_cards", _always("realm_chance_cards")[0], "prophecy")
    ctx = _table(bare)  # (every expansion: p2 holds an artefact, so the errata's lesser wound does not apply)
    ctx.characters["p1"].cards.append("banner_of_doom")
    ctx.characters["p2"].cards.append("artefact_3")
    _stand(ctx, "p2")
    lives = ctx.characters["p2"].lives
    _wave(ctx)
    assert ctx.characters["p2"].lives == lives - 1


def test_the_errata_banner_hurts_a_character_without_an_artefact_less() -> None:
    errata = rules("prophecy", ("dragon_realm", "base_additions"))
    ctx = _table(errata)
    ctx.characters["p1"].cards.append("banner_of_doom")
    p2 = ctx.characters["p2"]
    lives = p2.lives
    _wave(ctx)
    assert p2.lives == lives and ("p2", "wounded", "banner_of_doom", 0) in ctx.log  # 1 - 1 (provisional)
    p2.cards.append("artefact_3")
    _wave(ctx)
    assert p2.lives == lives - 1
    # the same without the errata's `wounding` effect: the character without an artefact loses a life too
    bare = stripped("banner_of_doom", _effect("banner_of_doom", "wounding"), "prophecy")
    ctx = _table(bare)
    ctx.characters["p1"].cards.append("banner_of_doom")
    lives = ctx.characters["p2"].lives
    _wave(ctx)
    assert ctx.characters["p2"].lives == lives - 1


def test_the_mirror_shield_sends_part_of_the_banners_wound_back() -> None:
    ctx = _table(rules("prophecy", ("dragon_realm", "base_additions")))
    p1, p2 = ctx.characters["p1"], ctx.characters["p2"]
    p1.cards.append("banner_of_doom")
    p2.cards.append("mirror_shield")  # an artefact: the banner hurts its holder fully
    mine, theirs = p1.lives, p2.lives
    _wave(ctx)
    assert p2.lives == theirs - 1 and p1.lives == mine - 1


# ---- the Apocalypse -------------------------------------------------------------------------------------


def _final_battle(ctx: Context) -> None:
    """Every artefact owned, p1 three and p2 two: the final battle begins."""
    zones = _zones(ctx)
    found = []
    for name, zone in zones.items():
        for card in list(zone):
            if name != "face_up" and ctx.rules.entity(card).is_a("artefact"):
                zone.remove(card)
                found.append(card)
    assert len(found) == 5
    ctx.characters["p1"].cards += found[:3]
    ctx.characters["p2"].cards += found[3:]
    verbs.check_victory(ctx, count=4)
    assert verbs.final_battle(ctx)


def _empty_chance_deck(ctx: Context) -> None:
    """Every card of the chance deck drawn and lying on its discard pile."""
    deck = _zone(ctx, "chance_cards")
    _zone(ctx, "chance_cards:discard").extend(deck)
    deck.clear()


def test_the_apocalypse_ends_a_final_battle_without_chance_cards() -> None:
    ctx = _table()
    _final_battle(ctx)
    _empty_chance_deck(ctx)
    ctx.actor = ctx.characters["p2"]
    verbs.draw_chance(ctx, deck="chance_cards")
    assert ctx.play is not None and ctx.play.game_over
    assert ctx.play.winners == ["p1"] and ctx.play.end_reason == "p2:apocalypse"
    assert any("Apocalypse" in note for note in ctx.provisional)


def test_an_apocalypse_with_players_tied_for_the_most_artefacts_is_a_shared_win() -> None:
    ctx = prophecy_table(players=3)
    zones = _zones(ctx)
    found = [c for name, zone in zones.items() if name != "face_up" for c in zone
             if ctx.rules.entity(c).is_a("artefact")]
    for card in found:
        next(z for n, z in zones.items() if n != "face_up" and card in z).remove(card)
    for who, cards in zip(("p1", "p2", "p3"), (found[:2], found[2:4], found[4:]), strict=True):
        ctx.characters[who].cards += cards
    verbs.check_victory(ctx, count=4)
    _empty_chance_deck(ctx)
    verbs.draw_chance(ctx, deck="chance_cards")
    assert ctx.play is not None and ctx.play.game_over and ctx.play.winners == ["p1", "p2"]  # 2 each, shared


def test_before_the_final_battle_the_chance_deck_is_made_again() -> None:
    ctx = _table()
    _empty_chance_deck(ctx)
    verbs.draw_chance(ctx, deck="chance_cards")
    assert ctx.play is not None and not ctx.play.game_over and ("p1", "shuffle", "chance_cards") in ctx.log


def test_without_the_apocalypse_an_empty_deck_ends_nothing() -> None:
    bare = stripped("apocalypse", _effect("apocalypse", "deck_empty"), "prophecy")
    ctx = _table(bare)
    _final_battle(ctx)
    _empty_chance_deck(ctx)
    verbs.draw_chance(ctx, deck="chance_cards")
    assert ctx.play is not None and not ctx.play.game_over
    assert ("p1", "deck_empty", "chance_cards") in ctx.log


# ---- in real games ----------------------------------------------------------------------------------------


def test_bots_wave_the_banner_and_meet_the_apocalypse_in_real_games() -> None:
    r = rules("prophecy", REALM)
    waved = apocalypse = 0
    for seed in range(6):
        game = play_game(r, ["p1", "p2"], seed=seed, keep_log=True)
        waved += sum(1 for e in game.log if e[1:] == ("use_card", "banner_of_doom"))
        if "apocalypse" in game.reason:
            apocalypse += 1
            assert any("Apocalypse" in note for note in game.provisional)
            assert any(e[1] == "deck_empty" for e in game.log) and any(e[1] == "final_battle" for e in game.log)
    assert waved and apocalypse

