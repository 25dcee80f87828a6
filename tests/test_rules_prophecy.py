"""Prophecy through the generated rule modules and the generic engine (characters built from cards, the
content's procedures `fight` and `attack_roll`): stones from profession and race, limits with and without the
Dragon Realm, Dragon Hearts, dragon-slayer abilities, the Dragonslayer variant's lake and stat gains."""

from __future__ import annotations

import dataclasses

import pytest
from cardc.backends.python.runtime.cardc_runtime import Context, EffectDef, Scripted, verbs
from cardc.backends.python.runtime.cardc_runtime.characters import gain_stat
from cardc.backends.python.runtime.cardc_runtime.characters import make_character as build
from cardc.backends.python.runtime.cardc_runtime.fight import duel, fight_monster
from test_rules_support import effect_index, rules, stripped

WITHOUT_REALM = ("ancient_races", "base_additions")
STATS = ("strength", "will")  # what content/prophecy/base/odds.cardc declares
LIMITS = ("ability", "item")
FORMULA = "fight formula"  # in the note of the content's provisional fight dice (rule fight_formula)


def make_character(ctx, profession: str, race: str | None = None, cards=(), ident=None):  # type: ignore[no-untyped-def]
    return build(ctx, profession, ([race] if race else []) + list(cards), stats=STATS, limits=LIMITS, ident=ident)


def sheet(r, profession: str, race: str | None = None, variants=()):  # type: ignore[no-untyped-def]
    return make_character(Context(r, Scripted(), frozenset(variants)), profession, race)[1]


def fight(ctx, who, opponent, place=None):  # type: ignore[no-untyped-def]
    """A fight through the content's procedure: against a monster, or a duel with another character."""
    if place is not None:
        ctx.facts["place"] = place
    if isinstance(opponent, str):
        return fight_monster(ctx, who, opponent)
    return duel(ctx, who, opponent)


def test_elf_paladin_starts_4_5_and_holds_at_most_8_11() -> None:
    s = sheet(rules("prophecy"), "paladin", "elf_card")
    assert (s.start["strength"], s.start["will"]) == (4, 5)
    assert (s.maximum["strength"], s.maximum["will"]) == (8, 11)
    assert s.provisional  # the paladin's printed stones are not known: the result says so


def test_race_modifiers_come_from_the_race_card() -> None:
    s = sheet(stripped("elf_card", game="prophecy"), "paladin", "elf_card")
    assert (s.start["strength"], s.maximum["will"]) == (5, 10)  # the paladin alone
    assert sheet(rules("prophecy"), "ranger", "human_card").start["strength"] is None  # an unknown modifier: unknown
    assert sheet(rules("prophecy"), "ranger").provisional  # the ranger's stand-in stones say they are provisional


@pytest.mark.parametrize(("expansions", "variants", "limit"), [
    (WITHOUT_REALM, (), 7), (WITHOUT_REALM, ("longer_game",), 9), (None, (), 8), (None, ("longer_game",), 10)])
def test_ability_and_item_limits(expansions, variants, limit) -> None:  # type: ignore[no-untyped-def]
    s = sheet(rules("prophecy", expansions), "paladin", variants=variants)
    assert s.limits == {"ability": limit, "item": limit}


def test_dragon_realm_limit_comes_from_its_rule() -> None:
    assert sheet(stripped("dragon_realm_limits", game="prophecy"), "paladin").limits["ability"] == 7


def _duel(r, heart_a: bool, heart_b: bool = False):  # type: ignore[no-untyped-def]
    ctx = Context(r, Scripted(dice=[3, 3]))
    a, _ = make_character(ctx, "paladin", cards=("dragon_heart",) if heart_a else (), ident="a")
    b, _ = make_character(ctx, "paladin", cards=("dragon_heart",) if heart_b else (), ident="b")
    return fight(ctx, a, b)


def test_dragon_heart_gives_plus_one_against_a_character_without_one() -> None:
    r = rules("prophecy")
    won = _duel(r, heart_a=True)
    assert (won.attacker.total, won.defender.total, won.outcome) == (9, 8, "win")
    assert any(FORMULA in note for note in won.provisional)
    assert _duel(r, heart_a=True, heart_b=True).outcome == "tie"
    assert _duel(stripped("dragon_heart", game="prophecy"), heart_a=True).outcome == "tie"


def _with_slayer_card(r):  # type: ignore[no-untyped-def]
    """A dragon-slayer card with +2 in fights (the printed ones are not known) and monsters of strength 6."""
    r.effects.append(EffectDef("dragon_slayer_ability_1", 99, "fight_total", (), lambda ctx: verbs.attack(ctx, 2),
                               "test"))
    for m in ("dragon_queen", "fire_dragon"):
        r.entities[m] = dataclasses.replace(r.entities[m], attrs={**r.entities[m].attrs, "strength": 6})
    r._cache.clear()
    return r


def _slayer_fight(r, monster: str, variants=(), place=None):  # type: ignore[no-untyped-def]
    ctx = Context(r, Scripted(dice=[3, 3]), frozenset(variants))
    who, _ = make_character(ctx, "paladin", cards=("dragon_slayer_ability_1",))
    return fight(ctx, who, monster, place=place)


def test_dragon_slayer_abilities_count_only_against_realm_monsters() -> None:
    r = _with_slayer_card(rules("prophecy"))
    assert _slayer_fight(r, "dragon_queen").outcome == "win"  # 3+5+2 against 3+6
    assert _slayer_fight(r, "fire_dragon").outcome == "loss"  # not of the realm: the card does nothing
    index = effect_index("dragon_slayer_rules", "fight_total", "prophecy")
    loose = _with_slayer_card(stripped("dragon_slayer_rules", index, game="prophecy"))
    assert _slayer_fight(loose, "fire_dragon").outcome == "win"


def _lake_fight(r, variants):  # type: ignore[no-untyped-def]
    for m in ("dragon_queen",):
        r.entities[m] = dataclasses.replace(r.entities[m], attrs={**r.entities[m].attrs, "strength": 6})
    r._cache.clear()
    ctx = Context(r, Scripted(dice=[4, 3]), frozenset(variants))
    who, _ = make_character(ctx, "paladin")
    return fight(ctx, who, "dragon_queen", place="fire_lake")


def test_dragonslayer_variant_strengthens_the_lake_monster() -> None:
    assert _lake_fight(rules("prophecy"), ()).outcome == "tie"  # 4+5 against 3+6
    assert _lake_fight(rules("prophecy"), ("dragonslayer",)).outcome == "loss"  # against 3+6+1
    index = effect_index("fire_lake", "fight_total", "prophecy")
    assert _lake_fight(stripped("fire_lake", index, game="prophecy"), ("dragonslayer",)).outcome == "tie"


def _gain_at_max(r, restore: bool = True, variants=("stones_at_maximum",)):  # type: ignore[no-untyped-def]
    ctx = Context(r, Scripted(choices={"stat_increase#1": restore}), frozenset(variants))
    who, s = make_character(ctx, "paladin", "elf_card")
    who.stats["strength"] = 8
    who.spent["strength"] = 2
    gain_stat(ctx, who, "strength")
    return who


def test_stat_gain_at_maximum_heals_instead() -> None:
    who = _gain_at_max(rules("prophecy"))
    assert who.stats["strength"] == 8 and who.spent["strength"] == 1
    assert _gain_at_max(rules("prophecy"), restore=False).spent["strength"] == 2
    base = _gain_at_max(rules("prophecy", ("ancient_races",)))  # without the rule change
    assert base.stats["strength"] == 8 and base.spent["strength"] == 2
    # The seed only recommends the change: with the expansion but without its variant, nothing heals.
    off = _gain_at_max(rules("prophecy"), variants=())
    assert off.stats["strength"] == 8 and off.spent["strength"] == 2


def test_stat_gain_below_maximum_adds_a_stone() -> None:
    r = rules("prophecy")
    ctx = Context(r, Scripted())
    who, _ = make_character(ctx, "paladin", "elf_card")
    gain_stat(ctx, who, "will")
    assert who.stats["will"] == 6 and who.max_stats["will"] == 11
