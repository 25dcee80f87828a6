"""Chance cards and guild spaces in Prophecy's play (issue 9.3/9.5): a character draws a chance card at the start
of its turn (a provisional stand-in for the base game's rule), none inside the Dragon Realm; the seed's chance
cards do what the seed says (the Legends of Dragons turn up a dragon-slayer ability into its guild and reveal
two realm cards; the Clairvoyant Dream finds the Gate), the cards it only names have provisional effects, and
the realm's standing rules decide whom they reach. Dragon-slayer abilities are bought from their guild's space
and pushed-out ones go under their own deck. Each rule's effect is shown against the content with that rule's
effect stripped."""

from __future__ import annotations

from collections import Counter
from typing import Any

from cardc.backends.python.runtime.cardc_runtime import Scripted, verbs
from cardc.backends.python.runtime.cardc_runtime.context import Context
from cardc.backends.python.runtime.cardc_runtime.engine import play_game
from cardc.backends.python.runtime.cardc_runtime.table_verbs import _zone
from test_rules_support import effect_index, prophecy_table, rules, stripped
from test_rules_support import table_marks as _marks
from test_rules_support import table_zones as _zones

REALM = ("dragon_realm",)
BOARD = "dragon_realm_board"
SLAYERS = "dragon_slayer_abilities"


def _table(r: Any = None, seed: int = 0) -> Context:
    return prophecy_table(r, seed=seed)


def _without(entity: str, trigger: str) -> Any:
    return stripped(entity, effect_index(entity, trigger, "prophecy"), "prophecy")


def _in_realm(ctx: Context, who: str) -> None:
    _marks(ctx)[f"board:{who}"] = BOARD
    _marks(ctx)[f"path:{who}"] = ("middle_path", 1)
    _marks(ctx)[f"at:{who}"] = "middle_path#1"


def _on_top(ctx: Context, deck: str, *cards: str) -> None:
    """Put the cards on top of the deck, the last one topmost (taken from wherever they lie)."""
    pile = _zone(ctx, deck)
    for card in cards:
        for name, zone in _zones(ctx).items():
            if name != "face_up" and card in zone:
                zone.remove(card)
                break
        pile.append(card)


def _draw(ctx: Context) -> list[tuple[Any, ...]]:
    mark = len(ctx.log)
    verbs.draw_chance(ctx, deck="chance_cards")
    return ctx.log[mark:]


# ---- who draws, whom a card reaches ---------------------------------------------------------------------


def test_a_character_in_the_realm_draws_no_chance_card() -> None:
    for r, draws in ((None, False), (_without("realm_chance_cards", "always"), True)):
        ctx = _table(r)
        _on_top(ctx, "chance_cards", "good_times")
        _in_realm(ctx, "p1")
        events = _draw(ctx)
        assert any(e[1] == "draw_chance" for e in events) is draws
        assert (("p1", "no_chance_card", "chance_cards") in events) is not draws
        assert (_zones(ctx)["chance_cards"][-1] == "good_times") is not draws  # not drawn: still on top


def test_crisis_reaches_only_the_characters_outside_the_realm() -> None:
    for r, p2_hit in ((None, False), (_without("realm_chance_cards", "always"), True)):
        ctx = _table(r)
        _on_top(ctx, "chance_cards", "crisis")
        _in_realm(ctx, "p2")
        gold = {p: c.stats["gold"] for p, c in ctx.characters.items()}
        _draw(ctx)
        assert ctx.characters["p1"].stats["gold"] == gold["p1"] - 1  # provisional: 1 gold
        assert ctx.characters["p2"].stats["gold"] == gold["p2"] - (1 if p2_hit else 0)


def test_charity_leaves_a_character_in_the_realm_out() -> None:
    # (a character on another board is not counted by a comparing card anyway, unless `still_counted_by` names
    # it: stripping the rule does not change this one)
    ctx = _table()
    _on_top(ctx, "chance_cards", "charity")
    _in_realm(ctx, "p2")
    ctx.characters["p2"].stats["gold"] = 0  # the poorest, but away in the realm
    before = {p: c.stats["gold"] for p, c in ctx.characters.items()}
    events = _draw(ctx)
    after = {p: c.stats["gold"] for p, c in ctx.characters.items()}
    assert {p for p in after if after[p] != before[p]} == {"p1"} and ("p2", "not_counted", "charity") in events


def test_comparing_adventures_still_count_a_character_in_the_realm() -> None:
    # the Golden Fish (a provisional effect: the richest character gains 1 experience) is met on the main board
    for r, gets in ((None, "p2"), (_without("realm_chance_cards", "always"), "p1")):
        ctx = _table(r)
        _on_top(ctx, "adventure_cards", "golden_fish")
        _in_realm(ctx, "p2")  # still counted by the Golden Fish (without the rule: away, not counted)
        ctx.characters["p2"].stats["gold"] = 10
        before = {p: c.stats["experience"] for p, c in ctx.characters.items()}
        verbs.draw_adventure(ctx, deck="adventure_cards")
        after = {p: c.stats["experience"] for p, c in ctx.characters.items()}
        assert {p for p in after if after[p] != before[p]} == {gets}


# ---- the seed's chance cards ---------------------------------------------------------------------------


def test_the_legends_of_dragons_lay_a_slayer_ability_in_its_guild_and_reveal_two_realm_cards() -> None:
    ctx = _table()
    top = _zones(ctx)[SLAYERS][-1]
    guild = str(ctx.rules.entity(top).attr("guild"))
    face_up = set(_zones(ctx)["face_up"])
    _on_top(ctx, "chance_cards", "legends_of_dragons")
    _draw(ctx)
    assert _zones(ctx)[guild] == [top] and top in _zones(ctx)["face_up"]  # on its guild's space, face up
    revealed = [c for c in _zones(ctx)["face_up"] if c not in face_up and c != top]
    assert len(revealed) == 2
    assert all(ctx.rules.entity(c).attr("deck") in ("positive_dragon_cards", "negative_dragon_cards")
               for c in revealed)
    assert "legends_of_dragons" in _zones(ctx)["chance_cards:discard"]


def test_the_clairvoyant_dream_finds_the_gate() -> None:
    ctx = _table()
    gate = next(p for p in _marks(ctx)["sphere_places"] if _zones(ctx)[p][-1] == "dragon_realm_gate")
    beneath = _zones(ctx)[gate][:-1]
    _on_top(ctx, "chance_cards", "clairvoyant_dream")
    ctx.inputs = Scripted(choices={"reveal_sphere": gate})
    _draw(ctx)
    assert "dragon_realm_gate" in _zones(ctx)["face_up"] and _zones(ctx)[gate] == ["dragon_realm_gate"]
    assert all(c in _zones(ctx)["fire_lake"] for c in beneath)  # the guardian and artefact moved to the lake


def test_in_the_final_battle_the_legends_and_the_dream_are_drawn_again() -> None:
    for r, redrawn in ((None, True), (_without("realm_final_battle", "always"), False)):
        ctx = _table(r)
        ctx.fired.add("final_battle_start")  # the final battle is under way
        _on_top(ctx, "chance_cards", "good_times", "clairvoyant_dream", "legends_of_dragons")
        drawn = [e[2] for e in _draw(ctx) if e[1] == "draw_chance"]
        assert drawn == (["good_times"] if redrawn else ["legends_of_dragons"])


# ---- dragon-slayer abilities at the guilds --------------------------------------------------------------


def test_a_slayer_ability_is_bought_from_its_guild_with_experience() -> None:
    ctx = _table()
    top = _zones(ctx)[SLAYERS][-1]
    guild = str(ctx.rules.entity(top).attr("guild"))
    p1 = ctx.characters["p1"]
    for space in ctx.rules.of_kind("guild"):  # the base abilities turned up at set-up leave the spaces
        _zones(ctx)[space.id] = []
    assert not verbs.can_learn(ctx, pay_with="experience")  # nothing lies on a guild's space now
    _on_top(ctx, "chance_cards", "legends_of_dragons")
    _draw(ctx)
    p1.stats["experience"] = 2
    assert not verbs.can_learn(ctx, pay_with="experience")  # too little (a provisional price of 3)
    p1.stats["experience"] = 3
    assert verbs.can_learn(ctx, pay_with="experience")
    verbs.learn(ctx, pay_with="experience")
    assert top in p1.cards and p1.stats["experience"] == 0 and _zones(ctx)[guild] == []
    assert any(f"{top}.cost" in n for n in ctx.provisional)


def test_a_pushed_out_slayer_ability_goes_under_the_slayer_deck() -> None:
    for r, pile in ((None, SLAYERS), (_without("dragon_slayer_rules", "pushed_out"), "gilda:deck")):
        ctx = _table(r)
        slayer = next(c for c in _zones(ctx)[SLAYERS] if ctx.rules.entity(c).attr("guild") == "gilda")
        _zones(ctx)[SLAYERS].remove(slayer)
        _zones(ctx)["gilda"] = [slayer]  # (Disguises, turned up there at set-up, is laid there again below)
        _marks(ctx)["revealed"] = "disguises"  # a newer card of the same guild is laid there
        verbs.put_in_guild(ctx)
        assert _zones(ctx)["gilda"] == ["disguises"]
        assert _zone(ctx, pile)[0] == slayer  # under the pile


# ---- whole games ----------------------------------------------------------------------------------------


def test_games_draw_chance_cards_and_buy_slayer_abilities() -> None:
    seen: Counter[str] = Counter()
    for seed in range(6):
        result = play_game(rules("prophecy", REALM), ["p1", "p2"], seed=seed, keep_log=True)
        seen.update(e[1] for e in result.log if e[1] in ("draw_chance", "no_chance_card", "learn", "put_in_guild"))
        assert any("chance cards are drawn" in n for n in result.provisional)
    assert seen["draw_chance"] > 0 and seen["no_chance_card"] > 0 and seen["put_in_guild"] > 0
    assert seen["learn"] > 0, seen
