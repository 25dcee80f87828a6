"""Verbs over a table of cards: decks and places as zones, characters' resources, standing rules.

Game-neutral. A zone is a list of card ids, bottom first, named by the entity that holds it: a deck, a
place (a sphere, a board, a field of a path as `path#n`), or `aside`, `removed`, `face_up`. Zones live
in the game in play (`Play.zones`), or, for a lone fight or probe, in the context's facts. A character's
gold and experience are counters in its `stats`; the cards it owns are its `cards`. A modifier that sets
a standing rule (`cannot_use`, `max_owned`, `tradeable`, ...) records it in `ctx.setup`, where the verbs
that the rule restricts read it (`take_card`, `buy`, `use_printed`, `damage_owner`, `take_reward`, ...).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from .context import Character, Context
from .standing import standing as _standing
from .standing import usable_here as _usable_here

Range = tuple[int, int]


def _in(value: int, r: Range | int) -> bool:
    lo, hi = (r, r) if isinstance(r, int) else r
    return lo <= value <= hi


def _actor(ctx: Context) -> Character:
    if ctx.actor is None:
        raise RuntimeError(f"{ctx.owner}: this effect needs a character")
    return ctx.actor


def _zones(ctx: Context) -> dict[str, list[str]]:
    play = getattr(ctx, "play", None)
    if play is not None:
        return play.zones  # type: ignore[no-any-return]
    return ctx.facts.setdefault("zones", {})  # type: ignore[no-any-return]


def _zone(ctx: Context, name: str) -> list[str]:
    """The zone's cards (a deck not dealt yet holds every card of that deck, times its copies)."""
    zones = _zones(ctx)
    if name not in zones:
        entity = ctx.rules.get(name)
        cards: list[str] = []
        if entity is not None and entity.is_a("deck"):
            for e in ctx.rules.entities.values():
                if e.attr("deck") == name:
                    cards.extend([e.id] * max(1, int(getattr(e, "copies", None) or 1)))
        zones[name] = cards
    return zones[name]


MARKERS = ("face_up",)  # zones that mark cards lying elsewhere (turned face up), not places of their own


def _lift(ctx: Context, card: str) -> None:
    """Take one copy of the card from where it lies (its deck is dealt first if it was never touched), so that
    it can go somewhere else; a marker zone (face up) is not where a card lies."""
    entity = ctx.rules.get(card)
    deck = entity.attr("deck") if entity is not None else None
    if isinstance(deck, str):
        _zone(ctx, deck)
    place = ctx.facts.get("place")
    zones = _zones(ctx)
    if isinstance(place, str) and card in zones.get(place, ()):  # from the place taking part, if it lies there
        zones[place].remove(card)
        return
    for name, zone in zones.items():
        if name not in MARKERS and card in zone:
            zone.remove(card)
            return


def _marks(ctx: Context) -> dict[str, Any]:
    """Facts of the table that effects set and conditions read (who got past what, what was used when)."""
    return ctx.facts.setdefault("marks", {})  # type: ignore[no-any-return]


@contextmanager
def _taking_part(ctx: Context, card: str | None) -> Iterator[None]:
    """While the body runs, the card takes part for whoever acts (its own effects and the rules that apply to
    its kind fire): the situation's fact `place`, restored afterwards."""
    saved = ctx.facts.get("place")
    if card is not None:
        ctx.facts["place"] = card
    try:
        yield
    finally:
        if saved is None:
            ctx.facts.pop("place", None)
        else:
            ctx.facts["place"] = saved


def _rule(ctx: Context, key: str, default: int = 0) -> int:
    return int(ctx.setup.get(key, default))


def _who_key(ctx: Context) -> str:
    return ctx.actor.id if ctx.actor is not None else "table"


def _resource(who: Character, name: str) -> int:
    return who.stats.get(name, 0)


def _owned(ctx: Context, who: Character, kind: str) -> int:
    return sum(1 for c in (*who.cards, *who.held()) if ctx.rules.get(c) is not None and ctx.rules.entity(c).is_a(kind))


def _target(ctx: Context) -> Character | None:
    target = ctx.facts.get("target")
    if target in ctx.characters:
        return ctx.characters[str(target)]
    if ctx.fight is not None and ctx.side is not None:
        other = ctx.fight.other(ctx.side)
        return other.who if other is not None else None
    return None


def _card(ctx: Context) -> str:
    """The card whose effect runs: the owner of the effect, or, for a rule printed on every card of some kinds
    (`applies_to`), the card of those kinds taking part (the monster fought, else the place)."""
    owner = ctx.owner
    entity = ctx.rules.get(owner)
    kinds = entity.attr("applies_to") if entity is not None else None
    if not kinds:
        return owner
    fight = ctx.fight
    candidates = [fight.monster.id] if fight is not None and fight.monster is not None else []
    if "place" in ctx.facts:
        candidates.append(str(ctx.facts["place"]))
    for card in candidates:
        e = ctx.rules.get(card)
        if e is not None and any(e.is_a(str(k)) for k in kinds):
            return card
    return owner


def _no_card(ctx: Context, card: str) -> bool:
    """A rule printed on cards of some kinds acts, but no such card takes part here: there is nothing to act on
    (the character owns one such card elsewhere, which brings the rule into play)."""
    entity = ctx.rules.get(card)
    if entity is not None and entity.attr("applies_to"):
        ctx.record("no_card", card)
        return True
    return False


def _limits(ctx: Context, who: Character) -> dict[str, int]:
    """How many cards of each limited slot the character may own now: the `set_limit` sizes changed by its
    own and the rules' `slot_limit` modifiers (collected afresh: `always` may fire many times)."""
    got = _standing(ctx, who)
    return {k.split(":", 1)[1]: int(v) + int(got.get(f"limit:{k.split(':', 1)[1]}", 0))
            for k, v in got.items() if k.startswith("base_limit:")}


def _slot_of(ctx: Context, card: str, slots: dict[str, int]) -> str | None:
    """The limited slot a card counts towards: a slot its kind extends, or the `counts_as` its kind names."""
    entity = ctx.rules.get(card)
    if entity is None:
        return None
    return next((s for s in slots if entity.is_a(s) or entity.attr("counts_as") == s), None)


def _room_slots(ctx: Context, who: Character) -> set[str]:
    """The limited slots in which a `make_room` lets the character discard a card for a new one: read from the
    effects of `slot_full`, fired only when a slot is full (so a game that never fills one does not rest on
    them)."""
    got = _standing(ctx, who, "slot_full")
    return {k.split(":", 1)[1] for k, v in got.items() if k.startswith("make_room:") and v}


def _give_card(ctx: Context, who: Character, card: str, *, paid: bool = False) -> bool:
    """The card joins the character's cards, unless a standing rule forbids owning another copy or the
    character already owns as many cards of the card's limited slot as its limit allows; with a full slot
    that a standing `make_room` opens, the character first discards a card of that slot of its choice (or,
    unless it `paid` for the new card already, gives up the new one instead)."""
    refused = _refusal(ctx, who, card)
    if refused.startswith("limit:") and _make_room(ctx, who, card, refused.split(":", 1)[1], paid=paid):
        refused = _refusal(ctx, who, card)
    if refused:
        ctx.record("refused", card, refused)
        return False
    _lift(ctx, card)
    _own(ctx, who, card)
    return True


def _refusal(ctx: Context, who: Character, card: str) -> str:
    """Why the character may not own the card now ("" when it may): a standing `max_owned`, or its limit."""
    limit = ctx.setup.get(f"max_owned:{card}")
    if limit is not None and who.cards.count(card) >= int(limit):
        return "max_owned"
    slots = _limits(ctx, who) if ctx.play is not None else {}
    slot = _slot_of(ctx, card, slots)
    if slot is not None and sum(1 for c in who.cards if _slot_of(ctx, c, slots) == slot) >= slots[slot]:
        return f"limit:{slot}"
    return ""


def _make_room(ctx: Context, who: Character, card: str, slot: str, *, paid: bool) -> bool:
    """The character discards one of its cards of the full slot to take the new card (its choice, the new
    card among the options when it has not paid for it yet); False when the slot stays closed or the
    character keeps what it has."""
    if slot not in _room_slots(ctx, who):
        return False
    slots = _limits(ctx, who)
    owned = tuple(dict.fromkeys(c for c in who.cards if _slot_of(ctx, c, slots) == slot))
    options = owned if paid else (*owned, card)
    if not owned:
        return False
    old = str(ctx.ask("discard", options))
    if old == card and not paid:
        return False
    _discard(ctx, who, old)
    return True


def _placed_copies(ctx: Context, card: str) -> int:
    return sum(z.count(card) for n, z in _zones(ctx).items() if n not in MARKERS)


def _discard(ctx: Context, who: Character, card: str) -> None:
    """The character discards one of its cards: the card's `card_discarded` effects (and the rules that apply
    to its kind) say where it goes; if none moved it, it goes face down under its guild's pile
    (`<guild>:deck`) when it has a guild, else onto the `discarded` pile."""
    before = _placed_copies(ctx, card)
    held = who.cards.count(card)
    saved = ctx.actor
    ctx.actor = who
    try:
        with _taking_part(ctx, card):
            ctx.fire("card_discarded", who)
    finally:
        ctx.actor = saved
    if who.cards.count(card) == held and card in who.cards:  # (an effect that took the copy took this one:
        who.cards.remove(card)  # a second copy the character holds stays)
    if _placed_copies(ctx, card) == before:
        entity = ctx.rules.get(card)
        guild = entity.attr("guild") if entity is not None else None
        pile = f"{guild}:deck" if isinstance(guild, str) else "discarded"
        _zone(ctx, pile).insert(0, card)
    face_up = _zones(ctx).get("face_up", [])
    if card in face_up and not any(card in z for n, z in _zones(ctx).items() if n not in MARKERS and n != "removed"):
        face_up.remove(card)
    ctx.record("discard", card)


def _own(ctx: Context, who: Character, card: str) -> None:
    """The card joins the character's cards and its own `acquire` effects run."""
    who.cards.append(card)
    ctx.record("take_card", card)
    saved = ctx.actor, ctx.owner, ctx.effect
    ctx.actor = who
    try:
        for fx in ctx.rules.effects_of([card], "acquire", ctx.variants):  # that card's own `acquire` only
            ctx.run(fx)
    finally:
        ctx.actor, ctx.owner, ctx.effect = saved


# ---- conditions --------------------------------------------------------------------------------


def artefact_count(ctx: Context, range: Range) -> bool:  # noqa: A002 - the catalogue's parameter name
    return _in(_owned(ctx, _actor(ctx), "artefact"), range)


def target_artefact_count(ctx: Context, range: Range) -> bool:  # noqa: A002
    target = _target(ctx)
    return target is not None and _in(_owned(ctx, target, "artefact"), range)


def _fightable(ctx: Context, card: str) -> bool:
    """A card one fights: a guardian, a monster, or any card that prints the stat fights are fought with."""
    entity = ctx.rules.get(card)
    return entity is not None and (entity.is_a("guardian") or entity.is_a("monster")
                                   or str(ctx.facts.get("fight_stat", "strength")) in entity.attrs)


def guarded(ctx: Context, place: str) -> bool:
    return any(_fightable(ctx, c) for c in _zone(ctx, place))


def field_clear(ctx: Context) -> bool:
    """No card on the field entered, or only face-up cards that are not negative."""
    where = _marks(ctx).get(f"at:{_who_key(ctx)}")
    cards = _zone(ctx, str(where)) if where else []
    face_up = set(_zone(ctx, "face_up"))
    return all(c in face_up and ctx.rules.entity(c).attr("side") != "negative" for c in cards)


def passed(ctx: Context) -> bool:
    return bool(_marks(ctx).get(f"passed:{_who_key(ctx)}:{_card(ctx)}"))


def race_is(ctx: Context, race: str) -> bool:
    """The race of the character's race cards; without one, the race that is not an ancient one (human)."""
    who = _actor(ctx)
    races = {ctx.rules.entity(c).attr("race") for c in who.cards
             if ctx.rules.get(c) is not None and ctx.rules.entity(c).attr("race") is not None}
    if races:
        return race in races
    entity = ctx.rules.get(race)
    return entity is not None and not entity.attr("ancient", True)


def revealed_by_attack(ctx: Context) -> bool:
    return bool(_marks(ctx).get(f"revealed_by_attack:{_card(ctx)}"))


def used_last_round(ctx: Context) -> bool:
    used = _marks(ctx).get(f"used:{_card(ctx)}")
    return used is not None and int(used) == ctx.turn - 1


# ---- modifiers: standing rules -----------------------------------------------------------------


def _set(ctx: Context, key: str, amount: int = 1) -> None:
    ctx.setup[key] = ctx.setup.get(key, 0) + amount


def blocks_final_battle(ctx: Context) -> None:
    _set(ctx, "blocks_final_battle")


def cannot_lose_card(ctx: Context) -> None:
    _set(ctx, f"keep:{_card(ctx)}")


def cannot_pass_character(ctx: Context) -> None:
    _set(ctx, f"cannot_pass:{_who_key(ctx)}")


def cannot_use(ctx: Context, card: str) -> None:
    _set(ctx, f"cannot_use:{_who_key(ctx)}:{card}")


def cannot_use_marked(ctx: Context, icon: str, except_: tuple[str, ...] = ()) -> None:
    for e in ctx.rules.entities.values():
        if e.attr("icon") == icon and e.id not in except_:
            _set(ctx, f"cannot_use:{_who_key(ctx)}:{e.id}")


def damage_mod(ctx: Context, amount: int) -> None:
    _set(ctx, f"damage_mod:{_who_key(ctx)}", amount)


def ignore_chance_cards(ctx: Context) -> None:
    _set(ctx, f"ignore_chance:{_who_key(ctx)}")


def make_room(ctx: Context, slot: str) -> None:
    ctx.setup[f"make_room:{slot}"] = 1


def max_owned(ctx: Context, amount: int) -> None:
    ctx.setup[f"max_owned:{_card(ctx)}"] = amount


def redraw_instead(ctx: Context, cards: tuple[str, ...]) -> None:
    for card in cards:
        ctx.setup[f"redraw:{card}"] = 1


def reward_cap(ctx: Context, resource: str, amount: int) -> None:
    ctx.setup[f"reward_cap:{resource}"] = amount


def start_resource(ctx: Context, resource: str, amount: int | None) -> None:
    """The character starts with more (or less) of the resource: its counter changes now (at set-up)."""
    if amount is None:
        ctx.setup[f"unknown:start:{resource}"] = 1
        return
    _set(ctx, f"start:{resource}", amount)
    if ctx.actor is not None:
        ctx.actor.stats[resource] = max(0, ctx.actor.stats.get(resource, 0) + amount)


def still_counted_by(ctx: Context, cards: tuple[str, ...]) -> None:
    for card in cards:
        _set(ctx, f"counted_by:{card}:{_who_key(ctx)}")


def team_victory(ctx: Context) -> None:
    _set(ctx, "team_victory")


def terrain_cards_unusable(ctx: Context) -> None:
    _set(ctx, f"no_terrain:{_who_key(ctx)}")


def tradeable(ctx: Context, goods: tuple[str, ...]) -> None:
    for g in goods:
        _set(ctx, f"tradeable:{g}")


def unaffected_by(ctx: Context, card: str) -> None:
    _set(ctx, f"unaffected:{_who_key(ctx)}:{card}")


def usable_only_on(ctx: Context, board: str) -> None:
    """The card (for a rule printed on cards of some kinds: every card of those kinds) works only on the board:
    recorded for the verbs that use cards (`use_printed`, `standing.usable_here`), and in a fight of a game in
    play off that board the character's cards it names do nothing (their deck is inactive for this side). A
    lone fight (`cardc odds`) has no board: it is taken to be fought where its opponent is."""
    entity = ctx.rules.get(ctx.owner)
    kinds = entity.attr("applies_to") if entity is not None else None
    names = [str(k) for k in kinds] if kinds else [_card(ctx)]
    for name in names:
        ctx.setup[f"only_on:{name}:{board}"] = 1
    who = ctx.actor
    if ctx.play is None or ctx.side is None or who is None or _marks(ctx).get(f"board:{who.id}") == board:
        return
    for card in who.cards:
        e = ctx.rules.get(card)
        if e is not None and e.attr("deck") and (card in names or any(e.is_a(n) for n in names)):
            ctx.side.inactive.add(str(e.attr("deck")))


def win_by_defeat(ctx: Context, place: str) -> None:
    ctx.setup[f"win_by_defeat:{place}"] = 1


def win_needs_artefacts_of(ctx: Context, card: str) -> None:
    ctx.setup[f"win_needs_artefacts_of:{card}"] = 1


def win_needs_owner(ctx: Context, place: str) -> None:
    ctx.setup[f"win_needs_owner:{place}"] = 1


# ---- actions: resources ------------------------------------------------------------------------


def gain(ctx: Context, resource: str, amount: int) -> None:
    who = _actor(ctx)
    who.stats[resource] = _resource(who, resource) + amount
    ctx.record("gain", resource, amount)


def pay(ctx: Context, resource: str, amount: int) -> None:
    """Pay the amount; a character who has less cannot pay, and the event is prevented."""
    who = _actor(ctx)
    if _resource(who, resource) < amount:
        ctx.prevented = True
        ctx.record("cannot_pay", resource, amount)
        return
    who.stats[resource] = _resource(who, resource) - amount
    ctx.record("pay", resource, amount)


def take_reward(ctx: Context) -> None:
    """The card's printed reward and experience, each capped by a standing `reward_cap`."""
    who = _actor(ctx)
    if _no_card(ctx, _card(ctx)):
        return
    card = ctx.rules.entity(_card(ctx))
    for resource, attr in (("gold", "reward"), ("gold", "gold"), ("experience", "experience")):
        amount = card.attr(attr)
        if isinstance(amount, int) and not isinstance(amount, bool):
            cap = ctx.setup.get(f"reward_cap:{resource}")
            gain(ctx, resource, amount if cap is None else min(amount, int(cap)))
    ctx.record("take_reward", card.id, who.id)


def buy(ctx: Context, pay_with: tuple[str, ...]) -> None:
    """Pay the card's printed price (`cost`) with the listed resources, in order, then own the card."""
    who = _actor(ctx)
    card = _card(ctx)
    if _no_card(ctx, card):
        return
    price = ctx.rules.entity(card).attr("cost")
    left = int(price) if isinstance(price, int) else 0
    if sum(_resource(who, r) for r in pay_with) < left:
        ctx.prevented = True
        ctx.record("cannot_buy", card)
        return
    for r in pay_with:
        part = min(left, _resource(who, r))
        who.stats[r] = _resource(who, r) - part
        left -= part
    _give_card(ctx, who, card)


def take_free(ctx: Context) -> None:
    card = _card(ctx)
    if not _no_card(ctx, card):
        _give_card(ctx, _actor(ctx), card)


def take_card(ctx: Context, card: str) -> None:
    _give_card(ctx, _actor(ctx), card)


def damage_owner(ctx: Context, card: str, amount: int) -> None:
    """The owner of the card loses lives (changed by its `damage_mod`); nobody owns it: nothing happens."""
    for who in ctx.characters.values():
        if card in who.cards or card in who.held():
            if ctx.setup.get(f"unaffected:{who.id}:{_card(ctx)}"):
                continue
            ctx.lose_lives(who, max(0, amount + _rule(ctx, f"damage_mod:{who.id}")))
            ctx.record("damage_owner", who.id, amount)


# ---- actions: decks and places -----------------------------------------------------------------


def shuffle(ctx: Context, deck: str) -> None:
    cards = _zone(ctx, deck)
    cards[:] = ctx.inputs.shuffle(list(cards)) if hasattr(ctx.inputs, "shuffle") else sorted(cards)
    ctx.record("shuffle", deck)


def shuffle_into(ctx: Context, card: str, deck: str) -> None:
    _lift(ctx, card)
    _zone(ctx, deck).append(card)
    shuffle(ctx, deck)


def shuffle_in(ctx: Context, cards: str, into: tuple[str, ...]) -> None:
    """Every card of the first deck goes into whichever listed deck it belongs to (its `deck`, else the
    deck whose name matches its rarity), then those decks are shuffled."""
    moved = list(_zone(ctx, cards))
    _zone(ctx, cards).clear()
    for card in moved:
        entity = ctx.rules.entity(card)
        target = next((d for d in into if entity.attr("deck") == d or str(entity.attr("rarity", "")) in d), into[0])
        _zone(ctx, target).append(card)
    for d in into:
        shuffle(ctx, d)


def to_bottom(ctx: Context, deck: str) -> None:
    card = _card(ctx)
    if _no_card(ctx, card):
        return
    _lift(ctx, card)
    _zone(ctx, deck).insert(0, card)
    ctx.record("to_bottom", card, deck)


def add_copies(ctx: Context, deck: str, count: int = 1) -> None:
    """Every card of the deck goes into it `count` more times (the cards of another copy of the game)."""
    pile = _zone(ctx, deck)
    pile.extend(list(pile) * count)
    ctx.record("add_copies", deck, count)


def remove_rest(ctx: Context, deck: str) -> None:
    _zone(ctx, "removed").extend(_zone(ctx, deck))
    _zone(ctx, deck).clear()
    ctx.record("remove_rest", deck)


def keep_top(ctx: Context, deck: str, count: int) -> None:
    cards = _zone(ctx, deck)
    kept, rest = cards[len(cards) - count:] if count else [], cards[:max(0, len(cards) - count)]
    _zone(ctx, "removed").extend(rest)
    cards[:] = kept
    ctx.record("keep_top", deck, count)


def _draw(ctx: Context, deck: str) -> str | None:
    """The top card of the deck; a card a standing `redraw_instead` names is set aside and another drawn."""
    cards = _zone(ctx, deck)
    while cards:
        card = cards.pop()
        if not ctx.setup.get(f"redraw:{card}"):
            return card
        _zone(ctx, "removed").append(card)
        ctx.record("redraw", card)
    return None


def reveal_top(ctx: Context, deck: str) -> None:
    card = _draw(ctx, deck)
    if card is not None:
        _zone(ctx, "face_up").append(card)
        _zone(ctx, deck).append(card)
        _marks(ctx)["revealed"] = card
    else:  # nothing turned up: a later `put_in_guild` must not move a card revealed before
        _marks(ctx).pop("revealed", None)
    ctx.record("reveal_top", deck, card)


def set_aside(ctx: Context, card: str) -> None:
    _lift(ctx, card)
    _zone(ctx, "aside").append(card)
    ctx.record("set_aside", card)


def place(ctx: Context, cards: str, to: str, face: str, per_player: bool = False) -> None:
    """Put the cards (a deck: all of it, or one per player; a card: that card) on the place."""
    source = ctx.rules.get(cards)
    if source is not None and source.is_a("deck"):
        pile = _zone(ctx, cards)
        n = max(1, len(ctx.characters)) if per_player else len(pile)
        moved = [pile.pop() for _ in range(min(n, len(pile)))]
    else:
        moved = [cards]
        _lift(ctx, cards)
    _zone(ctx, to).extend(moved)
    if face == "up":
        _zone(ctx, "face_up").extend(moved)
    ctx.record("place", cards, to, len(moved))


def lay_out(ctx: Context, cards: str, fields: tuple[str, ...], face: str = "down") -> None:
    """One card of the deck on every field of the listed shades (fields as places `path#n`)."""
    shades = set(fields)
    targets = [z for z in sorted(_zones(ctx)) if "#" in z and _marks(ctx).get(f"shade:{z}") in shades]
    pile = _zone(ctx, cards)
    for field in targets:
        if not pile:
            break
        card = pile.pop()
        _zone(ctx, field).append(card)
        if face == "up":
            _zone(ctx, "face_up").append(card)
    ctx.record("lay_out", cards, len(targets))


def _sphere_places(ctx: Context) -> list[str]:
    """The places cards are dealt to: every sphere, or, for one whose `places` attribute says how many such
    places the board has, that many (`sphere#1`, ...; 0: none, it only receives cards later)."""
    out = []
    for e in ctx.rules.of_kind("sphere"):
        n = e.attr("places")
        if n is None:
            out.append(e.id)
        else:
            if e.provisional("places"):
                ctx.provisional.add(f"{e.id}.places: {e.provisional('places')}")
            out.extend(f"{e.id}#{i}" for i in range(1, int(n) + 1))
    return out


def deal_to_spheres(ctx: Context, deck: str) -> None:
    """Deal the deck into the spheres, one card each; a sphere place holds the cards dealt to it bottom first.
    Without a `places` count on any sphere the deck is dealt round the spheres until it is empty."""
    counted = any(e.attr("places") is not None for e in ctx.rules.of_kind("sphere"))
    spheres = _sphere_places(ctx)
    _marks(ctx)["sphere_places"] = spheres
    pile = _zone(ctx, deck)
    i = 0
    while pile and spheres and (not counted or i < len(spheres)):
        _zone(ctx, spheres[i % len(spheres)]).append(pile.pop())
        i += 1
    ctx.record("deal_to_spheres", deck, i)


def move_cards_beneath(ctx: Context, to: str) -> None:
    card = _card(ctx)
    for name, zone in _zones(ctx).items():
        if card in zone and name != to and name not in MARKERS and name not in ("aside", "removed"):
            below = zone[:zone.index(card)]
            del zone[:zone.index(card)]
            _zone(ctx, to).extend(below)
            ctx.record("move_cards_beneath", name, to, len(below))
            return


def remove_from_game(ctx: Context) -> None:
    card = _card(ctx)
    if _no_card(ctx, card):
        return
    if ctx.setup.get(f"keep:{card}"):
        ctx.record("kept", card)
        return
    # one copy leaves: the acting character's own, else the one on its field, else wherever one lies
    zones = _zones(ctx)
    here = _marks(ctx).get(f"at:{_who_key(ctx)}")
    if ctx.actor is not None and card in ctx.actor.cards:
        ctx.actor.cards.remove(card)
    elif isinstance(here, str) and card in zones.get(here, ()):
        zones[here].remove(card)
    elif any(card in z for n, z in zones.items() if n not in MARKERS):
        _lift(ctx, card)
    else:
        for who in ctx.characters.values():
            if card in who.cards:
                who.cards.remove(card)
                break
    if card in zones.get("face_up", ()):
        zones["face_up"].remove(card)
    _zone(ctx, "removed").append(card)
    ctx.record("remove_from_game", card)


def reveal_field(ctx: Context) -> None:
    where = _marks(ctx).get(f"at:{_who_key(ctx)}")
    cards = _zone(ctx, str(where)) if where else []
    if cards and cards[-1] not in _zone(ctx, "face_up"):
        _zone(ctx, "face_up").append(cards[-1])
        _marks(ctx)["revealed"] = cards[-1]
    ctx.record("reveal_field", where)


def reveal_lower(ctx: Context) -> None:
    card = _card(ctx)
    if _no_card(ctx, card):
        return
    for zone in _zones(ctx).values():
        if card in zone and zone.index(card) > 0:
            lower = zone[zone.index(card) - 1]
            _zone(ctx, "face_up").append(lower)
            ctx.record("reveal_lower", lower)
            return


def reveal_any(ctx: Context, count: int, from_: tuple[str, ...]) -> None:
    """The acting player turns face up up to `count` face-down cards of these decks lying on places (a card
    covered by a face-down card stays hidden): it picks them one by one."""
    face_up = _zone(ctx, "face_up")
    for _ in range(count):
        options = tuple(sorted({zone[i] for name, zone in _zones(ctx).items() if name not in from_
                                and name not in ("face_up", "removed", "aside") for i in range(len(zone))
                                if zone[i] not in face_up and ctx.rules.get(zone[i]) is not None
                                and ctx.rules.entity(zone[i]).attr("deck") in from_
                                and all(c in face_up for c in zone[i + 1:])}))
        if not options:
            break
        card = str(ctx.ask("reveal_any", options))
        face_up.append(card)
        ctx.record("reveal", card)


def put_in_guild(ctx: Context) -> None:
    """The card just turned face up goes face up on its guild's space, pushing out the older card there."""
    card = _marks(ctx).get("revealed")
    if card is None:
        return
    guild = ctx.rules.entity(str(card)).attr("guild")
    if guild is None:
        return
    space = _zone(ctx, str(guild))
    for name, zone in _zones(ctx).items():
        if card in zone and zone is not space and name not in MARKERS:  # (it stays face up)
            zone.remove(card)
            break
    if space:
        _push_out(ctx, space, str(guild))
    space.append(str(card))
    ctx.record("put_in_guild", card, guild)


def _push_out(ctx: Context, space: list[str], guild: str) -> None:
    """The older card on a guild's space is pushed out: its `pushed_out` effects say where it goes; if none
    moved it, it goes face down under its guild's pile (`<guild>:deck`)."""
    old = space[-1]
    with _taking_part(ctx, old):
        ctx.fire("pushed_out", ctx.actor)
    if space and space[-1] == old:
        space.pop()
        _zone(ctx, f"{guild}:deck").insert(0, old)
        ctx.record("to_bottom", old, f"{guild}:deck")
    face_up = _zone(ctx, "face_up")
    if old in face_up:
        face_up.remove(old)
    ctx.record("pushed_out", old, guild)


def use_printed(ctx: Context) -> None:
    """The card is used as printed: its `use` effects run, unless a standing rule forbids it."""
    card = _card(ctx)
    if _no_card(ctx, card):
        return
    # the standing rules as they hold now (`ctx.setup` keeps a `cannot_use` recorded while, e.g., the character
    # stood on another board)
    if (not _usable_here(ctx, ctx.actor, card)) if ctx.actor is not None else ctx.setup.get(f"cannot_use:table:{card}"):
        ctx.record("cannot_use", card)
        return
    _marks(ctx)[f"used:{card}"] = ctx.turn
    for fx in ctx.rules.effects_of([card], "use", ctx.variants):
        if fx.key != ctx.effect:
            ctx.run(fx)
    ctx.record("use_printed", card)


def switch_on(ctx: Context, variant: str) -> None:
    ctx.variants = ctx.variants | {variant}
    ctx.record("switch_on", variant)


# ---- actions: boards, paths and fields ---------------------------------------------------------


def _position(ctx: Context, who: str) -> tuple[str, int] | None:
    pos = _marks(ctx).get(f"path:{who}")
    return None if pos is None else (str(pos[0]), int(pos[1]))


def _enter_field(ctx: Context, who: str, path: str, index: int) -> None:
    _marks(ctx)[f"path:{who}"] = (path, index)
    _marks(ctx)[f"at:{who}"] = f"{path}#{index}"
    ctx.record("enter_field", f"{path}#{index}")
    if ctx.actor is not None:
        ctx.fire("enter_field", ctx.actor)


def enter_board(ctx: Context, board: str) -> None:
    paths = tuple(e.id for e in ctx.rules.of_kind("path") if e.attr("board") == board)
    if not paths:
        return
    path = str(ctx.ask("path", paths))
    _marks(ctx)["boards_tracked"] = True  # from now on `on_board` asks where each character is
    _marks(ctx)[f"board:{_who_key(ctx)}"] = board
    _marks(ctx).pop(f"beside:{_who_key(ctx)}", None)
    for place in _marks(ctx).get("sphere_places", ()):  # the place of the card that opens the board (its gate)
        if ctx.owner in _zones(ctx).get(place, ()):
            _marks(ctx)[f"gate:{board}"] = place
    _enter_field(ctx, _who_key(ctx), path, 1)
    _meet_field(ctx, f"{path}#1")


def advance(ctx: Context) -> None:
    """Try to enter the next field; past the path's last field (its `fields`) the end is reached. Another
    character on the way stops the mover where a standing `cannot_pass_character` says so."""
    who = _who_key(ctx)
    pos = _position(ctx, who)
    if pos is None:
        return
    path, index = pos
    length = ctx.rules.entity(path).attr("fields")
    if not isinstance(length, int):
        ctx.provisional.add(f"{path}: the number of its fields is not known; the path is taken as endless")
    if isinstance(length, int) and index >= length:
        if ctx.actor is not None:  # the place the board's paths lead to takes part (its `end`)
            end = ctx.rules.entity(str(ctx.rules.entity(path).attr("board"))).attr("end")
            with _taking_part(ctx, None if end is None else str(end)):
                ctx.fire("path_end_reached", ctx.actor)
        return
    if ctx.setup.get(f"cannot_pass:{who}") and any(
            _position(ctx, c) == (path, index + 1) for c in ctx.characters if c != who):
        ctx.record("stopped_by_character", f"{path}#{index + 1}")
    _enter_field(ctx, who, path, index + 1)
    _meet_field(ctx, f"{path}#{index + 1}")


def _meet_field(ctx: Context, where: str) -> None:
    """Entering a field whose top card is a negative one the character has not got past: a monster is fought
    at once (the fight's `fight_result` effects say what follows); an obstacle's `obstacle_attempt` effects
    run with the card taking part."""
    cards = _zone(ctx, where)
    if not cards or ctx.actor is None:
        return
    card = cards[-1]
    entity = ctx.rules.get(card)
    if entity is None or entity.attr("side") != "negative" or _marks(ctx).get(f"passed:{ctx.actor.id}:{card}"):
        return
    if card not in _zone(ctx, "face_up"):
        _zone(ctx, "face_up").append(card)
    from .card_play_verbs import unplayable

    if unplayable(ctx, card):
        cards.remove(card)
        return
    if isinstance(entity.attr(str(ctx.facts.get("fight_stat", "strength"))), int):
        _engine().fight_monster(ctx, ctx.actor, card)
        return
    with _taking_part(ctx, card):
        ctx.fire("obstacle_attempt", ctx.actor)


def stay(ctx: Context) -> None:
    _marks(ctx)[f"stayed:{_who_key(ctx)}"] = ctx.turn
    ctx.record("stay")


def stay_back(ctx: Context) -> None:
    """Back to the previous field; from the first one, back onto the card that opens the board (field 0),
    which counts as being on the board."""
    who = _who_key(ctx)
    pos = _position(ctx, who)
    if pos is not None and pos[1] > 0:
        _marks(ctx)[f"path:{who}"] = (pos[0], pos[1] - 1)
        _marks(ctx)[f"at:{who}"] = f"{pos[0]}#{pos[1] - 1}"
    ctx.record("stay_back")


def on_board(ctx: Context, board: str) -> bool:
    """The character stands on a path of that board: entered, not yet left, the board not removed."""
    return _marks(ctx).get(f"board:{_who_key(ctx)}") == board


def left_cards_on(ctx: Context, board: str) -> bool:
    """Cards a character left where it died lie on a field of that board, not yet taken by anyone."""
    paths = {e.id for e in ctx.rules.of_kind("path") if e.attr("board") == board}
    return any(cards and key[len("left:"):].split("#")[0] in paths
               for key, cards in _marks(ctx).items() if key.startswith("left:"))


def stand_on_obstacle(ctx: Context) -> None:
    _marks(ctx)[f"passed:{_who_key(ctx)}:{_card(ctx)}"] = True
    ctx.record("stand_on_obstacle", _card(ctx))


def leave_board(ctx: Context, board: str) -> None:
    who = _who_key(ctx)
    for key in (f"path:{who}", f"at:{who}", f"board:{who}"):
        _marks(ctx).pop(key, None)
    ctx.record("leave_board", board)
    _land_beside_gate(ctx, who, board)


def _land_beside_gate(ctx: Context, who: str, board: str) -> None:
    """Back on the main board beside the place of the board's gate (one of the two spaces it is entered from:
    on a main board without spaces both are the same, so no choice is asked)."""
    gate = _marks(ctx).get(f"gate:{board}")
    if gate is not None:
        _marks(ctx)[f"beside:{who}"] = gate
        ctx.log.append((who, "lands_beside", gate))
        from .ring_verbs import entrance_spaces  # (ring_verbs imports this module)

        spaces = entrance_spaces(ctx, str(gate))
        if spaces:  # a main board of spaces: the character picks which of them
            space = str(ctx.ask("land_on", tuple(spaces), chooser=who))
            _marks(ctx)[f"space:{who}"] = space
            ctx.log.append((who, "land_on", space))


def remove_board(ctx: Context, board: str) -> None:
    paths = {e.id for e in ctx.rules.of_kind("path") if e.attr("board") == board}
    for name in list(_zones(ctx)):
        if name.split("#")[0] in paths or name == board:
            _zone(ctx, "removed").extend(_zones(ctx).pop(name))
    for who in ctx.characters:
        pos = _position(ctx, who)
        if pos is not None and pos[0] in paths:
            for key in (f"path:{who}", f"at:{who}", f"board:{who}"):
                _marks(ctx).pop(key, None)
            _land_beside_gate(ctx, who, board)
    ctx.record("remove_board", board)


def take_left_cards(ctx: Context) -> None:
    where = _marks(ctx).get(f"at:{_who_key(ctx)}")
    left = _marks(ctx).pop(f"left:{where}", [])
    for card in left:
        _give_card(ctx, _actor(ctx), card)


def leave_artefacts(ctx: Context) -> None:
    who = _actor(ctx)
    where = _marks(ctx).get(f"at:{who.id}")
    artefacts = [c for c in who.cards if ctx.rules.get(c) is not None and ctx.rules.entity(c).is_a("artefact")]
    for c in artefacts:
        who.cards.remove(c)
    _marks(ctx).setdefault(f"left:{where}", []).extend(artefacts)
    ctx.record("leave_artefacts", where, tuple(artefacts))


# ---- actions: fights and players ---------------------------------------------------------------


def winner_picks_item(ctx: Context) -> None:
    """The winner takes one of the loser's items, of its choice."""
    if ctx.fight is None or ctx.side is None:
        return
    other = ctx.fight.other(ctx.side)
    if other is None:
        return
    winner, loser = (ctx.side, other) if ctx.side.outcome == "win" else (other, ctx.side)
    items = tuple(sorted(set(c for c in (*loser.who.held(), *loser.who.cards)
                             if ctx.rules.get(c) is not None and ctx.rules.entity(c).is_a("item"))))
    if not items:
        return
    item = str(ctx.ask("winner_picks_item", items, winner.who.id))
    for pile in (loser.who.cards, loser.who.items, loser.who.weapons, loser.who.spells):
        if item in pile:
            pile.remove(item)
            break
    winner.who.cards.append(item)
    ctx.record("winner_picks_item", winner.who.id, item)


def form_teams(ctx: Context, size: int) -> None:
    """Teams of `size` in seat order; seats alternate between teams (1st of team A, 1st of team B, ...)."""
    play = getattr(ctx, "play", None)
    players = sorted(ctx.characters) if play is None else list(play.order)
    teams = max(1, len(players) // max(1, size))
    _marks(ctx)["teams"] = {p: i % teams for i, p in enumerate(players)}
    ctx.record("form_teams", size, teams)


def player_count(ctx: Context, range: Range) -> None:  # noqa: A002 - the catalogue's parameter name
    """The set-up stops with a clear message when the number of players is outside the range."""
    n = int(ctx.facts.get("players", len(ctx.characters)))
    if not _in(n, range):
        lo, hi = (range, range) if isinstance(range, int) else range
        raise RuntimeError(f"{ctx.rules.game} is played by {lo} to {hi} players (its set-up's player_count), "
                           f"not {n}")
    ctx.record("player_count", n)


def draft(ctx: Context, cards: str, deal: int, passes: int) -> None:
    """Each player is dealt `deal` cards; `passes` times everyone keeps one and passes the rest on; then
    each chooses one card kept and the others leave the game."""
    play = getattr(ctx, "play", None)
    players = sorted(ctx.characters) if play is None else list(play.order)
    pile = _zone(ctx, cards)
    held, need = len(pile), deal * len(players)
    if held < need:
        ctx.provisional.add(f"{cards}: the draft deals {deal} to each of {len(players)} players ({need} cards) but "
                            f"the content's deck holds {held}; it was dealt as far as it went")
    hands = {p: [pile.pop() for _ in range(min(deal, len(pile)))] for p in players}
    kept: dict[str, list[str]] = {p: [] for p in players}
    for _ in range(passes):
        for p in players:
            if hands[p]:
                pick = str(ctx.ask("draft_keep", tuple(sorted(hands[p])), p))
                hands[p].remove(pick)
                kept[p].append(pick)
        hands = {players[(i + 1) % len(players)]: hands[p] for i, p in enumerate(players)}
    for p in players:
        pool = kept[p] + hands[p]
        if pool:
            choice = str(ctx.ask("draft_final", tuple(sorted(pool)), p))
            ctx.characters[p].cards.append(choice)
            _zone(ctx, "removed").extend(c for c in pool if c != choice)
        else:
            raise RuntimeError(f"the draft of {cards} leaves {p} without a card: it deals {deal} to each of "
                               f"{len(players)} players ({need} cards) and the content's deck holds {held}")
    ctx.record("draft", cards, deal, passes)


def combine_races(ctx: Context, count: int) -> None:
    """Each character gets `count` race cards (cards that name a `race`, chosen from those still free) and
    adds up all of them."""
    free = sorted(e.id for e in ctx.rules.entities.values() if e.attr("race") is not None and e.attr("deck"))
    for p in sorted(ctx.characters):
        for _ in range(count):
            options = tuple(c for c in free if c not in ctx.characters[p].cards)
            if not options:
                return
            card = str(ctx.ask("race_card", options, p))
            free.remove(card)
            ctx.characters[p].cards.append(card)
    ctx.record("combine_races", count)


def _engine() -> Any:
    """The module that resolves fights (the game-neutral engine, as `fights` names it)."""
    from .fights import engine

    return engine


def attack_character(ctx: Context) -> None:
    """Fight another character on the same field (the acting player picks which)."""
    duel = _engine().duel

    me = _actor(ctx)
    here = _marks(ctx).get(f"at:{me.id}")
    others = tuple(sorted(c for c in ctx.characters if c != me.id and _marks(ctx).get(f"at:{c}") == here))
    if not others:
        return
    target = str(ctx.ask("attack_character", others))
    duel(ctx, me, ctx.characters[target])


def fight_one_by_one(ctx: Context) -> None:
    """Fight every guardian or monster lying on this place, the top one first, until one is not beaten."""
    _fight_place(ctx, _card(ctx))


def besiege(ctx: Context, place: str) -> None:
    """Attack the guardians (or monsters) at the place one after another, the lesser ones first."""
    for card in _zone(ctx, place)[::-1]:
        _marks(ctx)[f"revealed_by_attack:{card}"] = True
    _fight_place(ctx, place)


def _fight_place(ctx: Context, place: str) -> None:
    """Fight the guardians and monsters on top of the place, the top one first, until one is not beaten; a
    beaten guardian fires `guardian_defeated` (the place taking part) once the cards beneath it (an artefact)
    are the winner's."""
    fight_monster = _engine().fight_monster
    who = _actor(ctx)
    pile = _zone(ctx, place)
    beaten = False
    while pile:
        card = pile[-1]
        entity = ctx.rules.get(card)
        if entity is None or not _fightable(ctx, card):
            break
        from .card_play_verbs import unplayable

        if unplayable(ctx, card):  # its value is not known: it leaves the place (and the game says so)
            pile.pop()
            continue
        report = fight_monster(ctx, who, card)
        if report.outcome != "win":
            break
        beaten = True
        if pile and pile[-1] == card:  # (the fight's own effects may have removed it already)
            pile.pop()
            _zone(ctx, "removed").append(card)
        ctx.record("defeated", card, place)
        if entity.is_a("guardian"):
            if not any(ctx.rules.get(c) is not None and ctx.rules.entity(c).is_a("guardian") for c in pile):
                _take_beneath(ctx, who, place)
            with _taking_part(ctx, place.split("#")[0]):
                ctx.fire("guardian_defeated", who)
            if ctx.play is not None and ctx.play.turn_over:
                break
    if beaten and not guarded(ctx, place):
        _won_by_defeat(ctx, who, place.split("#")[0])


def _won_by_defeat(ctx: Context, who: Character, place: str) -> None:
    """The place's last monster is beaten: where a standing `win_by_defeat` names it, its victor wins and the
    game ends at once."""
    play = ctx.play
    if play is None or play.game_over or not _standing(ctx, None, "win_check").get(f"win_by_defeat:{place}"):
        return
    play.winners = [who.id]
    play.game_over = play.turn_over = True
    play.end_reason = f"{who.id}:{place}"
    play.winner_reason = f"first to defeat every monster at {place}"
    ctx.log.append(("table", "won_by_defeat", who.id, place))


def _take_beneath(ctx: Context, who: Character, place: str) -> None:
    """The cards left beneath the beaten guardians (the place's artefact) go to the winner."""
    pile = _zone(ctx, place)
    for card in [c for c in pile if ctx.rules.get(c) is not None and ctx.rules.entity(c).is_a("artefact")]:
        pile.remove(card)
        _marks(ctx).setdefault("artefact_from", {})[card] = place.split("#")[0]
        who.cards.append(card)
        ctx.record("take_card", card)


def space_cards_inactive(ctx: Context) -> None:
    """The cards where the character now stands do not act on it for the rest of this round (thrown back to the
    main board: the space beside the gate's place, `beside:<place>`)."""
    who = _who_key(ctx)
    gate = _marks(ctx).get(f"beside:{who}")
    where = _marks(ctx).get(f"at:{who}") or (f"beside:{gate}" if gate is not None else None)
    for card in _zones(ctx).get(str(where), ()) if where else []:
        _marks(ctx)[f"inactive:{_who_key(ctx)}:{card}"] = ctx.turn
    ctx.record("space_cards_inactive", where)


def draft_alongside(ctx: Context, cards: str, like: str) -> None:
    """Deal and pass the deck's cards together with those of `like`: each player ends with one card of each.
    The draft of `like` ran first; each player now keeps one card of this deck the same way."""
    players = sorted(ctx.characters)
    pile = _zone(ctx, cards)
    for p in players:
        options = tuple(sorted(set(pile)))
        if not options:
            break
        choice = str(ctx.ask("draft_alongside", options, p))
        pile.remove(choice)
        ctx.characters[p].cards.append(choice)
    _zone(ctx, "removed").extend(pile)
    pile.clear()
    ctx.record("draft_alongside", cards, like)


# ---- teams: trading between partners, a team's win, conceding --------------------------------------------


def _teams(ctx: Context) -> dict[str, int]:
    """Each player's team (`form_teams`), empty without teams."""
    return ctx.facts.get("marks", {}).get("teams", {})  # type: ignore[no-any-return]


def _partners(ctx: Context, who: str) -> list[str]:
    """Whom the player may trade with: the others of its team, or, without teams, every other player."""
    teams = _teams(ctx)
    order = list(ctx.play.order) if ctx.play is not None else sorted(ctx.characters)
    if not teams:
        return [p for p in order if p != who]
    return [p for p in order if p != who and teams.get(p) == teams.get(who)]


def _goods_kind(ctx: Context, card: str) -> str | None:
    """The kind of goods a card is for trading (`item` or `ability`: its kind, or the slot it counts as)."""
    entity = ctx.rules.get(card)
    if entity is None:
        return None
    for kind in ("item", "ability"):
        if entity.is_a(kind) or entity.attr("counts_as") == kind:
            return kind
    return None


def _meeting_place(ctx: Context, who: str) -> str | None:
    """Where the character stands, for meeting others: its field on another board, else its space."""
    marks = _marks(ctx)
    place = marks.get(f"at:{who}") if marks.get(f"board:{who}") else marks.get(f"space:{who}")
    return place if isinstance(place, str) else None


def _goods(ctx: Context, giver: Character, taker: Character, allowed: set[str]) -> list[str]:
    """What the giver may hand the taker: a resource it has some of, or a card the taker may own."""
    out = [r for r in ("gold", "experience") if r in allowed and giver.stats.get(r, 0) > 0]
    return out + [c for c in sorted(set(giver.cards))
                  if _goods_kind(ctx, c) in allowed and not _refusal(ctx, taker, c)]


def _hand_over(ctx: Context, giver: Character, taker: Character, goods: str, point: str) -> None:
    if goods in ("gold", "experience"):
        amount = int(ctx.ask(point, tuple(range(1, giver.stats[goods] + 1))))
        giver.stats[goods] -= amount
        taker.stats[goods] = taker.stats.get(goods, 0) + amount
        saved = ctx.actor
        ctx.actor = giver
        ctx.record("trade", goods, taker.id, amount)
        ctx.actor = saved
        return
    giver.cards.remove(goods)
    saved = ctx.actor
    ctx.actor = giver
    ctx.record("trade", goods, taker.id, 1)
    ctx.actor = saved
    _own(ctx, taker, goods)


def trade(ctx: Context, meeting: bool = False, exchange: bool = False) -> None:
    """The character may give a partner goods that a standing `tradeable` allows: an amount of a resource (gold,
    experience) or one card (an item, an ability) the partner may own. Offered as one choice, `none` first;
    without a standing trading rule or a partner nothing is asked. With `meeting`, only a partner standing where
    the character stands; with `exchange`, the character also names what it wants back (or nothing) and the
    partner accepts or refuses the deal (`refuse` first)."""
    who = _actor(ctx)
    allowed = {k.split(":", 1)[1] for k in _standing(ctx, who) if k.startswith("tradeable:")}
    partners = _partners(ctx, who.id)
    if meeting:
        here = _meeting_place(ctx, who.id)
        partners = [p for p in partners if here is not None and _meeting_place(ctx, p) == here]
    if not allowed or not partners:
        return
    offers = [f"{g}>{pid}" for pid in partners for g in _goods(ctx, who, ctx.characters[pid], allowed)]
    if not offers:
        return
    pick = str(ctx.ask("trade", ("none", *offers)))
    if pick == "none":
        return
    goods, _, to = pick.partition(">")
    partner = ctx.characters[to]
    if exchange:
        back = str(ctx.ask("trade_for", ("nothing", *(g for g in _goods(ctx, partner, who, allowed) if g != goods))))
        if str(ctx.ask("accept_trade", ("refuse", "accept"), chooser=to)) != "accept":
            ctx.record("trade_refused", to)
            return
        _hand_over(ctx, who, partner, goods, "trade_amount")
        if back != "nothing" and (back in ("gold", "experience") or back in partner.cards):
            _hand_over(ctx, partner, who, back, "trade_for_amount")
        return
    _hand_over(ctx, who, partner, goods, "trade_amount")


def team_behind(ctx: Context, kind: str, amount: int) -> bool:
    """Another team owns at least `amount` more cards of the kind than the character's team (no teams: false)."""
    teams = _teams(ctx)
    mine = teams.get(_actor(ctx).id)
    if mine is None:
        return False
    owned: dict[int, int] = {}
    for pid, team in teams.items():
        owned[team] = owned.get(team, 0) + _owned(ctx, ctx.characters[pid], kind)
    return any(n - owned[mine] >= amount for team, n in owned.items() if team != mine)


def teams(ctx: Context, range: Range) -> bool:  # noqa: A002
    """How many teams were formed lies in the range (0 without teams)."""
    return _in(len(set(_teams(ctx).values())), range)


def concede(ctx: Context) -> None:
    """The character's team gives up: the game ends at once and every player of the other teams wins."""
    play = ctx.play
    who = _actor(ctx)
    if play is None or play.game_over:
        return
    teams = _teams(ctx)
    mine = teams.get(who.id)
    play.winners = [p for p in play.order if p != who.id and (mine is None or teams.get(p) != mine)]
    play.game_over = play.turn_over = True
    play.end_reason = f"{who.id}:{ctx.owner or 'concede'}"
    play.winner_reason = "the other side conceded"
    ctx.record("concede", tuple(p for p in play.order if p not in play.winners))


def _team_win(ctx: Context) -> None:
    """At the game's end, under a standing `team_victory`: every player of a winner's team wins too."""
    play = ctx.play
    teams = _teams(ctx)
    if play is None or not play.winners or not teams or not _standing(ctx, None).get("team_victory"):
        return
    won = {teams[w] for w in play.winners if w in teams}
    everyone = [p for p in play.order if p in play.winners or teams.get(p) in won]
    if everyone != list(play.winners):
        ctx.log.append(("table", "team_win", tuple(play.winners), tuple(everyone)))
        play.winner_reason += "; the winner's team wins with it"
        play.winners = everyone
