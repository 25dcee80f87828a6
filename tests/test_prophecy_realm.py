"""The seed's Dragon Realm examples run whole through the generic engine: characters built from cards enter
the realm board, meet on a field, fight by the content's procedure `fight`, and the realm's rules decide what
follows (issue 9.6: a loser who gives a life leaves as if beaten by a monster, and its turn ends)."""

from __future__ import annotations

import dataclasses
from typing import Any

from cardc.backends.python.runtime.cardc_runtime import Context, Scripted, verbs
from cardc.backends.python.runtime.cardc_runtime.characters import make_character
from cardc.backends.python.runtime.cardc_runtime.fight import fight_monster
from cardc.backends.python.runtime.cardc_runtime.state import Play
from test_rules_support import rules

REALM = "dragon_realm_board"
STATS = ("strength", "will")


def _table(dice: list[int], choices: dict[str, Any], r: Any = None) -> tuple[Context, Any, Any]:
    """Two paladins, `a` on turn; both walk into the realm by the middle path and stand on its first field."""
    ctx = Context(r or rules("prophecy"), Scripted(dice=dice, choices={"path": "middle_path", **choices}))
    a, _ = make_character(ctx, "paladin", stats=STATS, ident="a")
    b, _ = make_character(ctx, "paladin", stats=STATS, ident="b")
    ctx.characters = {"a": a, "b": b}
    ctx.play = Play(order=["a", "b"], current="a")
    for who in (b, a):
        ctx.actor = who
        verbs.enter_board(ctx, board=REALM)
    ctx.actor = None
    return ctx, a, b


def _after(ctx: Context, who: str, mark: int) -> list[str]:
    return [e[1] for e in ctx.log[mark:] if e[0] == who]


def test_a_character_beaten_in_the_realm_who_gives_a_life_leaves_and_its_turn_ends() -> None:
    # a ends its move on b's field and attacks: a rolls 2, b rolls 5 (5+2 against 5+5): a loses
    ctx, a, b = _table([2, 5], {"realm_character_fights#1": True, "realm_character_fights#2": "lose_a_life"})
    assert verbs.on_board(_acting(ctx, a), board=REALM) and verbs.on_board(_acting(ctx, b), board=REALM)
    mark = len(ctx.log)
    ctx.fire("end_move", a)
    fights = [e for e in ctx.log[mark:] if e[1] == "fight"]
    assert fights[0][0] == "a" and fights[0][5:] == (7, 10, "loss")
    assert a.lives == 4 and b.lives == 5
    assert _after(ctx, "a", mark)[-4:] == ["lose_life", "leave_board", "space_cards_inactive", "end_turn"]
    assert ctx.play is not None and ctx.play.turn_over  # the turn of the loser, who is on turn, ends
    assert not verbs.on_board(_acting(ctx, a), board=REALM)  # a is out of the realm ...
    assert verbs.on_board(_acting(ctx, b), board=REALM)  # ... and b, the winner, stays on its field
    assert ctx.facts["marks"]["at:b"] == "middle_path#1" and "at:a" not in ctx.facts["marks"]


def test_a_loser_who_gives_an_item_stays_and_plays_on() -> None:
    ctx, a, b = _table([2, 5], {"realm_character_fights#1": True, "realm_character_fights#2": "give_an_item"})
    a.cards.append("dragon_heart")  # not an item: nothing to pick, nothing changes hands
    mark = len(ctx.log)
    ctx.fire("end_move", a)
    assert a.lives == 5 and "leave_board" not in _after(ctx, "a", mark)
    assert ctx.play is not None and not ctx.play.turn_over and verbs.on_board(_acting(ctx, a), board=REALM)


def test_a_defender_who_loses_leaves_but_the_attackers_turn_goes_on() -> None:
    # a rolls 6, b rolls 1: b loses and gives a life; b is not on turn, so no turn ends (the rule's inference)
    ctx, a, b = _table([6, 1], {"realm_character_fights#1": True, "realm_character_fights#2": "lose_a_life"})
    ctx.fire("end_move", a)
    assert b.lives == 4 and not verbs.on_board(_acting(ctx, b), board=REALM)
    assert ctx.play is not None and not ctx.play.turn_over and verbs.on_board(_acting(ctx, a), board=REALM)


def test_leaving_after_giving_a_life_is_what_a_realm_monster_does_to_a_loser() -> None:
    """The seed's "as if beaten by a monster": the same steps as the rule for the realm's monsters."""
    r = rules("prophecy")
    queen = r.entities["dragon_queen"]
    r.entities["dragon_queen"] = dataclasses.replace(queen, attrs={**queen.attrs, "strength": 6})
    r._cache.clear()  # noqa: SLF001
    ctx, a, _ = _table([1, 6], {}, r)
    mark = len(ctx.log)
    ctx.actor = a
    report = fight_monster(ctx, a, "dragon_queen")
    assert report.outcome == "loss" and (report.total, report.against) == (6, 12)  # 1+5 against 6+6
    by_monster = [x for x in _after(ctx, "a", mark) if x in ("leave_board", "space_cards_inactive", "end_turn")]
    assert by_monster == ["leave_board", "space_cards_inactive", "end_turn"]
    duel, a2, _ = _table([2, 5], {"realm_character_fights#1": True, "realm_character_fights#2": "lose_a_life"})
    mark = len(duel.log)
    duel.fire("end_move", a2)
    by_character = [x for x in _after(duel, "a", mark) if x in ("leave_board", "space_cards_inactive", "end_turn")]
    assert by_character == by_monster


def _acting(ctx: Context, who: Any) -> Context:
    ctx.actor = who
    return ctx
