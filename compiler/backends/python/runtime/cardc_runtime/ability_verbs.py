"""Verbs for using the cards a character owns and for cards that wound the other characters: a card used as a
turn's action or instead of moving (only where the standing rules let it be used: `standing.usable_here`), a
card that wounds everyone else (each target's own `wounding` modifiers and `wounded_by` effects apply), and a
game that ends when a deck runs out. Game-neutral: tags, kinds, decks and amounts are the content's arguments.

Each function is the runtime function of the catalogue verb of the same name (re-exported by `verbs.py`).
"""

from __future__ import annotations

from .context import Character, Context, actor_of
from .standing import standing, usable_here
from .table_verbs import _marks, _set, _teams, _who_key, use_printed

__all__ = ["can_use_card", "can_use_instead", "instead_of_moving", "no_reshuffle", "use_card", "use_instead",
           "win_by_most", "wound_others"]


# ---- standing modifiers -------------------------------------------------------------------------------


def instead_of_moving(ctx: Context, tag: str) -> None:
    _set(ctx, f"instead:{_who_key(ctx)}:{tag}")


def no_reshuffle(ctx: Context, deck: str) -> None:
    _set(ctx, f"no_reshuffle:{deck}")


# ---- using owned cards --------------------------------------------------------------------------------


def _has_use(ctx: Context, card: str) -> bool:
    return bool(ctx.rules.effects_of((card,), "use", ctx.variants))


def _usable(ctx: Context, who: Character, instead: bool) -> list[str]:
    """The cards the character owns that have a `use` effect and that it may use where it stands now; with
    `instead`, only those a standing `instead_of_moving` names by one of their tags."""
    now = standing(ctx, who)
    tags = {k.split(":", 2)[2] for k in now if k.startswith(f"instead:{who.id}:")} if instead else None
    if tags is not None and not tags:
        return []
    out = []
    for card in dict.fromkeys((*who.cards, *who.held())):
        entity = ctx.rules.get(card)
        if entity is None or not _has_use(ctx, card):
            continue
        if tags is not None and tags.isdisjoint(entity.tags):
            continue
        if usable_here(ctx, who, card, now):
            out.append(card)
    return out


def _use_one(ctx: Context, point: str, instead: bool) -> None:
    who = actor_of(ctx)
    cards = _usable(ctx, who, instead)
    if not cards:
        ctx.prevented = True
        ctx.record("nothing_to_use")
        return
    card = str(ctx.ask(point, tuple(cards)))
    ctx.record(point, card)
    saved = ctx.owner, ctx.effect
    ctx.owner, ctx.effect = card, ""
    try:
        use_printed(ctx)
    finally:
        ctx.owner, ctx.effect = saved


def can_use_card(ctx: Context) -> bool:
    return bool(_usable(ctx, actor_of(ctx), instead=False))


def use_card(ctx: Context) -> None:
    """The player picks one of its cards it may use here (choice point `use_card`), which is used as printed."""
    _use_one(ctx, "use_card", instead=False)


def can_use_instead(ctx: Context) -> bool:
    return bool(_usable(ctx, actor_of(ctx), instead=True))


def use_instead(ctx: Context) -> None:
    """Instead of moving, the player uses one of its cards a standing `instead_of_moving` allows (choice point
    `use_instead`), as printed."""
    _use_one(ctx, "use_instead", instead=True)


# ---- wounding the others ------------------------------------------------------------------------------


def wound_others(ctx: Context, amount: int) -> None:
    """Every other character loses `amount` lives, changed for each by the card's `wounding` modifiers (with
    that character as the target), unless a standing `unaffected_by` shields it from the card; then the
    target's `wounded_by(card)` effects run."""
    who = actor_of(ctx)
    card = ctx.owner
    order = list(ctx.play.order) if ctx.play is not None else sorted(ctx.characters)
    for pid in order:
        target = ctx.characters[pid]
        if target is who:
            continue
        if standing(ctx, target).get(f"unaffected:{pid}:{card}"):
            ctx.log.append((pid, "unaffected", card))
            continue
        lost = max(0, amount + _wounding_mod(ctx, who, target, card))
        ctx.log.append((pid, "wounded", card, lost))
        if lost:
            ctx.lose_lives(target, lost, card)
            saved = ctx.owner, ctx.effect
            try:
                ctx.fire("wounded_by", target, card=card)
            finally:
                ctx.owner, ctx.effect = saved


def _wounding_mod(ctx: Context, who: Character, target: Character, card: str) -> int:
    """The card's `wounding` modifiers for this target (its `damage_mod`s, read with the target set)."""
    saved = ctx.setup, ctx.prevented, ctx.owner, ctx.effect, ctx.facts.get("target")
    ctx.setup = {}
    ctx.facts["target"] = target.id
    try:
        for fx in ctx.rules.effects_of((card,), "wounding", ctx.variants):
            ctx.actor = who
            ctx.run(fx)
        return int(ctx.setup.get(f"damage_mod:{who.id}", 0))
    finally:
        ctx.setup, ctx.prevented, ctx.owner, ctx.effect = saved[:4]
        if saved[4] is None:
            ctx.facts.pop("target", None)
        else:
            ctx.facts["target"] = saved[4]
        ctx.actor = who


# ---- the end of a game --------------------------------------------------------------------------------


def win_by_most(ctx: Context, kind: str) -> None:
    """The game ends at once: whoever owns the most cards of the kind wins; players tied for the most share the
    win, except rivals of different teams: then nobody wins (else two teams would both win)."""
    play = ctx.play
    if play is None or play.game_over:
        return
    counts = {p: _count(ctx, ctx.characters[p], kind) for p in play.order}
    top = max(counts.values())
    leaders = [p for p in play.order if counts[p] == top]
    teams = _teams(ctx)
    rivals = bool(teams) and len({teams.get(p) for p in leaders}) > 1
    play.winners = [] if rivals else leaders
    play.game_over = True
    play.end_reason = f"{ctx.who()}:{ctx.owner or 'procedure'}"
    play.winner_reason = f"most cards of the kind {kind}: " + ", ".join(f"{p} {counts[p]}" for p in play.order)
    _marks(ctx)["won_by_most"] = kind
    ctx.log.append(("table", "winner", tuple(play.winners), tuple(counts.items())))


def _count(ctx: Context, who: Character, kind: str) -> int:
    return sum(1 for c in (*who.cards, *who.held()) if (e := ctx.rules.get(c)) is not None and e.is_a(kind))
