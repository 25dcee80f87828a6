"""The table verbs change the table: decks and places are zones, gold and experience are counters, and a
standing rule set by a modifier is read by the verbs it restricts."""

from __future__ import annotations

import inspect
import keyword

import pytest
from cardc.backends.python.generate import py_name
from cardc.backends.python.runtime.cardc_runtime import Context, Scripted, table_verbs, verbs
from cardc.backends.python.runtime.cardc_runtime.context import Character
from cardc.catalogue import default_catalogue
from test_rules_support import rules

DEFINED = [v for v in default_catalogue().verbs.values()
           if v.role != "trigger" and "python" not in v.extra and callable(getattr(verbs, v.name, None))]


@pytest.mark.parametrize("verb", DEFINED, ids=lambda v: v.name)
def test_runtime_function_matches_the_catalogue_by_name(verb) -> None:  # type: ignore[no-untyped-def]
    params = list(inspect.signature(getattr(verbs, verb.name)).parameters.values())
    assert params and params[0].name == "ctx", verb.name
    assert [p.name for p in params[1:]] == [py_name(p.name) for p in verb.params], verb.name


def test_keyword_parameters_get_an_underscore() -> None:
    assert py_name("from") == "from_" and keyword.iskeyword("from") and py_name("deck") == "deck"


def _ctx(owner: str = "") -> tuple[Context, Character]:
    ctx = Context(rules("prophecy"), Scripted(), frozenset())
    who = Character("a", cards=["paladin"])
    ctx.characters = {"a": who}
    ctx.actor, ctx.owner = who, owner
    return ctx, who


def test_gold_is_gained_paid_and_refused_when_short() -> None:
    ctx, who = _ctx()
    verbs.gain(ctx, resource="gold", amount=3)
    verbs.pay(ctx, resource="gold", amount=2)
    assert who.stats["gold"] == 1 and not ctx.prevented
    verbs.pay(ctx, resource="gold", amount=5)
    assert who.stats["gold"] == 1 and ctx.prevented


def test_a_deck_is_a_zone_that_can_be_cut_and_removed() -> None:
    r = rules("prophecy")
    deck = next(e.id for e in r.of_kind("deck") if any(x.attr("deck") == e.id for x in r.entities.values()))
    ctx, _ = _ctx()
    full = len(table_verbs._zone(ctx, deck))  # noqa: SLF001 - the zone a deck starts as
    assert full > 1
    verbs.keep_top(ctx, deck=deck, count=1)
    assert len(table_verbs._zone(ctx, deck)) == 1 and len(table_verbs._zone(ctx, "removed")) == full - 1  # noqa: SLF001
    verbs.remove_rest(ctx, deck=deck)
    assert table_verbs._zone(ctx, deck) == [] and len(table_verbs._zone(ctx, "removed")) == full  # noqa: SLF001


def test_max_owned_is_read_by_take_card() -> None:
    ctx, who = _ctx(owner="paladin")
    verbs.max_owned(ctx, amount=1)
    verbs.take_card(ctx, card="paladin")
    assert who.cards.count("paladin") == 1 and ("a", "refused", "paladin", "max_owned") in ctx.log


def test_race_without_a_race_card_is_the_one_that_is_not_ancient() -> None:
    r = rules("prophecy")
    ancient = [e.id for e in r.of_kind("race") if e.attr("ancient", True)]
    others = [e.id for e in r.of_kind("race") if not e.attr("ancient", True)]
    ctx, _ = _ctx()
    assert all(not verbs.race_is(ctx, race=x) for x in ancient)
    assert all(verbs.race_is(ctx, race=x) for x in others)


def test_start_resource_changes_the_counter_now() -> None:
    ctx, who = _ctx()
    verbs.start_resource(ctx, resource="experience", amount=2)
    assert who.stats["experience"] == 2 and ctx.setup["start:experience"] == 2


def test_board_conditions_are_read_from_the_table_for_each_character() -> None:
    """`on_board` and `left_cards_on` are what the table shows: who stands on the realm's paths, which
    cards lie on its fields; `final_battle` is whether its start was fired. Nothing is assumed."""
    ctx, who = _ctx()
    other = Character("b", cards=["paladin"])
    ctx.characters["b"] = other
    board = "dragon_realm_board"
    assert any(e.attr("board") == board for e in ctx.rules.of_kind("path"))
    assert not verbs.on_board(ctx, board=board) and not verbs.left_cards_on(ctx, board=board)
    verbs.enter_board(ctx, board=board)
    assert verbs.on_board(ctx, board=board)
    ctx.actor = other
    assert not verbs.on_board(ctx, board=board)  # only the character who entered stands there
    ctx.actor = who
    artefact = next(e.id for e in ctx.rules.entities.values() if e.is_a("artefact"))
    who.cards.append(artefact)
    verbs.leave_artefacts(ctx)
    assert verbs.left_cards_on(ctx, board=board) and artefact not in who.cards
    ctx.actor = other
    verbs.enter_board(ctx, board=board)
    verbs.take_left_cards(ctx)  # the other one stands on the same first field and takes them
    assert artefact in other.cards and not verbs.left_cards_on(ctx, board=board)
    verbs.leave_board(ctx, board=board)
    assert not verbs.on_board(ctx, board=board)
    assert not verbs.final_battle(ctx)
    ctx.fire("final_battle_start")
    assert verbs.final_battle(ctx)


def test_move_takes_up_to_its_steps_over_the_board_and_may_stop() -> None:
    """`move(steps)`: extra steps besides the turn's own, each to a joined revealed tile; the hero may stop."""
    from test_play_karak import _table

    r = rules("karak")
    tiles = {(1, 0): "room_crossing", (2, 0): "room_crossing", (3, 0): "room_crossing"}
    script = Scripted(choices={"taia:move_to": ["room_crossing@1,0", "room_crossing@2,0", "stop",
                                                "room_crossing@3,0"]})
    ctx = _table(r, ["taia"], script, tiles=tiles)
    ctx.actor = ctx.characters["taia"]
    steps = ctx.play.steps_left
    verbs.move(ctx, steps=5)
    assert ctx.play.position["taia"] == (2, 0) and ctx.play.steps_left == steps  # stopped after two
    verbs.move(ctx, steps=1)
    assert ctx.play.position["taia"] == (3, 0)  # one step, and no question after it
