"""Verbs for games played with characters built from cards, on a board of places (spheres, decks of
adventures) and boards of paths: players' characters made from the cards their set-up dealt them, the
fields of a board's paths, adventures drawn and fought, attacks on places guarded by cards, and a win by
owning enough cards of a kind. Game-neutral: kinds, stats and counts come from the content's arguments.

Each function is the runtime function of the catalogue verb of the same name (re-exported by `verbs.py`).
"""

from __future__ import annotations

from typing import Any

from .context import Character, Context, actor_of
from .ring_verbs import entrances_here, space_of
from .standing import standing
from .table_verbs import _give_card, _marks, _taking_part, _zone, _zones

__all__ = ["attack_for_artefact", "attack_sphere", "build_characters", "can_attack_sphere", "card_here",
           "check_victory", "draw_adventure", "lay_on_spaces", "lay_paths", "meet_here", "on_main_board",
           "resource_at_least", "stop_here", "train"]


def _is(ctx: Context, card: str, kind: str) -> bool:
    entity = ctx.rules.get(card)
    return entity is not None and entity.is_a(kind)


# ---- set-up -------------------------------------------------------------------------------------------


def _fighter_card(ctx: Context, who: Character, stats: tuple[str, ...]) -> str | None:
    """The first of the character's cards that prints every stat and its maximum (a profession card)."""
    for card in who.cards:
        entity = ctx.rules.get(card)
        if entity is not None and all(entity.attr(s) is not None or entity.provisional(s) for s in stats) \
                and all(f"max_{s}" in entity.attrs for s in stats):
            return card
    return None


def build_characters(ctx: Context, stats: tuple[str, ...], lives: str) -> None:
    """Every player's character takes its stones from its cards: each stat is the printed value of the card
    that prints it plus the `stat_mod` modifiers of all its cards (so is its maximum, `max_<stat>`); its
    lives are the stones of the stat `lives` names. A value the content does not know stops the game; a
    modifier it does not know counts as 0 and is listed as provisional."""
    order = ctx.play.order if ctx.play is not None else sorted(ctx.characters)
    for pid in order:
        who = ctx.characters[pid]
        card = _fighter_card(ctx, who, stats)
        if card is None:
            raise RuntimeError(f"{pid} was dealt no card that prints {', '.join(stats)}: the set-up gives each "
                               f"player one (the content's deck holds too few for {len(order)} players?)")
        entity = ctx.rules.entity(card)
        mods = standing(ctx, who)
        for stat in stats:
            value, top = entity.attr(stat), entity.attr(f"max_{stat}")
            if not isinstance(value, int) or not isinstance(top, int):
                raise RuntimeError(f"{card}.{stat} is not known: give it a value (a provisional one will do)")
            for attr in (stat, f"max_{stat}"):
                note = entity.provisional(attr)
                if note:
                    ctx.provisional.add(f"{card}.{attr}: {note}")
            if mods.get(f"unknown:stat:{stat}"):
                ctx.provisional.add(f"{stat} modifier of {', '.join(c for c in who.cards if c != card)} is not "
                                    "known: counted as 0 in play")
            mod = int(mods.get(f"stat:{stat}", 0))
            who.stats[stat] = value + mod
            who.max_stats[stat] = top + mod
        who.lives = who.max_lives = who.stats[lives]
        ctx.log.append((pid, "character", card, tuple(c for c in who.cards if c != card),
                        ", ".join(f"{s} {who.stats[s]}/{who.max_stats[s]}" for s in stats)))
    ctx.facts["lives_stat"] = lives


def lay_paths(ctx: Context, board: str) -> None:
    """Every path of the board gets its fields as places `path#1`, `path#2`, ... with the shade its `shades`
    list gives each one (the fields `lay_out` lays cards on)."""
    for path in ctx.rules.of_kind("path"):
        if path.attr("board") != board:
            continue
        shades = path.attr("shades")
        if not isinstance(shades, list | tuple) or not shades:
            raise RuntimeError(f"{path.id} lists no `shades`: its fields are not known")
        for attr in ("shades", "fields"):
            note = path.provisional(attr)
            if note:
                ctx.provisional.add(f"{path.id}.{attr}: {note}")
        fields = path.attr("fields")
        if isinstance(fields, int) and fields != len(shades):
            raise RuntimeError(f"{path.id} has {fields} fields but {len(shades)} shades")
        for i, shade in enumerate(shades, 1):
            _zone(ctx, f"{path.id}#{i}")
            _marks(ctx)[f"shade:{path.id}#{i}"] = str(shade)
    ctx.record("lay_paths", board)


# ---- conditions ---------------------------------------------------------------------------------------


def on_main_board(ctx: Context) -> bool:
    """The character stands on the main board: on no path of another board (nor on the card that opens one)."""
    return not _marks(ctx).get(f"board:{actor_of(ctx).id}")


def resource_at_least(ctx: Context, resource: str, amount: int) -> bool:
    return actor_of(ctx).stats.get(resource, 0) >= amount


def _sphere_places(ctx: Context) -> list[str]:
    """The places cards were dealt to at set-up (`deal_to_spheres`) that still hold a card."""
    dealt = ctx.facts.get("marks", {}).get("sphere_places", [])
    return [p for p in dealt if _zone(ctx, p)]


def _attackable(ctx: Context, here: bool) -> list[str]:
    """The places still holding a card; with `here`, only those entered from the character's space."""
    places = _sphere_places(ctx)
    return entrances_here(ctx, actor_of(ctx).id, places) if here else places


def can_attack_sphere(ctx: Context, here: bool = False) -> bool:
    return bool(_attackable(ctx, here))


# ---- the main board -----------------------------------------------------------------------------------


def draw_adventure(ctx: Context, deck: str) -> None:
    """Draw the top card of the deck and meet it: a monster is fought at once (the fight's effects decide
    what a loss costs); beaten, its reward is taken and it is discarded; otherwise it goes under the deck.
    Any other card is used as printed (its `use` effects) and discarded."""
    from .fight import fight_monster

    pile = _zone(ctx, deck)
    if not pile:
        discard = _zone(ctx, f"{deck}:discard")
        if not discard:
            ctx.record("deck_empty", deck)
            return
        pile[:] = ctx.inputs.shuffle(list(discard)) if hasattr(ctx.inputs, "shuffle") else list(discard)
        discard.clear()
        ctx.record("shuffle", deck)
    card = pile.pop()
    who = actor_of(ctx)
    ctx.record("draw_adventure", card)
    if unplayable(ctx, card):
        return
    with _taking_part(ctx, card):
        if _is(ctx, card, "monster"):
            report = fight_monster(ctx, who, card)
            if report.outcome == "win":
                _reward(ctx, card)
                _zone(ctx, f"{deck}:discard").append(card)
            else:
                pile.insert(0, card)
            return
        for fx in ctx.rules.effects_of([card], "use", ctx.variants):
            ctx.run(fx)
    _zone(ctx, f"{deck}:discard").append(card)


def _top_of(ctx: Context, deck: str) -> str | None:
    """The deck's top card, taken off it; an empty deck is made again from its discards, shuffled."""
    pile = _zone(ctx, deck)
    if not pile:
        discard = _zone(ctx, f"{deck}:discard")
        if not discard:
            ctx.record("deck_empty", deck)
            return None
        pile[:] = ctx.inputs.shuffle(list(discard)) if hasattr(ctx.inputs, "shuffle") else list(discard)
        discard.clear()
        ctx.record("shuffle", deck)
    return pile.pop()


def _lay_on(ctx: Context, deck: str, space: str) -> None:
    card = _top_of(ctx, deck)
    if card is not None:
        _zone(ctx, space).append(card)
        _zone(ctx, "face_up").append(card)
        ctx.record("lay_on_space", card, space)


def lay_on_spaces(ctx: Context, cards: str, path: str, shades: tuple[str, ...]) -> None:
    """The top card of the deck is laid face up on every space of the path whose sort is one of `shades` and
    that holds no card yet (spaces as places `path#n`)."""
    sorts = ctx.rules.entity(path).attr("shades")
    if not isinstance(sorts, list | tuple):
        raise RuntimeError(f"{path} lists no `shades`: its spaces are not known")
    for n, sort in enumerate(sorts, 1):
        if str(sort) in shades and not _zone(ctx, f"{path}#{n}"):
            _lay_on(ctx, cards, f"{path}#{n}")


def _space_here(ctx: Context) -> str | None:
    pos = space_of(ctx, actor_of(ctx).id)
    return None if pos is None else f"{pos[0]}#{pos[1]}"


def card_here(ctx: Context) -> bool:
    """A card lies face up on the space the character stands on."""
    space = _space_here(ctx)
    return space is not None and bool(_zones(ctx).get(space))


def meet_here(ctx: Context, deck: str, refill: bool = True) -> None:
    """Meet the card lying on the character's space: a monster is fought (beaten, its reward is taken and it is
    discarded; otherwise it stays there); any other card is used as printed and discarded. With `refill` a space
    left empty gets the top card of the deck, face up."""
    from .fight import fight_monster

    space = _space_here(ctx)
    cards = _zones(ctx).get(space or "")
    if not space or not cards:
        ctx.prevented = True
        return
    card = cards[-1]
    who = actor_of(ctx)
    ctx.record("meet", card, space)

    def leave() -> None:
        cards.remove(card)
        face_up = _zone(ctx, "face_up")
        if card in face_up:
            face_up.remove(card)

    if unplayable(ctx, card):
        leave()
    else:
        with _taking_part(ctx, card):
            if _is(ctx, card, "monster"):
                if fight_monster(ctx, who, card).outcome == "win":
                    _reward(ctx, card)
                    leave()
                    _zone(ctx, f"{deck}:discard").append(card)
            else:
                for fx in ctx.rules.effects_of([card], "use", ctx.variants):
                    ctx.run(fx)
                leave()
                _zone(ctx, f"{deck}:discard").append(card)
    if refill and not cards:
        _lay_on(ctx, deck, space)


def unplayable(ctx: Context, card: str) -> bool:
    """A card to fight whose value the content does not know (the seeds do not give it) cannot be played: it
    leaves the game, and the game says so among its provisional parts."""
    entity = ctx.rules.get(card)
    stat = str(ctx.facts.get("fight_stat", "strength"))
    if entity is None or stat not in entity.attrs or isinstance(entity.attr(stat), int):
        return False
    _zone(ctx, "removed").append(card)
    ctx.provisional.add(f"{card}: its {stat} is not known, so it was left out of play")
    ctx.record("left_out", card)
    return True


def _reward(ctx: Context, card: str) -> None:
    """The card's printed gold and experience go to the character who beat it."""
    who = actor_of(ctx)
    entity = ctx.rules.entity(card)
    for resource in ("gold", "experience"):
        amount = entity.attr(resource)
        if isinstance(amount, int) and not isinstance(amount, bool) and amount:
            who.stats[resource] = who.stats.get(resource, 0) + amount
            ctx.record("gain", resource, amount)
            note = entity.provisional(resource)
            if note:
                ctx.provisional.add(f"{card}.{resource}: {note}")


def train(ctx: Context, stats: tuple[str, ...], cost: int, pay_with: str) -> None:
    """Pay `cost` of the resource to gain a stone of one of the stats (the player picks which); the
    `stat_gain` effects decide what gaining it means. Too little of the resource: nothing happens."""
    from .characters import gain_stat

    who = actor_of(ctx)
    if who.stats.get(pay_with, 0) < cost:
        ctx.prevented = True
        ctx.record("cannot_pay", pay_with, cost)
        return
    stat = str(ctx.ask("train", tuple(stats))) if len(stats) > 1 else stats[0]
    who.stats[pay_with] -= cost
    ctx.record("pay", pay_with, cost)
    before = who.stats.get(stat, 0)
    gain_stat(ctx, who, stat)
    if who.stats.get(stat, 0) > before and stat == ctx.facts.get("lives_stat"):
        who.max_lives += who.stats[stat] - before
        who.lives = min(who.max_lives, who.lives + who.stats[stat] - before)


def attack_sphere(ctx: Context, here: bool = False) -> None:
    """Attack a place the set-up dealt cards to (the player picks which): its top card is turned face up
    (its `card_revealed` effects run), `sphere_attacked` fires with it taking part, then the guardians lying
    there are fought one after another; whoever beats the last takes the cards beneath them."""
    from .table_verbs import besiege

    places = _attackable(ctx, here)
    if not places:
        return
    place = str(ctx.ask("attack_sphere", tuple(places)))
    pile = _zone(ctx, place)
    top = pile[-1]
    ctx.record("attack_sphere", place, top)
    face_up = _zone(ctx, "face_up")
    if top not in face_up:
        face_up.append(top)
        _marks(ctx)[f"revealed_by_attack:{top}"] = True
        with _taking_part(ctx, top):
            ctx.record("reveal", top)
            ctx.fire("card_revealed", actor_of(ctx))
    with _taking_part(ctx, top):
        ctx.fire("sphere_attacked", actor_of(ctx))
    entity = ctx.rules.get(pile[-1]) if pile else None
    if entity is not None and isinstance(entity.attr(str(ctx.facts.get("fight_stat", "strength"))), int):
        besiege(ctx, place)


def stop_here(ctx: Context) -> None:
    """The character ends its move where it stands: the `end_move` effects run, with the face-up card on top
    of its field (if any) taking part."""
    who = actor_of(ctx)
    where = _marks(ctx).get(f"at:{who.id}")
    cards = _zone(ctx, str(where)) if where else []
    face_up = set(_zone(ctx, "face_up"))
    top = cards[-1] if cards and cards[-1] in face_up else None
    with _taking_part(ctx, top):
        ctx.fire("end_move", who)


# ---- the end ------------------------------------------------------------------------------------------


def _owned(ctx: Context, who: Character, kind: str) -> list[str]:
    return [c for c in who.cards if _is(ctx, c, kind)]


def _all_owned(ctx: Context, kind: str) -> bool:
    """No card of the kind lies in a zone of the table (cards a character left where it died lie on no zone:
    whether they hold up the end is a standing rule's business, `blocks_final_battle`)."""
    for name, zone in _zones(ctx).items():
        if name in ("face_up", "removed", "aside"):
            continue
        if any(_is(ctx, c, kind) for c in zone):
            return False
    return True


def check_victory(ctx: Context, count: int) -> None:
    """Whoever owns `count` artefacts wins, once every standing condition of `win_check` holds (the
    artefact of a place must have an owner; the owners of a card must hold no artefact). When every
    artefact has an owner and nobody has won, `final_battle_start` fires (once)."""
    play = ctx.play
    if play is None or play.game_over:
        return
    saved = ctx.setup
    ctx.setup = dict(saved)
    try:
        ctx.fire("win_check", None)
        needs = {k: v for k, v in ctx.setup.items() if k.startswith("win_needs_")}
    finally:
        ctx.setup = saved
    winners = []
    for pid in play.order:
        who = ctx.characters[pid]
        if len(_owned(ctx, who, "artefact")) >= count and _conditions_hold(ctx, who, needs):
            winners.append(pid)
    if winners:
        play.winners = winners[:1]
        play.game_over = True
        play.end_reason = f"{winners[0]}:artefacts"
        play.winner_reason = "artefacts " + ", ".join(
            f"{p} {len(_owned(ctx, ctx.characters[p], 'artefact'))}" for p in play.order)
        ctx.log.append(("table", "winner", tuple(play.winners),
                        tuple((p, len(_owned(ctx, ctx.characters[p], "artefact"))) for p in play.order)))
        return
    if "final_battle_start" not in ctx.fired and _all_owned(ctx, "artefact") \
            and any(_owned(ctx, c, "artefact") for c in ctx.characters.values()):  # (none in play: no battle)
        if standing(ctx, None).get("blocks_final_battle"):  # e.g. a dead character's artefacts lie untaken
            if ("table", "final_battle_blocked") not in ctx.log[-1:]:
                ctx.log.append(("table", "final_battle_blocked"))
            return
        ctx.log.append(("table", "final_battle"))
        ctx.fire("final_battle_start", None)
        current = ctx.characters[play.current]
        for place in ctx.facts.get("marks", {}).get("sphere_places", []):  # the cards still lying in them
            for card in list(_zone(ctx, place)):
                with _taking_part(ctx, card):
                    ctx.fire("final_battle_start", current)


def _conditions_hold(ctx: Context, who: Character, needs: dict[str, Any]) -> bool:
    for key in needs:
        kind, _, arg = key.partition(":")
        if kind == "win_needs_owner":  # the artefact that lay at this place has an owner
            came = {c for c, p in _marks(ctx).get("artefact_from", {}).items() if p == arg}
            if not came or not any(c in o.cards for o in ctx.characters.values() for c in came):
                return False
        elif kind == "win_needs_artefacts_of":  # every other owner of the card holds no artefact
            for other in ctx.characters.values():
                if other is not who and arg in other.cards and _owned(ctx, other, "artefact"):
                    return False
    return True


def attack_for_artefact(ctx: Context) -> None:
    """Fight another character who owns an artefact (the acting player picks whom), by the procedure `fight`;
    the winner takes one artefact of the loser, its own pick."""
    from .fight import duel

    me = actor_of(ctx)
    others = tuple(p for p in sorted(ctx.characters) if p != me.id and _owned(ctx, ctx.characters[p], "artefact"))
    if not others:
        return
    target = ctx.characters[str(ctx.ask("attack_for_artefact", others))]
    report = duel(ctx, me, target)
    if report.outcome == "tie":
        return
    winner, loser = (me, target) if report.outcome == "win" else (target, me)
    pool = tuple(sorted(set(_owned(ctx, loser, "artefact"))))
    if not pool:
        return
    card = str(ctx.ask("seize_artefact", pool, winner.id))
    loser.cards.remove(card)
    saved = ctx.actor
    ctx.actor = winner
    try:
        _give_card(ctx, winner, card)
    finally:
        ctx.actor = saved
