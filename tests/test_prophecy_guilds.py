"""The base game's guild abilities and discarding one in Prophecy's play (issue 9.5): each guild's abilities
make its pile and the top one lies face up on its space (base-game-facts.md#2.3; which guild sells which card,
and the price, are provisional stand-ins); a card bought there is replaced from the pile (a stand-in); a
character at its ability limit discards one of its abilities, of its choice, to gain another (a stand-in for
the base game's rule), and the discarded card goes where its own rules say (a dragon-slayer ability under its
own deck, a guild ability under its guild's pile). Each rule's effect is shown against the content with that
rule's effect stripped."""

from __future__ import annotations

from collections import Counter
from typing import Any

from cardc.backends.python.runtime.cardc_runtime import Scripted, verbs
from cardc.backends.python.runtime.cardc_runtime.context import Context
from cardc.backends.python.runtime.cardc_runtime.engine import play_game
from cardc.backends.python.runtime.cardc_runtime.table_verbs import _limits, _zone
from test_rules_support import effect_index, prophecy_table, rules, stripped
from test_rules_support import table_marks as _marks
from test_rules_support import table_zones as _zones

GUILDS = ("gilda", "guild_2", "guild_3", "guild_4", "guild_5")
BASE_ABILITIES = ("disguises", "flaming_weapon", "sneaking", "time_loop", "training")


def _without(entity: str, trigger: str) -> Any:
    return stripped(entity, effect_index(entity, trigger, "prophecy"), "prophecy")


def _offer_only(ctx: Context, card: str, guild: str) -> None:
    """Every guild's space and pile emptied, then the card laid face up on the guild's space."""
    for g in (*GUILDS, "guild_6"):
        _zones(ctx)[g] = []
        _zones(ctx)[f"{g}:deck"] = []
    for name, zone in _zones(ctx).items():
        if name != "face_up" and card in zone:
            zone.remove(card)
    _zones(ctx)[guild] = [card]
    _zone(ctx, "face_up").append(card)


def _fill_abilities(ctx: Context, who: str, first: str) -> list[str]:
    """The character holds as many abilities as its limit allows, `first` among them (taken from the pool)."""
    p = ctx.characters[who]
    limit = _limits(ctx, p)["ability"]
    pool = [e.id for e in ctx.rules.of_kind("ability") if e.id not in (first, "disguises")]
    held = [first, *pool[:limit - 1]]
    assert len(held) == limit
    p.cards.extend(held)
    return held


def test_each_guild_turns_up_the_first_of_its_abilities_at_setup() -> None:
    ctx = prophecy_table()
    spaces = {g: _zones(ctx).get(g, []) for g in GUILDS}
    assert sorted(c for s in spaces.values() for c in s) == sorted(BASE_ABILITIES)
    for guild, space in spaces.items():
        assert len(space) == 1 and space[0] in _zones(ctx)["face_up"]
        assert ctx.rules.entity(space[0]).attr("guild") == guild
    assert any("time_loop.guild" in n for n in ctx.provisional)
    bare = prophecy_table(_without("guild_spaces", "setup"))
    assert all(not _zones(bare).get(g) for g in GUILDS)  # without the rule no base ability is on offer


def test_a_base_ability_is_bought_and_its_space_turns_up_the_next_card() -> None:
    for refill in (True, False):
        ctx = prophecy_table()
        p1 = ctx.characters["p1"]
        _offer_only(ctx, "training", "guild_3")
        _zones(ctx)["guild_3:deck"] = ["sneaking"]  # the next card of that guild's pile
        if not refill:
            _marks(ctx).pop("refill_guilds")
        p1.stats["experience"] = 3
        verbs.learn(ctx, pay_with="experience")
        assert "training" in p1.cards and p1.stats["experience"] == 0
        assert _zones(ctx)["guild_3"] == (["sneaking"] if refill else [])


def test_at_the_ability_limit_one_is_discarded_to_make_room() -> None:
    for r, discards in ((None, True), (_without("discarding_to_make_room", "slot_full"), False)):
        ctx = prophecy_table(r)
        p1 = ctx.characters["p1"]
        _offer_only(ctx, "disguises", "gilda")
        held = _fill_abilities(ctx, "p1", "training")
        p1.stats["experience"] = 5
        assert verbs.can_learn(ctx, pay_with="experience") is discards
        ctx.inputs = Scripted(choices={"discard": "training"})
        verbs.learn(ctx, pay_with="experience")
        if discards:
            assert "disguises" in p1.cards and "training" not in p1.cards
            assert len([c for c in p1.cards if ctx.rules.entity(c).is_a("ability")]) == len(held)
            assert _zones(ctx)["guild_3:deck"][0] == "training"  # under its guild's pile
            assert p1.stats["experience"] == 2
            assert any("card may be discarded" in n for n in ctx.provisional)
        else:  # nothing on offer: the limit holds
            assert p1.cards[-len(held):] == held and p1.stats["experience"] == 5
            assert ("p1", "nothing_to_learn") in ctx.log


def test_a_discarded_slayer_ability_goes_under_its_own_deck() -> None:
    for r, pile in ((None, "dragon_slayer_abilities"),
                    (_without("dragon_slayer_rules", "card_discarded"), "gilda:deck")):
        ctx = prophecy_table(r)
        p1 = ctx.characters["p1"]
        slayer = next(c for c in _zone(ctx, "dragon_slayer_abilities") if ctx.rules.entity(c).attr("guild") == "gilda")
        _zones(ctx)["dragon_slayer_abilities"].remove(slayer)
        _offer_only(ctx, "disguises", "gilda")
        _fill_abilities(ctx, "p1", slayer)
        _marks(ctx).pop("refill_guilds")  # (the emptied space would turn the discarded card up again)
        p1.stats["experience"] = 3
        ctx.inputs = Scripted(choices={"discard": slayer})
        verbs.learn(ctx, pay_with="experience")
        assert slayer not in p1.cards and "disguises" in p1.cards
        assert _zone(ctx, pile)[0] == slayer


def test_a_card_gained_for_free_at_the_limit_may_be_left_instead() -> None:
    for keep_old in (True, False):
        ctx = prophecy_table()
        p1 = ctx.characters["p1"]
        _offer_only(ctx, "disguises", "gilda")
        _fill_abilities(ctx, "p1", "training")
        ctx.inputs = Scripted(choices={"discard": "disguises" if keep_old else "training"})
        ctx.owner = "disguises"  # the card taken for free (as a realm item is)
        verbs.take_free(ctx)
        assert ("training" in p1.cards) is keep_old and ("disguises" in p1.cards) is not keep_old


def test_games_buy_base_abilities_from_the_guilds() -> None:
    bought: Counter[str] = Counter()
    for seed in range(4):
        result = play_game(rules("prophecy", ("dragon_realm",)), ["p1", "p2", "p3"], seed=seed, keep_log=True)
        bought.update(e[2] for e in result.log if e[1] == "learn")
        assert result.winners or result.capped
    assert any(bought[c] for c in BASE_ABILITIES), bought


INSTEAD_OF_MOVING = ("armoury", "hospitality", "meditation", "miracle_of_healing")


def test_a_sixth_guild_space_sells_the_abilities_used_instead_of_moving() -> None:
    """No guild of the seeds sells Armoury, Meditation, Miracle of Healing or Human Hospitality; in play a sixth
    guild space (base-game-facts.md#2.3: six guild spaces, five guild decks, uncertain) does, a stand-in that
    leaves the five guilds' piles as they were."""
    ctx = prophecy_table()
    assert sorted(_zones(ctx)["guild_6"] + _zones(ctx)["guild_6:deck"]) == sorted(INSTEAD_OF_MOVING)
    assert len(_zones(ctx)["guild_6"]) == 1 and _zones(ctx)["guild_6"][0] in _zones(ctx)["face_up"]
    assert all(not set(INSTEAD_OF_MOVING) & set(_zones(ctx)[g] + _zones(ctx)[f"{g}:deck"]) for g in GUILDS)
    assert any(n.startswith("meditation.guild") for n in ctx.provisional)
    space = list(ctx.rules.entity("main_ring").attr("shades")).index("guild_6") + 1
    p1 = ctx.characters["p1"]
    p1.stats["experience"] = 3
    for n, here in ((space + 1, False), (space, True)):  # the next space is a mountain
        _marks(ctx)["space:p1"] = f"main_ring#{n}"
        assert verbs.can_learn(ctx, pay_with="experience", here=True) is here
    offered = _zones(ctx)["guild_6"][-1]
    ctx.inputs = Scripted()
    verbs.learn(ctx, pay_with="experience", here=True)
    assert offered in p1.cards and p1.stats["experience"] == 0
    assert len(_zones(ctx)["guild_6"]) == 1 and _zones(ctx)["guild_6"][0] != offered  # the next one turned up


def test_seeded_real_games_buy_the_abilities_and_use_them() -> None:
    bought: Counter[str] = Counter()
    used: Counter[str] = Counter()
    r = rules("prophecy", ("dragon_realm",))
    for seed in range(8):  # (in seed 6 one is used instead of moving in the Dragon Realm)
        result = play_game(r, ["p1", "p2", "p3", "p4"], seed=seed, keep_log=True)
        assert not result.capped, seed
        for e in result.log:
            if len(e) > 2 and e[2] in INSTEAD_OF_MOVING:
                if e[1] == "learn":
                    bought[e[2]] += 1
                elif e[1] in ("use_card", "use_instead"):
                    assert bought[e[2]], e  # used only once someone bought it
                    used[e[1]] += 1
    assert sum(bought.values()) >= 2 and used["use_card"] and used["use_instead"], (bought, used)
