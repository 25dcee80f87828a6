"""The Dragon Realm's standing rules take effect in play (issue 9.3/9.5): each test builds a table through the
content's own set-up, acts through the engine's verbs, and shows the rule's effect; where it helps, the same
scene with the rule's effect stripped from the content shows that the result comes from that rule."""

from __future__ import annotations

from typing import Any

from cardc.backends.python.runtime.cardc_runtime import Scripted, verbs
from cardc.backends.python.runtime.cardc_runtime.context import Context
from cardc.backends.python.runtime.cardc_runtime.fight import fight_monster
from cardc.backends.python.runtime.cardc_runtime.standing import standing, usable_here
from test_rules_support import effect_index, prophecy_table, stripped
from test_rules_support import table_marks as _marks
from test_rules_support import table_zones as _zones

REALM = ("dragon_realm",)
BOARD = "dragon_realm_board"


def _table(r: Any = None, variants: tuple[str, ...] = (), seed: int = 0) -> Context:
    """Two players after the content's set-up; p1 on turn and acting."""
    return prophecy_table(r, variants=variants, seed=seed)


def _stand(ctx: Context, who: str, path: str, index: int) -> None:
    _marks(ctx)[f"board:{who}"] = BOARD
    _marks(ctx)[f"path:{who}"] = (path, index)
    _marks(ctx)[f"at:{who}"] = f"{path}#{index}"


def _take_out(ctx: Context, card: str) -> None:
    """Lift one copy of the card off the table, so that a scene can put it where it wants."""
    for name, zone in _zones(ctx).items():
        if name != "face_up" and card in zone:
            zone.remove(card)
            return


# ---- usable_only_on: a dragon-slayer ability works only in the realm ------------------------------------


def _total_against_drake(ctx: Context, in_realm: bool) -> int:
    p1 = ctx.characters["p1"]
    p1.cards.append("dragon_slayer_ability_1")
    if in_realm:
        _stand(ctx, "p1", "middle_path", 1)
    ctx.inputs = Scripted(dice=[3, 3])
    return fight_monster(ctx, p1, "realm_drake").total - p1.stats["strength"]


def test_a_dragon_slayer_ability_counts_in_the_realm_and_not_off_it() -> None:
    assert _total_against_drake(_table(), in_realm=True) == 3 + 1  # the die and the ability's (provisional) +1
    assert _total_against_drake(_table(), in_realm=False) == 3  # on the main board it does nothing
    # without the rule's `usable_only_on` the ability would count off the realm board too
    bare = stripped("dragon_slayer_rules", effect_index("dragon_slayer_rules", "always", "prophecy"), "prophecy")
    assert _total_against_drake(_table(bare), in_realm=False) == 3 + 1


def test_usable_only_on_is_read_when_a_card_is_used() -> None:
    ctx = _table()
    p1 = ctx.characters["p1"]
    p1.cards.append("dragon_slayer_ability_2")
    assert not usable_here(ctx, p1, "dragon_slayer_ability_2")
    _stand(ctx, "p1", "left_path", 2)
    assert usable_here(ctx, p1, "dragon_slayer_ability_2")
    assert usable_here(ctx, p1, "dragon_charm")  # a card no standing rule limits


# ---- terrain_cards_unusable: no terrain-bound ability in the realm -----------------------------------------


def test_a_terrain_bound_card_cannot_be_used_in_the_realm() -> None:
    ctx = _table()
    p1 = ctx.characters["p1"]
    p1.cards.append("hospitality")
    ctx.owner = "hospitality"
    verbs.use_printed(ctx)
    assert ctx.log[-1] == ("p1", "use_printed", "hospitality")  # on the main board it is used
    _stand(ctx, "p1", "middle_path", 1)
    ctx.fire("always", p1)  # as a turn begins: the realm's rules are recorded in the table's set-up
    verbs.use_printed(ctx)
    assert ctx.log[-1] == ("p1", "cannot_use", "hospitality")  # in the realm it is refused
    verbs.leave_board(ctx, board=BOARD)
    verbs.use_printed(ctx)
    assert ctx.log[-1] == ("p1", "use_printed", "hospitality")  # back on the main board it works again
    _stand(ctx, "p1", "middle_path", 1)
    now = standing(ctx, p1)
    assert now.get("no_terrain:p1")
    del now["cannot_use:p1:hospitality"]  # the card is also named by `cannot_use`: the terrain rule alone
    assert not usable_here(ctx, p1, "hospitality", now)
    del now["no_terrain:p1"]
    assert usable_here(ctx, p1, "hospitality", now)


def test_standing_rules_hold_while_their_condition_does() -> None:
    ctx = _table()
    p1 = ctx.characters["p1"]
    _stand(ctx, "p1", "middle_path", 1)
    assert standing(ctx, p1).get("ignore_chance:p1") and standing(ctx, p1).get("no_terrain:p1")
    verbs.leave_board(ctx, board=BOARD)
    assert not standing(ctx, p1).get("ignore_chance:p1") and not standing(ctx, p1).get("no_terrain:p1")


# ---- blocks_final_battle: a dead character's artefacts hold up the final battle -------------------------


def _all_but_one_artefact_owned(ctx: Context) -> str:
    """p1 owns every artefact but one, which p2 holds; returns p2's artefact."""
    zones = _zones(ctx)
    places = _marks(ctx)["sphere_places"]
    artefacts = []
    for place in places:
        for card in list(zones[place]):
            if ctx.rules.entity(card).is_a("artefact"):
                zones[place].remove(card)
                artefacts.append(card)
    for card in list(zones["fire_lake"]):
        if ctx.rules.entity(card).is_a("artefact"):
            zones["fire_lake"].remove(card)
            artefacts.append(card)
    assert len(artefacts) == 5
    ctx.characters["p1"].cards.extend(artefacts[:4])
    ctx.characters["p2"].cards.append(artefacts[4])
    return artefacts[4]


def _p2_dies_in_the_realm(ctx: Context) -> str:
    artefact = _all_but_one_artefact_owned(ctx)
    p2 = ctx.characters["p2"]
    _stand(ctx, "p2", "middle_path", 2)
    p2.lives = 1
    ctx.lose_lives(p2, 1)
    assert artefact not in p2.cards and _marks(ctx)["left:middle_path#2"] == [artefact]
    return artefact


def test_artefacts_left_in_the_realm_block_the_final_battle_until_taken() -> None:
    ctx = _table()
    artefact = _p2_dies_in_the_realm(ctx)
    verbs.check_victory(ctx, count=6)  # more than there are: nobody wins, the question is the final battle
    assert ("table", "final_battle_blocked") in ctx.log and ("table", "final_battle") not in ctx.log
    assert not verbs.final_battle(ctx)
    ctx.actor = ctx.characters["p1"]
    _stand(ctx, "p1", "middle_path", 2)
    verbs.take_left_cards(ctx)  # the first to stop on the field takes them
    assert artefact in ctx.characters["p1"].cards
    verbs.check_victory(ctx, count=6)
    assert ("table", "final_battle") in ctx.log and verbs.final_battle(ctx)


def test_without_the_rule_the_final_battle_would_begin_at_once() -> None:
    r = stripped("realm_death", effect_index("realm_death", "always", "prophecy"), "prophecy")
    ctx = _table(r)
    _p2_dies_in_the_realm(ctx)
    verbs.check_victory(ctx, count=6)
    assert ("table", "final_battle") in ctx.log and ("table", "final_battle_blocked") not in ctx.log


# ---- win_needs_owner and win_needs_artefacts_of: read by check_victory --------------------------------------


def _all_sphere_artefacts(ctx: Context) -> None:
    """p1 takes every artefact lying in the spheres, the one under the (unrevealed) Gate too; none of them is
    marked as the realm's artefact (none came from the lake)."""
    zones = _zones(ctx)
    for place in _marks(ctx)["sphere_places"]:
        for card in list(zones[place]):
            if ctx.rules.entity(card).is_a("artefact"):
                zones[place].remove(card)
                ctx.characters["p1"].cards.append(card)


def test_the_last_artefact_rule_holds_up_the_win() -> None:
    ctx = _table()
    _all_sphere_artefacts(ctx)
    verbs.check_victory(ctx, count=4)
    assert ctx.play is not None and not ctx.play.game_over  # the realm's artefact has no owner
    bare = _table(stripped("last_artefact", effect_index("last_artefact", "win_check", "prophecy"), "prophecy"))
    _all_sphere_artefacts(bare)
    verbs.check_victory(bare, count=4)
    assert bare.play is not None and bare.play.game_over and bare.play.winners == ["p1"]


def test_a_heart_owner_holding_an_artefact_holds_up_the_win() -> None:
    def scene(r: Any) -> Context:
        ctx = _table(r)
        _all_sphere_artefacts(ctx)
        p1, p2 = ctx.characters["p1"], ctx.characters["p2"]
        realm = p1.cards.pop()  # p2 holds the realm's artefact and a heart, p1 the other four
        p2.cards.extend([realm, "dragon_heart"])
        _marks(ctx).setdefault("artefact_from", {})[realm] = "fire_lake"
        verbs.check_victory(ctx, count=4)
        return ctx

    ctx = scene(None)
    assert ctx.play is not None and not ctx.play.game_over
    bare = scene(stripped("dragon_heart_victory", effect_index("dragon_heart_victory", "win_check", "prophecy"),
                          "prophecy"))
    assert bare.play is not None and bare.play.game_over and bare.play.winners == ["p1"]
