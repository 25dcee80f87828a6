"""Verbs for cards drawn by chance and cards bought from guild spaces, and for cards that act on every
character: who they reach is decided by the standing rules as they hold at that moment (`standing`).
Game-neutral: decks, resources and stats are the content's arguments.

Each function is the runtime function of the catalogue verb of the same name (re-exported by `verbs.py`).
"""

from __future__ import annotations

from .context import Character, Context, actor_of
from .ring_verbs import shade_here
from .standing import standing
from .table_verbs import _give_card, _limits, _marks, _room_slots, _slot_of, _taking_part, _zone, _zones

__all__ = ["award_by_comparison", "can_learn", "draw_chance", "everyone_gains", "learn", "reveal_sphere",
           "stock_guilds"]


# ---- chance cards -------------------------------------------------------------------------------------


def _next_card(ctx: Context, deck: str, now: dict[str, int]) -> str | None:
    """The top card of the deck (made again from its discards when empty, unless a standing `no_reshuffle`
    names it); a card a standing `redraw_instead` names leaves the game and the next one is drawn."""
    pile = _zone(ctx, deck)
    while True:
        if not pile:
            discard = _zone(ctx, f"{deck}:discard")
            if not discard or now.get(f"no_reshuffle:{deck}"):
                return None
            pile[:] = ctx.inputs.shuffle(list(discard)) if hasattr(ctx.inputs, "shuffle") else list(discard)
            discard.clear()
            ctx.record("shuffle", deck)
        card = pile.pop()
        if not now.get(f"redraw:{card}"):
            return card
        _zone(ctx, "removed").append(card)
        ctx.record("redraw", card)


def draw_chance(ctx: Context, deck: str, count: int = 1) -> None:
    """The acting character draws `count` cards of the chance deck, unless a standing `ignore_chance_cards`
    shields it; each card's `card_drawn` effects run with it taking part, then it is discarded (unless its
    effects put it somewhere). A deck with no card left to draw fires `deck_empty(deck)` for the drawer."""
    who = actor_of(ctx)
    _marks(ctx)["chance_deck"] = deck
    now = standing(ctx, who)
    if now.get(f"ignore_chance:{who.id}"):
        ctx.record("no_chance_card", deck)
        return
    for _ in range(count):
        card = _next_card(ctx, deck, now)
        if card is None:
            ctx.record("deck_empty", deck)
            ctx.fire("deck_empty", who, deck=deck)
            return
        ctx.record("draw_chance", card)
        with _taking_part(ctx, card):
            ctx.fire("card_drawn", who)
        if not _lies_anywhere(ctx, card):
            _zone(ctx, f"{deck}:discard").append(card)


def _lies_anywhere(ctx: Context, card: str) -> bool:
    return any(card in zone for name, zone in _zones(ctx).items() if name != "face_up") or any(
        card in c.cards for c in ctx.characters.values())


def _shielded(ctx: Context, who: Character, card: str) -> bool:
    """A standing rule keeps the card from acting on the character: `unaffected_by` it, or, for a card of
    the chance deck, `ignore_chance_cards`."""
    now = standing(ctx, who)
    if now.get(f"unaffected:{who.id}:{card}"):
        return True
    entity = ctx.rules.get(card)
    chance = _marks(ctx).get("chance_deck")
    return bool(now.get(f"ignore_chance:{who.id}")) and entity is not None and entity.attr("deck") == chance


def everyone_gains(ctx: Context, resource: str, amount: int) -> None:
    """Every character the card reaches gains (or, negative, loses down to 0) the amount of the resource."""
    card = ctx.owner
    for pid in _seats(ctx):
        who = ctx.characters[pid]
        if _shielded(ctx, who, card):
            ctx.log.append((pid, "unaffected", card))
            continue
        who.stats[resource] = max(0, who.stats.get(resource, 0) + amount)
        ctx.log.append((pid, "gain", resource, amount))


def _seats(ctx: Context) -> list[str]:
    return list(ctx.play.order) if ctx.play is not None else sorted(ctx.characters)


def _value(who: Character, what: str) -> int:
    return who.stats.get(what, 0)


def award_by_comparison(ctx: Context, by: str, pick: str, resource: str, amount: int) -> None:
    """Of the characters the card counts, the one with the most (least) `by` gains the amount of `resource`;
    a tie: nobody. A character on another board is counted only where `still_counted_by` names the card."""
    card = ctx.owner
    counted = []
    for pid in _seats(ctx):
        who = ctx.characters[pid]
        now = standing(ctx, who)
        away = bool(_marks(ctx).get(f"board:{pid}"))
        if now.get(f"unaffected:{pid}:{card}") or (away and not now.get(f"counted_by:{card}:{pid}")):
            ctx.log.append((pid, "not_counted", card))
            continue
        counted.append(who)
    if not counted:
        return
    values = [_value(c, by) for c in counted]
    best = max(values) if pick == "most" else min(values)
    chosen = [c for c, v in zip(counted, values, strict=True) if v == best]
    ctx.record("compare", card, by, pick, tuple(c.id for c in counted))
    if len(chosen) != 1:
        ctx.record("no_award", card)
        return
    winner = chosen[0]
    winner.stats[resource] = max(0, winner.stats.get(resource, 0) + amount)
    ctx.log.append((winner.id, "gain", resource, amount))


def reveal_sphere(ctx: Context) -> None:
    """The acting player turns face up the top card of a place dealt to at set-up whose top card is still face
    down (its pick); the card's `card_revealed` effects run with it taking part."""
    face_up = _zone(ctx, "face_up")
    places = [p for p in _marks(ctx).get("sphere_places", []) if _zone(ctx, p) and _zone(ctx, p)[-1] not in face_up]
    if not places:
        ctx.record("nothing_to_reveal")
        return
    place = str(ctx.ask("reveal_sphere", tuple(places)))
    top = _zone(ctx, place)[-1]
    face_up.append(top)
    ctx.record("reveal", top)
    with _taking_part(ctx, top):
        ctx.fire("card_revealed", actor_of(ctx))


# ---- guild spaces -------------------------------------------------------------------------------------


def _offers(ctx: Context, who: Character, pay_with: str, here: bool = False) -> list[str]:
    """The cards lying face up on top of a guild's space that the character may own and can pay for; with
    `here`, only at the guild whose space the character stands on."""
    face_up = set(_zone(ctx, "face_up"))
    slots = _limits(ctx, who)
    out = []
    at = shade_here(ctx, who.id) if here else None
    for guild in ctx.rules.of_kind("guild"):
        if here and guild.id != at:
            continue
        space = _zones(ctx).get(guild.id)
        if not space or space[-1] not in face_up:
            continue
        card = space[-1]
        cost = ctx.rules.entity(card).attr("cost")
        if not isinstance(cost, int) or who.stats.get(pay_with, 0) < cost:
            continue
        limit = ctx.setup.get(f"max_owned:{card}")
        if limit is not None and who.cards.count(card) >= int(limit):
            continue
        slot = _slot_of(ctx, card, slots)
        if slot is not None and sum(1 for c in who.cards if _slot_of(ctx, c, slots) == slot) >= slots[slot] \
                and slot not in _room_slots(ctx, who):
            continue
        out.append(card)
    return out


def stock_guilds(ctx: Context, kind: str, refill: bool = False) -> None:
    """Every guild's pile (`<guild>:deck`) is made of the cards of the kind that name it as their `guild` and
    belong to no deck of their own, shuffled, and its top card is turned face up onto the guild's space.
    With `refill`, a space that a purchase leaves empty turns up the next card of its pile."""
    for guild in ctx.rules.of_kind("guild"):
        pile = _zone(ctx, f"{guild.id}:deck")
        for e in ctx.rules.of_kind(kind):
            if e.attr("guild") == guild.id and e.attr("deck") is None:
                note = e.provisional("guild")
                if note:
                    ctx.provisional.add(f"{e.id}.guild: {note}")
                pile.extend([e.id] * max(1, int(e.copies or 1)))
        pile[:] = ctx.inputs.shuffle(list(pile)) if hasattr(ctx.inputs, "shuffle") else sorted(pile)
        _turn_up_guild(ctx, guild.id)
    if refill:
        _marks(ctx)["refill_guilds"] = True
    ctx.record("stock_guilds", kind)


def _turn_up_guild(ctx: Context, guild: str) -> None:
    """The top card of the guild's pile goes face up onto its (empty) space."""
    pile = _zones(ctx).get(f"{guild}:deck")
    space = _zone(ctx, guild)
    if not pile or space:
        return
    card = pile.pop()
    space.append(card)
    _zone(ctx, "face_up").append(card)
    ctx.record("put_in_guild", card, guild)


def can_learn(ctx: Context, pay_with: str, here: bool = False) -> bool:
    return bool(_offers(ctx, actor_of(ctx), pay_with, here))


def learn(ctx: Context, pay_with: str, here: bool = False) -> None:
    """Buy one of the offered cards (the player picks which): pay its printed cost and own it."""
    who = actor_of(ctx)
    offers = _offers(ctx, who, pay_with, here)
    if not offers:
        ctx.prevented = True
        ctx.record("nothing_to_learn")
        return
    card = str(ctx.ask("learn", tuple(offers)))
    entity = ctx.rules.entity(card)
    cost = int(entity.attr("cost"))
    note = entity.provisional("cost")
    if note:
        ctx.provisional.add(f"{card}.cost: {note}")
    who.stats[pay_with] -= cost
    ctx.record("pay", pay_with, cost)
    face_up = _zone(ctx, "face_up")
    if card in face_up:
        face_up.remove(card)
    guild = entity.attr("guild")
    _give_card(ctx, who, card, paid=True)
    ctx.record("learn", card)
    if _marks(ctx).get("refill_guilds") and isinstance(guild, str):
        _turn_up_guild(ctx, guild)
